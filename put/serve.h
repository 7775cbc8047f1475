/*
 * serve.h - the peer: a libuv sink-and-reply server for the tcp,
 * tcp-stream, udp and unix workloads, and an ONC RPC service for rpc.
 * 'put serve' (put/put_main.c) and 'displace serve' (coordinator/cmd_serve.c)
 * are its two front ends; the hello and the port scheme are in put/net.h.
 *
 * One server per process: the RPC service uses libtirpc's global state.
 * Library rules apply: 0 or -errno, a reason in err, and no printing; the
 * front end passes a log function for the one line per bad client.
 *
 * Files (their private header is put/serve_int.h):
 *   serve.c         lifecycle: config, open, run, stop, close, the ready and
 *                   stop lines, the log of bad clients and its rate limit
 *   serve_stream.c  the tcp and unix stream connections
 *   serve_udp.c     udp
 *   serve_rpc.c     the RPC thread and its dispatcher
 *   serve_main.c    serve_main (put/serve_main.h), the one main of both front
 *                   ends: options, pinning, the ready and stop lines, exit status
 *
 * Design:
 * - One uv loop serves tcp, udp and unix. A stream connection costs a
 *   fixed few hundred bytes: messages are counted and discarded as they
 *   arrive (a shared read buffer), and replies are counted, not queued,
 *   then written from a shared buffer with one write request at most per
 *   connection. A client that does not read its replies is throttled: its
 *   connection stops being read while more than 1 MiB of replies is owed.
 * - A connection must complete its hello within 10 s. A bad hello, a
 *   client gone mid-message or a read error closes that connection with
 *   one log line; logs are limited to 20 lines per 10 s, then counted.
 * - udp: a valid hello datagram (16 bytes, the magic) registers its
 *   source address (ip, port) with its sizes in a 4096-slot table; later
 *   datagrams from that address of exactly msg_bytes are messages. A
 *   repeated hello replaces the sizes. Others are ignored and logged.
 * - RPC runs in its own thread on a socket bound here and wrapped with
 *   svc_vc_create, registered with svc_reg without a netconfig, so the
 *   portmapper is never told. The thread polls libtirpc's descriptors and
 *   an eventfd that stops it. libtirpc reads a record with blocking reads
 *   (35 s limit each): one stalled RPC client delays the other RPC
 *   clients, never the uv loop. Arguments are decoded in 64 KiB pieces
 *   and discarded, so a 16 MiB call is not held in memory.
 */
#ifndef SERVE_H
#define SERVE_H

#include "put/net.h"

#include <stddef.h>
#include <stdint.h>

enum serve_unix_mode { SERVE_UNIX_DEFAULT, SERVE_UNIX_PATH, SERVE_UNIX_NONE };

struct serve_config {
	struct net_addr listen; /* tcp and udp on its port, rpc on port + 1; port 0: free ports */
	enum serve_unix_mode unix_mode;
	char unix_path[NET_UNIX_PATH_MAX]; /* with SERVE_UNIX_PATH */
	int watch_stdin;                   /* stop at EOF on stdin, if stdin is a pipe or socket */
	void (*log)(void *ctx, const char *line); /* one line, no newline; NULL: silent */
	void *log_ctx;
};

/* What the server did, printed by the front ends when it stops. */
struct serve_stats {
	uint64_t conns;        /* stream connections accepted */
	uint64_t bad_clients;  /* connections or datagrams refused or cut off */
	uint64_t messages;     /* whole messages received (stream and udp) */
	uint64_t rx_bytes;     /* message bytes received (stream and udp) */
	uint64_t udp_datagrams;
	uint64_t rpc_calls;
};

struct serve;

/* serve_config_init - 127.0.0.1:7777, the default unix path, watching stdin, no log */
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
 * (the RPC thread already runs, from serve_open). 0
 */
int serve_run(struct serve *s, char *err, size_t errlen);
/* serve_stop_reason - "signal", "stdin", or NULL while running */
const char *serve_stop_reason(const struct serve *s);
/* serve_get_stats - the counters so far */
void serve_get_stats(const struct serve *s, struct serve_stats *st);
/*
 * serve_stop_line - the line a front end prints when serve_run returns:
 *   serve stop reason=R conns=N messages=N rx_bytes=N udp_datagrams=N rpc_calls=N bad_clients=N
 */
void serve_stop_line(const struct serve *s, char *buf, size_t len);
/* serve_close - close everything, remove the unix socket file, free */
void serve_close(struct serve *s);

/* The options both front ends take: serve_main prints it in --help, after the usage line. */
#define SERVE_HELP_TEXT                                                                                          \
	"The peer of the socket and RPC workloads: a sink-and-reply server for tcp,\n"                            \
	"tcp-stream, udp and unix (libuv), and an ONC RPC service for rpc (libtirpc,\n"                          \
	"no portmapper). Once it listens it prints one line on stdout,\n"                                         \
	"  serve ready tcp=ADDR:PORT udp=ADDR:PORT unix=PATH rpc=ADDR:PORT pid=N\n"                              \
	"whose values are the workloads' --peer arguments, and serves until SIGINT,\n"                           \
	"SIGTERM, or end of file on stdin when stdin is a pipe or socket. Then it\n"                              \
	"prints 'serve stop reason=... conns=N messages=N ...' and exits 0.\n"                                    \
	"\n"                                                                                                       \
	"Listening:\n"                                                                                             \
	"  --listen ADDR[:PORT]  numeric IPv4, [IPv6] or bare IPv6, and the base port\n"                         \
	"                        (default 127.0.0.1:7777): tcp and udp on PORT, rpc on\n"                        \
	"                        PORT+1. PORT 0 picks free ports; read the ready line\n"                          \
	"  --unix PATH|none      the unix stream socket (default /tmp/displace-PORT.sock,\n"                     \
	"                        or /tmp/displace-serve-PID.sock with port 0)\n"                                  \
	"Placement:\n"                                                                                             \
	"  --cpu N               pin the server and its threads to CPU N (default: not\n"                         \
	"                        pinned)\n"                                                                       \
	"Lifetime:\n"                                                                                              \
	"  --ignore-stdin        keep serving at end of file on stdin\n"                                          \
	"  -h, --help            this help\n"                                                                     \
	"\n"                                                                                                       \
	"Protocol: a stream connection, or a udp source address, starts with a 16-byte\n"                        \
	"hello, big-endian: u32 magic 0x4453504c (\"DSPL\"), u8 version 1, u8 kind 0,\n"                         \
	"u16 status 0, u32 message bytes (1 to 16 MiB; udp 65507, or 65527 over IPv6),\n"                        \
	"u32 reply bytes (0 to 16 MiB; udp at least 1). The server answers with the\n"                           \
	"same 16 bytes, kind 1 and a status (0 accepted; else it closes), then reads\n"                          \
	"raw messages of exactly that size and answers each with that many bytes.\n"                             \
	"A bad client is cut off with one line on stderr; the others keep being served.\n"

#endif
