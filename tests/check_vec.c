/* check_vec.c - vec_grow */
#include "common/vec.h"
#include "tests/suites.h"

#include <stdint.h>
#include <stdlib.h>

START_TEST(test_vec_grows_by_doubling)
{
	size_t cap = 0;
	int *v = NULL;
	for (size_t n = 0; n < 100; n++) {
		int *g = vec_grow(v, &cap, n, sizeof *v);
		ck_assert_ptr_nonnull(g);
		v = g;
		v[n] = (int)n;
		ck_assert_uint_gt(cap, n);
	}
	ck_assert_uint_eq(cap, 128);
	ck_assert_int_eq(v[99], 99);
	/* within the capacity: the same array */
	ck_assert_ptr_eq(vec_grow(v, &cap, 100, sizeof *v), v);
	/* an impossible size fails and leaves the array as it was */
	size_t huge = SIZE_MAX / 2;
	ck_assert_ptr_null(vec_grow(v, &cap, cap, huge));
	ck_assert_uint_eq(cap, 128);
	free(v);
}
END_TEST

Suite *vec_suite(void)
{
	Suite *s = suite_create("vec");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_vec_grows_by_doubling);
	suite_add_tcase(s, tc);
	return s;
}
