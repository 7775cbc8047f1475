/* cli.c - pure parsers for command-line values */
#include "common/cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse a non-negative decimal integer at *p, advancing *p. */
static int parse_digits(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

static int cpus_add(struct cli_cpus *set, int cpu)
{
	/* a range comes in ascending order: it appends, so "0-1023" costs no more than its length */
	int i = set->n && set->cpu[set->n - 1] < cpu ? set->n : 0;
	while (i < set->n && set->cpu[i] < cpu)
		i++;
	if (i < set->n && set->cpu[i] == cpu)
		return 0;
	if (set->n >= CLI_MAX_CPUS)
		return -ERANGE;
	memmove(&set->cpu[i + 1], &set->cpu[i], (size_t)(set->n - i) * sizeof set->cpu[0]);
	set->cpu[i] = cpu;
	set->n++;
	return 0;
}

int cli_parse_cpulist(const char *s, const struct cli_cpus *online, struct cli_cpus *out)
{
	out->n = 0;
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "all")) {
		if (!online || online->n == 0)
			return -EINVAL;
		*out = *online;
		return 0;
	}
	const char *p = s;
	for (;;) {
		uint64_t lo, hi;
		int rc = parse_digits(&p, &lo);
		if (rc)
			return rc;
		hi = lo;
		if (*p == '-') {
			p++;
			rc = parse_digits(&p, &hi);
			if (rc)
				return rc;
		}
		if (hi < lo || hi >= CLI_MAX_CPUS)
			return -ERANGE;
		for (uint64_t c = lo; c <= hi; c++)
			if ((rc = cpus_add(out, (int)c)))
				return rc;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

int cli_cpus_contains(const struct cli_cpus *set, int cpu)
{
	for (int i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu)
			return 1;
	return 0;
}

void cli_format_cpulist(const struct cli_cpus *set, char *buf, size_t len)
{
	size_t used = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < set->n;) {
		int j = i;
		while (j + 1 < set->n && set->cpu[j + 1] == set->cpu[j] + 1)
			j++;
		int w;
		if (j > i)
			w = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", set->cpu[i], set->cpu[j]);
		else
			w = snprintf(buf + used, len - used, "%s%d", used ? "," : "", set->cpu[i]);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
		i = j + 1;
	}
}

/* A finite, non-negative decimal number (no sign, no exponent) at the start of s. */
static int parse_plain_number(const char *s, double *v, const char **end)
{
	if (!s)
		return -EINVAL;
	if (!isdigit((unsigned char)s[0]) && !(s[0] == '.' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	char *e;
	errno = 0;
	double x = strtod(s, &e);
	if (errno == ERANGE || !isfinite(x))
		return -ERANGE;
	/* strtod also takes hex, inf and exponents; keep plain decimals only */
	for (const char *q = s; q < e; q++)
		if (!isdigit((unsigned char)*q) && *q != '.')
			return -EINVAL;
	*v = x;
	*end = e;
	return 0;
}

int cli_parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	double v;
	const char *e;
	int rc = parse_plain_number(s, &v, &e);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(e, units[i].unit))
			continue;
		double x = v * units[i].ns + 0.5;
		/* below 2^64, so the conversion is exact; llround would overflow its long long above 2^63 */
		if (x >= 1.8e19)
			return -ERANGE;
		*ns = (uint64_t)x;
		return 0;
	}
	return -EINVAL;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} sfx[] = {
		{ "", 1 }, { "k", 1000 }, { "K", 1000 }, { "M", 1000000 }, { "Ki", 1024 }, { "Mi", 1048576 },
	};
	uint64_t v;
	const char *p = s;
	int rc = parse_digits(&p, &v);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		if (strcmp(p, sfx[i].suffix))
			continue;
		if (v > UINT64_MAX / sfx[i].mult)
			return -ERANGE;
		*bytes = v * sfx[i].mult;
		return 0;
	}
	return -EINVAL;
}

int cli_parse_sizes(const char *s, uint64_t *out, size_t max, size_t *n)
{
	char buf[256];
	*n = 0;
	if (!s || strlen(s) >= sizeof buf || !*s)
		return -EINVAL;
	strcpy(buf, s);
	if (strchr(buf, ':')) {
		char *a = buf, *b = strchr(a, ':');
		*b++ = '\0';
		char *c = strchr(b, ':');
		if (!c)
			return -EINVAL;
		*c++ = '\0';
		uint64_t from, to, step;
		int rc;
		if ((rc = cli_parse_size(a, &from)) || (rc = cli_parse_size(b, &to)) || (rc = cli_parse_size(c, &step)))
			return rc;
		if (step == 0 || to < from)
			return -EINVAL;
		for (uint64_t v = from; v <= to; v += step) {
			if (*n >= max)
				return -ERANGE;
			out[(*n)++] = v;
			if (v > UINT64_MAX - step)
				break;
		}
		return 0;
	}
	char *save = NULL;
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return -EINVAL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max)
			return -ERANGE;
		int rc = cli_parse_size(tok, &out[*n]);
		if (rc)
			return rc;
		/* the same size twice would be measured twice, as if it were two: a typo, most likely */
		for (size_t i = 0; i < *n; i++)
			if (out[i] == out[*n])
				return -EEXIST;
		(*n)++;
	}
	return 0;
}

int cli_parse_percent(const char *s, double *frac)
{
	double v;
	const char *e;
	int rc = parse_plain_number(s, &v, &e);
	if (rc)
		return rc;
	if (strcmp(e, "%") && strcmp(e, ""))
		return -EINVAL;
	if (v <= 0 || v >= 100)
		return -ERANGE;
	*frac = v / 100;
	return 0;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	const char *p = s;
	int rc = parse_digits(&p, &v);
	if (rc)
		return rc;
	if (*p)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * Every number on the command line is plain decimal, as cli_parse_u64 and
 * parse_plain_number read it: no white space, hex, exponent, inf or nan.
 * Only a leading minus is added here, where a range allows one.
 */
int cli_parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	int neg = s && s[0] == '-';
	const char *p = s ? s + neg : NULL;
	int rc = parse_digits(&p, &v);
	if (rc)
		return rc;
	if (*p)
		return -EINVAL;
	if (v > (uint64_t)INT_MAX + (uint64_t)neg)
		return -ERANGE;
	long long x = neg ? -(long long)v : (long long)v;
	if (x < min || x > max)
		return -ERANGE;
	*out = (int)x;
	return 0;
}

int cli_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	const char *e;
	int neg = s && s[0] == '-';
	int rc = parse_plain_number(s ? s + neg : NULL, &v, &e);
	if (rc)
		return rc;
	if (*e)
		return -EINVAL;
	if (neg)
		v = -v;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *cli_opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	*missing = 0;
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int cli_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
