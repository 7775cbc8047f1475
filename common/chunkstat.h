/* chunkstat.h - the fluid's per-chunk timing statistics */
#ifndef CHUNKSTAT_H
#define CHUNKSTAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Chunk durations go into a histogram of log buckets, CHUNKSTAT_SUB per
 * octave (about 2.2 % wide), from 2^CHUNKSTAT_MIN_SHIFT ns upwards;
 * anything shorter lands in bucket 0, anything longer in the last.
 */
#define CHUNKSTAT_SUB_SHIFT 5
#define CHUNKSTAT_SUB (1 << CHUNKSTAT_SUB_SHIFT)
#define CHUNKSTAT_MIN_SHIFT 6
#define CHUNKSTAT_OCTAVES 32
#define CHUNKSTAT_BUCKETS (CHUNKSTAT_SUB * CHUNKSTAT_OCTAVES)

/*
 * A chunk is a gap when it lasts more than GAP_NUM/GAP_DEN of the shortest
 * chunk seen so far: something else ran on the CPU inside it. The chunk
 * right after a gap ("post") may be slow while the fluid reloads its
 * cache; it is kept apart. Every other chunk is "ok": its mean is the
 * fluid's undisturbed speed.
 */
#define CHUNKSTAT_GAP_NUM 3
#define CHUNKSTAT_GAP_DEN 2

struct chunkstat {
	uint64_t chunks;
	uint64_t min_ns, max_ns;
	uint64_t ok_n, ok_ns;
	uint64_t gap_n, gap_ns;   /* gap chunks and their whole durations */
	uint64_t post_n, post_ns; /* first non-gap chunk after a gap */
	int prev_gap;
	uint64_t hist[CHUNKSTAT_BUCKETS];
};

/* chunkstat_bucket - histogram bucket of a duration */
static inline unsigned chunkstat_bucket(uint64_t ns)
{
	if (ns < (1ull << CHUNKSTAT_MIN_SHIFT))
		return 0;
	unsigned msb = 63u - (unsigned)__builtin_clzll(ns);
	unsigned sub = (unsigned)(ns >> (msb - CHUNKSTAT_SUB_SHIFT)) & (CHUNKSTAT_SUB - 1);
	unsigned b = (msb - CHUNKSTAT_MIN_SHIFT) * CHUNKSTAT_SUB + sub;
	return b < CHUNKSTAT_BUCKETS ? b : CHUNKSTAT_BUCKETS - 1;
}

/* chunkstat_add - account one chunk of dt_ns; cheap enough for every chunk */
static inline void chunkstat_add(struct chunkstat *cs, uint64_t dt_ns)
{
	cs->chunks++;
	cs->hist[chunkstat_bucket(dt_ns)]++;
	if (dt_ns < cs->min_ns)
		cs->min_ns = dt_ns;
	if (dt_ns > cs->max_ns)
		cs->max_ns = dt_ns;
	if (dt_ns * CHUNKSTAT_GAP_DEN > cs->min_ns * CHUNKSTAT_GAP_NUM) {
		cs->gap_n++;
		cs->gap_ns += dt_ns;
		cs->prev_gap = 1;
	} else if (cs->prev_gap) {
		cs->post_n++;
		cs->post_ns += dt_ns;
		cs->prev_gap = 0;
	} else {
		cs->ok_n++;
		cs->ok_ns += dt_ns;
	}
}

/* chunkstat_init - empty statistics */
void chunkstat_init(struct chunkstat *cs);
/* chunkstat_bucket_low_ns - the smallest duration that falls in bucket b */
uint64_t chunkstat_bucket_low_ns(unsigned b);
/*
 * chunkstat_format_hist - the non-empty buckets as "b:count,b:count"; the
 * caller's buffer; -ENOSPC if it is too small.
 */
int chunkstat_format_hist(const struct chunkstat *cs, char *buf, size_t len);
/* chunkstat_parse_hist - the inverse, into hist[CHUNKSTAT_BUCKETS]; -EINVAL */
int chunkstat_parse_hist(const char *s, uint64_t *hist);
/* chunkstat_hist_quantile_ns - the q-quantile (0..1) of a histogram, at bucket resolution */
double chunkstat_hist_quantile_ns(const uint64_t *hist, double q);

#endif
