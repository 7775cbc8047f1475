/* cmd_ticks.c - displace ticks: mean durations, their sd and CI, from per-interval tick counts */
#include "calib/csvio.h"
#include "calib/slowclock.h"
#include "calib/ticksfile.h"
#include "common/cli.h"
#include "common/safetext.h"
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/msg.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_BATCHES 10

static void usage(FILE *f)
{
	fputs("usage: displace ticks FILE.csv [--resolution D] [--confidence R] [--batches B] [--json]\n"
	      "\n"
	      "Estimates mean durations from clock tick counts (Beilner 1988, Chan).\n"
	      "FILE.csv has a header row naming the activities, then one row per loop:\n"
	      "the number of clock ticks seen during each activity in that loop, e.g.\n"
	      "    send,recv\n"
	      "    0,1\n"
	      "    1,0\n"
	      "Every row has one whole, non-negative count per activity.\n"
	      "\n"
	      "For each activity it prints:\n"
	      "  mean         (6b): D times the mean tick count\n"
	      "  CI           Student t over the batch means, at the confidence asked\n"
	      "  sd batches   the sd of the mean, estimated from the means of contiguous\n"
	      "               batches of loops (so correlated loops are counted)\n"
	      "  sd (10a)     the sd of the mean Beilner's (10a) predicts from the mean,\n"
	      "               assuming each count is k or k+1 and loops are independent\n"
	      "  bound (10b)  D / (2 sqrt(n)), the largest (10a) can be\n"
	      "\n"
	      "Options:\n"
	      "  --resolution D   the clock tick, a duration: 1ms, 4ms, 10us; without it\n"
	      "                   results are in ticks (default: none, ticks)\n"
	      "  --confidence R   confidence level, a percentage in (0, 100): 95 or 99%\n"
	      "                   (default 95)\n"
	      "  --batches B      batches for the sd and the CI, 2 or more; fewer are used\n"
	      "                   when there are fewer loops (default 10)\n"
	      "  --json           print JSON instead of the table\n"
	      "  -h, --help       this help\n"
	      "\n"
	      "Exit status: 0 done, 2 bad usage or a malformed file (with its line number),\n"
	      "3 the file cannot be read.\n",
	      f);
}

/* The display unit for a clock of res_ns: a thousandth of the tick shows as 1. */
static double pick_unit(double res_ns, const char **name)
{
	static const struct {
		double ns;
		const char *unit;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	size_t i = 0;
	while (i + 1 < sizeof u / sizeof u[0] && res_ns / 1000 < u[i].ns)
		i++;
	*name = u[i].unit;
	return u[i].ns;
}

struct options {
	double res_ns; /* 0: results in ticks */
	double conf;
	size_t batches;
};

/* ticks times scale, or NAN (shown as n/a, null in JSON) */
static double scaled(double ticks, double scale)
{
	return isfinite(ticks) ? ticks * scale : NAN;
}

static void print_num(double v, int width, int prec)
{
	if (isfinite(v))
		printf(" %*.*f", width, prec, v);
	else
		printf(" %*s", width, "n/a");
}

static int print_text(const char *path, const struct ticksfile *tf, const struct slowclock_ticks *t,
		      const struct options *o)
{
	const char *unit = "ticks";
	double scale = 1;
	int prec = 4;
	char res[48] = "";
	if (o->res_ns > 0) {
		double u = pick_unit(o->res_ns, &unit);
		scale = o->res_ns / u;
		prec = 2;
		const char *ru;
		double rs = pick_unit(o->res_ns * 1000, &ru);
		snprintf(res, sizeof res, ", D = %.4g %s", o->res_ns / rs, ru);
	}
	/* the names as the file has them, but never a control character to the terminal */
	char name[100];
	int w = 8;
	for (size_t i = 0; i < tf->ncol; i++) {
		int len = (int)strlen(safetext_copy(name, sizeof name, tf->name[i]));
		if (len > w)
			w = len > 24 ? 24 : len;
	}

	printf("%s: %zu activit%s%s%s\n\n", path, tf->ncol, tf->ncol == 1 ? "y" : "ies", res,
	       o->res_ns > 0 ? "" : " (no --resolution: durations in ticks)");
	char ci[32];
	snprintf(ci, sizeof ci, "%.4g%% CI +-", o->conf * 100);
	char mean[32];
	snprintf(mean, sizeof mean, "mean (%s)", unit);
	printf("%-*s %9s %11s %12s %12s %11s %9s %11s\n", w, "activity", "n", "ticks", mean, ci, "sd batches",
	       "sd (10a)", "bound (10b)");
	int wide = 0, na = 0;
	for (size_t i = 0; i < tf->ncol; i++) {
		const struct slowclock_ticks *s = &t[i];
		printf("%-*.*s %9zu %11.0f", w, w, safetext_copy(name, sizeof name, tf->name[i]), s->n, s->tick_sum);
		print_num(scaled(s->mean_ticks, scale), 12, prec);
		print_num(scaled(s->ci_half_ticks, scale), 12, prec);
		print_num(scaled(s->sd_mean_ticks, scale), 11, prec);
		print_num(scaled(s->sd_pred_ticks, scale), 9, prec);
		print_num(scaled(s->sd_bound_ticks, scale), 11, prec);
		if (!s->two_values) {
			fputs(" *", stdout);
			wide = 1;
		}
		if (s->batches < 2)
			na = 1;
		putchar('\n');
	}
	size_t b = t[0].batches, len = t[0].batch_len;
	printf("\nDurations in %s; sd is the standard deviation of the mean.\n", unit);
	if (b >= 2)
		printf("The CI and sd batches come from %zu batch means of %zu loop%s (Student t, %zu df).\n", b, len,
		       len == 1 ? "" : "s", b - 1);
	if (wide)
		printf("* counts span more than two values (k and k+1): Beilner's assumption (8) fails,\n"
		       "  so (10a) and (10b) do not bound the sd; trust the batches.\n");
	if (na)
		printf("n/a: fewer than two loops, so no batches.\n");
	return fflush(stdout) ? EXIT_FAILED : EXIT_OK;
}

/* a count as a JSON integer while it fits one */
static json_t *json_count(uint64_t v)
{
	return v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static int print_json(const char *path, const struct ticksfile *tf, const struct slowclock_ticks *t,
		      const struct options *o)
{
	double ns = o->res_ns > 0 ? o->res_ns : NAN;
	json_t *arr = json_array();
	for (size_t i = 0; i < tf->ncol; i++) {
		const struct slowclock_ticks *s = &t[i];
		json_t *a = json_object();
		json_object_set_new(a, "name", jout_text(tf->name[i]));
		json_object_set_new(a, "n", json_integer((json_int_t)s->n));
		json_object_set_new(a, "tick_sum", jout_num(s->tick_sum));
		json_object_set_new(a, "min_ticks", json_count(s->min_ticks));
		json_object_set_new(a, "max_ticks", json_count(s->max_ticks));
		json_object_set_new(a, "two_values", json_boolean(s->two_values));
		json_object_set_new(a, "batches", json_integer((json_int_t)s->batches));
		json_object_set_new(a, "batch_len", json_integer((json_int_t)s->batch_len));
		static const char *const key[] = { "mean", "ci_half", "sd_mean_batches", "sd_batch_mean",
						   "sd_pred_10a", "sd_bound_10b", "chan_ci_half" };
		const double v[] = { s->mean_ticks,    s->ci_half_ticks,  s->sd_mean_ticks,   s->sd_batch_mean_ticks,
				     s->sd_pred_ticks, s->sd_bound_ticks, s->model_half_ticks };
		char k[64];
		for (size_t j = 0; j < sizeof key / sizeof key[0]; j++) {
			snprintf(k, sizeof k, "%s_ticks", key[j]);
			json_object_set_new(a, k, jout_num(v[j]));
			snprintf(k, sizeof k, "%s_ns", key[j]);
			json_object_set_new(a, k, jout_num(scaled(v[j], ns)));
		}
		json_array_append_new(arr, a);
	}
	json_t *root = json_object();
	json_object_set_new(root, "file", jout_text(path));
	json_object_set_new(root, "resolution_ns", jout_num(ns));
	json_object_set_new(root, "confidence", jout_num(o->conf));
	json_object_set_new(root, "batches", json_integer((json_int_t)o->batches));
	json_object_set_new(root, "activities", arr);
	return jout_print(root) ? EXIT_FAILED : EXIT_OK;
}

int cmd_ticks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "resolution", required_argument, NULL, 'r' }, { "confidence", required_argument, NULL, 'c' },
		{ "batches", required_argument, NULL, 'b' },    { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },             { 0, 0, 0, 0 },
	};
	struct options o = { .conf = DEFAULT_CONFIDENCE, .batches = DEFAULT_BATCHES };
	const char *conf_arg = NULL;
	int json = 0, c;
	struct msg_getopt g = { .cmd = "ticks", .opts = opts, .usage = usage, .json = &json };
	while ((c = msg_getopt_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'r': {
			uint64_t v;
			if (cli_parse_duration_ns(optarg, &v))
				return msg_usage("ticks", "invalid value '%s' for --resolution (a duration such as 1ms)",
						 optarg);
			if (v == 0)
				return msg_usage("ticks", "--resolution must be above 0, got '%s'", optarg);
			o.res_ns = (double)v;
			break;
		}
		case 'c':
			if (cli_parse_percent(optarg, &o.conf))
				return msg_usage("ticks", "invalid value '%s' for --confidence (strictly between 0 and 100, e.g. 95)",
						 optarg);
			conf_arg = optarg;
			break;
		case 'b': {
			uint64_t v;
			if (cli_parse_u64(optarg, 2, 1000000, &v))
				return msg_usage("ticks", "invalid value '%s' for --batches (2 to 1000000)", optarg);
			o.batches = (size_t)v;
			break;
		}
		}
	}
	if (g.status >= 0)
		return g.status;
	if (optind >= argc)
		return msg_usage("ticks", "missing FILE.csv");
	if (argc - optind > 1)
		return msg_usage("ticks", "unexpected argument '%s'", argv[optind + 1]);
	const char *path = argv[optind];
	if (conf_arg && o.conf < 0.01 && !strchr(conf_arg, '%'))
		msg_warn("--confidence %s means %s %%; write 95 for 95 %%", conf_arg, conf_arg);

	/* csvio would report a directory as an I/O error */
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		msg_error("cannot read '%s': %s", path, strerror(EISDIR));
		return EXIT_RESOURCE;
	}
	struct ticksfile tf;
	unsigned long line;
	int rc = ticksfile_read(path, &tf, &line);
	int status = EXIT_OK;
	if (rc == -EINVAL && tf.err[0]) {
		msg_error("%s:%lu: %s", path, line, tf.err);
		status = EXIT_USAGE;
	} else if (rc == -EBADMSG || rc == -EILSEQ) {
		msg_error("%s:%lu: %s", path, line, csvio_syntax_text(rc));
		status = EXIT_USAGE;
	} else if (rc == -ENOMEM) {
		msg_error("%s: out of memory", path);
		status = EXIT_FAILED;
	} else if (rc) {
		msg_error("cannot read '%s': %s", path, strerror(-rc));
		status = EXIT_RESOURCE;
	} else if (tf.ncol == 0) {
		msg_error("%s: empty file: no header row naming the activities", path);
		status = EXIT_USAGE;
	} else if (tf.nrows == 0) {
		msg_error("%s: no tick counts after the header row", path);
		status = EXIT_USAGE;
	}
	if (status != EXIT_OK) {
		ticksfile_free(&tf);
		return status;
	}
	if (tf.header_numeric)
		msg_warn("%s:1: the header row looks like tick counts; the first row must name the activities", path);

	struct slowclock_ticks *t = calloc(tf.ncol, sizeof *t);
	uint64_t *col = calloc(tf.nrows, sizeof *col);
	if (!t || !col) {
		free(t);
		free(col);
		ticksfile_free(&tf);
		msg_error("out of memory");
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < tf.ncol && status == EXIT_OK; i++) {
		ticksfile_column(&tf, i, col);
		rc = slowclock_ticks_summarize(col, tf.nrows, o.batches, o.conf, &t[i]);
		if (rc) {
			msg_error("%s: cannot summarize '%s': %s", path, tf.name[i], strerror(-rc));
			status = EXIT_FAILED;
		}
	}
	free(col);
	if (status == EXIT_OK)
		status = json ? print_json(path, &tf, t, &o) : print_text(path, &tf, t, &o);
	free(t);
	ticksfile_free(&tf);
	return status;
}
