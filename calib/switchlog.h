/*
 * switchlog.h - who held each CPU when, from the scheduler's own events.
 *
 * It reads the text lines of a tracefs instance (sched_switch,
 * sched_process_fork, sched_process_exit) and keeps, per CPU, the stretches
 * in which a task that is not displace's, and not one that may run the
 * PUT's own deferred work, held the CPU. Asked for a window (a calibration
 * or a co-run of a fluid), it gives their time in it: the off-CPU
 * estimator takes that time out of each window instead of assuming that
 * other tasks take the same share beside the PUT as beside the fluid alone
 * (docs/estimators.md, "Other tasks from a scheduler trace").
 *
 * Each task is classed when it is switched in:
 *   SWL_IDLE    pid 0, the CPU's idle task;
 *   SWL_OURS    displace and every task forked from it since (the fluid,
 *               put, its peer, a command put runs), by sched_process_fork;
 *   SWL_HELPER  a kernel thread that may run the PUT's own deferred work:
 *               softirqs (ksoftirqd/N), work items (kworker/...), threaded
 *               interrupts (irq/...). Left in the result, as before;
 *   SWL_OTHER   everything else: other processes, and kernel threads with
 *               work of their own (kdamond, kcompactd, rcu_preempt ...).
 * A switch whose prev_pid is not the task the last switch on that CPU put
 * in means the trace lacks an event between them (on the development VM
 * every switch-out of the sandbox's agent is missing): who held the CPU
 * from the last event to this one is unknown, and the stretch is
 * SWL_UNKNOWN, counted apart and never taken out.
 */
#ifndef SWITCHLOG_H
#define SWITCHLOG_H

#include <stddef.h>
#include <stdint.h>

#define SWL_MAX_CPUS 256

enum swl_class { SWL_IDLE, SWL_OURS, SWL_HELPER, SWL_OTHER, SWL_UNKNOWN, SWL_NCLASS };

/* One stretch of an OTHER or UNKNOWN task on a CPU, ns by the trace's clock. */
struct swl_span {
	uint64_t start_ns, end_ns;
	int cpu;
	int cls;
};

/* What one CPU is running, as the last switch on it said. */
struct swl_cpu {
	int known;        /* a switch has been seen on it */
	int pid;
	int cls;
	uint64_t since_ns;
};

struct swl {
	struct swl_cpu cpu[SWL_MAX_CPUS];
	int *ours;           /* open-addressing set of pids; 0 marks a free slot, -1 a removed one */
	size_t ours_cap, ours_n, ours_used;
	struct swl_span *span;
	size_t nspan, span_cap;
	uint64_t switches, forks, lost;  /* events read; switches whose previous switch-out is missing */
	uint64_t cpu_switches[SWL_MAX_CPUS]; /* switches read, per CPU */
	uint64_t last_ns;                /* the latest event's time */
};

/* swl_init - an empty log whose own tasks are root_pid and what it forks; -ENOMEM */
int swl_init(struct swl *l, int root_pid);
/* swl_free - release the log */
void swl_free(struct swl *l);
/* swl_add_ours - count pid (a task or thread that already exists) as displace's own; -ENOMEM */
int swl_add_ours(struct swl *l, int pid);
/* swl_is_ours - whether pid is displace's own */
int swl_is_ours(const struct swl *l, int pid);
/* swl_class_of - the class of a task switched in, by its pid and comm */
int swl_class_of(const struct swl *l, int pid, const char *comm);

/*
 * swl_parse_line - the CPU and timestamp of a trace line ("... [001] d..2.  1265.699532: sched_switch: ...")
 * in ns, and the event's name and fields: 0, or -EBADMSG when the line is not an event
 */
int swl_parse_line(const char *line, int *cpu, uint64_t *t_ns, const char **event, const char **fields);

/*
 * swl_feed - account one line of the trace. 0 (lines of other events and
 * comments are ignored), -EBADMSG for a line of a sched_ event it cannot
 * read (the caller counts them), -ENOMEM.
 */
int swl_feed(struct swl *l, const char *line);

/*
 * swl_time_ns - the time tasks of class cls (SWL_OTHER or SWL_UNKNOWN)
 * held cpu within [t0_ns, t1_ns], a window that has ended. An other
 * task's stretch still open at the latest event counts as unknown up to
 * t1_ns: the fluid ran at the window's end, so its switch-in is missing.
 */
double swl_time_ns(const struct swl *l, int cpu, int cls, uint64_t t0_ns, uint64_t t1_ns);

/* swl_forget_before - drop the stretches that ended before t_ns (no window asks for them again) */
void swl_forget_before(struct swl *l, uint64_t t_ns);

#endif
