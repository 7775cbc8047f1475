/* net_stream.c - the stream client shared by the tcp, tcp-stream and unix workloads */
#include "put/net_stream.h"
#include "common/dclock.h"
#include "put/net.h"
#include "fluid/spin.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct stream {
	enum net_stream_kind kind;
	struct net_opts o;
	struct net_addr peer;
	char peer_name[NET_UNIX_PATH_MAX + 16];
	int fd;      /* the connection (the first of --flows) */
	int *flow_fd; /* --flows K: the K connections, flow_fd[0] == fd */
	char *msg;   /* msg_bytes of payload */
	char *reply; /* reply_bytes (or a window of them), received into */
	size_t reply_cap;
	uint64_t sent_bytes, recv_bytes, send_calls, recv_calls;
	double compute_ns_per_loop; /* calibrated, 0 with --compute-loops */
	uint64_t sink;
	uint64_t bursts, paced_ns, blocked_waits;
};

int net_stream_parse(enum net_stream_kind kind, int argc, char **argv, void **state, char *err, size_t errlen)
{
	struct stream *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->kind = kind;
	s->fd = -1;
	unsigned allowed = NET_OPT_SIZE | NET_OPT_PEER | NET_OPT_TIMEOUT | NET_OPT_PIPE | NET_OPT_FLOWS;
	if (kind != NET_STREAM_TCP_ONEWAY)
		allowed |= NET_OPT_REPLY;
	int rc = net_parse_opts(argc, argv, allowed, &s->o, err, errlen);
	if (!rc && kind == NET_STREAM_TCP_ONEWAY)
		s->o.reply_bytes = 0;
	if (!rc && kind == NET_STREAM_UNIX) {
		char def[NET_UNIX_PATH_MAX];
		snprintf(def, sizeof def, NET_UNIX_PATH_FMT, NET_DEFAULT_PORT);
		const char *path = s->o.peer ? s->o.peer : def;
		rc = net_parse_unix(path, &s->peer);
		if (rc)
			snprintf(err, errlen, "invalid unix socket path '%s'%s", path,
				 rc == -ENAMETOOLONG ? " (longer than 107 bytes)" : "");
	} else if (!rc) {
		rc = net_parse_hostport(s->o.peer ? s->o.peer : "127.0.0.1", NET_DEFAULT_PORT, &s->peer);
		if (rc)
			snprintf(err, errlen, "invalid value '%s' for --peer (IPv4[:PORT] or [IPv6][:PORT], numeric)",
				 s->o.peer);
	}
	if (rc) {
		free(s);
		return -EINVAL;
	}
	net_format_addr(&s->peer, s->peer_name, sizeof s->peer_name);
	*state = s;
	return 0;
}

/* one connection: connected, its options set, its hello said */
static int open_flow(struct stream *s, int *fd, char *err, size_t errlen)
{
	int rc = net_connect(&s->peer, SOCK_STREAM, fd, err, errlen);
	if (rc)
		return rc;
	if (s->kind != NET_STREAM_UNIX) {
		/* one send is one segment: each operation's cost, not Nagle's batching */
		int one = 1;
		if (setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one)) {
			rc = -errno;
			snprintf(err, errlen, "cannot set TCP_NODELAY: %s", strerror(errno));
			return rc;
		}
	}
	rc = net_set_timeouts(*fd, s->o.timeout_ns, s->o.timeout_ns);
	if (rc) {
		snprintf(err, errlen, "cannot set the socket timeouts: %s", strerror(-rc));
		return rc;
	}
	rc = net_stream_hello(*fd, (uint32_t)s->o.msg_bytes, (uint32_t)s->o.reply_bytes, err, errlen);
	if (rc) {
		char why[256];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errlen, "%s: %s", s->peer_name, why);
	}
	return rc;
}

int net_stream_setup(void *state, char *err, size_t errlen)
{
	struct stream *s = state;
	s->msg = malloc(s->o.msg_bytes);
	/* room for a window of replies, so that one receive can take all that has come */
	uint64_t cap = s->o.reply_bytes * s->o.window;
	if (cap > (1u << 20))
		cap = 1u << 20;
	if (cap < s->o.reply_bytes)
		cap = s->o.reply_bytes;
	s->reply_cap = cap ? (size_t)cap : 1;
	s->reply = malloc(s->reply_cap);
	if (!s->msg || !s->reply) {
		snprintf(err, errlen, "cannot allocate %" PRIu64 " bytes for the message", s->o.msg_bytes);
		return -ENOMEM;
	}
	/*
	 * Write every page now: a page fault must not land in the timed loop,
	 * and an untouched buffer would be the shared zero page, which makes
	 * the kernel's copy unrealistically cache-hot.
	 */
	memset(s->msg, 0x5a, s->o.msg_bytes);
	memset(s->reply, 0, s->reply_cap);
	if (s->o.compute_ns > 0 && !s->o.compute_loops) {
		s->compute_ns_per_loop = spin_calibrate_ns_per_loop();
		s->o.compute_loops = (uint64_t)(s->o.compute_ns / s->compute_ns_per_loop + 0.5);
	}

	if (!(s->flow_fd = malloc(s->o.flows * sizeof *s->flow_fd))) {
		snprintf(err, errlen, "out of memory for %" PRIu64 " flows", s->o.flows);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < s->o.flows; k++)
		s->flow_fd[k] = -1;
	/* each flow its own connection, with its own hello */
	for (uint64_t k = 0; k < s->o.flows; k++) {
		int rc = open_flow(s, &s->flow_fd[k], err, errlen);
		if (rc)
			return rc;
	}
	s->fd = s->flow_fd[0];
	return 0;
}

static int io_error(struct stream *s, int rc, const char *what, uint64_t done, char *err, size_t errlen)
{
	double timeout_s = (double)s->o.timeout_ns / 1e9;
	if (rc == -EAGAIN) {
		snprintf(err, errlen, "%s %s timed out after %g s (operation %" PRIu64 ")", what, s->peer_name,
			 timeout_s, done + 1);
		return -ETIMEDOUT;
	}
	if (rc == -ECONNRESET || rc == -EPIPE) {
		snprintf(err, errlen, "%s %s failed: the peer closed the connection (operation %" PRIu64 ")", what,
			 s->peer_name, done + 1);
		return rc;
	}
	snprintf(err, errlen, "%s %s failed: %s (operation %" PRIu64 ")", what, s->peer_name, strerror(-rc), done + 1);
	return rc;
}


/* receive at most want bytes of owed replies; blocking or not. Bytes taken, or -errno */
static ssize_t take_replies(struct stream *s, uint64_t want, int dontwait)
{
	size_t n = want < s->reply_cap ? (size_t)want : s->reply_cap;
	for (;;) {
		ssize_t r = recv(s->fd, s->reply, n, dontwait ? MSG_DONTWAIT : 0);
		if (r > 0) {
			s->recv_calls++;
			return r;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (dontwait && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return -errno;
	}
}

/*
 * The loop predict studies: send m bytes, compute c, and collect replies
 * with at most --window messages outstanding, so that the sender blocks
 * only when the window is full. With --burst B, every B operations it
 * sleeps so that it is busy only --duty of the time: the fluid then has
 * room to measure, while each burst runs as the saturated loop does.
 */
static int pipe_run(struct stream *s, uint64_t ops, char *err, size_t errlen)
{
	const size_t m = s->o.msg_bytes;
	const uint64_t r = s->o.reply_bytes, room = (s->o.window - 1) * r;
	uint64_t owed = 0, burst_t0 = dclock_mono_ns();
	for (uint64_t i = 0; i < ops; i++) {
		if (s->o.burst && i && i % s->o.burst == 0 && s->o.duty < 1) {
			uint64_t now = dclock_mono_ns();
			uint64_t pause = (uint64_t)((double)(now - burst_t0) * (1 - s->o.duty) / s->o.duty);
			struct timespec ts = { (time_t)(pause / 1000000000u), (long)(pause % 1000000000u) };
			while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
				;
			s->bursts++;
			burst_t0 = dclock_mono_ns();
			s->paced_ns += burst_t0 - now;
		}
		while (owed > room) {
			ssize_t got = take_replies(s, owed - room, 0);
			if (got < 0)
				return io_error(s, (int)got, "reply from", i, err, errlen);
			owed -= (uint64_t)got;
			s->recv_bytes += (uint64_t)got;
			s->blocked_waits++;
		}
		int rc = net_send_all(s->fd, s->msg, m, &s->send_calls);
		if (rc)
			return io_error(s, rc, "send to", i, err, errlen);
		s->sent_bytes += m;
		owed += r;
		if (s->o.compute_loops)
			s->sink = spin_loops(s->o.compute_loops, s->sink);
		while (owed) {
			ssize_t got = take_replies(s, owed, 1);
			if (got < 0)
				return io_error(s, (int)got, "reply from", i, err, errlen);
			if (got == 0)
				break;
			owed -= (uint64_t)got;
			s->recv_bytes += (uint64_t)got;
		}
	}
	while (owed) {
		ssize_t got = take_replies(s, owed, 0);
		if (got < 0)
			return io_error(s, (int)got, "reply from", ops, err, errlen);
		owed -= (uint64_t)got;
		s->recv_bytes += (uint64_t)got;
	}
	return 0;
}

/*
 * --flows K: operation i goes on connection i mod K, after that
 * connection's reply to operation i - K, so that K messages are in flight,
 * one on each; the replies still owed at the end are taken before it
 * returns, so ops operations are whole when it does
 */
static int flows_run(struct stream *s, uint64_t ops, char *err, size_t errlen)
{
	const size_t m = s->o.msg_bytes, r = s->o.reply_bytes;
	const uint64_t k = s->o.flows;
	for (uint64_t i = 0; i < ops + k; i++) {
		int fd = s->flow_fd[i % k];
		if (r && i >= k && i - k < ops) {
			int rc = net_recv_all(fd, s->reply, r, &s->recv_calls);
			if (rc)
				return io_error(s, rc, "reply from", i - k, err, errlen);
			s->recv_bytes += r;
		}
		if (i >= ops)
			continue;
		int rc = net_send_all(fd, s->msg, m, &s->send_calls);
		if (rc)
			return io_error(s, rc, "send to", i, err, errlen);
		s->sent_bytes += m;
	}
	return 0;
}

int net_stream_run(void *state, uint64_t ops, char *err, size_t errlen)
{
	struct stream *s = state;
	if (s->o.window > 1 || s->o.compute_loops || s->o.burst)
		return pipe_run(s, ops, err, errlen);
	if (s->o.flows > 1)
		return flows_run(s, ops, err, errlen);
	const size_t m = s->o.msg_bytes, r = s->o.reply_bytes;
	for (uint64_t i = 0; i < ops; i++) {
		int rc = net_send_all(s->fd, s->msg, m, &s->send_calls);
		if (rc)
			return io_error(s, rc, "send to", i, err, errlen);
		s->sent_bytes += m;
		if (!r)
			continue;
		rc = net_recv_all(s->fd, s->reply, r, &s->recv_calls);
		if (rc)
			return io_error(s, rc, "reply from", i, err, errlen);
		s->recv_bytes += r;
	}
	return 0;
}

void net_stream_report(void *state, FILE *f)
{
	struct stream *s = state;
	fprintf(f, " msg_bytes=%" PRIu64 " reply_bytes=%" PRIu64, s->o.msg_bytes, s->o.reply_bytes);
	net_print_field(f, "peer", s->peer_name);
	fprintf(f, " sent_bytes=%" PRIu64 " recv_bytes=%" PRIu64 " send_calls=%" PRIu64 " recv_calls=%" PRIu64,
		s->sent_bytes, s->recv_bytes, s->send_calls, s->recv_calls);
	if (s->o.flows > 1)
		fprintf(f, " flows=%" PRIu64, s->o.flows);
	if (s->o.window > 1 || s->o.compute_loops || s->o.burst)
		fprintf(f, " window=%" PRIu64 " compute_loops=%" PRIu64 " compute_ns_per_loop=%.5f bursts=%" PRIu64
			   " paced_ns=%" PRIu64 " blocked_waits=%" PRIu64 " sink=%" PRIu64,
			s->o.window, s->o.compute_loops, s->compute_ns_per_loop, s->bursts, s->paced_ns, s->blocked_waits,
			s->sink & 0xff);
}

void net_stream_teardown(void *state)
{
	struct stream *s = state;
	if (!s)
		return;
	for (uint64_t k = 0; s->flow_fd && k < s->o.flows; k++)
		if (s->flow_fd[k] >= 0)
			close(s->flow_fd[k]);
	free(s->flow_fd);
	free(s->msg);
	free(s->reply);
	free(s);
}
