/* check_outfile.c - every written file (common/outfile.c): renamed into place, never through a symlink */
#include "common/outfile.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void assert_content(const char *path, const char *want)
{
	char buf[256];
	ck_assert_int_eq(tu_read_file(path, buf, sizeof buf), (long)strlen(want));
	ck_assert_str_eq(buf, want);
}

/* a fresh directory for one test, under the scratch directory; its files are tu_scratch_path("name/file") */
static const char *dir_for(const char *name)
{
	static char d[256];
	snprintf(d, sizeof d, "%s", tu_scratch_path(name));
	ck_assert_int_eq(mkdir(d, 0755), 0);
	return d;
}

START_TEST(test_outfile_replaces_the_file_whole_by_rename)
{
	const char *d = dir_for("whole");
	char path[512];
	snprintf(path, sizeof path, "%s", tu_scratch_path("whole/f.txt"));
	ck_assert_int_eq(tu_write_file(path, "old\n", 4), 0);
	struct stat before, after;
	ck_assert_int_eq(stat(path, &before), 0);
	struct outfile o;
	ck_assert_int_eq(outfile_create(&o, path), 0);
	ck_assert_int_eq(write(o.fd, "new\n", 4), 4);
	/* until the commit, readers see the old file, and nothing else is visible */
	assert_content(path, "old\n");
	ck_assert_int_eq(outfile_commit(&o), 0);
	assert_content(path, "new\n");
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	ck_assert_int_eq(entries(d), 1);
	/* as open(2) would make it: 0666 less the umask */
	mode_t mask = umask(022);
	ck_assert_int_eq(outfile_write(tu_scratch_path("whole/g.txt"), "x", 1), 0);
	umask(mask);
	struct stat st;
	ck_assert_int_eq(stat(tu_scratch_path("whole/g.txt"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);

	/* an abort leaves the old file as it was, and nothing beside it */
	ck_assert_int_eq(outfile_create(&o, path), 0);
	ck_assert_int_eq(write(o.fd, "partial", 7), 7);
	outfile_abort(&o);
	assert_content(path, "new\n");
	ck_assert_int_eq(entries(d), 2);
}
END_TEST

/* the attack: another user's symlink where a root-run command writes */
START_TEST(test_outfile_never_writes_through_a_planted_symlink)
{
	const char *d = dir_for("planted");
	char victim[512], link[512];
	snprintf(victim, sizeof victim, "%s", tu_scratch_path("planted/victim"));
	snprintf(link, sizeof link, "%s", tu_scratch_path("planted/results.csv"));
	ck_assert_int_eq(tu_write_file(victim, "precious\n", 9), 0);
	ck_assert_int_eq(symlink(victim, link), 0);
	struct outfile o;
	int created = 7;
	ck_assert_int_eq(outfile_check(link), -ELOOP);
	ck_assert_int_eq(outfile_create(&o, link), -ELOOP);
	ck_assert_int_eq(outfile_append(&o, link, &created), -ELOOP);
	ck_assert_int_eq(created, 0);
	ck_assert_int_eq(outfile_write(link, "pwned\n", 6), -ELOOP);
	assert_content(victim, "precious\n");
	/* a dangling symlink: nothing may be created at its target either */
	char dangling[512], target[512];
	snprintf(dangling, sizeof dangling, "%s", tu_scratch_path("planted/dangling"));
	snprintf(target, sizeof target, "%s", tu_scratch_path("planted/target"));
	ck_assert_int_eq(symlink(target, dangling), 0);
	ck_assert_int_eq(outfile_append(&o, dangling, &created), -ELOOP);
	ck_assert_int_eq(outfile_create(&o, dangling), -ELOOP);
	ck_assert_int_eq(access(target, F_OK), -1);
	ck_assert_int_eq(entries(d), 3);
	ck_assert_ptr_nonnull(strstr(outfile_strerror(-ELOOP), "symbolic link"));
}
END_TEST

START_TEST(test_outfile_refuses_what_is_not_a_regular_file)
{
	dir_for("special");
	char fifo[512], sub[512];
	snprintf(fifo, sizeof fifo, "%s", tu_scratch_path("special/fifo"));
	snprintf(sub, sizeof sub, "%s", tu_scratch_path("special/sub"));
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	struct outfile o;
	int created;
	/* a FIFO must neither hang the open nor be written */
	ck_assert_int_eq(outfile_append(&o, fifo, &created), -EINVAL);
	ck_assert_int_eq(outfile_create(&o, fifo), -EINVAL);
	ck_assert_int_eq(outfile_append(&o, sub, &created), -EISDIR);
	ck_assert_int_eq(outfile_check(sub), -EISDIR);
	ck_assert_int_eq(outfile_check(""), -ENOENT);
	ck_assert_int_eq(outfile_append(&o, "/dev/null", &created), -EINVAL);
	ck_assert_str_eq(outfile_strerror(-EINVAL), "not a regular file");
}
END_TEST

START_TEST(test_outfile_append_keeps_content_and_refuses_second_link)
{
	dir_for("append");
	char path[512];
	snprintf(path, sizeof path, "%s", tu_scratch_path("append/a.csv"));
	struct outfile o;
	int created;
	ck_assert_int_eq(outfile_append(&o, path, &created), 0);
	ck_assert_int_eq(created, 1);
	ck_assert_int_eq(write(o.fd, "one\n", 4), 4);
	outfile_close(&o);
	ck_assert_int_eq(outfile_append(&o, path, &created), 0);
	ck_assert_int_eq(created, 0);
	ck_assert_int_eq(write(o.fd, "two\n", 4), 4);
	outfile_close(&o);
	outfile_close(&o); /* twice is safe */
	assert_content(path, "one\ntwo\n");
	/* a hard link made to someone's file: appending would write into it */
	ck_assert_int_eq(link(path, tu_scratch_path("append/other")), 0);
	ck_assert_int_eq(outfile_append(&o, path, &created), -EMLINK);
	assert_content(path, "one\ntwo\n");
}
END_TEST

START_TEST(test_outfile_makes_no_directory)
{
	const char *d = dir_for("nodir");
	struct outfile o;
	int created;
	ck_assert_int_eq(outfile_create(&o, tu_scratch_path("nodir/missing/x.csv")), -ENOENT);
	ck_assert_int_eq(outfile_append(&o, tu_scratch_path("nodir/missing/x.csv"), &created), -ENOENT);
	ck_assert_int_eq(outfile_check(tu_scratch_path("nodir/missing/x.csv")), -ENOENT);
	ck_assert_int_eq(entries(d), 0);
	ck_assert_int_eq(outfile_check(tu_scratch_path("nodir/x.csv")), 0);
	ck_assert_int_eq(entries(d), 0);
}
END_TEST

/* killed while writing (SIGKILL: no handler runs): no temporary file is left */
START_TEST(test_outfile_killed_writer_leaves_nothing)
{
	const char *d = dir_for("killed");
	char path[512];
	snprintf(path, sizeof path, "%s", tu_scratch_path("killed/store.csv"));
	ck_assert_int_eq(tu_write_file(path, "old\n", 4), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct outfile o;
		if (outfile_create(&o, path) || write(o.fd, "half", 4) != 4)
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_content(path, "old\n");
	ck_assert_int_eq(entries(d), 1);
}
END_TEST

Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(tc, test_outfile_replaces_the_file_whole_by_rename);
	tcase_add_test(tc, test_outfile_never_writes_through_a_planted_symlink);
	tcase_add_test(tc, test_outfile_refuses_what_is_not_a_regular_file);
	tcase_add_test(tc, test_outfile_append_keeps_content_and_refuses_second_link);
	tcase_add_test(tc, test_outfile_makes_no_directory);
	tcase_add_test(tc, test_outfile_killed_writer_leaves_nothing);
	suite_add_tcase(s, tc);
	return s;
}
