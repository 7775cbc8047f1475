/* clockprobe.h - how fine a clock is and what one reading costs */
#ifndef CLOCKPROBE_H
#define CLOCKPROBE_H

#include <stdint.h>
#include <time.h>

struct clockprobe {
	clockid_t id;
	const char *name;
	uint64_t getres_ns;     /* clock_getres */
	uint64_t min_step_ns;   /* the smallest non-zero difference of two readings */
	double read_ns;         /* mean cost of one reading, back to back */
	double read_median_ns;  /* median back-to-back difference */
	double zero_frac;       /* share of back-to-back readings that did not advance */
	uint64_t reads;
};

/*
 * clockprobe_measure - read the clock n times back to back, as in the
 * delta loop of Feitelson's lecture, storing only the differences, and
 * summarise them. -errno if the clock cannot be read.
 */
int clockprobe_measure(clockid_t id, const char *name, uint64_t n, struct clockprobe *p);

#endif
