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

/*
 * The predictors: the result (the summary's own estimator, "displacement"),
 * each estimator (enum sum_estimator order), then the OS sources (enum
 * est_src order).
 */
enum { PRED_DISPLACEMENT = 0, PRED_EST = 1, PRED_OS = 1 + SUM_NEST, PRED_NSRC = 1 + SUM_NEST + EST_NSRC };

/*
 * A saturated run counts when the sender had its CPU: its task-clock
 * (steal included) at least this share of the loop's wall time. Below it,
 * other work ran on the CPU or the sender waited for replies.
 */
#define PRED_MIN_SAT_SHARE 0.95

/*
 * A saturated run also says nothing about the sender when the peer's CPU
 * was this busy: the bottleneck was there.
 */
#define PRED_MAX_PEER_BUSY 0.9

/*
 * One round's saturated throughput: operations per second; the measured
 * CPU's busy share (the sender's task-clock over the loop's wall time, or
 * the CPU's busy share with K clients); the peer CPU's busy share. NAN:
 * unknown.
 */
struct pred_sat {
	double tput, share, peer_busy;
};

/*
 * One size's rounds. Round j is a cost pair, runs 2j and 2j + 1 of cost
 * (an L run and a null run, taken within a second or two of each other),
 * and the saturated run sat[j].
 */
struct pred_in {
	double c_ns;                  /* compute per iteration, in the cost (predict's loop) or added to it */
	const double *add_ns;         /* NULL: the cost is the whole iteration; else round j adds add_ns[j] (K clients) */
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
/*
 * pred_held_share - the share of the fluid's held time (classic less
 * off-CPU) that the saturated CPU paid:
 *
 *     f = (S - T_off) / (T_classic - T_off),   S = 1 / tput - add
 *
 * S the saturated cost per operation (less the compute added, with K
 * clients), as a ratio of paired means over the kept rounds, with its CI
 * (stats_ratio; NAN with one round). 0 no share, 1 all of it; outside 0..1
 * the saturated cost lay outside the two estimates. -EDOM when there is no
 * held time to share (classic not above off-CPU on average), -EINVAL
 * without a kept round.
 */
int pred_held_share(const struct pred_in *in, double *share, double *ci_half);
/*
 * pred_saturated - whether saturated run s counts: its share is at least
 * PRED_MIN_SAT_SHARE and its peer's below PRED_MAX_PEER_BUSY (or unknown)
 */
int pred_saturated(const struct pred_sat *s);
/* pred_below_c - a cost per iteration below the compute c it contains: the fluid was starved */
int pred_below_c(double c_ns, double tau_ns);
/* pred_name - "displacement", the estimators' names, then est_src_name */
const char *pred_name(int k);
/* pred_key - "displacement", the estimators' keys, then est_src_key */
const char *pred_key(int k);
/* pred_is_displacement - whether predictor k is a displacement estimate (the result or an estimator) */
int pred_is_displacement(int k);
/*
 * pred_k_spread - the arbiter's own uncertainty from the number of
 * clients: half the range of the throughputs tput[0..n) at the K values,
 * in % of their mean (NAN with fewer than two)
 */
double pred_k_spread(const double *tput, size_t n);
/*
 * pred_rounds_for - rounds that would bring a CI of half-width ci_now,
 * reached in rounds rounds, down to target: the sd stays, and t falls to 2
 */
double pred_rounds_for(double ci_now, double target, unsigned rounds);

#endif
