/* clockprobe.c - how fine a clock is and what one reading costs */
#include "coordinator/clockprobe.h"
#include "calib/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

int clockprobe_measure(clockid_t id, const char *name, uint64_t n, struct clockprobe *p)
{
	struct timespec ts;
	memset(p, 0, sizeof *p);
	p->id = id;
	p->name = name;
	if (n < 2 || clock_getres(id, &ts))
		return n < 2 ? -EINVAL : -errno;
	p->getres_ns = ts_ns(&ts);
	uint64_t *t = malloc(n * sizeof *t);
	if (!t)
		return -ENOMEM;
	/* the readings first, the arithmetic after: nothing between two reads */
	for (uint64_t i = 0; i < n; i++) {
		clock_gettime(id, &ts);
		t[i] = ts_ns(&ts);
	}
	uint64_t zero = 0, min_step = UINT64_MAX;
	double *d = malloc((n - 1) * sizeof *d);
	if (!d) {
		free(t);
		return -ENOMEM;
	}
	for (uint64_t i = 1; i < n; i++) {
		uint64_t dt = t[i] - t[i - 1];
		d[i - 1] = (double)dt;
		if (dt == 0)
			zero++;
		else if (dt < min_step)
			min_step = dt;
	}
	p->reads = n;
	p->min_step_ns = min_step == UINT64_MAX ? 0 : min_step;
	p->read_ns = (double)(t[n - 1] - t[0]) / (double)(n - 1);
	p->read_median_ns = stats_median(d, n - 1);
	p->zero_frac = (double)zero / (double)(n - 1);
	free(d);
	free(t);
	return 0;
}
