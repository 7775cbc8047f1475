/* cli.h - pure parsers for command-line values; 0 or -errno, never printing */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_CPUS 1024

/* A sorted set of distinct CPU numbers. */
struct cli_cpus {
	int n;
	int cpu[CLI_MAX_CPUS];
};

/*
 * cli_fail - an error text, printf-style, into err (errlen bytes), for code
 * that reports -errno plus a text; returns rc
 */
int cli_fail(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * cli_parse_cpulist - parse "0-3,5" (or "all", which copies *online) into
 * *out. -EINVAL on bad syntax or trailing junk, -ERANGE for a CPU number at
 * or above CLI_MAX_CPUS or a descending range.
 */
int cli_parse_cpulist(const char *s, const struct cli_cpus *online, struct cli_cpus *out);
/* cli_cpus_contains - whether cpu is in the set */
int cli_cpus_contains(const struct cli_cpus *set, int cpu);
/* cli_format_cpulist - write the set as "0-3,5" into buf */
void cli_format_cpulist(const struct cli_cpus *set, char *buf, size_t len);

/*
 * cli_parse_duration_ns - parse a duration: a number with unit ns, us, ms,
 * s, m or h (a bare number is seconds). -EINVAL for junk or a negative
 * value, -ERANGE if it overflows.
 */
int cli_parse_duration_ns(const char *s, uint64_t *ns);

/*
 * cli_parse_size - parse a byte count: a whole number with an optional
 * suffix k (1000), M (1e6), Ki (1024), Mi (1048576). -EINVAL for junk.
 */
int cli_parse_size(const char *s, uint64_t *bytes);

/*
 * cli_parse_sizes - parse "1k,2k,64k" or "FROM:TO:STEP" (TO included) into
 * out[0..*n). -EINVAL for junk or a zero step, -ERANGE if more than max,
 * -EEXIST when a size is listed twice (out[*n] is that size).
 */
int cli_parse_sizes(const char *s, uint64_t *out, size_t max, size_t *n);

/*
 * cli_parse_percent - parse "1%", "0.5%" or "1" (percent) into a fraction
 * in (0, 1). -EINVAL for junk, -ERANGE for <= 0 or >= 100 %.
 */
int cli_parse_percent(const char *s, double *frac);

/* cli_parse_u64 - a decimal integer in [min, max]; -EINVAL, -ERANGE */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* cli_parse_int - a decimal integer in [min, max]; -EINVAL, -ERANGE */
int cli_parse_int(const char *s, int min, int max, int *out);
/* cli_parse_double - a finite number in [min, max]; -EINVAL, -ERANGE */
int cli_parse_double(const char *s, double min, double max, double *out);

/*
 * cli_opt_value - for hand-rolled parsers (the fluid, workloads): the value
 * of "--name=value" or "--name value" at argv[*i], advancing *i past the
 * value; NULL if argv[*i] is not that option. *missing is set when it is,
 * but without a value.
 */
const char *cli_opt_value(int argc, char **argv, int *i, const char *name, int *missing);

#endif
