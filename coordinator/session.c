/* session.c - what measure, sweep and predict set up before their runs and release after them */
#include "coordinator/session.h"
#include "calib/calibration.h"
#include "common/dclock.h"
#include "coordinator/clockprobe.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the reason in s->err; returns rc */
static int fail(struct session *s, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct session *s, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return rc;
}

int session_find_workload(struct session *s)
{
	if (!s->m.workload)
		return fail(s, -EINVAL, "no workload given; 'displace workloads' lists them");
	s->w = put_find(s->m.workload);
	if (!s->w)
		return fail(s, -EINVAL, "unknown workload '%s'; 'displace workloads' lists them", s->m.workload);
	const char *why = s->w->unavailable ? s->w->unavailable() : NULL;
	if (why)
		return fail(s, -ENOTSUP, "workload '%s' is not available in this build: %s", s->w->name, why);
	return 0;
}

/* like execvp: a name with a slash is a path, anything else is looked up in PATH */
static int command_found(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0 ? 0 : -errno;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int last = -ENOENT;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char buf[4096];
		if (n == 0)
			snprintf(buf, sizeof buf, "./%s", cmd);
		else
			snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, cmd);
		if (access(buf, X_OK) == 0)
			return 0;
		if (errno != ENOENT)
			last = -errno;
		p += n;
		if (*p == ':')
			p++;
	}
	return last;
}

/* the options that are not the workload's to choose alone; 0 or -EINVAL (err) */
static int check_conflicts(struct session *s, char **wargs, int nwargs, size_t nsizes)
{
	const struct opts *m = &s->m;
	struct series args;
	series_init(&args, s->w, wargs, nwargs, NULL, "");
	if (nsizes && series_has_arg(&args, "--size"))
		return fail(s, -EINVAL, "--size and --sizes exclude each other: give every size with --sizes");
	if (!s->w->peer && (m->peer_arg || m->peer_cpu_arg))
		return fail(s, -EINVAL, "%s has no peer: --%s is for the socket and RPC workloads", s->w->name,
			    m->peer_arg ? "peer" : "peer-cpu");
	if (m->peer_arg && m->peer_cpu_arg)
		return fail(s, -EINVAL, "--peer-cpu places the local peer, and --peer %s replaces it: give one", m->peer_arg);
	return 0;
}

int session_check_args(struct session *s, char **wargs, int nwargs, const uint64_t *sizes, size_t nsizes)
{
	int rc = check_conflicts(s, wargs, nwargs, nsizes);
	if (rc)
		return rc;
	if (s->m.flows > 1 && !(s->w->flags & PUT_FLOWS)) {
		char names[128];
		put_names(PUT_FLOWS, ", ", " or ", names, sizeof names);
		return fail(s, -EINVAL, "--flows is for the socket workloads (%s), not '%s'", names, s->w->name);
	}
	/*
	 * put's own parser, so that displace rejects exactly what put would,
	 * --flows included; with --peer ADDR as the runs will pass it, so a
	 * bad address is refused now, not after the calibrations
	 */
	char *argv[OPTS_MAX_WARGS + 3], peer[300], flows[32];
	int n = 0;
	for (int i = 0; i < nwargs && n < OPTS_MAX_WARGS; i++)
		argv[n++] = wargs[i];
	if (s->w->peer && s->m.peer_arg) {
		snprintf(peer, sizeof peer, "--peer=%s", s->m.peer_arg);
		argv[n++] = peer;
	}
	if (s->m.flows > 1) {
		snprintf(flows, sizeof flows, "--flows=%u", s->m.flows);
		argv[n++] = flows;
	}
	argv[n] = NULL;
	void *state = NULL;
	char err[512] = "";
	if (s->w->parse(n, argv, &state, err, sizeof err))
		return fail(s, -EINVAL, "%s: %s", s->w->name, err);
	for (size_t i = 0; i < nsizes && !rc; i++) {
		if (!(s->w->flags & PUT_SIZED) || !s->w->check_size) {
			char names[128];
			put_names(PUT_SIZED, ", ", " or ", names, sizeof names);
			rc = fail(s, -EINVAL, "%s has no message size to vary; use %s", s->w->name, names);
		}
		else if ((rc = s->w->check_size(state, sizes[i], err, sizeof err)))
			fail(s, -EINVAL, "%s: %s", s->w->name, err);
	}
	if (s->w->teardown)
		s->w->teardown(state);
	if (rc || !(s->w->flags & PUT_COMMAND))
		return rc;
	/* the command after the options and "--" */
	int i = 1;
	while (i < nwargs && strcmp(wargs[i], "--") && wargs[i][0] == '-')
		i += strchr(wargs[i], '=') ? 1 : 2;
	if (i < nwargs && !strcmp(wargs[i], "--"))
		i++;
	if (i < nwargs && (rc = command_found(wargs[i])))
		return fail(s, rc, "cannot execute '%s': %s", wargs[i], strerror(-rc));
	return 0;
}

/* the peer CPU: --peer-cpu N or same, else another CPU, not the measured CPU's SMT sibling */
static int choose_peer_cpu(struct session *s, int *cpu)
{
	const char *a = s->m.peer_cpu_arg;
	if (a && !strcmp(a, "same")) {
		*cpu = s->m.cpu;
		return 0;
	}
	if (a) {
		if (cli_parse_int(a, 0, CLI_MAX_CPUS - 1, cpu))
			return fail(s, -EINVAL, "invalid value '%s' for --peer-cpu (a CPU number or 'same')", a);
		if (!cli_cpus_contains(&s->ctx.online, *cpu))
			return fail(s, -EINVAL, "peer cpu %d is not online", *cpu);
		return 0;
	}
	struct cli_cpus sib;
	context_cpu_siblings(s->m.cpu, &sib);
	int fallback = -1;
	for (int i = 0; i < s->ctx.online.n; i++) {
		int c = s->ctx.online.cpu[i];
		if (c == s->m.cpu)
			continue;
		if (cli_cpus_contains(&sib, c)) {
			if (fallback < 0)
				fallback = c;
			continue;
		}
		*cpu = c;
		return 0;
	}
	*cpu = fallback >= 0 ? fallback : s->m.cpu;
	return 0;
}

/*
 * the fluid CPUs: --cpus, which must hold --cpu, or just --cpu. Without
 * --cpu the measured CPU is the first one --cpus names (the set is sorted,
 * so that is read from the text; "all" starts at the first online CPU).
 */
static int fluid_cpus(struct session *s, struct cli_cpus *cpus)
{
	struct opts *m = &s->m;
	if (!m->cpus_arg) {
		cpus->n = 1;
		cpus->cpu[0] = m->cpu;
		return 0;
	}
	if (cli_parse_cpulist(m->cpus_arg, &s->ctx.online, cpus))
		return fail(s, -EINVAL, "invalid CPU list '%s' for --cpus", m->cpus_arg);
	for (int i = 0; i < cpus->n; i++)
		if (!cli_cpus_contains(&s->ctx.online, cpus->cpu[i]))
			return fail(s, -EINVAL, "cpu %d in --cpus is not online", cpus->cpu[i]);
	if (!m->cpu_given) {
		char first[16];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(m->cpus_arg, ",-"), m->cpus_arg);
		if (cli_parse_int(first, 0, CLI_MAX_CPUS - 1, &m->cpu))
			m->cpu = cpus->cpu[0];
	}
	if (!cli_cpus_contains(cpus, m->cpu))
		return fail(s, -EINVAL, "--cpus %s must include the measured CPU %d (--cpu)", m->cpus_arg, m->cpu);
	if (cpus->n > EXP_MAX_CPUS)
		return fail(s, -EINVAL, "at most %d fluid CPUs", EXP_MAX_CPUS);
	return 0;
}

int session_setup(struct session *s)
{
	const struct opts *m = &s->m;
	int rc;
	context_read(&s->ctx);
	s->peer_cpu = s->coordinator_cpu = -1;
	struct seq_opts o;
	memset(&o, 0, sizeof o);
	/* first: without --cpu, the measured CPU comes from --cpus */
	if ((rc = fluid_cpus(s, &o.cpus)))
		return rc;
	if (!cli_cpus_contains(&s->ctx.online, m->cpu)) {
		char on[256];
		cli_format_cpulist(&s->ctx.online, on, sizeof on);
		return fail(s, -EINVAL, "cpu %d is not online (online: %s)", m->cpu, on);
	}
	if (m->remote_cpus_arg && !s->w->peer)
		return fail(s, -EINVAL, "--remote-cpus is for the workloads with a peer, not '%s'", s->w->name);
	if (m->remote_cpus_arg && !m->peer_arg)
		return fail(s, -EINVAL, "--remote-cpus needs --peer ADDR, a 'displace serve --fluid-cpus LIST' (the local "
					"peer runs no fluid: measure its CPU with --cpus)");
	if (m->remote_cpus_arg && m->clock_res_ns > 1)
		return fail(s, -EINVAL, "--remote-cpus and --clock-resolution exclude each other: the peer host's fluids "
					"keep the real clock");
	o.cpu = m->cpu;
	o.flows = m->flows > 1 ? (int)m->flows : 1;
	o.no_task_clock = !m->task_clock;
	/* the peer's CPU is checked now, before anything is started */
	if (s->w->peer && !m->peer_arg && (rc = choose_peer_cpu(s, &s->peer_cpu)))
		return rc;
	o.fluid.sched = fluid_sched_name(m->sched);
	o.fluid.chunk_loops = m->chunk_loops;
	o.cal_ns = m->cal_ns;
	o.lead_in_ns = m->lead_in_ns;
	o.lead_out_ns = m->lead_out_ns;
	o.fit = m->fit;
	o.sim_res_ns = m->clock_res_ns;
	/*
	 * The result's estimator: off-CPU, which predicts saturation where the
	 * others do not (bench/blocking-saturation); classic under a simulated
	 * slow clock, whose experiments study Woodside's estimator and e_res
	 */
	o.estimator = m->estimator >= 0 ? (enum sum_estimator)m->estimator
			: m->clock_res_ns > 1 ? SUM_CLASSIC : SUM_OFFCPU;
	o.max_run_ns = 60000000000ull;
	/* with IRQ time accounting, CPU time also leaves out interrupts: task-clock minus it is not steal */
	o.use_steal = strcmp(s->ctx.irq_time_acct, "y") != 0;
	if (m->clock_res_ns > 1) {
		o.delta_ns = (double)m->clock_res_ns;
	} else {
		struct clockprobe p;
		o.delta_ns = clockprobe_measure(CLOCK_MONOTONIC_RAW, "raw", 20000, &p) == 0 && p.min_step_ns
				     ? (double)p.min_step_ns
				     : 1;
	}
	srandom((unsigned)dclock_raw_ns());

	/* before anything is forked: the trace names displace's tasks by their forks */
	if (m->trace_others) {
		if ((rc = schedtrace_open(&s->trace, s->err, sizeof s->err)))
			return rc;
		o.trace = &s->trace;
	}
	s->env = malloc(sizeof *s->env);
	if (!s->env)
		return fail(s, -ENOMEM, "out of memory");
	if ((rc = exp_env_init(s->env, s->err, sizeof s->err))) {
		free(s->env);
		s->env = NULL;
		return rc;
	}
	struct cli_cpus busy = o.cpus;
	s->coordinator_cpu = exp_pin_coordinator(s->env, &busy, &s->ctx.online);
	seq_init(&s->seq, s->env, &o);
	s->start_ns = dclock_raw_ns();
	return 0;
}

void session_read_store(struct session *s)
{
	struct session_store *st = &s->store;
	struct calib_store cs;
	memset(st, 0, sizeof *st);
	if (s->m.store)
		snprintf(st->path, sizeof st->path, "%s", s->m.store);
	else if (calib_store_default_path(st->path, sizeof st->path))
		return;
	int rc = calib_store_load(st->path, &cs, &st->line, st->why, sizeof st->why);
	if (rc == -EBADMSG) {
		st->status = STORE_BAD;
		return;
	}
	if (rc) {
		st->status = s->m.store ? STORE_UNREADABLE : STORE_NONE;
		st->rc = rc;
		return;
	}
	context_variant(st->variant, sizeof st->variant, (unsigned long long)s->m.chunk_loops);
	const struct calib_row *row =
		calib_store_find(&cs, s->ctx.host, s->m.cpu, st->variant, fluid_sched_name(s->m.sched));
	if (row) {
		st->status = STORE_ROW;
		/* the drift check against it happens after the first bracketing calibration */
		st->tau_f_ns = row->tau_f_ns;
		st->tau0_ns = row->tau0_ns;
		st->quiet = row->quiet;
		snprintf(st->date, sizeof st->date, "%s", row->date);
		snprintf(st->verdict, sizeof st->verdict, "%s", row->verdict);
	} else {
		st->status = STORE_NO_ROW;
	}
	calib_store_free(&cs);
}

/*
 * The peer host's fluids: the control connection, and the coordinator kept
 * off their CPUs too when that host is this one (a loopback or unix peer)
 */
static int open_remote(struct session *s, const char *kind)
{
	struct net_addr a;
	char list[160];
	if (remote_control_addr(kind, s->m.peer_arg, &a))
		return fail(s, -EINVAL, "--remote-cpus: no control address in --peer '%s'", s->m.peer_arg);
	int rc = remote_open(&s->remote, &a, s->m.remote_cpus_arg, s->err, sizeof s->err);
	if (rc)
		return rc;
	s->seq.o.remote = &s->remote;
	cli_format_cpulist(&s->remote.cpus, list, sizeof list);
	snprintf(s->peer_note, sizeof s->peer_note, "peer %s (external), with fluids on its host's CPU%s %s: the remote cost",
		 s->m.peer_arg, s->remote.cpus.n > 1 ? "s" : "", list);
	if (a.ss.ss_family == AF_UNIX || net_addr_is_loopback(&a)) {
		struct cli_cpus busy = s->seq.o.cpus;
		for (int i = 0; i < s->remote.cpus.n && busy.n < CLI_MAX_CPUS; i++)
			if (!cli_cpus_contains(&busy, s->remote.cpus.cpu[i]))
				busy.cpu[busy.n++] = s->remote.cpus.cpu[i];
		int at = exp_pin_coordinator(s->env, &busy, &s->ctx.online);
		if (at >= 0)
			s->coordinator_cpu = at;
	}
	return 0;
}

int session_start_peer(struct session *s)
{
	const char *kind = s->w->peer;
	if (!kind)
		return 0;
	if (s->m.peer_arg) {
		s->peer_addr = s->m.peer_arg;
		snprintf(s->peer_note, sizeof s->peer_note, "peer %s (external: its work is not measured)", s->m.peer_arg);
		return s->m.remote_cpus_arg ? open_remote(s, kind) : 0;
	}
	int cpu = s->peer_cpu;
	int rc = peer_start(s->env, &s->peer, cpu, s->err, sizeof s->err);
	if (rc)
		return rc;
	s->peer_addr = peer_addr(&s->peer, kind);
	s->seq.o.peer_pid = peer_pid(&s->peer);
	s->seq.o.peer_cpu = cpu;
	int in_fluid = cli_cpus_contains(&s->seq.o.cpus, cpu);
	if (cpu == s->m.cpu)
		snprintf(s->peer_note, sizeof s->peer_note,
			 "local peer on the measured CPU %d: its work is in the displacement", cpu);
	else
		snprintf(s->peer_note, sizeof s->peer_note, "local peer on CPU %d%s", cpu,
			 in_fluid ? ", measured too (--cpus)" : ": its work is not in the displacement (add --cpus to see it)");
	return 0;
}

void session_series_init(struct session *s, struct series *ser, const char *label)
{
	series_init(ser, s->w, s->m.wargs, s->m.nwargs, s->peer_addr, label);
	ser->perturb = !s->m.no_perturb;
	if (s->m.flows > 1) {
		char arg[32];
		snprintf(arg, sizeof arg, "--flows=%u", s->m.flows);
		series_add_arg(ser, arg);
	}
}

/* the wall time of one operation in a pilot run, or what the workload says it costs */
static double pilot_op_ns(const struct put_workload *w, const struct put_report *rep)
{
	char v[32];
	if (w->pilot.null_run)
		return 1e3 * (w->pilot.op_us_field && report_field(rep->extra, w->pilot.op_us_field, v, sizeof v)
				      ? atof(v)
				      : 100);
	return rep->ops ? (double)(rep->end_ns - rep->start_ns) / (double)rep->ops : 1e6;
}

int session_choose_ops(struct session *s, struct series *ser)
{
	const struct put_workload *w = s->w;
	const struct opts *m = &s->m;
	int fixes = w->pilot.fix_field && w->pilot.fix_option;
	/* a workload whose runs take a fixed option from the pilot pilots even for --ops 0: S of the same work */
	if (m->ops_given && !fixes) {
		ser->ops = m->ops;
		return 0;
	}
	if (!m->ops_given && w->ops_policy == PUT_OPS_ONE) {
		ser->ops = 1;
		return 0;
	}
	/* a pilot beside the fluid: it checks the workload works and times one op */
	struct put_report rep;
	int rc = seq_pilot(&s->seq, ser, w->pilot.null_run ? 0 : 20, &rep);
	if (rc)
		return rc;
	if (fixes && !series_has_arg(ser, w->pilot.fix_option)) {
		/* every run then does identical work, whatever the start-up calibration says */
		char v[32], arg[64];
		if (report_field(rep.extra, w->pilot.fix_field, v, sizeof v)) {
			snprintf(arg, sizeof arg, "%s=%s", w->pilot.fix_option, v);
			series_add_arg(ser, arg);
		}
	}
	if (m->ops_given) {
		ser->ops = m->ops;
		return 0;
	}
	double per_op_ns = pilot_op_ns(w, &rep);
	if (!w->pilot.null_run) {
		/* 20 ops is a rough first look; a second pilot of about 100 ms refines it */
		double ops2 = 1e8 / (per_op_ns > 1 ? per_op_ns : 1);
		if (ops2 > 40 && ops2 < 1e7) {
			if ((rc = seq_pilot(&s->seq, ser, (uint64_t)ops2, &rep)))
				return rc;
			if (rep.ops)
				per_op_ns = pilot_op_ns(w, &rep);
		}
	}
	if (per_op_ns < 1)
		per_op_ns = 1;
	double l = (double)m->run_ns / per_op_ns;
	if (l < 4)
		l = 4;
	if (l > 1e8)
		l = 1e8;
	ser->ops = (uint64_t)l;
	/* a run is stopped if it takes ten times longer than expected */
	double expect_ns = per_op_ns * (double)ser->ops * 10;
	if (expect_ns > (double)s->seq.o.max_run_ns)
		s->seq.o.max_run_ns = (uint64_t)expect_ns;
	return 0;
}

void session_finish(struct session *s)
{
	if (s->seq.o.remote) {
		remote_close(s->seq.o.remote);
		s->seq.o.remote = NULL;
	}
	if (s->env && s->peer.started)
		peer_stop(s->env, &s->peer);
	if (s->env) {
		exp_env_fini(s->env);
		free(s->env);
		s->env = NULL;
	}
	/*
	 * last: a forked helper that has not exited may hold the instance's files
	 * open, and the instance cannot be removed until it has. Open from
	 * session_setup on, even when that failed after opening it
	 */
	if (s->trace.dir[0])
		schedtrace_close(&s->trace);
	s->seq.o.trace = NULL;
}
