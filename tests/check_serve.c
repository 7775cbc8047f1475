/*
 * check_serve.c - the peer: its config, and the real 'put serve' process
 * against good and bad clients. After each abuse a normal client must
 * still be served. The hello and address parsers are in check_net.c.
 */
#include "calib/reportline.h"
#include "put/ctl_wire.h"
#include "put/net.h"
#include "put/serve.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include "calib/procfs.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
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


static pid_t spawn_peer(struct tpeer *p, char *const argv[], const struct tpeer_opts *o)
{
	int pi[2], po[2];
	if (pipe(pi) || pipe(po))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (o && o->nofile) {
			struct rlimit rl = { o->nofile, o->nofile };
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (o && o->netns && unshare(CLONE_NEWNET))
			_exit(TPEER_NO_NETNS);
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

int tpeer_start_with(struct tpeer *p, const char *listen, const struct tpeer_opts *o)
{
	memset(p, 0, sizeof *p);
	snprintf(p->dir, sizeof p->dir, "%s", tu_mkdtemp());
	snprintf(p->err_path, sizeof p->err_path, "%s/err", p->dir);
	char unix_path[128];
	snprintf(unix_path, sizeof unix_path, "%s/s.sock", p->dir);
	char *argv[32] = { (char *)tu_bin(o && o->front ? o->front : "put"), "serve", "--listen", (char *)listen,
			   "--unix", unix_path };
	int argc = 6;
	for (int i = 0; o && o->args && o->args[i] && argc < 31; i++)
		argv[argc++] = (char *)o->args[i];
	argv[argc] = NULL;
	p->pid = spawn_peer(p, argv, o);
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

int tpeer_start(struct tpeer *p, const char *listen)
{
	return tpeer_start_with(p, listen, NULL);
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
	struct net_hello h = { version, kind, 0, msg, reply, 0 };
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
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), 0);
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

	fd = client(p.unix_path, SOCK_STREAM); /* a client of version 1: its 16-byte hello, answered in its words */
	hello_bytes(b, 1, NET_HELLO, 10, 1);
	send_bytes(fd, b, NET_HELLO_HEAD_BYTES);
	ck_assert_int_eq(recv(fd, b, sizeof b, MSG_WAITALL), NET_HELLO_HEAD_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_VERSION);
	ck_assert_uint_eq(b[4], NET_HELLO_VERSION); /* the version the peer speaks */
	close(fd);

	fd = client(p.tcp, SOCK_STREAM); /* an ack sent as a hello */
	hello_bytes(b, NET_HELLO_VERSION, NET_ACK, 10, 1);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv(fd, b, sizeof b, MSG_WAITALL), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_FORM);
	closed_by_peer(fd);
	close(fd);

	fd = client(p.tcp, SOCK_STREAM); /* a cookie on a stream: the field is udp's */
	struct net_hello h = { NET_HELLO_VERSION, NET_HELLO, 0, 10, 1, 99 };
	net_hello_encode(b, &h);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv(fd, b, sizeof b, MSG_WAITALL), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_FORM);
	closed_by_peer(fd);
	close(fd);
	served(&p);

	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "not a displace hello"), 1);
	ck_assert_int_eq(count(log, "hello refused"), 6);
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
		hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, sizeof msg, sizeof reply);
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

/* a memory figure of /proc/PID/status in KiB ("VmHWM:", "VmRSS:"); -1 if absent */
static long status_kib(pid_t pid, const char *key)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	tu_read_all(fd, buf, sizeof buf);
	close(fd);
	const char *p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static long peak_kib(pid_t pid)
{
	return status_kib(pid, "VmHWM:");
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
	hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, sizeof msg, sizeof reply);
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

/*
 * The udp hello on a connected socket: a first hello, the ack with the
 * cookie, the hello again with it; the status of the last ack.
 */
static unsigned udp_hello(int fd, uint32_t msg, uint32_t reply)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h = { NET_HELLO_VERSION, NET_HELLO, 0, msg, reply, 0 };
	net_hello_encode(b, &h);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv_within(fd, b, sizeof b, 5000), NET_HELLO_BYTES); /* no larger than the hello */
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), 0);
	ck_assert_uint_eq(h.status, NET_HELLO_COOKIE);
	h.kind = NET_HELLO;
	h.status = 0;
	net_hello_encode(b, &h);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv_within(fd, b, sizeof b, 5000), NET_HELLO_BYTES);
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), 0);
	return h.status;
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
	hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, 65508, 1);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(recv_within(fd, b, sizeof b, 5000), NET_HELLO_BYTES);
	ck_assert_uint_eq(b[7], NET_HELLO_BAD_SIZE);
	ck_assert_uint_eq(udp_hello(fd, sizeof msg, 77), NET_HELLO_OK);
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
	p.pid = spawn_peer(&p, argv, NULL);
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
 * The coordinator's child: pinned with --cpu (every thread of it, if it
 * has more than one), and it stops when its parent dies even with
 * nothing on stdin to tell it.
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
	/* every thread */
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
	ck_assert_int_ge(threads, 1);
	kill(parent, SIGKILL);
	tu_wait(parent);
	ck_assert_int_eq(read_line(po[0], line, sizeof line, 10000), 0);
	ck_assert_str_eq(tu_kv(line, "reason", v, sizeof v), "signal");
	ck_assert_int_ne(read_line(po[0], line, sizeof line, 10000), 0); /* EOF: it exited */
	close(po[0]);
}
END_TEST

/* --- the hardening of issue 12: limits, timeouts, RPC, udp, abuse -------------- */

/* a client of addr from the source address src (any address of 127.0.0.0/8 is this host) */
static int client_from(const char *addr, const char *src, int type)
{
	struct net_addr a;
	struct sockaddr_in from = { .sin_family = AF_INET };
	ck_assert_int_eq(net_parse_hostport(addr, 0, &a), 0);
	ck_assert_int_eq(inet_pton(AF_INET, src, &from.sin_addr), 1);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&from, sizeof from), 0);
	ck_assert_msg(connect(fd, (struct sockaddr *)&a.ss, a.len) == 0, "connect %s: %s", addr, strerror(errno));
	ck_assert_int_eq(net_set_timeouts(fd, 5000000000ull, 5000000000ull), 0);
	return fd;
}

/* the partial ONC RPC record of the report: a record mark for 1000 bytes, and 10 of them */
static void send_partial_record(int fd)
{
	static const uint8_t part[14] = { 0x80, 0x00, 0x03, 0xe8, 0, 0, 0, 1 };
	send_bytes(fd, part, sizeof part);
}

/* bin/put --ops 3 rpc against the peer: 0 if it worked, and within how long */
static int rpc_served(const struct tpeer *p, uint64_t *ms)
{
	char out[4096], err[4096];
	char *argv[] = { (char *)tu_bin("put"), "--ops", "3", "rpc", "--peer", (char *)p->rpc, "--timeout", "5s", NULL };
	uint64_t t0 = now_ms();
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	*ms = now_ms() - t0;
	if (st)
		fprintf(stderr, "check_serve: put rpc exited %d: %s", st, err);
	return st;
}

/* a udp client from src: the hello, then three messages answered */
static void udp_served_from(const struct tpeer *p, const char *src)
{
	char msg[100], reply[8];
	memset(msg, 0x5a, sizeof msg);
	int fd = client_from(p->udp, src, SOCK_DGRAM);
	ck_assert_uint_eq(udp_hello(fd, sizeof msg, sizeof reply), NET_HELLO_OK);
	for (int i = 0; i < 3; i++) {
		send_bytes(fd, msg, sizeof msg);
		ck_assert_int_eq(recv_within(fd, reply, sizeof reply, 1000), (ssize_t)sizeof reply);
	}
	close(fd);
}

/* A good client of each kind (tcp, udp, rpc) is served, each within 1 s: the check after every abuse. */
static void served_quickly(const struct tpeer *p, const char *after)
{
	uint64_t t0 = now_ms(), ms;
	served(p);
	ck_assert_msg(now_ms() - t0 < 1000, "after %s: tcp took %llu ms", after, (unsigned long long)(now_ms() - t0));
	t0 = now_ms();
	udp_served_from(p, "127.0.0.1");
	ck_assert_msg(now_ms() - t0 < 1000, "after %s: udp took %llu ms", after, (unsigned long long)(now_ms() - t0));
	ck_assert_msg(rpc_served(p, &ms) == 0, "after %s: rpc failed", after);
	ck_assert_msg(ms < 1000, "after %s: rpc took %llu ms", after, (unsigned long long)ms);
}

/*
 * The report: a client that sends an RPC record header and 10 bytes, then
 * holds the connection, stalled every RPC client for 35 s. Now the others
 * are served at once, and the partial record is closed when it stalls.
 */
START_TEST(test_peer_rpc_partial_record_does_not_stall_other_clients)
{
	struct tpeer p;
	static const char *const args[] = { "--idle-timeout", "2s", NULL };
	const struct tpeer_opts o = { .args = args };
	char log[8192];
	uint64_t ms;
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	int held[3];
	for (int i = 0; i < 3; i++) {
		held[i] = client(p.rpc, SOCK_STREAM);
		send_partial_record(held[i]);
	}
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rpc_served(&p, &ms), 0);
		ck_assert_msg(ms < 1000, "an rpc client took %llu ms beside a partial record", (unsigned long long)ms);
	}
	/* the held records stall: closed after 2 s (the idle timeout, shorter than 10 s) */
	uint64_t t0 = now_ms();
	for (int i = 0; i < 3; i++) {
		closed_by_peer(held[i]);
		close(held[i]);
	}
	ck_assert_uint_lt(now_ms() - t0, 4500);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_msg(count(log, "mid-record; closing") == 3, "%s", log);
}
END_TEST

/*
 * The report: out of file descriptors, the RPC thread spun at 100 % CPU.
 * With an fd limit of 64 the peer takes fewer connections than it has
 * descriptors, says so, uses no CPU while refusing more, and a newcomer
 * takes the place of a connection silent long enough.
 */
START_TEST(test_peer_at_the_fd_limit_refuses_without_spinning)
{
	enum { N = 60 };
	struct tpeer p;
	static const char *const args[] = { "--idle-timeout", "6s", NULL };
	const struct tpeer_opts o = { .args = args, .nofile = 64 };
	char log[8192];
	int fd[N];
	uint64_t cpu0, cpu1, ms;
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	for (int i = 0; i < N; i++) {
		fd[i] = client(i % 2 ? p.rpc : p.tcp, SOCK_STREAM);
		send_partial_record(fd[i]);
	}
	usleep(100000);
	ck_assert_int_eq(procfs_process_runtime_ns(p.pid, &cpu0), 0);
	usleep(1100000);
	ck_assert_int_eq(procfs_process_runtime_ns(p.pid, &cpu1), 0);
	ck_assert_msg(cpu1 - cpu0 < 200000000ull, "the peer used %llu ms of CPU in 1.1 s, holding connections at its limit",
		      (unsigned long long)((cpu1 - cpu0) / 1000000));
	/* silent for more than a sixth of the idle timeout: a newcomer may take a place */
	ck_assert_int_eq(rpc_served(&p, &ms), 0);
	ck_assert_uint_lt(ms, 1000);
	for (int i = 0; i < N; i++)
		close(fd[i]);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	/* one line for the first refusal, then a count: the log is not flooded either */
	ck_assert_msg(strstr(log, "the limit (--max-conns, lowered to fit the fd limit), all active"), "%s", log);
	ck_assert_msg(count(log, "refused:") == 1, "%s", log);
	ck_assert_msg(strstr(log, "more connections refused at a limit"), "%s", log);
	ck_assert_msg(strstr(log, "to make room for rpc 127.0.0.1:"), "%s", log);
}
END_TEST

/* The report: no idle timeout after a valid hello, so held connections stayed for ever. */
START_TEST(test_peer_closes_idle_connections_after_the_hello)
{
	struct tpeer p;
	static const char *const args[] = { "--idle-timeout", "1s", NULL };
	const struct tpeer_opts o = { .args = args };
	char log[8192];
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	int fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(fd, 100, 1), NET_HELLO_OK);
	round_trips(fd, 100, 1, 2);
	uint64_t t0 = now_ms();
	closed_by_peer(fd);
	uint64_t waited = now_ms() - t0;
	close(fd);
	ck_assert_msg(waited >= 900 && waited < 3500, "closed after %llu ms", (unsigned long long)waited);
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "the idle timeout; closing"), 1);
}
END_TEST

/* One source address holds at most --max-per-source connections; another address is still served. */
START_TEST(test_peer_limits_connections_per_source_address)
{
	struct tpeer p;
	static const char *const args[] = { "--max-per-source", "5", NULL };
	const struct tpeer_opts o = { .args = args };
	char log[8192];
	int fd[5];
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	for (int i = 0; i < 5; i++) {
		fd[i] = client_from(p.tcp, "127.0.0.1", SOCK_STREAM);
		ck_assert_uint_eq(do_hello(fd[i], 10, 1), NET_HELLO_OK);
	}
	int sixth = client_from(p.tcp, "127.0.0.1", SOCK_STREAM);
	closed_by_peer(sixth);
	close(sixth);
	int other = client_from(p.tcp, "127.0.0.2", SOCK_STREAM);
	ck_assert_uint_eq(do_hello(other, 10, 1), NET_HELLO_OK);
	round_trips(other, 10, 1, 3);
	close(other);
	for (int i = 0; i < 5; i++) {
		round_trips(fd[i], 10, 1, 1); /* the five held ones were not disturbed */
		close(fd[i]);
	}
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_msg(strstr(log, "refused: 5 connections from its source, the limit (--max-per-source), all active"), "%s",
		      log);
}
END_TEST

/*
 * The report: 4,100 connections held after a valid hello locked out new
 * clients. At --max-conns a newcomer is refused while all are active, and
 * takes the place of the one silent the longest once that one is idle.
 */
START_TEST(test_peer_at_its_connection_limit_makes_room_for_a_newcomer)
{
	enum { N = 5 };
	struct tpeer p;
	static const char *const args[] = { "--max-conns", "5", "--idle-timeout", "6s", NULL };
	const struct tpeer_opts o = { .args = args };
	char log[8192];
	int fd[N];
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	for (int i = 0; i < N; i++) {
		fd[i] = client_from(p.tcp, i % 2 ? "127.0.0.3" : "127.0.0.4", SOCK_STREAM);
		ck_assert_uint_eq(do_hello(fd[i], 10, 1), NET_HELLO_OK);
	}
	int early = client(p.tcp, SOCK_STREAM);
	closed_by_peer(early);
	close(early);
	usleep(1200000); /* a sixth of the idle timeout: the held ones are no longer live */
	uint64_t t0 = now_ms();
	served(&p);
	ck_assert_uint_lt(now_ms() - t0, 1000);
	closed_by_peer(fd[0]); /* the first held: silent the longest */
	for (int i = 0; i < N; i++)
		close(fd[i]);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_msg(strstr(log, "refused: 5 connections, the limit (--max-conns), all active"), "%s", log);
	ck_assert_int_eq(count(log, "to make room for"), 1);
}
END_TEST

/*
 * The report: a 16-byte hello asking for 65,507-byte replies, then 1-byte
 * datagrams, got 65,507 bytes for each byte, to any source. Now an
 * unproven source gets one ack no larger than its hello, and nothing else.
 */
START_TEST(test_peer_udp_answers_an_unproven_source_with_no_more_than_it_sent)
{
	struct tpeer p;
	uint8_t b[NET_HELLO_BYTES + 8], big[65536];
	char stop[512], v[64];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	int fd = client(p.udp, SOCK_DGRAM);
	hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, 1, NET_UDP4_MAX_BYTES);
	send_bytes(fd, b, NET_HELLO_BYTES);
	ck_assert_int_eq(recv_within(fd, big, sizeof big, 5000), NET_HELLO_BYTES);
	ck_assert_uint_eq(big[7], NET_HELLO_COOKIE);
	for (int i = 0; i < 20; i++)
		send_bytes(fd, "x", 1);
	ck_assert_int_lt(recv_within(fd, big, sizeof big, 300), 0); /* nothing at all */
	/* the old, 16-byte hello: a 16-byte refusal */
	hello_bytes(b, 1, NET_HELLO, 1, NET_UDP4_MAX_BYTES);
	send_bytes(fd, b, NET_HELLO_HEAD_BYTES);
	ck_assert_int_eq(recv_within(fd, big, sizeof big, 5000), NET_HELLO_HEAD_BYTES);
	ck_assert_uint_eq(big[7], NET_HELLO_BAD_VERSION);
	close(fd);
	/* proven, the same client gets what it asked for */
	fd = client(p.udp, SOCK_DGRAM);
	ck_assert_uint_eq(udp_hello(fd, 1, NET_UDP4_MAX_BYTES), NET_HELLO_OK);
	send_bytes(fd, "x", 1);
	ck_assert_int_eq(recv_within(fd, big, sizeof big, 5000), NET_UDP4_MAX_BYTES);
	close(fd);
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_str_eq(tu_kv(stop, "messages", v, sizeof v), "1");
}
END_TEST

/*
 * The report: 3,000 new source addresses evicted a live udp client. Here
 * 5,000 sources (ports of 127.0.0.2 to .9) each prove their address, more
 * than the table of 4,096 holds; the live client is served throughout,
 * and the sources beyond the table are told the peer is busy.
 */
START_TEST(test_peer_udp_flood_of_new_sources_keeps_a_live_client)
{
	enum { N = 5000 };
	struct tpeer p;
	static const char *const args[] = { "--max-per-source", "65536", NULL };
	const struct tpeer_opts o = { .args = args };
	char msg[100], reply[8], src[32];
	memset(msg, 0x5a, sizeof msg);
	ck_assert_int_eq(tpeer_start_with(&p, "127.0.0.1:0", &o), 0);
	int live = client(p.udp, SOCK_DGRAM);
	ck_assert_uint_eq(udp_hello(live, sizeof msg, sizeof reply), NET_HELLO_OK);
	unsigned busy = 0;
	uint64_t t0 = now_ms();
	/* bounded in time: on a slow host the first sources may age out of "live" and give way */
	for (int i = 0; i < N && now_ms() - t0 < 8000; i++) {
		snprintf(src, sizeof src, "127.0.0.%d", 2 + i % 8);
		int fd = client_from(p.udp, src, SOCK_DGRAM);
		busy += udp_hello(fd, 10, NET_UDP4_MAX_BYTES) == NET_HELLO_BUSY;
		close(fd);
		if (i % 200 == 0) {
			send_bytes(live, msg, sizeof msg);
			ck_assert_int_eq(recv_within(live, reply, sizeof reply, 1000), (ssize_t)sizeof reply);
		}
	}
	/* the ports the kernel picks repeat now and then: not every source is new */
	ck_assert_msg(busy >= 500 || now_ms() - t0 >= 8000, "only %u of %d refused", busy, N);
	send_bytes(live, msg, sizeof msg);
	ck_assert_int_eq(recv_within(live, reply, sizeof reply, 1000), (ssize_t)sizeof reply);
	close(live);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/* The peer has no authentication: both front ends warn when it listens beyond loopback. */
START_TEST(test_peer_warns_when_it_listens_beyond_loopback)
{
	const char *fronts[] = { "put", "displace" };
	struct tpeer p;
	char log[8192];
	for (size_t i = 0; i < 2; i++) {
		/* in a network namespace of its own, so that 0.0.0.0 reaches nobody */
		const struct tpeer_opts o = { .front = fronts[i], .netns = 1 };
		int st = tpeer_start_with(&p, "0.0.0.0:0", &o);
		if (st == TPEER_NO_NETNS) {
			fprintf(stderr, "check_serve: the beyond-loopback warning is not tested: no network namespace\n");
			return;
		}
		ck_assert_msg(st == 0, "%s serve on 0.0.0.0:0 in a namespace: %d", fronts[i], st);
		ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
		tpeer_log(&p, log, sizeof log);
		ck_assert_msg(strstr(log, "warning: listening on 0.0.0.0:") && strstr(log, "no authentication"), "%s: %s",
			      fronts[i], log);
	}
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_ptr_null(strstr(log, "warning"));
}
END_TEST

/* The report: 'serve --unix /missing/dir/x.sock' said "permission denied". */
START_TEST(test_peer_unix_socket_in_a_missing_directory_names_it)
{
	char out[1024], err[1024];
	char *argv[] = { (char *)tu_bin("put"), "serve", "--listen", "127.0.0.1:0", "--unix",
			 "/nonexistent-displace-dir/x.sock", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 3);
	ck_assert_msg(strstr(err, "cannot bind unix /nonexistent-displace-dir/x.sock: directory '/nonexistent-displace-dir' "
				  "does not exist"),
		      "%s", err);
	ck_assert_ptr_null(strstr(err, "ermission"));
}
END_TEST

/* the limits are options; nonsense is a usage error */
START_TEST(test_peer_limit_options_reject_nonsense)
{
	char out[1024], err[1024];
	const char *bad[][2] = { { "--idle-timeout", "0" }, { "--idle-timeout", "500ms" }, { "--idle-timeout", "2x" },
				 { "--max-conns", "0" },    { "--max-conns", "1e3" },       { "--max-per-source", "-1" } };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *argv[] = { (char *)tu_bin("put"), "serve", (char *)bad[i][0], (char *)bad[i][1], NULL };
		ck_assert_msg(tu_run(argv, out, sizeof out, err, sizeof err) == 2, "%s %s", bad[i][0], bad[i][1]);
		ck_assert_ptr_nonnull(strstr(err, bad[i][0]));
	}
}
END_TEST

/* VmRSS of the peer must stay within this of where it started */
#define ABUSE_RSS_GROWTH_KIB (24 * 1024)

static void rss_bounded(const struct tpeer *p, long base_kib, const char *after)
{
	long now = status_kib(p->pid, "VmRSS:");
	ck_assert_msg(now > 0 && now - base_kib < ABUSE_RSS_GROWTH_KIB, "after %s: VmRSS %ld KiB, from %ld", after, now,
		      base_kib);
}

/*
 * The abuse test of issue 12, on loopback and bounded in time: malformed
 * and partial hellos, partial RPC records held open, 200 concurrent
 * connections, slow readers, udp from many sources. After each, a good
 * client of each kind is served within 1 s, and the peer's RSS stays
 * bounded.
 */
START_TEST(test_peer_abuse_keeps_good_clients_served_and_memory_bounded)
{
	struct tpeer p;
	uint8_t b[NET_HELLO_BYTES];
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	served_quickly(&p, "start");
	long base = status_kib(p.pid, "VmRSS:");
	ck_assert_int_gt(base, 0);

	/* malformed hellos, and partial ones held open */
	int partial[20];
	for (int i = 0; i < 20; i++) {
		int fd = client(p.tcp, SOCK_STREAM);
		uint8_t junk[NET_HELLO_BYTES];
		for (size_t k = 0; k < sizeof junk; k++)
			junk[k] = (uint8_t)(i * 37 + k * 11);
		if (i % 4 == 1)
			memcpy(junk, "DSPL", 4);
		send_bytes(fd, junk, sizeof junk);
		close(fd);
		partial[i] = client(i % 2 ? p.tcp : p.unix_path, SOCK_STREAM);
		hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, 10, 1);
		send_bytes(partial[i], b, 1 + (size_t)i % (NET_HELLO_BYTES - 1));
	}
	served_quickly(&p, "malformed and partial hellos");
	rss_bounded(&p, base, "malformed and partial hellos");

	/* partial RPC records held open */
	int rec[20];
	for (int i = 0; i < 20; i++) {
		rec[i] = client(p.rpc, SOCK_STREAM);
		send_partial_record(rec[i]);
	}
	served_quickly(&p, "partial RPC records");
	rss_bounded(&p, base, "partial RPC records");

	/* 200 concurrent connections, each after a good hello */
	int many[200];
	for (int i = 0; i < 200; i++) {
		many[i] = client(p.tcp, SOCK_STREAM);
		hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, 100, 1);
		send_bytes(many[i], b, sizeof b);
	}
	for (int i = 0; i < 200; i++) {
		uint64_t calls = 0;
		ck_assert_int_eq(net_recv_all(many[i], b, sizeof b, &calls), 0);
	}
	served_quickly(&p, "200 concurrent connections");
	rss_bounded(&p, base, "200 concurrent connections");

	/* slow readers: big replies never read, and RPC calls pipelined, replies never read */
	static char chunk[65536];
	int slow = client(p.tcp, SOCK_STREAM), slow_rpc = client(p.rpc, SOCK_STREAM);
	ck_assert_uint_eq(do_hello(slow, 1, 65536), NET_HELLO_OK);
	fcntl(slow, F_SETFL, fcntl(slow, F_GETFL) | O_NONBLOCK);
	fcntl(slow_rpc, F_SETFL, fcntl(slow_rpc, F_GETFL) | O_NONBLOCK);
	/* NULL calls: mark, xid, CALL, rpcvers 2, prog, vers, proc 0, two empty auths */
	static uint8_t calls[44 * 1000];
	for (int i = 0; i < 1000; i++) {
		const uint32_t w[11] = { 0x80000028u, (uint32_t)i, 0, 2, 0x2044504cu, 1, 0, 0, 0, 0, 0 };
		for (int k = 0; k < 11; k++) {
			uint32_t be = htonl(w[k]);
			memcpy(calls + 44 * i + 4 * k, &be, 4);
		}
	}
	uint64_t end = now_ms() + 1500;
	while (now_ms() < end) {
		ssize_t a = send(slow, chunk, sizeof chunk, MSG_NOSIGNAL), c = send(slow_rpc, calls, sizeof calls, MSG_NOSIGNAL);
		if (a <= 0 && c <= 0)
			usleep(5000);
	}
	served_quickly(&p, "slow readers");
	rss_bounded(&p, base, "slow readers");

	/* udp from many sources: first hellos (no state), whole exchanges, junk */
	for (int i = 0; i < 1500; i++) {
		int fd = client_from(p.udp, "127.0.0.2", SOCK_DGRAM);
		hello_bytes(b, NET_HELLO_VERSION, NET_HELLO, 1, NET_UDP4_MAX_BYTES);
		if (i % 3 == 0)
			send_bytes(fd, b, sizeof b);
		else if (i % 3 == 1)
			udp_hello(fd, 1, NET_UDP4_MAX_BYTES);
		send_bytes(fd, "x", 1);
		close(fd);
	}
	served_quickly(&p, "udp from many sources");
	rss_bounded(&p, base, "udp from many sources");

	for (int i = 0; i < 20; i++) {
		close(partial[i]);
		close(rec[i]);
	}
	for (int i = 0; i < 200; i++)
		close(many[i]);
	close(slow);
	close(slow_rpc);
	served_quickly(&p, "the end");
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/* --- the control connection of the peer's fluids (displace serve --fluid-cpus) --- */

/* the CPU the control tests give their peer: the last one online (0 on a one-CPU host) */
static int fluid_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (int)n - 1 : 0;
}

/* 'displace serve --fluid-cpus CPU' on loopback */
static void ctl_peer(struct tpeer *p, int cpu)
{
	static char arg[16];
	snprintf(arg, sizeof arg, "%d", cpu);
	const char *args[] = { "--fluid-cpus", arg, NULL };
	const struct tpeer_opts o = { .front = "displace", .args = args };
	ck_assert_int_eq(tpeer_start_with(p, "127.0.0.1:0", &o), 0);
}

/* a control hello with these fields; the ack's status */
static unsigned ctl_hello_with(int fd, uint32_t version, uint32_t reply)
{
	uint8_t b[NET_HELLO_BYTES];
	struct net_hello h = { NET_HELLO_VERSION, NET_CONTROL, 0, version, reply, 0 };
	uint64_t calls = 0;
	net_hello_encode(b, &h);
	send_bytes(fd, b, sizeof b);
	ck_assert_int_eq(net_recv_all(fd, b, sizeof b, &calls), 0);
	ck_assert_int_eq(net_hello_decode(b, sizeof b, &h), 0);
	ck_assert_uint_eq(h.kind, NET_ACK);
	ck_assert_uint_eq(h.msg_bytes, CTL_VERSION); /* the version the peer speaks */
	return h.status;
}

/* the next frame: its type, its body in rd; -1 at EOF or on a malformed frame */
static int ctl_read(int fd, struct ctl_reader *rd)
{
	uint8_t c;
	for (;;) {
		if (recv(fd, &c, 1, 0) != 1)
			return -1;
		size_t used;
		const char *why;
		int rc = ctl_reader_feed(rd, &c, 1, &used, &why);
		if (rc < 0)
			return -1;
		if (rc == 1)
			return (int)rd->type;
	}
}

static void ctl_send(int fd, unsigned type, const char *body)
{
	uint8_t b[CTL_HEAD_BYTES + CTL_MAX_REQUEST];
	int n = ctl_frame(b, sizeof b, type, body);
	ck_assert_int_gt(n, 0);
	send_bytes(fd, b, (size_t)n);
}

/*
 * a control connection, past its hello and INFO; while the fluids of the
 * one before are still stopping the peer is busy, for a moment
 */
static int ctl_open(const struct tpeer *p, struct ctl_reader *rd)
{
	uint64_t end = now_ms() + 5000;
	int fd = client(p->tcp, SOCK_STREAM);
	unsigned st;
	while ((st = ctl_hello_with(fd, CTL_VERSION, 0)) == NET_HELLO_BUSY && now_ms() < end) {
		close(fd);
		usleep(10000);
		fd = client(p->tcp, SOCK_STREAM);
	}
	ck_assert_uint_eq(st, NET_HELLO_OK);
	ctl_reader_init(rd, CTL_MAX_BODY);
	ck_assert_int_eq(ctl_read(fd, rd), CTL_INFO);
	return fd;
}

/* the reports of one request, then DONE: each a fluid report of cpu whose stop is (or is not) time; the last in *out */
static void ctl_reports(int fd, struct ctl_reader *rd, int cpu, int by_time, struct fluid_report *out)
{
	struct fluid_report r;
	char why[128];
	int type = ctl_read(fd, rd);
	ck_assert_msg(type == CTL_REPORT, "frame %d, not a report: %s", type, rd->body);
	ck_assert_msg(report_parse_fluid(rd->body, &r, why, sizeof why) == 0, "%s: %s", why, rd->body);
	ck_assert_int_eq(r.cpu, cpu);
	ck_assert_uint_gt(r.loops, 0);
	ck_assert_int_eq(!strcmp(r.stop, "time"), by_time);
	if (out)
		*out = r;
	ck_assert_int_eq(ctl_read(fd, rd), CTL_DONE);
	ck_assert_str_eq(rd->body, "n=1");
}

/* the fluids of pid (children called "fluid") */
static int fluid_children(pid_t pid)
{
	int n = 0;
	DIR *d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));) {
		char path[300], stat[512];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		if (tu_read_file(path, stat, sizeof stat) <= 0)
			continue;
		const char *close_paren = strrchr(stat, ')');
		int ppid = 0;
		if (strstr(stat, "(fluid)") && close_paren && sscanf(close_paren + 2, "%*c %d", &ppid) == 1 && ppid == pid)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * A control connection calibrates and runs fluids on the peer's own
 * --fluid-cpus, and only those: a request for another CPU is refused,
 * logged and closed; a second control connection is told the peer is busy.
 */
START_TEST(test_peer_control_runs_fluids_only_on_its_cpus)
{
	static struct ctl_reader rd, rd2;
	struct tpeer p;
	char body[128], log[8192], v[32];
	int cpu = fluid_cpu();
	ctl_peer(&p, cpu);
	int fd = ctl_open(&p, &rd);
	snprintf(body, sizeof body, "cpus=%d use_steal=", cpu);
	ck_assert_msg(!strncmp(rd.body, body, strlen(body)), "INFO: %s", rd.body);

	snprintf(body, sizeof body, "cpus=%d run_ns=30000000 sched=idle chunk_loops=1000", cpu);
	ctl_send(fd, CTL_CAL, body);
	ctl_reports(fd, &rd, cpu, 1, NULL);
	snprintf(body, sizeof body, "cpus=%d max_ns=20000000000 sched=idle chunk_loops=1000", cpu);
	ctl_send(fd, CTL_START, body);
	ck_assert_int_eq(ctl_read(fd, &rd), CTL_STARTED);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	uint64_t started_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	ck_assert_int_eq(fluid_children(p.pid), 1);
	served(&p); /* the peer serves while its fluid runs */
	int other = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(ctl_hello_with(other, CTL_VERSION, 0), NET_HELLO_BUSY);
	closed_by_peer(other);
	close(other);
	ctl_send(fd, CTL_STOP, "");
	static struct fluid_report fr;
	ctl_reports(fd, &rd, cpu, 0, &fr);
	/* STARTED came once the fluid's window had begun: a PUT started on it is inside the window */
	ck_assert_msg(fr.raw_start_ns <= started_ns, "window began %.3f ms after STARTED",
		      ((double)fr.raw_start_ns - (double)started_ns) / 1e6);

	/* another CPU, or more than its own */
	snprintf(body, sizeof body, "cpus=%d run_ns=30000000 sched=idle chunk_loops=1000", cpu + 1);
	ctl_send(fd, CTL_CAL, body);
	ck_assert_int_eq(ctl_read(fd, &rd), CTL_ERROR);
	ck_assert_ptr_nonnull(strstr(rd.body, "not one of the peer's --fluid-cpus"));
	closed_by_peer(fd);
	close(fd);
	ck_assert_int_eq(fluid_children(p.pid), 0);
	/* the control connection is free again */
	fd = ctl_open(&p, &rd2);
	close(fd);
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	ck_assert_int_eq(count(log, "not one of the peer's --fluid-cpus"), 1);
	ck_assert_int_eq(count(log, "control hello refused"), 1);
	(void)v;
}
END_TEST

/* Every malformed control message closes its connection with one log line; the peer serves on. */
START_TEST(test_peer_control_refuses_malformed_messages)
{
	static struct ctl_reader rd;
	struct tpeer p;
	char log[16384], good[128];
	int cpu = fluid_cpu();
	ctl_peer(&p, cpu);
	snprintf(good, sizeof good, "cpus=%d run_ns=30000000 sched=idle chunk_loops=1000", cpu);
	static const struct {
		const char *what;
		uint8_t head[CTL_HEAD_BYTES];
		const char *body;
	} raw[] = {
		{ "unknown type", { 0, 99, 0, 0, 0, 0, 0, 0 }, "" },
		{ "pad bytes", { 0, CTL_STOP, 0, 7, 0, 0, 0, 0 }, "" },
		{ "longer than the limit", { 0, CTL_CAL, 0, 0, 0x7f, 0xff, 0xff, 0xff }, "" },
		{ "printable", { 0, CTL_CAL, 0, 0, 0, 0, 0, 3 }, "a\001b" },
		{ "not a request", { 0, CTL_REPORT, 0, 0, 0, 0, 0, 0 }, "" },
	};
	for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		int fd = ctl_open(&p, &rd);
		send_bytes(fd, raw[i].head, sizeof raw[i].head);
		if (raw[i].body[0])
			send_bytes(fd, raw[i].body, strlen(raw[i].body));
		ck_assert_msg(ctl_read(fd, &rd) == CTL_ERROR, "%s: no ERROR", raw[i].what);
		ck_assert_msg(strstr(rd.body, raw[i].what), "%s: %s", raw[i].what, rd.body);
		closed_by_peer(fd);
		close(fd);
	}
	static const struct {
		unsigned type;
		const char *body, *why;
	} bad[] = {
		{ CTL_CAL, "cpus=0 run_ns=30000000 sched=idle chunk_loops=1000 exec=/bin/sh", "unknown field" },
		{ CTL_CAL, "cpus=0 cpus=0 run_ns=30000000 sched=idle chunk_loops=1000", "twice" },
		{ CTL_CAL, "cpus=all run_ns=30000000 sched=idle chunk_loops=1000", "cpus" },
		{ CTL_START, "cpus=0 max_ns=99999999999999 sched=idle chunk_loops=1000", "max_ns" },
		{ CTL_STOP, "", "STOP while no co-run" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int fd = ctl_open(&p, &rd);
		ctl_send(fd, bad[i].type, bad[i].body);
		ck_assert_int_eq(ctl_read(fd, &rd), CTL_ERROR);
		ck_assert_msg(strstr(rd.body, bad[i].why), "%s: %s", bad[i].body, rd.body);
		closed_by_peer(fd);
		close(fd);
	}
	/* a calibration asked for while a co-run's fluids run */
	int fd = ctl_open(&p, &rd);
	char start[128];
	snprintf(start, sizeof start, "cpus=%d max_ns=20000000000 sched=idle chunk_loops=1000", cpu);
	ctl_send(fd, CTL_START, start);
	ck_assert_int_eq(ctl_read(fd, &rd), CTL_STARTED);
	ctl_send(fd, CTL_CAL, good);
	ck_assert_int_eq(ctl_read(fd, &rd), CTL_ERROR);
	ck_assert_ptr_nonnull(strstr(rd.body, "while fluids run"));
	closed_by_peer(fd);
	close(fd);
	/* hellos it does not take: another control version, a reply size, half a frame left */
	fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(ctl_hello_with(fd, CTL_VERSION + 1, 0), NET_HELLO_BAD_CONTROL);
	closed_by_peer(fd);
	close(fd);
	fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(ctl_hello_with(fd, CTL_VERSION, 1), NET_HELLO_BAD_FORM);
	closed_by_peer(fd);
	close(fd);
	fd = ctl_open(&p, &rd);
	send_bytes(fd, "\0\1\0", 3);
	close(fd);
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tpeer_log(&p, log, sizeof log);
	/* one line each: 5 frames, 5 requests and the CAL out of turn; then the 2 hellos and the half frame */
	ck_assert_msg(count(log, "control 127.0.0.1:") == 11, "%s", log);
	ck_assert_int_eq(count(log, "control hello refused (control version 2): unsupported control version"), 1);
	ck_assert_int_eq(count(log, "control hello refused (control version 1): malformed hello"), 1);
	ck_assert_int_eq(count(log, "mid-control-frame"), 1);
	/* the peer without --fluid-cpus has no control connections */
	ck_assert_int_eq(tpeer_start(&p, "127.0.0.1:0"), 0);
	fd = client(p.tcp, SOCK_STREAM);
	ck_assert_uint_eq(ctl_hello_with(fd, CTL_VERSION, 0), NET_HELLO_NO_FLUIDS);
	closed_by_peer(fd);
	close(fd);
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/* A control connection that goes away stops its fluids: nothing spins on the peer's CPUs for nobody. */
START_TEST(test_peer_control_gone_stops_its_fluids)
{
	static struct ctl_reader rd;
	struct tpeer p;
	char start[128];
	int cpu = fluid_cpu();
	ctl_peer(&p, cpu);
	int fd = ctl_open(&p, &rd);
	snprintf(start, sizeof start, "cpus=%d max_ns=600000000000 sched=idle chunk_loops=1000", cpu);
	ctl_send(fd, CTL_START, start);
	ck_assert_int_eq(ctl_read(fd, &rd), CTL_STARTED);
	ck_assert_int_eq(fluid_children(p.pid), 1);
	close(fd);
	uint64_t end = now_ms() + 5000;
	while (fluid_children(p.pid) && now_ms() < end)
		usleep(10000);
	ck_assert_int_eq(fluid_children(p.pid), 0);
	served(&p);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/* --fluid-cpus is displace serve's, with CPUs that are online */
START_TEST(test_peer_fluid_cpus_option_is_checked)
{
	char out[1024], err[1024];
	char *put[] = { (char *)tu_bin("put"), "serve", "--listen", "127.0.0.1:0", "--fluid-cpus", "0", NULL };
	ck_assert_int_eq(tu_run(put, out, sizeof out, err, sizeof err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--fluid-cpus is for 'displace serve'"));
	char *junk[] = { (char *)tu_bin("displace"), "serve", "--listen", "127.0.0.1:0", "--fluid-cpus", "0x", NULL };
	ck_assert_int_eq(tu_run(junk, out, sizeof out, err, sizeof err), 2);
	char *offline[] = { (char *)tu_bin("displace"), "serve", "--listen", "127.0.0.1:0", "--fluid-cpus", "1000", NULL };
	ck_assert_int_eq(tu_run(offline, out, sizeof out, err, sizeof err), 2);
	ck_assert_ptr_nonnull(strstr(err, "not online"));
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
	tcase_add_test(tp, test_peer_rpc_partial_record_does_not_stall_other_clients);
	tcase_add_test(tp, test_peer_at_the_fd_limit_refuses_without_spinning);
	tcase_add_test(tp, test_peer_closes_idle_connections_after_the_hello);
	tcase_add_test(tp, test_peer_limits_connections_per_source_address);
	tcase_add_test(tp, test_peer_at_its_connection_limit_makes_room_for_a_newcomer);
	tcase_add_test(tp, test_peer_udp_answers_an_unproven_source_with_no_more_than_it_sent);
	tcase_add_test(tp, test_peer_udp_flood_of_new_sources_keeps_a_live_client);
	tcase_add_test(tp, test_peer_warns_when_it_listens_beyond_loopback);
	tcase_add_test(tp, test_peer_unix_socket_in_a_missing_directory_names_it);
	tcase_add_test(tp, test_peer_limit_options_reject_nonsense);
	tcase_add_test(tp, test_peer_abuse_keeps_good_clients_served_and_memory_bounded);
	suite_add_tcase(s, tp);
	TCase *tk = tcase_create("control");
	tcase_set_timeout(tk, 60);
	tcase_add_test(tk, test_peer_control_runs_fluids_only_on_its_cpus);
	tcase_add_test(tk, test_peer_control_refuses_malformed_messages);
	tcase_add_test(tk, test_peer_control_gone_stops_its_fluids);
	tcase_add_test(tk, test_peer_fluid_cpus_option_is_checked);
	suite_add_tcase(s, tk);
	return s;
}
