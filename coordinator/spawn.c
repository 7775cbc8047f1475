/* spawn.c - child processes on the coordinator's uv loop, with their output captured */
#include "coordinator/spawn.h"
#include "common/dclock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void maybe_done(struct child *c)
{
	if (c->done || !c->exited || !c->out_eof || !c->err_eof)
		return;
	c->done = 1;
	if (c->on_done)
		c->on_done(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	static char slab[65536];
	(void)h;
	(void)suggested;
	buf->base = slab;
	buf->len = sizeof slab;
}

static int buf_append(struct child_buf *b, const char *p, size_t n)
{
	/* reports are one line; a runaway child must not eat all memory */
	const size_t limit = 16u << 20;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (cap > limit)
			return -ENOBUFS;
		char *np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct child *c = s->data;
	int is_out = s == (uv_stream_t *)&c->out;
	if (n > 0) {
		buf_append(is_out ? &c->outb : &c->errb, buf->base, (size_t)n);
		if (is_out && c->on_line && c->outb.p) {
			/* hand over each complete new line */
			char *nl;
			while ((nl = memchr(c->outb.p + c->line_seen, '\n', c->outb.len - c->line_seen))) {
				c->line_seen = (size_t)(nl - c->outb.p) + 1;
				c->on_line(c);
			}
		}
		return;
	}
	if (n == 0)
		return;
	uv_read_stop(s);
	if (is_out)
		c->out_eof = 1;
	else
		c->err_eof = 1;
	maybe_done(c);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct child *c = p->data;
	c->running = 0;
	c->exited = 1;
	c->exit_status = status;
	c->term_signal = sig;
	c->exit_ns = dclock_raw_ns();
	maybe_done(c);
}

int child_spawn(uv_loop_t *loop, struct child *c, const char *name, char *const argv[], child_fn on_done, void *data)
{
	memset(c, 0, sizeof *c);
	c->name = name;
	c->on_done = on_done;
	c->data = data;
	uv_pipe_init(loop, &c->in, 0);
	uv_pipe_init(loop, &c->out, 0);
	uv_pipe_init(loop, &c->err, 0);
	c->in.data = c->out.data = c->err.data = c->proc.data = c;
	c->open_handles = 3;
	uv_stdio_container_t io[3] = {
		{ .flags = UV_CREATE_PIPE | UV_READABLE_PIPE, .data.stream = (uv_stream_t *)&c->in },
		{ .flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&c->out },
		{ .flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&c->err },
	};
	uv_process_options_t o = {
		.exit_cb = on_exit_cb,
		.file = argv[0],
		.args = (char **)argv,
		.stdio_count = 3,
		.stdio = io,
	};
	int rc = uv_spawn(loop, &c->proc, &o);
	if (rc) {
		/* uv_spawn initialised the process handle; it must be closed too */
		c->open_handles++;
		c->exited = c->out_eof = c->err_eof = c->done = 1;
		return rc;
	}
	c->open_handles++;
	c->running = 1;
	uv_read_start((uv_stream_t *)&c->out, on_alloc, on_read);
	uv_read_start((uv_stream_t *)&c->err, on_alloc, on_read);
	return 0;
}

void child_close_stdin(struct child *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->in)) {
		c->in.data = c;
		uv_close((uv_handle_t *)&c->in, NULL);
		c->open_handles--;
	}
}

void child_kill(struct child *c, int sig)
{
	if (c->running)
		uv_process_kill(&c->proc, sig);
}

static void on_closed(uv_handle_t *h)
{
	struct child *c = h->data;
	if (c && --c->open_handles == 0) {
		free(c->outb.p);
		free(c->errb.p);
		c->outb.p = c->errb.p = NULL;
	}
}

void child_release(struct child *c)
{
	uv_handle_t *hs[] = { (uv_handle_t *)&c->in, (uv_handle_t *)&c->out, (uv_handle_t *)&c->err,
			      (uv_handle_t *)&c->proc };
	if (c->running)
		uv_process_kill(&c->proc, SIGKILL);
	for (size_t i = 0; i < 4; i++)
		if (hs[i]->loop && !uv_is_closing(hs[i]))
			uv_close(hs[i], on_closed);
}

void child_status_text(const struct child *c, char *buf, size_t len)
{
	if (c->term_signal)
		snprintf(buf, len, "killed by %s", sigabbrev_np(c->term_signal) ? sigabbrev_np(c->term_signal) : "a signal");
	else
		snprintf(buf, len, "exit %lld", (long long)c->exit_status);
}

const char *child_last_line(struct child_buf *b, const char *prefix)
{
	if (!b->p)
		return NULL;
	char *line = NULL;
	for (char *p = b->p; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!strncmp(p, prefix, strlen(prefix)))
			line = p;
		p = nl ? nl + 1 : NULL;
	}
	if (line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
	}
	return line;
}

const char *child_first_err_line(struct child *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->errb.p)
		snprintf(buf, len, "%.*s", (int)strcspn(c->errb.p, "\n"), c->errb.p);
	return buf;
}
