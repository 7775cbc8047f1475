/*
 * rpc_wire.c - ONC RPC calls read from a stream as they arrive, and the
 * replies (RFC 5531). Why it is not libtirpc's svc_vc is in rpc_wire.h.
 * The constants are libtirpc's (<rpc/rpc_msg.h>, <rpc/auth.h>) and
 * rpcgen's (displace_rpc.h).
 */
#include "put/rpc_wire.h"

#include "displace_rpc.h"

#include <errno.h>
#include <rpc/rpc.h>
#include <string.h>

/* The fields of a call (RFC 5531 section 9), in order. */
enum field {
	F_XID,
	F_MTYPE,
	F_RPCVERS,
	F_PROG,
	F_VERS,
	F_PROC,
	F_CRED_FLAVOR,
	F_CRED_LEN,
	F_CRED_BODY,
	F_VERF_FLAVOR,
	F_VERF_LEN,
	F_VERF_BODY,
	F_ARG_LEN, /* DISPLACE_SINK's opaque<>: its length, then its bytes */
	F_ARG_BODY,
	F_REST, /* whatever else the record holds is passed over */
};

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

/* an opaque of len bytes is padded with zeros to a multiple of 4 (RFC 4506 section 4.10) */
static uint32_t padded(uint32_t len)
{
	return len + (4 - len % 4) % 4;
}

void rpc_wire_init(struct rpc_wire *w)
{
	memset(w, 0, sizeof *w);
}

int rpc_wire_in_record(const struct rpc_wire *w)
{
	return w->rec_bytes != 0;
}

static int ours(const struct rpc_wire *w)
{
	return w->prog == DISPLACE_PROG && w->vers == DISPLACE_VERS && w->proc == DISPLACE_SINK &&
	       (w->flavor == AUTH_NONE || w->flavor == AUTH_SYS);
}

/* A body of skip bytes comes next, then field next; none at all goes straight on. */
static void body(struct rpc_wire *w, enum field f, uint32_t skip, enum field next)
{
	w->skip = skip;
	w->field = skip ? f : next;
}

/* The field after a body was passed over. */
static void after_body(struct rpc_wire *w)
{
	switch (w->field) {
	case F_CRED_BODY:
		w->field = F_VERF_FLAVOR;
		break;
	case F_VERF_BODY:
		w->header_done = 1;
		w->field = ours(w) ? F_ARG_LEN : F_REST;
		break;
	default: /* F_ARG_BODY */
		w->arg_done = 1;
		w->field = F_REST;
	}
}

static int word(struct rpc_wire *w, uint32_t v, const char **why)
{
	switch (w->field) {
	case F_XID:
		w->xid = v;
		break;
	case F_MTYPE:
		if (v != CALL) {
			*why = "a message that is not an RPC call";
			return -EPROTO;
		}
		break;
	case F_RPCVERS:
		w->rpcvers = v;
		if (v != RPC_MSG_VERSION) {
			w->field = F_REST; /* the rest of the header may be laid out otherwise */
			return 0;
		}
		break;
	case F_PROG:
		w->prog = v;
		break;
	case F_VERS:
		w->vers = v;
		break;
	case F_PROC:
		w->proc = v;
		break;
	case F_CRED_FLAVOR:
		w->flavor = v;
		break;
	case F_CRED_LEN:
	case F_VERF_LEN:
		if (v > MAX_AUTH_BYTES) {
			*why = "an RPC credential or verifier above 400 bytes";
			return -EPROTO;
		}
		if (w->field == F_CRED_LEN)
			body(w, F_CRED_BODY, padded(v), F_VERF_FLAVOR);
		else if (v) {
			body(w, F_VERF_BODY, padded(v), F_REST);
		} else {
			w->field = F_VERF_BODY;
			after_body(w);
		}
		return 0;
	case F_VERF_FLAVOR:
		break;
	case F_ARG_LEN:
		w->arg_len = v;
		if (v > DISPLACE_RPC_MAX_BYTES) {
			w->field = F_REST; /* garbage: the reply says so */
			return 0;
		}
		if (v) {
			body(w, F_ARG_BODY, padded(v), F_REST);
		} else {
			w->arg_done = 1;
			w->field = F_REST;
		}
		return 0;
	}
	w->field++;
	return 0;
}

/* Take up to n bytes of the current fragment into the call; the bytes taken, or -EPROTO. */
static long take(struct rpc_wire *w, const uint8_t *p, size_t n, const char **why)
{
	switch (w->field) {
	case F_CRED_BODY:
	case F_VERF_BODY:
	case F_ARG_BODY: {
		size_t t = n < w->skip ? n : w->skip;
		w->skip -= (uint32_t)t;
		if (!w->skip)
			after_body(w);
		return (long)t;
	}
	case F_REST:
		return (long)n;
	default: {
		size_t t = 4 - w->word_got;
		if (t > n)
			t = n;
		memcpy(w->word + w->word_got, p, t);
		w->word_got += (unsigned)t;
		if (w->word_got < 4)
			return (long)t;
		w->word_got = 0;
		int rc = word(w, get_be32(w->word), why);
		return rc ? rc : (long)t;
	}
	}
}

/* The record ended: what it asked for. */
static int finish(struct rpc_wire *w, struct rpc_wire_call *call, const char **why)
{
	memset(call, 0, sizeof *call);
	call->xid = w->xid;
	if (w->field <= F_RPCVERS) {
		*why = "an RPC record too short for a call";
		return -EPROTO;
	}
	if (w->rpcvers != RPC_MSG_VERSION) {
		call->outcome = RPC_WIRE_RPC_MISMATCH;
		return 1;
	}
	if (!w->header_done) {
		*why = "an RPC record that ends inside the call header";
		return -EPROTO;
	}
	if (w->flavor != AUTH_NONE && w->flavor != AUTH_SYS)
		call->outcome = RPC_WIRE_AUTH_REJECTED;
	else if (w->prog != DISPLACE_PROG)
		call->outcome = RPC_WIRE_PROG_UNAVAIL;
	else if (w->vers != DISPLACE_VERS)
		call->outcome = RPC_WIRE_PROG_MISMATCH;
	else if (w->proc == NULLPROC)
		call->outcome = RPC_WIRE_VOID;
	else if (w->proc != DISPLACE_SINK)
		call->outcome = RPC_WIRE_PROC_UNAVAIL;
	else if (!w->arg_done)
		call->outcome = RPC_WIRE_GARBAGE_ARGS;
	else {
		call->outcome = RPC_WIRE_COUNT;
		call->count = w->arg_len;
	}
	return 1;
}

int rpc_wire_feed(struct rpc_wire *w, const uint8_t *p, size_t n, size_t *used, struct rpc_wire_call *call,
		  const char **why)
{
	size_t i = 0;
	for (;;) {
		if (w->mark_got < 4) {
			/* a fragment header: the last-fragment bit, then 31 bits of length (section 11) */
			if (i == n)
				break;
			w->mark[w->mark_got++] = p[i++];
			w->rec_bytes++;
			if (w->mark_got < 4)
				continue;
			uint32_t m = get_be32(w->mark);
			w->last_frag = (int)(m >> 31);
			w->frag_left = m & 0x7fffffffu;
			/* the fragment headers count too: endless empty fragments are no record either */
			if (w->rec_bytes + w->frag_left > RPC_WIRE_MAX_RECORD_BYTES) {
				*why = "an RPC record above 16 MiB";
				*used = i;
				return -EPROTO;
			}
			continue;
		}
		if (!w->frag_left) {
			if (!w->last_frag) {
				w->mark_got = 0;
				continue;
			}
			int rc = finish(w, call, why);
			rpc_wire_init(w);
			*used = i;
			return rc;
		}
		if (i == n)
			break;
		size_t avail = n - i < w->frag_left ? n - i : w->frag_left;
		long t = take(w, p + i, avail, why);
		if (t < 0) {
			*used = i;
			return (int)t;
		}
		i += (size_t)t;
		w->frag_left -= (uint32_t)t;
		w->rec_bytes += (uint64_t)t;
	}
	*used = i;
	return 0;
}

size_t rpc_wire_reply(const struct rpc_wire_call *call, uint8_t out[RPC_WIRE_REPLY_MAX_BYTES])
{
	uint8_t *p = out + 4; /* the record mark goes first, once the length is known */
	p = put_be32(p, call->xid);
	p = put_be32(p, REPLY);
	switch (call->outcome) {
	case RPC_WIRE_RPC_MISMATCH:
		p = put_be32(p, MSG_DENIED);
		p = put_be32(p, RPC_MISMATCH);
		p = put_be32(p, RPC_MSG_VERSION); /* the lowest and highest we take */
		p = put_be32(p, RPC_MSG_VERSION);
		break;
	case RPC_WIRE_AUTH_REJECTED:
		p = put_be32(p, MSG_DENIED);
		p = put_be32(p, AUTH_ERROR);
		p = put_be32(p, AUTH_REJECTEDCRED);
		break;
	default:
		p = put_be32(p, MSG_ACCEPTED);
		p = put_be32(p, AUTH_NONE); /* the verifier: none, empty */
		p = put_be32(p, 0);
		switch (call->outcome) {
		case RPC_WIRE_VOID:
			p = put_be32(p, SUCCESS);
			break;
		case RPC_WIRE_COUNT:
			p = put_be32(p, SUCCESS);
			p = put_be32(p, call->count);
			break;
		case RPC_WIRE_PROG_UNAVAIL:
			p = put_be32(p, PROG_UNAVAIL);
			break;
		case RPC_WIRE_PROG_MISMATCH:
			p = put_be32(p, PROG_MISMATCH);
			p = put_be32(p, DISPLACE_VERS);
			p = put_be32(p, DISPLACE_VERS);
			break;
		case RPC_WIRE_PROC_UNAVAIL:
			p = put_be32(p, PROC_UNAVAIL);
			break;
		default: /* RPC_WIRE_GARBAGE_ARGS */
			p = put_be32(p, GARBAGE_ARGS);
		}
	}
	size_t len = (size_t)(p - out);
	put_be32(out, 0x80000000u | (uint32_t)(len - 4));
	return len;
}
