/* ticksfile.c - the CSV of per-loop tick counts */
#include "calib/ticksfile.h"
#include "calib/csvio.h"
#include "common/cli.h"
#include "common/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse a whole, non-negative tick count; blanks around it are allowed. */
static int parse_count(const char *s, uint64_t *v)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t len = strlen(s);
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	char buf[32];
	if (len == 0 || len >= sizeof buf)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return cli_parse_u64(buf, 0, UINT64_MAX, v);
}

static int header(struct ticksfile *tf, const struct csvio_row *row)
{
	tf->name = calloc(row->n, sizeof *tf->name);
	if (!tf->name)
		return -ENOMEM;
	tf->ncol = row->n;
	tf->header_numeric = 1;
	for (size_t i = 0; i < row->n; i++) {
		const char *name = row->field[i];
		/* a spreadsheet's byte-order mark is not part of the first name */
		if (i == 0 && !strncmp(name, "\xEF\xBB\xBF", 3))
			name += 3;
		uint64_t v;
		if (parse_count(name, &v))
			tf->header_numeric = 0;
		if (!*name) {
			snprintf(tf->err, sizeof tf->err, "activity %zu has no name in the header row", i + 1);
			return -EINVAL;
		}
		if (!(tf->name[i] = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

static int on_row(const struct csvio_row *row, void *ctx)
{
	struct ticksfile *tf = ctx;
	if (row->index == 0)
		return header(tf, row);
	if (row->n != tf->ncol) {
		snprintf(tf->err, sizeof tf->err, "%zu field%s, but the header names %zu activit%s", row->n,
			 row->n == 1 ? "" : "s", tf->ncol, tf->ncol == 1 ? "y" : "ies");
		return -EINVAL;
	}
	/* one array for every count: a column costs nothing before its counts come */
	size_t at = tf->nrows * tf->ncol;
	for (size_t i = 0; i < row->n; i++) {
		uint64_t *c = vec_grow(tf->count, &tf->cap, at + i, sizeof *c);
		if (!c)
			return -ENOMEM;
		tf->count = c;
		if (parse_count(row->field[i], &c[at + i])) {
			snprintf(tf->err, sizeof tf->err, "not a tick count: '%.40s%s'", row->field[i],
				 strlen(row->field[i]) > 40 ? "..." : "");
			return -EINVAL;
		}
	}
	tf->nrows++;
	return 0;
}

int ticksfile_read_stream(FILE *f, struct ticksfile *tf, unsigned long *line)
{
	memset(tf, 0, sizeof *tf);
	int rc = csvio_read_stream(f, on_row, tf, line);
	if (rc)
		ticksfile_free(tf);
	return rc;
}

int ticksfile_read(const char *path, struct ticksfile *tf, unsigned long *line)
{
	*line = 0;
	memset(tf, 0, sizeof *tf);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int rc = ticksfile_read_stream(f, tf, line);
	fclose(f);
	return rc;
}

void ticksfile_column(const struct ticksfile *tf, size_t col, uint64_t *out)
{
	for (size_t r = 0; r < tf->nrows; r++)
		out[r] = tf->count[r * tf->ncol + col];
}

void ticksfile_free(struct ticksfile *tf)
{
	for (size_t i = 0; tf->name && i < tf->ncol; i++)
		free(tf->name[i]);
	free(tf->name);
	free(tf->count);
	char err[sizeof tf->err];
	memcpy(err, tf->err, sizeof err);
	memset(tf, 0, sizeof *tf);
	/* the reason outlives the counts, for the message */
	memcpy(tf->err, err, sizeof err);
}
