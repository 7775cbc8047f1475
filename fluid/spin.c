/* spin.c - the fluid's arithmetic loop kernel */
#include "fluid/spin.h"

#include <time.h>

uint64_t spin_loops(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		/* Knuth's MMIX LCG constants; a serial dependency of ~4 cycles */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double spin_calibrate_ns_per_loop(void)
{
	const uint64_t trial_loops = 2000000;
	double best = 0;
	uint64_t x = spin_loops(trial_loops / 4, 1); /* warm up */
	for (int k = 0; k < 4; k++) {
		uint64_t c0 = thread_cpu_ns();
		x = spin_loops(trial_loops, x);
		uint64_t c1 = thread_cpu_ns();
		double ns = (double)(c1 - c0) / (double)trial_loops;
		if (best == 0 || ns < best)
			best = ns;
	}
	/* x feeds nothing, but spin_loops' asm keeps every loop anyway */
	(void)x;
	return best;
}
