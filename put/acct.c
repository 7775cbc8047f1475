/* acct.c - the OS's own accounting of the timed loop, as the PUT sees it */
#include "put/acct.h"
#include "common/taskclock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

void acct_open(struct acct *a, int children, int task_clock)
{
	memset(a, 0, sizeof *a);
	a->children = children;
	/* not asked for: its counter would cost every context switch of the PUT perf's hooks */
	int fd = task_clock ? taskclock_open(children) : -ECANCELED;
	a->perf_fd = fd < 0 ? -1 : fd;
	a->perf_err = fd < 0 ? fd : 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* sum_exec_runtime from /proc/self/schedstat (first field); 0 or -errno */
static int schedstat_ns(uint64_t *ns)
{
	char buf[128];
	int fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t r = read(fd, buf, sizeof buf - 1);
	int e = errno;
	close(fd);
	if (r <= 0)
		return r < 0 ? -e : -EIO;
	buf[r] = '\0';
	unsigned long long v;
	if (sscanf(buf, "%llu", &v) != 1)
		return -EIO;
	*ns = v;
	return 0;
}

void acct_start(struct acct *a)
{
	if (a->perf_fd >= 0) {
		ioctl(a->perf_fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(a->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	a->sched_err = schedstat_ns(&a->sched0_ns);
	getrusage(RUSAGE_SELF, &a->ru0);
	getrusage(RUSAGE_CHILDREN, &a->ruc0);
	a->cpu0_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

void acct_stop(struct acct *a)
{
	a->cpu1_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &a->ru1);
	getrusage(RUSAGE_CHILDREN, &a->ruc1);
	if (!a->sched_err)
		a->sched_err = schedstat_ns(&a->sched1_ns);
	if (a->perf_fd >= 0) {
		uint64_t v;
		ioctl(a->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
		ssize_t got = read(a->perf_fd, &v, sizeof v);
		if (got == (ssize_t)sizeof v)
			a->task_clock_ns = v;
		else
			a->perf_err = got < 0 ? -errno : -EIO; /* a short read sets no errno */
	}
}

void acct_close(struct acct *a)
{
	if (a->perf_fd >= 0)
		close(a->perf_fd);
	a->perf_fd = -1;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static uint64_t ru_delta(struct timeval t1, struct timeval t0)
{
	return tv_ns(t1) - tv_ns(t0);
}

struct acct_val acct_utime_ns(const struct acct *a)
{
	uint64_t ns = ru_delta(a->ru1.ru_utime, a->ru0.ru_utime);
	if (a->children)
		ns += ru_delta(a->ruc1.ru_utime, a->ruc0.ru_utime);
	return (struct acct_val){ ns, 0 };
}

struct acct_val acct_stime_ns(const struct acct *a)
{
	uint64_t ns = ru_delta(a->ru1.ru_stime, a->ru0.ru_stime);
	if (a->children)
		ns += ru_delta(a->ruc1.ru_stime, a->ruc0.ru_stime);
	return (struct acct_val){ ns, 0 };
}

struct acct_val acct_getrusage_ns(const struct acct *a)
{
	return (struct acct_val){ acct_utime_ns(a).ns + acct_stime_ns(a).ns, 0 };
}

struct acct_val acct_task_clock_ns(const struct acct *a)
{
	/* perf_err: the open's or the read's failure, 0 when the count was read */
	return (struct acct_val){ a->task_clock_ns, a->perf_err };
}

struct acct_val acct_cputime_ns(const struct acct *a)
{
	/* CLOCK_PROCESS_CPUTIME_ID never includes children */
	if (a->children)
		return (struct acct_val){ 0, -ENOTSUP };
	return (struct acct_val){ a->cpu1_ns - a->cpu0_ns, 0 };
}

struct acct_val acct_schedstat_ns(const struct acct *a)
{
	if (a->children)
		return (struct acct_val){ 0, -ENOTSUP };
	return (struct acct_val){ a->sched1_ns - a->sched0_ns, a->sched_err };
}

static void print_val(FILE *f, const char *key, struct acct_val v)
{
	if (v.err)
		fprintf(f, " %s=n/a:%s", key, strerrorname_np(-v.err) ? strerrorname_np(-v.err) : "EIO");
	else
		fprintf(f, " %s=%" PRIu64, key, v.ns);
}

void acct_print(const struct acct *a, FILE *f)
{
	print_val(f, "ru_utime_ns", acct_utime_ns(a));
	print_val(f, "ru_stime_ns", acct_stime_ns(a));
	print_val(f, "task_clock_ns", acct_task_clock_ns(a));
	print_val(f, "cputime_ns", acct_cputime_ns(a));
	print_val(f, "schedstat_ns", acct_schedstat_ns(a));
	long nv = a->ru1.ru_nvcsw - a->ru0.ru_nvcsw, niv = a->ru1.ru_nivcsw - a->ru0.ru_nivcsw;
	if (a->children) {
		nv += a->ruc1.ru_nvcsw - a->ruc0.ru_nvcsw;
		niv += a->ruc1.ru_nivcsw - a->ruc0.ru_nivcsw;
	}
	fprintf(f, " nvcsw=%ld nivcsw=%ld", nv, niv);
}
