/* taskclock.h - perf task-clock of the calling process, opened disabled */
#ifndef TASKCLOCK_H
#define TASKCLOCK_H

/*
 * taskclock_open - a perf_event_open(2) software task-clock counter for this
 * process (and its future children with inherit), disabled, to be enabled
 * and disabled with ioctl. Without privilege under perf_event_paranoid >= 2
 * it retries with exclude_kernel, which does not change a task-clock count.
 * Returns the fd, or -errno.
 */
int taskclock_open(int inherit);

#endif
