/* check_ticksfile.c - the tick-count CSV (calib/ticksfile.c): parsed as before, in bounded memory */
#include "calib/csvio.h"
#include "calib/ticksfile.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int read_text(const char *name, const char *text, size_t len, struct ticksfile *tf, unsigned long *line)
{
	ck_assert_int_eq(tu_write_file(tu_scratch_path(name), text, len), 0);
	return ticksfile_read(tu_scratch_path(name), tf, line);
}

START_TEST(test_ticksfile_reads_columns_in_order)
{
	struct ticksfile tf;
	unsigned long line;
	const char *t = "\xEF\xBB\xBFsend, recv\n0,1\n 1 ,0\n\n2,3\n";
	ck_assert_int_eq(read_text("ok.csv", t, strlen(t), &tf, &line), 0);
	ck_assert_uint_eq(tf.ncol, 2);
	ck_assert_uint_eq(tf.nrows, 3);
	ck_assert_str_eq(tf.name[0], "send");
	ck_assert_str_eq(tf.name[1], "recv"); /* libcsv trims the blank */
	ck_assert_int_eq(tf.header_numeric, 0);
	uint64_t c[3];
	ticksfile_column(&tf, 0, c);
	ck_assert(c[0] == 0 && c[1] == 1 && c[2] == 2);
	ticksfile_column(&tf, 1, c);
	ck_assert(c[0] == 1 && c[1] == 0 && c[2] == 3);
	ticksfile_free(&tf);
	t = "1,2\n3,4\n";
	ck_assert_int_eq(read_text("num.csv", t, strlen(t), &tf, &line), 0);
	ck_assert_int_eq(tf.header_numeric, 1);
	ticksfile_free(&tf);
}
END_TEST

START_TEST(test_ticksfile_errors_name_the_line_and_why)
{
	struct ticksfile tf;
	unsigned long line;
	const char *t = "a,b\n0,1\n1\n";
	ck_assert_int_eq(read_text("short.csv", t, strlen(t), &tf, &line), -EINVAL);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_eq(tf.err, "1 field, but the header names 2 activities");
	t = "a,b\n0,-1\n";
	ck_assert_int_eq(read_text("neg.csv", t, strlen(t), &tf, &line), -EINVAL);
	ck_assert_str_eq(tf.err, "not a tick count: '-1'");
	t = "a,,b\n";
	ck_assert_int_eq(read_text("noname.csv", t, strlen(t), &tf, &line), -EINVAL);
	ck_assert_str_eq(tf.err, "activity 2 has no name in the header row");
	/* a NUL byte is said to be one, not a quote */
	static const char nul[] = "a,b\n0,\0" "1\n";
	ck_assert_int_eq(read_text("nul.csv", nul, sizeof nul - 1, &tf, &line), -EILSEQ);
	ck_assert_uint_eq(line, 2);
	ck_assert_ptr_nonnull(strstr(csvio_syntax_text(-EILSEQ), "NUL"));
	ck_assert_int_eq(ticksfile_read(tu_scratch_path("none.csv"), &tf, &line), -ENOENT);
}
END_TEST

/*
 * The file: 0.9 MB, 100 k columns, a few rows, took 425 MB (8 KB
 * reserved per column). Now 8 bytes a count: the peak RSS of reading it
 * grows by well under 64 MB, sanitizers' overhead included.
 */
START_TEST(test_ticksfile_memory_is_bounded_by_the_file)
{
	const size_t ncol = 100000, nrows = 3;
	size_t cap = ncol * 8 * (nrows + 1) + 16, len = 0;
	char *text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < ncol; i++)
		len += (size_t)snprintf(text + len, cap - len, "%sc%zu", i ? "," : "", i);
	for (size_t r = 0; r < nrows; r++) {
		text[len++] = '\n';
		for (size_t i = 0; i < ncol; i++)
			len += (size_t)snprintf(text + len, cap - len, "%s%zu", i ? "," : "", (i + r) % 2);
	}
	text[len++] = '\n';
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	struct ticksfile tf;
	unsigned long line;
	ck_assert_int_eq(read_text("wide.csv", text, len, &tf, &line), 0);
	getrusage(RUSAGE_SELF, &after);
	free(text);
	ck_assert_uint_eq(tf.ncol, ncol);
	ck_assert_uint_eq(tf.nrows, nrows);
	/* the counts take twice their size at most (the array doubles) */
	ck_assert_uint_le(tf.cap, 2 * ncol * nrows);
	long grew_kb = after.ru_maxrss - before.ru_maxrss;
	ck_assert_msg(grew_kb < 64 * 1024, "reading %zu columns grew the peak RSS by %ld KB", ncol, grew_kb);
	ticksfile_free(&tf);
}
END_TEST

Suite *ticksfile_suite(void)
{
	Suite *s = suite_create("ticksfile");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 30);
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_ticksfile_reads_columns_in_order);
	tcase_add_test(tc, test_ticksfile_errors_name_the_line_and_why);
	tcase_add_test(tc, test_ticksfile_memory_is_bounded_by_the_file);
	suite_add_tcase(s, tc);
	return s;
}
