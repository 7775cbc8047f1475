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
/* msg_set_json - the command prints JSON on stdout: no progress when that goes to a pipe or file */
void msg_set_json(bool json);

/*
 * Progress on one line of stderr, shown only when stderr is a terminal,
 * never under --quiet nor when JSON goes to a pipe, and redrawn at most
 * every MSG_PROGRESS_INTERVAL_NS: the coordinator's terminal writes stay
 * few, and it runs off the measured CPU anyway. The line reads
 *   sweeping: round 2, size 4000 B  [=====      ] 11/24  46%  ETA 0:42
 * or, open-ended (total 0) under --precision,
 *   measuring: run 14  CI ±0.82%, target ±0.50%  ETA ~1:10
 * or, with neither, the phase and the time it has taken. It is drawn when
 * a phase begins (msg_progress_phase), not when a unit ends. Any message
 * printed meanwhile (msg_error, msg_warn, msg_info) clears the line
 * first, and the next update draws it again.
 */
#define MSG_PROGRESS_INTERVAL_NS 250000000ull
struct msg_progress {
	const char *what;        /* the command: "sweeping" */
	char phase[96];          /* where it is: "round 2, size 4000 B" */
	uint64_t start_ns;       /* the ETA's clock starts here (dclock_raw_ns) */
	uint64_t drawn_ns;       /* the last redraw */
	uint64_t deadline_ns;    /* --max-time, for the ETA of open-ended work; 0: none */
	double total, done;      /* units of work (runs); total 0: open-ended */
	double ci, ci_target;    /* the CI reached (NAN: not known yet) and its target, in % */
	double next_ci, next_target; /* the worst reported since the last update */
	bool next_set;
};
/* msg_progress_start - begin (or begin again) a progress of total units; total 0: open-ended */
void msg_progress_start(struct msg_progress *p, const char *what, double total);
/*
 * msg_progress_phase - what starts now, printf-style: called before each
 * unit of work (a run, a size's pilot), it is the moment the line is drawn
 * (if the last draw is old enough), with the units done so far
 */
void msg_progress_phase(struct msg_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * msg_progress_ci - under --precision: a CI half-width reached (NAN: none
 * yet) and its target, both in percent. Of several calls before the next
 * msg_progress_update (one per size), the worst is shown: it is the one
 * that still has to shrink. Open-ended work then has an ETA, since a CI
 * shrinks as 1/sqrt(n): n (ci / target)^2 units in all.
 */
void msg_progress_ci(struct msg_progress *p, double reached_pct, double target_pct);
/* msg_progress_deadline - when open-ended work stops anyway (dclock_raw_ns), such as --max-time */
void msg_progress_deadline(struct msg_progress *p, uint64_t deadline_ns);
/* msg_progress_update - the units done so far (and the CIs reported since the last update); shown with the next phase */
void msg_progress_update(struct msg_progress *p, double done);
/* msg_progress_end - clear the line (before the result is printed) */
void msg_progress_end(struct msg_progress *p);
/* msg_progress_text - the line's text at now_ns (dclock_raw_ns), without control codes or width limit */
void msg_progress_text(const struct msg_progress *p, uint64_t now_ns, char *line, size_t len);

#endif
