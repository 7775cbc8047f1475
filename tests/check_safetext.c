/* check_safetext.c - text from outside made safe to print (common/safetext.c) */
#include "common/safetext.h"
#include "tests/suites.h"

#include <string.h>

START_TEST(test_safetext_escapes_terminal_controls)
{
	char buf[256];
	/* an escape sequence that retitles the terminal, as a process name */
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "\x1b]0;pwned\x07kworker"), "\\x1b]0;pwned\\x07kworker");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\\x09d\\x7f");
	/* C1 controls in UTF-8 (U+009B is CSI on some terminals) */
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "x\xc2\x9b" "31m"), "x\\xc2\\x9b31m");
	ck_assert_int_eq(safetext_printable("plain text"), 1);
	ck_assert_int_eq(safetext_printable("a\nb"), 0);
	ck_assert_int_eq(safetext_printable("\x1b"), 0);
}
END_TEST

START_TEST(test_safetext_keeps_utf8_and_escapes_invalid_bytes)
{
	char buf[256];
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "µs ± 2 — ok"), "µs ± 2 — ok");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "😀"), "😀");
	/* a lone continuation byte, an overlong '/', a surrogate, a truncated sequence */
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "a\x80" "b"), "a\\x80b");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "\xc0\xaf"), "\\xc0\\xaf");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "\xed\xa0\x80"), "\\xed\\xa0\\x80");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "\xe2\x82"), "\\xe2\\x82");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}
END_TEST

START_TEST(test_safetext_truncates_whole_characters)
{
	char buf[6];
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "abcdefgh"), "abcde");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "a\x1b"), "a\\x1b");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "ab\x1b"), "ab");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "abcµ"), "abcµ");
	ck_assert_str_eq(safetext_copy(buf, sizeof buf, "abcdµ"), "abcd");
	char one[1] = { 'x' };
	ck_assert_str_eq(safetext_copy(one, 1, "abc"), "");
}
END_TEST

Suite *safetext_suite(void)
{
	Suite *s = suite_create("safetext");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_safetext_escapes_terminal_controls);
	tcase_add_test(tc, test_safetext_keeps_utf8_and_escapes_invalid_bytes);
	tcase_add_test(tc, test_safetext_truncates_whole_characters);
	suite_add_tcase(s, tc);
	return s;
}
