/* out_json.c - a measurement's result for programs (see README.md for the keys) */
#include "coordinator/out_json.h"
#include "coordinator/jsonout.h"

#include <math.h>
#include <string.h>

static json_t *summary_json(const struct stats_summary *s, double scale)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:I}", "mean", jout_num(s->mean / scale), "ci95",
			 jout_num(s->ci_half / scale), "sd", jout_num(s->sd / scale), "min", jout_num(s->min / scale),
			 "max", jout_num(s->max / scale), "n", (json_int_t)s->n);
}

/* the other end: the peer host's fluid CPUs, their cost with its CI, per CPU, and its error terms; null without */
static json_t *remote_json(const struct summary *s, const struct seq_opts *so)
{
	char cpus[256];
	if (!s->nremote || !so->remote)
		return json_null();
	cli_format_cpulist(&so->remote->cpus, cpus, sizeof cpus);
	json_t *per = json_array();
	for (int i = 0; i < s->nremote; i++)
		json_array_append_new(per, json_pack("{s:i, s:o}", "cpu", s->remote_cpu_id[i], "displacement_us",
						     jout_num(s->remote_cpu_tau_ns[i] / 1e3)));
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o}}", "peer", so->remote->name, "cpus",
			 cpus, "displacement_us", summary_json(&s->remote, 1e3), "us_per_kb",
			 jout_num(s->remote.mean / (s->bytes_per_op / 1000) / 1e3), "per_cpu", per, "errors_us",
			 "statistical", jout_num(s->remote.ci_half / 1e3), "res", jout_num(s->remote_err_ns[EST_E_RES] / 1e3),
			 "drift", jout_num(s->remote_err_ns[EST_E_DRIFT] / 1e3), "calib",
			 jout_num(s->remote_err_ns[EST_E_CALIB] / 1e3), "cache", jout_num(s->remote_err_ns[EST_E_CACHE] / 1e3),
			 "backgr", jout_num(s->remote_err_ns[EST_E_BG] / 1e3));
}

json_t *out_json(const struct summary *s, const struct seq_opts *so, const struct series *ser)
{
	json_t *o = json_object();
	char args[512], cpus[256];
	series_args_text(ser, args, sizeof args);
	cli_format_cpulist(&so->cpus, cpus, sizeof cpus);
	json_object_set_new(o, "workload", json_string(ser->w->name));
	json_object_set_new(o, "args", json_string(args));
	if (ser->size_bytes)
		json_object_set_new(o, "size_bytes", json_integer((json_int_t)ser->size_bytes));
	json_object_set_new(o, "ops", json_integer((json_int_t)s->ops));
	json_object_set_new(o, "reps", json_integer((json_int_t)ser->nruns));
	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "fitted", json_boolean(s->fitted));
	json_object_set_new(o, "outliers", json_integer((json_int_t)s->outliers));
	json_object_set_new(o, "cost_moved",
			    s->moved_above + s->moved_below
				    ? json_pack("{s:I, s:o, s:I, s:o, s:o}", "above", (json_int_t)s->moved_above,
						"above_us", jout_num(s->moved_above_ns / 1e3), "below",
						(json_int_t)s->moved_below, "below_us", jout_num(s->moved_below_ns / 1e3),
						"others_us", jout_num(s->unmoved_ns / 1e3))
				    : json_null());
	json_object_set_new(o, "cpu", json_integer(so->cpu));
	json_object_set_new(o, "fluid_cpus", json_string(cpus));
	json_object_set_new(o, "estimator", json_string(sum_estimator_key(s->estimator)));
	json_t *tau = json_object();
	json_object_set_new(tau, "displacement", jout_num(s->tau.mean / 1e3));
	for (int k = 0; k < SUM_NEST; k++)
		json_object_set_new(tau, sum_estimator_key((enum sum_estimator)k), jout_num(s->est[k].mean / 1e3));
	for (int k = 0; k < EST_NSRC; k++)
		json_object_set_new(tau, est_src_key((enum est_src)k), jout_num(s->os[k].mean / 1e3));
	json_object_set_new(tau, "peer", s->peer.n ? jout_num(s->peer.mean / 1e3) : json_null());
	json_object_set_new(o, "tau_put_us", tau);
	json_object_set_new(o, "put_plus_peer_pct", s->peer.n ? summary_json(&s->put_peer_pct, 1) : json_null());
	json_object_set_new(o, "ci95_us", jout_num(s->tau.ci_half / 1e3));
	json_object_set_new(o, "ci95_robust_us", jout_num(s->est[SUM_ROBUST].ci_half / 1e3));
	json_object_set_new(o, "ci95_batches_us", jout_num(s->tau_batch_half_ns / 1e3));
	json_t *bm = isfinite(s->tau_batch_means_ns[0]) ? json_array() : json_null();
	for (int b = 0; json_is_array(bm) && b < SUM_BATCHES; b++)
		json_array_append_new(bm, jout_num(s->tau_batch_means_ns[b] / 1e3));
	json_object_set_new(o, "batch_means_us", bm);
	json_object_set_new(o, "batch_variance_ratio", jout_num(s->tau_batch_f));
	json_object_set_new(o, "spells_p", jout_num(s->tau_batch_p));
	json_object_set_new(o, "spells", json_boolean(s->spells));
	json_object_set_new(o, "displacement_us", summary_json(&s->tau, 1e3));
	for (int k = 0; k < SUM_NEST; k++) {
		char key[32];
		snprintf(key, sizeof key, "%s_us", sum_estimator_key((enum sum_estimator)k));
		json_object_set_new(o, key, summary_json(&s->est[k], 1e3));
	}
	json_object_set_new(o, "held_us", summary_json(&s->held, 1e3));
	json_object_set_new(o, "normalised_us", summary_json(&s->norm, 1e3));
	json_object_set_new(o, "tau0_ref_ns", jout_num(s->tau0_ref_ns));
	/* the store's reference is the same for every measurement of this CPU until the next calibrate; the first calibration's is this one's only */
	json_object_set_new(o, "tau0_ref_from", !isfinite(s->norm.mean) ? json_null()
					      : json_string(s->tau0_ref_saved ? "store" : "first_calibration"));
	json_object_set_new(o, "these_ops_us", summary_json(&s->these, 1e3));
	/*
	 * "task_clock", "getrusage_rebilled" (less what the scheduler billed it
	 * of the fluid's time) or "getrusage"; "+peer" when the local peer runs
	 * on a fluid CPU
	 */
	char acct[40];
	snprintf(acct, sizeof acct, "%s%s%s", est_src_key(s->these_src), s->these_rebilled ? "_rebilled" : "",
		 s->these_peer ? "+peer" : "");
	json_object_set_new(o, "these_ops_account", isfinite(s->these.mean) ? json_string(acct) : json_null());
	json_object_set_new(o, "these_ops_account_cv_pct", jout_num(100 * s->these_os_cv));
	json_object_set_new(o, "these_ops_background_us", jout_num(s->these_bg_ns / 1e3));
	json_object_set_new(o, "these_ops_unbilled_us", jout_num(s->these_unbilled_ns / 1e3));
	/* with a simulated slow clock: the same estimate of the same runs by the real clock */
	if (so->sim_res_ns > 1)
		json_object_set_new(o, "real_clock_us", summary_json(&s->tau_raw, 1e3));
	json_t *pct = json_object();
	for (int k = 0; k < EST_NSRC; k++)
		json_object_set_new(pct, est_src_key((enum est_src)k), summary_json(&s->pct[k], 1));
	json_object_set_new(o, "pct_vs_displacement", pct);
	json_t *pctr = json_object();
	for (int k = 0; k < EST_NSRC; k++)
		json_object_set_new(pctr, est_src_key((enum est_src)k), summary_json(&s->pct_robust[k], 1));
	json_object_set_new(o, "pct_vs_drift_robust", pctr);
	json_object_set_new(o, "startup_us", jout_num(s->startup_ns / 1e3));
	json_object_set_new(o, "startup_why", s->startup_why[0] ? json_string(s->startup_why) : json_null());
	json_t *err = json_object();
	json_object_set_new(err, "statistical", jout_num((s->tau.ci_half - s->tau_bound_ns) / 1e3));
	json_object_set_new(err, "res", jout_num(s->e_res_ns / 1e3));
	json_object_set_new(err, "trace", jout_num(s->trace_bound_ns / 1e3));
	json_object_set_new(err, "start", jout_num(s->e_start_ns / 1e3));
	json_object_set_new(err, "drift", jout_num(s->e_drift_ns / 1e3));
	json_object_set_new(err, "calib", jout_num(s->e_calib_ns / 1e3));
	json_object_set_new(err, "cache", jout_num(s->e_cache_ns / 1e3));
	json_object_set_new(o, "errors_us", err);
	json_object_set_new(o, "clock_resolution_ns", jout_num(so->delta_ns));
	json_object_set_new(o, "tau_f_ns", jout_num(s->tau_f_ns));
	json_object_set_new(o, "tau0_ns", jout_num(s->tau0_ns));
	/* a CPU shared with other tasks (sum_shared_cpu): their share, and how low the result can be for it */
	json_object_set_new(o, "others_cpu_pct", jout_num(100 * s->others_share));
	json_object_set_new(o, "idle_cpu_pct", jout_num(100 * s->idle_share));
	/* --trace-others: other tasks' share of the co-runs and calibrations, taken out; what the trace could not name */
	json_object_set_new(o, "traced_others",
			    isfinite(s->traced_share)
				    ? json_pack("{s:o, s:o, s:o, s:o}", "corun_pct", jout_num(100 * s->traced_share),
						"calibration_pct", jout_num(100 * s->traced_cal_share), "unknown_pct",
						jout_num(100 * s->unknown_share), "switches_per_op",
						jout_num(s->traced_switches_per_op))
				    : json_null());
	json_object_set_new(o, "other_cpu_busy", s->other_cpu < 0 ? json_null()
				 : json_pack("{s:i, s:o}", "cpu", s->other_cpu, "busy_pct", jout_num(100 * s->other_cpu_busy)));
	json_object_set_new(o, "shared_cpu_bound_us", sum_shared_cpu(s) ? jout_num(s->e_shared_ns / 1e3) : json_null());
	/* the part of ci95_us that is that bound (a shared CPU, or no free CPU for the others), 0 when none */
	json_object_set_new(o, "ci95_bound_us", jout_num(s->tau_bound_ns / 1e3));
	json_object_set_new(o, "put_wall_per_op_us", jout_num(s->put_wall_per_op_ns / 1e3));
	json_t *cpu = json_array();
	for (int i = 0; i < s->ncpu; i++)
		json_array_append_new(cpu, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "cpu", s->cpu_id[i],
						     "displacement_us", jout_num(s->cpu_tau_ns[i] / 1e3), "net_rx_per_op",
						     jout_num(s->net_rx_per_op[i]), "net_tx_per_op",
						     jout_num(s->net_tx_per_op[i]), "ipi_per_op", jout_num(s->ipi_per_op[i]),
						     "dev_irq_per_op", jout_num(s->dev_irq_per_op[i])));
	const struct sum_perturb *p = &s->perturb;
	json_object_set_new(o, "perturbation",
			    p->n ? json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)p->n,
					     "wall_alone_us", summary_json(&p->wall_alone, 1e3), "wall_corun_us",
					     summary_json(&p->wall_corun, 1e3), "wall_change_pct",
					     summary_json(&p->wall_change, 1), "cpu_alone_us",
					     summary_json(&p->cpu_alone, 1e3), "cpu_corun_us", summary_json(&p->cpu_corun, 1e3),
					     "cpu_change_pct", summary_json(&p->cpu_change, 1))
				 : json_null());
	if (p->n) {
		json_t *po = json_object_get(o, "perturbation");
		json_object_set_new(po, "cpu_by", json_string(p->by_task_clock ? "task_clock" : "getrusage"));
		json_object_set_new(po, "cpu_hold_us", jout_num(p->by_task_clock ? NAN : p->hold_ns / 1e3));
		json_object_set_new(po, "cpu_compared", json_boolean(p->cpu_compared));
		if (!p->cpu_compared)
			json_object_set_new(po, "cpu_change_pct", json_null());
	}
	json_t *cons = json_object();
	for (int k = 0; k < EST_NSRC; k++) {
		if (k == SRC_PROCSTAT)
			continue;
		json_object_set_new(cons, est_src_key((enum est_src)k),
				    json_pack("{s:o, s:o, s:b}", "runs_over_pct", jout_num(100 * s->clock_lie_frac[k]),
					      "excess_us", jout_num(s->clock_excess_ns[k] / 1e3), "broken",
					      sum_clock_lies(s, k)));
	}
	json_object_set_new(cons, "fluid_scheduler_time",
			    json_pack("{s:o, s:o}", "runs_short_pct", jout_num(100 * s->fluid_underbilled_frac),
				      "short_us", jout_num(s->fluid_underbilled_ns / 1e3)));
	json_object_set_new(o, "consistency", cons);
	json_object_set_new(o, "per_cpu", cpu);
	json_object_set_new(o, "flows", json_integer(so->flows > 1 ? so->flows : 1));
	json_object_set_new(o, "bytes_per_op", jout_num(s->bytes_per_op));
	json_object_set_new(o, "us_per_kb", jout_num(s->tau.mean / (s->bytes_per_op / 1000) / 1e3));
	json_object_set_new(o, "remote", remote_json(s, so));
	json_object_set_new(o, "total_us", s->nremote ? summary_json(&s->total, 1e3) : json_null());
	if (s->cmd_status >= 0 && (ser->w->flags & PUT_COMMAND))
		json_object_set_new(o, "cmd_status", json_integer(s->cmd_status));
	json_t *runs = json_array();
	for (size_t i = 0; i < ser->nruns; i++) {
		const struct est_run *r = &ser->runs[i];
		json_t *jr = json_object();
		json_object_set_new(jr, "ops", json_integer((json_int_t)r->ops));
		json_object_set_new(jr, "order", json_integer((json_int_t)(r->order ? r->order : i + 1)));
		json_object_set_new(jr, "t_put_ns", jout_num(r->t_put_ns));
		json_object_set_new(jr, "t_put_robust_ns", jout_num(r->t_put_robust_ns));
		json_object_set_new(jr, "t_put_off_cpu_ns", jout_num(r->t_put_offcpu_ns));
		json_object_set_new(jr, "fluid_task_clock_ns", jout_num(r->fluid_tc_ns));
		json_object_set_new(jr, "fluid_cpu_ns", jout_num(r->fluid_cpu_ns));
		if (so->sim_res_ns > 1) {
			json_object_set_new(jr, "t_put_real_clock_ns", jout_num(r->t_put_raw_ns));
			json_object_set_new(jr, "t_f2_real_clock_ns", jout_num(r->t2_raw_ns));
		}
		for (int k = 0; k < EST_NSRC; k++) {
			char key[32];
			snprintf(key, sizeof key, "%s_ns", est_src_key((enum est_src)k));
			json_object_set_new(jr, key, jout_num(r->os_ns[k]));
		}
		json_object_set_new(jr, "t_f2_ns", jout_num(r->t2_ns));
		json_object_set_new(jr, "l_f2", jout_num(r->l2));
		json_object_set_new(jr, "tau_f_ns", jout_num(r->tau_f_ns));
		json_object_set_new(jr, "tau0_ns", jout_num(r->tau0_ns));
		json_object_set_new(jr, "steal_ns", jout_num(r->steal_ns));
		/* b on the PUT's CPU, and e_backgr: what the brackets can be off by, over the fluid CPUs */
		json_object_set_new(jr, "others_share", jout_num(r->others_share));
		json_object_set_new(jr, "traced_others_ns", jout_num(r->traced_ns));
		json_object_set_new(jr, "traced_unknown_ns", jout_num(r->unknown_ns));
		json_object_set_new(jr, "e_backgr_ns", jout_num(r->bg_ns));
		json_object_set_new(jr, "peer_ns", jout_num(r->peer_ns));
		json_object_set_new(jr, "bytes", jout_num(r->bytes));
		/* the PUT's context switches (getrusage): each one pays perf's hooks when it has a task-clock */
		json_object_set_new(jr, "put_nvcsw", json_integer(r->nvcsw));
		json_object_set_new(jr, "put_nivcsw", json_integer(r->nivcsw));
		if (r->remote.ncpu) {
			json_object_set_new(jr, "remote_t_put_ns", jout_num(r->remote.t_put_ns));
			json_object_set_new(jr, "remote_t_put_off_cpu_ns", jout_num(r->remote.t_put_offcpu_ns));
			json_object_set_new(jr, "remote_t_put_robust_ns", jout_num(r->remote.t_put_robust_ns));
		}
		json_object_set_new(jr, "outlier", json_boolean(r->outlier));
		json_array_append_new(runs, jr);
	}
	json_object_set_new(o, "runs", runs);
	return o;
}

