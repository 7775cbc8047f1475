/*
 * check_put_net.c - the socket and RPC workloads, run as 'bin/put' against
 * a local peer ('put serve', see tpeer_start in check_serve.c): a few
 * operations each, their report fields, a peer that is down, and sizes
 * out of range.
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include "put/net.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

static char out[8192], err[8192];

/* bin/put --ops OPS WORKLOAD args...; the exit status, with out and err filled */
static int put(const char *ops, const char *workload, ...)
{
	char *argv[24] = { (char *)tu_bin("put"), "--ops", (char *)ops, (char *)workload };
	int argc = 4;
	va_list ap;
	va_start(ap, workload);
	for (char *s; (s = va_arg(ap, char *)) && argc < 23;)
		argv[argc++] = s;
	va_end(ap);
	argv[argc] = NULL;
	return tu_run(argv, out, sizeof out, err, sizeof err);
}

static const char *kv(const char *key)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];
	return tu_kv(out, key, b, sizeof buf[0]) ? b : "(absent)";
}

/* A port on 127.0.0.1 that nobody listens on (just freed; good enough here). */
static void closed_port(char *buf, size_t len, int type)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	int s = socket(AF_INET, type, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &al), 0);
	close(s);
	snprintf(buf, len, "127.0.0.1:%u", ntohs(a.sin_port));
}

START_TEST(test_each_workload_runs_against_a_local_peer)
{
	struct tpeer p;
	char stop[512], v[64];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	const struct {
		const char *name, *peer;
	} w[] = { { "tcp", p.tcp }, { "tcp-stream", p.tcp }, { "udp", p.udp }, { "unix", p.unix_path }, { "rpc", p.rpc } };
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		int st = put("20", w[i].name, "--size", "1000", "--peer", w[i].peer, NULL);
		ck_assert_msg(st == 0, "%s exited %d: %s", w[i].name, st, err);
		ck_assert_str_eq(kv("workload"), w[i].name);
		ck_assert_str_eq(kv("ops"), "20");
		ck_assert_str_eq(kv("msg_bytes"), "1000");
		ck_assert_str_eq(kv("peer"), w[i].peer);
		if (!strcmp(w[i].name, "rpc")) {
			ck_assert_str_eq(kv("rpc_calls"), "20");
			ck_assert_str_eq(kv("rpc_result"), "1000");
			continue;
		}
		ck_assert_str_eq(kv("sent_bytes"), "20000");
		ck_assert_str_eq(kv("recv_bytes"), strcmp(w[i].name, "tcp-stream") ? "20" : "0");
		ck_assert_str_eq(kv("reply_bytes"), strcmp(w[i].name, "tcp-stream") ? "1" : "0");
		ck_assert_uint_ge(strtoull(kv("send_calls"), NULL, 10), 20);
		if (!strcmp(w[i].name, "udp")) {
			/* loopback loses nothing, but a noisy host may: only check the field is there */
			ck_assert_str_ne(kv("udp_lost"), "(absent)");
			ck_assert_str_eq(kv("udp_retry_after_ns"), "200000000");
		}
	}
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_uint_ge(strtoull(tu_kv(stop, "messages", v, sizeof v), NULL, 10), 80);
	ck_assert_str_eq(tu_kv(stop, "rpc_calls", v, sizeof v), "20");
	ck_assert_str_eq(tu_kv(stop, "bad_clients", v, sizeof v), "0");
}
END_TEST

START_TEST(test_large_messages_and_replies)
{
	struct tpeer p;
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	ck_assert_msg(put("3", "tcp", "--size", "1Mi", "--reply", "64Ki", "--peer", p.tcp, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("sent_bytes"), "3145728");
	ck_assert_str_eq(kv("recv_bytes"), "196608");
	ck_assert_msg(put("2", "unix", "--size", "16Mi", "--peer", p.unix_path, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("sent_bytes"), "33554432");
	ck_assert_msg(put("2", "rpc", "--size", "16Mi", "--peer", p.rpc, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("rpc_result"), "16777216");
	ck_assert_msg(put("3", "udp", "--size", "65507", "--reply", "65507", "--peer", p.udp, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("recv_bytes"), "196521");
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_ops_0_sets_up_and_tears_down_only)
{
	struct tpeer p;
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	ck_assert_msg(put("0", "tcp", "--peer", p.tcp, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("sent_bytes"), "0");
	ck_assert_msg(put("0", "rpc", "--peer", p.rpc, NULL) == 0, "%s", err);
	ck_assert_str_eq(kv("rpc_calls"), "0");
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_down_exits_3_with_a_clear_message)
{
	char addr[64], want[128];
	const char *w[] = { "tcp", "tcp-stream", "rpc" };
	for (size_t i = 0; i < 3; i++) {
		closed_port(addr, sizeof addr, SOCK_STREAM);
		ck_assert_int_eq(put("5", w[i], "--peer", addr, NULL), 3);
		snprintf(want, sizeof want, "cannot connect to %s: Connection refused", addr);
		ck_assert_msg(strstr(err, want), "%s: %s", w[i], err);
		ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
	}
	closed_port(addr, sizeof addr, SOCK_DGRAM);
	ck_assert_int_eq(put("5", "udp", "--peer", addr, NULL), 3);
	snprintf(want, sizeof want, "cannot connect to %s: Connection refused", addr);
	ck_assert_msg(strstr(err, want), "udp: %s", err);
	ck_assert_int_eq(put("5", "unix", "--peer", "/tmp/displace-no-such-peer.sock", NULL), 3);
	ck_assert_ptr_nonnull(strstr(err, "cannot connect to /tmp/displace-no-such-peer.sock: No such file"));
}
END_TEST

START_TEST(test_rpc_against_a_stream_port_fails_instead_of_hanging)
{
	struct tpeer p;
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int st = put("1", "rpc", "--peer", p.tcp, "--timeout", "5s", NULL);
	ck_assert_msg(st != 0 && st != 2 && strstr(err, "NULL call"), "exit %d: %s", st, err);
	/* and a stream client against the RPC port */
	st = put("1", "tcp", "--peer", p.rpc, "--timeout", "5s", NULL);
	ck_assert_msg(st != 0 && st != 2, "exit %d: %s", st, err);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_sizes_out_of_range_are_usage_errors)
{
	ck_assert_int_eq(put("1", "tcp", "--size", "17Mi", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "16 MiB"));
	ck_assert_int_eq(put("1", "tcp", "--size", "0", NULL), 2);
	ck_assert_int_eq(put("1", "tcp", "--reply", "0", NULL), 2);
	ck_assert_int_eq(put("1", "udp", "--size", "65508", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "udp limit of 65507 bytes over IPv4"));
	ck_assert_int_eq(put("1", "udp", "--reply", "65508", NULL), 2);
	ck_assert_int_eq(put("1", "udp", "--size", "65528", "--peer", "[::1]:9", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "65527"));
	ck_assert_int_eq(put("1", "tcp-stream", "--reply", "1", NULL), 2);
	ck_assert_int_eq(put("1", "tcp", "--peer", "localhost:7777", NULL), 2);
	ck_assert_int_eq(put("1", "rpc", "--reply", "1", NULL), 2);
	ck_assert_int_eq(put("1", "unix", "--peer", "", NULL), 2);
}
END_TEST

/*
 * Run bin/put udp against a peer played by the test on fd: it acks the
 * hello (with a cookie, then accepting the hello that echoes it), drops the first `drop` datagrams and answers the rest (if
 * answer). It serves until put closes its stdout (it exited), at most
 * 200 datagrams or 10 s. put's exit status; out and err filled.
 */
static int put_udp_against(int fd, int drop, int answer, const char *ops, const char *tries)
{
	struct sockaddr_in a;
	socklen_t al = sizeof a;
	char peer[64], buf[2048], reply[1] = { 0 };
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(peer, sizeof peer, "127.0.0.1:%u", ntohs(a.sin_port));
	char *argv[] = { (char *)tu_bin("put"), "--ops", (char *)ops, "udp", "--size", "100", "--peer", peer,
			 "--retry-after", "50ms", "--max-tries", (char *)tries, NULL };
	int po[2], pe[2];
	ck_assert_int_eq(pipe(po), 0);
	ck_assert_int_eq(pipe(pe), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	size_t used = 0;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	const time_t end_s = ts.tv_sec + 10;
	for (int n = 0; n < 200 && ts.tv_sec < end_s;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = po[0], .events = POLLIN } };
		if (poll(p, 2, 1000) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (p[1].revents) {
			ssize_t r = read(po[0], out + used, sizeof out - 1 - used);
			if (r <= 0)
				break; /* put is done */
			used += (size_t)r;
		}
		if (!p[0].revents)
			continue;
		struct sockaddr_storage from;
		socklen_t fl = sizeof from;
		ssize_t r = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		struct net_hello h;
		if (r == NET_HELLO_BYTES && !net_hello_decode((uint8_t *)buf, (size_t)r, &h)) {
			/* the address proof as the real peer asks it: a cookie first, then accepted */
			h.kind = NET_ACK;
			h.status = h.cookie == 0x1234 ? NET_HELLO_OK : NET_HELLO_COOKIE;
			h.cookie = 0x1234;
			net_hello_encode((uint8_t *)buf, &h);
			sendto(fd, buf, NET_HELLO_BYTES, 0, (struct sockaddr *)&from, fl);
		} else if (r >= 0 && n++ >= drop && answer) {
			sendto(fd, reply, sizeof reply, 0, (struct sockaddr *)&from, fl);
		}
	}
	out[used] = '\0';
	tu_read_all(pe[0], err, sizeof err);
	close(po[0]);
	close(pe[0]);
	return tu_wait(pid);
}

static int udp_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

START_TEST(test_udp_retransmits_a_lost_datagram_and_counts_it)
{
	int fd = udp_socket();
	ck_assert_msg(put_udp_against(fd, 2, 1, "5", "25") == 0, "%s", err);
	ck_assert_str_eq(kv("ops"), "5");
	ck_assert_str_eq(kv("udp_lost"), "2");
	ck_assert_str_eq(kv("recv_bytes"), "5");
	ck_assert_str_eq(kv("sent_bytes"), "700"); /* 5 datagrams and 2 retransmissions */
	close(fd);
}
END_TEST

START_TEST(test_udp_gives_up_when_no_reply_comes)
{
	int fd = udp_socket();
	ck_assert_int_eq(put_udp_against(fd, 0, 0, "3", "4"), 3);
	ck_assert_msg(strstr(err, "no reply from 127.0.0.1:") && strstr(err, "after 4 tries"), "%s", err);
	close(fd);
}
END_TEST

/* Can a socket bind ::1? 0, or the errno that says why not: the host has no IPv6 loopback. */
static int ipv6_loopback_errno(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	int e = bind(fd, (struct sockaddr *)&a, sizeof a) ? errno : 0;
	close(fd);
	return e;
}

START_TEST(test_workloads_over_ipv6_when_the_host_has_it)
{
	struct tpeer p;
	int e = ipv6_loopback_errno();
	if (e) {
		/* Check has no "skipped": say so, and pass */
		fprintf(stderr, "check_put_net: IPv6 workloads skipped: this host cannot bind [::1]: %s\n", strerror(e));
		return;
	}
	int st = tpeer_start(&p, "[::1]:0");
	ck_assert_msg(st == 0, "the peer did not start on [::1]:0 (status %d): %s", st, p.log);
	ck_assert_ptr_nonnull(strstr(p.tcp, "[::1]:"));
	ck_assert_msg(put("5", "tcp", "--peer", p.tcp, NULL) == 0, "%s", err);
	ck_assert_msg(put("5", "udp", "--size", "65527", "--peer", p.udp, NULL) == 0, "%s", err);
	ck_assert_msg(put("5", "rpc", "--peer", p.rpc, NULL) == 0, "%s", err);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

Suite *put_net_suite(void)
{
	Suite *s = suite_create("put_net");
	TCase *tc = tcase_create("workloads");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_each_workload_runs_against_a_local_peer);
	tcase_add_test(tc, test_large_messages_and_replies);
	tcase_add_test(tc, test_ops_0_sets_up_and_tears_down_only);
	tcase_add_test(tc, test_peer_down_exits_3_with_a_clear_message);
	tcase_add_test(tc, test_rpc_against_a_stream_port_fails_instead_of_hanging);
	tcase_add_test(tc, test_sizes_out_of_range_are_usage_errors);
	tcase_add_test(tc, test_udp_retransmits_a_lost_datagram_and_counts_it);
	tcase_add_test(tc, test_udp_gives_up_when_no_reply_comes);
	tcase_add_test(tc, test_workloads_over_ipv6_when_the_host_has_it);
	suite_add_tcase(s, tc);
	return s;
}
