/* cmd_workloads.c - displace workloads: what can be measured, and why not if not */
#include "coordinator/displace.h"
#include "coordinator/msg.h"
#include "put/put.h"

#include <stdio.h>
#include <string.h>

int cmd_workloads(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: displace workloads\n\nLists the workloads of measure, sweep and predict, their options,\n"
		     "and why any of them is not available in this build.");
		return EXIT_OK;
	}
	if (argc > 1)
		return msg_usage("workloads", "unexpected argument '%s'", argv[1]);
	for (size_t i = 0; put_workloads[i]; i++) {
		const struct put_workload *w = put_workloads[i];
		const char *why = w->unavailable ? w->unavailable() : NULL;
		printf("%s %s\n    %s\n%s%s%s%s\n", w->name, w->usage, w->summary, w->help, why ? "    NOT AVAILABLE: " : "",
		       why ? why : "", why ? "\n" : "");
	}
	return EXIT_OK;
}
