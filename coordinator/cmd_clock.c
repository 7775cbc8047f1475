/* cmd_clock.c - displace clock: resolution, smallest step and read cost of the clocks */
#include "coordinator/clockprobe.h"
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/msg.h"
#include "common/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fputs("usage: displace clock [--reads N] [--json]\n"
	      "\n"
	      "Reports, for CLOCK_MONOTONIC_RAW (the clock displace times with),\n"
	      "CLOCK_MONOTONIC and CLOCK_PROCESS_CPUTIME_ID:\n"
	      "  getres     what clock_getres claims\n"
	      "  min step   the smallest non-zero difference between two readings; the\n"
	      "             resolution D that e_res uses\n"
	      "  read cost  the mean and median difference of back-to-back readings\n"
	      "             (Feitelson's delta loop): the cost of one reading\n"
	      "  zero       how often two readings in a row were equal\n"
	      "\n"
	      "Options:\n"
	      "  --reads N   readings per clock (default 200000)\n"
	      "  --json      print JSON instead of the table\n"
	      "  -h, --help  this help\n",
	      f);
}

int cmd_clock(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reads", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	uint64_t reads = 200000;
	int json = 0, c;
	struct msg_getopt g = { .cmd = "clock", .opts = opts, .usage = usage, .json = &json };
	while ((c = msg_getopt_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_u64(optarg, 2, 100000000, &reads))
				return msg_usage("clock", "invalid value '%s' for --reads (2 to 100000000)", optarg);
			break;
		}
	}
	if (g.status >= 0)
		return g.status;
	if (msg_no_operands("clock", argc, argv))
		return EXIT_USAGE;

	static const struct {
		clockid_t id;
		const char *name;
	} clocks[] = {
		{ CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
		{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
		{ CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID" },
	};
	struct clockprobe p[3];
	for (size_t i = 0; i < 3; i++) {
		int rc = clockprobe_measure(clocks[i].id, clocks[i].name, reads, &p[i]);
		if (rc) {
			msg_error("cannot read %s: %s", clocks[i].name, strerror(-rc));
			return EXIT_RESOURCE;
		}
	}
	if (json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < 3; i++)
			json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:o, s:o, s:o, s:I}", "clock", p[i].name,
							     "getres_ns", (json_int_t)p[i].getres_ns, "min_step_ns",
							     (json_int_t)p[i].min_step_ns, "read_ns", jout_num(p[i].read_ns),
							     "read_median_ns", jout_num(p[i].read_median_ns), "zero_frac",
							     jout_num(p[i].zero_frac), "reads", (json_int_t)p[i].reads));
		return jout_print(json_pack("{s:o}", "clocks", arr)) ? EXIT_FAILED : EXIT_OK;
	}
	printf("%-26s %10s %10s %14s %14s %8s\n", "clock", "getres", "min step", "read (mean)", "read (median)",
	       "zero");
	for (size_t i = 0; i < 3; i++)
		printf("%-26s %7" PRIu64 " ns %7" PRIu64 " ns %11.1f ns %11.1f ns %7.1f%%\n", p[i].name, p[i].getres_ns,
		       p[i].min_step_ns, p[i].read_ns, p[i].read_median_ns, p[i].zero_frac * 100);
	printf("\n%" PRIu64 " back-to-back readings per clock.\n", reads);
	return EXIT_OK;
}
