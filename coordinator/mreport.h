/* mreport.h - a measurement's result for people (text), programs (JSON) and files (CSV) */
#ifndef MREPORT_H
#define MREPORT_H

#include "coordinator/context.h"
#include "coordinator/csvout.h"
#include "coordinator/measure.h"

#include <jansson.h>
#include <stdio.h>

/*
 * The CSV header of measure, sweep and predict results. kind is "run" (one
 * co-run: tau = T_PUT / ops, start-up included) or "summary" (the fitted
 * cost with its CI and error budget). Documented in README.md.
 */
#define MREPORT_CSV_HEADER                                                                                        \
	"kind,date,command,workload,args,size_bytes,cpu,fluid_cpus,ops,run,tau_us,tau_robust_us,getrusage_us,"   \
	"task_clock_us,schedstat_us,procstat_us,ci95_us,n,outliers,startup_us,e_res_us,e_start_us,e_drift_us,"   \
	"e_calib_us,e_cache_us,tau_f_ns,tau0_ns,t_f2_ns,l_f2,t_put_ns"

/* mreport_print - the human block: tau_PUT ± CI, the error budget, the OS table */
void mreport_print(FILE *f, const struct meas_summary *s, const struct meas_ctx *mc, const struct context *ctx);
/* mreport_os_table - only the OS-accounting table */
void mreport_os_table(FILE *f, const struct meas_summary *s, const struct meas_ctx *mc, const struct context *ctx);
/* mreport_json - the result as a JSON object (see README.md for the keys) */
json_t *mreport_json(const struct meas_summary *s, const struct meas_ctx *mc, const struct meas_series *ser);
/* mreport_csv_run - the row of run i of a series */
int mreport_csv_run(struct csvout *c, const char *command, const struct meas_ctx *mc, const struct meas_series *s,
		    size_t i);
/* mreport_csv_summary - the summary row of a series */
int mreport_csv_summary(struct csvout *c, const char *command, const struct meas_ctx *mc, const struct meas_series *s,
			const struct meas_summary *sum);
/* mreport_misses - one line on what an OS source misses on this kernel */
const char *mreport_misses(enum meas_src src, const struct context *ctx, int cpu, char *buf, size_t len);
/* mreport_args_text - the workload's arguments as one string */
void mreport_args_text(const struct meas_series *s, char *buf, size_t len);

#endif
