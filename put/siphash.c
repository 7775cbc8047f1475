/* siphash.c - SipHash-2-4 (Aumasson and Bernstein 2012), from the paper's description */
#include "put/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
	return x << b | x >> (64 - b);
}

/* little-endian, whatever the host */
static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* one SipRound (the paper's Figure 2.1) */
static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13) ^ v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17) ^ v[2];
	v[2] = rotl(v[2], 32);
}

/* c = 2 rounds per 8-byte word, then d = 4 finalisation rounds */
static void compress(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

uint64_t siphash24(const uint8_t key[SIPHASH_KEY_BYTES], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = get_le64(key), k1 = get_le64(key + 8);
	/* the initialisation constants spell "somepseudorandomlygeneratedbytes" */
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
			  k1 ^ 0x7465646279746573ull };
	size_t whole = len - len % 8;
	for (size_t i = 0; i < whole; i += 8)
		compress(v, get_le64(p + i));
	/* the last word: the remaining bytes, and the length mod 256 in the top byte */
	uint64_t last = (uint64_t)(len & 0xff) << 56;
	for (size_t i = 0; i < len % 8; i++)
		last |= (uint64_t)p[whole + i] << (8 * i);
	compress(v, last);
	v[2] ^= 0xff;
	for (int i = 0; i < 4; i++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}
