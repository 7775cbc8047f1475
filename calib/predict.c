/* predict.c - saturation throughput predicted from measured costs, and the prediction's error */
#include "calib/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pred_name(int k)
{
	return k == PRED_DISPLACEMENT ? "displacement" : k == PRED_DRIFT_ROBUST ? "drift-robust"
										: est_src_name((enum est_src)(k - PRED_OS));
}

const char *pred_key(int k)
{
	return k == PRED_DISPLACEMENT ? "displacement" : k == PRED_DRIFT_ROBUST ? "drift_robust"
										: est_src_key((enum est_src)(k - PRED_OS));
}

int pred_saturated(const struct pred_sat *s)
{
	return !(s->share < PRED_MIN_SAT_SHARE);
}

int pred_below_c(double c_ns, double tau_ns)
{
	return tau_ns < c_ns;
}

double pred_rounds_for(double ci_now, double target, unsigned rounds)
{
	double t = stats_t_quantile(0.975, (double)rounds - 1), k = ci_now / target * 2.0 / t;
	return ceil((double)rounds * k * k);
}

/* x of source k in a run */
static double run_val(const struct est_run *r, int k)
{
	return k == PRED_DISPLACEMENT ? r->t_put_ns : k == PRED_DRIFT_ROBUST ? r->t_put_robust_ns : r->os_ns[k - PRED_OS];
}

/* whether round j counts: its saturated run is valid and its cost pair, if any, was not an outlier */
static int round_kept(const struct pred_in *in, size_t j)
{
	const struct pred_sat *s = &in->sat[j];
	if (!(s->tput > 0) || !isfinite(s->tput) || !pred_saturated(s))
		return 0;
	return 2 * j >= in->ncost || !in->cost[2 * j].outlier;
}

/*
 * The prediction error's CI, from the rounds: round j's cost pair and its
 * saturated run were taken within a second or two, so the host's slow
 * drift moves both. The ratio of paired means keeps that out of the CI
 * (stats_ratio). The rounds are those the error itself comes from
 * (round_kept), so the CI is that of the error shown.
 */
static double paired_err_ci(const struct pred_in *in, int k)
{
	size_t n = in->ncost / 2 < in->nsat ? in->ncost / 2 : in->nsat, m = 0;
	double *num = calloc(n + 1, sizeof *num), *den = calloc(n + 1, sizeof *den), ratio, ci = NAN;
	for (size_t j = 0; num && den && j < n; j++) {
		const struct est_run *a = &in->cost[2 * j], *b = &in->cost[2 * j + 1];
		double c = a->ops > b->ops ? (run_val(a, k) - run_val(b, k)) / (double)(a->ops - b->ops) : NAN;
		if (!round_kept(in, j) || !isfinite(c))
			continue;
		num[m] = 1e9 / in->sat[j].tput; /* ns per message, saturated */
		den[m++] = c;
	}
	if (!num || !den || stats_ratio(num, den, m, 0.95, &ratio, &ci))
		ci = NAN;
	free(num);
	free(den);
	return 100 * ci;
}

/*
 * The measured throughput, pooled: all saturated messages over all
 * saturated time (every run sends the same number), the reciprocal of the
 * mean time per message, its CI by the delta method; over the rounds whose
 * cost pair counts, so that the error and its CI come from the same rounds.
 */
static void pooled_tput(const struct pred_in *in, struct stats_summary *t)
{
	memset(t, 0, sizeof *t);
	t->mean = t->ci_half = NAN;
	double *ns = in->nsat ? malloc(in->nsat * sizeof *ns) : NULL;
	size_t m = 0;
	struct stats_summary s;
	for (size_t j = 0; ns && j < in->nsat; j++)
		if (round_kept(in, j))
			ns[m++] = 1e9 / in->sat[j].tput;
	if (m && !stats_summarize(ns, m, 0.95, &s)) {
		t->n = s.n;
		t->mean = 1e9 / s.mean;
		t->cv = s.cv;
		t->sd = t->mean * s.cv;
		t->min = 1e9 / s.max;
		t->max = 1e9 / s.min;
		t->median = 1e9 / s.median;
		t->ci_half = t->mean * s.ci_half / s.mean;
	}
	free(ns);
}

void pred_compute(const struct pred_in *in, struct pred_out *out)
{
	memset(out, 0, sizeof *out);
	for (size_t j = 0; j < in->nsat; j++)
		out->nunsat += !pred_saturated(&in->sat[j]);
	pooled_tput(in, &out->tput);
	double tau[PRED_NSRC];
	tau[PRED_DISPLACEMENT] = in->scost->tau.mean;
	tau[PRED_DRIFT_ROBUST] = in->scost->tau_robust.mean;
	for (int k = 0; k < EST_NSRC; k++)
		tau[PRED_OS + k] = in->scost->os[k].mean;
	/*
	 * No prediction from a displacement below c. The OS sources stay as
	 * they are: /proc/stat leaves out user time, and showing that is its point.
	 */
	for (int k = 0; k < PRED_NSRC; k++) {
		out->pred[k] = tau[k] > 0 && (k >= PRED_OS || !pred_below_c(in->c_ns, tau[k])) ? 1e9 / tau[k] : NAN;
		out->err_pct[k] = 100 * (out->pred[k] - out->tput.mean) / out->tput.mean;
		out->err_ci[k] = isfinite(out->err_pct[k]) ? paired_err_ci(in, k) : NAN;
	}
}
