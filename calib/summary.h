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

struct sum_opts {
	int fit;          /* runs alternate L and sum_small_ops(L): pairs; else one estimate per run */
	uint64_t ops;     /* L, as configured */
	int ncpu;         /* fluid CPUs */
	const int *cpu_id;
};

struct summary {
	size_t n;                      /* estimates: pairs, or runs without the fit */
	size_t outliers;
	int fitted;
	uint64_t ops;
	struct stats_summary tau;        /* ns per op, classic displacement */
	struct stats_summary tau_robust; /* ns per op, drift-robust */
	struct stats_summary tau_raw;    /* ns per op, classic, the same runs by the real clock */
	struct stats_summary os[EST_NSRC];
	char os_why[EST_NSRC][24];          /* why a source has no mean (the first run's reason), or "" */
	struct stats_summary pct[EST_NSRC]; /* paired 100 (os - disp) / disp */
	struct stats_summary pct_robust[EST_NSRC];
	double startup_ns;             /* S per run; NAN when not measurable (startup_why) */
	struct stats_summary startup;  /* S over null runs (--ops 0) */
	char startup_why[160];         /* why S is not measurable, or "" (sum_startup_check) */
	double e_res_ns, e_start_ns, e_drift_ns, e_calib_ns, e_cache_ns; /* per op */
	int ncpu;
	int cpu_id[EST_MAX_CPUS];
	double cpu_tau_ns[EST_MAX_CPUS];
	double net_rx_per_op[EST_MAX_CPUS], net_tx_per_op[EST_MAX_CPUS];
	double tau_f_ns, tau0_ns;
	double put_wall_per_op_ns;     /* put's own wall time per op, with the fluid beside it */
	struct stats_summary peer;     /* the local peer's CPU per op (NAN without one) */
	struct stats_summary put_peer_pct; /* 100 (getrusage + peer - d) / d, paired */
	int cmd_status;                /* exec: the first non-zero status seen, or 0 */
};

/* sum_small_ops - the L of the second run of a pair: L/4 (0, a null run, when L < 4) */
uint64_t sum_small_ops(uint64_t ops);

/*
 * sum_compute - the result of runs[0..nruns). With the fit, runs 2i and
 * 2i + 1 are a pair (L and sum_small_ops(L), or L and a null run). Sets
 * each run's outlier flag: the estimates left out by the MAD tests, and
 * with the fit both runs of such a pair.
 */
void sum_compute(struct est_run *runs, size_t nruns, const struct sum_opts *o, struct summary *sum);

/*
 * sum_startup_check - S, the start-up cost of one run, cannot be below
 * zero. A negative estimate (the fit's intercept, or the mean of null
 * runs) means the noise between runs was larger than S: it is not
 * measurable here, and never reported as a negative cost. Returns 1 (with
 * the reason in why) when s_ns is negative, else 0.
 */
int sum_startup_check(double s_ns, char *why, size_t len);

/*
 * sum_fluid_share - the fluid's speed in the bracketing calibrations as a
 * share of its undisturbed speed in the same runs (1 when unknown); below
 * SUM_MIN_FLUID_SHARE another process held the measured CPU.
 */
double sum_fluid_share(const struct summary *s);

#endif
