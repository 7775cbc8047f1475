/* stopping.c - --precision's stopping rules (stopping.h) */
#include "calib/stopping.h"
#include "calib/stats.h"

#include <math.h>

double stop_half(enum stop_rule rule, const struct stop_state *st, size_t n, double t_half)
{
	if (rule == STOP_NAIVE)
		return n >= 3 ? t_half : NAN;
	if (!st->n0 || !n)
		return NAN;
	/* n0 - k and n1 - k: the stage's sd has k degrees of freedom fewer than its estimates */
	double half = st->n1 ? stats_stein_half(st->s1, st->n1 - st->k, n, 0.95)
			     : stats_stein_half(st->s0, st->n0 - st->k, n, 0.95);
	if (rule == STOP_THREE && t_half > half)
		half = t_half;
	return half;
}

int stop_update(enum stop_rule rule, struct stop_state *st, size_t n, double sd, double t_half, double h)
{
	st->met = 0;
	if (!(h > 0))
		return 0; /* a mean of 0: no relative precision to reach */
	if (rule == STOP_NAIVE)
		return st->met = stop_half(rule, st, n, t_half) <= h;
	if (!st->n0) {
		if (n < STOP_N0 + st->k || !isfinite(sd))
			return 0;
		/* the first stage: its sd decides how many estimates there will be (three stages: for now) */
		st->n0 = n;
		st->s0 = sd;
		st->target = rule == STOP_STEIN
				     ? stats_stein_n(sd, n - st->k, h, 0.95)
				     : stats_three_stage_n1(sd, n - st->k, h, 0.95, STOP_THREE_RHO, STOP_THREE_MAX_N1);
	}
	if (rule == STOP_THREE && !st->n1 && n >= st->target && isfinite(sd)) {
		/* the second stage: the sd of all its estimates decides the total */
		st->n1 = n;
		st->s1 = sd;
		st->target = stats_stein_n(sd, n - st->k, h, 0.95);
	}
	if (rule == STOP_STEIN)
		st->met = n >= st->target && stop_half(rule, st, n, t_half) <= h; /* h can shrink after the stage */
	else
		st->met = st->n1 && n >= st->target && stop_half(rule, st, n, t_half) <= h;
	return st->met;
}
