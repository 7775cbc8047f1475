/* chunkstat.c - the fluid's per-chunk timing statistics */
#include "common/chunkstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chunkstat_init(struct chunkstat *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->min_ns = UINT64_MAX;
}

uint64_t chunkstat_bucket_low_ns(unsigned b)
{
	if (b == 0)
		return 0;
	unsigned msb = b / CHUNKSTAT_SUB + CHUNKSTAT_MIN_SHIFT;
	uint64_t sub = b % CHUNKSTAT_SUB;
	return (CHUNKSTAT_SUB + sub) << (msb - CHUNKSTAT_SUB_SHIFT);
}

int chunkstat_format_hist(const struct chunkstat *cs, char *buf, size_t len)
{
	size_t used = 0;
	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned b = 0; b < CHUNKSTAT_BUCKETS; b++) {
		if (!cs->hist[b])
			continue;
		int w = snprintf(buf + used, len - used, "%s%u:%" PRIu64, used ? "," : "", b, cs->hist[b]);
		if (w < 0 || (size_t)w >= len - used)
			return -ENOSPC;
		used += (size_t)w;
	}
	return 0;
}

int chunkstat_parse_hist(const char *s, uint64_t *hist)
{
	memset(hist, 0, CHUNKSTAT_BUCKETS * sizeof *hist);
	if (!*s)
		return 0;
	const char *p = s;
	for (;;) {
		char *e;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned long b = strtoul(p, &e, 10);
		if (*e != ':' || b >= CHUNKSTAT_BUCKETS)
			return -EINVAL;
		p = e + 1;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned long long c = strtoull(p, &e, 10);
		hist[b] = c;
		p = e;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

double chunkstat_hist_quantile_ns(const uint64_t *hist, double q)
{
	uint64_t total = 0;
	for (unsigned b = 0; b < CHUNKSTAT_BUCKETS; b++)
		total += hist[b];
	if (total == 0)
		return 0;
	double want = q * (double)total, seen = 0;
	for (unsigned b = 0; b < CHUNKSTAT_BUCKETS; b++) {
		if (!hist[b])
			continue;
		if (seen + (double)hist[b] >= want) {
			/* interpolate inside the bucket */
			double lo = (double)chunkstat_bucket_low_ns(b);
			double hi = b + 1 < CHUNKSTAT_BUCKETS ? (double)chunkstat_bucket_low_ns(b + 1) : lo * 2;
			double f = (want - seen) / (double)hist[b];
			return lo + f * (hi - lo);
		}
		seen += (double)hist[b];
	}
	return (double)chunkstat_bucket_low_ns(CHUNKSTAT_BUCKETS - 1);
}
