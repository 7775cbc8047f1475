/* mreport.c - a measurement's result for people (text), programs (JSON) and files (CSV) */
#include "coordinator/mreport.h"
#include "coordinator/jsonout.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

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

const char *mreport_misses(enum meas_src src, const struct context *ctx, int cpu, char *buf, size_t len)
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

void mreport_os_table(FILE *f, const struct meas_summary *s, const struct meas_ctx *mc, const struct context *ctx)
{
	char a[32], b[32], m[256];
	fprintf(f, "  OS accounting, µs per op (%% vs displacement %s µs, paired, ± 95%% CI):\n", us(s->tau.mean, a, sizeof a));
	for (int k = 0; k < MEAS_NSRC; k++) {
		const struct stats_summary *o = &s->os[k], *p = &s->pct[k];
		char pct[40];
		/* one estimate has no CI: the difference alone, never "± 0" */
		if (isfinite(p->mean) && isfinite(p->ci_half))
			snprintf(pct, sizeof pct, "%+.2f%% ± %.2f", p->mean, p->ci_half);
		else if (isfinite(p->mean))
			snprintf(pct, sizeof pct, "%+.2f%%", p->mean);
		else
			snprintf(pct, sizeof pct, "n/a");
		fprintf(f, "    %-11s %10s   %-18s\n", meas_src_name((enum meas_src)k), us(o->mean, b, sizeof b), pct);
		/* an unavailable source says why, as put reported it */
		if (!isfinite(o->mean) && s->os_why[k][0])
			fprintf(f, "        not available: %s%s. ", s->os_why[k],
				!strcmp(s->os_why[k], "EOPNOTSUPP") ? " (it cannot count the commands exec runs)" : "");
		else
			fprintf(f, "        ");
		fprintf(f, "%s\n", mreport_misses((enum meas_src)k, ctx, mc->o.cpu, m, sizeof m));
	}
	if (s->peer.n && isfinite(s->peer.mean)) {
		char pct[40];
		if (isfinite(s->put_peer_pct.ci_half))
			snprintf(pct, sizeof pct, "%+.2f%% ± %.2f", s->put_peer_pct.mean, s->put_peer_pct.ci_half);
		else
			snprintf(pct, sizeof pct, "%+.2f%%", s->put_peer_pct.mean);
		fprintf(f, "    %-11s %10s\n", "peer", us(s->peer.mean, b, sizeof b));
		fprintf(f, "        the local peer's own CPU time (schedstat of its threads), on CPU %d\n", mc->o.peer_cpu);
		fprintf(f, "    %-11s %10s   %-18s\n", "PUT + peer", us(s->os[SRC_GETRUSAGE].mean + s->peer.mean, b, sizeof b),
			pct);
		fprintf(f, "        getrusage plus the peer: %s\n",
			mc->o.peer_cpu == mc->o.cpu ? "on one CPU, displacement should match it"
						     : "the peer is on another CPU");
	}
}

void mreport_print(FILE *f, const struct meas_summary *s, const struct meas_ctx *mc, const struct context *ctx)
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
			mc->o.sim_res_ns > 1 ? ", which a simulated slow clock hides" : "");
	if (mc->o.sim_res_ns > 1 && isfinite(s->tau_raw.mean))
		fprintf(f, "  real clock   %s µs   [the same runs by CLOCK_MONOTONIC_RAW: the slow clock moved tau_PUT by %s µs]\n",
			us(s->tau_raw.mean, a, sizeof a), us(t->mean - s->tau_raw.mean, b, sizeof b));
	if (s->fitted)
		fprintf(f, "  start-up S   %s µs per run (intercept of T_PUT against L; removed by the fit)\n",
			us(s->startup_ns, a, sizeof a));
	if (s->outliers)
		fprintf(f, "  outliers     %zu %s left out (MAD test)\n", s->outliers, unit);
	fprintf(f, "  error budget, µs per op:\n");
	fprintf(f, "    statistical  ±%-10s Student t over %zu %s\n", us(t->ci_half, a, sizeof a), s->n, unit);
	fprintf(f, "    e_res        %-11s bound for clock resolution %.0f ns (twice Woodside sec. 3)\n", us(s->e_res_ns, a, sizeof a),
		mc->o.delta_ns);
	if (s->fitted)
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
				s->net_rx_per_op[i], s->net_tx_per_op[i], s->cpu_id[i] == mc->o.cpu ? "   (the PUT's CPU)" : "");
	}
	fprintf(f, "  fluid        tau_F %.5f ns/loop (bracketing calibrations), undisturbed %.5f\n", s->tau_f_ns,
		s->tau0_ns);
	mreport_os_table(f, s, mc, ctx);
}

static json_t *summary_json(const struct stats_summary *s, double scale)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I}", "mean", jout_num(s->mean / scale), "ci95",
			 jout_num(s->ci_half / scale), "sd", jout_num(s->sd / scale), "min", jout_num(s->min / scale),
			 "max", jout_num(s->max / scale), "n", (json_int_t)s->n);
}

/* an argument as a shell would need it: as it is when safe, else in single quotes */
static size_t quote_arg(char *buf, size_t len, const char *a)
{
	size_t used = 0;
	int safe = *a != '\0';
	for (const char *p = a; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+@%-", *p))
			safe = 0;
	if (safe)
		return (size_t)snprintf(buf, len, "%s", a);
	used += (size_t)snprintf(buf, len, "'");
	for (const char *p = a; *p && used < len; p++)
		used += (size_t)snprintf(buf + used, len - used, *p == '\'' ? "'\\''" : "%c", *p);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "'");
	return used;
}

void mreport_args_text(const struct meas_series *s, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 1; i < s->nargs && used + 1 < len; i++) {
		if (i > 1)
			buf[used++] = ' ', buf[used] = '\0';
		used += quote_arg(buf + used, len - used, s->args[i]);
	}
}

json_t *mreport_json(const struct meas_summary *s, const struct meas_ctx *mc, const struct meas_series *ser)
{
	json_t *o = json_object();
	char args[512], cpus[256];
	mreport_args_text(ser, args, sizeof args);
	cli_format_cpulist(&mc->o.cpus, cpus, sizeof cpus);
	json_object_set_new(o, "workload", json_string(ser->args[0]));
	json_object_set_new(o, "args", json_string(args));
	if (ser->size_bytes)
		json_object_set_new(o, "size_bytes", json_integer((json_int_t)ser->size_bytes));
	json_object_set_new(o, "ops", json_integer((json_int_t)s->ops));
	json_object_set_new(o, "reps", json_integer((json_int_t)ser->nruns));
	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "fitted", json_boolean(s->fitted));
	json_object_set_new(o, "outliers", json_integer((json_int_t)s->outliers));
	json_object_set_new(o, "cpu", json_integer(mc->o.cpu));
	json_object_set_new(o, "fluid_cpus", json_string(cpus));
	json_t *tau = json_object();
	json_object_set_new(tau, "displacement", jout_num(s->tau.mean / 1e3));
	json_object_set_new(tau, "drift_robust", jout_num(s->tau_robust.mean / 1e3));
	for (int k = 0; k < MEAS_NSRC; k++)
		json_object_set_new(tau, meas_src_key((enum meas_src)k), jout_num(s->os[k].mean / 1e3));
	json_object_set_new(tau, "peer", s->peer.n ? jout_num(s->peer.mean / 1e3) : json_null());
	json_object_set_new(o, "tau_put_us", tau);
	json_object_set_new(o, "put_plus_peer_pct", s->peer.n ? summary_json(&s->put_peer_pct, 1) : json_null());
	json_object_set_new(o, "ci95_us", jout_num(s->tau.ci_half / 1e3));
	json_object_set_new(o, "ci95_robust_us", jout_num(s->tau_robust.ci_half / 1e3));
	json_object_set_new(o, "displacement_us", summary_json(&s->tau, 1e3));
	json_object_set_new(o, "drift_robust_us", summary_json(&s->tau_robust, 1e3));
	/* with a simulated slow clock: the same estimate of the same runs by the real clock */
	if (mc->o.sim_res_ns > 1)
		json_object_set_new(o, "real_clock_us", summary_json(&s->tau_raw, 1e3));
	json_t *pct = json_object();
	for (int k = 0; k < MEAS_NSRC; k++)
		json_object_set_new(pct, meas_src_key((enum meas_src)k), summary_json(&s->pct[k], 1));
	json_object_set_new(o, "pct_vs_displacement", pct);
	json_t *pctr = json_object();
	for (int k = 0; k < MEAS_NSRC; k++)
		json_object_set_new(pctr, meas_src_key((enum meas_src)k), summary_json(&s->pct_robust[k], 1));
	json_object_set_new(o, "pct_vs_drift_robust", pctr);
	json_object_set_new(o, "startup_us", jout_num(s->startup_ns / 1e3));
	json_t *err = json_object();
	json_object_set_new(err, "statistical", jout_num(s->tau.ci_half / 1e3));
	json_object_set_new(err, "res", jout_num(s->e_res_ns / 1e3));
	json_object_set_new(err, "start", jout_num(s->e_start_ns / 1e3));
	json_object_set_new(err, "drift", jout_num(s->e_drift_ns / 1e3));
	json_object_set_new(err, "calib", jout_num(s->e_calib_ns / 1e3));
	json_object_set_new(err, "cache", jout_num(s->e_cache_ns / 1e3));
	json_object_set_new(o, "errors_us", err);
	json_object_set_new(o, "clock_resolution_ns", jout_num(mc->o.delta_ns));
	json_object_set_new(o, "tau_f_ns", jout_num(s->tau_f_ns));
	json_object_set_new(o, "tau0_ns", jout_num(s->tau0_ns));
	json_object_set_new(o, "put_wall_per_op_us", jout_num(s->put_wall_per_op_ns / 1e3));
	json_t *cpu = json_array();
	for (int i = 0; i < s->ncpu; i++)
		json_array_append_new(cpu, json_pack("{s:i, s:o, s:o, s:o}", "cpu", s->cpu_id[i], "displacement_us",
						     jout_num(s->cpu_tau_ns[i] / 1e3), "net_rx_per_op",
						     jout_num(s->net_rx_per_op[i]), "net_tx_per_op",
						     jout_num(s->net_tx_per_op[i])));
	json_object_set_new(o, "per_cpu", cpu);
	if (s->cmd_status >= 0 && !strcmp(ser->args[0], "exec"))
		json_object_set_new(o, "cmd_status", json_integer(s->cmd_status));
	json_t *runs = json_array();
	for (size_t i = 0; i < ser->nruns; i++) {
		const struct meas_run *r = &ser->runs[i];
		json_t *jr = json_object();
		json_object_set_new(jr, "ops", json_integer((json_int_t)r->ops));
		json_object_set_new(jr, "t_put_ns", jout_num(r->t_put_ns));
		json_object_set_new(jr, "t_put_robust_ns", jout_num(r->t_put_robust_ns));
		if (mc->o.sim_res_ns > 1) {
			json_object_set_new(jr, "t_put_real_clock_ns", jout_num(r->t_put_raw_ns));
			json_object_set_new(jr, "t_f2_real_clock_ns", jout_num(r->t2_raw_ns));
		}
		for (int k = 0; k < MEAS_NSRC; k++) {
			char key[32];
			snprintf(key, sizeof key, "%s_ns", meas_src_key((enum meas_src)k));
			json_object_set_new(jr, key, jout_num(r->os_ns[k]));
		}
		json_object_set_new(jr, "t_f2_ns", jout_num(r->t2_ns));
		json_object_set_new(jr, "l_f2", jout_num(r->l2));
		json_object_set_new(jr, "tau_f_ns", jout_num(r->tau_f_ns));
		json_object_set_new(jr, "tau0_ns", jout_num(r->tau0_ns));
		json_object_set_new(jr, "steal_ns", jout_num(r->steal_ns));
		json_object_set_new(jr, "peer_ns", jout_num(r->peer_ns));
		json_object_set_new(jr, "outlier", json_boolean(r->outlier));
		json_array_append_new(runs, jr);
	}
	json_object_set_new(o, "runs", runs);
	return o;
}

static void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

#define NCOL 30

static int write_row(struct csvout *c, char cols[NCOL][64], const char *args)
{
	const char *f[NCOL];
	for (int i = 0; i < NCOL; i++)
		f[i] = cols[i];
	f[4] = args;
	return csvout_row(c, f, NCOL);
}

static void common_cols(char cols[NCOL][64], const char *kind, const char *command, const struct meas_ctx *mc,
			const struct meas_series *s)
{
	char cpus[64];
	memset(cols, 0, NCOL * 64);
	snprintf(cols[0], 64, "%s", kind);
	iso_now(cols[1], 64);
	snprintf(cols[2], 64, "%s", command);
	snprintf(cols[3], 64, "%s", s->args[0]);
	if (s->size_bytes)
		snprintf(cols[5], 64, "%" PRIu64, s->size_bytes);
	snprintf(cols[6], 64, "%d", mc->o.cpu);
	cli_format_cpulist(&mc->o.cpus, cpus, sizeof cpus);
	snprintf(cols[7], 64, "%s", cpus);
}

int mreport_csv_run(struct csvout *c, const char *command, const struct meas_ctx *mc, const struct meas_series *s,
		    size_t i)
{
	char cols[NCOL][64], args[512];
	const struct meas_run *r = &s->runs[i];
	double l = (double)r->ops;
	common_cols(cols, "run", command, mc, s);
	mreport_args_text(s, args, sizeof args);
	snprintf(cols[8], 64, "%" PRIu64, r->ops);
	snprintf(cols[9], 64, "%zu", i + 1);
	if (l > 0) {
		csvout_num(cols[10], 64, r->t_put_ns / l / 1e3, 6);
		csvout_num(cols[11], 64, r->t_put_robust_ns / l / 1e3, 6);
		for (int k = 0; k < MEAS_NSRC; k++)
			csvout_num(cols[12 + k], 64, r->os_ns[k] / l / 1e3, 6);
		csvout_num(cols[20], 64, r->res_ns / l / 1e3, 6);
		csvout_num(cols[22], 64, r->drift_ns / l / 1e3, 6);
		csvout_num(cols[23], 64, r->calib_ns / l / 1e3, 6);
		csvout_num(cols[24], 64, r->cache_ns / l / 1e3, 6);
	}
	csvout_num(cols[25], 64, r->tau_f_ns, 6);
	csvout_num(cols[26], 64, r->tau0_ns, 6);
	csvout_num(cols[27], 64, r->t2_ns, 0);
	csvout_num(cols[28], 64, r->l2, 0);
	csvout_num(cols[29], 64, r->t_put_ns, 0);
	return write_row(c, cols, args);
}

int mreport_csv_summary(struct csvout *c, const char *command, const struct meas_ctx *mc, const struct meas_series *s,
			const struct meas_summary *sum)
{
	char cols[NCOL][64], args[512];
	common_cols(cols, "summary", command, mc, s);
	mreport_args_text(s, args, sizeof args);
	snprintf(cols[8], 64, "%" PRIu64, sum->ops);
	csvout_num(cols[10], 64, sum->tau.mean / 1e3, 6);
	csvout_num(cols[11], 64, sum->tau_robust.mean / 1e3, 6);
	for (int k = 0; k < MEAS_NSRC; k++)
		csvout_num(cols[12 + k], 64, sum->os[k].mean / 1e3, 6);
	csvout_num(cols[16], 64, sum->tau.ci_half / 1e3, 6);
	snprintf(cols[17], 64, "%zu", sum->n);
	snprintf(cols[18], 64, "%zu", sum->outliers);
	csvout_num(cols[19], 64, sum->startup_ns / 1e3, 6);
	csvout_num(cols[20], 64, sum->e_res_ns / 1e3, 6);
	csvout_num(cols[21], 64, sum->e_start_ns / 1e3, 6);
	csvout_num(cols[22], 64, sum->e_drift_ns / 1e3, 6);
	csvout_num(cols[23], 64, sum->e_calib_ns / 1e3, 6);
	csvout_num(cols[24], 64, sum->e_cache_ns / 1e3, 6);
	csvout_num(cols[25], 64, sum->tau_f_ns, 6);
	csvout_num(cols[26], 64, sum->tau0_ns, 6);
	return write_row(c, cols, args);
}
