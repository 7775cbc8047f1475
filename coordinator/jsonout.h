/* jsonout.h - small helpers over jansson */
#ifndef JSONOUT_H
#define JSONOUT_H

#include <jansson.h>

/* jout_num - a JSON real, or null when x is not finite (unavailable) */
json_t *jout_num(double x);
/*
 * jout_text - text that came from outside (a process name, a file's
 * content) as a JSON string, through safetext: valid UTF-8 (json_string
 * would refuse anything else) without a control character
 */
json_t *jout_text(const char *s);
/* jout_print - print v to stdout, indented, and release it; 0 or -EIO */
int jout_print(json_t *v);

#endif
