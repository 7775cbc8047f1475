/* check_plot.c - the plot files (coordinator/plot.c): no command from a path, no write through a symlink */
#include "coordinator/plot.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const double x[] = { 1000, 2000 }, y[] = { 5, 6 }, e[] = { 0.5, 0.25 };

static int plot(const char *path, const char *title, char *hint, size_t len)
{
	struct plot_series s[] = { { "displacement (95% CI)", x, y, e, 2, NULL }, { "getrusage", x, y, NULL, 2, NULL } };
	return plot_write(path, title, "size", "µs", s, 2, hint, len);
}

/* the issue's attack: --plot $'a\nsystem "touch PWNED"\n#.svg' ran the command */
START_TEST(test_plot_path_with_newline_runs_nothing)
{
	char dir[300], path[1200], hint[512], pwned[400];
	snprintf(dir, sizeof dir, "%s", tu_scratch_path("inject"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
	snprintf(path, sizeof path, "%s/a\nsystem \"touch %s\"\n#.svg", dir, pwned);
	ck_assert_int_eq(plot_check_path(path), -EINVAL);
	ck_assert_int_eq(plot(path, "t", hint, sizeof hint), -EINVAL);
	ck_assert_int_eq(access(pwned, F_OK), -1);
	/* nor from a title */
	snprintf(path, sizeof path, "%s/ok.svg", dir);
	char title[800];
	snprintf(title, sizeof title, "t'\nsystem \"touch %s\"\n#", pwned);
	ck_assert_int_eq(plot(path, title, hint, sizeof hint), -EINVAL);
	ck_assert_int_eq(access(pwned, F_OK), -1);
	ck_assert_int_eq(plot_check_path(""), -EINVAL);
}
END_TEST

/* quotes and backquotes are text in the script: a single-quoted gnuplot string expands nothing */
START_TEST(test_plot_quotes_every_string_in_the_script)
{
	char dir[300], path[700], gp[700], hint[512], pwned[400], script[4096];
	snprintf(dir, sizeof dir, "%s", tu_scratch_path("quotes"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(chdir(dir), 0);
	snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
	snprintf(path, sizeof path, "%s/it's `touch PWNED` @x.svg", dir);
	snprintf(gp, sizeof gp, "%s/it's `touch PWNED` @x.gp", dir);
	int rc = plot(path, "o'k `touch PWNED`", hint, sizeof hint);
	ck_assert_msg(rc == 0 || rc == 1, "plot_write: %d (%s)", rc, hint);
	ck_assert_int_gt(tu_read_file(gp, script, sizeof script), 0);
	ck_assert_ptr_nonnull(strstr(script, "set title 'o''k `touch PWNED`'\n"));
	ck_assert_ptr_nonnull(strstr(script, "/it''s `touch PWNED` @x.dat' index 0"));
	/* the SVG goes to stdout: the script names no file to write */
	ck_assert_ptr_null(strstr(script, "set output"));
	if (rc == 0) {
		char svg[256];
		ck_assert_int_gt(tu_read_file(path, svg, sizeof svg), 0);
		ck_assert_ptr_nonnull(strstr(svg, "<svg"));
	}
	ck_assert_int_eq(access(pwned, F_OK), -1);
}
END_TEST

/*
 * A source with no value (the task-clock without --task-clock) is in
 * neither the data nor the plot command. gnuplot counts no block of
 * comments alone, so its empty block moved every later source onto the
 * previous title, and the last index found no data
 */
START_TEST(test_plot_leaves_out_a_series_with_no_point)
{
	static const double none[] = { NAN, NAN };
	char dir[300], path[400], gp[400], hint[512], script[4096];
	snprintf(dir, sizeof dir, "%s", tu_scratch_path("empty"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof path, "%s/p.svg", dir);
	snprintf(gp, sizeof gp, "%s/p.gp", dir);
	struct plot_series s[] = { { "displacement", x, y, e, 2, NULL },
				   { "task-clock", x, none, none, 2, NULL },
				   { "getrusage", x, y, NULL, 2, NULL } };
	int rc = plot_write(path, "t", "size", "µs", s, 3, hint, sizeof hint);
	ck_assert_msg(rc == 0 || rc == 1, "plot_write: %d (%s)", rc, hint);
	ck_assert_int_gt(tu_read_file(gp, script, sizeof script), 0);
	ck_assert_ptr_nonnull(strstr(script, "index 0 "));
	ck_assert_ptr_nonnull(strstr(script, "index 1 "));
	ck_assert_ptr_null(strstr(script, "index 2 "));
	ck_assert_ptr_null(strstr(script, "'task-clock'"));
	/* getrusage is the second block of the data and index 1 of the script */
	ck_assert_ptr_nonnull(strstr(script, "index 1 using ($1+"));
	char dat[400], data[1024];
	snprintf(dat, sizeof dat, "%s/p.dat", dir);
	ck_assert_int_gt(tu_read_file(dat, data, sizeof data), 0);
	ck_assert_ptr_null(strstr(data, "task-clock"));
	char *second = strstr(data, "\n\n\n# getrusage\n");
	ck_assert_ptr_nonnull(second);
	/* no series with a value: nothing to draw, and nothing written */
	struct plot_series empty[] = { { "task-clock", x, none, none, 2, NULL } };
	snprintf(path, sizeof path, "%s/q.svg", dir);
	ck_assert_int_eq(plot_write(path, "t", "size", "µs", empty, 1, hint, sizeof hint), -ENODATA);
	ck_assert_ptr_nonnull(strstr(hint, "nothing to plot"));
	snprintf(gp, sizeof gp, "%s/q.gp", dir);
	ck_assert_int_eq(access(gp, F_OK), -1);
}
END_TEST

START_TEST(test_plot_never_writes_through_a_symlink)
{
	char dir[300], path[400], dat[400], victim[400], hint[512];
	snprintf(dir, sizeof dir, "%s", tu_scratch_path("links"));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	snprintf(path, sizeof path, "%s/p.svg", dir);
	snprintf(dat, sizeof dat, "%s/p.dat", dir);
	ck_assert_int_eq(tu_write_file(victim, "keep\n", 5), 0);
	ck_assert_int_eq(symlink(victim, dat), 0);
	ck_assert_int_eq(plot_check_path(path), -ELOOP);
	ck_assert_int_eq(plot(path, "t", hint, sizeof hint), -ELOOP);
	char buf[16];
	tu_read_file(victim, buf, sizeof buf);
	ck_assert_str_eq(buf, "keep\n");
	/* the SVG itself too, whoever writes it */
	ck_assert_int_eq(unlink(dat), 0);
	ck_assert_int_eq(symlink(victim, path), 0);
	ck_assert_int_eq(plot_check_path(path), -ELOOP);
	ck_assert_int_eq(plot(path, "t", hint, sizeof hint), -ELOOP);
	ck_assert_int_eq(access(dat, F_OK), -1);
	tu_read_file(victim, buf, sizeof buf);
	ck_assert_str_eq(buf, "keep\n");
}
END_TEST

Suite *plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 30);
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_plot_path_with_newline_runs_nothing);
	tcase_add_test(tc, test_plot_quotes_every_string_in_the_script);
	tcase_add_test(tc, test_plot_leaves_out_a_series_with_no_point);
	tcase_add_test(tc, test_plot_never_writes_through_a_symlink);
	suite_add_tcase(s, tc);
	return s;
}
