/* estimate.c - the displacement estimators and the error budget */
#include "calib/estimate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double est_idle_bound_ns(double idle_ns, double wall_ns, struct report_val task_clock)
{
	if (!task_clock.avail)
		return idle_ns;
	return fmin(idle_ns, fmax(0, wall_ns - task_clock.v));
}

int est_cal_from(const struct fluid_report *r, int use_steal, struct est_cal *c)
{
	memset(c, 0, sizeof *c);
	if (!r->loops)
		return -EINVAL;
	/* the stretches a scheduler trace saw other tasks hold the CPU are cut out of the window */
	double cut = fluid_traced_ns(r);
	c->wall_ns = fluid_wall_ns(r) - cut;
	c->tau_ns = c->wall_ns / (double)r->loops;
	c->tau_raw_ns = (fluid_raw_wall_ns(r) - cut) / (double)r->loops;
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
	/* idle time is no one's: a CPU limit held the fluid (0 when unknown, as it is without a limit) */
	double idle = r->idle_ns.avail ? est_idle_bound_ns(r->idle_ns.v, c->wall_ns, r->task_clock_ns) : 0;
	c->idle_rate = r->idle_ns.avail && c->wall_ns > 0 ? idle / c->wall_ns : NAN;
	c->traced_rate = r->others_ns.avail && fluid_wall_ns(r) > 0 ? cut / fluid_wall_ns(r) : NAN;
	c->off_rate = r->task_clock_ns.avail && c->wall_ns > 0 ? (c->wall_ns - r->task_clock_ns.v - idle) / c->wall_ns
							       : NAN;
	return 0;
}

/* a negative steal within this share of T_F(2) is noise; beyond it, a clock is wrong */
#define STEAL_NOISE 0.005

int est_cpu_from(const struct fluid_report *corun, const struct est_cal *before, const struct est_cal *after,
		 double tau_sd_ns, int put_cpu, double put_steal_ns, int use_steal, struct est_cpu *e)
{
	memset(e, 0, sizeof *e);
	if (!corun->loops || before->tau_ns <= 0 || after->tau_ns <= 0)
		return -EINVAL;
	/* other tasks' stretches by a scheduler trace are cut out, as from the calibrations (est_cal_from) */
	double cut = fluid_traced_ns(corun);
	e->t2_ns = fluid_wall_ns(corun) - cut;
	e->l2 = (double)corun->loops;
	/* classic: Woodside step 2 with tau_F bracketed by the two calibrations */
	e->tau_f_ns = (before->tau_ns + after->tau_ns) / 2;
	e->t_put_ns = e->t2_ns - e->l2 * e->tau_f_ns;
	e->t_put_raw_ns = fluid_raw_wall_ns(corun) - cut - e->l2 * (before->tau_raw_ns + after->tau_raw_ns) / 2;
	/*
	 * off-CPU: the fluid's task-clock runs while it is the CPU's current
	 * task, from switch-in to switch-out (perf, local_clock), so wall time
	 * less it, less the time the CPU was idle (a CPU limit throttled the
	 * fluid and the PUT alike), is the time others ran; less what others
	 * took from the fluid alone (b, in the calibrations). Under a
	 * scheduler trace, T_F(2) and the calibrations' T_F have the traced
	 * tasks' stretches cut out already, and b is what is left: helpers,
	 * interrupts' tasks, the untraced
	 */
	if (corun->task_clock_ns.avail && isfinite(before->off_rate) && isfinite(after->off_rate)) {
		e->b = (before->off_rate + after->off_rate) / 2;
		e->others_ns = e->b * e->t2_ns;
		e->idle_ns = corun->idle_ns.avail ? est_idle_bound_ns(corun->idle_ns.v, e->t2_ns, corun->task_clock_ns) : 0;
		e->traced_ns = cut;
		e->t_put_offcpu_ns = e->t2_ns - corun->task_clock_ns.v - e->idle_ns - e->others_ns;
		e->bg_ns = fabs(after->off_rate - before->off_rate) / 2 * e->t2_ns;
	} else {
		e->t_put_offcpu_ns = e->bg_ns = e->b = e->others_ns = e->idle_ns = e->traced_ns = NAN;
	}
	/* drift-robust: the fluid's own undisturbed speed during the co-run */
	e->tau0_2_ns = fluid_tau0_ns(corun);
	double g = (before->g_nosteal + after->g_nosteal) / 2;
	if (!use_steal)
		e->steal_ns = 0;
	else if (put_cpu && isfinite(put_steal_ns))
		e->steal_ns = fluid_steal_ns(corun) + put_steal_ns;
	else
		e->steal_ns = (before->steal_ns / before->wall_ns + after->steal_ns / after->wall_ns) / 2 * e->t2_ns;
	/*
	 * Steal cannot be negative. A little below 0 is the two clocks' noise;
	 * far below, one of them billed time wrongly (the scheduler's clock, when
	 * a wake-up from another CPU preempts the fluid: docs/estimators.md),
	 * and there is no steal figure to take out
	 */
	if (e->steal_ns < 0)
		e->steal_ns = e->steal_ns > -STEAL_NOISE * e->t2_ns ? 0 : NAN;
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

double est_rebill_ns(const struct est_run *r)
{
	return r->fluid_tc_ns - r->fluid_cpu_ns;
}

double est_pct_diff(double x, double d)
{
	if (!isfinite(x) || !isfinite(d) || d == 0)
		return NAN;
	return 100 * (x - d) / d;
}

const char *est_src_name(enum est_src src)
{
	static const char *const names[] = { "getrusage", "task-clock", "schedstat", "/proc/stat" };
	return names[src];
}

const char *est_src_key(enum est_src src)
{
	static const char *const keys[] = { "getrusage", "task_clock", "schedstat", "procstat" };
	return keys[src];
}

static double val_ns(const struct report_val *v)
{
	return v->avail ? v->v : NAN;
}

/* sys + irq + softirq ticks of one CPU over the run, in ns */
static double procstat_sys_ns(const struct est_run_in *in, int cpu)
{
	const struct procfs_cpu *a, *b;
	if (!in->stat0 || !in->stat1 || in->user_hz <= 0 || !(a = procfs_stat_find(in->stat0, cpu)) ||
	    !(b = procfs_stat_find(in->stat1, cpu)))
		return NAN;
	uint64_t t0 = a->system + a->irq + a->softirq, t1 = b->system + b->irq + b->softirq;
	return (double)(t1 - t0) * 1e9 / (double)in->user_hz;
}

/*
 * The PUT's task-clock minus its CPU time: steal while it was current, plus
 * the share of context-switch time that perf gives the fluid and the
 * scheduler gives the PUT (or the other way round). Signed: only the sum
 * with the fluid's own difference is steal. For exec, whose work is in
 * children, getrusage holds the children's CPU time.
 */
static double put_steal_ns(const struct put_report *p)
{
	if (!p->task_clock_ns.avail)
		return NAN; /* not counted (no --task-clock): est_cpu_from takes the calibrations' rate */
	if (p->schedstat_ns.avail)
		return p->task_clock_ns.v - p->schedstat_ns.v;
	if (p->cputime_ns.avail)
		return p->task_clock_ns.v - p->cputime_ns.v;
	if (p->utime_ns.avail && p->stime_ns.avail)
		return p->task_clock_ns.v - p->utime_ns.v - p->stime_ns.v;
	return NAN;
}

/* one fluid CPU's estimates (index i of its end) added to that end's sums */
static void end_add(struct est_end *x, int i, const struct est_cpu *e)
{
	x->cpu_t_put_ns[i] = e->t_put_ns;
	x->cpu_offcpu_ns[i] = e->t_put_offcpu_ns;
	x->cpu_robust_ns[i] = e->t_put_robust_ns;
	x->t_put_ns += e->t_put_ns;
	x->t_put_offcpu_ns += e->t_put_offcpu_ns;
	x->t_put_robust_ns += e->t_put_robust_ns;
	x->err_ns[EST_E_DRIFT] += e->drift_ns;
	x->err_ns[EST_E_CALIB] += e->calib_ns;
	x->err_ns[EST_E_CACHE] += e->cache_ns;
	x->err_ns[EST_E_BG] += e->bg_ns;
}

int est_run_from(const struct est_run_in *in, struct est_run *run, int *bad_cpu)
{
	struct est_end ends = { .ncpu = in->ncpu };
	const struct put_report *p = in->put;
	double put_steal = put_steal_ns(p);
	memset(run, 0, sizeof *run);
	run->ops = p->ops;
	run->traced_ns = run->traced_cal_share = run->unknown_ns = run->traced_switches = NAN;
	for (int i = 0; i < in->ncpu; i++) {
		struct est_cpu e;
		int c = in->cpu[i], is_put = c == in->put_cpu;
		if (est_cpu_from(&in->fluid[i], &in->before[i], &in->after[i], in->tau_sd_ns, is_put, put_steal,
				 in->use_steal, &e)) {
			*bad_cpu = c;
			return -EINVAL;
		}
		end_add(&ends, i, &e);
		run->t_put_raw_ns += e.t_put_raw_ns;
		if (is_put) {
			run->tau_f_ns = e.tau_f_ns;
			run->tau0_ns = e.tau0_2_ns;
			run->t2_ns = e.t2_ns;
			run->t2_raw_ns = fluid_raw_wall_ns(&in->fluid[i]) - fluid_traced_ns(&in->fluid[i]);
			run->l2 = e.l2;
			run->lf1 = (in->before[i].wall_ns / in->before[i].tau_ns + in->after[i].wall_ns / in->after[i].tau_ns) / 2;
			run->res_ns = est_res_ns(in->delta_ns, run->l2, run->lf1);
			run->steal_ns = e.steal_ns;
			run->others_share = e.b;
			run->idle_share = (in->before[i].idle_rate + in->after[i].idle_rate) / 2;
			const struct fluid_report *fr = &in->fluid[i];
			run->traced_ns = fr->others_ns.avail ? fr->others_ns.v : NAN;
			run->unknown_ns = fr->unknown_ns.avail ? fr->unknown_ns.v : NAN;
			run->traced_switches = fr->switches.avail ? fr->switches.v : NAN;
			run->traced_cal_share = (in->before[i].traced_rate + in->after[i].traced_rate) / 2;
			run->fluid_tc_ns = val_ns(&in->fluid[i].task_clock_ns);
			run->fluid_cpu_ns = (double)in->fluid[i].cpu_ns;
		}
		if (in->irq0 && in->irq1 && c < in->irq0->ncpu) {
			run->ipi[i] = (double)(in->irq1->ipi[c] - in->irq0->ipi[c]);
			run->dev_irq[i] = (double)(in->irq1->dev[c] - in->irq0->dev[c]);
		} else {
			run->ipi[i] = run->dev_irq[i] = NAN;
		}
		if (in->sirq0 && in->sirq1 && c < in->sirq0->ncpu) {
			run->net_rx[i] = (double)(in->sirq1->net_rx[c] - in->sirq0->net_rx[c]);
			run->net_tx[i] = (double)(in->sirq1->net_tx[c] - in->sirq0->net_tx[c]);
		}
	}
	/* this end's sums; its e_res is the PUT's CPU's, set above */
	memcpy(run->cpu_t_put_ns, ends.cpu_t_put_ns, sizeof run->cpu_t_put_ns);
	memcpy(run->cpu_offcpu_ns, ends.cpu_offcpu_ns, sizeof run->cpu_offcpu_ns);
	run->t_put_ns = ends.t_put_ns;
	run->t_put_offcpu_ns = ends.t_put_offcpu_ns;
	run->t_put_robust_ns = ends.t_put_robust_ns;
	run->drift_ns = ends.err_ns[EST_E_DRIFT];
	run->calib_ns = ends.err_ns[EST_E_CALIB];
	run->cache_ns = ends.err_ns[EST_E_CACHE];
	run->bg_ns = ends.err_ns[EST_E_BG];
	run->os_ns[SRC_GETRUSAGE] = p->utime_ns.avail && p->stime_ns.avail ? p->utime_ns.v + p->stime_ns.v : NAN;
	run->os_ns[SRC_TASK_CLOCK] = val_ns(&p->task_clock_ns);
	run->os_ns[SRC_SCHEDSTAT] = val_ns(&p->schedstat_ns);
	run->os_ns[SRC_PROCSTAT] = procstat_sys_ns(in, in->put_cpu);
	const struct report_val *why_src[EST_NSRC] = {
		[SRC_GETRUSAGE] = p->utime_ns.avail ? &p->stime_ns : &p->utime_ns,
		[SRC_TASK_CLOCK] = &p->task_clock_ns,
		[SRC_SCHEDSTAT] = &p->schedstat_ns,
	};
	for (int k = 0; k < EST_NSRC; k++)
		if (isnan(run->os_ns[k]))
			snprintf(run->os_why[k], sizeof run->os_why[k], "%s",
				 why_src[k] && !why_src[k]->avail ? why_src[k]->why : "no /proc/stat");
	run->put_wall_ns = (double)(p->end_ns - p->start_ns);
	run->peer_ns = in->peer_ns;
	run->nvcsw = p->nvcsw;
	run->nivcsw = p->nivcsw;
	run->cmd_status = p->cmd_status;
	char v[32];
	run->bytes = report_field(p->extra, "sent_bytes", v, sizeof v) ? strtod(v, NULL) : NAN;
	return 0;
}

int est_end_from(const struct est_end_in *in, struct est_end *e, int *bad)
{
	memset(e, 0, sizeof *e);
	e->ncpu = in->ncpu;
	for (int i = 0; i < in->ncpu; i++) {
		struct est_cpu c;
		/* not the PUT's CPU: steal is the calibrations' rate times T_F(2), as for a local peer's CPU */
		if (est_cpu_from(&in->fluid[i], &in->before[i], &in->after[i], in->tau_sd_ns[i], 0, 0, in->use_steal, &c)) {
			*bad = i;
			return -EINVAL;
		}
		end_add(e, i, &c);
		/* each CPU's T_F is read at both ends by that host's clock */
		double lf1 = (in->before[i].wall_ns / in->before[i].tau_ns + in->after[i].wall_ns / in->after[i].tau_ns) / 2;
		e->err_ns[EST_E_RES] += est_res_ns(in->delta_ns, c.l2, lf1);
	}
	return 0;
}

void est_alone_from(const struct put_report *p, struct est_alone *a)
{
	a->ops = p->ops;
	a->wall_ns = (double)(p->end_ns - p->start_ns);
	a->by_task_clock = p->task_clock_ns.avail;
	a->getrusage_ns = p->utime_ns.avail && p->stime_ns.avail ? p->utime_ns.v + p->stime_ns.v : NAN;
	a->cpu_ns = p->task_clock_ns.avail ? p->task_clock_ns.v : a->getrusage_ns;
}

double est_run_cpu_ns(const struct est_run *r)
{
	/* task-clock: its switch boundaries are exact; sum_exec_runtime's are not (docs/estimators.md) */
	return isfinite(r->os_ns[SRC_TASK_CLOCK]) ? r->os_ns[SRC_TASK_CLOCK] : r->os_ns[SRC_GETRUSAGE];
}
