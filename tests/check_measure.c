/*
 * check_measure.c - displace measure end to end: spin against getrusage,
 * exec, --ops 0, bad input, and no child left behind after SIGINT or a
 * killed fluid. Tolerances hold on a noisy shared 2-CPU VM; accuracy
 * targets are in bench/, not here. The summary's rules on synthetic runs
 * are in check_summary.c; why a target was missed, by hand, here.
 */
#include "tests/suites.h"
#include "tests/testutil.h"

#include "coordinator/cmd_measuring.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char out[1 << 20], err[1 << 16];

/* a number after "key": in the JSON output */
static double json_num(const char *json, const char *key)
{
	char pat[128];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(json, pat);
	if (!p)
		return NAN;
	p += strlen(pat);
	if (!strncmp(p, "null", 4))
		return NAN;
	return strtod(p, NULL);
}

/*
 * One measurement: 1 when it agrees, 2 when it does not but measure said
 * that another process held the CPU, else 0. Displacement counts whatever
 * else ran on the CPU, so another process hogging it (a shared host) can
 * make one attempt disagree: the test allows three.
 */
static int spin_attempt(char *why, size_t len)
{
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "200", "--reps", "6", "--run-time",
			 "300ms", "--json", "--quiet", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 0);
	const char *tau = strstr(out, "\"tau_put_us\"");
	ck_assert_ptr_nonnull(tau);
	ck_assert(isfinite(json_num(out, "ci95_us")));
	ck_assert_ptr_nonnull(strstr(out, "\"errors_us\""));
	ck_assert_ptr_nonnull(strstr(out, "\"drift_robust\""));
	ck_assert_ptr_nonnull(strstr(out, "\"context\""));
	double disp = json_num(tau, "displacement"), ru = json_num(tau, "getrusage");
	snprintf(why, len, "displacement %f us, getrusage %f us, for a 200 us spin; %.300s", disp, ru, err);
	if (disp > 150 && disp < 300 && fabs(disp - ru) / ru < 0.05)
		return 1;
	return strstr(err, " held it") ? 2 : 0;
}

/*
 * Within 5 % of getrusage in one of three attempts; on a host so busy that
 * none agrees, each disagreement must come with measure's own warning.
 */
START_TEST(test_measure_spin_agrees_with_getrusage)
{
	char why[512];
	int warned = 0;
	for (int i = 0; i < 3; i++) {
		int a = spin_attempt(why, sizeof why);
		if (a == 1)
			return;
		warned += a == 2;
	}
	ck_assert_msg(warned == 3, "%s", why);
}
END_TEST

START_TEST(test_measure_exec_true_and_ops_zero)
{
	char *argv[] = { (char *)tu_bin("displace"), "measure", "exec", "--ops", "4", "--reps", "2", "--", "/bin/true",
			 NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(out, "tau_PUT"));
	ck_assert_ptr_nonnull(strstr(out, "getrusage"));
	/* schedstat cannot see the commands: n/a with its reason, never 0 */
	ck_assert_msg(strstr(out, "not available: EOPNOTSUPP"), "%s", out);
	char *argv0[] = { (char *)tu_bin("displace"), "measure", "spin", "--ops", "0", "--reps", "2", NULL };
	ck_assert_int_eq(tu_run(argv0, out, sizeof out, err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(out, "start-up S"));
	/* spin's null runs use the pilot's --loops-per-op, as the fit's do, and say so */
	ck_assert_ptr_nonnull(strstr(out, "displace measure spin --loops-per-op="));
	ck_assert_msg(strstr(out, " --ops 0\n"), "%s", out);
	/* the JSON has every key a cost has, null: there is no cost per op */
	char *argvj[] = { (char *)tu_bin("displace"), "measure", "spin", "--ops", "0", "--reps", "2", "--json", NULL };
	ck_assert_int_eq(tu_run(argvj, out, sizeof out, err, sizeof err), 0);
	/*
	 * a start-up cost above 0 within its CI: from one pair of null runs on a
	 * noisy host the mean alone can come out below 0 (runs of 7.9 and 0.6 ms
	 * gave 4.3 ms ± 46 ms here)
	 */
	double start_us = json_num(out, "startup_us"), start_ci_us = json_num(out, "startup_ci95_us");
	ck_assert_msg(isfinite(start_us) && start_ci_us > 0 && start_us + start_ci_us > 0, "%s", out);
	const char *tau = strstr(out, "\"tau_put_us\"");
	ck_assert_ptr_nonnull(tau);
	ck_assert_ptr_nonnull(strstr(tau, "\"displacement\": null"));
	ck_assert_ptr_nonnull(strstr(out, "\"ci95_us\": null"));
	const char *errs = strstr(out, "\"errors_us\"");
	ck_assert_ptr_nonnull(errs);
	ck_assert_ptr_nonnull(strstr(errs, "\"cache\": null"));
	ck_assert_ptr_nonnull(strstr(out, "\"context\""));
}
END_TEST

/*
 * A simulated slow clock: the same runs are also estimated by the real
 * clock, and the difference is the slow clock's error alone. Each of the
 * durations T_F(2), T_F(1) is off by less than one tick D (two readings,
 * each in [0, D) after its tick), so the error is below the e_res displace
 * reports, twice Woodside's +-D/2 figure (a little more when the two
 * calibrations' loop counts differ: 1.25 x). Not a timing assertion: it
 * holds whatever else runs on the host.
 */
START_TEST(test_measure_slow_clock_error_within_e_res)
{
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "200", "--reps", "2", "--run-time",
			 "100ms", "--calib-time", "50ms", "--clock-resolution", "4ms", "--json", "--quiet", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, err, sizeof err), 0);
	double res = json_num(out, "res"), clk = json_num(out, "clock_resolution_ns");
	const char *real = strstr(out, "\"real_clock_us\"");
	ck_assert_msg(real, "no real_clock_us in: %.300s", out);
	double q = json_num(strstr(out, "\"tau_put_us\""), "displacement"), r = json_num(real, "mean");
	ck_assert(isfinite(q) && isfinite(r));
	ck_assert_double_eq(clk, 4e6);
	ck_assert(res > 0);
	ck_assert_msg(fabs(q - r) <= 1.25 * res, "slow clock %f us, real clock %f us, e_res %f us", q, r, res);
	ck_assert_ptr_nonnull(strstr(out, "\"t_put_real_clock_ns\""));

	/* the real clock alone: nothing to compare */
	char *plain[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "200", "--reps", "2", "--run-time",
			  "100ms", "--calib-time", "50ms", "--json", "--quiet", NULL };
	ck_assert_int_eq(tu_run(plain, out, sizeof out, err, sizeof err), 0);
	ck_assert_ptr_null(strstr(out, "real_clock"));
}
END_TEST

static void expect_usage(int want, const char *msg, char **argv)
{
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == want, "%s: exit %d, wanted %d (%s)", argv[2], st, want, err);
	ck_assert_msg(strstr(err, msg), "no '%s' in: %s", msg, err);
}

START_TEST(test_measure_bad_input_exit_codes)
{
	char *d = (char *)tu_bin("displace");
	char *a1[] = { d, "measure", "nosuch", NULL };
	expect_usage(2, "unknown workload 'nosuch'", a1);
	char *a2[] = { d, "measure", "exec", NULL };
	expect_usage(2, "no command given", a2);
	char *a3[] = { d, "measure", "exec", "--", "/nonexistent/cmd", NULL };
	expect_usage(3, "cannot execute '/nonexistent/cmd'", a3);
	char *a4[] = { d, "measure", "spin", "--ops", "-5", NULL };
	expect_usage(2, "invalid value '-5' for --ops", a4);
	char *a5[] = { d, "measure", "spin", "--precision", "0", NULL };
	expect_usage(2, "invalid value '0' for --precision", a5);
	char *a6[] = { d, "measure", "spin", "--us", "-3", NULL };
	expect_usage(2, "--us", a6);
	char *a7[] = { d, "measure", "--bogus", "spin", NULL };
	expect_usage(2, "unknown option '--bogus'", a7);
	char *a8[] = { d, "measure", "spin", "--cpu", "99", NULL };
	expect_usage(2, "cpu 99 is not online", a8);
	char *a9[] = { d, "measure", "spin", "--plot", "x.svg", NULL };
	expect_usage(2, "--plot is for sweep and predict", a9);
	/* --fit is the default, and may be said */
	char *a10[] = { d, "measure", "spin", "--fit", "--reps", "1", NULL };
	expect_usage(2, "--reps 1 cannot fit a line", a10);
}
END_TEST

/* whether /proc/PID/FILE (environ, cmdline: NUL-separated words) holds word */
static int proc_has_word(const char *pid, const char *file, const char *word)
{
	static char buf[1 << 15];
	char path[300];
	snprintf(path, sizeof path, "/proc/%s/%s", pid, file);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	for (ssize_t i = 0; i < r; i += (ssize_t)strlen(buf + i) + 1)
		if (!strcmp(buf + i, word))
			return 1;
	return 0;
}

/*
 * the live processes whose environment holds tag; each one's stat line up
 * to its state ("pid (comm) S") appended to desc, when given
 */
static int tagged_desc(const char *tag, char *desc, size_t desclen)
{
	int n = 0;
	DIR *dir = opendir("/proc");
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]) || !proc_has_word(de->d_name, "environ", tag))
			continue;
		/* zombies are gone for good once reaped; count only live ones */
		char st[300], s[512];
		snprintf(st, sizeof st, "/proc/%s/stat", de->d_name);
		int f2 = open(st, O_RDONLY);
		ssize_t k = f2 >= 0 ? read(f2, s, sizeof s - 1) : -1;
		if (f2 >= 0)
			close(f2);
		if (k > 0) {
			s[k] = '\0';
			const char *p = strrchr(s, ')');
			if (p && p[2] != 'Z') {
				n++;
				size_t at = desc ? strlen(desc) : 0;
				if (desc && at + 1 < desclen)
					snprintf(desc + at, desclen - at, "%.*s; ", (int)(p + 3 - s), s);
			}
		}
	}
	if (dir)
		closedir(dir);
	return n;
}

static int tagged(const char *tag)
{
	return tagged_desc(tag, NULL, 0);
}

/*
 * fail: displace (pid) had no child with tag; say what there is, whether
 * displace still ran, and what it had printed so far; stop it
 */
static void fail_without_child(pid_t pid, int outfd, const char *tag)
{
	static char desc[2048], said[8192];
	desc[0] = said[0] = '\0';
	int n = tagged_desc(tag, desc, sizeof desc);
	int fl = fcntl(outfd, F_GETFL);
	fcntl(outfd, F_SETFL, fl | O_NONBLOCK);
	ssize_t k = read(outfd, said, sizeof said - 1);
	said[k > 0 ? k : 0] = '\0';
	int alive = kill(pid, 0) == 0;
	/* stopped first, so that its runs do not load the tests after this one */
	if (alive) {
		kill(pid, SIGTERM);
		tu_wait(pid);
	}
	ck_abort_msg("%d process(es) with the tag, not displace and a child: %s displace %d %s; it said: %s", n, desc,
		     (int)pid, alive ? "ran" : "was gone", said);
}

static int wait_untagged(const char *tag)
{
	for (int i = 0; i < 40; i++) {
		if (tagged(tag) == 0)
			return 0;
		usleep(50000);
	}
	return tagged(tag);
}

static void make_tag(char *tag, size_t len)
{
	snprintf(tag, len, "DISPLACE_TEST_TAG=%d-%ld", getpid(), (long)time(NULL));
	putenv(tag);
}

/* a run stopped from outside: its output read into out, exit status 1, and no child of it left */
static void reap_stopped_run(pid_t pid, int in, int outfd, const char *tag)
{
	tu_read_all(outfd, out, sizeof out);
	close(outfd);
	close(in);
	ck_assert_int_eq(tu_wait(pid), 1);
	ck_assert_int_eq(wait_untagged(tag), 0);
}

START_TEST(test_measure_sigint_leaves_no_child)
{
	static char tag[96];
	make_tag(tag, sizeof tag);
	char csv[256], dir[64];
	snprintf(dir, sizeof dir, "%s", tu_mkdtemp());
	snprintf(csv, sizeof csv, "%s/rows.csv", dir);
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--reps", "200", "--run-time", "200ms",
			 "--csv", csv, "--quiet", NULL };
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	/* wait until it is in the middle of the runs: children exist */
	for (int i = 0; i < 100 && tagged(tag) < 2; i++)
		usleep(50000);
	usleep(1500000);
	/*
	 * between two children (a 50 ms calibration ends, the next one starts)
	 * only displace is there, so wait up to 10 s for a moment with one.
	 * The count is taken once: .ci/run failed twice (2026-11-24) when the
	 * wait saw a child and a second count, to assert, fell in such a gap.
	 */
	int n = 0;
	for (int i = 0; i < 1000 && (n = tagged(tag)) < 2; i++)
		usleep(10000);
	/* counted once: a second count could fall between two children */
	if (n < 2)
		fail_without_child(pid, outfd, tag);
	kill(pid, SIGINT);
	reap_stopped_run(pid, in, outfd, tag);
	/* the rows measured before the interrupt stay in the CSV */
	FILE *f = fopen(csv, "r");
	ck_assert_ptr_nonnull(f);
	int lines = 0;
	char line[4096];
	while (fgets(line, sizeof line, f))
		lines++;
	fclose(f);
	ck_assert_int_ge(lines, 2);
	tu_rmtree(dir);
}
END_TEST

/* a child of parent whose name is comm (and with arg among its words, if given), within 10 s; 0 if none */
static pid_t child_named(pid_t parent, const char *comm, const char *arg)
{
	char want[64];
	snprintf(want, sizeof want, "%s\n", comm);
	for (int i = 0; i < 500; i++) {
		pid_t found = 0;
		DIR *dir = opendir("/proc");
		struct dirent *de;
		while (dir && (de = readdir(dir)) && !found) {
			char path[300], name[64] = "";
			snprintf(path, sizeof path, "/proc/%s/comm", de->d_name);
			FILE *f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(name, sizeof name, f) && !strcmp(name, want) && (!arg || proc_has_word(de->d_name, "cmdline", arg))) {
				char ppath[300], buf[512];
				snprintf(ppath, sizeof ppath, "/proc/%s/stat", de->d_name);
				FILE *g = fopen(ppath, "r");
				if (g && fgets(buf, sizeof buf, g)) {
					const char *p = strrchr(buf, ')');
					int ppid = p ? atoi(p + 4) : 0;
					if (ppid == parent)
						found = atoi(de->d_name);
				}
				if (g)
					fclose(g);
			}
			fclose(f);
		}
		if (dir)
			closedir(dir);
		if (found)
			return found;
		usleep(20000);
	}
	return 0;
}

/*
 * Kill (or stop, with a signal it catches) a fluid of a running measure from
 * outside: the run must end with exit 1 and a message, leaving no child.
 */
static void fluid_stopped_from_outside(int sig)
{
	static char tag[96];
	make_tag(tag, sizeof tag);
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--reps", "200", "--quiet", NULL };
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	/* find a fluid of this run and kill it from outside */
	pid_t victim = child_named(pid, "fluid", NULL);
	ck_assert_int_gt(victim, 0);
	kill(victim, sig);
	reap_stopped_run(pid, in, outfd, tag);
}

START_TEST(test_measure_killed_fluid_stops_cleanly)
{
	fluid_stopped_from_outside(SIGKILL);
}
END_TEST

/* SIGTERM is how the coordinator stops a fluid; from anyone else it ends the run */
START_TEST(test_measure_fluid_stopped_by_others_stops_cleanly)
{
	fluid_stopped_from_outside(SIGTERM);
}
END_TEST

/*
 * The report: a local peer that died showed as "cannot connect". Killed
 * during a measure, the message says that the peer exited, and how.
 */
START_TEST(test_measure_says_when_the_local_peer_exited)
{
	static char tag[96];
	make_tag(tag, sizeof tag);
	char errf[128], cmd[512];
	snprintf(errf, sizeof errf, "%s/err", tu_mkdtemp());
	/* stderr to a file; exec, so that displace is the peer's parent */
	snprintf(cmd, sizeof cmd, "exec %s measure tcp --reps 50 --run-time 200ms --calib-time 100ms --quiet 2>%s",
		 tu_bin("displace"), errf);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	pid_t peer = child_named(pid, "put", "serve");
	ck_assert_int_gt(peer, 0);
	/* once the runs have begun, the peer was ready: its death is the one to report */
	ck_assert_int_gt(child_named(pid, "put", "--ops"), 0);
	kill(peer, SIGKILL);
	tu_read_all(outfd, out, sizeof out);
	close(outfd);
	close(in);
	int st = tu_wait(pid);
	ck_assert_int_eq(wait_untagged(tag), 0);
	ck_assert_int_gt(tu_read_file(errf, err, sizeof err), 0);
	ck_assert_msg(st == 3, "exit %d: %s", st, err);
	char want[96];
	snprintf(want, sizeof want, "the local peer 'put serve' (pid %d) exited (killed by KILL)", (int)peer);
	ck_assert_msg(strstr(err, want), "%s", err);
	unlink(errf);
	*strrchr(errf, '/') = '\0';
	rmdir(errf);
}
END_TEST

/*
 * A process busy a fifth of the time on the measured CPU shares it: measure
 * must say so, with the share it took from the fluid alone and the bound it
 * puts on the result (it can take less beside the PUT), and the JSON must
 * carry both, with the bound inside the result's interval. The share is loose: a noisy host's own work adds to it.
 */
START_TEST(test_measure_says_when_another_process_shares_the_cpu)
{
	pid_t nb = tu_start_neighbour(0, 20);
	/* untraced: as root measure would otherwise start again with the trace, which takes the neighbour out */
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--reps", "4", "--run-time",
			 "200ms", "--no-trace-others", "--json", "--quiet", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	tu_stop_hog(nb);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "of CPU 0: another process held it") && strstr(err, "can be low by up to"), "%s", err);
	double pct = json_num(out, "others_cpu_pct"), bound = json_num(out, "shared_cpu_bound_us"),
	       tau = json_num(strstr(out, "\"tau_put_us\""), "displacement");
	ck_assert_msg(pct > 8 && pct < 60, "others took %.1f%% of CPU 0: %s", pct, err);
	/* b T_F(2) an op: about 20 % of a spin's T_F(2), itself a little over its cost */
	ck_assert_msg(bound > 0.05 * tau && bound < tau, "bound %f us against %f us", bound, tau);
	/* the result's interval holds the bound: no number of pairs would shrink it below */
	double ci = json_num(out, "ci95_us");
	ck_assert_msg(ci >= bound, "CI %f us, narrower than the bound %f us", ci, bound);
}
END_TEST

/*
 * Beside a neighbour busy a fifth of the time the bound is about a quarter
 * of the result: --precision 1% cannot be reached by any number of pairs,
 * so measure stops once it has twice a first stage's worth (not at
 * --max-time) and says why.
 */
START_TEST(test_measure_stops_when_a_shared_cpu_puts_the_target_out_of_reach)
{
	pid_t nb = tu_start_neighbour(0, 20);
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--precision", "1%", "--max-time",
			 "100s", "--run-time", "100ms", "--no-trace-others", "--json", "--quiet", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	tu_stop_hog(nb);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "another process held it"), "the neighbour was not seen: %s", err);
	ck_assert_msg(strstr(err, "stopped after ") && strstr(err, "cannot reach ±1.00%") &&
			      strstr(err, "the shared CPU's bound e_shared alone is"),
		      "%s", err);
	ck_assert_msg(strstr(out, "\"precision_met\": false"), "%.300s", out);
	double n = json_num(out, "n"), bound = json_num(out, "shared_cpu_bound_us"), ci = json_num(out, "ci95_us");
	/* 8 pairs kept, or a few more when outliers were left out of the first ones */
	ck_assert_msg(n >= 8 && n <= 16, "n = %g", n);
	ck_assert_msg(ci >= bound, "CI %f us, narrower than the bound %f us", ci, bound);
}
END_TEST

/* stderr while f runs, into buf (the test runs in its own process: fd 2 is ours to move) */
static void stderr_of(void (*f)(void *), void *arg, char *buf, size_t len)
{
	char path[300];
	snprintf(path, sizeof path, "%s", tu_scratch_path("stderr"));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(2);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(saved, 0);
	fflush(stderr);
	dup2(fd, 2);
	f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	ck_assert_int_ge(tu_read_file(path, buf, len), 0);
}

/* how many times needle is in text */
static int count_of(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct truth_call {
	struct session *s;
	struct summary *sum;
	struct measuring_said *said;
	int untrusted[2];
};

/* two sizes of a sweep with the same held time: "1000 B: " and "2000 B: " */
static void two_sizes(void *arg)
{
	struct truth_call *c = arg;
	c->untrusted[0] = measuring_check_truth(c->s, c->sum, "1000 B: ", c->said);
	c->untrusted[1] = measuring_check_truth(c->s, c->sum, "2000 B: ", c->said);
}

/*
 * The fluid held the CPU 8 µs per operation that the off-CPU result leaves
 * out, with a wake-up IPI per operation. A saturated CPU paid 12 % of that
 * on one day and about 70 % the next (bench/RESULTS.md), so it is a
 * warning that makes the result untrustworthy (--strict: exit 5), and a
 * sweep explains it once: its later sizes say it in a line.
 */
START_TEST(test_held_time_warns_and_a_sweep_explains_it_once)
{
	struct session s;
	struct summary sum;
	struct measuring_said said = { 0 };
	char text[8192];
	memset(&s, 0, sizeof s);
	memset(&sum, 0, sizeof sum);
	sum.ncpu = 1;
	sum.cpu_id[0] = 0;
	sum.estimator = SUM_OFFCPU;
	sum.tau.mean = sum.est[SUM_OFFCPU].mean = 12e3;
	sum.est[SUM_CLASSIC].mean = 20e3;
	sum.held.mean = 8e3;
	sum.ipi_per_op[0] = 1.0;
	struct truth_call c = { &s, &sum, &said, { 0, 0 } };
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert(c.untrusted[0] && c.untrusted[1]);
	ck_assert_msg(strstr(text, "warning: 1000 B: the fluid held CPU 0 8.00 µs per operation without progressing "
				   "(classic 20.00 µs less off-CPU 12.00), with 1.00 wake-up IPIs per operation") &&
			      strstr(text, "lies between the result and classic, and the CI does not hold that"),
		      "%s", text);
	ck_assert_msg(strstr(text, "warning: 2000 B: the fluid held CPU 0 8.00 µs per operation without progressing "
				   "(classic 20.00 µs less off-CPU 12.00): as above, the cost under load lies between "
				   "the two\n"),
		      "%s", text);
	ck_assert_int_eq(count_of(text, "predict --clients"), 1);
	/* the perturbation check too: the PUT's own CPU time 1 µs more beside the fluid, 8 % of the result */
	memset(&said, 0, sizeof said);
	sum.perturb.n = 4;
	sum.perturb.cpu_corun.mean = 5e3;
	sum.perturb.cpu_alone.mean = 4e3;
	sum.perturb.cpu_change.mean = 25;
	sum.perturb.cpu_change.ci_half = 5;
	sum.perturb.cpu_compared = 1;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert_msg(strstr(text, "warning: 1000 B: beside the fluid the PUT's own CPU time per operation changed by "
				   "+1.000 µs (+25.0% ± 5.0: 5.000 against 4.000 alone)") &&
			      strstr(text, "warning: 2000 B: beside the fluid the PUT's own CPU time per operation changed "
					   "by +1.000 µs (+25.0% ± 5.0), 8.3% of the cost: the fluid perturbs it, as above\n"),
		      "%s", text);
	/* by getrusage across a hold it did not compare: no warning, and a note, in full once */
	memset(&said, 0, sizeof said);
	sum.perturb.cpu_compared = 0;
	sum.perturb.hold_ns = 7.5e3;
	int before = c.untrusted[0];
	sum.held.mean = 0;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert(before && !c.untrusted[0] && !c.untrusted[1]);
	ck_assert_msg(!strstr(text, "perturbs") &&
			      strstr(text, "1000 B: the perturbation check did not compare the PUT's own CPU time: "
					   "without its own counter that is getrusage, which billed it up to 7.500 µs per "
					   "operation") &&
			      strstr(text, "2000 B: the perturbation check did not compare the PUT's own CPU time, as above\n"),
		      "%s", text);
	ck_assert_int_eq(count_of(text, "--task-clock"), 1);
	/* measure's one summary: the note in full each time, never "as above" */
	c.said = NULL;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert_int_eq(count_of(text, "without its own counter that is getrusage"), 2);
	ck_assert_int_eq(count_of(text, "as above"), 0);
	c.said = &said;
	sum.held.mean = 8e3;
	sum.perturb.n = 0;
	/* no wake-up IPIs: the held time is not blamed on them; predict --clients is its own check */
	memset(&said, 0, sizeof said);
	said.saturating = 1;
	sum.ipi_per_op[0] = 0;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert_msg(!strstr(text, "wake-up") && strstr(text, "the saturated runs here are the check"), "%s", text);
	sum.ipi_per_op[0] = 1.0;
	/* measure's one summary: the whole text */
	c.said = NULL;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert_int_eq(count_of(text, "predict --clients"), 2);
	/* held under 5 % of the result: nothing */
	sum.held.mean = 0.5e3;
	stderr_of(two_sizes, &c, text, sizeof text);
	ck_assert(!c.untrusted[0] && !c.untrusted[1]);
	ck_assert_str_eq(text, "");
}
END_TEST

/*
 * Why a target was missed, by hand: the result at 20 µs ± 10 % after its
 * pairs, whose OS account moved by 18 % (sd), and the cost of these
 * operations at ± 0.75 %: the cost itself moved, and the message says what
 * --precision-of these-ops reached. When these operations are no narrower
 * than half the result's interval, nothing more is said; nor when the target
 * was these operations themselves (never narrower than themselves).
 */
START_TEST(test_unmet_why_says_when_the_cost_itself_moved)
{
	struct session s;
	struct summary sum;
	char why[240];
	memset(&s, 0, sizeof s);
	memset(&sum, 0, sizeof sum);
	s.m.precision = 0.01;
	s.m.precision_of = PREC_RESULT;
	sum.fitted = 1;
	sum.tau.mean = sum.these.mean = 20e3;
	sum.tau.ci_half = 2e3;
	sum.these.ci_half = 150;
	sum.these_os_cv = 0.18;
	sum.these_bg_ns = 10;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "; the cost itself moved between pairs (the OS's account of the PUT by 18.0%, sd), and the "
			      "cost of these operations is ±0.75% (--precision-of these-ops)");
	sum.these.ci_half = 1e3;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "");
	sum.these.ci_half = 150;
	s.m.precision_of = PREC_THESE;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "");
	/* these operations' fixed part, background 0.75 % and unbilled time 0.50 %, is wider than P by itself */
	sum.these_bg_ns = 150;
	sum.these_unbilled_ns = 100;
	sum.these_fixed_ns = 250;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "; the background the OS bills to the PUT (0.75%) and its time the OS billed to others "
			      "(0.50%) alone are ±1.25%, which no number of pairs shrinks: aim at the result, or at a wider P");
	sum.these_bg_ns = 10;
	sum.these_unbilled_ns = sum.these_fixed_ns = 0;
	/* the normalised cost compares in its own units: 5 % against 0.75 % says it, 1 % does not (tau is still 10 %) */
	s.m.precision_of = PREC_NORMALISED;
	sum.norm.mean = 10e3;
	sum.norm.ci_half = 500;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_ptr_nonnull(strstr(why, "is ±0.75% (--precision-of these-ops)"));
	sum.norm.ci_half = 100;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "");
	/* runs, not pairs, without the fit; nothing when the account's spread or these operations are unknown */
	s.m.precision_of = PREC_RESULT;
	sum.fitted = 0;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_ptr_nonnull(strstr(why, "; the cost itself moved between runs (the OS's account of the PUT by 18.0%"));
	sum.these_os_cv = NAN;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "");
	sum.these_os_cv = 0.18;
	sum.these.ci_half = NAN;
	measuring_unmet_why(&s, &sum, why, sizeof why);
	ck_assert_str_eq(why, "");
}
END_TEST

/*
 * A normal-class process spinning on the measured CPU leaves the SCHED_IDLE
 * fluid nothing, in the calibrations as in the runs: measure must say that
 * another process held the CPU, and call the result untrustworthy (exit 5)
 * under --strict, not print the hog's work as the PUT's cost.
 */
START_TEST(test_measure_says_when_another_process_holds_the_cpu)
{
	pid_t hog = tu_start_hog(0);
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "200", "--reps", "4", "--run-time",
			 "200ms", "--calib-time", "100ms", "--strict", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	tu_stop_hog(hog);
	ck_assert_msg(st == 5, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "of CPU 0: another process held it"), "%s", err);
}
END_TEST

/*
 * Contradictions, and errors that can be found at once, end the command
 * before it calibrates anything (issue 12: some came after calibrating,
 * some were silently resolved by ignoring one option).
 */
START_TEST(test_measure_refuses_contradictions_before_running)
{
	char *d = (char *)tu_bin("displace");
	char link[128], dir[64];
	snprintf(dir, sizeof dir, "%s", tu_mkdtemp());
	snprintf(link, sizeof link, "%s/rows.csv", dir);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *a1[] = { d, "measure", "spin", "--us", "10", "--loops-per-op", "5000", "--calib-time", "1s", NULL };
	tu_expect_error(2, "--us and --loops-per-op exclude each other", a1);
	char *a2[] = { d, "measure", "spin", "--us", "0x10", "--calib-time", "1s", NULL };
	tu_expect_error(2, "invalid value '0x10' for --us", a2);
	char *a3[] = { d, "measure", "spin", "--peer", "127.0.0.1", "--calib-time", "1s", NULL };
	tu_expect_error(2, "spin has no peer", a3);
	char *a4[] = { d, "measure", "tcp", "--peer", "1.2.3.4.5", "--calib-time", "1s", NULL };
	tu_expect_error(2, "invalid value '1.2.3.4.5' for --peer", a4);
	char *a5[] = { d, "measure", "tcp", "--peer", "127.0.0.1:9", "--peer-cpu", "1", "--calib-time", "1s", NULL };
	tu_expect_error(2, "--peer-cpu places the local peer", a5);
	char *a6[] = { d, "measure", "spin", "--calibration", "", "--calib-time", "1s", NULL };
	tu_expect_error(2, "invalid value '' for --calibration", a6);
	char *a7[] = { d, "measure", "spin", "--csv", "", "--calib-time", "1s", NULL };
	tu_expect_error(2, "invalid value '' for --csv", a7);
	char *a8[] = { d, "measure", "spin", "--csv", link, "--calib-time", "1s", NULL };
	tu_expect_error(3, "symbolic link", a8);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* none of them started a fluid: a calibration alone takes 1 s here (--calib-time) */
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(s < 8 * 0.2, "%.2f s for eight refusals", s);
	tu_rmtree(dir);
}
END_TEST

/*
 * Start argv (which writes its run rows to csv), wait for two rows, stop
 * it with sig: it must print what it measured, marked interrupted, and
 * exit 1, leaving no child.
 */
static void interrupt_after_two_runs(char **argv, const char *csv, int sig, const char *tag)
{
	int in, outfd;
	pid_t pid = tu_start(argv, &in, &outfd);
	ck_assert_int_gt(pid, 0);
	for (int i = 0; i < 600 && tu_file_lines(csv) < 3; i++)
		usleep(100000);
	ck_assert_int_ge(tu_file_lines(csv), 3);
	kill(pid, sig);
	reap_stopped_run(pid, in, outfd, tag);
}

/*
 * A measure --precision stopped by SIGTERM printed nothing, though it had
 * measured many runs; SIGHUP was not handled at all. Both now print the
 * summary of the runs so far, marked interrupted, and exit 1.
 */
START_TEST(test_measure_interrupted_reports_what_it_measured)
{
	static char tag[96];
	make_tag(tag, sizeof tag);
	char csv[128], dir[64];
	snprintf(dir, sizeof dir, "%s", tu_mkdtemp());
	snprintf(csv, sizeof csv, "%s/rows.csv", dir);
	/*
	 * untraced: as root on a busy host measure could start again traced after the two rows, dropping
	 * them, and the signal would then stop a measurement with nothing in it
	 */
	char *argv[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--precision", "0.001%",
			 "--run-time", "100ms", "--calib-time", "50ms", "--csv", csv, "--no-trace-others", "--json",
			 "--quiet", NULL };
	interrupt_after_two_runs(argv, csv, SIGTERM, tag);
	ck_assert_msg(strstr(out, "\"interrupted\": true"), "%.400s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"interrupted_by\": \"SIGTERM\""));
	ck_assert_ptr_nonnull(strstr(out, "\"precision_met\": false"));
	ck_assert_msg(isfinite(json_num(strstr(out, "\"tau_put_us\""), "displacement")), "%.400s", out);
	ck_assert_msg(json_num(out, "reps") >= 2, "%.400s", out);
	/* a summary row is a whole result: the CSV keeps the run rows only */
	char text[1 << 16];
	ck_assert_int_gt(tu_read_file(csv, text, sizeof text), 0);
	ck_assert_int_eq(tu_count_lines(text, "summary,"), 0);

	/* the terminal closed: SIGHUP, and the human report */
	unlink(csv);
	char *argv2[] = { (char *)tu_bin("displace"), "measure", "spin", "--us", "100", "--reps", "200", "--run-time",
			  "100ms", "--calib-time", "50ms", "--csv", csv, "--no-trace-others", "--quiet", NULL };
	interrupt_after_two_runs(argv2, csv, SIGHUP, tag);
	ck_assert_msg(strstr(out, "tau_PUT"), "%.400s", out);
	ck_assert_msg(strstr(out, "INTERRUPTED by SIGHUP: a partial result"), "%.600s", out);
	tu_rmtree(dir);
}
END_TEST

/* a stored verdict is text from a file: it reaches the terminal with its control characters escaped */
START_TEST(test_measure_shows_a_stored_verdict_safely)
{
	char dir[64], store[128], host[128], row[1024];
	snprintf(dir, sizeof dir, "%s", tu_mkdtemp());
	snprintf(store, sizeof store, "%s/cal.csv", dir);
	ck_assert_int_eq(gethostname(host, sizeof host), 0);
	int n = snprintf(row, sizeof row,
			 "host,kernel,cpu_model,cpu,fluid_variant,sched,tau_f_ns,ci95_ns,cv,tau0_ns,reps,seconds,quiet,"
			 "verdict,date\n%s,k,m,0,lcg64-v1/c1000,idle,1.19,0.001,0.004,1.14,20,0.25,0,"
			 "not quiet: '\x1b]0;owned\x07\x1b[2J' used 50%% of a CPU,2026-11-22T00:20:33Z\n",
			 host);
	ck_assert_int_eq(tu_write_file(store, row, (size_t)n), 0);
	char *argv[] = { (char *)tu_bin("displace"), "measure", "exec", "--ops", "1", "--reps", "2", "--run-time",
			 "100ms", "--calib-time", "50ms", "--calibration", store, "--", "/bin/true", NULL };
	int st = tu_run(argv, out, sizeof out, err, sizeof err);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_msg(strstr(err, "judged the host not quiet: '\\x1b]0;owned\\x07\\x1b[2J'"), "%s", err);
	ck_assert_ptr_null(strchr(err, '\x1b'));
	ck_assert_ptr_null(strchr(out, '\x1b'));
	tu_rmtree(dir);
}
END_TEST

Suite *measure_suite(void)
{
	Suite *s = suite_create("measure");
	TCase *tc = tcase_create("e2e");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_measure_spin_agrees_with_getrusage);
	tcase_add_test(tc, test_measure_exec_true_and_ops_zero);
	tcase_add_test(tc, test_measure_slow_clock_error_within_e_res);
	tcase_add_test(tc, test_measure_bad_input_exit_codes);
	tcase_add_test(tc, test_measure_sigint_leaves_no_child);
	tcase_add_test(tc, test_measure_killed_fluid_stops_cleanly);
	tcase_add_test(tc, test_measure_fluid_stopped_by_others_stops_cleanly);
	tcase_add_test(tc, test_measure_says_when_another_process_holds_the_cpu);
	tcase_add_test(tc, test_measure_says_when_another_process_shares_the_cpu);
	tcase_add_test(tc, test_measure_stops_when_a_shared_cpu_puts_the_target_out_of_reach);
	tcase_add_test(tc, test_measure_refuses_contradictions_before_running);
	tcase_add_test(tc, test_measure_interrupted_reports_what_it_measured);
	tcase_add_test(tc, test_measure_shows_a_stored_verdict_safely);
	tcase_add_test(tc, test_measure_says_when_the_local_peer_exited);
	suite_add_tcase(s, tc);
	TCase *why = tcase_create("why");
	tcase_add_test(why, test_unmet_why_says_when_the_cost_itself_moved);
	tcase_add_unchecked_fixture(why, tu_scratch_setup, tu_scratch_teardown);
	tcase_add_test(why, test_held_time_warns_and_a_sweep_explains_it_once);
	suite_add_tcase(s, why);
	return s;
}
