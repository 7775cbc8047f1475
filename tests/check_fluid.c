/* check_fluid.c - the fluid's arguments, its chunk statistics, and the real process */
#include "common/chunkstat.h"
#include "fluid/fluid_args.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse(struct fluid_args *a, char *err, ...)
{
	char *argv[16] = { "fluid" };
	int argc = 1;
	va_list ap;
	va_start(ap, err);
	for (char *s; (s = va_arg(ap, char *));)
		argv[argc++] = s;
	va_end(ap);
	return fluid_parse_args(argc, argv, a, err, 128);
}

START_TEST(test_fluid_args_defaults_and_values)
{
	struct fluid_args a;
	char err[128];
	ck_assert_int_eq(parse(&a, err, NULL), 0);
	ck_assert_int_eq(a.cpu, -1);
	ck_assert_int_eq(a.sched, FLUID_SCHED_IDLE);
	ck_assert_uint_eq(a.chunk_loops, FLUID_DEFAULT_CHUNK_LOOPS);
	ck_assert_uint_eq(a.run_ns, 0);
	ck_assert_int_eq(parse(&a, err, "--cpu", "1", "--sched=nice", "--seconds", "250ms", "--chunk-loops", "500", NULL), 0);
	ck_assert_int_eq(a.cpu, 1);
	ck_assert_int_eq(a.sched, FLUID_SCHED_NICE);
	ck_assert_uint_eq(a.run_ns, 250000000u);
	ck_assert_uint_eq(a.chunk_loops, 500);
	ck_assert_int_eq(parse(&a, err, "--clock-resolution", "1ms", "--clock-phase", "300us", NULL), 0);
	ck_assert_uint_eq(a.clock_res_ns, 1000000u);
	ck_assert_uint_eq(a.clock_phase_ns, 300000u);
	ck_assert_uint_eq(a.yield_every, 0);
	ck_assert_int_eq(parse(&a, err, "--yield-every", "16", NULL), 0);
	ck_assert_uint_eq(a.yield_every, 16);
	ck_assert_int_eq(a.ready, 0);
	ck_assert_int_eq(parse(&a, err, "--cpu", "0", "--ready", NULL), 0);
	ck_assert_int_eq(a.ready, 1);
	ck_assert_int_eq(a.cpu, 0);
	/* a flag: it takes no value */
	ck_assert_int_ne(parse(&a, err, "--ready=1", NULL), 0);
	ck_assert_int_eq(parse(&a, err, "--cpu", "0", NULL), 0);
	ck_assert_int_eq(a.no_task_clock, 0);
	/* after the options with values, where the bench's wrapper puts it */
	ck_assert_int_eq(parse(&a, err, "--cpu", "0", "--seconds", "1s", "--no-task-clock", NULL), 0);
	ck_assert_int_eq(a.no_task_clock, 1);
	ck_assert_uint_eq(a.run_ns, 1000000000u);
}
END_TEST

START_TEST(test_fluid_args_reject_bad_values)
{
	struct fluid_args a;
	char err[128];
	ck_assert_int_ne(parse(&a, err, "--cpu", "-1", NULL), 0);
	ck_assert_ptr_nonnull(strstr(err, "--cpu"));
	ck_assert_int_ne(parse(&a, err, "--cpu", "1x", NULL), 0);
	ck_assert_int_ne(parse(&a, err, "--sched", "fifo", NULL), 0);
	ck_assert_int_ne(parse(&a, err, "--seconds", "-2", NULL), 0);
	ck_assert_int_ne(parse(&a, err, "--chunk-loops", "0", NULL), 0);
	ck_assert_int_ne(parse(&a, err, "--cpu", NULL), 0);
	ck_assert_ptr_nonnull(strstr(err, "needs a value"));
	ck_assert_int_ne(parse(&a, err, "--bogus", NULL), 0);
	ck_assert_ptr_nonnull(strstr(err, "--bogus"));
	ck_assert_int_ne(parse(&a, err, "--clock-resolution", "1ms", "--clock-phase", "2ms", NULL), 0);
	ck_assert_int_ne(parse(&a, err, "--yield-every", "-1", NULL), 0);
	ck_assert_ptr_nonnull(strstr(err, "--yield-every"));
}
END_TEST

START_TEST(test_chunkstat_buckets_are_monotone_and_fine)
{
	unsigned prev = 0;
	for (uint64_t ns = 64; ns < (1ull << 36); ns += ns / 97 + 1) {
		unsigned b = chunkstat_bucket(ns);
		ck_assert_uint_ge(b, prev);
		ck_assert_uint_le(chunkstat_bucket_low_ns(b), ns);
		if (b + 1 < CHUNKSTAT_BUCKETS)
			ck_assert_uint_gt(chunkstat_bucket_low_ns(b + 1), ns);
		prev = b;
	}
	/* 32 buckets per octave: in [1024, 2048) each is 32 ns wide */
	ck_assert_uint_eq(chunkstat_bucket(1135) - chunkstat_bucket(1100), 1);
	ck_assert_uint_eq(chunkstat_bucket(10), 0);
	ck_assert_uint_eq(chunkstat_bucket(UINT64_MAX), CHUNKSTAT_BUCKETS - 1);
}
END_TEST

START_TEST(test_chunkstat_separates_gaps_and_post_gap_chunks)
{
	static struct chunkstat cs;
	chunkstat_init(&cs);
	const uint64_t d[] = { 1000, 1010, 990, 50000, 1200, 1000, 3000, 1001 };
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		chunkstat_add(&cs, d[i]);
	ck_assert_uint_eq(cs.chunks, 8);
	ck_assert_uint_eq(cs.gap_n, 2);
	ck_assert_uint_eq(cs.gap_ns, 53000);
	ck_assert_uint_eq(cs.post_n, 2);
	ck_assert_uint_eq(cs.post_ns, 1200 + 1001);
	ck_assert_uint_eq(cs.ok_n, 4);
	ck_assert_uint_eq(cs.ok_ns, 1000 + 1010 + 990 + 1000);
	ck_assert_uint_eq(cs.min_ns, 990);
	ck_assert_uint_eq(cs.max_ns, 50000);
	char buf[256];
	ck_assert_int_eq(chunkstat_format_hist(&cs, buf, sizeof buf), 0);
	static uint64_t h[CHUNKSTAT_BUCKETS];
	ck_assert_int_eq(chunkstat_parse_hist(buf, h), 0);
	ck_assert_int_eq(memcmp(h, cs.hist, sizeof h), 0);
	ck_assert_int_eq(chunkstat_parse_hist("12:3,x", h), -EINVAL);
	ck_assert_int_eq(chunkstat_parse_hist("99999:3", h), -EINVAL);
	double med = chunkstat_hist_quantile_ns(cs.hist, 0.5);
	ck_assert(med > 950 && med < 1250);
}
END_TEST

static uint64_t run_fluid_loops(const char *secs, uint64_t *cpu_ns)
{
	char out[65536], err[1024], v[64];
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "0", "--sched", "normal", "--seconds", (char *)secs, NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 0);
	ck_assert_ptr_nonnull(tu_kv(out, "loops", v, sizeof v));
	ck_assert_ptr_nonnull(tu_kv(out, "stop", v, sizeof v));
	ck_assert_str_eq(tu_kv(out, "stop", v, sizeof v), "time");
	*cpu_ns = strtoull(tu_kv(out, "cpu_ns", v, sizeof v), NULL, 10);
	return strtoull(tu_kv(out, "loops", v, sizeof v), NULL, 10);
}

/* The compiler must not have deleted the loop: more time, more loops. */
START_TEST(test_fluid_loops_grow_with_run_time)
{
	uint64_t short_cpu, long_cpu;
	uint64_t short_loops = run_fluid_loops("100ms", &short_cpu);
	uint64_t long_loops = run_fluid_loops("400ms", &long_cpu);
	ck_assert_uint_gt(short_loops, 100000);
	/*
	 * 4x the time. Other work on a shared host may take CPU from either
	 * run, so compare loops per CPU-second as well as the totals.
	 */
	ck_assert_uint_gt(long_loops, short_loops);
	ck_assert_uint_gt(long_cpu, short_cpu);
	double short_rate = (double)short_loops / (double)short_cpu;
	double long_rate = (double)long_loops / (double)long_cpu;
	ck_assert(long_rate > short_rate / 2 && long_rate < short_rate * 2);
}
END_TEST

START_TEST(test_fluid_stops_on_stdin_eof_and_signal)
{
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "0", NULL };
	char out[65536], v[64];
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	usleep(100000);
	close(in);
	tu_read_all(outfd, out, sizeof out);
	close(outfd);
	ck_assert_int_eq(tu_wait(pid), 0);
	ck_assert_str_eq(tu_kv(out, "stop", v, sizeof v), "stdin");
	ck_assert_str_eq(tu_kv(out, "sched", v, sizeof v), "idle");
	ck_assert_str_eq(tu_kv(out, "ran_on", v, sizeof v), "0");

	pid = tu_start(argv, &in, &outfd);
	usleep(100000);
	kill(pid, SIGTERM);
	tu_read_all(outfd, out, sizeof out);
	close(outfd);
	close(in);
	ck_assert_int_eq(tu_wait(pid), 0);
	ck_assert_str_eq(tu_kv(out, "stop", v, sizeof v), "signal");
	ck_assert_uint_gt(strtoull(tu_kv(out, "chunks", v, sizeof v), NULL, 10), 0);
}
END_TEST

/*
 * With a simulated slow clock, --seconds ends on the real clock: stopping
 * on the slow clock would always measure exactly 30 ms while the run fell
 * short by up to a tick (where the start fell in its tick), a bias of half
 * a tick on every calibration. Both clocks' start and end are reported.
 */
START_TEST(test_fluid_slow_clock_run_ends_on_the_real_clock)
{
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "0", "--seconds", "30ms", "--clock-resolution", "10ms",
			 "--clock-phase", "3ms", NULL };
	char out[65536], v[64];
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(tu_run(argv, out, sizeof out, NULL, 0), 0);
		ck_assert_str_eq(tu_kv(out, "stop", v, sizeof v), "time");
		uint64_t start = strtoull(tu_kv(out, "start_ns", v, sizeof v), NULL, 10);
		uint64_t end = strtoull(tu_kv(out, "end_ns", v, sizeof v), NULL, 10);
		ck_assert_ptr_nonnull(tu_kv(out, "raw_start_ns", v, sizeof v));
		uint64_t raw_start = strtoull(v, NULL, 10);
		ck_assert_ptr_nonnull(tu_kv(out, "raw_end_ns", v, sizeof v));
		uint64_t raw_end = strtoull(v, NULL, 10);
		/* the slow clock: whole ticks, each reading its raw one quantised with the phase */
		ck_assert_uint_eq(start % 10000000, 0);
		ck_assert_uint_eq(end % 10000000, 0);
		ck_assert_uint_eq(start, (raw_start + 3000000) / 10000000 * 10000000);
		ck_assert_uint_eq(end, (raw_end + 3000000) / 10000000 * 10000000);
		/* the real clock decides the end: at least 30 ms, whatever the phase */
		ck_assert_uint_ge(raw_end - raw_start, 30000000);
	}
	/* the real clock needs no second pair of times */
	char *plain[] = { (char *)tu_bin("fluid"), "--cpu", "0", "--seconds", "5ms", NULL };
	ck_assert_int_eq(tu_run(plain, out, sizeof out, NULL, 0), 0);
	ck_assert_ptr_null(tu_kv(out, "raw_start_ns", v, sizeof v));
}
END_TEST

START_TEST(test_fluid_bad_argument_exits_2_with_one_line)
{
	char out[1024], err[1024];
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "nope", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 2);
	ck_assert_ptr_nonnull(strstr(err, "fluid: invalid value 'nope' for --cpu"));
	ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
	char *argv2[] = { (char *)tu_bin("fluid"), "--cpu", "1000", "--seconds", "1ms", NULL };
	ck_assert_int_eq(tu_run(argv2, out, sizeof out, err, sizeof err), 2);
	ck_assert_ptr_nonnull(strstr(err, "cannot pin to cpu 1000"));
}
END_TEST

Suite *fluid_suite(void)
{
	Suite *s = suite_create("fluid");
	TCase *tc = tcase_create("args");
	tcase_add_test(tc, test_fluid_args_defaults_and_values);
	tcase_add_test(tc, test_fluid_args_reject_bad_values);
	tcase_add_test(tc, test_chunkstat_buckets_are_monotone_and_fine);
	tcase_add_test(tc, test_chunkstat_separates_gaps_and_post_gap_chunks);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("process");
	tcase_set_timeout(tp, 30);
	tcase_add_test(tp, test_fluid_loops_grow_with_run_time);
	tcase_add_test(tp, test_fluid_stops_on_stdin_eof_and_signal);
	tcase_add_test(tp, test_fluid_slow_clock_run_ends_on_the_real_clock);
	tcase_add_test(tp, test_fluid_bad_argument_exits_2_with_one_line);
	suite_add_tcase(s, tp);
	return s;
}
