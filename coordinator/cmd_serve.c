/*
 * cmd_serve.c - displace serve: the peer of the socket and RPC workloads,
 * for running on a remote host (the local peer is 'put serve', spawned by
 * displace measure). Both are serve_main (put/serve_main.c); the server
 * itself is put/serve.c.
 */
#include "coordinator/displace.h"
#include "coordinator/fluidhost.h"
#include "coordinator/msg.h"
#include "put/serve_main.h"

#include <stdbool.h>

static void serve_log(void *ctx, const char *line)
{
	(void)ctx;
	msg_warn("%s", line);
}

static void serve_error(const char *msg)
{
	msg_error("%s", msg);
}

static void serve_warn(const char *msg)
{
	msg_warn("%s", msg);
}

static void serve_usage_error(const char *msg, bool unknown_option)
{
	(void)unknown_option;
	msg_usage("serve", "%s", msg);
}

int cmd_serve(int argc, char **argv)
{
	static const struct serve_main_front front = {
		.prog = "displace serve",
		.help_tail = "\n"
			     "On a remote host, listen on an address the measuring host reaches, e.g.\n"
			     "  displace serve --listen 0.0.0.0:7777 --cpu 1 </dev/null\n"
			     "and give the workloads --peer HOST:7777 (rpc: HOST:7778). The server has\n"
			     "no authentication: listen on a trusted network only.\n"
			     "\n"
			     "The peer's own CPU cost (displace only):\n"
			     "  --fluid-cpus LIST     take control connections (put/ctl_wire.h) that run\n"
			     "                        a fluid on these CPUs of this host, and only these,\n"
			     "                        to calibrate and around each co-run, and send\n"
			     "                        back its report: 'displace measure --peer ADDR\n"
			     "                        --remote-cpus all' then gives the receiver's cost\n"
			     "                        per operation beside the sender's (default: off;\n"
			     "                        CPU numbers, e.g. 1 or 2-3, at most 64)\n"
			     "  e.g. displace serve --listen 10.0.0.2:7777 --cpu 1 --fluid-cpus 1 </dev/null\n"
			     "\n"
			     "Exit status: 0 stopped, 2 usage error (a --fluid-cpus CPU not online), 3\n"
			     "cannot bind (address in use, not local, no permission) or no fluid helper.\n",
		.argv_style = SERVE_MAIN_GETOPT,
		.die_with_parent = false,
		.log = serve_log,
		.error = serve_error,
		.warn = serve_warn,
		.usage_error = serve_usage_error,
		.fluids = fluidhost_get,
	};
	return serve_main(argc, argv, -1, &front);
}
