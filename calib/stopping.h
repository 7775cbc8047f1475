/*
 * stopping.h - --precision's stopping rules: when a series of estimates
 * has reached its target, and the interval that goes with the rule
 * (docs/estimators.md, "When to stop"). Pure: counts and sds in, a verdict
 * out; the caller keeps one struct stop_state per series.
 */
#ifndef STOPPING_H
#define STOPPING_H

#include <stddef.h>

enum stop_rule {
	STOP_THREE, /* the default: three stages, Stein's re-estimated once */
	STOP_STEIN, /* Stein's two stages (exact for normal estimates, more of them) */
	STOP_NAIVE, /* the first time the t interval is within the target (under-covers; benches) */
};

#define STOP_N0 4                     /* the first stage's estimates */
#define STOP_THREE_RHO 0.5            /* the second stage: this share of Stein's total ... */
#define STOP_THREE_MAX_N1 (4 * STOP_N0) /* ... and at most this many */

struct stop_state {
	size_t n0;     /* the first stage's estimates, once done (0 before) */
	double s0;     /* their sd */
	size_t n1;     /* three stages: the second stage's total, once done (0 before) */
	double s1;     /* the sd over those n1 */
	size_t target; /* the estimates the rule asks for (so far) */
	int met;
	/*
	 * Set by the caller before the first update, and the same on every
	 * one: parameters fitted beside
	 * the mean, whose sd is then a residual's (1 for the cost of these
	 * operations, stats_given_ci). The first stage waits for STOP_N0 + k
	 * estimates, and every t quantile has k degrees of freedom fewer.
	 */
	size_t k;
};

/*
 * stop_update - after an estimate is added: n estimates so far, their sd
 * and the half-width of their usual 95 % t interval (t_half), against the
 * target half-width h (> 0; else never met). Updates st and returns 1 when
 * the series has reached its precision:
 *   - stein: n >= Stein's total for the first STOP_N0, and its interval
 *     within h (h shrinks when a bound in the interval grows);
 *   - three: the first stage asks for a share of Stein's total, at most
 *     STOP_THREE_MAX_N1; the sd of all of those for the total; met when n
 *     reaches it and stop_half is within h;
 *   - naive: n >= 3 and t_half <= h.
 */
int stop_update(enum stop_rule rule, struct stop_state *st, size_t n, double sd, double t_half, double h);
/*
 * stop_half - the rule's 95 % interval at n estimates whose t interval is
 * t_half: Stein's on the sd of the last stage done; for three stages the
 * wider of it and t_half (the host's spread can grow after the stage, and
 * the stage's sd would then claim a precision the later estimates do not
 * have); naive, t_half from 3 estimates. NAN before the first stage.
 */
double stop_half(enum stop_rule rule, const struct stop_state *st, size_t n, double t_half);

#endif
