/*
 * fuzz_cli.c - libFuzzer harness for every command-line parser in
 * common/cli.c: CPU lists, durations, sizes and size lists, percentages and
 * plain numbers. The first byte picks the parser, the rest is its text.
 * Besides memory errors and undefined behaviour, what a parser accepts must
 * make sense: a CPU list formats and parses back to itself, a number lies
 * in its range, a duration is the number times its unit.
 */
#include "common/cli.h"
#include "fuzz/fuzz.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cpulist(const char *s)
{
	static const struct cli_cpus online = { .n = 4, .cpu = { 0, 1, 2, 3 } };
	static struct cli_cpus a, b;
	if (cli_parse_cpulist(s, &online, &a))
		return;
	FUZZ_CHECK(a.n > 0 && a.n <= CLI_MAX_CPUS);
	for (int i = 0; i < a.n; i++) {
		FUZZ_CHECK(a.cpu[i] >= 0 && a.cpu[i] < CLI_MAX_CPUS);
		FUZZ_CHECK(i == 0 || a.cpu[i - 1] < a.cpu[i]);
		FUZZ_CHECK(cli_cpus_contains(&a, a.cpu[i]));
	}
	static char text[8 * CLI_MAX_CPUS];
	cli_format_cpulist(&a, text, sizeof text);
	FUZZ_CHECK(cli_parse_cpulist(text, NULL, &b) == 0);
	FUZZ_CHECK(a.n == b.n && !memcmp(a.cpu, b.cpu, (size_t)a.n * sizeof a.cpu[0]));
}

/* the number at the start of s, and its unit's ns, as the parser documents them */
static void duration(const char *s)
{
	uint64_t ns;
	if (cli_parse_duration_ns(s, &ns))
		return;
	char *e;
	double v = strtod(s, &e), unit = 1e9;
	static const struct {
		const char *u;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(e, units[i].u))
			unit = units[i].ns;
	FUZZ_CHECK(fabs((double)ns - v * unit) <= 1 + 1e-12 * v * unit);
}

static void sizes(const char *s)
{
	uint64_t out[16], one;
	size_t n = 99;
	int rc = cli_parse_sizes(s, out, 16, &n);
	FUZZ_CHECK(n <= 16);
	if (rc == -EEXIST)
		FUZZ_CHECK(n < 16);
	if (!rc && !strchr(s, ':'))
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < i; k++)
				FUZZ_CHECK(out[i] != out[k]);
	cli_parse_size(s, &one);
}

static void numbers(const char *s)
{
	double f;
	uint64_t u;
	int i;
	char back[64];
	if (!cli_parse_percent(s, &f))
		FUZZ_CHECK(f > 0 && f < 1);
	if (!cli_parse_u64(s, 10, 1000000, &u))
		FUZZ_CHECK(u >= 10 && u <= 1000000);
	if (!cli_parse_int(s, -1000, 1000, &i)) {
		FUZZ_CHECK(i >= -1000 && i <= 1000);
		snprintf(back, sizeof back, "%d", i);
		int j;
		FUZZ_CHECK(cli_parse_int(back, -1000, 1000, &j) == 0 && i == j);
	}
	if (!cli_parse_double(s, -1e7, 1e7, &f))
		FUZZ_CHECK(isfinite(f) && f >= -1e7 && f <= 1e7);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		cpulist(s);
		break;
	case 1:
		duration(s);
		break;
	case 2:
		sizes(s);
		break;
	default:
		numbers(s);
		break;
	}
	free(s);
	return 0;
}
