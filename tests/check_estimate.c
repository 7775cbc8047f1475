/*
 * check_estimate.c - the displacement estimators on hand-computed reports:
 * Woodside, Courtois and Schramm (1997) steps 1 and 2 and the errors of
 * their section 3 (daemons, clock resolution, start-up), the bracketing
 * calibration, the drift-robust estimator, steal, and one whole run.
 */
#include "calib/estimate.h"
#include "tests/suites.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* a fluid report: loops over wall_ns, with ok_n ok chunks of 1000 loops at tau0_ns per loop */
static struct fluid_report fluid(double loops, double wall_ns, uint64_t ok_n, double tau0_ns)
{
	struct fluid_report r;
	memset(&r, 0, sizeof r);
	r.chunk_loops = 1000;
	r.loops = (uint64_t)loops;
	r.start_ns = 1000000;
	r.end_ns = r.start_ns + (uint64_t)wall_ns;
	r.raw_start_ns = r.start_ns;
	r.raw_end_ns = r.end_ns;
	r.cpu_ns = (uint64_t)wall_ns;
	r.ok_n = ok_n;
	r.ok_ns = (uint64_t)llround((double)ok_n * 1000 * tau0_ns);
	return r;
}

/* Woodside step 1 and 2: tau_F = T_F(1)/L_F(1), T_PUT = T_F(2) - L_F(2) tau_F, tau_PUT = T_PUT / L_PUT */
START_TEST(test_woodside_steps_one_and_two)
{
	struct fluid_report cal = fluid(1e9, 1.2e9, 0, 0), run = fluid(5e8, 1.0e9, 0, 0);
	struct est_cal c;
	struct est_cpu e;
	ck_assert_int_eq(est_cal_from(&cal, 0, &c), 0);
	ck_assert_double_eq_tol(c.tau_ns, 1.2, 1e-12);
	/* no chunk timings: the undisturbed speed falls back to T/L */
	ck_assert_double_eq_tol(c.tau0_ns, 1.2, 1e-12);
	ck_assert_int_eq(est_cpu_from(&run, &c, &c, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.t_put_ns, 1.0e9 - 5e8 * 1.2, 1e-3);
	/* L_PUT = 10000: 40 us per operation */
	ck_assert_double_eq_tol(e.t_put_ns / 1e4, 40e3, 1e-6);
	ck_assert_double_eq_tol(e.drift_ns, 0, 1e-9);
	ck_assert_double_eq_tol(e.calib_ns, 0, 1e-9);
}
END_TEST

/*
 * Woodside section 3, daemons: with D(i) = alpha(i) L_F(i) the classic
 * estimate is off by e_daemons L_PUT = (alpha(2) - alpha(1)) L_F(2).
 */
START_TEST(test_woodside_daemons_error)
{
	const double tau = 1.0, a1 = 0.02, a2 = 0.05, l1 = 1e8, l2 = 4e8, put = 3e7;
	struct fluid_report cal = fluid(l1, l1 * tau + a1 * l1, 0, 0), run = fluid(l2, l2 * tau + put + a2 * l2, 0, 0);
	struct est_cal c;
	struct est_cpu e;
	est_cal_from(&cal, 0, &c);
	est_cpu_from(&run, &c, &c, 0, 1, 0, 0, &e);
	ck_assert_double_eq_tol(e.t_put_ns - put, (a2 - a1) * l2, 1e-2);
	/* with alpha(2) = alpha(1) the error vanishes */
	run = fluid(l2, l2 * tau + put + a1 * l2, 0, 0);
	est_cpu_from(&run, &c, &c, 0, 1, 0, 0, &e);
	ck_assert_double_eq_tol(e.t_put_ns, put, 1e-2);
}
END_TEST

/*
 * Woodside section 3, clock resolution: he reads each duration to +-D/2,
 * so tau_PUT is off by +-D (1 + L_F(2)/L_F(1)) / (2 L_PUT(2)). A duration
 * read at both ends is off by up to D: displace's bound is twice his.
 */
START_TEST(test_woodside_clock_resolution_bound)
{
	const double d = 1e6, l1 = 1e9, l2 = 2e9, lput = 1e4;
	double woodside = d * (1 + l2 / l1) / (2 * lput);
	ck_assert_double_eq_tol(est_res_ns(d, l2, l1) / lput, 2 * woodside, 1e-9);
	/* L_F(2) = L_F(1): roughly D / L_PUT, as the paper says, times two */
	ck_assert_double_eq_tol(est_res_ns(d, l1, l1) / lput, 2 * d / lput, 1e-9);
	ck_assert(isnan(est_res_ns(d, l2, 0)));
}
END_TEST

/* Woodside section 3, start-up: T(L) = S + L tau; two loop counts give tau free of e_start = S / L */
START_TEST(test_pair_removes_the_startup_cost)
{
	struct est_pair p;
	const double s = 2.5e6, tau = 80e3;
	ck_assert_int_eq(est_pair_from(s + 1000 * tau, 1000, s + 250 * tau, 250, &p), 0);
	ck_assert_double_eq_tol(p.tau_ns, tau, 1e-6);
	ck_assert_double_eq_tol(p.s_ns, s, 1e-3);
	/* a null run */
	ck_assert_int_eq(est_pair_from(s + 1000 * tau, 1000, s, 0, &p), 0);
	ck_assert_double_eq_tol(p.tau_ns, tau, 1e-6);
	ck_assert_int_eq(est_pair_from(1, 10, 2, 10, &p), -EINVAL);
}
END_TEST

/* the bracket: tau_F the mean of before and after, e_drift half the change, e_calib from the sd */
START_TEST(test_bracketing_calibrations)
{
	struct fluid_report b = fluid(1e9, 1.0e9, 0, 0), a = fluid(1e9, 1.2e9, 0, 0), run = fluid(1e8, 1.5e8, 0, 0);
	struct est_cal cb, ca;
	struct est_cpu e;
	est_cal_from(&b, 0, &cb);
	est_cal_from(&a, 0, &ca);
	ck_assert_int_eq(est_cpu_from(&run, &cb, &ca, 0.01, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.tau_f_ns, 1.1, 1e-12);
	ck_assert_double_eq_tol(e.t_put_ns, 1.5e8 - 1e8 * 1.1, 1e-3);
	ck_assert_double_eq_tol(e.drift_ns, 0.1 * 1e8, 1e-3);
	ck_assert_double_eq_tol(e.calib_ns, 1.96 * 0.01 / M_SQRT2 * 1e8, 1e-3);
	/* a fluid that did nothing is no estimate */
	struct fluid_report none = fluid(0, 1e8, 0, 0);
	ck_assert_int_eq(est_cpu_from(&none, &cb, &ca, 0, 1, 0, 0, &e), -EINVAL);
	ck_assert_int_eq(est_cal_from(&none, 0, &cb), -EINVAL);
}
END_TEST

/*
 * The drift-robust estimator: the calibrations say the fluid runs 1.0 ns a
 * loop undisturbed and loses 5 % to background work (g); during the run
 * the host is 10 % slower (tau0 = 1.1). It takes the run's own tau0:
 * T_PUT' = T_F(2) - L_F(2) tau0(2) (1 + g), exact, where the classic
 * estimate counts the slowdown as the PUT's.
 */
START_TEST(test_drift_robust_takes_the_runs_own_speed)
{
	const double l2 = 1e8, put = 2e7;
	struct fluid_report cal = fluid(1e8, 1e8 * 1.0 * 1.05, 90000, 1.0);
	struct fluid_report run = fluid(l2, l2 * 1.1 * 1.05 + put, 80000, 1.1);
	struct est_cal c;
	struct est_cpu e;
	est_cal_from(&cal, 0, &c);
	ck_assert_double_eq_tol(c.tau0_ns, 1.0, 1e-9);
	ck_assert_double_eq_tol(c.g, 0.05, 1e-9);
	est_cpu_from(&run, &c, &c, 0, 1, 0, 0, &e);
	ck_assert_double_eq_tol(e.tau0_2_ns, 1.1, 1e-9);
	ck_assert_double_eq_tol(e.t_put_robust_ns, put, 1.0);
	ck_assert_double_eq_tol(e.t_put_ns, put + l2 * (1.1 - 1.0) * 1.05, 1.0);
}
END_TEST

/*
 * Steal: the fluid's task-clock (which runs while the hypervisor has the
 * vCPU) minus its CPU time. On the PUT's CPU the PUT's own difference adds
 * to it; on another CPU the calibrations' steal rate is used.
 */
START_TEST(test_steal_is_taken_out_of_both_steps)
{
	struct fluid_report cal = fluid(1e8, 1.0e8 + 2e6, 90000, 1.0), run = fluid(1e8, 1.3e8, 90000, 1.0);
	cal.task_clock_ns.avail = 1;
	cal.task_clock_ns.v = (double)cal.cpu_ns;
	cal.cpu_ns -= 2000000; /* 2 ms stolen: it is not background work */
	run.task_clock_ns.avail = 1;
	run.task_clock_ns.v = (double)run.cpu_ns;
	run.cpu_ns -= 5000000; /* 5 ms stolen from the fluid in the run */
	struct est_cal c;
	struct est_cpu e;
	est_cal_from(&cal, 1, &c);
	ck_assert_double_eq_tol(c.steal_ns, 2e6, 1e-3);
	ck_assert_double_eq_tol(c.g, 0.02, 1e-9);
	ck_assert_double_eq_tol(c.g_nosteal, 0, 1e-9);
	/* the PUT's own task-clock minus schedstat: 1 ms */
	est_cpu_from(&run, &c, &c, 0, 1, 1e6, 1, &e);
	ck_assert_double_eq_tol(e.steal_ns, 6e6, 1e-3);
	ck_assert_double_eq_tol(e.t_put_robust_ns, 1.3e8 - 6e6 - 1e8, 1.0);
	/* another CPU: the calibrations' rate, 2 ms per 102 ms, times T_F(2) */
	est_cpu_from(&run, &c, &c, 0, 0, 1e6, 1, &e);
	ck_assert_double_eq_tol(e.steal_ns, 2e6 / 1.02e8 * 1.3e8, 1.0);
	/* the PUT's CPU with the PUT's difference unknown (no --task-clock): the same rate, not the fluid's alone */
	est_cpu_from(&run, &c, &c, 0, 1, NAN, 1, &e);
	ck_assert_double_eq_tol(e.steal_ns, 2e6 / 1.02e8 * 1.3e8, 1.0);
	/* with IRQ time accounting the difference is not steal */
	est_cpu_from(&run, &c, &c, 0, 1, 1e6, 0, &e);
	ck_assert_double_eq_tol(e.steal_ns, 0, 1e-9);
}
END_TEST

/* e_cache: the post-gap chunks' extra time, beyond the calibrations' rate of it */
START_TEST(test_cache_reload_beyond_the_calibrations_rate)
{
	struct fluid_report cal = fluid(1e8, 1e8, 90000, 1.0), run = fluid(1e8, 1.2e8, 90000, 1.0);
	cal.post_n = 100;
	cal.post_ns = 100 * 1000 + 10000; /* 10 us extra in 100 ms: 1e-4 per ns */
	run.post_n = 1000;
	run.post_ns = 1000 * 1000 + 500000; /* 500 us extra in 120 ms */
	struct est_cal c;
	struct est_cpu e;
	est_cal_from(&cal, 0, &c);
	ck_assert_double_eq_tol(c.post_rate, 1e-4, 1e-12);
	est_cpu_from(&run, &c, &c, 0, 1, 0, 0, &e);
	ck_assert_double_eq_tol(e.cache_ns, 500000 - 1e-4 * 1.2e8, 1e-3);
}
END_TEST

/* one whole run on two CPUs: displacement summed, per CPU, the OS sources and /proc */
START_TEST(test_run_from_reports)
{
	const int cpus[2] = { 0, 1 };
	struct fluid_report f[2] = { fluid(1e8, 1.5e8, 0, 0), fluid(1e8, 1.1e8, 0, 0) };
	struct fluid_report calr = fluid(1e8, 1e8, 0, 0);
	struct est_cal cal[2];
	est_cal_from(&calr, 0, &cal[0]);
	cal[1] = cal[0];
	struct put_report p;
	memset(&p, 0, sizeof p);
	p.ops = 1000;
	p.start_ns = 10;
	p.end_ns = 10 + 60000000;
	p.utime_ns = (struct report_val){ .v = 3e7, .avail = 1 };
	p.stime_ns = (struct report_val){ .v = 1e7, .avail = 1 };
	p.task_clock_ns = (struct report_val){ .v = 4.1e7, .avail = 1 };
	p.schedstat_ns = (struct report_val){ .avail = 0, .why = "ENOENT" };
	struct procfs_stat s0, s1;
	memset(&s0, 0, sizeof s0);
	memset(&s1, 0, sizeof s1);
	s0.n = s1.n = 2;
	s0.cpu[0].cpu = s1.cpu[0].cpu = 0;
	s0.cpu[1].cpu = s1.cpu[1].cpu = 1;
	s1.cpu[0].system = 2;
	s1.cpu[0].softirq = 1;
	struct procfs_softirqs q0, q1;
	memset(&q0, 0, sizeof q0);
	memset(&q1, 0, sizeof q1);
	q0.ncpu = q1.ncpu = 2;
	q1.net_rx[1] = 1000;
	struct procfs_interrupts i0, i1;
	memset(&i0, 0, sizeof i0);
	memset(&i1, 0, sizeof i1);
	i0.ncpu = i1.ncpu = 2;
	i1.ipi[0] = 1000; /* a wake-up per operation */
	i1.dev[1] = 7;
	struct est_run_in in = { .ncpu = 2, .cpu = cpus, .put_cpu = 0, .fluid = f, .before = cal, .after = cal,
				 .put = &p, .stat0 = &s0, .stat1 = &s1, .sirq0 = &q0, .sirq1 = &q1, .irq0 = &i0,
				 .irq1 = &i1, .user_hz = 100, .delta_ns = 20, .peer_ns = NAN };
	struct est_run r;
	int bad = -1;
	ck_assert_int_eq(est_run_from(&in, &r, &bad), 0);
	ck_assert_uint_eq(r.ops, 1000);
	ck_assert_double_eq_tol(r.cpu_t_put_ns[0], 5e7, 1e-3);
	ck_assert_double_eq_tol(r.cpu_t_put_ns[1], 1e7, 1e-3);
	ck_assert_double_eq_tol(r.t_put_ns, 6e7, 1e-3);
	ck_assert_double_eq_tol(r.os_ns[SRC_GETRUSAGE], 4e7, 1e-3);
	ck_assert_double_eq_tol(r.os_ns[SRC_TASK_CLOCK], 4.1e7, 1e-3);
	ck_assert(isnan(r.os_ns[SRC_SCHEDSTAT]));
	ck_assert_str_eq(r.os_why[SRC_SCHEDSTAT], "ENOENT");
	/* 3 ticks at USER_HZ 100 */
	ck_assert_double_eq_tol(r.os_ns[SRC_PROCSTAT], 3e7, 1e-3);
	ck_assert_double_eq(r.net_rx[1], 1000);
	ck_assert_double_eq(r.ipi[0], 1000);
	ck_assert_double_eq(r.dev_irq[1], 7);
	/* no fluid task-clock: no off-CPU estimate, on any CPU */
	ck_assert(isnan(r.t_put_offcpu_ns));
	ck_assert_double_eq(r.put_wall_ns, 6e7);
	ck_assert_double_eq_tol(r.res_ns, 20 * (1 + 1.0), 1e-9);
	ck_assert(isnan(r.peer_ns));
	/* no /proc/stat: n/a, with the reason */
	in.stat0 = in.stat1 = NULL;
	est_run_from(&in, &r, &bad);
	ck_assert(isnan(r.os_ns[SRC_PROCSTAT]));
	ck_assert_str_eq(r.os_why[SRC_PROCSTAT], "no /proc/stat");
	/* a fluid that did no loops names its CPU */
	f[1].loops = 0;
	ck_assert_int_eq(est_run_from(&in, &r, &bad), -EINVAL);
	ck_assert_int_eq(bad, 1);
}
END_TEST

START_TEST(test_pct_diff_and_source_names)
{
	ck_assert_double_eq_tol(est_pct_diff(110, 100), 10, 1e-12);
	ck_assert_double_eq_tol(est_pct_diff(90, 100), -10, 1e-12);
	ck_assert(isnan(est_pct_diff(1, 0)));
	ck_assert(isnan(est_pct_diff(NAN, 1)));
	ck_assert_str_eq(est_src_name(SRC_TASK_CLOCK), "task-clock");
	ck_assert_str_eq(est_src_key(SRC_PROCSTAT), "procstat");
}
END_TEST

/*
 * off-CPU: T_F(2) less the fluid's task-clock less what others took from it
 * alone (b, the mean of the calibrations' off shares); its bracket error is
 * half the change of b times T_F(2)
 */
/*
 * A CPU limit (cgroup cpu.max) holds the fluid and the PUT off an idle CPU:
 * the idle time is no one's work. Alone, 40 % idle and 2 % others: b is
 * 2 %, the idle share 40 %. In the run (T_F(2) = 1e8) the fluid held the CPU
 * 3e7, the CPU idled 4e7: off-CPU = 1e8 - 3e7 - 4e7 - 0.02 x 1e8 = 2.8e7.
 * Idle time beyond the fluid's time off the CPU is a stale reading, bounded.
 */
START_TEST(test_off_cpu_leaves_out_the_idle_time_of_a_cpu_limit)
{
	struct fluid_report c = fluid(1e8, 1e8, 50000, 1.0), run = fluid(3e7, 1e8, 20000, 1.0);
	c.task_clock_ns = (struct report_val){ .v = 0.58e8, .avail = 1 };
	c.idle_ns = (struct report_val){ .v = 0.4e8, .avail = 1 };
	run.task_clock_ns = (struct report_val){ .v = 3e7, .avail = 1 };
	run.idle_ns = (struct report_val){ .v = 4e7, .avail = 1 };
	struct est_cal cal;
	struct est_cpu e;
	est_cal_from(&c, 0, &cal);
	ck_assert_double_eq_tol(cal.off_rate, 0.02, 1e-12);
	ck_assert_double_eq_tol(cal.idle_rate, 0.4, 1e-12);
	ck_assert_int_eq(est_cpu_from(&run, &cal, &cal, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, 2.8e7, 1e-3);
	ck_assert_double_eq_tol(e.idle_ns, 4e7, 1e-3);
	/* a stale idle reading, 15 ms in a calibration the fluid held throughout: no more than its off-CPU time */
	c.task_clock_ns.v = 0.99e8;
	c.idle_ns.v = 0.15e8;
	est_cal_from(&c, 0, &cal);
	ck_assert_double_eq_tol(cal.idle_rate, 0.01, 1e-12);
	ck_assert_double_eq_tol(cal.off_rate, 0, 1e-12);
	/* in the run, 2e7 of it is more than the 1e8 - 9e7 the fluid was off: 1e7, and off-CPU is what is left */
	run.task_clock_ns.v = 9e7;
	run.idle_ns.v = 2e7;
	ck_assert_int_eq(est_cpu_from(&run, &cal, &cal, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.idle_ns, 1e7, 1e-3);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, 0, 1e-3);
	ck_assert_double_eq_tol(est_idle_bound_ns(5, 10, (struct report_val){ .v = NAN }), 5, 1e-12);
	/* unknown idle time (not root, an old fluid) counts as none, as before */
	c.task_clock_ns.v = 0.58e8;
	c.idle_ns = run.idle_ns = (struct report_val){ .v = NAN };
	est_cal_from(&c, 0, &cal);
	ck_assert(isnan(cal.idle_rate));
	ck_assert_double_eq_tol(cal.off_rate, 0.42, 1e-12);
}
END_TEST

START_TEST(test_off_cpu_is_the_time_the_fluid_was_switched_out)
{
	struct fluid_report b = fluid(1e8, 1e8, 90000, 1.0), a = fluid(1e8, 1e8, 90000, 1.0), run = fluid(5e7, 1e8, 40000, 1.0);
	b.task_clock_ns = (struct report_val){ .v = 0.99e8, .avail = 1 }; /* off 1 % alone */
	a.task_clock_ns = (struct report_val){ .v = 0.97e8, .avail = 1 }; /* off 3 % */
	/* in the run the fluid held the CPU 6e7 ns, though its loops took only 5e7: 1e7 held, lost */
	run.task_clock_ns = (struct report_val){ .v = 6e7, .avail = 1 };
	struct est_cal cb, ca;
	struct est_cpu e;
	est_cal_from(&b, 0, &cb);
	est_cal_from(&a, 0, &ca);
	ck_assert_double_eq_tol(cb.off_rate, 0.01, 1e-12);
	ck_assert_int_eq(est_cpu_from(&run, &cb, &ca, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, 1e8 - 6e7 - 0.02 * 1e8, 1e-3);
	ck_assert_double_eq_tol(e.bg_ns, 0.01 * 1e8, 1e-3);
	/* what others took alone, b = 2 %, and the time taken out for them, b T_F(2) */
	ck_assert_double_eq_tol(e.b, 0.02, 1e-12);
	ck_assert_double_eq_tol(e.others_ns, 0.02 * 1e8, 1e-3);
	/* classic counts the held time too: 1e8 - 5e7 x 1.0 = 5e7, against 3.8e7 */
	ck_assert_double_eq_tol(e.t_put_ns - e.t_put_offcpu_ns, 1e7 + 0.02e8, 1e-3);
	/* without the fluid's task-clock there is no off-CPU estimate */
	run.task_clock_ns.avail = 0;
	est_cpu_from(&run, &cb, &ca, 0, 1, 0, 0, &e);
	ck_assert(isnan(e.t_put_offcpu_ns));
	ck_assert(isnan(e.b) && isnan(e.others_ns));
	ck_assert(isnan(cb.off_rate) == 0);
	b.task_clock_ns.avail = 0;
	est_cal_from(&b, 0, &cb);
	ck_assert(isnan(cb.off_rate));
}
END_TEST

/*
 * A neighbour on the CPU, seen by a scheduler trace (--trace-others): alone
 * it took 1e7 of a 1e8 calibration, in which the fluid ran the other 9e7
 * (9e7 loops at 1 ns). Beside the PUT it got only 5e6 of a 1e8 co-run: the
 * PUT 4.5e7, the fluid 5e7. Cut out of both windows, every estimator reads
 * 1e8 - 5e6 - 5e7 = 4.5e7. Untraced, the off-CPU estimator takes out the
 * neighbour's calibration share, 10 % of 1e8, and reads 4e7: low by the
 * 5e6 it did not take beside the PUT.
 */
START_TEST(test_traced_others_are_cut_out_of_both_steps)
{
	struct fluid_report c = fluid(9e7, 1e8, 90000, 1.0), run = fluid(5e7, 1e8, 50000, 1.0);
	c.task_clock_ns = (struct report_val){ .v = 9e7, .avail = 1 };
	run.task_clock_ns = (struct report_val){ .v = 5e7, .avail = 1 };
	struct est_cal cal;
	struct est_cpu e;
	est_cal_from(&c, 0, &cal);
	ck_assert(isnan(cal.traced_rate));
	ck_assert_double_eq_tol(cal.off_rate, 0.1, 1e-12);
	ck_assert_int_eq(est_cpu_from(&run, &cal, &cal, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, 4e7, 1e-3);
	ck_assert_double_eq_tol(e.traced_ns, 0, 1e-12);

	c.others_ns = (struct report_val){ .v = 1e7, .avail = 1 };
	run.others_ns = (struct report_val){ .v = 5e6, .avail = 1 };
	ck_assert_double_eq_tol(fluid_traced_ns(&run), 5e6, 1e-9);
	est_cal_from(&c, 0, &cal);
	ck_assert_double_eq_tol(cal.traced_rate, 0.1, 1e-12);
	ck_assert_double_eq_tol(cal.off_rate, 0, 1e-12);
	ck_assert_double_eq_tol(cal.wall_ns, 9e7, 1e-3);
	ck_assert_double_eq_tol(cal.tau_ns, 1.0, 1e-12);
	ck_assert_double_eq_tol(cal.tau_raw_ns, 1.0, 1e-12);
	ck_assert_int_eq(est_cpu_from(&run, &cal, &cal, 0, 1, 0, 0, &e), 0);
	ck_assert_double_eq_tol(e.traced_ns, 5e6, 1e-3);
	ck_assert_double_eq_tol(e.t2_ns, 9.5e7, 1e-3);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, 4.5e7, 1e-3);
	ck_assert_double_eq_tol(e.t_put_ns, 4.5e7, 1e-3);
	ck_assert_double_eq_tol(e.t_put_raw_ns, 4.5e7, 1e-3);
	ck_assert_double_eq_tol(e.t_put_robust_ns, 4.5e7, 1e-3);
	/* a negative or unavailable figure cuts nothing */
	run.others_ns = (struct report_val){ .v = -3, .avail = 1 };
	ck_assert_double_eq_tol(fluid_traced_ns(&run), 0, 1e-12);
	run.others_ns = (struct report_val){ .v = 5e6, .avail = 0 };
	ck_assert_double_eq_tol(fluid_traced_ns(&run), 0, 1e-12);
}
END_TEST

/*
 * The other end (the peer host's fluids): each CPU is estimated as a local
 * CPU that is not the PUT's, by est_cpu_from, and the end sums them; a
 * fluid that did no loops is named by its index
 */
START_TEST(test_end_sums_each_cpu_as_a_cpu_without_the_put)
{
	struct fluid_report cal[2] = { fluid(1e8, 1e8, 90000, 1.0), fluid(1e8, 1.1e8, 90000, 1.1) };
	struct fluid_report run[2] = { fluid(5e7, 1e8, 40000, 1.0), fluid(8e7, 1e8, 70000, 1.1) };
	struct est_cal c[2];
	for (int i = 0; i < 2; i++) {
		cal[i].task_clock_ns = (struct report_val){ .v = 0.98 * (double)(cal[i].end_ns - cal[i].start_ns), .avail = 1 };
		cal[i].cpu_ns = (uint64_t)cal[i].task_clock_ns.v; /* no steal: 2 % of the CPU went to others */
		run[i].task_clock_ns = (struct report_val){ .v = 0.5e8 + 0.3e8 * i, .avail = 1 };
		ck_assert_int_eq(est_cal_from(&cal[i], 1, &c[i]), 0);
	}
	const double sd[2] = { 0.01, 0.02 };
	struct est_end_in in = { .ncpu = 2, .fluid = run, .before = c, .after = c, .tau_sd_ns = sd, .delta_ns = 20,
				 .use_steal = 1 };
	struct est_end e;
	int bad = -1;
	ck_assert_int_eq(est_end_from(&in, &e, &bad), 0);
	ck_assert_int_eq(e.ncpu, 2);
	double t = 0, off = 0, rob = 0, calib = 0, res = 0;
	for (int i = 0; i < 2; i++) {
		struct est_cpu x;
		ck_assert_int_eq(est_cpu_from(&run[i], &c[i], &c[i], sd[i], 0, 0, 1, &x), 0);
		ck_assert_double_eq_tol(e.cpu_t_put_ns[i], x.t_put_ns, 1e-6);
		ck_assert_double_eq_tol(e.cpu_offcpu_ns[i], x.t_put_offcpu_ns, 1e-6);
		t += x.t_put_ns, off += x.t_put_offcpu_ns, rob += x.t_put_robust_ns, calib += x.calib_ns;
		res += est_res_ns(20, x.l2, 1e8);
	}
	ck_assert_double_eq_tol(e.t_put_ns, t, 1e-6);
	ck_assert_double_eq_tol(e.t_put_offcpu_ns, off, 1e-6);
	ck_assert_double_eq_tol(e.t_put_robust_ns, rob, 1e-6);
	ck_assert_double_eq_tol(e.err_ns[EST_E_CALIB], calib, 1e-6);
	ck_assert_double_eq_tol(e.err_ns[EST_E_RES], res, 1e-6);
	/* CPU 0: 1e8 wall, 5e7 on its CPU by task-clock, 2 % off when alone: 4.8e7 off-CPU for others */
	ck_assert_double_eq_tol(e.cpu_offcpu_ns[0], 1e8 - 5e7 - 0.02e8, 1e-3);
	run[1].loops = 0;
	ck_assert_int_eq(est_end_from(&in, &e, &bad), -EINVAL);
	ck_assert_int_eq(bad, 1);
}
END_TEST

/* steal cannot be negative: a little below 0 is noise (0), far below means a clock billed time wrongly (NAN) */
START_TEST(test_negative_steal_is_never_a_measurement)
{
	struct fluid_report cal = fluid(1e8, 1e8, 90000, 1.0), run = fluid(1e8, 1.3e8, 90000, 1.0);
	cal.task_clock_ns = (struct report_val){ .v = 1e8, .avail = 1 };
	run.task_clock_ns = (struct report_val){ .v = (double)run.cpu_ns, .avail = 1 };
	struct est_cal c;
	struct est_cpu e;
	est_cal_from(&cal, 1, &c);
	/* the PUT's task-clock 0.1 ms below its schedstat: noise */
	est_cpu_from(&run, &c, &c, 0, 1, -1e5, 1, &e);
	ck_assert_double_eq(e.steal_ns, 0);
	ck_assert(isfinite(e.t_put_robust_ns));
	/* 40 ms below (the scheduler billed the PUT for time the fluid had): no steal, no drift-robust estimate */
	est_cpu_from(&run, &c, &c, 0, 1, -4e7, 1, &e);
	ck_assert(isnan(e.steal_ns));
	ck_assert(isnan(e.t_put_robust_ns));
}
END_TEST

/* the PUT alone and its own CPU time: task-clock, else getrusage */
START_TEST(test_alone_and_own_cpu_time)
{
	struct put_report p;
	memset(&p, 0, sizeof p);
	p.ops = 100;
	p.start_ns = 1000;
	p.end_ns = 1000 + 3200000;
	p.utime_ns = (struct report_val){ .v = 1e6, .avail = 1 };
	p.stime_ns = (struct report_val){ .v = 5e5, .avail = 1 };
	struct est_alone a;
	est_alone_from(&p, &a);
	ck_assert_uint_eq(a.ops, 100);
	ck_assert_double_eq(a.wall_ns, 3.2e6);
	ck_assert_double_eq(a.cpu_ns, 1.5e6);
	ck_assert(!a.by_task_clock);
	p.task_clock_ns = (struct report_val){ .v = 1.4e6, .avail = 1 };
	est_alone_from(&p, &a);
	ck_assert_double_eq(a.cpu_ns, 1.4e6);
	ck_assert(a.by_task_clock);
	/* getrusage kept beside it, for a co-run whose counter failed */
	ck_assert_double_eq(a.getrusage_ns, 1.5e6);
	struct est_run r;
	memset(&r, 0, sizeof r);
	r.os_ns[SRC_TASK_CLOCK] = NAN;
	r.os_ns[SRC_GETRUSAGE] = 7;
	ck_assert_double_eq(est_run_cpu_ns(&r), 7);
	r.os_ns[SRC_TASK_CLOCK] = 5;
	ck_assert_double_eq(est_run_cpu_ns(&r), 5);
}
END_TEST

Suite *estimate_suite(void)
{
	Suite *s = suite_create("estimate");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_woodside_steps_one_and_two);
	tcase_add_test(tc, test_woodside_daemons_error);
	tcase_add_test(tc, test_woodside_clock_resolution_bound);
	tcase_add_test(tc, test_pair_removes_the_startup_cost);
	tcase_add_test(tc, test_bracketing_calibrations);
	tcase_add_test(tc, test_drift_robust_takes_the_runs_own_speed);
	tcase_add_test(tc, test_steal_is_taken_out_of_both_steps);
	tcase_add_test(tc, test_cache_reload_beyond_the_calibrations_rate);
	tcase_add_test(tc, test_run_from_reports);
	tcase_add_test(tc, test_pct_diff_and_source_names);
	tcase_add_test(tc, test_off_cpu_is_the_time_the_fluid_was_switched_out);
	tcase_add_test(tc, test_off_cpu_leaves_out_the_idle_time_of_a_cpu_limit);
	tcase_add_test(tc, test_negative_steal_is_never_a_measurement);
	tcase_add_test(tc, test_alone_and_own_cpu_time);
	tcase_add_test(tc, test_end_sums_each_cpu_as_a_cpu_without_the_put);
	tcase_add_test(tc, test_traced_others_are_cut_out_of_both_steps);
	suite_add_tcase(s, tc);
	return s;
}
