/*
 * fuzz_reportline.c - libFuzzer harness for the report-line parser
 * (calib/reportline.c): the one line each fluid and put process prints,
 * which the coordinator reads back, and what a fluid report says.
 */
#include "calib/reportline.h"
#include "fuzz/fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	char err[128], buf[64];
	static struct fluid_report f;
	static struct put_report p;
	if (!report_parse_fluid(line, &f, err, sizeof err)) {
		volatile double sink = fluid_wall_ns(&f) + fluid_raw_wall_ns(&f) + fluid_tau_ns(&f) + fluid_tau0_ns(&f) +
				       fluid_excess_ns(&f) + fluid_steal_ns(&f) + fluid_post_extra_ns(&f);
		(void)sink;
	}
	report_parse_put(line, &p, err, sizeof err);
	report_field(line, "ops", buf, sizeof buf);
	free(line);
	return 0;
}
