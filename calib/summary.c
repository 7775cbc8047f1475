/* summary.c - from the runs of one configuration to its result and error budget */
#include "calib/summary.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t sum_small_ops(uint64_t ops)
{
	return ops >= 4 ? ops / 4 : 0;
}

int sum_startup_check(double s_ns, char *why, size_t len)
{
	if (!(s_ns < 0))
		return 0;
	snprintf(why, len, "the estimate came out below zero (%.1f µs): the runs varied more than the start-up "
			   "costs; use a quieter CPU or more --reps",
		 s_ns / 1e3);
	return 1;
}

double sum_fluid_share(const struct summary *s)
{
	/* tau0 is the fluid's speed in its undisturbed chunks during the co-runs */
	return s->tau_f_ns > 0 && s->tau0_ns > 0 ? s->tau0_ns / s->tau_f_ns : 1;
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

void sum_compute(struct est_run *runs, size_t nruns, const struct sum_opts *o, struct summary *sum)
{
	memset(sum, 0, sizeof *sum);
	size_t cap = nruns ? nruns : 1;
	double *tau = calloc(cap, sizeof *tau), *rob = calloc(cap, sizeof *rob), *start = calloc(cap, sizeof *start);
	double *raw = calloc(cap, sizeof *raw);
	double *os[EST_NSRC], *pct[EST_NSRC], *pctr[EST_NSRC];
	double *peer = calloc(cap, sizeof *peer), *ppct = calloc(cap, sizeof *ppct);
	double *cpu[EST_MAX_CPUS] = { 0 };
	size_t *idx = calloc(cap, sizeof *idx); /* the run whose outlier flag an estimate sets */
	for (int k = 0; k < EST_NSRC; k++) {
		os[k] = calloc(cap, sizeof *os[k]);
		pct[k] = calloc(cap, sizeof *pct[k]);
		pctr[k] = calloc(cap, sizeof *pctr[k]);
	}
	sum->fitted = o->fit;
	sum->ops = o->ops;
	/* a series is summarized again as it grows (--precision): the flags are this summary's */
	for (size_t i = 0; i < nruns; i++) {
		runs[i].outlier = 0;
		for (int k = 0; k < EST_NSRC; k++)
			if (!sum->os_why[k][0] && runs[i].os_why[k][0])
				memcpy(sum->os_why[k], runs[i].os_why[k], sizeof sum->os_why[k]);
	}
	sum->ncpu = o->ncpu;
	for (int i = 0; i < sum->ncpu; i++) {
		sum->cpu_id[i] = o->cpu_id[i];
		cpu[i] = calloc(cap, sizeof *cpu[i]);
	}
	size_t n = 0;
	double e_drift = 0, e_calib = 0, e_cache = 0, e_res = 0, tf = 0, t0 = 0, wall = 0, wall_ops = 0;
	double rx[EST_MAX_CPUS] = { 0 }, tx[EST_MAX_CPUS] = { 0 }, big_ops = 0, small_ops = 0;
	for (size_t i = 0; i < nruns; i++) {
		const struct est_run *r = &runs[i];
		tf += r->tau_f_ns;
		t0 += r->tau0_ns;
		wall += r->put_wall_ns;
		wall_ops += (double)r->ops;
		if (r->cmd_status > 0 && !sum->cmd_status)
			sum->cmd_status = r->cmd_status;
	}
	if (nruns) {
		sum->tau_f_ns = tf / (double)nruns;
		sum->tau0_ns = t0 / (double)nruns;
		sum->put_wall_per_op_ns = wall_ops ? wall / wall_ops : NAN;
	}
	if (o->fit) {
		/* pairs: runs alternate L and sum_small_ops(L) */
		for (size_t i = 0; i + 1 < nruns; i += 2) {
			const struct est_run *a = &runs[i], *b = &runs[i + 1];
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
			for (int k = 0; k < EST_NSRC; k++) {
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
		for (size_t i = 0; i < nruns && null_t; i++)
			if (runs[i].ops == 0)
				null_t[nn++] = runs[i].t_put_ns;
		if (nn)
			summarize(null_t, nn, &sum->startup);
		free(null_t);
		for (size_t i = 0; i < nruns; i++) {
			const struct est_run *a = &runs[i];
			double la = (double)a->ops;
			if (la <= 0)
				continue;
			tau[n] = a->t_put_ns / la;
			rob[n] = a->t_put_robust_ns / la;
			raw[n] = a->t_put_raw_ns / la;
			start[n] = NAN;
			idx[n] = i;
			for (int k = 0; k < EST_NSRC; k++) {
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
				runs[idx[i]].outlier = 1;
				if (o->fit && idx[i] + 1 < nruns)
					runs[idx[i] + 1].outlier = 1;
				continue;
			}
			tau[k] = tau[i];
			rob[k] = rob[i];
			raw[k] = raw[i];
			start[k] = start[i];
			for (int m = 0; m < EST_NSRC; m++) {
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
	for (int k = 0; k < EST_NSRC; k++) {
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
		double ops_total = o->fit ? big_ops - small_ops : big_ops;
		sum->net_rx_per_op[c] = ops_total > 0 ? rx[c] / ops_total : NAN;
		sum->net_tx_per_op[c] = ops_total > 0 ? tx[c] / ops_total : NAN;
	}
	if (o->fit) {
		struct stats_summary ss;
		summarize(start, n, &ss);
		sum->startup_ns = ss.mean;
		sum->e_start_ns = o->ops ? ss.mean / (double)o->ops : NAN;
	} else {
		sum->startup_ns = sum->startup.n ? sum->startup.mean : NAN;
		sum->e_start_ns = NAN;
	}
	/* a negative intercept is noise, not a cost: S and what follows from it are not measurable */
	if (sum_startup_check(sum->startup_ns, sum->startup_why, sizeof sum->startup_why)) {
		sum->startup_ns = NAN;
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
	for (int k = 0; k < EST_NSRC; k++) {
		free(os[k]);
		free(pct[k]);
		free(pctr[k]);
	}
	for (int c = 0; c < sum->ncpu; c++)
		free(cpu[c]);
}
