/* spin.h - the fluid's arithmetic loop kernel, shared with put's spin workload */
#ifndef SPIN_H
#define SPIN_H

#include <stdint.h>

/*
 * Names the loop body below. A calibration is valid only for the same
 * variant, so change it whenever spin_loops changes.
 */
#define SPIN_VARIANT "lcg64-v1"

/*
 * spin_loops - run n iterations of a 64-bit linear congruential step on x
 * and return the result. The body is one multiply and one add on a
 * register: no calls, no syscalls, no memory traffic. An empty asm that
 * claims to read and write x stops the compiler from folding or deleting
 * the loop. Built at -O2 and never sanitized.
 */
uint64_t spin_loops(uint64_t n, uint64_t x);

/*
 * spin_calibrate_ns_per_loop - ns per loop on this CPU in thread CPU time
 * (time stolen from the thread does not count): the fastest of four
 * ~2 ms trials after a warm-up. For workloads that spin a given time.
 */
double spin_calibrate_ns_per_loop(void);

#endif
