/*
 * put.h - the process under test: one workload per file, each exporting one
 * descriptor, and the table of them.
 *
 * The put process (put/put_main.c) pins itself, parses the workload's
 * options, runs setup, then times exactly `ops` operations with run(), and
 * reports one line of key=value fields. Adding a workload means one file,
 * one line in the table in put/put.c, and one test.
 */
#ifndef PUT_H
#define PUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a workload is, for the coordinator, which never names one (flags). */
enum put_flags {
	PUT_SIZED = 1 << 0,    /* takes --size BYTES: sweep and predict vary it */
	PUT_PIPELINE = 1 << 1, /* takes --window, --compute-us, --compute-loops, --burst and --duty: predict's loop */
	PUT_COMMAND = 1 << 2,  /* runs the command after "--", which must exist; reports its exit status */
	PUT_REPLIES = 1 << 3,  /* each operation blocks for the peer's reply: predict's blocking clients */
	PUT_FLOWS = 1 << 4,    /* takes --flows K: K connections at once, round robin (displace --flows) */
};

/* L when --ops is not given */
enum put_ops_policy {
	PUT_OPS_FROM_PILOT = 0, /* as many as fill --run-time, from a pilot run's time per op */
	PUT_OPS_ONE,            /* one (exec: a command is one operation) */
};

/*
 * The pilot run the coordinator makes before measuring. By default it runs
 * 20 operations, then about 100 ms of them, and times them by wall clock.
 * A workload whose work is set at start-up (spin calibrates itself) runs
 * none and states its cost instead, and lets every later run do the very
 * same work by passing one report field back as an option.
 */
struct put_pilot {
	int null_run;            /* the pilot runs no operation */
	const char *op_us_field; /* with null_run: the report field with one operation's cost in us */
	const char *fix_field;   /* a report field whose value every later run gets ... */
	const char *fix_option;  /* ... as this option, unless the user gave it */
	const char *fix_replaces; /* the user's option the fixed one stands for, left out of those runs */
};

struct put_workload {
	const char *name;
	const char *summary; /* one line, for 'displace workloads' */
	const char *usage;   /* the workload's options in one line, e.g. "--us N" */
	const char *help;    /* the options, one per line, each with its default */
	/* unavailable - NULL if usable here, else why not (e.g. "built without libtirpc") */
	const char *(*unavailable)(void);
	/*
	 * parse - parse argv (argv[0] is the workload name) and allocate the
	 * state. -EINVAL with a one-line reason in err.
	 */
	int (*parse)(int argc, char **argv, void **state, char *err, size_t errlen);
	/* setup - everything before the timed loop (connect, calibrate). -errno with err */
	int (*setup)(void *state, char *err, size_t errlen);
	/* run - exactly ops operations, blocking and plain. -errno with err */
	int (*run)(void *state, uint64_t ops, char *err, size_t errlen);
	/* report - extra " key=value" fields for the report line; may be NULL */
	void (*report)(void *state, FILE *f);
	/* teardown - release everything; may be NULL */
	void (*teardown)(void *state);
	/* ops_scale - operations per run() iteration (exec --ops-per-run); may be NULL (1) */
	uint64_t (*ops_scale)(void *state);
	/* exit_status - put's exit status after a failed run, or 0 for the default; may be NULL */
	int (*exit_status)(void *state);
	int counts_children; /* its work happens in child processes (exec) */
	/* peer - the kind of peer it talks to ("tcp", "udp", "unix", "rpc"), or NULL */
	const char *peer;
	unsigned flags;                 /* enum put_flags */
	enum put_ops_policy ops_policy;
	struct put_pilot pilot;
	/*
	 * check_size - with PUT_SIZED: whether this workload, with the options
	 * in state (from parse), takes messages of bytes. -EINVAL with err.
	 */
	int (*check_size)(void *state, uint64_t bytes, char *err, size_t errlen);
};

extern const struct put_workload put_spin;
extern const struct put_workload put_exec;
extern const struct put_workload put_tcp;
extern const struct put_workload put_tcp_stream;
extern const struct put_workload put_udp;
extern const struct put_workload put_unix;
extern const struct put_workload put_rpc;

/* put_workloads - the table, NULL-terminated */
extern const struct put_workload *const put_workloads[];

/*
 * put_names - the names of the workloads with all of flags, joined by sep
 * and the last two by last ("tcp, tcp-stream or unix"), into buf
 */
void put_names(unsigned flags, const char *sep, const char *last, char *buf, size_t len);

/* put_find - the workload called name, or NULL */
const struct put_workload *put_find(const char *name);

#endif
