/* out_json.h - a measurement's result for programs: one JSON object (keys in README.md) */
#ifndef OUT_JSON_H
#define OUT_JSON_H

#include "calib/summary.h"
#include "coordinator/sequence.h"
#include "coordinator/series.h"

#include <jansson.h>

/* out_json - the result of series ser as a JSON object */
json_t *out_json(const struct summary *s, const struct seq_opts *so, const struct series *ser);

#endif
