/*
 * fuzz.h - what the libFuzzer harnesses in fuzz/ share: the entry point
 * libFuzzer calls, and FUZZ_CHECK for a property the parser must keep
 * (a failed one aborts, and libFuzzer saves the input as a crash).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(c)                                                                             \
	do {                                                                                      \
		if (!(c)) {                                                                       \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #c);  \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

/* fuzz_stream - the input as a stream to read, as a file would be; NULL for an empty input */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size)
{
	return size ? fmemopen((void *)data, size, "r") : NULL;
}

#endif
