/*
 * check_udp_gate.c - put/udp_gate.c, the peer's udp admission, without
 * sockets: no answer to an unproven source is larger than what it sent,
 * the cookie proves the address, a live source is never pushed out, and
 * the limits per address and in total hold.
 */
#include "put/udp_gate.h"
#include "tests/suites.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static const uint8_t key[SIPHASH_KEY_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static struct udp_gate *gate(unsigned max_sources, unsigned max_per_addr)
{
	struct udp_gate_config c = { .idle_ms = 60000, .live_ms = 10000, .max_sources = max_sources,
				     .max_per_addr = max_per_addr };
	struct udp_gate *g;
	ck_assert_int_eq(udp_gate_new(&c, key, &g), 0);
	return g;
}

static struct sockaddr_in src(const char *ip, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	ck_assert_int_eq(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return a;
}

static void hello(uint8_t *b, uint32_t msg, uint32_t reply, uint64_t cookie)
{
	struct net_hello h = { NET_HELLO_VERSION, NET_HELLO, 0, msg, reply, cookie };
	net_hello_encode(b, &h);
}

static void feed(struct udp_gate *g, const struct sockaddr_in *a, uint64_t now, const uint8_t *d, size_t n,
		 struct udp_gate_result *r)
{
	udp_gate_datagram(g, (const struct sockaddr *)a, now, d, n, r);
	if (r->action == UDP_GATE_ACK)
		ck_assert_uint_le(r->ack_len, n);
}

/* the ack's status (and its cookie in *cookie) */
static unsigned ack_status(const struct udp_gate_result *r, uint64_t *cookie)
{
	struct net_hello h;
	ck_assert_int_eq(r->action, UDP_GATE_ACK);
	ck_assert_int_eq(net_hello_decode(r->ack, r->ack_len, &h), 0);
	ck_assert_uint_eq(h.kind, NET_ACK);
	if (cookie)
		*cookie = h.cookie;
	return h.status;
}

/* the whole exchange: hello, cookie, hello with it; the status of the last ack */
static unsigned handshake(struct udp_gate *g, const struct sockaddr_in *a, uint64_t now, uint32_t msg, uint32_t reply)
{
	uint8_t b[NET_HELLO_BYTES];
	struct udp_gate_result r;
	uint64_t cookie;
	hello(b, msg, reply, 0);
	feed(g, a, now, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, &cookie), NET_HELLO_COOKIE);
	ck_assert(cookie != 0);
	hello(b, msg, reply, cookie);
	feed(g, a, now, b, sizeof b, &r);
	return ack_status(&r, NULL);
}

START_TEST(test_udp_gate_answers_no_unproven_source_with_more_than_it_sent)
{
	struct udp_gate *g = gate(16, 16);
	struct sockaddr_in a = src("127.0.0.1", 5000);
	uint8_t b[NET_HELLO_BYTES], one = 0x5a;
	struct udp_gate_result r;
	uint64_t cookie;
	/* the amplification of the report: a hello for 65,507-byte replies, then 1-byte datagrams */
	hello(b, 1, NET_UDP4_MAX_BYTES, 0);
	feed(g, &a, 1000, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, &cookie), NET_HELLO_COOKIE);
	ck_assert_uint_eq(r.ack_len, NET_HELLO_BYTES);
	ck_assert_int_eq(r.bad, 0);
	for (int i = 0; i < 100; i++) {
		feed(g, &a, 1000, &one, 1, &r);
		ck_assert_int_eq(r.action, UDP_GATE_DROP);
		ck_assert_ptr_nonnull(strstr(r.why, "without a hello first"));
	}
	/* a forged cookie proves nothing: a fresh cookie again, and still no replies */
	hello(b, 1, NET_UDP4_MAX_BYTES, cookie ^ 1);
	feed(g, &a, 1000, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_COOKIE);
	feed(g, &a, 1000, &one, 1, &r);
	ck_assert_int_eq(r.action, UDP_GATE_DROP);
	/* a cookie is for its own address and port: from another port it proves nothing */
	struct sockaddr_in other = src("127.0.0.1", 5001);
	hello(b, 1, NET_UDP4_MAX_BYTES, cookie);
	feed(g, &other, 1000, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_COOKIE);
	/* nor for other sizes */
	hello(b, 2, NET_UDP4_MAX_BYTES, cookie);
	feed(g, &a, 1000, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_COOKIE);
	/* a version 1 hello (16 bytes) is refused with a 16-byte ack; a short hello with the head only */
	b[4] = 1;
	feed(g, &a, 1000, b, NET_HELLO_HEAD_BYTES, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_BAD_VERSION);
	ck_assert_uint_eq(r.ack_len, NET_HELLO_HEAD_BYTES);
	b[4] = NET_HELLO_VERSION;
	feed(g, &a, 1000, b, 20, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_BAD_FORM);
	ck_assert_uint_eq(r.ack_len, NET_HELLO_HEAD_BYTES);
	ck_assert_uint_eq(udp_gate_count(g), 0);
	udp_gate_free(g);
}
END_TEST

START_TEST(test_udp_gate_serves_a_source_that_echoes_its_cookie)
{
	struct udp_gate *g = gate(16, 16);
	struct sockaddr_in a = src("127.0.0.1", 5000);
	uint8_t msg[1200] = { 0 };
	struct udp_gate_result r;
	ck_assert_uint_eq(handshake(g, &a, 1000, sizeof msg, 77), NET_HELLO_OK);
	ck_assert_uint_eq(udp_gate_count(g), 1);
	feed(g, &a, 1001, msg, sizeof msg, &r);
	ck_assert_int_eq(r.action, UDP_GATE_REPLY);
	ck_assert_uint_eq(r.reply_bytes, 77);
	feed(g, &a, 1002, msg, 10, &r);
	ck_assert_int_eq(r.action, UDP_GATE_DROP);
	ck_assert(r.bad);
	ck_assert_ptr_nonnull(strstr(r.why, "but its hello said 1200 bytes"));
	/* a repeated hello changes the sizes */
	ck_assert_uint_eq(handshake(g, &a, 1003, 10, 5), NET_HELLO_OK);
	feed(g, &a, 1004, msg, 10, &r);
	ck_assert_uint_eq(r.reply_bytes, 5);
	ck_assert_uint_eq(udp_gate_count(g), 1);
	udp_gate_free(g);
}
END_TEST

/* A cookie holds for its 30 s epoch and the next one; later the source must fetch a fresh one. */
START_TEST(test_udp_gate_cookies_expire_after_two_epochs)
{
	struct udp_gate *g = gate(16, 16);
	struct sockaddr_in a = src("127.0.0.1", 5000);
	uint8_t b[NET_HELLO_BYTES];
	struct udp_gate_result r;
	uint64_t cookie;
	const uint64_t t0 = 10 * UDP_GATE_COOKIE_EPOCH_MS;
	hello(b, 100, 1, 0);
	feed(g, &a, t0, b, sizeof b, &r);
	ack_status(&r, &cookie);
	hello(b, 100, 1, cookie);
	feed(g, &a, t0 + UDP_GATE_COOKIE_EPOCH_MS, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_OK);
	feed(g, &a, t0 + 2 * UDP_GATE_COOKIE_EPOCH_MS, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_COOKIE);
	udp_gate_free(g);
}
END_TEST

/*
 * The report: 3,000 new source addresses evicted a live client. Here the
 * live client stays, every newcomer beyond the table is refused while the
 * table is live, and an idle source makes room.
 */
START_TEST(test_udp_gate_keeps_a_live_source_against_a_flood_of_new_ones)
{
	struct udp_gate *g = gate(64, 4096);
	struct sockaddr_in live = src("127.0.0.1", 40000);
	uint8_t msg[100] = { 0 };
	struct udp_gate_result r;
	ck_assert_uint_eq(handshake(g, &live, 0, sizeof msg, 1), NET_HELLO_OK);
	unsigned busy = 0;
	for (unsigned i = 0; i < 3000; i++) {
		struct sockaddr_in a = src("127.0.0.1", 1024 + i);
		uint64_t now = 1 + i; /* all within the live window */
		busy += handshake(g, &a, now, 10, NET_UDP4_MAX_BYTES) == NET_HELLO_BUSY;
		if (i % 100 == 0) {
			feed(g, &live, now, msg, sizeof msg, &r);
			ck_assert_int_eq(r.action, UDP_GATE_REPLY);
		}
	}
	ck_assert_uint_eq(busy, 3000 - 63);
	ck_assert_uint_eq(udp_gate_count(g), 64);
	/* later, the live one still active and the flood silent: a newcomer takes an idle place */
	feed(g, &live, 20000, msg, sizeof msg, &r);
	ck_assert_int_eq(r.action, UDP_GATE_REPLY);
	struct sockaddr_in late = src("10.1.1.1", 7);
	ck_assert_uint_eq(handshake(g, &late, 20001, sizeof msg, 1), NET_HELLO_OK);
	feed(g, &live, 20002, msg, sizeof msg, &r);
	ck_assert_int_eq(r.action, UDP_GATE_REPLY);
	/* the idle ones are forgotten at the idle timeout, the live ones kept */
	ck_assert_uint_eq(udp_gate_expire(g, 65000), 2);
	udp_gate_free(g);
}
END_TEST

START_TEST(test_udp_gate_limits_sources_per_address)
{
	struct udp_gate *g = gate(64, 4);
	struct udp_gate_result r;
	uint8_t msg[10] = { 0 };
	for (unsigned i = 0; i < 4; i++) {
		struct sockaddr_in a = src("127.0.0.2", 2000 + i);
		ck_assert_uint_eq(handshake(g, &a, 100, sizeof msg, 1), NET_HELLO_OK);
	}
	struct sockaddr_in fifth = src("127.0.0.2", 3000);
	ck_assert_uint_eq(handshake(g, &fifth, 100, sizeof msg, 1), NET_HELLO_BUSY);
	struct sockaddr_in elsewhere = src("127.0.0.3", 3000);
	ck_assert_uint_eq(handshake(g, &elsewhere, 100, sizeof msg, 1), NET_HELLO_OK);
	/* the same address's stalest gives way once it is no longer live */
	ck_assert_uint_eq(handshake(g, &fifth, 100 + 10000, sizeof msg, 1), NET_HELLO_OK);
	feed(g, &fifth, 100 + 10001, msg, sizeof msg, &r);
	ck_assert_int_eq(r.action, UDP_GATE_REPLY);
	ck_assert_uint_eq(udp_gate_count(g), 5);
	udp_gate_free(g);
}
END_TEST

START_TEST(test_udp_gate_forgets_idle_sources)
{
	struct udp_gate *g = gate(8, 8);
	struct sockaddr_in a = src("127.0.0.1", 5000);
	uint8_t msg[10] = { 0 };
	struct udp_gate_result r;
	ck_assert_uint_eq(handshake(g, &a, 0, sizeof msg, 1), NET_HELLO_OK);
	ck_assert_uint_eq(udp_gate_expire(g, 59999), 1);
	ck_assert_uint_eq(udp_gate_expire(g, 60000), 0);
	feed(g, &a, 60001, msg, sizeof msg, &r);
	ck_assert_int_eq(r.action, UDP_GATE_DROP);
	/* IPv6 and v4-mapped sources work too */
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
	uint8_t b[NET_HELLO_BYTES];
	hello(b, 10, NET_UDP6_MAX_BYTES, 0);
	udp_gate_datagram(g, (struct sockaddr *)&s6, 60002, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_BAD_REPLY); /* v4-mapped: the IPv4 limit */
	inet_pton(AF_INET6, "::1", &s6.sin6_addr);
	udp_gate_datagram(g, (struct sockaddr *)&s6, 60002, b, sizeof b, &r);
	ck_assert_uint_eq(ack_status(&r, NULL), NET_HELLO_COOKIE);
	udp_gate_free(g);
}
END_TEST

Suite *udp_gate_suite(void)
{
	Suite *s = suite_create("udp_gate");
	TCase *tc = tcase_create("admission");
	tcase_add_test(tc, test_udp_gate_answers_no_unproven_source_with_more_than_it_sent);
	tcase_add_test(tc, test_udp_gate_serves_a_source_that_echoes_its_cookie);
	tcase_add_test(tc, test_udp_gate_cookies_expire_after_two_epochs);
	tcase_add_test(tc, test_udp_gate_keeps_a_live_source_against_a_flood_of_new_ones);
	tcase_add_test(tc, test_udp_gate_limits_sources_per_address);
	tcase_add_test(tc, test_udp_gate_forgets_idle_sources);
	suite_add_tcase(s, tc);
	return s;
}
