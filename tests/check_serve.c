/*
 * check_serve.c - the peer: its config, and the real 'put serve' process
 * against good and bad clients. After each abuse a normal client must
 * still be served. The hello and address parsers are in check_net.c.
 */
#include "put/net.h"
#include "put/serve.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- the local peer (shared with check_put_net.c) -------------------------- */

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Read one line from fd within timeout_ms; 0, or -1 at EOF or timeout. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t used = 0;
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	while (used + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		if (now >= end || poll(&p, 1, (int)(end - now)) <= 0)
			break;
		ssize_t r = read(fd, buf + used, 1);
		if (r <= 0)
			break;
		if (buf[used] == '\n') {
			buf[used] = '\0';
			return 0;
		}
		used++;
	}
	buf[used] = '\0';
	return -1;
}

static void field(const char *line, const char *key, char *buf, size_t len)
{
	if (!tu_kv(line, key, buf, len))
		buf[0] = '\0';
}

/* Wait for pid up to timeout_ms, then SIGKILL it (we started it). */
static int wait_bounded(pid_t pid, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;
	int st;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() >= end) {
			kill(pid, SIGKILL);
			return tu_wait(pid);
		}
		usleep(10000);
	}
}

static pid_t spawn_peer(struct tpeer *p, char *const argv[])
{
	int pi[2], po[2];
	if (pipe(pi) || pipe(po))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int e = open(p->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(pi[0], 0);
		dup2(po[1], 1);
		if (e >= 0)
			dup2(e, 2);
		close(pi[1]);
		close(po[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pi[0]);
	close(po[1]);
	p->in_fd = pi[1];
	p->out_fd = po[0];
	return pid;
}

/* keep the peer's log, and remove its directory: the err file (and a unix socket, if left) */
static void tpeer_cleanup(struct tpeer *p)
{
	char path[160];
	tpeer_log(p, p->log, sizeof p->log);
	p->stopped = 1;
	unlink(p->err_path);
	snprintf(path, sizeof path, "%s/s.sock", p->dir);
	unlink(path);
	rmdir(p->dir);
}

int tpeer_start(struct tpeer *p, const char *listen)
{
	memset(p, 0, sizeof *p);
	snprintf(p->dir, sizeof p->dir, "%s", tu_mkdtemp());
	snprintf(p->err_path, sizeof p->err_path, "%s/err", p->dir);
	char unix_path[128];
	snprintf(unix_path, sizeof unix_path, "%s/s.sock", p->dir);
	char *argv[] = { (char *)tu_bin("put"), "serve", "--listen", (char *)listen, "--unix", unix_path, NULL };
	p->pid = spawn_peer(p, argv);
	if (p->pid < 0)
		return -1;
	if (read_line(p->out_fd, p->line, sizeof p->line, 10000) || strncmp(p->line, "serve ready ", 12)) {
		close(p->in_fd);
		close(p->out_fd);
		int st = wait_bounded(p->pid, 10000);
		tpeer_cleanup(p);
		return st ? st : -1;
	}
	field(p->line, "tcp", p->tcp, sizeof p->tcp);
	field(p->line, "udp", p->udp, sizeof p->udp);
	field(p->line, "unix", p->unix_path, sizeof p->unix_path);
	field(p->line, "rpc", p->rpc, sizeof p->rpc);
	return 0;
}

int tpeer_stop(struct tpeer *p, char *stop, size_t len)
{
	char line[512] = "";
	close(p->in_fd);
	read_line(p->out_fd, line, sizeof line, 10000);
	close(p->out_fd);
	if (stop)
		snprintf(stop, len, "%s", line);
	int st = wait_bounded(p->pid, 10000);
	tpeer_cleanup(p);
	return st;
}

const char *tpeer_log(const struct tpeer *p, char *buf, size_t len)
{
	if (p->stopped) {
		snprintf(buf, len, "%s", p->log);
		return buf;
	}
	int fd = open(p->err_path, O_RDONLY);
	buf[0] = '\0';
	if (fd >= 0) {
		tu_read_all(fd, buf, len);
		close(fd);
	}
	return buf;
}

/* --- raw clients ------------------------------------------------------------ */

static int client(const char *addr, int type)
{
	struct net_addr a;
	char err[256];
	int fd;
	if (addr[0] == '/')
		ck_assert_int_eq(net_parse_unix(addr, &a), 0);
	else
		ck_assert_int_eq(net_parse_hostport(addr, 0, &a), 0);
	ck_assert_msg(net_connect(&a, type, &fd, err, sizeof err) == 0, "%s", err);
	/* a broken server fails the test instead of hanging it */
	ck_assert_int_eq(net_set_timeouts(fd, 5000000000ull, 5000000000ull), 0);
	return fd;
}

static void hello_bytes(uint8_t *b, unsigned version, unsigned kind, uint32_t msg, uint32_t reply)
{
	struct net_hello h = { version, kind, 0, msg, reply };
	net_hello_encode(b, &h);
}

static void send_bytes(int fd, const void *b, size_t n)
{
	uint64_t calls = 0;
	ck_assert_int_eq(net_send_all(fd, b, n, &calls), 0);
}

/* hello, ack; 0 or the ack's status */
static unsigned do_hello(int fd, uint32_t msg, uint32_t reply)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h;
	uint64_t calls = 0;
	hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, msg, reply);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(net_recv_all(fd, b, sizeof b, &calls), 0);
	ck_assert_int_eq(net_hello_decode(b, &h), 0);
	ck_assert_uint_eq(h.kind, NET_ACK);
	ck_assert_uint_eq(h.msg_bytes, msg);
	ck_assert_uint_eq(h.reply_bytes, reply);
	return h.status;
}

/* n messages of msg bytes, each answered by reply zero bytes */
static void round_trips(int fd, uint32_t msg, uint32_t reply, int n)
{
	char *m = malloc(msg), *r = malloc(reply + 1);
	uint64_t calls = 0;
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(r);
	memset(m, 0x5a, msg);
	for (int i = 0; i < n; i++) {
		send_bytes(fd, m, msg);
		if (!reply)
			continue;
		memset(r, 1, reply);
		ck_assert_int_eq(net_recv_all(fd, r, reply, &calls), 0);
		/* one check, not one per byte: each ck_assert is a message to the runner */
		uint32_t k = 0;
		while (k < reply && r[k] == 0)
			k++;
		ck_assert_uint_eq(k, reply);
	}
	free(m);
	free(r);
}

/* A normal client is served: the check after every abuse. */
static void served(const struct tpeer *p)
{
	int fd = client(p->tcp, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, 1000, 1), NET_HELLO_OK);
	round_trips(fd, 1000, 1, 5);
	close(fd);
}

/* The peer closed fd: a read gets EOF or a reset, not a timeout. */
static void closed_by_peer(int fd)
{
	char b[64];
	ssize_t r;
	while ((r = recv(fd, b, sizeof b, 0)) > 0)
		;
	ck_assert_msg(r == 0 || errno == ECONNRESET, "peer did not close: %s", strerror(errno));
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* --- unit tests ----------------------------------------------------------------- */

START_TEST(test_serve_config_rejects_bad_listen_and_unix)
{
	struct serve_config c;
	serve_config_init(&c);
	ck_assert_uint_eq(net_addr_port(&c.listen), NET_DEFAULT_PORT);
	ck_assert_int_eq(serve_config_listen(&c, "0.0.0.0:65534"), 0);
	ck_assert_int_eq(serve_config_listen(&c, "127.0.0.1:65535"), -ERANGE); /* no room for rpc */
	ck_assert_int_eq(serve_config_listen(&c, "nowhere"), -EINVAL);
	ck_assert_int_eq(serve_config_unix(&c, "none"), 0);
	ck_assert_int_eq(c.unix_mode, SERVE_UNIX_NONE);
	ck_assert_int_eq(serve_config_unix(&c, "/tmp/a b.sock"), -EINVAL);
	ck_assert_int_eq(serve_config_unix(&c, ""), -EINVAL);
	ck_assert_int_eq(serve_config_unix(&c, "/tmp/ok.sock"), 0);
	ck_assert_str_eq(c.unix_path, "/tmp/ok.sock");
}
END_TEST

/* --- the peer process ------------------------------------------------------------ */

START_TEST(test_peer_prints_ready_line_and_stops_on_stdin_eof)
{
	struct tpeer p;
	char stop[512], v[64];
	struct stat st;
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	ck_assert_ptr_nonnull(strstr(p.tcp, "127.0.0.1:"));
	ck_assert_ptr_nonnull(strstr(p.udp, "127.0.0.1:"));
	ck_assert_ptr_nonnull(strstr(p.rpc, "127.0.0.1:"));
	ck_assert_str_ne(p.tcp, "127.0.0.1:0");
	ck_assert_ptr_nonnull(tu_kv(p.line, "pid", v, sizeof v));
	ck_assert_int_eq(atoi(v), p.pid);
	ck_assert_int_eq(stat(p.unix_path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_str_eq(tu_kv(stop, "reason", v, sizeof v), "stdin");
	ck_assert_str_eq(tu_kv(stop, "messages", v, sizeof v), "5");
	ck_assert_int_ne(stat(p.unix_path, &st), 0); /* removed on the way out */
}
END_TEST

START_TEST(test_peer_stops_on_sigterm)
{
	struct tpeer p;
	char stop[512], v[64];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	kill(p.pid, SIGTERM);
	ck_assert_int_eq(read_line(p.out_fd, stop, sizeof stop, 10000), 0);
	ck_assert_str_eq(tu_kv(stop, "reason", v, sizeof v), "signal");
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_answers_tcp_and_unix_clients)
{
	struct tpeer p;
	char stop[512], v[64];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, 3000, 40000), NET_HELLO_OK);
	round_trips(fd, 3000, 40000, 4);
	close(fd);
	fd = client(p.unix_path, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, 1, 1), NET_HELLO_OK);
	round_trips(fd, 1, 1, 10);
	close(fd);
	/* tcp-stream: reply 0, then many messages in one send */
	fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, 100, 0), NET_HELLO_OK);
	round_trips(fd, 100 * 50, 0, 1);
	close(fd);
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_str_eq(tu_kv(stop, "messages", v, sizeof v), "64");
	ck_assert_str_eq(tu_kv(stop, "bad_clients", v, sizeof v), "0");
}
END_TEST

START_TEST(test_peer_refuses_malformed_hellos)
{
	struct tpeer p;
	char log[8192];
	uint8_t b[NET_HELLO_BYTES];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);

	int fd = client(p.tcp, SOCK_STREAM); /* not a displace client at all */
	send_bytes(fd, "GET / HTTP/1.0\r\n\r\n", 18);
	closed_by_peer(fd);
	close(fd);
	served(&p);

	fd = client(p.tcp, SOCK_STREAM); /* a message above 16 MiB: refused with a status */
	ck_assert_uint_eq(do_hello(fd, NET_MAX_MSG_BYTES + 1, 1), NET_HELLO_BAD_SIZE);
	closed_by_peer(fd);
	close(fd);
	served(&p);

	fd = client(p.tcp, SOCK_STREAM); /* a reply above 16 MiB */
	ck_assert_uint_eq(do_hello(fd, 10, 0xffffffffu), NET_HELLO_BAD_REPLY);
	closed_by_peer(fd);
	close(fd);

	fd = client(p.tcp, SOCK_STREAM); /* zero-byte messages */
	ck_assert_uint_eq(do_hello(fd, 0, 1), NET_HELLO_BAD_SIZE);
	closed_by_peer(fd);
	close(fd);

	fd = client(p.unix_path, SOCK_STREAM); /* a future version */
	hello_bytes(b, 9, NET_HELLO, 10, 1);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv(fd, b, sizeof b, MSG_WAITALL), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_VERSION);
	closed_by_peer(fd);
	close(fd);

	fd = client(p.tcp, SOCK_STREAM); /* an ack sent as a hello */
	hello_bytes(b, 1, NET_ACK, 10, 1);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv(fd, b, sizeof b, MSG_WAITALL), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_FORM);
	closed_by_peer(fd);
	close(fd);
	served(&p);

	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "not a displace hello"), 1);
	ck_assert_int_eq(count(log, "hello refused"), 5);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_survives_abrupt_disconnects)
{
	struct tpeer p;
	char log[8192], stop[512], v[64];
	char half[600];
	memset(half, 0x5a, sizeof half);
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);

	int fd = client(p.tcp, SOCK_STREAM); /* gone in the hello */
	send_bytes(fd, "DSPL\1", 5);
	close(fd);
	served(&p);

	fd = client(p.tcp, SOCK_STREAM); /* gone mid-message, with a FIN */
	ck_assert_uint_eq(do_hello(fd, 1000, 1), NET_HELLO_OK);
	send_bytes(fd, half, 500);
	close(fd);
	served(&p);

	fd = client(p.tcp, SOCK_STREAM); /* gone mid-message, with a reset */
	ck_assert_uint_eq(do_hello(fd, 1000, 1), NET_HELLO_OK);
	send_bytes(fd, half, 600);
	struct linger lg = { 1, 0 };
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
	close(fd);
	served(&p);

	fd = client(p.unix_path, SOCK_STREAM); /* unix, gone mid-message */
	ck_assert_uint_eq(do_hello(fd, 1 << 20, 1), NET_HELLO_OK);
	send_bytes(fd, half, 600);
	close(fd);

	fd = client(p.tcp, SOCK_STREAM); /* gone without reading its reply */
	ck_assert_uint_eq(do_hello(fd, 10, 100000), NET_HELLO_OK);
	send_bytes(fd, half, 10);
	close(fd);
	served(&p);

	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "in the hello"), 1);
	ck_assert_int_eq(count(log, "mid-message"), 3);
	ck_assert_str_eq(tu_kv(stop, "bad_clients", v, sizeof v), "4");
}
END_TEST

START_TEST(test_peer_serves_200_concurrent_connections)
{
	enum { N = 200 };
	struct tpeer p;
	int fd[N];
	uint8_t b[NET_HELLO_BYTES];
	char msg[100], reply[8];
	uint64_t calls = 0;
	memset(msg, 0x5a, sizeof msg);
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	/* all connected and all hellos sent before any answer is read */
	for (int i = 0; i < N; i++) {
		fd[i] = client(i % 4 == 3 ? p.unix_path : p.tcp, SOCK_STREAM);
		hello_bytes(b, 1, NET_HELLO, sizeof msg, sizeof reply);
		send_bytes(fd[i], b, sizeof b);
	}
	for (int i = 0; i < N; i++) {
		ck_assert_int_eq(net_recv_all(fd[i], b, sizeof b, &calls), 0);
		ck_assert_uint_eq(b[7], NET_HELLO_OK);
	}
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++)
			send_bytes(fd[i], msg, sizeof msg);
		for (int i = 0; i < N; i++)
			ck_assert_int_eq(net_recv_all(fd[i], reply, sizeof reply, &calls), 0);
	}
	for (int i = 0; i < N; i++)
		close(fd[i]);
	served(&p);
	char stop[512], v[64];
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_str_eq(tu_kv(stop, "conns", v, sizeof v), "201");
	ck_assert_str_eq(tu_kv(stop, "messages", v, sizeof v), "605");
}
END_TEST

static long peak_kib(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	tu_read_all(fd, buf, sizeof buf);
	close(fd);
	const char *p = strstr(buf, "VmHWM:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

START_TEST(test_peer_takes_a_16MiB_message_without_holding_it)
{
	struct tpeer p;
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	served(&p);
	long before = peak_kib(p.pid);
	ck_assert_int_gt(before, 0);
	int fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, NET_MAX_MSG_BYTES, 1), NET_HELLO_OK);
	round_trips(fd, NET_MAX_MSG_BYTES, 1, 2);
	close(fd);
	fd = client(p.tcp, SOCK_STREAM); /* and a 16 MiB reply, written from a small buffer */
	ck_assert_uint_eq(do_hello(fd, 1, NET_MAX_MSG_BYTES), NET_HELLO_OK);
	round_trips(fd, 1, NET_MAX_MSG_BYTES, 1);
	close(fd);
	served(&p);
	long after = peak_kib(p.pid);
	/* a buffered message would add 16 MiB; allow allocator noise */
	ck_assert_msg(after - before < 8 * 1024, "peak memory grew from %ld to %ld KiB", before, after);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_keeps_serving_while_a_client_is_slow)
{
	struct tpeer p;
	uint8_t b[NET_HELLO_BYTES];
	char msg[64], reply[3];
	uint64_t calls = 0;
	memset(msg, 0x5a, sizeof msg);
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int slow = client(p.tcp, SOCK_STREAM);
	hello_bytes(b, 1, NET_HELLO, sizeof msg, sizeof reply);
	/* the slow client trickles its hello and a message a byte at a time */
	for (size_t i = 0; i < sizeof b; i++) {
		send_bytes(slow, b + i, 1);
		if (i % 4 == 0)
			served(&p);
		usleep(2000);
	}
	ck_assert_int_eq(net_recv_all(slow, b, sizeof b, &calls), 0);
	ck_assert_uint_eq(b[7], NET_HELLO_OK);
	for (size_t i = 0; i < sizeof msg; i++) {
		send_bytes(slow, msg + i, 1);
		if (i % 16 == 0)
			served(&p);
		usleep(1000);
	}
	ck_assert_int_eq(net_recv_all(slow, reply, sizeof reply, &calls), 0);
	close(slow);
	/* a client that connects and says nothing does not hold anybody up */
	int mute = client(p.tcp, SOCK_STREAM);
	served(&p);
	close(mute);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_throttles_a_client_that_never_reads)
{
	struct tpeer p;
	char chunk[65536];
	memset(chunk, 0x5a, sizeof chunk);
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int fd = client(p.tcp, SOCK_STREAM);
	/* each byte is a message owed a 4 KiB reply, and no reply is ever read */
	ck_assert_uint_eq(do_hello(fd, 1, 4096), NET_HELLO_OK);
	long before = peak_kib(p.pid);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	uint64_t sent = 0, end = now_ms() + 1500;
	for (int i = 0; i < 100000 && now_ms() < end; i++) { /* bounded in count and time */
		ssize_t n = send(fd, chunk, sizeof chunk, MSG_NOSIGNAL);
		if (n > 0)
			sent += (uint64_t)n;
		else
			usleep(5000);
	}
	/* the peer stopped reading: far less went out than 1.5 s of loopback carries */
	ck_assert_uint_lt(sent, 64u << 20);
	served(&p);
	close(fd);
	served(&p);
	long after = peak_kib(p.pid);
	ck_assert_msg(after - before < 8 * 1024, "peak memory grew from %ld to %ld KiB", before, after);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/* One datagram within timeout_ms: its length, or -1 (a wait for silence is short, one for an answer long) */
static ssize_t recv_within(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, timeout_ms) != 1)
		return -1;
	return recv(fd, buf, len, 0);
}

START_TEST(test_peer_udp_needs_a_hello_and_answers_each_datagram)
{
	struct tpeer p;
	uint8_t b[NET_HELLO_BYTES];
	char msg[1200], reply[100], log[8192], stop[512], v[64];
	memset(msg, 0x5a, sizeof msg);
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int fd = client(p.udp, SOCK_DGRAM);
	/* a datagram before any hello: no answer */
	send_bytes(fd, msg, sizeof msg);
	ck_assert_int_lt(recv_within(fd, reply, sizeof reply, 300), 0);
	/* a hello above the udp limit: refused */
	hello_bytes(b, 1, NET_HELLO, 65508, 1);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv_within(fd, b, sizeof b, 5000), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_SIZE);
	hello_bytes(b, 1, NET_HELLO, sizeof msg, 77);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv_within(fd, b, sizeof b, 5000), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_OK);
	for (int i = 0; i < 10; i++) {
		send_bytes(fd, msg, sizeof msg);
		ck_assert_int_eq(recv_within(fd, reply, sizeof reply, 5000), 77);
	}
	/* a datagram of another size than the hello said: ignored */
	send_bytes(fd, msg, 10);
	ck_assert_int_lt(recv_within(fd, reply, sizeof reply, 300), 0);
	send_bytes(fd, msg, sizeof msg);
	ck_assert_int_eq(recv_within(fd, reply, sizeof reply, 5000), 77);
	close(fd);
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_str_eq(tu_kv(stop, "messages", v, sizeof v), "11");
	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "without a hello first"), 1);
	ck_assert_int_eq(count(log, "hello refused"), 1);
	ck_assert_int_eq(count(log, "but its hello said"), 1);
}
END_TEST

START_TEST(test_peer_port_in_use_exits_3)
{
	struct tpeer p, q;
	char log[2048];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	ck_assert_int_eq(tpeer_start(&q, p.tcp), 3);
	tpeer_log(&q, log, sizeof log);
	ck_assert_msg(strstr(log, "cannot bind tcp 127.0.0.1:") && strstr(log, "ddress already in use"), "%s", log);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

START_TEST(test_peer_replaces_a_stale_unix_socket_not_a_live_one)
{
	struct tpeer p;
	struct net_addr a;
	char dir[64], path[128], err[1024];
	snprintf(dir, sizeof dir, "%s", tu_mkdtemp());
	snprintf(path, sizeof path, "%s/stale.sock", dir);
	/* a socket file nobody listens on, as a killed server leaves it */
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(net_parse_unix(path, &a), 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a.ss, a.len), 0);
	close(s);
	char *argv[] = { (char *)tu_bin("put"), "serve", "--listen", "127.0.0.1:0", "--unix", path, NULL };
	memset(&p, 0, sizeof p);
	snprintf(p.dir, sizeof p.dir, "%s", dir);
	snprintf(p.err_path, sizeof p.err_path, "%s/err", dir);
	p.pid = spawn_peer(&p, argv);
	ck_assert_int_eq(read_line(p.out_fd, p.line, sizeof p.line, 10000), 0);
	ck_assert_ptr_nonnull(strstr(p.line, path));
	/* now it is live: a second server must not take it over */
	char *argv2[] = { (char *)tu_bin("put"), "serve", "--listen", "127.0.0.1:0", "--unix", path, NULL };
	ck_assert_int_eq(tu_run(argv2, p.line, sizeof p.line, err, sizeof err), 3);
	ck_assert_ptr_nonnull(strstr(err, "another server listens there"));
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	ck_assert_int_ne(access(path, F_OK), 0); /* removed on the way out */
	rmdir(dir);
}
END_TEST

static int cpus_allowed_is(const char *status_path, const char *want)
{
	char buf[4096], line[64];
	int fd = open(status_path, O_RDONLY);
	if (fd < 0)
		return 0;
	tu_read_all(fd, buf, sizeof buf);
	close(fd);
	const char *p = strstr(buf, "Cpus_allowed_list:");
	if (!p)
		return 0;
	snprintf(line, sizeof line, "Cpus_allowed_list:\t%s\n", want);
	return !strncmp(p, line, strlen(line));
}

/*
 * The coordinator's child: pinned with --cpu (its RPC thread too), and it
 * stops when its parent dies even with nothing on stdin to tell it.
 */
START_TEST(test_peer_is_pinned_and_dies_with_its_parent)
{
	int po[2];
	char line[512], path[512], v[32];
	ck_assert_int_eq(pipe(po), 0);
	pid_t parent = fork();
	ck_assert_int_ge(parent, 0);
	if (parent == 0) {
		pid_t server = fork();
		if (server == 0) {
			int devnull = open("/dev/null", O_RDWR);
			dup2(devnull, 0); /* not a pipe: only the parent's death can stop it */
			dup2(po[1], 1);
			dup2(devnull, 2);
			close(po[0]);
			execl(tu_bin("put"), "put", "serve", "--cpu", "0", "--listen", "127.0.0.1:0", "--unix", "none",
			      (char *)NULL);
			_exit(127);
		}
		close(po[1]);
		pause(); /* until the test kills it */
		_exit(0);
	}
	close(po[1]);
	ck_assert_int_eq(read_line(po[0], line, sizeof line, 10000), 0);
	ck_assert_ptr_nonnull(tu_kv(line, "pid", v, sizeof v));
	pid_t server = atoi(v);
	ck_assert_str_eq(tu_kv(line, "unix", v, sizeof v), "none");
	snprintf(path, sizeof path, "/proc/%d/status", (int)server);
	ck_assert(cpus_allowed_is(path, "0"));
	/* every thread, the RPC one included */
	char tasks[64];
	snprintf(tasks, sizeof tasks, "/proc/%d/task", (int)server);
	int threads = 0;
	DIR *d = opendir(tasks);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/status", tasks, e->d_name);
		threads++;
		ck_assert_msg(cpus_allowed_is(path, "0"), "thread %s is not pinned", e->d_name);
	}
	closedir(d);
	ck_assert_int_ge(threads, 2);
	kill(parent, SIGKILL);
	tu_wait(parent);
	ck_assert_int_eq(read_line(po[0], line, sizeof line, 10000), 0);
	ck_assert_str_eq(tu_kv(line, "reason", v, sizeof v), "signal");
	ck_assert_int_ne(read_line(po[0], line, sizeof line, 10000), 0); /* EOF: it exited */
	close(po[0]);
}
END_TEST

Suite *serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_serve_config_rejects_bad_listen_and_unix);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("peer");
	tcase_set_timeout(tp, 60);
	tcase_add_test(tp, test_peer_prints_ready_line_and_stops_on_stdin_eof);
	tcase_add_test(tp, test_peer_stops_on_sigterm);
	tcase_add_test(tp, test_peer_answers_tcp_and_unix_clients);
	tcase_add_test(tp, test_peer_refuses_malformed_hellos);
	tcase_add_test(tp, test_peer_survives_abrupt_disconnects);
	tcase_add_test(tp, test_peer_serves_200_concurrent_connections);
	tcase_add_test(tp, test_peer_takes_a_16MiB_message_without_holding_it);
	tcase_add_test(tp, test_peer_keeps_serving_while_a_client_is_slow);
	tcase_add_test(tp, test_peer_throttles_a_client_that_never_reads);
	tcase_add_test(tp, test_peer_udp_needs_a_hello_and_answers_each_datagram);
	tcase_add_test(tp, test_peer_port_in_use_exits_3);
	tcase_add_test(tp, test_peer_replaces_a_stale_unix_socket_not_a_live_one);
	tcase_add_test(tp, test_peer_is_pinned_and_dies_with_its_parent);
	suite_add_tcase(s, tp);
	return s;
}
