/* check_siphash.c - put/siphash.c against the reference vectors of SipHash-2-4 (key 00..0f, message 00..n-1) */
#include "put/siphash.h"
#include "tests/suites.h"

START_TEST(test_siphash24_matches_the_reference_vectors)
{
	/* vectors.h of the reference implementation, read as little-endian 64-bit words */
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ull },  { 1, 0x74f839c593dc67fdull },  { 2, 0x0d6c8009d9a94f5aull },
		{ 7, 0xab0200f58b01d137ull },  { 8, 0x93f5f5799a932462ull },  { 15, 0xa129ca6149be45e5ull },
		{ 16, 0x3f2acc7f57c29bdbull },
	};
	uint8_t key[SIPHASH_KEY_BYTES], msg[64];
	for (int i = 0; i < SIPHASH_KEY_BYTES; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ck_assert_msg(siphash24(key, msg, v[i].len) == v[i].want, "length %zu", v[i].len);
	key[0] ^= 1; /* another key, another hash */
	ck_assert(siphash24(key, msg, 15) != 0xa129ca6149be45e5ull);
}
END_TEST

Suite *siphash_suite(void)
{
	Suite *s = suite_create("siphash");
	TCase *tc = tcase_create("vectors");
	tcase_add_test(tc, test_siphash24_matches_the_reference_vectors);
	suite_add_tcase(s, tc);
	return s;
}
