/*
 * fuzz_switchlog.c - libFuzzer harness for the scheduler-trace account
 * (calib/switchlog.c): the text tracefs gives under --trace-others. The
 * kernel writes it, but every task names itself (its comm, up to 15 bytes
 * of anything but a NUL), and comms are in every switch and fork line.
 *
 * The input is lines, fed one by one; then windows whose bounds come from
 * the input are asked for. The invariants: no line crashes the log, every
 * time it gives is finite and not negative, and forgetting the stretches
 * before a window's start does not change that window's time.
 */
#include "calib/switchlog.h"
#include "fuzz/fuzz.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MUST(x)                \
	do {                   \
		if (!(x))      \
			abort(); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct swl l;
	if (swl_init(&l, 100)) {
		free(text);
		return 0;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		int cpu;
		uint64_t t;
		const char *ev, *f;
		if (swl_parse_line(line, &cpu, &t, &ev, &f) == 0) {
			MUST(cpu >= 0 && ev >= line && f >= ev);
			if (t < lo)
				lo = t;
			if (t > hi)
				hi = t;
		}
		int rc = swl_feed(&l, line);
		MUST(rc == 0 || rc == -EBADMSG || rc == -ENOMEM);
	}
	if (lo <= hi) {
		for (int cpu = 0; cpu < 4; cpu++) {
			for (int cls = SWL_OTHER; cls <= SWL_UNKNOWN; cls++) {
				double a = swl_time_ns(&l, cpu, cls, lo, hi + 1);
				MUST(isfinite(a) && a >= 0);
			}
		}
		uint64_t mid = lo + (hi - lo) / 2;
		double before = swl_time_ns(&l, 0, SWL_OTHER, mid, hi + 1);
		swl_forget_before(&l, mid);
		MUST(swl_time_ns(&l, 0, SWL_OTHER, mid, hi + 1) == before);
	}
	swl_free(&l);
	free(text);
	return 0;
}
