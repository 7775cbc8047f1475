/* csvio.h - reading and writing CSV through libcsv, with line numbers */
#ifndef CSVIO_H
#define CSVIO_H

#include <stddef.h>
#include <stdio.h>

struct csvio_row {
	size_t n;            /* fields in this record */
	char **field;        /* NUL-terminated field texts */
	unsigned long line;  /* physical line the record starts on (1-based) */
	unsigned long index; /* record number (0-based, the header is 0) */
};

/* A row callback: 0 to go on, or a negative errno to stop with that error. */
typedef int (*csvio_row_fn)(const struct csvio_row *row, void *ctx);

/*
 * csvio_read - parse the CSV file at path (strict RFC 4180 quoting) and call
 * fn for every record, blank lines skipped. Returns 0; -errno if the file
 * cannot be read; -EBADMSG on a CSV syntax error; -EILSEQ for a NUL byte;
 * or fn's error. On any error but an unreadable file, *err_line is the
 * line it happened on.
 */
int csvio_read(const char *path, csvio_row_fn fn, void *ctx, unsigned long *err_line);
/* csvio_read_stream - csvio_read from an open stream (read to its end, not closed) */
int csvio_read_stream(FILE *f, csvio_row_fn fn, void *ctx, unsigned long *err_line);
/* csvio_syntax_text - what a syntax error of csvio_read (-EBADMSG or -EILSEQ) means, for a message */
const char *csvio_syntax_text(int rc);

/*
 * csvio_write_row - write one record of n fields to f, quoting where needed
 * (csv_fwrite), end it with a newline and flush. 0 or -errno.
 */
int csvio_write_row(FILE *f, const char *const *field, size_t n);

#endif
