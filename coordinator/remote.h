/*
 * remote.h - the peer host's fluids, from the coordinator's side: a
 * control connection to 'displace serve --fluid-cpus' (put/ctl_wire.h)
 * that calibrates them and runs them around each co-run, and reads their
 * report lines back (calib/reportline.c parses them as it does the local
 * fluids'). Plain blocking I/O with deadlines: one request at a time,
 * between the local runs.
 *
 * Library rules: 0 or -errno with the reason in err; nothing printed.
 */
#ifndef REMOTE_H
#define REMOTE_H

#include "calib/reportline.h"
#include "coordinator/experiment.h"
#include "put/ctl_wire.h"
#include "put/net.h"

struct remote {
	int fd;                  /* the control connection, -1 when closed */
	char name[NET_UNIX_PATH_MAX + 16];
	struct cli_cpus offered; /* the peer's --fluid-cpus (its INFO) */
	struct cli_cpus cpus;    /* the ones measured: a fluid on each */
	int use_steal;           /* the peer's kernel: task-clock minus CPU time is steal */
	struct ctl_reader *rd;
	uint8_t in[4096];        /* bytes received, not yet framed */
	size_t in_have, in_at;
};

/*
 * remote_control_addr - where the control connection goes, from the
 * workload's peer kind ("tcp", "udp", "unix", "rpc") and its --peer: the
 * peer's hello port (rpc: the port before), or its unix socket. -EINVAL
 */
int remote_control_addr(const char *kind, const char *peer_arg, struct net_addr *a);
/*
 * remote_open - connect, say the control hello, read INFO, and choose the
 * CPUs: cpus_arg "all" (every one the peer offers) or a list among them.
 * -EINVAL (a CPU it does not offer), -ECONNREFUSED (the peer refused: no
 * --fluid-cpus, busy, another version), -ETIMEDOUT, or -errno; err says why
 */
int remote_open(struct remote *r, const struct net_addr *a, const char *cpus_arg, char *err, size_t errlen);
/* remote_cal_begin - ask for a calibration of run_ns (its reports come with remote_cal_end) */
int remote_cal_begin(struct remote *r, const struct exp_fluid_opts *f, uint64_t run_ns, char *err, size_t errlen);
/*
 * remote_cal_end - the calibration's reports, reps[i] of r->cpus.cpu[i];
 * each must have run its whole time (stop=time)
 */
int remote_cal_end(struct remote *r, uint64_t run_ns, struct fluid_report *reps, char *err, size_t errlen);
/* remote_start - start the fluids of a co-run (stopped by the peer after max_ns) and wait until they run */
int remote_start(struct remote *r, const struct exp_fluid_opts *f, uint64_t max_ns, char *err, size_t errlen);
/*
 * remote_stop - stop them and read their reports (reps may be NULL: not
 * wanted); a fluid that stopped by its time limit ran short of the run:
 * -ETIMEDOUT
 */
int remote_stop(struct remote *r, struct fluid_report *reps, char *err, size_t errlen);
/* remote_close - close the connection (the peer stops any fluid of it) */
void remote_close(struct remote *r);

#endif
