/* predict.c - saturation throughput predicted from measured costs, and the prediction's error */
#include "calib/predict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pred_name(int k)
{
	if (k == PRED_DISPLACEMENT)
		return "displacement";
	return k < PRED_OS ? sum_estimator_name((enum sum_estimator)(k - PRED_EST)) : est_src_name((enum est_src)(k - PRED_OS));
}

const char *pred_key(int k)
{
	if (k == PRED_DISPLACEMENT)
		return "displacement";
	return k < PRED_OS ? sum_estimator_key((enum sum_estimator)(k - PRED_EST)) : est_src_key((enum est_src)(k - PRED_OS));
}

int pred_is_displacement(int k)
{
	return k < PRED_OS;
}

int pred_saturated(const struct pred_sat *s)
{
	return !(s->share < PRED_MIN_SAT_SHARE) && !(s->peer_busy >= PRED_MAX_PEER_BUSY);
}

double pred_k_spread(const double *tput, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(tput[i])) {
			lo = fmin(lo, tput[i]);
			hi = fmax(hi, tput[i]);
			sum += tput[i];
			m++;
		}
	return m >= 2 ? 100 * (hi - lo) / 2 / (sum / (double)m) : NAN;
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

/* x of predictor k in a run; def is the result's estimator */
static double run_val(const struct est_run *r, int k, enum sum_estimator def)
{
	enum sum_estimator e = k == PRED_DISPLACEMENT ? def : (enum sum_estimator)(k - PRED_EST);
	if (k >= PRED_OS)
		return r->os_ns[k - PRED_OS];
	return e == SUM_OFFCPU ? r->t_put_offcpu_ns : e == SUM_CLASSIC ? r->t_put_ns : r->t_put_robust_ns;
}

/* whether round j counts: its saturated run is valid and its cost pair, if any, was not an outlier */
static int round_kept(const struct pred_in *in, size_t j)
{
	const struct pred_sat *s = &in->sat[j];
	if (!(s->tput > 0) || !isfinite(s->tput) || !pred_saturated(s))
		return 0;
	return 2 * j >= in->ncost || !in->cost[2 * j].outlier;
}

/* round j's cost per iteration by predictor k: its pair's L run less its null run, per op (NAN: none) */
static double round_cost(const struct pred_in *in, size_t j, int k)
{
	const struct est_run *a = &in->cost[2 * j], *b = &in->cost[2 * j + 1];
	enum sum_estimator def = in->scost->estimator;
	return a->ops > b->ops ? (run_val(a, k, def) - run_val(b, k, def)) / (double)(a->ops - b->ops) : NAN;
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
		double c = round_cost(in, j, k);
		if (!round_kept(in, j) || !isfinite(c))
			continue;
		num[m] = 1e9 / in->sat[j].tput; /* ns per message, saturated */
		den[m++] = c + (in->add_ns ? in->add_ns[j] : 0);
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

int pred_held_share(const struct pred_in *in, double *share, double *ci_half)
{
	size_t n = in->ncost / 2 < in->nsat ? in->ncost / 2 : in->nsat, m = 0;
	double *num = calloc(n + 1, sizeof *num), *den = calloc(n + 1, sizeof *den);
	int rc = num && den ? 0 : -ENOMEM;
	for (size_t j = 0; !rc && j < n; j++) {
		if (!round_kept(in, j))
			continue;
		double off = round_cost(in, j, PRED_EST + SUM_OFFCPU), cl = round_cost(in, j, PRED_EST + SUM_CLASSIC);
		double sat = 1e9 / in->sat[j].tput - (in->add_ns ? in->add_ns[j] : 0);
		if (!isfinite(off) || !isfinite(cl) || !isfinite(sat))
			continue;
		num[m] = sat - off;
		den[m++] = cl - off;
	}
	if (!rc && !m)
		rc = -EINVAL;
	if (!rc && !(stats_mean(den, m) > 0))
		rc = -EDOM;
	if (!rc)
		rc = stats_ratio(num, den, m, 0.95, share, ci_half);
	free(num);
	free(den);
	return rc;
}

void pred_compute(const struct pred_in *in, struct pred_out *out)
{
	memset(out, 0, sizeof *out);
	for (size_t j = 0; j < in->nsat; j++)
		out->nunsat += !pred_saturated(&in->sat[j]);
	pooled_tput(in, &out->tput);
	double tau[PRED_NSRC], add = 0;
	size_t nadd = 0;
	for (size_t j = 0; in->add_ns && j < in->nsat; j++)
		if (round_kept(in, j) && isfinite(in->add_ns[j])) {
			add += in->add_ns[j];
			nadd++;
		}
	add = nadd ? add / (double)nadd : in->add_ns ? in->c_ns : 0;
	tau[PRED_DISPLACEMENT] = in->scost->tau.mean;
	for (int k = 0; k < SUM_NEST; k++)
		tau[PRED_EST + k] = in->scost->est[k].mean;
	for (int k = 0; k < EST_NSRC; k++)
		tau[PRED_OS + k] = in->scost->os[k].mean;
	/*
	 * No prediction from a displacement below c. The OS sources stay as
	 * they are: /proc/stat leaves out user time, and showing that is its point.
	 */
	for (int k = 0; k < PRED_NSRC; k++) {
		/* with K clients the cost is the operation alone, and c is added; else it holds c */
		int starved = !in->add_ns && k < PRED_OS && pred_below_c(in->c_ns, tau[k]);
		out->pred[k] = tau[k] > 0 && !starved ? 1e9 / (tau[k] + add) : NAN;
		out->err_pct[k] = 100 * (out->pred[k] - out->tput.mean) / out->tput.mean;
		out->err_ci[k] = isfinite(out->err_pct[k]) ? paired_err_ci(in, k) : NAN;
	}
}
