/*
 * check_predict.c - displace predict end to end: the JSON's predictions
 * and errors agree with each other, the CSV row per size agrees with the
 * JSON, the plot, bad input and a peer that is down. Runs are short (--ops
 * 600, --messages 300, --run-time 100ms, 2 rounds): the numbers are checked
 * for consistency, never for accuracy (bench/).
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char out[1 << 20], err[1 << 16];

/* the predictions' keys, as in the JSON and the CSV columns pred_<key> */
static const char *const pred_keys[] = { "displacement", "off_cpu", "classic", "drift_robust", "getrusage",
					 "task_clock",   "schedstat",    "procstat" };
#define NPRED (sizeof pred_keys / sizeof pred_keys[0])

/* a short predict of tcp at 1000 and 2000 bytes, 20 us of compute; extra may add --json */
static int predict(char *const *extra)
{
	char *argv[40] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000,2000", "--compute", "20",
			   "--messages", "300", "--reps", "2", "--ops", "600", "--run-time", "100ms", "--calib-time",
			   "50ms", "--quiet" };
	int n = 18;
	for (; extra && *extra && n < 39; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	return tu_run(argv, out, sizeof out, err, sizeof err);
}

/*
 * Whether err_pct is 100 (pred - measured) / measured. The JSON holds 10
 * significant digits, so the recomputed value may differ by the rounding:
 * 1e-6 relative, or 1e-6 percentage points for an error below 1 %.
 */
static int error_matches(double err_pct, double pred, double measured)
{
	double want = 100 * (pred - measured) / measured;
	return fabs(err_pct - want) <= 1e-6 * fmax(fabs(want), 1.0);
}

/*
 * The displacement error's CI recomputed from the runs: round j pairs cost
 * runs 2j (L) and 2j + 1 (a null run) with saturated run j; the CI is that of
 * the ratio of paired means, mean(ns per saturated message) / mean(cost).
 */
/* the runs' figure of the result's estimator */
static const char *cost_key(json_t *s)
{
	json_t *it = json_object_get(s, "iteration");
	return strcmp(json_string_value(json_object_get(it, "estimator")), "off_cpu") ? "t_put_ns" : "t_put_off_cpu_ns";
}

/* whether every run of every round has the result's figure (a null one gives that round no cost) */
static int rounds_have_cost(json_t *s)
{
	json_t *runs = json_object_get(json_object_get(s, "iteration"), "runs"), *r;
	size_t j;
	json_array_foreach(runs, j, r)
		if (!json_is_number(json_object_get(r, cost_key(s))))
			return 0;
	return 1;
}

static double paired_ci_from_runs(json_t *s)
{
	json_t *it = json_object_get(s, "iteration"), *runs = json_object_get(it, "runs");
	const char *key = cost_key(s);
	json_t *sat = json_object_get(s, "saturated_msgs_per_s");
	size_t n = json_array_size(sat);
	ck_assert_uint_eq(json_array_size(runs), 2 * n);
	double num[8], den[8], mn = 0, md = 0, ss = 0;
	ck_assert_uint_le(n, 8);
	for (size_t j = 0; j < n; j++) {
		json_t *a = json_array_get(runs, 2 * j), *b = json_array_get(runs, 2 * j + 1);
		ck_assert_int_eq(json_integer_value(json_object_get(b, "ops")), 0);
		double la = (double)json_integer_value(json_object_get(a, "ops"));
		den[j] = (json_number_value(json_object_get(a, key)) - json_number_value(json_object_get(b, key))) / la;
		num[j] = 1e9 / json_number_value(json_array_get(sat, j));
		mn += num[j] / (double)n;
		md += den[j] / (double)n;
	}
	for (size_t j = 0; j < n; j++)
		ss += (num[j] - mn / md * den[j]) * (num[j] - mn / md * den[j]);
	ck_assert_uint_eq(n, 2); /* t(0.975, 1) */
	return 100 * 12.706205 * sqrt(ss / (double)(n - 1)) / sqrt((double)n) / md;
}

/* the parsed JSON, with every size's fields checked */
static json_t *check_json(void)
{
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	ck_assert_msg(root, "JSON: %s at line %d: %.200s", je.text, je.line, out);
	ck_assert_str_eq(json_string_value(json_object_get(root, "workload")), "tcp");
	ck_assert_int_eq(json_integer_value(json_object_get(root, "rounds")), 2);
	ck_assert(json_is_object(json_object_get(root, "context")));
	json_t *sizes = json_object_get(root, "sizes");
	ck_assert_uint_eq(json_array_size(sizes), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *s = json_array_get(sizes, i);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "size_bytes")), i ? 2000 : 1000);
		ck_assert(fabs(json_number_value(json_object_get(s, "compute_us")) - 20) < 1e-9);
		ck_assert_int_eq(json_integer_value(json_object_get(s, "saturated_runs")), 2);
		/*
		 * A saturated run counts when the sender had its CPU 95 % of the
		 * time (saturated_cpu_share); on a shared host one may not.
		 */
		json_t *sat = json_object_get(s, "saturated_msgs_per_s"), *share = json_object_get(s, "saturated_cpu_share");
		ck_assert_uint_eq(json_array_size(sat), 2);
		ck_assert_uint_eq(json_array_size(share), 2);
		double kept_sum = 0, kept_one = 0;
		json_int_t nk = 0;
		for (size_t j = 0; j < 2; j++) {
			double t = json_number_value(json_array_get(sat, j));
			json_t *sh = json_array_get(share, j);
			ck_assert_msg(t > 0, "size %zu: saturated run %zu: %g msg/s", i, j, t);
			/* a number without --task-clock too: the sender's scheduler time (it was null, and every run counted) */
			ck_assert_msg(json_is_number(sh) && json_number_value(sh) > 0 && json_number_value(sh) < 1.05,
				      "size %zu: the sender's CPU share %g", i, json_number_value(sh));
			if (json_is_null(sh) || json_number_value(sh) >= 0.95) {
				kept_sum += 1 / t;
				kept_one = t;
				nk++;
			}
		}
		ck_assert_int_eq(json_integer_value(json_object_get(s, "saturated_runs_left_out")), 2 - nk);
		json_t *m = json_object_get(s, "measured_msgs_per_s");
		if (nk == 0) {
			/* nothing measured: no measurement and no error, never a made-up one */
			ck_assert(json_is_null(m));
			ck_assert(json_is_null(json_object_get(json_object_get(s, "error_pct"), "displacement")));
			continue;
		}
		ck_assert_msg(json_is_number(m) && json_number_value(m) > 0, "size %zu: measured msg/s not above 0", i);
		double measured = json_number_value(m);
		/* pooled: every saturated run sends as many messages, so the harmonic mean of the runs kept */
		double want_m = nk == 2 ? 2 / kept_sum : kept_one;
		ck_assert_msg(fabs(measured - want_m) <= 1e-6 * measured, "size %zu: measured %.10g is not pooled (%.10g)", i,
			      measured, want_m);
		int no_error = json_is_null(json_object_get(json_object_get(s, "error_pct"), "displacement"));
		if (nk == 2 && (no_error || !rounds_have_cost(s))) {
			/*
			 * a round without its cost figure (the fluid's task-clock
			 * missing in a run): one pair, no CI; no prediction (a cost
			 * below c on a busy host), no error: no CI either
			 */
			ck_assert(json_is_null(json_object_get(json_object_get(s, "error_ci95_pct"), "displacement")));
		} else if (nk == 2) {
			json_t *eci = json_object_get(json_object_get(s, "error_ci95_pct"), "displacement");
			ck_assert_msg(json_is_number(eci), "size %zu: no CI for the displacement error", i);
			double want = paired_ci_from_runs(s);
			ck_assert_msg(fabs(json_number_value(eci) - want) <= 1e-4 * fmax(want, 1e-3),
				      "size %zu: error CI %.10g, from the paired runs %.10g", i, json_number_value(eci), want);
		}
		json_t *pred = json_object_get(s, "predicted_msgs_per_s"), *e = json_object_get(s, "error_pct");
		ck_assert(json_is_object(pred) && json_is_object(e));
		int available = 0;
		for (size_t k = 0; k < NPRED; k++) {
			json_t *p = json_object_get(pred, pred_keys[k]), *ek = json_object_get(e, pred_keys[k]);
			ck_assert_msg(p && ek, "no %s in predicted_msgs_per_s or error_pct", pred_keys[k]);
			if (json_is_null(p)) {
				/* no prediction, no error */
				ck_assert_msg(json_is_null(ek), "error_pct.%s without a prediction", pred_keys[k]);
				continue;
			}
			available++;
			double pv = json_number_value(p), ev = json_number_value(ek);
			ck_assert_msg(pv > 0, "size %zu: %s predicts %g msg/s", i, pred_keys[k], pv);
			ck_assert_msg(json_is_number(ek) && error_matches(ev, pv, measured),
				      "size %zu: %s error %.10g %%, but 100 (%.10g - %.10g) / %.10g = %.10g", i, pred_keys[k],
				      ev, pv, measured, measured, 100 * (pv - measured) / measured);
		}
		/* getrusage and the others are never 0 for a loop that computes 20 us */
		ck_assert_int_ge(available, 1);
		ck_assert(json_is_object(json_object_get(s, "iteration")));
		ck_assert(json_is_object(json_object_get(s, "blocking")));
	}
	return root;
}

START_TEST(test_predict_json_errors_follow_from_its_predictions)
{
	char *extra[] = { "--json", NULL };
	int st = predict(extra);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	json_decref(check_json());
}
END_TEST

static double num(const char *s)
{
	ck_assert_ptr_nonnull(s);
	char *end;
	double v = strtod(s, &end);
	ck_assert_msg(*s && !*end, "not a number: '%s'", s);
	return v;
}

START_TEST(test_predict_csv_row_per_size_and_plot)
{
	const char *csv = tu_case_path("p.csv"), *svg = tu_case_path("p.svg");
	char *extra[] = { "--json", "--csv", (char *)csv, "--plot", (char *)svg, NULL };
	int st = predict(extra);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	json_t *root = check_json(), *sizes = json_object_get(root, "sizes");

	struct tu_csv t;
	unsigned long line;
	ck_assert_int_eq(tu_csv_load(csv, &t, &line), 0);
	ck_assert_uint_eq(t.nrows, 1 + 2);
	ck_assert_str_eq(t.field[0][0], "date");
	for (size_t r = 1; r < 3; r++) {
		json_t *s = json_array_get(sizes, r - 1);
		ck_assert_uint_eq(t.nfields[r], t.nfields[0]);
		ck_assert_str_eq(tu_csv_get(&t, r, "workload"), "tcp");
		ck_assert_str_eq(tu_csv_get(&t, r, "size_bytes"), r == 1 ? "1000" : "2000");
		ck_assert_str_eq(tu_csv_get(&t, r, "compute_us"), "20.000");
		ck_assert_str_eq(tu_csv_get(&t, r, "window"), "64");
		ck_assert_str_eq(tu_csv_get(&t, r, "rounds"), "2");
		/*
		 * The same numbers as the JSON, at the CSV's 4 and 3 decimals. On a
		 * busy host every saturated run of a size may be left out (see
		 * check_json): then there is no measurement and no error, only
		 * predictions.
		 */
		json_t *jm = json_object_get(s, "measured_msgs_per_s");
		int measured_known = !json_is_null(jm);
		if (measured_known) {
			double measured = num(tu_csv_get(&t, r, "measured_msgs_per_s"));
			ck_assert(fabs(measured - json_number_value(jm)) <= 6e-5);
		} else {
			ck_assert_str_eq(tu_csv_get(&t, r, "measured_msgs_per_s"), "");
		}
		for (size_t k = 0; k < NPRED; k++) {
			char pk[48], ek[48];
			snprintf(pk, sizeof pk, "pred_%s", pred_keys[k]);
			snprintf(ek, sizeof ek, "err_%s_pct", pred_keys[k]);
			const char *pv = tu_csv_get(&t, r, pk), *ev = tu_csv_get(&t, r, ek);
			ck_assert_msg(pv && ev, "no column %s or %s", pk, ek);
			json_t *jp = json_object_get(json_object_get(s, "predicted_msgs_per_s"), pred_keys[k]);
			if (json_is_null(jp)) {
				ck_assert_str_eq(pv, "");
				ck_assert_str_eq(ev, "");
				continue;
			}
			ck_assert(fabs(num(pv) - json_number_value(jp)) <= 6e-4);
			if (!measured_known) {
				ck_assert_str_eq(ev, "");
				continue;
			}
			json_t *je = json_object_get(json_object_get(s, "error_pct"), pred_keys[k]);
			ck_assert(fabs(num(ev) - json_number_value(je)) <= 6e-4);
		}
	}
	tu_csv_free(&t);

	/*
	 * The plot: measured throughput first, one point per size measured, then
	 * the displacement prediction with a point for every size. When no size
	 * has a measurement (a busy host left every saturated run out, as
	 * above), the measured series has no point and the plot leaves it out.
	 */
	char dat[1 << 14];
	ck_assert_int_gt(tu_read_file(tu_case_path("p.dat"), dat, sizeof dat), 0);
	int any_measured = 0;
	for (size_t i = 0; i < 2; i++)
		any_measured |= !json_is_null(json_object_get(json_array_get(sizes, i), "measured_msgs_per_s"));
	ck_assert_msg(!strncmp(dat, any_measured ? "# measured" : "# predicted by displacement", any_measured ? 10 : 27),
		      "measured %d: %.200s", any_measured, dat);
	/* with no measured block the prediction is the file's first line */
	const char *pd = any_measured ? strstr(dat, "\n# predicted by displacement\n") : dat;
	ck_assert_msg(pd, "%.300s", dat);
	for (size_t i = 0; i < 2; i++) {
		const char *pt = strstr(dat, i ? "\n2000 " : "\n1000 ");
		int measured_known = !json_is_null(json_object_get(json_array_get(sizes, i), "measured_msgs_per_s"));
		ck_assert_msg(pt && (pt < pd) == measured_known, "size %zu: measured %d: %.300s", i, measured_known, dat);
		ck_assert_msg(strstr(pd, i ? "\n2000 " : "\n1000 "), "size %zu not predicted: %.300s", i, dat);
	}
	ck_assert_int_eq(access(tu_case_path("p.gp"), R_OK), 0);
	if (tu_run((char *const[]){ "/bin/sh", "-c", "command -v gnuplot", NULL }, NULL, 0, NULL, 0) == 0) {
		char text[1 << 16];
		ck_assert_int_gt(tu_read_file(svg, text, sizeof text), 0);
		ck_assert_ptr_nonnull(strstr(text, "<svg"));
	}
	json_decref(root);
}
END_TEST

START_TEST(test_predict_table_shows_no_nan_and_unwritable_plot_exits_3_first)
{
	/*
	 * One pair per size has no CI: the table shows the mean alone, not
	 * "± nan" or a fake "± 0".
	 */
	int st = predict(NULL);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_msg(strstr(out, "\n      1000  ") && strstr(out, "\n      2000  "), "no row per size in: %s", out);
	ck_assert_msg(!strstr(out, "nan") && !strstr(out, "± 0.0 "), "a missing CI shown as a number: %s", out);
	/* a plot that cannot be written is a missing resource (exit 3), found before any run */
	char *extra[] = { "--plot", "/nonexistent/displace-test/p.svg", NULL };
	st = predict(extra);
	ck_assert_msg(st == 3, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "displace: cannot write the plot '/nonexistent/displace-test/p.svg'"), "%s", err);
	ck_assert_str_eq(out, "");
}
END_TEST

/*
 * Another process spinning on the measured CPU starves the fluid: predict
 * says so and, under --strict, calls the answer untrustworthy (exit 5).
 */
START_TEST(test_predict_says_when_another_process_holds_the_cpu)
{
	char *extra[] = { "--strict", NULL };
	pid_t hog = tu_start_hog(0);
	int st = predict(extra);
	tu_stop_hog(hog);
	ck_assert_msg(st == 5, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "of CPU 0: another process held it"), "%s", err);
	ck_assert_msg(!strstr(out, "nan"), "%s", out);
}
END_TEST

START_TEST(test_predict_bad_input_exits_2_with_one_line)
{
	char *d = (char *)tu_bin("displace");
	char *a1[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "-5", NULL };
	tu_expect_error(2, "invalid value '-5' for --compute", a1);
	char *a2[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--window", "0", NULL };
	tu_expect_error(2, "invalid value '0' for --window", a2);
	char *a3[] = { d, "predict", "tcp", "--sizes", "1000", NULL };
	tu_expect_error(2, "give exactly one of --compute US and --compute-per-byte NS", a3);
	char *a4[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--compute-per-byte", "3", NULL };
	tu_expect_error(2, "give exactly one of --compute US and --compute-per-byte NS", a4);
	char *a5[] = { d, "predict", "tcp", "--compute", "20", NULL };
	tu_expect_error(2, "--sizes is required", a5);
	char *a6[] = { d, "predict", "udp", "--sizes", "1000", "--compute", "20", NULL };
	tu_expect_error(2, "needs a stream workload (tcp, tcp-stream or unix), not 'udp'", a6);
	char *a7[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--reps", "4", "--precision", "2%", NULL };
	tu_expect_error(2, "--reps and --precision exclude each other", a7);
	char *a8[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--no-fit", NULL };
	tu_expect_error(2, "--no-fit does not apply", a8);
	/* measure's stopping rules and targets: predict's --precision aims at its errors, and says so */
	char *a9[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--precision", "2%", "--stopping", "stein", NULL };
	tu_expect_error(2, "--stopping is for measure and sweep", a9);
	char *a10[] = { d, "predict", "tcp", "--sizes", "1000", "--compute", "20", "--precision-of", "result", NULL };
	tu_expect_error(2, "--precision-of is for measure and sweep", a10);
}
END_TEST

/* --precision adds rounds until every error's CI is within P: a loose P is reached in the first 8 */
START_TEST(test_predict_precision_stops_when_reached)
{
	char *argv[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--compute", "20", "--messages",
			 "300", "--ops", "600", "--run-time", "100ms", "--calib-time", "50ms", "--precision", "60%",
			 "--max-time", "60s", "--quiet", "--json", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	ck_assert_msg(root, "JSON: %s: %.200s", je.text, out);
	/* a loose target is met, unless another process held the CPU, and predict said so */
	if (!json_is_true(json_object_get(root, "precision_met"))) {
		ck_assert_msg(strstr(err, " held it"), "precision not met: %s", err);
		json_decref(root);
		return;
	}
	ck_assert(fabs(json_number_value(json_object_get(root, "precision_target")) - 0.6) < 1e-12);
	json_int_t rounds = json_integer_value(json_object_get(root, "rounds"));
	ck_assert_int_ge(rounds, 8);
	json_t *s = json_array_get(json_object_get(root, "sizes"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(s, "saturated_runs")), rounds);
	double ci = json_number_value(json_object_get(json_object_get(s, "error_ci95_pct"), "displacement"));
	ck_assert_msg(ci >= 0 && ci <= 60, "CI %g points, but the target was 60", ci);
	json_decref(root);
}
END_TEST

START_TEST(test_predict_peer_down_exits_3)
{
	/* port 9 (discard) on loopback: nothing listens there */
	char *argv[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--compute", "20", "--peer",
			 "127.0.0.1:9", "--reps", "2", "--run-time", "100ms", "--calib-time", "50ms", "--quiet", NULL };
	tu_expect_error(3, "cannot connect to 127.0.0.1:9", argv);
}
END_TEST

/*
 * --clients: K blocking clients at a few hundred operations each. The
 * fields are consistent: a round's saturated runs count when the measured
 * CPU was 95 % busy and the peer's below 90 % (the bottleneck check), the
 * measurement is null exactly when none counted, each error follows from
 * its prediction, and the cost is the blocking operation's.
 */
START_TEST(test_predict_clients_fields_and_bottleneck_check)
{
	char *argv[] = { (char *)tu_bin("displace"), "predict", "udp", "--sizes", "1000", "--clients", "2,4", "--compute",
			 "20", "--messages", "200", "--reps", "2", "--run-time", "50ms", "--calib-time", "50ms",
			 "--json", "--quiet", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 0);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	ck_assert_msg(root, "JSON: %s: %.300s", je.text, out);
	ck_assert_str_eq(json_string_value(json_object_get(root, "mode")), "clients");
	json_t *ks = json_object_get(root, "clients");
	ck_assert_uint_eq(json_array_size(ks), 2);
	ck_assert_int_eq(json_integer_value(json_array_get(ks, 1)), 4);
	json_t *s = json_array_get(json_object_get(root, "sizes"), 0);
	ck_assert_ptr_nonnull(s);
	json_t *share = json_object_get(s, "saturated_cpu_share"), *peer = json_object_get(s, "saturated_peer_busy");
	ck_assert_uint_eq(json_array_size(share), 2);
	ck_assert_uint_eq(json_array_size(peer), 2);
	json_int_t kept = 0;
	for (size_t j = 0; j < 2; j++) {
		double b = json_number_value(json_array_get(share, j)), pb = json_number_value(json_array_get(peer, j));
		ck_assert_msg(b >= 0 && b <= 1, "busy share %g", b);
		kept += !(b < 0.95) && !(pb >= 0.9);
	}
	ck_assert_int_eq(json_integer_value(json_object_get(s, "saturated_runs_left_out")), 2 - kept);
	ck_assert_uint_eq(json_array_size(json_object_get(s, "per_k")), 2);
	/* the held time's share: a number when a round counted and classic was above off-CPU, else null */
	json_t *hs = json_object_get(s, "held_share");
	ck_assert(json_is_object(hs) && (json_is_null(json_object_get(hs, "mean")) || json_is_number(json_object_get(hs, "mean"))));
	json_t *c = json_object_get(s, "compute_measured_us");
	ck_assert_uint_eq(json_array_size(c), 2);
	ck_assert(json_number_value(json_array_get(c, 0)) > 10 && json_number_value(json_array_get(c, 0)) < 200);
	json_t *m = json_object_get(s, "measured_msgs_per_s");
	ck_assert(kept ? json_is_number(m) : json_is_null(m));
	json_t *op = json_object_get(s, "operation");
	ck_assert_ptr_nonnull(json_object_get(op, "estimator"));
	ck_assert_ptr_nonnull(json_object_get(op, "perturbation"));
	json_t *pred = json_object_get(s, "predicted_msgs_per_s"), *e = json_object_get(s, "error_pct");
	for (size_t k = 0; k < NPRED; k++) {
		json_t *p = json_object_get(pred, pred_keys[k]), *ek = json_object_get(e, pred_keys[k]);
		ck_assert_msg(p && ek, "no %s", pred_keys[k]);
		if (json_is_number(p) && json_is_number(m))
			ck_assert(error_matches(json_number_value(ek), json_number_value(p), json_number_value(m)));
		else
			ck_assert(json_is_null(ek));
	}
	json_decref(root);
}
END_TEST

/*
 * SIGTERM once whole rounds are done: their result, marked interrupted
 * (text and JSON), exit 1, and no CSV row (a row is a whole result). Two
 * rounds take about a second here; the signal comes after eight.
 */
START_TEST(test_predict_interrupted_reports_the_rounds_done)
{
	const char *csv = tu_case_path("pred.csv");
	char *argv[] = { (char *)tu_bin("displace"), "predict", "udp", "--sizes", "100", "--clients", "2,4", "--compute",
			 "10", "--messages", "30", "--reps", "400", "--run-time", "20ms", "--calib-time", "10ms",
			 "--json", "--quiet", "--csv", (char *)csv, NULL };
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	sleep(8);
	json_t *root = tu_interrupt_json(pid, in, outfd, SIGTERM, "SIGTERM", out, sizeof out);
	json_int_t rounds = json_integer_value(json_object_get(root, "rounds"));
	ck_assert_msg(rounds >= 2 && rounds < 400, "%lld rounds", (long long)rounds);
	ck_assert_uint_eq(json_array_size(json_object_get(root, "sizes")), 1);
	json_decref(root);
	char text[1 << 16];
	ck_assert_int_ge(tu_read_file(csv, text, sizeof text), 0);
	ck_assert_int_le(tu_count_lines(text, ""), 1); /* the header at most */
}
END_TEST

/* --clients: K < 1, one workload without replies, the pipelined options, and K above the descriptor limit */
START_TEST(test_predict_clients_bad_input)
{
	char *a1[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--clients", "0,4",
		       "--compute", "20", NULL };
	tu_expect_error(2, "invalid value '0,4' for --clients", a1);
	char *a2[] = { (char *)tu_bin("displace"), "predict", "tcp-stream", "--sizes", "1000", "--clients", "4,8",
		       "--compute", "20", NULL };
	tu_expect_error(2, "needs a workload that blocks for a reply", a2);
	char *a3[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--clients", "4,8",
		       "--compute", "20", "--window", "4", NULL };
	tu_expect_error(2, "--window is for the pipelined loop", a3);
	struct rlimit rl = { 40, 40 };
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	char *a4[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--clients", "4,64",
		       "--compute", "20", NULL };
	ck_assert_int_eq(tu_run(a4, out, sizeof out, err, sizeof err), 3);
	ck_assert_msg(strstr(err, "file descriptors"), "%s", err);
}
END_TEST

Suite *predict_suite(void)
{
	Suite *s = suite_create("predict");
	TCase *tc = tcase_create("e2e");
	tcase_add_checked_fixture(tc, tu_case_dir_setup, tu_case_dir_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_predict_json_errors_follow_from_its_predictions);
	tcase_add_test(tc, test_predict_clients_fields_and_bottleneck_check);
	tcase_add_test(tc, test_predict_clients_bad_input);
	tcase_add_test(tc, test_predict_csv_row_per_size_and_plot);
	tcase_add_test(tc, test_predict_table_shows_no_nan_and_unwritable_plot_exits_3_first);
	tcase_add_test(tc, test_predict_says_when_another_process_holds_the_cpu);
	tcase_add_test(tc, test_predict_bad_input_exits_2_with_one_line);
	tcase_add_test(tc, test_predict_peer_down_exits_3);
	tcase_add_test(tc, test_predict_precision_stops_when_reached);
	tcase_add_test(tc, test_predict_interrupted_reports_the_rounds_done);
	suite_add_tcase(s, tc);
	return s;
}
