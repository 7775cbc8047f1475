/* taskclock.c - perf task-clock of the calling process, opened disabled */
#include "common/taskclock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_counter(int inherit, int exclude_kernel)
{
	struct perf_event_attr pe;
	memset(&pe, 0, sizeof pe);
	pe.size = sizeof pe;
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.disabled = 1;
	pe.inherit = (unsigned)inherit;
	pe.exclude_kernel = (unsigned)exclude_kernel;
	pe.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int taskclock_open(int inherit)
{
	int fd = open_counter(inherit, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open_counter(inherit, 1);
	return fd < 0 ? -errno : fd;
}
