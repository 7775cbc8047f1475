/* procfs.c - parsers for /proc files, and readers that feed them */
#include "calib/procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procfs_parse_stat(const char *text, struct procfs_stat *s)
{
	memset(s, 0, sizeof *s);
	int have_all = 0;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "cpu", 3)) {
			struct procfs_cpu c = { 0 };
			unsigned long long v[8] = { 0 };
			int cpu = -1, off = 0;
			if (line[3] == ' ') {
				if (sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu%n", &v[0], &v[1], &v[2], &v[3],
					   &v[4], &v[5], &v[6], &v[7], &off) < 7)
					return -EBADMSG;
			} else if (isdigit((unsigned char)line[3])) {
				if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu%n", &cpu, &v[0], &v[1], &v[2],
					   &v[3], &v[4], &v[5], &v[6], &v[7], &off) < 8)
					return -EBADMSG;
			} else {
				return -EBADMSG;
			}
			c.cpu = cpu;
			c.user = v[0];
			c.nice = v[1];
			c.system = v[2];
			c.idle = v[3];
			c.iowait = v[4];
			c.irq = v[5];
			c.softirq = v[6];
			c.steal = v[7];
			if (cpu < 0) {
				s->all = c;
				have_all = 1;
			} else if (s->n < PROCFS_MAX_CPUS) {
				s->cpu[s->n++] = c;
			}
		} else if (!strncmp(line, "procs_running ", 14)) {
			s->procs_running = strtoull(line + 14, NULL, 10);
		} else if (!strncmp(line, "ctxt ", 5)) {
			s->ctxt = strtoull(line + 5, NULL, 10);
		}
	}
	return have_all ? 0 : -EBADMSG;
}

/* the CPU columns of a per-CPU table's header ("   CPU0   CPU1"); 0 if it is none; *body after it */
static int cpu_columns(const char *text, const char **body)
{
	const char *eol = strchr(text, '\n');
	int n = 0;
	if (!eol)
		return 0;
	for (const char *p = text; p < eol; p++)
		if (!strncmp(p, "CPU", 3))
			n++;
	*body = eol + 1;
	return n > PROCFS_MAX_CPUS ? 0 : n;
}

/* n counts after the ':' of a row into dst (added when add); -EBADMSG if fewer */
static int row_counts(const char *p, int n, uint64_t *dst, int add)
{
	p = strchr(p, ':') + 1;
	for (int i = 0; i < n; i++) {
		char *e;
		uint64_t v = strtoull(p, &e, 10);
		if (e == p)
			return -EBADMSG;
		dst[i] = add ? dst[i] + v : v;
		p = e;
	}
	return 0;
}

/*
 * The rows of /proc/softirqs or /proc/interrupts after the CPU header: for
 * each, dest names the array its counts go to (NULL: a row not wanted) or
 * sets *bad; add sums the counts into it instead of storing them
 */
static int parse_rows(const char *text, int *ncpu, int add,
		      uint64_t *(*dest)(const char *p, const char *eol, void *ctx, int *bad), void *ctx)
{
	const char *line, *eol;
	if (!(*ncpu = cpu_columns(text, &line)))
		return -EBADMSG;
	for (; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		const char *p = line;
		while (*p == ' ')
			p++;
		int bad = 0;
		uint64_t *dst = dest(p, eol, ctx, &bad);
		if (bad || (dst && row_counts(p, *ncpu, dst, add)))
			return -EBADMSG;
		if (!*eol)
			break;
	}
	return 0;
}

static uint64_t *softirq_dest(const char *p, const char *eol, void *ctx, int *bad)
{
	struct procfs_softirqs *s = ctx;
	(void)eol;
	(void)bad;
	if (!strncmp(p, "NET_RX:", 7))
		return s->net_rx;
	if (!strncmp(p, "NET_TX:", 7))
		return s->net_tx;
	if (!strncmp(p, "TIMER:", 6))
		return s->timer;
	if (!strncmp(p, "SCHED:", 6))
		return s->sched;
	return NULL;
}

int procfs_parse_softirqs(const char *text, struct procfs_softirqs *s)
{
	memset(s, 0, sizeof *s);
	return parse_rows(text, &s->ncpu, 0, softirq_dest, s);
}

/* device interrupts (numbered rows) summed; the IPIs that wake or flush a CPU summed; the local timer */
static uint64_t *interrupt_dest(const char *p, const char *eol, void *ctx, int *bad)
{
	struct procfs_interrupts *s = ctx;
	const char *colon = strchr(p, ':');
	if (!colon || colon > eol) {
		*bad = 1;
		return NULL;
	}
	if (isdigit((unsigned char)*p))
		return s->dev;
	if (!strncmp(p, "RES:", 4) || !strncmp(p, "CAL:", 4) || !strncmp(p, "TLB:", 4))
		return s->ipi;
	if (!strncmp(p, "LOC:", 4))
		return s->timer;
	return NULL;
}

int procfs_parse_interrupts(const char *text, struct procfs_interrupts *s)
{
	memset(s, 0, sizeof *s);
	return parse_rows(text, &s->ncpu, 1, interrupt_dest, s);
}

/* the number after "key :" on the line at p (up to eol), into *v; 0 or -1 */
static int tl_field(const char *p, const char *eol, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	while (*p == ' ')
		p++;
	if (strncmp(p, key, kl))
		return -1;
	p += kl;
	while (*p == ' ')
		p++;
	if (*p++ != ':' || p >= eol)
		return -1;
	char *e;
	*v = strtoull(p, &e, 10);
	return e == p ? -1 : 0;
}

int procfs_parse_timer_list(const char *text, struct procfs_idle *s)
{
	memset(s, 0, sizeof *s);
	int cpu = -1, seen = 0;
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		uint64_t v;
		if (!strncmp(line, "now at ", 7)) {
			s->now_ns = strtoull(line + 7, NULL, 10);
		} else if (!strncmp(line, "cpu: ", 5)) {
			cpu = atoi(line + 5);
			if (cpu < 0 || cpu >= PROCFS_MAX_CPUS)
				cpu = -1;
			else if (cpu + 1 > s->ncpu)
				s->ncpu = cpu + 1;
		} else if (cpu >= 0 && !tl_field(line, eol, ".idle_sleeptime", &v)) {
			s->sleep_ns[cpu] = v;
			seen++;
		} else if (cpu >= 0 && !tl_field(line, eol, ".iowait_sleeptime", &v)) {
			s->iowait_ns[cpu] = v;
		} else if (cpu >= 0 && !tl_field(line, eol, ".idle_entrytime", &v)) {
			s->entry_ns[cpu] = v;
		} else if (cpu >= 0 && !tl_field(line, eol, ".idle_exittime", &v)) {
			s->exit_ns[cpu] = v;
		}
		line = *eol ? eol + 1 : eol;
	}
	return seen ? 0 : -EBADMSG;
}

int64_t procfs_idle_ns(const struct procfs_idle *s, int cpu, const struct procfs_cpu *stat, long user_hz)
{
	if (cpu < 0 || cpu >= s->ncpu)
		return -1;
	uint64_t ended = s->sleep_ns[cpu] + s->iowait_ns[cpu];
	/* an exit at or after the last entry: busy since (an idle period's start moves the entry past it) */
	if (!stat || user_hz <= 0 || s->now_ns <= s->entry_ns[cpu] || s->exit_ns[cpu] >= s->entry_ns[cpu])
		return (int64_t)ended;
	double stat_ns = (double)(stat->idle + stat->iowait) * (1e9 / (double)user_hz);
	double open = stat_ns - (double)ended, most = (double)(s->now_ns - s->entry_ns[cpu]);
	/* busy then: stat shows no more than the ended periods */
	return (int64_t)ended + (open > 0 ? (int64_t)(open < most ? open : most) : 0);
}

int64_t procfs_idle_ended_ns(const struct procfs_idle *s, int cpu)
{
	if (cpu < 0 || cpu >= s->ncpu)
		return -1;
	return (int64_t)(s->sleep_ns[cpu] + s->iowait_ns[cpu]);
}

int procfs_parse_loadavg(const char *text, struct procfs_loadavg *l)
{
	memset(l, 0, sizeof *l);
	if (sscanf(text, "%lf %lf %lf %d/%d", &l->l1, &l->l5, &l->l15, &l->running, &l->total) != 5)
		return -EBADMSG;
	return 0;
}

int procfs_parse_pid_stat(const char *text, struct procfs_task *t)
{
	memset(t, 0, sizeof *t);
	const char *open = strchr(text, '(');
	const char *close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -EBADMSG;
	t->pid = atoi(text);
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof t->comm)
		n = sizeof t->comm - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	/* after ") ": state(3) ppid(4) ... utime(14) stime(15) ... starttime(22); f[i] is field i */
	const char *p = close + 1;
	unsigned long long f[23] = { 0 };
	char state;
	int got = sscanf(p, " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &state, &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14],
			 &f[15], &f[16], &f[17], &f[18], &f[19], &f[20], &f[21], &f[22]);
	if (got < 20)
		return -EBADMSG;
	t->ppid = (int)f[4];
	t->cpu_ticks = f[14] + f[15];
	t->start_ticks = f[22];
	return 0;
}

const char *procfs_config_lookup(const char *text, const char *name)
{
	static char val[128];
	size_t nl = strlen(name);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, name, nl) && line[nl] == '=') {
			const char *v = line + nl + 1;
			size_t n = strcspn(v, "\n");
			if (n >= sizeof val)
				n = sizeof val - 1;
			memcpy(val, v, n);
			val[n] = '\0';
			return val;
		}
		if (!strncmp(line, "# ", 2) && !strncmp(line + 2, name, nl) && !strncmp(line + 2 + nl, " is not set", 11))
			return "n";
	}
	return NULL;
}

uint64_t procfs_cpu_busy(const struct procfs_cpu *c)
{
	return c->user + c->nice + c->system + c->irq + c->softirq + c->steal;
}

uint64_t procfs_cpu_total(const struct procfs_cpu *c)
{
	return procfs_cpu_busy(c) + c->idle + c->iowait;
}

const struct procfs_cpu *procfs_stat_find(const struct procfs_stat *s, int cpu)
{
	for (int i = 0; i < s->n; i++)
		if (s->cpu[i].cpu == cpu)
			return &s->cpu[i];
	return NULL;
}

int procfs_busy_add(const struct procfs_stat *a, const struct procfs_stat *b, uint64_t *busy, uint64_t *total,
		    int n)
{
	int beyond = 0;
	for (int i = 0; i < b->n; i++) {
		const struct procfs_cpu *y = &b->cpu[i], *x = procfs_stat_find(a, y->cpu);
		if (y->cpu >= n)
			beyond++;
		/* counts that went down (idle or iowait of an old kernel across a hot-unplug): no interval to count */
		if (!x || y->cpu < 0 || y->cpu >= n || procfs_cpu_busy(y) < procfs_cpu_busy(x) ||
		    procfs_cpu_total(y) - procfs_cpu_busy(y) < procfs_cpu_total(x) - procfs_cpu_busy(x))
			continue;
		busy[y->cpu] += procfs_cpu_busy(y) - procfs_cpu_busy(x);
		total[y->cpu] += procfs_cpu_total(y) - procfs_cpu_total(x);
	}
	return beyond;
}

int procfs_least_busy(const uint64_t *busy, const uint64_t *total, int n, const int *skip, int nskip,
		      uint64_t min_ticks, double *share)
{
	int best = -1;
	*share = NAN;
	for (int c = 0; c < n; c++) {
		int skipped = 0;
		for (int k = 0; k < nskip && !skipped; k++)
			skipped = skip[k] == c;
		if (skipped || !total[c] || total[c] < min_ticks)
			continue;
		double x = (double)busy[c] / (double)total[c];
		if (best < 0 || x < *share) {
			best = c;
			*share = x;
		}
	}
	return best;
}

/*
 * Read path into a malloc'd NUL-terminated buffer, stopping early once
 * done(text so far, ctx) says the rest is not needed (done NULL: to the end)
 */
static int read_until(const char *path, char **text, int (*done)(const char *text, int ctx), int ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		buf[len] = '\0';
		if (done && done(buf, ctx))
			break;
	}
	close(fd);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int procfs_read_file(const char *path, char **text)
{
	return read_until(path, text, NULL, 0);
}

size_t procfs_timer_list_cpu_end(const char *text, int cpu)
{
	char head[32];
	snprintf(head, sizeof head, "\ncpu: %d\n", cpu);
	const char *p = strstr(text, head);
	if (!p)
		return 0;
	p += strlen(head) - 1;
	/* cpu's own section ends with the next CPU's or the tick devices' */
	for (const char *line = p + 1; *line;) {
		const char *eol = strchr(line, '\n');
		if (!eol)
			return 0; /* a line not read to its end yet */
		if (!strncmp(line, "cpu: ", 5) || !strncmp(line, "Tick Device", 11))
			return (size_t)(line - text);
		if (!strncmp(line, "  .iowait_sleeptime", 19))
			return (size_t)(eol + 1 - text); /* the last field procfs_parse_timer_list needs */
		line = eol + 1;
	}
	return 0;
}

static int timer_list_has_cpu(const char *text, int cpu)
{
	return procfs_timer_list_cpu_end(text, cpu) > 0;
}

#define READ_AND_PARSE(path, parse, out)            \
	do {                                        \
		char *text;                         \
		int rc_ = procfs_read_file(path, &text); \
		if (rc_)                            \
			return rc_;                 \
		rc_ = parse(text, out);             \
		free(text);                         \
		return rc_;                         \
	} while (0)

int procfs_read_stat(struct procfs_stat *s)
{
	READ_AND_PARSE("/proc/stat", procfs_parse_stat, s);
}

int procfs_read_softirqs(struct procfs_softirqs *s)
{
	READ_AND_PARSE("/proc/softirqs", procfs_parse_softirqs, s);
}

int procfs_read_interrupts(struct procfs_interrupts *s)
{
	READ_AND_PARSE("/proc/interrupts", procfs_parse_interrupts, s);
}

int procfs_read_timer_list(struct procfs_idle *s)
{
	READ_AND_PARSE("/proc/timer_list", procfs_parse_timer_list, s);
}

int procfs_read_timer_list_cpu(int cpu, struct procfs_idle *s)
{
	char *text;
	int rc = read_until("/proc/timer_list", &text, timer_list_has_cpu, cpu);
	if (rc)
		return rc;
	/* the last read ends anywhere, maybe inside a later CPU's number: parse up to cpu's end only */
	size_t end = procfs_timer_list_cpu_end(text, cpu);
	if (end)
		text[end] = '\0';
	rc = procfs_parse_timer_list(text, s);
	free(text);
	return rc;
}

int procfs_read_loadavg(struct procfs_loadavg *l)
{
	READ_AND_PARSE("/proc/loadavg", procfs_parse_loadavg, l);
}

int procfs_process_runtime_ns(int pid, uint64_t *ns)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/task", pid);
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	uint64_t sum = 0;
	int found = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char path[sizeof dir + sizeof de->d_name + 16], buf[128];
		snprintf(path, sizeof path, "%s/%s/schedstat", dir, de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread ended meanwhile */
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		sum += strtoull(buf, NULL, 10);
		found = 1;
	}
	closedir(d);
	if (!found)
		return -ESRCH;
	*ns = sum;
	return 0;
}

int procfs_read_tasks(struct procfs_task **tasks, size_t *n)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	size_t cap = 256;
	struct procfs_task *t = malloc(cap * sizeof *t);
	*n = 0;
	if (!t) {
		closedir(d);
		return -ENOMEM;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char path[300], buf[1024];
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* it exited meanwhile */
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		if (*n == cap) {
			struct procfs_task *nt = realloc(t, cap * 2 * sizeof *t);
			if (!nt) {
				free(t);
				closedir(d);
				return -ENOMEM;
			}
			t = nt;
			cap *= 2;
		}
		if (procfs_parse_pid_stat(buf, &t[*n]) == 0)
			(*n)++;
	}
	closedir(d);
	*tasks = t;
	return 0;
}
