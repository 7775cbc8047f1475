/*
 * fuzz_hello.c - libFuzzer harness for the peer's hello and its udp
 * datagram path: net_hello_decode and net_hello_check (put/net.c), and
 * udp_gate_datagram (put/udp_gate.c), which decides what every datagram
 * from a source means and what goes back.
 *
 * Build and run: make fuzz-hello (see the Makefile). Self-contained: it
 * links put/net.c, put/udp_gate.c, put/siphash.c and common/cli.c only.
 *
 * Each input is used twice:
 * 1. as one hello of any length: decode, check under a few limits, and
 *    encode again; what decodes must survive the round trip.
 * 2. as a sequence of datagrams, each [u8 source][u8 time step][u16 length]
 *    then its bytes, from 8 sources (IPv4, IPv6, v4-mapped) into a small
 *    table (so that the limits and replacements are reached). A source
 *    with the top bit set echoes each cookie it gets at once, as a client
 *    does, so the fuzzer reaches proven sources without guessing 64 bits.
 *    The invariants: no ack is larger than the datagram it answers, and no
 *    source gets a reply unless an ack accepted it before.
 */
#include "put/net.h"
#include "put/udp_gate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSRC 8

/* an invariant broken: a crash is what libFuzzer reports and keeps */
#define MUST(x)                \
	do {                   \
		if (!(x))      \
			abort(); \
	} while (0)

static void hello_once(const uint8_t *data, size_t size)
{
	struct net_hello h, back;
	uint8_t b[NET_HELLO_BYTES];
	int rc = net_hello_decode(data, size, &h);
	if (size < NET_HELLO_HEAD_BYTES) {
		MUST(rc == -EMSGSIZE);
		return;
	}
	if (rc) {
		MUST(rc == -EPROTO);
		return;
	}
	MUST(h.version <= 0xff && h.kind <= 0xff && h.status <= 0xffff);
	MUST(size >= NET_HELLO_BYTES || h.cookie == 0);
	const uint32_t limits[][3] = { { NET_MAX_MSG_BYTES, 0, NET_MAX_MSG_BYTES },
				       { NET_UDP4_MAX_BYTES, 1, NET_UDP4_MAX_BYTES },
				       { NET_UDP6_MAX_BYTES, 1, NET_UDP6_MAX_BYTES } };
	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		enum net_hello_status st = net_hello_check(&h, limits[i][0], limits[i][1], limits[i][2]);
		MUST(net_hello_status_str(st) != NULL);
		if (st == NET_HELLO_OK)
			MUST(h.version == NET_HELLO_VERSION && h.kind == NET_HELLO && h.status == 0 && h.msg_bytes >= 1 &&
			     h.msg_bytes <= limits[i][0] && h.reply_bytes >= limits[i][1] && h.reply_bytes <= limits[i][2]);
	}
	net_hello_encode(b, &h);
	MUST(net_hello_decode(b, sizeof b, &back) == 0);
	MUST(back.version == h.version && back.kind == h.kind && back.status == h.status &&
	     back.msg_bytes == h.msg_bytes && back.reply_bytes == h.reply_bytes && back.cookie == h.cookie);
	MUST(!memcmp(b, data, size < NET_HELLO_BYTES ? NET_HELLO_HEAD_BYTES : NET_HELLO_BYTES));
}

static void source(unsigned i, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (i % 4 == 3) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		inet_pton(AF_INET6, i & 4 ? "::ffff:10.0.0.1" : "2001:db8::1", &a->sin6_addr);
		a->sin6_port = htons((uint16_t)(1000 + i));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		/* two sources share each address: the per-address limit is reached */
		a->sin_addr.s_addr = htonl(0x7f000001u + i / 2);
		a->sin_port = htons((uint16_t)(1000 + i));
	}
}

/* feed one datagram and check what comes back; *accepted tracks the sources an ack accepted */
static void datagram(struct udp_gate *g, unsigned src, uint64_t now, const uint8_t *d, size_t n, int echo,
		     int *accepted)
{
	struct sockaddr_storage ss;
	struct udp_gate_result r;
	struct net_hello h;
	source(src, &ss);
	udp_gate_datagram(g, (const struct sockaddr *)&ss, now, d, n, &r);
	switch (r.action) {
	case UDP_GATE_ACK:
		MUST(r.ack_len <= n && r.ack_len >= NET_HELLO_HEAD_BYTES);
		MUST(net_hello_decode(r.ack, r.ack_len, &h) == 0 && h.kind == NET_ACK);
		if (h.status == NET_HELLO_OK)
			accepted[src] = 1;
		if (echo && h.status == NET_HELLO_COOKIE) {
			uint8_t b[NET_HELLO_BYTES];
			h.kind = NET_HELLO;
			h.status = 0;
			net_hello_encode(b, &h);
			datagram(g, src, now, b, sizeof b, 0, accepted);
		}
		break;
	case UDP_GATE_REPLY:
		MUST(accepted[src]);
		MUST(r.reply_bytes >= 1 && r.reply_bytes <= NET_UDP6_MAX_BYTES);
		break;
	case UDP_GATE_DROP:
		break;
	}
	MUST(udp_gate_count(g) <= NSRC / 2);
}

static void datagrams(const uint8_t *data, size_t size)
{
	static const uint8_t key[SIPHASH_KEY_BYTES] = { 0xd1, 0x5b, 0x1a, 0xce };
	const struct udp_gate_config c = { .idle_ms = 12000, .live_ms = 2000, .max_sources = NSRC / 2, .max_per_addr = 2 };
	struct udp_gate *g;
	int accepted[NSRC] = { 0 };
	uint64_t now = 0;
	if (udp_gate_new(&c, key, &g))
		return;
	for (size_t i = 0; i + 4 <= size;) {
		unsigned src = data[i] % NSRC, echo = data[i] & 0x80, step = data[i + 1];
		size_t n = (size_t)data[i + 2] << 8 | data[i + 3];
		i += 4;
		if (n > size - i)
			n = size - i;
		now += (uint64_t)step * 250;
		if (step == 0xff) /* a long pause: the sweep forgets the idle */
			udp_gate_expire(g, now);
		datagram(g, src, now, data + i, n, echo, accepted);
		i += n;
	}
	udp_gate_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hello_once(data, size);
	datagrams(data, size);
	return 0;
}
