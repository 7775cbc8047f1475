/* measure.c - the measurement engine shared by measure, sweep and predict */
#include "coordinator/measure.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void meas_init(struct meas_ctx *mc, struct exp_env *env, const struct meas_opts *o)
{
	memset(mc, 0, sizeof *mc);
	mc->env = env;
	mc->o = *o;
}

const char *meas_src_name(enum meas_src src)
{
	static const char *const names[] = { "getrusage", "task-clock", "schedstat", "/proc/stat" };
	return names[src];
}

const char *meas_src_key(enum meas_src src)
{
	static const char *const keys[] = { "getrusage", "task_clock", "schedstat", "procstat" };
	return keys[src];
}

uint64_t meas_small_ops(uint64_t ops)
{
	return ops >= 4 ? ops / 4 : 0;
}

/* the fluid options for this run: a fresh random clock phase when a slow clock is simulated */
static struct exp_fluid_opts fluid_opts(const struct meas_ctx *mc)
{
	struct exp_fluid_opts f = mc->o.fluid;
	f.clock_res_ns = mc->o.sim_res_ns;
	f.clock_phase_ns = mc->o.sim_res_ns > 1 ? (uint64_t)random() % mc->o.sim_res_ns : 0;
	return f;
}

int meas_calibrate(struct meas_ctx *mc)
{
	static struct fluid_report reps[EXP_MAX_CPUS];
	struct exp_fluid_opts f = fluid_opts(mc);
	int rc = exp_run_fluids(mc->env, &mc->o.cpus, &f, mc->o.cal_ns, reps, mc->err, sizeof mc->err);
	if (rc)
		return rc;
	for (int i = 0; i < mc->o.cpus.n; i++) {
		if (est_cal_from(&reps[i], mc->o.use_steal, &mc->prev[i])) {
			snprintf(mc->err, sizeof mc->err, "the fluid did no loops on CPU %d", mc->o.cpus.cpu[i]);
			return -EIO;
		}
		if (mc->o.cpus.cpu[i] == mc->o.cpu) {
			double t = mc->prev[i].tau_ns;
			if (mc->ncal == 0)
				mc->first_tau_f_ns = t;
			mc->cal_sum += t;
			mc->cal_sumsq += t * t;
			mc->ncal++;
		}
	}
	mc->have_prev = 1;
	return 0;
}

static double cal_sd(const struct meas_ctx *mc)
{
	if (mc->ncal < 2)
		return 0;
	double m = mc->cal_sum / mc->ncal;
	double v = (mc->cal_sumsq - mc->ncal * m * m) / (mc->ncal - 1);
	return v > 0 ? sqrt(v) : 0;
}

static char **put_argv(const struct meas_ctx *mc, const struct meas_series *s, uint64_t ops, char bufs[][32],
		       char **argv)
{
	int k = 0;
	argv[k++] = "put";
	argv[k++] = "--cpu";
	snprintf(bufs[0], 32, "%d", mc->o.cpu);
	argv[k++] = bufs[0];
	argv[k++] = "--ops";
	snprintf(bufs[1], 32, "%" PRIu64, ops);
	argv[k++] = bufs[1];
	if (mc->o.sim_res_ns > 1) {
		argv[k++] = "--clock-resolution";
		snprintf(bufs[2], 32, "%" PRIu64 "ns", mc->o.sim_res_ns);
		argv[k++] = bufs[2];
		argv[k++] = "--clock-phase";
		snprintf(bufs[3], 32, "%" PRIu64 "ns", (uint64_t)random() % mc->o.sim_res_ns);
		argv[k++] = bufs[3];
	}
	for (int i = 0; i < s->nargs && k < 94; i++)
		argv[k++] = s->args[i];
	argv[k] = NULL;
	return argv;
}

/* one co-run of ops operations of s, beside a fluid on every measured CPU */
static struct exp_corun_spec corun_spec(const struct meas_ctx *mc, const struct meas_series *s, uint64_t ops,
					char bufs[][32], char **argv)
{
	struct exp_corun_spec spec = {
		.cpus = &mc->o.cpus,
		.fluid = fluid_opts(mc),
		.put_argv = put_argv(mc, s, ops, bufs, argv),
		.lead_in_ns = mc->o.lead_in_ns,
		.lead_out_ns = mc->o.lead_out_ns,
		.max_ns = mc->o.max_run_ns,
	};
	return spec;
}

static int append_run(struct meas_series *s, const struct meas_run *r)
{
	if (s->nruns == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct meas_run *nr = realloc(s->runs, cap * sizeof *nr);
		if (!nr)
			return -ENOMEM;
		s->runs = nr;
		s->cap = cap;
	}
	s->runs[s->nruns++] = *r;
	return 0;
}

static double val_ns(const struct report_val *v)
{
	return v->avail ? v->v : NAN;
}

/* sys + irq + softirq ticks of one CPU over the run, in ns */
static double procstat_sys_ns(const struct exp_corun_result *r, int cpu)
{
	const struct procfs_cpu *a, *b;
	if (!r->have_stat || !(a = procfs_stat_find(&r->stat0, cpu)) || !(b = procfs_stat_find(&r->stat1, cpu)))
		return NAN;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t t0 = a->system + a->irq + a->softirq, t1 = b->system + b->irq + b->softirq;
	return (double)(t1 - t0) * 1e9 / (double)hz;
}

/* one put run, not counted: beside the fluids, or (alone) with none anywhere */
static int run_once(struct meas_ctx *mc, struct meas_series *s, uint64_t ops, int alone, struct put_report *rep)
{
	static struct exp_corun_result r;
	static const struct cli_cpus none = { .n = 0 };
	char bufs[4][32], *argv[96];
	struct exp_corun_spec spec = corun_spec(mc, s, ops, bufs, argv);
	if (alone) {
		spec.cpus = &none;
		spec.lead_in_ns = spec.lead_out_ns = 0;
	}
	int rc = exp_corun(mc->env, &spec, &r, mc->err, sizeof mc->err);
	mc->put_exit = r.put_exit;
	if (!rc)
		*rep = r.put;
	return rc;
}

int meas_pilot(struct meas_ctx *mc, struct meas_series *s, uint64_t ops, struct put_report *rep)
{
	/*
	 * Beside the fluids, as in the real runs: on a VM an idle vCPU halts,
	 * and waking it can make an operation many times slower than when the
	 * fluid keeps the CPU busy.
	 */
	return run_once(mc, s, ops, 0, rep);
}

int meas_alone(struct meas_ctx *mc, struct meas_series *s, uint64_t ops, struct put_report *rep)
{
	return run_once(mc, s, ops, 1, rep);
}

int meas_run(struct meas_ctx *mc, struct meas_series *s, uint64_t ops)
{
	static struct exp_corun_result r;
	char bufs[4][32], *argv[96];
	int rc;
	if (!mc->have_prev && (rc = meas_calibrate(mc)))
		return rc;
	struct est_cal before[EXP_MAX_CPUS];
	memcpy(before, mc->prev, sizeof before);
	struct exp_corun_spec spec = corun_spec(mc, s, ops, bufs, argv);
	uint64_t peer0 = 0, peer1 = 0;
	int have_peer = mc->o.peer_pid > 0 && procfs_process_runtime_ns(mc->o.peer_pid, &peer0) == 0;
	rc = exp_corun(mc->env, &spec, &r, mc->err, sizeof mc->err);
	mc->put_exit = r.put_exit;
	if (rc)
		return rc;
	have_peer = have_peer && procfs_process_runtime_ns(mc->o.peer_pid, &peer1) == 0;
	if ((rc = meas_calibrate(mc)))
		return rc;

	struct meas_run run;
	memset(&run, 0, sizeof run);
	run.ops = r.put.ops;
	double sd = cal_sd(mc);
	/*
	 * The PUT's task-clock minus its CPU time: steal while it was current,
	 * plus the share of context-switch time that perf gives the fluid and
	 * the scheduler gives the PUT (or the other way round). Signed: only
	 * the sum with the fluid's own difference is steal. For exec, whose
	 * work is in children, getrusage holds the children's CPU time.
	 */
	const struct put_report *pr = &r.put;
	double put_steal = 0;
	if (pr->task_clock_ns.avail) {
		if (pr->schedstat_ns.avail)
			put_steal = pr->task_clock_ns.v - pr->schedstat_ns.v;
		else if (pr->cputime_ns.avail)
			put_steal = pr->task_clock_ns.v - pr->cputime_ns.v;
		else if (pr->utime_ns.avail && pr->stime_ns.avail)
			put_steal = pr->task_clock_ns.v - pr->utime_ns.v - pr->stime_ns.v;
	}
	for (int i = 0; i < mc->o.cpus.n; i++) {
		struct est_cpu e;
		int is_put = mc->o.cpus.cpu[i] == mc->o.cpu;
		if (est_cpu_from(&r.fluid[i], &before[i], &mc->prev[i], sd, is_put, put_steal, mc->o.use_steal, &e)) {
			snprintf(mc->err, sizeof mc->err, "the fluid did no loops on CPU %d", mc->o.cpus.cpu[i]);
			return -EIO;
		}
		run.cpu_t_put_ns[i] = e.t_put_ns;
		run.t_put_ns += e.t_put_ns;
		run.t_put_robust_ns += e.t_put_robust_ns;
		run.t_put_raw_ns += e.t_put_raw_ns;
		run.drift_ns += e.drift_ns;
		run.calib_ns += e.calib_ns;
		run.cache_ns += e.cache_ns;
		int c = mc->o.cpus.cpu[i];
		if (c == mc->o.cpu) {
			run.tau_f_ns = e.tau_f_ns;
			run.tau0_ns = e.tau0_2_ns;
			run.t2_ns = e.t2_ns;
			run.t2_raw_ns = fluid_raw_wall_ns(&r.fluid[i]);
			run.l2 = e.l2;
			run.lf1 = (before[i].wall_ns / before[i].tau_ns + mc->prev[i].wall_ns / mc->prev[i].tau_ns) / 2;
			run.res_ns = est_res_ns(mc->o.delta_ns, run.l2, run.lf1);
			run.steal_ns = e.steal_ns;
		}
		if (r.have_sirq && c < r.sirq0.ncpu) {
			run.net_rx[i] = (double)(r.sirq1.net_rx[c] - r.sirq0.net_rx[c]);
			run.net_tx[i] = (double)(r.sirq1.net_tx[c] - r.sirq0.net_tx[c]);
		}
	}
	const struct put_report *p = &r.put;
	run.os_ns[SRC_GETRUSAGE] = p->utime_ns.avail && p->stime_ns.avail ? p->utime_ns.v + p->stime_ns.v : NAN;
	run.os_ns[SRC_TASK_CLOCK] = val_ns(&p->task_clock_ns);
	run.os_ns[SRC_SCHEDSTAT] = val_ns(&p->schedstat_ns);
	run.os_ns[SRC_PROCSTAT] = procstat_sys_ns(&r, mc->o.cpu);
	const struct report_val *why_src[MEAS_NSRC] = {
		[SRC_GETRUSAGE] = p->utime_ns.avail ? &p->stime_ns : &p->utime_ns,
		[SRC_TASK_CLOCK] = &p->task_clock_ns,
		[SRC_SCHEDSTAT] = &p->schedstat_ns,
	};
	for (int k = 0; k < MEAS_NSRC; k++)
		if (isnan(run.os_ns[k]))
			snprintf(run.os_why[k], sizeof run.os_why[k], "%s",
				 why_src[k] && !why_src[k]->avail ? why_src[k]->why : "no /proc/stat");
	run.put_wall_ns = (double)(p->end_ns - p->start_ns);
	run.peer_ns = have_peer ? (double)(peer1 - peer0) : NAN;
	run.nvcsw = p->nvcsw;
	run.nivcsw = p->nivcsw;
	run.cmd_status = p->cmd_status;
	return append_run(s, &run);
}

void meas_series_free(struct meas_series *s)
{
	free(s->runs);
	s->runs = NULL;
	s->nruns = s->cap = 0;
}

static void summarize(const double *x, size_t n, struct stats_summary *s)
{
	/* NAN entries (unavailable) are left out */
	double *v = malloc((n ? n : 1) * sizeof *v);
	size_t k = 0;
	memset(s, 0, sizeof *s);
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	if (k)
		stats_summarize(v, k, 0.95, s);
	else
		s->mean = s->sd = s->ci_half = s->cv = s->min = s->max = s->median = NAN;
	free(v);
}

void meas_summarize(const struct meas_ctx *mc, struct meas_series *s, struct meas_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	size_t cap = s->nruns ? s->nruns : 1;
	double *tau = calloc(cap, sizeof *tau), *rob = calloc(cap, sizeof *rob), *start = calloc(cap, sizeof *start);
	double *raw = calloc(cap, sizeof *raw);
	double *os[MEAS_NSRC], *pct[MEAS_NSRC], *pctr[MEAS_NSRC];
	double *peer = calloc(cap, sizeof *peer), *ppct = calloc(cap, sizeof *ppct);
	double *cpu[EXP_MAX_CPUS] = { 0 };
	size_t *idx = calloc(cap, sizeof *idx); /* the run whose outlier flag an estimate sets */
	for (int k = 0; k < MEAS_NSRC; k++) {
		os[k] = calloc(cap, sizeof *os[k]);
		pct[k] = calloc(cap, sizeof *pct[k]);
		pctr[k] = calloc(cap, sizeof *pctr[k]);
	}
	sum->fitted = mc->o.fit;
	sum->ops = s->ops;
	/* a series is summarized again as it grows (--precision): the flags are this summary's */
	for (size_t i = 0; i < s->nruns; i++) {
		s->runs[i].outlier = 0;
		for (int k = 0; k < MEAS_NSRC; k++)
			if (!sum->os_why[k][0] && s->runs[i].os_why[k][0])
				memcpy(sum->os_why[k], s->runs[i].os_why[k], sizeof sum->os_why[k]);
	}
	sum->ncpu = mc->o.cpus.n;
	for (int i = 0; i < sum->ncpu; i++) {
		sum->cpu_id[i] = mc->o.cpus.cpu[i];
		cpu[i] = calloc(cap, sizeof *cpu[i]);
	}
	size_t n = 0;
	double e_drift = 0, e_calib = 0, e_cache = 0, e_res = 0, tf = 0, t0 = 0, wall = 0, wall_ops = 0;
	double rx[EXP_MAX_CPUS] = { 0 }, tx[EXP_MAX_CPUS] = { 0 }, big_ops = 0, small_ops = 0;
	for (size_t i = 0; i < s->nruns; i++) {
		const struct meas_run *r = &s->runs[i];
		tf += r->tau_f_ns;
		t0 += r->tau0_ns;
		wall += r->put_wall_ns;
		wall_ops += (double)r->ops;
		if (r->cmd_status > 0 && !sum->cmd_status)
			sum->cmd_status = r->cmd_status;
	}
	if (s->nruns) {
		sum->tau_f_ns = tf / (double)s->nruns;
		sum->tau0_ns = t0 / (double)s->nruns;
		sum->put_wall_per_op_ns = wall_ops ? wall / wall_ops : NAN;
	}
	if (mc->o.fit) {
		/* pairs: runs alternate L and meas_small_ops(L) */
		for (size_t i = 0; i + 1 < s->nruns; i += 2) {
			const struct meas_run *a = &s->runs[i], *b = &s->runs[i + 1];
			double la = (double)a->ops, lb = (double)b->ops;
			struct est_pair p, pr, pw;
			if (est_pair_from(a->t_put_ns, la, b->t_put_ns, lb, &p))
				continue;
			est_pair_from(a->t_put_robust_ns, la, b->t_put_robust_ns, lb, &pr);
			est_pair_from(a->t_put_raw_ns, la, b->t_put_raw_ns, lb, &pw);
			tau[n] = p.tau_ns;
			rob[n] = pr.tau_ns;
			raw[n] = pw.tau_ns;
			start[n] = p.s_ns;
			idx[n] = i;
			for (int k = 0; k < MEAS_NSRC; k++) {
				os[k][n] = (a->os_ns[k] - b->os_ns[k]) / (la - lb);
				pct[k][n] = est_pct_diff(os[k][n], p.tau_ns);
				pctr[k][n] = est_pct_diff(os[k][n], pr.tau_ns);
			}
			peer[n] = (a->peer_ns - b->peer_ns) / (la - lb);
			ppct[n] = est_pct_diff(os[SRC_GETRUSAGE][n] + peer[n], p.tau_ns);
			for (int c = 0; c < sum->ncpu; c++) {
				cpu[c][n] = (a->cpu_t_put_ns[c] - b->cpu_t_put_ns[c]) / (la - lb);
				rx[c] += a->net_rx[c] - b->net_rx[c];
				tx[c] += a->net_tx[c] - b->net_tx[c];
			}
			big_ops += la;
			small_ops += lb;
			/* the errors of a difference of two runs, per op of the difference */
			e_drift += (a->drift_ns + b->drift_ns) / (la - lb);
			e_calib += sqrt(a->calib_ns * a->calib_ns + b->calib_ns * b->calib_ns) / (la - lb);
			e_cache += (a->cache_ns + b->cache_ns) / (la - lb);
			e_res += (a->res_ns + b->res_ns) / (la - lb);
			n++;
		}
	} else {
		double *null_t = calloc(cap, sizeof *null_t);
		size_t nn = 0;
		for (size_t i = 0; i < s->nruns && null_t; i++)
			if (s->runs[i].ops == 0)
				null_t[nn++] = s->runs[i].t_put_ns;
		if (nn)
			summarize(null_t, nn, &sum->startup);
		free(null_t);
		for (size_t i = 0; i < s->nruns; i++) {
			const struct meas_run *a = &s->runs[i];
			double la = (double)a->ops;
			if (la <= 0)
				continue;
			tau[n] = a->t_put_ns / la;
			rob[n] = a->t_put_robust_ns / la;
			raw[n] = a->t_put_raw_ns / la;
			start[n] = NAN;
			idx[n] = i;
			for (int k = 0; k < MEAS_NSRC; k++) {
				os[k][n] = a->os_ns[k] / la;
				pct[k][n] = est_pct_diff(os[k][n], tau[n]);
				pctr[k][n] = est_pct_diff(os[k][n], rob[n]);
			}
			peer[n] = a->peer_ns / la;
			ppct[n] = est_pct_diff(os[SRC_GETRUSAGE][n] + peer[n], tau[n]);
			for (int c = 0; c < sum->ncpu; c++) {
				cpu[c][n] = a->cpu_t_put_ns[c] / la;
				rx[c] += a->net_rx[c];
				tx[c] += a->net_tx[c];
			}
			big_ops += la;
			e_drift += a->drift_ns / la;
			e_calib += a->calib_ns / la;
			e_cache += a->cache_ns / la;
			e_res += a->res_ns / la;
			n++;
		}
	}
	/*
	 * Outliers (MAD test) are flagged and left out of the mean and CI: an
	 * estimate far from the others, or an excess of displacement over the
	 * PUT's own getrusage far from the others' (other work ran on the CPU
	 * during that pair, though the PUT itself behaved as usual).
	 */
	bool *flag = calloc(n ? n : 1, sizeof *flag);
	size_t nout = flag && n >= 4 ? stats_outliers(tau, n, 3.5, flag) : 0;
	double *excess = flag && n >= 4 ? calloc(n, sizeof *excess) : NULL;
	bool *xflag = excess ? calloc(n, sizeof *xflag) : NULL;
	int have_excess = xflag != NULL;
	for (size_t i = 0; have_excess && i < n; i++) {
		excess[i] = tau[i] - os[SRC_GETRUSAGE][i];
		have_excess = isfinite(excess[i]);
	}
	/*
	 * A gross, rare disturbance only: at least 1 % of tau away from the
	 * median excess (the excess is hidden work displacement is there to
	 * count, and a quiet host's tiny spread would make any wobble an
	 * outlier), and at most a quarter of the pairs (not a heavy tail).
	 */
	size_t nx = have_excess ? stats_outliers(excess, n, 3.5, xflag) : 0;
	if (nx) {
		double mx = stats_median(excess, n), floor_ns = 0.01 * fabs(stats_median(tau, n));
		nx = 0;
		for (size_t i = 0; i < n; i++) {
			xflag[i] = xflag[i] && fabs(excess[i] - mx) > floor_ns;
			nx += xflag[i];
		}
	}
	if (nx && nx <= n / 4) {
		nout = 0;
		for (size_t i = 0; i < n; i++) {
			flag[i] = flag[i] || xflag[i];
			nout += flag[i];
		}
	}
	free(excess);
	free(xflag);
	if (nout && n - nout >= 2) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (flag[i]) {
				s->runs[idx[i]].outlier = 1;
				if (mc->o.fit && idx[i] + 1 < s->nruns)
					s->runs[idx[i] + 1].outlier = 1;
				continue;
			}
			tau[k] = tau[i];
			rob[k] = rob[i];
			raw[k] = raw[i];
			start[k] = start[i];
			for (int m = 0; m < MEAS_NSRC; m++) {
				os[m][k] = os[m][i];
				pct[m][k] = pct[m][i];
				pctr[m][k] = pctr[m][i];
			}
			for (int c = 0; c < sum->ncpu; c++)
				cpu[c][k] = cpu[c][i];
			peer[k] = peer[i];
			ppct[k] = ppct[i];
			k++;
		}
		sum->outliers = nout;
		n = k;
	}
	sum->n = n;
	summarize(tau, n, &sum->tau);
	summarize(rob, n, &sum->tau_robust);
	summarize(raw, n, &sum->tau_raw);
	for (int k = 0; k < MEAS_NSRC; k++) {
		summarize(os[k], n, &sum->os[k]);
		summarize(pct[k], n, &sum->pct[k]);
		summarize(pctr[k], n, &sum->pct_robust[k]);
	}
	summarize(peer, n, &sum->peer);
	summarize(ppct, n, &sum->put_peer_pct);
	for (int c = 0; c < sum->ncpu; c++) {
		struct stats_summary cs;
		summarize(cpu[c], n, &cs);
		sum->cpu_tau_ns[c] = cs.mean;
		double ops_total = mc->o.fit ? big_ops - small_ops : big_ops;
		sum->net_rx_per_op[c] = ops_total > 0 ? rx[c] / ops_total : NAN;
		sum->net_tx_per_op[c] = ops_total > 0 ? tx[c] / ops_total : NAN;
	}
	if (mc->o.fit) {
		struct stats_summary ss;
		summarize(start, n, &ss);
		sum->startup_ns = ss.mean;
		sum->e_start_ns = s->ops ? ss.mean / (double)s->ops : NAN;
	} else {
		sum->startup_ns = sum->startup.n ? sum->startup.mean : NAN;
		sum->e_start_ns = NAN;
	}
	double pairs = (double)(sum->n + sum->outliers);
	if (pairs > 0) {
		sum->e_drift_ns = e_drift / pairs;
		sum->e_calib_ns = e_calib / pairs;
		sum->e_cache_ns = e_cache / pairs;
		sum->e_res_ns = e_res / pairs;
	}
	free(flag);
	free(peer);
	free(ppct);
	free(tau);
	free(rob);
	free(raw);
	free(start);
	free(idx);
	for (int k = 0; k < MEAS_NSRC; k++) {
		free(os[k]);
		free(pct[k]);
		free(pctr[k]);
	}
	for (int c = 0; c < sum->ncpu; c++)
		free(cpu[c]);
}
