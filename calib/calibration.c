/* calibration.c - the calibration store and the quiet-host verdict */
#include "calib/calibration.h"
#include "calib/csvio.h"
#include "common/cli.h"
#include "common/outfile.h"
#include "common/vec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The values a store row may hold. One check, calib_row_check, applies them
 * to a row read from the file and to a row about to be written, so that the
 * store never holds what it would refuse to read. The ranges are those a
 * calibration can produce (calibrate's --reps and --seconds, a loop between
 * a picosecond and a millisecond), wide enough for any host.
 */
#define ROW_MAX_CPU (CLI_MAX_CPUS - 1)
#define ROW_MIN_TAU_NS 1e-3
#define ROW_MAX_TAU_NS 1e6
#define ROW_MAX_CV 100.0
#define ROW_MAX_REPS 100000u
#define ROW_MIN_SECONDS 0.001
#define ROW_MAX_SECONDS 3600.0

/* x is a finite number in [lo, hi] */
static int within(double x, double lo, double hi)
{
	return isfinite(x) && x >= lo && x <= hi;
}


#define BAD_CPU "bad cpu (0 to %d)", ROW_MAX_CPU
#define BAD_REPS "bad reps (1 to %u)", ROW_MAX_REPS

int calib_row_check(const struct calib_row *r, char *why, size_t len)
{
	if (r->cpu < 0 || r->cpu > ROW_MAX_CPU)
		return cli_fail(why, len, -EINVAL, BAD_CPU);
	if (!within(r->tau_f_ns, ROW_MIN_TAU_NS, ROW_MAX_TAU_NS))
		return cli_fail(why, len, -EINVAL, "bad tau_f_ns (%g to %g ns)", ROW_MIN_TAU_NS, ROW_MAX_TAU_NS);
	if (!within(r->ci95_ns, 0, ROW_MAX_TAU_NS))
		return cli_fail(why, len, -EINVAL, "bad ci95_ns (0 to %g ns)", ROW_MAX_TAU_NS);
	if (!within(r->cv, 0, ROW_MAX_CV))
		return cli_fail(why, len, -EINVAL, "bad cv (a fraction, 0 to %g)", ROW_MAX_CV);
	if (!within(r->tau0_ns, ROW_MIN_TAU_NS, ROW_MAX_TAU_NS))
		return cli_fail(why, len, -EINVAL, "bad tau0_ns (%g to %g ns)", ROW_MIN_TAU_NS, ROW_MAX_TAU_NS);
	if (r->reps < 1 || r->reps > ROW_MAX_REPS)
		return cli_fail(why, len, -EINVAL, BAD_REPS);
	if (!within(r->seconds, ROW_MIN_SECONDS, ROW_MAX_SECONDS))
		return cli_fail(why, len, -EINVAL, "bad seconds (%g to %g)", ROW_MIN_SECONDS, ROW_MAX_SECONDS);
	if (r->quiet != 0 && r->quiet != 1)
		return cli_fail(why, len, -EINVAL, "bad quiet (0 or 1)");
	return 0;
}

/* a number as the store writes it: plain decimal, with an optional sign and exponent (no hex, inf, nan) */
static int parse_double_field(const char *s, double *v)
{
	char *e;
	if (!*s || strspn(s, "0123456789.eE+-") != strlen(s))
		return -1;
	errno = 0;
	*v = strtod(s, &e);
	return *e || errno == ERANGE ? -1 : 0;
}

static int copy_field(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

/* the row's fields into r; the reason in why. calib_row_check does the ranges */
static int parse_row(char **f, struct calib_row *r, char *why, size_t len)
{
	uint64_t reps, quiet;
	memset(r, 0, sizeof *r);
	if (copy_field(r->host, sizeof r->host, f[0]) || copy_field(r->kernel, sizeof r->kernel, f[1]) ||
	    copy_field(r->cpu_model, sizeof r->cpu_model, f[2]) || copy_field(r->variant, sizeof r->variant, f[4]) ||
	    copy_field(r->sched, sizeof r->sched, f[5]) || copy_field(r->verdict, sizeof r->verdict, f[13]) ||
	    copy_field(r->date, sizeof r->date, f[14]))
		return cli_fail(why, len, -EINVAL, "a text field is too long");
	if (cli_parse_int(f[3], 0, ROW_MAX_CPU, &r->cpu))
		return cli_fail(why, len, -EINVAL, BAD_CPU);
	if (parse_double_field(f[6], &r->tau_f_ns))
		return cli_fail(why, len, -EINVAL, "bad tau_f_ns");
	if (parse_double_field(f[7], &r->ci95_ns))
		return cli_fail(why, len, -EINVAL, "bad ci95_ns");
	if (parse_double_field(f[8], &r->cv))
		return cli_fail(why, len, -EINVAL, "bad cv");
	if (parse_double_field(f[9], &r->tau0_ns))
		return cli_fail(why, len, -EINVAL, "bad tau0_ns");
	if (cli_parse_u64(f[10], 1, ROW_MAX_REPS, &reps))
		return cli_fail(why, len, -EINVAL, BAD_REPS);
	if (parse_double_field(f[11], &r->seconds))
		return cli_fail(why, len, -EINVAL, "bad seconds");
	if (cli_parse_u64(f[12], 0, 1, &quiet))
		return cli_fail(why, len, -EINVAL, "bad quiet (0 or 1)");
	r->reps = (unsigned)reps;
	r->quiet = (int)quiet;
	return calib_row_check(r, why, len);
}

/*
 * While loading, rows are found by key through a hash table, so that a
 * store of n rows loads in O(n): calib_store_put's scan would be O(n^2).
 * Slots hold a row index + 1; 0 is empty.
 */
struct load_ctx {
	struct calib_store *st;
	size_t cap_rows;
	size_t *slot;
	size_t nslot; /* a power of two, at least twice the rows */
	char *err;
	size_t errlen;
};

/* FNV-1a over the key: host, cpu, variant, class */
static size_t key_hash(const struct calib_row *r)
{
	uint64_t h = 1469598103934665603ull;
	const char *parts[] = { r->host, r->variant, r->sched };
	for (size_t k = 0; k < 3; k++)
		for (const unsigned char *p = (const unsigned char *)parts[k];; p++) {
			h = (h ^ *p) * 1099511628211ull;
			if (!*p)
				break;
		}
	h = (h ^ (uint64_t)(unsigned)r->cpu) * 1099511628211ull;
	return (size_t)h;
}

static int same_key(const struct calib_row *a, const char *host, int cpu, const char *variant, const char *sched);

/* the slot of row's key: where its row is, or the empty slot where it would go */
static size_t *find_slot(const struct load_ctx *c, const struct calib_row *row)
{
	size_t mask = c->nslot - 1;
	for (size_t i = key_hash(row) & mask;; i = (i + 1) & mask) {
		size_t *s = &c->slot[i];
		if (!*s || same_key(&c->st->rows[*s - 1], row->host, row->cpu, row->variant, row->sched))
			return s;
	}
}

static int grow_slots(struct load_ctx *c)
{
	size_t n = c->nslot ? 2 * c->nslot : 64;
	size_t *old = c->slot, nold = c->nslot;
	if (!(c->slot = calloc(n, sizeof *c->slot))) {
		c->slot = old;
		return -ENOMEM;
	}
	c->nslot = n;
	for (size_t i = 0; i < nold; i++)
		if (old[i])
			*find_slot(c, &c->st->rows[old[i] - 1]) = old[i];
	free(old);
	return 0;
}

/* calib_store_put's rule (a row replaces the one with its key, in place) in O(1) */
static int load_put(struct load_ctx *c, const struct calib_row *row)
{
	if (2 * (c->st->n + 1) > c->nslot && grow_slots(c))
		return -ENOMEM;
	size_t *s = find_slot(c, row);
	if (*s) {
		c->st->rows[*s - 1] = *row;
		return 0;
	}
	struct calib_row *rows = vec_grow(c->st->rows, &c->cap_rows, c->st->n, sizeof *rows);
	if (!rows)
		return -ENOMEM;
	c->st->rows = rows;
	rows[c->st->n++] = *row;
	*s = c->st->n;
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
	if (parse_row(row->field, &r, ctx->err, ctx->errlen))
		return -EBADMSG;
	return load_put(ctx, &r);
}

/* csvio's reading, for a path or a stream */
static int load(const char *path, FILE *f, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen)
{
	struct load_ctx ctx = { .st = st, .err = err, .errlen = errlen };
	st->rows = NULL;
	st->n = 0;
	*err_line = 0;
	err[0] = '\0';
	int rc = path ? csvio_read(path, load_row, &ctx, err_line) : csvio_read_stream(f, load_row, &ctx, err_line);
	free(ctx.slot);
	if (rc == -ENOENT)
		return 0;
	if (rc == -EILSEQ || (rc == -EBADMSG && !err[0])) {
		snprintf(err, errlen, "%s", csvio_syntax_text(rc));
		rc = -EBADMSG;
	}
	if (rc)
		calib_store_free(st);
	return rc;
}

int calib_store_load(const char *path, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen)
{
	return load(path, NULL, st, err_line, err, errlen);
}

int calib_store_read(FILE *f, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen)
{
	return load(NULL, f, st, err_line, err, errlen);
}

static int mkdirs(const char *dir)
{
	char buf[4096];
	if (strlen(dir) >= sizeof buf)
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	/* as the XDG base directory spec asks of a directory it makes: 0700 */
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int calib_store_check(const char *path, int flags)
{
	char dir[4096];
	if (!*path)
		return -ENOENT;
	if (strlen(path) >= sizeof dir)
		return -ENAMETOOLONG;
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if ((flags & CALIB_STORE_MKDIR) && slash && slash != dir) {
		*slash = '\0';
		int rc = mkdirs(dir);
		if (rc)
			return rc;
	}
	return outfile_check(path);
}

/*
 * x as the shortest decimal that reads back as x (15 to 17 significant
 * digits), so what is saved is what was measured, and what calib_row_check
 * passed on writing passes again on reading
 */
static void fmt_exact(char *buf, size_t len, double x)
{
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

int calib_store_write(FILE *f, const struct calib_store *st)
{
	int rc = fputs(CALIB_STORE_HEADER "\n", f) == EOF ? -EIO : 0;
	for (size_t i = 0; !rc && i < st->n; i++) {
		const struct calib_row *r = &st->rows[i];
		char cpu[16], tau[32], ci[32], cv[32], tau0[32], reps[16], secs[32], quiet[4];
		snprintf(cpu, sizeof cpu, "%d", r->cpu);
		fmt_exact(tau, sizeof tau, r->tau_f_ns);
		fmt_exact(ci, sizeof ci, r->ci95_ns);
		fmt_exact(cv, sizeof cv, r->cv);
		fmt_exact(tau0, sizeof tau0, r->tau0_ns);
		snprintf(reps, sizeof reps, "%u", r->reps);
		fmt_exact(secs, sizeof secs, r->seconds);
		snprintf(quiet, sizeof quiet, "%d", r->quiet);
		const char *fields[CALIB_STORE_FIELDS] = { r->host, r->kernel, r->cpu_model, cpu,  r->variant,
							   r->sched, tau,	  ci,	     cv,   tau0,
							   reps,     secs,	  quiet,     r->verdict, r->date };
		rc = csvio_write_row(f, fields, CALIB_STORE_FIELDS);
	}
	return rc;
}

int calib_store_save(const char *path, const struct calib_store *st, int flags, char *why, size_t whylen)
{
	why[0] = '\0';
	for (size_t i = 0; i < st->n; i++) {
		char bad[128];
		if (calib_row_check(&st->rows[i], bad, sizeof bad)) {
			snprintf(why, whylen, "the row of CPU %d (%s, %s): %s", st->rows[i].cpu, st->rows[i].variant,
				 st->rows[i].sched, bad);
			return -EINVAL;
		}
	}
	int rc = calib_store_check(path, flags);
	struct outfile o;
	if (rc || (rc = outfile_create(&o, path)))
		return rc;
	int fd = dup(o.fd);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		outfile_abort(&o);
		return rc;
	}
	rc = calib_store_write(f, st);
	if (fclose(f) && !rc)
		rc = -EIO;
	if (rc)
		outfile_abort(&o);
	else
		rc = outfile_commit(&o);
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
	/* exactly n rows: calib_store_load may have left capacity it no longer knows of */
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

void calib_tau_summary(const double *tau, size_t n, double conf, struct stats_summary *s, struct calib_batches *b)
{
	stats_summarize(tau, n, conf, s);
	*b = (struct calib_batches){ .serial = 1, .ratio = NAN, .p = NAN };
	if (n < 2 * CALIB_BATCHES || !(s->sd > 0))
		return;
	b->ratio = stats_batch_f(tau, n, CALIB_BATCHES, &b->p);
	double half = stats_batch_half(tau, n, CALIB_BATCHES, conf); /* NAN, and no widening, if it cannot */
	if (half > s->ci_half) {
		b->serial = half / s->ci_half;
		s->ci_half = half;
	}
}

void calib_acc_result(const struct calib_acc *a, double target_ci, struct calib_result *r)
{
	memset(r, 0, sizeof *r);
	if (!a->n)
		return;
	calib_tau_summary(a->tau, a->n, 0.95, &r->tau, &r->batches);
	stats_summarize(a->tau0, a->n, 0.95, &r->tau0);
	r->fluid_share = a->share / (double)a->n;
	r->gap_rate_per_s = a->gap_n / (a->wall_ns / 1e9);
	r->gap_mean_us = a->gap_n ? a->gap_excess_ns / a->gap_n / 1e3 : 0;
	r->gap_frac = a->gap_excess_ns / a->wall_ns;
	r->longest_gap_us = a->longest_ns / 1e3;
	r->needed_reps = calib_reps_needed(r->tau.cv * r->batches.serial, a->n, target_ci);
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
