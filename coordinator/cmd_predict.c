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
#include "coordinator/out_csv.h"
#include "coordinator/out_json.h"
#include "coordinator/out_text.h"
#include "calib/predict.h"
#include "common/vec.h"
#include "coordinator/cmd_measuring.h"
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
	      "\n",
	      f);
	char names[128];
	put_names(PUT_PIPELINE, ", ", ", ", names, sizeof names);
	fprintf(f, "Workloads: %s (the stream workloads).\n", names);
	fputs("\n"
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
	fputs(opts_help_placement, f);
	fputs("\n", f);
	opts_help_measurement(f, "predict");
	fputs("\n", f);
	opts_help_output(f, "predict",
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

static const struct opts_extra extra[] = {
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

/* One size: the cost series, the blocking series, and the saturated runs. */
struct psize {
	uint64_t size;
	double c_ns;                     /* nominal compute per iteration */
	struct series cost, block, sat;
	struct pred_sat *sat_runs;       /* every saturated run, in round order */
	size_t nsat, satcap;
	uint64_t sat_msgs;
	struct summary scost, sblock;
	struct pred_out pr;
};

/* The whole command: its options, session, sizes and rounds. */
struct predict {
	struct session r;
	struct popts po;
	struct psize *ps;
	size_t n;
	struct csvout csv;
	unsigned rounds;
	int met;                         /* --precision reached */
};

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
	for (int k = 0; k < PRED_NSRC; k++)
		printf("  %22s", pred_name(k));
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		struct psize *p = &ps[i];
		char m[48];
		/* no CI (one run) is shown as none, never as ± 0; no saturated run kept as n/a */
		if (!isfinite(p->pr.tput.mean))
			snprintf(m, sizeof m, "n/a");
		else if (isfinite(p->pr.tput.ci_half))
			snprintf(m, sizeof m, "%.1f ± %.1f", p->pr.tput.mean, p->pr.tput.ci_half);
		else
			snprintf(m, sizeof m, "%.1f", p->pr.tput.mean);
		printf("  %8" PRIu64 "  %*s", p->size, strstr(m, "±") ? 21 : 20, m);
		for (int k = 0; k < PRED_NSRC; k++) {
			char cell[40];
			if (isfinite(p->pr.pred[k]) && isfinite(p->pr.err_ci[k]))
				snprintf(cell, sizeof cell, "%.0f (%+.1f ± %.1f%%)", p->pr.pred[k], p->pr.err_pct[k],
					 p->pr.err_ci[k]);
			else if (isfinite(p->pr.pred[k]) && isfinite(p->pr.err_pct[k]))
				snprintf(cell, sizeof cell, "%.0f (%+.2f%%)", p->pr.pred[k], p->pr.err_pct[k]);
			else if (isfinite(p->pr.pred[k]))
				/* nothing measured to compare with: the prediction alone */
				snprintf(cell, sizeof cell, "%.0f", p->pr.pred[k]);
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
	csvout_date(f[0], sizeof f[0]);
	snprintf(f[1], 48, "%s", workload);
	snprintf(f[2], 48, "%" PRIu64, p->size);
	snprintf(f[3], 48, "%.3f", p->c_ns / 1e3);
	snprintf(f[4], 48, "%" PRIu64, po->window);
	snprintf(f[5], 48, "%u", rounds);
	double v[] = { p->pr.tput.mean,	       p->pr.tput.ci_half,		 p->scost.tau.mean / 1e3,
		       p->scost.tau.ci_half / 1e3, (p->scost.tau.mean - p->c_ns) / 1e3, p->sblock.tau.mean / 1e3,
		       p->sblock.tau.ci_half / 1e3 };
	int n = 6;
	for (int i = 0; i < 7; i++)
		csvout_num(f[n++], 48, v[i], 4);
	for (int k = 0; k < PRED_NSRC; k++) {
		csvout_num(f[n++], 48, p->pr.pred[k], 3);
		csvout_num(f[n++], 48, p->pr.err_pct[k], 3);
		if (k == 0)
			csvout_num(f[n++], 48, p->pr.err_ci[k], 3);
	}
	for (int i = 0; i < n; i++)
		fp[i] = f[i];
	csvout_row(c, fp, (size_t)n);
}

static json_t *size_json(const struct psize *p, const struct session *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)p->size));
	json_object_set_new(o, "compute_us", jout_num(p->c_ns / 1e3));
	json_object_set_new(o, "measured_msgs_per_s", jout_num(p->pr.tput.mean));
	json_object_set_new(o, "measured_ci95", jout_num(p->pr.tput.ci_half));
	json_object_set_new(o, "saturated_runs", json_integer((json_int_t)p->nsat));
	json_t *sat = json_array();
	for (size_t i = 0; i < p->nsat; i++)
		json_array_append_new(sat, jout_num(p->sat_runs[i].tput));
	json_object_set_new(o, "saturated_msgs_per_s", sat);
	json_t *share = json_array();
	for (size_t i = 0; i < p->nsat; i++)
		json_array_append_new(share, jout_num(p->sat_runs[i].share));
	json_object_set_new(o, "saturated_cpu_share", share);
	json_object_set_new(o, "saturated_runs_left_out", json_integer((json_int_t)p->pr.nunsat));
	json_t *pred = json_object(), *err = json_object();
	for (int k = 0; k < PRED_NSRC; k++) {
		json_object_set_new(pred, pred_key(k), jout_num(p->pr.pred[k]));
		json_object_set_new(err, pred_key(k), jout_num(p->pr.err_pct[k]));
	}
	json_object_set_new(o, "predicted_msgs_per_s", pred);
	json_object_set_new(o, "error_pct", err);
	json_t *eci = json_object();
	for (int k = 0; k < PRED_NSRC; k++)
		json_object_set_new(eci, pred_key(k), jout_num(p->pr.err_ci[k]));
	json_object_set_new(o, "error_ci95_pct", eci);
	json_object_set_new(o, "tau_send_us", jout_num((p->scost.tau.mean - p->c_ns) / 1e3));
	json_object_set_new(o, "iteration", out_json(&p->scost, &r->seq.o, &p->cost));
	json_object_set_new(o, "blocking", out_json(&p->sblock, &r->seq.o, &p->block));
	return o;
}

static int write_plot(const char *path, const struct session *r, struct psize *ps, size_t n)
{
	const int show[] = { 0, 2, 3 }; /* displacement, getrusage, task-clock */
	double *x = calloc(n, sizeof *x), *m = calloc(n, sizeof *m), *e = calloc(n, sizeof *e);
	double *y[3];
	struct plot_series s[4];
	for (int k = 0; k < 3; k++)
		y[k] = calloc(n, sizeof *y[k]);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)ps[i].size;
		m[i] = ps[i].pr.tput.mean;
		e[i] = ps[i].pr.tput.ci_half;
		for (int k = 0; k < 3; k++)
			y[k][i] = ps[i].pr.pred[show[k]];
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
	int rc = measuring_plot(path, title, "message size (bytes)", "messages per second", s, 4);
	for (int k = 0; k < 3; k++)
		free(y[k]);
	free(x);
	free(m);
	free(e);
	return rc;
}


/*
 * The size's cost series (paced: burst and duty) and saturated series (the
 * same loop, unpaced), with compute given as compute_arg.
 */
static void cost_series(struct predict *pd, struct psize *p, const char *label, const char *compute_arg)
{
	char arg[64];
	session_series_init(&pd->r, &p->cost, label);
	p->cost.size_bytes = p->size;
	snprintf(arg, sizeof arg, "--window=%" PRIu64, pd->po.window);
	series_add_arg(&p->cost, arg);
	series_add_arg(&p->cost, compute_arg);
	p->sat = p->cost;
	snprintf(arg, sizeof arg, "--burst=%d", DEFAULT_BURST);
	series_add_arg(&p->cost, arg);
	snprintf(arg, sizeof arg, "--duty=%.3f", pd->po.duty);
	series_add_arg(&p->cost, arg);
}

/* one saturated run of p's loop, alone on its CPU */
static int saturated_run(struct predict *pd, struct psize *p)
{
	struct put_report rep;
	int rc = seq_alone(&pd->r.seq, &p->sat, p->sat_msgs, &rep);
	if (rc)
		return rc;
	double wall = (double)(rep.end_ns - rep.start_ns);
	struct pred_sat *runs = vec_grow(p->sat_runs, &p->satcap, p->nsat, sizeof *runs);
	if (!runs)
		return -ENOMEM;
	p->sat_runs = runs;
	p->sat_runs[p->nsat++] = (struct pred_sat){
		.tput = wall > 0 ? (double)rep.ops / wall * 1e9 : NAN,
		.share = wall > 0 && rep.task_clock_ns.avail ? rep.task_clock_ns.v / wall : NAN,
	};
	return 0;
}

/* the summaries of p's series and its predictions */
static void finish_size(struct predict *pd, struct psize *p)
{
	seq_summarize(&pd->r.seq, &p->cost, &p->scost);
	seq_summarize(&pd->r.seq, &p->block, &p->sblock);
	struct pred_in in = { .c_ns = p->c_ns, .cost = p->cost.runs, .ncost = p->cost.nruns, .scost = &p->scost,
			      .sat = p->sat_runs, .nsat = p->nsat };
	pred_compute(&in, &p->pr);
}

/* 1. the options, and every check that can be made before anything runs */
static int check_options(struct predict *pd)
{
	struct session *r = &pd->r;
	struct popts *po = &pd->po;
	char names[128];
	put_names(PUT_PIPELINE, ", ", " or ", names, sizeof names);
	if (!r->m.workload)
		return msg_usage("predict", "no workload given (%s)", names);
	const struct put_workload *w = put_find(r->m.workload);
	if (!w || !(w->flags & PUT_PIPELINE))
		return msg_usage("predict", "predict needs a stream workload (%s), not '%s'", names, r->m.workload);
	if (!po->nsizes)
		return msg_usage("predict", "--sizes is required (e.g. --sizes 1000,8000,64000)");
	if ((po->compute_us >= 0) == (po->per_byte_ns >= 0))
		return msg_usage("predict", "give exactly one of --compute US and --compute-per-byte NS");
	if (r->m.ops_given && r->m.ops < 1)
		return msg_usage("predict", "--ops must be at least 1 (iterations per cost run)");
	if (r->m.reps == 1)
		return msg_usage("predict", "--reps must be at least 2 (a CI needs two rounds)");
	if (!r->m.fit)
		return msg_usage("predict", "--no-fit does not apply: each cost is fitted from L and a null run");
	if (r->m.reps && r->m.precision)
		return msg_usage("predict", "--reps and --precision exclude each other");
	for (int i = 1; i < r->m.nwargs; i++)
		if (!strncmp(r->m.wargs[i], "--window", 8) || !strncmp(r->m.wargs[i], "--compute", 9) ||
		    !strncmp(r->m.wargs[i], "--burst", 7) || !strncmp(r->m.wargs[i], "--size", 6))
			return msg_usage("predict", "'%s' is predict's to set", r->m.wargs[i]);
	pd->n = po->nsizes;
	pd->ps = calloc(pd->n, sizeof *pd->ps);
	if (!pd->ps)
		return EXIT_FAILED;
	for (size_t i = 0; i < pd->n; i++) {
		struct psize *p = &pd->ps[i];
		p->size = po->sizes[i];
		p->c_ns = po->compute_us >= 0 ? po->compute_us * 1e3 : po->per_byte_ns * (double)p->size;
		/* the workload spins at most 1e7 us per message */
		if (p->c_ns > 1e10)
			return msg_usage("predict", "--compute-per-byte %g at %" PRIu64 " bytes is %.0f us per message, above 1e7",
					 po->per_byte_ns, p->size, p->c_ns / 1e3);
	}
	int st = measuring_check_workload(r, r->m.wargs, r->m.nwargs, po->sizes, po->nsizes);
	if (!st)
		st = measuring_check_plot(r);
	if (!st)
		st = measuring_open_csv(r, &pd->csv, PREDICT_CSV_HEADER);
	return st;
}

/*
 * 2. per size, a pilot of the paced loop: the cost of an iteration, the
 * compute loops every run will use, L; and the blocking mode's series
 */
static int prepare_sizes(struct predict *pd)
{
	struct session *r = &pd->r;
	struct msg_progress prog;
	msg_progress_start(&prog, "predicting", (double)pd->n);
	for (size_t i = 0; i < pd->n; i++) {
		struct psize *p = &pd->ps[i];
		char label[32], compute[48], v[32];
		msg_progress_phase(&prog, "pilot, size %" PRIu64 " B", p->size);
		snprintf(label, sizeof label, "%" PRIu64, p->size);
		snprintf(compute, sizeof compute, "--compute-us=%.6f", p->c_ns / 1e3);
		cost_series(pd, p, label, compute);
		struct put_report rep;
		int rc = seq_pilot(&r->seq, &p->cost, 200, &rep);
		if (rc)
			return measuring_fail(r, rc);
		if (p->c_ns > 0 && report_field(rep.extra, "compute_loops", v, sizeof v)) {
			/* identical work in every run: the spin is calibrated once */
			snprintf(compute, sizeof compute, "--compute-loops=%s", v);
			cost_series(pd, p, label, compute);
		}
		/* busy time per iteration: the pilot's wall time less its pauses */
		double busy = (double)(rep.end_ns - rep.start_ns);
		if (report_field(rep.extra, "paced_ns", v, sizeof v))
			busy -= atof(v);
		double per_op = rep.ops && busy > 0 ? busy / (double)rep.ops : 1e5;
		uint64_t l = r->m.ops_given ? r->m.ops : (uint64_t)((double)r->m.run_ns / (per_op > 1 ? per_op : 1));
		if (l < 2 * DEFAULT_BURST)
			l = 2 * DEFAULT_BURST;
		p->cost.ops = l;
		p->sat_msgs = pd->po.messages ? pd->po.messages : l;
		/* the blocking mode, as sweep measures it */
		session_series_init(r, &p->block, label);
		p->block.size_bytes = p->size;
		int st = measuring_choose_ops(r, &p->block);
		if (st)
			return st;
		msg_progress_update(&prog, (double)i + 1);
	}
	msg_progress_end(&prog);
	if (r->peer_note[0])
		msg_info("%s", r->peer_note);
	return 0;
}

/*
 * 3. the rounds: per size, a cost pair (L and a null run), a saturated
 * run, and in the first rounds a blocking run; until --reps rounds, or
 * under --precision until every size's error is known to P. 0, or the
 * run's error (rounds done are kept)
 */
static int run_rounds(struct predict *pd)
{
	struct session *r = &pd->r;
	size_t n = pd->n;
	unsigned reps = r->m.reps ? r->m.reps : DEFAULT_REPS;
	reps = measuring_whole_pairs(reps, "the blocking mode needs whole pairs");
	/* the blocking mode is context, not the result: 8 pairs of runs are enough */
	unsigned block_rounds = r->m.precision || reps > 2 * DEFAULT_REPS ? 2 * DEFAULT_REPS : reps;
	uint64_t deadline = r->start_ns + r->m.max_time_ns;
	struct msg_progress prog;
	msg_progress_start(&prog, "predicting", r->m.precision ? 0 : (double)reps * (double)n);
	msg_progress_deadline(&prog, deadline);
	int rc = 0;
	for (unsigned rep = 0; !rc && (r->m.precision || rep < reps); rep++) {
		for (size_t j = 0; j < n && !rc; j++) {
			struct psize *p = &pd->ps[(j + rep / 2) % n];
			int small = rep % 2;
			msg_progress_phase(&prog, "round %u, size %" PRIu64 " B", rep + 1, p->size);
			/*
			 * The cost pair is L and a null run: the loop's cost varies
			 * about 5 % from run to run on a VM, and a slope from L and
			 * L/4 amplifies that, where L and a null run does not.
			 */
			rc = seq_run(&r->seq, &p->cost, p->cost.ops);
			if (!rc)
				rc = seq_run(&r->seq, &p->cost, 0);
			if (!rc)
				rc = saturated_run(pd, p);
			if (!rc && rep < block_rounds)
				rc = seq_run(&r->seq, &p->block, small ? sum_small_ops(p->block.ops) : p->block.ops);
			msg_progress_update(&prog, (double)rep * (double)n + (double)j + 1);
		}
		if (rc)
			continue;
		pd->rounds = rep + 1;
		if (r->m.precision && pd->rounds >= 8 && pd->rounds % 2 == 0) {
			/*
			 * --precision: every size's displacement error known to within
			 * P (its 95 % CI); from 8 rounds on, so that the spread behind
			 * the CI is itself known, and on whole pairs of blocking runs
			 */
			pd->met = 1;
			for (size_t i = 0; i < n; i++) {
				finish_size(pd, &pd->ps[i]);
				msg_progress_ci(&prog, pd->ps[i].pr.err_ci[PRED_DISPLACEMENT], 100 * r->m.precision);
				if (!(pd->ps[i].pr.err_ci[PRED_DISPLACEMENT] <= 100 * r->m.precision))
					pd->met = 0;
			}
			if (pd->met)
				break;
		}
		if (rep % 2 == 1 && dclock_raw_ns() >= deadline) {
			msg_warn("--max-time ran out after %u rounds", pd->rounds);
			break;
		}
	}
	msg_progress_end(&prog);
	return rc;
}

/* 4. the warnings; 1 when the result is untrustworthy (--strict) */
static int warn(struct predict *pd, int failed)
{
	struct session *r = &pd->r;
	size_t outliers = 0, unsat = 0, nbelow_c = 0;
	double share = 1;
	for (size_t i = 0; i < pd->n; i++) {
		outliers += pd->ps[i].scost.outliers + pd->ps[i].sblock.outliers;
		unsat += pd->ps[i].pr.nunsat;
		share = fmin(share, fmin(sum_fluid_share(&pd->ps[i].scost), sum_fluid_share(&pd->ps[i].sblock)));
	}
	if (outliers)
		msg_warn("%zu pairs were outliers and were left out: other work ran during them; add --reps", outliers);
	if (unsat)
		msg_warn("%zu saturated runs were left out: the sender had its CPU less than %.0f%% of the time "
			 "(other work on CPU %d, or it waited for replies: try a larger --window)",
			 unsat, 100 * PRED_MIN_SAT_SHARE, r->m.cpu);
	int host_busy = measuring_warn_busy(r, share);
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &pd->ps[i];
		const struct stats_summary *est[2] = { &p->scost.tau, &p->scost.tau_robust };
		for (int k = 0; k < 2; k++)
			if (pred_below_c(p->c_ns, est[k]->mean)) {
				nbelow_c++;
				msg_warn("%" PRIu64 " B: %s gives %.2f µs per iteration, less than the %.2f µs it "
					 "computes: the fluid did not get CPU %d's idle time (another process held "
					 "it?); no %s prediction",
					 p->size, pred_name(k), est[k]->mean / 1e3, p->c_ns / 1e3, r->m.cpu, pred_name(k));
			}
	}
	if (r->m.precision && !pd->met && !failed)
		msg_warn("not every size's error was known to ±%.2f%% before --max-time", 100 * r->m.precision);
	return outliers || unsat || nbelow_c || host_busy || (r->m.precision && !pd->met);
}

/* 5. the result: JSON, or the tables and how far the answer is from a 2 % question */
static void print_result(const struct predict *pd)
{
	const struct session *r = &pd->r;
	if (r->m.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < pd->n; i++)
			json_array_append_new(arr, size_json(&pd->ps[i], r));
		json_t *o = json_object();
		json_object_set_new(o, "workload", json_string(r->m.workload));
		json_object_set_new(o, "window", json_integer((json_int_t)pd->po.window));
		json_object_set_new(o, "duty", json_real(pd->po.duty));
		json_object_set_new(o, "rounds", json_integer(pd->rounds));
		if (r->m.precision) {
			json_object_set_new(o, "precision_target", json_real(r->m.precision));
			json_object_set_new(o, "precision_met", json_boolean(pd->met));
		}
		json_object_set_new(o, "peer", r->peer_note[0] ? json_string(r->peer_note) : json_null());
		json_object_set_new(o, "sizes", arr);
		json_object_set_new(o, "context", context_json(&r->ctx));
		jout_print(o);
		return;
	}
	printf("displace predict %s: window %" PRIu64 ", CPU %d, %u rounds%s%s%s\n", r->m.workload, pd->po.window,
	       r->m.cpu, pd->rounds, r->m.precision ? (pd->met ? " (precision reached)" : " (precision NOT reached)") : "",
	       r->peer_note[0] ? "; " : "", r->peer_note);
	print_table(pd->ps, pd->n, &pd->po);
	double worst = 0;
	for (size_t i = 0; i < pd->n; i++)
		if (isfinite(pd->ps[i].pr.err_ci[PRED_DISPLACEMENT]) && pd->ps[i].pr.err_ci[PRED_DISPLACEMENT] > worst)
			worst = pd->ps[i].pr.err_ci[PRED_DISPLACEMENT];
	if (!r->m.precision && worst > 1.5 && pd->rounds >= 2)
		printf("  the errors are known to ±%.1f points at most; about %.0f rounds would make that ±1.5:\n"
		       "  use --precision 1.5%%\n",
		       worst, pred_rounds_for(worst, 1.5, pd->rounds));
}

static void predict_free(struct predict *pd)
{
	for (size_t i = 0; i < pd->n && pd->ps; i++) {
		series_free(&pd->ps[i].cost);
		series_free(&pd->ps[i].block);
		free(pd->ps[i].sat_runs);
	}
	free(pd->ps);
	csvout_close(&pd->csv);
	session_finish(&pd->r);
}

int cmd_predict(int argc, char **argv)
{
	static struct predict pd;
	memset(&pd, 0, sizeof pd);
	pd.po = (struct popts){ .compute_us = -1, .per_byte_ns = -1, .window = DEFAULT_WINDOW, .duty = 0.8 };
	pd.r.m.cmd = "predict";
	int st = measuring_parse(&pd.r, argc, argv, extra, on_extra, &pd.po);
	if (st)
		return st;
	if (pd.r.m.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if ((st = check_options(&pd)) || (st = measuring_setup(&pd.r)) || (st = prepare_sizes(&pd))) {
		predict_free(&pd);
		return st;
	}
	int rc = run_rounds(&pd);
	if (rc) {
		st = measuring_fail(&pd.r, rc);
		if (pd.rounds < 2) {
			predict_free(&pd);
			return st;
		}
		msg_warn("reporting the %u whole rounds done before the failure", pd.rounds);
	}
	for (size_t i = 0; i < pd.n; i++) {
		finish_size(&pd, &pd.ps[i]);
		if (pd.r.m.csv)
			csv_row(&pd.csv, pd.r.m.workload, &pd.ps[i], &pd.po, pd.rounds);
	}
	int untrusted = warn(&pd, rc != 0);
	print_result(&pd);
	/* as in sweep: a plot that cannot be written is a missing resource */
	if (pd.r.m.plot && write_plot(pd.r.m.plot, &pd.r, pd.ps, pd.n) && !st)
		st = EXIT_RESOURCE;
	if (!st && pd.r.m.strict && untrusted)
		st = EXIT_UNTRUSTED;
	predict_free(&pd);
	return st;
}
