/*
 * schedtrace.h - a tracefs instance of displace's own, recording the
 * scheduler's switches and forks, read into a switchlog (calib/switchlog.h)
 * so that each fluid window can be told how long other tasks held its CPU.
 *
 * The instance (/sys/kernel/tracing/instances/displace-PID) has its own
 * ring buffer and clock (mono_raw, the clock of every displace timestamp),
 * so it leaves the global trace and other tools' instances alone. It needs
 * root (or write access to tracefs); tracefs is mounted if it is not.
 */
#ifndef SCHEDTRACE_H
#define SCHEDTRACE_H

#include "calib/reportline.h"
#include "calib/switchlog.h"

#include <stddef.h>
#include <stdint.h>

struct schedtrace {
	char dir[192];          /* the instance's directory; "" when closed */
	int pipe_fd;            /* its trace_pipe, non-blocking */
	char part[4096];        /* a line not yet ended by the last read */
	size_t npart;
	struct swl log;
	uint64_t bad_lines;     /* sched_* lines the log could not read */
	uint64_t windows;       /* fluid windows accounted */
	int own_pid;            /* displace's pid as the trace names it (the host's, in a container) */
	uint64_t mark[SWL_MAX_CPUS]; /* each CPU's switches read at the last schedtrace_mark */
};

/*
 * schedtrace_usable - whether schedtrace_open can be expected to work: root,
 * and tracefs there (mounted at /sys/kernel/tracing if it was not) with
 * room for an instance
 */
int schedtrace_usable(void);
/*
 * schedtrace_open - make and start the instance; this process, by the pid
 * the trace gives it (the host's, in a container's PID namespace), and
 * everything it forks from now on are displace's. 0, or -errno with err
 * saying what failed (-EACCES: not root; -ETIME: its marker never came back).
 */
int schedtrace_open(struct schedtrace *t, char *err, size_t errlen);

/*
 * schedtrace_fill - read what the trace holds now, and set each report's
 * others_ns and unknown_ns: other tasks' time, and time no one can be
 * named for, on its CPU within its window. Stretches before the earliest
 * window are forgotten. 0 or -errno.
 */
int schedtrace_fill(struct schedtrace *t, struct fluid_report *reps, int n);

/*
 * schedtrace_mark - read what the trace holds now, and start counting each
 * CPU's switches from here: before a co-run, so that its report's switches
 * are its own. 0 or -errno.
 */
int schedtrace_mark(struct schedtrace *t);
/* schedtrace_switches - the switches the trace has read on cpu since the last schedtrace_mark */
uint64_t schedtrace_switches(const struct schedtrace *t, int cpu);

/*
 * schedtrace_dropped - events the ring buffer overwrote before they were
 * read, summed over the CPUs (per_cpu/cpuN/stats "overrun"); -errno if
 * unreadable. Any means some windows' accounts are short.
 */
int schedtrace_dropped(const struct schedtrace *t, uint64_t *n);

/* schedtrace_close - stop and remove the instance; safe to call twice */
void schedtrace_close(struct schedtrace *t);

#endif
