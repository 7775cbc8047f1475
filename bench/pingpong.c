/*
 * pingpong.c - what a perf task-clock counter costs a context switch
 * (bench/counter-cost builds and runs it).
 *
 * Two processes on one CPU pass a byte back and forth through two pipes,
 * so every round trip is two context switches, each of them switching out
 * one process and in the other. With a task-clock counter on one of them
 * (or both), perf's hooks run at every switch. Prints the wall time per
 * round trip in microseconds.
 *
 * usage: pingpong ROUND_TRIPS WATCHED CPU   (WATCHED 0, 1 or 2 processes)
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* a task-clock counter on pid (0: the caller), counting from now, as displace's are while they count */
static int task_clock(pid_t pid)
{
	struct perf_event_attr pe;
	memset(&pe, 0, sizeof pe);
	pe.size = sizeof pe;
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &pe, pid, -1, -1, 0);
	if (fd < 0) {
		pe.exclude_kernel = 1; /* perf_event_paranoid 2 without privilege */
		fd = (int)syscall(SYS_perf_event_open, &pe, pid, -1, -1, 0);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pingpong ROUND_TRIPS WATCHED CPU\n");
		return 2;
	}
	long n = atol(argv[1]);
	int watched = atoi(argv[2]), cpu = atoi(argv[3]);
	if (n < 1 || n > 10000000 || watched < 0 || watched > 2 || cpu < 0 || cpu >= CPU_SETSIZE) {
		fprintf(stderr, "pingpong: ROUND_TRIPS 1 to 1e7, WATCHED 0 to 2, CPU 0 to %d\n", CPU_SETSIZE - 1);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN); /* a partner gone: write fails, and the loop says so */
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set)) {
		perror("pingpong: sched_setaffinity");
		return 1;
	}
	int to[2], from[2];
	if (pipe(to) || pipe(from)) {
		perror("pingpong: pipe");
		return 1;
	}
	char c = 0;
	pid_t pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		alarm(300); /* bounded, whatever the parent does (1e7 trips take about 60 s) */
		while (read(to[0], &c, 1) == 1 && write(from[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	if ((watched >= 1 && task_clock(pid) < 0) || (watched == 2 && task_clock(0) < 0)) {
		perror("pingpong: perf_event_open");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	int ok = 1;
	for (long i = 0; ok && i < 1000; i++)
		ok = write(to[1], &c, 1) == 1 && read(from[0], &c, 1) == 1;
	double t0 = now_s();
	for (long i = 0; ok && i < n; i++)
		ok = write(to[1], &c, 1) == 1 && read(from[0], &c, 1) == 1;
	double t = now_s() - t0;
	close(to[1]);
	waitpid(pid, NULL, 0);
	if (!ok) {
		fprintf(stderr, "pingpong: the other process stopped answering\n");
		return 1;
	}
	printf("%.4f\n", t / (double)n * 1e6);
	return 0;
}
