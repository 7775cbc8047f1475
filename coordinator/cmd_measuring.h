/*
 * cmd_measuring.h - what the measuring commands (measure, sweep, predict)
 * share at the user's end: their checks, notes and warnings, the output
 * files, and how a failure becomes a message and an exit status. The
 * work itself is in session.c and sequence.c, which print nothing.
 */
#ifndef CMD_MEASURING_H
#define CMD_MEASURING_H

#include "calib/summary.h"
#include "coordinator/csvout.h"
#include "coordinator/msg.h"
#include "coordinator/plot.h"
#include "coordinator/session.h"

#include <jansson.h>

/*
 * measuring_parse - the shared and the command's own options (opts_parse)
 * into s->m; --quiet takes effect. 0, or EXIT_USAGE after the message.
 */
int measuring_parse(struct session *s, int argc, char **argv, const struct opts_extra *extra,
		    int (*on_extra)(int id, const char *val, void *ctx, char *err, size_t errlen), void *ctx);
/*
 * measuring_check_workload - the workload exists, is available, its
 * options parse (with put's own parser), it takes each of sizes[0..n), and
 * its command can be found. 0 or the exit status after the message.
 */
int measuring_check_workload(struct session *s, char **wargs, int nwargs, const uint64_t *sizes, size_t nsizes);
/*
 * measuring_warn_outliers - sweep's and predict's word on their summaries'
 * pairs: left out with other work in them (summary.outliers), kept with
 * the PUT's own cost moved (summary.moved_above, .moved_below), and the
 * summaries whose estimates moved in spells (summary.spells); remedy ends
 * the first ("add --reps")
 */
struct measuring_moved {
	size_t outliers, moved, spells;
};
void measuring_moved_add(struct measuring_moved *m, const struct summary *sum);
void measuring_warn_outliers(const struct measuring_moved *m, const char *remedy);

/*
 * measuring_check_counts - measure's and sweep's runs: --reps or
 * --precision, not both; --stopping and --precision-of only with
 * --precision; two runs at least to fit a line. 0 or the usage status
 * after the message.
 */
int measuring_check_counts(const struct session *s);
/*
 * measuring_setup - session_setup, the notes on placement and the
 * calibration store, and the local peer. 0 or the exit status after the
 * message.
 */
int measuring_setup(struct session *s);
/* measuring_choose_ops - session_choose_ops; 0 or the exit status after the message */
int measuring_choose_ops(struct session *s, struct series *ser);
/* measuring_whole_pairs - reps, or reps + 1 when odd, with a note saying so and why */
unsigned measuring_whole_pairs(unsigned reps, const char *why);
/* measuring_drift_note - after the first calibration: say if tau_F moved since the stored one */
void measuring_drift_note(const struct session *s);
/*
 * What the calibrations say of the measured CPU over a command's summaries:
 * the fluid's lowest speed share (sum_fluid_share), the largest share other
 * tasks took (others_share), and the largest bound that puts on a result
 * (e_shared_ns), as a share of that result.
 */
struct measuring_busy {
	double share, others, bound_pct, bound_ns, idle;
	int idle_known;     /* the fluid could read the CPU's idle time (root) */
	int other_cpu;      /* sum_nowhere_else: the least busy CPU with no fluid (-1: it was free) */
	double other_busy;  /* ... its busy share */
	/* --trace-others: the most other tasks took of the co-runs and calibrations, and left unknown (NAN: not traced) */
	double traced, traced_cal, unknown;
	double switches;    /* the most context switches per operation the trace saw on the measured CPU */
};
/* measuring_busy_init - nothing seen yet; measuring_busy_add - one summary more */
void measuring_busy_init(struct measuring_busy *b);
void measuring_busy_add(struct measuring_busy *b, const struct summary *sum);
/*
 * measuring_warn_busy - when other tasks took SUM_MAX_OTHERS_SHARE or more
 * of the measured CPU (sum_shared_cpu), another process shared it: beside
 * the PUT it may take less than alone, and the result can be low by up to
 * the bound; when the fluid's speed share is below SUM_MIN_FLUID_SHARE and
 * no task took it, interrupts or the hypervisor held the CPU (a note
 * instead when a CPU limit held the fluid off an idle CPU, which the
 * off-CPU estimator leaves out). Warns and returns 1 in the first two
 * cases, else 0. Warns too, and returns 1, when every CPU with no fluid
 * was busy (sum_nowhere_else): the CI may not hold. Under --trace-others
 * the other tasks' time is taken out of each window: a note says how much,
 * the third warning is not given, the first only for what the trace left
 * in (helpers, unnamed stretches), the second as before (tau_F has the
 * traced time cut out); a warning when the trace could not name 1 % or
 * more of the co-runs' time, lost events, or had lines it could not read.
 */
int measuring_warn_busy(const struct session *s, const struct measuring_busy *b);
/*
 * measuring_check_truth - what the estimators, the perturbation check and
 * the consistency check say of one summary (label: "" or e.g. "1000 B: "):
 * warnings for what makes the result untrustworthy (the fluid changed the
 * PUT's own CPU time by more than MEASURING_MAX_CHANGE_PCT of the result;
 * held time that may hide device-interrupt work), and returns 1 then;
 * notes for what explains a difference without changing the result.
 * said (NULL: one summary) keeps what was explained in full, for the
 * next summaries to say it short.
 */
#define MEASURING_MAX_CHANGE_PCT 5.0
/* what measuring_check_truth has explained already, so that a sweep's later sizes say it in a line */
struct measuring_said {
	int perturb, held;
	int saturating;      /* predict --clients: its own saturated runs check the held time */
	int perturb_unknown; /* the perturbation check's own CPU times were not on one clock */
};
int measuring_check_truth(const struct session *s, const struct summary *sum, const char *label,
			  struct measuring_said *said);
/*
 * measuring_stop_json - the rule and its stages, for the JSON's "stopping":
 * "naive", or {rule, n0, s0_us, [n1, s1_us,] target_n}
 */
json_t *measuring_stop_json(const struct session *s, const struct stop_state *st);
/* measuring_stop_text - the same for the text's header: " (three stages: ...)", or "" */
void measuring_stop_text(const struct session *s, const struct stop_state *st, char *buf, size_t len);
/* measuring_target - the figure --precision aims at: the result, its normalised cost, or these operations' */
const struct stats_summary *measuring_target(const struct session *s, const struct summary *sum);
/* measuring_target_key - its name in the JSON's precision_of, as --precision-of spells it */
const char *measuring_target_key(const struct session *s);
/* measuring_target_name - its name in messages: "result", "normalised cost" or "cost of these operations" */
const char *measuring_target_name(const struct session *s);
/*
 * measuring_unmet_why - why the figure aimed at could not reach --precision,
 * for the warning that says it did not: "; it has no figure: ...",
 * "; the background ... alone is ±x%", "; the cost itself moved ..." (the
 * result or the normalised cost, when the cost of these operations was
 * less than half as wide), or "" when more time would have done
 */
void measuring_unmet_why(const struct session *s, const struct summary *sum, char *buf, size_t len);
/*
 * measuring_may_auto_trace - whether measure may start again traced:
 * neither --trace-others nor --no-trace-others was given (so it is not
 * traced yet)
 */
int measuring_may_auto_trace(const struct session *s);
/*
 * measuring_auto_trace - whether the runs so far (sum) should be dropped
 * and measured again with the scheduler traced: measuring_may_auto_trace,
 * sum_auto_trace, and the trace usable (root). If so, why (for
 * s->trace_auto) is in why.
 */
int measuring_auto_trace(const struct session *s, const struct summary *sum, char *why, size_t len);
/*
 * measuring_stop_check - after an estimate is added: 1 when the series has
 * reached its precision, by --stopping's rule (calib/stopping.h) on the
 * figure aimed at
 */
int measuring_stop_check(const struct session *s, struct stop_state *st, const struct summary *sum);
/*
 * measuring_out_of_reach - after measuring_stop_check: 1 when, from twice
 * a first stage's worth of estimates on, the part of the interval no number of estimates shrinks
 * (measuring_unmet_why) alone is wider than --precision: measuring on
 * cannot reach it
 */
int measuring_out_of_reach(const struct session *s, const struct stop_state *st, const struct summary *sum);
/*
 * measuring_stop_progress - the CI reached so far against --precision, to
 * the progress line p: the rule's interval (unknown before its first
 * stage), or under --stopping naive the t interval from 3 estimates on
 */
void measuring_stop_progress(const struct session *s, const struct stop_state *st, const struct summary *sum,
			     struct msg_progress *p);
/*
 * measuring_stop_ci - under the staged rules, once the first stage is
 * done, put the rule's interval (Stein's on the last stage's sd; for three
 * stages the t interval over all when wider) into the summary's figure
 * aimed at; the naive rule keeps the usual t interval
 */
void measuring_stop_ci(const struct session *s, const struct stop_state *st, struct summary *sum);

/*
 * measuring_open_csv - open --csv (if given) for appending with header.
 * 0, or EXIT_RESOURCE after saying why (another header, cannot open).
 */
int measuring_open_csv(const struct session *s, struct csvout *c, const char *header);
/* measuring_check_plot - before any run: --plot's directory can be written to. 0, or EXIT_RESOURCE */
int measuring_check_plot(const struct session *s);
/*
 * measuring_plot - plot_write, then say what came of it: the SVG, the
 * script to render without gnuplot (a warning), or the error. 0, or -1.
 */
int measuring_plot(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
		   const struct plot_series *ps, size_t ns);
/* measuring_fail - print why a run failed (rc from the session or sequence) and return the exit status */
int measuring_fail(const struct session *s, int rc);
/*
 * measuring_stopped - the runs ended early with rc. When SIGINT, SIGTERM or
 * SIGHUP stopped them (-EINTR) and have_result (something was measured),
 * says so and sets s->interrupted: the command then reports what it has,
 * through measuring_output, which marks it. Otherwise measuring_fail.
 * Returns the exit status (EXIT_FAILED for an interruption).
 */
int measuring_stopped(struct session *s, int rc, int have_result);
/*
 * measuring_output - the end of a command's result, the one call a command
 * needs for an interruption to show: with --json, o gets "interrupted"
 * (and "interrupted_by", the signal, when SIGINT, SIGTERM or SIGHUP
 * stopped the runs) and "context", and is printed; without, o is NULL
 * and an interrupted result gets a last line saying that it is partial.
 * 0 or -EIO.
 */
int measuring_output(const struct session *s, json_t *o);

#endif
