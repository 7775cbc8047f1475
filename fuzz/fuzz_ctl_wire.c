/*
 * fuzz_ctl_wire.c - libFuzzer harness for the control exchange of the
 * peer's fluids (put/ctl_wire.c): every byte of a control connection goes
 * through ctl_reader_feed, and every whole frame through ctl_req_parse,
 * before the peer acts on it.
 *
 * Build and run: make fuzz-ctl-wire (see the Makefile). Self-contained: it
 * links put/ctl_wire.c and common/cli.c only.
 *
 * The input is a byte stream, fed twice: whole, and one byte at a time.
 * The invariants: the reader never takes more than it is given, a whole
 * frame's body is NUL-terminated printable ASCII within the limit, a
 * request that parses names 1 to CTL_MAX_CPUS CPUs and values in range and
 * formats back to a body that parses to the same request, and both
 * feedings see the same frames (how the bytes are split must not matter).
 */
#include "put/ctl_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(x)                  \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static struct ctl_reader rd;

/* one whole frame: checked as the peer checks it; a hash of what it was */
static uint64_t frame(void)
{
	struct ctl_req q, back;
	char why[256], body[CTL_MAX_REQUEST];
	MUST(rd.len <= rd.max_body && strlen(rd.body) == rd.len);
	for (uint32_t i = 0; i < rd.len; i++)
		MUST(rd.body[i] >= 0x20 && rd.body[i] <= 0x7e);
	uint64_t h = rd.type * 1000003u + rd.len;
	if (ctl_req_parse(rd.type, rd.body, &q, why, sizeof why) == 0) {
		MUST(q.type == CTL_STOP || (q.cpus.n >= 1 && q.cpus.n <= CTL_MAX_CPUS && q.chunk_loops >= 1));
		MUST(q.type != CTL_CAL || (q.run_ns >= CTL_MIN_RUN_NS && q.run_ns <= CTL_MAX_CAL_NS));
		MUST(q.type != CTL_START || (q.max_ns >= CTL_MIN_MAX_NS && q.max_ns <= CTL_MAX_MAX_NS));
		MUST(ctl_req_format(&q, body, sizeof body) == 0);
		MUST(ctl_req_parse(q.type, body, &back, why, sizeof why) == 0);
		MUST(back.cpus.n == q.cpus.n && back.run_ns == q.run_ns && back.max_ns == q.max_ns &&
		     back.chunk_loops == q.chunk_loops && !strcmp(back.sched, q.sched));
		h = h * 31 + 1;
	}
	return h;
}

/* feed data in pieces of step (0: whole); a hash of the frames seen, and whether it ended in an error */
static uint64_t run(const uint8_t *data, size_t size, size_t step, int *failed)
{
	uint64_t h = 0;
	*failed = 0;
	ctl_reader_init(&rd, CTL_MAX_REQUEST);
	for (size_t off = 0; off < size;) {
		size_t k = step && size - off > step ? step : size - off;
		while (k) {
			size_t used = 0;
			const char *why = NULL;
			int rc = ctl_reader_feed(&rd, data + off, k, &used, &why);
			MUST(used <= k);
			if (rc < 0) {
				MUST(why && *why);
				*failed = 1;
				return h;
			}
			off += used;
			k -= used;
			if (rc == 1)
				h = h * 1000033u + frame();
			else
				MUST(k == 0);
		}
	}
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int f1, f2;
	uint64_t a = run(data, size, 0, &f1), b = run(data, size, 1, &f2);
	MUST(a == b && f1 == f2);
	return 0;
}
