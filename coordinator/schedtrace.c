/* schedtrace.c - displace's own tracefs instance: switches and forks, read into a switchlog */
#include "coordinator/schedtrace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
/* per CPU: 8 MiB hold about 100,000 switches, 4 s of a blocking tcp send's, between two reads */
#define BUFFER_KB "8192"
#define EVENTS_ON "sched/sched_switch", "sched/sched_process_fork", "sched/sched_process_exit"

/* write text to dir/name; -errno */
static int put(const char *dir, const char *name, const char *text)
{
	char path[320];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int rc = w == (ssize_t)n ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/* tracefs, mounted at TRACEFS if nothing is there yet; -errno */
static int have_tracefs(void)
{
	struct stat st;
	if (stat(TRACEFS "/instances", &st) == 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return -EACCES; /* there, but not for this user */
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		return -errno;
	return stat(TRACEFS "/instances", &st) == 0 ? 0 : -ENOENT;
}

int schedtrace_usable(void)
{
	return geteuid() == 0 && have_tracefs() == 0 && access(TRACEFS "/instances", W_OK) == 0;
}

/* instances a displace that died left behind: displace-PID of a PID that is gone */
static void remove_stale(void)
{
	DIR *d = opendir(TRACEFS "/instances");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int pid;
		char tail;
		if (sscanf(e->d_name, "displace-%d%c", &pid, &tail) != 1 || pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		char path[320];
		snprintf(path, sizeof path, TRACEFS "/instances/%s", e->d_name);
		(void)rmdir(path);
	}
	closedir(d);
}

/*
 * The trace names tasks by the host's pids; inside a PID namespace (a
 * container's) getpid() is another number. So displace writes a marker and
 * reads the pid the trace gives its writer: that is displace's own, and
 * what it forks from now on is followed from it. -ETIME if the marker does
 * not come back within a second.
 */
#define MARKER "displace-own-pid"
static int drain(struct schedtrace *t);

static int find_own_pid(struct schedtrace *t)
{
	int rc = put(t->dir, "trace_marker", MARKER);
	for (int i = 0; !rc && i < 100 && t->own_pid <= 0; i++) {
		if ((rc = drain(t)) == 0 && t->own_pid <= 0)
			usleep(10000);
	}
	if (rc)
		return rc;
	return t->own_pid > 0 ? swl_add_ours(&t->log, t->own_pid) : -ETIME;
}

/* the writer's pid in a marker line: "  <comm>-<pid>  [CPU] ... tracing_mark_write: displace-own-pid" */
static int marker_pid(const char *line)
{
	if (!strstr(line, "tracing_mark_write: " MARKER))
		return 0;
	const char *lb = strstr(line, " [");
	while (lb && !(lb[2] >= '0' && lb[2] <= '9'))
		lb = strstr(lb + 1, " [");
	if (!lb)
		return 0;
	const char *e = lb;
	while (e > line && e[-1] == ' ')
		e--;
	const char *d = e;
	while (d > line && d[-1] >= '0' && d[-1] <= '9')
		d--;
	return d > line && d < e && d[-1] == '-' ? atoi(d) : 0;
}

int schedtrace_open(struct schedtrace *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->pipe_fd = -1;
	int rc = have_tracefs();
	if (rc) {
		snprintf(err, errlen, "cannot use tracefs at " TRACEFS " (%s)%s", strerror(-rc),
			 rc == -EPERM || rc == -EACCES ? ": --trace-others needs root" : "");
		return rc;
	}
	char dir[sizeof t->dir];
	snprintf(dir, sizeof dir, TRACEFS "/instances/displace-%d", (int)getpid());
	if (mkdir(dir, 0700)) { /* EEXIST: a live process with this pid made it, not this one */
		rc = -errno;
		snprintf(err, errlen, "cannot make the trace instance %s (%s)%s", dir, strerror(-rc),
			 rc == -EPERM || rc == -EACCES ? ": --trace-others needs root" : "");
		return rc;
	}
	snprintf(t->dir, sizeof t->dir, "%s", dir);
	static const char *const events[] = { EVENTS_ON };
	const char *step = "trace_clock";
	if (!(rc = put(dir, "trace_clock", "mono_raw")) && !(rc = put(dir, (step = "buffer_size_kb"), BUFFER_KB))) {
		for (size_t i = 0; !rc && i < sizeof events / sizeof events[0]; i++) {
			char name[96];
			snprintf(name, sizeof name, "events/%s/enable", events[i]);
			step = events[i];
			rc = put(dir, name, "1");
		}
	}
	/* displace's own pid comes from the trace itself (find_own_pid), not from getpid() */
	if (!rc)
		rc = swl_init(&t->log, 0);
	if (!rc) {
		char path[320];
		snprintf(path, sizeof path, "%s/trace_pipe", dir);
		t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (t->pipe_fd < 0)
			rc = -errno, step = "trace_pipe";
	}
	if (!rc)
		rc = put(dir, (step = "tracing_on"), "1");
	if (!rc)
		step = "trace_marker", rc = find_own_pid(t);
	/* others' instances are judged by their pids only where pids are the host's */
	if (!rc && t->own_pid == (int)getpid())
		remove_stale();
	if (rc) {
		snprintf(err, errlen, "cannot set up the trace instance %s: %s (%s)", dir, step, strerror(-rc));
		schedtrace_close(t);
	}
	return rc;
}

/* feed the complete lines in buf[0..n) to the log; keep the rest in t->part */
static int feed(struct schedtrace *t, const char *buf, size_t n)
{
	size_t at = 0;
	while (at < n) {
		const char *nl = memchr(buf + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (buf + at)) : n - at;
		if (!nl) { /* unended: keep it for the next read (a line longer than part is cut, and fails to parse) */
			size_t room = sizeof t->part - 1 - t->npart;
			size_t k = len < room ? len : room;
			memcpy(t->part + t->npart, buf + at, k);
			t->npart += k;
			return 0;
		}
		char line[sizeof t->part + 512];
		size_t k = 0;
		if (t->npart) {
			memcpy(line, t->part, t->npart);
			k = t->npart;
			t->npart = 0;
		}
		size_t take = len < sizeof line - 1 - k ? len : sizeof line - 1 - k;
		memcpy(line + k, buf + at, take);
		line[k + take] = '\0';
		if (t->own_pid <= 0 && (t->own_pid = marker_pid(line)) > 0) {
			at += len + 1;
			continue;
		}
		int rc = swl_feed(&t->log, line);
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			t->bad_lines++;
		at += len + 1;
	}
	return 0;
}

static int drain(struct schedtrace *t)
{
	static char buf[1 << 16];
	for (;;) {
		ssize_t r = read(t->pipe_fd, buf, sizeof buf);
		if (r > 0) {
			int rc = feed(t, buf, (size_t)r);
			if (rc)
				return rc;
			continue;
		}
		if (r == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

int schedtrace_fill(struct schedtrace *t, struct fluid_report *reps, int n)
{
	if (t->pipe_fd < 0)
		return -EBADF;
	int rc = drain(t);
	if (rc)
		return rc;
	uint64_t first = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		struct fluid_report *r = &reps[i];
		uint64_t a = r->raw_start_ns, b = r->raw_end_ns;
		if (r->ran_on < 0 || r->ran_on >= SWL_MAX_CPUS || b <= a)
			continue;
		r->others_ns = (struct report_val){ .v = swl_time_ns(&t->log, r->ran_on, SWL_OTHER, a, b), .avail = 1 };
		r->unknown_ns = (struct report_val){ .v = swl_time_ns(&t->log, r->ran_on, SWL_UNKNOWN, a, b), .avail = 1 };
		if (a < first)
			first = a;
		t->windows++;
	}
	if (first != UINT64_MAX)
		swl_forget_before(&t->log, first);
	return 0;
}

int schedtrace_mark(struct schedtrace *t)
{
	if (t->pipe_fd < 0)
		return -EBADF;
	int rc = drain(t);
	if (!rc)
		memcpy(t->mark, t->log.cpu_switches, sizeof t->mark);
	return rc;
}

uint64_t schedtrace_switches(const struct schedtrace *t, int cpu)
{
	return cpu >= 0 && cpu < SWL_MAX_CPUS ? t->log.cpu_switches[cpu] - t->mark[cpu] : 0;
}

int schedtrace_dropped(const struct schedtrace *t, uint64_t *n)
{
	*n = 0;
	if (!t->dir[0])
		return -EBADF;
	for (int cpu = 0; cpu < SWL_MAX_CPUS; cpu++) {
		char path[320], line[128];
		snprintf(path, sizeof path, "%s/per_cpu/cpu%d/stats", t->dir, cpu);
		FILE *f = fopen(path, "re");
		if (!f)
			return cpu ? 0 : -errno;
		while (fgets(line, sizeof line, f)) {
			uint64_t v;
			if (sscanf(line, "overrun: %" SCNu64, &v) == 1)
				*n += v;
		}
		fclose(f);
	}
	return 0;
}

void schedtrace_close(struct schedtrace *t)
{
	if (t->dir[0]) {
		(void)put(t->dir, "tracing_on", "0");
		if (t->pipe_fd >= 0)
			close(t->pipe_fd);
		t->pipe_fd = -1;
		/* an instance can be removed once its files are closed; events off first, or rmdir says busy */
		static const char *const events[] = { EVENTS_ON };
		for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
			char name[96];
			snprintf(name, sizeof name, "events/%s/enable", events[i]);
			(void)put(t->dir, name, "0");
		}
		(void)rmdir(t->dir);
		t->dir[0] = '\0';
	}
	swl_free(&t->log);
}
