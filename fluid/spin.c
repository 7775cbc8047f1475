/* spin.c - the fluid's arithmetic loop kernel */
#include "fluid/spin.h"

uint64_t spin_loops(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		/* Knuth's MMIX LCG constants; a serial dependency of ~4 cycles */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
