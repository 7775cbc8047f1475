/*
 * predict.h - saturation throughput predicted from measured costs, and the
 * prediction's error against real saturated runs (Woodside, Courtois and
 * Schramm 1997, section 4.3, Table 3, Figure 5). Pure.
 *
 * A CPU that spends tau per iteration runs 1 / tau iterations per second
 * when saturated, so each source of tau predicts a throughput. The loop
 * under study computes c per iteration, so a displacement below c is no
 * measurement: the fluid did not get the idle time.
 */
#ifndef PREDICT_H
#define PREDICT_H

#include "calib/estimate.h"
#include "calib/stats.h"
#include "calib/summary.h"

#include <stddef.h>

/* The predictors: classic displacement, drift-robust, then the OS sources in enum est_src order. */
enum { PRED_DISPLACEMENT = 0, PRED_DRIFT_ROBUST = 1, PRED_OS = 2, PRED_NSRC = 2 + EST_NSRC };

/*
 * A saturated run counts when the sender had its CPU: its task-clock
 * (steal included) at least this share of the loop's wall time. Below it,
 * other work ran on the CPU or the sender waited for replies.
 */
#define PRED_MIN_SAT_SHARE 0.95

/* One saturated run: messages per second, and the sender's task-clock over the loop's wall time (NAN: unknown). */
struct pred_sat {
	double tput, share;
};

/*
 * One size's rounds. Round j is a cost pair, runs 2j and 2j + 1 of cost
 * (an L run and a null run, taken within a second or two of each other),
 * and the saturated run sat[j].
 */
struct pred_in {
	double c_ns;                  /* compute per iteration */
	const struct est_run *cost;   /* the cost runs, outlier flags set by sum_compute */
	size_t ncost;
	const struct summary *scost;  /* their summary: the mean cost per iteration by each source */
	const struct pred_sat *sat;
	size_t nsat;
};

struct pred_out {
	struct stats_summary tput;      /* measured msg/s: pooled over the kept rounds, CI by the delta method */
	size_t nunsat;                  /* saturated runs below PRED_MIN_SAT_SHARE, left out */
	double pred[PRED_NSRC];         /* msg/s predicted by each source; NAN when it cannot predict */
	double err_pct[PRED_NSRC];      /* 100 (pred - measured) / measured */
	double err_ci[PRED_NSRC];       /* 95 % CI of err_pct, percentage points, from the paired rounds */
};

/* pred_compute - the measured throughput, each source's prediction, and its error with the error's CI */
void pred_compute(const struct pred_in *in, struct pred_out *out);
/* pred_saturated - whether saturated run s counts (its share is at least PRED_MIN_SAT_SHARE, or unknown) */
int pred_saturated(const struct pred_sat *s);
/* pred_below_c - a cost per iteration below the compute c it contains: the fluid was starved */
int pred_below_c(double c_ns, double tau_ns);
/* pred_name - "displacement", "drift-robust", then est_src_name */
const char *pred_name(int k);
/* pred_key - "displacement", "drift_robust", then est_src_key */
const char *pred_key(int k);
/*
 * pred_rounds_for - rounds that would bring a CI of half-width ci_now,
 * reached in rounds rounds, down to target: the sd stays, and t falls to 2
 */
double pred_rounds_for(double ci_now, double target, unsigned rounds);

#endif
