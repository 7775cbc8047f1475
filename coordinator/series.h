/*
 * series.h - one configuration that is measured again and again: the
 * workload with its arguments as put takes them, L, the message size, and
 * the runs so far.
 *
 * The message size is parsed once (cli_parse_sizes or the workload's own
 * --size) and kept as a number; it becomes "--size=N" only in the argv of
 * the put process, where the process boundary needs text.
 */
#ifndef SERIES_H
#define SERIES_H

#include "calib/estimate.h"
#include "put/put.h"

#include <stddef.h>
#include <stdint.h>

#define SERIES_MAX_ARGS 64
#define SERIES_MAX_ADDED 8

struct series {
	char label[64];                /* e.g. "1000" for a size, or the workload name */
	const struct put_workload *w;
	const char *opts[SERIES_MAX_ARGS]; /* the user's workload options (before any "--"), name first */
	int nopts;
	const char *rest[SERIES_MAX_ARGS]; /* "--" and the command after it (exec), or none */
	int nrest;
	char peer_arg[272];            /* "--peer=ADDR" of the local or external peer, or "" */
	uint64_t size_bytes;           /* 0: none set here (the workload's own --size, if any) */
	char added[SERIES_MAX_ADDED][64]; /* options a command adds, e.g. --window=64 */
	int nadded;
	char put_opts[2][64];          /* put's own options before the workload, e.g. --think-loops=N */
	int nput_opts;
	uint64_t ops;                  /* L */
	struct est_run *runs;
	size_t nruns, cap;
	int perturb;                   /* after each pair (or run), seq_run runs the PUT alone once */
	int pair_flip;                 /* the pair under way ran its smaller run first (series_pair_ops) */
	struct est_alone *alone;       /* the PUT alone, one run per pair (the perturbation check) */
	size_t nalone, alone_cap;
};

/*
 * series_init - a series of workload w for the user's workload arguments
 * wargs[0..n) (wargs[0] is the workload name, then options, then perhaps
 * "--" and a command), talking to peer_addr (NULL: none)
 */
void series_init(struct series *s, const struct put_workload *w, char *const *wargs, int n, const char *peer_addr,
		 const char *label);
/* series_add_arg - add an option for the workload, e.g. "--window=64", copied; -E2BIG if it does not fit */
int series_add_arg(struct series *s, const char *arg);
/* series_added - the option name ("--loops-per-op") a command added, as "--name=value"; NULL if none */
const char *series_added(const struct series *s, const char *name);
/* series_add_put_opt - add one of put's own options (before the workload's name), copied; -E2BIG */
int series_add_put_opt(struct series *s, const char *opt);
/* series_has_arg - whether the user or a command gave option name ("--loops-per-op") */
int series_has_arg(const struct series *s, const char *name);
/*
 * series_argv - the workload's argv as put takes it: name, the user's
 * options, --peer, --size, the added options, then "--" and the command.
 * A user's option that an added one stands for (put_pilot.fix_replaces)
 * is left out.
 * bufs holds the --size text; argv has room for max entries, NULL-terminated.
 * Returns the count.
 */
int series_argv(const struct series *s, char **argv, int max, char sizebuf[32]);
/* series_args_text - the workload's arguments after its name, quoted as a shell would need them */
void series_args_text(const struct series *s, char *buf, size_t len);
/* series_append_run - keep one run; -ENOMEM */
int series_append_run(struct series *s, const struct est_run *r);
/* series_append_alone - keep one alone run; -ENOMEM */
int series_append_alone(struct series *s, const struct est_alone *a);
/*
 * series_pair_ops - the operations of run k (0 or 1) of a pair of s, big
 * and small operations in an order drawn at random at k = 0: a host task
 * that wakes with a period near the pairs' own would otherwise land in the
 * same run of pair after pair and bias them alike (docs/estimators.md,
 * "The runs"). series_pair_done, after run 1 is appended, stores the pair
 * big first, as the summary reads it; each run keeps its order.
 */
uint64_t series_pair_ops(struct series *s, int k, uint64_t big, uint64_t small);
void series_pair_done(struct series *s);
/* series_free - release the runs */
void series_free(struct series *s);

#endif
