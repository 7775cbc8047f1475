/*
 * fuzz_rpc_wire.c - libFuzzer harness for the peer's ONC RPC parser
 * (put/rpc_wire.c): every byte a client sends on the rpc port goes
 * through rpc_wire_feed before anything else.
 *
 * Build and run: make fuzz-rpc-wire (see the Makefile). Self-contained:
 * it links put/rpc_wire.c only (rpcgen's header gives the constants).
 *
 * The input is a byte stream, fed twice: whole, and in pieces whose sizes
 * come from the input itself. The invariants: the parser never takes more
 * than it is given, every record ended gets a reply that fits its buffer
 * and carries its own record mark, and both feedings see the same records
 * with the same outcomes (how the bytes are split must not matter).
 */
#include "put/rpc_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CALLS 4096

#define MUST(x)                \
	do {                   \
		if (!(x))      \
			abort(); \
	} while (0)

struct seen {
	struct rpc_wire_call call[MAX_CALLS];
	int n;
	int failed; /* -EPROTO came: the connection would be closed */
};

/* feed data in pieces of step (0: whole); what came out, in *s */
static void run(const uint8_t *data, size_t size, const uint8_t *steps, size_t nsteps, struct seen *s)
{
	struct rpc_wire w;
	rpc_wire_init(&w);
	memset(s, 0, sizeof *s);
	size_t off = 0, k = 0;
	while (off < size) {
		size_t piece = nsteps ? 1 + steps[k++ % nsteps] % 64 : size - off;
		if (piece > size - off)
			piece = size - off;
		while (piece) {
			size_t used = 0;
			struct rpc_wire_call c;
			const char *why = NULL;
			int rc = rpc_wire_feed(&w, data + off, piece, &used, &c, &why);
			MUST(used <= piece);
			off += used;
			piece -= used;
			if (rc < 0) {
				MUST(why != NULL);
				s->failed = 1;
				return;
			}
			if (rc == 0) {
				MUST(piece == 0);
				continue;
			}
			uint8_t r[RPC_WIRE_REPLY_MAX_BYTES];
			size_t len = rpc_wire_reply(&c, r);
			MUST(len >= 24 && len <= sizeof r && len % 4 == 0); /* 24: an auth error, the shortest */
			uint32_t mark = (uint32_t)r[0] << 24 | (uint32_t)r[1] << 16 | (uint32_t)r[2] << 8 | r[3];
			MUST(mark == (0x80000000u | (uint32_t)(len - 4)));
			if (s->n < MAX_CALLS)
				s->call[s->n++] = c;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen whole, pieces;
	size_t nsteps = size < 8 ? size : 8;
	run(data, size, NULL, 0, &whole);
	run(data, size, data, nsteps, &pieces);
	MUST(whole.n == pieces.n && whole.failed == pieces.failed);
	for (int i = 0; i < whole.n; i++)
		MUST(!memcmp(&whole.call[i], &pieces.call[i], sizeof whole.call[i]));
	return 0;
}
