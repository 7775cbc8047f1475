/* switchlog.c - who held each CPU when, from sched_switch and sched_process_fork/exit lines */
#include "calib/switchlog.h"

#include "common/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --- the set of displace's own pids: open addressing, linear probing --- */

static size_t slot_of(int pid, size_t cap)
{
	return ((size_t)(unsigned)pid * 2654435761u) & (cap - 1);
}

static int set_put(int *tab, size_t cap, int pid)
{
	size_t i = slot_of(pid, cap);
	while (tab[i] > 0 && tab[i] != pid)
		i = (i + 1) & (cap - 1);
	if (tab[i] == pid)
		return 0;
	tab[i] = pid;
	return 1;
}

/* a table twice as large, or as large when most slots are removed pids (so forks and exits do not grow it) */
static int set_grow(struct swl *l)
{
	size_t cap = !l->ours_cap ? 64 : l->ours_n * 4 < l->ours_cap ? l->ours_cap : l->ours_cap * 2;
	int *tab = calloc(cap, sizeof *tab);
	if (!tab)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < l->ours_cap; i++)
		if (l->ours[i] > 0)
			n += (size_t)set_put(tab, cap, l->ours[i]);
	free(l->ours);
	l->ours = tab;
	l->ours_cap = cap;
	l->ours_n = l->ours_used = n;
	return 0;
}

int swl_add_ours(struct swl *l, int pid)
{
	if (pid <= 0)
		return 0;
	/* removed slots count as used: they lengthen the probes until the table is rebuilt */
	if ((l->ours_used + 1) * 2 > l->ours_cap && set_grow(l))
		return -ENOMEM;
	size_t i = slot_of(pid, l->ours_cap);
	while (l->ours[i] != 0 && l->ours[i] != pid)
		i = (i + 1) & (l->ours_cap - 1);
	if (l->ours[i] == 0) {
		l->ours[i] = pid;
		l->ours_n++;
		l->ours_used++;
	}
	return 0;
}

int swl_is_ours(const struct swl *l, int pid)
{
	if (pid <= 0 || !l->ours_cap)
		return 0;
	size_t i = slot_of(pid, l->ours_cap);
	while (l->ours[i] != 0) {
		if (l->ours[i] == pid)
			return 1;
		i = (i + 1) & (l->ours_cap - 1);
	}
	return 0;
}

/* a task that has exited: its pid may be reused by a task that is not ours */
static void set_remove(struct swl *l, int pid)
{
	if (pid <= 0 || !l->ours_cap)
		return;
	size_t i = slot_of(pid, l->ours_cap);
	while (l->ours[i] != 0) {
		if (l->ours[i] == pid) {
			l->ours[i] = -1;
			l->ours_n--;
			return;
		}
		i = (i + 1) & (l->ours_cap - 1);
	}
}

int swl_init(struct swl *l, int root_pid)
{
	memset(l, 0, sizeof *l);
	return swl_add_ours(l, root_pid);
}

void swl_free(struct swl *l)
{
	free(l->ours);
	free(l->span);
	memset(l, 0, sizeof *l);
}

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int swl_class_of(const struct swl *l, int pid, const char *comm)
{
	if (pid == 0)
		return SWL_IDLE;
	if (swl_is_ours(l, pid))
		return SWL_OURS;
	if (has_prefix(comm, "ksoftirqd/") || has_prefix(comm, "kworker/") || has_prefix(comm, "irq/"))
		return SWL_HELPER;
	return SWL_OTHER;
}

/* --- parsing --- */

/* a decimal "1265.699532" (any number of fraction digits) as ns; end gets the first byte after it */
static int parse_ts(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000u;
	const char *p = s;
	if (p >= end || !isdigit((unsigned char)*p))
		return -EBADMSG;
	for (; p < end && isdigit((unsigned char)*p); p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	if (p < end && *p == '.') {
		for (p++; p < end && isdigit((unsigned char)*p); p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (p != end)
		return -EBADMSG;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/* the CPU and time of a line whose event starts at colon + 2, read backwards from colon; -EBADMSG */
static int parse_head(const char *line, const char *colon, int *cpu, uint64_t *t_ns)
{
	const char *ts = colon;
	while (ts > line && (isdigit((unsigned char)ts[-1]) || ts[-1] == '.'))
		ts--;
	if (ts == colon || ts == line || ts[-1] != ' ' || parse_ts(ts, colon, t_ns))
		return -EBADMSG;
	const char *b = ts;
	while (b > line && b[-1] == ' ')
		b--;
	if (b > line && b[-1] != ']') { /* the flags ("d..2."), when the instance shows them */
		while (b > line && b[-1] != ' ')
			b--;
		while (b > line && b[-1] == ' ')
			b--;
	}
	if (b <= line || b[-1] != ']')
		return -EBADMSG;
	const char *lb = b - 1;
	while (lb > line && lb[-1] != '[')
		lb--;
	if (lb <= line || lb == b - 1)
		return -EBADMSG;
	int c = 0;
	for (const char *d = lb; d < b - 1; d++) {
		if (!isdigit((unsigned char)*d) || c > SWL_MAX_CPUS * 10)
			return -EBADMSG;
		c = c * 10 + (*d - '0');
	}
	*cpu = c;
	return 0;
}

int swl_parse_line(const char *line, int *cpu, uint64_t *t_ns, const char **event, const char **fields)
{
	/*
	 * "<comm>-<pid> [CPU] <flags> <ts>: <event>: <fields>". The comm may hold
	 * spaces, brackets, dashes and ": ", so each ": " is tried in turn, the
	 * line read backwards from it: the timestamp, then (past the flags, if
	 * any) "[CPU]". The first that reads so is the event's.
	 */
	for (const char *p = line; (p = strstr(p, ": ")) != NULL; p += 2) {
		if (parse_head(line, p, cpu, t_ns))
			continue;
		*event = p + 2;
		const char *f = strstr(*event, ": ");
		*fields = f ? f + 2 : *event + strlen(*event);
		return 0;
	}
	return -EBADMSG;
}

/* the integer after the last "key" in [s, end): -EBADMSG if there is none */
static int int_after_last(const char *s, const char *end, const char *key, int *v)
{
	const char *at = NULL;
	size_t kl = strlen(key);
	for (const char *p = s; (p = strstr(p, key)) != NULL && p + kl <= end; p++)
		at = p;
	if (!at)
		return -EBADMSG;
	char *e;
	long x = strtol(at + kl, &e, 10);
	if (e == at + kl || x < 0 || x > 0x7fffffff)
		return -EBADMSG;
	*v = (int)x;
	return 0;
}

static int add_span(struct swl *l, int cpu, int cls, uint64_t a, uint64_t b)
{
	if (b <= a)
		return 0;
	struct swl_span *sp = vec_grow(l->span, &l->span_cap, l->nspan, sizeof *sp);
	if (!sp)
		return -ENOMEM;
	l->span = sp;
	sp[l->nspan++] = (struct swl_span){ .start_ns = a, .end_ns = b, .cpu = cpu, .cls = cls };
	return 0;
}

static int feed_switch(struct swl *l, int cpu, uint64_t t, const char *f)
{
	/* a comm holds at most 15 bytes: " ==> next_comm=" in the previous task's would be the whole of it */
	const char *arrow = strstr(f, " ==> next_comm=");
	if (!arrow || strncmp(f, "prev_comm=", 10))
		return -EBADMSG;
	int prev, next;
	const char *nc = arrow + 5;
	if (strncmp(nc, "next_comm=", 10) || int_after_last(f, arrow, " prev_pid=", &prev) ||
	    int_after_last(nc, nc + strlen(nc), " next_pid=", &next))
		return -EBADMSG;
	/* next_comm runs to the last " next_pid=" */
	char comm[64];
	const char *ce = NULL;
	for (const char *p = nc; (p = strstr(p, " next_pid=")) != NULL; p++)
		ce = p;
	size_t n = (size_t)(ce - (nc + 10));
	if (n >= sizeof comm)
		n = sizeof comm - 1;
	memcpy(comm, nc + 10, n);
	comm[n] = '\0';

	struct swl_cpu *c = &l->cpu[cpu];
	int rc = 0;
	if (c->known && t >= c->since_ns) {
		if (c->pid != prev) {
			l->lost++;
			rc = add_span(l, cpu, SWL_UNKNOWN, c->since_ns, t);
		} else if (c->cls == SWL_OTHER) {
			rc = add_span(l, cpu, SWL_OTHER, c->since_ns, t);
		}
	}
	c->known = 1;
	c->pid = next;
	c->cls = swl_class_of(l, next, comm);
	c->since_ns = t;
	l->switches++;
	l->cpu_switches[cpu]++;
	return rc;
}

int swl_feed(struct swl *l, const char *line)
{
	int cpu;
	uint64_t t;
	const char *ev, *f;
	if (swl_parse_line(line, &cpu, &t, &ev, &f))
		return strstr(line, ": sched_") ? -EBADMSG : 0; /* else a comment, a marker, an empty line */
	if (cpu < 0 || cpu >= SWL_MAX_CPUS)
		return -EBADMSG;
	if (t > l->last_ns)
		l->last_ns = t;
	if (has_prefix(ev, "sched_switch: "))
		return feed_switch(l, cpu, t, f);
	if (has_prefix(ev, "sched_process_fork: ")) {
		/* "comm=%s pid=%d child_comm=%s child_pid=%d": the comms may hold anything but a newline */
		int parent = -1, child = -1;
		const char *cc = NULL;
		for (const char *p = f; (p = strstr(p, " child_comm=")) != NULL; p++) /* the parent's comm may hold one */
			if (!int_after_last(f, p, " pid=", &parent) &&
			    !int_after_last(p, p + strlen(p), " child_pid=", &child)) {
				cc = p;
				break;
			}
		if (!cc)
			return -EBADMSG;
		l->forks++;
		return swl_is_ours(l, parent) ? swl_add_ours(l, child) : 0;
	}
	if (has_prefix(ev, "sched_process_exit: ")) {
		/* "comm=%s pid=%d prio=%d ..." */
		int pid;
		const char *pr = strstr(f, " prio=");
		if (!pr || int_after_last(f, pr, " pid=", &pid))
			return -EBADMSG;
		set_remove(l, pid);
		return 0;
	}
	return 0;
}

double swl_time_ns(const struct swl *l, int cpu, int cls, uint64_t t0_ns, uint64_t t1_ns)
{
	double sum = 0;
	if (t1_ns <= t0_ns)
		return 0;
	for (size_t i = 0; i < l->nspan; i++) {
		const struct swl_span *s = &l->span[i];
		if (s->cpu != cpu || s->cls != cls || s->end_ns <= t0_ns || s->start_ns >= t1_ns)
			continue;
		uint64_t a = s->start_ns > t0_ns ? s->start_ns : t0_ns;
		uint64_t b = s->end_ns < t1_ns ? s->end_ns : t1_ns;
		sum += (double)(b - a);
	}
	/*
	 * A stretch still open at the latest event and begun before the window
	 * ended: windows are asked for once they have ended, and the fluid was
	 * running at the end of its own (it read the clock then), so a switch to
	 * it should have been read. Its task's switch-out is missing: from its
	 * switch-in to the window's end is unknown, never an other task's.
	 */
	if (cls == SWL_UNKNOWN && cpu >= 0 && cpu < SWL_MAX_CPUS) {
		const struct swl_cpu *c = &l->cpu[cpu];
		if (c->known && c->cls == SWL_OTHER && c->since_ns < t1_ns) {
			uint64_t a = c->since_ns > t0_ns ? c->since_ns : t0_ns;
			sum += (double)(t1_ns - a);
		}
	}
	return sum;
}

void swl_forget_before(struct swl *l, uint64_t t_ns)
{
	size_t k = 0;
	for (size_t i = 0; i < l->nspan; i++)
		if (l->span[i].end_ns >= t_ns)
			l->span[k++] = l->span[i];
	l->nspan = k;
}
