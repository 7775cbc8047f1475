/* check_dclock.c - the clocks and the simulated slow clock */
#include "common/dclock.h"
#include "tests/suites.h"

#include <stdint.h>

START_TEST(test_clock_quantises_with_phase)
{
	ck_assert_int_eq(dclock_set_resolution(1000, 250), 0);
	ck_assert_uint_eq(dclock_quantise_ns(1749), 1000);
	ck_assert_uint_eq(dclock_quantise_ns(1750), 2000);
	ck_assert_int_ne(dclock_set_resolution(1000, 1000), 0);
	ck_assert_int_eq(dclock_set_resolution(0, 0), 0);
	ck_assert_uint_eq(dclock_quantise_ns(1749), 1749);
	uint64_t a = dclock_mono_ns(), b = dclock_mono_ns();
	ck_assert_uint_ge(b, a);
}
END_TEST

Suite *dclock_suite(void)
{
	Suite *s = suite_create("dclock");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_clock_quantises_with_phase);
	suite_add_tcase(s, tc);
	return s;
}
