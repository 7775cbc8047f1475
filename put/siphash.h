/*
 * siphash.h - SipHash-2-4, a keyed 64-bit hash (Aumasson and Bernstein,
 * "SipHash: a fast short-input PRF", 2012). The peer keys it with a
 * random secret, for its udp cookies and for the table of udp sources, so
 * that nobody outside can forge a cookie or aim many sources at one bucket.
 */
#ifndef SIPHASH_H
#define SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_BYTES 16

/* siphash24 - SipHash-2-4 of len bytes under a 16-byte key */
uint64_t siphash24(const uint8_t key[SIPHASH_KEY_BYTES], const void *data, size_t len);

#endif
