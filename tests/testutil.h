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
/* tu_kv - the value of "key=" in a line of key=value fields, copied to buf; NULL if absent */
const char *tu_kv(const char *line, const char *key, char *buf, size_t len);
/* tu_mkdtemp - a fresh temporary directory (static buffer) */
const char *tu_mkdtemp(void);
/* tu_rmtree - remove dir and everything under it; 0 or -1 */
int tu_rmtree(const char *dir);
/* tu_write_file - create or truncate path with len bytes of data; 0 or -errno */
int tu_write_file(const char *path, const void *data, size_t len);

#endif
