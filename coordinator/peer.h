/*
 * peer.h - the local peer: 'put serve' started by measure, sweep and
 * predict for the socket and RPC workloads, pinned to the peer CPU.
 */
#ifndef PEER_H
#define PEER_H

#include "coordinator/experiment.h"

struct peer {
	struct child c;
	int started;
	int cpu;                 /* where it is pinned */
	char tcp[96], udp[96], unix_path[128], rpc[96];
	char dir[64];            /* temporary directory of the unix socket */
};

/*
 * peer_start - start 'put serve' on cpu (bound to 127.0.0.1, free ports,
 * a unix socket in a fresh temporary directory) and wait for its ready
 * line. 0, or -errno with a message in err.
 */
int peer_start(struct exp_env *e, struct peer *p, int cpu, char *err, size_t errlen);
/* peer_addr - the address the workload kind ("tcp", "udp", "unix", "rpc") connects to */
const char *peer_addr(const struct peer *p, const char *kind);
/* peer_pid - the peer's process id, 0 if none */
int peer_pid(const struct peer *p);
/* peer_alive - the peer has not exited */
int peer_alive(const struct peer *p);
/* peer_stop - stop it, wait for it, remove its socket directory */
void peer_stop(struct exp_env *e, struct peer *p);

#endif
