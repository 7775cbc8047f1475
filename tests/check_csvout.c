/* check_csvout.c - the result CSV files (coordinator/csvout.c): appended safely, row after row */
#include "coordinator/csvout.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HDR "kind,size_bytes,tau_us"

START_TEST(test_csvout_ends_a_last_row_cut_short)
{
	/* a file whose last row lost its line end (a full disk, a kill during a write, an editor) */
	const char *path = tu_scratch_path("cut.csv");
	const char *t = HDR "\nrun,1000,5.1\nrun,2000,6";
	ck_assert_int_eq(tu_write_file(path, t, strlen(t)), 0);
	struct csvout c;
	ck_assert_int_eq(csvout_open(&c, path, HDR), 0);
	const char *row[] = { "summary", "3000", "7.5" };
	ck_assert_int_eq(csvout_row(&c, row, 3), 0);
	csvout_close(&c);
	/* the new row did not run into the cut one: four records of three fields */
	struct tu_csv csv;
	unsigned long line;
	ck_assert_int_eq(tu_csv_load(path, &csv, &line), 0);
	ck_assert_uint_eq(csv.nrows, 4);
	for (size_t i = 0; i < csv.nrows; i++)
		ck_assert_uint_eq(csv.nfields[i], 3);
	ck_assert_str_eq(tu_csv_get(&csv, 2, "tau_us"), "6");
	ck_assert_str_eq(tu_csv_get(&csv, 3, "kind"), "summary");
	tu_csv_free(&csv);
	/* a whole file is left alone: no blank line added */
	ck_assert_int_eq(csvout_open(&c, path, HDR), 0);
	csvout_close(&c);
	char buf[256];
	tu_read_file(path, buf, sizeof buf);
	ck_assert_str_eq(buf, HDR "\nrun,1000,5.1\nrun,2000,6\nsummary,3000,7.5\n");
}
END_TEST

START_TEST(test_csvout_new_file_gets_header_and_other_header_is_refused)
{
	const char *path = tu_scratch_path("new.csv");
	struct csvout c;
	ck_assert_int_eq(csvout_open(&c, path, HDR), 0);
	csvout_close(&c);
	char buf[256];
	tu_read_file(path, buf, sizeof buf);
	ck_assert_str_eq(buf, HDR "\n");
	ck_assert_int_eq(csvout_open(&c, path, "another,header"), -EEXIST);
	ck_assert_ptr_null(c.f);
}
END_TEST

START_TEST(test_csvout_refuses_a_planted_symlink)
{
	const char *victim = tu_scratch_path("shadow"), *link = tu_scratch_path("results.csv");
	ck_assert_int_eq(tu_write_file(victim, "root:x:0:0\n", 11), 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	struct csvout c;
	ck_assert_int_eq(csvout_open(&c, link, HDR), -ELOOP);
	char buf[64];
	tu_read_file(victim, buf, sizeof buf);
	ck_assert_str_eq(buf, "root:x:0:0\n");
}
END_TEST

Suite *csvout_suite(void)
{
	Suite *s = suite_create("csvout");
	TCase *tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_csvout_ends_a_last_row_cut_short);
	tcase_add_test(tc, test_csvout_new_file_gets_header_and_other_header_is_refused);
	tcase_add_test(tc, test_csvout_refuses_a_planted_symlink);
	suite_add_tcase(s, tc);
	return s;
}
