/* check_msg.c - the progress line: its phase, bar, CI against the target, and ETA */
#include "coordinator/msg.h"
#include "tests/suites.h"

#include <math.h>
#include <string.h>

#define S 1000000000ull

/* a progress begun at t = 1 s, its text at 1 s + elapsed_s */
static const char *text_after(struct msg_progress *p, double elapsed_s)
{
	static char line[512];
	p->start_ns = S;
	msg_progress_text(p, S + (uint64_t)(elapsed_s * 1e9), line, sizeof line);
	return line;
}

START_TEST(test_progress_eta_from_the_share_done)
{
	struct msg_progress p;
	msg_progress_start(&p, "sweeping", 8);
	msg_progress_update(&p, 2);
	msg_progress_phase(&p, "round 2 of 4, size %d B", 4000);
	/* 2 of 8 runs took 10 s: 6 more take 30 s */
	ck_assert_str_eq(text_after(&p, 10),
			 "sweeping: round 2 of 4, size 4000 B  [=====               ] 2/8   25%  ETA 0:30");
}
END_TEST

START_TEST(test_progress_without_phase_or_total_shows_the_time_taken)
{
	struct msg_progress p;
	msg_progress_start(&p, "measuring", 0);
	ck_assert_str_eq(text_after(&p, 75), "measuring  1:15");
}
END_TEST

START_TEST(test_progress_precision_eta_from_the_ci_shrinking)
{
	struct msg_progress p;
	msg_progress_start(&p, "measuring", 0);
	msg_progress_ci(&p, NAN, 1.0);
	msg_progress_phase(&p, "run 1");
	ck_assert_str_eq(text_after(&p, 1), "measuring: run 1  CI target ±1.00%  0:01");
	msg_progress_update(&p, 1);
	msg_progress_ci(&p, 2.0, 1.0);
	msg_progress_update(&p, 6);
	msg_progress_phase(&p, "run 7");
	/* CI ~ 1/sqrt(n): twice the target needs 4 times the runs, 3 times the 10 s so far */
	ck_assert_str_eq(text_after(&p, 10), "measuring: run 7  CI ±2.00%, target ±1.00%  ETA ~0:30");
}
END_TEST

START_TEST(test_progress_precision_eta_is_capped_by_max_time)
{
	struct msg_progress p;
	msg_progress_start(&p, "measuring", 0);
	msg_progress_deadline(&p, S + 30 * S);
	msg_progress_ci(&p, 4.0, 1.0);
	msg_progress_update(&p, 6);
	/* 15 times the 10 s so far, but --max-time ends it in 20 s */
	ck_assert_str_eq(text_after(&p, 10), "measuring  CI ±4.00%, target ±1.00%  ETA ≤0:20 (--max-time)");
}
END_TEST

START_TEST(test_progress_shows_the_worst_ci_of_a_round)
{
	struct msg_progress p;
	msg_progress_start(&p, "sweeping", 0);
	msg_progress_ci(&p, 0.4, 1.0);
	msg_progress_ci(&p, 3.0, 1.0);
	msg_progress_ci(&p, 2.0, 1.0);
	msg_progress_update(&p, 3);
	ck_assert_ptr_nonnull(strstr(text_after(&p, 1), "CI ±3.00%, target ±1.00%"));
	/* a size without a CI yet is the worst of all */
	msg_progress_ci(&p, 0.5, 1.0);
	msg_progress_ci(&p, NAN, 1.0);
	msg_progress_update(&p, 6);
	ck_assert_ptr_nonnull(strstr(text_after(&p, 1), "CI target ±1.00%"));
	/* the next round's CIs replace the last round's */
	msg_progress_ci(&p, 0.9, 1.0);
	msg_progress_update(&p, 9);
	ck_assert_ptr_nonnull(strstr(text_after(&p, 1), "CI ±0.90%, target ±1.00%"));
}
END_TEST

START_TEST(test_progress_text_is_cut_at_its_buffer)
{
	struct msg_progress p;
	char line[16];
	msg_progress_start(&p, "calibrating", 20);
	msg_progress_phase(&p, "CPU %d, replication %d of %d", 1, 5, 20);
	p.start_ns = S;
	msg_progress_text(&p, 2 * S, line, sizeof line);
	ck_assert_str_eq(line, "calibrating: CP");
}
END_TEST

Suite *msg_suite(void)
{
	Suite *s = suite_create("msg");
	TCase *tc = tcase_create("progress");
	tcase_add_test(tc, test_progress_eta_from_the_share_done);
	tcase_add_test(tc, test_progress_without_phase_or_total_shows_the_time_taken);
	tcase_add_test(tc, test_progress_precision_eta_from_the_ci_shrinking);
	tcase_add_test(tc, test_progress_precision_eta_is_capped_by_max_time);
	tcase_add_test(tc, test_progress_shows_the_worst_ci_of_a_round);
	tcase_add_test(tc, test_progress_text_is_cut_at_its_buffer);
	suite_add_tcase(s, tc);
	return s;
}
