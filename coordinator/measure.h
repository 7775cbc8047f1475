/*
 * measure.h - the measurement engine shared by measure, sweep and predict:
 * co-runs bracketed by calibrations, and their summary.
 *
 * Calibrations and co-runs interleave: cal, run, cal, run, cal ... The
 * calibration after one run is the one before the next, whatever
 * configuration (size) the next run measures, so host drift is sampled
 * evenly across configurations.
 */
#ifndef MEASURE_H
#define MEASURE_H

#include "calib/estimate.h"
#include "calib/stats.h"
#include "coordinator/experiment.h"

enum meas_src { SRC_GETRUSAGE, SRC_TASK_CLOCK, SRC_SCHEDSTAT, SRC_PROCSTAT, MEAS_NSRC };

struct meas_opts {
	int cpu;                     /* the PUT's CPU */
	struct cli_cpus cpus;        /* one fluid each; contains cpu */
	struct exp_fluid_opts fluid;
	uint64_t cal_ns;             /* length of each bracketing calibration */
	uint64_t lead_in_ns, lead_out_ns;
	uint64_t max_run_ns;         /* a run longer than this is stopped */
	int fit;                     /* alternate L and L/4 and fit the line */
	double delta_ns;             /* clock resolution for e_res */
	uint64_t sim_res_ns;         /* --clock-resolution: quantise every clock (0 = off) */
	int use_steal;               /* task-clock minus CPU time is steal (IRQ_TIME_ACCOUNTING off) */
	int peer_pid;                /* the local peer, whose CPU time each run reads; 0 if none */
	int peer_cpu;
};

/* One co-run. Times are ns for the whole run; NAN when unavailable. */
struct meas_run {
	uint64_t ops;
	double t_put_ns, t_put_robust_ns;           /* summed over the fluid CPUs */
	double t_put_raw_ns;                        /* classic by the real clock (a slow clock simulated) */
	double t2_raw_ns;                           /* T_F(2) by the real clock, on the PUT's CPU */
	double cpu_t_put_ns[EXP_MAX_CPUS];          /* classic, per fluid CPU */
	double os_ns[MEAS_NSRC];
	char os_why[MEAS_NSRC][24];                 /* why a source is NAN, as put said: "EOPNOTSUPP" */
	double drift_ns, calib_ns, cache_ns, res_ns;
	double tau_f_ns, tau0_ns, t2_ns, l2, lf1;    /* on the PUT's CPU */
	double steal_ns;                            /* removed by the drift-robust estimator */
	double peer_ns;                             /* the local peer's CPU time in the run (schedstat) */
	double net_rx[EXP_MAX_CPUS], net_tx[EXP_MAX_CPUS];
	double put_wall_ns;                         /* put's own loop wall time */
	long nvcsw, nivcsw;
	int cmd_status;
	int outlier;
};

struct meas_series {
	char label[64];          /* e.g. "1000" for a size, or the workload name */
	char *args[64];          /* workload name and its options, as put takes them */
	int nargs;
	int first_rest;          /* where a "--" and the command after it begin (or nargs) */
	uint64_t ops;            /* L */
	uint64_t size_bytes;     /* for sweeps; 0 otherwise */
	struct meas_run *runs;
	size_t nruns, cap;
};

struct meas_ctx {
	struct exp_env *env;
	struct meas_opts o;
	struct est_cal prev[EXP_MAX_CPUS]; /* the latest calibration, per fluid CPU */
	int have_prev;
	double cal_sum, cal_sumsq;         /* tau_F of the PUT's CPU over all calibrations */
	unsigned ncal;
	double first_tau_f_ns;             /* the first calibration of the PUT's CPU */
	char err[512];
	int put_exit;                      /* put's exit status when a run failed */
};

struct meas_summary {
	size_t n;                      /* estimates: pairs, or runs without the fit */
	size_t outliers;
	int fitted;
	uint64_t ops;
	struct stats_summary tau;        /* ns per op, classic displacement */
	struct stats_summary tau_robust; /* ns per op, drift-robust */
	struct stats_summary tau_raw;    /* ns per op, classic, the same runs by the real clock */
	struct stats_summary os[MEAS_NSRC];
	char os_why[MEAS_NSRC][24];          /* why a source has no mean (the first run's reason), or "" */
	struct stats_summary pct[MEAS_NSRC]; /* paired 100 (os - disp) / disp */
	struct stats_summary pct_robust[MEAS_NSRC];
	double startup_ns;             /* S per run */
	struct stats_summary startup;  /* S over null runs (--ops 0) */
	double e_res_ns, e_start_ns, e_drift_ns, e_calib_ns, e_cache_ns; /* per op */
	int ncpu;
	int cpu_id[EXP_MAX_CPUS];
	double cpu_tau_ns[EXP_MAX_CPUS];
	double net_rx_per_op[EXP_MAX_CPUS], net_tx_per_op[EXP_MAX_CPUS];
	double tau_f_ns, tau0_ns;
	double put_wall_per_op_ns;     /* put's own wall time per op, with the fluid beside it */
	struct stats_summary peer;     /* the local peer's CPU per op (NAN without one) */
	struct stats_summary put_peer_pct; /* 100 (getrusage + peer - d) / d, paired */
	int cmd_status;                /* exec: the first non-zero status seen, or 0 */
};

/* meas_init - a context on env; the caller fills o first */
void meas_init(struct meas_ctx *mc, struct exp_env *env, const struct meas_opts *o);
/* meas_calibrate - a bracketing calibration of every fluid CPU. 0, -EINTR or -errno (mc->err) */
int meas_calibrate(struct meas_ctx *mc);
/*
 * meas_run - one co-run of ops operations of series s, then the
 * calibration after it. Appends a meas_run to s. 0, -EINTR, -ECHILD (put
 * failed: mc->put_exit, mc->err), or -errno.
 */
int meas_run(struct meas_ctx *mc, struct meas_series *s, uint64_t ops);
/* meas_small_ops - the L of the second run of a pair: L/4 (0, a null run, when L < 4) */
uint64_t meas_small_ops(uint64_t ops);
/* meas_summarize - estimates, CIs, paired differences and the error budget of a series */
void meas_summarize(const struct meas_ctx *mc, struct meas_series *s, struct meas_summary *sum);
/* meas_series_free - release the runs */
void meas_series_free(struct meas_series *s);
/* meas_src_name - "getrusage", "task-clock", "schedstat", "/proc/stat" */
const char *meas_src_name(enum meas_src src);
/* meas_src_key - the JSON/CSV key: getrusage, task_clock, schedstat, procstat */
const char *meas_src_key(enum meas_src src);

/*
 * meas_pilot - run put once beside the fluids (ops operations), not
 * counted, to learn the wall time per op and the workload's report. 0 or
 * -errno with mc->err.
 */
int meas_pilot(struct meas_ctx *mc, struct meas_series *s, uint64_t ops, struct put_report *rep);
/*
 * meas_alone - run put once with no fluid anywhere (the saturated runs of
 * predict): the PUT alone on its CPU. 0 or -errno with mc->err.
 */
int meas_alone(struct meas_ctx *mc, struct meas_series *s, uint64_t ops, struct put_report *rep);

#endif
