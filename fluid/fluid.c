/*
 * fluid.c - the fluid process: pin, set the scheduling class, spin in
 * chunks, and report one line when told to stop.
 *
 * The fluid's whole job is to take every cycle nobody else wants, at a
 * known speed. It times each chunk of about 1 us with CLOCK_MONOTONIC_RAW
 * and keeps cheap statistics (fluid/chunkstat.h), from which the
 * coordinator estimates the fluid's undisturbed speed and the time other
 * work took from it.
 */
#include "common/chunkstat.h"
#include "common/pin.h"
#include "common/dclock.h"
#include "fluid/fluid_args.h"
#include "fluid/spin.h"
#include "common/taskclock.h"
#include "calib/procfs.h"
#include "calib/reportline.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stdin_ready;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_io(int sig)
{
	(void)sig;
	stdin_ready = 1;
}

static void usage(FILE *f)
{
	fputs("usage: fluid [--cpu N] [--sched idle|nice|normal] [--seconds DUR]\n"
	      "             [--chunk-loops N] [--clock-resolution DUR [--clock-phase DUR]]\n"
	      "             [--yield-every N] [--gap-log FILE] [--ready] [--no-task-clock]\n"
	      "\n"
	      "The displacement fluid: pins itself to CPU N, takes the scheduling class\n"
	      "(default idle, i.e. SCHED_IDLE), and spins in chunks of N loops (default\n"
	      "1000) until SIGINT, SIGTERM or SIGUSR1, EOF on a piped stdin, or DUR has\n"
	      "passed. It then prints one report line of key=value fields on stdout.\n"
	      "--yield-every N calls sched_yield after every N chunks (default 0: never).\n"
	      "--gap-log FILE writes the start and end (CLOCK_MONOTONIC_RAW ns) of each\n"
	      "gap, a chunk something else ran in, one per line, at most the first 4M:\n"
	      "for benches that line the fluid's stalls up with a scheduler trace.\n"
	      "--ready prints a line 'fluid ready' on stdout as the measured window starts:\n"
	      "a co-run starts the process under test only after it.\n"
	      "--no-task-clock leaves out the perf task-clock that the off-CPU estimator\n"
	      "reads (task_clock_ns=n/a:ECANCELED): its hooks cost each of the fluid's\n"
	      "context switches, and benches compare the classic estimate without them.\n"
	      "It dies with its parent. It is started by 'displace'; run it by hand only\n"
	      "to inspect the loop.\n",
	      f);
}

/* Stop when the pipe on stdin reaches EOF: SIGIO tells us to look. */
static int watch_stdin(int *flags_saved)
{
	struct stat st;
	*flags_saved = -1;
	if (fstat(STDIN_FILENO, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	int fl = fcntl(STDIN_FILENO, F_GETFL);
	if (fl < 0)
		return 0;
	if (fcntl(STDIN_FILENO, F_SETOWN, getpid()) || fcntl(STDIN_FILENO, F_SETFL, fl | O_ASYNC | O_NONBLOCK))
		return 0;
	*flags_saved = fl;
	stdin_ready = 1; /* EOF may have come before O_ASYNC was set */
	return 1;
}

/* true once stdin is at EOF (or broken); drains anything written to it */
static int stdin_closed(void)
{
	char buf[256];
	stdin_ready = 0;
	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
		if (r == 0)
			return 1;
		if (r < 0)
			return errno != EAGAIN && errno != EINTR;
	}
}

static int set_sched(enum fluid_sched s)
{
	struct sched_param sp = { 0 };
	switch (s) {
	case FLUID_SCHED_IDLE:
		return sched_setscheduler(0, SCHED_IDLE, &sp) ? -errno : 0;
	case FLUID_SCHED_NICE:
		return setpriority(PRIO_PROCESS, 0, 19) ? -errno : 0;
	case FLUID_SCHED_NORMAL:
		return 0;
	}
	return -EINVAL;
}

static uint64_t cpu_time_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The idle time of a CPU so far, exact, from /proc/timer_list (root only),
 * or -1. Read by the fluid at its start and end, running on that CPU.
 */
static int64_t cpu_idle_ns(int cpu)
{
	static struct procfs_idle id;
	if (cpu < 0 || procfs_read_timer_list_cpu(cpu, &id))
		return -1;
	return procfs_idle_ended_ns(&id, cpu);
}

static struct chunkstat cs;

/* --gap-log: the first GAP_LOG_MAX gaps, kept in memory during the run and written at the end */
#define GAP_LOG_MAX (4u << 20)
static uint64_t *gap_log;
static size_t gap_logged;

static void write_gap_log(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "fluid: cannot write --gap-log '%s': %s\n", path, strerror(errno));
		return;
	}
	for (size_t i = 0; i < gap_logged; i++)
		fprintf(f, "%" PRIu64 " %" PRIu64 "\n", gap_log[2 * i], gap_log[2 * i + 1]);
	if (fclose(f))
		fprintf(stderr, "fluid: cannot write --gap-log '%s': %s\n", path, strerror(errno));
}
static char hist_buf[CHUNKSTAT_BUCKETS * 28];

int main(int argc, char **argv)
{
	struct fluid_args a;
	char err[256];

	if (fluid_parse_args(argc, argv, &a, err, sizeof err)) {
		fprintf(stderr, "fluid: %s; try 'fluid --help'\n", err);
		return 2;
	}
	if (a.help) {
		usage(stdout);
		return 0;
	}
	/* no orphaned fluid ever keeps a CPU busy */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() == 1) {
		fprintf(stderr, "fluid: parent already gone\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct sigaction si = { .sa_handler = on_io };
	sigemptyset(&si.sa_mask);
	sigaction(SIGIO, &si, NULL);

	int prc = a.cpu >= 0 ? pin_to_cpu(a.cpu) : 0;
	if (prc) {
		fprintf(stderr, "fluid: cannot pin to cpu %d: %s\n", a.cpu, strerror(-prc));
		return 2;
	}
	int rc = set_sched(a.sched);
	if (rc) {
		fprintf(stderr, "fluid: cannot set scheduling class '%s': %s\n", fluid_sched_name(a.sched),
			strerror(-rc));
		return 3;
	}
	if (dclock_set_resolution(a.clock_res_ns, a.clock_phase_ns)) {
		fprintf(stderr, "fluid: bad clock resolution\n");
		return 2;
	}
	int saved_fl;
	int watching = watch_stdin(&saved_fl);
	if (a.gap_log && !(gap_log = calloc(2 * GAP_LOG_MAX, sizeof *gap_log))) {
		fprintf(stderr, "fluid: no memory for --gap-log\n");
		return 1;
	}

	chunkstat_init(&cs);
	uint64_t x = (uint64_t)getpid();
	/*
	 * perf task-clock runs on local_clock, so unlike the scheduler's CPU
	 * time it includes time the hypervisor stole while the fluid was
	 * current: the coordinator uses the difference (see calib/estimate.h).
	 * It is opened before the idle time is read: the first perf event
	 * after a second with none waits in synchronize_rcu (the kernel turns
	 * its scheduler hooks on), and the CPU idles meanwhile, 5 to 22 ms on
	 * this VM; read across it, that idle time was billed to the window.
	 */
	int tc_fd = a.no_task_clock ? -ECANCELED : taskclock_open(0);
	/*
	 * The CPU's idle time, read while the fluid runs on it (so no idle
	 * period is open), before the task-clock starts and after it stops:
	 * the reading's own time is in neither the task-clock nor the wall time
	 */
	int my_cpu = sched_getcpu();
	int64_t idle0 = cpu_idle_ns(my_cpu);
	if (tc_fd >= 0)
		ioctl(tc_fd, PERF_EVENT_IOC_ENABLE, 0);
	uint64_t cpu0 = cpu_time_ns();
	const char *why = "signal";
	/*
	 * With a simulated slow clock, the deadline of --seconds is kept on the
	 * real clock: stopping on the slow clock would end every timed run just
	 * after a tick, so its measured length would always be a whole number of
	 * ticks while the true length falls short by up to one tick (the start
	 * is anywhere in its tick). That is a bias, not the asynchronous reading
	 * error that Woodside's e_res and Beilner's (4a, 4b) assume. The raw
	 * start and end are reported too, so that the same runs can be estimated
	 * by the real clock.
	 */
	uint64_t raw_start = dclock_raw_ns(), raw_prev = raw_start;
	uint64_t start = dclock_quantise_ns(raw_start), prev = start;
	uint64_t deadline = a.run_ns ? raw_start + a.run_ns : UINT64_MAX;
	uint64_t until_yield = a.yield_every;
	/*
	 * A SCHED_IDLE fluid still setting up when the process under test
	 * starts spinning beside it gets no CPU until that ends, and its window
	 * would miss the whole run: a co-run waits for this line. It is written
	 * inside the window, as the fluid's own time on both clocks: said
	 * before it, a fluid held off the CPU there could start its window
	 * after the process under test.
	 */
	if (a.ready && (fputs(FLUID_READY_LINE, stdout) == EOF || fflush(stdout))) {
		fprintf(stderr, "fluid: cannot write to stdout: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		x = spin_loops(a.chunk_loops, x);
		raw_prev = dclock_raw_ns();
		uint64_t t = dclock_quantise_ns(raw_prev);
		if (gap_log && (t - prev) * CHUNKSTAT_GAP_DEN > cs.min_ns * CHUNKSTAT_GAP_NUM && gap_logged < GAP_LOG_MAX) {
			gap_log[2 * gap_logged] = prev;
			gap_log[2 * gap_logged++ + 1] = t;
		}
		chunkstat_add(&cs, t - prev);
		prev = t;
		if (until_yield && !--until_yield) {
			/* the yield's time falls in the next chunk, with whatever ran in it */
			sched_yield();
			until_yield = a.yield_every;
		}
		if (stop_signal)
			break;
		if (raw_prev >= deadline) {
			why = "time";
			break;
		}
		if (stdin_ready && watching && stdin_closed()) {
			why = "stdin";
			break;
		}
	}
	uint64_t cpu_ns = cpu_time_ns() - cpu0;
	char tc[48];
	uint64_t tc_ns;
	int tc_err = tc_fd;
	if (tc_fd >= 0) {
		if (ioctl(tc_fd, PERF_EVENT_IOC_DISABLE, 0) == 0) {
			ssize_t got = read(tc_fd, &tc_ns, sizeof tc_ns);
			tc_err = got == sizeof tc_ns ? 0 : got < 0 ? -errno : -EIO;
		} else {
			tc_err = -errno;
		}
	}
	if (!tc_err)
		snprintf(tc, sizeof tc, "%" PRIu64, tc_ns);
	else
		snprintf(tc, sizeof tc, "n/a:%s", strerrorname_np(-tc_err) ? strerrorname_np(-tc_err) : "EIO");
	int64_t idle1 = sched_getcpu() == my_cpu ? cpu_idle_ns(my_cpu) : -1;
	char idle[48] = "n/a";
	if (idle0 >= 0 && idle1 >= idle0)
		snprintf(idle, sizeof idle, "%" PRId64, idle1 - idle0);
	if (watching)
		fcntl(STDIN_FILENO, F_SETFL, saved_fl);
	if (gap_log)
		write_gap_log(a.gap_log);

	if (chunkstat_format_hist(&cs, hist_buf, sizeof hist_buf))
		strcpy(hist_buf, "");
	int cpu_now = sched_getcpu();
	char raw[64] = "";
	if (a.clock_res_ns > 1)
		snprintf(raw, sizeof raw, " raw_start_ns=%" PRIu64 " raw_end_ns=%" PRIu64, raw_start, raw_prev);
	printf("fluid cpu=%d ran_on=%d sched=%s variant=%s chunk_loops=%" PRIu64 " loops=%" PRIu64
	       " start_ns=%" PRIu64 " end_ns=%" PRIu64 " cpu_ns=%" PRIu64 " task_clock_ns=%s idle_ns=%s chunks=%" PRIu64
	       " min_chunk_ns=%" PRIu64 " max_chunk_ns=%" PRIu64 " ok_n=%" PRIu64 " ok_ns=%" PRIu64
	       " gap_n=%" PRIu64 " gap_ns=%" PRIu64 " post_n=%" PRIu64 " post_ns=%" PRIu64
	       " clock_res_ns=%" PRIu64 "%s stop=%s sink=%" PRIu64 " hist=%s\n",
	       a.cpu, cpu_now, fluid_sched_name(a.sched), SPIN_VARIANT, a.chunk_loops,
	       cs.chunks * a.chunk_loops, start, prev, cpu_ns, tc, idle, cs.chunks, cs.min_ns, cs.max_ns, cs.ok_n,
	       cs.ok_ns, cs.gap_n, cs.gap_ns, cs.post_n, cs.post_ns, a.clock_res_ns, raw, why, x & 0xff,
	       hist_buf);
	return fflush(stdout) ? 1 : 0;
}
