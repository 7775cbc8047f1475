/*
 * cmd_predict.c - displace predict: saturation throughput predicted from
 * measured costs, and checked against a real saturated run (Woodside
 * section 4.3, Table 3, Figure 5).
 *
 * The loop under study sends m bytes, computes c us, and collects replies
 * with up to W messages outstanding, so the sender never waits. For each
 * size, and in rounds so that host drift becomes CI rather than error:
 *   1. its cost per iteration, by displacement and by each OS source: the
 *      loop runs in bursts, busy 80 % of the time (--duty), so the fluid
 *      has room while every burst behaves as the saturated loop does.
 *      Pauses change the loop: at 64000 bytes and c = 20 us, half duty
 *      put the prediction 10.7 to 12.6 % low, 0.8 duty 2.3 % (the error of
 *      displacement is its speed error times the fluid's time, so less
 *      room does not cost precision);
 *      A cost pair is an L run and a null run (docs/predict.md);
 *   2. the same loop saturated: no fluid, no pauses, N messages: msg/s,
 *      pooled over the rounds;
 *   3. the blocking-mode cost (window 1, no compute), as sweep measures it.
 * Prediction per source: 1 / tau_iteration = 1 / (tau_send + c). Its error's
 * CI pairs each round's cost with that round's saturated run.
 */
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/mreport.h"
#include "coordinator/mrun.h"
#include "coordinator/msg.h"
#include "coordinator/plot.h"
#include "common/dclock.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 32
#define DEFAULT_REPS 8
#define DEFAULT_WINDOW 64
#define DEFAULT_BURST 256

static void usage(FILE *f)
{
	fputs("usage: displace predict WORKLOAD --sizes LIST\n"
	      "                        (--compute US | --compute-per-byte NS)\n"
	      "                        [--window W] [--messages N] [options]\n"
	      "\n"
	      "Predicts the saturation throughput of a sender from its measured CPU cost,\n"
	      "and checks the prediction against a real saturated run (Woodside 1997,\n"
	      "sec. 4.3). The loop under study sends m bytes, computes c us on the CPU,\n"
	      "and collects replies with up to W messages outstanding. For each size, in\n"
	      "interleaved rounds:\n"
	      "  1. cost: the loop runs in bursts, busy 80% of the time, beside the fluid;\n"
	      "     its cost per iteration by displacement and by each OS source, from\n"
	      "     an L run less a null run (start-up and tear-down only);\n"
	      "  2. saturation: the same loop alone on its CPU, no fluid, no pauses,\n"
	      "     N messages; the measured messages per second, pooled over rounds;\n"
	      "  3. the blocking-mode cost (window 1, no compute), as 'sweep' measures it.\n"
	      "Each source predicts 1 / (tau_send + c) messages per second; the table\n"
	      "gives each prediction's % error against the measured throughput, with\n"
	      "the error's 95% CI from each round's cost paired with its saturated run.\n"
	      "The loop's cost varies some 5% from run to run on a VM: for a 2% answer\n"
	      "use --precision 1.5% (4 to 8 minutes for three sizes here).\n"
	      "\n"
	      "Workloads: tcp, tcp-stream, unix (the stream workloads).\n"
	      "\n"
	      "The loop:\n"
	      "  --sizes LIST         message sizes: FROM:TO:STEP or 1000,8000,64000\n"
	      "  --compute US         CPU time c spent after each send, in us (>= 0)\n"
	      "  --compute-per-byte NS  c = NS ns per message byte instead\n"
	      "  --window W           messages outstanding at most (default 64, >= 1)\n"
	      "  --messages N         messages per saturated run (default: as many as\n"
	      "                       one measurement run, about --run-time of work)\n"
	      "  --duty F             busy share of the cost runs, 0.05 to 0.95 (default\n"
	      "                       0.8): pauses change the loop's cost, so keep them short\n"

	      "\n",
	      f);
	fputs(mopts_help_placement, f);
	fputs("\n", f);
	mopts_help_measurement(f, "predict");
	fputs("\n", f);
	mopts_help_output(f, "predict",
			  "  --plot FILE.svg      measured against predicted throughput by size\n"
			  "                       (Woodside Figure 5; gnuplot, else the .gp script\n"
			  "                       and .dat data are written)\n");
	fputs("\n"
	      "Example:\n"
	      "  displace predict tcp --sizes 1000,8000,64000 --compute 20\n"
	      "\n"
	      "Exit status as for 'displace measure'.\n",
	      f);
}

struct popts {
	uint64_t sizes[MAX_SIZES];
	size_t nsizes;
	double compute_us;       /* -1: not given */
	double per_byte_ns;      /* -1: not given */
	uint64_t window;
	uint64_t messages;
	double duty;
};

enum { X_SIZES = 1, X_COMPUTE, X_PER_BYTE, X_WINDOW, X_MESSAGES, X_DUTY };

static const struct mopts_extra extra[] = {
	{ "sizes", 1, X_SIZES },     { "compute", 1, X_COMPUTE }, { "compute-per-byte", 1, X_PER_BYTE },
	{ "window", 1, X_WINDOW },   { "messages", 1, X_MESSAGES }, { "duty", 1, X_DUTY },
	{ NULL, 0, 0 },
};

static int on_extra(int id, const char *v, void *ctx, char *err, size_t errlen)
{
	struct popts *o = ctx;
	int rc = 0;
	switch (id) {
	case X_SIZES:
		rc = cli_parse_sizes(v, o->sizes, MAX_SIZES, &o->nsizes);
		if (rc)
			snprintf(err, errlen, "invalid value '%s' for --sizes (e.g. 1000,8000,64000; at most %d)", v,
				 MAX_SIZES);
		break;
	case X_COMPUTE:
		if ((rc = cli_parse_double(v, 0, 1e7, &o->compute_us)))
			snprintf(err, errlen, "invalid value '%s' for --compute (us, 0 or more)", v);
		break;
	case X_PER_BYTE:
		if ((rc = cli_parse_double(v, 0, 1e6, &o->per_byte_ns)))
			snprintf(err, errlen, "invalid value '%s' for --compute-per-byte (ns per byte, 0 or more)", v);
		break;
	case X_WINDOW:
		if ((rc = cli_parse_u64(v, 1, 65536, &o->window)))
			snprintf(err, errlen, "invalid value '%s' for --window (1 to 65536 messages)", v);
		break;
	case X_MESSAGES:
		if ((rc = cli_parse_u64(v, 1, 1000000000, &o->messages)))
			snprintf(err, errlen, "invalid value '%s' for --messages (1 or more)", v);
		break;
	case X_DUTY:
		if ((rc = cli_parse_double(v, 0.05, 0.95, &o->duty)))
			snprintf(err, errlen, "invalid value '%s' for --duty (0.05 to 0.95)", v);
		break;
	default:
		rc = -1;
	}
	return rc;
}

/* one saturated run: msg/s, and the sender's task-clock over the loop's wall time */
struct satrun {
	double tput, share;
};

/* One size: the cost series, the blocking series, and the saturated throughputs. */
struct psize {
	uint64_t size;
	double c_ns;                     /* nominal compute per iteration */
	struct meas_series cost, block, sat;
	struct satrun *sat_runs;         /* every saturated run, in round order */
	size_t nsat, satcap, nunsat;     /* nunsat: runs below SAT_MIN_SHARE, left out */
	uint64_t sat_msgs;
	char arg_size[40], arg_window[40], arg_compute[48], arg_burst[40], arg_duty[40];
	struct meas_summary scost, sblock;
	struct stats_summary tput;
	double pred[2 + MEAS_NSRC];      /* msg/s: displacement, drift-robust, OS sources */
	double err_pct[2 + MEAS_NSRC];
	double err_ci[2 + MEAS_NSRC];    /* 95 % CI of err_pct, percentage points, from the paired rounds */
};

static const char *pred_name(int k)
{
	return k == 0 ? "displacement" : k == 1 ? "drift-robust" : meas_src_name((enum meas_src)(k - 2));
}

static const char *pred_key(int k)
{
	return k == 0 ? "displacement" : k == 1 ? "drift_robust" : meas_src_key((enum meas_src)(k - 2));
}

/*
 * The size's cost series (paced: burst and duty) and saturated series (the
 * same loop, unpaced), with compute given as compute_arg.
 */
static void cost_series(struct mrun *r, struct psize *p, const char *label, char *compute_arg)
{
	mrun_series_init(r, &p->cost, label);
	mrun_add_arg(&p->cost, p->arg_size);
	mrun_add_arg(&p->cost, p->arg_window);
	mrun_add_arg(&p->cost, compute_arg);
	p->sat = p->cost;
	mrun_add_arg(&p->cost, p->arg_burst);
	mrun_add_arg(&p->cost, p->arg_duty);
	p->cost.size_bytes = p->sat.size_bytes = p->size;
}

static int saturated_run(struct mrun *r, struct psize *p)
{
	struct put_report rep;
	int rc = meas_alone(&r->mc, &p->sat, p->sat_msgs, &rep);
	if (rc)
		return rc;
	double wall = (double)(rep.end_ns - rep.start_ns);
	if (p->nsat == p->satcap) {
		size_t cap = p->satcap ? p->satcap * 2 : 16;
		struct satrun *n = realloc(p->sat_runs, cap * sizeof *n);
		if (!n)
			return -ENOMEM;
		p->sat_runs = n;
		p->satcap = cap;
	}
	p->sat_runs[p->nsat++] = (struct satrun){
		.tput = wall > 0 ? (double)rep.ops / wall * 1e9 : NAN,
		.share = wall > 0 && rep.task_clock_ns.avail ? rep.task_clock_ns.v / wall : NAN,
	};
	return 0;
}

/* x of source k (0 classic, 1 drift-robust, 2.. OS) in a run */
static double run_val(const struct meas_run *r, int k)
{
	return k == 0 ? r->t_put_ns : k == 1 ? r->t_put_robust_ns : r->os_ns[k - 2];
}

/*
 * A saturated run counts when the sender had its CPU: its task-clock (steal
 * included) at least this share of the loop's wall time. Below it, other
 * work ran on the CPU or the sender waited for replies, and the run measured
 * that, not the sender's saturation (unknown when task-clock is unavailable).
 */
#define SAT_MIN_SHARE 0.95

static int saturated(const struct psize *p, size_t j)
{
	return !(p->sat_runs[j].share < SAT_MIN_SHARE);
}

/* whether round j counts: its saturated run is valid and its cost pair, if any, was not an outlier */
static int round_kept(const struct psize *p, size_t j)
{
	if (!(p->sat_runs[j].tput > 0) || !isfinite(p->sat_runs[j].tput) || !saturated(p, j))
		return 0;
	return 2 * j >= p->cost.nruns || !p->cost.runs[2 * j].outlier;
}

/*
 * The prediction error's CI, from the rounds: round j's cost pair (runs 2j
 * and 2j + 1: L and a null run) and its saturated run were taken within a
 * second or two, so the host's slow drift moves both. The ratio of paired
 * means keeps that out of the CI (stats_ratio). The rounds are those the
 * error itself comes from (round_kept), so the CI is that of the error shown.
 */
static double paired_err_ci(const struct psize *p, int k)
{
	size_t n = p->cost.nruns / 2 < p->nsat ? p->cost.nruns / 2 : p->nsat, m = 0;
	double *num = calloc(n + 1, sizeof *num), *den = calloc(n + 1, sizeof *den), ratio, ci = NAN;
	for (size_t j = 0; num && den && j < n; j++) {
		const struct meas_run *a = &p->cost.runs[2 * j], *b = &p->cost.runs[2 * j + 1];
		double c = a->ops > b->ops ? (run_val(a, k) - run_val(b, k)) / (double)(a->ops - b->ops) : NAN;
		if (!round_kept(p, j) || !isfinite(c))
			continue;
		num[m] = 1e9 / p->sat_runs[j].tput; /* ns per message, saturated */
		den[m++] = c;
	}
	if (!num || !den || stats_ratio(num, den, m, 0.95, &ratio, &ci))
		ci = NAN;
	free(num);
	free(den);
	return 100 * ci;
}

/*
 * An iteration computes c, so a displacement cost below c is no measurement:
 * the fluid did not get the idle time (another process held the CPU).
 */
static int below_c(const struct psize *p, double tau_ns)
{
	return tau_ns < p->c_ns;
}

static void finish_size(struct mrun *r, struct psize *p)
{
	meas_summarize(&r->mc, &p->cost, &p->scost);
	meas_summarize(&r->mc, &p->block, &p->sblock);
	memset(&p->tput, 0, sizeof p->tput);
	p->tput.mean = p->tput.ci_half = NAN;
	/*
	 * Pooled: all saturated messages over all saturated time (every run
	 * sends the same number), the reciprocal of the mean time per message,
	 * its CI by the delta method; over the rounds whose cost pair counts,
	 * so that the error and its CI come from the same rounds.
	 */
	double *ns = p->nsat ? malloc(p->nsat * sizeof *ns) : NULL;
	size_t m = 0;
	struct stats_summary s;
	p->nunsat = 0;
	for (size_t j = 0; j < p->nsat; j++)
		p->nunsat += !saturated(p, j);
	for (size_t j = 0; ns && j < p->nsat; j++)
		if (round_kept(p, j))
			ns[m++] = 1e9 / p->sat_runs[j].tput;
	if (m && !stats_summarize(ns, m, 0.95, &s)) {
		p->tput.n = s.n;
		p->tput.mean = 1e9 / s.mean;
		p->tput.cv = s.cv;
		p->tput.sd = p->tput.mean * s.cv;
		p->tput.min = 1e9 / s.max;
		p->tput.max = 1e9 / s.min;
		p->tput.median = 1e9 / s.median;
		p->tput.ci_half = p->tput.mean * s.ci_half / s.mean;
	}
	free(ns);
	double tau[2 + MEAS_NSRC];
	tau[0] = p->scost.tau.mean;
	tau[1] = p->scost.tau_robust.mean;
	for (int k = 0; k < MEAS_NSRC; k++)
		tau[2 + k] = p->scost.os[k].mean;
	/*
	 * No prediction from a displacement below c. The OS sources stay as
	 * they are: /proc/stat leaves out user time, and showing that is its point.
	 */
	for (int k = 0; k < 2 + MEAS_NSRC; k++) {
		p->pred[k] = tau[k] > 0 && (k >= 2 || !below_c(p, tau[k])) ? 1e9 / tau[k] : NAN;
		p->err_pct[k] = 100 * (p->pred[k] - p->tput.mean) / p->tput.mean;
		p->err_ci[k] = isfinite(p->err_pct[k]) ? paired_err_ci(p, k) : NAN;
	}
}

/* "mean ± ci", or the mean alone when there is no CI (one pair): never "± nan" */
static void ci_cell(char *buf, size_t len, double mean, double ci)
{
	if (isfinite(ci))
		snprintf(buf, len, "%.2f ± %.2f", mean, ci);
	else
		snprintf(buf, len, "%.2f", mean);
}

static void print_table(struct psize *ps, size_t n, const struct popts *po)
{
	printf("  %8s  %20s", "size (B)", "measured msg/s ± CI");
	for (int k = 0; k < 2 + MEAS_NSRC; k++)
		printf("  %22s", pred_name(k));
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		struct psize *p = &ps[i];
		char m[48];
		/* no CI (one run) is shown as none, never as ± 0; no saturated run kept as n/a */
		if (!isfinite(p->tput.mean))
			snprintf(m, sizeof m, "n/a");
		else if (isfinite(p->tput.ci_half))
			snprintf(m, sizeof m, "%.1f ± %.1f", p->tput.mean, p->tput.ci_half);
		else
			snprintf(m, sizeof m, "%.1f", p->tput.mean);
		printf("  %8" PRIu64 "  %*s", p->size, strstr(m, "±") ? 21 : 20, m);
		for (int k = 0; k < 2 + MEAS_NSRC; k++) {
			char cell[40];
			if (isfinite(p->pred[k]) && isfinite(p->err_ci[k]))
				snprintf(cell, sizeof cell, "%.0f (%+.1f ± %.1f%%)", p->pred[k], p->err_pct[k],
					 p->err_ci[k]);
			else if (isfinite(p->pred[k]) && isfinite(p->err_pct[k]))
				snprintf(cell, sizeof cell, "%.0f (%+.2f%%)", p->pred[k], p->err_pct[k]);
			else if (isfinite(p->pred[k]))
				/* nothing measured to compare with: the prediction alone */
				snprintf(cell, sizeof cell, "%.0f", p->pred[k]);
			else
				snprintf(cell, sizeof cell, "n/a");
			/* "±" is two bytes but one column */
			printf("  %*s", strstr(cell, "±") ? 23 : 22, cell);
		}
		printf("\n");
	}
	printf("  predicted msg/s = 1 / (tau_send + c), with its %% error against the measured throughput\n"
	       "  and that error's 95%% CI (from each round's cost paired with its saturated run)\n\n");
	printf("  %8s  %9s  %18s  %14s  %18s  %s\n", "size (B)", "c (µs)", "iteration µs ± CI", "tau_send (µs)",
	       "blocking µs ± CI", "blocking - tau_send");
	for (size_t i = 0; i < n; i++) {
		struct psize *p = &ps[i];
		double send = (p->scost.tau.mean - p->c_ns) / 1e3, blk = p->sblock.tau.mean / 1e3;
		char it[40], bl[40];
		ci_cell(it, sizeof it, p->scost.tau.mean / 1e3, p->scost.tau.ci_half / 1e3);
		ci_cell(bl, sizeof bl, blk, p->sblock.tau.ci_half / 1e3);
		printf("  %8" PRIu64 "  %9.2f  %18s  %14.2f  %18s  %+.2f µs (%+.0f%%)\n", p->size, p->c_ns / 1e3, it, send, bl,
		       blk - send, 100 * (blk - send) / send);
	}
	printf("  tau_send = displacement per iteration - c; blocking = send and wait for each reply, no compute\n");
	(void)po;
}

#define PREDICT_CSV_HEADER                                                                                        \
	"date,workload,size_bytes,compute_us,window,rounds,measured_msgs_per_s,measured_ci95,iteration_us,"      \
	"iteration_ci95_us,tau_send_us,blocking_us,blocking_ci95_us,pred_displacement,err_displacement_pct,"      \
	"err_displacement_ci95_pct,pred_drift_robust,err_drift_robust_pct,pred_getrusage,err_getrusage_pct,pred_task_clock,"                \
	"err_task_clock_pct,pred_schedstat,err_schedstat_pct,pred_procstat,err_procstat_pct"

#define PREDICT_CSV_COLS 26

static void csv_row(struct csvout *c, const char *workload, const struct psize *p, const struct popts *po,
		    unsigned rounds)
{
	char f[PREDICT_CSV_COLS][48];
	const char *fp[PREDICT_CSV_COLS];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(f[0], sizeof f[0], "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(f[1], 48, "%s", workload);
	snprintf(f[2], 48, "%" PRIu64, p->size);
	snprintf(f[3], 48, "%.3f", p->c_ns / 1e3);
	snprintf(f[4], 48, "%" PRIu64, po->window);
	snprintf(f[5], 48, "%u", rounds);
	double v[] = { p->tput.mean,	       p->tput.ci_half,		 p->scost.tau.mean / 1e3,
		       p->scost.tau.ci_half / 1e3, (p->scost.tau.mean - p->c_ns) / 1e3, p->sblock.tau.mean / 1e3,
		       p->sblock.tau.ci_half / 1e3 };
	int n = 6;
	for (int i = 0; i < 7; i++)
		csvout_num(f[n++], 48, v[i], 4);
	for (int k = 0; k < 2 + MEAS_NSRC; k++) {
		csvout_num(f[n++], 48, p->pred[k], 3);
		csvout_num(f[n++], 48, p->err_pct[k], 3);
		if (k == 0)
			csvout_num(f[n++], 48, p->err_ci[k], 3);
	}
	for (int i = 0; i < n; i++)
		fp[i] = f[i];
	csvout_row(c, fp, (size_t)n);
}

static json_t *size_json(const struct psize *p, const struct mrun *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)p->size));
	json_object_set_new(o, "compute_us", jout_num(p->c_ns / 1e3));
	json_object_set_new(o, "measured_msgs_per_s", jout_num(p->tput.mean));
	json_object_set_new(o, "measured_ci95", jout_num(p->tput.ci_half));
	json_object_set_new(o, "saturated_runs", json_integer((json_int_t)p->nsat));
	json_t *sat = json_array();
	for (size_t i = 0; i < p->nsat; i++)
		json_array_append_new(sat, jout_num(p->sat_runs[i].tput));
	json_object_set_new(o, "saturated_msgs_per_s", sat);
	json_t *share = json_array();
	for (size_t i = 0; i < p->nsat; i++)
		json_array_append_new(share, jout_num(p->sat_runs[i].share));
	json_object_set_new(o, "saturated_cpu_share", share);
	json_object_set_new(o, "saturated_runs_left_out", json_integer((json_int_t)p->nunsat));
	json_t *pred = json_object(), *err = json_object();
	for (int k = 0; k < 2 + MEAS_NSRC; k++) {
		json_object_set_new(pred, pred_key(k), jout_num(p->pred[k]));
		json_object_set_new(err, pred_key(k), jout_num(p->err_pct[k]));
	}
	json_object_set_new(o, "predicted_msgs_per_s", pred);
	json_object_set_new(o, "error_pct", err);
	json_t *eci = json_object();
	for (int k = 0; k < 2 + MEAS_NSRC; k++)
		json_object_set_new(eci, pred_key(k), jout_num(p->err_ci[k]));
	json_object_set_new(o, "error_ci95_pct", eci);
	json_object_set_new(o, "tau_send_us", jout_num((p->scost.tau.mean - p->c_ns) / 1e3));
	json_object_set_new(o, "iteration", mreport_json(&p->scost, &r->mc, &p->cost));
	json_object_set_new(o, "blocking", mreport_json(&p->sblock, &r->mc, &p->block));
	return o;
}

static int write_plot(const char *path, const struct mrun *r, struct psize *ps, size_t n)
{
	const int show[] = { 0, 2, 3 }; /* displacement, getrusage, task-clock */
	double *x = calloc(n, sizeof *x), *m = calloc(n, sizeof *m), *e = calloc(n, sizeof *e);
	double *y[3];
	struct plot_series s[4];
	for (int k = 0; k < 3; k++)
		y[k] = calloc(n, sizeof *y[k]);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)ps[i].size;
		m[i] = ps[i].tput.mean;
		e[i] = ps[i].tput.ci_half;
		for (int k = 0; k < 3; k++)
			y[k][i] = ps[i].pred[show[k]];
	}
	s[0] = (struct plot_series){ "measured (saturated, 95% CI)", x, m, e, n };
	static char titles[3][64];
	for (int k = 0; k < 3; k++) {
		snprintf(titles[k], sizeof titles[k], "predicted by %s", pred_name(show[k]));
		s[1 + k] = (struct plot_series){ titles[k], x, y[k], NULL, n };
	}
	char title[160];
	snprintf(title, sizeof title, "%s: saturation throughput, measured and predicted (CPU %d)", r->m.workload,
		 r->m.cpu);
	int rc = mrun_plot(path, title, "message size (bytes)", "messages per second", s, 4);
	for (int k = 0; k < 3; k++)
		free(y[k]);
	free(x);
	free(m);
	free(e);
	return rc;
}

static int is_stream(const char *w)
{
	return !strcmp(w, "tcp") || !strcmp(w, "tcp-stream") || !strcmp(w, "unix");
}

int cmd_predict(int argc, char **argv)
{
	struct mrun r;
	struct popts po = { .compute_us = -1, .per_byte_ns = -1, .window = DEFAULT_WINDOW, .duty = 0.8 };
	memset(&r, 0, sizeof r);
	r.m.cmd = "predict";
	int st = mopts_parse(argc, argv, &r.m, extra, on_extra, &po);
	if (st)
		return st;
	if (r.m.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!r.m.workload)
		return msg_usage("predict", "no workload given (tcp, tcp-stream or unix)");
	if (!is_stream(r.m.workload))
		return msg_usage("predict", "predict needs a stream workload (tcp, tcp-stream or unix), not '%s'",
				 r.m.workload);
	if (!po.nsizes)
		return msg_usage("predict", "--sizes is required (e.g. --sizes 1000,8000,64000)");
	if ((po.compute_us >= 0) == (po.per_byte_ns >= 0))
		return msg_usage("predict", "give exactly one of --compute US and --compute-per-byte NS");
	if (r.m.ops_given && r.m.ops < 1)
		return msg_usage("predict", "--ops must be at least 1 (iterations per cost run)");
	if (r.m.reps == 1)
		return msg_usage("predict", "--reps must be at least 2 (a CI needs two rounds)");
	if (!r.m.fit)
		return msg_usage("predict", "--no-fit does not apply: each cost is fitted from L and a null run");
	if (r.m.reps && r.m.precision)
		return msg_usage("predict", "--reps and --precision exclude each other");
	for (int i = 1; i < r.m.nwargs; i++)
		if (!strncmp(r.m.wargs[i], "--window", 8) || !strncmp(r.m.wargs[i], "--compute", 9) ||
		    !strncmp(r.m.wargs[i], "--burst", 7) || !strncmp(r.m.wargs[i], "--size", 6))
			return msg_usage("predict", "'%s' is predict's to set", r.m.wargs[i]);

	size_t n = po.nsizes;
	struct psize *ps = calloc(n, sizeof *ps);
	if (!ps)
		return EXIT_FAILED;
	/* check every size through the workload's own parser */
	for (size_t i = 0; i < n && !st; i++) {
		struct psize *p = &ps[i];
		p->size = po.sizes[i];
		p->c_ns = po.compute_us >= 0 ? po.compute_us * 1e3 : po.per_byte_ns * (double)p->size;
		snprintf(p->arg_size, sizeof p->arg_size, "--size=%" PRIu64, p->size);
		snprintf(p->arg_window, sizeof p->arg_window, "--window=%" PRIu64, po.window);
		snprintf(p->arg_compute, sizeof p->arg_compute, "--compute-us=%.6f", p->c_ns / 1e3);
		snprintf(p->arg_burst, sizeof p->arg_burst, "--burst=%d", DEFAULT_BURST);
		snprintf(p->arg_duty, sizeof p->arg_duty, "--duty=%.3f", po.duty);
		char *w[MOPTS_MAX_WARGS + 8];
		int k = 0;
		for (int j = 0; j < r.m.nwargs; j++)
			w[k++] = r.m.wargs[j];
		w[k++] = p->arg_size;
		w[k++] = p->arg_window;
		w[k++] = p->arg_compute;
		st = mrun_check_workload(&r, w, k);
	}
	struct csvout csv = { 0 };
	if (!st)
		st = mrun_check_plot(&r);
	if (!st)
		st = mrun_open_csv(&r, &csv, PREDICT_CSV_HEADER);
	if (st) {
		free(ps);
		return st;
	}
	if ((st = mrun_setup(&r)))
		goto out;
	static char loops_args[MAX_SIZES][48];
	for (size_t i = 0; i < n && !st; i++) {
		struct psize *p = &ps[i];
		char label[32];
		snprintf(label, sizeof label, "%" PRIu64, p->size);
		/* a pilot: the cost of an iteration, and the compute loops every run will use */
		cost_series(&r, p, label, p->arg_compute);
		struct put_report rep;
		int rc = meas_pilot(&r.mc, &p->cost, 200, &rep);
		if (rc) {
			st = mrun_fail(&r, rc);
			break;
		}
		char v[32];
		if (p->c_ns > 0 && report_field(rep.extra, "compute_loops", v, sizeof v)) {
			/* identical work in every run: the spin is calibrated once */
			snprintf(loops_args[i], sizeof loops_args[i], "--compute-loops=%s", v);
			cost_series(&r, p, label, loops_args[i]);
		}
		/* busy time per iteration: the pilot's wall time less its pauses */
		double busy = (double)(rep.end_ns - rep.start_ns);
		if (report_field(rep.extra, "paced_ns", v, sizeof v))
			busy -= atof(v);
		double per_op = rep.ops && busy > 0 ? busy / (double)rep.ops : 1e5;
		uint64_t l = r.m.ops_given ? r.m.ops : (uint64_t)((double)r.m.run_ns / (per_op > 1 ? per_op : 1));
		if (l < 2 * DEFAULT_BURST)
			l = 2 * DEFAULT_BURST;
		p->cost.ops = l;
		p->sat_msgs = po.messages ? po.messages : l;
		/* the blocking mode, as sweep measures it */
		mrun_series_init(&r, &p->block, label);
		mrun_add_arg(&p->block, p->arg_size);
		p->block.size_bytes = p->size;
		st = mrun_choose_ops(&r, &p->block);
	}
	if (st)
		goto out;
	if (r.peer_note[0])
		msg_info("%s", r.peer_note);

	unsigned reps = r.m.reps ? r.m.reps : DEFAULT_REPS;
	reps = mrun_whole_pairs(reps, "the blocking mode needs whole pairs");
	/* the blocking mode is context, not the result: 8 pairs of runs are enough */
	unsigned block_rounds = r.m.precision || reps > 2 * DEFAULT_REPS ? 2 * DEFAULT_REPS : reps;
	uint64_t deadline = r.start_ns + r.m.max_time_ns;
	struct msg_progress prog;
	msg_progress_start(&prog, "predicting", r.m.precision ? 0 : (double)reps * (double)n);
	int rc = 0, met = 0;
	unsigned rounds = 0;
	for (unsigned rep = 0; !rc && (r.m.precision || rep < reps); rep++) {
		for (size_t j = 0; j < n && !rc; j++) {
			struct psize *p = &ps[(j + rep / 2) % n];
			int small = rep % 2;
			/*
			 * The cost pair is L and a null run: the loop's cost varies
			 * about 5 % from run to run on a VM, and a slope from L and
			 * L/4 amplifies that, where L and a null run does not.
			 */
			rc = meas_run(&r.mc, &p->cost, p->cost.ops);
			if (!rc)
				rc = meas_run(&r.mc, &p->cost, 0);
			if (!rc)
				rc = saturated_run(&r, p);
			if (!rc && rep < block_rounds)
				rc = meas_run(&r.mc, &p->block, small ? meas_small_ops(p->block.ops) : p->block.ops);
			msg_progress_update(&prog, (double)rep * (double)n + (double)j + 1);
		}
		if (rc)
			continue;
		rounds = rep + 1;
		if (r.m.precision && rounds >= 8 && rounds % 2 == 0) {
			/*
			 * --precision: every size's displacement error known to within
			 * P (its 95 % CI); from 8 rounds on, so that the spread behind
			 * the CI is itself known, and on whole pairs of blocking runs
			 */
			met = 1;
			for (size_t i = 0; i < n; i++) {
				finish_size(&r, &ps[i]);
				if (!(ps[i].err_ci[0] <= 100 * r.m.precision))
					met = 0;
			}
			if (met)
				break;
		}
		if (rep % 2 == 1 && dclock_raw_ns() >= deadline) {
			msg_warn("--max-time ran out after %u rounds", rounds);
			break;
		}
	}
	msg_progress_end(&prog);
	if (rc) {
		st = mrun_fail(&r, rc);
		if (rounds < 2)
			goto out;
		msg_warn("reporting the %u whole rounds done before the failure", rounds);
	}
	size_t outliers = 0;
	for (size_t i = 0; i < n; i++) {
		finish_size(&r, &ps[i]);
		outliers += ps[i].scost.outliers + ps[i].sblock.outliers;
		if (r.m.csv)
			csv_row(&csv, r.m.workload, &ps[i], &po, rounds);
	}
	if (outliers)
		msg_warn("%zu pairs were outliers and were left out: other work ran during them; add --reps", outliers);
	size_t unsat = 0;
	for (size_t i = 0; i < n; i++)
		unsat += ps[i].nunsat;
	if (unsat)
		msg_warn("%zu saturated runs were left out: the sender had its CPU less than %.0f%% of the time "
			 "(other work on CPU %d, or it waited for replies: try a larger --window)",
			 unsat, 100 * SAT_MIN_SHARE, r.m.cpu);
	double share = 1;
	for (size_t i = 0; i < n; i++)
		share = fmin(share, fmin(mrun_fluid_share(&ps[i].scost), mrun_fluid_share(&ps[i].sblock)));
	int host_busy = mrun_warn_busy(&r, share);
	size_t nbelow_c = 0;
	for (size_t i = 0; i < n; i++) {
		const struct stats_summary *est[2] = { &ps[i].scost.tau, &ps[i].scost.tau_robust };
		for (int k = 0; k < 2; k++)
			if (below_c(&ps[i], est[k]->mean)) {
				nbelow_c++;
				msg_warn("%" PRIu64 " B: %s gives %.2f µs per iteration, less than the %.2f µs it "
					 "computes: the fluid did not get CPU %d's idle time (another process held "
					 "it?); no %s prediction",
					 ps[i].size, pred_name(k), est[k]->mean / 1e3, ps[i].c_ns / 1e3, r.m.cpu,
					 pred_name(k));
			}
	}
	if (r.m.precision && !met && !rc)
		msg_warn("not every size's error was known to ±%.2f%% before --max-time", 100 * r.m.precision);
	if (r.m.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, size_json(&ps[i], &r));
		json_t *o = json_object();
		json_object_set_new(o, "workload", json_string(r.m.workload));
		json_object_set_new(o, "window", json_integer((json_int_t)po.window));
		json_object_set_new(o, "duty", json_real(po.duty));
		json_object_set_new(o, "rounds", json_integer(rounds));
		if (r.m.precision) {
			json_object_set_new(o, "precision_target", json_real(r.m.precision));
			json_object_set_new(o, "precision_met", json_boolean(met));
		}
		json_object_set_new(o, "peer", r.peer_note[0] ? json_string(r.peer_note) : json_null());
		json_object_set_new(o, "sizes", arr);
		json_object_set_new(o, "context", context_json(&r.ctx));
		jout_print(o);
	} else {
		printf("displace predict %s: window %" PRIu64 ", CPU %d, %u rounds%s%s%s\n", r.m.workload, po.window,
		       r.m.cpu, rounds, r.m.precision ? (met ? " (precision reached)" : " (precision NOT reached)") : "",
		       r.peer_note[0] ? "; " : "", r.peer_note);
		print_table(ps, n, &po);
		/* how far the answer is from a 2 % question, and what it would take */
		double worst = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(ps[i].err_ci[0]) && ps[i].err_ci[0] > worst)
				worst = ps[i].err_ci[0];
		if (!r.m.precision && worst > 1.5 && rounds >= 2) {
			/* the rounds' sd stays; t falls towards 2 as rounds are added */
			double t = stats_t_quantile(0.975, (double)rounds - 1), k = worst / 1.5 * 2.0 / t;
			printf("  the errors are known to ±%.1f points at most; about %.0f rounds would make that ±1.5:\n"
			       "  use --precision 1.5%%\n",
			       worst, ceil((double)rounds * k * k));
		}
	}
	/* as in sweep: a plot that cannot be written is a missing resource */
	if (r.m.plot && write_plot(r.m.plot, &r, ps, n) && !st)
		st = EXIT_RESOURCE;
	if (!st && r.m.strict && (outliers || unsat || nbelow_c || host_busy || (r.m.precision && !met)))
		st = EXIT_UNTRUSTED;
out:
	for (size_t i = 0; i < n; i++) {
		meas_series_free(&ps[i].cost);
		meas_series_free(&ps[i].block);
		free(ps[i].sat_runs);
	}
	free(ps);
	csvout_close(&csv);
	mrun_finish(&r);
	return st;
}
