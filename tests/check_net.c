/*
 * check_net.c - put/net.c, what the peer and the socket workloads share:
 * the hello (encode, decode, check), the address parsers (host:port and
 * unix paths) and the workloads' options. Pure functions, no sockets.
 */
#include "put/net.h"
#include "tests/suites.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

START_TEST(test_hello_encodes_24_bytes_big_endian)
{
	uint8_t b[NET_HELLO_BYTES];
	static const uint8_t want[NET_HELLO_BYTES] = { 'D', 'S', 'P', 'L', 2, 0, 0, 0, 0, 0, 0x03, 0xe8,
						       0,   1,   0,   0,   1, 2, 3, 4, 5, 6, 7,    8 };
	struct net_hello h0 = { 2, NET_HELLO, 0, 1000, 65536, 0x0102030405060708ull };
	net_hello_encode(b, &h0);
	ck_assert_int_eq(memcmp(b, want, sizeof b), 0);
	struct net_hello h;
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), 0);
	ck_assert_uint_eq(h.version, NET_HELLO_VERSION);
	ck_assert_uint_eq(h.msg_bytes, 1000);
	ck_assert_uint_eq(h.reply_bytes, 65536);
	ck_assert(h.cookie == 0x0102030405060708ull);
	ck_assert_uint_eq(net_hello_check(&h, NET_MAX_MSG_BYTES, 0, NET_MAX_MSG_BYTES), NET_HELLO_OK);
}
END_TEST

/* The head (16 bytes) is the whole hello of version 1: it decodes, without a cookie, and is refused by version. */
START_TEST(test_hello_head_alone_decodes_and_version_1_is_refused)
{
	static const uint8_t v1[NET_HELLO_HEAD_BYTES] = { 'D', 'S', 'P', 'L', 1, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 1 };
	struct net_hello h;
	ck_assert_int_eq(net_hello_decode(v1, sizeof v1, &h), 0);
	ck_assert_uint_eq(h.version, 1);
	ck_assert_uint_eq(h.msg_bytes, 1000);
	ck_assert(h.cookie == 0);
	ck_assert_uint_eq(net_hello_check(&h, NET_MAX_MSG_BYTES, 0, NET_MAX_MSG_BYTES), NET_HELLO_BAD_VERSION);
	ck_assert_int_eq(net_hello_decode(v1, NET_HELLO_HEAD_BYTES - 1, &h), -EMSGSIZE);
	ck_assert_int_eq(net_hello_decode(v1, 0, &h), -EMSGSIZE);
}
END_TEST

START_TEST(test_hello_check_gives_the_reason)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h;
	memcpy(b, "GET / HTTP/1.0\r\nHost: x\r\n", sizeof b);
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), -EPROTO);
	h = (struct net_hello){ 3, 0, 0, 10, 1, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_BAD_VERSION);
	h = (struct net_hello){ 2, 1, 0, 10, 1, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_BAD_FORM);
	h = (struct net_hello){ 2, 0, 0, 0, 1, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_BAD_SIZE);
	h = (struct net_hello){ 2, 0, 0, 101, 1, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_BAD_SIZE);
	h = (struct net_hello){ 2, 0, 0, 100, 101, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_BAD_REPLY);
	h = (struct net_hello){ 2, 0, 0, 100, 0, 0 };
	ck_assert_uint_eq(net_hello_check(&h, 100, 0, 100), NET_HELLO_OK);
	ck_assert_uint_eq(net_hello_check(&h, 100, 1, 100), NET_HELLO_BAD_REPLY); /* udp wants a reply */
	ck_assert_ptr_nonnull(strstr(net_hello_status_str(NET_HELLO_BAD_SIZE), "size"));
	ck_assert_ptr_nonnull(strstr(net_hello_status_str(NET_HELLO_COOKIE), "cookie"));
	ck_assert_ptr_nonnull(strstr(net_hello_status_str(NET_HELLO_BUSY), "busy"));
}
END_TEST

START_TEST(test_hostport_parses_v4_v6_and_rejects_junk)
{
	struct net_addr a;
	char buf[80];
	ck_assert_int_eq(net_parse_hostport("127.0.0.1:7000", 1, &a), 0);
	ck_assert_uint_eq(net_addr_port(&a), 7000);
	net_format_addr(&a, buf, sizeof buf);
	ck_assert_str_eq(buf, "127.0.0.1:7000");
	ck_assert_int_eq(net_parse_hostport("127.0.0.1", 7777, &a), 0);
	ck_assert_uint_eq(net_addr_port(&a), 7777);
	ck_assert_uint_eq(net_addr_udp_max(&a), 65507);
	ck_assert_int_eq(net_parse_hostport("[::1]:0", 1, &a), 0);
	ck_assert_uint_eq(net_addr_port(&a), 0);
	net_addr_set_port(&a, 9);
	net_format_addr(&a, buf, sizeof buf);
	ck_assert_str_eq(buf, "[::1]:9");
	ck_assert_uint_eq(net_addr_udp_max(&a), 65527);
	ck_assert_int_eq(net_parse_hostport("::1", 5, &a), 0);
	ck_assert_uint_eq(net_addr_port(&a), 5);
	ck_assert_int_eq(net_parse_hostport("1.2.3.4:65536", 1, &a), -ERANGE);
	ck_assert_int_eq(net_parse_hostport("localhost:80", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("127.0.0.1:", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("127.0.0.1:80x", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("[::1", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("[::1]x", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("1.2.3", 1, &a), -EINVAL);
	ck_assert_int_eq(net_parse_hostport("", 1, &a), -EINVAL);
}
END_TEST

/* The peer warns beyond loopback: 127.0.0.0/8, ::1 and ::ffff:127.x are loopback, wildcards are not. */
START_TEST(test_loopback_is_127_slash_8_and_v6_1_not_a_wildcard)
{
	struct net_addr a;
	const char *local[] = { "127.0.0.1", "127.1.2.3:9", "[::1]:7", "::ffff:127.0.0.1" };
	const char *beyond[] = { "0.0.0.0", "10.0.0.1", "128.0.0.1", "[::]:7", "::ffff:10.0.0.1", "::2" };
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
		ck_assert_int_eq(net_parse_hostport(local[i], 7777, &a), 0);
		ck_assert_msg(net_addr_is_loopback(&a), "%s", local[i]);
	}
	for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
		ck_assert_int_eq(net_parse_hostport(beyond[i], 7777, &a), 0);
		ck_assert_msg(!net_addr_is_loopback(&a), "%s", beyond[i]);
	}
	ck_assert_int_eq(net_parse_unix("/tmp/x.sock", &a), 0);
	ck_assert(!net_addr_is_loopback(&a));
}
END_TEST

START_TEST(test_unix_path_takes_107_bytes_and_rejects_more)
{
	struct net_addr a;
	char longp[200];
	memset(longp, 'a', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	ck_assert_int_eq(net_parse_unix(longp, &a), -ENAMETOOLONG);
	longp[NET_UNIX_PATH_MAX] = '\0'; /* 108 bytes: no room for the NUL */
	ck_assert_int_eq(net_parse_unix(longp, &a), -ENAMETOOLONG);
	longp[NET_UNIX_PATH_MAX - 1] = '\0';
	ck_assert_int_eq(net_parse_unix(longp, &a), 0);
	ck_assert_int_eq(a.ss.ss_family, AF_UNIX);
	ck_assert_int_eq(net_parse_unix("", &a), -EINVAL);
}
END_TEST

static int opts(struct net_opts *o, unsigned allowed, char *err, ...)
{
	char *argv[16] = { "w" };
	int argc = 1;
	va_list ap;
	va_start(ap, err);
	for (char *s; (s = va_arg(ap, char *));)
		argv[argc++] = s;
	va_end(ap);
	return net_parse_opts(argc, argv, allowed, o, err, 256);
}

START_TEST(test_workload_options_take_sizes_up_to_16MiB)
{
	struct net_opts o;
	char err[256];
	const unsigned all = NET_OPT_SIZE | NET_OPT_REPLY | NET_OPT_PEER | NET_OPT_TIMEOUT;
	ck_assert_int_eq(opts(&o, all, err, NULL), 0);
	ck_assert_uint_eq(o.msg_bytes, 1000);
	ck_assert_uint_eq(o.reply_bytes, 1);
	ck_assert_ptr_null(o.peer);
	ck_assert_int_eq(opts(&o, all, err, "--size", "4k", "--reply=2Ki", "--peer", "[::1]:9", "--timeout", "2s", NULL),
			 0);
	ck_assert_uint_eq(o.msg_bytes, 4000);
	ck_assert_uint_eq(o.reply_bytes, 2048);
	ck_assert_str_eq(o.peer, "[::1]:9");
	ck_assert_uint_eq(o.timeout_ns, 2000000000u);
	ck_assert_int_eq(opts(&o, all, err, "--size", "16Mi", NULL), 0);
	ck_assert_int_eq(opts(&o, all, err, "--size", "16777217", NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "16 MiB"));
	ck_assert_int_eq(opts(&o, all, err, "--size", "0", NULL), -EINVAL);
	ck_assert_int_eq(opts(&o, all, err, "--size", "1kk", NULL), -EINVAL);
	ck_assert_int_eq(opts(&o, all, err, "--size", NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "needs a value"));
	ck_assert_int_eq(opts(&o, NET_OPT_SIZE, err, "--reply", "1", NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "unknown option '--reply'"));
}
END_TEST

Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("parsers");
	tcase_add_test(tc, test_hello_encodes_24_bytes_big_endian);
	tcase_add_test(tc, test_hello_head_alone_decodes_and_version_1_is_refused);
	tcase_add_test(tc, test_hello_check_gives_the_reason);
	tcase_add_test(tc, test_loopback_is_127_slash_8_and_v6_1_not_a_wildcard);
	tcase_add_test(tc, test_hostport_parses_v4_v6_and_rejects_junk);
	tcase_add_test(tc, test_unix_path_takes_107_bytes_and_rejects_more);
	tcase_add_test(tc, test_workload_options_take_sizes_up_to_16MiB);
	suite_add_tcase(s, tc);
	return s;
}
