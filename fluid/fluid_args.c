/* fluid_args.c - the fluid's command line */
#include "fluid/fluid_args.h"
#include "common/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *fluid_sched_name(enum fluid_sched s)
{
	switch (s) {
	case FLUID_SCHED_IDLE:
		return "idle";
	case FLUID_SCHED_NICE:
		return "nice";
	case FLUID_SCHED_NORMAL:
		return "normal";
	}
	return "?";
}

int fluid_sched_parse(const char *s, enum fluid_sched *out)
{
	static const enum fluid_sched all[] = { FLUID_SCHED_IDLE, FLUID_SCHED_NICE, FLUID_SCHED_NORMAL };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (s && !strcmp(s, fluid_sched_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return -EINVAL;
}

int fluid_parse_args(int argc, char **argv, struct fluid_args *a, char *err, size_t errlen)
{
	static const char *const opts[] = { "--cpu", "--sched", "--seconds", "--chunk-loops",
					    "--clock-resolution", "--clock-phase", "--yield-every", "--gap-log" };
	memset(a, 0, sizeof *a);
	a->cpu = -1;
	a->sched = FLUID_SCHED_IDLE;
	a->chunk_loops = FLUID_DEFAULT_CHUNK_LOOPS;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			a->help = 1;
			continue;
		}
		if (!strcmp(arg, "--ready")) {
			a->ready = 1;
			continue;
		}
		if (!strcmp(arg, "--no-task-clock")) {
			a->no_task_clock = 1;
			continue;
		}
		size_t k;
		const char *v = NULL;
		int missing = 0;
		for (k = 0; k < sizeof opts / sizeof opts[0]; k++)
			if ((v = cli_opt_value(argc, argv, &i, opts[k], &missing)) || missing)
				break;
		if (k == sizeof opts / sizeof opts[0]) {
			snprintf(err, errlen, "unknown argument '%s'", arg);
			return -EINVAL;
		}
		if (!v) {
			snprintf(err, errlen, "option '%s' needs a value", opts[k]);
			return -EINVAL;
		}
		int rc = 0;
		switch (k) {
		case 0:
			rc = cli_parse_int(v, 0, CLI_MAX_CPUS - 1, &a->cpu);
			break;
		case 1:
			rc = fluid_sched_parse(v, &a->sched);
			break;
		case 2:
			rc = cli_parse_duration_ns(v, &a->run_ns);
			break;
		case 3:
			rc = cli_parse_u64(v, 1, 1000000000, &a->chunk_loops);
			break;
		case 4:
			rc = cli_parse_duration_ns(v, &a->clock_res_ns);
			break;
		case 5:
			rc = cli_parse_duration_ns(v, &a->clock_phase_ns);
			break;
		case 6:
			rc = cli_parse_u64(v, 0, 1000000000, &a->yield_every);
			break;
		case 7:
			a->gap_log = v;
			rc = *v ? 0 : -EINVAL;
			break;
		}
		if (rc) {
			snprintf(err, errlen, "invalid value '%s' for %s", v, opts[k]);
			return -EINVAL;
		}
	}
	if (a->clock_res_ns > 1 && a->clock_phase_ns >= a->clock_res_ns) {
		snprintf(err, errlen, "--clock-phase must be below --clock-resolution");
		return -EINVAL;
	}
	return 0;
}
