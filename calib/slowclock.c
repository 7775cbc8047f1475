/* slowclock.c - slow-clock statistics: Beilner, Chan, Danzig and Melvin, Woodside e_res */
#include "calib/slowclock.h"
#include "calib/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double slowclock_z(double conf)
{
	if (!(conf > 0 && conf < 1))
		return NAN;
	return stats_norm_quantile((1 + conf) / 2);
}

/* The fraction of a tick in mean/res: Beilner's ET/d - k, Chan's T@l / l. */
static double tick_frac(double mean_ns, double res_ns)
{
	double r = mean_ns / res_ns;
	double x = r - floor(r);
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static int positive(double x)
{
	return isfinite(x) && x > 0;
}

double slowclock_beilner_mean_ns(double tick_sum, double n, double res_ns)
{
	if (!(tick_sum >= 0) || !positive(n) || !positive(res_ns))
		return NAN;
	/* (6b): the tick sum times d, over the n intervals */
	return res_ns * tick_sum / n;
}

double slowclock_beilner_var_ns2(double mean_ns, double res_ns, double n)
{
	if (!(mean_ns >= 0) || !isfinite(mean_ns) || !positive(res_ns) || !positive(n))
		return NAN;
	/* (9c): under (8) C is k or k+1, so VC = x - x^2 with x = EC - k; (10a) = d^2 VC / n */
	double x = tick_frac(mean_ns, res_ns);
	return res_ns * res_ns * (x - x * x) / n;
}

double slowclock_beilner_var_bound_ns2(double res_ns, double n)
{
	if (!positive(res_ns) || !positive(n))
		return NAN;
	/* (10b): x - x^2 is at most 1/4, at x = 1/2 */
	return res_ns * res_ns / (4 * n);
}

double slowclock_beilner_sd_contig_ns(double sd_t_ns, double res_ns, double n)
{
	if (!(sd_t_ns >= 0) || !isfinite(sd_t_ns) || !positive(res_ns) || !positive(n))
		return NAN;
	/* (10c): the two end errors E'_n and B'_1 are U(0, d), each of variance d^2/12 */
	return sqrt(sd_t_ns * sd_t_ns / n + res_ns * res_ns / (6 * n * n));
}

double slowclock_beilner_sd_contig_bound_ns(double sd_t_ns, double res_ns, double n)
{
	if (!(sd_t_ns >= 0) || !isfinite(sd_t_ns) || !positive(res_ns) || !positive(n))
		return NAN;
	/* sqrt(a^2 + b^2) <= a + b with b = d / (sqrt(6) n); the paper's d/(6n) is smaller than b */
	return sd_t_ns / sqrt(n) + res_ns / (sqrt(6) * n);
}

double slowclock_beilner_width(double conf)
{
	/* w_r is the total width of the r-CI, so twice the two-sided quantile */
	return 2 * slowclock_z(conf);
}

double slowclock_beilner_loops(double w, double p, double mean_ns, double res_ns)
{
	if (!positive(w) || !positive(p) || !positive(mean_ns) || !positive(res_ns))
		return NAN;
	/*
	 * (14a) is (13) squared with (10a): {1 - k d/ET}{(1+k) d/ET - 1} equals
	 * (d/ET)^2 x (1 - x) with x = ET/d - k; this form cannot go negative
	 * through rounding when ET is a whole number of ticks.
	 */
	double x = tick_frac(mean_ns, res_ns);
	double r = res_ns / mean_ns;
	return (w / p) * (w / p) * r * r * x * (1 - x);
}

double slowclock_beilner_loops_short(double w, double p, double mean_ns, double res_ns)
{
	if (!positive(w) || !positive(p) || !positive(mean_ns) || !positive(res_ns) || mean_ns >= res_ns)
		return NAN;
	/* (14b): (14a) with k = 0 */
	return (w / p) * (w / p) * (res_ns / mean_ns - 1);
}

double slowclock_beilner_loops_bound(double w, double p, double mean_ns, double res_ns)
{
	if (!positive(w) || !positive(p) || !positive(mean_ns) || !positive(res_ns))
		return NAN;
	/* (13) with (10b): (w d / 2)^2 / n <= p^2 ET^2 */
	double r = res_ns / mean_ns;
	return (w / p) * (w / p) * r * r / 4;
}

int slowclock_chan_estimate(uint64_t k, uint64_t d, uint64_t n, double tick_ns, double z,
			    struct slowclock_chan *out)
{
	if (n == 0 || d > n || !positive(tick_ns) || !(z >= 0) || !isfinite(z))
		return -EINVAL;
	double p = (double)d / (double)n;
	out->k = (double)k;
	out->p_hat = p;
	/* (3), and (4): the binomial CI of p, normal approximation, scaled by l */
	out->t_hat_ns = ((double)k + p) * tick_ns;
	out->half_ns = tick_ns * z * sqrt(p * (1 - p) / (double)n);
	return 0;
}

double slowclock_chan_samples(double k, double p, double z, double tol)
{
	if (!(k >= 0) || !isfinite(k) || !(p >= 0 && p < 1) || !positive(z) || !positive(tol) || k + p <= 0)
		return NAN;
	/* (5), with 100 = 1/0.10^2 and 1.96 generalised to any tol and z */
	return z * z * p * (1 - p) / (tol * tol * (k + p) * (k + p));
}

double slowclock_danzig_samples(double z, double res_ns, double delta_ns, double eps_ns)
{
	if (!positive(z) || !positive(res_ns) || !positive(delta_ns) || !positive(eps_ns))
		return NAN;
	/* (4); the paper's p = delta/D assumes delta <= D */
	double p = delta_ns / res_ns;
	if (p > 1)
		p = tick_frac(delta_ns, res_ns);
	return z * z * res_ns * res_ns * p * (1 - p) / (eps_ns * eps_ns);
}

double slowclock_digits_eps_ns(double value_ns, int digits)
{
	if (!positive(value_ns) || digits < 1 || digits > 30)
		return NAN;
	double e = floor(log10(value_ns));
	/* log10 may land a hair off at powers of ten */
	if (pow(10, e) > value_ns)
		e -= 1;
	else if (pow(10, e + 1) <= value_ns)
		e += 1;
	return pow(10, e - digits + 1);
}

double slowclock_woodside_eres_ns(double res_ns, double lf1, double lf2, double lput2)
{
	if (!positive(res_ns) || !positive(lf1) || !(lf2 >= 0) || !isfinite(lf2) || !positive(lput2))
		return NAN;
	/* T_F(1) and T_F(2) each +- D/2; T_F(1) enters scaled by L_F(2)/L_F(1) */
	return res_ns * (1 + lf2 / lf1) / (2 * lput2);
}

double slowclock_woodside_lput(double res_ns, double tau_ns, double prec, double lf_ratio)
{
	if (!positive(res_ns) || !positive(tau_ns) || !positive(prec) || !(lf_ratio >= 0) || !isfinite(lf_ratio))
		return NAN;
	return res_ns * (1 + lf_ratio) / (2 * prec * tau_ns);
}

int slowclock_ticks_summarize(const uint64_t *ticks, size_t n, size_t batches, double conf,
			      struct slowclock_ticks *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0 || batches < 2 || !(conf > 0 && conf < 1))
		return -EINVAL;
	out->n = n;

	/* long double: a sum of 64-bit counts must not lose whole ticks */
	long double sum = 0;
	uint64_t lo = ticks[0], hi = ticks[0];
	for (size_t i = 0; i < n; i++) {
		sum += ticks[i];
		if (ticks[i] < lo)
			lo = ticks[i];
		if (ticks[i] > hi)
			hi = ticks[i];
	}
	out->tick_sum = (double)sum;
	out->min_ticks = lo;
	out->max_ticks = hi;
	out->mean_ticks = (double)(sum / n);

	/* (10a) and (10b) with d = 1: the answer is in ticks */
	out->sd_pred_ticks = sqrt(slowclock_beilner_var_ns2(out->mean_ticks, 1, (double)n));
	out->sd_bound_ticks = sqrt(slowclock_beilner_var_bound_ns2(1, (double)n));
	out->two_values = hi - lo <= 1;
	/* Chan's (4) is a normal CI with the (10a) variance, valid when (8) holds */
	out->model_half_ticks = out->two_values ? slowclock_z(conf) * out->sd_pred_ticks : NAN;

	out->sd_batch_mean_ticks = NAN;
	out->sd_mean_ticks = NAN;
	out->ci_half_ticks = NAN;
	size_t b = batches < n ? batches : n;
	if (b < 2)
		return 0;
	size_t len = n / b;
	double *mean = malloc(b * sizeof *mean);
	if (!mean)
		return -ENOMEM;
	/* contiguous batches: correlation between neighbouring intervals stays inside a batch */
	for (size_t j = 0; j < b; j++) {
		long double s = 0;
		for (size_t i = j * len; i < (j + 1) * len; i++)
			s += ticks[i];
		mean[j] = (double)(s / len);
	}
	out->batches = b;
	out->batch_len = len;
	out->sd_batch_mean_ticks = stats_sd(mean, b);
	/* a batch of len intervals has sd s_b; the mean of all n has sd s_b sqrt(len / n) */
	out->sd_mean_ticks = out->sd_batch_mean_ticks * sqrt((double)len / (double)n);
	out->ci_half_ticks = stats_t_quantile((1 + conf) / 2, (double)(b - 1)) * out->sd_mean_ticks;
	free(mean);
	return 0;
}
