/* check_calibration.c - the calibration store and the quiet-host verdict (calib/calibration.c) */
#include "calib/calibration.h"
#include "common/cli.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GOOD_ROW "vm,6.1.0-18-amd64,AMD EPYC,0,lcg64-v1/c1000,idle,1.190187,0.001000,0.004000,1.148599,20,0.2500,1,quiet,2026-11-22T00:20:33Z\n"

static struct calib_row make_row(const char *host, int cpu, const char *variant, const char *sched)
{
	struct calib_row r;
	memset(&r, 0, sizeof r);
	snprintf(r.host, sizeof r.host, "%s", host);
	snprintf(r.kernel, sizeof r.kernel, "6.1.0-18-amd64");
	snprintf(r.cpu_model, sizeof r.cpu_model, "AMD EPYC 7B13 64-Core Processor");
	r.cpu = cpu;
	snprintf(r.variant, sizeof r.variant, "%s", variant);
	snprintf(r.sched, sizeof r.sched, "%s", sched);
	r.tau_f_ns = 1.190187;
	r.ci95_ns = 0.001234;
	r.cv = 0.004321;
	r.tau0_ns = 1.148599;
	r.reps = 20;
	r.seconds = 0.25;
	r.quiet = 1;
	snprintf(r.verdict, sizeof r.verdict, "quiet");
	snprintf(r.date, sizeof r.date, "2026-11-22T00:20:33Z");
	return r;
}

static void assert_rows_equal(const struct calib_row *a, const struct calib_row *b)
{
	ck_assert_str_eq(a->host, b->host);
	ck_assert_str_eq(a->kernel, b->kernel);
	ck_assert_str_eq(a->cpu_model, b->cpu_model);
	ck_assert_int_eq(a->cpu, b->cpu);
	ck_assert_str_eq(a->variant, b->variant);
	ck_assert_str_eq(a->sched, b->sched);
	/* the store keeps 6 decimals of ns and 4 of seconds */
	ck_assert_double_eq_tol(a->tau_f_ns, b->tau_f_ns, 1e-6);
	ck_assert_double_eq_tol(a->ci95_ns, b->ci95_ns, 1e-6);
	ck_assert_double_eq_tol(a->cv, b->cv, 1e-6);
	ck_assert_double_eq_tol(a->tau0_ns, b->tau0_ns, 1e-6);
	ck_assert_uint_eq(a->reps, b->reps);
	ck_assert_double_eq_tol(a->seconds, b->seconds, 1e-4);
	ck_assert_int_eq(a->quiet, b->quiet);
	ck_assert_str_eq(a->verdict, b->verdict);
	ck_assert_str_eq(a->date, b->date);
}

/* save - calib_store_save of the default store: its directory is made when missing */
static int save(const char *path, const struct calib_store *st)
{
	char why[256];
	return calib_store_save(path, st, CALIB_STORE_MKDIR, why, sizeof why);
}

/* load_text - write text (len bytes, NULs allowed) to the scratch directory and load it */
static int load_text(const char *name, const char *text, size_t len, unsigned long *line, char *err, size_t errlen)
{
	struct calib_store st = { NULL, 0 };
	ck_assert_int_eq(tu_write_file(tu_scratch_path(name), text, len), 0);
	int rc = calib_store_load(tu_scratch_path(name), &st, line, err, errlen);
	if (rc) {
		/* a failed load leaves nothing behind */
		ck_assert_ptr_null(st.rows);
		ck_assert_uint_eq(st.n, 0);
	}
	calib_store_free(&st);
	return rc;
}

/* ---- store ------------------------------------------------------------------ */

START_TEST(test_store_round_trip_keeps_every_field)
{
	struct calib_store st = { NULL, 0 }, back;
	struct calib_row a = make_row("vm", 0, "lcg64-v1/c1000", "idle");
	a.quiet = 0;
	snprintf(a.verdict, sizeof a.verdict,
		 "not quiet: 'kworker/0:1, \"busy\"' (pid 7) used 5.0%% of a CPU; stop it\nand a second line");
	struct calib_row b = make_row("vm", 1, "lcg64-v1/c1000", "normal");
	b.kernel[0] = '\0'; /* an empty field */
	snprintf(b.cpu_model, sizeof b.cpu_model, " Intel(R) Xeon(R) ");
	b.tau_f_ns = 0.734512;
	b.reps = 1;
	b.seconds = 0.3;
	ck_assert_int_eq(calib_store_put(&st, &a), 0);
	ck_assert_int_eq(calib_store_put(&st, &b), 0);

	/* two levels of directories that do not exist yet */
	const char *path = tu_scratch_path("new/sub/cal.csv");
	ck_assert_int_eq(save(path, &st), 0);
	unsigned long line;
	char err[256];
	ck_assert_int_eq(calib_store_load(path, &back, &line, err, sizeof err), 0);
	ck_assert_uint_eq(back.n, 2);
	assert_rows_equal(&back.rows[0], &a);
	assert_rows_equal(&back.rows[1], &b);
	calib_store_free(&back);
	calib_store_free(&st);
	ck_assert_ptr_null(st.rows);
	ck_assert_uint_eq(st.n, 0);
}
END_TEST

START_TEST(test_store_put_replaces_same_key_and_appends_others)
{
	struct calib_store st = { NULL, 0 };
	struct calib_row r = make_row("vm", 0, "lcg64-v1/c1000", "idle");
	ck_assert_int_eq(calib_store_put(&st, &r), 0);
	/* each key part differs in turn: all new rows */
	struct calib_row other[] = {
		make_row("vm2", 0, "lcg64-v1/c1000", "idle"),
		make_row("vm", 1, "lcg64-v1/c1000", "idle"),
		make_row("vm", 0, "lcg64-v1/c500", "idle"),
		make_row("vm", 0, "lcg64-v1/c1000", "normal"),
	};
	for (size_t i = 0; i < 4; i++) {
		other[i].tau_f_ns = 2.0 + (double)i;
		ck_assert_int_eq(calib_store_put(&st, &other[i]), 0);
	}
	ck_assert_uint_eq(st.n, 5);
	/* same host, cpu, variant and class: replaced in place, the others untouched */
	struct calib_row again = make_row("vm", 0, "lcg64-v1/c1000", "idle");
	again.tau_f_ns = 9.5;
	again.quiet = 0;
	ck_assert_int_eq(calib_store_put(&st, &again), 0);
	ck_assert_uint_eq(st.n, 5);
	ck_assert_double_eq(st.rows[0].tau_f_ns, 9.5);
	ck_assert_int_eq(st.rows[0].quiet, 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_double_eq(st.rows[i + 1].tau_f_ns, 2.0 + (double)i);

	const struct calib_row *f = calib_store_find(&st, "vm", 0, "lcg64-v1/c500", "idle");
	ck_assert_ptr_eq(f, &st.rows[3]);
	f = calib_store_find(&st, "vm", 0, "lcg64-v1/c1000", "idle");
	ck_assert_ptr_eq(f, &st.rows[0]);
	ck_assert_ptr_null(calib_store_find(&st, "vm", 2, "lcg64-v1/c1000", "idle"));
	ck_assert_ptr_null(calib_store_find(&st, "vm", 1, "lcg64-v1/c1000", "nice"));
	calib_store_free(&st);
	ck_assert_ptr_null(calib_store_find(&st, "vm", 0, "lcg64-v1/c1000", "idle"));
}
END_TEST

START_TEST(test_store_missing_file_is_empty)
{
	struct calib_store st;
	unsigned long line = 99;
	char err[256] = "junk";
	ck_assert_int_eq(calib_store_load(tu_scratch_path("no-such-file.csv"), &st, &line, err, sizeof err), 0);
	ck_assert_uint_eq(st.n, 0);
	ck_assert_ptr_null(st.rows);
	ck_assert_uint_eq(line, 0);
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_store_unreadable_path_gives_errno)
{
	struct calib_store st;
	unsigned long line;
	char err[256];
	/* root can read a mode-000 file, but nobody can read a directory as a file */
	ck_assert_int_eq(mkdir(tu_scratch_path("a-dir"), 0755), 0);
	ck_assert_int_eq(calib_store_load(tu_scratch_path("a-dir"), &st, &line, err, sizeof err), -EISDIR);
	ck_assert_uint_eq(st.n, 0);
	/* a path through a regular file */
	ck_assert_int_eq(tu_write_file(tu_scratch_path("plain"), "x\n", 2), 0);
	ck_assert_int_eq(calib_store_load(tu_scratch_path("plain/cal.csv"), &st, &line, err, sizeof err), -ENOTDIR);
}
END_TEST

START_TEST(test_store_empty_file_is_empty_store)
{
	unsigned long line;
	char err[256];
	ck_assert_int_eq(load_text("empty.csv", "", 0, &line, err, sizeof err), 0);
	const char *t = CALIB_STORE_HEADER "\n";
	ck_assert_int_eq(load_text("header.csv", t, strlen(t), &line, err, sizeof err), 0);
}
END_TEST

START_TEST(test_store_reports_wrong_header)
{
	unsigned long line;
	char err[256];
	const char *t = "host,kernel,cpu\n" GOOD_ROW;
	ck_assert_int_eq(load_text("hdr.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 1);
	ck_assert_ptr_nonnull(strstr(err, "header"));
}
END_TEST

START_TEST(test_store_reports_line_of_short_row)
{
	unsigned long line;
	char err[256];
	const char *t = CALIB_STORE_HEADER "\n" GOOD_ROW
		"vm,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("short.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_eq(err, "14 fields, expected 15");
}
END_TEST

START_TEST(test_store_reports_non_numeric_tau)
{
	unsigned long line;
	char err[256];
	const char *t = CALIB_STORE_HEADER "\n" GOOD_ROW GOOD_ROW
		"vm,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,fast,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("tau.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 4);
	ck_assert_ptr_nonnull(strstr(err, "tau_f_ns"));
	/* trailing junk after a number is as bad */
	t = CALIB_STORE_HEADER "\n"
	    "vm,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19ns,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("tau2.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 2);
	ck_assert_ptr_nonnull(strstr(err, "tau_f_ns"));
}
END_TEST

START_TEST(test_store_reports_negative_cpu)
{
	unsigned long line;
	char err[256];
	const char *t = CALIB_STORE_HEADER "\n"
		"vm,6.1.0,AMD EPYC,-1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("cpu.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 2);
	ck_assert_ptr_nonnull(strstr(err, "cpu"));
	t = CALIB_STORE_HEADER "\n"
	    "vm,6.1.0,AMD EPYC,1.5,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("cpu2.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "cpu"));
}
END_TEST

START_TEST(test_store_reports_start_line_of_unterminated_quote)
{
	unsigned long line;
	char err[256];
	/* the open quote in the verdict, on line 3; the file ends two lines later */
	const char *t = CALIB_STORE_HEADER "\n" GOOD_ROW
		"vm,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,0,\"not quiet: x\n"
		"more of the verdict\n"
		"and more\n";
	ck_assert_int_eq(load_text("open.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_ne(err, "");
	/* the open quote in the record's first field */
	t = CALIB_STORE_HEADER "\n" GOOD_ROW
	    "\"vm,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n"
	    "\n"
	    "tail\n";
	ck_assert_int_eq(load_text("open2.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_store_rejects_stray_quote_in_unquoted_field)
{
	unsigned long line;
	char err[256];
	const char *t = CALIB_STORE_HEADER "\n" GOOD_ROW
		"v\"m,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("stray.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_ne(err, "");
	/* text after a closing quote */
	t = CALIB_STORE_HEADER "\n"
	    "\"vm\"x,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("stray2.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 2);
}
END_TEST

START_TEST(test_store_rejects_nul_byte)
{
	unsigned long line;
	char err[256];
	static const char t[] = CALIB_STORE_HEADER "\n" GOOD_ROW
		"v\0m,6.1.0,AMD EPYC,1,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,2026-11-22T00:20:33Z\n";
	ck_assert_int_eq(load_text("nul.csv", t, sizeof t - 1, &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_ne(err, "");
}
END_TEST

/*
 * The store: calibrate read a cpu of 3e9 (and reps 1e300, seconds
 * 1e-320, tau0 1e-300), wrote it back as -2147483648 (a float-to-int
 * overflow), and every later run refused the store. Now one check,
 * calib_row_check, refuses such a row where it is read, with the field.
 */
START_TEST(test_store_refuses_values_it_could_not_write_back)
{
	static const struct {
		const char *row, *field;
	} bad[] = {
		{ "vm,k,m,3000000000,v,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,d\n", "bad cpu" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0.004,1.14,1e300,0.25,1,quiet,d\n", "bad reps" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0.004,1.14,20,1e-320,1,quiet,d\n", "bad seconds" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0.004,1e-300,20,0.25,1,quiet,d\n", "bad tau0_ns" },
		{ "vm,k,m,0,v,idle,1e300,0.001,0.004,1.14,20,0.25,1,quiet,d\n", "bad tau_f_ns" },
		{ "vm,k,m,0,v,idle,1.19,-0.001,0.004,1.14,20,0.25,1,quiet,d\n", "bad ci95_ns" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0x10,1.14,20,0.25,1,quiet,d\n", "bad cv" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0.004,1.14,20,0.25,2,quiet,d\n", "bad quiet" },
		{ "vm,k,m,0,v,idle,1.19,0.001,0.004,1.14,20,inf,1,quiet,d\n", "bad seconds" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char t[512], err[256];
		unsigned long line;
		snprintf(t, sizeof t, "%s\n%s", CALIB_STORE_HEADER, bad[i].row);
		ck_assert_int_eq(load_text("range.csv", t, strlen(t), &line, err, sizeof err), -EBADMSG);
		ck_assert_uint_eq(line, 2);
		ck_assert_msg(strstr(err, bad[i].field), "'%s' not in '%s'", bad[i].field, err);
	}
}
END_TEST

/* and the same check refuses to write such a row: calibrate never saves a store it would refuse */
START_TEST(test_store_save_checks_rows_as_load_does)
{
	struct calib_store st = { NULL, 0 };
	struct calib_row r = make_row("vm", 0, "lcg64-v1/c1000", "idle");
	char why[256];
	ck_assert_int_eq(calib_row_check(&r, why, sizeof why), 0);
	const char *path = tu_scratch_path("checked.csv");
	ck_assert_int_eq(calib_store_put(&st, &r), 0);
	ck_assert_int_eq(calib_store_save(path, &st, 0, why, sizeof why), 0);
	struct {
		struct calib_row r;
		const char *field;
	} bad[5];
	for (int i = 0; i < 5; i++)
		bad[i].r = make_row("vm", 1, "lcg64-v1/c1000", "idle");
	bad[0].r.cpu = CLI_MAX_CPUS, bad[0].field = "bad cpu";
	bad[1].r.reps = 0, bad[1].field = "bad reps";
	bad[2].r.seconds = 1e-320, bad[2].field = "bad seconds";
	bad[3].r.tau0_ns = 1e-300, bad[3].field = "bad tau0_ns";
	bad[4].r.tau_f_ns = NAN, bad[4].field = "bad tau_f_ns";
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(calib_row_check(&bad[i].r, why, sizeof why), -EINVAL);
		ck_assert_ptr_nonnull(strstr(why, bad[i].field));
		struct calib_store two = { NULL, 0 };
		ck_assert_int_eq(calib_store_put(&two, &r), 0);
		ck_assert_int_eq(calib_store_put(&two, &bad[i].r), 0);
		ck_assert_int_eq(calib_store_save(path, &two, 0, why, sizeof why), -EINVAL);
		ck_assert_msg(strstr(why, bad[i].field) && strstr(why, "CPU 1"), "%s", why);
		calib_store_free(&two);
	}
	/* the store on disk is still the good one */
	struct calib_store back;
	unsigned long line;
	ck_assert_int_eq(calib_store_load(path, &back, &line, why, sizeof why), 0);
	ck_assert_uint_eq(back.n, 1);
	calib_store_free(&back);
	calib_store_free(&st);
}
END_TEST

/* what passes the check reads back exactly, at the ends of every range */
START_TEST(test_store_round_trips_extreme_values_exactly)
{
	struct calib_store st = { NULL, 0 }, back;
	struct calib_row lo = make_row("vm", 0, "v", "idle"), hi = make_row("vm", CLI_MAX_CPUS - 1, "v", "idle");
	lo.tau_f_ns = lo.tau0_ns = 1e-3;
	lo.ci95_ns = lo.cv = 0;
	lo.reps = 1;
	lo.seconds = 0.001;
	hi.tau_f_ns = hi.tau0_ns = hi.ci95_ns = 1e6;
	hi.cv = 100;
	hi.reps = 100000;
	hi.seconds = 3600;
	struct calib_row odd = make_row("vm", 7, "v", "idle");
	odd.tau_f_ns = 1.1901873456789012; /* all 17 digits matter */
	odd.tau0_ns = 0.1 + 0.2;
	odd.seconds = 1.0 / 3;
	ck_assert_int_eq(calib_store_put(&st, &lo), 0);
	ck_assert_int_eq(calib_store_put(&st, &hi), 0);
	ck_assert_int_eq(calib_store_put(&st, &odd), 0);
	const char *path = tu_scratch_path("extreme.csv");
	char why[256];
	unsigned long line;
	ck_assert_int_eq(calib_store_save(path, &st, 0, why, sizeof why), 0);
	ck_assert_int_eq(calib_store_load(path, &back, &line, why, sizeof why), 0);
	ck_assert_uint_eq(back.n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct calib_row *a = &st.rows[i], *b = &back.rows[i];
		ck_assert_int_eq(a->cpu, b->cpu);
		ck_assert(a->tau_f_ns == b->tau_f_ns && a->tau0_ns == b->tau0_ns && a->ci95_ns == b->ci95_ns);
		ck_assert(a->cv == b->cv && a->seconds == b->seconds);
		ck_assert_uint_eq(a->reps, b->reps);
	}
	calib_store_free(&back);
	calib_store_free(&st);
}
END_TEST

/* n rows with distinct keys, each key twice when dup */
static char *store_text(size_t n, size_t *len)
{
	size_t cap = (n + 1) * 160, used = 0;
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	used += (size_t)snprintf(t, cap, "%s\n", CALIB_STORE_HEADER);
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(t + used, cap - used,
					 "host%zu,6.1.0,AMD EPYC,%zu,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,1,quiet,"
					 "2026-11-22T00:20:33Z\n",
					 i / 4, i % 4);
	*len = used;
	return t;
}

/* the fastest of three loads of text, in seconds */
static double load_seconds(const char *name, const char *text, size_t len, size_t want_rows)
{
	double best = 1e9;
	ck_assert_int_eq(tu_write_file(tu_scratch_path(name), text, len), 0);
	for (int k = 0; k < 3; k++) {
		struct calib_store st;
		unsigned long line;
		char err[256];
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		ck_assert_int_eq(calib_store_load(tu_scratch_path(name), &st, &line, err, sizeof err), 0);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ck_assert_uint_eq(st.n, want_rows);
		calib_store_free(&st);
		double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	return best;
}

/*
 * A 50 MB store (238 k rows) took 63 s to load: every row was looked up by
 * scanning the rows before it. Four times the rows must now take about four
 * times as long (a scan would take sixteen), and a later row with the same
 * key still replaces the earlier one in place.
 */
START_TEST(test_store_load_is_linear_in_rows)
{
	size_t n = 10000, len1, len4;
	/*
	 * Rows come from the heap, not fresh mappings: a fresh mapping's page
	 * faults would time the kernel, not the load (glibc maps blocks above
	 * 32 MB afresh every time, and reuses smaller ones)
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	char *t1 = store_text(n, &len1), *t4 = store_text(4 * n, &len4);
	double s1 = load_seconds("n.csv", t1, len1, n), s4 = load_seconds("4n.csv", t4, len4, 4 * n);
	free(t1);
	free(t4);
	ck_assert_msg(s4 < 8 * s1 + 0.05, "%zu rows in %.3f s, %zu rows in %.3f s", n, s1, 4 * n, s4);

	const char *t = CALIB_STORE_HEADER "\n"
			"a,k,m,0,v,idle,1.0,0,0,1.0,1,0.25,1,quiet,d\n"
			"b,k,m,0,v,idle,2.0,0,0,1.0,1,0.25,1,quiet,d\n"
			"a,k,m,0,v,idle,3.0,0,0,1.0,1,0.25,1,quiet,d\n";
	struct calib_store st;
	unsigned long line;
	char err[256];
	ck_assert_int_eq(tu_write_file(tu_scratch_path("dup.csv"), t, strlen(t)), 0);
	ck_assert_int_eq(calib_store_load(tu_scratch_path("dup.csv"), &st, &line, err, sizeof err), 0);
	ck_assert_uint_eq(st.n, 2);
	ck_assert_str_eq(st.rows[0].host, "a");
	ck_assert_double_eq(st.rows[0].tau_f_ns, 3.0);
	ck_assert_double_eq(st.rows[1].tau_f_ns, 2.0);
	/* calib_store_put after a load still works on what it left */
	struct calib_row r = make_row("c", 0, "v", "idle");
	ck_assert_int_eq(calib_store_put(&st, &r), 0);
	ck_assert_uint_eq(st.n, 3);
	calib_store_free(&st);
}
END_TEST

/* --calibration /nonexistent/dir/x.csv made the directories: only the default store's may be made */
START_TEST(test_store_save_makes_directories_only_when_asked)
{
	struct calib_store st = { NULL, 0 };
	struct calib_row r = make_row("vm", 0, "v", "idle");
	ck_assert_int_eq(calib_store_put(&st, &r), 0);
	char why[256];
	const char *path = tu_scratch_path("nodir/sub/cal.csv");
	ck_assert_int_eq(calib_store_check(path, 0), -ENOENT);
	ck_assert_int_eq(calib_store_save(path, &st, 0, why, sizeof why), -ENOENT);
	struct stat sb;
	ck_assert_int_eq(stat(tu_scratch_path("nodir"), &sb), -1);
	ck_assert_int_eq(calib_store_check(path, CALIB_STORE_MKDIR), 0);
	ck_assert_int_eq(stat(tu_scratch_path("nodir/sub"), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0700);
	/* never through a symlink planted where the store goes */
	const char *victim = tu_scratch_path("victim"), *link = tu_scratch_path("nodir/sub/link.csv");
	ck_assert_int_eq(tu_write_file(victim, "keep", 4), 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	ck_assert_int_eq(calib_store_check(link, CALIB_STORE_MKDIR), -ELOOP);
	ck_assert_int_eq(calib_store_save(link, &st, CALIB_STORE_MKDIR, why, sizeof why), -ELOOP);
	char buf[16];
	tu_read_file(victim, buf, sizeof buf);
	ck_assert_str_eq(buf, "keep");
	calib_store_free(&st);
}
END_TEST

/* a NUL byte is said to be one ("a stray quote" before) */
START_TEST(test_store_says_nul_byte)
{
	unsigned long line;
	char err[256];
	static const char t[] = CALIB_STORE_HEADER "\n" GOOD_ROW "v\0m\n";
	ck_assert_int_eq(load_text("nul2.csv", t, sizeof t - 1, &line, err, sizeof err), -EBADMSG);
	ck_assert_uint_eq(line, 3);
	ck_assert_msg(strstr(err, "NUL byte"), "%s", err);
}
END_TEST

/* count_entries - entries of dir other than . and .., and whether name is one of them */
static int count_entries(const char *dir, const char *name, int *found)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	*found = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (!strcmp(de->d_name, name))
			*found = 1;
	}
	closedir(d);
	return n;
}

START_TEST(test_store_save_is_atomic_and_replaces_old_file)
{
	struct calib_store st = { NULL, 0 }, back;
	struct calib_row r = make_row("vm", 0, "lcg64-v1/c1000", "idle");
	ck_assert_int_eq(calib_store_put(&st, &r), 0);
	const char *dir = tu_scratch_path("atomic");
	const char *path = tu_scratch_path("atomic/cal.csv");
	ck_assert_int_eq(save(path, &st), 0);
	int found;
	/* no cal.csv.XXXXXX left behind */
	ck_assert_int_eq(count_entries(dir, "cal.csv", &found), 1);
	ck_assert(found);

	/* over an older, longer file: replaced by rename (a new inode), not rewritten */
	char old[4096];
	memset(old, 'z', sizeof old);
	ck_assert_int_eq(tu_write_file(path, old, sizeof old), 0);
	struct stat before, after;
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(save(path, &st), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	ck_assert_int_lt(after.st_size, 1000);
	ck_assert_int_eq(count_entries(dir, "cal.csv", &found), 1);
	unsigned long line;
	char err[256];
	ck_assert_int_eq(calib_store_load(path, &back, &line, err, sizeof err), 0);
	ck_assert_uint_eq(back.n, 1);
	assert_rows_equal(&back.rows[0], &r);
	calib_store_free(&back);

	/* an empty store still writes the header */
	struct calib_store none = { NULL, 0 };
	ck_assert_int_eq(save(path, &none), 0);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char text[512] = "";
	ck_assert_ptr_nonnull(fgets(text, sizeof text, f));
	ck_assert_str_eq(text, CALIB_STORE_HEADER "\n");
	ck_assert_ptr_null(fgets(text, sizeof text, f));
	fclose(f);

	/* a directory that cannot be made: an error, and nothing written */
	ck_assert_int_eq(tu_write_file(tu_scratch_path("file"), "x", 1), 0);
	ck_assert_int_eq(save(tu_scratch_path("file/sub/cal.csv"), &st), -ENOTDIR);
	calib_store_free(&st);
}
END_TEST

/* the environment as the test runner set it (a temporary XDG_CACHE_HOME), put back after the test */
static char saved_xdg[256], saved_home[256];

static void save_env(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	snprintf(saved_xdg, sizeof saved_xdg, "%s", x ? x : "");
	snprintf(saved_home, sizeof saved_home, "%s", h ? h : "");
}

static void restore_env(void)
{
	if (saved_xdg[0])
		setenv("XDG_CACHE_HOME", saved_xdg, 1);
	if (saved_home[0])
		setenv("HOME", saved_home, 1);
}

START_TEST(test_store_default_path_prefers_xdg_then_home)
{
	char buf[256];
	ck_assert_int_eq(setenv("XDG_CACHE_HOME", "/x/cache", 1), 0);
	ck_assert_int_eq(setenv("HOME", "/home/u", 1), 0);
	ck_assert_int_eq(calib_store_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/x/cache/displace/calibration.csv");
	/* the XDG spec ignores a relative XDG_CACHE_HOME */
	ck_assert_int_eq(setenv("XDG_CACHE_HOME", "rel/cache", 1), 0);
	ck_assert_int_eq(calib_store_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/home/u/.cache/displace/calibration.csv");
	ck_assert_int_eq(unsetenv("XDG_CACHE_HOME"), 0);
	ck_assert_int_eq(calib_store_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/home/u/.cache/displace/calibration.csv");
	ck_assert_int_eq(calib_store_default_path(buf, 10), -ENAMETOOLONG);
	ck_assert_int_eq(setenv("HOME", "", 1), 0);
	ck_assert_int_eq(calib_store_default_path(buf, sizeof buf), -ENOENT);
	ck_assert_int_eq(unsetenv("HOME"), 0);
	ck_assert_int_eq(calib_store_default_path(buf, sizeof buf), -ENOENT);
}
END_TEST

/* ---- the quiet-host verdict ------------------------------------------------------ */

/* quiet_in - a host comfortably under every threshold */
static struct calib_quiet_in quiet_in(void)
{
	struct calib_quiet_in q;
	memset(&q, 0, sizeof q);
	q.cpu = 1;
	q.ncpus_online = 2;
	q.loadavg1 = 0.2;
	q.cv = 0.002;
	q.steal_frac = 0.0;
	q.fluid_share = 0.995;
	q.others_frac = 0.004;
	q.ntop = 2;
	q.top[0].pid = 321;
	snprintf(q.top[0].comm, sizeof q.top[0].comm, "sshd");
	q.top[0].frac = 0.003;
	q.top[1].pid = 12;
	snprintf(q.top[1].comm, sizeof q.top[1].comm, "kworker/1:0");
	q.top[1].frac = 0.001;
	return q;
}

/* assert_one_reason - not quiet, one reason, naming want, with a remedy after "; " */
static void assert_one_reason(const struct calib_quiet_in *q, const char *want)
{
	struct calib_verdict v;
	calib_judge(q, &v);
	ck_assert_int_eq(v.quiet, 0);
	ck_assert_int_eq(v.n, 1);
	ck_assert_msg(strstr(v.reason[0], want), "'%s' not in '%s'", want, v.reason[0]);
	const char *semi = strstr(v.reason[0], "; ");
	ck_assert_msg(semi && semi[2], "no remedy in '%s'", v.reason[0]);
}

START_TEST(test_judge_quiet_under_thresholds)
{
	struct calib_quiet_in q = quiet_in();
	struct calib_verdict v;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 1);
	ck_assert_int_eq(v.n, 0);
	/* right at each threshold is still quiet; a top process at 1 % is not (below) */
	q.loadavg1 = CALIB_MAX_LOAD_PER_CPU * 2;
	q.cv = CALIB_MAX_CV;
	q.steal_frac = CALIB_MAX_STEAL;
	q.fluid_share = CALIB_MIN_FLUID_SHARE;
	q.top[0].frac = CALIB_MAX_OTHER_PROC * 0.99;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 1);
}
END_TEST

START_TEST(test_judge_each_condition_alone_is_not_quiet)
{
	struct calib_quiet_in q = quiet_in();
	q.loadavg1 = 1.5; /* > 0.5 per CPU on 2 CPUs */
	assert_one_reason(&q, "1.50");

	q = quiet_in();
	q.ncpus_online = 4;
	q.loadavg1 = 1.5; /* the same load on 4 CPUs is fine */
	struct calib_verdict v;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 1);

	q = quiet_in();
	q.top[1].frac = CALIB_MAX_OTHER_PROC; /* at 1 % of a CPU */
	assert_one_reason(&q, "'kworker/1:0' (pid 12) used 1.0%");
	q.top[1].frac = 0.25;
	assert_one_reason(&q, "25.0%");

	q = quiet_in();
	q.steal_frac = 0.012;
	assert_one_reason(&q, "1.20%");
	assert_one_reason(&q, "CPU 1");

	q = quiet_in();
	q.fluid_share = 0.9;
	assert_one_reason(&q, "90.0%");

	q = quiet_in();
	q.cv = 0.035;
	assert_one_reason(&q, "3.50%");
}
END_TEST

START_TEST(test_judge_lists_every_reason)
{
	struct calib_quiet_in q = quiet_in();
	q.loadavg1 = 3;
	q.top[0].frac = 0.5;
	q.top[1].frac = 0.2;
	q.steal_frac = 0.1;
	q.fluid_share = 0.5;
	q.cv = 0.2;
	struct calib_verdict v;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 0);
	ck_assert_int_eq(v.n, 6);
	ck_assert_ptr_nonnull(strstr(v.reason[1], "sshd"));
	ck_assert_ptr_nonnull(strstr(v.reason[2], "kworker/1:0"));
}
END_TEST

START_TEST(test_judge_ignores_nan_inputs)
{
	struct calib_quiet_in q = quiet_in();
	q.loadavg1 = NAN;
	q.cv = NAN;
	q.steal_frac = NAN;
	q.fluid_share = NAN;
	struct calib_verdict v;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 1);
	ck_assert_int_eq(v.n, 0);
	/* and a known value beside them still counts */
	q.cv = 0.05;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.quiet, 0);
	ck_assert_int_eq(v.n, 1);
}
END_TEST

START_TEST(test_verdict_text_formats_quiet_and_reasons)
{
	struct calib_verdict v;
	char buf[1024];
	struct calib_quiet_in q = quiet_in();
	calib_judge(&q, &v);
	calib_verdict_text(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "quiet");

	q.steal_frac = 0.02;
	q.cv = 0.05;
	calib_judge(&q, &v);
	ck_assert_int_eq(v.n, 2);
	calib_verdict_text(&v, buf, sizeof buf);
	char want[1024];
	snprintf(want, sizeof want, "not quiet: %s | %s", v.reason[0], v.reason[1]);
	ck_assert_str_eq(buf, want);

	/* a short buffer truncates, still terminated */
	char small[24];
	calib_verdict_text(&v, small, sizeof small);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	ck_assert_int_eq(strncmp(small, "not quiet: ", 11), 0);
}
END_TEST

/* step 1 from replications: tau_F = T/L each, the undisturbed speed, the gaps, the share */
START_TEST(test_acc_summarizes_replications)
{
	struct calib_acc a = { 0 };
	struct calib_result r;
	const double tau[4] = { 1.00, 1.02, 0.98, 1.00 };
	for (int i = 0; i < 4; i++) {
		struct fluid_report f;
		memset(&f, 0, sizeof f);
		f.loops = 100000000;
		f.chunk_loops = 1000;
		f.start_ns = 0;
		f.end_ns = (uint64_t)(1e8 * tau[i]);
		f.cpu_ns = f.end_ns - 1000000; /* 1 ms to something else */
		f.ok_n = 90000;
		f.ok_ns = 90000000 * 0.95; /* undisturbed 0.95 ns a loop */
		f.gap_n = 100;
		f.max_chunk_ns = 20000 + 1000 * (uint64_t)i;
		ck_assert_int_eq(calib_acc_add(&a, &f), 0);
	}
	calib_acc_result(&a, 0.002, &r);
	ck_assert_uint_eq(r.tau.n, 4);
	ck_assert_double_eq_tol(r.tau.mean, 1.0, 1e-9);
	ck_assert_double_eq_tol(r.tau0.mean, 0.95, 1e-9);
	/* the excess over 0.95 a loop: 5 % of 100 ms per replication, over 100 gaps each */
	ck_assert_double_eq_tol(r.gap_frac, 0.05 / 1.0, 1e-3);
	ck_assert_double_eq_tol(r.gap_rate_per_s, 400 / 0.4, 1e-6);
	ck_assert_double_eq_tol(r.gap_mean_us, 0.05 * 4e8 / 400 / 1e3, 1e-6);
	ck_assert_double_eq_tol(r.longest_gap_us, 23, 1e-9);
	ck_assert_double_eq_tol(r.fluid_share, 0.99, 1e-3);
	/* fewer than 2 * CALIB_BATCHES replications: the t interval */
	ck_assert_double_eq(r.batches.serial, 1);
	ck_assert(isnan(r.batches.ratio));
	ck_assert_double_eq_tol(r.tau.ci_half, stats_ci_half(r.tau.sd, 4, 0.95), 1e-12);
	ck_assert_double_eq(r.needed_reps, calib_reps_needed(r.tau.cv, 4, 0.002));
	calib_acc_free(&a);
	ck_assert_ptr_null(a.tau);
}
END_TEST

/*
 * A step in the middle of 20 replications: 5 batches of 4, whose means are
 * 1, 1, 1.05, 1.1, 1.1 (sd 0.05 by hand), where the t interval takes the 20
 * as independent (deviations of 0.05 each: variance 20 0.0025 / 19). The
 * batches' variance ratio is 4 0.0025 over the mean square within them,
 * 4 0.0025 / 15 (only the middle batch, 1 1 1.1 1.1, varies): 15, far
 * beyond F(4, 15)'s 1 % point of 4.89: spells.
 */
START_TEST(test_tau_summary_counts_neighbours)
{
	double tau[20];
	for (int i = 0; i < 20; i++)
		tau[i] = i < 10 ? 1 : 1.1;
	struct stats_summary t;
	struct calib_batches b;
	calib_tau_summary(tau, 20, 0.95, &t, &b);
	ck_assert_double_eq_tol(t.mean, 1.05, 1e-12);
	ck_assert_double_eq_tol(t.sd, sqrt(20 * 0.0025 / 19), 1e-12);
	double want = stats_ci_half(0.05, 5, 0.95);
	ck_assert_double_eq_tol(t.ci_half, want, 1e-12);
	ck_assert_double_eq_tol(b.serial, want / stats_ci_half(t.sd, 20, 0.95), 1e-12);
	ck_assert_double_eq_tol(b.ratio, 15, 1e-9);
	ck_assert_double_eq_tol(b.p, stats_f_sf(15, 4, 15), 1e-12);
	ck_assert_double_lt(b.p, STATS_SPELLS_P);
	/* alternating: the batch means agree, and the t interval stands */
	double alt[10];
	for (int i = 0; i < 10; i++)
		alt[i] = i % 2;
	calib_tau_summary(alt, 10, 0.95, &t, &b);
	ck_assert_double_eq(b.serial, 1);
	ck_assert_double_eq_tol(t.ci_half, stats_ci_half(t.sd, 10, 0.95), 1e-12);
	ck_assert_double_eq_tol(b.ratio, 0, 1e-12);
	ck_assert_double_eq(b.p, 1);
	/* 9 replications: the t interval, nothing about batches */
	calib_tau_summary(tau + 6, 9, 0.95, &t, &b);
	ck_assert_double_eq(b.serial, 1);
	ck_assert(isnan(b.ratio) && isnan(b.p));
	ck_assert_double_eq_tol(t.ci_half, stats_ci_half(t.sd, 9, 0.95), 1e-12);
	/* no spread at 10: nothing to widen; one replication: no interval */
	calib_tau_summary(tau, 10, 0.95, &t, &b);
	ck_assert_double_eq(b.serial, 1);
	ck_assert_double_eq(t.ci_half, 0);
	ck_assert(isnan(b.ratio));
	calib_tau_summary(tau, 1, 0.95, &t, &b);
	ck_assert_double_eq(b.serial, 1);
	ck_assert(isnan(t.ci_half));
}
END_TEST

/* n = ceil((t cv / target)^2): CV 1 % to +-0.2 % with t(0.975, 19) = 2.093: 110 */
START_TEST(test_reps_needed)
{
	ck_assert_double_eq(calib_reps_needed(0.01, 20, 0.002), ceil(pow(2.093024 * 0.01 / 0.002, 2)));
	ck_assert_double_eq(calib_reps_needed(0.01, 20, 0.002), 110);
	ck_assert_double_eq(calib_reps_needed(0, 20, 0.002), 0);
}
END_TEST

START_TEST(test_steal_frac_and_others)
{
	struct procfs_stat s0, s1;
	memset(&s0, 0, sizeof s0);
	memset(&s1, 0, sizeof s1);
	s0.n = s1.n = 1;
	s1.cpu[0].user = 990;
	s1.cpu[0].steal = 10;
	ck_assert_double_eq_tol(calib_steal_frac(&s0, &s1, 0), 0.01, 1e-12);
	ck_assert(isnan(calib_steal_frac(&s0, &s1, 5)));
	ck_assert(isnan(calib_steal_frac(&s0, &s0, 0)));
	/* two others, one of them new; self (pid 10) and its child left out */
	struct procfs_task t0[] = { { .pid = 20, .cpu_ticks = 100, .start_ticks = 5, .comm = "a" },
				    { .pid = 10, .cpu_ticks = 0, .start_ticks = 1, .comm = "me" } };
	struct procfs_task t1[] = { { .pid = 20, .cpu_ticks = 150, .start_ticks = 5, .comm = "a" },
				    { .pid = 30, .cpu_ticks = 10, .start_ticks = 9, .comm = "b" },
				    { .pid = 10, .cpu_ticks = 500, .start_ticks = 1, .comm = "me" },
				    { .pid = 11, .ppid = 10, .cpu_ticks = 500, .start_ticks = 2, .comm = "kid" } };
	struct calib_quiet_in q;
	memset(&q, 0, sizeof q);
	calib_others(t0, 2, t1, 4, 10, 1.0, 100, &q);
	ck_assert_double_eq_tol(q.others_frac, 0.6, 1e-12);
	ck_assert_int_eq(q.ntop, 2);
	ck_assert_int_eq(q.top[0].pid, 20);
	ck_assert_str_eq(q.top[0].comm, "a");
	ck_assert_double_eq_tol(q.top[1].frac, 0.1, 1e-12);
}
END_TEST

/* ---- calibrate end to end ------------------------------------------------------- */

/*
 * A process of another user may name itself with escape codes; the verdict
 * names the busiest processes. Its name reaches the terminal (and the JSON)
 * with every control character escaped, never raw.
 */
START_TEST(test_calibrate_names_other_processes_safely)
{
	pid_t hog = fork();
	ck_assert_int_ge(hog, 0);
	if (hog == 0) {
		prctl(PR_SET_NAME, "\x1b]0;owned\x07", 0, 0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(0, sizeof one, &one);
		/* about a third of CPU 0: the verdict names it, the fluid still gets the rest */
		for (;;) {
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			do
				clock_gettime(CLOCK_MONOTONIC, &b);
			while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 3000000);
			usleep(6000);
		}
	}
	static char out[1 << 16], err[1 << 14];
	char *argv[] = { (char *)tu_bin("displace"), "calibrate", "--cpus", "0", "--seconds", "0.2", "--reps", "2",
			 "--no-save", "--quiet", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	char *argj[] = { (char *)tu_bin("displace"), "calibrate", "--cpus", "0", "--seconds", "0.2", "--reps", "2",
			 "--no-save", "--quiet", "--json", NULL };
	static char json[1 << 16];
	int stj = tu_run(argj, json, sizeof json, NULL, 0);
	kill(hog, SIGKILL);
	tu_wait(hog);
	ck_assert_msg(st == 0 && stj == 0, "exit %d, %d: %s", st, stj, err);
	ck_assert_msg(strstr(out, "\\x1b]0;owned\\x07"), "the hog is not named: %s", out);
	ck_assert_ptr_null(strchr(out, '\x1b'));
	ck_assert_ptr_null(strchr(out, '\x07'));
	ck_assert_msg(strstr(json, "\\\\x1b]0;owned\\\\x07"), "%s", json);
	ck_assert_ptr_null(strstr(json, "\\u001b"));
}
END_TEST

Suite *calibration_suite(void)
{
	Suite *s = suite_create("calibration");
	TCase *tc = tcase_create("store");
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_store_round_trip_keeps_every_field);
	tcase_add_test(tc, test_store_put_replaces_same_key_and_appends_others);
	tcase_add_test(tc, test_store_missing_file_is_empty);
	tcase_add_test(tc, test_store_unreadable_path_gives_errno);
	tcase_add_test(tc, test_store_empty_file_is_empty_store);
	tcase_add_test(tc, test_store_reports_wrong_header);
	tcase_add_test(tc, test_store_reports_line_of_short_row);
	tcase_add_test(tc, test_store_reports_non_numeric_tau);
	tcase_add_test(tc, test_store_reports_negative_cpu);
	tcase_add_test(tc, test_store_reports_start_line_of_unterminated_quote);
	tcase_add_test(tc, test_store_rejects_stray_quote_in_unquoted_field);
	tcase_add_test(tc, test_store_rejects_nul_byte);
	tcase_add_test(tc, test_store_save_is_atomic_and_replaces_old_file);
	tcase_add_test(tc, test_store_refuses_values_it_could_not_write_back);
	tcase_add_test(tc, test_store_save_checks_rows_as_load_does);
	tcase_add_test(tc, test_store_round_trips_extreme_values_exactly);
	tcase_add_test(tc, test_store_load_is_linear_in_rows);
	tcase_add_test(tc, test_store_save_makes_directories_only_when_asked);
	tcase_add_test(tc, test_store_says_nul_byte);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("env");
	tcase_add_checked_fixture(te, save_env, restore_env);
	tcase_add_test(te, test_store_default_path_prefers_xdg_then_home);
	suite_add_tcase(s, te);
	TCase *tj = tcase_create("verdict");
	tcase_add_test(tj, test_judge_quiet_under_thresholds);
	tcase_add_test(tj, test_judge_each_condition_alone_is_not_quiet);
	tcase_add_test(tj, test_judge_lists_every_reason);
	tcase_add_test(tj, test_judge_ignores_nan_inputs);
	tcase_add_test(tj, test_verdict_text_formats_quiet_and_reasons);
	tcase_add_test(tj, test_acc_summarizes_replications);
	tcase_add_test(tj, test_tau_summary_counts_neighbours);
	tcase_add_test(tj, test_reps_needed);
	tcase_add_test(tj, test_steal_frac_and_others);
	suite_add_tcase(s, tj);
	TCase *tx = tcase_create("e2e");
	tcase_set_timeout(tx, 60);
	tcase_add_test(tx, test_calibrate_names_other_processes_safely);
	suite_add_tcase(s, tx);
	return s;
}
