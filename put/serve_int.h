/*
 * serve_int.h - the peer's private parts, shared by its four files and
 * included by nothing else (the interface is put/serve.h):
 *   serve.c         lifecycle: config, open, run, stop, close, the ready and
 *                   stop lines, the log and its rate limit
 *   serve_stream.c  tcp and unix stream connections
 *   serve_udp.c     udp
 *   serve_rpc.c     the RPC thread and its dispatcher
 * The same rules as serve.h: 0 or -errno with a reason in err, no printing.
 */
#ifndef SERVE_INT_H
#define SERVE_INT_H

#include "put/net.h"
#include "put/serve.h"

#include <pthread.h>
#include <rpc/rpc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define SERVE_BUF_BYTES (256u * 1024) /* shared read buffer, and the reply source */

struct serve_conn;     /* a stream connection (serve_stream.c) */
struct serve_udp_peer; /* a slot of the udp table (serve_udp.c) */

struct serve {
	struct serve_config cfg;
	uv_loop_t loop;
	int loop_ready;
	uv_tcp_t tcp;
	uv_udp_t udp;
	uv_pipe_t unix_listen;
	uv_signal_t sigint, sigterm;
	uv_pipe_t in;
	uv_timer_t sweep; /* closes connections without a hello in time (serve_stream.c) */
	int unix_bound;   /* we made the socket file: remove it at close */
	char unix_path[NET_UNIX_PATH_MAX];
	struct net_addr tcp_addr, udp_addr, rpc_addr;
	struct serve_conn *conns;
	unsigned nconns, nhello;
	struct serve_udp_peer *peers;
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

/* serve.c */

/*
 * serve_log - one line about a bad client through cfg.log, at most 20 per
 * 10 s, then counted; safe from the RPC thread
 */
void serve_log(struct serve *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* serve_stream.c */

/* serve_stream_open_tcp - bind and listen on cfg.listen; s->tcp_addr is the address bound */
int serve_stream_open_tcp(struct serve *s, char *err, size_t errlen);
/*
 * serve_stream_open_unix - bind and listen on the unix socket of cfg, if
 * any, replacing a stale socket file; 0 with none
 */
int serve_stream_open_unix(struct serve *s, char *err, size_t errlen);
/* serve_stream_close_all - close every connection */
void serve_stream_close_all(struct serve *s);

/* serve_udp.c */

/* serve_udp_peers_new - the table of udp source addresses with their sizes, empty; NULL without memory */
struct serve_udp_peer *serve_udp_peers_new(void);
/* serve_udp_open - bind udp on the tcp port (port 0: a free one) and start receiving */
int serve_udp_open(struct serve *s, char *err, size_t errlen);

/* serve_rpc.c */

/* serve_rpc_busy - a server of this process holds the RPC service (libtirpc's state is global) */
bool serve_rpc_busy(void);
/* serve_rpc_open - bind the RPC socket on port (0: a free one) and register the program */
int serve_rpc_open(struct serve *s, unsigned port, char *err, size_t errlen);
/* serve_rpc_start - start the RPC thread, if serve_rpc_open made the transport */
int serve_rpc_start(struct serve *s, char *err, size_t errlen);
/* serve_rpc_close - stop the thread (at most 1 s, then cancel it), unregister, close */
void serve_rpc_close(struct serve *s);

#endif
