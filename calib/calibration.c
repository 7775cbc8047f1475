/* calibration.c - the calibration store and the quiet-host verdict */
#include "calib/calibration.h"
#include "calib/csvio.h"
#include "common/vec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct load_ctx {
	struct calib_store *st;
	char *err;
	size_t errlen;
};

static int parse_double_field(const char *s, double *v)
{
	char *e;
	if (!*s)
		return -1;
	*v = strtod(s, &e);
	return *e || !isfinite(*v) ? -1 : 0;
}

static int copy_field(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

static int load_row(const struct csvio_row *row, void *vctx)
{
	struct load_ctx *ctx = vctx;
	if (row->index == 0) {
		/* the header must be ours: a different one is another file or version */
		char hdr[512] = "";
		for (size_t i = 0; i < row->n; i++) {
			strncat(hdr, i ? "," : "", sizeof hdr - strlen(hdr) - 1);
			strncat(hdr, row->field[i], sizeof hdr - strlen(hdr) - 1);
		}
		if (strcmp(hdr, CALIB_STORE_HEADER)) {
			snprintf(ctx->err, ctx->errlen, "unexpected header (not a displace calibration store?)");
			return -EBADMSG;
		}
		return 0;
	}
	if (row->n != CALIB_STORE_FIELDS) {
		snprintf(ctx->err, ctx->errlen, "%zu fields, expected %d", row->n, CALIB_STORE_FIELDS);
		return -EBADMSG;
	}
	struct calib_row r;
	memset(&r, 0, sizeof r);
	char **f = row->field;
	double cpu, reps, quiet;
	const char *bad = NULL;
	if (copy_field(r.host, sizeof r.host, f[0]) || copy_field(r.kernel, sizeof r.kernel, f[1]) ||
	    copy_field(r.cpu_model, sizeof r.cpu_model, f[2]) || copy_field(r.variant, sizeof r.variant, f[4]) ||
	    copy_field(r.sched, sizeof r.sched, f[5]) || copy_field(r.verdict, sizeof r.verdict, f[13]) ||
	    copy_field(r.date, sizeof r.date, f[14]))
		bad = "a text field is too long";
	else if (parse_double_field(f[3], &cpu) || cpu < 0 || cpu != floor(cpu))
		bad = "bad cpu";
	else if (parse_double_field(f[6], &r.tau_f_ns) || r.tau_f_ns <= 0)
		bad = "bad tau_f_ns";
	else if (parse_double_field(f[7], &r.ci95_ns) || r.ci95_ns < 0)
		bad = "bad ci95_ns";
	else if (parse_double_field(f[8], &r.cv) || r.cv < 0)
		bad = "bad cv";
	else if (parse_double_field(f[9], &r.tau0_ns) || r.tau0_ns <= 0)
		bad = "bad tau0_ns";
	else if (parse_double_field(f[10], &reps) || reps < 1 || reps != floor(reps))
		bad = "bad reps";
	else if (parse_double_field(f[11], &r.seconds) || r.seconds <= 0)
		bad = "bad seconds";
	else if (parse_double_field(f[12], &quiet) || (quiet != 0 && quiet != 1))
		bad = "bad quiet (0 or 1)";
	if (bad) {
		snprintf(ctx->err, ctx->errlen, "%s", bad);
		return -EBADMSG;
	}
	r.cpu = (int)cpu;
	r.reps = (unsigned)reps;
	r.quiet = (int)quiet;
	return calib_store_put(ctx->st, &r);
}

int calib_store_load(const char *path, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen)
{
	struct load_ctx ctx = { st, err, errlen };
	st->rows = NULL;
	st->n = 0;
	*err_line = 0;
	err[0] = '\0';
	int rc = csvio_read(path, load_row, &ctx, err_line);
	if (rc == -ENOENT)
		return 0;
	if (rc == -EBADMSG && !err[0])
		snprintf(err, errlen, "malformed CSV");
	if (rc)
		calib_store_free(st);
	return rc;
}

static int mkdirs(const char *dir)
{
	char buf[4096];
	if (strlen(dir) >= sizeof buf)
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

int calib_store_save(const char *path, const struct calib_store *st)
{
	char dir[4096], tmp[4096 + 16];
	if (strlen(path) >= sizeof dir)
		return -ENAMETOOLONG;
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		int rc = mkdirs(dir);
		if (rc)
			return rc;
	}
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	/* mkstemp makes it 0600; the store is as readable as any file the user makes */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return -e;
	}
	int rc = fputs(CALIB_STORE_HEADER "\n", f) == EOF ? -EIO : 0;
	for (size_t i = 0; !rc && i < st->n; i++) {
		const struct calib_row *r = &st->rows[i];
		char cpu[16], tau[32], ci[32], cv[32], tau0[32], reps[16], secs[32], quiet[4];
		fmt(cpu, sizeof cpu, "%d", r->cpu);
		fmt(tau, sizeof tau, "%.6f", r->tau_f_ns);
		fmt(ci, sizeof ci, "%.6f", r->ci95_ns);
		fmt(cv, sizeof cv, "%.6f", r->cv);
		fmt(tau0, sizeof tau0, "%.6f", r->tau0_ns);
		fmt(reps, sizeof reps, "%u", r->reps);
		fmt(secs, sizeof secs, "%.4f", r->seconds);
		fmt(quiet, sizeof quiet, "%d", r->quiet ? 1 : 0);
		const char *fields[CALIB_STORE_FIELDS] = { r->host, r->kernel, r->cpu_model, cpu,  r->variant,
							   r->sched, tau,	  ci,	     cv,   tau0,
							   reps,     secs,	  quiet,     r->verdict, r->date };
		rc = csvio_write_row(f, fields, CALIB_STORE_FIELDS);
	}
	if (!rc && fsync(fileno(f)))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -EIO;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int same_key(const struct calib_row *a, const char *host, int cpu, const char *variant, const char *sched)
{
	return a->cpu == cpu && !strcmp(a->host, host) && !strcmp(a->variant, variant) && !strcmp(a->sched, sched);
}

int calib_store_put(struct calib_store *st, const struct calib_row *row)
{
	for (size_t i = 0; i < st->n; i++)
		if (same_key(&st->rows[i], row->host, row->cpu, row->variant, row->sched)) {
			st->rows[i] = *row;
			return 0;
		}
	struct calib_row *nr = realloc(st->rows, (st->n + 1) * sizeof *nr);
	if (!nr)
		return -ENOMEM;
	st->rows = nr;
	st->rows[st->n++] = *row;
	return 0;
}

const struct calib_row *calib_store_find(const struct calib_store *st, const char *host, int cpu,
					  const char *variant, const char *sched)
{
	for (size_t i = 0; i < st->n; i++)
		if (same_key(&st->rows[i], host, cpu, variant, sched))
			return &st->rows[i];
	return NULL;
}

void calib_store_free(struct calib_store *st)
{
	free(st->rows);
	st->rows = NULL;
	st->n = 0;
}

int calib_store_default_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/displace/calibration.csv", xdg);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.cache/displace/calibration.csv", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void add_reason(struct calib_verdict *v, const char *f, ...)
{
	if (v->n >= CALIB_MAX_REASONS)
		return;
	va_list ap;
	va_start(ap, f);
	vsnprintf(v->reason[v->n++], sizeof v->reason[0], f, ap);
	va_end(ap);
}

void calib_judge(const struct calib_quiet_in *in, struct calib_verdict *v)
{
	memset(v, 0, sizeof *v);
	if (!isnan(in->loadavg1) && in->ncpus_online > 0 && in->loadavg1 > CALIB_MAX_LOAD_PER_CPU * in->ncpus_online)
		add_reason(v, "load average %.2f on %d CPUs; let other work finish or stop it", in->loadavg1,
			   in->ncpus_online);
	for (int i = 0; i < in->ntop; i++)
		if (in->top[i].frac >= CALIB_MAX_OTHER_PROC)
			add_reason(v, "'%s' (pid %d) used %.1f%% of a CPU; stop it, or measure a CPU it does not use",
				   in->top[i].comm, in->top[i].pid, in->top[i].frac * 100);
	if (!isnan(in->steal_frac) && in->steal_frac > CALIB_MAX_STEAL)
		add_reason(v, "steal time %.2f%% on CPU %d: the hypervisor ran another guest; use a dedicated or pinned vCPU",
			   in->steal_frac * 100, in->cpu);
	if (!isnan(in->fluid_share) && in->fluid_share < CALIB_MIN_FLUID_SHARE)
		add_reason(v, "the fluid got only %.1f%% of CPU %d (interrupts or other tasks ran there); "
			      "move them away (irqbalance, taskset) or measure another CPU",
			   in->fluid_share * 100, in->cpu);
	if (!isnan(in->cv) && in->cv > CALIB_MAX_CV)
		add_reason(v, "the fluid's speed varied %.2f%% (CV) between replications; the host's load or "
			      "frequency changes: use a dedicated host, or rely on measure's bracketing calibrations",
			   in->cv * 100);
	v->quiet = v->n == 0;
}

void calib_verdict_text(const struct calib_verdict *v, char *buf, size_t len)
{
	if (v->quiet) {
		snprintf(buf, len, "quiet");
		return;
	}
	size_t used = (size_t)snprintf(buf, len, "not quiet: ");
	for (int i = 0; i < v->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " | " : "", v->reason[i]);
}

int calib_acc_add(struct calib_acc *a, const struct fluid_report *r)
{
	double *t = vec_grow(a->tau, &a->cap, a->n, sizeof *t);
	if (!t)
		return -ENOMEM;
	a->tau = t;
	t = vec_grow(a->tau0, &a->cap0, a->n, sizeof *t);
	if (!t)
		return -ENOMEM;
	a->tau0 = t;
	double w = fluid_wall_ns(r);
	a->tau[a->n] = fluid_tau_ns(r);
	a->tau0[a->n] = fluid_tau0_ns(r);
	a->n++;
	a->share += w > 0 ? (double)r->cpu_ns / w : 0;
	a->wall_ns += w;
	a->gap_n += (double)r->gap_n;
	a->gap_excess_ns += fluid_excess_ns(r);
	if ((double)r->max_chunk_ns > a->longest_ns)
		a->longest_ns = (double)r->max_chunk_ns;
	return 0;
}

double calib_reps_needed(double cv, size_t n, double target)
{
	double t = stats_t_quantile(0.975, n > 1 ? (double)n - 1 : 1);
	return ceil(pow(t * cv / target, 2));
}

void calib_acc_result(const struct calib_acc *a, double target_ci, struct calib_result *r)
{
	memset(r, 0, sizeof *r);
	if (!a->n)
		return;
	stats_summarize(a->tau, a->n, 0.95, &r->tau);
	stats_summarize(a->tau0, a->n, 0.95, &r->tau0);
	r->fluid_share = a->share / (double)a->n;
	r->gap_rate_per_s = a->gap_n / (a->wall_ns / 1e9);
	r->gap_mean_us = a->gap_n ? a->gap_excess_ns / a->gap_n / 1e3 : 0;
	r->gap_frac = a->gap_excess_ns / a->wall_ns;
	r->longest_gap_us = a->longest_ns / 1e3;
	r->needed_reps = calib_reps_needed(r->tau.cv, a->n, target_ci);
}

void calib_acc_free(struct calib_acc *a)
{
	free(a->tau);
	free(a->tau0);
	memset(a, 0, sizeof *a);
}

double calib_steal_frac(const struct procfs_stat *s0, const struct procfs_stat *s1, int cpu)
{
	const struct procfs_cpu *a, *b;
	if (!s0 || !s1 || !(a = procfs_stat_find(s0, cpu)) || !(b = procfs_stat_find(s1, cpu)))
		return NAN;
	uint64_t total = procfs_cpu_total(b) - procfs_cpu_total(a);
	return total ? (double)(b->steal - a->steal) / (double)total : NAN;
}

struct task_delta {
	int pid;
	char comm[64];
	double frac;
};

static int cmp_delta(const void *a, const void *b)
{
	double x = ((const struct task_delta *)a)->frac, y = ((const struct task_delta *)b)->frac;
	return (x < y) - (x > y);
}

void calib_others(const struct procfs_task *t0, size_t n0, const struct procfs_task *t1, size_t n1, int self,
		  double wall_s, long user_hz, struct calib_quiet_in *q)
{
	struct task_delta *d = calloc(n1 ? n1 : 1, sizeof *d);
	size_t nd = 0;
	double total = 0;
	if (!d)
		return;
	for (size_t i = 0; i < n1; i++) {
		if (t1[i].pid == self || t1[i].ppid == self)
			continue;
		uint64_t before = 0;
		for (size_t k = 0; k < n0; k++)
			if (t0[k].pid == t1[i].pid && t0[k].start_ticks == t1[i].start_ticks) {
				before = t0[k].cpu_ticks;
				break;
			}
		if (t1[i].cpu_ticks <= before)
			continue;
		double f = (double)(t1[i].cpu_ticks - before) / (double)user_hz / wall_s;
		d[nd].pid = t1[i].pid;
		snprintf(d[nd].comm, sizeof d[nd].comm, "%s", t1[i].comm);
		d[nd].frac = f;
		total += f;
		nd++;
	}
	qsort(d, nd, sizeof *d, cmp_delta);
	q->others_frac = total;
	q->ntop = 0;
	for (size_t i = 0; i < nd && q->ntop < CALIB_MAX_TOP; i++) {
		q->top[q->ntop].pid = d[i].pid;
		snprintf(q->top[q->ntop].comm, sizeof q->top[0].comm, "%s", d[i].comm);
		q->top[q->ntop].frac = d[i].frac;
		q->ntop++;
	}
	free(d);
}
