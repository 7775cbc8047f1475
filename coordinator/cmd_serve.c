/*
 * cmd_serve.c - displace serve: the peer of the socket and RPC workloads,
 * for running on a remote host (the local peer is 'put serve', spawned by
 * displace measure). The server itself is put/serve.c.
 */
#include "common/cli.h"
#include "common/pin.h"
#include "coordinator/displace.h"
#include "coordinator/msg.h"
#include "put/serve.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: displace serve [--listen ADDR[:PORT]] [--unix PATH|none] [--cpu N] [--ignore-stdin]\n"
	      "\n",
	      f);
	fputs(SERVE_HELP_TEXT, f);
	fputs("\n"
	      "On a remote host, listen on an address the measuring host reaches, e.g.\n"
	      "  displace serve --listen 0.0.0.0:7777 --cpu 1 </dev/null\n"
	      "and give the workloads --peer HOST:7777 (rpc: HOST:7778). The server has\n"
	      "no authentication: listen on a trusted network only.\n"
	      "Exit status: 0 stopped, 2 usage error, 3 cannot bind (address in use, not\n"
	      "local, no permission).\n",
	      f);
}

static void serve_log(void *ctx, const char *line)
{
	(void)ctx;
	msg_warn("%s", line);
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "unix", required_argument, NULL, 'u' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "ignore-stdin", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct serve_config cfg;
	int cpu = -1, c, rc;
	char err[512], line[512];

	serve_config_init(&cfg);
	cfg.log = serve_log;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			rc = serve_config_listen(&cfg, optarg);
			if (rc == -ERANGE)
				return msg_usage("serve", "invalid value '%s' for --listen (the port must leave PORT+1 for rpc)",
						 optarg);
			if (rc)
				return msg_usage("serve",
						 "invalid value '%s' for --listen (numeric IPv4, [IPv6] or bare IPv6, "
						 "then an optional :PORT)",
						 optarg);
			break;
		case 'u':
			rc = serve_config_unix(&cfg, optarg);
			if (rc)
				return msg_usage("serve", "invalid value '%s' for --unix (%s)", optarg,
						 rc == -ENAMETOOLONG ? "above 107 bytes" : "empty or with white space");
			break;
		case 'c':
			if (cli_parse_int(optarg, 0, CLI_MAX_CPUS - 1, &cpu))
				return msg_usage("serve", "invalid value '%s' for --cpu", optarg);
			break;
		case 'i':
			cfg.watch_stdin = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return msg_getopt_error("serve", c, argv);
		}
	}
	if (optind < argc)
		return msg_usage("serve", "unexpected argument '%s'", argv[optind]);

	signal(SIGPIPE, SIG_IGN);
	/* before serve_open starts the RPC thread, which inherits it */
	int prc = cpu >= 0 ? pin_to_cpu(cpu) : 0;
	if (prc) {
		msg_error("cannot pin to cpu %d: %s", cpu, strerror(-prc));
		return EXIT_USAGE;
	}
	struct serve *srv;
	rc = serve_open(&cfg, &srv, err, sizeof err);
	if (rc) {
		msg_error("%s", err);
		return rc == -ENOMEM || rc == -EBUSY ? EXIT_FAILED : EXIT_RESOURCE;
	}
	serve_ready_line(srv, line, sizeof line);
	printf("%s\n", line);
	fflush(stdout);
	rc = serve_run(srv, err, sizeof err);
	if (rc)
		msg_error("%s", err);
	serve_stop_line(srv, line, sizeof line);
	printf("%s\n", line);
	serve_close(srv);
	return fflush(stdout) || rc ? EXIT_FAILED : EXIT_OK;
}
