/* check_switchlog.c - the scheduler-trace account, on lines copied from tracefs on the development VM */
#include "calib/switchlog.h"
#include "tests/suites.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* one sched_switch line on cpu at t (s), in tracefs's text form */
static void sw(struct swl *l, int cpu, const char *t, const char *pc, int pp, const char *nc, int np)
{
	char line[512];
	snprintf(line, sizeof line,
		 "%16s-%-7d [%03d] d..2.  %s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 "
		 "prev_state=R ==> next_comm=%s next_pid=%d next_prio=120",
		 pc, pp, cpu, t, pc, pp, nc, np);
	ck_assert_int_eq(swl_feed(l, line), 0);
}

START_TEST(test_parse_line)
{
	int cpu;
	uint64_t t;
	const char *ev, *f;
	/* as read: the comm holds a colon and a dash */
	const char *a = " memfd:sealed-91-1236    [000] d..2.  1265.700288: sched_switch: prev_comm=memfd:sealed-91 "
			"prev_pid=1236 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120";
	ck_assert_int_eq(swl_parse_line(a, &cpu, &t, &ev, &f), 0);
	ck_assert_int_eq(cpu, 0);
	ck_assert_uint_eq(t, 1265700288000ull);
	ck_assert_str_eq(f, "prev_comm=memfd:sealed-91 prev_pid=1236 prev_prio=120 prev_state=S ==> next_comm=swapper/0 "
			    "next_pid=0 next_prio=120");
	ck_assert(strncmp(ev, "sched_switch: ", 14) == 0);
	/* a comm with a space, brackets and ": ", no flags column, nanoseconds */
	const char *b = "  my [odd]: task-77  [013]  12.000000123: sched_process_exit: comm=x pid=77 prio=120";
	ck_assert_int_eq(swl_parse_line(b, &cpu, &t, &ev, &f), 0);
	ck_assert_int_eq(cpu, 13);
	ck_assert_uint_eq(t, 12000000123ull);
	ck_assert_str_eq(f, "comm=x pid=77 prio=120");
	/* a comm that looks like a timestamp and an event: the real one is found after it */
	const char *c = "    job 1: x-55  [001] d..2.  7.250000: sched_switch: prev_comm=job 1: x prev_pid=55 prev_prio=120 "
			"prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120";
	ck_assert_int_eq(swl_parse_line(c, &cpu, &t, &ev, &f), 0);
	ck_assert_int_eq(cpu, 1);
	ck_assert_uint_eq(t, 7250000000ull);
	ck_assert(strncmp(ev, "sched_switch: ", 14) == 0);
	/* not events */
	ck_assert_int_eq(swl_parse_line("# tracer: nop", &cpu, &t, &ev, &f), -EBADMSG);
	ck_assert_int_eq(swl_parse_line("", &cpu, &t, &ev, &f), -EBADMSG);
	ck_assert_int_eq(swl_parse_line("x [0a0] 1.5: e: f", &cpu, &t, &ev, &f), -EBADMSG);
}
END_TEST

START_TEST(test_classes)
{
	struct swl l;
	ck_assert_int_eq(swl_init(&l, 100), 0);
	/* displace forks the fluid (101), which makes a thread (102); bash (7) forks 8 */
	ck_assert_int_eq(swl_feed(&l, "displace-100 [001] ..... 5.000000: sched_process_fork: comm=displace pid=100 "
				      "child_comm=displace child_pid=101"),
			 0);
	ck_assert_int_eq(swl_feed(&l, "fluid-101 [001] ..... 5.000001: sched_process_fork: comm=fluid pid=101 "
				      "child_comm=fluid child_pid=102"),
			 0);
	ck_assert_int_eq(swl_feed(&l, "bash-7 [001] ..... 5.000002: sched_process_fork: comm=bash pid=7 "
				      "child_comm=bash child_pid=8"),
			 0);
	ck_assert_int_eq(swl_class_of(&l, 0, "swapper/0"), SWL_IDLE);
	ck_assert_int_eq(swl_class_of(&l, 101, "fluid"), SWL_OURS);
	ck_assert_int_eq(swl_class_of(&l, 102, "fluid"), SWL_OURS);
	ck_assert_int_eq(swl_class_of(&l, 8, "bash"), SWL_OTHER);
	ck_assert_int_eq(swl_class_of(&l, 14, "ksoftirqd/0"), SWL_HELPER);
	ck_assert_int_eq(swl_class_of(&l, 11, "kworker/0:1"), SWL_HELPER);
	ck_assert_int_eq(swl_class_of(&l, 40, "irq/24-virtio0"), SWL_HELPER);
	ck_assert_int_eq(swl_class_of(&l, 77, "kdamond.0"), SWL_OTHER);
	ck_assert_int_eq(swl_class_of(&l, 15, "rcu_preempt"), SWL_OTHER);
	ck_assert_uint_eq(l.forks, 3);
	/* the fluid exits; a later task with its pid is not ours */
	ck_assert_int_eq(swl_feed(&l, "fluid-101 [000] ..... 6.0: sched_process_exit: comm=fluid pid=101 prio=120 "
				      "group_dead=true"),
			 0);
	ck_assert_int_eq(swl_class_of(&l, 101, "cron"), SWL_OTHER);
	ck_assert_int_eq(swl_class_of(&l, 102, "fluid"), SWL_OURS);
	/* a fork line it cannot read, and a sched_ line that is not an event line at all */
	ck_assert_int_eq(swl_feed(&l, "x-1 [000] ..... 7.0: sched_process_fork: comm=x pid=1"), -EBADMSG);
	ck_assert_int_eq(swl_feed(&l, "garbled: sched_switch: prev_comm=x"), -EBADMSG);
	ck_assert_int_eq(swl_feed(&l, "# tracer: nop"), 0);
	/* comms that hold the fields' own markers: a parent named " child_comm=", a task named " ==> " */
	ck_assert_int_eq(swl_feed(&l, "a-102 [001] ..... 8.0: sched_process_fork: comm=a child_comm= pid=102 "
				      "child_comm=b child_pid=103"),
			 0);
	ck_assert_int_eq(swl_class_of(&l, 103, "b"), SWL_OURS);
	sw(&l, 1, "8.1", "x ==> y", 102, "kdamond.0", 77);
	sw(&l, 1, "8.2", "kdamond.0", 77, "b", 103);
	ck_assert_double_eq_tol(swl_time_ns(&l, 1, SWL_OTHER, 8000000000ull, 9000000000ull), 1e8, 1e-3);
	ck_assert_uint_eq(l.lost, 0);
	swl_free(&l);
}
END_TEST

START_TEST(test_time_of_others)
{
	struct swl l;
	ck_assert_int_eq(swl_init(&l, 100), 0);
	ck_assert_int_eq(swl_add_ours(&l, 3374), 0);
	/* the PUT runs, kdamond takes 1.092 ms, then rcu 11 µs, then the PUT again; ksoftirqd is a helper */
	sw(&l, 0, "125.332961", "put", 3374, "kdamond.0", 77);
	sw(&l, 0, "125.334053", "kdamond.0", 77, "rcu_preempt", 15);
	sw(&l, 0, "125.334064", "rcu_preempt", 15, "ksoftirqd/0", 14);
	sw(&l, 0, "125.334100", "ksoftirqd/0", 14, "put", 3374);
	/* on CPU 1 meanwhile, another task: not CPU 0's */
	sw(&l, 1, "125.333000", "swapper/1", 0, "bash", 8);
	sw(&l, 1, "125.335000", "bash", 8, "swapper/1", 0);
	uint64_t t0 = 125332000000ull, t1 = 125336000000ull;
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, t0, t1), 1092000 + 11000, 1e-6);
	ck_assert_double_eq_tol(swl_time_ns(&l, 1, SWL_OTHER, t0, t1), 2000000, 1e-6);
	/* a window that cuts kdamond's stretch: only the part inside */
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, 125333000000ull, 125333500000ull), 500000, 1e-6);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, t1, t1 + 1000), 0, 1e-9);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, t1, t0), 0, 1e-9);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_UNKNOWN, t0, t1), 0, 1e-9);
	ck_assert_uint_eq(l.lost, 0);
	ck_assert_uint_eq(l.switches, 6);
	ck_assert_uint_eq(l.cpu_switches[0], 4);
	ck_assert_uint_eq(l.cpu_switches[1], 2);
	/*
	 * a stretch still open at the last event, in a window that has ended: the
	 * fluid ran at its end, so the switch back is missing; unknown, not kdamond's
	 */
	sw(&l, 0, "126.000000", "put", 3374, "kdamond.0", 77);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, 126000000000ull, 126002000000ull), 0, 1e-9);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_UNKNOWN, 126000000000ull, 126002000000ull), 2000000, 1e-6);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_UNKNOWN, 125999000000ull, 126000000000ull), 0, 1e-9);
	swl_free(&l);
}
END_TEST

START_TEST(test_lost_switch_out)
{
	/* as on the development VM: the agent's switch-out is missing; the next line switches put out */
	struct swl l;
	ck_assert_int_eq(swl_init(&l, 3374), 0);
	sw(&l, 0, "156.552947", "rcu_preempt", 15, "put", 3374);
	sw(&l, 0, "156.555784", "put", 3374, "tokio-rt-worker", 68);
	sw(&l, 0, "156.556923", "put", 3374, "kworker/0:1", 11);
	sw(&l, 0, "156.556939", "kworker/0:1", 11, "put", 3374);
	uint64_t t0 = 156550000000ull, t1 = 156560000000ull;
	ck_assert_uint_eq(l.lost, 1);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_UNKNOWN, t0, t1), 1139000, 1e-6);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_OTHER, t0, t1), 0, 1e-9);
	/* forgetting the stretches before the window's start leaves the later ones */
	swl_forget_before(&l, 156557000000ull);
	ck_assert_double_eq_tol(swl_time_ns(&l, 0, SWL_UNKNOWN, t0, t1), 0, 1e-9);
	swl_free(&l);
}
END_TEST

START_TEST(test_pid_set_grows)
{
	struct swl l;
	ck_assert_int_eq(swl_init(&l, 1), 0);
	for (int pid = 2; pid < 3000; pid += 3)
		ck_assert_int_eq(swl_add_ours(&l, pid), 0);
	for (int pid = 2; pid < 3000; pid++)
		ck_assert_int_eq(swl_is_ours(&l, pid), pid % 3 == 2);
	ck_assert(swl_is_ours(&l, 1));
	ck_assert(!swl_is_ours(&l, 0));
	ck_assert(!swl_is_ours(&l, -1));
	ck_assert_uint_eq(l.ours_n, 1001); /* the root and the 1000 added */
	/* forks and exits by the thousand: the table is rebuilt, not grown, when most slots are exited pids */
	size_t cap = l.ours_cap;
	char line[160];
	for (int pid = 10000; pid < 30000; pid++) {
		snprintf(line, sizeof line, "a-1 [000] ..... 9.0: sched_process_fork: comm=a pid=1 child_comm=b child_pid=%d",
			 pid);
		ck_assert_int_eq(swl_feed(&l, line), 0);
		snprintf(line, sizeof line, "b-%d [000] ..... 9.1: sched_process_exit: comm=b pid=%d prio=120", pid, pid);
		ck_assert_int_eq(swl_feed(&l, line), 0);
	}
	/* (1001 live pids in 2048 slots leave no room for removed ones: one doubling, then no more) */
	ck_assert_uint_le(l.ours_cap, 2 * cap);
	ck_assert_uint_eq(l.ours_n, 1001);
	ck_assert(swl_is_ours(&l, 2999) && !swl_is_ours(&l, 29999));
	swl_free(&l);
}
END_TEST

Suite *switchlog_suite(void)
{
	Suite *s = suite_create("switchlog");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_parse_line);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_time_of_others);
	tcase_add_test(tc, test_lost_switch_out);
	tcase_add_test(tc, test_pid_set_grows);
	suite_add_tcase(s, tc);
	return s;
}
