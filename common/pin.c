/* pin.c - pin the calling thread to one CPU */
#include "common/pin.h"

#include <errno.h>
#include <sched.h>

int pin_to_cpu(int cpu)
{
	cpu_set_t set;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0: the calling thread; threads it creates afterwards inherit the mask */
	return sched_setaffinity(0, sizeof set, &set) ? -errno : 0;
}
