/* estimate.c - the displacement estimators and the error budget */
#include "calib/estimate.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int est_cal_from(const struct fluid_report *r, int use_steal, struct est_cal *c)
{
	memset(c, 0, sizeof *c);
	if (!r->loops)
		return -EINVAL;
	c->wall_ns = fluid_wall_ns(r);
	c->tau_ns = fluid_tau_ns(r);
	c->tau_raw_ns = fluid_raw_wall_ns(r) / (double)r->loops;
	c->tau0_ns = fluid_tau0_ns(r);
	if (isnan(c->tau0_ns))
		c->tau0_ns = c->tau_ns; /* a slow clock hides the chunks: fall back to T/L */
	double work = (double)r->loops * c->tau0_ns;
	c->g = work > 0 ? (c->wall_ns - work) / work : 0;
	if (c->g < 0)
		c->g = 0;
	c->steal_ns = use_steal ? fluid_steal_ns(r) : 0;
	c->g_nosteal = work > 0 ? (c->wall_ns - c->steal_ns - work) / work : 0;
	if (c->g_nosteal < 0)
		c->g_nosteal = 0;
	c->post_rate = c->wall_ns > 0 ? fluid_post_extra_ns(r) / c->wall_ns : 0;
	return 0;
}

int est_cpu_from(const struct fluid_report *corun, const struct est_cal *before, const struct est_cal *after,
		 double tau_sd_ns, int put_cpu, double put_steal_ns, int use_steal, struct est_cpu *e)
{
	memset(e, 0, sizeof *e);
	if (!corun->loops || before->tau_ns <= 0 || after->tau_ns <= 0)
		return -EINVAL;
	e->t2_ns = fluid_wall_ns(corun);
	e->l2 = (double)corun->loops;
	/* classic: Woodside step 2 with tau_F bracketed by the two calibrations */
	e->tau_f_ns = (before->tau_ns + after->tau_ns) / 2;
	e->t_put_ns = e->t2_ns - e->l2 * e->tau_f_ns;
	e->t_put_raw_ns = fluid_raw_wall_ns(corun) - e->l2 * (before->tau_raw_ns + after->tau_raw_ns) / 2;
	/* drift-robust: the fluid's own undisturbed speed during the co-run */
	e->tau0_2_ns = fluid_tau0_ns(corun);
	double g = (before->g_nosteal + after->g_nosteal) / 2;
	if (!use_steal)
		e->steal_ns = 0;
	else if (put_cpu)
		e->steal_ns = fluid_steal_ns(corun) + put_steal_ns;
	else
		e->steal_ns = (before->steal_ns / before->wall_ns + after->steal_ns / after->wall_ns) / 2 * e->t2_ns;
	if (isnan(e->tau0_2_ns)) {
		e->tau0_2_ns = NAN;
		e->tau_f_robust_ns = NAN;
		e->t_put_robust_ns = NAN;
	} else {
		e->tau_f_robust_ns = e->tau0_2_ns * (1 + g);
		e->t_put_robust_ns = e->t2_ns - e->steal_ns - e->l2 * e->tau_f_robust_ns;
	}
	/* e_drift: the bracket assumes tau_F moved linearly; it may be off by half the change */
	e->drift_ns = fabs(after->tau_ns - before->tau_ns) / 2 * e->l2;
	/* e_calib: a bracket averages two calibrations, each with sd tau_sd */
	e->calib_ns = 1.96 * tau_sd_ns / M_SQRT2 * e->l2;
	/* e_cache: the fluid's extra reload time after gaps, beyond what the calibrations showed */
	double rate = (before->post_rate + after->post_rate) / 2;
	double extra = fluid_post_extra_ns(corun) - rate * e->t2_ns;
	e->cache_ns = extra > 0 ? extra : 0;
	return 0;
}

double est_res_ns(double delta_ns, double lf2, double lf1)
{
	if (!(lf1 > 0))
		return NAN;
	/* each duration is read at both ends, so it is off by up to a whole delta */
	return delta_ns * (1 + lf2 / lf1);
}

int est_pair_from(double t_big, double l_big, double t_small, double l_small, struct est_pair *p)
{
	if (l_big == l_small)
		return -EINVAL;
	p->tau_ns = (t_big - t_small) / (l_big - l_small);
	p->s_ns = t_small - l_small * p->tau_ns;
	return 0;
}

double est_pct_diff(double x, double d)
{
	if (!isfinite(x) || !isfinite(d) || d == 0)
		return NAN;
	return 100 * (x - d) / d;
}
