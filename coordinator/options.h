/*
 * options.h - the options measure, sweep and predict share, and the split of
 * a command line into displace's options and the workload's.
 *
 * Everything before the workload name must be a displace option. After it,
 * options displace knows are its own; anything else (and everything after
 * "--") goes to the workload.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdio.h>

#include "calib/stopping.h"
#include "calib/summary.h"
#include "common/cli.h"
#include "fluid/fluid_args.h"

#include <stdint.h>

#define OPTS_MAX_WARGS 64

/* --precision-of: the result, its normalised cost, or the cost of these operations (summary.these) */
enum precision_of { PREC_RESULT, PREC_NORMALISED, PREC_THESE, PREC_N };
/* --precision-of's values, in enum precision_of order: "result", "normalised", "these-ops" */
extern const char *const opts_precision_of_arg[PREC_N];

struct opts {
	const char *cmd;            /* "measure", "sweep", "predict": for messages */
	const char *workload;
	char *wargs[OPTS_MAX_WARGS];
	int nwargs;
	int cpu;                    /* the PUT's CPU */
	int cpu_given;              /* --cpu was given; else cpu is the first of --cpus */
	const char *cpus_arg;       /* fluid CPUs; NULL: just cpu */
	const char *peer_cpu_arg;   /* NULL: automatic */
	const char *peer_arg;       /* --peer: an external peer */
	const char *remote_cpus_arg; /* --remote-cpus: the peer host's fluid CPUs ("all" or a list); NULL: not measured */
	unsigned flows;             /* --flows K: connections at once (0 or 1: one) */
	enum fluid_sched sched;
	uint64_t ops;               /* with ops_given; 0 = set-up and tear-down only */
	int ops_given;
	unsigned reps;              /* runs; 0: the default */
	double precision;           /* 0: off; else the CI half-width wanted, as a fraction */
	enum precision_of precision_of; /* --precision-of: the figure --precision aims at */
	enum stop_rule stopping;    /* --stopping: STOP_THREE (default), STOP_STEIN or STOP_NAIVE (benches) */
	int stopping_given, precision_of_given; /* either was on the command line (predict refuses them) */
	uint64_t max_time_ns;
	uint64_t cal_ns, lead_in_ns, lead_out_ns;
	uint64_t run_ns;            /* target length of one L run when ops is automatic */
	uint64_t chunk_loops;
	int fit;
	enum sum_short short_run;   /* --short-run: the short run of a fit pair, L/4 or a null run */
	uint64_t clock_res_ns;      /* --clock-resolution */
	int estimator;              /* --estimator: enum sum_estimator; -1: the default */
	int no_perturb;             /* --no-perturbation-check */
	int trace_others;           /* --trace-others: each window's other tasks from a scheduler trace */
	int no_trace_others;        /* --no-trace-others: not even when the untraced interval does not hold */
	int task_clock;             /* --task-clock: a perf counter on the PUT (it costs each of its context switches) */
	const char *csv;
	const char *plot;
	const char *store;
	int json, quiet, strict;
	int help;
};

/* An extra option of one command: id is returned to the handler. */
struct opts_extra {
	const char *name;
	int has_arg;
	int id;
};

/*
 * opts_parse - defaults, then argv. For an extra option, on_extra(id,
 * value, ctx) returns 0 or a usage message in err. Returns 0, or -EINVAL
 * with the usage message in err.
 */
int opts_parse(int argc, char **argv, struct opts *m, const struct opts_extra *extra,
	       int (*on_extra)(int id, const char *val, void *ctx, char *err, size_t errlen), void *ctx, char *err,
	       size_t errlen);

/*
 * The shared options' help text; cmd is "measure", "sweep" or "predict".
 * opts_help_output prints more (the command's own output options, or NULL)
 * after --csv.
 */
extern const char opts_help_placement[];
/* --remote-cpus, for measure and sweep: after opts_help_placement */
extern const char opts_help_both_ends[];
void opts_help_measurement(FILE *f, const char *cmd);
void opts_help_output(FILE *f, const char *cmd, const char *more);

#endif
