/* procfs.h - parsers for /proc files, and readers that feed them */
#ifndef PROCFS_H
#define PROCFS_H

#include <stddef.h>
#include <stdint.h>

#define PROCFS_MAX_CPUS 256

/* One line of /proc/stat, in USER_HZ ticks. */
struct procfs_cpu {
	int cpu; /* -1 for the "cpu" total line */
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct procfs_stat {
	int n;                   /* per-CPU lines */
	struct procfs_cpu all;
	struct procfs_cpu cpu[PROCFS_MAX_CPUS];
	uint64_t procs_running;
	uint64_t ctxt;
};

/* per-CPU counts of /proc/softirqs rows that matter here */
struct procfs_softirqs {
	int ncpu;
	uint64_t net_rx[PROCFS_MAX_CPUS];
	uint64_t net_tx[PROCFS_MAX_CPUS];
	uint64_t timer[PROCFS_MAX_CPUS];
	uint64_t sched[PROCFS_MAX_CPUS];
};

/*
 * /proc/interrupts, summed per CPU into the kinds that matter here:
 * interrupts of devices (the numbered lines), wake-up and function-call
 * IPIs from other CPUs (RES, CAL, TLB), and the local timer (LOC).
 */
struct procfs_interrupts {
	int ncpu;
	uint64_t dev[PROCFS_MAX_CPUS];
	uint64_t ipi[PROCFS_MAX_CPUS];
	uint64_t timer[PROCFS_MAX_CPUS];
};

/* The precise idle time of each CPU, from /proc/timer_list (root only): ns, by CLOCK_MONOTONIC. */
struct procfs_idle {
	int ncpu;
	uint64_t now_ns;                     /* "now at" of the reading */
	uint64_t sleep_ns[PROCFS_MAX_CPUS];  /* idle_sleeptime: idle periods that have ended */
	uint64_t iowait_ns[PROCFS_MAX_CPUS]; /* iowait_sleeptime: the same, with a task of the CPU waiting on I/O */
	uint64_t entry_ns[PROCFS_MAX_CPUS];  /* the last idle entry */
	uint64_t exit_ns[PROCFS_MAX_CPUS];   /* the last idle exit */
};

struct procfs_loadavg {
	double l1, l5, l15;
	int running, total;
};

/* One process from /proc/<pid>/stat. */
struct procfs_task {
	int pid, ppid;
	char comm[64];
	uint64_t cpu_ticks;   /* utime + stime, USER_HZ ticks */
	uint64_t start_ticks; /* start time since boot: tells a reused pid apart */
};

/* procfs_parse_stat - parse the text of /proc/stat. -EBADMSG if malformed */
int procfs_parse_stat(const char *text, struct procfs_stat *s);
/* procfs_parse_softirqs - parse /proc/softirqs. -EBADMSG if malformed */
int procfs_parse_softirqs(const char *text, struct procfs_softirqs *s);
/* procfs_parse_interrupts - parse /proc/interrupts. -EBADMSG if malformed */
int procfs_parse_interrupts(const char *text, struct procfs_interrupts *s);
/* procfs_parse_timer_list - the idle fields of each CPU in /proc/timer_list. -EBADMSG if none */
int procfs_parse_timer_list(const char *text, struct procfs_idle *s);
/*
 * procfs_idle_ns - cpu's idle time up to the reading, idle and iowait: the
 * ended periods (exact, from timer_list) plus the open one when the CPU was
 * idle then. timer_list cannot tell whether a period is open (see
 * procfs_idle_ended_ns: on 6.1 and 6.18 a period's end moves the entry
 * time too), but /proc/stat's idle and iowait of the CPU count the open
 * period, in ticks of 1/user_hz s: what stat (that CPU's line, read just
 * before s) shows beyond the ended periods is the open period, less up to
 * two ticks, and at most now less the last entry. stat NULL: no open
 * period. -1 if unknown
 */
int64_t procfs_idle_ns(const struct procfs_idle *s, int cpu, const struct procfs_cpu *stat, long user_hz);
/*
 * procfs_idle_ended_ns - cpu's idle time in the periods that have ended
 * (idle_sleeptime + iowait_sleeptime): exact when read by a task running on
 * that CPU, which is not idle then. (The entry and exit times cannot say
 * whether a period is open: kernels set the exit time only when the idle
 * period stopped the tick.) -1 if unknown
 */
int64_t procfs_idle_ended_ns(const struct procfs_idle *s, int cpu);
/* procfs_parse_loadavg - parse /proc/loadavg */
int procfs_parse_loadavg(const char *text, struct procfs_loadavg *l);
/* procfs_parse_pid_stat - parse /proc/<pid>/stat (a comm may hold spaces and parentheses) */
int procfs_parse_pid_stat(const char *text, struct procfs_task *t);
/*
 * procfs_config_lookup - in kernel config text, "y", "m" or the value of
 * name, "n" for "# name is not set", or NULL if the text does not mention it.
 * The result points into a static buffer.
 */
const char *procfs_config_lookup(const char *text, const char *name);

/* procfs_cpu_busy - non-idle ticks of a line: user+nice+system+irq+softirq+steal */
uint64_t procfs_cpu_busy(const struct procfs_cpu *c);
/* procfs_cpu_total - all ticks of a line */
uint64_t procfs_cpu_total(const struct procfs_cpu *c);
/* procfs_stat_find - the line of a cpu, or NULL */
const struct procfs_cpu *procfs_stat_find(const struct procfs_stat *s, int cpu);
/*
 * procfs_busy_add - add each CPU's busy and total ticks between readings a
 * and b to busy[cpu] and total[cpu], for the CPUs below n that both have.
 * Returns how many CPUs b lists at n or beyond (not counted).
 */
int procfs_busy_add(const struct procfs_stat *a, const struct procfs_stat *b, uint64_t *busy, uint64_t *total,
		    int n);
/*
 * procfs_least_busy - of the CPUs below n with at least min_ticks in
 * total[] and not in skip[0..nskip), the one with the smallest busy share
 * busy/total: its number, with the share in *share; -1 (and NAN) if none
 */
int procfs_least_busy(const uint64_t *busy, const uint64_t *total, int n, const int *skip, int nskip,
		      uint64_t min_ticks, double *share);

/* procfs_read_file - read a whole (small) file into a malloc'd NUL-terminated buffer; -errno */
int procfs_read_file(const char *path, char **text);
int procfs_read_stat(struct procfs_stat *s);
int procfs_read_softirqs(struct procfs_softirqs *s);
int procfs_read_loadavg(struct procfs_loadavg *l);
int procfs_read_interrupts(struct procfs_interrupts *s);
int procfs_read_timer_list(struct procfs_idle *s);
/*
 * procfs_timer_list_cpu_end - when text, the start of /proc/timer_list,
 * holds all of cpu's idle fields: the length of text up to their end (past
 * cpu's iowait line, or at the start of the next CPU's or the tick
 * devices' section); 0 while it does not
 */
size_t procfs_timer_list_cpu_end(const char *text, int cpu);
/*
 * procfs_read_timer_list_cpu - /proc/timer_list read only up to cpu's idle
 * fields: the file lists every timer of every CPU, and the kernel makes it
 * as it is read, so on a host of many CPUs reading all of it costs much more
 * than the one CPU's part. The CPUs after cpu are absent from s.
 */
int procfs_read_timer_list_cpu(int cpu, struct procfs_idle *s);
/*
 * procfs_process_runtime_ns - CPU time of every thread of pid, from
 * /proc/<pid>/task/<tid>/schedstat (sum_exec_runtime, ns). -errno
 */
int procfs_process_runtime_ns(int pid, uint64_t *ns);
/* procfs_read_tasks - every process in /proc; *tasks is malloc'd */
int procfs_read_tasks(struct procfs_task **tasks, size_t *n);

#endif
