/* csvout.c - result CSV files: a stable header, rows appended and flushed one by one */
#include "coordinator/csvout.h"
#include "calib/csvio.h"
#include "common/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the first line of the file (without its line end) is header; 1 if so, 0 if not, -errno */
static int has_header(FILE *f, const char *header)
{
	char *line = NULL;
	size_t cap = 0;
	rewind(f);
	ssize_t n = getline(&line, &cap, f);
	int rc = n < 0 ? (ferror(f) ? -EIO : 0) : 0;
	if (n >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		rc = !strcmp(line, header);
	}
	free(line);
	return rc;
}

int csvout_open(struct csvout *c, const char *path, const char *header)
{
	struct outfile o;
	struct stat st;
	int created;
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	int rc = outfile_append(&o, path, &created);
	if (rc)
		return rc;
	FILE *f = fdopen(o.fd, "a+");
	if (!f) {
		rc = -errno;
		outfile_close(&o);
		return rc;
	}
	if (fstat(o.fd, &st)) {
		rc = -errno;
	} else if (st.st_size == 0) {
		if (fputs(header, f) == EOF || fputc('\n', f) == EOF || fflush(f))
			rc = -EIO;
	} else if ((rc = has_header(f, header)) >= 0) {
		char last = '\n';
		rc = rc ? 0 : -EEXIST;
		/* a file cut short in its last row: that row ends here, so the next one does not run into it */
		if (!rc && pread(o.fd, &last, 1, st.st_size - 1) != 1)
			rc = -EIO;
		if (!rc && last != '\n' && (fputc('\n', f) == EOF || fflush(f)))
			rc = -EIO;
	}
	if (rc) {
		fclose(f);
		return rc;
	}
	c->f = f;
	return 0;
}

int csvout_row(struct csvout *c, const char *const *fields, size_t n)
{
	if (!c->f)
		return 0;
	return csvio_write_row(c->f, fields, n);
}

void csvout_close(struct csvout *c)
{
	if (c->f)
		fclose(c->f);
	c->f = NULL;
}

void csvout_num(char *buf, size_t len, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", decimals, v);
	else if (len)
		buf[0] = '\0';
}

void csvout_date(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
