/*
 * serve_udp.c - the peer's udp: a hello datagram registers its source
 * address with its sizes in a table, later datagrams of that size from
 * there are answered. The design notes are in put/serve.h.
 */
#include "put/serve_int.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define SERVE_UDP_SLOTS 4096 /* a power of 2 */

union udp_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

struct serve_udp_peer {
	union udp_addr a;
	uint32_t msg_bytes, reply_bytes;
	int used;
};

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
		serve_log(s, "udp receive failed: %s", uv_strerror((int)nread));
		return;
	}
	if (!addr || udp_key(addr, &key))
		return;
	s->st.udp_datagrams++;
	uint32_t max = NET_UDP4_MAX_BYTES;
	if (addr->sa_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&key.in6.sin6_addr))
		max = NET_UDP6_MAX_BYTES;
	struct serve_udp_peer *p = &s->peers[udp_hash(&key)];
	struct net_hello hello;
	if (flags & UV_UDP_PARTIAL) {
		/* cannot happen with a 256 KiB buffer */
		s->st.bad_clients++;
		net_sockaddr_format(addr, name, sizeof name);
		serve_log(s, "udp %s: a datagram above %u bytes; ignored", name, SERVE_BUF_BYTES);
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
			serve_log(s, "udp %s: hello refused (version %u, %" PRIu32 " bytes, reply %" PRIu32 "): %s", name,
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
		serve_log(s, "udp %s: a %zd-byte datagram, but its hello said %" PRIu32 " bytes; ignored", name, nread,
		     p->msg_bytes);
	else
		serve_log(s, "udp %s: a %zd-byte datagram without a hello first; ignored", name, nread);
}

struct serve_udp_peer *serve_udp_peers_new(void)
{
	return calloc(SERVE_UDP_SLOTS, sizeof(struct serve_udp_peer));
}

int serve_udp_open(struct serve *s, char *err, size_t errlen)
{
	char name[80];
	unsigned base = net_addr_port(&s->cfg.listen);
	int len = sizeof s->udp_addr.ss;
	int rc;

	/* udp on the tcp port; with port 0 that is a free port, if udp has it free too */
	s->udp_addr = s->tcp_addr;
	if ((rc = uv_udp_init(&s->loop, &s->udp)))
		goto fail;
	s->udp.data = s;
	rc = uv_udp_bind(&s->udp, (struct sockaddr *)&s->udp_addr.ss, 0);
	if (rc == UV_EADDRINUSE && base == 0) {
		net_addr_set_port(&s->udp_addr, 0);
		rc = uv_udp_bind(&s->udp, (struct sockaddr *)&s->udp_addr.ss, 0);
	}
	if (rc || (rc = uv_udp_getsockname(&s->udp, (struct sockaddr *)&s->udp_addr.ss, &len)))
		goto fail;
	s->udp_addr.len = (socklen_t)len;
	if ((rc = uv_udp_recv_start(&s->udp, on_udp_alloc, on_udp)))
		goto fail;
	return 0;
fail:
	net_format_addr(&s->udp_addr, name, sizeof name);
	snprintf(err, errlen, "cannot bind udp %s: %s", name, uv_strerror(rc));
	return rc;
}
