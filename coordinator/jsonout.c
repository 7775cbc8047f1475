/* jsonout.c - small helpers over jansson */
#include "coordinator/jsonout.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

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
