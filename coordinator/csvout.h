/* csvout.h - result CSV files: a stable header, rows appended and flushed one by one */
#ifndef CSVOUT_H
#define CSVOUT_H

#include <stddef.h>
#include <stdio.h>

struct csvout {
	FILE *f;
	char path[4096];
};

/*
 * csvout_open - open path for appending (outfile_append: never through a
 * symbolic link, only a regular file). A new or empty file gets header; an
 * existing file must already have the same header (-EEXIST if not, so rows
 * of another kind are never mixed in), and a last row without its line end
 * gets one, so that the next row does not run into it. 0 or -errno
 * (outfile_strerror says why).
 */
int csvout_open(struct csvout *c, const char *path, const char *header);
/* csvout_row - one row through libcsv, flushed at once. 0 or -errno */
int csvout_row(struct csvout *c, const char *const *fields, size_t n);
/* csvout_num - v with the given decimals into buf, or an empty cell when v is not a number */
void csvout_num(char *buf, size_t len, double v, int decimals);
/* csvout_date - now, in UTC, as the CSV files and the store write it: 2026-11-22T20:31:09Z */
void csvout_date(char *buf, size_t len);
/* csvout_close - close the file (safe on an unopened csvout) */
void csvout_close(struct csvout *c);

#endif
