/*
 * slowclock.h - slow-clock statistics: estimating durations shorter than a
 * clock tick from tick counts, and the number of loops that needs.
 *
 * Beilner 1988 ("Measuring with slow clocks"), Chan ("Estimating execution
 * time with a discrete clock"), Danzig and Melvin ("High resolution timing
 * with low resolution clocks") and Woodside, Courtois and Schramm 1997
 * (section 3, clock resolution). docs/slowclock.md gives every formula with
 * its equation number, its symbols and the discrepancies in the papers.
 *
 * Durations are nanoseconds held in double (a mean below one tick is
 * fractional). Confidence levels are fractions in (0, 1). Precisions and
 * tolerances are relative, as fractions of the duration. Sample sizes are
 * returned as the real-valued bound; the caller rounds up. Every function is
 * pure; an argument outside its domain gives NAN (or -EINVAL).
 */
#ifndef SLOWCLOCK_H
#define SLOWCLOCK_H

#include <stddef.h>
#include <stdint.h>

/* slowclock_z - two-sided normal quantile: P(|Z| <= z) = conf (1.96 at 0.95) */
double slowclock_z(double conf);

/* --- Beilner 1988 ---------------------------------------------------------
 * d is the clock tick interval (res_ns), c_i the ticks seen in the i'th of
 * n intervals, ET the expected duration (mean_ns), k = floor(ET/d).
 */

/* slowclock_beilner_mean_ns - (6b) mT = (d/n) sum c_i, from the tick sum */
double slowclock_beilner_mean_ns(double tick_sum, double n, double res_ns);
/* slowclock_beilner_var_ns2 - (10a) VMT = d^2 {(ET/d - k) - (ET/d - k)^2} / n, in ns^2 */
double slowclock_beilner_var_ns2(double mean_ns, double res_ns, double n);
/* slowclock_beilner_var_bound_ns2 - (10b) VMT <= d^2 / (4n), in ns^2 */
double slowclock_beilner_var_bound_ns2(double res_ns, double n);
/*
 * slowclock_beilner_sd_contig_ns - (10d) S_DMT = sqrt(VT/n + d^2/(6 n^2)):
 * the sd of the mean of n contiguous intervals whose own sd is sd_t_ns
 */
double slowclock_beilner_sd_contig_ns(double sd_t_ns, double res_ns, double n);
/*
 * slowclock_beilner_sd_contig_bound_ns - S_DT/sqrt(n) + d/(sqrt(6) n), a true
 * upper bound of (10d). The paper prints d/(6n), which is not a bound.
 */
double slowclock_beilner_sd_contig_bound_ns(double sd_t_ns, double res_ns, double n);
/* slowclock_beilner_width - w_r = 2z, the total width of an r-CI in sd units (3.92 at 0.95) */
double slowclock_beilner_width(double conf);
/*
 * slowclock_beilner_loops - (14a) n >= (w/p)^2 {1 - k d/ET} {(1+k) d/ET - 1}:
 * loops for a CI of total width w S_DMT <= p ET (13). 0 when ET is a whole
 * number of ticks (by assumption (8) every interval then gets exactly k).
 */
double slowclock_beilner_loops(double w, double p, double mean_ns, double res_ns);
/* slowclock_beilner_loops_short - (14b) n >= (w/p)^2 (d/ET - 1), for ET < d; NAN otherwise */
double slowclock_beilner_loops_short(double w, double p, double mean_ns, double res_ns);
/*
 * slowclock_beilner_loops_bound - (13) with the bound (10b): n >= (w/p)^2
 * d^2 / (4 ET^2), enough wherever ET falls between two ticks
 */
double slowclock_beilner_loops_bound(double w, double p, double mean_ns, double res_ns);

/* --- Chan -----------------------------------------------------------------
 * l is the tick (tick_ns). Of n runs, d were recorded as (k+1) l and n - d
 * as k l.
 */
struct slowclock_chan {
	double k;        /* whole ticks every run got */
	double p_hat;    /* d/n */
	double t_hat_ns; /* (3) T^ = (k + d/n) l */
	double half_ns;  /* (4) z l sqrt(p^(1 - p^)/n): T^ +- half_ns */
};

/* slowclock_chan_estimate - T^ and its CI (4) with quantile z; -EINVAL if d > n, n = 0 or l <= 0 */
int slowclock_chan_estimate(uint64_t k, uint64_t d, uint64_t n, double tick_ns, double z,
			    struct slowclock_chan *out);
/* slowclock_chan_samples - (5) n = z^2 p(1-p) / (tol^2 (k+p)^2) for a CI of +- tol T^ */
double slowclock_chan_samples(double k, double p, double z, double tol);

/* --- Danzig and Melvin ---------------------------------------------------- */

/*
 * slowclock_danzig_samples - (4) n = z^2 D^2 p q / eps^2, p = delta/D, q = 1 - p:
 * iterations to be within +- eps_ns of a segment of delta_ns with a clock of
 * res_ns. For delta > D (outside the paper) p is the fraction of a tick,
 * delta/D - floor(delta/D), as in Chan and Beilner.
 */
double slowclock_danzig_samples(double z, double res_ns, double delta_ns, double eps_ns);
/*
 * slowclock_digits_eps_ns - one unit of the last digit when value_ns is
 * reported to digits significant digits: 10^(floor(log10 value) - digits + 1)
 */
double slowclock_digits_eps_ns(double value_ns, int digits);

/* --- Woodside, Courtois and Schramm 1997, section 3 ---------------------- */

/* slowclock_woodside_eres_ns - e_res = D (1 + L_F(2)/L_F(1)) / (2 L_PUT(2)), ns per PUT loop */
double slowclock_woodside_eres_ns(double res_ns, double lf1, double lf2, double lput2);
/*
 * slowclock_woodside_lput - the L_PUT(2) that keeps e_res <= prec tau_put:
 * D (1 + r) / (2 prec tau), r = L_F(2)/L_F(1) (1 gives D / (prec tau))
 */
double slowclock_woodside_lput(double res_ns, double tau_ns, double prec, double lf_ratio);

/* --- Tick counts ------------------------------------------------------------ */

/* The statistics of one activity's per-interval tick counts, in ticks. */
struct slowclock_ticks {
	size_t n;                  /* intervals */
	double tick_sum;
	uint64_t min_ticks, max_ticks;
	double mean_ticks;         /* (5) MC; times d it is (6b) */
	double sd_pred_ticks;      /* sqrt (10a) with ET/d = MC, at n */
	double sd_bound_ticks;     /* sqrt (10b) at n */
	int two_values;            /* counts are all k or k + 1: assumption (8) holds */
	double model_half_ticks;   /* z sd_pred: Chan's CI (4); NAN unless two_values */
	size_t batches;            /* batches used (0 if fewer than 2 intervals) */
	size_t batch_len;          /* intervals per batch; the n - batches*batch_len left over are not batched */
	double sd_batch_mean_ticks; /* sd of one batch's mean (Beilner's s_dMT); NAN if < 2 batches */
	double sd_mean_ticks;      /* from batches: sd of the mean of all n, sd_batch_mean sqrt(batch_len/n) */
	double ci_half_ticks;      /* t(conf, batches - 1) sd_mean_ticks; NAN if < 2 batches */
};

/*
 * slowclock_ticks_summarize - the statistics of ticks[0..n): (5), (10a),
 * (10b), the sd of the mean estimated from batch means of contiguous
 * batches (so serial correlation, the covariance term of (11), is counted),
 * and a Student-t CI over the batch means. batches is the number asked for;
 * fewer are used when n is small. -EINVAL if n is 0, batches < 2 or conf is
 * not in (0, 1).
 */
int slowclock_ticks_summarize(const uint64_t *ticks, size_t n, size_t batches, double conf,
			      struct slowclock_ticks *out);

#endif
