/*
 * serve_stream.c - the peer's tcp and unix stream connections: the hello
 * within 10 s, messages counted as they arrive, replies counted and
 * written from a shared buffer, a client that does not read throttled.
 * The design notes are in put/serve.h.
 */
#include "put/serve_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SERVE_HELLO_TIMEOUT_MS 10000
#define SERVE_SWEEP_MS 1000
#define SERVE_MAX_CONNS 4096
#define SERVE_OWED_MAX_BYTES (1u << 20) /* stop reading a client owed more than this */
#define SERVE_WRITE_BUFS 4              /* libuv copies no buf array up to 4 */

enum conn_state { C_HELLO, C_BODY, C_DONE };

struct serve_conn {
	union {
		uv_handle_t h;
		uv_stream_t s;
		uv_tcp_t tcp;
		uv_pipe_t pipe;
	} u;
	struct serve *srv;
	struct serve_conn *prev, *next;
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

static void conn_flush(struct serve_conn *c);

static void on_conn_closed(uv_handle_t *h)
{
	free(h->data);
}

static void conn_close(struct serve_conn *c)
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
static void conn_consume(struct serve_conn *c, size_t n)
{
	size_t a = c->ack_len - c->ack_off;
	if (a > n)
		a = n;
	c->ack_off += (unsigned)a;
	c->owed_bytes -= n - a;
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
	conn_consume(c, c->writing_ack + c->writing_zero);
	conn_flush(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct serve *s = ((struct serve_conn *)h->data)->srv;
	(void)suggested;
	/* one loop thread: the read callback consumes the buffer before the next read */
	*buf = uv_buf_init(s->buf, SERVE_BUF_BYTES);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

static void conn_resume(struct serve_conn *c)
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
static void conn_flush(struct serve_conn *c)
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
				serve_log(s, "%s: cannot write: %s; closing", c->name, uv_strerror(rc));
				conn_close(c);
				return;
			}
			c->writing = 1;
			c->writing_ack = ack_n;
			c->writing_zero = zero_n;
			return;
		}
		if (c->state == C_BODY && c->left_bytes != c->msg_bytes)
			serve_log(s, "%s: reply failed mid-message: %s; closing", c->name, uv_strerror(n));
		conn_close(c);
		return;
	}
	if (c->close_after_flush) {
		conn_close(c);
		return;
	}
	conn_resume(c);
}

static void conn_stop_reading(struct serve_conn *c)
{
	if (c->reading) {
		uv_read_stop(&c->u.s);
		c->reading = 0;
	}
}

static void conn_hello(struct serve_conn *c)
{
	struct serve *s = c->srv;
	struct net_hello h;
	s->nhello--;
	if (net_hello_decode(c->hello, &h)) {
		c->state = C_DONE;
		s->st.bad_clients++;
		serve_log(s, "%s: not a displace hello (starts %02x%02x%02x%02x); closing", c->name, c->hello[0],
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
		serve_log(s, "%s: hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s; closing", c->name,
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

static void conn_ended(struct serve_conn *c, ssize_t err)
{
	struct serve *s = c->srv;
	int mid = (c->state == C_HELLO && c->hello_got) || (c->state == C_BODY && c->left_bytes != c->msg_bytes);
	if (mid) {
		s->st.bad_clients++;
		if (c->state == C_HELLO)
			serve_log(s, "%s: %s in the hello, after %u of %u bytes; closing", c->name,
			     err == UV_EOF ? "closed" : uv_strerror((int)err), c->hello_got, NET_HELLO_BYTES);
		else
			serve_log(s, "%s: %s mid-message, after %" PRIu32 " of %" PRIu32 " bytes; closing", c->name,
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
	struct serve_conn *c = stream->data;
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
	for (struct serve_conn *c = s->conns, *next; c; c = next) {
		next = c->next;
		if (c->state == C_HELLO && now >= c->hello_deadline_ms) {
			s->st.bad_clients++;
			serve_log(s, "%s: no hello within %d s (%u of %u bytes); closing", c->name,
			     SERVE_HELLO_TIMEOUT_MS / 1000, c->hello_got, NET_HELLO_BYTES);
			conn_close(c);
		}
	}
	if (!s->nhello)
		uv_timer_stop(t);
}

static void conn_name(struct serve_conn *c, int is_tcp)
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
		serve_log(s, "cannot accept a %s connection: %s", is_tcp ? "tcp" : "unix", uv_strerror(status));
		return;
	}
	struct serve_conn *c = calloc(1, sizeof *c);
	if (!c) {
		serve_log(s, "out of memory for a new connection");
		return;
	}
	c->srv = s;
	c->u.h.data = c;
	int rc = is_tcp ? uv_tcp_init(&s->loop, &c->u.tcp) : uv_pipe_init(&s->loop, &c->u.pipe, 0);
	if (rc) {
		free(c);
		serve_log(s, "cannot accept a connection: %s", uv_strerror(rc));
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
		serve_log(s, "cannot accept a connection: %s", uv_strerror(rc));
		conn_close(c);
		return;
	}
	conn_name(c, is_tcp);
	if (s->nconns > SERVE_MAX_CONNS) {
		s->st.bad_clients++;
		serve_log(s, "%s: more than %d connections; closing", c->name, SERVE_MAX_CONNS);
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

int serve_stream_open_tcp(struct serve *s, char *err, size_t errlen)
{
	char name[80];
	int len = sizeof s->tcp_addr.ss;
	int rc;
	s->tcp_addr = s->cfg.listen;
	net_format_addr(&s->tcp_addr, name, sizeof name);
	if ((rc = uv_tcp_init(&s->loop, &s->tcp)))
		goto fail;
	s->tcp.data = s;
	if ((rc = uv_tcp_bind(&s->tcp, (struct sockaddr *)&s->tcp_addr.ss, 0)) ||
	    (rc = uv_listen((uv_stream_t *)&s->tcp, SOMAXCONN, on_connection)) ||
	    (rc = uv_tcp_getsockname(&s->tcp, (struct sockaddr *)&s->tcp_addr.ss, &len)))
		goto fail;
	s->tcp_addr.len = (socklen_t)len;
	return 0;
fail:
	snprintf(err, errlen, "cannot bind tcp %s: %s", name, uv_strerror(rc));
	return rc;
}

int serve_stream_open_unix(struct serve *s, char *err, size_t errlen)
{
	unsigned base = net_addr_port(&s->cfg.listen);
	int rc;
	if (s->cfg.unix_mode == SERVE_UNIX_NONE)
		return 0;
	if (s->cfg.unix_mode == SERVE_UNIX_PATH)
		snprintf(s->unix_path, sizeof s->unix_path, "%s", s->cfg.unix_path);
	else if (base)
		snprintf(s->unix_path, sizeof s->unix_path, NET_UNIX_PATH_FMT, base);
	else
		snprintf(s->unix_path, sizeof s->unix_path, "/tmp/displace-serve-%d.sock", (int)getpid());
	if ((rc = unix_prepare(s->unix_path, err, errlen)))
		return rc;
	if ((rc = uv_pipe_init(&s->loop, &s->unix_listen, 0)))
		goto fail;
	s->unix_listen.data = s;
	if ((rc = uv_pipe_bind(&s->unix_listen, s->unix_path)))
		goto fail;
	s->unix_bound = 1;
	if ((rc = uv_listen((uv_stream_t *)&s->unix_listen, SOMAXCONN, on_connection)))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot bind unix %s: %s", s->unix_path, uv_strerror(rc));
	return rc;
}

void serve_stream_close_all(struct serve *s)
{
	while (s->conns)
		conn_close(s->conns);
}
