/* experiment.h - one run: fluids alone (calibration) or beside the PUT (co-run) */
#ifndef EXPERIMENT_H
#define EXPERIMENT_H

#include "calib/procfs.h"
#include "calib/reportline.h"
#include "common/cli.h"
#include "coordinator/spawn.h"

#include <limits.h>
#include <uv.h>

#define EXP_MAX_CPUS 64
#define EXP_NSIGNALS 3 /* SIGINT, SIGTERM, SIGHUP */

struct exp_env {
	uv_loop_t loop;
	char fluid_path[PATH_MAX];
	char put_path[PATH_MAX];
	uv_signal_t sig[EXP_NSIGNALS];
	int interrupted;        /* SIGINT, SIGTERM or SIGHUP arrived: stop everything */
	int signal;             /* the first of them */
	struct child *active[EXP_MAX_CPUS + 64 + 4]; /* fluids, or clients (EXP_MAX_CLIENTS), and put and the peer */
	int nactive;
	int coordinator_cpu;    /* where the coordinator pinned itself, -1 if not */
	struct child *peer;     /* the local peer while it runs (peer.c): a failed run says if it died */
};

struct exp_fluid_opts {
	const char *sched;      /* idle, nice, normal */
	uint64_t chunk_loops;
	uint64_t clock_res_ns;  /* simulated slow clock; 0 = off */
	uint64_t clock_phase_ns;
	int ready;              /* --ready: the fluid says when its window starts (co-runs) */
};

/*
 * exp_env_init - find the helpers (next to displace, or in
 * ../libexec/displace), set up the loop and SIGINT, SIGTERM and SIGHUP
 * handling (each stops every child and sets interrupted).
 * -ENOENT with a message if a helper is missing.
 */
int exp_env_init(struct exp_env *e, char *err, size_t errlen);
/*
 * exp_find_helper - the path of helper name ("fluid", "put"): next to
 * displace (the build tree) or in ../libexec/displace (an install). 0 or
 * -errno
 */
int exp_find_helper(const char *name, char *out, size_t len);
/*
 * exp_fluid_argv - the argv of a fluid on cpu (run_ns 0: until stopped);
 * argv has room for 16 entries, bufs for 5 numbers
 */
void exp_fluid_argv(const char *fluid_path, const struct exp_fluid_opts *o, int cpu, uint64_t run_ns, char **argv,
		    char bufs[][32]);
/* exp_env_fini - close the loop */
void exp_env_fini(struct exp_env *e);
/*
 * exp_pin_coordinator - pin the coordinator to an online CPU that is not
 * measured and not an SMT sibling of one, if there is such a CPU. Returns
 * that CPU or -1.
 */
int exp_pin_coordinator(struct exp_env *e, const struct cli_cpus *measured, const struct cli_cpus *online);

/*
 * exp_run_fluids - run one fluid per CPU in cpus, together and alone, for
 * run_ns; reports[i] is CPU cpus->cpu[i]'s. 0, -EINTR if interrupted, or
 * -errno with a message in err.
 */
int exp_run_fluids(struct exp_env *e, const struct cli_cpus *cpus, const struct exp_fluid_opts *o, uint64_t run_ns,
		   struct fluid_report *reports, char *err, size_t errlen);

/* how long a co-run waits for its fluids to start their windows */
#define EXP_READY_NS 10000000000ull

struct exp_corun_spec {
	const struct cli_cpus *cpus; /* one fluid each; the PUT runs on its own --cpu */
	struct exp_fluid_opts fluid;
	char *const *put_argv;       /* put's argv, NULL-terminated, argv[0] ignored */
	uint64_t lead_in_ns, lead_out_ns;
	uint64_t max_ns;             /* the PUT is killed after this long */
};

struct exp_corun_result {
	int nfluid;
	struct fluid_report fluid[EXP_MAX_CPUS];
	struct put_report put;
	struct procfs_stat stat0, stat1;
	struct procfs_softirqs sirq0, sirq1;
	struct procfs_interrupts irq0, irq1;
	int have_stat, have_sirq, have_irq;
	uint64_t put_spawn_ns, put_exit_ns; /* CLOCK_MONOTONIC_RAW */
	int put_exit;                       /* put's exit status (or 128 + signal) */
	char put_error[512];                /* put's first stderr line, if it failed */
};

/*
 * exp_corun - step 2: start the fluids, wait until each says its window
 * has started (at most EXP_READY_NS), wait the lead-in, run put, wait the
 * lead-out, stop the fluids; /proc/stat and /proc/softirqs around it all.
 * 0; -EINTR if interrupted; -ECHILD if put failed (r->put_exit and
 * r->put_error say how) or the local peer (e->peer) exited, which err
 * then names first; -EAGAIN if a fluid's window did not hold put's whole
 * run (it was held off its CPU from its last clock reading until past its
 * stop: worth a retry); -ETIMEDOUT if put ran too long or a fluid's window
 * never began; or -errno with a message in err.
 */
int exp_corun(struct exp_env *e, const struct exp_corun_spec *s, struct exp_corun_result *r, char *err, size_t errlen);

/* K processes under test at once on one CPU, with no fluid: the saturation check of predict --clients. */
#define EXP_MAX_CLIENTS 64
/* the clients start together this long after they are spawned: time for their set-up */
#define EXP_CLIENTS_START_NS 100000000ull

struct exp_clients_spec {
	char *const *put_argv;  /* each client's argv, NULL-terminated, argv[0] ignored */
	int k;                  /* clients, 1 to EXP_MAX_CLIENTS */
	int cpu, peer_cpu;      /* the measured CPU and the peer's (-1: none), for their busy shares */
	uint64_t max_ns;        /* the clients are killed after this long; 0: no limit */
};

struct exp_clients_result {
	uint64_t ops;           /* all clients' operations */
	double wall_ns;         /* from the first client's loop start to the last one's end */
	double task_clock_ns;   /* the clients' own task-clock, summed; NAN if unavailable */
	double busy, peer_busy; /* the CPUs' busy shares over the run (/proc/stat), NAN if unknown */
	int put_exit;           /* a failed client's exit status */
	char put_error[512];
};

/*
 * exp_clients - run K copies of put at once and wait for them all. 0;
 * -EINTR; -ECHILD if one failed (r->put_exit, r->put_error) or the local
 * peer exited (err names it); -ETIMEDOUT;
 * -EMFILE when out of file descriptors; or -errno with a message in err.
 */
int exp_clients(struct exp_env *e, const struct exp_clients_spec *s, struct exp_clients_result *r, char *err,
		size_t errlen);

#endif
