/*
 * peer.h - the local peer: 'put serve' started by measure, sweep and
 * predict for the socket and RPC workloads, pinned to the peer CPU.
 */
#ifndef PEER_H
#define PEER_H

#include "coordinator/experiment.h"

/* the local peer's directory, /tmp/displace-peer-<pid>-XXXXXX, and its socket in it */
#define PEER_DIR_PREFIX "displace-peer-"
#define PEER_SOCK_NAME "peer.sock"

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
 * line; stale directories of killed runs are removed first
 * (peer_clean_stale). 0, or -errno with a message in err.
 */
int peer_start(struct exp_env *e, struct peer *p, int cpu, char *err, size_t errlen);
/*
 * peer_clean_stale - remove the peer directories in tmpdir that a
 * displace killed outright left behind: its pid is gone, the directory is
 * the caller's own (not a symbolic link), and nothing listens on its
 * socket. Returns how many were removed.
 */
int peer_clean_stale(const char *tmpdir);
/* peer_addr - the address the workload kind ("tcp", "udp", "unix", "rpc") connects to */
const char *peer_addr(const struct peer *p, const char *kind);
/* peer_pid - the peer's process id, 0 if none */
int peer_pid(const struct peer *p);
/* peer_alive - the peer has not exited */
int peer_alive(const struct peer *p);
/* peer_stop - stop it, wait for it, remove its socket directory */
void peer_stop(struct exp_env *e, struct peer *p);

#endif
