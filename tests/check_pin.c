/* check_pin.c - pin_to_cpu */
#include "common/pin.h"
#include "tests/suites.h"

#include <errno.h>
#include <sched.h>

START_TEST(test_pin_to_cpu)
{
	cpu_set_t old;
	ck_assert_int_eq(sched_getaffinity(0, sizeof old, &old), 0);
	ck_assert_int_eq(pin_to_cpu(0), 0);
	ck_assert_int_eq(sched_getcpu(), 0);
	ck_assert_int_eq(pin_to_cpu(-1), -EINVAL);
	ck_assert_int_eq(pin_to_cpu(CPU_SETSIZE), -EINVAL);
	/* a CPU that is not online */
	ck_assert_int_eq(pin_to_cpu(CPU_SETSIZE - 1), -EINVAL);
	sched_setaffinity(0, sizeof old, &old);
}
END_TEST

Suite *pin_suite(void)
{
	Suite *s = suite_create("pin");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_pin_to_cpu);
	suite_add_tcase(s, tc);
	return s;
}
