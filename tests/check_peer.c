/* check_peer.c - the local peer's directory (coordinator/peer.c): what a killed run left is removed */
#include "coordinator/peer.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* a pid that was alive and is not any more */
static int dead_pid(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return (int)pid;
}

/* dir/name as a bound unix socket; with listening, a live one */
static int make_socket(const char *dir, const char *name, int listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", dir, name);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	if (listening)
		ck_assert_int_eq(listen(fd, 1), 0);
	else
		close(fd);
	return fd;
}

START_TEST(test_peer_clean_stale_removes_only_dead_runs_dirs)
{
	char tmp[256], stale[300], alive[300], busy[300], other[300];
	snprintf(tmp, sizeof tmp, "%s", tu_scratch_path("tmp"));
	ck_assert_int_eq(mkdir(tmp, 0755), 0);
	int dead = dead_pid();
	/* a run killed with SIGKILL: its pid gone, its socket left with no listener */
	snprintf(stale, sizeof stale, "%s/" PEER_DIR_PREFIX "%d-abc123", tmp, dead);
	ck_assert_int_eq(mkdir(stale, 0700), 0);
	make_socket(stale, PEER_SOCK_NAME, 0);
	/* a running one: this process */
	snprintf(alive, sizeof alive, "%s/" PEER_DIR_PREFIX "%d-def456", tmp, (int)getpid());
	ck_assert_int_eq(mkdir(alive, 0700), 0);
	/* a dead pid whose socket still has a listener (another pid namespace?): left alone */
	snprintf(busy, sizeof busy, "%s/" PEER_DIR_PREFIX "%d-ghi789", tmp, dead);
	ck_assert_int_eq(mkdir(busy, 0700), 0);
	int lfd = make_socket(busy, PEER_SOCK_NAME, 1);
	/* a dead pid's directory holding something else: not ours to empty */
	snprintf(other, sizeof other, "%s/" PEER_DIR_PREFIX "%d-jkl000", tmp, dead);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	char f[400];
	snprintf(f, sizeof f, "%s/notes.txt", other);
	ck_assert_int_eq(tu_write_file(f, "x", 1), 0);
	/* a symlink with the name of a stale directory is never followed */
	char target[300], link[300];
	snprintf(target, sizeof target, "%s/target", tmp);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	make_socket(target, PEER_SOCK_NAME, 0);
	snprintf(link, sizeof link, "%s/" PEER_DIR_PREFIX "%d-mno111", tmp, dead);
	ck_assert_int_eq(symlink(target, link), 0);

	ck_assert_int_eq(peer_clean_stale(tmp), 1);
	struct stat st;
	ck_assert_int_eq(stat(stale, &st), -1);
	ck_assert_int_eq(stat(alive, &st), 0);
	ck_assert_int_eq(stat(busy, &st), 0);
	ck_assert_int_eq(stat(f, &st), 0);
	char sock[400];
	snprintf(sock, sizeof sock, "%s/" PEER_SOCK_NAME, target);
	ck_assert_int_eq(lstat(sock, &st), 0);
	close(lfd);
}
END_TEST

Suite *peer_suite(void)
{
	Suite *s = suite_create("peer");
	TCase *tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_peer_clean_stale_removes_only_dead_runs_dirs);
	suite_add_tcase(s, tc);
	return s;
}
