/*
 * check_sweep.c - displace sweep end to end: its CSV rows and JSON by size,
 * appending to a results file, the plot, bad input and a peer that is down.
 * Runs are short (--run-time 100ms, --calib-time 50ms, 2 reps); nothing here
 * asserts accuracy, which belongs in bench/.
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include "coordinator/out_csv.h"

#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[1 << 20], err[1 << 16];

/* a short sweep of tcp; extra arguments go after the common ones */
static int sweep(const char *sizes, const char *reps, char *const *extra)
{
	char *argv[32] = { (char *)tu_bin("displace"), "sweep", "tcp", "--sizes", (char *)sizes, "--reps", (char *)reps,
			   "--run-time", "100ms", "--calib-time", "50ms", "--quiet" };
	int n = 12;
	for (; extra && *extra && n < 31; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	return tu_run(argv, out, sizeof out, err, sizeof err);
}

static long long ll(const char *s)
{
	ck_assert_ptr_nonnull(s);
	char *end;
	long long v = strtoll(s, &end, 10);
	ck_assert_msg(*s && !*end, "not an integer: '%s'", s);
	return v;
}

/*
 * The rows of a 2-size, 2-rep sweep: the header, then per round one run row
 * per size, L and L/4 for each size in the order they ran (random per
 * pair), then a summary row per size.
 */
static void check_csv(const char *path)
{
	char text[1 << 16];
	ck_assert_int_gt(tu_read_file(path, text, sizeof text), 0);
	ck_assert_msg(!strncmp(text, OUT_CSV_HEADER "\n", strlen(OUT_CSV_HEADER) + 1), "header: %.300s", text);
	ck_assert_int_eq(tu_count_lines(text, "kind,"), 1);

	struct tu_csv t;
	unsigned long line;
	ck_assert_int_eq(tu_csv_load(path, &t, &line), 0);
	ck_assert_uint_eq(t.nrows, 1 + 4 + 2);
	long long ops[2][2] = { { 0 } }, sum_ops[2] = { 0 }; /* [size][run], as they ran */
	int runs[2] = { 0 }, sums[2] = { 0 };
	for (size_t r = 1; r < t.nrows; r++) {
		ck_assert_uint_eq(t.nfields[r], t.nfields[0]);
		ck_assert_str_eq(tu_csv_get(&t, r, "command"), "sweep");
		ck_assert_str_eq(tu_csv_get(&t, r, "workload"), "tcp");
		long long size = ll(tu_csv_get(&t, r, "size_bytes"));
		ck_assert_msg(size == 1000 || size == 2000, "size_bytes %lld", size);
		int i = size == 2000;
		char want[40];
		snprintf(want, sizeof want, "--size=%lld", size);
		ck_assert_ptr_nonnull(strstr(tu_csv_get(&t, r, "args"), want));
		const char *kind = tu_csv_get(&t, r, "kind");
		if (!strcmp(kind, "run")) {
			ck_assert_msg(sums[0] + sums[1] == 0, "a run row after a summary row (row %zu)", r);
			ck_assert_int_lt(runs[i], 2);
			ck_assert_int_eq(ll(tu_csv_get(&t, r, "run")), runs[i] + 1);
			ops[i][runs[i]++] = ll(tu_csv_get(&t, r, "ops"));
			ck_assert_str_ne(tu_csv_get(&t, r, "tau_us"), "");
			ck_assert_str_ne(tu_csv_get(&t, r, "t_put_ns"), "");
		} else {
			ck_assert_str_eq(kind, "summary");
			sums[i]++;
			sum_ops[i] = ll(tu_csv_get(&t, r, "ops"));
			ck_assert_int_eq(ll(tu_csv_get(&t, r, "n")), 1); /* one pair */
			ck_assert_str_ne(tu_csv_get(&t, r, "e_res_us"), "");
		}
	}
	ck_assert_int_eq(runs[0], 2);
	ck_assert_int_eq(runs[1], 2);
	ck_assert_int_eq(sums[0], 1);
	ck_assert_int_eq(sums[1], 1);
	for (int i = 0; i < 2; i++) {
		long long big = ops[i][0] > ops[i][1] ? ops[i][0] : ops[i][1];
		long long small = ops[i][0] > ops[i][1] ? ops[i][1] : ops[i][0];
		ck_assert_int_ge(big, 4);
		ck_assert_int_eq(small, big / 4);
		ck_assert_int_eq(sum_ops[i], big); /* the summary's L */
	}
	/* sizes interleaved: the first two run rows are one of each size */
	ck_assert_str_ne(tu_csv_get(&t, 1, "size_bytes"), tu_csv_get(&t, 2, "size_bytes"));
	tu_csv_free(&t);
}

/* the JSON of a 2-size sweep; 1 if every displacement is above 0 */
static int check_json(const char *text, char *why, size_t len)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);
	ck_assert_msg(root, "JSON: %s at line %d: %.200s", je.text, je.line, text);
	ck_assert_str_eq(json_string_value(json_object_get(root, "workload")), "tcp");
	ck_assert(json_is_object(json_object_get(root, "context")));
	json_t *sizes = json_object_get(root, "sizes");
	ck_assert(json_is_array(sizes));
	ck_assert_uint_eq(json_array_size(sizes), 2);
	int positive = 1;
	for (size_t i = 0; i < 2; i++) {
		json_t *s = json_array_get(sizes, i);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "size_bytes")), i ? 2000 : 1000);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "reps")), 2);
		ck_assert_uint_eq(json_array_size(json_object_get(s, "runs")), 2);
		json_t *e = json_object_get(s, "errors_us");
		ck_assert(json_is_object(e));
		const char *keys[] = { "res", "start", "drift", "calib", "cache" };
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			ck_assert_msg(json_object_get(e, keys[k]), "no errors_us.%s", keys[k]);
		/* the clock is real here: its term is a small positive number */
		ck_assert(json_number_value(json_object_get(e, "res")) > 0);
		json_t *d = json_object_get(json_object_get(s, "tau_put_us"), "displacement");
		ck_assert_msg(json_is_number(d) || json_is_null(d), "tau_put_us.displacement is missing");
		if (!json_is_number(d) || json_number_value(d) <= 0) {
			snprintf(why, len, "size %zu: displacement %g us", i ? 2000ul : 1000ul,
				 json_is_number(d) ? json_number_value(d) : -1.0);
			positive = 0;
		}
	}
	json_decref(root);
	return positive;
}

START_TEST(test_sweep_writes_csv_rows_and_json_by_size)
{
	/*
	 * Another process hogging CPU 0 between the calibrations and the runs
	 * (a shared host) can drive one attempt's displacement below 0: three
	 * attempts, and an attempt that sweep itself said another process held
	 * the CPU in counts (its figures hold that process's work; the
	 * warning is what the user gets). The rows and keys are checked on
	 * every one.
	 */
	char why[128] = "";
	int ok = 0;
	for (int attempt = 0; attempt < 3 && !ok; attempt++) {
		const char *csv = tu_case_path(attempt == 0 ? "a.csv" : attempt == 1 ? "b.csv" : "c.csv");
		char *extra[] = { "--csv", (char *)csv, "--json", NULL };
		int st = sweep("1000,2000", "2", extra);
		ck_assert_msg(st == 0, "exit %d: %s", st, err);
		check_csv(csv);
		ok = check_json(out, why, sizeof why) || strstr(err, " held it");
	}
	ck_assert_msg(ok, "three sweeps, none with every displacement above 0 and no warning of a busy CPU; the "
			  "last: %s; %.300s", why, err);
}
END_TEST

START_TEST(test_sweep_appends_to_a_csv_with_the_same_header)
{
	const char *csv = tu_case_path("r.csv");
	char before[8192], after[1 << 16];
	/* an earlier row, with every column of the header: the first ten filled, the others empty */
	char empty[256] = "";
	for (const char *h = OUT_CSV_HEADER; *h; h++)
		if (*h == ',' && strlen(empty) + 2 < sizeof empty)
			strcat(empty, ",");
	snprintf(before, sizeof before, "%s\nrun,2020-01-01T00:00:00Z,measure,spin,--us=1,,0,0,4,1%s\n",
		 OUT_CSV_HEADER, empty + 9);
	ck_assert_int_eq(tu_write_file(csv, before, strlen(before)), 0);
	struct tu_csv t;
	ck_assert_int_eq(tu_csv_load(csv, &t, NULL), 0);
	ck_assert_uint_eq(t.nfields[1], t.nfields[0]);
	tu_csv_free(&t);

	char *extra[] = { "--csv", (char *)csv, NULL };
	int st = sweep("1000", "2", extra);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_int_gt(tu_read_file(csv, after, sizeof after), 0);
	ck_assert_msg(!strncmp(after, before, strlen(before)), "the old rows changed: %.400s", after);
	ck_assert_int_eq(tu_count_lines(after, "kind,"), 1);
	ck_assert_int_eq(tu_csv_load(csv, &t, NULL), 0);
	ck_assert_uint_eq(t.nrows, 1 + 1 + 2 + 1);
	ck_assert_str_eq(tu_csv_get(&t, 2, "kind"), "run");
	ck_assert_str_eq(tu_csv_get(&t, 2, "size_bytes"), "1000");
	ck_assert_str_eq(tu_csv_get(&t, 3, "kind"), "run");
	ck_assert_str_eq(tu_csv_get(&t, 4, "kind"), "summary");
	tu_csv_free(&t);
}
END_TEST

START_TEST(test_sweep_refuses_a_csv_with_another_header)
{
	const char *csv = tu_case_path("other.csv");
	const char *text = "a,b\n1,2\n";
	char after[256];
	ck_assert_int_eq(tu_write_file(csv, text, strlen(text)), 0);
	char *extra[] = { "--csv", (char *)csv, NULL };
	int st = sweep("1000", "2", extra);
	ck_assert_msg(st == 3, "exit %d: %s", st, err);
	ck_assert_ptr_nonnull(strstr(err, "has another header"));
	ck_assert_int_eq(tu_count_lines(err, "displace: "), 1);
	ck_assert_int_eq(tu_read_file(csv, after, sizeof after), (long)strlen(text));
	ck_assert_str_eq(after, text);
}
END_TEST

START_TEST(test_sweep_plot_writes_svg_or_script)
{
	const char *svg = tu_case_path("cost.svg");
	char *extra[] = { "--plot", (char *)svg, NULL };
	int st = sweep("1000,2000", "2", extra);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	/* the data: the displacement block first, one point per size */
	char dat[1 << 14];
	ck_assert_int_gt(tu_read_file(tu_case_path("cost.dat"), dat, sizeof dat), 0);
	ck_assert_msg(!strncmp(dat, "# displacement", 14), "%.200s", dat);
	const char *p = strchr(dat, '\n');
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(!strncmp(p + 1, "1000 ", 5) && strstr(p, "\n2000 "), "%.200s", dat);
	/* the key under the graph, off the data; CI bars for displacement and each OS source measured (no task-clock
	 * without --task-clock) */
	char gp[1 << 14];
	ck_assert_int_gt(tu_read_file(tu_case_path("cost.gp"), gp, sizeof gp), 0);
	ck_assert_msg(strstr(gp, "\nset key outside below"), "%s", gp);
	int bars = 0;
	for (const char *q = gp; (q = strstr(q, " with yerrorlines ")); q++)
		bars++;
	/* one per block of the data: displacement and getrusage at least; no task-clock without --task-clock */
	ck_assert_int_eq(bars, tu_count_lines(dat, "# "));
	ck_assert_int_ge(bars, 2);
	ck_assert_ptr_null(strstr(gp, "'task-clock'"));
	ck_assert_ptr_null(strstr(dat, "# task-clock"));
	if (tu_run((char *const[]){ "/bin/sh", "-c", "command -v gnuplot", NULL }, NULL, 0, NULL, 0) == 0) {
		char text[1 << 16];
		ck_assert_int_gt(tu_read_file(svg, text, sizeof text), 0);
		ck_assert_ptr_nonnull(strstr(text, "<svg"));
	}
}
END_TEST

START_TEST(test_sweep_bad_input_exits_2_with_one_line)
{
	char *d = (char *)tu_bin("displace");
	/* a plot that cannot be written: a missing resource, said before any run */
	char *a0[] = { d, "sweep", "tcp", "--sizes", "1000", "--plot", "/nonexistent/displace-test/c.svg", NULL };
	tu_expect_error(3, "cannot write the plot '/nonexistent/displace-test/c.svg'", a0);
	char *a1[] = { d, "sweep", "tcp", NULL };
	tu_expect_error(2, "--sizes is required", a1);
	char *a2[] = { d, "sweep", "tcp", "--sizes", "1:10:0", NULL };
	tu_expect_error(2, "invalid value '1:10:0' for --sizes", a2);
	char *a3[] = { d, "sweep", "tcp", "--sizes", "20000000", NULL };
	tu_expect_error(2, "invalid value '20000000' for --size", a3);
	char *a4[] = { d, "sweep", "udp", "--sizes", "70000", NULL };
	tu_expect_error(2, "above the udp limit", a4);
	char *a5[] = { d, "sweep", "spin", "--sizes", "1000", NULL };
	tu_expect_error(2, "spin has no message size to vary; use tcp, tcp-stream, udp, unix or rpc", a5);
}
END_TEST

START_TEST(test_sweep_peer_down_exits_3)
{
	/* port 9 (discard) on loopback: nothing listens there */
	char *argv[] = { (char *)tu_bin("displace"), "sweep", "tcp", "--sizes", "1000", "--peer", "127.0.0.1:9",
			 "--reps", "2", "--run-time", "100ms", "--calib-time", "50ms", "--quiet", NULL };
	tu_expect_error(3, "cannot connect to 127.0.0.1:9", argv);
}
END_TEST

/* what can be found at once is a usage error (2) or a missing resource (3) before any run */
START_TEST(test_sweep_refuses_contradictions_before_running)
{
	/* in the case directory, where a command run by gnuplot would leave PWNED */
	char d[PATH_MAX];
	ck_assert_ptr_nonnull(realpath(tu_bin("displace"), d));
	ck_assert_int_eq(chdir(tu_case_path("")), 0);
	char *a1[] = { d, "sweep", "tcp", "--sizes", "1k,1k,1k", NULL };
	tu_expect_error(2, "size 1000 is listed twice in --sizes '1k,1k,1k'", a1);
	char *a2[] = { d, "sweep", "tcp", "--sizes", "1k,2k", "--size", "4k", NULL };
	tu_expect_error(2, "--size and --sizes exclude each other", a2);
	char *a3[] = { d, "sweep", "tcp", "--sizes", "1k", "--plot", "", NULL };
	tu_expect_error(2, "invalid value '' for --plot", a3);
	/* the plot path, which ran a command through the gnuplot script */
	char *a4[] = { d, "sweep", "tcp", "--sizes", "1k", "--plot", "a\nsystem \"touch PWNED\"\n#.svg", NULL };
	tu_expect_error(2, "for --plot (a file name, not empty, without control characters)", a4);
	ck_assert_int_eq(access("PWNED", F_OK), -1);
	ck_assert_int_eq(symlink("/etc/passwd", tu_case_path("cost.gp")), 0);
	char *a5[] = { d, "sweep", "tcp", "--sizes", "1k", "--plot", (char *)tu_case_path("cost.svg"), NULL };
	tu_expect_error(3, "symbolic link", a5);
	char *a6[] = { d, "sweep", "tcp", "--sizes", "1k", "--peer", "localhost:x", NULL };
	tu_expect_error(2, "invalid value 'localhost:x' for --peer", a6);
}
END_TEST

/* SIGINT after the first round: the sizes measured so far are reported, marked interrupted, exit 1 */
START_TEST(test_sweep_interrupted_reports_the_sizes_measured)
{
	const char *csv = tu_case_path("rows.csv");
	char *argv[] = { (char *)tu_bin("displace"), "sweep", "tcp", "--sizes", "1000,2000", "--reps", "40",
			 "--run-time", "100ms", "--calib-time", "50ms", "--quiet", "--json", "--csv", (char *)csv, NULL };
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	/* the header and a pair of one size, or a run of each */
	for (int i = 0; i < 600 && tu_file_lines(csv) < 4; i++)
		usleep(100000);
	json_t *root = tu_interrupt_json(pid, in, outfd, SIGINT, "SIGINT", out, sizeof out);
	ck_assert_uint_eq(json_array_size(json_object_get(root, "sizes")), 2);
	json_decref(root);
	char text[1 << 16];
	ck_assert_int_gt(tu_read_file(csv, text, sizeof text), 0);
	ck_assert_int_eq(tu_count_lines(text, "summary,"), 0);
}
END_TEST

Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("e2e");
	tcase_add_checked_fixture(tc, tu_case_dir_setup, tu_case_dir_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sweep_writes_csv_rows_and_json_by_size);
	tcase_add_test(tc, test_sweep_appends_to_a_csv_with_the_same_header);
	tcase_add_test(tc, test_sweep_refuses_a_csv_with_another_header);
	tcase_add_test(tc, test_sweep_plot_writes_svg_or_script);
	tcase_add_test(tc, test_sweep_bad_input_exits_2_with_one_line);
	tcase_add_test(tc, test_sweep_peer_down_exits_3);
	tcase_add_test(tc, test_sweep_refuses_contradictions_before_running);
	tcase_add_test(tc, test_sweep_interrupted_reports_the_sizes_measured);
	suite_add_tcase(s, tc);
	return s;
}
