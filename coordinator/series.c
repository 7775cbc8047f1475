/* series.c - one configuration measured again and again, and its argv for put */
#include "coordinator/series.h"
#include "common/vec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void series_init(struct series *s, const struct put_workload *w, char *const *wargs, int n, const char *peer_addr,
		 const char *label)
{
	memset(s, 0, sizeof *s);
	s->w = w;
	snprintf(s->label, sizeof s->label, "%s", label);
	int i = 0;
	/* options go before a "--" that ends them (exec) */
	for (; i < n && strcmp(wargs[i], "--") && s->nopts < SERIES_MAX_ARGS; i++)
		s->opts[s->nopts++] = wargs[i];
	for (; i < n && s->nrest < SERIES_MAX_ARGS; i++)
		s->rest[s->nrest++] = wargs[i];
	if (peer_addr)
		snprintf(s->peer_arg, sizeof s->peer_arg, "--peer=%s", peer_addr);
}

int series_add_arg(struct series *s, const char *arg)
{
	if (s->nadded >= SERIES_MAX_ADDED || strlen(arg) >= sizeof s->added[0])
		return -E2BIG;
	snprintf(s->added[s->nadded++], sizeof s->added[0], "%s", arg);
	return 0;
}

/* arg is option name, as "--name" or "--name=value" */
static int is_opt(const char *arg, const char *name)
{
	size_t len = strlen(name);
	return !strncmp(arg, name, len) && (arg[len] == '\0' || arg[len] == '=');
}

const char *series_added(const struct series *s, const char *name)
{
	for (int i = 0; i < s->nadded; i++)
		if (is_opt(s->added[i], name))
			return s->added[i];
	return NULL;
}

int series_add_put_opt(struct series *s, const char *opt)
{
	if (s->nput_opts >= (int)(sizeof s->put_opts / sizeof s->put_opts[0]) || strlen(opt) >= sizeof s->put_opts[0])
		return -E2BIG;
	snprintf(s->put_opts[s->nput_opts++], sizeof s->put_opts[0], "%s", opt);
	return 0;
}

int series_argv(const struct series *s, char **argv, int max, char sizebuf[32])
{
	int k = 0;
	/* the option a pilot's fixed one stands for (spin's --us for --loops-per-op) is left out */
	const struct put_pilot *pl = s->w ? &s->w->pilot : NULL;
	const char *drop = pl && pl->fix_replaces && series_added(s, pl->fix_option) ? pl->fix_replaces : NULL;
	/* room for the NULL */
	max--;
	for (int i = 0; i < s->nopts && k < max; i++) {
		if (i > 0 && drop && is_opt(s->opts[i], drop)) {
			i += !strchr(s->opts[i], '='); /* and its value */
			continue;
		}
		argv[k++] = (char *)s->opts[i];
	}
	if (s->peer_arg[0] && k < max)
		argv[k++] = (char *)s->peer_arg;
	if (s->size_bytes && k < max) {
		snprintf(sizebuf, 32, "--size=%" PRIu64, s->size_bytes);
		argv[k++] = sizebuf;
	}
	for (int i = 0; i < s->nadded && k < max; i++)
		argv[k++] = (char *)s->added[i];
	for (int i = 0; i < s->nrest && k < max; i++)
		argv[k++] = (char *)s->rest[i];
	argv[k] = NULL;
	return k;
}

int series_has_arg(const struct series *s, const char *name)
{
	char *argv[2 * SERIES_MAX_ARGS + SERIES_MAX_ADDED + 4], sizebuf[32];
	int n = series_argv(s, argv, (int)(sizeof argv / sizeof argv[0]), sizebuf);
	for (int i = 1; i < n && strcmp(argv[i], "--"); i++)
		if (is_opt(argv[i], name))
			return 1;
	return 0;
}

/* an argument as a shell would need it: as it is when safe, else in single quotes */
static size_t quote_arg(char *buf, size_t len, const char *a)
{
	size_t used = 0;
	int safe = *a != '\0';
	for (const char *p = a; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+@%-", *p))
			safe = 0;
	if (safe)
		return (size_t)snprintf(buf, len, "%s", a);
	used += (size_t)snprintf(buf, len, "'");
	for (const char *p = a; *p && used < len; p++)
		used += (size_t)snprintf(buf + used, len - used, *p == '\'' ? "'\\''" : "%c", *p);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "'");
	return used;
}

void series_args_text(const struct series *s, char *buf, size_t len)
{
	char *argv[2 * SERIES_MAX_ARGS + SERIES_MAX_ADDED + 4], sizebuf[32];
	int n = series_argv(s, argv, (int)(sizeof argv / sizeof argv[0]), sizebuf);
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 1; i < n && used + 1 < len; i++) {
		if (i > 1)
			buf[used++] = ' ', buf[used] = '\0';
		used += quote_arg(buf + used, len - used, argv[i]);
	}
}

int series_append_run(struct series *s, const struct est_run *r)
{
	struct est_run *runs = vec_grow(s->runs, &s->cap, s->nruns, sizeof *runs);
	if (!runs)
		return -ENOMEM;
	s->runs = runs;
	s->runs[s->nruns++] = *r;
	return 0;
}

int series_append_alone(struct series *s, const struct est_alone *a)
{
	struct est_alone *al = vec_grow(s->alone, &s->alone_cap, s->nalone, sizeof *al);
	if (!al)
		return -ENOMEM;
	s->alone = al;
	s->alone[s->nalone++] = *a;
	return 0;
}

uint64_t series_pair_ops(struct series *s, int k, uint64_t big, uint64_t small)
{
	if (k == 0)
		s->pair_flip = (int)(random() & 1);
	return k ^ s->pair_flip ? small : big;
}

void series_pair_done(struct series *s)
{
	if (s->pair_flip && s->nruns >= 2) {
		struct est_run t = s->runs[s->nruns - 1];
		s->runs[s->nruns - 1] = s->runs[s->nruns - 2];
		s->runs[s->nruns - 2] = t;
	}
	s->pair_flip = 0;
}

void series_free(struct series *s)
{
	free(s->runs);
	free(s->alone);
	s->runs = NULL;
	s->alone = NULL;
	s->nruns = s->cap = s->nalone = s->alone_cap = 0;
}
