/* sequence.c - co-runs bracketed by calibrations, and their estimates */
#include "coordinator/sequence.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void seq_init(struct seq_ctx *q, struct exp_env *env, const struct seq_opts *o)
{
	memset(q, 0, sizeof *q);
	q->env = env;
	q->o = *o;
}

/* the fluid options for this run: a fresh random clock phase when a slow clock is simulated */
static struct exp_fluid_opts fluid_opts(const struct seq_ctx *q)
{
	struct exp_fluid_opts f = q->o.fluid;
	f.clock_res_ns = q->o.sim_res_ns;
	f.clock_phase_ns = q->o.sim_res_ns > 1 ? (uint64_t)random() % q->o.sim_res_ns : 0;
	return f;
}

/* each local fluid window's other tasks, from the scheduler trace (--trace-others) */
static int traced(struct seq_ctx *q, struct fluid_report *reps, int n)
{
	if (!q->o.trace)
		return 0;
	int rc = schedtrace_fill(q->o.trace, reps, n);
	if (rc)
		snprintf(q->err, sizeof q->err, "cannot read the scheduler trace (%s)", strerror(-rc));
	return rc;
}

/* the peer host's calibration reports: each CPU's est_cal (q->rprev) and its tau_F kept */
static int remote_calibrated(struct seq_ctx *q, const struct fluid_report *reps)
{
	const struct remote *rm = q->o.remote;
	for (int i = 0; i < rm->cpus.n; i++) {
		if (est_cal_from(&reps[i], rm->use_steal, &q->rprev[i])) {
			snprintf(q->err, sizeof q->err, "the fluid did no loops on the peer host's CPU %d", rm->cpus.cpu[i]);
			return -EIO;
		}
		stats_acc_add(&q->rcal[i], q->rprev[i].tau_ns);
	}
	return 0;
}

int seq_calibrate(struct seq_ctx *q)
{
	static struct fluid_report reps[EXP_MAX_CPUS], rreps[EXP_MAX_CPUS];
	struct exp_fluid_opts f = fluid_opts(q);
	struct remote *rm = q->o.remote;
	/* the peer host's fluids calibrate while the local ones do; their reports wait in the socket */
	int rc = rm ? remote_cal_begin(rm, &f, q->o.cal_ns, q->err, sizeof q->err) : 0;
	if (!rc)
		rc = exp_run_fluids(q->env, &q->o.cpus, &f, q->o.cal_ns, reps, q->err, sizeof q->err);
	if (!rc && rm && !(rc = remote_cal_end(rm, q->o.cal_ns, rreps, q->err, sizeof q->err)))
		rc = remote_calibrated(q, rreps);
	if (!rc)
		rc = traced(q, reps, q->o.cpus.n);
	if (rc)
		return rc;
	for (int i = 0; i < q->o.cpus.n; i++) {
		if (est_cal_from(&reps[i], q->o.use_steal, &q->prev[i])) {
			snprintf(q->err, sizeof q->err, "the fluid did no loops on CPU %d", q->o.cpus.cpu[i]);
			return -EIO;
		}
		if (q->o.cpus.cpu[i] == q->o.cpu) {
			if (q->cal.n == 0) {
				q->first_tau_f_ns = q->prev[i].tau_ns;
				q->first_tau0_ns = q->prev[i].tau0_ns;
			}
			stats_acc_add(&q->cal, q->prev[i].tau_ns);
		}
	}
	q->have_prev = 1;
	return 0;
}

/* put's argv: its own options (the sequence's, then the series'), then the workload's */
char **seq_put_argv(const struct seq_ctx *q, const struct series *s, uint64_t ops, char bufs[][32], char **argv,
		    int max)
{
	int k = 0;
	argv[k++] = "put";
	argv[k++] = "--cpu";
	snprintf(bufs[0], 32, "%d", q->o.cpu);
	argv[k++] = bufs[0];
	argv[k++] = "--ops";
	snprintf(bufs[1], 32, "%" PRIu64, ops);
	argv[k++] = bufs[1];
	if (q->o.sim_res_ns > 1) {
		argv[k++] = "--clock-resolution";
		snprintf(bufs[2], 32, "%" PRIu64 "ns", q->o.sim_res_ns);
		argv[k++] = bufs[2];
		argv[k++] = "--clock-phase";
		snprintf(bufs[3], 32, "%" PRIu64 "ns", (uint64_t)random() % q->o.sim_res_ns);
		argv[k++] = bufs[3];
	}
	if (q->o.no_task_clock)
		argv[k++] = "--no-task-clock";
	for (int i = 0; i < s->nput_opts && k < max - 1; i++)
		argv[k++] = (char *)s->put_opts[i];
	series_argv(s, argv + k, max - k, bufs[4]);
	return argv;
}

/* a co-run whose fluid missed part of the PUT's run is run again, up to this many times in all */
#define SEQ_RUN_ATTEMPTS 3

/* one co-run of ops operations of s, beside a fluid on every measured CPU */
static struct exp_corun_spec corun_spec(const struct seq_ctx *q, const struct series *s, uint64_t ops,
					char bufs[][32], char **argv, int max)
{
	struct exp_corun_spec spec = {
		.cpus = &q->o.cpus,
		.fluid = fluid_opts(q),
		.put_argv = seq_put_argv(q, s, ops, bufs, argv, max),
		.lead_in_ns = q->o.lead_in_ns,
		.lead_out_ns = q->o.lead_out_ns,
		.max_ns = q->o.max_run_ns,
	};
	return spec;
}

/* how long the peer host's fluids may run for one co-run: the run's own limit, and room to spare */
static uint64_t remote_limit_ns(const struct seq_ctx *q)
{
	return q->o.lead_in_ns + q->o.max_run_ns + q->o.lead_out_ns + 30000000000ull;
}

/*
 * After a co-run whose outcome is rc: the peer host's fluids stopped, and
 * their reports in reps (NULL: not wanted). rc, or the stop's failure
 */
static int remote_end_run(struct seq_ctx *q, int rc, struct fluid_report *reps)
{
	char err[512];
	/* stopped even after a failed run; the run's own error is the one to tell */
	int src = remote_stop(q->o.remote, rc ? NULL : reps, rc ? err : q->err, rc ? sizeof err : sizeof q->err);
	/* but a run to be done again needs the peer host stopped cleanly: else its error, not the retry */
	if (rc == -EAGAIN && src) {
		snprintf(q->err, sizeof q->err, "%s", err);
		return src;
	}
	return rc ? rc : src;
}

/* one put run, not counted: beside the fluids, or (alone) with none anywhere */
static int run_once(struct seq_ctx *q, const struct series *s, uint64_t ops, int alone, struct put_report *rep)
{
	static struct exp_corun_result r;
	static const struct cli_cpus none = { .n = 0 };
	char bufs[5][32], *argv[160];
	struct exp_corun_spec spec = corun_spec(q, s, ops, bufs, argv, (int)(sizeof argv / sizeof argv[0]));
	if (alone) {
		spec.cpus = &none;
		spec.lead_in_ns = spec.lead_out_ns = 0;
	}
	struct remote *rm = alone ? NULL : q->o.remote;
	int rc = rm ? remote_start(rm, &spec.fluid, remote_limit_ns(q), q->err, sizeof q->err) : 0;
	int started = rm && !rc;
	if (!rc)
		rc = exp_corun(q->env, &spec, &r, q->err, sizeof q->err);
	if (rc == -EAGAIN)
		rc = 0; /* a fluid's window missed part of the run: only put's report is wanted here */
	if (started)
		rc = remote_end_run(q, rc, NULL);
	q->put_exit = r.put_exit;
	if (!rc)
		*rep = r.put;
	return rc;
}

int seq_pilot(struct seq_ctx *q, const struct series *s, uint64_t ops, struct put_report *rep)
{
	/*
	 * Beside the fluids, as in the real runs: on a VM an idle vCPU halts,
	 * and waking it can make an operation many times slower than when the
	 * fluid keeps the CPU busy.
	 */
	return run_once(q, s, ops, 0, rep);
}

int seq_alone(struct seq_ctx *q, const struct series *s, uint64_t ops, struct put_report *rep)
{
	return run_once(q, s, ops, 1, rep);
}

/* the peer host's displacement in a co-run, by the same estimators, from its reports and calibrations */
static int remote_estimate(struct seq_ctx *q, const struct fluid_report *reps, const struct est_cal *before,
			   struct est_end *e)
{
	const struct remote *rm = q->o.remote;
	double sd[EXP_MAX_CPUS];
	for (int i = 0; i < rm->cpus.n; i++)
		sd[i] = q->rcal[i].n >= 2 ? stats_acc_sd(&q->rcal[i]) : 0;
	struct est_end_in in = { .ncpu = rm->cpus.n, .fluid = reps, .before = before, .after = q->rprev,
				 .tau_sd_ns = sd, .delta_ns = q->o.delta_ns, .use_steal = rm->use_steal };
	int bad;
	if (est_end_from(&in, e, &bad)) {
		snprintf(q->err, sizeof q->err, "the fluid did no loops on the peer host's CPU %d", rm->cpus.cpu[bad]);
		return -EIO;
	}
	return 0;
}

int seq_run(struct seq_ctx *q, struct series *s, uint64_t ops)
{
	static struct exp_corun_result r;
	char bufs[5][32], *argv[160];
	int rc;
	if (!q->have_prev && (rc = seq_calibrate(q)))
		return rc;
	static struct fluid_report rreps[EXP_MAX_CPUS];
	struct est_cal before[EXP_MAX_CPUS], rbefore[EXP_MAX_CPUS];
	memcpy(before, q->prev, sizeof before);
	memcpy(rbefore, q->rprev, sizeof rbefore);
	struct exp_corun_spec spec = corun_spec(q, s, ops, bufs, argv, (int)(sizeof argv / sizeof argv[0]));
	uint64_t peer0 = 0, peer1 = 0;
	int have_peer;
	for (int attempt = 1;; attempt++) {
		have_peer = q->o.peer_pid > 0 && procfs_process_runtime_ns(q->o.peer_pid, &peer0) == 0;
		/* the co-run's switches are counted from here: not the PUT's runs alone, in between */
		if (q->o.trace && (rc = schedtrace_mark(q->o.trace))) {
			snprintf(q->err, sizeof q->err, "cannot read the scheduler trace (%s)", strerror(-rc));
			return rc;
		}
		/* the peer host's fluids start first and stop last: the whole co-run is inside their run */
		rc = q->o.remote ? remote_start(q->o.remote, &spec.fluid, remote_limit_ns(q), q->err, sizeof q->err) : 0;
		int started = q->o.remote && !rc;
		if (!rc)
			rc = exp_corun(q->env, &spec, &r, q->err, sizeof q->err);
		if (started)
			rc = remote_end_run(q, rc, rreps);
		/* a fluid's window did not hold the whole of the PUT's run (it was held off its CPU): again */
		if (rc != -EAGAIN || attempt == SEQ_RUN_ATTEMPTS)
			break;
	}
	if (rc == -EAGAIN) {
		size_t n = strlen(q->err);
		snprintf(q->err + n, sizeof q->err - n, ", %d times: other tasks held its CPU", SEQ_RUN_ATTEMPTS);
	}
	q->put_exit = r.put_exit;
	if (!rc)
		rc = traced(q, r.fluid, q->o.cpus.n);
	if (rc)
		return rc;
	for (int i = 0; q->o.trace && i < q->o.cpus.n; i++)
		r.fluid[i].switches = (struct report_val){
			.v = (double)schedtrace_switches(q->o.trace, r.fluid[i].ran_on), .avail = 1 };
	if (r.have_stat && procfs_busy_add(&r.stat0, &r.stat1, q->busy_ticks, q->total_ticks, PROCFS_MAX_CPUS))
		q->busy_beyond = 1;
	have_peer = have_peer && procfs_process_runtime_ns(q->o.peer_pid, &peer1) == 0;
	if ((rc = seq_calibrate(q)))
		return rc;

	struct est_run run;
	struct est_run_in in = {
		.ncpu = q->o.cpus.n,
		.cpu = q->o.cpus.cpu,
		.put_cpu = q->o.cpu,
		.fluid = r.fluid,
		.before = before,
		.after = q->prev,
		.tau_sd_ns = q->cal.n >= 2 ? stats_acc_sd(&q->cal) : 0,
		.put = &r.put,
		.stat0 = r.have_stat ? &r.stat0 : NULL,
		.stat1 = r.have_stat ? &r.stat1 : NULL,
		.sirq0 = r.have_sirq ? &r.sirq0 : NULL,
		.sirq1 = r.have_sirq ? &r.sirq1 : NULL,
		.irq0 = r.have_irq ? &r.irq0 : NULL,
		.irq1 = r.have_irq ? &r.irq1 : NULL,
		.user_hz = sysconf(_SC_CLK_TCK),
		.delta_ns = q->o.delta_ns,
		/* a thread of the peer's that ended between the reads takes its time with it: unknown */
		.peer_ns = have_peer && peer1 >= peer0 ? (double)(peer1 - peer0) : NAN,
		.use_steal = q->o.use_steal,
	};
	int bad_cpu;
	if (est_run_from(&in, &run, &bad_cpu)) {
		snprintf(q->err, sizeof q->err, "the fluid did no loops on CPU %d", bad_cpu);
		return -EIO;
	}
	if (q->o.remote && (rc = remote_estimate(q, rreps, rbefore, &run.remote)))
		return rc;
	run.order = s->nruns + 1;
	if ((rc = series_append_run(s, &run)))
		return rc;
	/* the perturbation check: once per pair (or run), the PUT alone, L/4 operations */
	if (s->perturb && s->ops > 0 && (!q->o.fit || s->nruns % 2 == 0)) {
		uint64_t small = sum_small_ops(s->ops);
		rc = seq_perturb_run(q, s, small ? small : 1);
	}
	return rc;
}

int seq_perturb_run(struct seq_ctx *q, struct series *s, uint64_t ops)
{
	struct put_report rep;
	struct est_alone a;
	int rc = seq_alone(q, s, ops, &rep);
	if (rc)
		return rc;
	est_alone_from(&rep, &a);
	return series_append_alone(s, &a);
}

void seq_summarize(const struct seq_ctx *q, struct series *s, struct summary *sum)
{
	struct sum_opts o = { .estimator = q->o.estimator, .fit = q->o.fit, .ops = s->ops, .ncpu = q->o.cpus.n,
			      .cpu_id = q->o.cpus.cpu, .alone = s->alone, .nalone = s->nalone,
			      .tau0_ref_ns = q->tau0_ref_ns > 0 ? q->tau0_ref_ns : q->first_tau0_ns,
			      .tau0_ref_saved = q->tau0_ref_ns > 0,
			      .peer_here = q->o.peer_pid && q->o.peer_cpu >= 0 && cli_cpus_contains(&q->o.cpus, q->o.peer_cpu),
			      .nremote = q->o.remote ? q->o.remote->cpus.n : 0,
			      .remote_cpu_id = q->o.remote ? q->o.remote->cpus.cpu : NULL };
	sum_compute(s->runs, s->nruns, &o, sum);
	/*
	 * The CPUs with a fluid are not free for other tasks: this host's, and
	 * the peer's (--remote-cpus) when it is this host (loopback, a unix
	 * socket, a network namespace); on another host the same numbers are
	 * left out too, which can only hide the warning.
	 */
	int skip[2 * EST_MAX_CPUS], nskip = 0;
	for (int i = 0; i < q->o.cpus.n && nskip < 2 * EST_MAX_CPUS; i++)
		skip[nskip++] = q->o.cpus.cpu[i];
	for (int i = 0; q->o.remote && i < q->o.remote->cpus.n && nskip < 2 * EST_MAX_CPUS; i++)
		skip[nskip++] = q->o.remote->cpus.cpu[i];
	sum->other_cpu = -1;
	sum->other_cpu_busy = NAN;
	if (!q->busy_beyond)
		sum->other_cpu = procfs_least_busy(q->busy_ticks, q->total_ticks, PROCFS_MAX_CPUS, skip, nskip,
						   SEQ_MIN_BUSY_TICKS, &sum->other_cpu_busy);
	sum_bound_interval(sum, q->o.trace != NULL);
}
