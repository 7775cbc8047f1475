/*
 * ticksfile.h - the CSV of per-loop tick counts that 'displace ticks'
 * reads: a header row naming the activities, then one row per loop with a
 * whole, non-negative count per activity. Memory is 8 bytes a count plus
 * the names, whatever the shape of the file.
 */
#ifndef TICKSFILE_H
#define TICKSFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ticksfile {
	size_t ncol;         /* activities */
	size_t nrows;        /* loops: rows after the header */
	char **name;         /* the activities' names, as written (a byte-order mark dropped) */
	uint64_t *count;     /* nrows x ncol, row after row */
	size_t cap;          /* counts allocated */
	int header_numeric;  /* every header field parses as a count */
	char err[160];       /* what was wrong with the row the reading stopped on */
};

/*
 * ticksfile_read - read the file at path into tf. 0; -EINVAL for a bad
 * row or header (err, *line); -EBADMSG or -EILSEQ for a CSV syntax error
 * (csvio_syntax_text, *line); -ENOMEM; -errno if it cannot be read.
 * An empty file is 0 with no column.
 */
int ticksfile_read(const char *path, struct ticksfile *tf, unsigned long *line);
/* ticksfile_read_stream - ticksfile_read from an open stream */
int ticksfile_read_stream(FILE *f, struct ticksfile *tf, unsigned long *line);
/* ticksfile_column - the counts of column col, in order, into out[0..nrows) */
void ticksfile_column(const struct ticksfile *tf, size_t col, uint64_t *out);
/* ticksfile_free - release everything (safe on a zeroed or failed one) */
void ticksfile_free(struct ticksfile *tf);

#endif
