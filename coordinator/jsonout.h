/* jsonout.h - small helpers over jansson */
#ifndef JSONOUT_H
#define JSONOUT_H

#include <jansson.h>

/* jout_num - a JSON real, or null when x is not finite (unavailable) */
json_t *jout_num(double x);
/* jout_print - print v to stdout, indented, and release it; 0 or -EIO */
int jout_print(json_t *v);

#endif
