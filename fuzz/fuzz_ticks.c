/*
 * fuzz_ticks.c - libFuzzer harness for the tick-count CSV parser
 * (calib/ticksfile.c) and the statistics 'displace ticks' computes from it
 * (calib/slowclock.c). A file that parses has a count for every activity
 * of every row, in no more memory than its counts need.
 */
#include "calib/slowclock.h"
#include "calib/ticksfile.h"
#include "fuzz/fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fuzz_stream(data, size);
	if (!f)
		return 0;
	struct ticksfile tf;
	unsigned long line;
	int rc = ticksfile_read_stream(f, &tf, &line);
	fclose(f);
	if (rc) {
		FUZZ_CHECK(tf.ncol == 0 && tf.count == NULL);
		return 0;
	}
	FUZZ_CHECK(tf.nrows == 0 || tf.cap >= tf.nrows * tf.ncol);
	/* each count took at least two bytes of input ("0,"), bar the last */
	FUZZ_CHECK(tf.nrows * tf.ncol <= size / 2 + 1);
	FUZZ_CHECK(tf.cap <= 2 * tf.nrows * tf.ncol + 16);
	uint64_t *col = tf.nrows ? malloc(tf.nrows * sizeof *col) : NULL;
	for (size_t i = 0; col && i < tf.ncol; i++) {
		struct slowclock_ticks t;
		ticksfile_column(&tf, i, col);
		slowclock_ticks_summarize(col, tf.nrows, 10, 0.95, &t);
	}
	free(col);
	ticksfile_free(&tf);
	return 0;
}
