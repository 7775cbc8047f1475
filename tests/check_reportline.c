/* check_reportline.c - parsing the fluid's and put's report lines, and the fluid's derived times */
#include "calib/reportline.h"
#include "tests/suites.h"
#include "tests/testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* As `bin/fluid --cpu 0 --seconds 50ms` printed it on this host. */
static const char real_fluid[] =
	"fluid cpu=0 ran_on=0 sched=idle variant=lcg64-v1 chunk_loops=1000 loops=44211000 start_ns=1036516807236 "
	"end_ns=1036566807749 cpu_ns=49965143 task_clock_ns=49995143 chunks=44211 min_chunk_ns=1071 max_chunk_ns=61132 ok_n=44047 "
	"ok_ns=48818395 gap_n=83 gap_ns=1081909 post_n=81 post_ns=100209 clock_res_ns=0 stop=time sink=229 "
	"hist=129:886,130:37309,131:4788,132:70,133:13,134:166,135:231,136:47,137:156,138:75,139:113,140:76,141:66,"
	"142:110,143:13,144:4,145:2,146:6,147:2,148:2,150:1,156:1,166:1,168:2,169:2,170:4,171:5,172:3,173:2,174:3,"
	"175:3,176:3,177:3,178:4,180:1,181:1,182:5,183:2,186:1,189:1,196:1,198:1,208:1,231:1,244:1,257:1,260:2,"
	"275:1,281:1,282:1,290:4,291:2,292:1,293:1,294:1,295:1,297:1,300:1,307:1,308:1,313:1,315:2\n";

/*
 * Round numbers to compute by hand: 10 chunks of 1000 loops in 13000 ns.
 * 7 ok chunks take 7000 ns (1 ns per loop), 2 gaps 4500 ns, 1 post-gap
 * chunk 1500 ns; 7000 + 4500 + 1500 = 13000.
 */
static const char round_fluid[] =
	"fluid cpu=1 ran_on=1 sched=nice variant=lcg64-v1 chunk_loops=1000 loops=10000 start_ns=1000000 "
	"end_ns=1013000 cpu_ns=12900 task_clock_ns=n/a:EACCES chunks=10 min_chunk_ns=990 max_chunk_ns=2500 ok_n=7 ok_ns=7000 gap_n=2 "
	"gap_ns=4500 post_n=1 post_ns=1500 clock_res_ns=0 stop=stdin sink=17 hist=129:7,134:1,155:1,162:1";

/* As `bin/put --cpu 0 exec -- /bin/true` printed it here: no perf CPU-time clock in this guest. */
static const char real_put_exec[] =
	"put workload=exec cpu=0 ran_on=0 ops=1 runs=1 setup_ns=71737 start_ns=1037797043206 end_ns=1037798899427 "
	"ru_utime_ns=1296000 ru_stime_ns=0 task_clock_ns=1340360 cputime_ns=n/a:EOPNOTSUPP "
	"schedstat_ns=n/a:EOPNOTSUPP nvcsw=5 nivcsw=0 cmd_status=0 cmd_failed_runs=0 ops_per_run=1\n";

static const char real_put_spin[] =
	"put workload=spin cpu=0 ran_on=0 ops=3 runs=3 setup_ns=22090897 start_ns=1037794531516 "
	"end_ns=1037794817072 ru_utime_ns=295000 ru_stime_ns=0 task_clock_ns=423502 cputime_ns=287289 "
	"schedstat_ns=456271 nvcsw=0 nivcsw=0 spin_us=100.000 spin_ns_per_loop=1.14343 spin_loops_per_op=87456 sink=1";

/* without - line with its " key=value" field removed, into buf (static) */
static const char *without(const char *line, const char *key)
{
	static char buf[4096];
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(line, pat);
	ck_assert_msg(p != NULL, "no field '%s' to remove", key);
	size_t head = (size_t)(p - line);
	const char *rest = p + 1 + strcspn(p + 1, " \n");
	snprintf(buf, sizeof buf, "%.*s%s", (int)head, line, rest);
	return buf;
}

/* with - line with the value of key replaced by val (static buffers, so calls can nest) */
static const char *with(const char *line, const char *key, const char *val)
{
	static char bufs[4][4096];
	static int k;
	char *buf = bufs[k++ % 4];
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(line, pat);
	ck_assert_msg(p != NULL, "no field '%s' to change", key);
	size_t head = (size_t)(p - line) + strlen(pat);
	const char *rest = line + head + strcspn(line + head, " \n");
	snprintf(buf, sizeof bufs[0], "%.*s%s%s", (int)head, line, val, rest);
	return buf;
}

/* ---- fluid ------------------------------------------------------------------ */

START_TEST(test_fluid_report_parses_every_field)
{
	static struct fluid_report r;
	char err[128] = "";
	ck_assert_int_eq(report_parse_fluid(real_fluid, &r, err, sizeof err), 0);
	ck_assert_int_eq(r.cpu, 0);
	ck_assert_int_eq(r.ran_on, 0);
	ck_assert_str_eq(r.sched, "idle");
	ck_assert_str_eq(r.variant, "lcg64-v1");
	ck_assert_str_eq(r.stop, "time");
	ck_assert_uint_eq(r.chunk_loops, 1000);
	ck_assert_uint_eq(r.loops, 44211000);
	ck_assert_uint_eq(r.start_ns, 1036516807236u);
	ck_assert_uint_eq(r.end_ns, 1036566807749u);
	ck_assert_uint_eq(r.cpu_ns, 49965143);
	ck_assert_uint_eq(r.chunks, 44211);
	ck_assert_uint_eq(r.min_chunk_ns, 1071);
	ck_assert_uint_eq(r.max_chunk_ns, 61132);
	ck_assert_uint_eq(r.ok_n, 44047);
	ck_assert_uint_eq(r.ok_ns, 48818395);
	ck_assert_uint_eq(r.gap_n, 83);
	ck_assert_uint_eq(r.gap_ns, 1081909);
	ck_assert_uint_eq(r.post_n, 81);
	ck_assert_uint_eq(r.post_ns, 100209);
	ck_assert_uint_eq(r.clock_res_ns, 0);
	ck_assert_uint_eq(r.hist[129], 886);
	ck_assert_uint_eq(r.hist[130], 37309);
	ck_assert_uint_eq(r.hist[315], 2);
	ck_assert_uint_eq(r.hist[128], 0);
	ck_assert_uint_eq(r.hist[316], 0);
}
END_TEST

START_TEST(test_fluid_derived_times_match_hand_computation)
{
	static struct fluid_report r;
	char err[128];
	ck_assert_int_eq(report_parse_fluid(round_fluid, &r, err, sizeof err), 0);
	ck_assert_str_eq(r.sched, "nice");
	ck_assert_str_eq(r.stop, "stdin");
	ck_assert_double_eq_tol(fluid_wall_ns(&r), 13000, 1e-9);
	ck_assert_double_eq_tol(fluid_tau_ns(&r), 1.3, 1e-12);       /* 13000 / 10000 */
	ck_assert_double_eq_tol(fluid_tau0_ns(&r), 1.0, 1e-12);      /* 7000 / (7 * 1000) */
	ck_assert_double_eq_tol(fluid_excess_ns(&r), 3000, 1e-9);    /* 13000 - 10000 * 1.0 */
	ck_assert_double_eq_tol(fluid_post_extra_ns(&r), 500, 1e-9); /* 1500 - 1 * 1000 * 1.0 */

	/* the real line, by hand: 50000513 ns over 44211000 loops; 48818395 ns over 44047 ok chunks */
	ck_assert_int_eq(report_parse_fluid(real_fluid, &r, err, sizeof err), 0);
	ck_assert_double_eq_tol(fluid_wall_ns(&r), 50000513, 1e-6);
	ck_assert_double_eq_tol(fluid_tau_ns(&r), 1.13095187, 1e-8);
	ck_assert_double_eq_tol(fluid_tau0_ns(&r), 1.10832508, 1e-8);
	ck_assert_double_eq_tol(fluid_excess_ns(&r), 1000352.69, 0.01);
	ck_assert_double_eq_tol(fluid_post_extra_ns(&r), 10434.67, 0.01);
}
END_TEST

/* A simulated slow clock: the report carries the real clock's start and end as well. */
START_TEST(test_fluid_report_real_clock_times_of_a_slow_clock)
{
	static struct fluid_report r;
	char err[128] = "";
	/* without them (the real clock), they are start_ns and end_ns */
	ck_assert_int_eq(report_parse_fluid(round_fluid, &r, err, sizeof err), 0);
	ck_assert_uint_eq(r.raw_start_ns, 1000000);
	ck_assert_uint_eq(r.raw_end_ns, 1013000);
	ck_assert_double_eq_tol(fluid_raw_wall_ns(&r), 13000, 1e-9);

	/* a 10 us clock read 1000000 -> 1010000 while the real clock saw 1003500 -> 1013000 */
	char line[1024];
	snprintf(line, sizeof line, "%s raw_start_ns=1003500 raw_end_ns=1013000",
		 with(with(round_fluid, "clock_res_ns", "10000"), "end_ns", "1010000"));
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert_uint_eq(r.clock_res_ns, 10000);
	ck_assert_double_eq_tol(fluid_wall_ns(&r), 10000, 1e-9);
	ck_assert_double_eq_tol(fluid_raw_wall_ns(&r), 9500, 1e-9);

	/* one without the other, or backwards, is an error that names it */
	snprintf(line, sizeof line, "%s raw_start_ns=1003500", round_fluid);
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'raw_end_ns'"));
	snprintf(line, sizeof line, "%s raw_start_ns=1013000 raw_end_ns=1003500", round_fluid);
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "inconsistent"));
}
END_TEST

/* a co-run's window must hold the PUT's run: by the real clock, ends included */
START_TEST(test_fluid_window_holds_a_run_by_the_real_clock)
{
	static struct fluid_report r;
	char err[128];
	char line[1024];
	/* a 10 us clock read 1000000 -> 1010000 while the real clock saw 1003500 -> 1013000 */
	snprintf(line, sizeof line, "%s raw_start_ns=1003500 raw_end_ns=1013000",
		 with(with(round_fluid, "clock_res_ns", "10000"), "end_ns", "1010000"));
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert_int_eq(fluid_window_holds(&r, 1003500, 1013000), 1);
	ck_assert_int_eq(fluid_window_holds(&r, 1005000, 1012000), 1);
	/* the run began before the window (the slow clock's start would have hidden it), or ended after */
	ck_assert_int_eq(fluid_window_holds(&r, 1003499, 1012000), 0);
	ck_assert_int_eq(fluid_window_holds(&r, 1005000, 1013001), 0);
	/* a window that missed the run altogether, as a starved fluid's did */
	ck_assert_int_eq(fluid_window_holds(&r, 900000, 950000), 0);
}
END_TEST

START_TEST(test_fluid_steal_is_task_clock_minus_cpu_time)
{
	static struct fluid_report r;
	char err[128];
	ck_assert_int_eq(report_parse_fluid(real_fluid, &r, err, sizeof err), 0);
	ck_assert(r.task_clock_ns.avail);
	ck_assert_double_eq_tol(fluid_steal_ns(&r), 49995143.0 - 49965143.0, 1e-6);
	/* unavailable task-clock: no steal can be seen, and none is invented */
	ck_assert_int_eq(report_parse_fluid(round_fluid, &r, err, sizeof err), 0);
	ck_assert(!r.task_clock_ns.avail);
	ck_assert_str_eq(r.task_clock_ns.why, "EACCES");
	ck_assert_double_eq(fluid_steal_ns(&r), 0);
}
END_TEST

/*
 * idle_ns: the CPU's idle time while the fluid ran (a CPU limit held it).
 * A number, n/a with its reason, or absent (a fluid older than the field,
 * on a peer host): unknown, never an error.
 */
START_TEST(test_fluid_idle_time_is_optional)
{
	static struct fluid_report r;
	char err[128], line[sizeof real_fluid + 32];
	ck_assert_int_eq(report_parse_fluid(real_fluid, &r, err, sizeof err), 0);
	ck_assert(!r.idle_ns.avail && isnan(r.idle_ns.v));
	ck_assert_str_eq(r.idle_ns.why, "absent");
	const char *at = strstr(real_fluid, " chunks=");
	snprintf(line, sizeof line, "%.*s idle_ns=26500000%s", (int)(at - real_fluid), real_fluid, at);
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert(r.idle_ns.avail);
	ck_assert_double_eq(r.idle_ns.v, 26500000);
	snprintf(line, sizeof line, "%.*s idle_ns=n/a%s", (int)(at - real_fluid), real_fluid, at);
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert(!r.idle_ns.avail);
	snprintf(line, sizeof line, "%.*s idle_ns=lots%s", (int)(at - real_fluid), real_fluid, at);
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "idle_ns"));
}
END_TEST

START_TEST(test_fluid_derived_times_without_ok_chunks_or_slow_post)
{
	static struct fluid_report r;
	char err[128];
	/* every chunk a gap: no undisturbed speed to compare with */
	const char *line = with(with(round_fluid, "ok_n", "0"), "ok_ns", "0");
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert_double_eq_tol(fluid_tau_ns(&r), 1.3, 1e-12);
	ck_assert(isnan(fluid_tau0_ns(&r)));
	ck_assert(isnan(fluid_excess_ns(&r)));
	ck_assert_double_eq(fluid_post_extra_ns(&r), 0);
	/* a post-gap chunk faster than the ok ones adds no extra time */
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "post_ns", "800"), &r, err, sizeof err), 0);
	ck_assert_double_eq(fluid_post_extra_ns(&r), 0);
	/* no loops at all */
	line = with(with(round_fluid, "loops", "0"), "chunks", "0");
	ck_assert_int_eq(report_parse_fluid(line, &r, err, sizeof err), 0);
	ck_assert(isnan(fluid_tau_ns(&r)));
}
END_TEST

START_TEST(test_fluid_report_names_missing_field)
{
	static const char *const keys[] = {
		"cpu", "ran_on", "sched", "variant", "chunk_loops", "loops", "start_ns", "end_ns", "cpu_ns", "chunks",
		"min_chunk_ns", "max_chunk_ns", "ok_n", "ok_ns", "gap_n", "gap_ns", "post_n", "post_ns",
		"clock_res_ns", "stop", "hist",
	};
	static struct fluid_report r;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char err[128] = "", want[64];
		/* "loops" must not be found inside "chunk_loops", nor "cpu" in "cpu_ns" */
		ck_assert_int_eq(report_parse_fluid(without(round_fluid, keys[i]), &r, err, sizeof err), -EBADMSG);
		snprintf(want, sizeof want, "'%s'", keys[i]);
		ck_assert_msg(strstr(err, want), "dropping %s: err '%s'", keys[i], err);
	}
	/* sink is informative only */
	char err[128];
	ck_assert_int_eq(report_parse_fluid(without(round_fluid, "sink"), &r, err, sizeof err), 0);
}
END_TEST

START_TEST(test_fluid_report_names_bad_value)
{
	static struct fluid_report r;
	char err[128];
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "loops", "10000x"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'loops'"));
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "gap_ns", "-4500"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'gap_ns'"));
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "cpu", "one"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'cpu'"));
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "chunks", ""), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'chunks'"));
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "hist", "129:7,x"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'hist'"));
	ck_assert_int_eq(report_parse_fluid(real_put_spin, &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "not a fluid report"));
}
END_TEST

START_TEST(test_fluid_report_rejects_inconsistent_line)
{
	static struct fluid_report r;
	char err[128];
	/* ends before it starts */
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "end_ns", "999999"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "end_ns"));
	/* loops is not chunks x chunk_loops */
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "loops", "10001"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "loops"));
	ck_assert_ptr_nonnull(strstr(err, "chunks"));
	ck_assert_int_eq(report_parse_fluid(with(round_fluid, "chunks", "11"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "chunks"));
}
END_TEST

/* The parser and the real fluid agree, and the fluid's chunk accounting adds up. */
START_TEST(test_fluid_report_of_real_process_adds_up)
{
	char out[65536], errout[1024];
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "0", "--seconds", "50ms", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, errout, sizeof errout), 0);
	static struct fluid_report r;
	char err[128] = "";
	ck_assert_msg(report_parse_fluid(out, &r, err, sizeof err) == 0, "%s in: %s", err, out);
	ck_assert_int_eq(r.cpu, 0);
	ck_assert_int_eq(r.ran_on, 0);
	ck_assert_str_eq(r.stop, "time");
	ck_assert_uint_gt(r.chunks, 0);
	ck_assert_uint_eq(r.ok_n + r.gap_n + r.post_n, r.chunks);
	/* every chunk is timed back to back: their durations are the wall time */
	ck_assert_uint_eq(r.ok_ns + r.gap_ns + r.post_ns, r.end_ns - r.start_ns);
	ck_assert_uint_ge(r.end_ns - r.start_ns, 50000000u);
	uint64_t in_hist = 0;
	for (unsigned b = 0; b < CHUNKSTAT_BUCKETS; b++)
		in_hist += r.hist[b];
	ck_assert_uint_eq(in_hist, r.chunks);
	/* the excess is the gap and post-gap chunks' time beyond the ok speed */
	if (r.ok_n) {
		double t0 = fluid_tau0_ns(&r);
		double extra = (double)(r.gap_ns + r.post_ns) - (double)((r.gap_n + r.post_n) * r.chunk_loops) * t0;
		ck_assert_double_eq_tol(fluid_excess_ns(&r), extra, 1e-6 * (double)(r.end_ns - r.start_ns));
	}
}
END_TEST

/* --ready: a line as the window starts, then the report, which is still the last line */
START_TEST(test_fluid_says_ready_before_its_report)
{
	char out[65536], errout[1024];
	char *argv[] = { (char *)tu_bin("fluid"), "--cpu", "0", "--seconds", "20ms", "--ready", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, errout, sizeof errout), 0);
	ck_assert_msg(!strncmp(out, "fluid ready\n", 12), "%s", out);
	ck_assert_int_eq(fluid_said_ready(out), 1);
	static struct fluid_report r;
	char err[128] = "";
	ck_assert_msg(report_parse_fluid(out + 12, &r, err, sizeof err) == 0, "%s in: %s", err, out);
	ck_assert_str_eq(r.stop, "time");
	ck_assert_ptr_null(strstr(out + 12, "ready"));
	/* without it, the report alone */
	argv[5] = NULL;
	ck_assert_int_eq(tu_run(argv, out, sizeof out, errout, sizeof errout), 0);
	ck_assert_msg(!strncmp(out, "fluid cpu=", 10), "%s", out);
	ck_assert_int_eq(fluid_said_ready(out), 0);
	ck_assert_int_eq(fluid_said_ready(NULL), 0);
	ck_assert_int_eq(fluid_said_ready("fluid rea"), 0); /* a line not all read yet */
}
END_TEST

/* ---- put -------------------------------------------------------------------- */

START_TEST(test_put_report_keeps_unavailable_reason)
{
	static struct put_report r;
	char err[128] = "";
	ck_assert_int_eq(report_parse_put(real_put_exec, &r, err, sizeof err), 0);
	ck_assert_str_eq(r.workload, "exec");
	ck_assert_int_eq(r.cpu, 0);
	ck_assert_int_eq(r.ran_on, 0);
	ck_assert_uint_eq(r.ops, 1);
	ck_assert_uint_eq(r.runs, 1);
	ck_assert_uint_eq(r.setup_ns, 71737);
	ck_assert_uint_eq(r.start_ns, 1037797043206u);
	ck_assert_uint_eq(r.end_ns, 1037798899427u);
	ck_assert_int_eq(r.utime_ns.avail, 1);
	ck_assert_double_eq(r.utime_ns.v, 1296000);
	/* a real zero is a value, not n/a */
	ck_assert_int_eq(r.stime_ns.avail, 1);
	ck_assert_double_eq(r.stime_ns.v, 0);
	ck_assert_int_eq(r.task_clock_ns.avail, 1);
	ck_assert_double_eq(r.task_clock_ns.v, 1340360);
	ck_assert_int_eq(r.cputime_ns.avail, 0);
	ck_assert(isnan(r.cputime_ns.v));
	ck_assert_str_eq(r.cputime_ns.why, "EOPNOTSUPP");
	ck_assert_int_eq(r.schedstat_ns.avail, 0);
	ck_assert_str_eq(r.schedstat_ns.why, "EOPNOTSUPP");
	ck_assert_int_eq(r.nvcsw, 5);
	ck_assert_int_eq(r.nivcsw, 0);
	ck_assert_int_eq(r.cmd_status, 0);
	/* n/a with no reason given */
	ck_assert_int_eq(report_parse_put(with(real_put_exec, "schedstat_ns", "n/a"), &r, err, sizeof err), 0);
	ck_assert_int_eq(r.schedstat_ns.avail, 0);
	ck_assert_str_eq(r.schedstat_ns.why, "unavailable");
	ck_assert_int_eq(report_parse_put(with(real_put_exec, "cmd_status", "127"), &r, err, sizeof err), 0);
	ck_assert_int_eq(r.cmd_status, 127);
}
END_TEST

START_TEST(test_put_report_keeps_workload_fields_verbatim)
{
	static struct put_report r;
	char err[128];
	ck_assert_int_eq(report_parse_put(real_put_exec, &r, err, sizeof err), 0);
	ck_assert_str_eq(r.extra, "cmd_status=0 cmd_failed_runs=0 ops_per_run=1");
	ck_assert_int_eq(report_parse_put(real_put_spin, &r, err, sizeof err), 0);
	ck_assert_str_eq(r.workload, "spin");
	ck_assert_str_eq(r.extra, "spin_us=100.000 spin_ns_per_loop=1.14343 spin_loops_per_op=87456 sink=1");
	ck_assert_int_eq(r.cmd_status, -1); /* spin runs no command */
	ck_assert_int_eq(r.cputime_ns.avail, 1);
	ck_assert_double_eq(r.cputime_ns.v, 287289);
	/* no workload fields at all */
	char line[1024];
	snprintf(line, sizeof line, "%.*s", (int)(strstr(real_put_spin, " spin_us=") - real_put_spin), real_put_spin);
	ck_assert_int_eq(report_parse_put(line, &r, err, sizeof err), 0);
	ck_assert_str_eq(r.extra, "");
}
END_TEST

START_TEST(test_put_report_names_missing_and_bad_fields)
{
	static const char *const keys[] = {
		"workload", "cpu", "ran_on", "ops", "runs", "setup_ns", "start_ns", "end_ns", "ru_utime_ns",
		"ru_stime_ns", "task_clock_ns", "cputime_ns", "schedstat_ns", "nvcsw", "nivcsw",
	};
	static struct put_report r;
	char err[128], want[64];
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		ck_assert_int_eq(report_parse_put(without(real_put_spin, keys[i]), &r, err, sizeof err), -EBADMSG);
		snprintf(want, sizeof want, "'%s'", keys[i]);
		ck_assert_msg(strstr(err, want), "dropping %s: err '%s'", keys[i], err);
	}
	ck_assert_int_eq(report_parse_put(with(real_put_spin, "task_clock_ns", "12us"), &r, err, sizeof err),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'task_clock_ns'"));
	ck_assert_int_eq(report_parse_put(with(real_put_spin, "ops", "-3"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "'ops'"));
	ck_assert_int_eq(report_parse_put(with(real_put_spin, "end_ns", "1"), &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "end_ns"));
	ck_assert_int_eq(report_parse_put(round_fluid, &r, err, sizeof err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "not a put report"));
}
END_TEST

START_TEST(test_put_report_of_real_process_parses)
{
	char out[4096], errout[1024];
	char *argv[] = { (char *)tu_bin("put"), "--cpu", "0", "--ops", "3", "spin", NULL };
	ck_assert_int_eq(tu_run(argv, out, sizeof out, errout, sizeof errout), 0);
	static struct put_report r;
	char err[128] = "";
	ck_assert_msg(report_parse_put(out, &r, err, sizeof err) == 0, "%s in: %s", err, out);
	ck_assert_str_eq(r.workload, "spin");
	ck_assert_uint_eq(r.ops, 3);
	ck_assert_int_eq(r.ran_on, 0);
	ck_assert_ptr_nonnull(strstr(r.extra, "spin_us="));
	ck_assert_ptr_null(strchr(r.extra, '\n'));
}
END_TEST

START_TEST(test_report_field_matches_whole_keys)
{
	char buf[32];
	ck_assert_str_eq(report_field("fluid chunk_loops=5 loops=50", "loops", buf, sizeof buf), "50");
	ck_assert_ptr_null(report_field("fluid chunk_loops=5", "loops", buf, sizeof buf));
	ck_assert_ptr_null(report_field("fluid cpu_ns=5", "cpu", buf, sizeof buf));
	ck_assert_str_eq(report_field("fluid cpu_ns=5 cpu=1\n", "cpu", buf, sizeof buf), "1");
	/* too long for the buffer: not silently cut */
	ck_assert_ptr_null(report_field("fluid x=12345678", "x", buf, 4));
}
END_TEST

Suite *reportline_suite(void)
{
	Suite *s = suite_create("reportline");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_fluid_report_parses_every_field);
	tcase_add_test(tc, test_fluid_derived_times_match_hand_computation);
	tcase_add_test(tc, test_fluid_report_real_clock_times_of_a_slow_clock);
	tcase_add_test(tc, test_fluid_window_holds_a_run_by_the_real_clock);
	tcase_add_test(tc, test_fluid_steal_is_task_clock_minus_cpu_time);
	tcase_add_test(tc, test_fluid_idle_time_is_optional);
	tcase_add_test(tc, test_fluid_derived_times_without_ok_chunks_or_slow_post);
	tcase_add_test(tc, test_fluid_report_names_missing_field);
	tcase_add_test(tc, test_fluid_report_names_bad_value);
	tcase_add_test(tc, test_fluid_report_rejects_inconsistent_line);
	tcase_add_test(tc, test_put_report_keeps_unavailable_reason);
	tcase_add_test(tc, test_put_report_keeps_workload_fields_verbatim);
	tcase_add_test(tc, test_put_report_names_missing_and_bad_fields);
	tcase_add_test(tc, test_report_field_matches_whole_keys);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("process");
	tcase_set_timeout(tp, 30);
	tcase_add_test(tp, test_fluid_report_of_real_process_adds_up);
	tcase_add_test(tp, test_fluid_says_ready_before_its_report);
	tcase_add_test(tp, test_put_report_of_real_process_parses);
	suite_add_tcase(s, tp);
	return s;
}
