/* jsonout.c - small helpers over jansson */
#include "coordinator/jsonout.h"
#include "common/safetext.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *jout_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

int jout_print(json_t *v)
{
	int rc = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
	json_decref(v);
	fputc('\n', stdout);
	return rc || fflush(stdout) ? -EIO : 0;
}

json_t *jout_text(const char *s)
{
	size_t len = 4 * strlen(s) + 1;
	char *buf = malloc(len);
	json_t *j = buf ? json_string(safetext_copy(buf, len, s)) : NULL;
	free(buf);
	return j ? j : json_null();
}
