/* check_series.c - a series' argv for put and its arguments as text */
#include "coordinator/series.h"
#include "tests/suites.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the args shown in the report and the JSON read back as the shell would need them */
START_TEST(test_args_text_quotes_what_the_shell_would_split)
{
	struct series s;
	char *args[] = { "exec", "--", "sh", "-c", "exit 3; echo it's", "", "--size=1000" };
	series_init(&s, &put_exec, args, 7, NULL, "exec");
	char buf[256];
	series_args_text(&s, buf, sizeof buf);
	ck_assert_str_eq(buf, "-- sh -c 'exit 3; echo it'\\''s' '' --size=1000");
	/* a short buffer is cut, never overrun */
	char small[12];
	series_args_text(&s, small, sizeof small);
	ck_assert_uint_lt(strlen(small), sizeof small);
}
END_TEST

/* the size is a number until the argv: --size=N after the user's options and --peer, before the added ones */
START_TEST(test_argv_puts_the_size_and_added_options_in_order)
{
	struct series s, copy;
	char *args[] = { "tcp", "--reply", "4" };
	series_init(&s, &put_tcp, args, 3, "127.0.0.1:9", "1000");
	s.size_bytes = 1000;
	ck_assert_int_eq(series_add_arg(&s, "--window=64"), 0);
	copy = s; /* a copy owns its added options: predict copies the cost series */
	ck_assert_int_eq(series_add_arg(&s, "--burst=256"), 0);
	char *argv[16], sizebuf[32];
	int n = series_argv(&s, argv, 16, sizebuf);
	ck_assert_int_eq(n, 7);
	const char *want[] = { "tcp", "--reply", "4", "--peer=127.0.0.1:9", "--size=1000", "--window=64", "--burst=256" };
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(argv[i], want[i]);
	ck_assert_ptr_null(argv[n]);
	ck_assert_int_eq(series_argv(&copy, argv, 16, sizebuf), 6);
	ck_assert_str_eq(argv[5], "--window=64");
	ck_assert(series_has_arg(&s, "--burst"));
	ck_assert(series_has_arg(&s, "--reply"));
	ck_assert(!series_has_arg(&s, "--rep"));
	/* a short argv is cut and still NULL-terminated */
	ck_assert_int_eq(series_argv(&s, argv, 3, sizebuf), 2);
	ck_assert_ptr_null(argv[2]);
	char text[128];
	series_args_text(&s, text, sizeof text);
	ck_assert_str_eq(text, "--reply 4 --peer=127.0.0.1:9 --size=1000 --window=64 --burst=256");
}
END_TEST

START_TEST(test_added_options_are_bounded)
{
	struct series s;
	char *args[] = { "tcp" };
	series_init(&s, &put_tcp, args, 1, NULL, "tcp");
	char longarg[100];
	memset(longarg, 'x', sizeof longarg - 1);
	longarg[sizeof longarg - 1] = '\0';
	ck_assert_int_eq(series_add_arg(&s, longarg), -E2BIG);
	for (int i = 0; i < SERIES_MAX_ADDED; i++)
		ck_assert_int_eq(series_add_arg(&s, "--x=1"), 0);
	ck_assert_int_eq(series_add_arg(&s, "--x=1"), -E2BIG);
}
END_TEST

START_TEST(test_runs_are_appended_and_freed)
{
	struct series s;
	char *args[] = { "spin" };
	series_init(&s, &put_spin, args, 1, NULL, "spin");
	struct est_run r = { .ops = 7 };
	for (int i = 0; i < 40; i++) {
		r.t_put_ns = i;
		ck_assert_int_eq(series_append_run(&s, &r), 0);
	}
	ck_assert_uint_eq(s.nruns, 40);
	ck_assert_double_eq(s.runs[39].t_put_ns, 39);
	series_free(&s);
	ck_assert_uint_eq(s.nruns, 0);
	ck_assert_ptr_null(s.runs);
}
END_TEST

/*
 * spin's pilot turns --us into --loops-per-op for every run; --us itself is
 * then left out of put's argv, where the two would contradict each other
 */
START_TEST(test_fixed_option_replaces_the_one_it_stands_for)
{
	char *forms[][3] = { { "spin", "--us", "200" }, { "spin", "--us=200", NULL } };
	for (int f = 0; f < 2; f++) {
		struct series s;
		series_init(&s, &put_spin, forms[f], forms[f][2] ? 3 : 2, NULL, "spin");
		char *argv[16], sizebuf[32], text[128];
		ck_assert_ptr_null(series_added(&s, "--loops-per-op"));
		ck_assert_int_eq(series_argv(&s, argv, 16, sizebuf), forms[f][2] ? 3 : 2);
		ck_assert_int_eq(series_add_arg(&s, "--loops-per-op=180108"), 0);
		ck_assert_str_eq(series_added(&s, "--loops-per-op"), "--loops-per-op=180108");
		ck_assert_int_eq(series_argv(&s, argv, 16, sizebuf), 2);
		ck_assert_str_eq(argv[0], "spin");
		ck_assert_str_eq(argv[1], "--loops-per-op=180108");
		ck_assert(!series_has_arg(&s, "--us"));
		series_args_text(&s, text, sizeof text);
		ck_assert_str_eq(text, "--loops-per-op=180108");
	}
}
END_TEST

/*
 * Each pair runs its big and small runs in a random order, and is stored
 * big first with each run's order kept: over 2000 pairs both orders come
 * up about half the time (binomial sd 1.1 %, so 40 to 60 % is 9 sd wide)
 */
START_TEST(test_pairs_run_in_random_order_and_are_stored_big_first)
{
	struct series s;
	char *args[] = { "spin" };
	series_init(&s, &put_spin, args, 1, NULL, "spin");
	int small_first = 0, n = 2000;
	srandom(12345);
	for (int p = 0; p < n; p++) {
		for (int k = 0; k < 2; k++) {
			struct est_run r = { .ops = series_pair_ops(&s, k, 400, 100), .order = s.nruns + 1 };
			if (k == 0 && r.ops == 100)
				small_first++;
			ck_assert_int_eq(series_append_run(&s, &r), 0);
		}
		/* the two runs of a pair are one big and one small */
		ck_assert_uint_eq(s.runs[s.nruns - 1].ops + s.runs[s.nruns - 2].ops, 500);
		series_pair_done(&s);
		ck_assert_uint_eq(s.runs[s.nruns - 2].ops, 400);
		ck_assert_uint_eq(s.runs[s.nruns - 1].ops, 100);
		/* the order each ran in goes with it: small first means the big one ran second */
		size_t big_order = s.runs[s.nruns - 2].order, small_order = s.runs[s.nruns - 1].order;
		ck_assert_uint_eq(big_order + small_order, 2 * s.nruns - 1);
	}
	ck_assert_int_gt(small_first, n * 4 / 10);
	ck_assert_int_lt(small_first, n * 6 / 10);
	/* the flip is consumed: a run done outside a pair is never swapped */
	ck_assert_int_eq(s.pair_flip, 0);
	series_free(&s);
}
END_TEST

Suite *series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_args_text_quotes_what_the_shell_would_split);
	tcase_add_test(tc, test_argv_puts_the_size_and_added_options_in_order);
	tcase_add_test(tc, test_added_options_are_bounded);
	tcase_add_test(tc, test_fixed_option_replaces_the_one_it_stands_for);
	tcase_add_test(tc, test_runs_are_appended_and_freed);
	tcase_add_test(tc, test_pairs_run_in_random_order_and_are_stored_big_first);
	suite_add_tcase(s, tc);
	return s;
}
