/* mrun.c - what measure, sweep and predict do before and around their runs */
#include "coordinator/mrun.h"
#include "calib/calibration.h"
#include "coordinator/clockprobe.h"
#include "coordinator/displace.h"
#include "coordinator/msg.h"
#include "common/dclock.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

int mrun_check_workload(struct mrun *r, char **wargs, int nwargs)
{
	const char *cmd = r->m.cmd;
	if (!r->m.workload)
		return msg_usage(cmd, "no workload given; 'displace workloads' lists them");
	r->w = put_find(r->m.workload);
	if (!r->w)
		return msg_usage(cmd, "unknown workload '%s'; 'displace workloads' lists them", r->m.workload);
	const char *why = r->w->unavailable ? r->w->unavailable() : NULL;
	if (why) {
		msg_error("workload '%s' is not available in this build: %s", r->w->name, why);
		return EXIT_UNAVAILABLE;
	}
	/* put's own parser, so that displace rejects exactly what put would */
	void *state = NULL;
	char err[512] = "";
	if (r->w->parse(nwargs, wargs, &state, err, sizeof err))
		return msg_usage(cmd, "%s: %s", r->w->name, err);
	if (r->w->teardown)
		r->w->teardown(state);
	if (!strcmp(r->w->name, "exec")) {
		int i = 1;
		while (i < nwargs && strcmp(wargs[i], "--") && wargs[i][0] == '-')
			i += strchr(wargs[i], '=') ? 1 : 2;
		if (i < nwargs && !strcmp(wargs[i], "--"))
			i++;
		if (i < nwargs) {
			int rc = command_found(wargs[i]);
			if (rc) {
				msg_error("cannot execute '%s': %s", wargs[i], strerror(-rc));
				return EXIT_RESOURCE;
			}
		}
	}
	return 0;
}

static void store_note(struct mrun *r)
{
	char path[4096], why[256], variant[48];
	struct calib_store st;
	unsigned long line;
	if (r->m.store)
		snprintf(path, sizeof path, "%s", r->m.store);
	else if (calib_store_default_path(path, sizeof path))
		return;
	int rc = calib_store_load(path, &st, &line, why, sizeof why);
	if (rc == -EBADMSG) {
		msg_warn("%s:%lu: %s; ignoring the store (fix or delete it)", path, line, why);
		return;
	}
	if (rc) {
		if (r->m.store)
			msg_warn("cannot read '%s': %s; ignoring it", path, strerror(-rc));
		return;
	}
	context_variant(variant, sizeof variant, (unsigned long long)r->m.chunk_loops);
	const struct calib_row *row = calib_store_find(&st, r->ctx.host, r->m.cpu, variant, fluid_sched_name(r->m.sched));
	if (!row) {
		msg_info("no saved calibration for CPU %d (%s, %s); every run is bracketed by calibrations anyway; "
			 "'displace calibrate' gives a quiet-host verdict",
			 r->m.cpu, variant, fluid_sched_name(r->m.sched));
	} else if (!row->quiet) {
		msg_warn("the last calibration of CPU %d (%s) judged the host %s", r->m.cpu, row->date, row->verdict);
	}
	if (row) {
		/* the drift check against it happens after the first bracketing calibration */
		r->stored_tau_f_ns = row->tau_f_ns;
		snprintf(r->stored_date, sizeof r->stored_date, "%s", row->date);
	}
	calib_store_free(&st);
}

unsigned mrun_whole_pairs(unsigned reps, const char *why)
{
	if (reps % 2 == 0)
		return reps;
	msg_info("--reps %u rounded up to %u: %s", reps, reps + 1, why);
	return reps + 1;
}

void mrun_drift_note(struct mrun *r)
{
	if (r->stored_tau_f_ns <= 0 || r->mc.ncal == 0)
		return;
	double d = (r->mc.first_tau_f_ns - r->stored_tau_f_ns) / r->stored_tau_f_ns;
	if (fabs(d) > 0.03)
		msg_info("tau_F on CPU %d moved %+.1f%% since the calibration of %s; the bracketing calibrations "
			 "of this measurement are used",
			 r->m.cpu, 100 * d, r->stored_date);
}

double mrun_fluid_share(const struct meas_summary *s)
{
	/* tau0 is the fluid's speed in its undisturbed chunks during the co-runs */
	return s->tau_f_ns > 0 && s->tau0_ns > 0 ? s->tau0_ns / s->tau_f_ns : 1;
}

int mrun_warn_busy(const struct mrun *r, double share)
{
	if (share >= MRUN_MIN_FLUID_SHARE)
		return 0;
	msg_warn("in the calibrations around the runs the fluid got only %.0f%% of CPU %d: another process held it, "
		 "and its work is in the displacement; find it with: ps -eLo pid,psr,pcpu,comm | awk '$2 == %d' "
		 "and stop it, or measure another CPU with --cpu",
		 100 * share, r->m.cpu, r->m.cpu);
	return 1;
}

/* the kind of peer a workload talks to, or NULL */
static const char *peer_kind(const struct put_workload *w)
{
	return w ? w->peer : NULL;
}

/* the peer CPU: --peer-cpu N or same, else another CPU, not the measured CPU's SMT sibling */
static int choose_peer_cpu(struct mrun *r, int *cpu)
{
	const char *a = r->m.peer_cpu_arg;
	if (a && !strcmp(a, "same")) {
		*cpu = r->m.cpu;
		return 0;
	}
	if (a) {
		if (cli_parse_int(a, 0, CLI_MAX_CPUS - 1, cpu))
			return msg_usage(r->m.cmd, "invalid value '%s' for --peer-cpu (a CPU number or 'same')", a);
		if (!cli_cpus_contains(&r->ctx.online, *cpu))
			return msg_usage(r->m.cmd, "peer cpu %d is not online", *cpu);
		return 0;
	}
	struct cli_cpus sib;
	context_cpu_siblings(r->m.cpu, &sib);
	int fallback = -1;
	for (int i = 0; i < r->ctx.online.n; i++) {
		int c = r->ctx.online.cpu[i];
		if (c == r->m.cpu)
			continue;
		if (cli_cpus_contains(&sib, c)) {
			if (fallback < 0)
				fallback = c;
			continue;
		}
		*cpu = c;
		return 0;
	}
	*cpu = fallback >= 0 ? fallback : r->m.cpu;
	return 0;
}

static int start_peer(struct mrun *r, int cpu)
{
	const char *kind = peer_kind(r->w);
	if (!kind)
		return 0;
	if (r->m.peer_arg) {
		r->peer_addr = r->m.peer_arg;
		snprintf(r->peer_note, sizeof r->peer_note, "peer %s (external: its work is not measured)", r->m.peer_arg);
		return 0;
	}
	char err[512];
	int rc = peer_start(r->env, &r->peer, cpu, err, sizeof err);
	if (rc) {
		msg_error("%s", err);
		return rc == -EINTR ? EXIT_FAILED : EXIT_RESOURCE;
	}
	r->peer_addr = peer_addr(&r->peer, kind);
	r->mc.o.peer_pid = peer_pid(&r->peer);
	r->mc.o.peer_cpu = cpu;
	int in_fluid = cli_cpus_contains(&r->mc.o.cpus, cpu);
	if (cpu == r->m.cpu)
		snprintf(r->peer_note, sizeof r->peer_note,
			 "local peer on the measured CPU %d: its work is in the displacement", cpu);
	else
		snprintf(r->peer_note, sizeof r->peer_note, "local peer on CPU %d%s", cpu,
			 in_fluid ? ", measured too (--cpus)" : ": its work is not in the displacement (add --cpus to see it)");
	return 0;
}

int mrun_setup(struct mrun *r)
{
	const char *cmd = r->m.cmd;
	struct mopts *m = &r->m;
	context_read(&r->ctx);
	if (!cli_cpus_contains(&r->ctx.online, m->cpu)) {
		char on[256];
		cli_format_cpulist(&r->ctx.online, on, sizeof on);
		return msg_usage(cmd, "cpu %d is not online (online: %s)", m->cpu, on);
	}
	struct meas_opts o;
	memset(&o, 0, sizeof o);
	o.cpu = m->cpu;
	if (m->cpus_arg) {
		if (cli_parse_cpulist(m->cpus_arg, &r->ctx.online, &o.cpus))
			return msg_usage(cmd, "invalid CPU list '%s' for --cpus", m->cpus_arg);
		for (int i = 0; i < o.cpus.n; i++)
			if (!cli_cpus_contains(&r->ctx.online, o.cpus.cpu[i]))
				return msg_usage(cmd, "cpu %d in --cpus is not online", o.cpus.cpu[i]);
		if (!cli_cpus_contains(&o.cpus, m->cpu))
			return msg_usage(cmd, "--cpus %s must include the measured CPU %d (--cpu)", m->cpus_arg, m->cpu);
		if (o.cpus.n > EXP_MAX_CPUS)
			return msg_usage(cmd, "at most %d fluid CPUs", EXP_MAX_CPUS);
	} else {
		o.cpus.n = 1;
		o.cpus.cpu[0] = m->cpu;
	}
	/* the peer's CPU is checked now, before anything is started */
	int peer_cpu = -1, st;
	if (peer_kind(r->w) && !m->peer_arg && (st = choose_peer_cpu(r, &peer_cpu)))
		return st;
	o.fluid.sched = fluid_sched_name(m->sched);
	o.fluid.chunk_loops = m->chunk_loops;
	o.cal_ns = m->cal_ns;
	o.lead_in_ns = m->lead_in_ns;
	o.lead_out_ns = m->lead_out_ns;
	o.fit = m->fit;
	o.sim_res_ns = m->clock_res_ns;
	o.max_run_ns = 60000000000ull;
	/* with IRQ time accounting, CPU time also leaves out interrupts: task-clock minus it is not steal */
	o.use_steal = strcmp(r->ctx.irq_time_acct, "y") != 0;
	if (m->clock_res_ns > 1) {
		o.delta_ns = (double)m->clock_res_ns;
	} else {
		struct clockprobe p;
		o.delta_ns = clockprobe_measure(CLOCK_MONOTONIC_RAW, "raw", 20000, &p) == 0 && p.min_step_ns
				     ? (double)p.min_step_ns
				     : 1;
	}
	srandom((unsigned)dclock_raw_ns());

	r->env = malloc(sizeof *r->env);
	char err[512];
	if (!r->env) {
		msg_error("out of memory");
		return EXIT_FAILED;
	}
	if (exp_env_init(r->env, err, sizeof err)) {
		msg_error("%s", err);
		free(r->env);
		r->env = NULL;
		return EXIT_RESOURCE;
	}
	struct cli_cpus busy = o.cpus;
	int pinned = exp_pin_coordinator(r->env, &busy, &r->ctx.online);
	if (pinned < 0 && r->ctx.online.n == 1)
		msg_info("one CPU only: the coordinator and any peer share the measured CPU, and their work is "
			 "in the displacement");
	meas_init(&r->mc, r->env, &o);
	r->stored_tau_f_ns = 0;
	store_note(r);
	if ((st = start_peer(r, peer_cpu)))
		return st;
	r->start_ns = dclock_raw_ns();
	return 0;
}

void mrun_series_init(struct mrun *r, struct meas_series *s, const char *label)
{
	static char peer_arg[256];
	memset(s, 0, sizeof *s);
	snprintf(s->label, sizeof s->label, "%s", label);
	for (int i = 0; i < r->m.nwargs && s->nargs < 56; i++) {
		/* options go before a "--" that ends them (exec) */
		if (!strcmp(r->m.wargs[i], "--"))
			break;
		s->args[s->nargs++] = r->m.wargs[i];
	}
	if (r->peer_addr) {
		snprintf(peer_arg, sizeof peer_arg, "--peer=%s", r->peer_addr);
		s->args[s->nargs++] = peer_arg;
	}
	s->first_rest = s->nargs;
	for (int i = 0; i < r->m.nwargs && s->nargs < 62; i++)
		if (!strcmp(r->m.wargs[i], "--")) {
			for (; i < r->m.nwargs && s->nargs < 62; i++)
				s->args[s->nargs++] = r->m.wargs[i];
			break;
		}
}

void mrun_add_arg(struct meas_series *s, char *arg)
{
	/* before a "--" and what follows it */
	if (s->nargs >= 62)
		return;
	memmove(&s->args[s->first_rest + 1], &s->args[s->first_rest], (size_t)(s->nargs - s->first_rest) * sizeof s->args[0]);
	s->args[s->first_rest++] = arg;
	s->nargs++;
}

static int has_arg(const struct meas_series *s, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < s->nargs; i++)
		if (!strncmp(s->args[i], name, n) && (s->args[i][n] == '\0' || s->args[i][n] == '='))
			return 1;
	return 0;
}

int mrun_choose_ops(struct mrun *r, struct meas_series *s)
{
	static char loops_arg[64];
	int is_exec = !strcmp(s->args[0], "exec"), is_spin = !strcmp(s->args[0], "spin");
	/* spin's null runs too take --loops-per-op from the pilot: S without put's own 10 ms calibration */
	if (r->m.ops_given && r->m.ops == 0 && !is_spin) {
		s->ops = 0;
		return 0;
	}
	if (is_exec && !r->m.ops_given) {
		s->ops = 1;
		return 0;
	}
	if (r->m.ops_given && !is_spin) {
		s->ops = r->m.ops;
		return 0;
	}
	/* a pilot beside the fluid: it checks the workload works and times one op */
	struct put_report rep;
	uint64_t pilot_ops = is_spin ? 0 : 20;
	int rc = meas_pilot(&r->mc, s, pilot_ops, &rep);
	if (rc)
		return mrun_fail(r, rc);
	if (is_spin && !has_arg(s, "--loops-per-op")) {
		/* every run then does identical work, whatever the start-up calibration says */
		char v[32];
		if (report_field(rep.extra, "spin_loops_per_op", v, sizeof v)) {
			snprintf(loops_arg, sizeof loops_arg, "--loops-per-op=%s", v);
			mrun_add_arg(s, loops_arg);
		}
	}
	if (r->m.ops_given) {
		s->ops = r->m.ops;
		return 0;
	}
	double per_op_ns;
	if (is_spin) {
		char v[32];
		double us = 100;
		if (report_field(rep.extra, "spin_us", v, sizeof v))
			us = atof(v);
		per_op_ns = us * 1e3;
	} else {
		per_op_ns = rep.ops ? (double)(rep.end_ns - rep.start_ns) / (double)rep.ops : 1e6;
		/* 20 ops is a rough first look; a second pilot of about 100 ms refines it */
		double ops2 = 1e8 / (per_op_ns > 1 ? per_op_ns : 1);
		if (ops2 > 40 && ops2 < 1e7) {
			rc = meas_pilot(&r->mc, s, (uint64_t)ops2, &rep);
			if (rc)
				return mrun_fail(r, rc);
			if (rep.ops)
				per_op_ns = (double)(rep.end_ns - rep.start_ns) / (double)rep.ops;
		}
	}
	if (per_op_ns < 1)
		per_op_ns = 1;
	double l = (double)r->m.run_ns / per_op_ns;
	if (l < 4)
		l = 4;
	if (l > 1e8)
		l = 1e8;
	s->ops = (uint64_t)l;
	/* a run is stopped if it takes ten times longer than expected */
	double expect_ns = per_op_ns * (double)s->ops * 10;
	if (expect_ns > (double)r->mc.o.max_run_ns)
		r->mc.o.max_run_ns = (uint64_t)expect_ns;
	return 0;
}

int mrun_open_csv(struct mrun *r, struct csvout *c, const char *header)
{
	memset(c, 0, sizeof *c);
	if (!r->m.csv)
		return 0;
	int rc = csvout_open(c, r->m.csv, header);
	if (rc == -EEXIST)
		msg_error("'%s' has another header; give a new file to --csv", r->m.csv);
	else if (rc)
		msg_error("cannot open '%s': %s", r->m.csv, strerror(-rc));
	return rc ? EXIT_RESOURCE : 0;
}

int mrun_check_plot(const struct mrun *r)
{
	if (!r->m.plot)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", r->m.plot);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK)) {
		msg_error("cannot write the plot '%s': %s", r->m.plot, strerror(errno));
		return EXIT_RESOURCE;
	}
	return 0;
}

int mrun_plot(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
	      const struct plot_series *s, size_t ns)
{
	char hint[512] = "";
	int rc = plot_write(svg_path, title, xlabel, ylabel, s, ns, hint, sizeof hint);
	if (rc < 0)
		msg_error("cannot write the plot '%s': %s", svg_path, rc == -EIO ? hint : strerror(-rc));
	else if (rc == 1)
		msg_warn("%s", hint);
	else
		msg_info("%s", hint);
	return rc < 0 ? -1 : 0;
}

int mrun_fail(struct mrun *r, int rc)
{
	if (rc == -EINTR) {
		msg_error("interrupted; every child was stopped%s%s", r->m.csv ? " and the rows measured so far are in " : "",
			  r->m.csv ? r->m.csv : "");
		return EXIT_FAILED;
	}
	msg_error("%s", r->mc.err);
	if (rc == -ECHILD) {
		switch (r->mc.put_exit) {
		case 2:
			return EXIT_USAGE;
		case 3:
		case 127:
			return EXIT_RESOURCE;
		case 4:
			return EXIT_UNAVAILABLE;
		}
	}
	return rc == -ENOENT ? EXIT_RESOURCE : EXIT_FAILED;
}

void mrun_finish(struct mrun *r)
{
	if (r->env && r->peer.started)
		peer_stop(r->env, &r->peer);
	if (r->env) {
		exp_env_fini(r->env);
		free(r->env);
		r->env = NULL;
	}
}
