/* testutil.h - running the real binaries from tests */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* tu_bin - path of a built program: $DISPLACE_BIN/name (default bin/name) */
const char *tu_bin(const char *name);

/*
 * tu_run - run argv[0] with argv, stdin from /dev/null, and collect stdout
 * (and stderr, if err is not NULL) up to len - 1 bytes each. Returns the
 * exit status, 128 + signal, or -1 if it could not be started.
 */
int tu_run(char *const argv[], char *out, size_t len, char *err, size_t errlen);

/*
 * tu_start - start argv with a pipe on its stdin and one on its stdout;
 * *in_fd is the write end of stdin, *out_fd the read end of stdout.
 */
pid_t tu_start(char *const argv[], int *in_fd, int *out_fd);
/* tu_read_all - read fd to EOF into buf (NUL-terminated); bytes read */
size_t tu_read_all(int fd, char *buf, size_t len);
/* tu_wait - wait for pid; exit status or 128 + signal */
int tu_wait(pid_t pid);
/*
 * tu_interrupt_json - send sig (named signame) to a displace started by
 * tu_start, read its output into out, close its fds, and check that it
 * exited 1 with a JSON result marked interrupted by that signal; the
 * parsed document (a json_t *, for the caller to json_decref)
 */
void *tu_interrupt_json(pid_t pid, int in, int outfd, int sig, const char *signame, char *out, size_t len);
/*
 * tu_start_hog - a child that spins, normal class, pinned to cpu, for at
 * most 60 s; end it with tu_stop_hog. Its pid.
 */
pid_t tu_start_hog(int cpu);
/*
 * tu_start_neighbour - like tu_start_hog, but busy only duty_pct % of every
 * 10 ms by the wall clock and asleep the rest: a process that shares the CPU
 * (a hog is a neighbour busy 100 %)
 */
pid_t tu_start_neighbour(int cpu, int duty_pct);
/* tu_stop_hog - kill and reap a hog (or a neighbour) */
void tu_stop_hog(pid_t pid);
/* tu_kv - the value of "key=" in a line of key=value fields, copied to buf; NULL if absent or too long (report_field) */
const char *tu_kv(const char *line, const char *key, char *buf, size_t len);
/* tu_mkdtemp - a fresh temporary directory (static buffer) */
const char *tu_mkdtemp(void);
/* tu_rmtree - remove dir and everything under it; 0 or -1 */
int tu_rmtree(const char *dir);
/* tu_write_file - create or truncate path with len bytes of data; 0 or -errno */
int tu_write_file(const char *path, const void *data, size_t len);

/* A CSV file read whole through csvio_read: row 0 is the header. */
struct tu_csv {
	size_t nrows;
	size_t *nfields;
	char ***field;
};
/* tu_csv_load - read path into t; 0 or csvio_read's error (the line in *err_line) */
int tu_csv_load(const char *path, struct tu_csv *t, unsigned long *err_line);
/* tu_csv_get - the field of row in the column the header names name; NULL if there is none */
const char *tu_csv_get(const struct tu_csv *t, size_t row, const char *name);
/* tu_csv_free - free what tu_csv_load allocated */
void tu_csv_free(struct tu_csv *t);
/* tu_read_file - the first len - 1 bytes of path, NUL-terminated; bytes read or -1 */
long tu_read_file(const char *path, char *buf, size_t len);
/* tu_file_lines - the lines of the file at path (its first MB), 0 if it cannot be read */
int tu_file_lines(const char *path);
/* tu_count_lines - lines of text that begin with prefix */
int tu_count_lines(const char *text, const char *prefix);
/*
 * tu_expect_error - run argv and assert: exit status want, nothing on
 * stdout, one error line on stderr ("displace: ...") with msg in it. For a
 * usage error (2) stderr holds that line and the hint to --help only; other
 * failures may have warned first ("displace: warning: ...").
 */
void tu_expect_error(int want, const char *msg, char **argv);

/*
 * A directory per test case, also its XDG_CACHE_HOME, so that no saved
 * calibration of the user's is read and stderr holds only what the command
 * under test says: tu_case_dir_setup and tu_case_dir_teardown are a Check
 * checked fixture; tu_case_path names a file in it.
 */
void tu_case_dir_setup(void);
void tu_case_dir_teardown(void);
const char *tu_case_path(const char *name);

/*
 * A scratch directory for a test case that leaves the environment alone:
 * tu_scratch_setup and tu_scratch_teardown are a Check unchecked fixture
 * (made once before the case's tests and removed after them);
 * tu_scratch_path names a file in it.
 */
void tu_scratch_setup(void);
void tu_scratch_teardown(void);
const char *tu_scratch_path(const char *name);

#endif
