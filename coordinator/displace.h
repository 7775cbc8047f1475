/* displace.h - exit codes and the command table of the coordinator */
#ifndef DISPLACE_H
#define DISPLACE_H

enum displace_exit {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* the experiment failed */
	EXIT_USAGE = 2,       /* bad command line */
	EXIT_RESOURCE = 3,    /* a missing resource or permission */
	EXIT_UNAVAILABLE = 4, /* the workload is not available in this build */
	EXIT_UNTRUSTED = 5,   /* noisy host or CI not reached, under --strict */
};

#define DISPLACE_VERSION "0.1"

/* cmd_<name> - run one subcommand; argv[0] is the subcommand's name */
int cmd_calibrate(int argc, char **argv);
int cmd_clock(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_ticks(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_workloads(int argc, char **argv);

#endif
