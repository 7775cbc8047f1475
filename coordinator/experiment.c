/*
 * experiment.c - one run on the coordinator's uv loop: fluids alone
 * (calibration, Woodside step 1) or beside the process under test (step 2).
 *
 * The fluid and the PUT do plain blocking work; only the coordinator has
 * an event loop. Every child is started with pipes, dies with its parent
 * (PR_SET_PDEATHSIG, set by the child), and is stopped on SIGINT, SIGTERM
 * or SIGHUP (a closed terminal), which the commands then report as an
 * interruption.
 */
#include "coordinator/experiment.h"
#include "coordinator/context.h"
#include "common/dclock.h"
#include "common/pin.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void track(struct exp_env *e, struct child *c)
{
	if (e->nactive < (int)(sizeof e->active / sizeof e->active[0]))
		e->active[e->nactive++] = c;
}

static void stop_all(struct exp_env *e)
{
	for (int i = 0; i < e->nactive; i++) {
		struct child *c = e->active[i];
		if (!c->running)
			continue;
		if (!strcmp(c->name, "fluid")) {
			child_close_stdin(c);
			child_kill(c, SIGTERM);
		} else {
			child_kill(c, SIGKILL);
		}
	}
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct exp_env *e = h->data;
	if (!e->interrupted)
		e->signal = sig;
	e->interrupted = 1;
	stop_all(e);
}

int exp_find_helper(const char *name, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -errno;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	/* the build tree keeps helpers next to displace; an install, in libexec */
	int w = snprintf(out, len, "%s/%s", self, name);
	if (w > 0 && (size_t)w < len && access(out, X_OK) == 0)
		return 0;
	w = snprintf(out, len, "%s/../libexec/displace/%s", self, name);
	if (w > 0 && (size_t)w < len && access(out, X_OK) == 0)
		return 0;
	return -ENOENT;
}

int exp_env_init(struct exp_env *e, char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	e->coordinator_cpu = -1;
	if (exp_find_helper("fluid", e->fluid_path, sizeof e->fluid_path) ||
	    exp_find_helper("put", e->put_path, sizeof e->put_path)) {
		snprintf(err, errlen, "cannot find the helpers 'fluid' and 'put' next to displace or in "
				      "../libexec/displace; rebuild with 'make' or reinstall");
		return -ENOENT;
	}
	int rc = uv_loop_init(&e->loop);
	if (rc) {
		snprintf(err, errlen, "cannot start the event loop: %s", uv_strerror(rc));
		return -ENOMEM;
	}
	static const int sigs[EXP_NSIGNALS] = { SIGINT, SIGTERM, SIGHUP };
	for (int i = 0; i < EXP_NSIGNALS; i++) {
		uv_signal_init(&e->loop, &e->sig[i]);
		e->sig[i].data = e;
		uv_signal_start(&e->sig[i], on_signal, sigs[i]);
		/* the signal watchers must not keep uv_run alive on their own */
		uv_unref((uv_handle_t *)&e->sig[i]);
	}
	return 0;
}

void exp_env_fini(struct exp_env *e)
{
	for (int i = 0; i < EXP_NSIGNALS; i++)
		uv_close((uv_handle_t *)&e->sig[i], NULL);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	uv_loop_close(&e->loop);
}

int exp_pin_coordinator(struct exp_env *e, const struct cli_cpus *measured, const struct cli_cpus *online)
{
	int fallback = -1;
	for (int i = 0; i < online->n; i++) {
		int cpu = online->cpu[i];
		if (cli_cpus_contains(measured, cpu))
			continue;
		int sibling = 0;
		for (int k = 0; k < measured->n && !sibling; k++) {
			struct cli_cpus sib;
			context_cpu_siblings(measured->cpu[k], &sib);
			sibling = cli_cpus_contains(&sib, cpu);
		}
		if (sibling) {
			if (fallback < 0)
				fallback = cpu;
			continue;
		}
		fallback = cpu;
		break;
	}
	if (fallback >= 0 && pin_to_cpu(fallback))
		fallback = -1;
	e->coordinator_cpu = fallback;
	return fallback;
}

void exp_fluid_argv(const char *fluid_path, const struct exp_fluid_opts *o, int cpu, uint64_t run_ns, char **argv,
		    char bufs[][32])
{
	int k = 0;
	argv[k++] = (char *)fluid_path;
	argv[k++] = "--cpu";
	snprintf(bufs[0], 32, "%d", cpu);
	argv[k++] = bufs[0];
	argv[k++] = "--sched";
	argv[k++] = (char *)o->sched;
	argv[k++] = "--chunk-loops";
	snprintf(bufs[1], 32, "%" PRIu64, o->chunk_loops);
	argv[k++] = bufs[1];
	if (run_ns) {
		argv[k++] = "--seconds";
		snprintf(bufs[2], 32, "%" PRIu64 "ns", run_ns);
		argv[k++] = bufs[2];
	}
	if (o->clock_res_ns > 1) {
		argv[k++] = "--clock-resolution";
		snprintf(bufs[3], 32, "%" PRIu64 "ns", o->clock_res_ns);
		argv[k++] = bufs[3];
		argv[k++] = "--clock-phase";
		snprintf(bufs[4], 32, "%" PRIu64 "ns", o->clock_phase_ns);
		argv[k++] = bufs[4];
	}
	if (o->ready)
		argv[k++] = "--ready";
	argv[k] = NULL;
}

static int collect_fluid(struct child *c, struct fluid_report *r, char *err, size_t errlen)
{
	char st[64], line1[256], why[128];
	if (c->exit_status != 0 || c->term_signal) {
		child_status_text(c, st, sizeof st);
		child_first_err_line(c, line1, sizeof line1);
		snprintf(err, errlen, "the fluid failed (%s)%s%s", st, line1[0] ? ": " : "", line1);
		return -ECHILD;
	}
	const char *line = child_last_line(&c->outb, "fluid cpu=");
	if (!line) {
		snprintf(err, errlen, "the fluid wrote no report");
		return -EBADMSG;
	}
	if (report_parse_fluid(line, r, why, sizeof why)) {
		snprintf(err, errlen, "cannot parse the fluid's report: %s", why);
		return -EBADMSG;
	}
	return 0;
}

int exp_run_fluids(struct exp_env *e, const struct cli_cpus *cpus, const struct exp_fluid_opts *o, uint64_t run_ns,
		   struct fluid_report *reports, char *err, size_t errlen)
{
	static struct child kids[EXP_MAX_CPUS];
	int n = cpus->n < EXP_MAX_CPUS ? cpus->n : EXP_MAX_CPUS, rc = 0;
	if (e->interrupted)
		return -EINTR;
	e->nactive = 0;
	for (int i = 0; i < n; i++) {
		char *argv[16], bufs[5][32];
		exp_fluid_argv(e->fluid_path, o, cpus->cpu[i], run_ns, argv, bufs);
		int s = child_spawn(&e->loop, &kids[i], "fluid", argv, NULL, NULL);
		if (s) {
			snprintf(err, errlen, "cannot start the fluid '%s': %s", e->fluid_path, uv_strerror(s));
			rc = -ENOEXEC;
			n = i + 1;
			break;
		}
		track(e, &kids[i]);
	}
	if (rc)
		stop_all(e);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	for (int i = 0; i < n && !rc && !e->interrupted; i++) {
		rc = collect_fluid(&kids[i], &reports[i], err, errlen);
		/* a timed calibration ends by time; any other stop came from outside */
		if (!rc && run_ns && strcmp(reports[i].stop, "time")) {
			snprintf(err, errlen, "the fluid on CPU %d stopped early (stop=%s, not its time limit): something outside stopped it",
				 cpus->cpu[i], reports[i].stop);
			rc = -ECHILD;
		}
	}
	for (int i = 0; i < n; i++)
		child_release(&kids[i]);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	e->nactive = 0;
	return e->interrupted ? -EINTR : rc;
}

/*
 * put's report, or why there is none: its exit status (128 + signal) in
 * *status, its first stderr line in line. 0, -ECHILD or -EBADMSG.
 */
/*
 * The local peer has exited: say so in buf, with its status. A client of
 * a dead peer only sees "connection refused"; this says why.
 */
static int peer_gone(struct exp_env *e, char *buf, size_t len)
{
	char st[64];
	if (!e->peer)
		return 0;
	uv_run(&e->loop, UV_RUN_NOWAIT); /* an exit not yet reaped */
	if (e->peer->running)
		return 0;
	child_status_text(e->peer, st, sizeof st);
	snprintf(buf, len, "the local peer 'put serve' (pid %d) exited (%s)", e->peer->proc.pid, st);
	return 1;
}

/*
 * Before a run: the local peer is gone, so no put could reach it; -ECHILD
 * with the message, and *put_exit as for a put that cannot reach its
 * peer (3: a resource is gone). 0 if it runs (or there is none).
 */
static int peer_check(struct exp_env *e, int *put_exit, char *err, size_t errlen)
{
	char gone[160];
	if (!peer_gone(e, gone, sizeof gone))
		return 0;
	snprintf(err, errlen, "%s: no run can reach it", gone);
	*put_exit = 3;
	return -ECHILD;
}

static int collect_put(struct exp_env *e, struct child *p, struct put_report *rep, int *status, char *line1,
		       size_t line1len, char *err, size_t errlen)
{
	*status = p->term_signal ? 128 + p->term_signal : (int)p->exit_status;
	if (*status) {
		char st[64], gone[160];
		child_first_err_line(p, line1, line1len);
		child_status_text(p, st, sizeof st);
		if (peer_gone(e, gone, sizeof gone)) {
			snprintf(err, errlen, "%s, so the process under test failed (%s)%s%s", gone, st,
				 line1[0] ? ": " : "", line1);
			*status = 3; /* whatever put made of it, the cause is a resource gone */
		} else {
			snprintf(err, errlen, "the process under test failed (%s)%s%s", st, line1[0] ? ": " : "",
				 line1);
		}
		return -ECHILD;
	}
	char why[128];
	const char *line = child_last_line(&p->outb, "put ");
	if (!line || report_parse_put(line, rep, why, sizeof why)) {
		snprintf(err, errlen, "cannot parse put's report: %s", line ? why : "no report");
		return -EBADMSG;
	}
	return 0;
}

/* --- the co-run ------------------------------------------------------------ */

struct corun {
	struct exp_env *e;
	const struct exp_corun_spec *s;
	struct exp_corun_result *r;
	struct child fluids[EXP_MAX_CPUS];
	struct child put;
	int nfluid;
	uv_timer_t lead, limit;
	int ready[EXP_MAX_CPUS], nready; /* the fluids whose windows have started */
	int put_started, put_done, timed_out;
	int not_ready; /* 1 + the first fluid whose window had not begun by EXP_READY_NS */
	int stopping;   /* the coordinator told the fluids to stop */
	int fluid_lost; /* 1 + the index of a fluid that ended before that */
	int spawn_err;
	char *put_argv[64];
};

static void stop_fluids(struct corun *cr)
{
	cr->stopping = 1;
	for (int i = 0; i < cr->nfluid; i++) {
		child_close_stdin(&cr->fluids[i]);
		child_kill(&cr->fluids[i], SIGTERM);
	}
	uv_timer_stop(&cr->limit);
}

/*
 * A fluid that ends before it was told to was stopped or killed from
 * outside: its report (if any) covers part of the run only. End the run.
 */
static void on_fluid_done(struct child *c)
{
	struct corun *cr = c->data;
	if (cr->stopping)
		return;
	cr->fluid_lost = 1 + (int)(c - cr->fluids);
	uv_timer_stop(&cr->lead);
	if (cr->put_started && !cr->put_done)
		child_kill(&cr->put, SIGKILL);
	stop_fluids(cr);
}

static void on_lead_out(uv_timer_t *t)
{
	stop_fluids(t->data);
}

static void on_put_done(struct child *c)
{
	struct corun *cr = c->data;
	cr->put_done = 1;
	cr->r->put_exit_ns = c->exit_ns;
	if (cr->e->interrupted) {
		stop_fluids(cr); /* and the limit timer, or the loop would wait for it */
		return;
	}
	uv_timer_start(&cr->lead, on_lead_out, cr->s->lead_out_ns / 1000000, 0);
}

static void on_lead_in(uv_timer_t *t)
{
	struct corun *cr = t->data;
	if (cr->e->interrupted) {
		stop_fluids(cr);
		return;
	}
	cr->r->put_spawn_ns = dclock_raw_ns();
	int rc = child_spawn(&cr->e->loop, &cr->put, "put", cr->put_argv, on_put_done, cr);
	if (rc) {
		cr->spawn_err = rc;
		stop_fluids(cr);
		return;
	}
	cr->put_started = 1;
	track(cr->e, &cr->put);
}

static void on_limit(uv_timer_t *t)
{
	struct corun *cr = t->data;
	if (cr->nready < cr->nfluid) {
		while (cr->ready[cr->not_ready])
			cr->not_ready++;
		cr->not_ready++; /* 1 + the first fluid not ready */
	} else {
		cr->timed_out = 1;
	}
	if (cr->put_started)
		child_kill(&cr->put, SIGKILL);
	stop_fluids(cr);
}

/*
 * A fluid's first line says its window starts (fluid --ready). The PUT
 * starts a lead-in after every fluid's has: a SCHED_IDLE fluid still
 * setting up when the PUT starts spinning gets no CPU until the PUT ends,
 * and its window would miss the whole run (1 run in 120 of a spin beside
 * a busy neighbour read -87 µs per op so).
 */
static void on_fluid_line(struct child *c)
{
	struct corun *cr = c->data;
	int i = (int)(c - cr->fluids);
	if (cr->stopping || cr->ready[i] || !fluid_said_ready(c->outb.p))
		return;
	cr->ready[i] = 1;
	if (++cr->nready < cr->nfluid)
		return;
	uv_timer_start(&cr->lead, on_lead_in, cr->s->lead_in_ns / 1000000, 0);
	if (cr->s->max_ns)
		uv_timer_start(&cr->limit, on_limit, (cr->s->lead_in_ns + cr->s->max_ns) / 1000000, 0);
	else
		uv_timer_stop(&cr->limit);
}

/*
 * the first fluid whose window did not hold the PUT's whole run, from
 * before its spawn to after its exit; -1. Its start is before its "ready",
 * so what can still miss is the end: a fluid held off from just after its
 * last clock reading until past its stop
 */
static int fluid_missed_put(const struct exp_corun_result *r)
{
	for (int i = 0; i < r->nfluid; i++)
		if (!fluid_window_holds(&r->fluid[i], r->put_spawn_ns, r->put_exit_ns))
			return i;
	return -1;
}

int exp_corun(struct exp_env *e, const struct exp_corun_spec *s, struct exp_corun_result *r, char *err, size_t errlen)
{
	static struct corun cr;
	int rc = 0;
	memset(&cr, 0, sizeof cr);
	memset(r, 0, sizeof *r);
	if (e->interrupted)
		return -EINTR;
	if ((rc = peer_check(e, &r->put_exit, err, errlen)))
		return rc;
	cr.e = e;
	cr.s = s;
	cr.r = r;
	int k = 0;
	cr.put_argv[k++] = e->put_path;
	for (int i = 1; s->put_argv[i] && k < 63; i++)
		cr.put_argv[k++] = s->put_argv[i];
	cr.put_argv[k] = NULL;

	e->nactive = 0;
	r->have_stat = procfs_read_stat(&r->stat0) == 0;
	r->have_sirq = procfs_read_softirqs(&r->sirq0) == 0;
	r->have_irq = procfs_read_interrupts(&r->irq0) == 0;
	cr.nfluid = s->cpus->n < EXP_MAX_CPUS ? s->cpus->n : EXP_MAX_CPUS;
	struct exp_fluid_opts fo = s->fluid;
	fo.ready = 1;
	for (int i = 0; i < cr.nfluid; i++) {
		char *argv[16], bufs[5][32];
		exp_fluid_argv(e->fluid_path, &fo, s->cpus->cpu[i], 0, argv, bufs);
		int sp = child_spawn(&e->loop, &cr.fluids[i], "fluid", argv, on_fluid_done, &cr);
		if (sp) {
			snprintf(err, errlen, "cannot start the fluid '%s': %s", e->fluid_path, uv_strerror(sp));
			cr.nfluid = i + 1;
			rc = -ENOEXEC;
			break;
		}
		cr.fluids[i].on_line = on_fluid_line; /* before the loop runs: no line is read yet */
		track(e, &cr.fluids[i]);
	}
	uv_timer_init(&e->loop, &cr.lead);
	uv_timer_init(&e->loop, &cr.limit);
	cr.lead.data = cr.limit.data = &cr;
	if (rc) {
		stop_fluids(&cr);
	} else if (!cr.nfluid) {
		/* alone: nothing to wait for (the limit first: a put that cannot start stops it) */
		if (s->max_ns)
			uv_timer_start(&cr.limit, on_limit, s->max_ns / 1000000, 0);
		on_lead_in(&cr.lead);
	} else {
		/* the lead-in starts once every fluid's window has (on_fluid_line) */
		uv_timer_start(&cr.limit, on_limit, EXP_READY_NS / 1000000, 0);
	}
	uv_run(&e->loop, UV_RUN_DEFAULT);
	r->have_stat = r->have_stat && procfs_read_stat(&r->stat1) == 0;
	r->have_sirq = r->have_sirq && procfs_read_softirqs(&r->sirq1) == 0;
	r->have_irq = r->have_irq && procfs_read_interrupts(&r->irq1) == 0;

	if (!rc && e->interrupted)
		rc = -EINTR;
	if (!rc && cr.spawn_err) {
		snprintf(err, errlen, "cannot start put '%s': %s", e->put_path, uv_strerror(cr.spawn_err));
		rc = -ENOEXEC;
	}
	if (!rc && cr.fluid_lost) {
		struct child *f = &cr.fluids[cr.fluid_lost - 1];
		struct fluid_report fr;
		/* a failure of its own says why (collect_fluid); a clean exit means a stop signal from outside */
		if (!collect_fluid(f, &fr, err, errlen))
			snprintf(err, errlen,
				 "the fluid on CPU %d ended before the run did (stopped by %s): something outside stopped it",
				 s->cpus->cpu[cr.fluid_lost - 1], strcmp(fr.stop, "stdin") ? "a signal" : "EOF on its stdin");
		rc = -ECHILD;
	}
	if (!rc && cr.not_ready) {
		snprintf(err, errlen, "the fluid on CPU %d did not begin its window within %.0f s (other tasks held that CPU?)",
			 s->cpus->cpu[cr.not_ready - 1], EXP_READY_NS / 1e9);
		rc = -ETIMEDOUT;
	}
	if (!rc && cr.timed_out) {
		snprintf(err, errlen, "the process under test ran longer than the time limit of %.1f s; it was stopped",
			 (double)s->max_ns / 1e9);
		rc = -ETIMEDOUT;
	}
	if (!rc && cr.put_started)
		rc = collect_put(e, &cr.put, &r->put, &r->put_exit, r->put_error, sizeof r->put_error, err, errlen);
	r->nfluid = cr.nfluid;
	for (int i = 0; i < cr.nfluid && !rc; i++)
		rc = collect_fluid(&cr.fluids[i], &r->fluid[i], err, errlen);
	int missed = !rc && cr.put_started ? fluid_missed_put(r) : -1;
	if (missed >= 0) {
		snprintf(err, errlen, "the fluid on CPU %d did not run through the whole run of the process under test",
			 s->cpus->cpu[missed]);
		rc = -EAGAIN;
	}
	for (int i = 0; i < cr.nfluid; i++)
		child_release(&cr.fluids[i]);
	if (cr.put_started || cr.spawn_err)
		child_release(&cr.put); /* a failed spawn leaves handles to close too */
	uv_close((uv_handle_t *)&cr.lead, NULL);
	uv_close((uv_handle_t *)&cr.limit, NULL);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	e->nactive = 0;
	return rc;
}

/* --- K clients at once, no fluid --------------------------------------------- */

struct clients {
	struct exp_env *e;
	struct child kids[EXP_MAX_CLIENTS];
	int n, done;
	uv_timer_t limit;
	int timed_out;
};

static void on_client_done(struct child *c)
{
	struct clients *cl = c->data;
	if (++cl->done == cl->n)
		uv_timer_stop(&cl->limit);
}

static void on_clients_limit(uv_timer_t *t)
{
	struct clients *cl = t->data;
	cl->timed_out = 1;
	for (int i = 0; i < cl->n; i++)
		child_kill(&cl->kids[i], SIGKILL);
}

/* the busy share of one CPU's ticks between two /proc/stat readings, NAN if unknown */
static double busy_share(const struct procfs_stat *a, const struct procfs_stat *b, int cpu)
{
	const struct procfs_cpu *x = procfs_stat_find(a, cpu), *y = procfs_stat_find(b, cpu);
	if (!x || !y)
		return NAN;
	uint64_t total = procfs_cpu_total(y) - procfs_cpu_total(x);
	return total ? (double)(procfs_cpu_busy(y) - procfs_cpu_busy(x)) / (double)total : NAN;
}

/*
 * one CPU's busy share of wall_ns, from the idle time between two readings
 * of /proc/timer_list, each after one of /proc/stat (sa, sb; NULL: not
 * read), which tells whether an idle period was open; outside is the time
 * of the readings' span that is not in wall_ns, taken to be idle (the
 * measured CPU before the clients start and after they end)
 */
static double idle_busy(const struct procfs_idle *a, const struct procfs_idle *b, const struct procfs_stat *sa,
			const struct procfs_stat *sb, int cpu, double wall_ns, double outside)
{
	long hz = sysconf(_SC_CLK_TCK);
	int64_t i0 = procfs_idle_ns(a, cpu, sa ? procfs_stat_find(sa, cpu) : NULL, hz);
	int64_t i1 = procfs_idle_ns(b, cpu, sb ? procfs_stat_find(sb, cpu) : NULL, hz);
	if (i0 < 0 || i1 < 0 || !(wall_ns > 0))
		return NAN;
	double idle = (double)(i1 - i0) - (outside > 0 ? outside : 0);
	double busy = 1 - (idle > 0 ? idle : 0) / wall_ns;
	return busy < 0 ? 0 : busy > 1 ? 1 : busy;
}

int exp_clients(struct exp_env *e, const struct exp_clients_spec *s, struct exp_clients_result *r, char *err,
		size_t errlen)
{
	static struct clients cl;
	static struct procfs_stat st0, st1;
	int rc = 0;
	memset(&cl, 0, sizeof cl);
	memset(r, 0, sizeof *r);
	if (e->interrupted)
		return -EINTR;
	if (s->k < 1 || s->k > EXP_MAX_CLIENTS) {
		snprintf(err, errlen, "%d clients: 1 to %d", s->k, EXP_MAX_CLIENTS);
		return -EINVAL;
	}
	if ((rc = peer_check(e, &r->put_exit, err, errlen)))
		return rc;
	/* every client waits after its set-up for the same start, so that all of them run the whole time */
	char *argv[64], start_arg[48];
	uint64_t start_mono = dclock_mono_ns() + EXP_CLIENTS_START_NS;
	int k = 0;
	argv[k++] = e->put_path;
	snprintf(start_arg, sizeof start_arg, "--start-at=%" PRIu64, start_mono);
	argv[k++] = start_arg;
	for (int i = 1; s->put_argv[i] && k < 63; i++)
		argv[k++] = s->put_argv[i];
	argv[k] = NULL;
	cl.e = e;
	e->nactive = 0;
	int have_stat = procfs_read_stat(&st0) == 0;
	static struct procfs_idle id0, id1;
	int have_idle = procfs_read_timer_list(&id0) == 0;
	uv_timer_init(&e->loop, &cl.limit);
	cl.limit.data = &cl;
	for (int i = 0; i < s->k; i++) {
		int sp = child_spawn(&e->loop, &cl.kids[i], "put", argv, on_client_done, &cl);
		if (sp) {
			snprintf(err, errlen, "cannot start client %d of %d ('%s'): %s", i + 1, s->k, e->put_path,
				 uv_strerror(sp));
			rc = sp == UV_EMFILE || sp == UV_ENFILE ? -EMFILE : -ENOEXEC;
			for (int j = 0; j < i; j++)
				child_kill(&cl.kids[j], SIGKILL);
			cl.n = i + 1; /* a failed spawn leaves handles to close too */
			break;
		}
		cl.n = i + 1;
		track(e, &cl.kids[i]);
	}
	if (!rc && s->max_ns)
		uv_timer_start(&cl.limit, on_clients_limit, s->max_ns / 1000000, 0);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	have_stat = have_stat && procfs_read_stat(&st1) == 0;
	have_idle = have_idle && procfs_read_timer_list(&id1) == 0;
	if (!rc && e->interrupted)
		rc = -EINTR;
	if (!rc && cl.timed_out) {
		snprintf(err, errlen, "the %d clients ran longer than the time limit of %.1f s; they were stopped", s->k,
			 (double)s->max_ns / 1e9);
		rc = -ETIMEDOUT;
	}
	uint64_t first = UINT64_MAX, last = 0;
	for (int i = 0; i < cl.n && !rc; i++) {
		struct put_report rep;
		rc = collect_put(e, &cl.kids[i], &rep, &r->put_exit, r->put_error, sizeof r->put_error, err, errlen);
		if (rc)
			break;
		r->ops += rep.ops;
		if (rep.start_ns < first)
			first = rep.start_ns;
		if (rep.end_ns > last)
			last = rep.end_ns;
		if (rep.task_clock_ns.avail)
			r->task_clock_ns += rep.task_clock_ns.v;
		else
			r->task_clock_ns = NAN;
	}
	if (!rc) {
		r->wall_ns = last > first ? (double)(last - first) : NAN;
		/*
		 * The CPUs' busy shares over the clients' loops: exact idle time from
		 * /proc/timer_list (root only), less the idle time before the start
		 * and after the last end; else /proc/stat's ticks over the whole run
		 */
		if (have_idle) {
			uint64_t span = id1.now_ns - id0.now_ns;
			double before_after = (double)span - r->wall_ns;
			const struct procfs_stat *sa = have_stat ? &st0 : NULL, *sb = have_stat ? &st1 : NULL;
			r->busy = idle_busy(&id0, &id1, sa, sb, s->cpu, r->wall_ns, before_after);
			r->peer_busy = s->peer_cpu >= 0 ? idle_busy(&id0, &id1, sa, sb, s->peer_cpu, r->wall_ns, before_after)
							: NAN;
		} else {
			r->busy = have_stat ? busy_share(&st0, &st1, s->cpu) : NAN;
			r->peer_busy = have_stat && s->peer_cpu >= 0 ? busy_share(&st0, &st1, s->peer_cpu) : NAN;
		}
	}
	for (int i = 0; i < cl.n; i++)
		child_release(&cl.kids[i]);
	uv_close((uv_handle_t *)&cl.limit, NULL);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	e->nactive = 0;
	return rc;
}
