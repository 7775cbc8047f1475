/*
 * net.h - what the peer (serve.c) and the socket workloads share: the
 * hello, the port scheme, addresses, option parsing, and plain blocking
 * send and receive loops. Every function returns 0 or -errno; none prints.
 *
 * The hello (version 2: 24 bytes, big-endian) starts every stream
 * connection and every udp source address:
 *
 *   offset 0  u32 magic        0x4453504c, "DSPL"
 *          4  u8  version      2
 *          5  u8  kind         0 hello (client to peer), 1 ack (peer to client),
 *                              2 control hello (put/ctl_wire.h: the peer's fluids)
 *          6  u16 status       0 in a hello; in an ack 0 = accepted, else why not
 *          8  u32 msg_bytes    the size of every message, 1 to 16 MiB (udp: 65507
 *                              over IPv4, 65527 over IPv6)
 *         12  u32 reply_bytes  the size of the reply to each message, 0 to 16 MiB
 *                              (udp: 1 to the udp limit); 0 = no replies
 *         16  u64 cookie       streams: 0. udp: 0 in a first hello; the peer's
 *                              ack (status 5) carries a cookie, which the next
 *                              hello from the same address and port echoes
 *
 * The peer answers with an ack that echoes both sizes. After an accepted
 * hello, a stream carries raw messages of exactly msg_bytes, and the peer
 * answers each whole message with reply_bytes bytes; for udp every datagram
 * of msg_bytes from that source address is one message and gets one
 * reply datagram. A refused hello gets an ack with a non-zero status, and
 * the peer then closes the connection.
 *
 * udp proves the source address before any reply larger than what it
 * sent: a first hello gets an ack of the same 24 bytes, status 5 and a
 * cookie (a keyed hash of the address, port, sizes and the time, valid
 * 30 to 60 s); only a hello that echoes it registers the source, and only
 * registered sources get replies. A source that sends nothing for the
 * idle timeout is forgotten; the client then repeats the exchange.
 *
 * The first 16 bytes (the head) are the whole hello of version 1. A hello
 * of another version is answered with a 16-byte ack, status 1, so that a
 * client or peer of either version can say what is wrong.
 *
 * Ports: one base port P (default 7777). tcp, tcp-stream and udp use P,
 * rpc uses P + 1 (tcp); the unix socket is /tmp/displace-P.sock. Port 0
 * picks free ports, which the peer prints in its ready line.
 */
#ifndef NET_H
#define NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#define NET_HELLO_BYTES 24      /* a hello or ack of this version */
#define NET_HELLO_HEAD_BYTES 16 /* what every version shares: the hello of version 1 */
#define NET_HELLO_MAGIC 0x4453504cu /* "DSPL" */
#define NET_HELLO_VERSION 2
#define NET_MAX_MSG_BYTES (16u << 20)
#define NET_UDP4_MAX_BYTES 65507u /* 65535 - 20 (IPv4) - 8 (UDP) */
#define NET_UDP6_MAX_BYTES 65527u /* 65535 - 8: the IPv6 header is not in the payload length */
#define NET_DEFAULT_PORT 7777
#define NET_MAX_FLOWS 256 /* --flows: connections of one PUT, within the peer's --max-per-source default */
#define NET_RPC_PORT_OFFSET 1
#define NET_UNIX_PATH_FMT "/tmp/displace-%u.sock"
#define NET_UNIX_PATH_MAX 108 /* sizeof sun_path, NUL included */

enum net_hello_kind { NET_HELLO = 0, NET_ACK = 1, NET_CONTROL = 2 /* a control connection: put/ctl_wire.h */ };

/* Why a peer refuses a hello: the status of its ack. */
enum net_hello_status {
	NET_HELLO_OK = 0,
	NET_HELLO_BAD_VERSION = 1,
	NET_HELLO_BAD_SIZE = 2,  /* msg_bytes 0 or above the limit */
	NET_HELLO_BAD_REPLY = 3, /* reply_bytes above the limit */
	NET_HELLO_BAD_FORM = 4,  /* kind or status not 0, or a cookie on a stream */
	NET_HELLO_COOKIE = 5,    /* udp: not refused; send the hello again with the ack's cookie */
	NET_HELLO_BUSY = 6,      /* the peer serves as many clients as it takes (control: one at a time) */
	NET_HELLO_NO_FLUIDS = 7, /* a control hello to a peer started without --fluid-cpus */
	NET_HELLO_BAD_CONTROL = 8, /* a control hello of another control version (the ack's msg_bytes is the peer's) */
};

struct net_hello {
	unsigned version, kind, status;
	uint32_t msg_bytes, reply_bytes;
	uint64_t cookie;
};

/*
 * net_hello_encode - write a hello or ack into out[NET_HELLO_BYTES]; its
 * first NET_HELLO_HEAD_BYTES are the answer to a hello of another version
 */
void net_hello_encode(uint8_t *out, const struct net_hello *h);
/*
 * net_hello_decode - read a hello or ack of len bytes: the head, and the
 * cookie if len reaches NET_HELLO_BYTES (else the cookie is 0). -EPROTO
 * if the magic is wrong (not a displace hello), -EMSGSIZE if len is
 * below NET_HELLO_HEAD_BYTES. Extra bytes are not looked at.
 */
int net_hello_decode(const uint8_t *in, size_t len, struct net_hello *h);
/*
 * net_hello_check - the status a peer answers a decoded hello with, given
 * its limits: NET_HELLO_OK or the reason for refusing it
 */
enum net_hello_status net_hello_check(const struct net_hello *h, uint32_t max_msg_bytes, uint32_t min_reply_bytes,
				      uint32_t max_reply_bytes);
/* net_hello_status_str - a status in words */
const char *net_hello_status_str(unsigned status);

/* An address: IPv4, IPv6 or a unix path, ready for connect or bind. */
struct net_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/*
 * net_parse_hostport - parse a numeric "IPv4[:PORT]", "[IPv6][:PORT]" or a
 * bare IPv6 address; without a port, default_port. -EINVAL for junk or a
 * host name, -ERANGE for a port above 65535.
 */
int net_parse_hostport(const char *s, unsigned default_port, struct net_addr *a);
/* net_parse_unix - a unix socket path; -EINVAL if empty, -ENAMETOOLONG if it does not fit */
int net_parse_unix(const char *path, struct net_addr *a);
/* net_addr_port - the port of an IPv4 or IPv6 address (0 for unix) */
unsigned net_addr_port(const struct net_addr *a);
/* net_addr_set_port - change the port of an IPv4 or IPv6 address */
void net_addr_set_port(struct net_addr *a, unsigned port);
/* net_addr_udp_max - the largest udp payload to or from this address */
uint32_t net_addr_udp_max(const struct net_addr *a);
/*
 * net_addr_is_loopback - an IPv4 address in 127.0.0.0/8, ::1, or
 * ::ffff:127.x.y.z; a wildcard (0.0.0.0, ::) is not: it listens everywhere
 */
int net_addr_is_loopback(const struct net_addr *a);
/* net_format_addr - "127.0.0.1:7777", "[::1]:7777" or the unix path */
void net_format_addr(const struct net_addr *a, char *buf, size_t len);
/* net_sockaddr_format - the same, for a struct sockaddr of any family */
void net_sockaddr_format(const struct sockaddr *sa, char *buf, size_t len);

/* Options of the socket workloads; net_parse_opts takes those allowed. */
enum net_opt {
	NET_OPT_SIZE = 1 << 0,    /* --size BYTES */
	NET_OPT_REPLY = 1 << 1,   /* --reply BYTES */
	NET_OPT_PEER = 1 << 2,    /* --peer ADDR */
	NET_OPT_TIMEOUT = 1 << 3, /* --timeout D */
	NET_OPT_RETRY = 1 << 4,   /* --retry-after D, --max-tries N (udp) */
	NET_OPT_PIPE = 1 << 5,    /* --window W, --compute-us C, --compute-per-byte NS,
				     --compute-loops N, --burst B, --duty F (streams) */
	NET_OPT_FLOWS = 1 << 6,   /* --flows K: K connections at once, round robin */
};

/* The help line of NET_OPT_FLOWS. */
#define NET_FLOWS_HELP                                                                                    \
	"  --flows K        K connections at once (1 to 256, default 1), round robin:\n"                    \
	"                   each operation goes on the next one, and waits only for\n"                      \
	"                   that one's previous reply, so K messages are in flight\n"

/* The help lines of NET_OPT_PIPE, shared by the stream workloads. */
#define NET_PIPE_HELP                                                                                     \
	"  --window W       up to W messages outstanding before waiting for a reply\n"                    \
	"                   (default 1: send, then wait for the reply)\n"                                \
	"  --compute-us C   after each send, spin C us of CPU (calibrated; default 0)\n"                  \
	"  --compute-per-byte NS  spin NS ns per message byte instead\n"                                 \
	"  --compute-loops N      spin exactly N fluid loops instead (no calibration)\n"                 \
	"  --burst B        pace in bursts of B operations, each followed by a sleep\n"                 \
	"  --duty F         with --burst: busy F of the time (default 0.5), leaving\n"                 \
	"                   the fluid room\n"

struct net_opts {
	uint64_t msg_bytes;   /* default 1000 */
	uint64_t reply_bytes; /* default 1 */
	const char *peer;     /* as given; NULL for the default */
	uint64_t timeout_ns;  /* default 30 s */
	uint64_t retry_ns;    /* default 200 ms */
	uint64_t max_tries;   /* default 25 */
	uint64_t window;      /* replies outstanding at most; default 1 (send, then wait) */
	double compute_ns;    /* spin after each send: --compute-us, or per byte x size */
	uint64_t compute_loops; /* --compute-loops: fixed spin loops, no calibration */
	uint64_t burst;       /* operations per burst; 0: no pacing */
	double duty;          /* busy share when pacing; default 0.5 */
	uint64_t flows;       /* connections at once; default 1 */
};

/*
 * net_parse_opts - parse a workload's argv (argv[0] is its name) into o,
 * taking only the options in allowed. Sizes are 1 byte to 16 MiB
 * (cli_parse_size: k = 1000, Ki = 1024); --flows excludes the pipelined
 * loop's options. -EINVAL with a reason in err.
 */
int net_parse_opts(int argc, char **argv, unsigned allowed, struct net_opts *o, char *err, size_t errlen);

/*
 * net_check_size - whether bytes is a message size the socket workloads
 * take (1 byte to 16 MiB); -EINVAL with the same reason as --size gets
 */
int net_check_size(uint64_t bytes, char *err, size_t errlen);
/* net_check_size_hook - net_check_size as a workload's check_size (the state is not needed) */
int net_check_size_hook(void *state, uint64_t bytes, char *err, size_t errlen);

/*
 * net_connect - a blocking socket of type connected to a; -errno with
 * "cannot connect to ADDR: reason" in err
 */
int net_connect(const struct net_addr *a, int type, int *fd, char *err, size_t errlen);
/* net_set_timeouts - SO_RCVTIMEO and SO_SNDTIMEO; 0 ns leaves them unset */
int net_set_timeouts(int fd, uint64_t rcv_ns, uint64_t snd_ns);
/*
 * net_send_all - send len bytes with plain blocking send calls, resuming
 * after partial writes and EINTR; *calls counts the calls. -EAGAIN means
 * the send timeout expired.
 */
int net_send_all(int fd, const void *buf, size_t len, uint64_t *calls);
/*
 * net_recv_all - receive exactly len bytes (MSG_WAITALL, resumed after
 * partial reads and EINTR); -ECONNRESET if the peer closes first
 */
int net_recv_all(int fd, void *buf, size_t len, uint64_t *calls);
/*
 * net_stream_hello - send a hello on a connected stream and wait for the
 * ack; -ECONNREFUSED with the peer's reason if it refuses, -EPROTO if
 * the answer is not a displace ack
 */
int net_stream_hello(int fd, uint32_t msg_bytes, uint32_t reply_bytes, char *err, size_t errlen);

/* net_print_field - " key=value" with space, '%' and control bytes %-escaped */
void net_print_field(FILE *f, const char *key, const char *value);

#endif
