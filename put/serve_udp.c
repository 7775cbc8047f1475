/*
 * serve_udp.c - the peer's udp: each datagram goes through the admission
 * of put/udp_gate.c (cookies, the table of proven sources), which says
 * what to send back. The design notes are in put/serve.h.
 */
#include "put/serve_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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
	struct udp_gate_result r;
	if (nread < 0) {
		serve_log(s, "udp receive failed: %s", uv_strerror((int)nread));
		return;
	}
	if (!addr)
		return; /* nothing more to read */
	s->st.udp_datagrams++;
	if (flags & UV_UDP_PARTIAL) {
		/* cannot happen with a 256 KiB buffer */
		s->st.bad_clients++;
		net_sockaddr_format(addr, name, sizeof name);
		serve_log(s, "udp %s: a datagram above %u bytes; ignored", name, SERVE_BUF_BYTES);
		return;
	}
	unsigned before = udp_gate_count(s->gate);
	udp_gate_datagram(s->gate, addr, uv_now(&s->loop), (const uint8_t *)buf->base, (size_t)nread, &r);
	if (udp_gate_count(s->gate) > before)
		serve_sweep_arm(s); /* a new source: it will need forgetting */
	if (r.bad)
		s->st.bad_clients++;
	if (r.why[0]) {
		net_sockaddr_format(addr, name, sizeof name);
		serve_log(s, "udp %s: %s%s", name, r.why, r.action == UDP_GATE_DROP ? "; ignored" : "");
	}
	uv_buf_t b;
	switch (r.action) {
	case UDP_GATE_ACK:
		b = uv_buf_init((char *)r.ack, (unsigned)r.ack_len);
		uv_udp_try_send(h, &b, 1, addr); /* a lost ack is resent: the client repeats its hello */
		break;
	case UDP_GATE_REPLY:
		s->st.messages++;
		s->st.rx_bytes += (uint64_t)nread;
		b = uv_buf_init(s->zeros, r.reply_bytes);
		uv_udp_try_send(h, &b, 1, addr); /* if the socket is full, the client retransmits */
		break;
	case UDP_GATE_DROP:
		break;
	}
}

bool serve_udp_sweep(struct serve *s, uint64_t now_ms)
{
	return udp_gate_expire(s->gate, now_ms) > 0;
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
