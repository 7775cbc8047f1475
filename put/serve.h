/*
 * serve.h - the peer: a libuv sink-and-reply server for the tcp,
 * tcp-stream, udp and unix workloads, and an ONC RPC service for rpc.
 * 'put serve' (put/put_main.c) and 'displace serve' (coordinator/cmd_serve.c)
 * are its two front ends; the hello and the port scheme are in put/net.h.
 *
 * Library rules apply: 0 or -errno, a reason in err, and no printing; the
 * front end passes a log function for the one line per bad client.
 *
 * Files (their private header is put/serve_int.h):
 *   serve.c         lifecycle: config, open, run, stop, close, the ready and
 *                   stop lines, the log of bad clients and its rate limit
 *   serve_stream.c  the stream connections: tcp and unix, and ONC RPC
 *   serve_udp.c     udp
 *   serve_main.c    serve_main (put/serve_main.h), the one main of both front
 *                   ends: options, pinning, the ready and stop lines, exit status
 * and the pure parts they stand on: put/rpc_wire.c (ONC RPC records read
 * as they come, and replies), put/udp_gate.c (udp cookies and the table
 * of proven sources), put/siphash.c.
 *
 * Design: one thread, one uv loop, nothing that blocks; no client can
 * hold up another.
 * - A stream connection costs a fixed few hundred bytes: messages are
 *   counted and discarded as they arrive (a shared read buffer), and
 *   replies are counted, not queued, then written from a shared buffer
 *   with one write request at most per connection. A client that does not
 *   read its replies is throttled: its connection stops being read while
 *   more than 1 MiB of replies (RPC: 64 KiB) is owed.
 * - ONC RPC (rpc_wire.c) is a stream like the others: record marking and
 *   the call are parsed as bytes come, DISPLACE_SINK's argument is counted
 *   and discarded, replies are encoded into a small per-connection buffer.
 *   A partial record costs its connection's few bytes of state and stalls
 *   nobody. (libtirpc's server read records with blocking reads: one
 *   client holding half a record stalled the others for 35 s.)
 * - Timeouts, looked at every second: the hello (rpc: a first whole call)
 *   within 10 s of the connection; a message or record started must not
 *   stall (nothing read while reading) for 10 s, or the idle timeout if
 *   shorter; any connection is closed after the idle timeout (default
 *   60 s) without a byte either way.
 * - Limits: max_conns stream connections (default 1024, and fewer if the
 *   fd limit is lower: room is kept for the server's own descriptors),
 *   max_per_source of them from one address (IPv4; IPv6 by /64; unix by
 *   uid). A newcomer beyond a limit takes the place of the connection
 *   silent the longest if that one has been silent for a sixth of the
 *   idle timeout, with a log line; else the newcomer is closed at once
 *   (no spinning, no queue), the first with a log line and the next ones
 *   counted until a connection closes. If accept still fails for want of
 *   descriptors, libuv drops the pending connections (its spare fd) and
 *   the log says so once, until a connection closes.
 * - udp (udp_gate.c): nothing sent to an unproven source is larger than
 *   what it sent. A first hello gets a 24-byte ack with a cookie; a hello
 *   echoing the cookie enters the source (address and port) in a table of
 *   4096 with its sizes; its datagrams of exactly msg_bytes are messages
 *   and get replies. The same limits: max_per_source sources per address,
 *   a live source is never pushed out, an idle one is forgotten.
 * - A bad hello, a client gone mid-message or a read error closes that
 *   connection with one log line; logs are limited to 20 lines per 10 s,
 *   then counted.
 * - The peer's fluids (--fluid-cpus, serve_ctl.c): one control connection
 *   at a time, a hello of kind NET_CONTROL, then frames of put/ctl_wire.h,
 *   each bounded and checked; a request names only CPUs of fluid_cpus, and
 *   the only program run is the front end's fluid (struct serve_fluids).
 *   Anything else is one log line, an ERROR frame, and the connection is
 *   closed, which stops its fluids.
 */
#ifndef SERVE_H
#define SERVE_H

#include "common/cli.h"
#include "put/ctl_wire.h"
#include "put/net.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

enum serve_unix_mode { SERVE_UNIX_DEFAULT, SERVE_UNIX_PATH, SERVE_UNIX_NONE };

/* serve_fluids_done_fn - every fluid of a start reported: their lines, in the request's order; or err */
typedef void (*serve_fluids_done_fn)(void *arg, const char *const *lines, int n, const char *err);
/* serve_fluids_ready_fn - every fluid of a co-run's start has begun its measured window */
typedef void (*serve_fluids_ready_fn)(void *arg);

/*
 * The peer's fluids ('displace serve --fluid-cpus', put/serve_ctl.c): the
 * front end runs them (coordinator/fluidhost.c); the server only checks
 * the control requests and relays them. Both calls run on the server's
 * loop and must not block.
 */
struct serve_fluids {
	/*
	 * start - a fluid on each CPU of q (a CAL or a START, its CPUs among
	 * fluid_cpus), on loop; for a START, ready(arg) once every one's
	 * window has begun (the co-run's PUT may start then); done(arg, ...)
	 * once every one has reported. 0, or -errno with the reason in err
	 * (neither is called then)
	 */
	int (*start)(void *ctx, uv_loop_t *loop, const struct ctl_req *q, serve_fluids_ready_fn ready,
		     serve_fluids_done_fn done, void *arg, char *err, size_t errlen);
	/* stop - stop the running fluids: done follows */
	void (*stop)(void *ctx);
	void *ctx;
	int use_steal; /* INFO's use_steal: this kernel's task-clock minus CPU time is steal */
};

struct serve_config {
	struct net_addr listen; /* tcp and udp on its port, rpc on port + 1; port 0: free ports */
	enum serve_unix_mode unix_mode;
	char unix_path[NET_UNIX_PATH_MAX]; /* with SERVE_UNIX_PATH */
	int watch_stdin;                   /* stop at EOF on stdin, if stdin is a pipe or socket */
	uint64_t idle_ms;                  /* a connection or udp source silent this long is dropped */
	unsigned max_conns;                /* stream connections at most: tcp, unix and rpc */
	unsigned max_per_source;           /* connections, and udp sources, from one address */
	void (*log)(void *ctx, const char *line); /* one line, no newline; NULL: silent */
	void *log_ctx;
	struct cli_cpus fluid_cpus;        /* --fluid-cpus: the only CPUs fluids run on; none: no control connections */
	const struct serve_fluids *fluids; /* runs them, with fluid_cpus; NULL: none */
};

/* What the server did, printed by the front ends when it stops. */
struct serve_stats {
	uint64_t conns;        /* stream connections accepted */
	uint64_t bad_clients;  /* connections or datagrams refused or cut off */
	uint64_t messages;     /* whole messages received (stream and udp) */
	uint64_t rx_bytes;     /* message bytes received (stream and udp) */
	uint64_t udp_datagrams;
	uint64_t rpc_calls;
	uint64_t controls;     /* control connections accepted (--fluid-cpus) */
	uint64_t fluid_runs;   /* calibrations and co-runs of the fluids */
};

struct serve;

#define SERVE_IDLE_DEFAULT_MS 60000u
#define SERVE_MAX_CONNS_DEFAULT 1024u
#define SERVE_MAX_PER_SOURCE_DEFAULT 256u
#define SERVE_MAX_CONNS_LIMIT 65536u

/*
 * serve_config_init - 127.0.0.1:7777, the default unix path, watching
 * stdin, no log, the default idle timeout and limits
 */
void serve_config_init(struct serve_config *c);
/*
 * serve_config_listen - set ADDR[:PORT] (IPv4, [IPv6] or bare IPv6;
 * default port 7777). -EINVAL for junk, -ERANGE for a port without a
 * free port after it for rpc (65535)
 */
int serve_config_listen(struct serve_config *c, const char *s);
/*
 * serve_config_unix - the unix socket path, or "none" for no unix socket.
 * -EINVAL if empty or holding white space (the ready line is split on
 * spaces), -ENAMETOOLONG if above 107 bytes
 */
int serve_config_unix(struct serve_config *c, const char *path);

/* serve_config_idle - the idle timeout, a duration (cli_parse_duration_ns) of 1 s to 1 day; -EINVAL */
int serve_config_idle(struct serve_config *c, const char *s);
/* serve_config_max_conns - 1 to SERVE_MAX_CONNS_LIMIT; -EINVAL */
int serve_config_max_conns(struct serve_config *c, const char *s);
/* serve_config_max_per_source - 1 to SERVE_MAX_CONNS_LIMIT; -EINVAL */
int serve_config_max_per_source(struct serve_config *c, const char *s);
/* serve_config_is_local - it listens on loopback only (with a unix socket, maybe): no warning needed */
bool serve_config_is_local(const struct serve_config *c);

/*
 * serve_open - bind and listen on everything (a stale unix socket file is
 * replaced; a live one is -EADDRINUSE). -errno with the reason in err
 */
int serve_open(const struct serve_config *c, struct serve **out, char *err, size_t errlen);
/*
 * serve_ready_line - the line a front end prints once serve_open succeeds:
 *   serve ready tcp=ADDR:PORT udp=ADDR:PORT unix=PATH|none rpc=ADDR:PORT pid=N
 * Each value is the --peer of the matching workload.
 */
void serve_ready_line(const struct serve *s, char *buf, size_t len);
/*
 * serve_run - serve until SIGINT, SIGTERM or (if watched) EOF on stdin
 * (everything listens already, from serve_open). 0
 */
int serve_run(struct serve *s, char *err, size_t errlen);
/* serve_stop_reason - "signal", "stdin", or NULL while running */
const char *serve_stop_reason(const struct serve *s);
/* serve_get_stats - the counters so far */
void serve_get_stats(const struct serve *s, struct serve_stats *st);
/*
 * serve_stop_line - the line a front end prints when serve_run returns:
 *   serve stop reason=R conns=N messages=N rx_bytes=N udp_datagrams=N rpc_calls=N bad_clients=N
 *              controls=N fluid_runs=N
 */
void serve_stop_line(const struct serve *s, char *buf, size_t len);
/* serve_close - close everything, remove the unix socket file, free */
void serve_close(struct serve *s);

/* The options both front ends take: serve_main prints it in --help, after the usage line. */
#define SERVE_HELP_TEXT                                                                      \
	"The peer of the socket and RPC workloads: a sink-and-reply server for tcp,\n"       \
	"tcp-stream, udp and unix, and an ONC RPC service for rpc (no portmapper), all\n"    \
	"on one event loop (libuv). Once it listens it prints one line on stdout,\n"         \
	"  serve ready tcp=ADDR:PORT udp=ADDR:PORT unix=PATH rpc=ADDR:PORT pid=N\n"          \
	"whose values are the workloads' --peer arguments, and serves until SIGINT,\n"       \
	"SIGTERM, or end of file on stdin when stdin is a pipe or socket. Then it\n"         \
	"prints 'serve stop reason=... conns=N messages=N ...' and exits 0.\n"               \
	"\n"                                                                                 \
	"Listening:\n"                                                                       \
	"  --listen ADDR[:PORT]  numeric IPv4, [IPv6] or bare IPv6, and the base port\n"     \
	"                        (default 127.0.0.1:7777): tcp and udp on PORT, rpc on\n"    \
	"                        PORT+1. PORT 0 picks free ports; read the ready line.\n"    \
	"                        It has no authentication: beyond loopback it warns\n"       \
	"  --unix PATH|none      the unix stream socket (default /tmp/displace-PORT.sock,\n" \
	"                        or /tmp/displace-serve-PID.sock with port 0)\n"             \
	"Limits:\n"                                                                          \
	"  --idle-timeout D      drop a connection or udp client silent for D after its\n"   \
	"                        hello (default 60s; 1s to 1d)\n"                            \
	"  --max-conns N         stream connections at most, tcp, unix and rpc (default\n"   \
	"                        1024, fewer if the fd limit is lower)\n"                    \
	"  --max-per-source N    connections, and udp clients, from one address (an IPv6\n"  \
	"                        /64, a unix uid) (default 256)\n"                           \
	"Placement:\n"                                                                       \
	"  --cpu N               pin the server to CPU N (default: not pinned)\n"            \
	"Lifetime:\n"                                                                        \
	"  --ignore-stdin        keep serving at end of file on stdin\n"                     \
	"  -h, --help            this help\n"                                                \
	"\n"                                                                                 \
	"Protocol: a stream connection, or a udp source address, starts with a 24-byte\n"    \
	"hello, big-endian: u32 magic 0x4453504c (\"DSPL\"), u8 version 2, u8 kind 0,\n"     \
	"u16 status 0, u32 message bytes (1 to 16 MiB; udp 65507, or 65527 over IPv6),\n"    \
	"u32 reply bytes (0 to 16 MiB; udp at least 1), u64 cookie (0; see udp). The\n"      \
	"server answers with the same 24 bytes, kind 1 and a status (0 accepted; else\n"     \
	"it closes), then reads raw messages of exactly that size and answers each\n"        \
	"with that many bytes. udp proves the address first: the ack to a first hello\n"     \
	"has status 5 and a cookie, and only a hello that echoes it is accepted; until\n"    \
	"then no answer is larger than what came. A hello of another version gets a\n"       \
	"16-byte ack with status 1. A bad client is cut off with one line on stderr;\n"      \
	"the others keep being served. A hello of kind 2 opens a control connection\n"     \
	"to the peer's fluids: 'displace serve --fluid-cpus' takes it (README.md),\n"       \
	"put serve answers status 7.\n"

#endif
