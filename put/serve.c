/*
 * serve.c - the peer's lifecycle: config, open, run, stop and close, the
 * ready and stop lines, the log with its rate limit, and the sweep timer
 * of the timeouts. The transports are serve_stream.c (tcp, unix, rpc) and
 * serve_udp.c; the design notes are in put/serve.h, the hello in put/net.h.
 */
#include "put/serve_int.h"
#include "common/cli.h"
#include "common/dclock.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SERVE_LOG_BURST 20
#define SERVE_LOG_WINDOW_NS 10000000000ull
#define SERVE_UDP_SOURCES 4096
/* the descriptors kept for the server itself: listeners, the loop, stdio, libuv's spare */
#define SERVE_FD_RESERVE 32
/* a connection or udp source active within idle / SERVE_LIVE_DIVISOR is never replaced */
#define SERVE_LIVE_DIVISOR 6

/* One line per bad client, at most SERVE_LOG_BURST per window; then counted. */
void serve_log(struct serve *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!s->cfg.log)
		return;
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
}

void serve_config_init(struct serve_config *c)
{
	memset(c, 0, sizeof *c);
	net_parse_hostport("127.0.0.1", NET_DEFAULT_PORT, &c->listen);
	c->unix_mode = SERVE_UNIX_DEFAULT;
	c->watch_stdin = 1;
	c->idle_ms = SERVE_IDLE_DEFAULT_MS;
	c->max_conns = SERVE_MAX_CONNS_DEFAULT;
	c->max_per_source = SERVE_MAX_PER_SOURCE_DEFAULT;
}

int serve_config_idle(struct serve_config *c, const char *s)
{
	uint64_t ns;
	if (cli_parse_duration_ns(s, &ns) || ns < 1000000000ull || ns > 86400000000000ull)
		return -EINVAL;
	c->idle_ms = ns / 1000000;
	return 0;
}

static int parse_count(const char *s, unsigned *out)
{
	uint64_t v;
	if (cli_parse_u64(s, 1, SERVE_MAX_CONNS_LIMIT, &v))
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int serve_config_max_conns(struct serve_config *c, const char *s)
{
	return parse_count(s, &c->max_conns);
}

int serve_config_max_per_source(struct serve_config *c, const char *s)
{
	return parse_count(s, &c->max_per_source);
}

bool serve_config_is_local(const struct serve_config *c)
{
	return net_addr_is_loopback(&c->listen);
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

static void on_sweep(uv_timer_t *t)
{
	struct serve *s = t->data;
	uint64_t now = uv_now(&s->loop);
	bool conns = serve_stream_sweep(s, now);
	bool sources = serve_udp_sweep(s, now);
	if (!conns && !sources)
		uv_timer_stop(t); /* an idle peer wakes for nothing */
}

void serve_sweep_arm(struct serve *s)
{
	if (!s->stopping && !uv_is_active((uv_handle_t *)&s->sweep))
		uv_timer_start(&s->sweep, on_sweep, SERVE_SWEEP_MS, SERVE_SWEEP_MS);
}

/* max_conns, lowered so that the connections cannot take the descriptors the server needs */
static unsigned conns_for_fd_limit(unsigned want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return want;
	if (rl.rlim_cur <= SERVE_FD_RESERVE + 1)
		return 1;
	rlim_t room = rl.rlim_cur - SERVE_FD_RESERVE;
	return room < want ? (unsigned)room : want;
}

static int open_gate(struct serve *s, char *err, size_t errlen)
{
	uint8_t key[SIPHASH_KEY_BYTES];
	/* the cookies' secret: unknown outside, new each run */
	if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
		int e = errno;
		snprintf(err, errlen, "cannot read random bytes for the udp cookies: %s", strerror(e));
		return -e;
	}
	struct udp_gate_config gc = {
		.idle_ms = s->cfg.idle_ms,
		.live_ms = s->live_ms,
		.max_sources = SERVE_UDP_SOURCES,
		.max_per_addr = s->cfg.max_per_source,
	};
	int rc = udp_gate_new(&gc, key, &s->gate);
	if (rc)
		snprintf(err, errlen, "cannot make the udp table: %s", strerror(-rc));
	return rc;
}

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
	serve_stream_close_all(s);
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

int serve_open(const struct serve_config *c, struct serve **out, char *err, size_t errlen)
{
	int rc;
	struct serve *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->cfg = *c;
	s->log_window_ns = dclock_mono_ns();
	if (!c->idle_ms || !c->max_conns || !c->max_per_source) {
		snprintf(err, errlen, "the idle timeout and the connection limits must be above 0");
		free(s);
		return -EINVAL;
	}
	s->max_conns = conns_for_fd_limit(c->max_conns);
	s->live_ms = c->idle_ms / SERVE_LIVE_DIVISOR;
	s->buf = malloc(SERVE_BUF_BYTES);
	s->zeros = malloc(SERVE_BUF_BYTES);
	if (!s->buf || !s->zeros) {
		snprintf(err, errlen, "out of memory");
		serve_close(s);
		return -ENOMEM;
	}
	/* written, so replies are copied from real pages, not the shared zero page */
	memset(s->zeros, 0, SERVE_BUF_BYTES);
	memset(s->buf, 0, SERVE_BUF_BYTES);
	if ((rc = open_gate(s, err, errlen)) || (rc = serve_ctl_open(s, err, errlen))) {
		serve_close(s);
		return rc;
	}
	if ((rc = uv_loop_init(&s->loop))) {
		snprintf(err, errlen, "cannot start the event loop: %s", uv_strerror(rc));
		goto fail;
	}
	s->loop_ready = 1;
	if ((rc = serve_stream_open_tcp(s, err, errlen)) || (rc = serve_udp_open(s, err, errlen)) ||
	    (rc = serve_stream_open_unix(s, err, errlen)))
		goto fail;
	unsigned base = net_addr_port(&s->cfg.listen);
	if ((rc = serve_stream_open_rpc(s, base ? base + NET_RPC_PORT_OFFSET : 0, err, errlen)))
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
}

void serve_stop_line(const struct serve *s, char *buf, size_t len)
{
	struct serve_stats st;
	serve_get_stats(s, &st);
	snprintf(buf, len,
		 "serve stop reason=%s conns=%" PRIu64 " messages=%" PRIu64 " rx_bytes=%" PRIu64
		 " udp_datagrams=%" PRIu64 " rpc_calls=%" PRIu64 " bad_clients=%" PRIu64 " controls=%" PRIu64
		 " fluid_runs=%" PRIu64,
		 s->stop_reason ? s->stop_reason : "none", st.conns, st.messages, st.rx_bytes, st.udp_datagrams,
		 st.rpc_calls, st.bad_clients, st.controls, st.fluid_runs);
}

void serve_close(struct serve *s)
{
	if (!s)
		return;
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
	udp_gate_free(s->gate);
	serve_ctl_free(s);
	free(s->buf);
	free(s->zeros);
	free(s);
}
