/* dclock.c - the one clock the fluid, put and the coordinator read */
#include "common/dclock.h"

#include <errno.h>

uint64_t dclock_res_ns;
uint64_t dclock_phase_ns;

int dclock_set_resolution(uint64_t res_ns, uint64_t phase_ns)
{
	if (res_ns > 1 && phase_ns >= res_ns)
		return -EINVAL;
	dclock_res_ns = res_ns > 1 ? res_ns : 0;
	dclock_phase_ns = res_ns > 1 ? phase_ns : 0;
	return 0;
}
