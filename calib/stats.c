/* stats.c - descriptive statistics, t and normal quantiles, CIs, MAD, regression */
#include "calib/stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	/* two passes keep the rounding error small for values with a large mean */
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	double m = s / (double)n;
	double c = 0;
	for (size_t i = 0; i < n; i++)
		c += x[i] - m;
	return m + c / (double)n;
}

double stats_sd(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	double m = stats_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double *t = malloc(n * sizeof *t);
	if (!t)
		return NAN;
	memcpy(t, x, n * sizeof *t);
	qsort(t, n, sizeof *t, cmp_double);
	double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return m;
}

double stats_mad(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double med = stats_median(x, n);
	double *d = malloc(n * sizeof *d);
	if (!d)
		return NAN;
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	double mad = stats_median(d, n);
	free(d);
	return mad;
}

int stats_summarize(const double *x, size_t n, double conf, struct stats_summary *s)
{
	memset(s, 0, sizeof *s);
	if (n == 0)
		return -EINVAL;
	s->n = n;
	s->mean = stats_mean(x, n);
	s->sd = n > 1 ? stats_sd(x, n) : 0;
	s->cv = s->mean != 0 ? s->sd / fabs(s->mean) : 0;
	s->min = s->max = x[0];
	for (size_t i = 1; i < n; i++) {
		if (x[i] < s->min)
			s->min = x[i];
		if (x[i] > s->max)
			s->max = x[i];
	}
	s->median = stats_median(x, n);
	s->ci_half = n > 1 ? stats_ci_half(s->sd, n, conf) : NAN;
	return 0;
}

double stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Acklam's rational approximation (relative error 1.15e-9), refined by one
 * Halley step on erfc, which brings it to full double precision.
 */
double stats_norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
				    1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				    -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
				    3.754408661907416e+00 };
	const double plow = 0.02425, phigh = 1 - plow;
	double q, r, x;

	if (!(p > 0 && p < 1))
		return NAN;
	if (p < plow) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= phigh) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	} else {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	double e = stats_norm_cdf(x) - p;
	double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* one step of the modified Lentz algorithm (Numerical Recipes 5.2): the factor it multiplies h by */
static double lentz_step(double aa, double *c, double *d)
{
	const double tiny = 1e-300;
	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction for the incomplete beta (modified Lentz). */
static double betacf(double x, double a, double b)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		/* the even and the odd step of the fraction */
		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		double del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

double stats_f_sf(double f, double d1, double d2)
{
	if (!(f > 0))
		return 1;
	return stats_incbeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2);
}

double stats_incbeta(double x, double a, double b)
{
	if (!(a > 0 && b > 0) || x < 0 || x > 1)
		return NAN;
	if (x == 0 || x == 1)
		return x;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	/* the continued fraction converges fast for x < (a + 1) / (a + b + 2) */
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(x, a, b) / a;
	return 1 - exp(lbt) * betacf(1 - x, b, a) / b;
}

double stats_t_cdf(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	double x = df / (df + t * t);
	double tail = 0.5 * stats_incbeta(x, df / 2, 0.5); /* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
		   (df + 1) / 2 * log1p(t * t / df));
}

double stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	/* solve on the upper half and reflect */
	double pu = p > 0.5 ? p : 1 - p;
	double sign = p > 0.5 ? 1 : -1;
	if (df > 1e7)
		return sign * stats_norm_quantile(pu);
	/* bracket [0, hi] then Newton steps guarded by bisection */
	double lo = 0, hi = 1;
	while (stats_t_cdf(hi, df) < pu) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return sign * INFINITY;
	}
	double t = stats_norm_quantile(pu);
	if (!(t > lo && t < hi))
		t = (lo + hi) / 2;
	for (int i = 0; i < 200; i++) {
		double f = stats_t_cdf(t, df) - pu;
		if (f > 0)
			hi = t;
		else
			lo = t;
		double step = f / t_pdf(t, df);
		double next = t - step;
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - t) <= 1e-14 * fmax(1, fabs(t))) {
			t = next;
			break;
		}
		t = next;
	}
	return sign * t;
}

double stats_ci_half(double sd, size_t n, double conf)
{
	if (n < 2 || !(conf > 0 && conf < 1))
		return NAN;
	double t = stats_t_quantile(1 - (1 - conf) / 2, (double)(n - 1));
	return t * sd / sqrt((double)n);
}

int stats_batch_means(const double *x, size_t n, size_t batches, double *means)
{
	if (batches < 2 || n < batches || batches > 64)
		return -EINVAL;
	size_t len = n / batches;
	for (size_t b = 0; b < batches; b++)
		means[b] = stats_mean(x + b * len, len);
	return 0;
}

double stats_batch_half(const double *x, size_t n, size_t batches, double conf)
{
	double m[64];
	if (stats_batch_means(x, n, batches, m))
		return NAN;
	return stats_ci_half(stats_sd(m, batches), batches, conf);
}

double stats_batch_f(const double *x, size_t n, size_t batches, double *p)
{
	double m[64];
	if (p)
		*p = NAN;
	if (stats_batch_means(x, n, batches, m) || n / batches < 2)
		return NAN;
	size_t len = n / batches;
	double grand = stats_mean(m, batches), between = 0, within = 0;
	for (size_t b = 0; b < batches; b++) {
		between += (m[b] - grand) * (m[b] - grand);
		for (size_t i = 0; i < len; i++)
			within += (x[b * len + i] - m[b]) * (x[b * len + i] - m[b]);
	}
	double d1 = (double)(batches - 1), d2 = (double)(batches * (len - 1));
	double ms_between = (double)len * between / d1, ms_within = within / d2;
	if (!(ms_within > 0)) {
		if (!(ms_between > 0))
			return NAN;
		if (p)
			*p = 0;
		return INFINITY;
	}
	double f = ms_between / ms_within;
	if (p)
		*p = stats_f_sf(f, d1, d2);
	return f;
}

int stats_ratio(const double *num, const double *den, size_t n, double conf, double *ratio, double *ci_half)
{
	if (n == 0)
		return -EINVAL;
	double mn = stats_mean(num, n), md = stats_mean(den, n);
	if (!(md != 0) || !isfinite(mn) || !isfinite(md))
		return -EDOM;
	double r = mn / md;
	*ratio = r;
	*ci_half = NAN;
	if (n < 2)
		return 0;
	/* delta method: the residuals num - r den carry the pairs' correlation */
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double d = num[i] - r * den[i];
		ss += d * d;
	}
	*ci_half = stats_ci_half(sqrt(ss / (double)(n - 1)), n, conf) / fabs(md);
	return 0;
}

size_t stats_outliers(const double *x, size_t n, double cut, bool *flags)
{
	size_t k = 0;
	if (n == 0)
		return 0;
	double med = stats_median(x, n), mad = stats_mad(x, n);
	for (size_t i = 0; i < n; i++) {
		bool out;
		if (mad > 0)
			out = 0.6745 * fabs(x[i] - med) / mad > cut;
		else
			out = fabs(x[i] - med) > 1e-9 * fabs(med);
		if (flags)
			flags[i] = out;
		k += out;
	}
	return k;
}

int stats_linfit(const double *x, const double *y, size_t n, struct stats_line *line)
{
	memset(line, 0, sizeof *line);
	if (n < 2)
		return -EINVAL;
	double mx = stats_mean(x, n), my = stats_mean(y, n);
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx == 0)
		return -EINVAL;
	line->n = n;
	line->slope = sxy / sxx;
	line->intercept = my - line->slope * mx;
	double sse = 0;
	for (size_t i = 0; i < n; i++) {
		double r = y[i] - (line->intercept + line->slope * x[i]);
		sse += r * r;
	}
	line->r2 = syy > 0 ? 1 - sse / syy : 1;
	if (n > 2) {
		double s2 = sse / (double)(n - 2);
		line->resid_sd = sqrt(s2);
		line->se_slope = sqrt(s2 / sxx);
		line->se_intercept = sqrt(s2 * (1.0 / (double)n + mx * mx / sxx));
	} else {
		line->resid_sd = line->se_slope = line->se_intercept = NAN;
	}
	return 0;
}

int stats_given_ci(const double *y, const double *x, size_t n, double conf, double *sd_res, double *half)
{
	*sd_res = *half = NAN;
	if (n < 3)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -EDOM;
	struct stats_line line;
	if (stats_linfit(x, y, n, &line))
		return -EDOM;
	*sd_res = line.resid_sd;
	*half = stats_t_quantile(1 - (1 - conf) / 2, (double)(n - 2)) * line.resid_sd / sqrt((double)n);
	return 0;
}

void stats_acc_add(struct stats_acc *a, double x)
{
	a->n++;
	double d = x - a->mean;
	a->mean += d / (double)a->n;
	a->m2 += d * (x - a->mean);
}

double stats_acc_sd(const struct stats_acc *a)
{
	if (a->n < 2)
		return NAN;
	return sqrt(a->m2 > 0 ? a->m2 / (double)(a->n - 1) : 0);
}

double stats_stein_half(double s0, size_t n0, size_t n, double conf)
{
	if (n0 < 2 || n == 0)
		return NAN;
	return stats_t_quantile(1 - (1 - conf) / 2, (double)n0 - 1) * s0 / sqrt((double)n);
}

size_t stats_stein_n(double s0, size_t n0, double h, double conf)
{
	if (n0 < 2 || !(h > 0))
		return 0;
	double t = stats_t_quantile(1 - (1 - conf) / 2, (double)n0 - 1), n = ceil(t * t * s0 * s0 / (h * h));
	if (!(n < 1e9))
		return (size_t)1e9;
	return n > (double)n0 ? (size_t)n : n0;
}

size_t stats_three_stage_n1(double s0, size_t n0, double h, double conf, double rho, size_t max_n1)
{
	if (!(rho > 0 && rho <= 1))
		return 0;
	size_t n = stats_stein_n(s0, n0, h, conf);
	if (!n)
		return 0;
	double n1 = ceil(rho * (double)n);
	if (max_n1 && n1 > (double)max_n1)
		n1 = (double)max_n1;
	return n1 > (double)n0 ? (size_t)n1 : n0;
}
