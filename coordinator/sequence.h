/*
 * sequence.h - the runs of measure, sweep and predict: co-runs, each
 * bracketed by calibrations of every fluid CPU, turned into estimates by
 * calib/estimate.c.
 *
 * Calibrations and co-runs interleave: cal, run, cal, run, cal ... The
 * calibration after one run is the one before the next, whatever
 * configuration (size) the next run measures, so host drift is sampled
 * evenly across configurations.
 */
#ifndef SEQUENCE_H
#define SEQUENCE_H

#include "calib/estimate.h"
#include "calib/summary.h"
#include "coordinator/experiment.h"
#include "coordinator/remote.h"
#include "coordinator/schedtrace.h"
#include "coordinator/series.h"

struct seq_opts {
	int cpu;                     /* the PUT's CPU */
	struct cli_cpus cpus;        /* one fluid each; contains cpu */
	struct exp_fluid_opts fluid;
	uint64_t cal_ns;             /* length of each bracketing calibration */
	uint64_t lead_in_ns, lead_out_ns;
	uint64_t max_run_ns;         /* a run longer than this is stopped */
	int fit;                     /* pairs of L and L/4 (series_pair_ops) and fit the line */
	double delta_ns;             /* clock resolution for e_res */
	uint64_t sim_res_ns;         /* --clock-resolution: quantise every clock (0 = off) */
	int use_steal;               /* task-clock minus CPU time is steal (IRQ_TIME_ACCOUNTING off) */
	int peer_pid;                /* the local peer, whose CPU time each run reads; 0 if none */
	enum sum_estimator estimator; /* the result's estimator */
	int peer_cpu;
	struct remote *remote;       /* the peer host's fluids (--remote-cpus), calibrated and run with the local ones; NULL: none */
	int flows;                   /* --flows K: the PUT's connections at once (1: one) */
	int no_task_clock;           /* no perf counter on the PUT (put --no-task-clock): not --task-clock */
	struct schedtrace *trace;    /* --trace-others: the scheduler trace each fluid window is read against; NULL: none */
};

/*
 * The least busy CPU without a fluid is judged on at least this many
 * /proc/stat ticks of it (0.5 s at USER_HZ 100): fewer, and a peer's CPU
 * 77 % busy can read 90 %.
 */
#define SEQ_MIN_BUSY_TICKS 50

struct seq_ctx {
	struct exp_env *env;
	struct seq_opts o;
	struct est_cal prev[EXP_MAX_CPUS]; /* the latest calibration, per fluid CPU */
	int have_prev;
	struct stats_acc cal;              /* tau_F of the PUT's CPU over all calibrations */
	double first_tau_f_ns;             /* the first calibration of the PUT's CPU */
	double first_tau0_ns;              /* its undisturbed speed */
	double tau0_ref_ns;                /* the normalised cost's reference speed: the store's, else first_tau0_ns */
	struct est_cal rprev[EXP_MAX_CPUS]; /* the latest calibration of each of the peer host's fluid CPUs */
	struct stats_acc rcal[EXP_MAX_CPUS]; /* their tau_F over all calibrations */
	char err[512];
	int put_exit;                      /* put's exit status when a run failed */
	/* every CPU's busy and total /proc/stat ticks over the co-runs: were the CPUs with no fluid free? */
	uint64_t busy_ticks[PROCFS_MAX_CPUS], total_ticks[PROCFS_MAX_CPUS];
	int busy_beyond;                   /* CPUs /proc/stat listed past PROCFS_MAX_CPUS: the least busy is unknown */
};

/* seq_init - a sequence on env with options o */
void seq_init(struct seq_ctx *q, struct exp_env *env, const struct seq_opts *o);
/*
 * seq_calibrate - a bracketing calibration of every fluid CPU, the peer
 * host's (o.remote) at the same time. 0, -EINTR or -errno (q->err)
 */
int seq_calibrate(struct seq_ctx *q);
/*
 * seq_run - one co-run of ops operations of series s, then the
 * calibration after it. Appends its estimates to s. 0, -EINTR, -ECHILD
 * (put failed: q->put_exit, q->err), or -errno.
 */
int seq_run(struct seq_ctx *q, struct series *s, uint64_t ops);
/*
 * seq_pilot - run put once beside the fluids (ops operations), not
 * counted, to learn the wall time per op and the workload's report. 0 or
 * -errno with q->err.
 */
int seq_pilot(struct seq_ctx *q, const struct series *s, uint64_t ops, struct put_report *rep);
/*
 * seq_alone - run put once with no fluid anywhere (the saturated runs of
 * predict): the PUT alone on its CPU. 0 or -errno with q->err.
 */
int seq_alone(struct seq_ctx *q, const struct series *s, uint64_t ops, struct put_report *rep);

/*
 * seq_perturb_run - the PUT alone, no fluid anywhere, ops operations of
 * series s, kept for the perturbation check (series_append_alone). 0 or
 * -errno with q->err.
 */
int seq_perturb_run(struct seq_ctx *q, struct series *s, uint64_t ops);
/*
 * seq_put_argv - put's argv for ops operations of series s: the sequence's
 * options (--cpu, --ops, a simulated clock), the series' put options, then
 * the workload's. bufs holds 5 numbers; argv has room for max entries
 */
char **seq_put_argv(const struct seq_ctx *q, const struct series *s, uint64_t ops, char bufs[][32], char **argv,
		    int max);
/* seq_summarize - the summary of series s (sum_compute with this sequence's fit and CPUs) */
void seq_summarize(const struct seq_ctx *q, struct series *s, struct summary *sum);

#endif
