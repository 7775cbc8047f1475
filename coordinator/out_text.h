/* out_text.h - a measurement's result for people: the block measure prints */
#ifndef OUT_TEXT_H
#define OUT_TEXT_H

#include "calib/summary.h"
#include "coordinator/context.h"
#include "coordinator/sequence.h"

#include <stdio.h>

/* out_text_print - the human block: tau_PUT ± CI, the error budget, the OS table */
void out_text_print(FILE *f, const struct summary *s, const struct seq_opts *so, const struct context *ctx);
/* out_text_os_table - only the OS-accounting table */
void out_text_os_table(FILE *f, const struct summary *s, const struct seq_opts *so, const struct context *ctx);
/* out_misses - one line on what an OS source misses on this kernel */
const char *out_misses(enum est_src src, const struct context *ctx, int cpu, char *buf, size_t len);
/*
 * out_text_moved - "2 pairs at 55.05 µs and 1 at 48.20 against 51.06 for
 * the others": the estimates whose cost moved (summary.moved_above,
 * .moved_below), or "" with none
 */
void out_text_moved(const struct summary *s, char *buf, size_t len);
/*
 * out_text_batch_means - "22.94, 23.41, 28.10, 30.12, 30.20": the result's
 * batch means in time order, in µs (summary.tau_batch_means_ns), or "" with
 * none
 */
void out_text_batch_means(const struct summary *s, char *buf, size_t len);

#endif
