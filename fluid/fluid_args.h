/* fluid_args.h - the fluid's command line */
#ifndef FLUID_ARGS_H
#define FLUID_ARGS_H

#include <stddef.h>
#include <stdint.h>

enum fluid_sched { FLUID_SCHED_IDLE, FLUID_SCHED_NICE, FLUID_SCHED_NORMAL };

struct fluid_args {
	int cpu;                 /* -1: do not pin */
	enum fluid_sched sched;
	uint64_t run_ns;         /* 0: until told to stop */
	uint64_t chunk_loops;
	uint64_t clock_res_ns;   /* 0: the real clock */
	uint64_t clock_phase_ns;
	uint64_t yield_every;    /* chunks between sched_yield calls; 0: never */
	const char *gap_log;     /* write each gap's start and end here (benches); NULL: no log */
	int ready;               /* print "fluid ready" as the window starts (just after its first clock reading) */
	int no_task_clock;       /* no perf task-clock: task_clock_ns n/a (benches; off-CPU then has none) */
	int help;
};

#define FLUID_DEFAULT_CHUNK_LOOPS 1000

/* fluid_sched_name - "idle", "nice" or "normal" */
const char *fluid_sched_name(enum fluid_sched s);
/* fluid_sched_parse - the inverse; -EINVAL for anything else */
int fluid_sched_parse(const char *s, enum fluid_sched *out);

/*
 * fluid_parse_args - parse argv into *a (defaults first). On a bad argument
 * returns -EINVAL with a one-line reason in err.
 */
int fluid_parse_args(int argc, char **argv, struct fluid_args *a, char *err, size_t errlen);

#endif
