/* reportline.h - parsing the one-line reports of the fluid and of put, and what a fluid report says */
#ifndef REPORTLINE_H
#define REPORTLINE_H

#include "common/chunkstat.h"

#include <stdint.h>
#include <string.h>

/* A value the OS may not provide: avail 0 means n/a, with the reason in why. */
struct report_val {
	double v;
	int avail;
	char why[24];
};

struct fluid_report {
	int cpu, ran_on;
	char sched[8];
	char variant[32];
	char stop[8];
	uint64_t chunk_loops, loops;
	uint64_t start_ns, end_ns, cpu_ns;
	uint64_t chunks, min_chunk_ns, max_chunk_ns;
	uint64_t ok_n, ok_ns, gap_n, gap_ns, post_n, post_ns;
	uint64_t clock_res_ns;
	uint64_t raw_start_ns, raw_end_ns; /* by the real clock; start_ns, end_ns when not simulating one */
	struct report_val task_clock_ns; /* perf task-clock of the fluid: includes steal */
	/*
	 * the fluid's CPU idle in the run (/proc/timer_list, root only): the
	 * fluid never blocks, so only a cgroup's CPU limit (cpu.max) leaves the
	 * CPU idle while it runs; not available from an older fluid
	 */
	struct report_val idle_ns;
	/*
	 * not the fluid's: set by the coordinator from a scheduler trace
	 * (--trace-others), the time tasks neither displace's nor the PUT's
	 * helpers held the CPU in this window (others_ns), and the time the
	 * trace cannot tell who held it (unknown_ns); avail 0 without a trace
	 */
	struct report_val others_ns, unknown_ns;
	/* ... and the context switches the trace saw on its CPU in a co-run (each one costs the CPU the event) */
	struct report_val switches;
	uint64_t hist[CHUNKSTAT_BUCKETS];
};

struct put_report {
	char workload[32];
	int cpu, ran_on;
	uint64_t ops, runs, setup_ns, start_ns, end_ns;
	struct report_val utime_ns, stime_ns, task_clock_ns, cputime_ns, schedstat_ns;
	long nvcsw, nivcsw;
	int cmd_status; /* exec: the first non-zero exit status; -1 if not reported */
	char extra[512]; /* the workload's own fields, verbatim */
};

/* report_parse_fluid - parse a "fluid ..." line. -EBADMSG names nothing; err gets the field */
int report_parse_fluid(const char *line, struct fluid_report *r, char *err, size_t errlen);
/* report_parse_put - parse a "put ..." line */
int report_parse_put(const char *line, struct put_report *r, char *err, size_t errlen);
/* report_field - the value of key in a key=value line, copied into buf; NULL if absent */
const char *report_field(const char *line, const char *key, char *buf, size_t len);

/* the first line of a fluid run with --ready, as its window starts */
#define FLUID_READY_LINE "fluid ready\n"

/* fluid_said_ready - 1 if the fluid's output so far (NUL-terminated, or NULL) begins with FLUID_READY_LINE */
static inline int fluid_said_ready(const char *out)
{
	return out && !strncmp(out, FLUID_READY_LINE, sizeof FLUID_READY_LINE - 1);
}

/* fluid_wall_ns - T_F: the fluid's wall time */
double fluid_wall_ns(const struct fluid_report *r);
/*
 * fluid_raw_wall_ns - T_F by the real clock: with a simulated slow clock
 * (clock_res_ns > 1), the same run's wall time as CLOCK_MONOTONIC_RAW saw it
 */
double fluid_raw_wall_ns(const struct fluid_report *r);
/*
 * fluid_window_holds - 1 if the fluid's window (by the real clock) began at
 * or before from_raw_ns and ended at or after to_raw_ns (CLOCK_MONOTONIC_RAW
 * both): a co-run's fluid must hold the PUT's whole run, spawn to exit
 */
int fluid_window_holds(const struct fluid_report *r, uint64_t from_raw_ns, uint64_t to_raw_ns);
/* fluid_traced_ns - the window's other tasks' time by a scheduler trace (others_ns), 0 when not traced */
double fluid_traced_ns(const struct fluid_report *r);
/* fluid_tau_ns - T_F / L_F: seconds per loop including whatever else ran (Woodside step 1) */
double fluid_tau_ns(const struct fluid_report *r);
/* fluid_tau0_ns - the undisturbed speed: mean of the ok chunks per loop; NAN without ok chunks */
double fluid_tau0_ns(const struct fluid_report *r);
/* fluid_excess_ns - T_F - L_F tau0: the time other work took from the fluid */
double fluid_excess_ns(const struct fluid_report *r);
/*
 * fluid_steal_ns - the fluid's task-clock (local_clock) minus its scheduler
 * CPU time (clock_task, which leaves steal out): the time the hypervisor
 * stole while it was current, plus a signed share that the two clocks
 * attribute differently at context switches. That share cancels only in
 * the sum over every task of the CPU. 0 when task-clock is unavailable.
 */
double fluid_steal_ns(const struct fluid_report *r);
/* fluid_post_extra_ns - the post-gap chunks' time beyond undisturbed chunks (cache reload) */
double fluid_post_extra_ns(const struct fluid_report *r);

#endif
