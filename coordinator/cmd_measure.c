/*
 * cmd_measure.c - displace measure: Woodside step 2 for one configuration.
 * The fluid runs beside the process under test; the time it loses is the
 * PUT's CPU time. Runs come in pairs of L and L/4 operations, in a random
 * order, each bracketed by calibrations; the slope is the cost per operation.
 */
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/out_csv.h"
#include "coordinator/out_json.h"
#include "coordinator/out_text.h"
#include "coordinator/cmd_measuring.h"
#include "coordinator/msg.h"
#include "common/dclock.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REPS 16

static void usage(FILE *f)
{
	fputs("usage: displace measure WORKLOAD [workload options] [options] [-- CMD ARGS]\n"
	      "\n"
	      "Step 2 of the displacement method: a fluid runs beside the process under\n"
	      "test (PUT) on the measured CPU, and the time it loses is the PUT's CPU\n"
	      "time, interrupts and softirqs included. Runs come in pairs of L and L/4\n"
	      "operations (a null run when L < 4), in a random order within each pair,\n"
	      "each bracketed by calibrations of the fluid; the slope of T_PUT against L\n"
	      "is the cost per operation and the intercept the start-up cost. Beside it\n"
	      "stand the OS's own figures (getrusage, schedstat, /proc/stat, and perf\n"
	      "task-clock under --task-clock) with their paired % difference, and an\n"
	      "error budget.\n"
	      "\n"
	      "Workloads (see 'displace workloads'):\n",
	      f);
	for (size_t i = 0; put_workloads[i]; i++) {
		const struct put_workload *w = put_workloads[i];
		fprintf(f, "  %s %s\n      %s\n", w->name, w->usage, w->summary);
		/* the workload's options, indented under its name */
		for (const char *l = w->help; *l;) {
			const char *e = strchr(l, '\n');
			int len = e ? (int)(e - l) : (int)strlen(l);
			fprintf(f, "    %.*s\n", len, l);
			l += len + (e != NULL);
		}
	}
	fputs("\n", f);
	fputs(opts_help_placement, f);
	fputs(opts_help_both_ends, f);
	fputs("\n", f);
	opts_help_measurement(f, "measure");
	fputs("\n", f);
	opts_help_output(f, "measure", NULL);
	fputs("\n"
	      "Examples:\n"
	      "  displace measure spin --us 200\n"
	      "  displace measure exec --ops 20 -- /bin/true\n"
	      "  displace measure spin --us 50 --precision 0.5% --json\n"
	      "\n"
	      "Exit status: 0 done, 1 the experiment failed or was interrupted, 2 usage\n"
	      "error, 3 a missing resource (command, peer, helper), 4 workload not\n"
	      "available in this build, 5 untrustworthy result under --strict.\n",
	      f);
}

struct out {
	struct csvout csv;
	int have_csv;
};

/* run_loop's return when the runs are to be made again with the scheduler traced (measuring_auto_trace) */
#define RETRACE 1

static int run_loop(struct session *r, struct series *s, struct out *o, struct stop_state *stop, char *why,
		    size_t whylen)
{
	unsigned reps = r->m.reps ? r->m.reps : DEFAULT_REPS;
	if (r->m.fit)
		reps = measuring_whole_pairs(reps, "the fit needs whole pairs");
	uint64_t deadline = r->start_ns + r->m.max_time_ns;
	struct msg_progress prog;
	msg_progress_start(&prog, "measuring", r->m.precision ? 0 : reps);
	if (r->m.precision) {
		msg_progress_deadline(&prog, deadline);
		msg_progress_ci(&prog, NAN, 100 * r->m.precision);
	}
	memset(stop, 0, sizeof *stop);
	for (unsigned i = 0;; i++) {
		if (!r->m.precision && i >= reps)
			break;
		uint64_t ops = r->m.fit ? series_pair_ops(s, (int)(i % 2), s->ops, sum_short_ops(s->ops, r->m.short_run))
					: s->ops;
		if (r->m.precision)
			msg_progress_phase(&prog, "run %u", i + 1);
		else
			msg_progress_phase(&prog, "run %u of %u", i + 1, reps);
		int rc = seq_run(&r->seq, s, ops);
		if (rc) {
			msg_progress_end(&prog);
			return rc;
		}
		if (i == 0)
			measuring_drift_note(r);
		if (o->have_csv && out_csv_run(&o->csv, "measure", &r->seq.o, s, s->nruns - 1))
			msg_warn("cannot write to '%s'", o->csv.path);
		msg_progress_update(&prog, i + 1);
		int pair_done = !r->m.fit || i % 2 == 1;
		if (r->m.fit && pair_done)
			series_pair_done(s);
		if (pair_done && (r->m.precision || measuring_may_auto_trace(r))) {
			struct summary sum;
			seq_summarize(&r->seq, s, &sum);
			if (measuring_auto_trace(r, &sum, why, whylen)) {
				msg_progress_end(&prog);
				return RETRACE;
			}
			if (r->m.precision) {
				if (measuring_stop_check(r, stop, &sum) || measuring_out_of_reach(r, stop, &sum))
					break;
				measuring_stop_progress(r, stop, &sum, &prog);
			}
		}
		if (pair_done && dclock_raw_ns() >= deadline) {
			if (!r->m.precision)
				msg_warn("--max-time ran out after %zu runs", s->nruns);
			break;
		}
	}
	msg_progress_end(&prog);
	return 0;
}

/* the decimals (2 to 4) that show a percentage apart from the target it missed: never "±1.00% (reached ±1.00%)" */
static int decimals_apart(double pct, double target_pct)
{
	int dp = 2;
	while (dp < 4 && round(pct * pow(10, dp)) == round(target_pct * pow(10, dp)))
		dp++;
	return dp;
}

/* a stop signal that came while no session was set up to catch it, raised again once one is */
static volatile sig_atomic_t held_signal;

static void hold_signal(int sig)
{
	held_signal = sig;
}

/* the JSON's trace_others (option, auto or off) and trace_others_why: whether the scheduler was traced, and why */
static void json_trace_keys(const struct session *r, json_t *j)
{
	json_object_set_new(j, "trace_others", json_string(r->trace_auto[0] ? "auto" : r->seq.o.trace ? "option" : "off"));
	json_object_set_new(j, "trace_others_why", r->trace_auto[0] ? json_string(r->trace_auto) : json_null());
}

/*
 * The session closed and made ready to be set up again, as parsed (its
 * options and workload), with --trace-others on, and why in trace_auto.
 * Closing it gives SIGINT, SIGTERM and SIGHUP back to their default, which
 * would end displace with nothing said: until the next session catches
 * them (raise_held_signal), they are held.
 */
static void start_again_traced(struct session *r, const char *why)
{
	msg_info("%s: starting again with the scheduler traced (--trace-others), which takes the others' time out of "
		 "each run; --no-trace-others not to",
		 why);
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
		sigaddset(&block, stops[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	session_finish(r);
	struct sigaction sa = { .sa_handler = hold_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
		sigaction(stops[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	struct opts m = r->m;
	const struct put_workload *w = r->w;
	memset(r, 0, sizeof *r);
	r->m = m;
	r->w = w;
	r->m.trace_others = 1;
	snprintf(r->trace_auto, sizeof r->trace_auto, "%s", why);
}

int cmd_measure(int argc, char **argv)
{
	struct session r;
	memset(&r, 0, sizeof r);
	r.m.cmd = "measure";
	int st = measuring_parse(&r, argc, argv, NULL, NULL, NULL);
	if (st)
		return st;
	if (r.m.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if ((st = measuring_check_workload(&r, r.m.wargs, r.m.nwargs, NULL, 0)))
		return st;
	if ((st = measuring_check_counts(&r)))
		return st;
	if (r.m.plot)
		return msg_usage("measure", "--plot is for sweep and predict: measure has one cost, not a curve");

	struct out o = { 0 };
	struct series s;
	int rc = 0;
	struct stop_state stop;
	uint64_t first_start_ns = 0;
again:
	if ((st = measuring_open_csv(&r, &o.csv, OUT_CSV_HEADER)))
		return st;
	o.have_csv = r.m.csv != NULL;
	if ((st = measuring_setup(&r))) {
		csvout_close(&o.csv);
		session_finish(&r);
		return st;
	}
	/* --max-time counts from the first start, through a start again traced */
	if (first_start_ns)
		r.start_ns = first_start_ns;
	if (held_signal)
		raise(held_signal); /* to the session's own handler now: the measurement ends, interrupted */
	first_start_ns = r.start_ns;
	session_series_init(&r, &s, r.m.workload);
	memset(&stop, 0, sizeof stop);
	struct msg_progress pilot;
	msg_progress_start(&pilot, "measuring", 0);
	msg_progress_phase(&pilot, "pilot run");
	st = measuring_choose_ops(&r, &s);
	msg_progress_end(&pilot);
	if (st)
		goto out;
	if (s.ops == 0) {
		/* set-up and tear-down only: every run is a null run, nothing to fit */
		r.m.fit = 0;
		r.seq.o.fit = 0;
		msg_info("%s: --ops 0, null runs: the start-up cost S of the PUT", r.m.workload);
	} else if (!r.m.fit || (s.ops >= 4 && r.m.short_run == SUM_SHORT_QUARTER))
		msg_info("%s: %" PRIu64 " ops per run%s", r.m.workload, s.ops, r.m.fit ? ", in pairs with a quarter" : "");
	else
		msg_info("%s: %" PRIu64 " ops per run, in pairs with null runs (start-up only)", r.m.workload, s.ops);
	char retrace_why[sizeof r.trace_auto];
	rc = run_loop(&r, &s, &o, &stop, retrace_why, sizeof retrace_why);
	if (rc == RETRACE) {
		/*
		 * The runs so far are dropped from the result (their interval is
		 * known not to hold); their CSV rows stay, with no summary row, as
		 * an interrupted measurement's do. The trace must start before the
		 * helpers are forked, so everything starts again.
		 */
		csvout_close(&o.csv);
		series_free(&s);
		start_again_traced(&r, retrace_why);
		goto again;
	}
	int met = stop.met;
	/* stopped by a signal after a pair (or a run): what was measured is reported, marked partial */
	if (rc && (st = measuring_stopped(&r, rc, s.nruns >= (r.m.fit ? 2u : 1u))) && !r.interrupted)
		goto out;
	struct summary sum;
	seq_summarize(&r.seq, &s, &sum);
	if (r.m.precision)
		measuring_stop_ci(&r, &stop, &sum);
	/* a summary row is a whole result: an interrupted one has its run rows only */
	if (o.have_csv && !r.interrupted)
		out_csv_summary(&o.csv, "measure", &r.seq.o, &s, &sum);

	int untrusted = 0;
	if (s.ops == 0) {
		struct measuring_busy busy;
		measuring_busy_init(&busy);
		measuring_busy_add(&busy, &sum);
		untrusted = measuring_warn_busy(&r, &busy);
		if (r.m.json) {
			/*
			 * Every key a cost has, null (no operation, no cost per
			 * operation), and S from the null runs with its CI.
			 */
			json_t *j = out_json(&sum, &r.seq.o, &s), *errs = json_object_get(j, "errors_us"), *v;
			const char *key;
			json_object_foreach(errs, key, v)
				json_object_set_new(errs, key, json_null()); /* per op, of no op */
			int known = !sum.startup_why[0];
			json_object_set_new(j, "startup_us", jout_num(known ? sum.startup.mean / 1e3 : NAN));
			json_object_set_new(j, "startup_ci95_us", jout_num(known ? sum.startup.ci_half / 1e3 : NAN));
			json_trace_keys(&r, j);
			measuring_output(&r, j);
		} else {
			char args[512];
			series_args_text(&s, args, sizeof args);
			printf("displace measure %s %s --ops 0\n", r.m.workload, args);
			if (sum.startup_why[0])
				printf("  start-up S   not measurable: %s (n=%zu null runs)\n", sum.startup_why, sum.startup.n);
			else
				printf("  start-up S   %.2f µs ± %.2f (95%% CI) per run, n=%zu null runs: set-up and tear-down "
				       "of put on CPU %d\n",
				       sum.startup.mean / 1e3, sum.startup.ci_half / 1e3, sum.startup.n, r.m.cpu);
			measuring_output(&r, NULL);
		}
		if (!st && r.m.strict && untrusted)
			st = EXIT_UNTRUSTED;
		goto out;
	}
	if (sum.n < 2) {
		msg_warn("only %zu estimate%s: no confidence interval; add --reps", sum.n, sum.n == 1 ? "" : "s");
		untrusted = 1;
	}
	const char *unit = sum.fitted ? "pairs" : "runs";
	if (sum.outliers) {
		msg_warn("%zu of %zu %s were outliers and were left out: something else ran during them; measure on a "
			 "quiet host or add --reps",
			 sum.outliers, sum.n + sum.outliers, unit);
		untrusted = 1;
	}
	if (sum.moved_above + sum.moved_below) {
		char m[96];
		out_text_moved(&sum, m, sizeof m);
		msg_info("the cost itself moved: %s, and the OS's account of the PUT moved with them, so its own time "
			 "changed (its work, or a hypervisor's steal in its slices), not another task's; they are kept, "
			 "and the interval holds them",
			 m);
	}
	if (sum.spells) {
		const struct stats_summary *t = &sum.est[sum.estimator];
		double batch_pct = 100 * sum.tau_batch_half_ns / fabs(t->mean), t_pct = 100 * t->ci_half / fabs(t->mean);
		char means[96];
		out_text_batch_means(&sum, means, sizeof means);
		/* aimed at these operations: that figure pairs each estimate with the account, which moved too */
		if (r.m.precision_of == PREC_THESE)
			msg_info("the cost moved in spells longer than a pair (%d batch means give ±%.2f%%, the t interval "
				 "±%.2f%%): the cost of these operations holds them, the result's interval does not",
				 SUM_BATCHES, batch_pct, t_pct);
		else
			msg_warn("the cost moved in spells longer than a pair: %d batch means of the %zu %s in time order "
				 "(%s µs) give ±%.2f%%, where the t interval, which takes them as independent, gives ±%.2f%%; the "
				 "result holds this measurement's mix of spells, and the cost beyond it can be anywhere in "
				 "theirs: measure for longer, or again later; the 'these ops' line is the cost of the "
				 "operations measured (--precision-of these-ops aims --precision at it)",
				 SUM_BATCHES, sum.n, unit, means, batch_pct, t_pct);
		untrusted = untrusted || r.m.precision_of != PREC_THESE;
	}
	if (r.m.precision && !met && !r.interrupted) {
		const struct stats_summary *t = measuring_target(&r, &sum);
		char why[240];
		measuring_unmet_why(&r, &sum, why, sizeof why);
		double got_pct = 100 * t->ci_half / fabs(t->mean);
		int dp = decimals_apart(got_pct, 100 * r.m.precision);
		if (measuring_out_of_reach(&r, &stop, &sum))
			msg_warn("stopped after %zu estimates: the CI of the %s cannot reach ±%.2f%% (it is ±%.*f%%)%s",
				 t->n, measuring_target_name(&r), 100 * r.m.precision, dp, got_pct, why);
		else if (isfinite(t->mean) && isfinite(t->ci_half))
			msg_warn("the CI of the %s did not reach ±%.2f%% before --max-time (reached ±%.*f%%)%s",
				 measuring_target_name(&r), 100 * r.m.precision, dp, got_pct, why);
		else
			msg_warn("the CI of the %s did not reach ±%.2f%% before --max-time%s", measuring_target_name(&r),
				 100 * r.m.precision, why);
		untrusted = 1;
	}
	struct measuring_busy busy;
	measuring_busy_init(&busy);
	measuring_busy_add(&busy, &sum);
	if (measuring_warn_busy(&r, &busy))
		untrusted = 1;
	if (measuring_check_truth(&r, &sum, "", NULL))
		untrusted = 1;
	if (sum.cmd_status > 0)
		msg_warn("the command exited with status %d in some runs", sum.cmd_status);
	if (isfinite(sum.tau.mean) && sum.tau.mean <= 0) {
		msg_warn("the displacement is not positive: the operation is cheaper than the noise; raise --ops or "
			 "--run-time");
		untrusted = 1;
	}

	if (r.m.json) {
		json_t *j = out_json(&sum, &r.seq.o, &s);
		if (r.m.precision) {
			json_object_set_new(j, "precision_target", json_real(r.m.precision));
			json_object_set_new(j, "precision_of", json_string(measuring_target_key(&r)));
			json_object_set_new(j, "precision_met", json_boolean(met));
			json_object_set_new(j, "stopping", measuring_stop_json(&r, &stop));
		}
		json_trace_keys(&r, j);
		measuring_output(&r, j);
	} else {
		char args[512], cpus[128];
		series_args_text(&s, args, sizeof args);
		cli_format_cpulist(&r.seq.o.cpus, cpus, sizeof cpus);
		printf("displace measure %s %s\n", r.m.workload, args);
		char prec[240] = "", how[160];
		if (r.m.precision) {
			measuring_stop_text(&r, &stop, how, sizeof how);
			snprintf(prec, sizeof prec, ", precision %s for the %s%s", met ? "reached" : "NOT reached",
				 measuring_target_name(&r), how);
		}
		printf("  CPU %d, fluid (%s) on CPU %s; %" PRIu64 " ops per run, %zu runs%s\n", r.m.cpu, r.seq.o.fluid.sched,
		       cpus, s.ops, s.nruns, prec);
		if (r.seq.o.remote)
			printf("  %s\n", r.peer_note);
		if (r.trace_auto[0])
			printf("  the scheduler traced (--trace-others) from a second start, as %s\n", r.trace_auto);
		out_text_print(stdout, &sum, &r.seq.o, &r.ctx);
		measuring_output(&r, NULL);
	}
	if (!st && r.m.strict && untrusted)
		st = EXIT_UNTRUSTED;
out:
	csvout_close(&o.csv);
	series_free(&s);
	session_finish(&r);
	return st;
}
