/* check_procfs.c - the /proc parsers against texts copied from a Debian 12 KVM guest */
#include "calib/procfs.h"
#include "tests/suites.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/stat of a 2-CPU guest; cpu1 is left out (offline) and cpu3 kept, to find CPUs by number */
static const char stat_text[] =
	"cpu  6814 0 2842 196281 399 0 89 661 0 0\n"
	"cpu0 4208 0 1148 97834 14 0 10 302 0 0\n"
	"cpu3 2606 5 1693 98447 384 7 78 358 0 0\n"
	"intr 161546 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 15 0 0 0 0 207 31 0 29 1 35647\n"
	"ctxt 277014\n"
	"btime 1795305732\n"
	"processes 6898\n"
	"procs_running 4\n"
	"procs_blocked 0\n"
	"softirq 64380 0 19282 3 511 35646 0 4 45380 0 28370\n";

static const char softirqs_text[] =
	"                    CPU0       CPU1       \n"
	"          HI:          0          0\n"
	"       TIMER:      10807       8475\n"
	"      NET_TX:          2          1\n"
	"      NET_RX:        204        307\n"
	"       BLOCK:          0      35646\n"
	"    IRQ_POLL:          0          0\n"
	"     TASKLET:          3          1\n"
	"       SCHED:      25893      19487\n"
	"     HRTIMER:          0          0\n"
	"         RCU:      13715      14655\n";

/* /proc/1/stat fields 3..52, after "pid (comm) ": utime 57, stime 396, starttime 103681 */
#define PID_STAT_TAIL                                                                                        \
	"S 1 1234 1234 0 -1 4194560 39423 368608 0 238 57 396 1043 942 20 0 13 0 103681 43429888 3218 "        \
	"18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

static const char config_text[] =
	"#\n"
	"# Automatically generated file; DO NOT EDIT.\n"
	"# Linux/x86 6.1.0 Kernel Configuration\n"
	"#\n"
	"CONFIG_DEFAULT_HOSTNAME=\"(none)\"\n"
	"CONFIG_NO_HZ_COMMON=y\n"
	"# CONFIG_HZ_PERIODIC is not set\n"
	"CONFIG_NO_HZ_IDLE=y\n"
	"# CONFIG_NO_HZ_FULL is not set\n"
	"CONFIG_NO_HZ=y\n"
	"# CONFIG_IRQ_TIME_ACCOUNTING is not set\n"
	"CONFIG_PARAVIRT_TIME_ACCOUNTING=y\n"
	"# CONFIG_HZ_100 is not set\n"
	"CONFIG_HZ_250=y\n"
	"# CONFIG_HZ_1000 is not set\n"
	"CONFIG_HZ=250\n"
	"CONFIG_KVM=m\n"
	"CONFIG_LAST=last";

START_TEST(test_stat_parses_per_cpu_fields_including_steal)
{
	static struct procfs_stat s;
	ck_assert_int_eq(procfs_parse_stat(stat_text, &s), 0);
	ck_assert_int_eq(s.n, 2);
	const struct procfs_cpu *c = &s.cpu[1];
	ck_assert_int_eq(c->cpu, 3);
	ck_assert_uint_eq(c->user, 2606);
	ck_assert_uint_eq(c->nice, 5);
	ck_assert_uint_eq(c->system, 1693);
	ck_assert_uint_eq(c->idle, 98447);
	ck_assert_uint_eq(c->iowait, 384);
	ck_assert_uint_eq(c->irq, 7);
	ck_assert_uint_eq(c->softirq, 78);
	ck_assert_uint_eq(c->steal, 358);
	ck_assert_int_eq(s.cpu[0].cpu, 0);
	ck_assert_uint_eq(s.cpu[0].steal, 302);
	/* busy = user + nice + system + irq + softirq + steal; total adds idle and iowait */
	ck_assert_uint_eq(procfs_cpu_busy(c), 2606 + 5 + 1693 + 7 + 78 + 358);
	ck_assert_uint_eq(procfs_cpu_total(c), 2606 + 5 + 1693 + 7 + 78 + 358 + 98447 + 384);
	ck_assert_ptr_eq(procfs_stat_find(&s, 3), c);
	ck_assert_ptr_eq(procfs_stat_find(&s, 0), &s.cpu[0]);
	ck_assert_ptr_null(procfs_stat_find(&s, 1));
}
END_TEST

/*
 * Two readings of three CPUs: cpu0 (the fluid's) and cpu1, cpu2. Between
 * them cpu1 ran 90 of 100 ticks, cpu2 40 of 100 (iowait counts as idle),
 * cpu0 10 of 100. In a third reading cpu2's idle count went down (an old
 * kernel across a hot-unplug): that interval adds nothing for cpu2.
 */
START_TEST(test_least_busy_cpu_over_readings)
{
	static struct procfs_stat a, b, c;
	ck_assert_int_eq(procfs_parse_stat("cpu  0 0 0 0 0 0 0 0\n"
					   "cpu0 100 0 0 1000 0 0 0 0\n"
					   "cpu1 100 0 0 1000 0 0 0 0\n"
					   "cpu2 100 0 0 1000 0 0 0 0\n",
					   &a),
			 0);
	ck_assert_int_eq(procfs_parse_stat("cpu  0 0 0 0 0 0 0 0\n"
					   "cpu0 105 0 5 1090 0 0 0 0\n"
					   "cpu1 150 10 20 1010 0 5 5 0\n"
					   "cpu2 120 0 10 1030 30 0 10 0\n",
					   &b),
			 0);
	ck_assert_int_eq(procfs_parse_stat("cpu  0 0 0 0 0 0 0 0\n"
					   "cpu0 105 0 5 1190 0 0 0 0\n"
					   "cpu1 250 10 20 1010 0 5 5 0\n"
					   "cpu2 130 0 10 5 0 0 10 0\n",
					   &c),
			 0);
	uint64_t busy[4] = { 0 }, total[4] = { 0 };
	ck_assert_int_eq(procfs_busy_add(&a, &b, busy, total, 4), 0);
	ck_assert_uint_eq(busy[1], 90);
	ck_assert_uint_eq(total[1], 100);
	ck_assert_uint_eq(busy[2], 40);
	ck_assert_uint_eq(total[2], 100);
	ck_assert_uint_eq(total[3], 0);
	double share;
	int skip0[] = { 0 };
	ck_assert_int_eq(procfs_least_busy(busy, total, 4, skip0, 1, 0, &share), 2);
	ck_assert_double_eq_tol(share, 0.4, 1e-12);
	/* with no CPU skipped, cpu0 (10 of 100) is the least busy */
	ck_assert_int_eq(procfs_least_busy(busy, total, 4, NULL, 0, 0, &share), 0);
	ck_assert_double_eq_tol(share, 0.1, 1e-12);
	/* too few ticks to judge: none */
	ck_assert_int_eq(procfs_least_busy(busy, total, 4, skip0, 1, 101, &share), -1);
	ck_assert(isnan(share));

	ck_assert_int_eq(procfs_busy_add(&b, &c, busy, total, 4), 0);
	ck_assert_uint_eq(busy[1], 190);
	ck_assert_uint_eq(total[1], 200);
	ck_assert_uint_eq(total[2], 100); /* the interval whose idle count went down is left out */
	/* CPUs at n or beyond are not counted, but told: n = 2 counts cpu0 and cpu1 and tells of cpu2 */
	uint64_t b2[4] = { 0 }, t2[4] = { 0 };
	ck_assert_int_eq(procfs_busy_add(&a, &b, b2, t2, 2), 1);
	ck_assert_uint_eq(t2[1], 100);
	ck_assert_uint_eq(b2[2], 0);
	ck_assert_uint_eq(t2[2], 0);
	int skip01[] = { 0, 1 };
	ck_assert_int_eq(procfs_least_busy(b2, t2, 2, skip01, 2, 0, &share), -1);
	ck_assert(isnan(share));
}
END_TEST

START_TEST(test_stat_parses_total_line_and_counters)
{
	static struct procfs_stat s;
	ck_assert_int_eq(procfs_parse_stat(stat_text, &s), 0);
	ck_assert_int_eq(s.all.cpu, -1);
	ck_assert_uint_eq(s.all.user, 6814);
	ck_assert_uint_eq(s.all.system, 2842);
	ck_assert_uint_eq(s.all.idle, 196281);
	ck_assert_uint_eq(s.all.iowait, 399);
	ck_assert_uint_eq(s.all.softirq, 89);
	ck_assert_uint_eq(s.all.steal, 661);
	ck_assert_uint_eq(s.procs_running, 4);
	ck_assert_uint_eq(s.ctxt, 277014);
	/* kernels before 2.6.11 have no steal column: it reads as 0 */
	ck_assert_int_eq(procfs_parse_stat("cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", &s), 0);
	ck_assert_uint_eq(s.all.softirq, 7);
	ck_assert_uint_eq(s.all.steal, 0);
	ck_assert_uint_eq(s.cpu[0].steal, 0);
}
END_TEST

START_TEST(test_stat_rejects_malformed_text)
{
	static struct procfs_stat s;
	ck_assert_int_eq(procfs_parse_stat("", &s), -EBADMSG);
	/* per-CPU lines but no total */
	ck_assert_int_eq(procfs_parse_stat("cpu0 1 2 3 4 5 6 7 8\nctxt 5\n", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_stat("cpu  1 2 x 4 5 6 7 8\n", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_stat("cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3\n", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_stat("cpu  1 2 3 4 5 6 7 8\ncpuX 1 2 3 4 5 6 7 8\n", &s), -EBADMSG);
}
END_TEST

START_TEST(test_softirqs_net_rows_per_cpu)
{
	static struct procfs_softirqs s;
	ck_assert_int_eq(procfs_parse_softirqs(softirqs_text, &s), 0);
	ck_assert_int_eq(s.ncpu, 2);
	ck_assert_uint_eq(s.net_rx[0], 204);
	ck_assert_uint_eq(s.net_rx[1], 307);
	ck_assert_uint_eq(s.net_tx[0], 2);
	ck_assert_uint_eq(s.net_tx[1], 1);
	ck_assert_uint_eq(s.timer[0], 10807);
	ck_assert_uint_eq(s.timer[1], 8475);
	ck_assert_uint_eq(s.sched[0], 25893);
	ck_assert_uint_eq(s.sched[1], 19487);
	/* BLOCK is not kept, and must not leak into a neighbour */
	ck_assert_uint_eq(s.net_rx[2], 0);
}
END_TEST

START_TEST(test_softirqs_rejects_malformed_text)
{
	static struct procfs_softirqs s;
	ck_assert_int_eq(procfs_parse_softirqs("", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_softirqs("   CPU0   CPU1", &s), -EBADMSG); /* no line end */
	ck_assert_int_eq(procfs_parse_softirqs("   nothing here\n  NET_RX: 1 2\n", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_softirqs("   CPU0   CPU1\n  NET_RX: 1 x\n", &s), -EBADMSG);
	/* a row with fewer counts than CPUs */
	ck_assert_int_eq(procfs_parse_softirqs("   CPU0   CPU1\n  NET_RX: 1\n", &s), -EBADMSG);
}
END_TEST

START_TEST(test_loadavg_parses_and_rejects)
{
	struct procfs_loadavg l;
	ck_assert_int_eq(procfs_parse_loadavg("0.15 0.07 0.03 1/83 6899\n", &l), 0);
	ck_assert_double_eq_tol(l.l1, 0.15, 1e-12);
	ck_assert_double_eq_tol(l.l5, 0.07, 1e-12);
	ck_assert_double_eq_tol(l.l15, 0.03, 1e-12);
	ck_assert_int_eq(l.running, 1);
	ck_assert_int_eq(l.total, 83);
	ck_assert_int_eq(procfs_parse_loadavg("0.15 0.07\n", &l), -EBADMSG);
	ck_assert_int_eq(procfs_parse_loadavg("", &l), -EBADMSG);
	ck_assert_int_eq(procfs_parse_loadavg("0.15 0.07 0.03 1 6899\n", &l), -EBADMSG);
}
END_TEST

START_TEST(test_pid_stat_comm_with_spaces_and_parens)
{
	struct procfs_task t;
	ck_assert_int_eq(procfs_parse_pid_stat("1234 (a) b) " PID_STAT_TAIL, &t), 0);
	ck_assert_int_eq(t.pid, 1234);
	ck_assert_str_eq(t.comm, "a) b");
	ck_assert_int_eq(t.ppid, 1);
	ck_assert_uint_eq(t.cpu_ticks, 57 + 396);
	ck_assert_uint_eq(t.start_ticks, 103681);
	ck_assert_int_eq(procfs_parse_pid_stat("7 ((sd-pam)) " PID_STAT_TAIL, &t), 0);
	ck_assert_str_eq(t.comm, "(sd-pam)");
	ck_assert_int_eq(procfs_parse_pid_stat("8 (kworker/0:1-events) " PID_STAT_TAIL, &t), 0);
	ck_assert_str_eq(t.comm, "kworker/0:1-events");
	ck_assert_uint_eq(t.start_ticks, 103681);
}
END_TEST

START_TEST(test_pid_stat_rejects_malformed_text)
{
	struct procfs_task t;
	ck_assert_int_eq(procfs_parse_pid_stat("", &t), -EBADMSG);
	ck_assert_int_eq(procfs_parse_pid_stat("1234 (cat S 1 2 3", &t), -EBADMSG);
	ck_assert_int_eq(procfs_parse_pid_stat("1234 cat) S 1 2 3", &t), -EBADMSG);
	/* cut off before starttime (field 22) */
	ck_assert_int_eq(procfs_parse_pid_stat("1234 (cat) S 1 1234 1234 0 -1 4194560 39423 368608 0 238 57 396 "
					       "1043 942 20 0 13 0\n",
					       &t),
			 -EBADMSG);
}
END_TEST

START_TEST(test_config_lookup_values_not_set_and_absent)
{
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_NO_HZ"), "y");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_PARAVIRT_TIME_ACCOUNTING"), "y");
	/* CONFIG_HZ_PERIODIC and CONFIG_HZ_100 come first and must not match CONFIG_HZ */
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_HZ"), "250");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_KVM"), "m");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_DEFAULT_HOSTNAME"), "\"(none)\"");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_LAST"), "last");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_IRQ_TIME_ACCOUNTING"), "n");
	ck_assert_str_eq(procfs_config_lookup(config_text, "CONFIG_NO_HZ_FULL"), "n");
	ck_assert_ptr_null(procfs_config_lookup(config_text, "CONFIG_PREEMPT_RT"));
	/* a prefix of a set option is not that option */
	ck_assert_ptr_null(procfs_config_lookup(config_text, "CONFIG_NO_H"));
	ck_assert_ptr_null(procfs_config_lookup(config_text, "CONFIG_HZ_10"));
	ck_assert_ptr_null(procfs_config_lookup("", "CONFIG_HZ"));
}
END_TEST

START_TEST(test_reads_the_real_proc_files)
{
	static struct procfs_stat s;
	ck_assert_int_eq(procfs_read_stat(&s), 0);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	ck_assert_int_eq(s.n, online);
	ck_assert_uint_gt(procfs_cpu_total(&s.all), 0);
	ck_assert_uint_ge(s.all.user, s.cpu[0].user);
	ck_assert_uint_ge(s.procs_running, 1); /* this test is running */
	ck_assert_uint_gt(s.ctxt, 0);

	static struct procfs_softirqs si;
	ck_assert_int_eq(procfs_read_softirqs(&si), 0);
	ck_assert_int_ge(si.ncpu, s.n); /* /proc/softirqs lists possible CPUs */

	struct procfs_loadavg l;
	ck_assert_int_eq(procfs_read_loadavg(&l), 0);
	ck_assert(l.l1 >= 0);
	ck_assert_int_ge(l.total, 1);

	/* this process is among the tasks, with its parent and a start time since boot */
	struct procfs_task *t;
	size_t n;
	ck_assert_int_eq(procfs_read_tasks(&t, &n), 0);
	ck_assert_uint_gt(n, 1);
	const struct procfs_task *self = NULL;
	for (size_t i = 0; i < n; i++)
		if (t[i].pid == getpid())
			self = &t[i];
	ck_assert_ptr_nonnull(self);
	ck_assert_int_eq(self->ppid, getppid());
	ck_assert_uint_gt(self->start_ticks, 0);
	free(t);

	char *text;
	ck_assert_int_eq(procfs_read_file("/proc/self/stat", &text), 0);
	struct procfs_task me;
	ck_assert_int_eq(procfs_parse_pid_stat(text, &me), 0);
	ck_assert_int_eq(me.pid, getpid());
	free(text);
	ck_assert_int_eq(procfs_read_file("/proc/no-such-file", &text), -ENOENT);
}
END_TEST

/* /proc/interrupts summed per CPU: devices (numbered lines), IPIs (RES, CAL, TLB), the local timer */
START_TEST(test_interrupts_sums_by_kind)
{
	const char *text = "           CPU0       CPU1       \n"
			   " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
			   " 41:       2967          4 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
			   "NMI:          0          0   Non-maskable interrupts\n"
			   "LOC:     931588     726528   Local timer interrupts\n"
			   "RES:    1736780     312161   Rescheduling interrupts\n"
			   "CAL:     214176    4316281   Function call interrupts\n"
			   "TLB:          3          0   TLB shootdowns\n"
			   "ERR:          0\n"
			   "MIS:          0\n";
	struct procfs_interrupts s;
	ck_assert_int_eq(procfs_parse_interrupts(text, &s), 0);
	ck_assert_int_eq(s.ncpu, 2);
	ck_assert_uint_eq(s.dev[0], 2968);
	ck_assert_uint_eq(s.dev[1], 4);
	ck_assert_uint_eq(s.ipi[0], 1736780 + 214176 + 3);
	ck_assert_uint_eq(s.ipi[1], 312161 + 4316281);
	ck_assert_uint_eq(s.timer[1], 726528);
	ck_assert_int_eq(procfs_parse_interrupts("no header", &s), -EBADMSG);
	ck_assert_int_eq(procfs_parse_interrupts("  CPU0 CPU1\nRES: 1\n", &s), -EBADMSG);
}
END_TEST

/* /proc/timer_list: exact idle time per CPU, with the open idle period of a CPU idle at the reading */
START_TEST(test_timer_list_idle_time)
{
	const char *text = "Timer List Version: v0.10\n"
			   "now at 5000 nsecs\n"
			   "\n"
			   "cpu: 0\n"
			   "  .idle_entrytime : 4000 nsecs\n"
			   "  .idle_exittime  : 3000 nsecs\n"
			   "  .idle_sleeptime : 1000 nsecs\n"
			   "  .iowait_sleeptime: 250 nsecs\n"
			   "cpu: 1\n"
			   "  .idle_entrytime : 2000 nsecs\n"
			   "  .idle_exittime  : 4500 nsecs\n"
			   "  .idle_sleeptime : 700 nsecs\n";
	struct procfs_idle s;
	ck_assert_int_eq(procfs_parse_timer_list(text, &s), 0);
	ck_assert_int_eq(s.ncpu, 2);
	ck_assert_uint_eq(s.now_ns, 5000);
	/*
	 * The open period comes from /proc/stat, here in ticks of 1 ns
	 * (user_hz 1e9). CPU 0's last entry (4000) is after its last exit
	 * (3000): idle since 4000, or busy since an idle period that ended at
	 * 4000 without stopping the tick; timer_list cannot say which.
	 */
	struct procfs_cpu st = { .cpu = 0, .idle = 1000, .iowait = 250 };
	/* stat shows the ended periods alone: busy then */
	ck_assert_int_eq(procfs_idle_ns(&s, 0, &st, 1000000000), 1250);
	/* stat shows 900 more: idle then, for 900 */
	st.idle = 1900;
	ck_assert_int_eq(procfs_idle_ns(&s, 0, &st, 1000000000), 2150);
	/* never more than since the last entry (1000) */
	st.idle = 3000;
	ck_assert_int_eq(procfs_idle_ns(&s, 0, &st, 1000000000), 2250);
	/* in ticks of 1 s (user_hz 1), 3 ticks: also at most 1000 */
	st.idle = 3;
	st.iowait = 0;
	ck_assert_int_eq(procfs_idle_ns(&s, 0, &st, 1), 2250);
	/* without /proc/stat, or with a bad user_hz: the ended periods */
	ck_assert_int_eq(procfs_idle_ns(&s, 0, NULL, 100), 1250);
	ck_assert_int_eq(procfs_idle_ns(&s, 0, &st, 0), 1250);
	/* CPU 1 busy since 4500 (its exit after its entry): no open period, whatever stat says */
	struct procfs_cpu st1 = { .cpu = 1, .idle = 900 };
	ck_assert_int_eq(procfs_idle_ns(&s, 1, &st1, 1000000000), 700);
	ck_assert_int_eq(procfs_idle_ns(&s, 2, NULL, 100), -1);
	/* the ended periods alone, idle and iowait: what a task running on the CPU reads */
	ck_assert_int_eq(procfs_idle_ended_ns(&s, 0), 1250);
	ck_assert_int_eq(procfs_idle_ended_ns(&s, 1), 700);
	ck_assert_int_eq(procfs_idle_ended_ns(&s, 2), -1);
	ck_assert_int_eq(procfs_parse_timer_list("cpu: 0\n", &s), -EBADMSG);
}
END_TEST

/* reading /proc/timer_list stops once the CPU's idle fields are in: its iowait line, or the next section */
START_TEST(test_timer_list_read_stops_after_the_cpu)
{
	const char *two = "now at 5000 nsecs\n"
			  "\n"
			  "cpu: 0\n"
			  "  .idle_sleeptime : 1000 nsecs\n"
			  "  .iowait_sleeptime: 250 nsecs\n"
			  "cpu: 1\n"
			  "  .idle_sleeptime : 700 nsecs\n";
	/* CPU 0's fields end with its iowait line: 18 + 1 + 7 + 31 + 31 = 88 characters in */
	ck_assert_uint_eq(procfs_timer_list_cpu_end(two, 0), strstr(two, "cpu: 1") - two);
	ck_assert_uint_eq(procfs_timer_list_cpu_end(two, 0), 88);
	ck_assert_uint_eq(procfs_timer_list_cpu_end(two, 1), 0); /* no iowait line, no next section yet */
	ck_assert_uint_eq(procfs_timer_list_cpu_end(two, 2), 0);
	ck_assert_uint_eq(procfs_timer_list_cpu_end(two, 10), 0); /* "cpu: 1" is not "cpu: 10" */
	/* CPU 0's iowait line not read to its end */
	ck_assert_uint_eq(
		procfs_timer_list_cpu_end("now\n\ncpu: 0\n  .idle_sleeptime : 1000 nsecs\n  .iowait_sle", 0), 0);
	/* a kernel without the iowait field: the tick devices' section ends it, and is not part of it */
	const char *noio = "x\ncpu: 1\n  .idle_sleeptime : 7 nsecs\nTick Device: mode: 1\n";
	ck_assert_uint_eq(procfs_timer_list_cpu_end(noio, 1), strstr(noio, "Tick") - noio);
	/* the CPUs before it are parsed, the later ones are absent */
	struct procfs_idle s;
	ck_assert_int_eq(procfs_parse_timer_list("now at 9 nsecs\n\ncpu: 0\n  .idle_sleeptime : 1000 nsecs\n"
						 "  .iowait_sleeptime: 250 nsecs\n",
						 &s),
			 0);
	ck_assert_int_eq(procfs_idle_ended_ns(&s, 0), 1250);
	ck_assert_int_eq(procfs_idle_ended_ns(&s, 1), -1);
	/* this host's own file: the fields of the CPU this test runs on, online, are found (root only) */
	int cpu = sched_getcpu();
	if (geteuid() == 0 && cpu >= 0 && cpu < PROCFS_MAX_CPUS) {
		ck_assert_int_eq(procfs_read_timer_list_cpu(cpu, &s), 0);
		ck_assert_int_ge(procfs_idle_ended_ns(&s, cpu), 0);
	}
}
END_TEST

Suite *procfs_suite(void)
{
	Suite *s = suite_create("procfs");
	TCase *tc = tcase_create("parsers");
	tcase_add_test(tc, test_stat_parses_per_cpu_fields_including_steal);
	tcase_add_test(tc, test_interrupts_sums_by_kind);
	tcase_add_test(tc, test_timer_list_idle_time);
	tcase_add_test(tc, test_timer_list_read_stops_after_the_cpu);
	tcase_add_test(tc, test_stat_parses_total_line_and_counters);
	tcase_add_test(tc, test_least_busy_cpu_over_readings);
	tcase_add_test(tc, test_stat_rejects_malformed_text);
	tcase_add_test(tc, test_softirqs_net_rows_per_cpu);
	tcase_add_test(tc, test_softirqs_rejects_malformed_text);
	tcase_add_test(tc, test_loadavg_parses_and_rejects);
	tcase_add_test(tc, test_pid_stat_comm_with_spaces_and_parens);
	tcase_add_test(tc, test_pid_stat_rejects_malformed_text);
	tcase_add_test(tc, test_config_lookup_values_not_set_and_absent);
	suite_add_tcase(s, tc);
	TCase *tr = tcase_create("real");
	tcase_add_test(tr, test_reads_the_real_proc_files);
	suite_add_tcase(s, tr);
	return s;
}
