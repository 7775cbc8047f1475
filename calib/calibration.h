/* calibration.h - Woodside step 1 from replications, the quiet-host verdict, and the calibration store */
#ifndef CALIBRATION_H
#define CALIBRATION_H

#include "calib/procfs.h"
#include "calib/reportline.h"
#include "calib/stats.h"

#include <stddef.h>
#include <stdio.h>

/* One saved calibration: a CPU's tau_F for one fluid variant and class. */
struct calib_row {
	char host[128];
	char kernel[128];
	char cpu_model[128];
	int cpu;
	char variant[48];
	char sched[8];
	double tau_f_ns;  /* T_F(1) / L_F(1), mean over replications */
	double ci95_ns;   /* Student-t 95 % half-width */
	double cv;        /* across replications, as a fraction */
	double tau0_ns;   /* undisturbed speed from the chunk timings */
	unsigned reps;
	double seconds;   /* per replication */
	int quiet;
	char verdict[512];
	char date[32];    /* ISO 8601, UTC */
};

#define CALIB_STORE_HEADER \
	"host,kernel,cpu_model,cpu,fluid_variant,sched,tau_f_ns,ci95_ns,cv,tau0_ns,reps,seconds,quiet,verdict,date"
#define CALIB_STORE_FIELDS 15

struct calib_store {
	struct calib_row *rows;
	size_t n;
};

/*
 * calib_row_check - whether r holds values a store row may hold (cpu, the
 * times, reps, seconds and quiet within their ranges). Reading and writing
 * both apply it, so the store never holds a row it would refuse. 0, or
 * -EINVAL with the field and its range in why.
 */
int calib_row_check(const struct calib_row *r, char *why, size_t len);
/*
 * calib_store_load - read the store at path, in time linear in its rows. A
 * missing file is an empty store (0). -errno if it cannot be read;
 * -EBADMSG if it is malformed, with *err_line and a reason in err.
 */
int calib_store_load(const char *path, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen);
/* calib_store_read - calib_store_load from an open stream */
int calib_store_read(FILE *f, struct calib_store *st, unsigned long *err_line, char *err, size_t errlen);

/* with calib_store_check and calib_store_save: make the store's directory if it is missing */
#define CALIB_STORE_MKDIR 1
/*
 * calib_store_check - before any work: the store at path could be written
 * (outfile_check: its directory exists, it is not a symbolic link ...).
 * With CALIB_STORE_MKDIR the directory is made first (for the default
 * store only: a path the user gave is taken as it is). 0 or -errno.
 */
int calib_store_check(const char *path, int flags);
/*
 * calib_store_save - write the store atomically through outfile: a
 * temporary file in the same directory, then rename; a partial store is
 * never seen, and nothing is left if the process is killed. Every row
 * must pass calib_row_check (-EINVAL, with the row and why). 0 or -errno.
 */
int calib_store_save(const char *path, const struct calib_store *st, int flags, char *why, size_t whylen);
/* calib_store_write - the store's text (header and rows, as calib_store_save writes them) to f; 0 or -EIO */
int calib_store_write(FILE *f, const struct calib_store *st);
/* calib_store_put - add a row, replacing the one for the same host, cpu, variant and class */
int calib_store_put(struct calib_store *st, const struct calib_row *row);
/* calib_store_find - the row for host, cpu, variant and class, or NULL */
const struct calib_row *calib_store_find(const struct calib_store *st, const char *host, int cpu,
					  const char *variant, const char *sched);
/* calib_store_free - release the rows */
void calib_store_free(struct calib_store *st);
/*
 * calib_store_default_path - $XDG_CACHE_HOME/displace/calibration.csv, else
 * $HOME/.cache/displace/calibration.csv. -ENOENT if neither is set.
 */
int calib_store_default_path(char *buf, size_t len);

/*
 * One CPU's calibration (Woodside step 1), from its replications as they
 * come: tau_F = T_F(1) / L_F(1) of each, the undisturbed speed from its
 * chunk timings, and the time other work took from the fluid.
 */
struct calib_acc {
	size_t n, cap, cap0;
	double *tau, *tau0;     /* ns per loop, per replication */
	double share;           /* sum of the fluid's CPU time over its wall time */
	double wall_ns, gap_n, gap_excess_ns, longest_ns;
};

/* what the batch means of the replications say of tau_F (calib_tau_summary) */
#define CALIB_BATCHES 5
struct calib_batches {
	double serial; /* the CI over the t interval: 1 or more (1 below 2 * CALIB_BATCHES, or without spread) */
	double ratio;  /* the batches' variance ratio, stats_batch_f: near 1 for independent replications; NAN if none */
	double p;      /* the chance of so large a ratio from independent replications (stats_batch_f) */
};

struct calib_result {
	struct stats_summary tau;   /* T/L per replication */
	struct stats_summary tau0;  /* undisturbed speed per replication */
	double fluid_share;         /* mean fluid CPU time over wall time */
	double gap_rate_per_s, gap_mean_us, gap_frac, longest_gap_us;
	double needed_reps;         /* for the target CI */
	struct calib_batches batches; /* tau's CI against the t interval (calib_tau_summary) */
};

/*
 * calib_tau_summary - tau_F's summary over n replications in time order:
 * stats_summarize's, but from 2 * CALIB_BATCHES replications on, the CI is
 * the wider of the t interval and that of the means of CALIB_BATCHES
 * batches of consecutive replications (stats_batch_half; the last
 * n % CALIB_BATCHES left out of the spread). The host's stalls come in
 * bursts that span neighbouring replications and move tau_F over seconds:
 * a second calibration right after was within reach of the t interval in
 * 53 to 83 % of pairs, and of the batch interval in 87 to 97.5 %
 * (bench/calib-ci). The t interval bounds it below, so that a lucky
 * narrow draw of 5 batch means does not stop --precision early. sd and cv
 * stay the spread between replications. *b gets what the batches say.
 */
void calib_tau_summary(const double *tau, size_t n, double conf, struct stats_summary *s, struct calib_batches *b);
/* calib_acc_add - one replication's report; -ENOMEM */
int calib_acc_add(struct calib_acc *a, const struct fluid_report *r);
/* calib_acc_result - the summary of the replications so far (at least one); target_ci as a fraction of tau_F */
void calib_acc_result(const struct calib_acc *a, double target_ci, struct calib_result *r);
/* calib_acc_free - release the replications */
void calib_acc_free(struct calib_acc *a);
/*
 * calib_reps_needed - replications for a 95 % CI of target (a fraction of
 * the mean) at this CV (times the serial factor, for the interval
 * calibrate gives), with the t quantile of the n replications made:
 * ceil((t cv / target)^2)
 */
double calib_reps_needed(double cv, size_t n, double target);
/* calib_steal_frac - the steal share of cpu's ticks between two /proc/stat readings; NAN if unknown */
double calib_steal_frac(const struct procfs_stat *s0, const struct procfs_stat *s1, int cpu);

/* What the verdict looks at. Fractions are of one CPU's time over the calibration. */
#define CALIB_MAX_TOP 3
struct calib_quiet_in {
	int cpu;
	int ncpus_online;
	double loadavg1;      /* before calibrating; NAN if unknown */
	double cv;            /* of tau_F across replications */
	double steal_frac;    /* steal on the measured CPU; NAN if unknown */
	double fluid_share;   /* the fluid's own CPU time over its wall time */
	double others_frac;   /* CPU time of all other processes, in CPUs */
	int ntop;
	struct {
		int pid;
		char comm[64];
		double frac;  /* of one CPU */
	} top[CALIB_MAX_TOP];
};

/* Thresholds of the verdict; see docs and calib_judge. */
#define CALIB_MAX_LOAD_PER_CPU 0.5
#define CALIB_MAX_CV 0.01
#define CALIB_MAX_STEAL 0.005
#define CALIB_MAX_OTHER_PROC 0.01
#define CALIB_MIN_FLUID_SHARE 0.98

#define CALIB_MAX_REASONS 8
struct calib_verdict {
	int quiet;
	int n;
	char reason[CALIB_MAX_REASONS][320]; /* "<reason>; <remedy>" */
};

/*
 * calib_others - the other processes' CPU time between two task lists
 * (t0 before, t1 after, wall_s apart), leaving out self and its children,
 * as fractions of one CPU: the total and the top CALIB_MAX_TOP, into q
 */
void calib_others(const struct procfs_task *t0, size_t n0, const struct procfs_task *t1, size_t n1, int self,
		  double wall_s, long user_hz, struct calib_quiet_in *q);

/* calib_judge - the quiet-host verdict: quiet, or the reasons with their remedies */
void calib_judge(const struct calib_quiet_in *in, struct calib_verdict *v);
/* calib_verdict_text - "quiet" or "not quiet: r1; remedy1 | r2; ..." into buf */
void calib_verdict_text(const struct calib_verdict *v, char *buf, size_t len);

#endif
