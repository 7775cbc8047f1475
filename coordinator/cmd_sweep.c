/*
 * cmd_sweep.c - displace sweep: the cost of one operation by message size
 * (Woodside Table 2). Sizes are interleaved run by run, so that drift of
 * the host is spread over all sizes instead of posing as a size effect.
 */
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/out_csv.h"
#include "coordinator/out_json.h"
#include "coordinator/out_text.h"
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

#define MAX_SIZES 64
#define DEFAULT_REPS 8

static void usage(FILE *f)
{
	fputs("usage: displace sweep WORKLOAD --sizes LIST [workload options] [options]\n"
	      "\n"
	      "The cost of one operation by message size: one measurement per size, with\n"
	      "the sizes interleaved run by run so that host drift is spread over all of\n"
	      "them. Prints a table of displacement ± CI, each OS source with its %\n"
	      "difference, and the cost per KB; appends CSV rows; draws a plot.\n"
	      "\n"
	      "Sizes:\n"
	      "  --sizes LIST         FROM:TO:STEP (TO included) or a list, e.g.\n"
	      "                       1000:8000:1000 or 1k,2k,64k (k = 1000, Ki = 1024),\n"
	      "                       1 byte to 16 MiB, each size once; passed to the\n"
	      "                       workload as --size (so not with its own --size)\n"
	      "\n"
	      "Workloads with a message size: tcp, tcp-stream, udp, unix, rpc (see\n"
	      "'displace workloads'). A local peer is started on another CPU unless\n"
	      "--peer ADDR is given (see Placement).\n"
	      "\n",
	      f);
	fputs(opts_help_placement, f);
	fputs(opts_help_both_ends, f);
	fputs("\n", f);
	opts_help_measurement(f, "sweep");
	fputs("\n", f);
	opts_help_output(f, "sweep",
			  "  --plot FILE.svg      cost against size: displacement and each OS source\n"
			  "                       with its 95% CI bars, through gnuplot; FILE.gp and\n"
			  "                       FILE.dat are written beside it (render elsewhere\n"
			  "                       with: gnuplot FILE.gp > FILE.svg)\n");
	fputs("\n"
	      "Example:\n"
	      "  displace sweep tcp --sizes 1000:8000:1000 --csv results.csv --plot results.svg\n"
	      "\n"
	      "Exit status as for 'displace measure'.\n",
	      f);
}

struct sweep_opts {
	uint64_t sizes[MAX_SIZES];
	size_t nsizes;
};

enum { X_SIZES = 1 };

static const struct opts_extra extra[] = {
	{ "sizes", 1, X_SIZES },
	{ NULL, 0, 0 },
};

static int on_extra(int id, const char *val, void *ctx, char *err, size_t errlen)
{
	struct sweep_opts *o = ctx;
	if (id == X_SIZES) {
		int rc = cli_parse_sizes(val, o->sizes, MAX_SIZES, &o->nsizes);
		if (rc == -ERANGE)
			snprintf(err, errlen, "too many sizes in '%s' (at most %d)", val, MAX_SIZES);
		else if (rc == -EEXIST)
			snprintf(err, errlen, "size %" PRIu64 " is listed twice in --sizes '%s'; give each size once", o->sizes[o->nsizes], val);
		else if (rc)
			snprintf(err, errlen, "invalid value '%s' for --sizes (e.g. 1000:8000:1000 or 1k,2k,64k)", val);
		return rc;
	}
	return -1;
}

/* "12.345 ± 0.678", or the mean alone without a CI */
static const char *cell_ci(const struct stats_summary *t, char *buf, size_t len)
{
	if (!isfinite(t->mean))
		snprintf(buf, len, "n/a (not measured)");
	else if (isfinite(t->ci_half))
		snprintf(buf, len, "%.3f ± %.3f", t->mean / 1e3, t->ci_half / 1e3);
	else
		snprintf(buf, len, "%.3f", t->mean / 1e3);
	return buf;
}

static void print_table(const struct session *r, struct series *ser, struct summary *sum, size_t n)
{
	char a[32], b[40];
	int both = n && sum[0].nremote;
	printf("  %9s  %22s", "size (B)", both ? "local µs ± CI" : "displacement µs ± CI");
	if (both)
		printf("  %22s  %22s", "remote µs ± CI", "total µs ± CI");
	for (int k = 0; k < EST_NSRC; k++)
		printf("  %20s", est_src_name((enum est_src)k));
	printf("  %9s\n", "µs per KB");
	for (size_t i = 0; i < n; i++) {
		const struct summary *s = &sum[i];
		char disp[40];
		printf("  %9" PRIu64 "  %22s", ser[i].size_bytes, cell_ci(&s->tau, disp, sizeof disp));
		if (both)
			printf("  %22s  %22s", cell_ci(&s->remote, disp, sizeof disp), cell_ci(&s->total, b, sizeof b));
		for (int k = 0; k < EST_NSRC; k++) {
			char cell[40];
			if (isfinite(s->os[k].mean))
				snprintf(cell, sizeof cell, "%.3f (%+.1f%%)", s->os[k].mean / 1e3, s->pct[k].mean);
			else
				snprintf(cell, sizeof cell, "n/a");
			printf("  %20s", cell);
		}
		if (isfinite(s->tau.mean))
			snprintf(a, sizeof a, "%.3f", s->tau.mean / 1e3 / ((double)ser[i].size_bytes / 1000));
		else
			snprintf(a, sizeof a, "n/a");
		printf("  %9s%s%s\n", a, s->outliers ? "  (outliers left out)" : "", s->spells ? "  (moved in spells)" : "");
	}
	(void)r;
}

/*
 * Both ends: the local cost and the remote cost stacked (areas), the total
 * with its CI bars on top, and the OS sources of the local end as lines
 */
static int write_stacked_plot(const char *path, const struct session *r, struct series *ser, struct summary *sum,
			      size_t n)
{
	double *x = calloc(n, sizeof *x), *zero = calloc(n, sizeof *zero), *loc = calloc(n, sizeof *loc),
	       *tot = calloc(n, sizeof *tot), *e = calloc(n, sizeof *e), *y[EST_NSRC];
	struct plot_series ps[3 + EST_NSRC];
	for (int k = 0; k < EST_NSRC; k++)
		y[k] = calloc(n, sizeof *y[k]);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)ser[i].size_bytes;
		loc[i] = sum[i].tau.mean / 1e3;
		tot[i] = sum[i].total.mean / 1e3;
		e[i] = sum[i].total.ci_half / 1e3;
		for (int k = 0; k < EST_NSRC; k++)
			y[k][i] = sum[i].os[k].mean / 1e3;
	}
	char cpus[128], rcpus[128], t_local[160], t_remote[200];
	cli_format_cpulist(&r->seq.o.cpus, cpus, sizeof cpus);
	cli_format_cpulist(&r->seq.o.remote->cpus, rcpus, sizeof rcpus);
	snprintf(t_local, sizeof t_local, "local: this host's CPU %s", cpus);
	snprintf(t_remote, sizeof t_remote, "remote: the peer host's CPU %s (stacked)", rcpus);
	ps[0] = (struct plot_series){ t_local, x, loc, NULL, n, zero };
	ps[1] = (struct plot_series){ t_remote, x, tot, NULL, n, loc };
	ps[2] = (struct plot_series){ "total (95% CI)", x, tot, e, n, NULL };
	for (int k = 0; k < EST_NSRC; k++)
		ps[3 + k] = (struct plot_series){ est_src_name((enum est_src)k), x, y[k], NULL, n, NULL };
	char title[200];
	snprintf(title, sizeof title, "%s: CPU cost per operation by message size, both ends (%s)", r->m.workload,
		 sum_estimator_name(sum[0].estimator));
	int rc = measuring_plot(path, title, "message size (bytes)", "CPU per operation (µs)", ps, 3 + EST_NSRC);
	for (int k = 0; k < EST_NSRC; k++)
		free(y[k]);
	free(x);
	free(zero);
	free(loc);
	free(tot);
	free(e);
	return rc;
}

static int write_plot(const char *path, const struct session *r, struct series *ser, struct summary *sum,
		      size_t n)
{
	if (n && sum[0].nremote && r->seq.o.remote)
		return write_stacked_plot(path, r, ser, sum, n);
	/* displacement and every OS source, each with its 95 % CI */
	double *x = calloc(n, sizeof *x), *y[1 + EST_NSRC], *e[1 + EST_NSRC];
	struct plot_series ps[1 + EST_NSRC];
	for (int k = 0; k <= EST_NSRC; k++) {
		y[k] = calloc(n, sizeof *y[k]);
		e[k] = calloc(n, sizeof *e[k]);
	}
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)ser[i].size_bytes;
		y[0][i] = sum[i].tau.mean / 1e3;
		e[0][i] = sum[i].tau.ci_half / 1e3;
		for (int k = 0; k < EST_NSRC; k++) {
			y[1 + k][i] = sum[i].os[k].mean / 1e3;
			e[1 + k][i] = sum[i].os[k].ci_half / 1e3;
		}
	}
	ps[0] = (struct plot_series){ "displacement", x, y[0], e[0], n, NULL };
	for (int k = 0; k < EST_NSRC; k++)
		ps[1 + k] = (struct plot_series){ est_src_name((enum est_src)k), x, y[1 + k], e[1 + k], n, NULL };
	char title[160];
	snprintf(title, sizeof title, "%s: CPU cost per operation by message size, with 95%% CIs (CPU %d)",
		 r->m.workload, r->m.cpu);
	int rc = measuring_plot(path, title, "message size (bytes)", "CPU per operation (µs)", ps, 1 + EST_NSRC);
	for (int k = 0; k <= EST_NSRC; k++) {
		free(y[k]);
		free(e[k]);
	}
	free(x);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct session r;
	struct sweep_opts so;
	memset(&r, 0, sizeof r);
	memset(&so, 0, sizeof so);
	r.m.cmd = "sweep";
	int st = measuring_parse(&r, argc, argv, extra, on_extra, &so);
	if (st)
		return st;
	if (r.m.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!so.nsizes)
		return msg_usage("sweep", "--sizes is required (e.g. --sizes 1000:8000:1000)");
	if (r.m.ops_given && r.m.ops == 0)
		return msg_usage("sweep", "--ops 0 measures start-up only; use 'displace measure' for that");
	if ((st = measuring_check_counts(&r)))
		return st;
	/* the workload's options once, and every size against its limits (udp's depend on the peer) */
	if ((st = measuring_check_workload(&r, r.m.wargs, r.m.nwargs, so.sizes, so.nsizes)))
		return st;
	struct csvout csv;
	if ((st = measuring_check_plot(&r)) || (st = measuring_open_csv(&r, &csv, OUT_CSV_HEADER)))
		return st;
	if ((st = measuring_setup(&r))) {
		csvout_close(&csv);
		session_finish(&r);
		return st;
	}
	size_t n = so.nsizes;
	struct series *ser = calloc(n, sizeof *ser);
	struct summary *sum = calloc(n, sizeof *sum);
	struct stop_state *stop = calloc(n, sizeof *stop);
	int rc = 0;
	if (!ser || !sum || !stop) {
		msg_error("out of memory");
		st = EXIT_FAILED;
		n = 0;
		goto out;
	}
	struct msg_progress prog;
	msg_progress_start(&prog, "sweeping", (double)n);
	for (size_t i = 0; i < n && !st; i++) {
		char label[32];
		snprintf(label, sizeof label, "%" PRIu64, so.sizes[i]);
		session_series_init(&r, &ser[i], label);
		ser[i].size_bytes = so.sizes[i];
		msg_progress_phase(&prog, "pilot, size %" PRIu64 " B", so.sizes[i]);
		st = measuring_choose_ops(&r, &ser[i]);
		msg_progress_update(&prog, (double)i + 1);
	}
	msg_progress_end(&prog);
	if (st)
		goto out;
	if (r.peer_note[0])
		msg_info("%s", r.peer_note);

	unsigned reps = r.m.reps ? r.m.reps : DEFAULT_REPS;
	if (r.m.fit)
		reps = measuring_whole_pairs(reps, "the fit needs whole pairs");
	uint64_t deadline = r.start_ns + r.m.max_time_ns;
	msg_progress_start(&prog, "sweeping", r.m.precision ? 0 : (double)reps * (double)n);
	if (r.m.precision) {
		msg_progress_deadline(&prog, deadline);
		msg_progress_ci(&prog, NAN, 100 * r.m.precision);
	}
	int met = 0;
	for (unsigned rep = 0;; rep++) {
		if (!r.m.precision && rep >= reps)
			break;
		/* rotate the order of sizes from one round to the next */
		for (size_t j = 0; j < n && !rc; j++) {
			size_t i = (j + rep / (r.m.fit ? 2 : 1)) % n;
			uint64_t ops = r.m.fit ? series_pair_ops(&ser[i], (int)(rep % 2), ser[i].ops,
								 sum_short_ops(ser[i].ops, r.m.short_run))
					       : ser[i].ops;
			if (r.m.precision)
				msg_progress_phase(&prog, "round %u, size %" PRIu64 " B", rep + 1, ser[i].size_bytes);
			else
				msg_progress_phase(&prog, "round %u of %u, size %" PRIu64 " B", rep + 1, reps,
						   ser[i].size_bytes);
			rc = seq_run(&r.seq, &ser[i], ops);
			if (rc)
				break;
			if (rep == 0 && j == 0)
				measuring_drift_note(&r);
			if (r.m.csv && out_csv_run(&csv, "sweep", &r.seq.o, &ser[i], ser[i].nruns - 1))
				msg_warn("cannot write to '%s'", r.m.csv);
			if (r.m.fit && rep % 2)
				series_pair_done(&ser[i]);
			msg_progress_update(&prog, (double)rep * (double)n + (double)j + 1);
		}
		if (rc)
			break;
		int round_done = !r.m.fit || rep % 2 == 1;
		if (r.m.precision && round_done) {
			/*
			 * every size has its own stopping rule; the sweep stops when
			 * each is met or out of reach (a bound wider than P)
			 */
			met = 1;
			int waiting = 0;
			for (size_t i = 0; i < n; i++) {
				seq_summarize(&r.seq, &ser[i], &sum[i]);
				if (!measuring_stop_check(&r, &stop[i], &sum[i])) {
					met = 0;
					waiting |= !measuring_out_of_reach(&r, &stop[i], &sum[i]);
				}
				measuring_stop_progress(&r, &stop[i], &sum[i], &prog);
			}
			if (!waiting)
				break;
		}
		if (round_done && dclock_raw_ns() >= deadline) {
			msg_warn("--max-time ran out after %u rounds", rep + 1);
			break;
		}
	}
	msg_progress_end(&prog);
	if (rc) {
		/* stopped by a signal: the sizes with a pair (or a run) measured are reported, marked partial */
		int have = 0;
		for (size_t i = 0; i < n; i++)
			have |= ser[i].nruns >= (r.m.fit ? 2u : 1u);
		if ((st = measuring_stopped(&r, rc, have)) && !r.interrupted)
			goto out;
	}
	struct measuring_moved moved = { 0 };
	for (size_t i = 0; i < n; i++) {
		seq_summarize(&r.seq, &ser[i], &sum[i]);
		if (r.m.precision)
			measuring_stop_ci(&r, &stop[i], &sum[i]);
		measuring_moved_add(&moved, &sum[i]);
		/* a summary row is a whole result: an interrupted sweep has its run rows only */
		if (r.m.csv && !r.interrupted)
			out_csv_summary(&csv, "sweep", &r.seq.o, &ser[i], &sum[i]);
	}
	measuring_warn_outliers(&moved, "sweep on a quiet host or add --reps");
	struct measuring_busy shared;
	measuring_busy_init(&shared);
	for (size_t i = 0; i < n; i++)
		measuring_busy_add(&shared, &sum[i]);
	int busy = measuring_warn_busy(&r, &shared);
	struct measuring_said said = { 0 };
	for (size_t i = 0; i < n; i++) {
		char label[48];
		snprintf(label, sizeof label, "%" PRIu64 " B: ", ser[i].size_bytes);
		busy |= measuring_check_truth(&r, &sum[i], label, &said);
	}
	if (r.m.precision && !met && !r.interrupted) {
		msg_warn("not every size's %s reached ±%.2f%%", measuring_target_name(&r), 100 * r.m.precision);
		for (size_t i = 0; i < n; i++) {
			char why[200];
			measuring_unmet_why(&r, &sum[i], why, sizeof why);
			if (!stop[i].met && why[0])
				msg_warn("%" PRIu64 " B: the %s did not reach it%s", ser[i].size_bytes,
					 measuring_target_name(&r), why);
		}
	}
	if (r.m.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, out_json(&sum[i], &r.seq.o, &ser[i]));
		json_t *o = json_object();
		json_object_set_new(o, "workload", json_string(r.m.workload));
		json_object_set_new(o, "peer", r.peer_note[0] ? json_string(r.peer_note) : json_null());
		json_object_set_new(o, "sizes", arr);
		if (r.m.precision) {
			json_object_set_new(o, "precision_target", json_real(r.m.precision));
			json_object_set_new(o, "precision_of", json_string(measuring_target_key(&r)));
			json_object_set_new(o, "precision_met", json_boolean(met));
		}
		measuring_output(&r, o);
	} else {
		char cpus[128];
		cli_format_cpulist(&r.seq.o.cpus, cpus, sizeof cpus);
		char prec[160] = "";
		if (r.m.precision)
			snprintf(prec, sizeof prec, ", precision ±%.2f%% for the %s %s", 100 * r.m.precision,
				 measuring_target_name(&r), met ? "reached" : "NOT reached by every size");
		printf("displace sweep %s: CPU %d, fluid (%s) on CPU %s, %zu runs per size%s%s%s\n", r.m.workload, r.m.cpu,
		       r.seq.o.fluid.sched, cpus, ser[0].nruns, prec, r.peer_note[0] ? "; " : "", r.peer_note);
		print_table(&r, ser, sum, n);
		printf("  µs per op; OS sources with their paired %% difference from displacement, 100 (OS - d) / d\n");
		measuring_output(&r, NULL);
	}
	if (r.m.plot && write_plot(r.m.plot, &r, ser, sum, n) && !st)
		st = EXIT_RESOURCE;
	if (!st && r.m.strict && (moved.outliers + moved.spells || busy || (r.m.precision && !met)))
		st = EXIT_UNTRUSTED;
out:
	for (size_t i = 0; i < n; i++)
		series_free(&ser[i]);
	free(ser);
	free(sum);
	free(stop);
	csvout_close(&csv);
	session_finish(&r);
	return st;
}
