/*
 * put_main.c - the put process: pin, set up one workload, time exactly
 * `ops` operations, and report one line.
 *
 *   put [--cpu N] [--ops L] [--clock-resolution D [--clock-phase P]] WORKLOAD [options]
 *
 * The report line holds ops, the loop's start and end (CLOCK_MONOTONIC_RAW
 * ns, quantised if asked), and the OS's own accounting of the loop.
 */
#include "common/cli.h"
#include "common/outfile.h"
#include "common/pin.h"
#include "common/dclock.h"
#include "fluid/spin.h"
#include "put/acct.h"
#include "put/put.h"
#include "put/serve_main.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum { PUT_OK = 0, PUT_FAILED = 1, PUT_USAGE = 2, PUT_RESOURCE = 3, PUT_UNAVAILABLE = 4 };

static void usage(FILE *f)
{
	fputs("usage: put [--cpu N] [--ops L] [--clock-resolution D [--clock-phase P]] [--op-times FILE]\n"
	      "           [--think-us C | --think-loops N] [--start-at NS] [--no-task-clock]\n"
	      "           WORKLOAD [options]\n"
	      "       put --list\n"
	      "       put serve [--listen ADDR[:PORT]] [--cpu N] ...   the peer; see 'put serve --help'\n"
	      "\n"
	      "The process under test: pins itself to CPU N (default: not pinned), sets up\n"
	      "WORKLOAD, runs exactly L operations (default 1; 0 = set-up and tear-down\n"
	      "only, to measure the start-up cost), and prints one report line. It is\n"
	      "started by 'displace measure'; run it by hand to try a workload.\n"
	      "\n"
	      "  --op-times FILE  run the operations one at a time and write each one's\n"
	      "                   start and end (ns, CLOCK_MONOTONIC_RAW, quantised under\n"
	      "                   --clock-resolution) to FILE, one per line (FILE is\n"
	      "                   replaced whole at the end, never through a symbolic\n"
	      "                   link); at most 1e8 operations; for benches\n"
	      "                   (bench/fluid-perturbation). A\n"
	      "                   pipelined loop (--window) is not pipelined across\n"
	      "                   operations then\n"
	      "  --think-us C     after each operation, spin C us of CPU in the fluid's loop\n"
	      "                   (calibrated at set-up): the blocking clients of 'displace\n"
	      "                   predict --clients'. The report gives think_loops, and\n"
	      "  --think-loops N  spins exactly N loops instead (no calibration)\n"
	      "  --start-at NS    after set-up, wait until CLOCK_MONOTONIC reaches NS\n"
	      "                   before the first operation: clients start together\n"
	      "  --no-task-clock  no perf task-clock counter on put: its context switches\n"
	      "                   then pay no perf hooks (they cost about 0.5 us a switch\n"
	      "                   on a VM, bench/counter-cost), and the report gives\n"
	      "                   task_clock_ns=n/a:ECANCELED\n"
	      "\n"
	      "Workloads:\n",
	      f);
	for (size_t i = 0; put_workloads[i]; i++)
		fprintf(f, "  %-11s %s\n", put_workloads[i]->name, put_workloads[i]->summary);
}

/* Map a setup/run errno to an exit status: a missing peer or file is a resource. */
static int exit_for(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ENOENT:
	case EACCES:
	case EPERM:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ETIMEDOUT:
	case EADDRNOTAVAIL:
	case ELOOP:  /* outfile: a symbolic link, refused */
	case EMLINK: /* outfile: a second hard link, refused */
		return PUT_RESOURCE;
	case EINVAL:
		return PUT_USAGE;
	default:
		return PUT_FAILED;
	}
}

static void serve_error(const char *msg)
{
	fprintf(stderr, "put serve: %s\n", msg);
}

static void serve_warn(const char *msg)
{
	fprintf(stderr, "put serve: warning: %s\n", msg);
}

static void serve_log(void *ctx, const char *line)
{
	(void)ctx;
	serve_error(line);
}

static void serve_usage_error(const char *msg, bool unknown_option)
{
	/* put points to the help on the same line, and only for an unknown option */
	fprintf(stderr, "put serve: %s%s\n", msg, unknown_option ? "; try 'put serve --help'" : "");
}

/* put serve: the peer, as the coordinator's child (serve_main, with put's own option style) */
static const struct serve_main_front serve_front = {
	.prog = "put serve",
	.help_tail = "\n"
		     "'displace measure' starts it as the local peer, pinned to the peer CPU; it\n"
		     "stops when its parent dies. Exit status: 0 stopped, 2 usage error, 3 cannot\n"
		     "bind (address in use, not local, no permission).\n",
	.argv_style = SERVE_MAIN_EXACT,
	.die_with_parent = true,
	.log = serve_log,
	.error = serve_error,
	.warn = serve_warn,
	.usage_error = serve_usage_error,
};

/* --op-times: at most this many operations (8 bytes each in memory until the end) */
#define OP_TIMES_MAX 100000000ull

/*
 * --op-times: "start_ns end_ns" of each operation, one per line, into the
 * temporary file o, which then takes the file's place (outfile)
 */
static int write_op_times(struct outfile *o, uint64_t t0, const uint64_t *ends, uint64_t ops)
{
	int fd = dup(o->fd);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0)
			close(fd);
		outfile_abort(o);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < ops; k++)
		fprintf(f, "%" PRIu64 " %" PRIu64 "\n", k ? ends[k - 1] : t0, ends[k]);
	int rc = ferror(f) ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	if (rc)
		outfile_abort(o);
	else
		rc = outfile_commit(o);
	return rc;
}

int main(int argc, char **argv)
{
	int cpu = -1;
	uint64_t ops = 1, res_ns = 0, phase_ns = 0;
	const char *op_times = NULL;
	double think_us = 0;
	uint64_t think_loops = 0, sink = 0, start_at = 0;
	int i, task_clock = 1;
	char err[512] = "";

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *v;
		int missing = 0, rc = 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return PUT_OK;
		}
		if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; put_workloads[k]; k++) {
				const char *why = put_workloads[k]->unavailable ? put_workloads[k]->unavailable() : NULL;
				printf("%s%s%s\n", put_workloads[k]->name, why ? " unavailable: " : "", why ? why : "");
			}
			return PUT_OK;
		}
		if (!strcmp(argv[i], "--no-task-clock")) {
			task_clock = 0;
			continue;
		}
		if ((v = cli_opt_value(argc, argv, &i, "--cpu", &missing)))
			rc = cli_parse_int(v, 0, CLI_MAX_CPUS - 1, &cpu);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--ops", &missing)))
			rc = cli_parse_u64(v, 0, UINT64_MAX / 2, &ops);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--clock-resolution", &missing)))
			rc = cli_parse_duration_ns(v, &res_ns);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--clock-phase", &missing)))
			rc = cli_parse_duration_ns(v, &phase_ns);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--op-times", &missing)))
			op_times = v;
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--think-us", &missing)))
			rc = cli_parse_double(v, 0, 1e7, &think_us);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--think-loops", &missing)))
			rc = cli_parse_u64(v, 1, UINT64_MAX / 2, &think_loops);
		else if (!missing && (v = cli_opt_value(argc, argv, &i, "--start-at", &missing)))
			rc = cli_parse_u64(v, 1, UINT64_MAX / 2, &start_at);
		else if (!missing) {
			fprintf(stderr, "put: unknown option '%s'; try 'put --help'\n", argv[i]);
			return PUT_USAGE;
		}
		if (missing) {
			fprintf(stderr, "put: option '%s' needs a value\n", argv[i]);
			return PUT_USAGE;
		}
		if (rc) {
			fprintf(stderr, "put: invalid value '%s' for %s\n", v, argv[i - 1]);
			return PUT_USAGE;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "put: no workload given; try 'put --help'\n");
		return PUT_USAGE;
	}
	if (think_us > 0 && think_loops) {
		fprintf(stderr, "put: give --think-us or --think-loops, not both\n");
		return PUT_USAGE;
	}
	if (op_times && ops > OP_TIMES_MAX) {
		fprintf(stderr, "put: --op-times keeps at most %llu operations\n", OP_TIMES_MAX);
		return PUT_USAGE;
	}
	if (!strcmp(argv[i], "serve"))
		return serve_main(argc - i, argv + i, cpu, &serve_front); /* cpu: put's own --cpu, if given */
	if (dclock_set_resolution(res_ns, phase_ns)) {
		fprintf(stderr, "put: --clock-phase must be below --clock-resolution\n");
		return PUT_USAGE;
	}
	const struct put_workload *w = put_find(argv[i]);
	if (!w) {
		fprintf(stderr, "put: unknown workload '%s'; try 'put --list'\n", argv[i]);
		return PUT_USAGE;
	}
	const char *why = w->unavailable ? w->unavailable() : NULL;
	if (why) {
		fprintf(stderr, "put: workload '%s' is not available: %s\n", w->name, why);
		return PUT_UNAVAILABLE;
	}
	/* the PUT must not outlive the coordinator either */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == 1)
		return PUT_FAILED;
	signal(SIGPIPE, SIG_IGN);

	void *state = NULL;
	if (w->parse(argc - i, argv + i, &state, err, sizeof err)) {
		fprintf(stderr, "put: %s: %s\n", w->name, err);
		return PUT_USAGE;
	}
	int prc = cpu >= 0 ? pin_to_cpu(cpu) : 0;
	if (prc) {
		fprintf(stderr, "put: cannot pin to cpu %d: %s\n", cpu, strerror(-prc));
		return PUT_USAGE;
	}
	uint64_t t_setup = dclock_now_ns();
	int rc = w->setup(state, err, sizeof err);
	if (rc) {
		fprintf(stderr, "put: %s: %s\n", w->name, err);
		if (w->teardown)
			w->teardown(state);
		return exit_for(-rc);
	}
	/* --think-us: the spin calibrated once, at set-up, on the CPU the loop runs on */
	double think_ns_per_loop = 0;
	if (think_us > 0) {
		think_ns_per_loop = spin_calibrate_ns_per_loop();
		think_loops = (uint64_t)(think_us * 1000 / think_ns_per_loop + 0.5);
		if (!think_loops)
			think_loops = 1;
	}
	/* --op-times: the file opened and the memory taken before the run, so neither fails after it */
	uint64_t *ends = NULL;
	struct outfile times = { .fd = -1 };
	if (op_times) {
		int e = -outfile_create(&times, op_times);
		if (e) {
			snprintf(err, sizeof err, "cannot write --op-times '%s': %s", op_times, outfile_strerror(-e));
		} else if (ops && !(ends = calloc(ops, sizeof *ends))) {
			e = ENOMEM;
			snprintf(err, sizeof err, "no memory for --op-times of %" PRIu64 " operations", ops);
		}
		if (e) {
			fprintf(stderr, "put: %s\n", err);
			outfile_abort(&times);
			if (w->teardown)
				w->teardown(state);
			return exit_for(e);
		}
	}
	struct acct a;
	acct_open(&a, w->counts_children, task_clock);
	if (start_at) {
		struct timespec ts = { .tv_sec = (time_t)(start_at / 1000000000u), .tv_nsec = (long)(start_at % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}

	acct_start(&a);
	uint64_t t0 = dclock_now_ns();
	if (ends || think_loops) {
		/*
		 * One at a time: each end time kept, for benches that compare parts
		 * of a run; or each operation followed by its think time
		 */
		for (uint64_t k = 0; k < ops && !rc; k++) {
			rc = w->run(state, 1, err, sizeof err);
			if (think_loops)
				sink = spin_loops(think_loops, sink);
			if (ends)
				ends[k] = dclock_now_ns();
		}
	} else {
		rc = ops ? w->run(state, ops, err, sizeof err) : 0;
	}
	uint64_t t1 = dclock_now_ns();
	acct_stop(&a);
	if (op_times) {
		int wrc = write_op_times(&times, t0, ends, rc ? 0 : ops);
		if (!rc && (rc = wrc))
			snprintf(err, sizeof err, "cannot write --op-times '%s': %s", op_times, outfile_strerror(rc));
	}
	free(ends);

	if (rc) {
		int status = w->exit_status ? w->exit_status(state) : 0;
		fprintf(stderr, "put: %s: %s\n", w->name, err);
		acct_close(&a);
		if (w->teardown)
			w->teardown(state);
		return status ? status : exit_for(-rc);
	}
	uint64_t scale = w->ops_scale ? w->ops_scale(state) : 1;
	printf("put workload=%s cpu=%d ran_on=%d ops=%" PRIu64 " runs=%" PRIu64 " setup_ns=%" PRIu64
	       " start_ns=%" PRIu64 " end_ns=%" PRIu64,
	       w->name, cpu, sched_getcpu(), ops * scale, ops, t0 - t_setup, t0, t1);
	acct_print(&a, stdout);
	if (think_loops)
		printf(" think_loops=%" PRIu64 " think_ns_per_loop=%.5f think_sink=%" PRIu64, think_loops,
		       think_ns_per_loop, sink & 0xff);
	if (w->report)
		w->report(state, stdout);
	fputc('\n', stdout);
	acct_close(&a);
	if (w->teardown)
		w->teardown(state);
	return fflush(stdout) ? PUT_FAILED : PUT_OK;
}
