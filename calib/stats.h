/* stats.h - descriptive statistics, t and normal quantiles, CIs, MAD, regression */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double mean;
	double sd;      /* sample standard deviation (n - 1); 0 when n < 2 */
	double cv;      /* sd / |mean|; 0 when mean is 0 */
	double min, max;
	double median;
	double ci_half; /* Student-t half-width at the confidence asked; NAN when n < 2 */
};

/* stats_mean - arithmetic mean of x[0..n); NAN when n is 0 */
double stats_mean(const double *x, size_t n);
/* stats_sd - sample standard deviation (divisor n - 1); NAN when n < 2 */
double stats_sd(const double *x, size_t n);
/* stats_median - median of x[0..n) (x is not modified); NAN when n is 0 */
double stats_median(const double *x, size_t n);
/* stats_mad - median absolute deviation from the median (unscaled) */
double stats_mad(const double *x, size_t n);
/* stats_summarize - all of the above; conf is e.g. 0.95. -EINVAL if n is 0 */
int stats_summarize(const double *x, size_t n, double conf, struct stats_summary *s);

/*
 * A running mean and variance, one value at a time (Welford 1962, as
 * Knuth TAOCP vol. 2, 4.2.2): m += (x - m) / n, s2 += (x - m_old)(x - m).
 */
struct stats_acc {
	size_t n;
	double mean, m2;
};
/* stats_acc_add - add x */
void stats_acc_add(struct stats_acc *a, double x);
/* stats_acc_sd - the sample standard deviation so far; NAN when n < 2 */
double stats_acc_sd(const struct stats_acc *a);

/* stats_norm_cdf - standard normal distribution function */
double stats_norm_cdf(double z);
/* stats_norm_quantile - z with P(Z <= z) = p, for 0 < p < 1; NAN otherwise */
double stats_norm_quantile(double p);
/* stats_t_cdf - Student t distribution function with df > 0 degrees of freedom */
double stats_t_cdf(double t, double df);
/* stats_t_quantile - t with P(T <= t) = p for df > 0 (any real df); NAN if out of range */
double stats_t_quantile(double p, double df);
/*
 * stats_ratio - the ratio of means R = mean(num) / mean(den) of n paired
 * observations, and the half-width of its CI at confidence conf by the delta
 * method (Student t on the residuals num - R den, divided by mean(den)):
 * pairing removes what the two have in common, such as a slow drift. ci_half
 * is NAN when n < 2. -EINVAL if n is 0, -EDOM if mean(den) is 0 or either
 * mean is not finite.
 */
int stats_ratio(const double *num, const double *den, size_t n, double conf, double *ratio, double *ci_half);
/*
 * stats_batch_means - the means of `batches` (2 to 64) contiguous batches of
 * n / batches values of x[0..n), in time order, into means[0..batches); the
 * last n % batches values are left out. -EINVAL if batches is outside 2 to
 * 64 or n < batches.
 */
int stats_batch_means(const double *x, size_t n, size_t batches, double *means);
/*
 * stats_batch_half - the half-width of a CI at confidence conf of the mean
 * of a series x[0..n) in time order: stats_ci_half(sd of the batch means,
 * batches, conf), over stats_batch_means. The last n % batches values are
 * left out, so it is the interval of the mean of the others. It counts the
 * correlation within a batch, so it holds for values that move in spells,
 * where the t interval over the values takes them as independent. NAN if
 * batches is outside 2 to 64 or n < batches.
 */
double stats_batch_half(const double *x, size_t n, size_t batches, double conf);
/*
 * stats_batch_f - whether x[0..n), in time order, moved in spells: the
 * one-way analysis of variance of its batches (stats_batch_means' batches
 * of len = n / batches values; the last n % batches left out), F = len
 * var(batch means) / the mean square within batches. Independent values of
 * one normal law give Fisher's F with batches - 1 and batches (len - 1)
 * degrees of freedom, so *p (if not NULL) = P(F beyond this), the chance of
 * so large an F without spells. NAN (p NAN) if batches is outside 2 to 64,
 * a batch holds fewer than 2 values, or no value varies; INFINITY (p 0) if
 * only the batch means do.
 */
double stats_batch_f(const double *x, size_t n, size_t batches, double *p);
/*
 * Below this p of stats_batch_f, a series is said to have moved in spells:
 * independent values do so in 1 % of series at every length (20000
 * simulated normal series each of 10 to 200 values, 5 batches).
 */
#define STATS_SPELLS_P 0.01
/* stats_ci_half - Student-t half-width of a two-sided CI of the mean: t(1-(1-conf)/2, n-1) sd/sqrt(n) */
double stats_ci_half(double sd, size_t n, double conf);
/*
 * stats_stein_n - Stein's two-stage sample size (Stein 1945): after a first
 * stage of n0 observations with sd s0, the total N (at least n0) such that
 * the interval mean_N +- t(1-(1-conf)/2, n0-1) s0 / sqrt(N) is at most h
 * wide on each side. Its coverage is exact for normal observations,
 * whatever N the first stage chose, because N depends on s0 only and the
 * mean is independent of it; stopping when the usual t interval first
 * looks narrow enough is not (it stops when s happens to be small, and
 * under-covers). 0 when n0 < 2 or h <= 0.
 */
size_t stats_stein_n(double s0, size_t n0, double h, double conf);
/*
 * stats_three_stage_n1 - the second stage's total in a three-stage rule
 * (after Hall 1981): a share rho (0 < rho <= 1) of the N Stein would ask
 * for after the first n0 with sd s0, at least n0 and at most max_n1 (0: no
 * limit; a first stage that caught one burst of noise asks for hundreds,
 * and the second stage then looks again after max_n1). The sd over all N1
 * then asks for the final total, by stats_stein_n(s1, N1, ...): its
 * t(N1-1) is at most the first stage's t(n0-1), and s1 is at least as good
 * an estimate as s0, so the total comes closer to what the spread needs.
 * 0 when n0 < 2, h <= 0 or rho is not in (0, 1].
 */
size_t stats_three_stage_n1(double s0, size_t n0, double h, double conf, double rho, size_t max_n1);
/* stats_stein_half - that interval's half-width for N: t(1-(1-conf)/2, n0-1) s0 / sqrt(N) */
double stats_stein_half(double s0, size_t n0, size_t n, double conf);
/* stats_incbeta - regularized incomplete beta I_x(a, b) */
double stats_incbeta(double x, double a, double b);
/* stats_f_sf - P(F > f) for Fisher's F with d1 and d2 degrees of freedom: I_(d2/(d2 + d1 f))(d2/2, d1/2); 1 for f <= 0 */
double stats_f_sf(double f, double d1, double d2);

/*
 * stats_outliers - flag x[i] whose modified z-score 0.6745 |x - median| / MAD
 * exceeds cut (Iglewicz and Hoaglin recommend 3.5). flags may be NULL.
 * Returns the number flagged. With MAD = 0 nothing is flagged unless it
 * differs from the median by more than 1e-9 of it.
 */
size_t stats_outliers(const double *x, size_t n, double cut, bool *flags);

struct stats_line {
	size_t n;
	double slope, intercept;
	double se_slope, se_intercept; /* NAN when n < 3 */
	double resid_sd;               /* NAN when n < 3 */
	double r2;
};
/*
 * stats_linfit - least-squares line y = intercept + slope x. -EINVAL when
 * n < 2 or all x are equal.
 */
int stats_linfit(const double *x, const double *y, size_t n, struct stats_line *line);
/*
 * stats_given_ci - the half-width of a CI at confidence conf for the mean of
 * y[0..n) over these n observations, given a covariate x[i] measured with
 * each (a regression estimator, as in survey sampling): the residual sd
 * s_r of the least-squares line y = a + b x, and
 *     half = t(1-(1-conf)/2, n-2) s_r / sqrt(n).
 * What x explains is taken as known, so the interval is for these
 * observations' own mean, not the mean of the process they came from. The
 * residual holds y's own error and whatever of y the line misses: in
 * expectation no narrower than y's error alone, as long as x's own error
 * is independent of y's and the observations are (a residual that drifts
 * over runs of observations makes any t interval too narrow). *sd_res
 * gets s_r. -EINVAL when
 * n < 3, -EDOM when all x are equal or a value is not finite.
 */
int stats_given_ci(const double *y, const double *x, size_t n, double conf, double *sd_res, double *half);

#endif
