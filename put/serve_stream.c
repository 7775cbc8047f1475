/*
 * serve_stream.c - the peer's stream connections. tcp and unix start with
 * the hello; then messages are counted as they arrive, and replies are
 * counted and written from a shared buffer. rpc connections carry ONC RPC
 * records, parsed as they come (put/rpc_wire.c), their replies queued in a
 * small buffer. All of them share the limits (total and per source), the
 * timeouts and the throttling of a client that does not read. The design
 * notes are in put/serve.h.
 */
#include "put/serve_int.h"
#include "common/vec.h"
#include "put/rpc_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SERVE_HELLO_TIMEOUT_MS 10000    /* the hello, or a first RPC call, within this */
#define SERVE_STALL_MS 10000            /* a message or record begun must go on within this (or idle) */
#define SERVE_OWED_MAX_BYTES (1u << 20) /* stop reading a client owed more reply bytes than this */
#define SERVE_OUT_MAX_BYTES (64u * 1024) /* stop reading a client with more RPC replies waiting */
#define SERVE_OUT_KEEP_BYTES 4096        /* a reply buffer above this is freed once written */
#define SERVE_RPC_READ_BYTES (64u * 1024) /* bounds the replies one read can make */
#define SERVE_WRITE_BUFS 4               /* libuv copies no buf array up to 4 */

enum conn_proto { P_HELLO, P_RPC, P_CTL /* a control connection (serve_ctl.c), after its hello */ };
/* C_HELLO: before the hello (rpc: before the first whole call); C_DONE: refused, closing */
enum conn_state { C_HELLO, C_BODY, C_DONE };

/* Where a connection comes from, for the per-source limit. */
struct conn_src {
	int family;       /* AF_INET, AF_INET6 (by /64), AF_UNIX (by uid); 0 unknown: not limited */
	uint8_t addr[16];
};

/* Bytes to write before the owed zeros (the ack, RPC replies). */
struct conn_buf {
	uint8_t *p;
	size_t off, len, cap;
};

struct serve_conn {
	union {
		uv_handle_t h;
		uv_stream_t s;
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	} u;
	struct serve *srv;
	struct serve_conn *prev, *next;
	enum conn_proto proto;
	enum conn_state state;
	int closing, reading, writing, close_after_flush;
	int refused; /* over a limit: closed at once, never served */
	uint64_t hello_deadline_ms;
	uint64_t last_ms; /* the last byte read or written */
	struct conn_src src;
	uint8_t hello[NET_HELLO_BYTES];
	unsigned hello_got;
	/*
	 * out is written, more is added to: libuv holds pointers into out
	 * while a write is in flight, so out never moves; more may grow, and
	 * becomes out once out is written
	 */
	struct conn_buf out, more;
	uint32_t msg_bytes, reply_bytes, left_bytes; /* left: of the message being received */
	uint64_t owed_bytes;                          /* reply bytes not yet written */
	size_t writing_out, writing_zero;             /* in the write request in flight */
	uv_write_t wreq;
	struct rpc_wire *rpc; /* P_RPC: the record being read */
	char name[80];
};

static void conn_flush(struct serve_conn *c);

static void on_conn_closed(uv_handle_t *h)
{
	struct serve_conn *c = h->data;
	free(c->out.p);
	free(c->more.p);
	free(c->rpc);
	free(c);
}

static void conn_close(struct serve_conn *c)
{
	struct serve *s = c->srv;
	if (c->closing)
		return;
	c->closing = 1;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	if (c->proto == P_CTL)
		serve_ctl_gone(s, c);
	if (!c->refused) {
		/* room again: a new refusal, or a failing accept, is worth a line */
		s->fd_starved = 0;
		if (s->refused_quiet)
			serve_log(s, "%" PRIu64 " more connections refused at a limit", s->refused_quiet);
		s->refusing = 0;
		s->refused_quiet = 0;
	}
	uv_close(&c->u.h, on_conn_closed);
}

/* append n bytes to c's replies; -ENOMEM */
static int conn_queue(struct serve_conn *c, const void *p, size_t n)
{
	struct conn_buf *b = &c->more;
	if (!n)
		return 0;
	uint8_t *np = vec_grow(b->p, &b->cap, b->len + n - 1, 1);
	if (!np)
		return -ENOMEM;
	b->p = np;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static size_t conn_out_waiting(const struct serve_conn *c)
{
	return c->out.len - c->out.off + c->more.len;
}

/* the client owes it to itself to read: stop reading it until it does */
static int conn_owed_too_much(const struct serve_conn *c)
{
	return c->owed_bytes > SERVE_OWED_MAX_BYTES || conn_out_waiting(c) > SERVE_OUT_MAX_BYTES;
}

/* n bytes were written: the queued bytes first, then owed zeros */
static void conn_consume(struct serve_conn *c, size_t n)
{
	size_t a = c->out.len - c->out.off;
	if (a > n)
		a = n;
	c->out.off += a;
	c->owed_bytes -= n - a;
	c->last_ms = uv_now(&c->srv->loop);
}

/* out was written whole: more becomes out (safe: no write is in flight) */
static void conn_next_out(struct serve_conn *c)
{
	struct conn_buf t = c->out;
	c->out = c->more;
	c->more = t;
	c->more.off = c->more.len = 0;
	if (c->more.cap > SERVE_OUT_KEEP_BYTES) {
		free(c->more.p);
		c->more = (struct conn_buf){ 0 };
	}
}

static void on_write(uv_write_t *req, int status)
{
	struct serve_conn *c = req->data;
	c->writing = 0;
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		if (c->state == C_BODY && c->left_bytes != c->msg_bytes)
			serve_log(c->srv, "%s: reply failed mid-message: %s; closing", c->name, uv_strerror(status));
		conn_close(c);
		return;
	}
	conn_consume(c, c->writing_out + c->writing_zero);
	conn_flush(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct serve_conn *c = h->data;
	(void)suggested;
	/* one loop thread: the read callback consumes the buffer before the next read */
	*buf = uv_buf_init(c->srv->buf, c->proto == P_RPC ? SERVE_RPC_READ_BYTES : SERVE_BUF_BYTES);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

static void conn_resume(struct serve_conn *c)
{
	if (c->reading || c->closing || c->state == C_DONE || c->close_after_flush || conn_owed_too_much(c))
		return;
	if (uv_read_start(&c->u.s, on_alloc, on_read) == 0)
		c->reading = 1;
}

static void conn_stop_reading(struct serve_conn *c)
{
	if (c->reading) {
		uv_read_stop(&c->u.s);
		c->reading = 0;
	}
}

/*
 * Write the queued bytes and the owed reply bytes: uv_try_write while the
 * socket takes them, then one uv_write at a time. Stream replies are all
 * alike, so the replies to many messages are one count, never a queue.
 */
static void conn_flush(struct serve_conn *c)
{
	struct serve *s = c->srv;
	if (c->closing || c->writing)
		return;
	for (;;) {
		if (c->out.off == c->out.len && c->more.len)
			conn_next_out(c);
		if (c->out.off == c->out.len && !c->owed_bytes)
			break;
		uv_buf_t b[SERVE_WRITE_BUFS];
		unsigned nb = 0;
		size_t out_n = 0, zero_n = 0;
		if (c->out.off < c->out.len) {
			out_n = c->out.len - c->out.off;
			b[nb++] = uv_buf_init((char *)c->out.p + c->out.off, (unsigned)out_n);
		}
		for (uint64_t z = c->owed_bytes; z && nb < SERVE_WRITE_BUFS;) {
			size_t k = z < SERVE_BUF_BYTES ? (size_t)z : SERVE_BUF_BYTES;
			b[nb++] = uv_buf_init(s->zeros, (unsigned)k);
			z -= k;
			zero_n += k;
		}
		int n = uv_try_write(&c->u.s, b, nb);
		if (n > 0) {
			conn_consume(c, (size_t)n);
			continue;
		}
		if (n == UV_EAGAIN || n == 0) {
			c->wreq.data = c;
			int rc = uv_write(&c->wreq, &c->u.s, b, nb, on_write);
			if (rc) {
				serve_log(s, "%s: cannot write: %s; closing", c->name, uv_strerror(rc));
				conn_close(c);
				return;
			}
			c->writing = 1;
			c->writing_out = out_n;
			c->writing_zero = zero_n;
			return;
		}
		if (c->state == C_BODY && c->left_bytes != c->msg_bytes)
			serve_log(s, "%s: reply failed mid-message: %s; closing", c->name, uv_strerror(n));
		conn_close(c);
		return;
	}
	c->out.off = c->out.len = 0;
	if (c->out.cap > SERVE_OUT_KEEP_BYTES) {
		free(c->out.p);
		c->out = (struct conn_buf){ 0 };
	}
	if (c->close_after_flush) {
		conn_close(c);
		return;
	}
	conn_resume(c);
}

/* Answer a hello with status st in an ack of len bytes, then close. */
static void conn_refuse(struct serve_conn *c, const struct net_hello *h, enum net_hello_status st, size_t len)
{
	struct serve *s = c->srv;
	uint8_t ack[NET_HELLO_BYTES];
	struct net_hello a = { NET_HELLO_VERSION, NET_ACK, st, h->msg_bytes, h->reply_bytes, 0 };
	c->state = C_DONE;
	s->st.bad_clients++;
	serve_log(s, "%s: hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s; closing", c->name,
		  h->version, h->msg_bytes, h->reply_bytes, net_hello_status_str(st));
	net_hello_encode(ack, &a);
	conn_stop_reading(c);
	if (conn_queue(c, ack, len)) {
		conn_close(c);
		return;
	}
	c->close_after_flush = 1;
	conn_flush(c);
}

/*
 * A control hello (the peer's fluids, serve_ctl.c): the ack carries the
 * control version this peer speaks; accepted, c reads control frames.
 */
static void conn_control_hello(struct serve_conn *c, const struct net_hello *h)
{
	struct serve *s = c->srv;
	enum net_hello_status st = serve_ctl_hello(s, c, h);
	struct net_hello a = { NET_HELLO_VERSION, NET_ACK, st, CTL_VERSION, 0, 0 };
	uint8_t ack[NET_HELLO_BYTES];
	net_hello_encode(ack, &a);
	if (st != NET_HELLO_OK) {
		c->state = C_DONE;
		s->st.bad_clients++;
		serve_log(s, "%s: control hello refused (control version %" PRIu32 "): %s; closing", c->name, h->msg_bytes,
			  net_hello_status_str(st));
		conn_stop_reading(c);
		if (conn_queue(c, ack, sizeof ack)) {
			conn_close(c);
			return;
		}
		c->close_after_flush = 1;
		conn_flush(c);
		return;
	}
	c->proto = P_CTL;
	c->state = C_BODY;
	if (conn_queue(c, ack, sizeof ack)) {
		serve_log(s, "%s: out of memory for the ack; closing", c->name);
		conn_close(c);
		return;
	}
	serve_ctl_opened(s);
	conn_flush(c);
}

/* The head of the hello came (is it one, of this version?), or all of it. */
static void conn_hello(struct serve_conn *c)
{
	struct serve *s = c->srv;
	struct net_hello h;
	if (net_hello_decode(c->hello, c->hello_got, &h)) {
		c->state = C_DONE;
		s->st.bad_clients++;
		serve_log(s, "%s: not a displace hello (starts %02x%02x%02x%02x); closing", c->name, c->hello[0],
			  c->hello[1], c->hello[2], c->hello[3]);
		conn_close(c);
		return;
	}
	if (h.version != NET_HELLO_VERSION) {
		/* the head only: what a client of that version reads */
		conn_refuse(c, &h, NET_HELLO_BAD_VERSION, NET_HELLO_HEAD_BYTES);
		return;
	}
	if (c->hello_got < NET_HELLO_BYTES)
		return; /* the cookie field comes next */
	if (h.kind == NET_CONTROL) {
		conn_control_hello(c, &h);
		return;
	}
	enum net_hello_status st = net_hello_check(&h, NET_MAX_MSG_BYTES, 0, NET_MAX_MSG_BYTES);
	if (st == NET_HELLO_OK && h.cookie)
		st = NET_HELLO_BAD_FORM; /* a stream has proved its address: the field stays 0 */
	if (st != NET_HELLO_OK) {
		conn_refuse(c, &h, st, NET_HELLO_BYTES);
		return;
	}
	struct net_hello a = { NET_HELLO_VERSION, NET_ACK, NET_HELLO_OK, h.msg_bytes, h.reply_bytes, 0 };
	uint8_t ack[NET_HELLO_BYTES];
	net_hello_encode(ack, &a);
	if (conn_queue(c, ack, sizeof ack)) {
		serve_log(s, "%s: out of memory for the ack; closing", c->name);
		conn_close(c);
		return;
	}
	c->state = C_BODY;
	c->msg_bytes = h.msg_bytes;
	c->reply_bytes = h.reply_bytes;
	c->left_bytes = h.msg_bytes;
	conn_flush(c);
}

/* part of a message, or of an RPC record, came and the rest has not */
static int conn_mid(const struct serve_conn *c)
{
	if (c->proto == P_RPC)
		return rpc_wire_in_record(c->rpc);
	if (c->proto == P_CTL)
		return serve_ctl_mid(c->srv);
	return (c->state == C_HELLO && c->hello_got) || (c->state == C_BODY && c->left_bytes != c->msg_bytes);
}

static void conn_ended(struct serve_conn *c, ssize_t err)
{
	struct serve *s = c->srv;
	const char *how = err == UV_EOF ? "closed" : uv_strerror((int)err);
	if (conn_mid(c)) {
		s->st.bad_clients++;
		if (c->proto == P_RPC)
			serve_log(s, "%s: %s mid-record; closing", c->name, how);
		else if (c->proto == P_CTL)
			serve_log(s, "%s: %s mid-control-frame; closing", c->name, how);
		else if (c->state == C_HELLO)
			serve_log(s, "%s: %s in the hello, after %u of %u bytes; closing", c->name, how, c->hello_got,
				  NET_HELLO_BYTES);
		else
			serve_log(s, "%s: %s mid-message, after %" PRIu32 " of %" PRIu32 " bytes; closing", c->name, how,
				  c->msg_bytes - c->left_bytes, c->msg_bytes);
		conn_close(c);
		return;
	}
	if (err != UV_EOF || c->state != C_BODY) {
		conn_close(c);
		return;
	}
	/* a clean end of sending: the client may still read what it is owed */
	conn_stop_reading(c);
	c->close_after_flush = 1;
	conn_flush(c);
}

static void read_hello_stream(struct serve_conn *c, const uint8_t *p, size_t n)
{
	struct serve *s = c->srv;
	while (c->state == C_HELLO && n) {
		/* the head first: it says whether the rest is of this version */
		size_t want = c->hello_got < NET_HELLO_HEAD_BYTES ? NET_HELLO_HEAD_BYTES : NET_HELLO_BYTES;
		size_t take = want - c->hello_got;
		if (take > n)
			take = n;
		memcpy(c->hello + c->hello_got, p, take);
		c->hello_got += (unsigned)take;
		p += take;
		n -= take;
		if (c->hello_got == want)
			conn_hello(c);
	}
	if (c->state != C_BODY || c->closing || !n)
		return;
	/* count whole messages; a reply is owed for each one completed */
	s->st.rx_bytes += n;
	if (n < c->left_bytes) {
		c->left_bytes -= (uint32_t)n;
	} else {
		n -= c->left_bytes;
		uint64_t whole = 1 + n / c->msg_bytes;
		c->left_bytes = c->msg_bytes - (uint32_t)(n % c->msg_bytes);
		s->st.messages += whole;
		c->owed_bytes += whole * c->reply_bytes;
	}
	if (c->owed_bytes)
		conn_flush(c);
}

static const char *rpc_outcome_str(enum rpc_wire_outcome o)
{
	switch (o) {
	case RPC_WIRE_PROG_UNAVAIL:
		return "a call to another RPC program";
	case RPC_WIRE_PROG_MISMATCH:
		return "a call to another version of the program";
	case RPC_WIRE_PROC_UNAVAIL:
		return "a call to another procedure";
	case RPC_WIRE_GARBAGE_ARGS:
		return "a DISPLACE_SINK call that does not decode";
	case RPC_WIRE_RPC_MISMATCH:
		return "a call of another RPC version";
	case RPC_WIRE_AUTH_REJECTED:
		return "a call with credentials other than none or sys";
	default:
		return NULL;
	}
}

static void read_rpc(struct serve_conn *c, const uint8_t *p, size_t n)
{
	struct serve *s = c->srv;
	while (n) {
		size_t used;
		struct rpc_wire_call call;
		const char *why = "";
		int rc = rpc_wire_feed(c->rpc, p, n, &used, &call, &why);
		p += used;
		n -= used;
		if (rc < 0) {
			s->st.bad_clients++;
			serve_log(s, "%s: %s; closing", c->name, why);
			conn_close(c);
			return;
		}
		if (rc == 0)
			break;
		c->state = C_BODY;
		const char *odd = rpc_outcome_str(call.outcome);
		if (odd) {
			s->st.bad_clients++;
			serve_log(s, "%s: %s; answered with an error", c->name, odd);
		} else if (call.outcome == RPC_WIRE_COUNT) {
			s->st.rpc_calls++;
		}
		uint8_t r[RPC_WIRE_REPLY_MAX_BYTES];
		if (conn_queue(c, r, rpc_wire_reply(&call, r))) {
			serve_log(s, "%s: out of memory for a reply; closing", c->name);
			conn_close(c);
			return;
		}
	}
	conn_flush(c);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct serve_conn *c = stream->data;
	if (nread == 0 || c->closing)
		return;
	if (nread < 0) {
		conn_ended(c, nread);
		return;
	}
	c->last_ms = uv_now(&c->srv->loop);
	if (c->proto == P_RPC)
		read_rpc(c, (const uint8_t *)buf->base, (size_t)nread);
	else if (c->proto == P_CTL)
		serve_ctl_read(c->srv, (const uint8_t *)buf->base, (size_t)nread);
	else
		read_hello_stream(c, (const uint8_t *)buf->base, (size_t)nread);
	if (!c->closing && conn_owed_too_much(c))
		conn_stop_reading(c);
}

bool serve_stream_sweep(struct serve *s, uint64_t now)
{
	/* a stall is silence mid-message: 10 s, or the idle timeout if shorter */
	uint64_t stall_ms = s->cfg.idle_ms < SERVE_STALL_MS ? s->cfg.idle_ms : SERVE_STALL_MS;
	for (struct serve_conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		uint64_t quiet = now - c->last_ms;
		if (c->state == C_HELLO && now >= c->hello_deadline_ms) {
			s->st.bad_clients++;
			if (c->proto == P_RPC)
				serve_log(s, "%s: no RPC call within %d s; closing", c->name, SERVE_HELLO_TIMEOUT_MS / 1000);
			else
				serve_log(s, "%s: no hello within %d s (%u of %u bytes); closing", c->name,
					  SERVE_HELLO_TIMEOUT_MS / 1000, c->hello_got, NET_HELLO_BYTES);
			conn_close(c);
		} else if (c->reading && conn_mid(c) && quiet >= stall_ms) {
			/* reading, so the pause is the client's: half a message or record, held */
			s->st.bad_clients++;
			serve_log(s, "%s: stalled for %" PRIu64 " s mid-%s; closing", c->name, quiet / 1000,
				  c->proto == P_RPC   ? "record"
				  : c->proto == P_CTL ? "control-frame"
				  : c->state == C_HELLO ? "hello"
							: "message");
			conn_close(c);
		} else if (quiet >= s->cfg.idle_ms && !(c->proto == P_CTL && serve_ctl_running(s))) {
			/* a control connection is not idle while its fluids run: their max_ns bounds it */
			serve_log(s, "%s: silent for %" PRIu64 " s, the idle timeout; closing", c->name, quiet / 1000);
			conn_close(c);
		}
	}
	return s->nconns > 0;
}

/* The name and the source of a new connection. */
static void conn_identify(struct serve_conn *c, int is_tcp)
{
	const char *pre = c->proto == P_RPC ? "rpc " : "";
	if (is_tcp) {
		struct sockaddr_storage ss;
		char addr[72];
		int len = sizeof ss;
		if (uv_tcp_getpeername(&c->u.tcp, (struct sockaddr *)&ss, &len)) {
			snprintf(c->name, sizeof c->name, "%stcp client", pre);
			return;
		}
		net_sockaddr_format((struct sockaddr *)&ss, addr, sizeof addr);
		snprintf(c->name, sizeof c->name, "%s%s", pre, addr);
		if (ss.ss_family == AF_INET) {
			c->src.family = AF_INET;
			memcpy(c->src.addr, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		} else if (ss.ss_family == AF_INET6) {
			const struct in6_addr *a6 = &((struct sockaddr_in6 *)&ss)->sin6_addr;
			if (IN6_IS_ADDR_V4MAPPED(a6)) {
				c->src.family = AF_INET;
				memcpy(c->src.addr, a6->s6_addr + 12, 4);
			} else {
				c->src.family = AF_INET6;
				memcpy(c->src.addr, a6->s6_addr, 8); /* one host's /64 */
			}
		}
		return;
	}
	uv_os_fd_t fd;
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (uv_fileno(&c->u.h, &fd) == 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		snprintf(c->name, sizeof c->name, "unix client pid %d", (int)cred.pid);
		c->src.family = AF_UNIX;
		memcpy(c->src.addr, &cred.uid, sizeof cred.uid);
	} else {
		snprintf(c->name, sizeof c->name, "unix client");
	}
}

static int same_src(const struct conn_src *a, const struct conn_src *b)
{
	return a->family && a->family == b->family && !memcmp(a->addr, b->addr, sizeof a->addr);
}

/*
 * Whether the new connection c may stay: within the limits, or by closing
 * the connection silent the longest (from the same source, if that limit
 * is the one reached), if it has been silent for live_ms. One log line.
 */
static bool conn_make_room(struct serve *s, struct serve_conn *c)
{
	uint64_t now = uv_now(&s->loop);
	unsigned from_src = 0;
	struct serve_conn *stalest = NULL, *stalest_src = NULL;
	for (struct serve_conn *x = s->conns; x; x = x->next) {
		if (x == c)
			continue;
		int same = same_src(&x->src, &c->src);
		from_src += (unsigned)same;
		if (now - x->last_ms < s->live_ms)
			continue;
		if (!stalest || x->last_ms < stalest->last_ms)
			stalest = x;
		if (same && (!stalest_src || x->last_ms < stalest_src->last_ms))
			stalest_src = x;
	}
	char limit[96];
	struct serve_conn *victim;
	if (from_src >= s->cfg.max_per_source) {
		snprintf(limit, sizeof limit, "%u connections from its source, the limit (--max-per-source)", from_src);
		victim = stalest_src;
	} else if (s->nconns - 1 >= s->max_conns) {
		snprintf(limit, sizeof limit, "%u connections, the limit (--max-conns%s)", s->nconns - 1,
			 s->max_conns < s->cfg.max_conns ? ", lowered to fit the fd limit" : "");
		victim = stalest;
	} else {
		return true;
	}
	if (!victim) {
		/* one line, then a count: a flood at the limit does not flood the log */
		if (!s->refusing)
			serve_log(s, "%s: refused: %s, all active; closing (more are counted until a connection closes)",
				  c->name, limit);
		else
			s->refused_quiet++;
		s->refusing = 1;
		return false;
	}
	serve_log(s, "%s: closed, silent for %" PRIu64 " s, to make room for %s: %s", victim->name,
		  (now - victim->last_ms) / 1000, c->name, limit);
	conn_close(victim);
	return true;
}

static void on_connection(uv_stream_t *server, int status)
{
	struct serve *s = server->data;
	int is_tcp = server != (uv_stream_t *)&s->unix_listen;
	enum conn_proto proto = server == (uv_stream_t *)&s->rpc ? P_RPC : P_HELLO;
	const char *kind = proto == P_RPC ? "rpc" : is_tcp ? "tcp" : "unix";
	if (status < 0) {
		s->st.bad_clients++;
		if (status == UV_EMFILE || status == UV_ENFILE) {
			/* libuv drops the pending connections; say it once until a descriptor frees */
			if (!s->fd_starved)
				serve_log(s, "out of file descriptors with %u connections open: new connections are dropped until one closes",
					  s->nconns);
			s->fd_starved = 1;
			return;
		}
		serve_log(s, "cannot accept a %s connection: %s", kind, uv_strerror(status));
		return;
	}
	struct serve_conn *c = calloc(1, sizeof *c);
	if (c && proto == P_RPC && !(c->rpc = calloc(1, sizeof *c->rpc))) {
		free(c);
		c = NULL;
	}
	if (!c) {
		serve_log(s, "out of memory for a new connection");
		return;
	}
	c->srv = s;
	c->proto = proto;
	int rc = is_tcp ? uv_tcp_init(&s->loop, &c->u.tcp) : uv_pipe_init(&s->loop, &c->u.pipe, 0);
	if (rc) {
		free(c->rpc);
		free(c);
		serve_log(s, "cannot accept a %s connection: %s", kind, uv_strerror(rc));
		return;
	}
	c->u.h.data = c;
	/* linked first, so conn_close can unlink it whatever happens next */
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	c->state = C_HELLO;
	c->last_ms = uv_now(&s->loop);
	c->hello_deadline_ms = c->last_ms + SERVE_HELLO_TIMEOUT_MS;
	rc = uv_accept(server, &c->u.s);
	if (rc) {
		serve_log(s, "cannot accept a %s connection: %s", kind, uv_strerror(rc));
		conn_close(c);
		return;
	}
	conn_identify(c, is_tcp);
	if (!conn_make_room(s, c)) {
		s->st.bad_clients++;
		c->refused = 1;
		conn_close(c);
		return;
	}
	s->st.conns++;
	if (is_tcp)
		uv_tcp_nodelay(&c->u.tcp, 1); /* a small reply leaves at once */
	serve_sweep_arm(s);
	rc = uv_read_start(&c->u.s, on_alloc, on_read);
	if (rc) {
		serve_log(s, "%s: cannot read: %s; closing", c->name, uv_strerror(rc));
		conn_close(c);
		return;
	}
	c->reading = 1;
}

/* Replace a socket file nobody listens on; refuse a live one or another file. */
static int unix_prepare(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		int e = errno;
		snprintf(err, errlen, "cannot use unix socket %s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "cannot bind unix %s: it exists and is not a socket", path);
		return -EEXIST;
	}
	struct net_addr a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || net_parse_unix(path, &a)) {
		int e = fd < 0 ? errno : ENAMETOOLONG;
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot use unix socket %s: %s", path, strerror(e));
		return -e;
	}
	int rc = connect(fd, (struct sockaddr *)&a.ss, a.len);
	int e = errno;
	close(fd);
	if (rc == 0) {
		snprintf(err, errlen, "cannot bind unix %s: another server listens there", path);
		return -EADDRINUSE;
	}
	if (e != ECONNREFUSED) {
		snprintf(err, errlen, "cannot use unix socket %s: %s", path, strerror(e));
		return -e;
	}
	if (unlink(path)) {
		e = errno;
		snprintf(err, errlen, "cannot remove the stale unix socket %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * A bound unix socket, by plain bind(2): uv_pipe_bind reports a missing
 * directory as "permission denied" (it maps ENOENT to EACCES).
 */
static int unix_bind(const char *path, int *out, char *err, size_t errlen)
{
	struct net_addr a;
	int rc = net_parse_unix(path, &a);
	if (rc) {
		snprintf(err, errlen, "cannot bind unix %s: %s", path, strerror(-rc));
		return rc;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a.ss, a.len)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		char dir[NET_UNIX_PATH_MAX];
		snprintf(dir, sizeof dir, "%s", path);
		if (e == ENOENT)
			snprintf(err, errlen, "cannot bind unix %s: directory '%s' does not exist", path, dirname(dir));
		else if (e == ENOTDIR)
			snprintf(err, errlen, "cannot bind unix %s: a part of '%s' is not a directory", path, dirname(dir));
		else
			snprintf(err, errlen, "cannot bind unix %s: %s", path, strerror(e));
		return -e;
	}
	*out = fd;
	return 0;
}

/* bind a tcp listener to a, listen, and read back the address bound */
static int listen_tcp(struct serve *s, uv_tcp_t *t, struct net_addr *a, const char *what, char *err, size_t errlen)
{
	char name[80];
	int len = sizeof a->ss;
	int rc;
	net_format_addr(a, name, sizeof name);
	if ((rc = uv_tcp_init(&s->loop, t)))
		goto fail;
	t->data = s;
	if ((rc = uv_tcp_bind(t, (struct sockaddr *)&a->ss, 0)) ||
	    (rc = uv_listen((uv_stream_t *)t, SOMAXCONN, on_connection)) ||
	    (rc = uv_tcp_getsockname(t, (struct sockaddr *)&a->ss, &len)))
		goto fail;
	a->len = (socklen_t)len;
	return 0;
fail:
	snprintf(err, errlen, "cannot bind %s %s: %s", what, name, uv_strerror(rc));
	return rc;
}

int serve_stream_open_tcp(struct serve *s, char *err, size_t errlen)
{
	s->tcp_addr = s->cfg.listen;
	return listen_tcp(s, &s->tcp, &s->tcp_addr, "tcp", err, errlen);
}

int serve_stream_open_rpc(struct serve *s, unsigned port, char *err, size_t errlen)
{
	s->rpc_addr = s->cfg.listen;
	net_addr_set_port(&s->rpc_addr, port);
	return listen_tcp(s, &s->rpc, &s->rpc_addr, "rpc", err, errlen);
}

int serve_stream_open_unix(struct serve *s, char *err, size_t errlen)
{
	unsigned base = net_addr_port(&s->cfg.listen);
	int rc, fd = -1;
	if (s->cfg.unix_mode == SERVE_UNIX_NONE)
		return 0;
	if (s->cfg.unix_mode == SERVE_UNIX_PATH)
		snprintf(s->unix_path, sizeof s->unix_path, "%s", s->cfg.unix_path);
	else if (base)
		snprintf(s->unix_path, sizeof s->unix_path, NET_UNIX_PATH_FMT, base);
	else
		snprintf(s->unix_path, sizeof s->unix_path, "/tmp/displace-serve-%d.sock", (int)getpid());
	if ((rc = unix_prepare(s->unix_path, err, errlen)) || (rc = unix_bind(s->unix_path, &fd, err, errlen)))
		return rc;
	s->unix_bound = 1;
	if ((rc = uv_pipe_init(&s->loop, &s->unix_listen, 0))) {
		close(fd);
		goto fail;
	}
	s->unix_listen.data = s;
	if ((rc = uv_pipe_open(&s->unix_listen, fd))) {
		close(fd);
		goto fail;
	}
	if ((rc = uv_listen((uv_stream_t *)&s->unix_listen, SOMAXCONN, on_connection)))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot listen on unix %s: %s", s->unix_path, uv_strerror(rc));
	return rc;
}

int serve_conn_send(struct serve_conn *c, const void *p, size_t n, bool close_after)
{
	if (c->closing)
		return 0;
	if (conn_queue(c, p, n)) {
		serve_log(c->srv, "%s: out of memory for an answer; closing", c->name);
		conn_close(c);
		return -ENOMEM;
	}
	if (close_after) {
		conn_stop_reading(c);
		c->state = C_DONE;
		c->close_after_flush = 1;
	}
	conn_flush(c);
	return 0;
}

const char *serve_conn_name(const struct serve_conn *c)
{
	return c->name;
}

void serve_stream_close_all(struct serve *s)
{
	while (s->conns)
		conn_close(s->conns);
}
