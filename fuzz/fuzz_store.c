/*
 * fuzz_store.c - libFuzzer harness for the calibration store's parser
 * (calib/calibration.c through calib/csvio.c). A store that loads must
 * hold only rows calib_row_check passes, and must write out and load back
 * as the same rows: the store never holds what it would refuse to read.
 */
#include "calib/calibration.h"
#include "fuzz/fuzz.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_row(const struct calib_row *a, const struct calib_row *b)
{
	return !strcmp(a->host, b->host) && !strcmp(a->kernel, b->kernel) && !strcmp(a->cpu_model, b->cpu_model) &&
	       a->cpu == b->cpu && !strcmp(a->variant, b->variant) && !strcmp(a->sched, b->sched) &&
	       a->tau_f_ns == b->tau_f_ns && a->ci95_ns == b->ci95_ns && a->cv == b->cv && a->tau0_ns == b->tau0_ns &&
	       a->reps == b->reps && a->seconds == b->seconds && a->quiet == b->quiet && !strcmp(a->verdict, b->verdict) &&
	       !strcmp(a->date, b->date);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fuzz_stream(data, size);
	if (!f)
		return 0;
	struct calib_store st, back;
	unsigned long line;
	char err[256];
	int rc = calib_store_read(f, &st, &line, err, sizeof err);
	fclose(f);
	if (rc) {
		FUZZ_CHECK(st.n == 0 && st.rows == NULL);
		FUZZ_CHECK(err[0] != '\0' || rc != -EBADMSG);
		return 0;
	}
	for (size_t i = 0; i < st.n; i++)
		FUZZ_CHECK(calib_row_check(&st.rows[i], err, sizeof err) == 0);
	char *text = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&text, &len);
	FUZZ_CHECK(w && calib_store_write(w, &st) == 0);
	fclose(w);
	FILE *r = fmemopen(text, len, "r");
	FUZZ_CHECK(r);
	rc = calib_store_read(r, &back, &line, err, sizeof err);
	fclose(r);
	if (rc)
		fprintf(stderr, "fuzz_store: written store refused at line %lu: %s\n%s", line, err, text);
	FUZZ_CHECK(rc == 0 && back.n == st.n);
	for (size_t i = 0; i < st.n; i++)
		FUZZ_CHECK(same_row(&st.rows[i], &back.rows[i]));
	free(text);
	calib_store_free(&back);
	calib_store_free(&st);
	return 0;
}
