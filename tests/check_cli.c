/* check_cli.c - the pure command-line parsers */
#include "common/cli.h"
#include "tests/suites.h"

#include <errno.h>

static struct cli_cpus online2 = { .n = 2, .cpu = { 0, 1 } };

START_TEST(test_cpulist_parses_ranges_and_lists)
{
	struct cli_cpus c;
	ck_assert_int_eq(cli_parse_cpulist("0-3,5", NULL, &c), 0);
	ck_assert_int_eq(c.n, 5);
	ck_assert_int_eq(c.cpu[3], 3);
	ck_assert_int_eq(c.cpu[4], 5);
	ck_assert_int_eq(cli_parse_cpulist("5,1,1,0", NULL, &c), 0);
	ck_assert_int_eq(c.n, 3);
	ck_assert_int_eq(c.cpu[0], 0);
	ck_assert_int_eq(c.cpu[2], 5);
	char buf[64];
	ck_assert_int_eq(cli_parse_cpulist("0-3,5,7-8", NULL, &c), 0);
	cli_format_cpulist(&c, buf, sizeof buf);
	ck_assert_str_eq(buf, "0-3,5,7-8");
	ck_assert_int_eq(cli_parse_cpulist("all", &online2, &c), 0);
	ck_assert_int_eq(c.n, 2);
	ck_assert(cli_cpus_contains(&c, 1));
	ck_assert(!cli_cpus_contains(&c, 2));
}
END_TEST

START_TEST(test_cpulist_rejects_trailing_junk)
{
	struct cli_cpus c;
	ck_assert_int_eq(cli_parse_cpulist("0,1x", NULL, &c), -EINVAL);
	ck_assert_int_eq(cli_parse_cpulist("0,", NULL, &c), -EINVAL);
	ck_assert_int_eq(cli_parse_cpulist("", NULL, &c), -EINVAL);
	ck_assert_int_eq(cli_parse_cpulist("-1", NULL, &c), -EINVAL);
	ck_assert_int_eq(cli_parse_cpulist("1 ", NULL, &c), -EINVAL);
	ck_assert_int_eq(cli_parse_cpulist("3-1", NULL, &c), -ERANGE);
	ck_assert_int_eq(cli_parse_cpulist("99999", NULL, &c), -ERANGE);
	ck_assert_int_eq(cli_parse_cpulist("all", NULL, &c), -EINVAL);
}
END_TEST

START_TEST(test_duration_units)
{
	uint64_t ns;
	ck_assert_int_eq(cli_parse_duration_ns("500ms", &ns), 0);
	ck_assert_uint_eq(ns, 500000000u);
	ck_assert_int_eq(cli_parse_duration_ns("2s", &ns), 0);
	ck_assert_uint_eq(ns, 2000000000u);
	ck_assert_int_eq(cli_parse_duration_ns("0.3", &ns), 0);
	ck_assert_uint_eq(ns, 300000000u);
	ck_assert_int_eq(cli_parse_duration_ns("10us", &ns), 0);
	ck_assert_uint_eq(ns, 10000u);
	ck_assert_int_eq(cli_parse_duration_ns("1.5m", &ns), 0);
	ck_assert_uint_eq(ns, 90000000000u);
	ck_assert_int_eq(cli_parse_duration_ns("7ns", &ns), 0);
	ck_assert_uint_eq(ns, 7u);
}
END_TEST

START_TEST(test_duration_rejects_negative_and_junk)
{
	uint64_t ns;
	ck_assert_int_eq(cli_parse_duration_ns("-1", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("1x", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("1 s", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("s", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("1e3", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("inf", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("0x10", &ns), -EINVAL);
	ck_assert_int_eq(cli_parse_duration_ns("99999999999h", &ns), -ERANGE);
}
END_TEST

START_TEST(test_sizes_suffixes_and_lists)
{
	uint64_t v[16];
	size_t n;
	ck_assert_int_eq(cli_parse_size("4k", &v[0]), 0);
	ck_assert_uint_eq(v[0], 4000);
	ck_assert_int_eq(cli_parse_size("4Ki", &v[0]), 0);
	ck_assert_uint_eq(v[0], 4096);
	ck_assert_int_eq(cli_parse_size("16Mi", &v[0]), 0);
	ck_assert_uint_eq(v[0], 16777216);
	ck_assert_int_eq(cli_parse_size("4kb", &v[0]), -EINVAL);
	ck_assert_int_eq(cli_parse_size("-4", &v[0]), -EINVAL);
	ck_assert_int_eq(cli_parse_sizes("1000:8000:1000", v, 16, &n), 0);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(v[7], 8000);
	ck_assert_int_eq(cli_parse_sizes("1k,2k,64k", v, 16, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[2], 64000);
	ck_assert_int_eq(cli_parse_sizes("1k,,2k", v, 16, &n), -EINVAL);
	ck_assert_int_eq(cli_parse_sizes("1k,2k,", v, 16, &n), -EINVAL);
	ck_assert_int_eq(cli_parse_sizes("1:10:0", v, 16, &n), -EINVAL);
	ck_assert_int_eq(cli_parse_sizes("10:1:1", v, 16, &n), -EINVAL);
	ck_assert_int_eq(cli_parse_sizes("1:100:1", v, 16, &n), -ERANGE);
	ck_assert_int_eq(cli_parse_sizes("1:2", v, 16, &n), -EINVAL);
}
END_TEST

START_TEST(test_percent_and_numbers)
{
	double f;
	ck_assert_int_eq(cli_parse_percent("1%", &f), 0);
	ck_assert_double_eq_tol(f, 0.01, 1e-12);
	ck_assert_int_eq(cli_parse_percent("0.5", &f), 0);
	ck_assert_double_eq_tol(f, 0.005, 1e-12);
	ck_assert_int_eq(cli_parse_percent("0%", &f), -ERANGE);
	ck_assert_int_eq(cli_parse_percent("100", &f), -ERANGE);
	ck_assert_int_eq(cli_parse_percent("1%%", &f), -EINVAL);
	uint64_t u;
	ck_assert_int_eq(cli_parse_u64("42", 1, 100, &u), 0);
	ck_assert_uint_eq(u, 42);
	ck_assert_int_eq(cli_parse_u64("0", 1, 100, &u), -ERANGE);
	ck_assert_int_eq(cli_parse_u64("4 2", 1, 100, &u), -EINVAL);
	ck_assert_int_eq(cli_parse_u64("-3", 0, 100, &u), -EINVAL);
	int i;
	ck_assert_int_eq(cli_parse_int("-3", -5, 5, &i), 0);
	ck_assert_int_eq(i, -3);
	ck_assert_int_eq(cli_parse_int("3z", -5, 5, &i), -EINVAL);
	double d;
	ck_assert_int_eq(cli_parse_double("2.5", 0, 10, &d), 0);
	ck_assert_int_eq(cli_parse_double("nan", 0, 10, &d), -EINVAL);
	ck_assert_int_eq(cli_parse_double("11", 0, 10, &d), -ERANGE);
}
END_TEST

/* every number is plain decimal: no hex, exponent, white space, inf or nan, in any parser */
START_TEST(test_numbers_are_plain_decimal_everywhere)
{
	int i;
	double d;
	uint64_t u;
	const char *bad[] = { "0x10", "1e3", " 1", "1 ", "+1", "inf", "nan", "", "--1", "1.", "." };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		ck_assert_msg(cli_parse_int(bad[k], -100, 100, &i) == -EINVAL || !strcmp(bad[k], "1."), "int '%s'", bad[k]);
		ck_assert_msg(cli_parse_u64(bad[k], 0, 100, &u) == -EINVAL, "u64 '%s'", bad[k]);
		if (strcmp(bad[k], "1."))
			ck_assert_msg(cli_parse_double(bad[k], -100, 100, &d) == -EINVAL, "double '%s'", bad[k]);
	}
	ck_assert_int_eq(cli_parse_int("1.", -100, 100, &i), -EINVAL);
	ck_assert_int_eq(cli_parse_double("1.", -100, 100, &d), 0);
	ck_assert_double_eq(d, 1);
	ck_assert_int_eq(cli_parse_double("-2.5", -10, 10, &d), 0);
	ck_assert_double_eq(d, -2.5);
	ck_assert_int_eq(cli_parse_double("-2.5", 0, 10, &d), -ERANGE);
	ck_assert_int_eq(cli_parse_int("2147483648", 0, 2147483647, &i), -ERANGE);
	ck_assert_int_eq(cli_parse_int("-2147483648", -2147483647 - 1, 0, &i), 0);
	ck_assert_int_eq(i, -2147483647 - 1);
	ck_assert_int_eq(cli_parse_u64("18446744073709551616", 0, UINT64_MAX, &u), -ERANGE);
}
END_TEST

/* above 2^63 ns llround overflowed its long long and gave garbage (fuzz/fuzz_cli checks this too) */
START_TEST(test_duration_above_2_63_ns_is_exact)
{
	uint64_t ns;
	ck_assert_int_eq(cli_parse_duration_ns("9300000000s", &ns), 0);
	ck_assert_uint_eq(ns, 9300000000000000000ull);
	ck_assert_int_eq(cli_parse_duration_ns("4000000h", &ns), 0);
	ck_assert_uint_eq(ns, 14400000000000000000ull);
	ck_assert_int_eq(cli_parse_duration_ns("18000000000s", &ns), -ERANGE);
}
END_TEST

/* --sizes 1k,1k,1k measured one size three times, as if it were three: now a usage error */
START_TEST(test_sizes_refuses_a_size_listed_twice)
{
	uint64_t v[16];
	size_t n;
	ck_assert_int_eq(cli_parse_sizes("1k,1k,1k", v, 16, &n), -EEXIST);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[n], 1000); /* the repeated size */
	ck_assert_int_eq(cli_parse_sizes("1000,2k,1k", v, 16, &n), -EEXIST);
	ck_assert_uint_eq(v[n], 1000);
	ck_assert_int_eq(cli_parse_sizes("1Ki,1024", v, 16, &n), -EEXIST);
	ck_assert_int_eq(cli_parse_sizes("1k,1Ki", v, 16, &n), 0);
	ck_assert_uint_eq(n, 2);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parsers");
	tcase_add_test(tc, test_cpulist_parses_ranges_and_lists);
	tcase_add_test(tc, test_cpulist_rejects_trailing_junk);
	tcase_add_test(tc, test_duration_units);
	tcase_add_test(tc, test_duration_rejects_negative_and_junk);
	tcase_add_test(tc, test_sizes_suffixes_and_lists);
	tcase_add_test(tc, test_percent_and_numbers);
	tcase_add_test(tc, test_numbers_are_plain_decimal_everywhere);
	tcase_add_test(tc, test_sizes_refuses_a_size_listed_twice);
	tcase_add_test(tc, test_duration_above_2_63_ns_is_exact);
	suite_add_tcase(s, tc);
	return s;
}
