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

uint64_t sum_short_ops(uint64_t ops, enum sum_short how)
{
	return how == SUM_SHORT_NULL ? 0 : sum_small_ops(ops);
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

double sum_shared_bound_ns(double b, double tau_ns)
{
	/* b is a difference of times: a little below 0 is that noise about none; far below, unknown */
	if (!isfinite(b) || !isfinite(tau_ns) || b >= 1 || b <= -SUM_MAX_OTHERS_SHARE)
		return NAN;
	return b <= 0 ? 0 : b / (1 - b) * fabs(tau_ns);
}

int sum_shared_cpu(const struct summary *s)
{
	return s->others_share >= SUM_MAX_OTHERS_SHARE;
}

double sum_trace_bound_ns(double traced_switches_per_op, double put_voluntary_per_op)
{
	double own = fmin(2 * put_voluntary_per_op, traced_switches_per_op);
	return own * SUM_TRACE_OWN_SWITCH_NS + (traced_switches_per_op - own) * SUM_TRACE_OTHER_SWITCH_NS;
}

double sum_trace_cost_ns(double put_switches_per_op)
{
	return sum_trace_bound_ns(2 * put_switches_per_op, 0);
}

int sum_auto_trace(const struct summary *s)
{
	if (!sum_shared_cpu(s) && !sum_nowhere_else(s))
		return 0;
	/* NAN (no switch count, no result) is no: the trace's cost would be unknown */
	return sum_trace_cost_ns(s->put_switches_per_op) <= SUM_AUTO_TRACE_MAX_COST * fabs(s->tau.mean);
}

int sum_perturb_compared(int by_task_clock, double hold_ns, double tau_ns)
{
	/* unknown (a fluid without its task-clock, no result): compared, as before the hold was known */
	return by_task_clock || !(fabs(hold_ns) > SUM_PERTURB_MAX_HOLD * fabs(tau_ns));
}

int sum_nowhere_else(const struct summary *s)
{
	return s->other_cpu >= 0 && s->other_cpu_busy >= SUM_MAX_OTHER_CPU_BUSY;
}

double sum_norm_scale(const struct summary *s)
{
	return s->tau.mean != 0 && isfinite(s->tau.mean) && isfinite(s->norm.mean) ? fabs(s->norm.mean / s->tau.mean) : 0;
}

void sum_bound_interval(struct summary *s, int traced)
{
	s->shared_bound_ns = (sum_shared_cpu(s) || (!traced && sum_nowhere_else(s))) && isfinite(s->e_shared_ns)
				     ? s->e_shared_ns
				     : 0;
	double vol = isfinite(s->put_voluntary_per_op) ? s->put_voluntary_per_op : 0;
	s->trace_bound_ns = traced && isfinite(s->traced_switches_per_op)
				    ? sum_trace_bound_ns(s->traced_switches_per_op, vol)
				    : 0;
	double bound = s->shared_bound_ns + s->trace_bound_ns;
	double d = bound - s->tau_bound_ns;
	s->tau.ci_half += d;
	if (s->nremote)
		s->total.ci_half += d; /* this end's bias is the total's */
	s->norm.ci_half += d * sum_norm_scale(s);
	s->tau_bound_ns = bound;
	/*
	 * The cost of these operations always holds the background's bound:
	 * it ran in the PUT's slices too, where the OS bills it to the PUT and
	 * the off-CPU estimator takes it out, so which is the cost is a matter
	 * of definition. Unknown b: NAN, and the interval without it.
	 */
	if (isfinite(s->these.ci_half)) {
		double was = isfinite(s->these_fixed_ns) ? s->these_fixed_ns : 0;
		s->these_bg_ns = s->e_shared_ns;
		s->these_fixed_ns = (isfinite(s->these_bg_ns) ? s->these_bg_ns : 0) +
				    (isfinite(s->these_unbilled_ns) ? s->these_unbilled_ns : 0);
		s->these.ci_half += s->these_fixed_ns - was;
	}
}

double sum_fluid_share(const struct summary *s)
{
	/* tau0 is the fluid's speed in its undisturbed chunks during the co-runs */
	return s->tau_f_ns > 0 && s->tau0_ns > 0 ? s->tau0_ns / s->tau_f_ns : 1;
}

const char *sum_estimator_name(enum sum_estimator e)
{
	static const char *const names[] = { "off-CPU", "classic", "drift-robust" };
	return names[e];
}

const char *sum_estimator_key(enum sum_estimator e)
{
	static const char *const keys[] = { "off_cpu", "classic", "drift_robust" };
	return keys[e];
}

/*
 * One estimate of the cost per operation: a pair's slope (the difference of
 * an L run and an L/4 or null run, over the difference of their op counts)
 * or, without the fit, one run over its ops. Every figure of a run is
 * turned into an estimate the same way.
 */
struct one {
	double est[SUM_NEST];    /* the estimators, enum sum_estimator */
	double raw;              /* classic by the real clock */
	double norm;             /* the result at the reference speed */
	double start;            /* the intercept S of the default estimator (fit only) */
	double os[EST_NSRC];
	double peer;
	double rebill;           /* est_rebill_ns: what the scheduler billed the PUT's CPU's fluid's preempters */
	double cpu[EST_MAX_CPUS]; /* the default estimator per fluid CPU */
	double remote;           /* the other end's, summed over its CPUs (NAN: none) */
	double rcpu[EST_MAX_CPUS]; /* ... per CPU of that end */
	size_t run;              /* the run whose outlier flag it sets */
};

/* a's figure less b's (b NULL: none), per op of the difference */
static double per_op(double a, double b, double ops)
{
	return (a - b) / ops;
}

static double run_est(const struct est_run *r, enum sum_estimator e)
{
	return e == SUM_OFFCPU ? r->t_put_offcpu_ns : e == SUM_CLASSIC ? r->t_put_ns : r->t_put_robust_ns;
}

/* the other end's estimate e, summed over its CPUs (cpu < 0) or of one */
static double end_est(const struct est_end *x, enum sum_estimator e, int cpu)
{
	if (cpu >= 0)
		return e == SUM_OFFCPU ? x->cpu_offcpu_ns[cpu] : e == SUM_CLASSIC ? x->cpu_t_put_ns[cpu] : x->cpu_robust_ns[cpu];
	return e == SUM_OFFCPU ? x->t_put_offcpu_ns : e == SUM_CLASSIC ? x->t_put_ns : x->t_put_robust_ns;
}

/* run r's result scaled to the reference speed: T tau0_ref / tau0 (NAN without both) */
static double run_norm(const struct est_run *r, enum sum_estimator def, double tau0_ref)
{
	return tau0_ref > 0 && r->tau0_ns > 0 ? run_est(r, def) * tau0_ref / r->tau0_ns : NAN;
}

/* the estimate of run a less run b (b NULL: a alone); 0, or -1 if the op counts do not allow one */
static int make_one(const struct est_run *a, const struct est_run *b, enum sum_estimator def,
		    const struct sum_opts *o, int ncpu, struct one *e)
{
	static const struct est_run none;
	const struct est_run *z = b ? b : &none;
	double ops = (double)a->ops - (double)z->ops;
	if (!(ops > 0))
		return -1;
	for (int k = 0; k < SUM_NEST; k++)
		e->est[k] = per_op(run_est(a, (enum sum_estimator)k), run_est(z, (enum sum_estimator)k), ops);
	e->raw = per_op(a->t_put_raw_ns, z->t_put_raw_ns, ops);
	e->norm = per_op(run_norm(a, def, o->tau0_ref_ns), b ? run_norm(b, def, o->tau0_ref_ns) : 0, ops);
	/* the intercept: S = T(l) - l tau (Woodside e_start) */
	e->start = b ? run_est(b, def) - (double)b->ops * e->est[def] : NAN;
	for (int k = 0; k < EST_NSRC; k++)
		e->os[k] = per_op(a->os_ns[k], z->os_ns[k], ops);
	e->peer = per_op(a->peer_ns, z->peer_ns, ops);
	e->rebill = per_op(est_rebill_ns(a), b ? est_rebill_ns(b) : 0, ops);
	for (int c = 0; c < ncpu; c++)
		e->cpu[c] = def == SUM_OFFCPU ? per_op(a->cpu_offcpu_ns[c], z->cpu_offcpu_ns[c], ops)
					      : per_op(a->cpu_t_put_ns[c], z->cpu_t_put_ns[c], ops);
	/* the other end: the same estimator, the same pair */
	e->remote = a->remote.ncpu ? per_op(end_est(&a->remote, def, -1), end_est(&z->remote, def, -1), ops) : NAN;
	for (int c = 0; c < a->remote.ncpu; c++)
		e->rcpu[c] = per_op(end_est(&a->remote, def, c), end_est(&z->remote, def, c), ops);
	return 0;
}

/* the finite values of x[0..n) summarized; all NAN when there are none */
static void summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	size_t k = 0;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; v && i < n; i++)
		if (isfinite(x[i]))
			v[k++] = x[i];
	if (k)
		stats_summarize(v, k, 0.95, s);
	else
		s->mean = s->sd = s->ci_half = s->cv = s->min = s->max = s->median = NAN;
	free(v);
}

/* one figure of every kept estimate, summarized; f picks it */
static void column(const struct one *e, size_t n, double (*f)(const struct one *, const void *), const void *arg,
		   struct stats_summary *s)
{
	double *x = calloc(n ? n : 1, sizeof *x);
	for (size_t i = 0; x && i < n; i++)
		x[i] = f(&e[i], arg);
	summarize(x, x ? n : 0, s);
	free(x);
}

static double col_est(const struct one *e, const void *k)
{
	return e->est[*(const int *)k];
}

static double col_os(const struct one *e, const void *k)
{
	return e->os[*(const int *)k];
}

/* a source's paired % difference from an estimator: k is {source, estimator} */
static double col_pct(const struct one *e, const void *k)
{
	const int *sk = k;
	return est_pct_diff(e->os[sk[0]], e->est[sk[1]]);
}

static double col_cpu(const struct one *e, const void *c)
{
	return e->cpu[*(const int *)c];
}

static double col_remote(const struct one *e, const void *unused)
{
	(void)unused;
	return e->remote;
}

/* both ends: this end's result plus the other end's, estimate by estimate */
static double col_total(const struct one *e, const void *def)
{
	return e->est[*(const int *)def] + e->remote;
}

static double col_rcpu(const struct one *e, const void *c)
{
	return e->rcpu[*(const int *)c];
}

static double col_raw(const struct one *e, const void *unused)
{
	(void)unused;
	return e->raw;
}

static double col_norm(const struct one *e, const void *unused)
{
	(void)unused;
	return e->norm;
}

static double col_start(const struct one *e, const void *unused)
{
	(void)unused;
	return e->start;
}

static double col_peer(const struct one *e, const void *unused)
{
	(void)unused;
	return e->peer;
}

static double col_peer_pct(const struct one *e, const void *def)
{
	return est_pct_diff(e->os[SRC_GETRUSAGE] + e->peer, e->est[*(const int *)def]);
}

/* the time the fluid held the CPU without progressing: classic less off-CPU */
static double col_held(const struct one *e, const void *unused)
{
	(void)unused;
	return e->est[SUM_CLASSIC] - e->est[SUM_OFFCPU];
}

/*
 * The OS's account that shares the estimator's clock: the off-CPU
 * estimator is the fluid's time switched out, by perf at the context
 * switches, so its partner is the PUT's task-clock, switched in at the same
 * switches (with --task-clock). getrusage bills a wake-up IPI's hold on the
 * fluid's CPU to the woken PUT (rq_clock_skip_update), which classic counts
 * and off-CPU does not; the fluid's scheduler CPU time falls short of its
 * task-clock by the same time, so without a counter on the PUT the account
 * is getrusage less that (est_rebill_ns: *rebilled). Plain getrusage for
 * the other estimators, or when any estimate lacks the figure (off-CPU
 * needs the fluid's task-clock too, so only a hand-made run lacks it): one
 * source for every pair, since a line fitted on a mixed account is not one
 * line. The rebill is the PUT's CPU's: a local peer on another fluid CPU
 * keeps its own share of a wake-up's hold.
 */
static enum est_src these_account(const struct one *e, size_t n, int def, int *rebilled)
{
	int tc = def == SUM_OFFCPU, rb = def == SUM_OFFCPU;
	for (size_t i = 0; i < n; i++)
		if (isfinite(e[i].est[def])) {
			tc = tc && isfinite(e[i].os[SRC_TASK_CLOCK]);
			rb = rb && isfinite(e[i].rebill);
		}
	*rebilled = !tc && rb;
	return tc ? SRC_TASK_CLOCK : SRC_GETRUSAGE;
}

/*
 * estimate e's OS account by src: the PUT's tasks, and the local peer when
 * it runs on a fluid CPU, less what the scheduler billed them of the
 * fluid's time on the PUT's CPU when rebilled
 */
static double account_of(const struct one *e, enum est_src src, int peer_here, int rebilled)
{
	return e->os[src] + (peer_here ? e->peer : 0) - (rebilled ? e->rebill : 0);
}

/*
 * The cost of these operations: the result's mean, and its statistical
 * interval given each estimate's OS account of the PUT's tasks on the
 * fluid CPUs (summary.these): these_account's source, plus the local
 * peer's CPU time when it runs there. All NAN when an estimate lacks that
 * account.
 */
static void these_ops(const struct one *e, size_t n, int def, int peer_here, const struct stats_summary *tau,
		      struct summary *sum)
{
	struct stats_summary *t = &sum->these;
	double *y = calloc(n ? n : 1, sizeof *y), *x = calloc(n ? n : 1, sizeof *x);
	size_t k = 0;
	int have = y && x; /* out of memory: no figure, as without the account */
	sum->these_src = these_account(e, n, def, &sum->these_rebilled);
	sum->these_peer = peer_here;
	for (size_t i = 0; have && i < n; i++) {
		if (!isfinite(e[i].est[def]))
			continue;
		y[k] = e[i].est[def];
		x[k] = account_of(&e[i], sum->these_src, peer_here, sum->these_rebilled);
		have = isfinite(x[k++]);
	}
	*t = *tau;
	t->sd = t->ci_half = t->cv = sum->these_os_cv = sum->these_bg_ns = sum->these_fixed_ns = NAN;
	/* the PUT's unbilled time (steal, preempting wake-ups' holds): counted by the estimate, not by getrusage */
	sum->these_unbilled_ns = sum->these_src == SRC_TASK_CLOCK || def == SUM_ROBUST
					 ? 0
					 : sum_shared_bound_ns(sum->unbilled_share, tau->mean);
	if (!have)
		t->mean = t->median = t->min = t->max = NAN;
	double sd, half;
	if (have && k >= 3) {
		if (stats_given_ci(y, x, k, 0.95, &sd, &half)) {
			/* an account that did not move explains nothing: y's own spread, on the same n - 2 */
			sd = stats_sd(y, k);
			half = stats_t_quantile(0.975, (double)(k - 2)) * sd / sqrt((double)k);
		}
		t->sd = sd;
		t->ci_half = half; /* the background's bound joins it in sum_bound_interval */
		t->cv = t->mean ? sd / fabs(t->mean) : 0;
		double mx = stats_mean(x, k);
		sum->these_os_cv = mx > 0 ? stats_sd(x, k) / mx : NAN;
	}
	free(y);
	free(x);
}

/*
 * Outliers (MAD test) are flagged: an estimate far from the others, or an
 * excess of the estimate over the OS's account of the PUT's tasks far from
 * the others' (other work ran on the CPU during that pair, though the PUT
 * itself behaved as usual). The account is the one the cost of these
 * operations uses: the estimator's clock (these_account), and the local
 * peer when it shares the fluid CPUs and its CPU time is known in every
 * estimate (else the PUT's own account alone, not rebilled, as before the
 * peer was counted: the test stays on). getrusage would make a pair whose wake-ups it billed
 * to the PUT, and the off-CPU estimator did not, look like one with less
 * other work.
 *
 * An estimate far off whose excess is as usual had the account move with
 * it: the PUT's own time changed (its work, or a hypervisor's steal in its
 * slices), not another task's. It is the cost, not a disturbance, so it is
 * kept, and counted (sum->moved_*): the interval holds it, as the OS's
 * account and a saturated run would. A far estimate whose excess is far off
 * too is other work, even where the excess test alone would not leave it
 * out (more than a quarter of such excesses). Without an account in every
 * estimate (have_excess 0), every far estimate is left out, as before.
 * unmoved_ns is the mean of the estimates not flagged here (sum_compute
 * keeps all when fewer than 2 would be left). Returns how many are
 * flagged.
 */
static size_t outliers(const struct one *e, size_t n, int def, int peer_here, bool *flag, struct summary *sum)
{
	if (n < 4)
		return 0;
	double *tau = calloc(n, sizeof *tau), *excess = calloc(n, sizeof *excess);
	bool *xflag = calloc(n, sizeof *xflag), *moved = calloc(n, sizeof *moved);
	size_t nout = 0;
	if (!tau || !excess || !xflag || !moved)
		goto out;
	int have_excess = 1;
	int rebilled;
	enum est_src src = these_account(e, n, def, &rebilled);
	for (size_t i = 0; i < n && peer_here; i++)
		if (isfinite(e[i].est[def]) && !isfinite(e[i].peer))
			peer_here = rebilled = 0; /* the rebill holds the peer's holds too: not without the peer */
	for (size_t i = 0; i < n; i++) {
		tau[i] = e[i].est[def];
		excess[i] = tau[i] - account_of(&e[i], src, peer_here, rebilled);
		have_excess = have_excess && isfinite(excess[i]);
	}
	/*
	 * A gross disturbance only: at least 1 % of tau away from the median
	 * (a quiet host's tiny spread would make any wobble an outlier, and a
	 * wobble is part of the cost's spread). For the excess, the same, and
	 * at most a quarter of the pairs (not a heavy tail): the excess is
	 * hidden work displacement is there to count.
	 */
	double mt = stats_median(tau, n), floor_ns = 0.01 * fabs(mt);
	stats_outliers(tau, n, 3.5, flag);
	nout = 0;
	for (size_t i = 0; i < n; i++) {
		flag[i] = flag[i] && fabs(tau[i] - mt) > floor_ns;
		nout += flag[i];
	}
	size_t nx = have_excess ? stats_outliers(excess, n, 3.5, xflag) : 0, nmoved = 0;
	if (have_excess) {
		double mx = stats_median(excess, n);
		nx = 0;
		for (size_t i = 0; i < n; i++) {
			xflag[i] = xflag[i] && fabs(excess[i] - mx) > floor_ns;
			nx += xflag[i];
			moved[i] = flag[i] && !xflag[i];
			nmoved += moved[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		if (moved[i]) {
			flag[i] = 0;
			nout--;
		}
	if (nx && nx <= n / 4) {
		nout = 0;
		for (size_t i = 0; i < n; i++) {
			flag[i] = flag[i] || xflag[i];
			nout += flag[i];
		}
	}
	/* the moved estimates above and below the others, and the others kept */
	double above = 0, below = 0, rest = 0;
	size_t nr = 0;
	for (size_t i = 0; i < n && nmoved; i++) {
		if (moved[i] && tau[i] > mt) {
			above += tau[i];
			sum->moved_above++;
		} else if (moved[i]) {
			below += tau[i];
			sum->moved_below++;
		} else if (!flag[i]) {
			rest += tau[i];
			nr++;
		}
	}
	sum->moved_above_ns = sum->moved_above ? above / (double)sum->moved_above : NAN;
	sum->moved_below_ns = sum->moved_below ? below / (double)sum->moved_below : NAN;
	sum->unmoved_ns = nr ? rest / (double)nr : NAN;
out:
	free(tau);
	free(excess);
	free(xflag);
	free(moved);
	return nout;
}

/* the spells test on the kept estimates e[0..n), in time order (summary.tau_batch_half_ns) */
static void spells(const struct one *e, size_t n, int def, struct summary *sum)
{
	sum->tau_batch_half_ns = sum->tau_batch_f = sum->tau_batch_p = NAN;
	for (int b = 0; b < SUM_BATCHES; b++)
		sum->tau_batch_means_ns[b] = NAN;
	sum->spells = 0;
	double *x = n >= SUM_BATCH_MIN ? calloc(n, sizeof *x) : NULL;
	size_t k = 0;
	for (size_t i = 0; x && i < n; i++)
		if (isfinite(e[i].est[def]))
			x[k++] = e[i].est[def];
	if (k >= SUM_BATCH_MIN && !stats_batch_means(x, k, SUM_BATCHES, sum->tau_batch_means_ns)) {
		sum->tau_batch_half_ns = stats_batch_half(x, k, SUM_BATCHES, 0.95);
		sum->tau_batch_f = stats_batch_f(x, k, SUM_BATCHES, &sum->tau_batch_p);
		sum->spells = sum->tau_batch_p < STATS_SPELLS_P;
	}
	free(x);
}

/*
 * The accounting consistency check, per run on the PUT's CPU: the fluid and
 * the PUT cannot run at once, so the fluid's loops at its undisturbed speed
 * plus the PUT's own CPU time by a source fit in the fluid's wall time. A
 * run breaks it when the sum exceeds the wall time by more than
 * SUM_CLOCK_TOLERANCE of it (the undisturbed speed is known to about 0.1 %).
 * Likewise the fluid's own scheduler CPU time cannot be less than its loops
 * at that speed.
 */
#define SUM_CLOCK_TOLERANCE 0.01

static void consistency(const struct est_run *runs, size_t nruns, struct summary *s)
{
	double ops[EST_NSRC] = { 0 }, over[EST_NSRC] = { 0 }, uops = 0, under = 0;
	size_t nrun[EST_NSRC] = { 0 }, nbad[EST_NSRC] = { 0 }, un = 0, ubad = 0;
	for (size_t i = 0; i < nruns; i++) {
		const struct est_run *r = &runs[i];
		if (!r->ops || !(r->tau0_ns > 0) || !(r->t2_ns > 0))
			continue;
		double work = r->l2 * r->tau0_ns, tol = SUM_CLOCK_TOLERANCE * r->t2_ns;
		for (int k = 0; k < EST_NSRC; k++) {
			if (k == SRC_PROCSTAT || !isfinite(r->os_ns[k]))
				continue;
			double x = work + r->os_ns[k] - r->t2_ns;
			nrun[k]++;
			if (x > tol) {
				nbad[k]++;
				over[k] += x;
				ops[k] += (double)r->ops;
			}
		}
		if (r->fluid_cpu_ns > 0) {
			double x = work - r->fluid_cpu_ns;
			un++;
			if (x > SUM_CLOCK_TOLERANCE * work) {
				ubad++;
				under += x;
				uops += (double)r->ops;
			}
		}
	}
	for (int k = 0; k < EST_NSRC; k++) {
		s->clock_lie_frac[k] = nrun[k] ? (double)nbad[k] / (double)nrun[k] : NAN;
		s->clock_excess_ns[k] = ops[k] > 0 ? over[k] / ops[k] : 0;
	}
	s->fluid_underbilled_frac = un ? (double)ubad / (double)un : NAN;
	s->fluid_underbilled_ns = uops > 0 ? under / uops : 0;
}

/*
 * The PUT beside the fluid (estimate j) against the PUT alone (alone run j),
 * for a result of tau_ns per op.
 */
static void perturbation(const struct est_run *runs, size_t nruns, const struct sum_opts *o, double tau_ns,
			 struct sum_perturb *p)
{
	size_t step = o->fit ? 2 : 1, n = 0;
	double hold = 0, hold_ops = 0;
	int by_tc = 1;
	size_t cap = o->nalone ? o->nalone : 1;
	double *w[4], *ch[2];
	for (int k = 0; k < 4; k++)
		w[k] = calloc(cap, sizeof *w[k]);
	ch[0] = calloc(cap, sizeof *ch[0]);
	ch[1] = calloc(cap, sizeof *ch[1]);
	for (size_t j = 0; w[3] && ch[1] && j < o->nalone && (j + 1) * step <= nruns; j++) {
		const struct est_run *a = &runs[j * step], *b = o->fit ? &runs[j * step + 1] : NULL;
		const struct est_alone *x = &o->alone[j];
		double ops = (double)a->ops + (b ? (double)b->ops : 0);
		if (!(ops > 0) || !x->ops)
			continue;
		w[0][n] = x->wall_ns / (double)x->ops;
		w[1][n] = (a->put_wall_ns + (b ? b->put_wall_ns : 0)) / ops;
		/* both sides by task-clock if the alone run and the co-runs have it, else both by getrusage */
		int tc = x->by_task_clock && isfinite(a->os_ns[SRC_TASK_CLOCK]) &&
			 (!b || isfinite(b->os_ns[SRC_TASK_CLOCK]));
		by_tc &= tc;
		w[2][n] = (tc ? x->cpu_ns : x->getrusage_ns) / (double)x->ops;
		w[3][n] = 0;
		for (const struct est_run *r = a; r; r = r == a ? b : NULL) {
			w[3][n] += r->os_ns[tc ? SRC_TASK_CLOCK : SRC_GETRUSAGE];
			/* the fluid's time getrusage billed the PUT, where that is known */
			if (!tc && isfinite(est_rebill_ns(r))) {
				hold += est_rebill_ns(r);
				hold_ops += (double)r->ops;
			}
		}
		w[3][n] /= ops;
		ch[0][n] = est_pct_diff(w[1][n], w[0][n]);
		ch[1][n] = est_pct_diff(w[3][n], w[2][n]);
		n++;
	}
	p->n = n;
	p->by_task_clock = n && by_tc;
	p->hold_ns = hold_ops > 0 ? hold / hold_ops : NAN;
	p->cpu_compared = sum_perturb_compared(p->by_task_clock, p->hold_ns, tau_ns);
	summarize(w[0], n, &p->wall_alone);
	summarize(w[1], n, &p->wall_corun);
	summarize(w[2], n, &p->cpu_alone);
	summarize(w[3], n, &p->cpu_corun);
	summarize(ch[0], n, &p->wall_change);
	summarize(ch[1], n, &p->cpu_change);
	for (int k = 0; k < 4; k++)
		free(w[k]);
	free(ch[0]);
	free(ch[1]);
}

/*
 * The other end's figures (o->nremote CPUs): its cost and both ends' total
 * over the kept estimates e[0..n), each CPU's, and its error terms per op
 * over every pair, as the PUT's end's are.
 */
static void other_end(const struct one *e, size_t n, const struct est_run *runs, size_t nruns,
		      const struct sum_opts *o, int def, struct summary *sum)
{
	sum->nremote = o->nremote;
	for (int c = 0; c < o->nremote; c++)
		sum->remote_cpu_id[c] = o->remote_cpu_id[c];
	column(e, n, col_remote, NULL, &sum->remote);
	column(e, n, col_total, &def, &sum->total);
	for (int c = 0; c < o->nremote; c++) {
		struct stats_summary cs;
		column(e, n, col_rcpu, &c, &cs);
		sum->remote_cpu_tau_ns[c] = cs.mean;
	}
	double err[EST_NERR] = { 0 }, all = 0;
	size_t step = o->fit ? 2 : 1;
	for (size_t i = 0; i + step - 1 < nruns; i += step) {
		const struct est_end *a = &runs[i].remote, *b = o->fit ? &runs[i + 1].remote : NULL;
		double ops = (double)runs[i].ops - (b ? (double)runs[i + 1].ops : 0);
		if (!(ops > 0))
			continue;
		/* a pair's two runs add up, e_calib in quadrature (independent calibrations) */
		for (int k = 0; k < EST_NERR; k++) {
			double x = a->err_ns[k], y = b ? b->err_ns[k] : 0;
			err[k] += (k == EST_E_CALIB ? sqrt(x * x + y * y) : x + y) / ops;
		}
		all++;
	}
	for (int k = 0; k < EST_NERR; k++)
		sum->remote_err_ns[k] = all > 0 ? err[k] / all : NAN;
}

/* the message bytes the PUT sent per operation, over every run that says */
static double bytes_per_op(const struct est_run *runs, size_t nruns)
{
	double bytes = 0, ops = 0;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].ops && isfinite(runs[i].bytes)) {
			bytes += runs[i].bytes;
			ops += (double)runs[i].ops;
		}
	return ops > 0 ? bytes / ops : NAN;
}

int sum_clock_lies(const struct summary *s, int src)
{
	return s->clock_lie_frac[src] >= 0.5;
}

void sum_compute(struct est_run *runs, size_t nruns, const struct sum_opts *o, struct summary *sum)
{
	memset(sum, 0, sizeof *sum);
	sum->other_cpu = -1;
	sum->other_cpu_busy = NAN;
	sum->traced_share = sum->traced_cal_share = sum->unknown_share = sum->traced_switches_per_op = NAN;
	struct one *e = calloc(nruns ? nruns : 1, sizeof *e);
	bool *flag = calloc(nruns ? nruns : 1, sizeof *flag);
	sum->fitted = o->fit;
	sum->ops = o->ops;
	sum->ncpu = o->ncpu;
	for (int i = 0; i < sum->ncpu; i++)
		sum->cpu_id[i] = o->cpu_id[i];
	/* the default estimator needs its inputs in every run: off-CPU needs the fluid's task-clock */
	int def = o->estimator;
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].ops && (!isfinite(run_est(&runs[i], (enum sum_estimator)def)) ||
				    (runs[i].remote.ncpu && !isfinite(end_est(&runs[i].remote, (enum sum_estimator)def, -1)))))
			def = SUM_CLASSIC; /* one estimator for both ends */
	sum->estimator = (enum sum_estimator)def;

	double e_drift = 0, e_calib = 0, e_cache = 0, e_res = 0, e_bg = 0, tf = 0, t0 = 0, wall = 0,
	       wall_ops = 0, idle = 0, nidle = 0, traced = 0, traced_cal = 0, unknown = 0, ntraced = 0, switches = 0, switch_ops = 0,
	       put_switches = 0, put_voluntary = 0, put_switch_ops = 0;
	double *others = calloc(nruns ? nruns : 1, sizeof *others), *unbilled = calloc(nruns ? nruns : 1, sizeof *unbilled);
	size_t nothers = 0, nunbilled = 0;
	double rx[EST_MAX_CPUS] = { 0 }, tx[EST_MAX_CPUS] = { 0 }, ipi[EST_MAX_CPUS] = { 0 },
	       dev[EST_MAX_CPUS] = { 0 }, ops_total = 0, ops_all = 0;
	/* a series is summarized again as it grows (--precision): the flags are this summary's */
	for (size_t i = 0; i < nruns; i++) {
		const struct est_run *r = &runs[i];
		runs[i].outlier = 0;
		for (int k = 0; k < EST_NSRC; k++)
			if (!sum->os_why[k][0] && r->os_why[k][0])
				memcpy(sum->os_why[k], r->os_why[k], sizeof sum->os_why[k]);
		tf += r->tau_f_ns;
		t0 += r->tau0_ns;
		if (others && r->ops && isfinite(r->others_share))
			others[nothers++] = r->others_share;
		if (unbilled && r->ops && isfinite(r->steal_ns) && r->t2_ns > 0)
			unbilled[nunbilled++] = r->steal_ns / r->t2_ns;
		if (r->ops && isfinite(r->idle_share)) {
			idle += r->idle_share;
			nidle++;
		}
		/* shares of the co-run's whole wall time: t2_ns has the traced stretches cut out */
		double whole = r->t2_ns + r->traced_ns;
		if (r->ops && isfinite(r->traced_ns) && isfinite(r->traced_cal_share) && whole > 0) {
			traced += r->traced_ns / whole;
			traced_cal += r->traced_cal_share;
			unknown += isfinite(r->unknown_ns) ? r->unknown_ns / whole : 0;
			ntraced++;
			if (isfinite(r->traced_switches)) {
				switches += r->traced_switches;
				switch_ops += (double)r->ops;
			}
		}
		if (r->ops && r->nvcsw >= 0 && r->nivcsw >= 0) {
			put_switches += (double)(r->nvcsw + r->nivcsw);
			put_voluntary += (double)r->nvcsw;
			put_switch_ops += (double)r->ops;
		}
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
	/* with the fit, runs alternate L and sum_small_ops(L): pairs; else each run with ops */
	size_t n = 0, step = o->fit ? 2 : 1;
	for (size_t i = 0; e && i + step - 1 < nruns; i += step) {
		const struct est_run *a = &runs[i], *b = o->fit ? &runs[i + 1] : NULL;
		if (make_one(a, b, (enum sum_estimator)def, o, sum->ncpu, &e[n]))
			continue;
		e[n].run = i;
		double ops = (double)a->ops - (b ? (double)b->ops : 0);
		/* the error terms of an estimate, per op of it: a pair's two runs add up */
		e_drift += (a->drift_ns + (b ? b->drift_ns : 0)) / ops;
		e_calib += sqrt(a->calib_ns * a->calib_ns + (b ? b->calib_ns * b->calib_ns : 0)) / ops;
		e_cache += (a->cache_ns + (b ? b->cache_ns : 0)) / ops;
		e_res += (a->res_ns + (b ? b->res_ns : 0)) / ops;
		e_bg += (a->bg_ns + (b ? b->bg_ns : 0)) / ops;
		for (int c = 0; c < sum->ncpu; c++) {
			rx[c] += a->net_rx[c] - (b ? b->net_rx[c] : 0);
			tx[c] += a->net_tx[c] - (b ? b->net_tx[c] : 0);
			/* counts, not costs: over all the runs' operations, never negative */
			ipi[c] += a->ipi[c] + (b ? b->ipi[c] : 0);
			dev[c] += a->dev_irq[c] + (b ? b->dev_irq[c] : 0);
		}
		ops_total += ops;
		ops_all += (double)a->ops + (b ? (double)b->ops : 0);
		n++;
	}
	if (!o->fit) {
		/* null runs: the start-up cost S alone */
		double *null_t = calloc(nruns ? nruns : 1, sizeof *null_t);
		size_t nn = 0;
		for (size_t i = 0; i < nruns && null_t; i++)
			if (runs[i].ops == 0)
				null_t[nn++] = run_est(&runs[i], (enum sum_estimator)def);
		if (nn)
			summarize(null_t, nn, &sum->startup);
		free(null_t);
	}
	sum->moved_above_ns = sum->moved_below_ns = sum->unmoved_ns = NAN;
	size_t nout = flag && e ? outliers(e, n, def, o->peer_here, flag, sum) : 0;
	if (nout && n - nout >= 2) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (flag[i]) {
				runs[e[i].run].outlier = 1;
				if (o->fit && e[i].run + 1 < nruns)
					runs[e[i].run + 1].outlier = 1;
				continue;
			}
			e[k++] = e[i];
		}
		sum->outliers = nout;
		n = k;
	}
	sum->n = n;
	for (int k = 0; k < SUM_NEST; k++)
		column(e, n, col_est, &k, &sum->est[k]);
	sum->tau = sum->est[def];
	spells(e, n, def, sum);
	column(e, n, col_raw, NULL, &sum->tau_raw);
	column(e, n, col_norm, NULL, &sum->norm);
	sum->tau0_ref_ns = o->tau0_ref_ns;
	sum->tau0_ref_saved = o->tau0_ref_saved;
	for (int k = 0; k < EST_NSRC; k++) {
		int against[2] = { k, def }, robust[2] = { k, SUM_ROBUST };
		column(e, n, col_os, &k, &sum->os[k]);
		column(e, n, col_pct, against, &sum->pct[k]);
		column(e, n, col_pct, robust, &sum->pct_robust[k]);
	}
	column(e, n, col_peer, NULL, &sum->peer);
	column(e, n, col_peer_pct, &def, &sum->put_peer_pct);
	column(e, n, col_held, NULL, &sum->held);
	for (int c = 0; c < sum->ncpu; c++) {
		struct stats_summary cs;
		column(e, n, col_cpu, &c, &cs);
		sum->cpu_tau_ns[c] = cs.mean;
		sum->net_rx_per_op[c] = ops_total > 0 ? rx[c] / ops_total : NAN;
		sum->net_tx_per_op[c] = ops_total > 0 ? tx[c] / ops_total : NAN;
		sum->ipi_per_op[c] = ops_all > 0 ? ipi[c] / ops_all : NAN;
		sum->dev_irq_per_op[c] = ops_all > 0 ? dev[c] / ops_all : NAN;
	}
	if (o->fit) {
		struct stats_summary ss;
		column(e, n, col_start, NULL, &ss);
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
	double all = (double)(sum->n + sum->outliers);
	if (all > 0) {
		sum->e_drift_ns = e_drift / all;
		sum->e_calib_ns = e_calib / all;
		sum->e_cache_ns = e_cache / all;
		sum->e_res_ns = e_res / all;
		sum->e_bg_ns = e_bg / all;
	}
	/* the median: a neighbour is there in every run, a noisy host's burst in a few */
	sum->others_share = nothers ? stats_median(others, nothers) : NAN;
	sum->unbilled_share = nunbilled ? stats_median(unbilled, nunbilled) : NAN;
	free(others);
	free(unbilled);
	sum->idle_share = nidle ? idle / nidle : NAN;
	sum->traced_share = ntraced ? traced / ntraced : NAN;
	sum->traced_cal_share = ntraced ? traced_cal / ntraced : NAN;
	sum->unknown_share = ntraced ? unknown / ntraced : NAN;
	sum->traced_switches_per_op = switch_ops > 0 ? switches / switch_ops : NAN;
	sum->put_switches_per_op = put_switch_ops > 0 ? put_switches / put_switch_ops : NAN;
	sum->put_voluntary_per_op = put_switch_ops > 0 ? put_voluntary / put_switch_ops : NAN;
	sum->e_shared_ns = sum_shared_bound_ns(sum->others_share, sum->tau.mean);
	these_ops(e, n, def, o->peer_here, &sum->tau, sum);
	sum->tau_bound_ns = 0; /* sum_bound_interval, once the caller knows the other CPUs */
	consistency(runs, nruns, sum);
	perturbation(runs, nruns, o, sum->tau.mean, &sum->perturb);
	if (o->nremote && e)
		other_end(e, n, runs, nruns, o, def, sum);
	sum->bytes_per_op = bytes_per_op(runs, nruns);
	free(flag);
	free(e);
}
