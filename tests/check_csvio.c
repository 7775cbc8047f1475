/* check_csvio.c - the CSV layer (calib/csvio.c): quoting on write, lines and errors on read */
#include "calib/csvio.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 8
struct seen {
	size_t nrows;
	size_t nfields[MAX_SEEN];
	unsigned long line[MAX_SEEN], index[MAX_SEEN];
	char field[MAX_SEEN][16][64];
};

static int collect(const struct csvio_row *row, void *ctx)
{
	struct seen *s = ctx;
	ck_assert_uint_lt(s->nrows, MAX_SEEN);
	size_t k = s->nrows++;
	s->nfields[k] = row->n;
	s->line[k] = row->line;
	s->index[k] = row->index;
	for (size_t i = 0; i < row->n && i < 16; i++)
		snprintf(s->field[k][i], sizeof s->field[k][i], "%s", row->field[i]);
	return 0;
}

START_TEST(test_csvio_quotes_only_fields_that_need_it)
{
	static const char *const fields[] = {
		"plain", "in ner", "a,b", "say \"hi\"", "two\nlines", " lead", "trail ", "", "\tx", "x\t", "cr\r", "1.5",
	};
	const size_t n = sizeof fields / sizeof fields[0];
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(csvio_write_row(m, fields, n), 0);
	fclose(m);
	ck_assert_str_eq(text, "plain,in ner,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" lead\",\"trail \",,\"\tx\","
			       "\"x\t\",\"cr\r\",1.5\n");
	free(text);

	/* and every one of them reads back as written, on the lines it was written */
	const char *path = tu_scratch_path("quote.csv");
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(csvio_write_row(f, fields, n), 0);
	const char *second[] = { "x", NULL };
	ck_assert_int_eq(csvio_write_row(f, second, 2), 0);
	fclose(f);
	static struct seen s;
	unsigned long line;
	ck_assert_int_eq(csvio_read(path, collect, &s, &line), 0);
	ck_assert_uint_eq(s.nrows, 2);
	ck_assert_uint_eq(s.nfields[0], n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(s.field[0][i], fields[i]);
	ck_assert_uint_eq(s.line[0], 1);
	ck_assert_uint_eq(s.line[1], 3); /* after the field with a newline */
	ck_assert_uint_eq(s.nfields[1], 2);
	ck_assert_str_eq(s.field[1][1], ""); /* NULL is written as empty */
}
END_TEST

START_TEST(test_csvio_reports_line_where_record_starts)
{
	/* blank lines are skipped; a record whose first field spans lines starts where the quote opens */
	const char *t = "a,b\n"
			"\n"
			"\"x\n"
			"y\",z\n"
			"c,d";
	ck_assert_int_eq(tu_write_file(tu_scratch_path("lines.csv"), t, strlen(t)), 0);
	static struct seen s;
	unsigned long line;
	ck_assert_int_eq(csvio_read(tu_scratch_path("lines.csv"), collect, &s, &line), 0);
	ck_assert_uint_eq(s.nrows, 3);
	ck_assert_uint_eq(s.line[0], 1);
	ck_assert_uint_eq(s.line[1], 3);
	ck_assert_uint_eq(s.line[2], 5);
	ck_assert_uint_eq(s.index[2], 2);
	ck_assert_str_eq(s.field[1][0], "x\ny");
	ck_assert_str_eq(s.field[2][1], "d"); /* the last record needs no newline */
}
END_TEST

static int stop_at_second(const struct csvio_row *row, void *ctx)
{
	(void)ctx;
	return row->index == 1 ? -ERANGE : 0;
}

START_TEST(test_csvio_callback_error_stops_with_its_line)
{
	const char *t = "h\n\n\"two\nlines\"\nthree\n";
	ck_assert_int_eq(tu_write_file(tu_scratch_path("cb.csv"), t, strlen(t)), 0);
	unsigned long line;
	ck_assert_int_eq(csvio_read(tu_scratch_path("cb.csv"), stop_at_second, NULL, &line), -ERANGE);
	ck_assert_uint_eq(line, 3);
	ck_assert_int_eq(csvio_read(tu_scratch_path("none.csv"), stop_at_second, NULL, &line), -ENOENT);
}
END_TEST

/* a NUL byte was reported as "a stray quote": it is an error of its own, with its line */
START_TEST(test_csvio_says_a_nul_byte_is_one)
{
	static const char t[] = "a,b\n1,2\n3,\0" "4\n";
	ck_assert_int_eq(tu_write_file(tu_scratch_path("nul.csv"), t, sizeof t - 1), 0);
	static struct seen s;
	unsigned long line;
	ck_assert_int_eq(csvio_read(tu_scratch_path("nul.csv"), collect, &s, &line), -EILSEQ);
	ck_assert_uint_eq(line, 3);
	ck_assert_str_eq(csvio_syntax_text(-EILSEQ), "a NUL byte: not a text file");
	ck_assert_ptr_nonnull(strstr(csvio_syntax_text(-EBADMSG), "quote"));
	/* the same from a stream */
	FILE *f = fmemopen((void *)t, sizeof t - 1, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(csvio_read_stream(f, collect, &s, &line), -EILSEQ);
	fclose(f);
}
END_TEST

Suite *csvio_suite(void)
{
	Suite *s = suite_create("csvio");
	TCase *tc = tcase_create("csvio");
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_csvio_quotes_only_fields_that_need_it);
	tcase_add_test(tc, test_csvio_reports_line_where_record_starts);
	tcase_add_test(tc, test_csvio_callback_error_stops_with_its_line);
	tcase_add_test(tc, test_csvio_says_a_nul_byte_is_one);
	suite_add_tcase(s, tc);
	return s;
}
