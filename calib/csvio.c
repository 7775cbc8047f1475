/* csvio.c - reading and writing CSV through libcsv, with line numbers */
#include "calib/csvio.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	csvio_row_fn fn;
	void *ctx;
	char **field;
	size_t n, cap;
	unsigned long line;       /* line being fed */
	unsigned long row_start;  /* line the current record began on */
	unsigned long index;
	int between;              /* no record begun since the last one ended */
	int err;
	unsigned long err_line;
};

static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;
	if (r->err)
		return;
	if (r->between) {
		/* a record that began after a bare CR ended the last one on this line */
		r->between = 0;
		r->row_start = r->line;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		char **f = realloc(r->field, cap * sizeof *f);
		if (!f) {
			r->err = -ENOMEM;
			return;
		}
		r->field = f;
		r->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy) {
		r->err = -ENOMEM;
		return;
	}
	if (len)
		memcpy(copy, s, len);
	copy[len] = '\0';
	r->field[r->n++] = copy;
}

static void on_row(int c, void *data)
{
	struct reader *r = data;
	(void)c;
	if (!r->err && r->n > 0) {
		struct csvio_row row = { r->n, r->field, r->row_start, r->index++ };
		int rc = r->fn(&row, r->ctx);
		if (rc) {
			r->err = rc;
			r->err_line = row.line;
		}
	}
	for (size_t i = 0; i < r->n; i++)
		free(r->field[i]);
	r->n = 0;
	r->between = 1;
}

/* blank - whether libcsv skips this line: only spaces, tabs and line ends */
static int blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", s[i]))
			return 0;
	return 1;
}

int csvio_read(const char *path, csvio_row_fn fn, void *ctx, unsigned long *err_line)
{
	*err_line = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int rc = csvio_read_stream(f, fn, ctx, err_line);
	fclose(f);
	return rc;
}

int csvio_read_stream(FILE *f, csvio_row_fn fn, void *ctx, unsigned long *err_line)
{
	struct csv_parser p;
	struct reader r = { .fn = fn, .ctx = ctx, .between = 1 };
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	*err_line = 0;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI))
		return -ENOMEM;
	/*
	 * Fed line by line, so that every record knows where it started: on
	 * the first non-blank line after the previous record. libcsv reports
	 * a field only when it ends, which for a quoted first field can be
	 * lines later.
	 */
	while ((len = getline(&buf, &cap, f)) > 0) {
		r.line++;
		if (memchr(buf, '\0', (size_t)len)) {
			rc = -EILSEQ;
			*err_line = r.line;
			break;
		}
		if (r.between && !blank(buf, (size_t)len)) {
			r.between = 0;
			r.row_start = r.line;
		}
		if (csv_parse(&p, buf, (size_t)len, on_field, on_row, &r) != (size_t)len) {
			rc = csv_error(&p) == CSV_ENOMEM ? -ENOMEM : -EBADMSG;
			*err_line = r.line;
			break;
		}
		if (r.err)
			break;
	}
	/* getline's own errno: reading a directory is EISDIR, not EIO */
	int read_errno = errno;
	if (!rc && ferror(f)) {
		rc = read_errno ? -read_errno : -EIO;
		*err_line = r.line;
	}
	if (!rc && !r.err && csv_fini(&p, on_field, on_row, &r)) {
		rc = -EBADMSG; /* an unterminated quoted field */
		*err_line = r.between ? r.line : r.row_start;
	}
	if (!rc && r.err) {
		rc = r.err;
		*err_line = r.err_line ? r.err_line : r.line;
	}
	for (size_t i = 0; i < r.n; i++)
		free(r.field[i]);
	free(r.field);
	free(buf);
	csv_free(&p);
	return rc;
}

const char *csvio_syntax_text(int rc)
{
	return rc == -EILSEQ ? "a NUL byte: not a text file"
			     : "malformed CSV: a stray quote or an unclosed quoted field";
}

int csvio_write_row(FILE *f, const char *const *field, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i && fputc(',', f) == EOF)
			return -EIO;
		const char *s = field[i] ? field[i] : "";
		size_t len = strlen(s);
		/*
		 * Quote only what needs it, so the files stay easy to read. libcsv
		 * trims spaces and tabs around an unquoted field.
		 */
		int quote = strpbrk(s, ",\"\r\n") || (len && (strchr(" \t", s[0]) || strchr(" \t", s[len - 1])));
		if (quote ? csv_fwrite(f, s, len) != 0 : fputs(s, f) == EOF)
			return -EIO;
	}
	if (fputc('\n', f) == EOF || fflush(f))
		return -EIO;
	return 0;
}
