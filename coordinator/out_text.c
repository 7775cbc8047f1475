/* out_text.c - a measurement's result for people: the block measure prints */
#include "coordinator/out_text.h"

#include <math.h>
#include <string.h>

/* µs with a sensible number of digits; "n/a" when unavailable */
static const char *us(double ns, char *buf, size_t len)
{
	double v = ns / 1e3;
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) < 0.01)
		snprintf(buf, len, "%.5f", v);
	else if (fabs(v) < 10)
		snprintf(buf, len, "%.3f", v);
	else if (fabs(v) < 1000)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.1f", v);
	return buf;
}

const char *out_misses(enum est_src src, const struct context *ctx, int cpu, char *buf, size_t len)
{
	int irq_off = !strcmp(ctx->irq_time_acct, "n");
	switch (src) {
	case SRC_GETRUSAGE:
		snprintf(buf, len, "%s; misses softirq work done on others' time, in ksoftirqd or on other CPUs",
			 irq_off ? "IRQ_TIME_ACCOUNTING=n bills interrupts to whoever runs"
				 : "user/system split is tick-sampled");
		break;
	case SRC_TASK_CLOCK:
		snprintf(buf, len, "the PUT's own run time; misses work done for it in other contexts and CPUs");
		break;
	case SRC_SCHEDSTAT:
		snprintf(buf, len, "sum_exec_runtime, the clock task-clock reads; the same blind spots");
		break;
	case SRC_PROCSTAT:
		snprintf(buf, len, "sys+irq+softirq ticks of CPU %d at USER_HZ=%ld: coarse; includes others' kernel work%s",
			 cpu, ctx->user_hz, irq_off ? "; irq seen only by ticks" : "");
		break;
	default:
		snprintf(buf, len, "?");
	}
	return buf;
}

void out_text_os_table(FILE *f, const struct summary *s, const struct seq_opts *so, const struct context *ctx)
{
	char a[32], b[32], m[256];
	fprintf(f, "  OS accounting, µs per op (%% vs displacement %s µs, paired, ± 95%% CI):\n", us(s->tau.mean, a, sizeof a));
	for (int k = 0; k < EST_NSRC; k++) {
		const struct stats_summary *o = &s->os[k], *p = &s->pct[k];
		char pct[40];
		/* one estimate has no CI: the difference alone, never "± 0" */
		if (isfinite(p->mean) && isfinite(p->ci_half))
			snprintf(pct, sizeof pct, "%+.2f%% ± %.2f", p->mean, p->ci_half);
		else if (isfinite(p->mean))
			snprintf(pct, sizeof pct, "%+.2f%%", p->mean);
		else
			snprintf(pct, sizeof pct, "n/a");
		fprintf(f, "    %-11s %10s   %-18s\n", est_src_name((enum est_src)k), us(o->mean, b, sizeof b), pct);
		/* an unavailable source says why, as put reported it */
		if (!isfinite(o->mean) && s->os_why[k][0])
			fprintf(f, "        not available: %s%s. ", s->os_why[k],
				!strcmp(s->os_why[k], "EOPNOTSUPP") ? " (it cannot count the commands exec runs)" : "");
		else
			fprintf(f, "        ");
		fprintf(f, "%s\n", out_misses((enum est_src)k, ctx, so->cpu, m, sizeof m));
	}
	if (s->peer.n && isfinite(s->peer.mean)) {
		char pct[40];
		if (isfinite(s->put_peer_pct.ci_half))
			snprintf(pct, sizeof pct, "%+.2f%% ± %.2f", s->put_peer_pct.mean, s->put_peer_pct.ci_half);
		else
			snprintf(pct, sizeof pct, "%+.2f%%", s->put_peer_pct.mean);
		fprintf(f, "    %-11s %10s\n", "peer", us(s->peer.mean, b, sizeof b));
		fprintf(f, "        the local peer's own CPU time (schedstat of its threads), on CPU %d\n", so->peer_cpu);
		fprintf(f, "    %-11s %10s   %-18s\n", "PUT + peer", us(s->os[SRC_GETRUSAGE].mean + s->peer.mean, b, sizeof b),
			pct);
		fprintf(f, "        getrusage plus the peer: %s\n",
			so->peer_cpu == so->cpu ? "on one CPU, displacement should match it"
						     : "the peer is on another CPU");
	}
}

void out_text_print(FILE *f, const struct summary *s, const struct seq_opts *so, const struct context *ctx)
{
	char a[32], b[32], c[32], d[32];
	const struct stats_summary *t = &s->tau, *r = &s->tau_robust;
	const char *unit = s->fitted ? "pairs" : "runs";
	if (isfinite(t->ci_half))
		fprintf(f, "  tau_PUT      %s µs ± %s (95%% CI, ±%.2f%%)  n=%zu %s  min…max %s…%s   [displacement]\n",
			us(t->mean, a, sizeof a), us(t->ci_half, b, sizeof b), 100 * t->ci_half / fabs(t->mean), s->n,
			unit, us(t->min, c, sizeof c), us(t->max, d, sizeof d));
	else
		fprintf(f, "  tau_PUT      %s µs (no CI: n=%zu %s)   [displacement]\n", us(t->mean, a, sizeof a), s->n,
			unit);
	if (isfinite(r->mean))
		fprintf(f, "  drift-robust %s µs ± %s (95%% CI)   [fluid speed measured during the run, steal removed]\n",
			us(r->mean, a, sizeof a), us(r->ci_half, b, sizeof b));
	else
		fprintf(f, "  drift-robust n/a   [needs the fluid's chunk timings%s]\n",
			so->sim_res_ns > 1 ? ", which a simulated slow clock hides" : "");
	if (so->sim_res_ns > 1 && isfinite(s->tau_raw.mean))
		fprintf(f, "  real clock   %s µs   [the same runs by CLOCK_MONOTONIC_RAW: the slow clock moved tau_PUT by %s µs]\n",
			us(s->tau_raw.mean, a, sizeof a), us(t->mean - s->tau_raw.mean, b, sizeof b));
	if (s->fitted && s->startup_why[0])
		fprintf(f, "  start-up S   not measurable: %s\n", s->startup_why);
	else if (s->fitted)
		fprintf(f, "  start-up S   %s µs per run (intercept of T_PUT against L; removed by the fit)\n",
			us(s->startup_ns, a, sizeof a));
	if (s->outliers)
		fprintf(f, "  outliers     %zu %s left out (MAD test)\n", s->outliers, unit);
	fprintf(f, "  error budget, µs per op:\n");
	fprintf(f, "    statistical  ±%-10s Student t over %zu %s\n", us(t->ci_half, a, sizeof a), s->n, unit);
	fprintf(f, "    e_res        %-11s bound for clock resolution %.0f ns (twice Woodside sec. 3)\n", us(s->e_res_ns, a, sizeof a),
		so->delta_ns);
	if (s->fitted && s->startup_why[0])
		fprintf(f, "    e_start      %-11s S not measurable (above); the fit removed it anyway\n", "unknown");
	else if (s->fitted)
		fprintf(f, "    e_start      %-11s S/L, already removed by the fit\n", us(s->e_start_ns, a, sizeof a));
	else
		fprintf(f, "    e_start      %-11s not removed: --no-fit\n", "unknown");
	fprintf(f, "    e_drift      %-11s tau_F change between the calibrations around each run\n",
		us(s->e_drift_ns, a, sizeof a));
	fprintf(f, "    e_calib      %-11s uncertainty of the bracketing tau_F\n", us(s->e_calib_ns, a, sizeof a));
	fprintf(f, "    e_cache      %-11s the fluid reloading its cache after PUT bursts\n", us(s->e_cache_ns, a, sizeof a));
	if (s->ncpu > 1) {
		fprintf(f, "  per CPU, µs per op (displacement; NET_RX, NET_TX softirqs per op):\n");
		for (int i = 0; i < s->ncpu; i++)
			fprintf(f, "    CPU %-3d %12s   %.3f   %.3f%s\n", s->cpu_id[i], us(s->cpu_tau_ns[i], a, sizeof a),
				s->net_rx_per_op[i], s->net_tx_per_op[i], s->cpu_id[i] == so->cpu ? "   (the PUT's CPU)" : "");
	}
	fprintf(f, "  fluid        tau_F %.5f ns/loop (bracketing calibrations), undisturbed %.5f\n", s->tau_f_ns,
		s->tau0_ns);
	out_text_os_table(f, s, so, ctx);
}

