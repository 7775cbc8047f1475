/* dclock.h - the clocks the fluid, put and the coordinator read */
#ifndef DCLOCK_H
#define DCLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * Every timestamp is CLOCK_MONOTONIC_RAW in nanoseconds. For the slow-clock
 * experiments, dclock_set_resolution makes every reading a multiple of a
 * coarser resolution, with a phase: t -> floor((t + phase) / res) * res.
 */
extern uint64_t dclock_res_ns;
extern uint64_t dclock_phase_ns;

/* dclock_raw_ns - CLOCK_MONOTONIC_RAW now, in ns, never quantised */
static inline uint64_t dclock_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * dclock_mono_ns - CLOCK_MONOTONIC now, in ns: for deadlines, timeouts and
 * progress, never for a measured duration (which is dclock_raw_ns)
 */
static inline uint64_t dclock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* dclock_quantise_ns - a raw reading as the configured clock shows it */
static inline uint64_t dclock_quantise_ns(uint64_t raw_ns)
{
	if (dclock_res_ns > 1)
		raw_ns = (raw_ns + dclock_phase_ns) / dclock_res_ns * dclock_res_ns;
	return raw_ns;
}

/* dclock_now_ns - the clock as configured: raw, or quantised to the resolution */
static inline uint64_t dclock_now_ns(void)
{
	return dclock_quantise_ns(dclock_raw_ns());
}

/*
 * dclock_set_resolution - quantise readings to res_ns (0 or 1: off) with
 * phase_ns in [0, res_ns). -EINVAL if the phase is not below res.
 */
int dclock_set_resolution(uint64_t res_ns, uint64_t phase_ns);

#endif
