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
 *
 * With --clients K1,K2 the loop is K blocking clients instead, each its own
 * process on the measured CPU: send m, block for the reply, compute c. The
 * cost is that of one blocking operation (as sweep measures it) plus c (a
 * spin, measured alone in each round), and the saturated runs are K1 and
 * K2 clients at once with the peer on another CPU (docs/predict.md).
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
#include <sys/resource.h>
#include <time.h>

#define MAX_SIZES 32
#define MAX_K 8
#define DEFAULT_REPS 8
#define DEFAULT_WINDOW 64
#define DEFAULT_BURST 256

/* the shortest saturated run of --clients, ns */
#define PREDICT_SAT_MIN_NS 1e9

static void usage(FILE *f)
{
	char pipe[128], blocking[128];
	put_names(PUT_PIPELINE, ", ", ", ", pipe, sizeof pipe);
	put_names(PUT_REPLIES, ", ", ", ", blocking, sizeof blocking);
	fprintf(f,
		"usage: displace predict WORKLOAD --sizes LIST\n"
		"                        (--compute US | --compute-per-byte NS)\n"
		"                        [--clients K1,K2 | --window W] [--messages N] [options]\n"
		"\n"
		"Predicts the saturation throughput of a sender from its measured CPU cost,\n"
		"and checks the prediction against a real saturated run (Woodside 1997,\n"
		"sec. 4.3): a CPU that spends tau per operation runs 1 / tau of them a\n"
		"second when saturated. Two loops can be studied.\n"
		"\n"
		"K blocking clients (--clients K1,K2), the check that tells the sources\n"
		"apart: each client is its own process on the measured CPU and sends m\n"
		"bytes, blocks for the reply, then computes c us; the peer runs on another\n"
		"CPU. For each size, in interleaved rounds:\n"
		"  1. cost: one blocking operation beside the fluid, as 'sweep' measures\n"
		"     it (an L run and an L/4 run), by every estimator and OS source;\n"
		"  2. c: the compute spin alone, by its own CPU time (getrusage; its\n"
		"     task-clock under --task-clock);\n"
		"  3. saturation: K1, then K2 clients at once, no fluid: operations per\n"
		"     second, with both CPUs' busy shares. A run counts when the measured\n"
		"     CPU was at least 95%% busy and the peer's below 90%%; otherwise the\n"
		"     bottleneck is elsewhere and there is no verdict.\n"
		"  Each source predicts 1 / (tau + c); the spread between K1 and K2 is part\n"
		"  of the arbiter's own uncertainty. Workloads: %s.\n"
		"\n"
		"The pipelined loop (the default, without --clients): one sender that never\n"
		"waits, with up to W messages outstanding, computing c us after each send:\n"
		"  1. cost: the loop runs in bursts, busy 80%% of the time, beside the fluid;\n"
		"     its cost per iteration by displacement and by each OS source, from\n"
		"     an L run less a null run (start-up and tear-down only);\n"
		"  2. saturation: the same loop alone on its CPU, no fluid, no pauses,\n"
		"     N messages; the measured messages per second, pooled over rounds;\n"
		"  3. the blocking-mode cost (window 1, no compute), as 'sweep' measures it.\n"
		"  Each source predicts 1 / (tau_send + c). Workloads: %s.\n"
		"\n"
		"The table gives each prediction's %% error against the measured throughput,\n"
		"with the error's 95%% CI from each round's cost paired with its saturated\n"
		"run. The loop's cost varies some 5%% from run to run on a VM: for a 2%%\n"
		"answer use --precision 1.5%% (minutes).\n"
		"\n"
		"The loop:\n"
		"  --sizes LIST         message sizes: FROM:TO:STEP or 1000,8000,64000\n"
		"  --compute US         CPU time c spent per operation, in us (>= 0)\n"
		"  --compute-per-byte NS  c = NS ns per message byte instead\n"
		"  --clients K1,K2      blocking clients in the saturated runs: at least two\n"
		"                       values, each 1 to %d (a single K also runs 2K)\n"
		"  --window W           pipelined: messages outstanding at most (default 64)\n"
		"  --messages N         messages per saturated run, per client with --clients\n"
		"                       (default: about --run-time of work; with --clients,\n"
		"                       1 s at least)\n"
		"  --duty F             pipelined: busy share of the cost runs, 0.05 to 0.95\n"
		"                       (default 0.8): pauses change the loop's cost\n"
		"\n",
		blocking, pipe, MAX_K > EXP_MAX_CLIENTS ? EXP_MAX_CLIENTS : 64);
	fputs(opts_help_placement, f);
	fputs("\n", f);
	opts_help_measurement(f, "predict");
	fputs("\n", f);
	opts_help_output(f, "predict",
			 "  --plot FILE.svg      measured against predicted throughput by size\n"
			 "                       (Woodside Figure 5; gnuplot, else the .gp script\n"
			 "                       and .dat data are written)\n");
	fputs("\n"
	      "Examples:\n"
	      "  displace predict tcp --sizes 1000,8000 --clients 4,8 --compute 50\n"
	      "  displace predict tcp --sizes 1000,8000,64000 --compute 20\n"
	      "\n"
	      "Exit status as for 'displace measure'; 5 under --strict also when a\n"
	      "displacement prediction misses the saturated throughput by more than 5%.\n",
	      f);
}

struct popts {
	uint64_t sizes[MAX_SIZES];
	size_t nsizes;
	double compute_us;       /* -1: not given */
	double per_byte_ns;      /* -1: not given */
	uint64_t window;
	int window_given, duty_given;
	uint64_t messages;
	double duty;
	int clients[MAX_K];      /* K values; none: the pipelined loop */
	size_t nclients;
};

enum { X_SIZES = 1, X_COMPUTE, X_PER_BYTE, X_WINDOW, X_MESSAGES, X_DUTY, X_CLIENTS };

static const struct opts_extra extra[] = {
	{ "sizes", 1, X_SIZES },     { "compute", 1, X_COMPUTE },   { "compute-per-byte", 1, X_PER_BYTE },
	{ "window", 1, X_WINDOW },   { "messages", 1, X_MESSAGES }, { "duty", 1, X_DUTY },
	{ "clients", 1, X_CLIENTS }, { NULL, 0, 0 },
};

/* --clients LIST: K values, 1 to EXP_MAX_CLIENTS each, distinct */
static int parse_clients(const char *v, struct popts *o, char *err, size_t errlen)
{
	uint64_t k[MAX_K];
	size_t n = 0;
	if (cli_parse_sizes(v, k, MAX_K, &n) || n == 0)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (k[i] < 1 || k[i] > EXP_MAX_CLIENTS)
			goto bad;
		for (size_t j = 0; j < i; j++)
			if (k[j] == k[i])
				goto bad;
		o->clients[i] = (int)k[i];
	}
	o->nclients = n;
	return 0;
bad:
	snprintf(err, errlen, "invalid value '%s' for --clients (distinct numbers of clients, 1 to %d, e.g. 4,8)", v,
		 EXP_MAX_CLIENTS);
	return -EINVAL;
}

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
		o->window_given = 1;
		if ((rc = cli_parse_u64(v, 1, 65536, &o->window)))
			snprintf(err, errlen, "invalid value '%s' for --window (1 to 65536 messages)", v);
		break;
	case X_MESSAGES:
		if ((rc = cli_parse_u64(v, 1, 1000000000, &o->messages)))
			snprintf(err, errlen, "invalid value '%s' for --messages (1 or more)", v);
		break;
	case X_DUTY:
		o->duty_given = 1;
		if ((rc = cli_parse_double(v, 0.05, 0.95, &o->duty)))
			snprintf(err, errlen, "invalid value '%s' for --duty (0.05 to 0.95)", v);
		break;
	case X_CLIENTS:
		rc = parse_clients(v, o, err, errlen);
		break;
	default:
		rc = -1;
	}
	return rc;
}

/*
 * One size. The pipelined loop: the cost series (paced), the saturated
 * series (the same loop, unpaced) and the blocking series (context). K
 * clients: the blocking series is the cost, cspin the compute alone, and
 * sat each client's loop (the operation, then the spin).
 */
struct psize {
	uint64_t size;
	double c_ns;                     /* nominal compute per operation */
	struct series cost, block, sat, cspin;
	struct pred_sat *sat_runs;       /* each round's saturated throughput (pooled over K) */
	size_t nsat, satcap;
	double *k_tput, *k_busy, *k_peer; /* K clients: round j, value i at [j * nk + i] */
	double *c_round;                 /* K clients: c measured in round j */
	size_t kcap, ccap;
	uint64_t sat_msgs;               /* per saturated run; per client with K clients */
	uint64_t cspin_ops;
	struct summary scost, sblock;
	struct pred_out pr;
	double k_mean[MAX_K];            /* K clients: pooled throughput at each K */
	double k_spread;                 /* their half range, % of the mean */
	double held_share, held_share_ci; /* the share of the held time saturation paid (pred_held_share); NAN */
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

static int clients_mode(const struct predict *pd)
{
	return pd->po.nclients > 0;
}

/* "mean ± ci", or the mean alone when there is no CI (one pair): never "± nan" */
static void ci_cell(char *buf, size_t len, double mean, double ci)
{
	if (isfinite(ci))
		snprintf(buf, len, "%.2f ± %.2f", mean, ci);
	else
		snprintf(buf, len, "%.2f", mean);
}

/* the cost the predictions come from: the iteration (pipelined), or the blocking operation (K clients) */
static const struct summary *cost_of(const struct predict *pd, const struct psize *p)
{
	return clients_mode(pd) ? &p->sblock : &p->scost;
}

/* the predictors shown in the table: each estimator and OS source; the result's estimator is marked */
static int shown(int k)
{
	return k != PRED_DISPLACEMENT;
}

static void print_table(const struct predict *pd)
{
	const struct psize *ps = pd->ps;
	enum sum_estimator def = cost_of(pd, &ps[0])->estimator;
	printf("  %8s  %21s", "size (B)", clients_mode(pd) ? "measured op/s ± CI" : "measured msg/s ± CI");
	for (int k = 0; k < PRED_NSRC; k++)
		if (shown(k)) {
			char h[40];
			snprintf(h, sizeof h, "%s%s", pred_name(k), k == PRED_EST + (int)def ? " *" : "");
			printf("  %22s", h);
		}
	printf("\n");
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &ps[i];
		char m[48];
		/* no CI (one run) is shown as none, never as ± 0; no saturated run kept as n/a */
		if (!isfinite(p->pr.tput.mean))
			snprintf(m, sizeof m, "n/a");
		else if (isfinite(p->pr.tput.ci_half))
			snprintf(m, sizeof m, "%.1f ± %.1f", p->pr.tput.mean, p->pr.tput.ci_half);
		else
			snprintf(m, sizeof m, "%.1f", p->pr.tput.mean);
		printf("  %8" PRIu64 "  %*s", p->size, strstr(m, "±") ? 22 : 21, m);
		for (int k = 0; k < PRED_NSRC; k++) {
			char cell[40];
			if (!shown(k))
				continue;
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
	printf("  predicted = 1 / (tau + c), with its %% error against the measured throughput and that error's\n"
	       "  95%% CI (each round's cost paired with its saturated run); * the estimator of the result\n\n");
	if (clients_mode(pd)) {
		printf("  %8s  %9s  %18s  %16s  %14s  %s\n", "size (B)", "c (µs)", "operation µs ± CI", "op/s at each K",
		       "K spread", "CPU busy: measured, peer");
		for (size_t i = 0; i < pd->n; i++) {
			const struct psize *p = &ps[i];
			char op[40], ks[96] = "";
			size_t used = 0;
			ci_cell(op, sizeof op, p->sblock.tau.mean / 1e3, p->sblock.tau.ci_half / 1e3);
			for (size_t k = 0; k < pd->po.nclients; k++)
				used += (size_t)snprintf(ks + used, sizeof ks - used, "%s%d: %.0f", k ? ", " : "",
							 pd->po.clients[k], p->k_mean[k]);
			double busy = 1, peer = 0;
			for (size_t j = 0; j < p->nsat; j++) {
				busy = fmin(busy, p->sat_runs[j].share);
				peer = fmax(peer, p->sat_runs[j].peer_busy);
			}
			printf("  %8" PRIu64 "  %9.2f  %18s  %16s  %13.1f%%  %.1f%%, %.1f%%\n", p->size,
			       p->nsat ? p->c_ns / 1e3 : NAN, op, ks, p->k_spread, 100 * busy, 100 * peer);
		}
		printf("  operation = one blocking send and reply, as sweep measures it; c = the compute spin, measured\n"
		       "  alone in each round; K spread = half the range of the throughputs at the K values\n");
		return;
	}
	printf("  %8s  %9s  %18s  %14s  %18s  %s\n", "size (B)", "c (µs)", "iteration µs ± CI", "tau_send (µs)",
	       "blocking µs ± CI", "blocking - tau_send");
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &ps[i];
		double send = (p->scost.tau.mean - p->c_ns) / 1e3, blk = p->sblock.tau.mean / 1e3;
		char it[40], bl[40];
		ci_cell(it, sizeof it, p->scost.tau.mean / 1e3, p->scost.tau.ci_half / 1e3);
		ci_cell(bl, sizeof bl, blk, p->sblock.tau.ci_half / 1e3);
		printf("  %8" PRIu64 "  %9.2f  %18s  %14.2f  %18s  %+.2f µs (%+.0f%%)\n", p->size, p->c_ns / 1e3, it, send, bl,
		       blk - send, 100 * (blk - send) / send);
	}
	printf("  tau_send = displacement per iteration - c; blocking = send and wait for each reply, no compute\n");
}

/* the CSV's header: the columns of a size, then three per predictor */
static void csv_header(char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len,
				       "date,workload,mode,size_bytes,compute_us,window,clients,rounds,measured_msgs_per_s,"
				       "measured_ci95,k_spread_pct,busy,peer_busy,iteration_us,iteration_ci95_us,tau_send_us,"
				       "blocking_us,blocking_ci95_us,estimator");
	for (int k = 0; k < PRED_NSRC && used < len; k++)
		used += (size_t)snprintf(buf + used, len - used, ",pred_%s,err_%s_pct,err_%s_ci95_pct", pred_key(k),
					 pred_key(k), pred_key(k));
}

#define PREDICT_CSV_COLS (19 + 3 * PRED_NSRC)

static void csv_row(const struct predict *pd, const struct psize *p)
{
	char f[PREDICT_CSV_COLS][48];
	const char *fp[PREDICT_CSV_COLS];
	const struct summary *c = cost_of(pd, p);
	int n = 0;
	csvout_date(f[n++], 48);
	snprintf(f[n++], 48, "%s", pd->r.m.workload);
	snprintf(f[n++], 48, "%s", clients_mode(pd) ? "clients" : "pipelined");
	snprintf(f[n++], 48, "%" PRIu64, p->size);
	snprintf(f[n++], 48, "%.3f", p->c_ns / 1e3);
	if (clients_mode(pd))
		snprintf(f[n++], 48, "1");
	else
		snprintf(f[n++], 48, "%" PRIu64, pd->po.window);
	size_t used = 0;
	f[n][0] = '\0';
	for (size_t k = 0; k < pd->po.nclients; k++)
		used += (size_t)snprintf(f[n] + used, 48 - used, "%s%d", k ? " " : "", pd->po.clients[k]);
	n++;
	snprintf(f[n++], 48, "%u", pd->rounds);
	double busy = NAN, peer = NAN;
	for (size_t j = 0; j < p->nsat; j++) {
		busy = isnan(busy) ? p->sat_runs[j].share : fmin(busy, p->sat_runs[j].share);
		peer = isnan(peer) ? p->sat_runs[j].peer_busy : fmax(peer, p->sat_runs[j].peer_busy);
	}
	double v[] = { p->pr.tput.mean,	    p->pr.tput.ci_half,		  p->k_spread,
		       busy,		    peer,			  c->tau.mean / 1e3,
		       c->tau.ci_half / 1e3, (p->scost.tau.mean - p->c_ns) / 1e3, p->sblock.tau.mean / 1e3,
		       p->sblock.tau.ci_half / 1e3 };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		csvout_num(f[n++], 48, clients_mode(pd) && i == 7 ? NAN : v[i], 4);
	snprintf(f[n++], 48, "%s", sum_estimator_key(c->estimator));
	for (int k = 0; k < PRED_NSRC; k++) {
		csvout_num(f[n++], 48, p->pr.pred[k], 3);
		csvout_num(f[n++], 48, p->pr.err_pct[k], 3);
		csvout_num(f[n++], 48, p->pr.err_ci[k], 3);
	}
	for (int i = 0; i < n; i++)
		fp[i] = f[i];
	csvout_row((struct csvout *)&pd->csv, fp, (size_t)n);
}

static json_t *size_json(const struct predict *pd, const struct psize *p)
{
	const struct session *r = &pd->r;
	json_t *o = json_object();
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)p->size));
	json_object_set_new(o, "compute_us", jout_num(p->c_ns / 1e3));
	json_object_set_new(o, "measured_msgs_per_s", jout_num(p->pr.tput.mean));
	json_object_set_new(o, "measured_ci95", jout_num(p->pr.tput.ci_half));
	json_object_set_new(o, "saturated_runs", json_integer((json_int_t)p->nsat));
	json_t *sat = json_array(), *share = json_array(), *peer = json_array();
	for (size_t i = 0; i < p->nsat; i++) {
		json_array_append_new(sat, jout_num(p->sat_runs[i].tput));
		json_array_append_new(share, jout_num(p->sat_runs[i].share));
		json_array_append_new(peer, jout_num(p->sat_runs[i].peer_busy));
	}
	json_object_set_new(o, "saturated_msgs_per_s", sat);
	json_object_set_new(o, "saturated_cpu_share", share);
	json_object_set_new(o, "saturated_peer_busy", peer);
	json_object_set_new(o, "saturated_runs_left_out", json_integer((json_int_t)p->pr.nunsat));
	/* the share of the fluid's held time (classic less off-CPU) the saturated CPU paid: pred_held_share */
	json_object_set_new(o, "held_share",
			    json_pack("{s:o, s:o}", "mean", jout_num(p->held_share), "ci95", jout_num(p->held_share_ci)));
	if (clients_mode(pd)) {
		json_t *ks = json_array();
		for (size_t k = 0; k < pd->po.nclients; k++)
			json_array_append_new(ks, json_pack("{s:i, s:o}", "clients", pd->po.clients[k], "msgs_per_s",
							    jout_num(p->k_mean[k])));
		json_object_set_new(o, "per_k", ks);
		json_object_set_new(o, "k_spread_pct", jout_num(p->k_spread));
		json_t *cr = json_array();
		for (size_t j = 0; j < p->nsat; j++)
			json_array_append_new(cr, jout_num(p->c_round[j] / 1e3));
		json_object_set_new(o, "compute_measured_us", cr);
	}
	json_t *pred = json_object(), *err = json_object(), *eci = json_object();
	for (int k = 0; k < PRED_NSRC; k++) {
		json_object_set_new(pred, pred_key(k), jout_num(p->pr.pred[k]));
		json_object_set_new(err, pred_key(k), jout_num(p->pr.err_pct[k]));
		json_object_set_new(eci, pred_key(k), jout_num(p->pr.err_ci[k]));
	}
	json_object_set_new(o, "predicted_msgs_per_s", pred);
	json_object_set_new(o, "error_pct", err);
	json_object_set_new(o, "error_ci95_pct", eci);
	if (clients_mode(pd)) {
		json_object_set_new(o, "operation", out_json(&p->sblock, &r->seq.o, &p->block));
	} else {
		json_object_set_new(o, "tau_send_us", jout_num((p->scost.tau.mean - p->c_ns) / 1e3));
		json_object_set_new(o, "iteration", out_json(&p->scost, &r->seq.o, &p->cost));
		json_object_set_new(o, "blocking", out_json(&p->sblock, &r->seq.o, &p->block));
	}
	return o;
}

static int write_plot(const char *path, const struct predict *pd)
{
	size_t n = pd->n;
	int show[] = { PRED_DISPLACEMENT, PRED_OS + SRC_GETRUSAGE, PRED_OS + SRC_TASK_CLOCK };
	double *x = calloc(n, sizeof *x), *m = calloc(n, sizeof *m), *e = calloc(n, sizeof *e);
	double *y[3];
	struct plot_series s[4];
	for (int k = 0; k < 3; k++)
		y[k] = calloc(n, sizeof *y[k]);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)pd->ps[i].size;
		m[i] = pd->ps[i].pr.tput.mean;
		e[i] = pd->ps[i].pr.tput.ci_half;
		for (int k = 0; k < 3; k++)
			y[k][i] = pd->ps[i].pr.pred[show[k]];
	}
	s[0] = (struct plot_series){ "measured (saturated, 95% CI)", x, m, e, n, NULL };
	static char titles[3][64];
	for (int k = 0; k < 3; k++) {
		snprintf(titles[k], sizeof titles[k], "predicted by %s", pred_name(show[k]));
		s[1 + k] = (struct plot_series){ titles[k], x, y[k], NULL, n, NULL };
	}
	char title[160];
	snprintf(title, sizeof title, "%s: saturation throughput, measured and predicted (CPU %d%s)",
		 pd->r.m.workload, pd->r.m.cpu, clients_mode(pd) ? ", blocking clients" : "");
	int rc = measuring_plot(path, title, "message size (bytes)",
				clients_mode(pd) ? "operations per second" : "messages per second", s, 4);
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
	/* the saturated runs are its runs alone */
	p->cost.perturb = 0;
}

/* keep one round's saturated throughput */
static int add_sat(struct psize *p, struct pred_sat s)
{
	struct pred_sat *runs = vec_grow(p->sat_runs, &p->satcap, p->nsat, sizeof *runs);
	if (!runs)
		return -ENOMEM;
	p->sat_runs = runs;
	p->sat_runs[p->nsat++] = s;
	return 0;
}

/* one saturated run of p's pipelined loop, alone on its CPU */
static int saturated_run(struct predict *pd, struct psize *p)
{
	struct put_report rep;
	int rc = seq_alone(&pd->r.seq, &p->sat, p->sat_msgs, &rep);
	if (rc)
		return rc;
	/* the sender's own CPU time, as the perturbation check takes it: task-clock under --task-clock, else getrusage */
	struct est_alone own;
	est_alone_from(&rep, &own);
	double wall = own.wall_ns;
	return add_sat(p, (struct pred_sat){
				  .tput = wall > 0 ? (double)rep.ops / wall * 1e9 : NAN,
				  .share = wall > 0 ? own.cpu_ns / wall : NAN,
				  .peer_busy = NAN,
			  });
}

/* K clients: the compute alone, then each K's saturated run; round j keeps them all */
static int clients_round(struct predict *pd, struct psize *p, unsigned round)
{
	struct session *r = &pd->r;
	size_t nk = pd->po.nclients, j = p->nsat;
	struct put_report rep;
	double *c = vec_grow(p->c_round, &p->ccap, j, sizeof *c);
	if (!c)
		return -ENOMEM;
	p->c_round = c;
	int rc = seq_alone(&r->seq, &p->cspin, p->cspin_ops, &rep);
	if (rc)
		return rc;
	/* the spin's own CPU time per operation: OS accounting is right for a spin (getrusage without --task-clock) */
	struct est_alone own;
	est_alone_from(&rep, &own);
	double cns = isfinite(own.cpu_ns) ? own.cpu_ns : own.wall_ns;
	p->c_round[j] = rep.ops ? cns / (double)rep.ops : NAN;
	size_t need = (j + 1) * nk;
	double *t = vec_grow(p->k_tput, &p->kcap, need - 1, sizeof *t);
	if (!t)
		return -ENOMEM;
	p->k_tput = t;
	size_t kcap = p->kcap;
	double *b = realloc(p->k_busy, kcap * sizeof *b);
	if (!b)
		return -ENOMEM;
	p->k_busy = b;
	double *pb = realloc(p->k_peer, kcap * sizeof *pb);
	if (!pb)
		return -ENOMEM;
	p->k_peer = pb;
	char *argv[160], bufs[5][32];
	seq_put_argv(&r->seq, &p->sat, p->sat_msgs, bufs, argv, 160);
	struct pred_sat pooled = { .tput = 0, .share = 1, .peer_busy = 0 };
	size_t kept = 0;
	for (size_t i = 0; i < nk; i++) {
		/* alternate the order of the K values from round to round: drift spreads over both */
		size_t k = round % 2 ? nk - 1 - i : i;
		struct exp_clients_spec spec = { .put_argv = argv, .k = pd->po.clients[k], .cpu = r->m.cpu,
						 .peer_cpu = r->peer_addr && !r->m.peer_arg ? r->peer_cpu : -1,
						 .max_ns = r->seq.o.max_run_ns };
		struct exp_clients_result res;
		rc = exp_clients(r->env, &spec, &res, r->seq.err, sizeof r->seq.err);
		r->seq.put_exit = res.put_exit;
		if (rc)
			return rc;
		struct pred_sat one = { .tput = res.wall_ns > 0 ? (double)res.ops / res.wall_ns * 1e9 : NAN,
					.share = res.busy, .peer_busy = res.peer_busy };
		p->k_tput[j * nk + k] = pred_saturated(&one) ? one.tput : NAN;
		p->k_busy[j * nk + k] = res.busy;
		p->k_peer[j * nk + k] = res.peer_busy;
		pooled.share = fmin(pooled.share, isfinite(res.busy) ? res.busy : 1);
		pooled.peer_busy = fmax(pooled.peer_busy, isfinite(res.peer_busy) ? res.peer_busy : 0);
		if (isfinite(one.tput)) {
			pooled.tput += one.tput;
			kept++;
		}
	}
	/* the round's throughput: the mean over the K values */
	pooled.tput = kept ? pooled.tput / (double)kept : NAN;
	return add_sat(p, pooled);
}

/* the summaries of p's series and its predictions */
static void finish_size(struct predict *pd, struct psize *p)
{
	seq_summarize(&pd->r.seq, &p->block, &p->sblock);
	if (!clients_mode(pd)) {
		seq_summarize(&pd->r.seq, &p->cost, &p->scost);
		struct pred_in in = { .c_ns = p->c_ns, .cost = p->cost.runs, .ncost = p->cost.nruns, .scost = &p->scost,
				      .sat = p->sat_runs, .nsat = p->nsat };
		pred_compute(&in, &p->pr);
		if (pred_held_share(&in, &p->held_share, &p->held_share_ci))
			p->held_share = p->held_share_ci = NAN;
		return;
	}
	size_t nk = pd->po.nclients;
	struct pred_in in = { .c_ns = p->c_ns, .add_ns = p->c_round, .cost = p->block.runs, .ncost = p->block.nruns,
			      .scost = &p->sblock, .sat = p->sat_runs, .nsat = p->nsat };
	pred_compute(&in, &p->pr);
	if (pred_held_share(&in, &p->held_share, &p->held_share_ci))
		p->held_share = p->held_share_ci = NAN;
	/* the pooled throughput at each K, and their spread */
	for (size_t k = 0; k < nk; k++) {
		double sum = 0;
		size_t m = 0;
		for (size_t j = 0; j < p->nsat; j++)
			if (isfinite(p->k_tput[j * nk + k])) {
				sum += 1e9 / p->k_tput[j * nk + k];
				m++;
			}
		p->k_mean[k] = m ? 1e9 / (sum / (double)m) : NAN;
	}
	p->k_spread = pred_k_spread(p->k_mean, nk);
	/* c for the table: the mean of the rounds */
	double cs = 0;
	size_t cm = 0;
	for (size_t j = 0; j < p->nsat; j++)
		if (isfinite(p->c_round[j])) {
			cs += p->c_round[j];
			cm++;
		}
	if (cm)
		p->c_ns = cs / (double)cm;
}

/* 1. the options, and every check that can be made before anything runs */
static int check_options(struct predict *pd)
{
	struct session *r = &pd->r;
	struct popts *po = &pd->po;
	char names[128];
	unsigned need = clients_mode(pd) ? PUT_REPLIES : PUT_PIPELINE;
	put_names(need, ", ", " or ", names, sizeof names);
	const char *what = clients_mode(pd) ? "a workload that blocks for a reply" : "a stream workload";
	if (!r->m.workload)
		return msg_usage("predict", "no workload given (%s)", names);
	const struct put_workload *w = put_find(r->m.workload);
	if (!w || (w->flags & need) != need)
		return msg_usage("predict", "predict%s needs %s (%s), not '%s'", clients_mode(pd) ? " --clients" : "", what,
				 names, r->m.workload);
	if (!po->nsizes)
		return msg_usage("predict", "--sizes is required (e.g. --sizes 1000,8000,64000)");
	if ((po->compute_us >= 0) == (po->per_byte_ns >= 0))
		return msg_usage("predict", "give exactly one of --compute US and --compute-per-byte NS");
	if (clients_mode(pd) && (po->window_given || po->duty_given))
		return msg_usage("predict", "--%s is for the pipelined loop, not --clients",
				 po->window_given ? "window" : "duty");
	if (r->m.ops_given && r->m.ops < 1)
		return msg_usage("predict", "--ops must be at least 1 (iterations per cost run)");
	if (r->m.reps == 1)
		return msg_usage("predict", "--reps must be at least 2 (a CI needs two rounds)");
	if (!r->m.fit)
		return msg_usage("predict", "--no-fit does not apply: each cost is fitted from two runs");
	if (r->m.reps && r->m.precision)
		return msg_usage("predict", "--reps and --precision exclude each other");
	if (r->m.stopping_given || r->m.precision_of_given)
		return msg_usage("predict", "--%s is for measure and sweep: predict's --precision adds rounds until every "
				 "size's prediction error has a CI within P",
				 r->m.stopping_given ? "stopping" : "precision-of");
	if (r->m.flows > 1 || r->m.remote_cpus_arg)
		return msg_usage("predict", "--%s is for measure and sweep: predict's loops are its own",
				 r->m.flows > 1 ? "flows" : "remote-cpus");
	if (clients_mode(pd) && r->m.peer_cpu_arg && !strcmp(r->m.peer_cpu_arg, "same"))
		return msg_usage("predict", "--clients needs the peer on another CPU: a saturated peer on the measured CPU "
					    "is no check of the sender");
	for (int i = 1; i < r->m.nwargs; i++)
		if (!strncmp(r->m.wargs[i], "--window", 8) || !strncmp(r->m.wargs[i], "--compute", 9) ||
		    !strncmp(r->m.wargs[i], "--burst", 7) || !strncmp(r->m.wargs[i], "--size", 6))
			return msg_usage("predict", "'%s' is predict's to set", r->m.wargs[i]);
	if (po->nclients == 1) {
		int k2 = 2 * po->clients[0] <= EXP_MAX_CLIENTS ? 2 * po->clients[0] : po->clients[0] / 2;
		if (k2 < 1 || k2 == po->clients[0])
			return msg_usage("predict", "--clients needs two values of K (e.g. 4,8)");
		msg_info("--clients %d: also %d clients, for the spread of the saturated throughput", po->clients[0], k2);
		po->clients[po->nclients++] = k2;
	}
	if (clients_mode(pd)) {
		/* each client is a child with three pipes in the coordinator: 6 descriptors, and the rest */
		int kmax = 0;
		for (size_t k = 0; k < po->nclients; k++)
			kmax = po->clients[k] > kmax ? po->clients[k] : kmax;
		struct rlimit rl;
		rlim_t fds = (rlim_t)kmax * 6 + 64;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < fds) {
			msg_error("--clients %d needs about %llu file descriptors and the limit is %llu: raise it "
				  "(ulimit -n) or use fewer clients",
				  kmax, (unsigned long long)fds, (unsigned long long)rl.rlim_cur);
			return EXIT_RESOURCE;
		}
	}
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
	if (!st) {
		char header[2048];
		csv_header(header, sizeof header);
		st = measuring_open_csv(r, &pd->csv, header);
	}
	return st;
}

/* K clients: the spin of c calibrated once (its loops fixed for every run), and the clients' loop */
static int prepare_clients(struct predict *pd, struct psize *p, const char *label)
{
	struct session *r = &pd->r;
	char arg[64], v[32];
	struct put_report rep;
	static char *spin_args[] = { "spin", "--us=1" };
	series_init(&p->cspin, put_find("spin"), spin_args, 2, NULL, "compute");
	snprintf(arg, sizeof arg, "--think-us=%.6f", p->c_ns / 1e3);
	series_add_put_opt(&p->cspin, arg);
	int rc = seq_alone(&r->seq, &p->cspin, 1, &rep);
	if (rc)
		return measuring_fail(r, rc);
	uint64_t loops = report_field(rep.extra, "think_loops", v, sizeof v) ? strtoull(v, NULL, 10) : 0;
	/* c alone: the spin's loops as one spin operation, about 20 ms of them */
	static char *none[] = { "spin" };
	series_init(&p->cspin, put_find("spin"), none, 1, NULL, "compute");
	if (loops) {
		snprintf(arg, sizeof arg, "--loops-per-op=%" PRIu64, loops);
		series_add_arg(&p->cspin, arg);
	}
	p->cspin_ops = p->c_ns > 0 ? (uint64_t)(20e6 / p->c_ns) + 1 : 1;
	if (p->cspin_ops > 100000)
		p->cspin_ops = 100000;
	/* each client: the operation, then the spin */
	p->sat = p->block;
	p->sat.nruns = p->sat.cap = 0;
	p->sat.runs = NULL;
	if (loops) {
		snprintf(arg, sizeof arg, "--think-loops=%" PRIu64, loops);
		series_add_put_opt(&p->sat, arg);
	}
	/*
	 * A saturated run of about --run-time, 1 s at least: each operation
	 * takes about c plus the blocking operation's own time alone, shared
	 * by K clients. Its edges (the clients' start, the tail as they finish
	 * one by one) are not saturated; at 200 ms they cost the measured
	 * throughput 2 to 3 % (bench/RESULTS.md, blocking-saturation).
	 */
	int kmax = 0;
	for (size_t k = 0; k < pd->po.nclients; k++)
		kmax = pd->po.clients[k] > kmax ? pd->po.clients[k] : kmax;
	double per_op = p->c_ns + 30e3;
	double sat_ns = r->m.run_ns > PREDICT_SAT_MIN_NS ? (double)r->m.run_ns : PREDICT_SAT_MIN_NS;
	uint64_t n = (uint64_t)(sat_ns / per_op / kmax);
	p->sat_msgs = pd->po.messages ? pd->po.messages : n < 100 ? 100 : n;
	(void)label;
	return 0;
}

/*
 * 2. per size, the blocking operation's series and its L (a pilot); then
 * the pipelined loop's pilot (the cost of an iteration, the compute loops
 * every run will use, L), or the K clients' spin and loop
 */
static int prepare_sizes(struct predict *pd)
{
	struct session *r = &pd->r;
	struct msg_progress prog;
	msg_progress_start(&prog, "predicting", (double)pd->n);
	for (size_t i = 0; i < pd->n; i++) {
		struct psize *p = &pd->ps[i];
		char label[32], compute[48], v[32];
		msg_progress_update(&prog, (double)i);
		msg_progress_phase(&prog, "pilot, size %" PRIu64 " B", p->size);
		snprintf(label, sizeof label, "%" PRIu64, p->size);
		/* the blocking mode, as sweep measures it */
		session_series_init(r, &p->block, label);
		p->block.size_bytes = p->size;
		int st = measuring_choose_ops(r, &p->block);
		if (st)
			return st;
		if (clients_mode(pd)) {
			if ((st = prepare_clients(pd, p, label)))
				return st;
			continue;
		}
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
	}
	msg_progress_end(&prog);
	if (r->peer_note[0])
		msg_info("%s", r->peer_note);
	return 0;
}

/* a pair of runs of series s, big and small operations, in a random order (series_pair_ops) */
static int run_pair(struct session *r, struct series *s, uint64_t big, uint64_t small)
{
	int rc = seq_run(&r->seq, s, series_pair_ops(s, 0, big, small));
	if (!rc)
		rc = seq_run(&r->seq, s, series_pair_ops(s, 1, big, small));
	if (!rc)
		series_pair_done(s);
	return rc;
}

/* one round of one size: its cost runs, its saturated runs, and (pipelined, early rounds) a blocking run */
static int size_round(struct predict *pd, struct psize *p, unsigned rep, unsigned block_rounds)
{
	struct session *r = &pd->r;
	int rc;
	if (clients_mode(pd)) {
		/* the blocking operation as a fit pair (L and L/4, or a null run: --short-run), then c and the K clients */
		rc = run_pair(r, &p->block, p->block.ops, sum_short_ops(p->block.ops, r->m.short_run));
		return rc ? rc : clients_round(pd, p, rep);
	}
	/*
	 * The cost pair is L and a null run: the loop's cost varies about 5 %
	 * from run to run on a VM, and a slope from L and L/4 amplifies that,
	 * where L and a null run does not.
	 */
	rc = run_pair(r, &p->cost, p->cost.ops, 0);
	if (!rc)
		rc = saturated_run(pd, p);
	if (!rc && rep < block_rounds) {
		uint64_t big = p->block.ops, small = sum_short_ops(big, r->m.short_run);
		rc = seq_run(&r->seq, &p->block, series_pair_ops(&p->block, (int)(rep % 2), big, small));
		if (!rc && rep % 2)
			series_pair_done(&p->block);
	}
	return rc;
}

/*
 * 3. the rounds, each over every size; until --reps rounds, or under
 * --precision until every size's error is known to P. 0, or the run's
 * error (rounds done are kept)
 */
static int run_rounds(struct predict *pd)
{
	struct session *r = &pd->r;
	size_t n = pd->n;
	unsigned reps = r->m.reps ? r->m.reps : DEFAULT_REPS;
	reps = measuring_whole_pairs(reps, "the blocking mode needs whole pairs");
	/* the pipelined loop's blocking mode is context, not the result: 8 pairs of runs are enough */
	unsigned block_rounds = r->m.precision || reps > 2 * DEFAULT_REPS ? 2 * DEFAULT_REPS : reps;
	uint64_t deadline = r->start_ns + r->m.max_time_ns;
	struct msg_progress prog;
	msg_progress_start(&prog, "predicting", r->m.precision ? 0 : (double)reps * (double)n);
	msg_progress_deadline(&prog, deadline);
	int rc = 0;
	for (unsigned rep = 0; !rc && (r->m.precision || rep < reps); rep++) {
		for (size_t j = 0; j < n && !rc; j++) {
			msg_progress_phase(&prog, "round %u, size %" PRIu64 " B", rep + 1, pd->ps[(j + rep / 2) % n].size);
			rc = size_round(pd, &pd->ps[(j + rep / 2) % n], rep, block_rounds);
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

/* the displacement predictions that miss the measured throughput by more than the target */
#define PRED_TARGET_PCT 5.0

/* 4. the warnings; 1 when the result is untrustworthy (--strict) */
static int warn(struct predict *pd, int failed)
{
	struct session *r = &pd->r;
	size_t unsat = 0, nbelow_c = 0, missed = 0;
	struct measuring_moved moved = { 0 };
	struct measuring_busy busy;
	measuring_busy_init(&busy);
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &pd->ps[i];
		measuring_moved_add(&moved, &p->sblock);
		if (!clients_mode(pd))
			measuring_moved_add(&moved, &p->scost);
		unsat += p->pr.nunsat;
		measuring_busy_add(&busy, &p->sblock);
		if (!clients_mode(pd))
			measuring_busy_add(&busy, &p->scost);
		missed += fabs(p->pr.err_pct[PRED_DISPLACEMENT]) > PRED_TARGET_PCT;
	}
	measuring_warn_outliers(&moved, "add --reps");
	if (unsat && clients_mode(pd))
		msg_warn("%zu rounds' saturated runs were left out: CPU %d was busy less than %.0f%% of the time, or the "
			 "peer's CPU %.0f%% or more; the bottleneck was not the sender (more --clients, or a faster peer)",
			 unsat, r->m.cpu, 100 * PRED_MIN_SAT_SHARE, 100 * PRED_MAX_PEER_BUSY);
	else if (unsat)
		msg_warn("%zu saturated runs were left out: the sender had its CPU less than %.0f%% of the time "
			 "(other work on CPU %d, or it waited for replies: try a larger --window)",
			 unsat, 100 * PRED_MIN_SAT_SHARE, r->m.cpu);
	int host_busy = measuring_warn_busy(r, &busy);
	struct measuring_said said = { .saturating = clients_mode(pd) };
	for (size_t i = 0; i < pd->n; i++) {
		char label[64];
		snprintf(label, sizeof label, "%" PRIu64 " B, the blocking operation: ", pd->ps[i].size);
		host_busy |= measuring_check_truth(r, &pd->ps[i].sblock, label, &said);
	}
	for (size_t i = 0; i < pd->n && !clients_mode(pd); i++) {
		const struct psize *p = &pd->ps[i];
		for (int k = 0; k < PRED_OS; k++) {
			double tau = k == PRED_DISPLACEMENT ? p->scost.tau.mean : p->scost.est[k - PRED_EST].mean;
			if (pred_below_c(p->c_ns, tau)) {
				nbelow_c++;
				msg_warn("%" PRIu64 " B: %s gives %.2f µs per iteration, less than the %.2f µs it "
					 "computes: the fluid did not get CPU %d's idle time (another process held "
					 "it?); no %s prediction",
					 p->size, pred_name(k), tau / 1e3, p->c_ns / 1e3, r->m.cpu, pred_name(k));
			}
		}
	}
	if (missed)
		msg_warn("%zu size%s: the displacement prediction missed the saturated throughput by more than %.0f%%: "
			 "the cost measured beside the fluid is not the cost at saturation here; see the estimators "
			 "and the fluid's perturbation in 'displace measure' (docs/estimators.md)",
			 missed, missed == 1 ? "" : "s", PRED_TARGET_PCT);
	if (r->m.precision && !pd->met && !failed)
		msg_warn("not every size's error was known to ±%.2f%% before --max-time", 100 * r->m.precision);
	return moved.outliers + moved.spells || unsat || nbelow_c || host_busy || missed || (r->m.precision && !pd->met);
}

/* the verdict: does the result's estimator predict the saturated throughput, and does it beat every OS source */
static void print_verdict(const struct predict *pd)
{
	double worst = 0, worst_os = INFINITY;
	size_t measured = 0;
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &pd->ps[i];
		if (!isfinite(p->pr.err_pct[PRED_DISPLACEMENT]))
			continue;
		measured++;
		worst = fmax(worst, fabs(p->pr.err_pct[PRED_DISPLACEMENT]));
		double best_os = INFINITY;
		for (int k = PRED_OS; k < PRED_NSRC; k++)
			if (isfinite(p->pr.err_pct[k]))
				best_os = fmin(best_os, fabs(p->pr.err_pct[k]));
		worst_os = fmin(worst_os, best_os);
	}
	const struct summary *c = cost_of(pd, &pd->ps[0]);
	if (!measured) {
		printf("  verdict: none: no saturated run counted (the bottleneck was not the sender)\n");
		return;
	}
	printf("  verdict: the %s displacement predicts the saturated throughput within %.1f%% at every size "
	       "(target %.0f%%): %s\n",
	       sum_estimator_name(c->estimator), worst, PRED_TARGET_PCT, worst <= PRED_TARGET_PCT ? "checked" : "MISSED");
	(void)worst_os;
}

/*
 * Where the saturated cost lay between off-CPU and classic: the share of
 * the fluid's held time a loaded CPU paid, which no measurement beside the
 * fluid can tell (it was 12 % one day and about 70 % the next on the
 * development VM), for each size whose held time is over 5 % of the cost
 */
static void print_held_share(const struct predict *pd)
{
	for (size_t i = 0; i < pd->n; i++) {
		const struct psize *p = &pd->ps[i];
		const struct summary *c = cost_of(pd, p);
		double off = c->est[SUM_OFFCPU].mean, held = c->held.mean;
		if (!isfinite(p->held_share) || !isfinite(held) || !(held > MEASURING_MAX_CHANGE_PCT / 100 * fabs(off)))
			continue;
		char ci[32] = "";
		if (isfinite(p->held_share_ci))
			snprintf(ci, sizeof ci, " ± %.0f", 100 * p->held_share_ci);
		printf("  held time: at %" PRIu64 " B the saturated CPU paid %.0f%%%s of the fluid's held time (%.2f µs per "
		       "operation,\n  classic less off-CPU): the cost under load is about %.2f µs, off-CPU %.2f plus that "
		       "share\n",
		       p->size, 100 * p->held_share, ci, held / 1e3, (off + p->held_share * held) / 1e3, off / 1e3);
	}
}

/* 5. the result: JSON, or the tables, the verdict and how far the answer is from a 2 % question */
static void print_result(const struct predict *pd)
{
	const struct session *r = &pd->r;
	if (r->m.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < pd->n; i++)
			json_array_append_new(arr, size_json(pd, &pd->ps[i]));
		json_t *o = json_object();
		json_object_set_new(o, "workload", json_string(r->m.workload));
		json_object_set_new(o, "mode", json_string(clients_mode(pd) ? "clients" : "pipelined"));
		if (clients_mode(pd)) {
			json_t *ks = json_array();
			for (size_t k = 0; k < pd->po.nclients; k++)
				json_array_append_new(ks, json_integer(pd->po.clients[k]));
			json_object_set_new(o, "clients", ks);
		} else {
			json_object_set_new(o, "window", json_integer((json_int_t)pd->po.window));
			json_object_set_new(o, "duty", json_real(pd->po.duty));
		}
		json_object_set_new(o, "estimator", json_string(sum_estimator_key(cost_of(pd, &pd->ps[0])->estimator)));
		json_object_set_new(o, "rounds", json_integer(pd->rounds));
		if (r->m.precision) {
			json_object_set_new(o, "precision_target", json_real(r->m.precision));
			json_object_set_new(o, "precision_met", json_boolean(pd->met));
		}
		json_object_set_new(o, "peer", r->peer_note[0] ? json_string(r->peer_note) : json_null());
		json_object_set_new(o, "sizes", arr);
		measuring_output(r, o);
		return;
	}
	if (clients_mode(pd)) {
		char ks[64];
		size_t used = 0;
		for (size_t k = 0; k < pd->po.nclients; k++)
			used += (size_t)snprintf(ks + used, sizeof ks - used, "%s%d", k ? "," : "", pd->po.clients[k]);
		printf("displace predict %s: %s blocking clients on CPU %d, %u rounds%s%s%s\n", r->m.workload, ks, r->m.cpu,
		       pd->rounds, r->m.precision ? (pd->met ? " (precision reached)" : " (precision NOT reached)") : "",
		       r->peer_note[0] ? "; " : "", r->peer_note);
	} else {
		printf("displace predict %s: window %" PRIu64 ", CPU %d, %u rounds%s%s%s\n", r->m.workload, pd->po.window,
		       r->m.cpu, pd->rounds, r->m.precision ? (pd->met ? " (precision reached)" : " (precision NOT reached)") : "",
		       r->peer_note[0] ? "; " : "", r->peer_note);
	}
	measuring_output(r, NULL);
	print_table(pd);
	print_verdict(pd);
	print_held_share(pd);
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
		struct psize *p = &pd->ps[i];
		series_free(&p->cost);
		series_free(&p->block);
		free(p->sat_runs);
		free(p->k_tput);
		free(p->k_busy);
		free(p->k_peer);
		free(p->c_round);
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
		/* SIGINT, SIGTERM or SIGHUP after two whole rounds: their result, marked interrupted */
		st = measuring_stopped(&pd.r, rc, pd.rounds >= 2);
		if (pd.rounds < 2) {
			predict_free(&pd);
			return st;
		}
		if (!pd.r.interrupted)
			msg_warn("reporting the %u whole rounds done before the failure", pd.rounds);
	}
	for (size_t i = 0; i < pd.n; i++) {
		finish_size(&pd, &pd.ps[i]);
		/* a row is a whole result: an interrupted predict writes none */
		if (pd.r.m.csv && !pd.r.interrupted)
			csv_row(&pd, &pd.ps[i]);
	}
	int untrusted = warn(&pd, rc != 0);
	print_result(&pd);
	/* as in sweep: a plot that cannot be written is a missing resource */
	if (pd.r.m.plot && write_plot(pd.r.m.plot, &pd) && !st)
		st = EXIT_RESOURCE;
	if (!st && pd.r.m.strict && untrusted)
		st = EXIT_UNTRUSTED;
	predict_free(&pd);
	return st;
}
