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

/* put_find - the workload called name, or NULL */
const struct put_workload *put_find(const char *name);

#endif
