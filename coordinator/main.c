/* main.c - the displace command: global options and the command table */
#include "coordinator/displace.h"
#include "coordinator/msg.h"

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	
	{ "calibrate", cmd_calibrate, "step 1: time the fluid alone, judge the host, save tau_F" },
	{ "measure", cmd_measure, "step 2: the CPU cost of one operation of a workload" },
	{ "sweep", cmd_sweep, "the cost of one operation by message size" },
	{ "predict", cmd_predict, "saturation throughput predicted from costs, and checked" },
	{ "plan", cmd_plan, "loops needed with a slow clock (Beilner, Chan, Danzig)" },
	{ "ticks", cmd_ticks, "mean, sd and CI of durations from tick counts" },
	{ "clock", cmd_clock, "clock resolution, smallest step and read cost" },
	{ "workloads", cmd_workloads, "list the workloads and their options" },
	{ "serve", cmd_serve, "the peer of the socket and RPC workloads, for a remote host" },
};

static void usage(FILE *f)
{
	fputs("usage: displace COMMAND [OPTIONS]\n"
	      "\n"
	      "Measures what one operation really costs a CPU, by displacement: a fluid\n"
	      "loop runs beside the process under test, and the time it loses is the CPU\n"
	      "time the process took, interrupts and softirqs included.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "Global options:\n"
	      "  -h, --help     this help\n"
	      "  --version      print the version\n"
	      "\n"
	      "'displace COMMAND --help' documents each command.\n"
	      "Exit status: 0 success, 1 the experiment failed, 2 usage error, 3 a missing\n"
	      "resource or permission, 4 workload not available in this build, 5 result\n"
	      "untrustworthy under --strict.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("displace %s\n", DISPLACE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	if (name[0] == '-')
		return msg_usage(NULL, "unknown option '%s'", name);
	return msg_usage(NULL, "unknown command '%s'", name);
}
