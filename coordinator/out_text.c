/* out_text.c - a measurement's result for people: the block measure prints */
#include "coordinator/out_text.h"

#include <math.h>
#include <string.h>

/*
 * print_wrapped - text from column col, broken at spaces before column
 * width (in bytes), each later line indented to column indent; a word
 * longer than a line stands alone on it; a newline at the end
 */
static void print_wrapped(FILE *f, const char *text, int col, int indent, int width)
{
	if (!*text)
		fputc('\n', f);
	while (*text) {
		int room = width - col, n = (int)strlen(text);
		if (n > room) {
			int cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			n = cut > 0 ? cut : (int)strcspn(text, " ");
		}
		int shown = n;
		while (shown > 0 && text[shown - 1] == ' ')
			shown--;
		fprintf(f, "%.*s\n", shown, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

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
		if (!isfinite(o->mean) && !strcmp(s->os_why[k], "ECANCELED"))
			fprintf(f, "        not counted: --task-clock counts it, at a cost to each of the PUT's context switches. ");
		else if (!isfinite(o->mean) && s->os_why[k][0])
			fprintf(f, "        not available: %s%s. ", s->os_why[k],
				!strcmp(s->os_why[k], "EOPNOTSUPP") ? " (it cannot count the commands exec runs)" : "");
		else
			fprintf(f, "        ");
		fprintf(f, "%s\n", out_misses((enum est_src)k, ctx, so->cpu, m, sizeof m));
		if (k != SRC_PROCSTAT && sum_clock_lies(s, k))
			fprintf(f, "        ! with the fluid's loops it bills more than the CPU had, by %s µs per op in %.0f%% of\n"
				   "          the runs: it charges the PUT time that was not its own (see the consistency check)\n",
				us(s->clock_excess_ns[k], b, sizeof b), 100 * s->clock_lie_frac[k]);
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
	if (s->fluid_underbilled_frac >= 0.5)
		fprintf(f, "  consistency  the fluid's own scheduler CPU time fell %s µs per op short of its loops in %.0f%% of the\n"
			   "               runs: the scheduler's clock billed part of the fluid's time to the PUT\n",
			us(s->fluid_underbilled_ns, b, sizeof b), 100 * s->fluid_underbilled_frac);
}

/* what the result's interval holds beside the statistical part */
static const char *bound_label(const struct summary *s)
{
	int shared = s->shared_bound_ns > 0, trace = s->trace_bound_ns > 0;
	return shared && trace ? " with the bounds e_shared and e_trace"
	       : shared	       ? " with the bound e_shared"
	       : trace	       ? " with the bound e_trace"
			       : "";
}

/* what an estimator is, in a few words */
static const char *est_what(enum sum_estimator e)
{
	switch (e) {
	case SUM_OFFCPU:
		return "time the fluid was off its CPU, by its own task-clock";
	case SUM_CLASSIC:
		return "Woodside: the fluid's lost loops at its calibrated speed";
	default:
		return "lost loops at the speed measured during the run, steal removed";
	}
}

/* "12.34 µs ± 0.56" or "12.34 µs" when there is no CI */
static const char *mean_ci(const struct stats_summary *t, char *buf, size_t len)
{
	char a[32], b[32];
	if (isfinite(t->ci_half))
		snprintf(buf, len, "%s µs ± %s", us(t->mean, a, sizeof a), us(t->ci_half, b, sizeof b));
	else
		snprintf(buf, len, "%s µs", us(t->mean, a, sizeof a));
	return buf;
}

/* "+7.1% ± 3.2", or "+7.1%" when there is no CI */
static const char *pct_ci(const struct stats_summary *t, char *buf, size_t len)
{
	if (isfinite(t->ci_half))
		snprintf(buf, len, "%+.1f%% ± %.1f", t->mean, t->ci_half);
	else
		snprintf(buf, len, "%+.1f%%", t->mean);
	return buf;
}

/* the estimators that are not the result, and the time the fluid held the CPU */
static void other_estimators(FILE *f, const struct summary *s, const struct seq_opts *so)
{
	char a[64], b[32];
	for (int k = 0; k < SUM_NEST; k++) {
		if (k == (int)s->estimator)
			continue;
		const struct stats_summary *e = &s->est[k];
		if (isfinite(e->mean))
			fprintf(f, "  %-12s %-24s [%s]\n", sum_estimator_name((enum sum_estimator)k), mean_ci(e, a, sizeof a),
				est_what((enum sum_estimator)k));
		else
			fprintf(f, "  %-12s n/a   [%s]\n", sum_estimator_name((enum sum_estimator)k),
				k == SUM_OFFCPU ? "needs the fluid's perf task-clock"
				: so->sim_res_ns > 1 ? "needs the fluid's chunk timings, which a simulated slow clock hides"
				: s->fluid_underbilled_frac >= 0.5
					? "the scheduler's and perf's clocks disagree, so there is no steal to take out"
					: "needs the fluid's chunk timings and task-clock");
	}
	if (isfinite(s->norm.mean))
		fprintf(f, "  normalised   %-24s [the result at the fluid's reference speed %.5f ns/loop: each run\n"
			   "               scaled by it over the fluid's own speed in that run; %s]\n",
			mean_ci(&s->norm, a, sizeof a), s->tau0_ref_ns,
			s->tau0_ref_saved ? "the reference is the calibration\n               store's, the same for every measurement of this CPU until the next calibrate"
					  : "the reference is this\n               measurement's first calibration: compare with another measurement "
					    "only\n               after 'displace calibrate' saves one for both");
	if (isfinite(s->these.ci_half)) {
		char bg[64] = "unknown", unbilled[200] = "";
		if (isfinite(s->these_bg_ns))
			snprintf(bg, sizeof bg, "%.3f µs", s->these_bg_ns / 1e3);
		if (s->these_unbilled_ns > 0)
			snprintf(unbilled, sizeof unbilled, ", and up to %.3f µs of its time on the CPU that the OS billed to "
							    "others (wake-ups' holds, steal), which the estimate counts "
							    "and the account does not",
				 s->these_unbilled_ns / 1e3);
		char text[800];
		snprintf(text, sizeof text,
			 "[the cost of these operations, not of runs to come: given the OS's account of the PUT's CPU "
			 "time in each %s (%s%s%s), whose spread between them was ±%.1f %% (sd; the cost moving, and the "
			 "account's noise); the CI holds the background the OS bills to the PUT, %s%s]",
			 s->fitted ? "pair" : "run", est_src_name(s->these_src), s->these_peer ? " and the local peer's" : "",
			 s->these_rebilled ? ", less what the scheduler billed of the fluid's time: its task-clock less its "
					     "CPU time"
					   : "",
			 100 * s->these_os_cv, bg, unbilled);
		fprintf(f, "  these ops    %-24s ", mean_ci(&s->these, a, sizeof a));
		print_wrapped(f, text, 40, 15, 100);
	}
	if (isfinite(s->held.mean)) {
		int i = 0;
		while (i < s->ncpu && s->cpu_id[i] != so->cpu)
			i++;
		fprintf(f, "  held         %s µs per op   [the fluid held the CPU without progressing: classic - off-CPU;\n"
			   "               %.2f wake-up IPIs and %.2f device interrupts per op on CPU %d]\n",
			us(s->held.mean, b, sizeof b), i < s->ncpu ? s->ipi_per_op[i] : NAN,
			i < s->ncpu ? s->dev_irq_per_op[i] : NAN, so->cpu);
	}
}

/* both ends: the local cost (the result), the peer host's, and their total, each with its CI */
static void both_ends(FILE *f, const struct summary *s, const struct seq_opts *so)
{
	char a[64], cpus[160];
	cli_format_cpulist(&so->cpus, cpus, sizeof cpus);
	fprintf(f, "  both ends    µs per op, %s, paired over the same %zu %s:\n", sum_estimator_name(s->estimator), s->n,
		s->fitted ? "pairs" : "runs");
	fprintf(f, "    local      %-24s this host's CPU%s %s (the PUT's end)\n", mean_ci(&s->tau, a, sizeof a),
		so->cpus.n > 1 ? "s" : "", cpus);
	cli_format_cpulist(&so->remote->cpus, cpus, sizeof cpus);
	fprintf(f, "    remote     %-24s the peer host's CPU%s %s (%s)\n", mean_ci(&s->remote, a, sizeof a),
		s->nremote > 1 ? "s" : "", cpus, so->remote->name);
	fprintf(f, "    total      %-24s local + remote\n", mean_ci(&s->total, a, sizeof a));
}

/* the cost per byte, and the flows it was measured at */
static void per_byte(FILE *f, const struct summary *s, const struct seq_opts *so)
{
	char a[32], b[32];
	if (!(s->bytes_per_op > 0) || !isfinite(s->tau.mean))
		return;
	double kb = s->bytes_per_op / 1000;
	fprintf(f, "  per KB       %s µs local", us(s->tau.mean / kb, a, sizeof a));
	if (s->nremote)
		fprintf(f, ", %s µs both ends", us(s->total.mean / kb, b, sizeof b));
	fprintf(f, "   [%.0f message bytes per op", s->bytes_per_op);
	if (so->flows > 1)
		fprintf(f, "; %d flows at once: %d connections of the one PUT, round robin", so->flows, so->flows);
	fprintf(f, "]\n");
}

void out_text_moved(const struct summary *s, char *buf, size_t len)
{
	size_t first = s->moved_above ? s->moved_above : s->moved_below;
	double first_ns = s->moved_above ? s->moved_above_ns : s->moved_below_ns;
	const char *unit = s->fitted ? (first == 1 ? "pair" : "pairs") : (first == 1 ? "run" : "runs");
	if (!first)
		snprintf(buf, len, "%s", "");
	else if (s->moved_above && s->moved_below)
		snprintf(buf, len, "%zu %s at %.2f µs and %zu at %.2f against %.2f for the others", first, unit,
			 first_ns / 1e3, s->moved_below, s->moved_below_ns / 1e3, s->unmoved_ns / 1e3);
	else
		snprintf(buf, len, "%zu %s at %.2f µs against %.2f for the others", first, unit, first_ns / 1e3,
			 s->unmoved_ns / 1e3);
}

void out_text_batch_means(const struct summary *s, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int b = 0; b < SUM_BATCHES && isfinite(s->tau_batch_means_ns[b]) && used < len; b++)
		used += (size_t)snprintf(buf + used, len - used, "%s%.2f", b ? ", " : "", s->tau_batch_means_ns[b] / 1e3);
}

void out_text_print(FILE *f, const struct summary *s, const struct seq_opts *so, const struct context *ctx)
{
	char a[32], b[32], c[32], d[32];
	const struct stats_summary *t = &s->tau;
	const char *unit = s->fitted ? "pairs" : "runs";
	if (isfinite(t->ci_half))
		fprintf(f, "  tau_PUT      %s µs ± %s (95%% CI%s, ±%.2f%%)  n=%zu %s  min…max %s…%s\n"
			   "               [displacement, %s: %s]\n",
			us(t->mean, a, sizeof a), us(t->ci_half, b, sizeof b),
			bound_label(s), 100 * t->ci_half / fabs(t->mean),
			s->n, unit, us(t->min, c, sizeof c), us(t->max, d, sizeof d), sum_estimator_name(s->estimator),
			est_what(s->estimator));
	else
		fprintf(f, "  tau_PUT      %s µs (no CI: n=%zu %s)   [displacement, %s: %s]\n", us(t->mean, a, sizeof a), s->n,
			unit, sum_estimator_name(s->estimator), est_what(s->estimator));
	other_estimators(f, s, so);
	if (s->nremote && so->remote)
		both_ends(f, s, so);
	per_byte(f, s, so);
	const struct sum_perturb *p = &s->perturb;
	if (p->n && isfinite(p->cpu_change.mean)) {
		char cpu_ch[48], wall_ch[48];
		if (p->cpu_compared)
			fprintf(f, "  perturbation own CPU %s µs/op beside the fluid, %s alone (%s);\n",
				us(p->cpu_corun.mean, a, sizeof a), us(p->cpu_alone.mean, b, sizeof b),
				pct_ci(&p->cpu_change, cpu_ch, sizeof cpu_ch));
		else
			fprintf(f, "  perturbation own CPU %s µs/op beside the fluid, %s alone, by getrusage: not compared\n"
				   "               (it billed up to %s µs/op of the fluid's time beside it, an unknown hold alone);\n",
				us(p->cpu_corun.mean, a, sizeof a), us(p->cpu_alone.mean, b, sizeof b),
				us(p->hold_ns, c, sizeof c));
		fprintf(f, "               wall %s µs/op beside it, %s alone (%s)   [the PUT alone once per %s, n=%zu]\n",
			us(p->wall_corun.mean, c, sizeof c), us(p->wall_alone.mean, d, sizeof d),
			pct_ci(&p->wall_change, wall_ch, sizeof wall_ch), s->fitted ? "pair" : "run", p->n);
	}
	if (so->sim_res_ns > 1 && isfinite(s->tau_raw.mean))
		fprintf(f, "  real clock   %s µs   [the same runs by CLOCK_MONOTONIC_RAW: the slow clock moved the classic estimate by %s µs]\n",
			us(s->tau_raw.mean, a, sizeof a), us(s->est[SUM_CLASSIC].mean - s->tau_raw.mean, b, sizeof b));
	if (s->fitted && s->startup_why[0])
		fprintf(f, "  start-up S   not measurable: %s\n", s->startup_why);
	else if (s->fitted)
		fprintf(f, "  start-up S   %s µs per run (intercept of T_PUT against L; removed by the fit)\n",
			us(s->startup_ns, a, sizeof a));
	if (s->outliers)
		fprintf(f, "  outliers     %zu %s left out (MAD test)\n", s->outliers, unit);
	if (s->moved_above + s->moved_below) {
		char m[96];
		out_text_moved(s, m, sizeof m);
		fprintf(f, "  cost moved   %s, the OS's account of the PUT with them: kept, the cost's own spread\n", m);
	}
	if (s->spells) {
		char m[96];
		out_text_batch_means(s, m, sizeof m);
		fprintf(f, "  spells       ±%s µs by %d batch means of the %zu %s in time order (%s µs), against ±%s by "
			   "t: the cost moved in spells longer than a pair\n",
			us(s->tau_batch_half_ns, a, sizeof a), SUM_BATCHES, s->n, unit, m,
			us(s->est[s->estimator].ci_half, b, sizeof b));
	}
	if (isfinite(s->traced_share))
		fprintf(f, "  other tasks  %.2f%% of the co-runs, %.2f%% of the calibrations, taken out of each (scheduler "
			   "trace); %.2f%% of the co-runs unknown, left in; %.2f switches per op traced\n",
			100 * s->traced_share, 100 * s->traced_cal_share, 100 * s->unknown_share, s->traced_switches_per_op);
	fprintf(f, "  error budget, µs per op:\n");
	fprintf(f, "    statistical  ±%-10s %s over %zu %s\n", us(t->ci_half - s->tau_bound_ns, a, sizeof a),
		s->tau_ci_rule ? s->tau_ci_rule : "Student t", s->n, unit);
	fprintf(f, "    e_res        %-11s bound for clock resolution %.0f ns (twice Woodside sec. 3)\n", us(s->e_res_ns, a, sizeof a),
		so->delta_ns);
	if (s->fitted && s->startup_why[0])
		fprintf(f, "    e_start      %-11s S not measurable (above); the fit removed it anyway\n", "unknown");
	else if (s->fitted)
		fprintf(f, "    e_start      %-11s S/L, already removed by the fit\n", us(s->e_start_ns, a, sizeof a));
	else
		fprintf(f, "    e_start      %-11s not removed: --no-fit\n", "unknown");
	if (s->estimator == SUM_OFFCPU)
		fprintf(f, "    e_backgr     %-11s change of the background share between the calibrations\n",
			us(s->e_bg_ns, a, sizeof a));
	int shared_in = s->shared_bound_ns > 0;
	if (sum_shared_cpu(s) || shared_in)
		fprintf(f, "    e_shared     -%-10s other %s took %.1f%% of the CPU from the fluid alone: beside "
			   "the PUT they can take less%s\n",
			us(s->e_shared_ns, a, sizeof a), sum_shared_cpu(s) ? "processes" : "tasks, with no other CPU free,",
			100 * s->others_share, shared_in ? " (in the CI)" : "");
	if (s->trace_bound_ns > 0)
		fprintf(f, "    e_trace      +%-10s what %.3f switches per op traced can leave in: the trace's event, "
			   "and other tasks' switches (in the CI)\n",
			us(s->trace_bound_ns, a, sizeof a), s->traced_switches_per_op);
	const char *cl = s->estimator == SUM_OFFCPU ? " (classic)" : "";
	fprintf(f, "    e_drift      %-11s tau_F change between the calibrations around each run%s\n",
		us(s->e_drift_ns, a, sizeof a), cl);
	fprintf(f, "    e_calib      %-11s uncertainty of the bracketing tau_F%s\n", us(s->e_calib_ns, a, sizeof a), cl);
	fprintf(f, "    e_cache      %-11s the fluid reloading its cache after PUT bursts%s\n", us(s->e_cache_ns, a, sizeof a),
		cl);
	if (s->nremote) {
		char e5[32];
		fprintf(f, "    remote       e_backgr %s, e_drift %s, e_calib %s, e_cache %s, e_res %s (the peer host's CPUs)\n",
			us(s->remote_err_ns[EST_E_BG], a, sizeof a), us(s->remote_err_ns[EST_E_DRIFT], b, sizeof b),
			us(s->remote_err_ns[EST_E_CALIB], c, sizeof c), us(s->remote_err_ns[EST_E_CACHE], d, sizeof d),
			us(s->remote_err_ns[EST_E_RES], e5, sizeof e5));
	}
	if (s->ncpu > 1 || s->nremote) {
		fprintf(f, "  per CPU, µs per op (displacement; NET_RX, NET_TX softirqs, IPIs per op):\n");
		for (int i = 0; i < s->ncpu; i++)
			fprintf(f, "    CPU %-3d %12s   %.3f   %.3f   %.3f%s\n", s->cpu_id[i], us(s->cpu_tau_ns[i], a, sizeof a),
				s->net_rx_per_op[i], s->net_tx_per_op[i], s->ipi_per_op[i],
				s->cpu_id[i] == so->cpu ? "   (the PUT's CPU)" : "");
		for (int i = 0; i < s->nremote; i++)
			fprintf(f, "    peer CPU %-3d %7s   (the peer's host: its counters are not read)\n", s->remote_cpu_id[i],
				us(s->remote_cpu_tau_ns[i], a, sizeof a));
	}
	fprintf(f, "  fluid        tau_F %.5f ns/loop (bracketing calibrations), undisturbed %.5f\n", s->tau_f_ns,
		s->tau0_ns);
	out_text_os_table(f, s, so, ctx);
}
