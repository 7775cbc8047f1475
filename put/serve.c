/*
 * serve.c - the peer: libuv sink-and-reply server (tcp, udp, unix) and the
 * ONC RPC service. The design notes are in put/serve.h, the hello in
 * put/net.h.
 */
#include "put/serve.h"
#include "common/dclock.h"
#include "put/net.h"

#include "displace_rpc.h"

/* xdrproc_t is variadic; casting through void (*)(void) says the mismatch is meant */
#define XDRPROC(f) ((xdrproc_t)(void (*)(void))(f))

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#define SERVE_BUF_BYTES (256u * 1024)        /* shared read buffer, and the reply source */
#define SERVE_HELLO_TIMEOUT_MS 10000
#define SERVE_SWEEP_MS 1000
#define SERVE_MAX_CONNS 4096
#define SERVE_OWED_MAX_BYTES (1u << 20)      /* stop reading a client owed more than this */
#define SERVE_WRITE_BUFS 4                   /* libuv copies no buf array up to 4 */
#define SERVE_UDP_SLOTS 4096                 /* a power of 2 */
#define SERVE_LOG_BURST 20
#define SERVE_LOG_WINDOW_NS 10000000000ull
#define SERVE_RPC_CHUNK_BYTES (64u * 1024)   /* a multiple of 4: XDR padding only at the end */
#define SERVE_RPC_JOIN_NS 1000000000ull

enum conn_state { C_HELLO, C_BODY, C_DONE };

struct conn {
	union {
		uv_handle_t h;
		uv_stream_t s;
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	} u;
	struct serve *srv;
	struct conn *prev, *next;
	enum conn_state state;
	int closing, reading, writing, close_after_flush;
	uint64_t hello_deadline_ms;
	uint8_t hello[NET_HELLO_BYTES];
	unsigned hello_got;
	uint8_t ack[NET_HELLO_BYTES];
	unsigned ack_off, ack_len;
	uint32_t msg_bytes, reply_bytes, left_bytes; /* left: of the message being received */
	uint64_t owed_bytes;                          /* reply bytes not yet written */
	size_t writing_ack, writing_zero;             /* in the write request in flight */
	uv_write_t wreq;
	char name[72];
};

union udp_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

struct udp_peer {
	union udp_addr a;
	uint32_t msg_bytes, reply_bytes;
	int used;
};

struct serve {
	struct serve_config cfg;
	uv_loop_t loop;
	int loop_ready;
	uv_tcp_t tcp;
	uv_udp_t udp;
	uv_pipe_t unix_listen;
	uv_signal_t sigint, sigterm;
	uv_pipe_t in;
	uv_timer_t sweep;
	int unix_bound; /* we made the socket file: remove it at close */
	char unix_path[NET_UNIX_PATH_MAX];
	struct net_addr tcp_addr, udp_addr, rpc_addr;
	struct conn *conns;
	unsigned nconns, nhello;
	struct udp_peer *peers;
	char *buf;   /* reads land here and are discarded */
	char *zeros; /* replies come from here */
	const char *stop_reason;
	int stopping;

	int rpc_fd, rpc_efd;
	SVCXPRT *rpc_xprt;
	int rpc_registered;
	pthread_t rpc_thread;
	int rpc_running;
	atomic_int rpc_done;

	pthread_mutex_t log_lock;
	uint64_t log_window_ns;
	unsigned log_count;
	uint64_t log_suppressed;

	struct serve_stats st;
	atomic_uint_fast64_t rpc_calls, rpc_bad;
};

/* the RPC dispatcher has no user pointer; one server per process */
static struct serve *rpc_srv;


/* One line per bad client, at most SERVE_LOG_BURST per window; then counted. */
__attribute__((format(printf, 2, 3))) static void slog(struct serve *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!s->cfg.log)
		return;
	pthread_mutex_lock(&s->log_lock);
	uint64_t now = dclock_mono_ns();
	if (now - s->log_window_ns >= SERVE_LOG_WINDOW_NS) {
		if (s->log_suppressed) {
			snprintf(line, sizeof line, "%" PRIu64 " more messages about bad clients suppressed",
				 s->log_suppressed);
			s->cfg.log(s->cfg.log_ctx, line);
		}
		s->log_window_ns = now;
		s->log_count = 0;
		s->log_suppressed = 0;
	}
	if (s->log_count < SERVE_LOG_BURST) {
		s->log_count++;
		va_start(ap, fmt);
		vsnprintf(line, sizeof line, fmt, ap);
		va_end(ap);
		s->cfg.log(s->cfg.log_ctx, line);
	} else {
		s->log_suppressed++;
	}
	pthread_mutex_unlock(&s->log_lock);
}

void serve_config_init(struct serve_config *c)
{
	memset(c, 0, sizeof *c);
	net_parse_hostport("127.0.0.1", NET_DEFAULT_PORT, &c->listen);
	c->unix_mode = SERVE_UNIX_DEFAULT;
	c->watch_stdin = 1;
}

int serve_config_listen(struct serve_config *c, const char *s)
{
	struct net_addr a;
	int rc = net_parse_hostport(s, NET_DEFAULT_PORT, &a);
	if (rc)
		return rc;
	if (net_addr_port(&a) + NET_RPC_PORT_OFFSET > 65535)
		return -ERANGE;
	c->listen = a;
	return 0;
}

int serve_config_unix(struct serve_config *c, const char *path)
{
	if (!path || !*path)
		return -EINVAL;
	if (!strcmp(path, "none")) {
		c->unix_mode = SERVE_UNIX_NONE;
		return 0;
	}
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return -EINVAL;
	if (strlen(path) >= sizeof c->unix_path)
		return -ENAMETOOLONG;
	strcpy(c->unix_path, path);
	c->unix_mode = SERVE_UNIX_PATH;
	return 0;
}

/* --- stream connections ------------------------------------------------- */

static void conn_flush(struct conn *c);

static void on_conn_closed(uv_handle_t *h)
{
	free(h->data);
}

static void conn_close(struct conn *c)
{
	struct serve *s = c->srv;
	if (c->closing)
		return;
	c->closing = 1;
	if (c->state == C_HELLO)
		s->nhello--;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	uv_close(&c->u.h, on_conn_closed);
}

/* n bytes were written: the ack first, then owed reply bytes */
static void conn_consume(struct conn *c, size_t n)
{
	size_t a = c->ack_len - c->ack_off;
	if (a > n)
		a = n;
	c->ack_off += (unsigned)a;
	c->owed_bytes -= n - a;
}

static void on_write(uv_write_t *req, int status)
{
	struct conn *c = req->data;
	c->writing = 0;
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		if (c->state == C_BODY && c->left_bytes != c->msg_bytes)
			slog(c->srv, "%s: reply failed mid-message: %s; closing", c->name, uv_strerror(status));
		conn_close(c);
		return;
	}
	conn_consume(c, c->writing_ack + c->writing_zero);
	conn_flush(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct serve *s = ((struct conn *)h->data)->srv;
	(void)suggested;
	/* one loop thread: the read callback consumes the buffer before the next read */
	*buf = uv_buf_init(s->buf, SERVE_BUF_BYTES);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

static void conn_resume(struct conn *c)
{
	if (c->reading || c->closing || c->state != C_BODY || c->close_after_flush ||
	    c->owed_bytes > SERVE_OWED_MAX_BYTES)
		return;
	if (uv_read_start(&c->u.s, on_alloc, on_read) == 0)
		c->reading = 1;
}

/*
 * Write the ack and the owed reply bytes: uv_try_write while the socket
 * takes them, then one uv_write at a time. Replies are all alike, so
 * the replies to many messages are one count, never a queue.
 */
static void conn_flush(struct conn *c)
{
	struct serve *s = c->srv;
	if (c->closing || c->writing)
		return;
	while (c->ack_off < c->ack_len || c->owed_bytes) {
		uv_buf_t b[SERVE_WRITE_BUFS];
		unsigned nb = 0;
		size_t ack_n = 0, zero_n = 0;
		if (c->ack_off < c->ack_len) {
			ack_n = c->ack_len - c->ack_off;
			b[nb++] = uv_buf_init((char *)c->ack + c->ack_off, (unsigned)ack_n);
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
				slog(s, "%s: cannot write: %s; closing", c->name, uv_strerror(rc));
				conn_close(c);
				return;
			}
			c->writing = 1;
			c->writing_ack = ack_n;
			c->writing_zero = zero_n;
			return;
		}
		if (c->state == C_BODY && c->left_bytes != c->msg_bytes)
			slog(s, "%s: reply failed mid-message: %s; closing", c->name, uv_strerror(n));
		conn_close(c);
		return;
	}
	if (c->close_after_flush) {
		conn_close(c);
		return;
	}
	conn_resume(c);
}

static void conn_stop_reading(struct conn *c)
{
	if (c->reading) {
		uv_read_stop(&c->u.s);
		c->reading = 0;
	}
}

static void conn_hello(struct conn *c)
{
	struct serve *s = c->srv;
	struct net_hello h;
	s->nhello--;
	if (net_hello_decode(c->hello, &h)) {
		c->state = C_DONE;
		s->st.bad_clients++;
		slog(s, "%s: not a displace hello (starts %02x%02x%02x%02x); closing", c->name, c->hello[0],
		     c->hello[1], c->hello[2], c->hello[3]);
		conn_close(c);
		return;
	}
	enum net_hello_status st = net_hello_check(&h, NET_MAX_MSG_BYTES, 0, NET_MAX_MSG_BYTES);
	struct net_hello ack = { NET_HELLO_VERSION, NET_ACK, st, h.msg_bytes, h.reply_bytes };
	net_hello_encode(c->ack, &ack);
	c->ack_off = 0;
	c->ack_len = NET_HELLO_BYTES;
	if (st != NET_HELLO_OK) {
		c->state = C_DONE;
		s->st.bad_clients++;
		slog(s, "%s: hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s; closing", c->name,
		     h.version, h.msg_bytes, h.reply_bytes, net_hello_status_str(st));
		conn_stop_reading(c);
		c->close_after_flush = 1;
		conn_flush(c);
		return;
	}
	c->state = C_BODY;
	c->msg_bytes = h.msg_bytes;
	c->reply_bytes = h.reply_bytes;
	c->left_bytes = h.msg_bytes;
	conn_flush(c);
}

static void conn_ended(struct conn *c, ssize_t err)
{
	struct serve *s = c->srv;
	int mid = (c->state == C_HELLO && c->hello_got) || (c->state == C_BODY && c->left_bytes != c->msg_bytes);
	if (mid) {
		s->st.bad_clients++;
		if (c->state == C_HELLO)
			slog(s, "%s: %s in the hello, after %u of %u bytes; closing", c->name,
			     err == UV_EOF ? "closed" : uv_strerror((int)err), c->hello_got, NET_HELLO_BYTES);
		else
			slog(s, "%s: %s mid-message, after %" PRIu32 " of %" PRIu32 " bytes; closing", c->name,
			     err == UV_EOF ? "closed" : uv_strerror((int)err), c->msg_bytes - c->left_bytes,
			     c->msg_bytes);
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

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *c = stream->data;
	struct serve *s = c->srv;
	if (nread == 0 || c->closing)
		return;
	if (nread < 0) {
		conn_ended(c, nread);
		return;
	}
	const uint8_t *p = (const uint8_t *)buf->base;
	size_t n = (size_t)nread;
	if (c->state == C_HELLO) {
		size_t take = NET_HELLO_BYTES - c->hello_got;
		if (take > n)
			take = n;
		memcpy(c->hello + c->hello_got, p, take);
		c->hello_got += (unsigned)take;
		p += take;
		n -= take;
		if (c->hello_got < NET_HELLO_BYTES)
			return;
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
	if (c->owed_bytes > SERVE_OWED_MAX_BYTES)
		conn_stop_reading(c);
}

static void on_sweep(uv_timer_t *t)
{
	struct serve *s = t->data;
	uint64_t now = uv_now(&s->loop);
	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->state == C_HELLO && now >= c->hello_deadline_ms) {
			s->st.bad_clients++;
			slog(s, "%s: no hello within %d s (%u of %u bytes); closing", c->name,
			     SERVE_HELLO_TIMEOUT_MS / 1000, c->hello_got, NET_HELLO_BYTES);
			conn_close(c);
		}
	}
	if (!s->nhello)
		uv_timer_stop(t);
}

static void conn_name(struct conn *c, int is_tcp)
{
	if (is_tcp) {
		struct sockaddr_storage ss;
		int len = sizeof ss;
		if (uv_tcp_getpeername(&c->u.tcp, (struct sockaddr *)&ss, &len) == 0)
			net_sockaddr_format((struct sockaddr *)&ss, c->name, sizeof c->name);
		else
			snprintf(c->name, sizeof c->name, "tcp client");
		return;
	}
	uv_os_fd_t fd;
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (uv_fileno(&c->u.h, &fd) == 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
		snprintf(c->name, sizeof c->name, "unix client pid %d", (int)cred.pid);
	else
		snprintf(c->name, sizeof c->name, "unix client");
}

static void on_connection(uv_stream_t *server, int status)
{
	struct serve *s = server->data;
	int is_tcp = server == (uv_stream_t *)&s->tcp;
	if (status < 0) {
		slog(s, "cannot accept a %s connection: %s", is_tcp ? "tcp" : "unix", uv_strerror(status));
		return;
	}
	struct conn *c = calloc(1, sizeof *c);
	if (!c) {
		slog(s, "out of memory for a new connection");
		return;
	}
	c->srv = s;
	c->u.h.data = c;
	int rc = is_tcp ? uv_tcp_init(&s->loop, &c->u.tcp) : uv_pipe_init(&s->loop, &c->u.pipe, 0);
	if (rc) {
		free(c);
		slog(s, "cannot accept a connection: %s", uv_strerror(rc));
		return;
	}
	c->u.h.data = c;
	/* linked first, so conn_close can unlink it whatever happens next */
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->nconns++;
	s->nhello++;
	c->state = C_HELLO;
	rc = uv_accept(server, &c->u.s);
	if (rc) {
		slog(s, "cannot accept a connection: %s", uv_strerror(rc));
		conn_close(c);
		return;
	}
	conn_name(c, is_tcp);
	if (s->nconns > SERVE_MAX_CONNS) {
		s->st.bad_clients++;
		slog(s, "%s: more than %d connections; closing", c->name, SERVE_MAX_CONNS);
		conn_close(c);
		return;
	}
	s->st.conns++;
	if (is_tcp)
		uv_tcp_nodelay(&c->u.tcp, 1); /* a small reply leaves at once */
	c->hello_deadline_ms = uv_now(&s->loop) + SERVE_HELLO_TIMEOUT_MS;
	if (!uv_is_active((uv_handle_t *)&s->sweep))
		uv_timer_start(&s->sweep, on_sweep, SERVE_SWEEP_MS, SERVE_SWEEP_MS);
	rc = uv_read_start(&c->u.s, on_alloc, on_read);
	if (rc) {
		slog(s, "%s: cannot read: %s; closing", c->name, uv_strerror(rc));
		conn_close(c);
		return;
	}
	c->reading = 1;
}

/* --- udp ------------------------------------------------------------------ */

static uint32_t udp_hash(const union udp_addr *a)
{
	const uint8_t *p;
	size_t n;
	uint32_t h = 2166136261u; /* FNV-1a */
	if (a->sa.sa_family == AF_INET6) {
		p = (const uint8_t *)&a->in6.sin6_addr;
		n = sizeof a->in6.sin6_addr;
		h = (h ^ (uint32_t)a->in6.sin6_port) * 16777619u;
	} else {
		p = (const uint8_t *)&a->in.sin_addr;
		n = sizeof a->in.sin_addr;
		h = (h ^ (uint32_t)a->in.sin_port) * 16777619u;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h & (SERVE_UDP_SLOTS - 1);
}

static int udp_same(const union udp_addr *a, const union udp_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return 0;
	if (a->sa.sa_family == AF_INET6)
		return a->in6.sin6_port == b->in6.sin6_port &&
		       !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, sizeof a->in6.sin6_addr);
	return a->in.sin_port == b->in.sin_port && a->in.sin_addr.s_addr == b->in.sin_addr.s_addr;
}

static int udp_key(const struct sockaddr *sa, union udp_addr *a)
{
	memset(a, 0, sizeof *a);
	if (sa->sa_family == AF_INET)
		a->in = *(const struct sockaddr_in *)sa;
	else if (sa->sa_family == AF_INET6)
		a->in6 = *(const struct sockaddr_in6 *)sa;
	else
		return -EAFNOSUPPORT;
	return 0;
}

static void on_udp_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct serve *s = h->data;
	(void)suggested;
	*buf = uv_buf_init(s->buf, SERVE_BUF_BYTES); /* above any datagram: nothing is truncated */
}

static void on_udp(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf, const struct sockaddr *addr, unsigned flags)
{
	struct serve *s = h->data;
	char name[72];
	union udp_addr key;
	if (nread < 0) {
		slog(s, "udp receive failed: %s", uv_strerror((int)nread));
		return;
	}
	if (!addr || udp_key(addr, &key))
		return;
	s->st.udp_datagrams++;
	uint32_t max = NET_UDP4_MAX_BYTES;
	if (addr->sa_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&key.in6.sin6_addr))
		max = NET_UDP6_MAX_BYTES;
	struct udp_peer *p = &s->peers[udp_hash(&key)];
	struct net_hello hello;
	if (flags & UV_UDP_PARTIAL) {
		/* cannot happen with a 256 KiB buffer */
		s->st.bad_clients++;
		net_sockaddr_format(addr, name, sizeof name);
		slog(s, "udp %s: a datagram above %u bytes; ignored", name, SERVE_BUF_BYTES);
		return;
	}
	if (nread == NET_HELLO_BYTES && !net_hello_decode((const uint8_t *)buf->base, &hello)) {
		enum net_hello_status st = net_hello_check(&hello, max, 1, max);
		struct net_hello a = { NET_HELLO_VERSION, NET_ACK, st, hello.msg_bytes, hello.reply_bytes };
		uint8_t ack[NET_HELLO_BYTES];
		net_hello_encode(ack, &a);
		if (st == NET_HELLO_OK) {
			p->a = key;
			p->msg_bytes = hello.msg_bytes;
			p->reply_bytes = hello.reply_bytes;
			p->used = 1;
		} else {
			s->st.bad_clients++;
			net_sockaddr_format(addr, name, sizeof name);
			slog(s, "udp %s: hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s", name,
			     hello.version, hello.msg_bytes, hello.reply_bytes, net_hello_status_str(st));
		}
		uv_buf_t b = uv_buf_init((char *)ack, sizeof ack);
		uv_udp_try_send(h, &b, 1, addr); /* a lost ack is resent: the client repeats its hello */
		return;
	}
	if (p->used && udp_same(&p->a, &key) && (uint32_t)nread == p->msg_bytes) {
		s->st.messages++;
		s->st.rx_bytes += (uint64_t)nread;
		uv_buf_t b = uv_buf_init(s->zeros, p->reply_bytes);
		uv_udp_try_send(h, &b, 1, addr); /* if the socket is full, the client retransmits */
		return;
	}
	s->st.bad_clients++;
	net_sockaddr_format(addr, name, sizeof name);
	if (p->used && udp_same(&p->a, &key))
		slog(s, "udp %s: a %zd-byte datagram, but its hello said %" PRIu32 " bytes; ignored", name, nread,
		     p->msg_bytes);
	else
		slog(s, "udp %s: a %zd-byte datagram without a hello first; ignored", name, nread);
}

/* --- the RPC service ------------------------------------------------------- */

/*
 * The argument of DISPLACE_SINK, opaque<> on the wire (length, bytes,
 * padding to 4), decoded in pieces and discarded; *count gets its length.
 * Decoding it as xdr_displace_payload would allocate the whole message.
 */
static bool_t xdr_discard_payload(XDR *x, u_int *count)
{
	static char chunk[SERVE_RPC_CHUNK_BYTES]; /* only the RPC thread decodes */
	u_int len;
	if (x->x_op == XDR_FREE)
		return TRUE;
	if (x->x_op != XDR_DECODE || !xdr_u_int(x, &len) || len > DISPLACE_RPC_MAX_BYTES)
		return FALSE;
	for (u_int left = len; left;) {
		u_int k = left < sizeof chunk ? left : (u_int)sizeof chunk;
		if (!xdr_opaque(x, chunk, k))
			return FALSE;
		left -= k;
	}
	*count = len;
	return TRUE;
}

static void rpc_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct serve *s = rpc_srv;
	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XDRPROC(xdr_void), NULL);
		return;
	case DISPLACE_SINK: {
		u_int n = 0;
		if (!svc_getargs(x, XDRPROC(xdr_discard_payload), (caddr_t)&n)) {
			atomic_fetch_add(&s->rpc_bad, 1);
			slog(s, "rpc: a DISPLACE_SINK call that does not decode");
			svcerr_decode(x);
			return;
		}
		atomic_fetch_add(&s->rpc_calls, 1);
		svc_sendreply(x, XDRPROC(xdr_u_int), (caddr_t)&n);
		svc_freeargs(x, XDRPROC(xdr_discard_payload), (caddr_t)&n);
		return;
	}
	default:
		svcerr_noproc(x);
	}
}

/*
 * The RPC thread: poll libtirpc's descriptors and the stop eventfd, and
 * let libtirpc serve what is ready. svc_getreq_poll may accept a
 * connection and so add a descriptor while it runs: the copy has spare
 * entries (fd -1) past the eventfd.
 */
static void *rpc_main(void *arg)
{
	struct serve *s = arg;
	struct pollfd *p = NULL;
	size_t cap = 0;
	for (;;) {
		int n = svc_max_pollfd;
		size_t need = (size_t)n + 1 + 8;
		if (need > cap) {
			struct pollfd *q = realloc(p, need * sizeof *p);
			if (!q)
				break;
			p = q;
			cap = need;
		}
		if (n)
			memcpy(p, svc_pollfd, (size_t)n * sizeof *p);
		for (size_t i = (size_t)n; i < cap; i++)
			p[i] = (struct pollfd){ .fd = -1 };
		p[n] = (struct pollfd){ .fd = s->rpc_efd, .events = POLLIN };
		int r = poll(p, (nfds_t)n + 1, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || p[n].revents)
			break;
		p[n].fd = -1;
		svc_getreq_poll(p, r);
	}
	free(p);
	atomic_store(&s->rpc_done, 1);
	return NULL;
}

static int rpc_open(struct serve *s, unsigned port, char *err, size_t errlen)
{
	char name[80];
	s->rpc_addr = s->cfg.listen;
	net_addr_set_port(&s->rpc_addr, port);
	net_format_addr(&s->rpc_addr, name, sizeof name);
	s->rpc_fd = socket(s->rpc_addr.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (s->rpc_fd < 0 || setsockopt(s->rpc_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(s->rpc_fd, (struct sockaddr *)&s->rpc_addr.ss, s->rpc_addr.len) || listen(s->rpc_fd, SOMAXCONN)) {
		int e = errno;
		snprintf(err, errlen, "cannot bind rpc %s: %s", name, strerror(e));
		return -e;
	}
	socklen_t len = sizeof s->rpc_addr.ss;
	if (getsockname(s->rpc_fd, (struct sockaddr *)&s->rpc_addr.ss, &len)) {
		int e = errno;
		snprintf(err, errlen, "cannot read the rpc address: %s", strerror(e));
		return -e;
	}
	s->rpc_addr.len = len;
	s->rpc_efd = eventfd(0, EFD_CLOEXEC);
	if (s->rpc_efd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot make an eventfd: %s", strerror(e));
		return -e;
	}
	s->rpc_xprt = svc_vc_create(s->rpc_fd, 0, 0);
	if (!s->rpc_xprt) {
		snprintf(err, errlen, "cannot make the rpc transport on %s", name);
		return -ENOMEM;
	}
	s->rpc_fd = -1; /* the transport owns it now */
	/* no netconfig: registered here only, never with rpcbind or the portmapper */
	if (!svc_reg(s->rpc_xprt, DISPLACE_PROG, DISPLACE_VERS, rpc_dispatch, NULL)) {
		snprintf(err, errlen, "cannot register the rpc program on %s", name);
		return -EPROTO;
	}
	s->rpc_registered = 1;
	rpc_srv = s;
	return 0;
}

static void rpc_close(struct serve *s)
{
	int clean = 1;
	if (s->rpc_running) {
		uint64_t one = 1;
		if (write(s->rpc_efd, &one, sizeof one) < 0)
			clean = 0;
		/*
		 * libtirpc may sit up to 35 s in a read from a stalled client:
		 * wait a second, then cancel the thread and leave libtirpc as it is.
		 */
		uint64_t until = dclock_mono_ns() + SERVE_RPC_JOIN_NS;
		while (!atomic_load(&s->rpc_done) && dclock_mono_ns() < until)
			usleep(2000);
		if (!atomic_load(&s->rpc_done)) {
			pthread_cancel(s->rpc_thread);
			clean = 0;
		}
		pthread_join(s->rpc_thread, NULL);
		s->rpc_running = 0;
	}
	if (clean && s->rpc_registered)
		svc_unreg(DISPLACE_PROG, DISPLACE_VERS);
	if (clean && s->rpc_xprt)
		svc_destroy(s->rpc_xprt);
	s->rpc_registered = 0;
	s->rpc_xprt = NULL;
	if (s->rpc_fd >= 0)
		close(s->rpc_fd);
	if (s->rpc_efd >= 0)
		close(s->rpc_efd);
	s->rpc_fd = s->rpc_efd = -1;
	if (rpc_srv == s && clean)
		rpc_srv = NULL;
}

/* --- lifetime ---------------------------------------------------------------- */

static void close_walk(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static void serve_stop(struct serve *s, const char *reason)
{
	if (s->stopping)
		return;
	s->stopping = 1;
	s->stop_reason = reason;
	while (s->conns)
		conn_close(s->conns);
	uv_walk(&s->loop, close_walk, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
	(void)signum;
	serve_stop(h->data, "signal");
}

static void on_stdin_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct serve *s = h->data;
	(void)suggested;
	*buf = uv_buf_init(s->buf, SERVE_BUF_BYTES);
}

static void on_stdin(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	if (nread < 0)
		serve_stop(st->data, "stdin");
}

static int watch_stdin(struct serve *s)
{
	struct stat st;
	if (fstat(STDIN_FILENO, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0; /* a terminal, a file or /dev/null: only signals stop us */
	int rc = uv_pipe_init(&s->loop, &s->in, 0);
	if (rc)
		return rc;
	s->in.data = s;
	if ((rc = uv_pipe_open(&s->in, STDIN_FILENO)) || (rc = uv_read_start((uv_stream_t *)&s->in, on_stdin_alloc, on_stdin)))
		return rc;
	return 0;
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

static int addr_of(uv_handle_t *h, int is_tcp, struct net_addr *a)
{
	int len = sizeof a->ss;
	int rc = is_tcp ? uv_tcp_getsockname((uv_tcp_t *)h, (struct sockaddr *)&a->ss, &len)
			: uv_udp_getsockname((uv_udp_t *)h, (struct sockaddr *)&a->ss, &len);
	a->len = (socklen_t)len;
	return rc;
}

static int open_streams_and_udp(struct serve *s, char *err, size_t errlen)
{
	char name[80];
	unsigned base = net_addr_port(&s->cfg.listen);
	int rc;

	s->tcp_addr = s->cfg.listen;
	net_format_addr(&s->tcp_addr, name, sizeof name);
	if ((rc = uv_tcp_init(&s->loop, &s->tcp)))
		goto tcp_fail;
	s->tcp.data = s;
	if ((rc = uv_tcp_bind(&s->tcp, (struct sockaddr *)&s->tcp_addr.ss, 0)) ||
	    (rc = uv_listen((uv_stream_t *)&s->tcp, SOMAXCONN, on_connection)) ||
	    (rc = addr_of((uv_handle_t *)&s->tcp, 1, &s->tcp_addr)))
		goto tcp_fail;

	/* udp on the tcp port; with port 0 that is a free port, if udp has it free too */
	s->udp_addr = s->tcp_addr;
	if ((rc = uv_udp_init(&s->loop, &s->udp)))
		goto udp_fail;
	s->udp.data = s;
	rc = uv_udp_bind(&s->udp, (struct sockaddr *)&s->udp_addr.ss, 0);
	if (rc == UV_EADDRINUSE && base == 0) {
		net_addr_set_port(&s->udp_addr, 0);
		rc = uv_udp_bind(&s->udp, (struct sockaddr *)&s->udp_addr.ss, 0);
	}
	if (rc || (rc = addr_of((uv_handle_t *)&s->udp, 0, &s->udp_addr)) ||
	    (rc = uv_udp_recv_start(&s->udp, on_udp_alloc, on_udp)))
		goto udp_fail;

	if (s->cfg.unix_mode != SERVE_UNIX_NONE) {
		if (s->cfg.unix_mode == SERVE_UNIX_PATH)
			snprintf(s->unix_path, sizeof s->unix_path, "%s", s->cfg.unix_path);
		else if (base)
			snprintf(s->unix_path, sizeof s->unix_path, NET_UNIX_PATH_FMT, base);
		else
			snprintf(s->unix_path, sizeof s->unix_path, "/tmp/displace-serve-%d.sock", (int)getpid());
		if ((rc = unix_prepare(s->unix_path, err, errlen)))
			return rc;
		if ((rc = uv_pipe_init(&s->loop, &s->unix_listen, 0)))
			goto unix_fail;
		s->unix_listen.data = s;
		if ((rc = uv_pipe_bind(&s->unix_listen, s->unix_path)))
			goto unix_fail;
		s->unix_bound = 1;
		if ((rc = uv_listen((uv_stream_t *)&s->unix_listen, SOMAXCONN, on_connection)))
			goto unix_fail;
	}
	return 0;
tcp_fail:
	snprintf(err, errlen, "cannot bind tcp %s: %s", name, uv_strerror(rc));
	return rc;
udp_fail:
	net_format_addr(&s->udp_addr, name, sizeof name);
	snprintf(err, errlen, "cannot bind udp %s: %s", name, uv_strerror(rc));
	return rc;
unix_fail:
	snprintf(err, errlen, "cannot bind unix %s: %s", s->unix_path, uv_strerror(rc));
	return rc;
}

int serve_open(const struct serve_config *c, struct serve **out, char *err, size_t errlen)
{
	int rc;
	struct serve *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->cfg = *c;
	s->rpc_fd = s->rpc_efd = -1;
	pthread_mutex_init(&s->log_lock, NULL);
	s->log_window_ns = dclock_mono_ns();
	s->peers = calloc(SERVE_UDP_SLOTS, sizeof *s->peers);
	s->buf = malloc(SERVE_BUF_BYTES);
	s->zeros = malloc(SERVE_BUF_BYTES);
	if (!s->peers || !s->buf || !s->zeros) {
		snprintf(err, errlen, "out of memory");
		serve_close(s);
		return -ENOMEM;
	}
	/* written, so replies are copied from real pages, not the shared zero page */
	memset(s->zeros, 0, SERVE_BUF_BYTES);
	memset(s->buf, 0, SERVE_BUF_BYTES);
	if (rpc_srv) {
		snprintf(err, errlen, "a server already runs in this process");
		serve_close(s);
		return -EBUSY;
	}
	if ((rc = uv_loop_init(&s->loop))) {
		snprintf(err, errlen, "cannot start the event loop: %s", uv_strerror(rc));
		free(s->peers);
		free(s->buf);
		free(s->zeros);
		pthread_mutex_destroy(&s->log_lock);
		free(s);
		return rc;
	}
	s->loop_ready = 1;
	if ((rc = open_streams_and_udp(s, err, errlen)))
		goto fail;
	unsigned base = net_addr_port(&s->cfg.listen);
	if ((rc = rpc_open(s, base ? base + NET_RPC_PORT_OFFSET : 0, err, errlen)))
		goto fail;
	if ((rc = uv_timer_init(&s->loop, &s->sweep)) || (rc = uv_signal_init(&s->loop, &s->sigint)) ||
	    (rc = uv_signal_init(&s->loop, &s->sigterm))) {
		snprintf(err, errlen, "cannot set up the event loop: %s", uv_strerror(rc));
		goto fail;
	}
	s->sweep.data = s->sigint.data = s->sigterm.data = s;
	if ((rc = uv_signal_start(&s->sigint, on_signal, SIGINT)) ||
	    (rc = uv_signal_start(&s->sigterm, on_signal, SIGTERM))) {
		snprintf(err, errlen, "cannot catch signals: %s", uv_strerror(rc));
		goto fail;
	}
	if (s->cfg.watch_stdin && (rc = watch_stdin(s))) {
		snprintf(err, errlen, "cannot watch stdin: %s", uv_strerror(rc));
		goto fail;
	}
	/* the RPC thread starts here, so that 'serve ready' is true when it is printed */
	if (s->rpc_xprt && (rc = pthread_create(&s->rpc_thread, NULL, rpc_main, s))) {
		snprintf(err, errlen, "cannot start the rpc thread: %s", strerror(rc));
		rc = -rc;
		goto fail;
	}
	s->rpc_running = s->rpc_xprt != NULL;
	*out = s;
	return 0;
fail:
	serve_close(s);
	return rc;
}

void serve_ready_line(const struct serve *s, char *buf, size_t len)
{
	char tcp[80], udp[80], rpc[80];
	net_format_addr(&s->tcp_addr, tcp, sizeof tcp);
	net_format_addr(&s->udp_addr, udp, sizeof udp);
	net_format_addr(&s->rpc_addr, rpc, sizeof rpc);
	snprintf(buf, len, "serve ready tcp=%s udp=%s unix=%s rpc=%s pid=%d", tcp, udp,
		 s->unix_bound ? s->unix_path : "none", rpc, (int)getpid());
}

int serve_run(struct serve *s, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	uv_run(&s->loop, UV_RUN_DEFAULT);
	return 0;
}

const char *serve_stop_reason(const struct serve *s)
{
	return s->stop_reason;
}

void serve_get_stats(const struct serve *s, struct serve_stats *st)
{
	*st = s->st;
	st->rpc_calls = atomic_load(&((struct serve *)s)->rpc_calls);
	st->bad_clients += atomic_load(&((struct serve *)s)->rpc_bad);
}

void serve_stop_line(const struct serve *s, char *buf, size_t len)
{
	struct serve_stats st;
	serve_get_stats(s, &st);
	snprintf(buf, len,
		 "serve stop reason=%s conns=%" PRIu64 " messages=%" PRIu64 " rx_bytes=%" PRIu64
		 " udp_datagrams=%" PRIu64 " rpc_calls=%" PRIu64 " bad_clients=%" PRIu64,
		 s->stop_reason ? s->stop_reason : "none", st.conns, st.messages, st.rx_bytes, st.udp_datagrams,
		 st.rpc_calls, st.bad_clients);
}

void serve_close(struct serve *s)
{
	if (!s)
		return;
	rpc_close(s);
	if (s->loop_ready) {
		serve_stop(s, s->stop_reason ? s->stop_reason : "closed");
		uv_run(&s->loop, UV_RUN_DEFAULT);
		if (uv_loop_close(&s->loop) == UV_EBUSY) {
			uv_walk(&s->loop, close_walk, NULL);
			uv_run(&s->loop, UV_RUN_DEFAULT);
			uv_loop_close(&s->loop);
		}
	}
	if (s->unix_bound)
		unlink(s->unix_path);
	free(s->peers);
	free(s->buf);
	free(s->zeros);
	pthread_mutex_destroy(&s->log_lock);
	free(s);
}
