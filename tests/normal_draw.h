/*
 * normal_draw.h - a standard normal draw from a seeded generator, for the
 * tests and benches that simulate series (tests/check_stats.c,
 * bench/spells-sim.c): Box-Muller over a 64-bit LCG (Knuth's MMIX
 * constants), so a seed fixes the series on every host.
 */
#ifndef DISPLACE_TESTS_NORMAL_DRAW_H
#define DISPLACE_TESTS_NORMAL_DRAW_H

#include <math.h>
#include <stdint.h>

static inline double normal_draw(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	double u1 = ((double)(*state >> 11) + 1.0) / 9007199254740993.0;
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	double u2 = (double)(*state >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#endif
