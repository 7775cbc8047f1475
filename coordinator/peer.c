/* peer.c - the local peer: 'put serve' started by measure, sweep and predict */
#include "coordinator/peer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wait_ready {
	struct peer *p;
	int ready;
	uv_timer_t timer;
	int timed_out;
};

static void parse_ready(struct peer *p, const char *line)
{
	const struct {
		const char *key;
		char *dst;
		size_t len;
	} f[] = {
		{ "tcp=", p->tcp, sizeof p->tcp },
		{ "udp=", p->udp, sizeof p->udp },
		{ "unix=", p->unix_path, sizeof p->unix_path },
		{ "rpc=", p->rpc, sizeof p->rpc },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		const char *v = strstr(line, f[i].key);
		if (v) {
			v += strlen(f[i].key);
			snprintf(f[i].dst, f[i].len, "%.*s", (int)strcspn(v, " \n"), v);
		}
	}
}

static void on_line(struct child *c)
{
	struct wait_ready *w = c->data;
	const char *line = child_last_line(&c->outb, "serve ready ");
	if (line && !w->ready) {
		parse_ready(w->p, line);
		w->ready = 1;
		uv_timer_stop(&w->timer);
		/* from now on the peer must not keep the loop alive on its own */
		uv_unref((uv_handle_t *)&c->proc);
		uv_unref((uv_handle_t *)&c->out);
		uv_unref((uv_handle_t *)&c->err);
		uv_unref((uv_handle_t *)&c->in);
	}
}

static void on_done(struct child *c)
{
	struct wait_ready *w = c->data;
	uv_timer_stop(&w->timer);
}

static void on_timeout(uv_timer_t *t)
{
	struct wait_ready *w = t->data;
	w->timed_out = 1;
	child_kill(&w->p->c, SIGKILL);
}

int peer_start(struct exp_env *e, struct peer *p, int cpu, char *err, size_t errlen)
{
	static struct wait_ready w;
	char cpu_s[16], sock[128];
	memset(p, 0, sizeof *p);
	p->cpu = cpu;
	snprintf(p->dir, sizeof p->dir, "/tmp/displace-peer-XXXXXX");
	if (!mkdtemp(p->dir)) {
		snprintf(err, errlen, "cannot make a directory for the peer's unix socket: %s", strerror(errno));
		return -errno;
	}
	snprintf(sock, sizeof sock, "%s/peer.sock", p->dir);
	snprintf(cpu_s, sizeof cpu_s, "%d", cpu);
	char *argv[] = { e->put_path, "serve", "--cpu", cpu_s, "--listen", "127.0.0.1:0", "--unix", sock, NULL };
	memset(&w, 0, sizeof w);
	w.p = p;
	uv_timer_init(&e->loop, &w.timer);
	w.timer.data = &w;
	int rc = child_spawn(&e->loop, &p->c, "peer", argv, on_done, &w);
	if (rc) {
		snprintf(err, errlen, "cannot start the peer '%s serve': %s", e->put_path, uv_strerror(rc));
		child_release(&p->c);
		uv_close((uv_handle_t *)&w.timer, NULL);
		uv_run(&e->loop, UV_RUN_DEFAULT);
		rmdir(p->dir);
		return -ENOEXEC;
	}
	p->c.on_line = on_line;
	p->started = 1;
	e->peer = &p->c;
	uv_timer_start(&w.timer, on_timeout, 10000, 0);
	/* until it is ready (or gone) the peer's handles keep this loop running */
	while (!w.ready && !p->c.done && !w.timed_out && !e->interrupted)
		uv_run(&e->loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&w.timer, NULL);
	uv_run(&e->loop, UV_RUN_NOWAIT);
	if (w.ready && !p->c.done)
		return 0;
	char line1[256], st[64];
	child_first_err_line(&p->c, line1, sizeof line1);
	child_status_text(&p->c, st, sizeof st);
	if (e->interrupted)
		snprintf(err, errlen, "interrupted");
	else if (w.timed_out)
		snprintf(err, errlen, "the peer did not get ready within 10 s");
	else
		snprintf(err, errlen, "the peer failed (%s)%s%s", st, line1[0] ? ": " : "", line1);
	int code = p->c.exit_status == 3 ? -EADDRINUSE : -ECHILD;
	peer_stop(e, p);
	return e->interrupted ? -EINTR : code;
}

const char *peer_addr(const struct peer *p, const char *kind)
{
	if (!strcmp(kind, "tcp"))
		return p->tcp;
	if (!strcmp(kind, "udp"))
		return p->udp;
	if (!strcmp(kind, "unix"))
		return p->unix_path;
	if (!strcmp(kind, "rpc"))
		return p->rpc;
	return NULL;
}

int peer_pid(const struct peer *p)
{
	return p->started ? p->c.proc.pid : 0;
}

int peer_alive(const struct peer *p)
{
	return p->started && p->c.running;
}

void peer_stop(struct exp_env *e, struct peer *p)
{
	if (!p->started)
		return;
	if (e->peer == &p->c)
		e->peer = NULL;
	child_close_stdin(&p->c);
	child_kill(&p->c, SIGTERM);
	/* wait (briefly, with the handles counted again) for it to go */
	uv_ref((uv_handle_t *)&p->c.proc);
	for (int i = 0; i < 200 && p->c.running; i++) {
		uv_run(&e->loop, UV_RUN_NOWAIT);
		usleep(5000);
	}
	child_release(&p->c);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	char sock[192];
	snprintf(sock, sizeof sock, "%s/peer.sock", p->dir);
	unlink(sock);
	rmdir(p->dir);
	p->started = 0;
}
