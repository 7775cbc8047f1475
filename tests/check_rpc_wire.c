/*
 * check_rpc_wire.c - put/rpc_wire.c, the peer's ONC RPC parser and
 * replies, without sockets: calls encoded by libtirpc's own XDR routines
 * are read in any pieces, replies decode with libtirpc, and records that
 * are not calls of ours get the error RFC 5531 prescribes, or close.
 */
#include "put/rpc_wire.h"
#include "tests/suites.h"

#include "displace_rpc.h"

#include <errno.h>
#include <rpc/rpc.h>
#include <stdlib.h>
#include <string.h>

/* xdrproc_t is variadic; casting through void (*)(void) says the mismatch is meant */
#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

/* A call record as libtirpc's client writes it: one fragment, the header, then opaque<> of len bytes (or none). */
static size_t call_record(uint8_t *out, size_t cap, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
			  int with_arg, uint32_t len)
{
	XDR x;
	struct rpc_msg m = { 0 };
	m.rm_xid = xid;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	m.rm_call.cb_prog = prog;
	m.rm_call.cb_vers = vers;
	m.rm_call.cb_proc = proc;
	m.rm_call.cb_cred = _null_auth;
	m.rm_call.cb_verf = _null_auth;
	xdrmem_create(&x, (char *)out + 4, (u_int)(cap - 4), XDR_ENCODE);
	ck_assert(xdr_callmsg(&x, &m));
	if (with_arg) {
		displace_payload p = { .displace_payload_len = len, .displace_payload_val = calloc(1, len + 1) };
		ck_assert(xdr_displace_payload(&x, &p));
		free(p.displace_payload_val);
	}
	u_int n = xdr_getpos(&x);
	xdr_destroy(&x);
	uint32_t mark = htonl(0x80000000u | n);
	memcpy(out, &mark, 4);
	return n + 4;
}

/* feed all n bytes in pieces of step; the calls that ended, in calls; their number, or -EPROTO */
static int feed_all(struct rpc_wire *w, const uint8_t *p, size_t n, size_t step, struct rpc_wire_call *calls, int max,
		    const char **why)
{
	int got = 0;
	for (size_t off = 0; off < n;) {
		size_t k = n - off < step ? n - off : step, used;
		while (k) {
			int rc = rpc_wire_feed(w, p + off, k, &used, &calls[got], why);
			if (rc < 0)
				return rc;
			off += used;
			k -= used;
			if (rc == 1 && got < max - 1)
				got++;
		}
	}
	return got;
}

START_TEST(test_rpc_wire_reads_libtirpc_calls_in_any_pieces)
{
	static uint8_t rec[3 * 8192];
	size_t n = call_record(rec, sizeof rec, 7, DISPLACE_PROG, DISPLACE_VERS, NULLPROC, 0, 0);
	n += call_record(rec + n, sizeof rec - n, 8, DISPLACE_PROG, DISPLACE_VERS, DISPLACE_SINK, 1, 1001);
	n += call_record(rec + n, sizeof rec - n, 9, DISPLACE_PROG, DISPLACE_VERS, DISPLACE_SINK, 1, 0);
	const size_t steps[] = { 1, 3, 4, 7, 1000, sizeof rec };
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		struct rpc_wire w;
		struct rpc_wire_call c[4];
		const char *why = "";
		rpc_wire_init(&w);
		ck_assert_int_eq(feed_all(&w, rec, n, steps[i], c, 4, &why), 3);
		ck_assert_uint_eq(c[0].xid, 7);
		ck_assert_int_eq(c[0].outcome, RPC_WIRE_VOID);
		ck_assert_uint_eq(c[1].xid, 8);
		ck_assert_int_eq(c[1].outcome, RPC_WIRE_COUNT);
		ck_assert_uint_eq(c[1].count, 1001);
		ck_assert_int_eq(c[2].outcome, RPC_WIRE_COUNT);
		ck_assert_uint_eq(c[2].count, 0);
		ck_assert(!rpc_wire_in_record(&w));
	}
}
END_TEST

/* One call split over several fragments, as libtirpc writes a call larger than its buffer. */
START_TEST(test_rpc_wire_joins_fragments)
{
	static uint8_t one[4096], rec[4096 + 64];
	size_t n = call_record(one, sizeof one, 11, DISPLACE_PROG, DISPLACE_VERS, DISPLACE_SINK, 1, 2000);
	size_t body = n - 4, off = 0, out = 0;
	const size_t frag = 333;
	while (off < body) {
		size_t k = body - off < frag ? body - off : frag;
		uint32_t mark = htonl((off + k == body ? 0x80000000u : 0) | (uint32_t)k);
		memcpy(rec + out, &mark, 4);
		memcpy(rec + out + 4, one + 4 + off, k);
		out += 4 + k;
		off += k;
	}
	struct rpc_wire w;
	struct rpc_wire_call c[2];
	const char *why = "";
	rpc_wire_init(&w);
	ck_assert_int_eq(feed_all(&w, rec, out, 5, c, 2, &why), 1);
	ck_assert_int_eq(c[0].outcome, RPC_WIRE_COUNT);
	ck_assert_uint_eq(c[0].count, 2000);
}
END_TEST

/* The denial of service of the report: a record header and 10 bytes, then nothing. */
START_TEST(test_rpc_wire_holds_a_partial_record_in_its_state_only)
{
	static const uint8_t part[14] = { 0x80, 0x00, 0x03, 0xe8 };
	struct rpc_wire w;
	struct rpc_wire_call c;
	const char *why = "";
	size_t used;
	rpc_wire_init(&w);
	ck_assert_int_eq(rpc_wire_feed(&w, part, sizeof part, &used, &c, &why), 0);
	ck_assert_uint_eq(used, sizeof part);
	ck_assert(rpc_wire_in_record(&w));
}
END_TEST

/* the outcome of one whole record, or -EPROTO */
static int outcome_of(const uint8_t *rec, size_t n, struct rpc_wire_call *c, const char **why)
{
	struct rpc_wire w;
	size_t used;
	rpc_wire_init(&w);
	int rc = rpc_wire_feed(&w, rec, n, &used, c, why);
	return rc == 1 ? (int)c->outcome : rc;
}

static void set_word(uint8_t *rec, unsigned index, uint32_t v)
{
	uint32_t be = htonl(v);
	memcpy(rec + 4 + 4 * index, &be, 4); /* after the record mark */
}

START_TEST(test_rpc_wire_answers_other_calls_as_rfc_5531_says)
{
	uint8_t rec[4096];
	struct rpc_wire_call c;
	const char *why = "";
	size_t n = call_record(rec, sizeof rec, 1, DISPLACE_PROG + 1, DISPLACE_VERS, NULLPROC, 0, 0);
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_PROG_UNAVAIL);
	n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS + 1, NULLPROC, 0, 0);
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_PROG_MISMATCH);
	n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS, 99, 0, 0);
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_PROC_UNAVAIL);
	n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS, DISPLACE_SINK, 0, 0);
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_GARBAGE_ARGS); /* no argument */
	n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS, DISPLACE_SINK, 1, 100);
	ck_assert_int_eq(outcome_of(rec, n - 8, &c, &why), 0); /* a record cut short is not over */
	set_word(rec, 10, DISPLACE_RPC_MAX_BYTES + 1);          /* the argument's length: above 16 MiB */
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_GARBAGE_ARGS);
	n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS, NULLPROC, 0, 0);
	set_word(rec, 2, 3); /* RPC version 3 */
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_RPC_MISMATCH);
	set_word(rec, 2, RPC_MSG_VERSION);
	set_word(rec, 6, 6); /* RPCSEC_GSS credentials */
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), RPC_WIRE_AUTH_REJECTED);
}
END_TEST

START_TEST(test_rpc_wire_closes_on_what_is_no_call)
{
	uint8_t rec[4096];
	struct rpc_wire_call c;
	const char *why = "";
	size_t n = call_record(rec, sizeof rec, 1, DISPLACE_PROG, DISPLACE_VERS, NULLPROC, 0, 0);
	set_word(rec, 1, REPLY);
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "not an RPC call"));
	set_word(rec, 1, CALL);
	set_word(rec, 7, MAX_AUTH_BYTES + 1); /* the credential's length */
	ck_assert_int_eq(outcome_of(rec, n, &c, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "400 bytes"));
	/* a record of 8 bytes cannot hold a call */
	static const uint8_t tiny[12] = { 0x80, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0 };
	ck_assert_int_eq(outcome_of(tiny, sizeof tiny, &c, &why), -EPROTO);
	/* a displace hello on the rpc port: "DSPL" read as a record mark is 1.1 GB */
	static const uint8_t hello[8] = { 'D', 'S', 'P', 'L', 2, 0, 0, 0 };
	ck_assert_int_eq(outcome_of(hello, sizeof hello, &c, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "above 16 MiB"));
	/* endless empty fragments are no record either */
	static uint8_t empty[4 * 8192];
	struct rpc_wire w;
	size_t used;
	int rc = 0;
	rpc_wire_init(&w);
	for (int i = 0; i < 1000 && rc == 0; i++)
		rc = rpc_wire_feed(&w, empty, sizeof empty, &used, &c, &why);
	ck_assert_int_eq(rc, -EPROTO);
}
END_TEST

/* decode a reply with libtirpc: its accept status, and the result if any */
static void decode_reply(const uint8_t *r, size_t n, uint32_t xid, enum reply_stat rs, int stat, u_int *result)
{
	XDR x;
	struct rpc_msg m;
	memset(&m, 0, sizeof m);
	uint32_t mark;
	memcpy(&mark, r, 4);
	ck_assert_uint_eq(ntohl(mark), 0x80000000u | (uint32_t)(n - 4));
	m.acpted_rply.ar_verf = _null_auth;
	m.acpted_rply.ar_results.where = (caddr_t)result;
	m.acpted_rply.ar_results.proc = result ? XDRPROC(xdr_u_int) : XDRPROC(xdr_void);
	xdrmem_create(&x, (char *)r + 4, (u_int)(n - 4), XDR_DECODE);
	ck_assert(xdr_replymsg(&x, &m));
	ck_assert_uint_eq(m.rm_xid, xid);
	ck_assert_int_eq(m.rm_direction, REPLY);
	ck_assert_int_eq(m.rm_reply.rp_stat, rs);
	if (rs == MSG_ACCEPTED)
		ck_assert_int_eq(m.acpted_rply.ar_stat, stat);
	else
		ck_assert_int_eq(m.rjcted_rply.rj_stat, stat);
	xdr_destroy(&x);
}

START_TEST(test_rpc_wire_replies_decode_with_libtirpc)
{
	uint8_t r[RPC_WIRE_REPLY_MAX_BYTES];
	u_int got = 0;
	struct rpc_wire_call c = { .xid = 42, .outcome = RPC_WIRE_COUNT, .count = 16777216 };
	decode_reply(r, rpc_wire_reply(&c, r), 42, MSG_ACCEPTED, SUCCESS, &got);
	ck_assert_uint_eq(got, 16777216);
	static const struct {
		enum rpc_wire_outcome outcome;
		enum reply_stat rs;
		int stat;
	} errs[] = {
		{ RPC_WIRE_VOID, MSG_ACCEPTED, SUCCESS },
		{ RPC_WIRE_PROG_UNAVAIL, MSG_ACCEPTED, PROG_UNAVAIL },
		{ RPC_WIRE_PROG_MISMATCH, MSG_ACCEPTED, PROG_MISMATCH },
		{ RPC_WIRE_PROC_UNAVAIL, MSG_ACCEPTED, PROC_UNAVAIL },
		{ RPC_WIRE_GARBAGE_ARGS, MSG_ACCEPTED, GARBAGE_ARGS },
		{ RPC_WIRE_RPC_MISMATCH, MSG_DENIED, RPC_MISMATCH },
		{ RPC_WIRE_AUTH_REJECTED, MSG_DENIED, AUTH_ERROR },
	};
	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		c = (struct rpc_wire_call){ .xid = 43 + (uint32_t)i, .outcome = errs[i].outcome };
		decode_reply(r, rpc_wire_reply(&c, r), c.xid, errs[i].rs, errs[i].stat, NULL);
	}
}
END_TEST

Suite *rpc_wire_suite(void)
{
	Suite *s = suite_create("rpc_wire");
	TCase *tc = tcase_create("records");
	tcase_add_test(tc, test_rpc_wire_reads_libtirpc_calls_in_any_pieces);
	tcase_add_test(tc, test_rpc_wire_joins_fragments);
	tcase_add_test(tc, test_rpc_wire_holds_a_partial_record_in_its_state_only);
	tcase_add_test(tc, test_rpc_wire_answers_other_calls_as_rfc_5531_says);
	tcase_add_test(tc, test_rpc_wire_closes_on_what_is_no_call);
	tcase_add_test(tc, test_rpc_wire_replies_decode_with_libtirpc);
	suite_add_tcase(s, tc);
	return s;
}
