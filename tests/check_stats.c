/* check_stats.c - calib/stats against hand-computed cases and published tables */
#include "calib/stats.h"
#include "tests/normal_draw.h"
#include "tests/suites.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#define EPS 1e-9

START_TEST(test_mean_sd_hand_computed)
{
	/* 2 4 4 4 5 5 7 9: mean 5, sum of squares 32, sample sd sqrt(32/7) */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	ck_assert_double_eq_tol(stats_mean(x, 8), 5.0, EPS);
	ck_assert_double_eq_tol(stats_sd(x, 8), sqrt(32.0 / 7.0), EPS);
	ck_assert(isnan(stats_sd(x, 1)));
	ck_assert(isnan(stats_mean(x, 0)));
}
END_TEST

START_TEST(test_mean_keeps_precision_with_large_offset)
{
	const double x[] = { 1e12 + 1, 1e12 + 2, 1e12 + 3 };
	ck_assert_double_eq_tol(stats_mean(x, 3) - 1e12, 2.0, 1e-3);
	ck_assert_double_eq_tol(stats_sd(x, 3), 1.0, 1e-3);
}
END_TEST

START_TEST(test_median_and_mad)
{
	const double odd[] = { 9, 1, 5 };
	const double even[] = { 4, 1, 3, 2 };
	ck_assert_double_eq_tol(stats_median(odd, 3), 5, EPS);
	ck_assert_double_eq_tol(stats_median(even, 4), 2.5, EPS);
	/* 1 1 2 2 4 6 9: median 2, |dev| 1 1 0 0 2 4 7 -> MAD 1 */
	const double y[] = { 1, 1, 2, 2, 4, 6, 9 };
	ck_assert_double_eq_tol(stats_mad(y, 7), 1, EPS);
	/* the input must not be reordered */
	ck_assert_double_eq(odd[0], 9);
}
END_TEST

/* Student t critical values from the standard printed table (3 decimals). */
START_TEST(test_t_quantile_matches_published_table)
{
	static const struct {
		double p, df, t;
	} tab[] = {
		{ 0.975, 1, 12.706 }, { 0.975, 2, 4.303 },  { 0.975, 5, 2.571 },  { 0.975, 9, 2.262 },
		{ 0.975, 19, 2.093 }, { 0.975, 30, 2.042 }, { 0.975, 120, 1.980 }, { 0.95, 10, 1.812 },
		{ 0.995, 4, 4.604 },  { 0.995, 29, 2.756 }, { 0.9995, 10, 4.587 }, { 0.90, 3, 1.638 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		ck_assert_double_eq_tol(stats_t_quantile(tab[i].p, tab[i].df), tab[i].t, 5e-4);
}
END_TEST

START_TEST(test_t_quantile_exact_cases)
{
	/* df = 1 is Cauchy: t = tan(pi (p - 1/2)); df = 2: t = (2p-1) sqrt(2 / (4p(1-p))) */
	for (double p = 0.55; p < 0.999; p += 0.05) {
		ck_assert_double_eq_tol(stats_t_quantile(p, 1), tan(M_PI * (p - 0.5)), 1e-8);
		double a = 4 * p * (1 - p);
		ck_assert_double_eq_tol(stats_t_quantile(p, 2), (2 * p - 1) * sqrt(2 / a), 1e-8);
	}
	ck_assert_double_eq_tol(stats_t_quantile(0.025, 9), -stats_t_quantile(0.975, 9), 1e-12);
	ck_assert_double_eq(stats_t_quantile(0.5, 7), 0);
	ck_assert(isnan(stats_t_quantile(1.0, 5)));
	ck_assert(isnan(stats_t_quantile(0.9, 0)));
}
END_TEST

START_TEST(test_t_cdf_inverts_quantile)
{
	for (double df = 0.5; df < 200; df *= 1.7)
		for (double p = 0.01; p < 1; p += 0.07)
			ck_assert_double_eq_tol(stats_t_cdf(stats_t_quantile(p, df), df), p, 1e-10);
}
END_TEST

START_TEST(test_norm_quantile_known_values)
{
	ck_assert_double_eq_tol(stats_norm_quantile(0.975), 1.959963984540054, 1e-12);
	ck_assert_double_eq_tol(stats_norm_quantile(0.995), 2.575829303548901, 1e-12);
	ck_assert_double_eq_tol(stats_norm_quantile(0.95), 1.644853626951472, 1e-12);
	ck_assert_double_eq_tol(stats_norm_quantile(1e-10), -6.361340902404056, 1e-9);
	ck_assert_double_eq_tol(stats_norm_quantile(0.5), 0, 1e-15);
	ck_assert(isnan(stats_norm_quantile(0)));
	/* for large df, t tends to z */
	ck_assert_double_eq_tol(stats_t_quantile(0.975, 1e6), 1.959963984540054, 1e-5);
}
END_TEST

START_TEST(test_ci_half_width)
{
	/* Woodside Table 4 style: sd 10, n 20: t(0.975,19) = 2.093 -> 2.093 * 10 / sqrt(20) */
	ck_assert_double_eq_tol(stats_ci_half(10, 20, 0.95), 2.0930240544 * 10 / sqrt(20), 1e-6);
	ck_assert(isnan(stats_ci_half(10, 1, 0.95)));
	struct stats_summary s;
	const double x[] = { 10, 12, 11, 13 };
	ck_assert_int_eq(stats_summarize(x, 4, 0.95, &s), 0);
	ck_assert_double_eq_tol(s.mean, 11.5, EPS);
	ck_assert_double_eq_tol(s.min, 10, EPS);
	ck_assert_double_eq_tol(s.max, 13, EPS);
	ck_assert_double_eq_tol(s.cv, s.sd / 11.5, EPS);
	ck_assert_double_eq_tol(s.ci_half, 3.182446305 * s.sd / 2, 1e-6);
	ck_assert_int_lt(stats_summarize(x, 0, 0.95, &s), 0);
}
END_TEST

/*
 * Batch means by hand: 1..10 in 5 batches has means 1.5, 3.5, 5.5, 7.5, 9.5,
 * sd sqrt(40 / 4), so t(0.975, 4) sqrt(10) / sqrt(5); an 11th value is left
 * out. Two levels in spells (10 at 0, then 10 at 1) give batch means 0, 0,
 * 0.5, 1, 1, whose interval is wider than the t interval over the 20
 * values, which takes them as independent; the same values alternating
 * give batch means all 0.5: a zero-width batch interval.
 */
START_TEST(test_batch_half_by_hand)
{
	const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000 };
	double want = 2.7764451052 * sqrt(10) / sqrt(5);
	ck_assert_double_eq_tol(stats_batch_half(x, 10, 5, 0.95), want, 1e-6);
	ck_assert_double_eq_tol(stats_batch_half(x, 11, 5, 0.95), want, 1e-6);
	ck_assert(isnan(stats_batch_half(x, 10, 1, 0.95)));
	ck_assert(isnan(stats_batch_half(x, 4, 5, 0.95)));
	ck_assert(isnan(stats_batch_half(x, 10, 65, 0.95)));
	double means[5];
	ck_assert_int_eq(stats_batch_means(x, 11, 5, means), 0);
	for (int b = 0; b < 5; b++)
		ck_assert_double_eq_tol(means[b], 1.5 + 2 * b, 1e-12);
	ck_assert_int_eq(stats_batch_means(x, 4, 5, means), -EINVAL);
	ck_assert_int_eq(stats_batch_means(x, 10, 1, means), -EINVAL);
	double spells[20], alt[20];
	for (int i = 0; i < 20; i++) {
		spells[i] = i / 10;
		alt[i] = i % 2;
	}
	/* batches of 4: 0 0 0 0 | 0 0 0 0 | 0 0 1 1 | 1 1 1 1 | 1 1 1 1 */
	double m[] = { 0, 0, 0.5, 1, 1 };
	double b = stats_batch_half(spells, 20, 5, 0.95);
	ck_assert_double_eq_tol(b, stats_ci_half(stats_sd(m, 5), 5, 0.95), 1e-9);
	ck_assert(b > stats_ci_half(stats_sd(spells, 20), 20, 0.95));
	ck_assert_double_eq_tol(stats_batch_half(alt, 20, 5, 0.95), 0, 1e-12);
}
END_TEST

/*
 * The batches' variance ratio by hand. 1..10 in 5 batches of 2: means 1.5 to
 * 9.5, whose squared deviations sum to 40, so 2 40 / 4 = 20 between; each
 * batch's two values deviate 0.5 from its mean, 5 0.5 / 5 = 0.5 within: F
 * = 40 with 4 and 5 degrees of freedom. Two levels in spells (0 0 0 0 | 0 0
 * 0 0 | 0 0 1 1 | 1 1 1 1 | 1 1 1 1): 4 1 / 4 = 1 between, 1 / 15 within:
 * 15 with 4 and 15. Alternating values: equal batch means, F = 0.
 */
START_TEST(test_batch_f_by_hand)
{
	const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000 };
	double p;
	ck_assert_double_eq_tol(stats_batch_f(x, 10, 5, &p), 40, 1e-9);
	ck_assert_double_eq_tol(p, stats_f_sf(40, 4, 5), 1e-12);
	ck_assert_double_eq_tol(stats_batch_f(x, 11, 5, NULL), 40, 1e-9);
	double spells[20], alt[20], steps[10], flat[10];
	for (int i = 0; i < 20; i++) {
		spells[i] = i / 10;
		alt[i] = i % 2;
	}
	ck_assert_double_eq_tol(stats_batch_f(spells, 20, 5, &p), 15, 1e-9);
	ck_assert_double_eq_tol(p, stats_f_sf(15, 4, 15), 1e-12);
	ck_assert_double_lt(p, 0.001); /* F(4, 15)'s 0.1 % point is 8.25 */
	ck_assert_double_eq_tol(stats_batch_f(alt, 20, 5, &p), 0, 1e-12);
	ck_assert_double_eq(p, 1);
	/* only the batch means vary: an infinite ratio; nothing varies, or batches of 1: none */
	for (int i = 0; i < 10; i++) {
		steps[i] = i / 2;
		flat[i] = 3;
	}
	ck_assert(isinf(stats_batch_f(steps, 10, 5, &p)) && p == 0);
	ck_assert(isnan(stats_batch_f(flat, 10, 5, &p)) && isnan(p));
	ck_assert(isnan(stats_batch_f(x, 9, 5, &p)) && isnan(p));
	ck_assert(isnan(stats_batch_f(x, 10, 1, NULL)));
}
END_TEST

/*
 * Independent normal values give the batches' ratio its F law, so p falls
 * below 1 % in 1 % of series at every length: 20000 series of 20 and of
 * 100 (a binomial sd of 0.07 %; the bounds are 4 sd). The length does not
 * move the rate, as it moved that of the old test (batch interval over 2.5
 * times the t interval: 0.04 % at 20, 1.09 % at 100; bench/spells-test).
 */
START_TEST(test_batch_f_false_alarms)
{
	static const size_t lens[] = { 20, 100 };
	uint64_t state = 20261125;
	double x[100];
	for (size_t l = 0; l < 2; l++) {
		int below = 0, series = 20000;
		for (int k = 0; k < series; k++) {
			double p;
			for (size_t i = 0; i < lens[l]; i++)
				x[i] = 50 + normal_draw(&state);
			stats_batch_f(x, lens[l], 5, &p);
			below += p < 0.01;
		}
		ck_assert_int_ge(below, 144);
		ck_assert_int_le(below, 256);
	}
}
END_TEST

START_TEST(test_ratio_of_paired_means)
{
	double r, ci;
	/* a common drift: each pair moves together, so the ratio is exact */
	const double n1[] = { 2, 4, 6 }, d1[] = { 1, 2, 3 };
	ck_assert_int_eq(stats_ratio(n1, d1, 3, 0.95, &r, &ci), 0);
	ck_assert_double_eq_tol(r, 2.0, 1e-12);
	ck_assert_double_eq_tol(ci, 0.0, 1e-12);
	/* by hand: R = 2.5 / 1.5; residuals -2/3, 4/3, -4/3, 2/3; sd sqrt(40/27); t(0.975, 3) = 3.182446 */
	const double n2[] = { 1, 3, 2, 4 }, d2[] = { 1, 1, 2, 2 };
	ck_assert_int_eq(stats_ratio(n2, d2, 4, 0.95, &r, &ci), 0);
	ck_assert_double_eq_tol(r, 5.0 / 3.0, 1e-12);
	ck_assert_double_eq_tol(ci, 3.182446 * sqrt(40.0 / 27.0) / 2 / 1.5, 1e-5);
	/* one pair: a ratio, no CI; none, or a zero denominator: errors */
	ck_assert_int_eq(stats_ratio(n2, d2, 1, 0.95, &r, &ci), 0);
	ck_assert(isnan(ci));
	ck_assert_int_eq(stats_ratio(n2, d2, 0, 0.95, &r, &ci), -EINVAL);
	const double z[] = { 0, 0 };
	ck_assert_int_eq(stats_ratio(n2, z, 2, 0.95, &r, &ci), -EDOM);
}
END_TEST

START_TEST(test_outliers_flag_only_the_far_point)
{
	const double x[] = { 10.0, 10.1, 9.9, 10.05, 9.95, 14.0 };
	bool f[6];
	ck_assert_uint_eq(stats_outliers(x, 6, 3.5, f), 1);
	ck_assert(f[5]);
	ck_assert(!f[0] && !f[1] && !f[2] && !f[3] && !f[4]);
	const double same[] = { 3, 3, 3, 3 };
	ck_assert_uint_eq(stats_outliers(same, 4, 3.5, NULL), 0);
}
END_TEST

START_TEST(test_linfit_recovers_line_and_errors)
{
	/* y = 2 + 3x exactly, then one perturbed point checked by hand */
	const double x[] = { 1, 2, 3, 4 };
	const double y[] = { 5, 8, 11, 14 };
	struct stats_line l;
	ck_assert_int_eq(stats_linfit(x, y, 4, &l), 0);
	ck_assert_double_eq_tol(l.slope, 3, EPS);
	ck_assert_double_eq_tol(l.intercept, 2, EPS);
	ck_assert_double_eq_tol(l.se_slope, 0, EPS);
	ck_assert_double_eq_tol(l.r2, 1, EPS);
	/* x 0 1 2, y 1 3 2: slope 0.5, intercept 1.5, residuals -0.5 1 -0.5,
	 * SSE 1.5, s2 1.5, Sxx 2: se(slope) = sqrt(0.75), se(int) = sqrt(1.5 (1/3 + 1/2)) */
	const double x2[] = { 0, 1, 2 }, y2[] = { 1, 3, 2 };
	ck_assert_int_eq(stats_linfit(x2, y2, 3, &l), 0);
	ck_assert_double_eq_tol(l.slope, 0.5, EPS);
	ck_assert_double_eq_tol(l.intercept, 1.5, EPS);
	ck_assert_double_eq_tol(l.se_slope, sqrt(0.75), EPS);
	ck_assert_double_eq_tol(l.se_intercept, sqrt(1.5 * (1.0 / 3 + 0.5)), EPS);
	const double flat[] = { 1, 1 };
	ck_assert_int_lt(stats_linfit(flat, y, 2, &l), 0);
}
END_TEST

START_TEST(test_given_ci_by_hand)
{
	/* x 1 2 3 4, y 2 4 5 8: Sxx 5, Sxy 9.5, slope 1.9, intercept 0,
	 * residuals 0.1 0.2 -0.7 0.4, SSE 0.70, s_r = sqrt(0.35);
	 * half = t(0.975, 2) s_r / 2 with t(0.975, 2) = 4.302653 */
	const double x[] = { 1, 2, 3, 4 }, y[] = { 2, 4, 5, 8 };
	double sd, half;
	ck_assert_int_eq(stats_given_ci(y, x, 4, 0.95, &sd, &half), 0);
	ck_assert_double_eq_tol(sd, sqrt(0.35), EPS);
	ck_assert_double_eq_tol(half, 4.302653 * sqrt(0.35) / 2, 1e-5);
	/* y's own t interval is far wider: sd 2.5, t(0.975, 3) = 3.182446 */
	ck_assert_double_gt(stats_ci_half(2.5, 4, 0.95), 3 * half);
	/* y exactly linear in x: nothing left, a zero-width interval */
	const double lin[] = { 5, 8, 11, 14 };
	ck_assert_int_eq(stats_given_ci(lin, x, 4, 0.95, &sd, &half), 0);
	ck_assert_double_eq_tol(half, 0, EPS);
	/* too few, a flat covariate, a missing value */
	ck_assert_int_eq(stats_given_ci(y, x, 2, 0.95, &sd, &half), -EINVAL);
	ck_assert(isnan(half));
	const double flat[] = { 3, 3, 3, 3 }, gap[] = { 1, NAN, 3, 4 };
	ck_assert_int_eq(stats_given_ci(y, flat, 4, 0.95, &sd, &half), -EDOM);
	ck_assert_int_eq(stats_given_ci(y, gap, 4, 0.95, &sd, &half), -EDOM);
}
END_TEST

START_TEST(test_incbeta_symmetry_and_known)
{
	/* I_x(1, 1) = x; I_x(a, b) = 1 - I_{1-x}(b, a); I_0.5(a, a) = 0.5 */
	ck_assert_double_eq_tol(stats_incbeta(0.3, 1, 1), 0.3, 1e-12);
	ck_assert_double_eq_tol(stats_incbeta(0.2, 2.5, 4), 1 - stats_incbeta(0.8, 4, 2.5), 1e-12);
	ck_assert_double_eq_tol(stats_incbeta(0.5, 7, 7), 0.5, 1e-12);
	/* I_x(a, 1) = x^a */
	ck_assert_double_eq_tol(stats_incbeta(0.6, 3, 1), 0.216, 1e-12);
	/* F's upper 5 % points from the published table: F(4, 10) 3.478, F(4, 20) 2.866, F(4, 60) 2.525 */
	ck_assert_double_eq_tol(stats_f_sf(3.478, 4, 10), 0.05, 2e-4);
	ck_assert_double_eq_tol(stats_f_sf(2.866, 4, 20), 0.05, 2e-4);
	ck_assert_double_eq_tol(stats_f_sf(2.525, 4, 60), 0.05, 2e-4);
	/* F(1, d) is t(d) squared: t(0.975, 10) = 2.228139 */
	ck_assert_double_eq_tol(stats_f_sf(2.228139 * 2.228139, 1, 10), 0.05, 1e-6);
	ck_assert_double_eq(stats_f_sf(0, 4, 10), 1);
}
END_TEST

/*
 * Stein's two stage: 5 pairs with sd 2 %, a +-1 % target: t(0.975, 4) =
 * 2.776, N = ceil((2.776 x 2 / 1)^2) = ceil(30.83) = 31; its interval at N
 * is then within the target, and a first stage already precise enough stops.
 */
START_TEST(test_stein_two_stage_sample_size)
{
	ck_assert_uint_eq(stats_stein_n(2, 5, 1, 0.95), 31);
	ck_assert(stats_stein_half(2, 5, 31, 0.95) <= 1);
	ck_assert(stats_stein_half(2, 5, 30, 0.95) > 1);
	ck_assert_uint_eq(stats_stein_n(0.1, 5, 1, 0.95), 5);
	ck_assert_uint_eq(stats_stein_n(1, 1, 1, 0.95), 0);
	ck_assert_uint_eq(stats_stein_n(1, 5, 0, 0.95), 0);
	ck_assert_double_eq_tol(stats_stein_half(2, 5, 4, 0.95), 2.776445 * 2 / 2, 1e-5);
}
END_TEST

/*
 * Three stages: 4 estimates with sd 1.5, a +-1 target. Stein alone would
 * ask for ceil((3.182446 x 1.5)^2) = ceil(22.79) = 23; the second stage
 * goes to half of that, ceil(11.5) = 12. An sd of 2 over those 12 asks for
 * ceil((t(0.975, 11) = 2.200985 x 2)^2) = ceil(19.38) = 20; an sd of 1.2
 * for 6.98, less than the 12 already there, which then suffice.
 */
START_TEST(test_three_stage_sample_sizes)
{
	ck_assert_uint_eq(stats_stein_n(1.5, 4, 1, 0.95), 23);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 1, 0.95, 0.5, 0), 12);
	ck_assert_uint_eq(stats_stein_n(2, 12, 1, 0.95), 20);
	ck_assert_uint_eq(stats_stein_n(1.2, 12, 1, 0.95), 12);
	/* a first stage already precise enough is its own second stage */
	ck_assert_uint_eq(stats_three_stage_n1(0.1, 4, 1, 0.95, 0.5, 16), 4);
	/* at most max_n1: an sd of 6 asks Stein for ceil((3.182446 x 6)^2) = 365, half is 183, the limit 16 */
	ck_assert_uint_eq(stats_stein_n(6, 4, 1, 0.95), 365);
	ck_assert_uint_eq(stats_three_stage_n1(6, 4, 1, 0.95, 0.5, 16), 16);
	ck_assert_uint_eq(stats_three_stage_n1(6, 4, 1, 0.95, 0.5, 0), 183);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 1, 0.95, 0.5, 16), 12);
	/* rho = 1 is Stein's own N */
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 1, 0.95, 1, 0), 23);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 1, 0.95, 0, 0), 0);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 1, 0.95, 1.5, 0), 0);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 1, 1, 0.95, 0.5, 0), 0);
	ck_assert_uint_eq(stats_three_stage_n1(1.5, 4, 0, 0.95, 0.5, 0), 0);
}
END_TEST

Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_mean_sd_hand_computed);
	tcase_add_test(tc, test_stein_two_stage_sample_size);
	tcase_add_test(tc, test_three_stage_sample_sizes);
	tcase_add_test(tc, test_mean_keeps_precision_with_large_offset);
	tcase_add_test(tc, test_median_and_mad);
	tcase_add_test(tc, test_t_quantile_matches_published_table);
	tcase_add_test(tc, test_t_quantile_exact_cases);
	tcase_add_test(tc, test_t_cdf_inverts_quantile);
	tcase_add_test(tc, test_norm_quantile_known_values);
	tcase_add_test(tc, test_ci_half_width);
	tcase_add_test(tc, test_batch_half_by_hand);
	tcase_add_test(tc, test_batch_f_by_hand);
	tcase_add_test(tc, test_batch_f_false_alarms);
	tcase_add_test(tc, test_ratio_of_paired_means);
	tcase_add_test(tc, test_outliers_flag_only_the_far_point);
	tcase_add_test(tc, test_linfit_recovers_line_and_errors);
	tcase_add_test(tc, test_given_ci_by_hand);
	tcase_add_test(tc, test_incbeta_symmetry_and_known);
	suite_add_tcase(s, tc);
	return s;
}
