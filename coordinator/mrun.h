/*
 * mrun.h - what measure, sweep and predict do before and around their
 * runs: check the workload, place the processes, choose L, talk to the
 * calibration store, and turn failures into messages and exit codes.
 */
#ifndef MRUN_H
#define MRUN_H

#include "coordinator/context.h"
#include "coordinator/csvout.h"
#include "coordinator/plot.h"
#include "coordinator/measure.h"
#include "coordinator/mopts.h"
#include "coordinator/peer.h"
#include "put/put.h"

struct mrun {
	struct mopts m;
	struct context ctx;
	const struct put_workload *w;
	struct exp_env *env;
	struct meas_ctx mc;
	uint64_t start_ns;
	double stored_tau_f_ns;   /* from the calibration store, 0 if none */
	struct peer peer;         /* the local peer, when the workload needs one */
	const char *peer_addr;    /* what the workload connects to: --peer or the local peer */
	char peer_note[160];      /* where the peer runs, for the output */
	char stored_date[32];
};

/*
 * mrun_check_workload - the workload exists, is available, and its
 * options parse (with put's own parser); exec's command can be found.
 * Returns 0 or the exit status after printing the message.
 */
int mrun_check_workload(struct mrun *r, char **wargs, int nwargs);
/*
 * mrun_setup - context, CPUs, helpers, coordinator placement, the store
 * check and the measurement options. Returns 0 or an exit status.
 */
int mrun_setup(struct mrun *r);
/*
 * mrun_choose_ops - L for a series: --ops, or from a pilot run of the
 * workload without a fluid (spin: also fixes --loops-per-op). 0 or an exit status.
 */
int mrun_choose_ops(struct mrun *r, struct meas_series *s);
/* mrun_whole_pairs - reps, or reps + 1 when odd, with a note saying so and why */
unsigned mrun_whole_pairs(unsigned reps, const char *why);
/* mrun_drift_note - after the first calibration: say if tau_F moved since the stored one */
void mrun_drift_note(struct mrun *r);
/*
 * mrun_fluid_share - the fluid's speed in the bracketing calibrations as a
 * share of its undisturbed speed in the same runs (1 when unknown).
 * mrun_warn_busy - when the lowest share of a command's summaries is below
 * MRUN_MIN_FLUID_SHARE, another process held the measured CPU and its work
 * is in the displacement: warns and returns 1, else 0.
 */
#define MRUN_MIN_FLUID_SHARE 0.9
double mrun_fluid_share(const struct meas_summary *s);
int mrun_warn_busy(const struct mrun *r, double share);
/*
 * mrun_open_csv - open --csv (if given) for appending with header. Returns 0
 * or EXIT_RESOURCE after saying why (another header, cannot open).
 */
int mrun_open_csv(struct mrun *r, struct csvout *c, const char *header);
/*
 * mrun_check_plot - before any run: --plot's directory can be written to.
 * 0, or EXIT_RESOURCE after saying why.
 */
int mrun_check_plot(const struct mrun *r);
/*
 * mrun_plot - plot_write, then say what came of it: the SVG, the script to
 * render without gnuplot (a warning), or the error. 0, or -1 on an error.
 */
int mrun_plot(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
	      const struct plot_series *s, size_t ns);
/* mrun_fail - print why a run failed and return the exit status to use */
int mrun_fail(struct mrun *r, int rc);
/* mrun_finish - stop the loop and release everything */
void mrun_finish(struct mrun *r);
/* mrun_series_init - a series for the workload arguments, with --peer when there is one */
void mrun_series_init(struct mrun *r, struct meas_series *s, const char *label);
/* mrun_add_arg - add a workload option to a series (e.g. --size=1000), before any "--"; it must outlive it */
void mrun_add_arg(struct meas_series *s, char *arg);

#endif
