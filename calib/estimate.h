/*
 * estimate.h - the displacement estimators and the error budget.
 *
 * Woodside, Courtois and Schramm (1997):
 *   tau_F   = T_F(1) / L_F(1)                 step 1, the fluid alone
 *   T_PUT   = T_F(2) - L_F(2) tau_F           step 2, the fluid beside the PUT
 *   tau_PUT = T_PUT / L_PUT(2)
 * Three estimators stand side by side:
 *   off-CPU       the time the fluid was off its CPU in step 2, by its own
 *                 perf task-clock: T_PUT = T_F(2) - C_F(2) - b T_F(2), b
 *                 the share of the CPU the fluid did not get when alone
 *                 (background). It needs no tau_F, and leaves out time the
 *                 fluid held the CPU without progressing (a hypervisor
 *                 delivering a wake-up, or interrupts on the fluid's time);
 *   classic       tau_F from the calibrations just before and just after;
 *   drift-robust  the fluid's undisturbed speed measured *during* step 2
 *                 from its chunk timings (tau0), times the share of
 *                 background work per loop seen in the calibrations, and
 *                 with the time the hypervisor stole (steal) taken out of
 *                 both steps:
 *                 T_PUT' = T_F(2) - S(2) - L_F(2) tau0(2) (1 + g),
 *                 g = (T_F(1) - S(1) - L_F(1) tau0(1)) / (L_F(1) tau0(1)),
 *                 S = steal seen by the fluid (and by the PUT, in step 2).
 * See docs/estimators.md for the error terms.
 */
#ifndef ESTIMATE_H
#define ESTIMATE_H

#include "calib/procfs.h"
#include "calib/reportline.h"
#include "calib/stats.h"

#include <stddef.h>
#include <stdint.h>

#define EST_MAX_CPUS 64

/* The OS's own accounting of the PUT, reported beside displacement. */
enum est_src { SRC_GETRUSAGE, SRC_TASK_CLOCK, SRC_SCHEDSTAT, SRC_PROCSTAT, EST_NSRC };

/* est_src_name - "getrusage", "task-clock", "schedstat", "/proc/stat" */
const char *est_src_name(enum est_src src);
/* est_src_key - the JSON/CSV key: getrusage, task_clock, schedstat, procstat */
const char *est_src_key(enum est_src src);

/* What one calibration (the fluid alone) says about one CPU. */
struct est_cal {
	double tau_ns;          /* T/L; T with the stretches a scheduler trace gave other tasks cut out (--trace-others) */
	double tau0_ns;         /* undisturbed, from ok chunks */
	double g;               /* background per loop, relative to tau0 */
	double post_rate;       /* post-gap extra time per ns of wall time */
	double wall_ns;
	double steal_ns;        /* stolen while the fluid was current (0 if unknown) */
	double g_nosteal;       /* background per loop without steal */
	double tau_raw_ns;      /* T/L by the real clock (tau_ns unless a slow clock is simulated) */
	double off_rate;        /* (T - C - idle) / T: the share of the CPU others took, alone; NAN without task-clock */
	double idle_rate;       /* idle / T: the share a CPU limit held the fluid off an idle CPU; NAN: unknown */
	double traced_rate;     /* traced / T: the share other tasks took by the scheduler trace; NAN: not traced */
};

/*
 * est_idle_bound_ns - the CPU's idle time in a fluid window of wall_ns, no
 * more than the time the fluid was off the CPU (wall less its task-clock):
 * the CPU cannot idle while the fluid is current. A reading beyond that is
 * a stale one (once in 300 calibrations of 50 ms on the development VM:
 * 15 ms of idle time in a window the fluid held throughout, which made b
 * -30 %). Unbounded without the task-clock.
 */
double est_idle_bound_ns(double idle_ns, double wall_ns, struct report_val task_clock);
/*
 * est_cal_from - summarise a calibration report; use_steal says whether the
 * fluid's task-clock minus CPU time is steal (it is not when the kernel
 * also leaves IRQ time out of CPU time). -EINVAL if it has no loops.
 */
int est_cal_from(const struct fluid_report *r, int use_steal, struct est_cal *c);

/* One CPU's fluid during one co-run, with the calibrations around it. */
struct est_cpu {
	double t2_ns, l2;        /* T_F(2), L_F(2) */
	double tau_f_ns;         /* classic: mean of before and after */
	double tau_f_robust_ns;  /* drift-robust: tau0(2) (1 + g) */
	double tau0_2_ns;
	double steal_ns;         /* steal removed by the drift-robust estimator */
	double t_put_ns;         /* classic displacement */
	double t_put_offcpu_ns;  /* off-CPU: T_F(2) - C_F(2) - b T_F(2); NAN without the fluid's task-clock */
	double bg_ns;            /* |b(after) - b(before)| / 2 T_F(2): what the off-CPU bracket can be off by */
	double b;                /* (b(before) + b(after)) / 2: the share of the CPU others took from the fluid alone */
	double others_ns;        /* b T_F(2): the others' time the off-CPU estimator takes out */
	double idle_ns;          /* the CPU's idle time in the co-run, also taken out (0: unknown) */
	double traced_ns;        /* other tasks' time in the co-run by the scheduler trace, cut out of t2_ns (0: not traced; NAN: no off-CPU estimate) */
	double t_put_robust_ns;  /* drift-robust displacement */
	double drift_ns;         /* |after - before| / 2 * L_F(2): what the bracket can be off by */
	double calib_ns;         /* tau_F uncertainty * L_F(2) */
	double cache_ns;         /* post-gap extra beyond the calibrations' rate */
	/*
	 * classic displacement of the same runs by the real clock: with a
	 * simulated slow clock, t_put_ns - t_put_raw_ns is the slow clock's
	 * error alone, free of run-to-run noise (t_put_ns otherwise)
	 */
	double t_put_raw_ns;
};

/*
 * est_cpu_from - displacement on one CPU from the co-run report and the
 * calibrations just before and after. tau_sd_ns is the sd of a single
 * calibration's tau_F (from all calibrations so far, 0 if unknown).
 * On the PUT's CPU (put_cpu), steal is the fluid's task-clock minus CPU
 * time plus the PUT's (put_steal_ns): summed over both tasks, the time the
 * two clocks attribute differently at context switches cancels. On other
 * CPUs, where tasks displace does not see may run (the peer), and on the
 * PUT's when its difference is unknown (NAN: the PUT has no task-clock
 * without --task-clock), steal is the calibrations' steal rate times
 * T_F(2). use_steal as for est_cal_from.
 */
int est_cpu_from(const struct fluid_report *corun, const struct est_cal *before, const struct est_cal *after,
		 double tau_sd_ns, int put_cpu, double put_steal_ns, int use_steal, struct est_cpu *e);

/*
 * est_res_ns - the clock-resolution bound on T_PUT for one run:
 * Delta (1 + L_F(2)/L_F(1)), in ns (divide by L_PUT for per op). Twice
 * Woodside's figure: he takes each duration to be read to +-Delta/2, but a
 * duration read at both ends by a clock of resolution Delta is off by up
 * to Delta (bench/clock-resolution: half this was exceeded in 10-20 % of
 * single runs, this never).
 */
double est_res_ns(double delta_ns, double lf2, double lf1);

/*
 * A pair of runs of the same configuration with L and L/4 operations (or a
 * null run): the slope is a start-free cost per op, the intercept S is the
 * start and stop cost (Woodside e_start).
 */
struct est_pair {
	double tau_ns;   /* (T(L) - T(l)) / (L - l) */
	double s_ns;     /* T(l) - l tau */
};
/* est_pair_from - slope and intercept from two runs; -EINVAL if the op counts are equal */
int est_pair_from(double t_big, double l_big, double t_small, double l_small, struct est_pair *p);

/*
 * The fluid CPUs of the other end (the peer host's, 'displace serve
 * --fluid-cpus') in one co-run: each estimator summed over them and per
 * CPU, and their error terms; ns for the whole run. The PUT runs on none
 * of them. ncpu 0: no other end was measured.
 */
/* The error terms of an end, in struct est_end's err_ns (docs/estimators.md, the error budget). */
enum est_err { EST_E_RES, EST_E_DRIFT, EST_E_CALIB, EST_E_CACHE, EST_E_BG, EST_NERR };

struct est_end {
	int ncpu;
	double t_put_ns, t_put_offcpu_ns, t_put_robust_ns;  /* classic, off-CPU, drift-robust */
	double cpu_t_put_ns[EST_MAX_CPUS], cpu_offcpu_ns[EST_MAX_CPUS], cpu_robust_ns[EST_MAX_CPUS];
	double err_ns[EST_NERR];                            /* e_res, e_drift, e_calib, e_cache, e_backgr */
};

/* What est_end_from needs: the other end's reports of one co-run and its calibrations around it. */
struct est_end_in {
	int ncpu;
	const struct fluid_report *fluid;     /* the co-run's report per CPU */
	const struct est_cal *before, *after; /* the calibrations around it, per CPU */
	const double *tau_sd_ns;              /* per CPU: sd of one calibration's tau_F there (0: unknown) */
	double delta_ns;                      /* clock resolution, for e_res */
	int use_steal;                        /* as for est_cal_from, of that end's kernel */
};

/*
 * est_end_from - the other end's displacement in one co-run, by the same
 * estimators as the PUT's end (est_cpu_from on each CPU, none of them the
 * PUT's). -EINVAL with *bad set to the index of a fluid that did no loops
 */
int est_end_from(const struct est_end_in *in, struct est_end *e, int *bad);

/*
 * One co-run as the estimators see it: every estimate of it, in ns for the
 * whole run (divide by ops for per op); NAN where unavailable.
 */
struct est_run {
	uint64_t ops;
	double t_put_ns, t_put_robust_ns;           /* classic and drift-robust, summed over the fluid CPUs */
	double t_put_offcpu_ns;                     /* off-CPU, summed over the fluid CPUs */
	double cpu_offcpu_ns[EST_MAX_CPUS];         /* off-CPU, per fluid CPU */
	double ipi[EST_MAX_CPUS], dev_irq[EST_MAX_CPUS]; /* wake-up IPIs and device interrupts received, per fluid CPU */
	double fluid_tc_ns, fluid_cpu_ns;           /* the fluid's task-clock and scheduler CPU time, on the PUT's CPU */
	double t_put_raw_ns;                        /* classic by the real clock (a slow clock simulated) */
	double t2_raw_ns;                           /* T_F(2) by the real clock, on the PUT's CPU */
	double cpu_t_put_ns[EST_MAX_CPUS];          /* classic, per fluid CPU */
	double os_ns[EST_NSRC];
	char os_why[EST_NSRC][24];                  /* why a source is NAN, as put said: "EOPNOTSUPP" */
	double drift_ns, calib_ns, cache_ns, res_ns, bg_ns;
	double tau_f_ns, tau0_ns, t2_ns, l2, lf1;    /* on the PUT's CPU */
	double steal_ns;                            /* removed by the drift-robust estimator */
	/* on the PUT's CPU: the share of it other tasks took from the fluid in the calibrations (b; NAN: unknown) */
	double others_share;
	double idle_share;                          /* ... and the share it was idle, the fluid held off it (NAN: unknown) */
	/*
	 * On the PUT's CPU, by the scheduler trace (--trace-others; NAN when not
	 * traced): other tasks' time in the co-run, taken out of the off-CPU
	 * estimate; the share they took of the calibrations, taken out of b;
	 * and the time the trace could not tell who held the CPU in the co-run
	 */
	double traced_ns, traced_cal_share, unknown_ns;
	double traced_switches;                     /* the context switches the trace saw there in the co-run (NAN) */
	double peer_ns;                             /* the local peer's CPU time in the run (schedstat) */
	double net_rx[EST_MAX_CPUS], net_tx[EST_MAX_CPUS];
	double put_wall_ns;                         /* put's own loop wall time */
	long nvcsw, nivcsw;
	int cmd_status;
	double bytes;                               /* message bytes the PUT sent (its sent_bytes), NAN if it does not say */
	struct est_end remote;                      /* the peer host's fluid CPUs (remote.ncpu 0: none) */
	int outlier;                                /* set by the summary (sum_compute) */
	size_t order;                               /* 1, 2, ...: when it ran in its series (seq_run) */
};

/*
 * A run of the PUT alone, with no fluid: what the co-runs are compared with
 * to see how much the fluid perturbs the PUT (the perturbation check).
 */
struct est_alone {
	uint64_t ops;
	double wall_ns;         /* put's own loop wall time */
	double cpu_ns;          /* its own CPU time: task-clock, else getrusage; NAN if neither */
	int by_task_clock;      /* cpu_ns is the task-clock's */
	double getrusage_ns;    /* its getrusage, NAN if not known: what a co-run without a task-clock is set beside */
};

/* est_alone_from - the alone run's figures from put's report */
void est_alone_from(const struct put_report *p, struct est_alone *a);
/* est_run_cpu_ns - the PUT's own CPU time in a co-run, by the same source as est_alone_from */
double est_run_cpu_ns(const struct est_run *r);

/* What est_run_from needs: the reports of one co-run and the calibrations around it. */
struct est_run_in {
	int ncpu;                            /* fluid CPUs */
	const int *cpu;                      /* their ids */
	int put_cpu;                         /* the PUT's CPU, one of them */
	const struct fluid_report *fluid;    /* the co-run's report per fluid CPU */
	const struct est_cal *before, *after; /* the calibrations around it, per fluid CPU */
	double tau_sd_ns;                    /* sd of one calibration's tau_F on the PUT's CPU (0: unknown) */
	const struct put_report *put;
	const struct procfs_stat *stat0, *stat1;     /* /proc/stat around the run, or NULL */
	const struct procfs_softirqs *sirq0, *sirq1; /* /proc/softirqs around the run, or NULL */
	const struct procfs_interrupts *irq0, *irq1; /* /proc/interrupts around the run, or NULL */
	long user_hz;                        /* USER_HZ of /proc/stat */
	double delta_ns;                     /* clock resolution, for e_res */
	double peer_ns;                      /* the local peer's CPU time in the run, NAN if none */
	int use_steal;                       /* as for est_cal_from */
};

/*
 * est_run_from - every estimate of one co-run: classic and drift-robust
 * displacement summed over the fluid CPUs, per CPU, the error terms, and
 * the OS sources. -EINVAL with *bad_cpu set if a fluid did no loops.
 */
int est_run_from(const struct est_run_in *in, struct est_run *r, int *bad_cpu);

/*
 * est_rebill_ns - on the PUT's CPU in a co-run, the fluid's task-clock less
 * its scheduler CPU time: the time the scheduler's clock took from the fluid
 * while perf saw it current. That is what a wake-up that preempts the
 * fluid bills to the woken task from the moment of the wake-up
 * (rq_clock_skip_update: docs/estimators.md), plus the steal while the
 * fluid was current. getrusage less it is the PUT's CPU time on the
 * off-CPU estimator's clock, without a perf counter on the PUT (the cost
 * of these operations' account). It is the difference fluid_steal_ns takes
 * from the report, carried by the run; NAN, not 0, without the fluid's
 * task-clock, so that an account missing it is no account.
 */
double est_rebill_ns(const struct est_run *r);

/* Paired percentage difference of another source from displacement: 100 (x - d) / d. */
double est_pct_diff(double x, double d);

#endif
