/* out_csv.h - a measurement's rows for files: one per run, and a summary (header in README.md) */
#ifndef OUT_CSV_H
#define OUT_CSV_H

#include "calib/summary.h"
#include "coordinator/csvout.h"
#include "coordinator/sequence.h"
#include "coordinator/series.h"

/*
 * The CSV header of measure, sweep and predict results. kind is "run" (one
 * co-run: tau = T_PUT / ops, start-up included) or "summary" (the fitted
 * cost with its CI and error budget). Documented in README.md.
 */
#define OUT_CSV_HEADER                                                                                            \
	"kind,date,command,workload,args,size_bytes,cpu,fluid_cpus,ops,run,tau_us,tau_robust_us,getrusage_us,"   \
	"task_clock_us,schedstat_us,procstat_us,ci95_us,n,outliers,startup_us,e_res_us,e_start_us,e_drift_us,"   \
	"e_calib_us,e_cache_us,tau_f_ns,tau0_ns,t_f2_ns,l_f2,t_put_ns,estimator,tau_classic_us,tau_off_cpu_us,"    \
	"held_us,ipi_per_op,dev_irq_per_op,wall_alone_us,wall_corun_us,wall_change_pct,cpu_alone_us,cpu_corun_us,"   \
	"cpu_change_pct,cpu_change_ci95_pct,tau_norm_us,tau_norm_ci95_us,flows,bytes_per_op,us_per_kb,remote_cpus,"  \
	"remote_us,remote_ci95_us,total_us,total_ci95_us,per_cpu_us,remote_per_cpu_us,these_ci95_us"

/* out_csv_run - the row of run i of a series */
int out_csv_run(struct csvout *c, const char *command, const struct seq_opts *o, const struct series *s, size_t i);
/* out_csv_summary - the summary row of a series */
int out_csv_summary(struct csvout *c, const char *command, const struct seq_opts *o, const struct series *s,
		    const struct summary *sum);

#endif
