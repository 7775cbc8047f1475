/*
 * serve_main.h - the one main of the peer's two front ends, 'put serve'
 * (put/put_main.c, the local peer that displace measure spawns) and
 * 'displace serve' (coordinator/cmd_serve.c, a peer on a remote host).
 * serve_main reads --listen, --unix, --cpu, --ignore-stdin, the limits
 * (--idle-timeout, --max-conns, --max-per-source), --fluid-cpus (displace
 * serve only) and --help, pins, opens
 * the server (put/serve.h), warns if it listens beyond loopback (it has
 * no authentication), prints the ready line, serves,
 * prints the stop line, closes and returns the exit status. What differs
 * between the two is in struct serve_main_front: how each reads its
 * command line, and how each words and prints its messages.
 */
#ifndef SERVE_MAIN_H
#define SERVE_MAIN_H

#include "common/cli.h"
#include "put/serve.h"

#include <stdbool.h>
#include <stddef.h>

/* How a front end reads its options; the messages are the same words. */
enum serve_main_argv {
	/* getopt_long: operands after the options are refused ("unexpected argument"), long options may be abbreviated, -- ends them */
	SERVE_MAIN_GETOPT,
	/* put's own (cli_opt_value): each word an option spelled out, its value after '=' or in the next word */
	SERVE_MAIN_EXACT,
};

struct serve_main_front {
	const char *prog;      /* in the usage line of --help: "put serve", "displace serve" */
	const char *help_tail; /* --help after the usage line and SERVE_HELP_TEXT */
	enum serve_main_argv argv_style;
	bool die_with_parent; /* stop (SIGTERM) when the parent dies: put serve, a child of displace measure */
	/* a line about a bad client (serve_config.log; ctx is NULL) */
	void (*log)(void *ctx, const char *line);
	/* a failure after the options were read: cannot pin, cannot bind, ... */
	void (*error)(const char *msg);
	/* a warning: it listens beyond loopback */
	void (*warn)(const char *msg);
	/* a bad command line; unknown_option: the word is no option at all */
	void (*usage_error)(const char *msg, bool unknown_option);
	/*
	 * fluids - with --fluid-cpus (displace serve; NULL for put serve, which
	 * runs none): check the CPUs and give what runs fluids on them. 0;
	 * -EINVAL, a usage error (a CPU not online); or another -errno (the
	 * fluid helper is missing); the reason in err
	 */
	int (*fluids)(const struct cli_cpus *cpus, const struct serve_fluids **out, char *err, size_t errlen);
};

/*
 * serve_main - the peer's main. argv[0] is the command ("serve"); cpu is
 * the CPU to pin to unless --cpu says otherwise (-1: not pinned). The exit
 * status: 0 stopped, 1 failed, 2 usage error, 3 cannot bind (address in
 * use, not local, no permission)
 */
int serve_main(int argc, char **argv, int cpu, const struct serve_main_front *f);

#endif
