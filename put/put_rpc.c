/*
 * put_rpc.c - rpc: each operation is one ONC RPC call through libtirpc,
 * DISPLACE_SINK from put/displace_rpc.x (stubs by rpcgen at build time),
 * carrying opaque<> of m bytes and returning the byte count the server got.
 *
 * No portmapper: setup connects a TCP socket to --peer itself, wraps it
 * with clnt_vc_create, and makes one NULLPROC call to check that the peer
 * serves this program. The peer is 'put serve' (put/serve_stream.c, with
 * its RPC parser in put/rpc_wire.c).
 */
#include "put/net.h"
#include "put/put.h"

#include "displace_rpc.h"

/* xdrproc_t is variadic; casting through void (*)(void) says the mismatch is meant */
#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct rpc {
	struct net_opts o;
	struct net_addr peer;
	char peer_name[64];
	CLIENT *cl;
	displace_payload payload;
	uint64_t calls, last_result;
};

static int rpc_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	struct rpc *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	int rc = net_parse_opts(argc, argv, NET_OPT_SIZE | NET_OPT_PEER | NET_OPT_TIMEOUT, &r->o, err, errlen);
	if (!rc && net_parse_hostport(r->o.peer ? r->o.peer : "127.0.0.1", NET_DEFAULT_PORT + NET_RPC_PORT_OFFSET,
				      &r->peer)) {
		snprintf(err, errlen, "invalid value '%s' for --peer (IPv4[:PORT] or [IPv6][:PORT], numeric)", r->o.peer);
		rc = -EINVAL;
	}
	if (rc) {
		free(r);
		return -EINVAL;
	}
	net_format_addr(&r->peer, r->peer_name, sizeof r->peer_name);
	*state = r;
	return 0;
}

/* An RPC failure as -errno, with the library's reason in err. */
static int rpc_error(struct rpc *r, enum clnt_stat st, const char *what, char *err, size_t errlen)
{
	struct rpc_err e = { 0 };
	clnt_geterr(r->cl, &e);
	const char *why = clnt_sperrno(st);
	if (e.re_errno && (st == RPC_CANTSEND || st == RPC_CANTRECV))
		snprintf(err, errlen, "%s %s failed: %s: %s", what, r->peer_name, why, strerror(e.re_errno));
	else
		snprintf(err, errlen, "%s %s failed: %s", what, r->peer_name, why);
	switch (st) {
	case RPC_TIMEDOUT:
		return -ETIMEDOUT;
	case RPC_CANTSEND:
	case RPC_CANTRECV:
		return e.re_errno ? -e.re_errno : -ECONNRESET;
	case RPC_PROGUNAVAIL:
	case RPC_PROGVERSMISMATCH:
	case RPC_PROCUNAVAIL:
		return -EPROTONOSUPPORT;
	default:
		return -EPROTO;
	}
}

static int rpc_setup(void *state, char *err, size_t errlen)
{
	struct rpc *r = state;
	r->payload.displace_payload_len = (u_int)r->o.msg_bytes;
	r->payload.displace_payload_val = malloc(r->o.msg_bytes);
	if (!r->payload.displace_payload_val) {
		snprintf(err, errlen, "cannot allocate %" PRIu64 " bytes for the message", r->o.msg_bytes);
		return -ENOMEM;
	}
	/* touch every page before the timed loop */
	memset(r->payload.displace_payload_val, 0x5a, r->o.msg_bytes);

	int fd;
	int rc = net_connect(&r->peer, SOCK_STREAM, &fd, err, errlen);
	if (rc)
		return rc;
	struct netbuf nb = { .maxlen = r->peer.len, .len = r->peer.len, .buf = &r->peer.ss };
	r->cl = clnt_vc_create(fd, &nb, DISPLACE_PROG, DISPLACE_VERS, 0, 0);
	if (!r->cl) {
		snprintf(err, errlen, "cannot make an RPC client for %s: %s", r->peer_name,
			 clnt_sperrno(rpc_createerr.cf_stat));
		close(fd);
		return -EPROTO;
	}
	/* clnt_destroy closes the socket; the call timeout replaces the stub's 25 s */
	clnt_control(r->cl, CLSET_FD_CLOSE, NULL);
	struct timeval tv = { .tv_sec = (time_t)(r->o.timeout_ns / 1000000000u),
			      .tv_usec = (suseconds_t)(r->o.timeout_ns % 1000000000u / 1000) };
	clnt_control(r->cl, CLSET_TIMEOUT, (char *)&tv);
	enum clnt_stat st = clnt_call(r->cl, NULLPROC, XDRPROC(xdr_void), NULL, XDRPROC(xdr_void), NULL, tv);
	if (st != RPC_SUCCESS)
		return rpc_error(r, st, "the NULL call to", err, errlen);
	return 0;
}

static int rpc_run(void *state, uint64_t ops, char *err, size_t errlen)
{
	struct rpc *r = state;
	for (uint64_t i = 0; i < ops; i++) {
		u_int got = 0;
		enum clnt_stat st = displace_sink_1(&r->payload, &got, r->cl);
		if (st != RPC_SUCCESS) {
			char what[64];
			snprintf(what, sizeof what, "call %" PRIu64 " to", i + 1);
			return rpc_error(r, st, what, err, errlen);
		}
		r->calls++;
		r->last_result = got;
		if (got != r->o.msg_bytes) {
			snprintf(err, errlen, "the peer %s received %u of %" PRIu64 " bytes (call %" PRIu64 ")",
				 r->peer_name, got, r->o.msg_bytes, i + 1);
			return -EPROTO;
		}
	}
	return 0;
}

static void rpc_report(void *state, FILE *f)
{
	struct rpc *r = state;
	fprintf(f, " msg_bytes=%" PRIu64, r->o.msg_bytes);
	net_print_field(f, "peer", r->peer_name);
	fprintf(f, " rpc_calls=%" PRIu64 " rpc_result=%" PRIu64, r->calls, r->last_result);
}

static void rpc_teardown(void *state)
{
	struct rpc *r = state;
	if (!r)
		return;
	if (r->cl)
		clnt_destroy(r->cl);
	free(r->payload.displace_payload_val);
	free(r);
}

const struct put_workload put_rpc = {
	.name = "rpc",
	.flags = PUT_SIZED | PUT_REPLIES,
	.check_size = net_check_size_hook,
	.peer = "rpc",
	.summary = "one ONC RPC call (libtirpc) carrying m bytes, with a small result",
	.usage = "[--size BYTES] [--peer ADDR[:PORT]] [--timeout D]",
	.help = "  --size BYTES     bytes carried as opaque<>, 1 byte to 16 MiB\n"
		"                   (default 1000; k=1000, Ki=1024)\n"
		"  --peer ADDR      the peer's RPC port, IPv4[:PORT] or [IPv6][:PORT]\n"
		"                   (default 127.0.0.1:7778); no portmapper is asked\n"
		"  --timeout D      fail if a call takes longer (default 30s)\n",
	.parse = rpc_parse,
	.setup = rpc_setup,
	.run = rpc_run,
	.report = rpc_report,
	.teardown = rpc_teardown,
};
