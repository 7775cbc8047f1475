/*
 * serve_int.h - the peer's private parts, shared by its three files and
 * included by nothing else (the interface is put/serve.h):
 *   serve.c         lifecycle: config, open, run, stop, close, the ready and
 *                   stop lines, the log and its rate limit, the sweep timer
 *   serve_stream.c  the stream connections: tcp and unix (the hello), rpc
 *                   (ONC RPC records, put/rpc_wire.c); their limits and timeouts
 *   serve_udp.c     udp, on the admission of put/udp_gate.c
 *   serve_ctl.c     the control connection of the peer's fluids
 *                   (--fluid-cpus; put/ctl_wire.h)
 * The same rules as serve.h: 0 or -errno with a reason in err, no printing.
 */
#ifndef SERVE_INT_H
#define SERVE_INT_H

#include "put/net.h"
#include "put/serve.h"
#include "put/udp_gate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define SERVE_BUF_BYTES (256u * 1024) /* shared read buffer, and the reply source */
#define SERVE_SWEEP_MS 1000           /* how often timeouts are looked at */

struct serve_conn; /* a stream connection (serve_stream.c) */
struct serve_ctl;  /* the control connection's state (serve_ctl.c) */

struct serve {
	struct serve_config cfg;
	uv_loop_t loop;
	int loop_ready;
	uv_tcp_t tcp, rpc; /* the listeners of the hello streams and of ONC RPC */
	uv_udp_t udp;
	uv_pipe_t unix_listen;
	uv_signal_t sigint, sigterm;
	uv_pipe_t in;
	uv_timer_t sweep; /* the timeouts of connections and udp sources, while there are any */
	int unix_bound;   /* we made the socket file: remove it at close */
	char unix_path[NET_UNIX_PATH_MAX];
	struct net_addr tcp_addr, udp_addr, rpc_addr;
	struct serve_conn *conns;
	unsigned nconns;
	unsigned max_conns;   /* cfg.max_conns, or fewer to fit the fd limit */
	uint64_t live_ms;     /* active within this: never closed to make room for a newcomer */
	int fd_starved;       /* accept failed for want of fds: said once, until a connection closes */
	int refusing;         /* newcomers are refused at a limit: said once, then counted ... */
	uint64_t refused_quiet; /* ... here, until a connection closes */
	struct udp_gate *gate;
	struct serve_ctl *ctl; /* with --fluid-cpus: the one control connection, its reader, its fluids */
	char *buf;   /* reads land here and are discarded */
	char *zeros; /* replies come from here */
	const char *stop_reason;
	int stopping;

	uint64_t log_window_ns;
	unsigned log_count;
	uint64_t log_suppressed;

	struct serve_stats st;
};

/* serve.c */

/* serve_log - one line about a bad client through cfg.log, at most 20 per 10 s, then counted */
void serve_log(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* serve_sweep_arm - run the sweep timer (once a connection or udp source exists) */
void serve_sweep_arm(struct serve *s);

/* serve_stream.c */

/* serve_stream_open_tcp - bind and listen on cfg.listen; s->tcp_addr is the address bound */
int serve_stream_open_tcp(struct serve *s, char *err, size_t errlen);
/* serve_stream_open_rpc - bind and listen for ONC RPC on port (0: a free one); s->rpc_addr */
int serve_stream_open_rpc(struct serve *s, unsigned port, char *err, size_t errlen);
/*
 * serve_stream_open_unix - bind and listen on the unix socket of cfg, if
 * any, replacing a stale socket file; 0 with none
 */
int serve_stream_open_unix(struct serve *s, char *err, size_t errlen);
/* serve_stream_sweep - close connections past a timeout; whether any remain */
bool serve_stream_sweep(struct serve *s, uint64_t now_ms);
/* serve_stream_close_all - close every connection */
void serve_stream_close_all(struct serve *s);
/*
 * serve_conn_send - queue n bytes on c and write them, then close c if
 * close_after; -ENOMEM (c is closed)
 */
int serve_conn_send(struct serve_conn *c, const void *p, size_t n, bool close_after);
/* serve_conn_name - c's name for the log (its address) */
const char *serve_conn_name(const struct serve_conn *c);

/* serve_ctl.c */

/* serve_ctl_open - the control state, when cfg.fluids is set; -ENOMEM */
int serve_ctl_open(struct serve *s, char *err, size_t errlen);
/* serve_ctl_free - release it */
void serve_ctl_free(struct serve *s);
/*
 * serve_ctl_hello - a control hello (kind NET_CONTROL) on c: the status of
 * the ack. NET_HELLO_OK makes c the control connection
 */
enum net_hello_status serve_ctl_hello(struct serve *s, struct serve_conn *c, const struct net_hello *h);
/* serve_ctl_opened - the ack is queued: say INFO */
void serve_ctl_opened(struct serve *s);
/* serve_ctl_read - bytes that came on the control connection */
void serve_ctl_read(struct serve *s, const uint8_t *p, size_t n);
/* serve_ctl_mid - part of a control frame came and the rest has not */
bool serve_ctl_mid(const struct serve *s);
/* serve_ctl_running - fluids run for the control connection: it is not idle */
bool serve_ctl_running(const struct serve *s);
/* serve_ctl_gone - c is closing: if it was the control connection, its fluids stop */
void serve_ctl_gone(struct serve *s, const struct serve_conn *c);

/* serve_udp.c */

/* serve_udp_open - bind udp on the tcp port (port 0: a free one) and start receiving */
int serve_udp_open(struct serve *s, char *err, size_t errlen);
/* serve_udp_sweep - forget udp sources past the idle timeout; whether any remain */
bool serve_udp_sweep(struct serve *s, uint64_t now_ms);

#endif
