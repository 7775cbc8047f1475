/* net.c - the hello, addresses, option parsing and blocking send/receive loops */
#include "put/net.h"
#include "common/cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void net_hello_encode(uint8_t *out, const struct net_hello *h)
{
	put_be32(out, NET_HELLO_MAGIC);
	out[4] = (uint8_t)h->version;
	out[5] = (uint8_t)h->kind;
	out[6] = (uint8_t)(h->status >> 8);
	out[7] = (uint8_t)h->status;
	put_be32(out + 8, h->msg_bytes);
	put_be32(out + 12, h->reply_bytes);
	put_be32(out + 16, (uint32_t)(h->cookie >> 32));
	put_be32(out + 20, (uint32_t)h->cookie);
}

int net_hello_decode(const uint8_t *in, size_t len, struct net_hello *h)
{
	if (len < NET_HELLO_HEAD_BYTES)
		return -EMSGSIZE;
	if (get_be32(in) != NET_HELLO_MAGIC)
		return -EPROTO;
	h->version = in[4];
	h->kind = in[5];
	h->status = (unsigned)in[6] << 8 | in[7];
	h->msg_bytes = get_be32(in + 8);
	h->reply_bytes = get_be32(in + 12);
	h->cookie = len >= NET_HELLO_BYTES ? (uint64_t)get_be32(in + 16) << 32 | get_be32(in + 20) : 0;
	return 0;
}

enum net_hello_status net_hello_check(const struct net_hello *h, uint32_t max_msg_bytes, uint32_t min_reply_bytes,
				      uint32_t max_reply_bytes)
{
	if (h->version != NET_HELLO_VERSION)
		return NET_HELLO_BAD_VERSION;
	if (h->kind != NET_HELLO || h->status != 0)
		return NET_HELLO_BAD_FORM;
	if (h->msg_bytes == 0 || h->msg_bytes > max_msg_bytes)
		return NET_HELLO_BAD_SIZE;
	if (h->reply_bytes < min_reply_bytes || h->reply_bytes > max_reply_bytes)
		return NET_HELLO_BAD_REPLY;
	return NET_HELLO_OK;
}

const char *net_hello_status_str(unsigned status)
{
	switch (status) {
	case NET_HELLO_OK:
		return "accepted";
	case NET_HELLO_BAD_VERSION:
		return "unsupported hello version";
	case NET_HELLO_BAD_SIZE:
		return "message size out of range";
	case NET_HELLO_BAD_REPLY:
		return "reply size out of range";
	case NET_HELLO_BAD_FORM:
		return "malformed hello";
	case NET_HELLO_COOKIE:
		return "echo the cookie";
	case NET_HELLO_BUSY:
		return "busy: it serves as many clients as it takes";
	case NET_HELLO_NO_FLUIDS:
		return "no fluids here: the peer was not started with --fluid-cpus";
	case NET_HELLO_BAD_CONTROL:
		return "unsupported control version";
	default:
		return "refused for an unknown reason";
	}
}

static int parse_port(const char *s, unsigned *port)
{
	uint64_t v;
	int rc = cli_parse_u64(s, 0, 65535, &v);
	if (rc)
		return rc;
	*port = (unsigned)v;
	return 0;
}

int net_parse_hostport(const char *s, unsigned default_port, struct net_addr *a)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port_s = NULL;
	unsigned port = default_port;
	int v6;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || (size_t)(close - s - 1) >= sizeof host)
			return -EINVAL;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		if (close[1] == ':')
			port_s = close + 2;
		else if (close[1] != '\0')
			return -EINVAL;
		v6 = 1;
	} else {
		const char *colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':')) { /* a bare IPv6 address, no port */
			if (strlen(s) >= sizeof host)
				return -EINVAL;
			strcpy(host, s);
			v6 = 1;
		} else {
			size_t n = colon ? (size_t)(colon - s) : strlen(s);
			if (n >= sizeof host)
				return -EINVAL;
			memcpy(host, s, n);
			host[n] = '\0';
			if (colon)
				port_s = colon + 1;
			v6 = 0;
		}
	}
	if (port_s) {
		int rc = parse_port(port_s, &port);
		if (rc)
			return rc;
	}
	if (port > 65535)
		return -ERANGE;
	memset(a, 0, sizeof *a);
	if (v6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		a->len = sizeof *in6;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		a->len = sizeof *in;
	}
	return 0;
}

int net_parse_unix(const char *path, struct net_addr *a)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;
	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) >= sizeof un->sun_path)
		return -ENAMETOOLONG;
	memset(a, 0, sizeof *a);
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, path);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	return 0;
}

unsigned net_addr_port(const struct net_addr *a)
{
	if (a->ss.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return 0;
}

void net_addr_set_port(struct net_addr *a, unsigned port)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons((uint16_t)port);
	else if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons((uint16_t)port);
}

uint32_t net_addr_udp_max(const struct net_addr *a)
{
	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->ss;
		if (!IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return NET_UDP6_MAX_BYTES;
	}
	return NET_UDP4_MAX_BYTES;
}

int net_addr_is_loopback(const struct net_addr *a)
{
	if (a->ss.ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr) >> 24) == 127;
	if (a->ss.ss_family != AF_INET6)
		return 0;
	const struct in6_addr *in6 = &((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
	return IN6_IS_ADDR_LOOPBACK(in6) || (IN6_IS_ADDR_V4MAPPED(in6) && in6->s6_addr[12] == 127);
}

void net_sockaddr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	switch (sa->sa_family) {
	case AF_INET: {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
		break;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
		break;
	}
	case AF_UNIX:
		snprintf(buf, len, "%s", ((const struct sockaddr_un *)sa)->sun_path);
		break;
	default:
		snprintf(buf, len, "(address family %d)", sa->sa_family);
	}
}

void net_format_addr(const struct net_addr *a, char *buf, size_t len)
{
	net_sockaddr_format((const struct sockaddr *)&a->ss, buf, len);
}

static int size_error(const char *v, uint64_t min, const char *name, char *err, size_t errlen)
{
	snprintf(err, errlen, "invalid value '%s' for %s (%s to 16 MiB, e.g. 1000, 4k, 64Ki)", v, name,
		 min ? "1 byte" : "0");
	return -EINVAL;
}

static int opt_size(const char *v, uint64_t min, const char *name, uint64_t *out, char *err, size_t errlen)
{
	uint64_t b;
	if (cli_parse_size(v, &b) || b < min || b > NET_MAX_MSG_BYTES)
		return size_error(v, min, name, err, errlen);
	*out = b;
	return 0;
}

int net_check_size(uint64_t bytes, char *err, size_t errlen)
{
	char v[32];
	if (bytes >= 1 && bytes <= NET_MAX_MSG_BYTES)
		return 0;
	snprintf(v, sizeof v, "%" PRIu64, bytes);
	return size_error(v, 1, "--size", err, errlen);
}

int net_check_size_hook(void *state, uint64_t bytes, char *err, size_t errlen)
{
	(void)state;
	return net_check_size(bytes, err, errlen);
}

int net_parse_opts(int argc, char **argv, unsigned allowed, struct net_opts *o, char *err, size_t errlen)
{
	o->msg_bytes = 1000;
	o->reply_bytes = 1;
	o->peer = NULL;
	o->timeout_ns = 30000000000ull;
	o->retry_ns = 200000000ull;
	o->max_tries = 25;
	o->window = 1;
	o->compute_ns = 0;
	o->compute_loops = 0;
	o->burst = 0;
	o->duty = 0.5;
	o->flows = 1;
	double per_byte_ns = -1;
	int piped = 0;
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		if ((allowed & NET_OPT_SIZE) && (v = cli_opt_value(argc, argv, &i, "--size", &missing))) {
			if (opt_size(v, 1, "--size", &o->msg_bytes, err, errlen))
				return -EINVAL;
		} else if (!missing && (allowed & NET_OPT_REPLY) &&
			   (v = cli_opt_value(argc, argv, &i, "--reply", &missing))) {
			if (opt_size(v, 1, "--reply", &o->reply_bytes, err, errlen))
				return -EINVAL;
		} else if (!missing && (allowed & NET_OPT_PEER) &&
			   (v = cli_opt_value(argc, argv, &i, "--peer", &missing))) {
			o->peer = v;
		} else if (!missing && (allowed & NET_OPT_TIMEOUT) &&
			   (v = cli_opt_value(argc, argv, &i, "--timeout", &missing))) {
			if (cli_parse_duration_ns(v, &o->timeout_ns) || o->timeout_ns < 1000000) {
				snprintf(err, errlen, "invalid value '%s' for --timeout (a duration of at least 1ms)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_RETRY) &&
			   (v = cli_opt_value(argc, argv, &i, "--retry-after", &missing))) {
			if (cli_parse_duration_ns(v, &o->retry_ns) || o->retry_ns < 1000000 ||
			    o->retry_ns > 60000000000ull) {
				snprintf(err, errlen, "invalid value '%s' for --retry-after (1ms to 60s)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_RETRY) &&
			   (v = cli_opt_value(argc, argv, &i, "--max-tries", &missing))) {
			if (cli_parse_u64(v, 1, 1000000, &o->max_tries)) {
				snprintf(err, errlen, "invalid value '%s' for --max-tries (1 to 1000000)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_FLOWS) &&
			   (v = cli_opt_value(argc, argv, &i, "--flows", &missing))) {
			if (cli_parse_u64(v, 1, NET_MAX_FLOWS, &o->flows)) {
				snprintf(err, errlen, "invalid value '%s' for --flows (1 to %d connections)", v, NET_MAX_FLOWS);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--window", &missing))) {
			piped = 1;
			if (cli_parse_u64(v, 1, 65536, &o->window)) {
				snprintf(err, errlen, "invalid value '%s' for --window (1 to 65536)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--compute-us", &missing))) {
			piped = 1;
			double us;
			if (cli_parse_double(v, 0, 1e7, &us)) {
				snprintf(err, errlen, "invalid value '%s' for --compute-us (0 to 1e7)", v);
				return -EINVAL;
			}
			o->compute_ns = us * 1000;
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--compute-per-byte", &missing))) {
			piped = 1;
			if (cli_parse_double(v, 0, 1e6, &per_byte_ns)) {
				snprintf(err, errlen, "invalid value '%s' for --compute-per-byte (ns, 0 to 1e6)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--compute-loops", &missing))) {
			piped = 1;
			if (cli_parse_u64(v, 1, UINT64_MAX / 2, &o->compute_loops)) {
				snprintf(err, errlen, "invalid value '%s' for --compute-loops", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--burst", &missing))) {
			piped = 1;
			if (cli_parse_u64(v, 1, 1000000000, &o->burst)) {
				snprintf(err, errlen, "invalid value '%s' for --burst (operations, 1 or more)", v);
				return -EINVAL;
			}
		} else if (!missing && (allowed & NET_OPT_PIPE) &&
			   (v = cli_opt_value(argc, argv, &i, "--duty", &missing))) {
			piped = 1;
			if (cli_parse_double(v, 0.01, 1, &o->duty)) {
				snprintf(err, errlen, "invalid value '%s' for --duty (0.01 to 1)", v);
				return -EINVAL;
			}
		} else if (missing) {
			snprintf(err, errlen, "option '%s' needs a value", argv[i]);
			return -EINVAL;
		} else {
			snprintf(err, errlen, "unknown option '%s'", argv[i]);
			return -EINVAL;
		}
	}
	if (piped && o->flows > 1) {
		snprintf(err, errlen, "--flows excludes the pipelined loop's --window, --compute-*, --burst and --duty");
		return -EINVAL;
	}
	if (per_byte_ns >= 0) {
		if (o->compute_ns > 0) {
			snprintf(err, errlen, "--compute-us and --compute-per-byte exclude each other");
			return -EINVAL;
		}
		o->compute_ns = per_byte_ns * (double)o->msg_bytes;
	}
	return 0;
}

int net_connect(const struct net_addr *a, int type, int *fd, char *err, size_t errlen)
{
	char name[NET_UNIX_PATH_MAX + 16];
	net_format_addr(a, name, sizeof name);
	int s = socket(a->ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (s < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create a socket for %s: %s", name, strerror(e));
		return -e;
	}
	/*
	 * A blocking connect interrupted by a signal goes on in the kernel:
	 * wait for it to finish and take its result from SO_ERROR.
	 */
	int rc = connect(s, (const struct sockaddr *)&a->ss, a->len);
	if (rc < 0 && errno == EINTR) {
		struct pollfd p = { .fd = s, .events = POLLOUT };
		int e = 0;
		socklen_t el = sizeof e;
		while ((rc = poll(&p, 1, -1)) < 0 && errno == EINTR)
			;
		if (rc >= 0 && !(rc = getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &el)) && e) {
			errno = e;
			rc = -1;
		}
	}
	if (rc < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot connect to %s: %s", name, strerror(e));
		close(s);
		return -e;
	}
	*fd = s;
	return 0;
}

static struct timeval tv_of(uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / 1000000000u), .tv_usec = (suseconds_t)(ns % 1000000000u / 1000) };
	if (tv.tv_sec == 0 && tv.tv_usec == 0)
		tv.tv_usec = 1;
	return tv;
}

int net_set_timeouts(int fd, uint64_t rcv_ns, uint64_t snd_ns)
{
	if (rcv_ns) {
		struct timeval tv = tv_of(rcv_ns);
		if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv))
			return -errno;
	}
	if (snd_ns) {
		struct timeval tv = tv_of(snd_ns);
		if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv))
			return -errno;
	}
	return 0;
}

int net_send_all(int fd, const void *buf, size_t len, uint64_t *calls)
{
	const char *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		(*calls)++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int net_recv_all(int fd, void *buf, size_t len, uint64_t *calls)
{
	char *p = buf;
	while (len) {
		ssize_t n = recv(fd, p, len, MSG_WAITALL);
		(*calls)++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int net_stream_hello(int fd, uint32_t msg_bytes, uint32_t reply_bytes, char *err, size_t errlen)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h = { NET_HELLO_VERSION, NET_HELLO, 0, msg_bytes, reply_bytes, 0 };
	uint64_t calls = 0;
	net_hello_encode(b, &h);
	int rc = net_send_all(fd, b, sizeof b, &calls);
	if (rc) {
		snprintf(err, errlen, "cannot send the hello: %s", strerror(-rc));
		return rc;
	}
	/* the head first: a peer of another version answers with the head only */
	rc = net_recv_all(fd, b, NET_HELLO_HEAD_BYTES, &calls);
	if (rc == -ECONNRESET) {
		snprintf(err, errlen, "the peer closed the connection without answering the hello "
				      "(is it 'put serve'? a peer at its connection limit closes new ones: see its log)");
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "no answer to the hello: %s", rc == -EAGAIN ? "timed out" : strerror(-rc));
		return rc == -EAGAIN ? -ETIMEDOUT : rc;
	}
	if (net_hello_decode(b, NET_HELLO_HEAD_BYTES, &h) || h.kind != NET_ACK) {
		snprintf(err, errlen, "the peer's answer to the hello is not a displace ack (is it 'put serve'?)");
		return -EPROTO;
	}
	if (h.status != NET_HELLO_OK) {
		if (h.status == NET_HELLO_BAD_VERSION && h.version != NET_HELLO_VERSION)
			snprintf(err, errlen, "the peer speaks hello version %u, this client %u: run the same displace on both ends",
				 h.version, NET_HELLO_VERSION);
		else
			snprintf(err, errlen, "the peer refused the hello (%u bytes, reply %u): %s", msg_bytes, reply_bytes,
				 net_hello_status_str(h.status));
		return -ECONNREFUSED;
	}
	rc = net_recv_all(fd, b + NET_HELLO_HEAD_BYTES, NET_HELLO_BYTES - NET_HELLO_HEAD_BYTES, &calls);
	if (rc) {
		snprintf(err, errlen, "the peer's ack was cut short: %s", rc == -EAGAIN ? "timed out" : strerror(-rc));
		return rc == -EAGAIN ? -ETIMEDOUT : rc;
	}
	if (h.msg_bytes != msg_bytes || h.reply_bytes != reply_bytes) {
		snprintf(err, errlen, "the peer acknowledged other sizes (%u, %u)", h.msg_bytes, h.reply_bytes);
		return -EPROTO;
	}
	return 0;
}

void net_print_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, " %s=", key);
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (*p <= ' ' || *p == '%' || *p == 0x7f)
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}
