/*
 * summary.h - from the runs of one configuration to its result: the pairs
 * of the L versus L/4 fit, the outliers, the mean and CI of every
 * estimator and OS source, their paired differences, and the error budget
 * (docs/estimators.md). Pure: plain runs in, numbers out.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include "calib/estimate.h"
#include "calib/stats.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The fluid must have had at least this share of its undisturbed speed in
 * the calibrations around the runs; below it another process held the
 * measured CPU, and its work is in the displacement. Quiet runs sit at 97
 * to 98 % on the development VM.
 */
#define SUM_MIN_FLUID_SHARE 0.9

/*
 * The spells test: from SUM_BATCH_MIN estimates on, the result's estimates
 * in time order in SUM_BATCHES batches, and stats_batch_f's p below
 * STATS_SPELLS_P (docs/estimators.md, "Spells").
 */
#define SUM_BATCHES 5
#define SUM_BATCH_MIN 20

/*
 * The estimators of a summary; which one is the result (tau) is a choice
 * (sum_opts.estimator), made by measurement: off-CPU by default
 * (docs/estimators.md, bench/blocking-saturation).
 */
enum sum_estimator { SUM_OFFCPU, SUM_CLASSIC, SUM_ROBUST, SUM_NEST };

struct sum_opts {
	enum sum_estimator estimator; /* the result; off-CPU falls back to classic when a run lacks it */
	int fit;          /* runs alternate L and sum_small_ops(L): pairs; else one estimate per run */
	uint64_t ops;     /* L, as configured */
	int ncpu;         /* fluid CPUs */
	const int *cpu_id;
	const struct est_alone *alone; /* the PUT alone, one run per estimate (pair j, or run j); NULL: none */
	size_t nalone;
	double tau0_ref_ns;   /* the fluid's undisturbed speed to normalise to (0: no normalised cost) */
	int tau0_ref_saved;   /* it is the calibration store's; else the measurement's own (its first calibration's) */
	int peer_here;        /* the local peer runs on a fluid CPU: its CPU time is in the OS's account there */
	int nremote;          /* the other end's fluid CPUs (the runs' remote), 0: none */
	const int *remote_cpu_id;
};

/*
 * The perturbation check: the PUT's wall time and own CPU time per op
 * beside the fluid and alone, and their paired % changes (estimate j with
 * alone run j).
 */
struct sum_perturb {
	size_t n;                           /* estimates with an alone run */
	struct stats_summary wall_alone, wall_corun, cpu_alone, cpu_corun; /* ns per op */
	struct stats_summary wall_change, cpu_change; /* 100 (beside / alone - 1) */
	int by_task_clock;   /* the PUT's own CPU time is its task-clock in every run compared, alone too; else getrusage's */
	/* per op of the co-runs by getrusage, est_rebill_ns: the fluid's time it billed the PUT, with any steal; NAN: unknown */
	double hold_ns;
	/*
	 * whether the own CPU times beside the fluid and alone are on one
	 * clock (sum_perturb_compared). A wake-up from another CPU bills the
	 * PUT a hold beside the fluid and a different one alone
	 * (docs/estimators.md, "The checks in every result").
	 */
	int cpu_compared;
};

/* the fluid's time getrusage may bill the PUT beside it, as a fraction of the result, for the comparison to stand */
#define SUM_PERTURB_MAX_HOLD 0.01
/*
 * sum_perturb_compared - whether the perturbation check compares the PUT's
 * own CPU time beside the fluid and alone: by its task-clock in both, or
 * when getrusage billed it at most SUM_PERTURB_MAX_HOLD of the result
 * (tau_ns) of the fluid's time beside it (hold_ns, per op). A hold or a
 * result that is not known (NAN) does not stop the comparison.
 */
int sum_perturb_compared(int by_task_clock, double hold_ns, double tau_ns);

struct summary {
	size_t n;                      /* estimates: pairs, or runs without the fit */
	size_t outliers;
	/*
	 * Estimates the MAD test found far from the others (by 1 % of the
	 * median or more) while the OS's account of the PUT moved with them
	 * (their excess over it as usual): the PUT's own time changed, not
	 * another task's. They are the cost, and are kept. How many were
	 * above the median and below it, their means per op, and the mean of
	 * the other estimates kept; NAN for none.
	 */
	size_t moved_above, moved_below;
	double moved_above_ns, moved_below_ns, unmoved_ns;
	/*
	 * The result's estimates in time order, in SUM_BATCHES batches from
	 * SUM_BATCH_MIN estimates on: the batch means' interval
	 * (stats_batch_half; NAN with fewer), the batches' variance ratio and
	 * its p (stats_batch_f; NAN with fewer), and whether p is below
	 * STATS_SPELLS_P (spells: the cost moved in spells longer than a pair,
	 * and the t interval takes the estimates as independent)
	 */
	double tau_batch_half_ns;
	double tau_batch_means_ns[SUM_BATCHES]; /* the batch means, in time order; NAN without the interval */
	double tau_batch_f, tau_batch_p;
	int spells;
	int fitted;
	uint64_t ops;
	enum sum_estimator estimator;    /* the one that tau is */
	struct stats_summary tau;        /* ns per op: the result, by the estimator above */
	struct stats_summary est[SUM_NEST]; /* ns per op, each estimator */
	struct stats_summary tau_raw;    /* ns per op, classic, the same runs by the real clock */
	struct stats_summary held;       /* ns per op the fluid held the CPU without progressing: classic - off-CPU */
	/*
	 * The result normalised to the CPU's speed: each run's T_PUT times
	 * tau0_ref / tau0 of that run (the fluid's undisturbed speed during it),
	 * ns per op at the reference speed; NAN without both speeds
	 */
	struct stats_summary norm;
	double tau0_ref_ns;
	int tau0_ref_saved;             /* sum_opts.tau0_ref_saved: comparable with other measurements */
	/*
	 * The cost of these operations (--precision-of these-ops): the
	 * result's mean, with an interval given the OS's own account of the
	 * PUT's tasks on the measured CPUs in each estimate (these_src: the
	 * PUT's task-clock for the off-CPU estimator, on the same context
	 * switches, with --task-clock; else for off-CPU getrusage less what
	 * the scheduler billed it of the fluid's time, est_rebill_ns
	 * (these_rebilled); else getrusage; plus the local peer's CPU time
	 * when it runs there) by stats_given_ci:
	 * sd is the residual's, ci_half its interval, for the mean of these
	 * operations' cost rather than of the process that made them, plus
	 * (by sum_bound_interval) these_bg_ns: the background of the
	 * calibrations that ran in the PUT's slices too, which the OS bills to
	 * the PUT where the off-CPU estimator takes it out (e_shared_ns; the
	 * interval holds both; NAN and left out when b is unknown), and
	 * these_unbilled_ns: the time the PUT was current that the OS billed
	 * to no one or to others (a hypervisor's steal, a preempting
	 * wake-up's hold billed to the woken task), which the off-CPU and
	 * classic estimators count (the fluid was off its CPU) and getrusage
	 * leaves out: sum_shared_bound_ns of unbilled_share, a bound, since
	 * fewer wake-ups preempt the PUT than the SCHED_IDLE fluid (0 when the
	 * account is the PUT's task-clock, which counts it, or for
	 * drift-robust, which takes it out; NAN and left out when unknown).
	 * these_fixed_ns is what sum_bound_interval added of the two. All NAN
	 * without that account. os_cv: the account's own
	 * spread between estimates (sd / mean), how much the cost itself
	 * moved.
	 */
	struct stats_summary these;
	double these_os_cv, these_bg_ns, these_unbilled_ns, these_fixed_ns;
	enum est_src these_src;        /* that account's source */
	int these_rebilled;            /* ... less est_rebill_ns (getrusage, for off-CPU) */
	int these_peer;                /* that account holds the local peer's CPU time (sum_opts.peer_here) */
	struct stats_summary os[EST_NSRC];
	char os_why[EST_NSRC][24];          /* why a source has no mean (the first run's reason), or "" */
	struct stats_summary pct[EST_NSRC]; /* paired 100 (os - tau) / tau */
	struct stats_summary pct_robust[EST_NSRC];
	double startup_ns;             /* S per run; NAN when not measurable (startup_why) */
	struct stats_summary startup;  /* S over null runs (--ops 0) */
	char startup_why[160];         /* why S is not measurable, or "" (sum_startup_check) */
	double e_res_ns, e_start_ns, e_drift_ns, e_calib_ns, e_cache_ns; /* per op */
	double e_bg_ns;                /* off-CPU: the background share's change between calibrations, per op */
	/*
	 * A CPU shared with other tasks: the share of the measured CPU they
	 * took from the fluid in the calibrations (b, the median over the runs;
	 * NAN: unknown), and how low that can make the result, per op
	 * (sum_shared_bound_ns).
	 */
	double others_share, e_shared_ns;
	/*
	 * the median over the co-runs of the fluid's unbilled share on the PUT's
	 * CPU: est_run.steal_ns (its task-clock less its CPU time, at the
	 * calibrations' rate: steal, and the holds of wake-ups that preempted
	 * it) over T_F(2); NAN: unknown
	 */
	double unbilled_share;
	/* the part of tau.ci_half that is a bound, not chance (sum_bound_interval); 0 until it is called */
	double tau_bound_ns;
	/*
	 * What gave the chance part of tau.ci_half: NULL for the Student t
	 * interval over the estimates (sum_compute), else the name of
	 * --precision's stopping rule whose interval replaced it (the caller's)
	 */
	const char *tau_ci_rule;
	/* the share of the calibrations the CPU was idle, a CPU limit holding the fluid (NAN: unknown) */
	double idle_share;
	/*
	 * By the scheduler trace (--trace-others), on the PUT's CPU, NAN when not
	 * traced: the share of the co-runs and of the calibrations other tasks
	 * held (taken out of each), and the share of the co-runs the trace
	 * could not tell who held (a lost switch-out; left in)
	 */
	double traced_share, traced_cal_share, unknown_share;
	double traced_switches_per_op; /* context switches the trace saw on the PUT's CPU per operation in the co-runs */
	double put_switches_per_op;    /* the PUT's own context switches (getrusage) per operation in the co-runs; NAN: none */
	double put_voluntary_per_op;   /* ... of them voluntary (it blocked) */
	double shared_bound_ns;        /* e_shared when it is in tau_bound_ns, else 0 */
	double trace_bound_ns;         /* sum_trace_bound_ns when traced, in tau_bound_ns; 0 untraced */
	/*
	 * The least busy CPU with no fluid over the co-runs (/proc/stat ticks)
	 * and its busy share: set by the caller (seq_summarize), over every
	 * co-run of the session (in sweep and predict, of every size), -1 and
	 * NAN when every CPU had a fluid, the co-runs were too short to tell,
	 * or /proc/stat could not be read.
	 */
	int other_cpu;
	double other_cpu_busy;
	int ncpu;
	int cpu_id[EST_MAX_CPUS];
	double cpu_tau_ns[EST_MAX_CPUS];   /* the result's estimator, per fluid CPU */
	double net_rx_per_op[EST_MAX_CPUS], net_tx_per_op[EST_MAX_CPUS];
	double ipi_per_op[EST_MAX_CPUS];   /* wake-up and function-call IPIs each fluid CPU received */
	double dev_irq_per_op[EST_MAX_CPUS]; /* device interrupts each fluid CPU received */
	/*
	 * The accounting consistency check: the share of runs in which a
	 * source's CPU time of the PUT plus the fluid's loops at their
	 * undisturbed speed exceeded the fluid's wall time by more than 1 %,
	 * which cannot be on one CPU (NAN: not checked), and the mean excess
	 * per op in those runs; the same for the fluid's own scheduler CPU
	 * time falling short of its loops.
	 */
	double clock_lie_frac[EST_NSRC], clock_excess_ns[EST_NSRC];
	double fluid_underbilled_frac, fluid_underbilled_ns;
	struct sum_perturb perturb;
	double tau_f_ns, tau0_ns;
	double put_wall_per_op_ns;     /* put's own wall time per op, with the fluid beside it */
	struct stats_summary peer;     /* the local peer's CPU per op (NAN without one) */
	struct stats_summary put_peer_pct; /* 100 (getrusage + peer - d) / d, paired */
	int cmd_status;                /* exec: the first non-zero status seen, or 0 */
	/*
	 * Both ends: the other end's fluid CPUs (the peer host's, --remote-cpus)
	 * by the result's estimator, ns per op, each estimate paired with the
	 * PUT's end's of the same runs, so that total = tau + remote has its
	 * own CI. nremote 0: only this end was measured.
	 */
	int nremote;
	int remote_cpu_id[EST_MAX_CPUS];
	struct stats_summary remote, total;
	double remote_cpu_tau_ns[EST_MAX_CPUS];
	double remote_err_ns[EST_NERR]; /* its error terms per op (enum est_err), averaged over every pair */
	double bytes_per_op;           /* message bytes the PUT sent per operation; NAN if it does not say */
};

/* sum_small_ops - L/4 (0, a null run, when L < 4): a quarter pair's short run, and the PUT alone's run */
uint64_t sum_small_ops(uint64_t ops);
/*
 * The short run of a pair (--short-run): L/4 operations, whose slope with
 * L leaves out any start-up effect of the first operations that is over
 * within L/4 of them; or none (a null run), whose difference with L
 * amplifies the runs' noise less (docs/estimators.md, "Start-up cost")
 */
enum sum_short { SUM_SHORT_QUARTER, SUM_SHORT_NULL };
/* sum_short_ops - the L of the second run of a pair: sum_small_ops(L), or 0 (SUM_SHORT_NULL) */
uint64_t sum_short_ops(uint64_t ops, enum sum_short how);

/*
 * sum_compute - the result of runs[0..nruns). With the fit, runs 2i and
 * 2i + 1 are a pair (L and sum_small_ops(L), or L and a null run). Sets
 * each run's outlier flag: the estimates left out by the MAD tests, and
 * with the fit both runs of such a pair.
 */
void sum_compute(struct est_run *runs, size_t nruns, const struct sum_opts *o, struct summary *sum);

/* sum_clock_lies - whether source src broke the consistency check in at least half the runs */
int sum_clock_lies(const struct summary *s, int src);

/* sum_estimator_name - "off-CPU", "classic", "drift-robust" */
const char *sum_estimator_name(enum sum_estimator e);
/* sum_estimator_key - the JSON and CSV key: off_cpu, classic, drift_robust */
const char *sum_estimator_key(enum sum_estimator e);

/*
 * sum_startup_check - S, the start-up cost of one run, cannot be below
 * zero. A negative estimate (the fit's intercept, or the mean of null
 * runs) means the noise between runs was larger than S: it is not
 * measurable here, and never reported as a negative cost. Returns 1 (with
 * the reason in why) when s_ns is negative, else 0.
 */
int sum_startup_check(double s_ns, char *why, size_t len);

/*
 * sum_shared_bound_ns - how low a CPU shared with other tasks can make a
 * result tau: b/(1 - b) |tau|. The off-CPU estimator takes out b T_F(2),
 * what the others took alone. Beside the idle-class fluid they get what they
 * ask, so they can get less only while the PUT runs: they lose at most b of
 * the PUT's own time T, and T <= tau + b T. 0 for b from 0 down to
 * -SUM_MAX_OTHERS_SHARE (b is a difference of times, and noise takes a
 * quiet CPU's a little below 0); NAN for an unknown b or tau, or a b
 * further below 0.
 */
double sum_shared_bound_ns(double b, double tau_ns);
/*
 * sum_bound_interval - put the result's bound into its interval: e_shared_ns
 * (tau_bound_ns) when the CPU was shared (sum_shared_cpu), or when the
 * other CPUs were busy (sum_nowhere_else) and no scheduler trace (traced 0)
 * took the other tasks' time out. Either way the result can be low by up
 * to it, and no number of pairs shrinks it. Call it once other_cpu and
 * other_cpu_busy are set; calling it again replaces the bound. The
 * both-ends total's interval gets the same, and the normalised cost's the
 * same scaled to it (sum_norm_scale). The cost of these operations always
 * gets e_shared_ns (summary.these_bg_ns) and the unbilled time its account
 * leaves out (these_unbilled_ns), in these_fixed_ns.
 */
void sum_bound_interval(struct summary *s, int traced);
/* sum_norm_scale - |norm / tau| of the means, to carry a bound on the result to the normalised cost; 0 without */
double sum_norm_scale(const struct summary *s);
/*
 * sum_shared_cpu - whether other tasks took at least SUM_MAX_OTHERS_SHARE
 * of the measured CPU from the fluid in the calibrations: a quiet CPU's
 * kernel threads take about 0.1 %, a neighbour its own share
 * (bench/RESULTS.md, ci-coverage under noise)
 */
#define SUM_MAX_OTHERS_SHARE 0.01
int sum_shared_cpu(const struct summary *s);

/*
 * sum_nowhere_else - whether every CPU without a fluid was busy at least
 * SUM_MAX_OTHER_CPU_BUSY of the co-runs: the host's other tasks then had
 * no idle CPU but the measured one, and which of them land there during a
 * calibration (the idle-class fluid makes the CPU look idle) and which
 * during a co-run (the PUT keeps it busy) differs, so b, taken from the
 * calibrations, is not what the others took in the runs. Under a
 * memory-bandwidth hog on the other CPU the error of a pair had a lag-2
 * autocorrelation of 0.3 to 0.5 and the 95 % CI covered 77 to 87 % (bench/RESULTS.md).
 */
#define SUM_MAX_OTHER_CPU_BUSY 0.9
int sum_nowhere_else(const struct summary *s);

/*
 * sum_trace_bound_ns - what the scheduler trace (--trace-others) may leave
 * in the result per operation that is not the PUT's, given the switches it
 * saw on the measured CPU and the PUT's voluntary ones (getrusage), per
 * operation. Two of the CPU's switches for each voluntary one of the PUT
 * (out, and back in) are its own, and there the trace adds its event,
 * SUM_TRACE_OWN_SWITCH_NS (a 2 KB tcp send on one CPU read 1.65 us more at
 * 2.0 switches an op); at the rest, other tasks' comings and goings, the
 * switch itself stays in too, SUM_TRACE_OTHER_SWITCH_NS (spin traced read
 * 0.055 us high beside a 10 % neighbour at 0.027 switches an op, 0.049 us
 * under a memory hog at 0.014; bench/RESULTS.md). It is in the result's
 * interval when traced (sum_bound_interval).
 */
#define SUM_TRACE_OWN_SWITCH_NS 800.0
#define SUM_TRACE_OTHER_SWITCH_NS 2000.0
double sum_trace_bound_ns(double traced_switches_per_op, double put_voluntary_per_op);
/*
 * sum_trace_cost_ns - that bound before tracing, from the PUT's own
 * switches alone: each of them is two of the CPU's, counted as others'
 */
double sum_trace_cost_ns(double put_switches_per_op);
/*
 * sum_auto_trace - whether a measurement without the trace should be made
 * again with it: its interval is known not to hold (sum_shared_cpu or
 * sum_nowhere_else; under a memory hog on the other CPU it covered 91 of
 * 100 times, the trace's 95, bench/RESULTS.md) and the trace would add at
 * most SUM_AUTO_TRACE_MAX_COST of the result (sum_trace_cost_ns), far
 * inside any interval; a PUT that switches often (a blocking send) would
 * pay more, and is not traced unasked
 */
#define SUM_AUTO_TRACE_MAX_COST 0.001
int sum_auto_trace(const struct summary *s);

/*
 * sum_fluid_share - the fluid's speed in the bracketing calibrations as a
 * share of its undisturbed speed in the same runs (1 when unknown); below
 * SUM_MIN_FLUID_SHARE another process held the measured CPU.
 */
double sum_fluid_share(const struct summary *s);

#endif
