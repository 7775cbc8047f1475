/*
 * put_udp.c - udp: each operation sends one m-byte datagram on a connected
 * UDP socket and blocks for the reply datagram.
 *
 * The hello proves the source address first (put/net.h): the peer's ack
 * to the first hello carries a cookie, and the hello sent again with it
 * is the one accepted. An ack with a cookie that comes later (the peer
 * forgot this source, or restarted) is answered the same way at once.
 *
 * Datagrams can be lost, so a reply is awaited for --retry-after (a
 * receive timeout); then the datagram is sent again and the loss counted
 * (udp_lost). Every fifth try in a row repeats the hello too, in case the
 * peer forgot this source address. After --max-tries tries in a row the
 * run fails. A late reply to a lost datagram may stand in for the reply to
 * its retransmission; answers that are not replies (acks, other sizes)
 * are skipped and counted (udp_stray).
 *
 * With --flows K, K sockets (K source ports, each proved with its own
 * hello) take the operations in turn: operation i is sent on socket
 * i mod K once that socket's reply to operation i - K came, so K
 * datagrams are in flight.
 */
#include "put/net.h"
#include "put/put.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UDP_BUF_BYTES 65536 /* any datagram fits, so none is truncated */
#define UDP_REHELLO_EVERY 5

/* One socket: a source address and port of its own, proved with its own hello. */
struct udp_flow {
	int fd;
	uint64_t cookie; /* the peer's, from its last ack; 0 before the first */
};

struct udp {
	struct net_opts o;
	struct net_addr peer;
	char peer_name[64];
	struct udp_flow *flow; /* o.flows of them */
	char *msg;
	char *buf;
	uint64_t sent_bytes, recv_bytes, send_calls, recv_calls;
	uint64_t lost, stray, rehellos;
};

/* a message or reply of bytes fits a datagram to this peer's address family */
static int udp_check_bytes(const struct udp *u, const char *name, uint64_t bytes, char *err, size_t errlen)
{
	uint32_t max = net_addr_udp_max(&u->peer);
	if (bytes <= max)
		return 0;
	snprintf(err, errlen, "%s %" PRIu64 " is above the udp limit of %u bytes over %s", name, bytes, max,
		 max == NET_UDP4_MAX_BYTES ? "IPv4" : "IPv6");
	return -EINVAL;
}

static int udp_check_size(void *state, uint64_t bytes, char *err, size_t errlen)
{
	int rc = net_check_size(bytes, err, errlen);
	return rc ? rc : udp_check_bytes(state, "--size", bytes, err, errlen);
}

static int udp_parse(int argc, char **argv, void **state, char *err, size_t errlen)
{
	struct udp *u = calloc(1, sizeof *u);
	if (!u)
		return -ENOMEM;
	int rc = net_parse_opts(argc, argv, NET_OPT_SIZE | NET_OPT_REPLY | NET_OPT_PEER | NET_OPT_RETRY | NET_OPT_FLOWS,
				&u->o, err, errlen);
	if (!rc && net_parse_hostport(u->o.peer ? u->o.peer : "127.0.0.1", NET_DEFAULT_PORT, &u->peer)) {
		snprintf(err, errlen, "invalid value '%s' for --peer (IPv4[:PORT] or [IPv6][:PORT], numeric)", u->o.peer);
		rc = -EINVAL;
	}
	if (!rc && !(rc = udp_check_bytes(u, "--size", u->o.msg_bytes, err, errlen)))
		rc = udp_check_bytes(u, "--reply", u->o.reply_bytes, err, errlen);
	if (rc) {
		free(u);
		return -EINVAL;
	}
	net_format_addr(&u->peer, u->peer_name, sizeof u->peer_name);
	*state = u;
	return 0;
}

static int send_datagram(struct udp *u, const struct udp_flow *f, const void *p, size_t len)
{
	ssize_t n;
	do {
		n = send(f->fd, p, len, 0);
		u->send_calls++;
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/* an ack: the full one, or the head a peer of another version answers with */
static int is_ack(const char *b, ssize_t n, struct net_hello *h)
{
	return (n == NET_HELLO_BYTES || n == NET_HELLO_HEAD_BYTES) && !net_hello_decode((const uint8_t *)b, (size_t)n, h) &&
	       h->kind == NET_ACK;
}

static void send_hello(struct udp *u, const struct udp_flow *f)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h = { NET_HELLO_VERSION, NET_HELLO, 0, (uint32_t)u->o.msg_bytes, (uint32_t)u->o.reply_bytes,
			       f->cookie };
	net_hello_encode(b, &h);
	/* a failure shows in the receive that follows */
	(void)send_datagram(u, f, b, sizeof b);
}

/* an ack with a cookie: echo it at once, the peer then takes this source; 1 if it was one */
static int echo_cookie(struct udp *u, struct udp_flow *f, const struct net_hello *h)
{
	if (h->status != NET_HELLO_COOKIE || h->version != NET_HELLO_VERSION || !h->cookie)
		return 0;
	f->cookie = h->cookie;
	send_hello(u, f);
	return 1;
}

/* one socket, connected and proved */
static int open_flow(struct udp *u, struct udp_flow *f, char *err, size_t errlen)
{
	int rc = net_connect(&u->peer, SOCK_DGRAM, &f->fd, err, errlen);
	if (rc)
		return rc;
	rc = net_set_timeouts(f->fd, u->o.retry_ns, 0);
	if (rc) {
		snprintf(err, errlen, "cannot set the receive timeout: %s", strerror(-rc));
		return rc;
	}
	for (uint64_t tries = 0; tries < u->o.max_tries; tries++) {
		send_hello(u, f);
		for (;;) {
			struct net_hello h;
			ssize_t n = recv(f->fd, u->buf, UDP_BUF_BYTES, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (n < 0) {
				/* an ICMP port unreachable shows here as ECONNREFUSED */
				rc = -errno;
				snprintf(err, errlen, "cannot connect to %s: %s", u->peer_name, strerror(errno));
				return rc;
			}
			if (!is_ack(u->buf, n, &h)) {
				u->stray++;
				continue;
			}
			if (echo_cookie(u, f, &h))
				continue;
			if (h.status == NET_HELLO_BAD_VERSION && h.version != NET_HELLO_VERSION) {
				snprintf(err, errlen, "%s: the peer speaks hello version %u, this client %u: run the same displace on both ends",
					 u->peer_name, h.version, NET_HELLO_VERSION);
				return -ECONNREFUSED;
			}
			if (h.status != NET_HELLO_OK) {
				snprintf(err, errlen, "%s: the peer refused the hello (%" PRIu64 " bytes, reply %" PRIu64 "): %s",
					 u->peer_name, u->o.msg_bytes, u->o.reply_bytes, net_hello_status_str(h.status));
				return -ECONNREFUSED;
			}
			return 0;
		}
	}
	snprintf(err, errlen, "no answer from %s after %" PRIu64 " hellos %g s apart (is 'put serve' running there?)",
		 u->peer_name, u->o.max_tries, (double)u->o.retry_ns / 1e9);
	return -ETIMEDOUT;
}

static int udp_setup(void *state, char *err, size_t errlen)
{
	struct udp *u = state;
	u->msg = malloc(u->o.msg_bytes);
	u->buf = malloc(UDP_BUF_BYTES);
	u->flow = malloc(u->o.flows * sizeof *u->flow);
	if (!u->msg || !u->buf || !u->flow) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < u->o.flows; k++)
		u->flow[k] = (struct udp_flow){ .fd = -1 };
	/* touch every page before the timed loop; 0x5a never looks like a hello */
	memset(u->msg, 0x5a, u->o.msg_bytes);
	memset(u->buf, 0, UDP_BUF_BYTES);
	for (uint64_t k = 0; k < u->o.flows; k++) {
		int rc = open_flow(u, &u->flow[k], err, errlen);
		if (rc)
			return rc;
	}
	/* the counters are the timed loop's */
	u->send_calls = u->stray = 0;
	return 0;
}

/* operation i's datagram on flow f */
static int send_op(struct udp *u, const struct udp_flow *f, uint64_t i, char *err, size_t errlen)
{
	int rc = send_datagram(u, f, u->msg, u->o.msg_bytes);
	if (rc) {
		snprintf(err, errlen, "send to %s failed: %s (operation %" PRIu64 ")", u->peer_name, strerror(-rc), i + 1);
		return rc;
	}
	u->sent_bytes += u->o.msg_bytes;
	return 0;
}

/* the reply to operation i on flow f: sent again after each --retry-after without one */
static int await_reply(struct udp *u, struct udp_flow *f, uint64_t i, char *err, size_t errlen)
{
	const size_t r = u->o.reply_bytes;
	uint64_t tries = 0;
	for (;;) {
		struct net_hello h;
		ssize_t n = recv(f->fd, u->buf, UDP_BUF_BYTES, 0);
		u->recv_calls++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			u->lost++;
			if (++tries >= u->o.max_tries) {
				snprintf(err, errlen, "no reply from %s after %" PRIu64 " tries %g s apart (operation %" PRIu64 ")",
					 u->peer_name, tries, (double)u->o.retry_ns / 1e9, i + 1);
				return -ETIMEDOUT;
			}
			if (tries % UDP_REHELLO_EVERY == 0) {
				send_hello(u, f);
				u->rehellos++;
			}
			int rc = send_op(u, f, i, err, errlen);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0) {
			int rc = -errno;
			snprintf(err, errlen, "reply from %s failed: %s (operation %" PRIu64 ")", u->peer_name, strerror(errno),
				 i + 1);
			return rc;
		}
		int ack = is_ack(u->buf, n, &h);
		if ((size_t)n == r && !ack) {
			u->recv_bytes += r;
			return 0;
		}
		u->stray++;
		/* the peer forgot this source: prove it again, then the retransmission is answered */
		if (ack && echo_cookie(u, f, &h))
			u->rehellos++;
	}
}

static int udp_run(void *state, uint64_t ops, char *err, size_t errlen)
{
	struct udp *u = state;
	const uint64_t k = u->o.flows;
	/* operation i goes on flow i mod K once that flow's reply to operation i - K came */
	for (uint64_t i = 0; i < ops + k; i++) {
		struct udp_flow *f = &u->flow[i % k];
		int rc = i >= k && i - k < ops ? await_reply(u, f, i - k, err, errlen) : 0;
		if (!rc && i < ops)
			rc = send_op(u, f, i, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static void udp_report(void *state, FILE *f)
{
	struct udp *u = state;
	fprintf(f, " msg_bytes=%" PRIu64 " reply_bytes=%" PRIu64, u->o.msg_bytes, u->o.reply_bytes);
	net_print_field(f, "peer", u->peer_name);
	fprintf(f,
		" sent_bytes=%" PRIu64 " recv_bytes=%" PRIu64 " send_calls=%" PRIu64 " recv_calls=%" PRIu64
		" udp_lost=%" PRIu64 " udp_stray=%" PRIu64 " udp_rehellos=%" PRIu64 " udp_retry_after_ns=%" PRIu64,
		u->sent_bytes, u->recv_bytes, u->send_calls, u->recv_calls, u->lost, u->stray, u->rehellos,
		u->o.retry_ns);
	if (u->o.flows > 1)
		fprintf(f, " flows=%" PRIu64, u->o.flows);
}

static void udp_teardown(void *state)
{
	struct udp *u = state;
	if (!u)
		return;
	for (uint64_t k = 0; u->flow && k < u->o.flows; k++)
		if (u->flow[k].fd >= 0)
			close(u->flow[k].fd);
	free(u->flow);
	free(u->msg);
	free(u->buf);
	free(u);
}

const struct put_workload put_udp = {
	.name = "udp",
	.flags = PUT_SIZED | PUT_REPLIES | PUT_FLOWS,
	.check_size = udp_check_size,
	.peer = "udp",
	.summary = "send an m-byte datagram, then block for the reply datagram",
	.usage = "[--size BYTES] [--reply BYTES] [--peer ADDR[:PORT]] [--retry-after D] [--max-tries N] [--flows K]",
	.help = "  --size BYTES     datagram size m, 1 byte to 65507 (IPv4) or 65527 (IPv6)\n"
		"                   (default 1000; k=1000, Ki=1024)\n"
		"  --reply BYTES    reply datagram size, 1 byte to the same limit (default 1)\n"
		"  --peer ADDR      the peer, IPv4[:PORT] or [IPv6][:PORT]\n"
		"                   (default 127.0.0.1:7777)\n"
		"  --retry-after D  send again if no reply came within D (default 200ms);\n"
		"                   each retry counts in udp_lost\n"
		"  --max-tries N    fail after N tries in a row without a reply (default 25)\n"
		NET_FLOWS_HELP,
	.parse = udp_parse,
	.setup = udp_setup,
	.run = udp_run,
	.report = udp_report,
	.teardown = udp_teardown,
};
