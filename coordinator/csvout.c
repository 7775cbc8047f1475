/* csvout.c - result CSV files: a stable header, rows appended and flushed one by one */
#include "coordinator/csvout.h"
#include "calib/csvio.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int csvout_open(struct csvout *c, const char *path, const char *header)
{
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	FILE *f = fopen(path, "a+");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	rewind(f);
	ssize_t n = getline(&line, &cap, f);
	if (n > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		int same = !strcmp(line, header);
		free(line);
		if (!same) {
			fclose(f);
			return -EEXIST;
		}
	} else {
		free(line);
		if (fputs(header, f) == EOF || fputc('\n', f) == EOF || fflush(f)) {
			fclose(f);
			return -EIO;
		}
	}
	fseek(f, 0, SEEK_END);
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
