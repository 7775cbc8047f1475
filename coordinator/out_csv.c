/* out_csv.c - a measurement's rows for files: one per run, and a summary */
#include "coordinator/out_csv.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define NCOL 56
/* the columns that can be long: the arguments, and each end's CPUs with their cost */
#define COL_ARGS 4
#define COL_PER_CPU 53
#define COL_REMOTE_PER_CPU 54

/* one row: cols, with the long columns' text apart */
static int write_row(struct csvout *c, char cols[NCOL][64], const char *args, const char *per_cpu,
		     const char *remote_per_cpu)
{
	const char *f[NCOL];
	for (int i = 0; i < NCOL; i++)
		f[i] = cols[i];
	f[COL_ARGS] = args;
	f[COL_PER_CPU] = per_cpu;
	f[COL_REMOTE_PER_CPU] = remote_per_cpu;
	return csvout_row(c, f, NCOL);
}

/* "CPU:us CPU:us ...", the cost per op on each CPU of one end */
static void cpu_costs(char *buf, size_t len, int n, const int *cpu, const double *ns, double per)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && used + 1 < len; i++) {
		char v[40];
		csvout_num(v, sizeof v, ns[i] / per / 1e3, 6);
		int w = snprintf(buf + used, len - used, "%s%d:%s", i ? " " : "", cpu[i], v);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* the flows and the bytes per op, and the other end's CPUs: the same in every row of a series */
static void both_ends_cols(char cols[NCOL][64], const struct seq_opts *o, double bytes_per_op)
{
	snprintf(cols[45], 64, "%d", o->flows > 1 ? o->flows : 1);
	csvout_num(cols[46], 64, bytes_per_op, 1);
	if (o->remote)
		cli_format_cpulist(&o->remote->cpus, cols[48], 64);
}

static void common_cols(char cols[NCOL][64], const char *kind, const char *command, const struct seq_opts *o,
			const struct series *s)
{
	char cpus[64];
	memset(cols, 0, NCOL * 64);
	snprintf(cols[0], 64, "%s", kind);
	csvout_date(cols[1], 64);
	snprintf(cols[2], 64, "%s", command);
	snprintf(cols[3], 64, "%s", s->w->name);
	if (s->size_bytes)
		snprintf(cols[5], 64, "%" PRIu64, s->size_bytes);
	snprintf(cols[6], 64, "%d", o->cpu);
	cli_format_cpulist(&o->cpus, cpus, sizeof cpus);
	snprintf(cols[7], 64, "%s", cpus);
}

int out_csv_run(struct csvout *c, const char *command, const struct seq_opts *o, const struct series *s,
		    size_t i)
{
	char cols[NCOL][64], args[512];
	const struct est_run *r = &s->runs[i];
	double l = (double)r->ops;
	common_cols(cols, "run", command, o, s);
	series_args_text(s, args, sizeof args);
	snprintf(cols[8], 64, "%" PRIu64, r->ops);
	snprintf(cols[9], 64, "%zu", r->order ? r->order : i + 1);
	if (l > 0) {
		enum sum_estimator e = o->estimator;
		csvout_num(cols[10], 64, (e == SUM_OFFCPU && isfinite(r->t_put_offcpu_ns) ? r->t_put_offcpu_ns : r->t_put_ns) / l / 1e3, 6);
		csvout_num(cols[31], 64, r->t_put_ns / l / 1e3, 6);
		csvout_num(cols[32], 64, r->t_put_offcpu_ns / l / 1e3, 6);
		csvout_num(cols[33], 64, (r->t_put_ns - r->t_put_offcpu_ns) / l / 1e3, 6);
		int at = 0;
		while (at < o->cpus.n && o->cpus.cpu[at] != o->cpu)
			at++;
		csvout_num(cols[34], 64, at < o->cpus.n ? r->ipi[at] / l : NAN, 4);
		csvout_num(cols[35], 64, at < o->cpus.n ? r->dev_irq[at] / l : NAN, 4);
		csvout_num(cols[37], 64, r->put_wall_ns / l / 1e3, 6);
		csvout_num(cols[40], 64, est_run_cpu_ns(r) / l / 1e3, 6);
		csvout_num(cols[11], 64, r->t_put_robust_ns / l / 1e3, 6);
		for (int k = 0; k < EST_NSRC; k++)
			csvout_num(cols[12 + k], 64, r->os_ns[k] / l / 1e3, 6);
		csvout_num(cols[20], 64, r->res_ns / l / 1e3, 6);
		csvout_num(cols[22], 64, r->drift_ns / l / 1e3, 6);
		csvout_num(cols[23], 64, r->calib_ns / l / 1e3, 6);
		csvout_num(cols[24], 64, r->cache_ns / l / 1e3, 6);
	}
	csvout_num(cols[25], 64, r->tau_f_ns, 6);
	csvout_num(cols[26], 64, r->tau0_ns, 6);
	csvout_num(cols[27], 64, r->t2_ns, 0);
	csvout_num(cols[28], 64, r->l2, 0);
	csvout_num(cols[29], 64, r->t_put_ns, 0);
	int off = isfinite(r->t_put_offcpu_ns) && o->estimator == SUM_OFFCPU;
	snprintf(cols[30], 64, "%s", sum_estimator_key(isfinite(r->t_put_offcpu_ns) ? o->estimator : SUM_CLASSIC));
	/* both ends, by the estimator of tau_us; per op of this run, start-up included */
	char per_cpu[2048] = "", remote_per_cpu[2048] = "";
	both_ends_cols(cols, o, r->ops ? r->bytes / l : NAN);
	if (l > 0) {
		double tau = off ? r->t_put_offcpu_ns : r->t_put_ns;
		csvout_num(cols[47], 64, r->bytes > 0 ? tau / (r->bytes / 1000) / 1e3 : NAN, 6);
		cpu_costs(per_cpu, sizeof per_cpu, o->cpus.n, o->cpus.cpu, off ? r->cpu_offcpu_ns : r->cpu_t_put_ns, l);
		if (r->remote.ncpu && o->remote) {
			double rem = off ? r->remote.t_put_offcpu_ns : r->remote.t_put_ns;
			csvout_num(cols[49], 64, rem / l / 1e3, 6);
			csvout_num(cols[51], 64, (tau + rem) / l / 1e3, 6);
			cpu_costs(remote_per_cpu, sizeof remote_per_cpu, r->remote.ncpu, o->remote->cpus.cpu,
				  off ? r->remote.cpu_offcpu_ns : r->remote.cpu_t_put_ns, l);
		}
	}
	return write_row(c, cols, args, per_cpu, remote_per_cpu);
}

int out_csv_summary(struct csvout *c, const char *command, const struct seq_opts *o, const struct series *s,
			const struct summary *sum)
{
	char cols[NCOL][64], args[512];
	common_cols(cols, "summary", command, o, s);
	series_args_text(s, args, sizeof args);
	snprintf(cols[8], 64, "%" PRIu64, sum->ops);
	csvout_num(cols[10], 64, sum->tau.mean / 1e3, 6);
	csvout_num(cols[11], 64, sum->est[SUM_ROBUST].mean / 1e3, 6);
	for (int k = 0; k < EST_NSRC; k++)
		csvout_num(cols[12 + k], 64, sum->os[k].mean / 1e3, 6);
	csvout_num(cols[16], 64, sum->tau.ci_half / 1e3, 6);
	snprintf(cols[17], 64, "%zu", sum->n);
	snprintf(cols[18], 64, "%zu", sum->outliers);
	csvout_num(cols[19], 64, sum->startup_ns / 1e3, 6);
	csvout_num(cols[20], 64, sum->e_res_ns / 1e3, 6);
	csvout_num(cols[21], 64, sum->e_start_ns / 1e3, 6);
	csvout_num(cols[22], 64, sum->e_drift_ns / 1e3, 6);
	csvout_num(cols[23], 64, sum->e_calib_ns / 1e3, 6);
	csvout_num(cols[24], 64, sum->e_cache_ns / 1e3, 6);
	csvout_num(cols[25], 64, sum->tau_f_ns, 6);
	csvout_num(cols[26], 64, sum->tau0_ns, 6);
	snprintf(cols[30], 64, "%s", sum_estimator_key(sum->estimator));
	csvout_num(cols[31], 64, sum->est[SUM_CLASSIC].mean / 1e3, 6);
	csvout_num(cols[32], 64, sum->est[SUM_OFFCPU].mean / 1e3, 6);
	csvout_num(cols[33], 64, sum->held.mean / 1e3, 6);
	int i = 0;
	while (i < sum->ncpu && sum->cpu_id[i] != o->cpu)
		i++;
	csvout_num(cols[34], 64, i < sum->ncpu ? sum->ipi_per_op[i] : NAN, 4);
	csvout_num(cols[35], 64, i < sum->ncpu ? sum->dev_irq_per_op[i] : NAN, 4);
	const struct sum_perturb *p = &sum->perturb;
	double v[] = { p->wall_alone.mean / 1e3, p->wall_corun.mean / 1e3, p->wall_change.mean, p->cpu_alone.mean / 1e3,
		       p->cpu_corun.mean / 1e3, p->cpu_change.mean, p->cpu_change.ci_half };
	for (int k = 0; k < 7; k++)
		csvout_num(cols[36 + k], 64, p->n && (k < 5 || p->cpu_compared) ? v[k] : NAN, 4);
	csvout_num(cols[43], 64, sum->norm.mean / 1e3, 6);
	csvout_num(cols[44], 64, sum->norm.ci_half / 1e3, 6);
	char per_cpu[2048] = "", remote_per_cpu[2048] = "";
	both_ends_cols(cols, o, sum->bytes_per_op);
	csvout_num(cols[47], 64, sum->bytes_per_op > 0 ? sum->tau.mean / (sum->bytes_per_op / 1000) / 1e3 : NAN, 6);
	cpu_costs(per_cpu, sizeof per_cpu, sum->ncpu, sum->cpu_id, sum->cpu_tau_ns, 1);
	if (sum->nremote) {
		csvout_num(cols[49], 64, sum->remote.mean / 1e3, 6);
		csvout_num(cols[50], 64, sum->remote.ci_half / 1e3, 6);
		csvout_num(cols[51], 64, sum->total.mean / 1e3, 6);
		csvout_num(cols[52], 64, sum->total.ci_half / 1e3, 6);
		cpu_costs(remote_per_cpu, sizeof remote_per_cpu, sum->nremote, sum->remote_cpu_id, sum->remote_cpu_tau_ns, 1);
	}
	csvout_num(cols[55], 64, sum->these.ci_half / 1e3, 6);
	return write_row(c, cols, args, per_cpu, remote_per_cpu);
}
