/*
 * rpc_wire.h - the peer's side of ONC RPC over a stream, pure: record
 * marking, the call header and DISPLACE_SINK's argument are read as
 * bytes arrive, in any pieces, and never held; replies are encoded into
 * a small buffer. RFC 5531 (ONC RPC version 2): section 9 the messages,
 * section 11 record marking; the program is put/displace_rpc.x.
 *
 * Why not libtirpc's svc_vc: it reads a record with blocking reads (35 s
 * each), so one client holding half a record stalls every other; its
 * non-blocking mode holds each record whole (16 MiB per connection) and
 * spins up to 2 s on a client that does not read; and at the fd limit its
 * accept loop spins. Parsed here, a call costs a few dozen bytes of state
 * and the peer's event loop serves RPC like its other streams.
 */
#ifndef RPC_WIRE_H
#define RPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* a record no call of ours can need: the header with two 400-byte auths, and 16 MiB */
#define RPC_WIRE_MAX_RECORD_BYTES ((16u << 20) + 2048u)
#define RPC_WIRE_REPLY_MAX_BYTES 40 /* record mark included */

/* What a whole record asked for: the reply it gets. */
enum rpc_wire_outcome {
	RPC_WIRE_VOID,          /* NULLPROC: success, no result */
	RPC_WIRE_COUNT,         /* DISPLACE_SINK: success, the byte count */
	RPC_WIRE_PROG_UNAVAIL,  /* another program */
	RPC_WIRE_PROG_MISMATCH, /* another version of ours */
	RPC_WIRE_PROC_UNAVAIL,  /* another procedure */
	RPC_WIRE_GARBAGE_ARGS,  /* DISPLACE_SINK's argument does not decode */
	RPC_WIRE_RPC_MISMATCH,  /* not RPC version 2 */
	RPC_WIRE_AUTH_REJECTED, /* a credential flavour other than none or sys */
};

struct rpc_wire_call {
	uint32_t xid;
	enum rpc_wire_outcome outcome;
	uint32_t count; /* RPC_WIRE_COUNT: the argument's length */
};

/* The parser's state: zero it (or rpc_wire_init) before the first byte. */
struct rpc_wire {
	uint8_t mark[4];
	unsigned mark_got;  /* bytes of the fragment header so far */
	uint32_t frag_left; /* bytes left in the current fragment */
	int last_frag;      /* the current fragment ends the record */
	uint64_t rec_bytes; /* bytes of the record so far, fragment headers excluded */
	unsigned field;     /* which field of the call comes next */
	uint8_t word[4];
	unsigned word_got;
	uint32_t skip;      /* bytes to pass over: an auth body or the argument, with padding */
	uint32_t xid, mtype, rpcvers, prog, vers, proc, flavor, arg_len;
	int header_done;    /* the call header was read whole */
	int arg_done;       /* DISPLACE_SINK's argument was read whole */
};

/* rpc_wire_init - ready for the first record */
void rpc_wire_init(struct rpc_wire *w);
/* rpc_wire_in_record - part of a record came and the rest has not */
int rpc_wire_in_record(const struct rpc_wire *w);
/*
 * rpc_wire_feed - take bytes up to the end of the next record. *used is
 * the bytes taken. 1: a record ended and call says what it asked for
 * (feed the rest after replying); 0: all n bytes were taken, no record
 * ended; -EPROTO: the stream is not ONC RPC calls that the peer can take
 * (close it), with the reason in *why.
 */
int rpc_wire_feed(struct rpc_wire *w, const uint8_t *p, size_t n, size_t *used, struct rpc_wire_call *call,
		  const char **why);
/* rpc_wire_reply - the reply to call, with its record mark, in out; its length */
size_t rpc_wire_reply(const struct rpc_wire_call *call, uint8_t out[RPC_WIRE_REPLY_MAX_BYTES]);

#endif
