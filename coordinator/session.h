/*
 * session.h - everything measure, sweep and predict set up before their
 * runs and release after them: the workload, the host's context, the
 * placement of the processes (measured CPUs, peer, coordinator), the
 * calibration store's row, the local peer, and the sequence of runs.
 *
 * Library rules: 0 or -errno with the reason in s->err; nothing printed
 * (cmd_measuring.c tells the user).
 */
#ifndef SESSION_H
#define SESSION_H

#include "coordinator/context.h"
#include "coordinator/options.h"
#include "coordinator/peer.h"
#include "coordinator/remote.h"
#include "coordinator/sequence.h"
#include "coordinator/series.h"
#include "put/put.h"

/* What the calibration store says about the measured CPU. */
enum session_store_status {
	STORE_NONE,       /* no store path (no $XDG_CACHE_HOME nor $HOME), or the default store is missing */
	STORE_UNREADABLE, /* --calibration FILE cannot be read: rc */
	STORE_BAD,        /* the store does not parse: line, why */
	STORE_NO_ROW,     /* no row for this host, CPU, fluid and class */
	STORE_ROW,        /* the row: tau_f_ns, date, quiet, verdict */
};

struct session_store {
	enum session_store_status status;
	char path[4096];
	int rc;
	unsigned long line;
	char why[256];
	char variant[48];
	double tau_f_ns, tau0_ns;   /* tau0: the undisturbed speed, the normalised cost's reference */
	char date[32];
	int quiet;
	char verdict[512];
};

struct session {
	struct opts m;
	struct context ctx;
	const struct put_workload *w;
	struct exp_env *env;
	struct seq_ctx seq;
	uint64_t start_ns;
	int peer_cpu;             /* the local peer's CPU, -1 if none */
	int coordinator_cpu;      /* where the coordinator pinned itself, -1 if not */
	struct session_store store;
	struct peer peer;         /* the local peer, when the workload needs one */
	const char *peer_addr;    /* what the workload connects to: --peer or the local peer */
	struct remote remote;     /* the peer host's fluids (--remote-cpus), open when seq.o.remote points here */
	struct schedtrace trace;  /* --trace-others: open when seq.o.trace points here */
	char peer_note[400];      /* where the peer runs, for the output */
	char trace_auto[200];     /* why measure turned --trace-others on by itself; "" when it did not */
	int interrupted;          /* the signal that stopped the runs, whose result is reported as partial; 0 */
	char err[512];
};

/*
 * session_find_workload - the workload named on the command line: -EINVAL
 * (none, or unknown), -ENOTSUP (not available in this build; err says why)
 */
int session_find_workload(struct session *s);
/*
 * session_check_args - the workload's options parse with put's own parser,
 * each of sizes[0..n) is a size it takes, and its command (PUT_COMMAND)
 * can be run. -EINVAL (usage; err), or -errno for a command that cannot
 * be run (err)
 */
int session_check_args(struct session *s, char **wargs, int nwargs, const uint64_t *sizes, size_t nsizes);
/*
 * session_setup - context, CPUs, the peer's CPU, the sequence's options,
 * the helpers and the coordinator's placement. -EINVAL for a usage error
 * (a CPU that is not online), else -errno; err says why
 */
int session_setup(struct session *s);
/* session_read_store - what the calibration store says of the measured CPU (s->store) */
void session_read_store(struct session *s);
/*
 * session_start_peer - the local peer, when the workload needs one and no
 * --peer is given; with --remote-cpus, the control connection to the peer
 * host's fluids. -errno, -EINTR; -EINVAL (usage: CPUs the peer does not offer)
 */
int session_start_peer(struct session *s);
/*
 * session_choose_ops - L for a series: --ops, or from a pilot run of the
 * workload beside the fluid (its pilot policy may also fix one of its
 * options for every later run). 0, or -errno from the run (seq.err)
 */
int session_choose_ops(struct session *s, struct series *ser);
/* session_series_init - a series of the session's workload and peer, for the user's workload arguments */
void session_series_init(struct session *s, struct series *ser, const char *label);
/* session_finish - stop the peer and release everything */
void session_finish(struct session *s);

#endif
