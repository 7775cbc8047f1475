/* reportline.c - parsing the one-line reports of the fluid and of put */
#include "calib/reportline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *report_field(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += kl) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, " \n");
			if (n >= len)
				return NULL;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

static int get_u64(const char *line, const char *key, uint64_t *out, char *err, size_t errlen)
{
	char buf[32], *e;
	if (!report_field(line, key, buf, sizeof buf) || !buf[0]) {
		snprintf(err, errlen, "missing field '%s'", key);
		return -EBADMSG;
	}
	errno = 0;
	unsigned long long v = strtoull(buf, &e, 10);
	if (*e || errno || buf[0] == '-') {
		snprintf(err, errlen, "bad value '%s' for '%s'", buf, key);
		return -EBADMSG;
	}
	*out = v;
	return 0;
}

static int get_int(const char *line, const char *key, int *out, char *err, size_t errlen)
{
	char buf[32], *e;
	if (!report_field(line, key, buf, sizeof buf) || !buf[0]) {
		snprintf(err, errlen, "missing field '%s'", key);
		return -EBADMSG;
	}
	long v = strtol(buf, &e, 10);
	if (*e) {
		snprintf(err, errlen, "bad value '%s' for '%s'", buf, key);
		return -EBADMSG;
	}
	*out = (int)v;
	return 0;
}

static int get_str(const char *line, const char *key, char *out, size_t len, char *err, size_t errlen)
{
	if (!report_field(line, key, out, len)) {
		snprintf(err, errlen, "missing field '%s'", key);
		return -EBADMSG;
	}
	return 0;
}

/* a number, or "n/a:REASON" */
static int get_val(const char *line, const char *key, struct report_val *v, char *err, size_t errlen)
{
	char buf[64], *e;
	memset(v, 0, sizeof *v);
	if (!report_field(line, key, buf, sizeof buf)) {
		snprintf(err, errlen, "missing field '%s'", key);
		return -EBADMSG;
	}
	if (!strncmp(buf, "n/a", 3)) {
		snprintf(v->why, sizeof v->why, "%.23s", buf[3] == ':' ? buf + 4 : "unavailable");
		v->v = NAN;
		return 0;
	}
	v->v = strtod(buf, &e);
	if (*e || e == buf) {
		snprintf(err, errlen, "bad value '%s' for '%s'", buf, key);
		return -EBADMSG;
	}
	v->avail = 1;
	return 0;
}

int report_parse_fluid(const char *line, struct fluid_report *r, char *err, size_t errlen)
{
	static char hist[CHUNKSTAT_BUCKETS * 28];
	memset(r, 0, sizeof *r);
	if (strncmp(line, "fluid ", 6)) {
		snprintf(err, errlen, "not a fluid report");
		return -EBADMSG;
	}
	struct {
		const char *key;
		uint64_t *dst;
	} u[] = {
		{ "chunk_loops", &r->chunk_loops }, { "loops", &r->loops },		{ "start_ns", &r->start_ns },
		{ "end_ns", &r->end_ns },	    { "cpu_ns", &r->cpu_ns },		{ "chunks", &r->chunks },
		{ "min_chunk_ns", &r->min_chunk_ns }, { "max_chunk_ns", &r->max_chunk_ns }, { "ok_n", &r->ok_n },
		{ "ok_ns", &r->ok_ns },		    { "gap_n", &r->gap_n },		{ "gap_ns", &r->gap_ns },
		{ "post_n", &r->post_n },	    { "post_ns", &r->post_ns },		{ "clock_res_ns", &r->clock_res_ns },
	};
	int rc;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if ((rc = get_u64(line, u[i].key, u[i].dst, err, errlen)))
			return rc;
	if ((rc = get_int(line, "cpu", &r->cpu, err, errlen)) || (rc = get_int(line, "ran_on", &r->ran_on, err, errlen)) ||
	    (rc = get_str(line, "sched", r->sched, sizeof r->sched, err, errlen)) ||
	    (rc = get_str(line, "variant", r->variant, sizeof r->variant, err, errlen)) ||
	    (rc = get_str(line, "stop", r->stop, sizeof r->stop, err, errlen)))
		return rc;
	if ((rc = get_val(line, "task_clock_ns", &r->task_clock_ns, err, errlen)))
		return rc;
	char idle[32];
	if (report_field(line, "idle_ns", idle, sizeof idle)) {
		if ((rc = get_val(line, "idle_ns", &r->idle_ns, err, errlen)))
			return rc;
	} else {
		r->idle_ns = (struct report_val){ .v = NAN, .why = "absent" };
	}
	if (!report_field(line, "hist", hist, sizeof hist) || chunkstat_parse_hist(hist, r->hist)) {
		snprintf(err, errlen, "bad or missing field 'hist'");
		return -EBADMSG;
	}
	/* only a fluid with a simulated slow clock reports the real clock as well */
	char buf[32];
	if (report_field(line, "raw_start_ns", buf, sizeof buf) || report_field(line, "raw_end_ns", buf, sizeof buf)) {
		if ((rc = get_u64(line, "raw_start_ns", &r->raw_start_ns, err, errlen)) ||
		    (rc = get_u64(line, "raw_end_ns", &r->raw_end_ns, err, errlen)))
			return rc;
	} else {
		r->raw_start_ns = r->start_ns;
		r->raw_end_ns = r->end_ns;
	}
	if (r->end_ns < r->start_ns || r->raw_end_ns < r->raw_start_ns) {
		snprintf(err, errlen, "inconsistent fluid report: end_ns before start_ns");
		return -EBADMSG;
	}
	if (r->chunks * r->chunk_loops != r->loops) {
		snprintf(err, errlen, "inconsistent fluid report: loops is not chunks x chunk_loops");
		return -EBADMSG;
	}
	return 0;
}

int report_parse_put(const char *line, struct put_report *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (strncmp(line, "put ", 4)) {
		snprintf(err, errlen, "not a put report");
		return -EBADMSG;
	}
	int rc;
	struct {
		const char *key;
		uint64_t *dst;
	} u[] = {
		{ "ops", &r->ops }, { "runs", &r->runs }, { "setup_ns", &r->setup_ns },
		{ "start_ns", &r->start_ns }, { "end_ns", &r->end_ns },
	};
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if ((rc = get_u64(line, u[i].key, u[i].dst, err, errlen)))
			return rc;
	int nv = 0, niv = 0;
	if ((rc = get_str(line, "workload", r->workload, sizeof r->workload, err, errlen)) ||
	    (rc = get_int(line, "cpu", &r->cpu, err, errlen)) || (rc = get_int(line, "ran_on", &r->ran_on, err, errlen)) ||
	    (rc = get_val(line, "ru_utime_ns", &r->utime_ns, err, errlen)) ||
	    (rc = get_val(line, "ru_stime_ns", &r->stime_ns, err, errlen)) ||
	    (rc = get_val(line, "task_clock_ns", &r->task_clock_ns, err, errlen)) ||
	    (rc = get_val(line, "cputime_ns", &r->cputime_ns, err, errlen)) ||
	    (rc = get_val(line, "schedstat_ns", &r->schedstat_ns, err, errlen)) ||
	    (rc = get_int(line, "nvcsw", &nv, err, errlen)) || (rc = get_int(line, "nivcsw", &niv, err, errlen)))
		return rc;
	r->nvcsw = nv;
	r->nivcsw = niv;
	r->cmd_status = -1;
	char buf[16];
	if (report_field(line, "cmd_status", buf, sizeof buf))
		r->cmd_status = atoi(buf);
	/* keep the workload's own fields: everything after nivcsw=N */
	const char *p = strstr(line, " nivcsw=");
	if (p && (p = strchr(p + 1, ' ')))
		snprintf(r->extra, sizeof r->extra, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	if (r->end_ns < r->start_ns) {
		snprintf(err, errlen, "inconsistent put report: end_ns before start_ns");
		return -EBADMSG;
	}
	return 0;
}

double fluid_wall_ns(const struct fluid_report *r)
{
	return (double)(r->end_ns - r->start_ns);
}

double fluid_raw_wall_ns(const struct fluid_report *r)
{
	return (double)(r->raw_end_ns - r->raw_start_ns);
}

int fluid_window_holds(const struct fluid_report *r, uint64_t from_raw_ns, uint64_t to_raw_ns)
{
	return r->raw_start_ns <= from_raw_ns && r->raw_end_ns >= to_raw_ns;
}

double fluid_traced_ns(const struct fluid_report *r)
{
	return r->others_ns.avail && r->others_ns.v > 0 ? r->others_ns.v : 0;
}

double fluid_tau_ns(const struct fluid_report *r)
{
	return r->loops ? fluid_wall_ns(r) / (double)r->loops : NAN;
}

double fluid_tau0_ns(const struct fluid_report *r)
{
	/* a simulated slow clock makes chunk timings 0 or D: they say nothing */
	if (!r->ok_n || r->clock_res_ns > 1 || r->ok_ns == 0)
		return NAN;
	return (double)r->ok_ns / ((double)r->ok_n * (double)r->chunk_loops);
}

double fluid_excess_ns(const struct fluid_report *r)
{
	double t0 = fluid_tau0_ns(r);
	return isnan(t0) ? NAN : fluid_wall_ns(r) - (double)r->loops * t0;
}

double fluid_steal_ns(const struct fluid_report *r)
{
	if (!r->task_clock_ns.avail)
		return 0;
	return r->task_clock_ns.v - (double)r->cpu_ns;
}

double fluid_post_extra_ns(const struct fluid_report *r)
{
	double t0 = fluid_tau0_ns(r);
	if (isnan(t0) || !r->post_n)
		return 0;
	double extra = (double)r->post_ns - (double)r->post_n * (double)r->chunk_loops * t0;
	return extra > 0 ? extra : 0;
}
