/* ctl_wire.c - the control exchange of the peer's fluids: frames and their bodies (see ctl_wire.h) */
#include "put/ctl_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *ctl_type_name(unsigned type)
{
	switch (type) {
	case CTL_CAL:
		return "CAL";
	case CTL_START:
		return "START";
	case CTL_STOP:
		return "STOP";
	case CTL_INFO:
		return "INFO";
	case CTL_STARTED:
		return "STARTED";
	case CTL_REPORT:
		return "REPORT";
	case CTL_DONE:
		return "DONE";
	case CTL_ERROR:
		return "ERROR";
	default:
		return "?";
	}
}

static int printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

int ctl_frame(uint8_t *out, size_t cap, unsigned type, const char *body)
{
	size_t len = strlen(body);
	if (len > CTL_MAX_BODY || CTL_HEAD_BYTES + len > cap)
		return -EMSGSIZE;
	for (size_t i = 0; i < len; i++)
		if (!printable((unsigned char)body[i]))
			return -EINVAL;
	out[0] = (uint8_t)(type >> 8);
	out[1] = (uint8_t)type;
	out[2] = out[3] = 0;
	out[4] = (uint8_t)(len >> 24);
	out[5] = (uint8_t)(len >> 16);
	out[6] = (uint8_t)(len >> 8);
	out[7] = (uint8_t)len;
	memcpy(out + CTL_HEAD_BYTES, body, len);
	return (int)(CTL_HEAD_BYTES + len);
}

void ctl_reader_init(struct ctl_reader *r, uint32_t max_body)
{
	r->max_body = max_body > CTL_MAX_BODY ? CTL_MAX_BODY : max_body;
	r->head_got = 0;
	r->type = 0;
	r->len = r->got = 0;
	r->body[0] = '\0';
}

int ctl_reader_mid(const struct ctl_reader *r)
{
	return r->head_got > 0 && !(r->head_got == CTL_HEAD_BYTES && r->got == r->len);
}

/* a head is whole: is it a frame we take? */
static int check_head(struct ctl_reader *r, const char **why)
{
	const uint8_t *h = r->head;
	r->type = (unsigned)h[0] << 8 | h[1];
	r->len = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	r->got = 0;
	if (!strcmp(ctl_type_name(r->type), "?")) {
		*why = "a control frame of an unknown type";
		return -EPROTO;
	}
	if (h[2] || h[3]) {
		*why = "a control frame whose pad bytes are not zero";
		return -EPROTO;
	}
	if (r->len > r->max_body) {
		*why = "a control frame longer than the limit";
		return -EPROTO;
	}
	return 0;
}

int ctl_reader_feed(struct ctl_reader *r, const uint8_t *p, size_t n, size_t *used, const char **why)
{
	size_t k = 0;
	*used = 0;
	if (r->head_got == CTL_HEAD_BYTES && r->got == r->len)
		r->head_got = 0; /* the last frame was handled: a new one starts */
	while (k < n && r->head_got < CTL_HEAD_BYTES) {
		r->head[r->head_got++] = p[k++];
		if (r->head_got == CTL_HEAD_BYTES && check_head(r, why)) {
			*used = k;
			return -EPROTO;
		}
	}
	if (r->head_got < CTL_HEAD_BYTES) {
		*used = k;
		return 0;
	}
	while (k < n && r->got < r->len) {
		unsigned char c = p[k++];
		if (!printable(c)) {
			*used = k;
			*why = "a control frame with a byte that is not printable ASCII";
			return -EPROTO;
		}
		r->body[r->got++] = (char)c;
	}
	*used = k;
	if (r->got < r->len)
		return 0;
	r->body[r->len] = '\0';
	return 1;
}

/* --- bodies: space-separated key=value fields ----------------------------- */

enum { K_CPUS, K_RUN, K_MAX, K_SCHED, K_CHUNK, K_STEAL, K_N, NKEYS };
static const char *const key_name[NKEYS] = { "cpus", "run_ns", "max_ns", "sched", "chunk_loops", "use_steal", "n" };

/*
 * Split body into its fields: val[k] points into copy (NULL: absent).
 * Only the keys in allowed (bits of the enum); each once. -EINVAL, why.
 */
static int split(const char *body, unsigned allowed, char *copy, size_t cap, const char *val[NKEYS], char *why,
		 size_t whylen)
{
	for (int k = 0; k < NKEYS; k++)
		val[k] = NULL;
	if (strlen(body) >= cap) {
		snprintf(why, whylen, "a body longer than %zu bytes", cap - 1);
		return -EINVAL;
	}
	strcpy(copy, body);
	if (!*copy)
		return 0;
	for (char *f = copy;;) {
		char *sp = strchr(f, ' '), *eq;
		if (sp)
			*sp = '\0';
		if (!(eq = strchr(f, '=')) || eq == f) {
			snprintf(why, whylen, "a field that is not key=value: '%.40s'", f);
			return -EINVAL;
		}
		*eq = '\0';
		int k = 0;
		while (k < NKEYS && strcmp(f, key_name[k]))
			k++;
		if (k == NKEYS || !(allowed & 1u << k)) {
			snprintf(why, whylen, "an unknown field '%.40s'", f);
			return -EINVAL;
		}
		if (val[k]) {
			snprintf(why, whylen, "the field '%s' twice", key_name[k]);
			return -EINVAL;
		}
		val[k] = eq + 1;
		if (!sp)
			return 0;
		f = sp + 1;
	}
}

/* a required field is there */
static int need(const char *const val[NKEYS], int k, char *why, size_t whylen)
{
	if (val[k])
		return 0;
	snprintf(why, whylen, "no field '%s'", key_name[k]);
	return -EINVAL;
}

static int num(const char *v, int k, uint64_t min, uint64_t max, uint64_t *out, char *why, size_t whylen)
{
	if (!cli_parse_u64(v, min, max, out))
		return 0;
	snprintf(why, whylen, "%s '%.40s' is not a whole number from %" PRIu64 " to %" PRIu64, key_name[k], v, min, max);
	return -EINVAL;
}

static int cpus(const char *v, struct cli_cpus *out, char *why, size_t whylen)
{
	/* no "all": the peer's list is the peer's to say (INFO), a request names CPUs */
	if (strlen(v) > 128 || cli_parse_cpulist(v, NULL, out) || out->n < 1 || out->n > CTL_MAX_CPUS) {
		snprintf(why, whylen, "cpus '%.40s' is not a list of 1 to %d CPUs (e.g. 1,3-4)", v, CTL_MAX_CPUS);
		return -EINVAL;
	}
	return 0;
}

int ctl_req_parse(unsigned type, const char *body, struct ctl_req *q, char *why, size_t whylen)
{
	char copy[CTL_MAX_REQUEST + 1];
	const char *val[NKEYS];
	memset(q, 0, sizeof *q);
	q->type = type;
	unsigned allowed = type == CTL_CAL     ? 1u << K_CPUS | 1u << K_RUN | 1u << K_SCHED | 1u << K_CHUNK
			   : type == CTL_START ? 1u << K_CPUS | 1u << K_MAX | 1u << K_SCHED | 1u << K_CHUNK
			   : type == CTL_STOP  ? 0
					       : ~0u;
	if (allowed == ~0u) {
		snprintf(why, whylen, "a %s frame, which is not a request", ctl_type_name(type));
		return -EINVAL;
	}
	if (split(body, allowed, copy, sizeof copy, val, why, whylen))
		return -EINVAL;
	if (type == CTL_STOP)
		return 0;
	if (need(val, K_CPUS, why, whylen) || need(val, type == CTL_CAL ? K_RUN : K_MAX, why, whylen) ||
	    need(val, K_SCHED, why, whylen) || need(val, K_CHUNK, why, whylen))
		return -EINVAL;
	if (cpus(val[K_CPUS], &q->cpus, why, whylen))
		return -EINVAL;
	if (type == CTL_CAL && num(val[K_RUN], K_RUN, CTL_MIN_RUN_NS, CTL_MAX_CAL_NS, &q->run_ns, why, whylen))
		return -EINVAL;
	if (type == CTL_START && num(val[K_MAX], K_MAX, CTL_MIN_MAX_NS, CTL_MAX_MAX_NS, &q->max_ns, why, whylen))
		return -EINVAL;
	if (strcmp(val[K_SCHED], "idle") && strcmp(val[K_SCHED], "nice") && strcmp(val[K_SCHED], "normal")) {
		snprintf(why, whylen, "sched '%.40s' is not idle, nice or normal", val[K_SCHED]);
		return -EINVAL;
	}
	snprintf(q->sched, sizeof q->sched, "%s", val[K_SCHED]);
	return num(val[K_CHUNK], K_CHUNK, 1, CTL_MAX_CHUNK_LOOPS, &q->chunk_loops, why, whylen);
}

int ctl_req_format(const struct ctl_req *q, char *buf, size_t len)
{
	char list[160];
	int w;
	if (q->type == CTL_STOP) {
		w = snprintf(buf, len, "%s", "");
	} else {
		cli_format_cpulist(&q->cpus, list, sizeof list);
		w = snprintf(buf, len, "cpus=%s %s=%" PRIu64 " sched=%s chunk_loops=%" PRIu64, list,
			     q->type == CTL_CAL ? "run_ns" : "max_ns", q->type == CTL_CAL ? q->run_ns : q->max_ns,
			     q->sched, q->chunk_loops);
	}
	return w < 0 || (size_t)w >= len ? -EMSGSIZE : 0;
}

int ctl_info_parse(const char *body, struct ctl_info *info, char *why, size_t whylen)
{
	char copy[CTL_MAX_REQUEST + 1];
	const char *val[NKEYS];
	uint64_t steal;
	memset(info, 0, sizeof *info);
	if (split(body, 1u << K_CPUS | 1u << K_STEAL, copy, sizeof copy, val, why, whylen) ||
	    need(val, K_CPUS, why, whylen) || need(val, K_STEAL, why, whylen) || cpus(val[K_CPUS], &info->cpus, why, whylen) ||
	    num(val[K_STEAL], K_STEAL, 0, 1, &steal, why, whylen))
		return -EINVAL;
	info->use_steal = (int)steal;
	return 0;
}

int ctl_info_format(const struct ctl_info *info, char *buf, size_t len)
{
	char list[160];
	cli_format_cpulist(&info->cpus, list, sizeof list);
	int w = snprintf(buf, len, "cpus=%s use_steal=%d", list, info->use_steal ? 1 : 0);
	return w < 0 || (size_t)w >= len ? -EMSGSIZE : 0;
}

int ctl_done_parse(const char *body, unsigned *n)
{
	char copy[CTL_MAX_REQUEST + 1], why[160];
	const char *val[NKEYS];
	uint64_t v;
	if (split(body, 1u << K_N, copy, sizeof copy, val, why, sizeof why) || need(val, K_N, why, sizeof why) ||
	    num(val[K_N], K_N, 0, CTL_MAX_CPUS, &v, why, sizeof why))
		return -EINVAL;
	*n = (unsigned)v;
	return 0;
}
