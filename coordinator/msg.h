/* msg.h - messages to the user: errors, warnings, progress */
#ifndef MSG_H
#define MSG_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

/* msg_error - print "displace: <message>" on stderr */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg_warn - print "displace: warning: <message>" on stderr (always) */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg_info - print "displace: <message>" on stderr unless --quiet */
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg_usage - report a usage error for command cmd; returns EXIT_USAGE */
int msg_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * msg_getopt_error - the usage error after getopt_long (optstring starting
 * with ':') returned c, ':' for a missing value or '?' for an unknown option
 */
int msg_getopt_error(const char *cmd, int c, char **argv);
/* A command's getopt_long loop, with what every command treats alike. */
struct msg_getopt {
	const char *cmd;
	const struct option *opts;
	void (*usage)(FILE *f);
	int *json;   /* 'j' (--json) sets it; NULL: the command has no --json */
	int status;  /* after the loop: the exit status to return now, or -1 to carry on */
	int started; /* 0 in a new struct: the first call starts getopt afresh */
};
/*
 * msg_getopt_next - the command's next option as getopt_long returns it
 * (the optstring is ":h"), or -1 at the end or when the command must
 * stop: -h/--help printed the usage on stdout (status EXIT_OK), or an
 * unknown option or a missing value was reported (status EXIT_USAGE)
 */
int msg_getopt_next(struct msg_getopt *g, int argc, char **argv);
/* msg_no_operands - EXIT_USAGE after the message if an operand is left after the options, else 0 */
int msg_no_operands(const char *cmd, int argc, char **argv);

/* msg_set_quiet - suppress info and progress */
void msg_set_quiet(bool quiet);
bool msg_quiet(void);

/* Progress with an ETA, shown only when stderr is a terminal. */
struct msg_progress {
	const char *what;
	uint64_t start_ns;
	double total;
	bool shown;
};
void msg_progress_start(struct msg_progress *p, const char *what, double total);
void msg_progress_update(struct msg_progress *p, double done);
void msg_progress_end(struct msg_progress *p);

#endif
