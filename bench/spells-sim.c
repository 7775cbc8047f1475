/*
 * spells-sim.c - the spells test (stats_batch_f, p below STATS_SPELLS_P) on
 * simulated series and on given ones; bench/spells-test builds and runs it.
 *
 * usage: spells-sim sim SERIES SEED LEN...   for each length, independent
 *            normal series: how often each test alarms; then series with a
 *            step of 0.5, 1 and 2 sd at evenly spread points in the middle
 *            60 % (series k at 20 + 60 (k mod 1000) / 1000 % of its length):
 *            how often each test catches it. The tests: the F test
 *            (displace's since 2026-11-25) and the one before it, 5 batch
 *            means' interval over 2.5 times the t interval.
 *        spells-sim replay                    one series per line of stdin
 *            (numbers in time order): n, F, p and both tests' verdicts.
 */
#include "calib/stats.h"
#include "tests/normal_draw.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES 5
#define OLD_RATIO 2.5
#define MAX_LEN 100000

static int f_test(const double *x, size_t n)
{
	double p;
	stats_batch_f(x, n, BATCHES, &p);
	return p < STATS_SPELLS_P;
}

static int old_test(const double *x, size_t n)
{
	return stats_batch_half(x, n, BATCHES, 0.95) > OLD_RATIO * stats_ci_half(stats_sd(x, n), n, 0.95);
}

static int sim(long series, uint64_t seed, int nlen, char **lens)
{
	static double x[MAX_LEN];
	static const double steps_sd[] = { 0, 0.5, 1, 2 };
	printf("%-8s %7s %8s %14s %14s\n", "values", "step", "series", "F test (p<1%)", "old (2.5x)");
	for (int l = 0; l < nlen; l++) {
		long n = strtol(lens[l], NULL, 10);
		if (n < 2 * BATCHES || n > MAX_LEN) {
			fprintf(stderr, "spells-sim: a length is %d to %d values\n", 2 * BATCHES, MAX_LEN);
			return 2;
		}
		for (size_t s = 0; s < sizeof steps_sd / sizeof *steps_sd; s++) {
			uint64_t state = seed + (uint64_t)(1000 * l + s);
			long f = 0, old = 0;
			for (long k = 0; k < series; k++) {
				long at = (long)((0.2 + 0.6 * (double)(k % 1000) / 1000) * (double)n);
				for (long i = 0; i < n; i++)
					x[i] = normal_draw(&state) + (i >= at ? steps_sd[s] : 0);
				f += f_test(x, (size_t)n);
				old += old_test(x, (size_t)n);
			}
			printf("%-8ld %4.1f sd %8ld %13.2f%% %13.2f%%\n", n, steps_sd[s], series, 100.0 * (double)f / (double)series,
			       100.0 * (double)old / (double)series);
		}
	}
	return 0;
}

static int replay(void)
{
	static double x[MAX_LEN];
	static char line[1 << 21];
	printf("%-6s %9s %10s %6s %6s\n", "n", "F", "p", "F", "old");
	while (fgets(line, sizeof line, stdin)) {
		size_t n = 0;
		char *end, *s = line;
		for (double v = strtod(s, &end); end != s && n < MAX_LEN; v = strtod(s, &end)) {
			x[n++] = v;
			s = end;
		}
		double p, f = stats_batch_f(x, n, BATCHES, &p);
		printf("%-6zu %9.3f %10.3g %6s %6s\n", n, f, p, p < STATS_SPELLS_P ? "yes" : "no",
		       n >= 2 * BATCHES && old_test(x, n) ? "yes" : "no");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "sim")) {
		long series = strtol(argv[2], NULL, 10);
		if (series < 1) {
			fprintf(stderr, "spells-sim: SERIES is 1 or more\n");
			return 2;
		}
		return sim(series, strtoull(argv[3], NULL, 10), argc - 4, argv + 4);
	}
	if (argc == 2 && !strcmp(argv[1], "replay"))
		return replay();
	fprintf(stderr, "usage: spells-sim sim SERIES SEED LEN... | spells-sim replay\n");
	return 2;
}
