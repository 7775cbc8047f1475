/*
 * check_slowclock.c - calib/slowclock against the published tables (Beilner
 * 1988 Tables 15 and 17, Chan's worked example, Danzig and Melvin Figure 2)
 * and against a simulated slow clock. Where a published number disagrees
 * with its own formula the formula wins, and a second test reproduces the
 * published number by the computation that explains it (docs/slowclock.md).
 */
#include "calib/slowclock.h"
#include "tests/suites.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define US(x) ((x) * 1e3) /* microseconds to ns */
#define MS(x) ((x) * 1e6) /* milliseconds to ns */

/* |a - b| <= rel |b| */
#define ck_assert_rel(a, b, rel) ck_assert_double_eq_tol((a), (b), fabs((double)(b)) * (rel))

/* Round x to a multiple of unit, half away from zero, as printed tables do. */
static double round_to(double x, double unit)
{
	return round(x / unit) * unit;
}

/* Round x to one significant digit (Danzig and Melvin print 8·10^7). */
static double round_sig1(double x)
{
	double u = pow(10, floor(log10(x)));
	return round(x / u) * u;
}

/* --- Beilner 1988, Table 15 ------------------------------------------------- */

static const double t15_ratio[3] = { 20, 40, 200 }; /* d / ET(a_min) */
static const struct {
	double r, p, w_printed;
	double n[3];
} t15[] = {
	{ 0.90, 0.10, 3.30, { 20700, 42500, 216700 } },
	{ 0.95, 0.05, 3.94, { 29500, 60500, 308900 } },
	{ 0.99, 0.01, 5.16, { 50600, 103800, 529800 } },
};

START_TEST(test_beilner_14b_table15_follows_the_formula)
{
	/* (14b) with w_r = 2 z(r) and the row's own p; values computed by hand (Python) */
	static const double want[3][3] = {
		{ 20562.13025112512, 42206.4778838884, 215361.25894599466 },
		{ 116780.34814910135, 239707.0304113133, 1223120.488509009 },
		{ 5042521.41677612, 10350438.697593087, 52813776.944128826 },
	};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double w = slowclock_beilner_width(t15[i].r);
			double d = MS(1), et = d / t15_ratio[j];
			ck_assert_rel(slowclock_beilner_loops_short(w, t15[i].p, et, d), want[i][j], 1e-9);
			/* (14a) at k = 0 is (14b) */
			ck_assert_rel(slowclock_beilner_loops(w, t15[i].p, et, d), want[i][j], 1e-9);
		}
}
END_TEST

START_TEST(test_beilner_table15_published_uses_printed_w_and_p_of_a_tenth)
{
	/*
	 * Every row of the table is (14b) with the printed w_r and p = 0.1,
	 * rounded to the nearest hundred; rows 2 and 3 are labelled p = 0.05
	 * and 0.01, which would need 4 and 100 times as many loops.
	 */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double d = MS(1), et = d / t15_ratio[j];
			double n01 = slowclock_beilner_loops_short(t15[i].w_printed, 0.1, et, d);
			ck_assert_double_eq(round_to(n01, 100), t15[i].n[j]);
			double own = slowclock_beilner_loops_short(t15[i].w_printed, t15[i].p, et, d);
			ck_assert_rel(own, n01 * (0.1 / t15[i].p) * (0.1 / t15[i].p), 1e-12);
			if (i > 0)
				ck_assert_double_gt(own, 3.9 * t15[i].n[j]);
		}
}
END_TEST

START_TEST(test_beilner_w_r_is_twice_z)
{
	ck_assert_double_eq_tol(slowclock_beilner_width(0.90), 3.289707253902943, 1e-9);
	ck_assert_double_eq_tol(slowclock_beilner_width(0.95), 3.919927969080107, 1e-9);
	ck_assert_double_eq_tol(slowclock_beilner_width(0.99), 5.151658607097800, 1e-9);
	/*
	 * printed 3.30 and 5.16 are 2 z with z rounded to the table values
	 * 1.645 and 2.576, then to two decimals: 1.65 and 2.58 ...
	 */
	ck_assert_double_eq_tol(slowclock_z(0.90), 1.645, 5e-4);
	ck_assert_double_eq_tol(t15[0].w_printed / 2, 1.65, 1e-12);
	ck_assert_double_eq_tol(slowclock_z(0.99), 2.576, 5e-4);
	ck_assert_double_eq_tol(t15[2].w_printed / 2, 2.58, 1e-12);
	/* ... but 3.94 is not: 2 x 1.96 = 3.92 (docs/slowclock.md) */
	ck_assert_double_eq_tol(slowclock_z(0.95), 1.960, 5e-4);
	ck_assert_double_eq_tol(t15[1].w_printed / 2, 1.97, 1e-12);
}
END_TEST

START_TEST(test_beilner_experiment_durations_in_section_3)
{
	/* the text's durations are table 15's n times ET(a_max): 52 s, 74 s, 2650 s */
	ck_assert_double_eq(round(20700 * 2.5e-3), 52);
	ck_assert_double_eq(round(29500 * 2.5e-3), 74);
	ck_assert_double_eq_tol(529800 * 5e-3, 2649, 1e-9);
	/* "145 sec" for 5 ms is not 29500 x 5 ms */
	ck_assert_double_eq_tol(29500 * 5e-3, 147.5, 1e-9);
}
END_TEST

START_TEST(test_beilner_14a_longest_activity_example)
{
	/*
	 * ET(a_max) = 50 ET(a_min), d/ET(a_min) = 20, so ET(a_max)/d = 2.5, k = 2:
	 * the factor of (14a) is 0.2 x 0.2 and 29500 loops allow (w/p)^2 <=
	 * 737500, w/p <= 858.8. The paper's sqrt(184000) = 430 is 29500 /
	 * (d/ET)^2: the factor {x - x^2} = 1/4 of (10a) dropped.
	 */
	double d = MS(1), et = 2.5 * d;
	double f = slowclock_beilner_loops(1, 1, et, d);
	ck_assert_double_eq_tol(f, 0.04, 1e-12);
	ck_assert_double_eq_tol(29500 / f, 737500, 1e-6);
	double published = 29500 / ((d / et) * (d / et));
	ck_assert_double_eq(round_to(published, 1000), 184000);
	ck_assert_double_eq(round_to(sqrt(published), 10), 430);
}
END_TEST

/* --- Beilner 1988, Table 17 ------------------------------------------------- */

/* Table 17a: c(i,j) for 10 repetitions of n = 10000 loops, and the printed sums. */
static const struct {
	const char *name;
	double c[10];
	double sum;
	double mmt, sdmt, s_dmt; /* Table 17b, microseconds */
} t17[] = {
	{ "(1,1)", { 56913, 56855, 56856, 56853, 56854, 56854, 56854, 56854, 56853, 56856 }, 568602, 5686, 4.64, 1.86 },
	{ "(1,2)", { 11931, 11949, 11931, 11899, 11912, 11906, 11940, 11902, 11963, 11935 }, 119268, 1193, 3.94, 2.14 },
	{ "(2,3)", { 820, 806, 817, 829, 849, 821, 821, 882, 832, 811 }, 8288, 83, 2.76, 2.22 },
	{ "(3,4)", { 1858, 1846, 1847, 1843, 1845, 1882, 1823, 1816, 1832, 1846 }, 18438, 184, 3.88, 1.83 },
	{ "(4,5)", { 11995, 12023, 12033, 12013, 11953, 11981, 12028, 12014, 11972, 12029 }, 120041, 1200, 4.00, 2.75 },
	{ "(5,6)", { 894, 872, 859, 864, 909, 871, 852, 832, 888, 847 }, 8688, 87, 2.82, 2.33 },
	{ "(6,7)", { 1425, 1403, 1404, 1455, 1436, 1399, 1459, 1488, 1461, 1428 }, 14358, 144, 3.51, 2.96 },
	{ "(7,8)", { 11918, 11918, 11924, 11875, 11870, 11959, 11867, 11882, 11860, 11902 }, 118975, 1190, 3.92, 3.19 },
	{ "(8,9)", { 844, 867, 873, 905, 892, 830, 892, 865, 884, 898 }, 8750, 88, 2.83, 2.41 },
	{ "(9,10)", { 1819, 1823, 1801, 1757, 1806, 1806, 1806, 1775, 1826, 1774 }, 17993, 180, 3.84, 2.31 },
	{ "(10,11)", { 9629, 9585, 9597, 9634, 9606, 9604, 9606, 9636, 9587, 9628 }, 96112, 961, 1.93, 1.92 },
	{ "(11,12)", { 855, 859, 830, 843, 835, 846, 865, 859, 852, 839 }, 8483, 85, 2.79, 1.15 },
	{ "(12,1)", { 2925, 2904, 2940, 2936, 2941, 2949, 2895, 2903, 2896, 2919 }, 29208, 292, 4.55, 2.03 },
};
#define T17_N 13

START_TEST(test_beilner_table17a_sums_are_consistent)
{
	double parts = 0;
	for (int i = 0; i < T17_N; i++) {
		double s = 0;
		for (int r = 0; r < 10; r++)
			s += t17[i].c[r];
		ck_assert_double_eq(s, t17[i].sum);
		if (i > 0)
			parts += t17[i].sum;
	}
	/* the twelve sub-intervals tile the loop cycle (1,1) */
	ck_assert_double_eq(parts, t17[0].sum);
}
END_TEST

START_TEST(test_beilner_table17b_mean_6b_and_sd_10a)
{
	const double d = US(1000);
	for (int i = 0; i < T17_N; i++) {
		/* the sums are one experiment of 100000 loops: (6b) */
		double m = slowclock_beilner_mean_ns(t17[i].sum, 100000, d);
		ck_assert_double_eq(round_to(m / 1e3, 1), t17[i].mmt);
		/* S_DMT for the n = 10000 experiments: (10a) with ET = mMT */
		double sd = sqrt(slowclock_beilner_var_ns2(m, d, 10000)) / 1e3;
		ck_assert_msg(fabs(round_to(sd, 0.01) - t17[i].sdmt) < 1e-9, "%s: S_DMT %.4f, published %.2f",
			      t17[i].name, sd, t17[i].sdmt);
		/* (10b) bounds it: 5 us */
		ck_assert_double_le(sd, sqrt(slowclock_beilner_var_bound_ns2(d, 10000)) / 1e3);
	}
	ck_assert_double_eq_tol(sqrt(slowclock_beilner_var_bound_ns2(d, 10000)), US(5), 1e-9);
	/* two hand-checked values: (1,1) x = .68602, (10,11) x = .96112 */
	ck_assert_double_eq_tol(sqrt(slowclock_beilner_var_ns2(US(5686.02), d, 10000)), 4641.1, 0.1);
	ck_assert_double_eq_tol(sqrt(slowclock_beilner_var_ns2(US(961.12), d, 10000)), 1933.1, 0.1);
}
END_TEST

START_TEST(test_beilner_table17b_batch_sd_from_table17a)
{
	/*
	 * s_dMT: the sd of the 10 repetition means. Rebuild 100000 per-loop
	 * counts with the printed per-repetition sums (each count k or k + 1)
	 * and let the batch estimator of slowclock_ticks_summarize find it.
	 */
	const size_t m = 10000, n = 10 * m;
	uint64_t *c = malloc(n * sizeof *c);
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < T17_N; i++) {
		for (int r = 0; r < 10; r++) {
			uint64_t s = (uint64_t)t17[i].c[r], k = s / m, extra = s % m;
			for (size_t j = 0; j < m; j++)
				c[(size_t)r * m + j] = k + (j < extra);
		}
		struct slowclock_ticks t;
		ck_assert_int_eq(slowclock_ticks_summarize(c, n, 10, 0.95, &t), 0);
		ck_assert_uint_eq(t.batches, 10);
		ck_assert_uint_eq(t.batch_len, m);
		ck_assert_double_eq(t.tick_sum, t17[i].sum);
		double s_dmt_us = t.sd_batch_mean_ticks * 1000; /* d = 1000 us */
		ck_assert_msg(fabs(round_to(s_dmt_us, 0.01) - t17[i].s_dmt) < 1e-9, "%s: s_dMT %.4f, published %.2f",
			      t17[i].name, s_dmt_us, t17[i].s_dmt);
		/* the paper's verdict: (10a) is the larger (safe) in every row */
		ck_assert_double_lt(s_dmt_us, t17[i].sdmt);
		/* the mean of all 100000 has sd s_dMT / sqrt(10) */
		ck_assert_double_eq_tol(t.sd_mean_ticks, t.sd_batch_mean_ticks / sqrt(10), 1e-12);
	}
	free(c);
}
END_TEST

START_TEST(test_beilner_10d_contiguous_sd_and_its_bound)
{
	const double d = MS(10), n = 1000;
	/* (10d) by hand: VT = (0.05 ms)^2 */
	double want = sqrt(MS(0.05) * MS(0.05) / n + d * d / (6 * n * n));
	ck_assert_double_eq_tol(slowclock_beilner_sd_contig_ns(MS(0.05), d, n), want, 1e-6);
	for (double sdt = 0; sdt < MS(1); sdt += US(7))
		ck_assert_double_ge(slowclock_beilner_sd_contig_bound_ns(sdt, d, n),
				    slowclock_beilner_sd_contig_ns(sdt, d, n));
	/* the paper's bound S_DT/sqrt(n) + d/(6n) fails: at VT = 0 it is d/(6n) < d/(sqrt(6) n) */
	ck_assert_double_gt(slowclock_beilner_sd_contig_ns(0, d, n), d / (6 * n));
}
END_TEST

START_TEST(test_beilner_99_percent_example_is_infeasible)
{
	/*
	 * d = 10 ms, n = 1000: a 99 % CI of +- d/n needs 2.58 S_DMT <= d/n. By
	 * (10d) even VT = 0 gives 2.58 d / (sqrt(6) n) = 1.053 d/n, so the
	 * condition VT <= (d^2/n)(1/2.58^2 - 1/6) has a negative right side.
	 */
	const double d = MS(10), n = 1000;
	ck_assert_double_gt(2.58 * slowclock_beilner_sd_contig_ns(0, d, n), d / n);
	ck_assert_double_lt(1 / (2.58 * 2.58) - 1.0 / 6, 0);
	/* the printed 0.02209 has the digits of 1/2.58 - 1/6 (squares dropped), shifted one place */
	ck_assert_double_eq_tol((1 / 2.58 - 1.0 / 6) / 10, 0.02209, 5e-6);
	/* and sqrt(0.02209 d^2/n) is 0.0470 ms, printed 0.0479 */
	ck_assert_double_eq_tol(sqrt(0.02209 * 100 / 1000), 0.0470, 5e-5);
}
END_TEST

/* --- Chan ------------------------------------------------------------------- */

START_TEST(test_chan_worked_example)
{
	/* 2000 runs, 400 recorded as 16.666 ms, the rest 0 */
	struct slowclock_chan c;
	ck_assert_int_eq(slowclock_chan_estimate(0, 400, 2000, MS(16.666), 1.96, &c), 0);
	ck_assert_double_eq_tol(c.p_hat, 0.2, 1e-15);
	ck_assert_double_eq_tol(c.t_hat_ns, MS(3.3332), 1e-6); /* printed 3.333 ms */
	ck_assert_double_eq(round_to(c.t_hat_ns / 1e6, 0.001), 3.333);
	/* (4): 16.666 x 1.96 x sqrt(0.16/2000) = 0.29217 ms, inside the 10 % (0.333 ms) asked */
	ck_assert_double_eq_tol(c.half_ns, MS(0.29216786187801), 1);
	ck_assert_double_lt(c.half_ns, 0.10 * c.t_hat_ns);
	/* (5): 100 x 1.96^2 x 0.2 x 0.8 / 0.2^2 = 1536.64; the smallest n is 1537 */
	double n = slowclock_chan_samples(0, 0.2, 1.96, 0.10);
	ck_assert_double_eq_tol(n, 1536.64, 1e-9);
	ck_assert_double_eq(ceil(n), 1537);
	/* with the exact z(0.95) = 1.95996: 1536.58, still 1537 */
	ck_assert_double_eq_tol(slowclock_chan_samples(0, 0.2, slowclock_z(0.95), 0.10), 1536.5835282776, 1e-6);
	/* the printed "= 1536" truncates 1536.64 */
	ck_assert_double_eq(floor(n), 1536);
	ck_assert(2000 >= ceil(n));
	ck_assert_int_lt(slowclock_chan_estimate(0, 3, 2, MS(1), 1.96, &c), 0);
}
END_TEST

START_TEST(test_chan_5abc_quantiles)
{
	/* (5a-c) replace 1.96 by 1.645, 1.44, 1.28 for 0.90, 0.85, 0.80 */
	ck_assert_double_eq(round_to(slowclock_z(0.90), 0.001), 1.645);
	ck_assert_double_eq(round_to(slowclock_z(0.85), 0.01), 1.44);
	ck_assert_double_eq(round_to(slowclock_z(0.80), 0.01), 1.28);
	ck_assert_double_eq(round_to(slowclock_z(0.95), 0.01), 1.96);
	ck_assert(isnan(slowclock_z(1)));
	ck_assert(isnan(slowclock_z(0)));
}
END_TEST

/* --- Danzig and Melvin, Figure 2 -------------------------------------------- */

START_TEST(test_danzig_figure2)
{
	/* D = 20 ms, alpha = 0.95; n_3, n_2 printed to one significant digit */
	static const struct {
		double delta_us, n3, n2, n3_exact;
	} fig2[] = {
		{ 10, 8e7, 8e5, 76790761.82567553 },
		{ 100, 8e6, 8e4, 7644503.0531813055 },
		{ 1000, 7e5, 7e3, 729877.1759318835 },
		{ 10000, 4e4, 4e2, 38414.58820694123 },
	};
	const double z = slowclock_z(0.95), D = MS(20);
	for (size_t i = 0; i < sizeof fig2 / sizeof fig2[0]; i++) {
		double delta = US(fig2[i].delta_us);
		double n3 = slowclock_danzig_samples(z, D, delta, slowclock_digits_eps_ns(delta, 3));
		double n2 = slowclock_danzig_samples(z, D, delta, slowclock_digits_eps_ns(delta, 2));
		ck_assert_rel(n3, fig2[i].n3_exact, 1e-9);
		ck_assert_rel(n2, fig2[i].n3_exact / 100, 1e-9);
		ck_assert_double_eq(round_sig1(n3), fig2[i].n3);
		ck_assert_double_eq(round_sig1(n2), fig2[i].n2);
	}
	/* the text: 1 ms to three digits at 10 ms per iteration is about two hours, 100 us a day */
	double n = slowclock_danzig_samples(z, D, US(1000), US(10));
	ck_assert_double_eq_tol(n * 0.010 / 3600, 2.03, 0.01);
	n = slowclock_danzig_samples(z, D, US(100), US(1));
	ck_assert_double_eq_tol(n * 0.010 / 3600, 21.2, 0.1);
}
END_TEST

START_TEST(test_digits_eps)
{
	ck_assert_double_eq_tol(slowclock_digits_eps_ns(US(1000), 3), US(10), 1e-9);
	ck_assert_double_eq_tol(slowclock_digits_eps_ns(999, 3), 1, 1e-12);
	ck_assert_double_eq_tol(slowclock_digits_eps_ns(1000, 3), 10, 1e-12);
	ck_assert_double_eq_tol(slowclock_digits_eps_ns(50, 2), 1, 1e-12);
	ck_assert_double_eq_tol(slowclock_digits_eps_ns(0.05, 1), 0.01, 1e-15);
	ck_assert(isnan(slowclock_digits_eps_ns(0, 3)));
	ck_assert(isnan(slowclock_digits_eps_ns(10, 0)));
}
END_TEST

/* --- one formula, three papers ---------------------------------------------- */

START_TEST(test_beilner_chan_danzig_agree)
{
	/*
	 * For a CI of +- tol: Beilner (14a) with total width w = 2z and p =
	 * 2 tol, Chan (5), and Danzig (4) with eps = tol delta are the same n.
	 */
	const double res = MS(4);
	const double taus[] = { US(1), US(50), US(999), MS(3.9), MS(5.3), MS(17.01) };
	for (size_t i = 0; i < sizeof taus / sizeof taus[0]; i++) {
		double z = slowclock_z(0.99), tol = 0.02, tau = taus[i];
		double b = slowclock_beilner_loops(2 * z, 2 * tol, tau, res);
		double k = floor(tau / res), p = tau / res - k;
		double c = slowclock_chan_samples(k, p, z, tol);
		double dm = slowclock_danzig_samples(z, res, tau, tol * tau);
		ck_assert_rel(c, b, 1e-9);
		ck_assert_rel(dm, b, 1e-9);
		/* and the (10b) worst case is never below (14a) */
		ck_assert_double_ge(slowclock_beilner_loops_bound(2 * z, 2 * tol, tau, res), b * (1 - 1e-12));
	}
	/* a whole number of ticks: no variance under (8), no loops */
	ck_assert_double_eq(slowclock_beilner_loops(3.92, 0.1, MS(8), MS(4)), 0);
	ck_assert(isnan(slowclock_beilner_loops_short(3.92, 0.1, MS(8), MS(4))));
}
END_TEST

/* --- a simulated slow clock ------------------------------------------------- */

/* The quantisation of fluid/dclock.h: t -> floor((t + phase) / res) * res. */
static uint64_t quantise(uint64_t t, uint64_t res, uint64_t phase)
{
	return (t + phase) / res * res;
}

START_TEST(test_estimator_unbiased_over_swept_phases)
{
	/*
	 * One interval [b, b + T) read with the clock at every phase in
	 * [0, res): the mean of (6b) over all phases is T exactly, whatever b,
	 * and the variance of the count is (9c), x - x^2.
	 */
	static const uint64_t res[] = { 16666, 1000000, 4000000 };
	static const uint64_t dur[] = { 1, 999, 50123, 999999, 1000000, 1234567, 5686020, 33332001 };
	for (size_t r = 0; r < sizeof res / sizeof res[0]; r++)
		for (size_t i = 0; i < sizeof dur / sizeof dur[0]; i++) {
			uint64_t b = 123456789 + 7919 * i, T = dur[i], sum = 0, sum2 = 0;
			for (uint64_t ph = 0; ph < res[r]; ph++) {
				uint64_t c = (quantise(b + T, res[r], ph) - quantise(b, res[r], ph)) / res[r];
				sum += c;
				sum2 += c * c;
			}
			double n = (double)res[r];
			double mean = slowclock_beilner_mean_ns((double)sum, n, (double)res[r]);
			ck_assert_double_eq_tol(mean, (double)T, 1e-6 * (double)T);
			double mc = (double)sum / n, vc = (double)sum2 / n - mc * mc;
			double want = slowclock_beilner_var_ns2((double)T, (double)res[r], 1) / ((double)res[r] * (double)res[r]);
			ck_assert_double_eq_tol(vc, want, 1e-9);
		}
}
END_TEST

START_TEST(test_estimator_unbiased_over_random_phases)
{
	/*
	 * Random phases (a fixed-seed xorshift): the error of the mean must be
	 * within 5 sd of (10a), and far inside the tight (10b) bound.
	 */
	uint64_t s = 0x9e3779b97f4a7c15u;
	const uint64_t res = 4000000;
	static const uint64_t dur[] = { 10000, 50000, 2500000, 6100000 };
	const size_t n = 400000;
	for (size_t i = 0; i < sizeof dur / sizeof dur[0]; i++) {
		uint64_t sum = 0;
		for (size_t j = 0; j < n; j++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			uint64_t b = s >> 20, ph = s % res;
			sum += (quantise(b + dur[i], res, ph) - quantise(b, res, ph)) / res;
		}
		double mean = slowclock_beilner_mean_ns((double)sum, (double)n, (double)res);
		double sd = sqrt(slowclock_beilner_var_ns2((double)dur[i], (double)res, (double)n));
		ck_assert_msg(fabs(mean - (double)dur[i]) <= 5 * sd, "T %llu: mean %.1f, sd %.1f",
			      (unsigned long long)dur[i], mean, sd);
	}
}
END_TEST

/* --- Woodside e_res --------------------------------------------------------- */

START_TEST(test_woodside_eres)
{
	/* D = 1 ms, L_F(2) = L_F(1): e_res = D / L_PUT */
	ck_assert_double_eq_tol(slowclock_woodside_eres_ns(MS(1), 1e6, 1e6, 1000), US(1), 1e-9);
	/* L_F(2) = L_F(1)/2: D (1.5) / (2 L_PUT) */
	ck_assert_double_eq_tol(slowclock_woodside_eres_ns(MS(1), 1e6, 5e5, 1000), US(0.75), 1e-9);
	/* L_PUT for e_res <= 1 % of 50 us with D = 4 ms: 4 ms / 0.5 us = 8000 */
	double l = slowclock_woodside_lput(MS(4), US(50), 0.01, 1);
	ck_assert_double_eq_tol(l, 8000, 1e-9);
	ck_assert_double_eq_tol(slowclock_woodside_eres_ns(MS(4), 1, 1, l), 0.01 * US(50), 1e-9);
	ck_assert(isnan(slowclock_woodside_lput(0, US(50), 0.01, 1)));
}
END_TEST

/* --- tick-count summaries --------------------------------------------------- */

START_TEST(test_ticks_summarize_hand_computed)
{
	/* 0 1 0 0 1 1 0 0: sum 3, MC 0.375; batches of 2: means .5 0 1 0 */
	const uint64_t c[] = { 0, 1, 0, 0, 1, 1, 0, 0 };
	struct slowclock_ticks t;
	ck_assert_int_eq(slowclock_ticks_summarize(c, 8, 4, 0.95, &t), 0);
	ck_assert_double_eq(t.tick_sum, 3);
	ck_assert_double_eq_tol(t.mean_ticks, 0.375, 1e-15);
	ck_assert_double_eq_tol(t.sd_pred_ticks, sqrt(0.375 * 0.625 / 8), 1e-15);
	ck_assert_double_eq_tol(t.sd_bound_ticks, 1 / (2 * sqrt(8)), 1e-15);
	ck_assert(t.two_values);
	ck_assert_double_eq_tol(t.model_half_ticks, 1.959963984540054 * t.sd_pred_ticks, 1e-12);
	ck_assert_uint_eq(t.batches, 4);
	ck_assert_uint_eq(t.batch_len, 2);
	/* batch means .5 0 1 0: squared deviations from .375 sum to .6875 */
	ck_assert_double_eq_tol(t.sd_batch_mean_ticks, sqrt(0.6875 / 3), 1e-12);
	ck_assert_double_eq_tol(t.sd_mean_ticks, t.sd_batch_mean_ticks / 2, 1e-12);
	ck_assert_double_eq_tol(t.ci_half_ticks, 3.182446305284263 * t.sd_mean_ticks, 1e-9);

	/* counts 3 apart break (8): no model CI; too few intervals for batches */
	const uint64_t w[] = { 2, 5 };
	ck_assert_int_eq(slowclock_ticks_summarize(w, 2, 10, 0.95, &t), 0);
	ck_assert(!t.two_values);
	ck_assert(isnan(t.model_half_ticks));
	ck_assert_uint_eq(t.batches, 2);
	ck_assert_int_eq(slowclock_ticks_summarize(w, 1, 10, 0.95, &t), 0);
	ck_assert_uint_eq(t.batches, 0);
	ck_assert(isnan(t.ci_half_ticks));
	ck_assert_int_lt(slowclock_ticks_summarize(w, 0, 10, 0.95, &t), 0);
	ck_assert_int_lt(slowclock_ticks_summarize(w, 2, 1, 0.95, &t), 0);
	ck_assert_int_lt(slowclock_ticks_summarize(w, 2, 10, 1.0, &t), 0);
}
END_TEST

START_TEST(test_domain_errors_give_nan)
{
	ck_assert(isnan(slowclock_beilner_mean_ns(1, 0, 1)));
	ck_assert(isnan(slowclock_beilner_var_ns2(1, 0, 1)));
	ck_assert(isnan(slowclock_beilner_var_bound_ns2(1, -1)));
	ck_assert(isnan(slowclock_beilner_loops(3.92, 0, 1, 1)));
	ck_assert(isnan(slowclock_chan_samples(0, 0, 1.96, 0.1)));
	ck_assert(isnan(slowclock_chan_samples(0, 1, 1.96, 0.1)));
	ck_assert(isnan(slowclock_danzig_samples(1.96, 1, 1, -1)));
	ck_assert(isnan(slowclock_beilner_sd_contig_ns(-1, 1, 1)));
	ck_assert(isnan(slowclock_beilner_var_ns2(NAN, 1, 1)));
}
END_TEST

Suite *slowclock_suite(void)
{
	Suite *s = suite_create("slowclock");
	TCase *tc = tcase_create("published");
	tcase_add_test(tc, test_beilner_14b_table15_follows_the_formula);
	tcase_add_test(tc, test_beilner_table15_published_uses_printed_w_and_p_of_a_tenth);
	tcase_add_test(tc, test_beilner_w_r_is_twice_z);
	tcase_add_test(tc, test_beilner_experiment_durations_in_section_3);
	tcase_add_test(tc, test_beilner_14a_longest_activity_example);
	tcase_add_test(tc, test_beilner_table17a_sums_are_consistent);
	tcase_add_test(tc, test_beilner_table17b_mean_6b_and_sd_10a);
	tcase_add_test(tc, test_beilner_table17b_batch_sd_from_table17a);
	tcase_add_test(tc, test_beilner_10d_contiguous_sd_and_its_bound);
	tcase_add_test(tc, test_beilner_99_percent_example_is_infeasible);
	tcase_add_test(tc, test_chan_worked_example);
	tcase_add_test(tc, test_chan_5abc_quantiles);
	tcase_add_test(tc, test_danzig_figure2);
	tcase_add_test(tc, test_digits_eps);
	tcase_add_test(tc, test_beilner_chan_danzig_agree);
	tcase_add_test(tc, test_woodside_eres);
	tcase_add_test(tc, test_ticks_summarize_hand_computed);
	tcase_add_test(tc, test_domain_errors_give_nan);
	suite_add_tcase(s, tc);

	TCase *sim = tcase_create("simulated");
	tcase_add_test(sim, test_estimator_unbiased_over_swept_phases);
	tcase_add_test(sim, test_estimator_unbiased_over_random_phases);
	tcase_set_timeout(sim, 60);
	suite_add_tcase(s, sim);
	return s;
}
