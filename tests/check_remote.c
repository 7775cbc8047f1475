/*
 * check_remote.c - both ends and K flows, end to end: displace measure and
 * sweep against a second 'displace serve --fluid-cpus' on loopback (the
 * peer host's fluids, coordinator/remote.c), their usage errors, and
 * --flows. Short runs with loose checks: the host is a noisy shared VM;
 * the two-namespace run across a veth pair is in tests/cli.sh.
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out[1 << 20], err[1 << 16];

/* the CPU of the peer and its fluid: the last one online; -1 on a one-CPU host */
static int peer_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (int)n - 1 : -1;
}

/* 'displace serve --cpu C --fluid-cpus C' on loopback; 0, or -1 on a one-CPU host (skipped, said) */
static int start_peer(struct tpeer *p, const char *why)
{
	static char cpu[16];
	int c = peer_cpu();
	if (c < 0) {
		fprintf(stderr, "check_remote: %s is not tested: one CPU, where the peer's fluid would displace the local one\n",
			why);
		return -1;
	}
	snprintf(cpu, sizeof cpu, "%d", c);
	const char *args[] = { "--cpu", cpu, "--fluid-cpus", cpu, NULL };
	const struct tpeer_opts o = { .front = "displace", .args = args };
	ck_assert_int_eq(tpeer_start_with(p, "127.0.0.1:0", &o), 0);
	return 0;
}

/* a number at a JSON path of objects ("a.b.c"); NAN if absent or null */
static double jnum(json_t *j, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *k = strtok(buf, "."); k && j; k = strtok(NULL, "."))
		j = json_object_get(j, k);
	return j && json_is_number(j) ? json_number_value(j) : NAN;
}

/* a short measure of tcp against peer p's host too; its JSON (free it), with the CSV in csv */
static json_t *measure_both(const struct tpeer *p, const char *csv)
{
	char *argv[] = { (char *)tu_bin("displace"), "measure", "tcp", "--size", "1000", "--cpu", "0", "--peer",
			 (char *)p->tcp, "--remote-cpus", "all", "--reps", "4", "--run-time", "100ms", "--calib-time",
			 "50ms", "--json", "--quiet", "--csv", (char *)csv, NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_msg(j, "%s: %.300s", je.text, out);
	return j;
}

/*
 * The receiver's cost, measured on the peer's host by its own fluid: a
 * number with a CI, each CPU of that end, and a total that is the two
 * ends' sum, estimate by estimate. On loopback the peer's CPU runs its
 * receive and reply, so its cost is above zero (one retry: a noisy host).
 */
START_TEST(test_measure_both_ends_against_a_second_serve_on_loopback)
{
	struct tpeer p;
	char dir[64], csv[300], stop[512], v[32];
	if (start_peer(&p, "measure with --remote-cpus on loopback"))
		return;
	const char *d = tu_mkdtemp();
	ck_assert_ptr_nonnull(d);
	snprintf(dir, sizeof dir, "%s", d);
	snprintf(csv, sizeof csv, "%s/both.csv", dir);
	double remote = NAN;
	int attempts = 0;
	for (; attempts < 2 && !(remote > 0); attempts++) {
		json_t *j = measure_both(&p, csv);
		double local = jnum(j, "displacement_us.mean"), total = jnum(j, "total_us.mean");
		remote = jnum(j, "remote.displacement_us.mean");
		ck_assert_msg(isfinite(local) && isfinite(remote) && isfinite(total), "%.600s", out);
		ck_assert_msg(fabs(total - (local + remote)) <= 1e-3 * fabs(total) + 1e-6, "total %f, local %f, remote %f",
			      total, local, remote);
		ck_assert(isfinite(jnum(j, "total_us.ci95")));
		json_t *per = json_object_get(json_object_get(j, "remote"), "per_cpu");
		ck_assert_uint_eq(json_array_size(per), 1);
		ck_assert_int_eq((int)json_integer_value(json_object_get(json_array_get(per, 0), "cpu")), peer_cpu());
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "remote"), "peer")), p.tcp);
		ck_assert_int_eq((int)jnum(j, "flows"), 1);
		ck_assert(fabs(jnum(j, "bytes_per_op") - 1000) < 1e-9);
		/* every run carries its remote figures */
		json_t *run0 = json_array_get(json_object_get(j, "runs"), 0);
		ck_assert(isfinite(jnum(run0, "remote_t_put_ns")));
		json_decref(j);
	}
	ck_assert_msg(remote > 0, "the peer's CPU cost %f us per op on loopback", remote);
	/* the CSV's new columns, at the end: the summary row has both ends and each CPU */
	struct tu_csv t;
	unsigned long line;
	ck_assert_int_eq(tu_csv_load(csv, &t, &line), 0);
	size_t last = t.nrows - 1;
	ck_assert_str_eq(tu_csv_get(&t, last, "kind"), "summary");
	ck_assert(atof(tu_csv_get(&t, last, "total_us")) != 0);
	ck_assert_str_ne(tu_csv_get(&t, last, "remote_ci95_us"), "");
	snprintf(v, sizeof v, "%d:", peer_cpu());
	ck_assert_ptr_nonnull(strstr(tu_csv_get(&t, last, "remote_per_cpu_us"), v));
	ck_assert_ptr_nonnull(strstr(tu_csv_get(&t, last, "per_cpu_us"), "0:"));
	ck_assert_str_ne(tu_csv_get(&t, 1, "remote_us"), ""); /* a run row */
	ck_assert_ptr_nonnull(tu_csv_get(&t, last, "these_ci95_us")); /* the last column is there */
	tu_csv_free(&t);
	ck_assert_int_eq(tu_rmtree(dir), 0);
	ck_assert_int_eq(tpeer_stop(&p, stop, sizeof stop), 0);
	ck_assert_int_eq(atoi(tu_kv(stop, "controls", v, sizeof v)), attempts);
	ck_assert_int_gt(atoi(tu_kv(stop, "fluid_runs", v, sizeof v)), 8);
	ck_assert_str_eq(tu_kv(stop, "bad_clients", v, sizeof v), "0");
}
END_TEST

/* sweep's table and plot of both ends: the local and remote costs stacked, the total with its CI */
START_TEST(test_sweep_both_ends_plot_is_stacked)
{
	struct tpeer p;
	char svg[300], gp[300], text[8192];
	if (start_peer(&p, "sweep with --remote-cpus on loopback"))
		return;
	const char *dir = tu_mkdtemp();
	snprintf(svg, sizeof svg, "%s/both.svg", dir);
	snprintf(gp, sizeof gp, "%s/both.gp", dir);
	char *argv[] = { (char *)tu_bin("displace"), "sweep", "tcp", "--sizes", "100,2000", "--cpu", "0", "--peer",
			 p.tcp, "--remote-cpus", "all", "--reps", "2", "--run-time", "60ms", "--calib-time", "30ms",
			 "--quiet", "--plot", svg, NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_msg(strstr(out, "remote µs ± CI") && strstr(out, "total µs ± CI"), "%s", out);
	ck_assert_int_gt(tu_read_file(gp, text, sizeof text), 0);
	ck_assert_msg(strstr(text, "filledcurves") && strstr(text, "both ends") && strstr(text, "(stacked)"), "%s", text);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
	tu_rmtree(dir);
}
END_TEST

/* --remote-cpus asks for a peer with fluids, and for CPUs it offers */
START_TEST(test_remote_cpus_usage_errors)
{
	struct tpeer p, plain;
	char *no_peer[] = { (char *)tu_bin("displace"), "measure", "tcp", "--remote-cpus", "all", NULL };
	tu_expect_error(2, "--remote-cpus needs --peer", no_peer);
	char *spin[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "10", "--remote-cpus", "all", NULL };
	tu_expect_error(2, "workloads with a peer", spin);
	char *predict[] = { (char *)tu_bin("displace"), "predict", "tcp", "--sizes", "1000", "--compute", "10",
			    "--peer", "127.0.0.1:9", "--remote-cpus", "all", NULL };
	tu_expect_error(2, "--remote-cpus is for measure and sweep", predict);
	/* a peer without fluids: a missing resource */
	ck_assert_int_eq(tpeer_start(&plain, "127.0.0.1:0"), 0);
	char *nofluid[] = { (char *)tu_bin("displace"), "measure", "tcp", "--peer", plain.tcp, "--remote-cpus", "all",
			    "--reps", "2", "--quiet", NULL };
	tu_expect_error(3, "runs no fluids", nofluid);
	ck_assert_int_eq(tpeer_stop(&plain, NULL, 0), 0);
	if (start_peer(&p, "--remote-cpus with a CPU the peer does not offer"))
		return;
	char *other[] = { (char *)tu_bin("displace"), "measure", "tcp", "--peer", p.tcp, "--remote-cpus", "0",
			  "--reps", "2", "--quiet", NULL };
	tu_expect_error(2, "offers CPUs", other);
	ck_assert_int_eq(tpeer_stop(&p, NULL, 0), 0);
}
END_TEST

/*
 * K flows: one PUT, K connections, K messages in flight; the cost per op
 * and per byte at that concurrency, with the perturbation check beside it
 */
START_TEST(test_measure_flows_gives_cost_per_op_and_per_byte)
{
	char *argv[] = { (char *)tu_bin("displace"), "measure", "tcp", "--size", "2000", "--flows", "4", "--reps", "2",
			 "--run-time", "100ms", "--calib-time", "50ms", "--json", "--quiet", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	ck_assert_msg(j, "%s", je.text);
	ck_assert_int_eq((int)jnum(j, "flows"), 4);
	ck_assert(fabs(jnum(j, "bytes_per_op") - 2000) < 1e-9);
	double tau = jnum(j, "displacement_us.mean"), kb = jnum(j, "us_per_kb");
	ck_assert_msg(isfinite(tau) && fabs(kb - tau / 2) < 1e-6 * fabs(tau) + 1e-9, "tau %f, per KB %f", tau, kb);
	ck_assert_int_ge((int)jnum(j, "perturbation.n"), 1);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(j, "args")), "--flows=4"));
	ck_assert(json_is_null(json_object_get(j, "remote")));
	json_decref(j);
	char *spin[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "10", "--flows", "2", NULL };
	tu_expect_error(2, "--flows is for the socket workloads", spin);
	char *zero[] = { (char *)tu_bin("displace"), "measure", "tcp", "--flows", "0", NULL };
	tu_expect_error(2, "invalid value '0' for --flows", zero);
	char *window[] = { (char *)tu_bin("displace"), "measure", "tcp", "--flows", "2", "--window", "4", NULL };
	tu_expect_error(2, "--flows excludes", window);
}
END_TEST

Suite *remote_suite(void)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("both ends");
	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, tu_case_dir_setup, tu_case_dir_teardown);
	tcase_add_test(tc, test_measure_both_ends_against_a_second_serve_on_loopback);
	tcase_add_test(tc, test_sweep_both_ends_plot_is_stacked);
	tcase_add_test(tc, test_remote_cpus_usage_errors);
	tcase_add_test(tc, test_measure_flows_gives_cost_per_op_and_per_byte);
	suite_add_tcase(s, tc);
	return s;
}
