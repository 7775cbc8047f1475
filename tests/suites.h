/* suites.h - one Suite per module; check_main.c runs them all */
#ifndef SUITES_H
#define SUITES_H

#include <check.h>

Suite *stats_suite(void);
Suite *stopping_suite(void);
Suite *cli_suite(void);
Suite *fluid_suite(void);
Suite *measure_suite(void);
Suite *slowclock_suite(void);
Suite *calibration_suite(void);
Suite *csvio_suite(void);
Suite *procfs_suite(void);
Suite *reportline_suite(void);
Suite *serve_suite(void);
Suite *put_net_suite(void);
Suite *net_suite(void);
Suite *sweep_suite(void);
Suite *predict_suite(void);
Suite *estimate_suite(void);
Suite *summary_suite(void);
Suite *predict_math_suite(void);
Suite *series_suite(void);
Suite *pin_suite(void);
Suite *vec_suite(void);
Suite *switchlog_suite(void);
Suite *dclock_suite(void);
Suite *outfile_suite(void);
Suite *safetext_suite(void);
Suite *csvout_suite(void);
Suite *plot_suite(void);
Suite *ticksfile_suite(void);
Suite *peer_suite(void);
Suite *msg_suite(void);
Suite *siphash_suite(void);
Suite *udp_gate_suite(void);
Suite *rpc_wire_suite(void);
Suite *ctl_wire_suite(void);
Suite *remote_suite(void);

/*
 * A local peer for the socket tests, 'put serve --listen ADDR --unix
 * DIR/s.sock' with stdin and stdout on pipes and stderr in DIR/err
 * (check_serve.c). Its fields are the values of its ready line.
 */
#include <stddef.h>
#include <sys/types.h>

struct tpeer {
	pid_t pid;
	int in_fd, out_fd;
	char dir[64];
	char err_path[96];
	char line[512];
	char tcp[80], udp[80], unix_path[128], rpc[80];
	int stopped;
	char log[8192]; /* its stderr, kept when it stops and its directory goes */
};

/* tpeer_start - start a peer on listen (e.g. "127.0.0.1:0"); 0 once ready, else its exit status */
int tpeer_start(struct tpeer *p, const char *listen);

/* How a test peer is started, beyond its address. */
struct tpeer_opts {
	const char *front;        /* "put" (put serve, the default) or "displace" (displace serve) */
	const char *const *args;  /* more options for it, NULL-terminated */
	unsigned long nofile;     /* its RLIMIT_NOFILE; 0 leaves the test's */
	int netns;                /* in a network namespace of its own, where only it listens */
};

#define TPEER_NO_NETNS 125 /* the exit status of a peer that could not have a network namespace */

/* tpeer_start_with - tpeer_start with options; 0 once ready, else its exit status */
int tpeer_start_with(struct tpeer *p, const char *listen, const struct tpeer_opts *o);
/*
 * tpeer_stop - close its stdin and wait (SIGKILL after 10 s); its exit
 * status, its last line in stop. Its directory is removed, its log kept.
 */
int tpeer_stop(struct tpeer *p, char *stop, size_t len);
/* tpeer_log - its stderr so far (all of it, once stopped), in buf */
const char *tpeer_log(const struct tpeer *p, char *buf, size_t len);

#endif
