/* spawn.h - child processes on the coordinator's uv loop, with their output captured */
#ifndef SPAWN_H
#define SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct child;
typedef void (*child_fn)(struct child *c);

struct child_buf {
	char *p;
	size_t len, cap;
};

struct child {
	const char *name;      /* for messages: "fluid", "put", "peer" */
	uv_process_t proc;
	uv_pipe_t in, out, err;
	struct child_buf outb, errb;
	size_t line_seen;      /* stdout bytes already passed to on_line */
	int running;           /* spawned and not yet exited */
	int exited, out_eof, err_eof, done;
	int64_t exit_status;
	int term_signal;
	uint64_t exit_ns;      /* CLOCK_MONOTONIC_RAW when the exit was seen */
	int open_handles;      /* handles not yet closed */
	child_fn on_done;      /* exited and both pipes at EOF */
	child_fn on_line;      /* optional: a new stdout line arrived (the last in outb) */
	void *data;
};

/*
 * child_spawn - start argv[0] (a path) with piped stdin, stdout and stderr.
 * on_done runs once it has exited and its output has all been read.
 * 0 or a negative libuv/errno code.
 */
int child_spawn(uv_loop_t *loop, struct child *c, const char *name, char *const argv[], child_fn on_done, void *data);
/* child_close_stdin - EOF on the child's stdin (how a fluid is told to stop) */
void child_close_stdin(struct child *c);
/* child_kill - send sig if it is still running */
void child_kill(struct child *c, int sig);
/* child_release - close every handle; run the loop afterwards to let them close */
void child_release(struct child *c);
/* child_status_text - "exit 3", "killed by SIGSEGV", for messages */
void child_status_text(const struct child *c, char *buf, size_t len);
/* child_last_line - the last non-empty line of a buffer (e.g. a report), NUL-terminated in place */
const char *child_last_line(struct child_buf *b, const char *prefix);
/* child_first_err_line - the first line the child wrote to stderr, or "" */
const char *child_first_err_line(struct child *c, char *buf, size_t len);

#endif
