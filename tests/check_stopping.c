/* check_stopping.c - --precision's stopping rules against hand-computed stages */
#include "calib/stopping.h"
#include "tests/suites.h"

#include <math.h>

/* t(0.975, 3) = 3.182446, t(0.975, 11) = 2.200985; the target half-width h is 1 throughout */
#define T3 3.182446
#define T11 2.200985

/*
 * Three stages, sd 1.5 after 4: Stein would ask for ceil((3.182446 x 1.5)^2)
 * = 23, the second stage goes to half, 12. An sd of 2 over those 12 asks
 * for ceil((2.200985 x 2)^2) = 20, with Stein's interval 2.200985 x 2 /
 * sqrt(n) on it (0.9843 at 20).
 */
START_TEST(test_three_stages_by_hand)
{
	struct stop_state st = { 0 };
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 3, 1.5, 2.0, 1), 0);
	ck_assert_uint_eq(st.n0, 0);
	ck_assert(isnan(stop_half(STOP_THREE, &st, 3, 2.0)));
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, 1.5, 2.0, 1), 0);
	ck_assert_uint_eq(st.n0, 4);
	ck_assert_uint_eq(st.target, 12);
	ck_assert_uint_eq(st.n1, 0);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 4, 2.0), T3 * 1.5 / 2, 1e-5);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 11, 1.9, 1.3, 1), 0);
	ck_assert_uint_eq(st.n1, 0);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 12, 2, 1.3, 1), 0);
	ck_assert_uint_eq(st.n1, 12);
	ck_assert_uint_eq(st.target, 20);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 19, 2, 0.9, 1), 0);
	/* at 20, Stein's interval 0.9843 is the wider and within 1 */
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 20, 2.1, 0.9, 1), 1);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 20, 0.9), T11 * 2 / sqrt(20), 1e-5);
	/* the t interval over all of them is wider than 1: on, until it is within */
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 20, 2.3, 1.05, 1), 0);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 20, 1.05), 1.05, 1e-12);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 21, 2.2, 0.99, 1), 1);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 21, 0.99), 0.99, 1e-12);
}
END_TEST

/* a first stage precise enough is its own second stage: Stein's total, here the 4 already there */
START_TEST(test_three_stages_precise_first_stage)
{
	struct stop_state st = { 0 };
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, 0.1, 0.2, 1), 1);
	ck_assert_uint_eq(st.n1, 4);
	ck_assert_uint_eq(st.target, 4);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 4, 0.2), 0.2, 1e-12);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 4, 0.1), T3 * 0.1 / 2, 1e-5);
}
END_TEST

/* a first stage that caught a stall (sd 6: Stein's 365, half of it 183) looks again after 16 */
START_TEST(test_three_stages_second_stage_limited)
{
	struct stop_state st = { 0 };
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, 6, 5, 1), 0);
	ck_assert_uint_eq(st.target, STOP_THREE_MAX_N1);
	ck_assert_uint_eq(STOP_THREE_MAX_N1, 16);
}
END_TEST

/* Stein's rule stops at its total whatever the later spread; naive at the first narrow t interval */
START_TEST(test_stein_and_naive)
{
	struct stop_state st = { 0 };
	ck_assert_int_eq(stop_update(STOP_STEIN, &st, 4, 1.5, 2.0, 1), 0);
	ck_assert_uint_eq(st.target, 23);
	ck_assert_int_eq(stop_update(STOP_STEIN, &st, 22, 1.5, 0.7, 1), 0);
	ck_assert_int_eq(stop_update(STOP_STEIN, &st, 23, 3, 5, 1), 1);
	ck_assert_double_eq_tol(stop_half(STOP_STEIN, &st, 23, 5), T3 * 1.5 / sqrt(23), 1e-5);
	struct stop_state nv = { 0 };
	ck_assert_int_eq(stop_update(STOP_NAIVE, &nv, 2, 0.1, 0.5, 1), 0);
	ck_assert_int_eq(stop_update(STOP_NAIVE, &nv, 3, 0.1, 1.5, 1), 0);
	ck_assert_int_eq(stop_update(STOP_NAIVE, &nv, 3, 0.1, 0.5, 1), 1);
}
END_TEST

/*
 * A residual's sd (k = 1, the cost of these operations): the first stage
 * waits for 5, and its sd 1.5 has 3 degrees of freedom, as 4 had above:
 * Stein's 23, half of it 12. The sd of 2 over those 12 has 10, t(0.975,
 * 10) = 2.228139: ceil((2.228139 x 2)^2) = 20, and at 20 Stein's interval
 * 2.228139 x 2 / sqrt(20) = 0.9965.
 */
START_TEST(test_three_stages_residual_sd)
{
	struct stop_state st = { .k = 1 };
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, 1.5, 2.0, 1), 0);
	ck_assert_uint_eq(st.n0, 0);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 5, 1.5, 2.0, 1), 0);
	ck_assert_uint_eq(st.n0, 5);
	ck_assert_uint_eq(st.target, 12);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 5, 2.0), T3 * 1.5 / sqrt(5), 1e-5);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 12, 2, 1.3, 1), 0);
	ck_assert_uint_eq(st.n1, 12);
	ck_assert_uint_eq(st.target, 20);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 20, 2, 0.9, 1), 1);
	ck_assert_double_eq_tol(stop_half(STOP_THREE, &st, 20, 0.9), 2.228139 * 2 / sqrt(20), 1e-5);
}
END_TEST

/* no target (a mean of 0) or no sd yet: never met, and the first stage waits */
START_TEST(test_no_target_no_stage)
{
	struct stop_state st = { 0 };
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, 1, 0.5, 0), 0);
	ck_assert_uint_eq(st.n0, 0);
	ck_assert_int_eq(stop_update(STOP_STEIN, &st, 4, 1, 0.5, -1), 0);
	ck_assert_int_eq(stop_update(STOP_NAIVE, &st, 9, 1, 0.5, NAN), 0);
	ck_assert_int_eq(stop_update(STOP_THREE, &st, 4, NAN, NAN, 1), 0);
	ck_assert_uint_eq(st.n0, 0);
}
END_TEST

Suite *stopping_suite(void)
{
	Suite *s = suite_create("stopping");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, test_three_stages_by_hand);
	tcase_add_test(tc, test_three_stages_precise_first_stage);
	tcase_add_test(tc, test_three_stages_second_stage_limited);
	tcase_add_test(tc, test_stein_and_naive);
	tcase_add_test(tc, test_three_stages_residual_sd);
	tcase_add_test(tc, test_no_target_no_stage);
	suite_add_tcase(s, tc);
	return s;
}
