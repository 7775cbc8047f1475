/*
 * put_spin.c - spin: each operation consumes N us of CPU in the fluid's own
 * arithmetic loop. Pure computation, so OS accounting is right here: this
 * workload validates the method (Woodside Table 1).
 */
#include "common/cli.h"
#include "fluid/spin.h"
#include "put/put.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct spin {
	double us;
	double ns_per_loop;   /* calibrated against the thread's CPU clock */
	uint64_t fixed_loops; /* --loops-per-op: no calibration, identical work in every run */
	uint64_t loops_per_op;
	uint64_t sink;
};

static int spin_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	struct spin *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->us = 100;
	int us_given = 0;
	for (int i = 1; i < argc; i++) {
		int missing;
		const char *v = cli_opt_value(argc, argv, &i, "--loops-per-op", &missing);
		if (v) {
			if (cli_parse_u64(v, 1, UINT64_MAX / 2, &s->fixed_loops)) {
				snprintf(err, errlen, "invalid value '%s' for --loops-per-op", v);
				free(s);
				return -EINVAL;
			}
			continue;
		}
		if (!missing)
			v = cli_opt_value(argc, argv, &i, "--us", &missing);
		if (!v) {
			snprintf(err, errlen, missing ? "option '--us' needs a value" : "unknown option '%s'", argv[i]);
			free(s);
			return -EINVAL;
		}
		if (cli_parse_double(v, 0.01, 1e7, &s->us)) {
			snprintf(err, errlen, "invalid value '%s' for --us (0.01 to 1e7)", v);
			free(s);
			return -EINVAL;
		}
		us_given = 1;
	}
	/* one would be ignored: --loops-per-op fixes the work, --us has it calibrated */
	if (us_given && s->fixed_loops) {
		snprintf(err, errlen, "--us and --loops-per-op exclude each other: give the time (calibrated at "
				      "start-up) or the loops");
		free(s);
		return -EINVAL;
	}
	*state = s;
	return 0;
}

/*
 * Calibrate on the CPU we are pinned to: the fastest of four ~2 ms trials,
 * in thread CPU time, so that time stolen from us does not count. Skipped
 * with --loops-per-op, which makes every run do identical work.
 */
static int spin_setup(void *state, char *err, size_t errlen)
{
	struct spin *s = state;
	(void)err;
	(void)errlen;
	if (s->fixed_loops) {
		s->loops_per_op = s->fixed_loops;
		s->ns_per_loop = 0;
		return 0;
	}
	s->ns_per_loop = spin_calibrate_ns_per_loop();
	s->loops_per_op = (uint64_t)(s->us * 1000 / s->ns_per_loop + 0.5);
	if (s->loops_per_op == 0)
		s->loops_per_op = 1;
	return 0;
}

static int spin_run(void *state, uint64_t ops, char *err, size_t errlen)
{
	struct spin *s = state;
	(void)err;
	(void)errlen;
	for (uint64_t i = 0; i < ops; i++)
		s->sink = spin_loops(s->loops_per_op, s->sink);
	return 0;
}

static void spin_report(void *state, FILE *f)
{
	struct spin *s = state;
	fprintf(f, " spin_us=%.3f spin_ns_per_loop=%.5f spin_loops_per_op=%" PRIu64 " sink=%" PRIu64, s->us,
		s->ns_per_loop, s->loops_per_op, s->sink & 0xff);
}

static void spin_teardown(void *state)
{
	free(state);
}

const struct put_workload put_spin = {
	.name = "spin",
	/* the pilot learns the calibrated loops per op; every run then does identical work */
	.pilot = { .null_run = 1, .op_us_field = "spin_us", .fix_field = "spin_loops_per_op",
		   .fix_option = "--loops-per-op", .fix_replaces = "--us" },
	.summary = "a calibrated CPU demand of N us per operation (validates the method)",
	.usage = "[--us N | --loops-per-op N]",
	.help = "  --us N           CPU time per operation, in microseconds (default 100),\n"
		"                   calibrated at start-up on the measured CPU\n"
		"  --loops-per-op N fluid loops per operation instead: no calibration\n"
		"                   (not with --us)\n",
	.parse = spin_parse,
	.setup = spin_setup,
	.run = spin_run,
	.report = spin_report,
	.teardown = spin_teardown,
};
