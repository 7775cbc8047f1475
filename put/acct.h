/* acct.h - the OS's own accounting of the timed loop, as the PUT sees it */
#ifndef ACCT_H
#define ACCT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

/* One source: its value in ns, or the -errno that made it unavailable. */
struct acct_val {
	uint64_t ns;
	int err; /* 0: available, else -errno */
};

struct acct {
	int children;      /* count child processes too (exec) */
	int perf_fd;
	int perf_err;      /* 0 or -errno */
	struct rusage ru0, ruc0, ru1, ruc1;
	uint64_t cpu0_ns, cpu1_ns;
	uint64_t sched0_ns, sched1_ns;
	int sched_err;     /* 0 or -errno */
	uint64_t task_clock_ns;
};

/*
 * acct_open - prepare the sources; perf task-clock, when task_clock is
 * set, is opened disabled, counting this process (and, with children, its
 * descendants). Never fails: an unavailable source is kept as its -errno
 * (-ECANCELED: not asked for).
 */
void acct_open(struct acct *a, int children, int task_clock);
/* acct_start - reset and enable task-clock (ioctl), take the other snapshots */
void acct_start(struct acct *a);
/* acct_stop - disable task-clock (ioctl) and take the final snapshots */
void acct_stop(struct acct *a);
/* acct_close - release the perf fd */
void acct_close(struct acct *a);

/* acct_getrusage_ns - user + system time of the loop (and of its children) */
struct acct_val acct_getrusage_ns(const struct acct *a);
struct acct_val acct_utime_ns(const struct acct *a);
struct acct_val acct_stime_ns(const struct acct *a);
struct acct_val acct_task_clock_ns(const struct acct *a);
struct acct_val acct_cputime_ns(const struct acct *a);
struct acct_val acct_schedstat_ns(const struct acct *a);

/* acct_print - the accounting as " key=value" fields ("n/a:ERRNO" when unavailable) */
void acct_print(const struct acct *a, FILE *f);

#endif
