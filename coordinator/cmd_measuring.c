/* cmd_measuring.c - what measure, sweep and predict share at the user's end */
#include "coordinator/cmd_measuring.h"
#include "coordinator/displace.h"
#include "coordinator/msg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int measuring_parse(struct session *s, int argc, char **argv, const struct opts_extra *extra,
		    int (*on_extra)(int id, const char *val, void *ctx, char *err, size_t errlen), void *ctx)
{
	char err[512];
	if (opts_parse(argc, argv, &s->m, extra, on_extra, ctx, err, sizeof err))
		return msg_usage(s->m.cmd, "%s", err);
	if (s->m.quiet)
		msg_set_quiet(true);
	msg_set_json(s->m.json);
	return 0;
}

int measuring_check_workload(struct session *s, char **wargs, int nwargs, const uint64_t *sizes, size_t nsizes)
{
	int rc = session_find_workload(s);
	if (!rc)
		rc = session_check_args(s, wargs, nwargs, sizes, nsizes);
	if (rc == -EINVAL)
		return msg_usage(s->m.cmd, "%s", s->err);
	if (rc)
		msg_error("%s", s->err);
	return rc == -ENOTSUP ? EXIT_UNAVAILABLE : rc ? EXIT_RESOURCE : 0;
}

/* what the calibration store says of the measured CPU, as a note or warning */
static void store_note(const struct session *s)
{
	const struct session_store *st = &s->store;
	switch (st->status) {
	case STORE_NONE:
		break;
	case STORE_BAD:
		msg_warn("%s:%lu: %s; ignoring the store (fix or delete it)", st->path, st->line, st->why);
		break;
	case STORE_UNREADABLE:
		msg_warn("cannot read '%s': %s; ignoring it", st->path, strerror(-st->rc));
		break;
	case STORE_NO_ROW:
		msg_info("no saved calibration for CPU %d (%s, %s); every run is bracketed by calibrations anyway; "
			 "'displace calibrate' gives a quiet-host verdict",
			 s->m.cpu, st->variant, fluid_sched_name(s->m.sched));
		break;
	case STORE_ROW:
		if (!st->quiet)
			msg_warn("the last calibration of CPU %d (%s) judged the host %s", s->m.cpu, st->date, st->verdict);
		break;
	}
}

int measuring_setup(struct session *s)
{
	int rc = session_setup(s);
	if (rc == -EINVAL)
		return msg_usage(s->m.cmd, "%s", s->err);
	if (rc) {
		msg_error("%s", s->err);
		return rc == -ENOMEM ? EXIT_FAILED : EXIT_RESOURCE;
	}
	if (s->coordinator_cpu < 0 && s->ctx.online.n == 1)
		msg_info("one CPU only: the coordinator and any peer share the measured CPU, and their work is "
			 "in the displacement");
	session_read_store(s);
	store_note(s);
	if ((rc = session_start_peer(s))) {
		msg_error("%s", s->err);
		return rc == -EINTR ? EXIT_FAILED : EXIT_RESOURCE;
	}
	return 0;
}

int measuring_choose_ops(struct session *s, struct series *ser)
{
	int rc = session_choose_ops(s, ser);
	return rc ? measuring_fail(s, rc) : 0;
}

unsigned measuring_whole_pairs(unsigned reps, const char *why)
{
	if (reps % 2 == 0)
		return reps;
	msg_info("--reps %u rounded up to %u: %s", reps, reps + 1, why);
	return reps + 1;
}

int measuring_precision_met(struct msg_progress *p, const struct summary *sum, double precision)
{
	/* fewer than 3 estimates: a CI too wide to trust, and no figure to show yet */
	double reached = sum->n >= 3 ? sum->tau.ci_half / fabs(sum->tau.mean) : NAN;
	msg_progress_ci(p, 100 * reached, 100 * precision);
	return reached <= precision;
}

void measuring_drift_note(const struct session *s)
{
	if (s->store.status != STORE_ROW || s->store.tau_f_ns <= 0 || s->seq.cal.n == 0)
		return;
	double d = (s->seq.first_tau_f_ns - s->store.tau_f_ns) / s->store.tau_f_ns;
	if (fabs(d) > 0.03)
		msg_info("tau_F on CPU %d moved %+.1f%% since the calibration of %s; the bracketing calibrations "
			 "of this measurement are used",
			 s->m.cpu, 100 * d, s->store.date);
}

int measuring_warn_busy(const struct session *s, double share)
{
	if (share >= SUM_MIN_FLUID_SHARE)
		return 0;
	msg_warn("in the calibrations around the runs the fluid got only %.0f%% of CPU %d: another process held it, "
		 "and its work is in the displacement; find it with: ps -eLo pid,psr,pcpu,comm | awk '$2 == %d' "
		 "and stop it, or measure another CPU with --cpu",
		 100 * share, s->m.cpu, s->m.cpu);
	return 1;
}

int measuring_open_csv(const struct session *s, struct csvout *c, const char *header)
{
	memset(c, 0, sizeof *c);
	if (!s->m.csv)
		return 0;
	int rc = csvout_open(c, s->m.csv, header);
	if (rc == -EEXIST)
		msg_error("'%s' has another header; give a new file to --csv", s->m.csv);
	else if (rc)
		msg_error("cannot open '%s': %s", s->m.csv, strerror(-rc));
	return rc ? EXIT_RESOURCE : 0;
}

int measuring_check_plot(const struct session *s)
{
	if (!s->m.plot)
		return 0;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", s->m.plot);
	char *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK)) {
		msg_error("cannot write the plot '%s': %s", s->m.plot, strerror(errno));
		return EXIT_RESOURCE;
	}
	return 0;
}

int measuring_plot(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
		   const struct plot_series *ps, size_t ns)
{
	char hint[512] = "";
	int rc = plot_write(svg_path, title, xlabel, ylabel, ps, ns, hint, sizeof hint);
	if (rc < 0)
		msg_error("cannot write the plot '%s': %s", svg_path, rc == -EIO ? hint : strerror(-rc));
	else if (rc == 1)
		msg_warn("%s", hint);
	else
		msg_info("%s", hint);
	return rc < 0 ? -1 : 0;
}

int measuring_fail(const struct session *s, int rc)
{
	if (rc == -EINTR) {
		msg_error("interrupted; every child was stopped%s%s", s->m.csv ? " and the rows measured so far are in " : "",
			  s->m.csv ? s->m.csv : "");
		return EXIT_FAILED;
	}
	msg_error("%s", s->seq.err);
	if (rc == -ECHILD) {
		switch (s->seq.put_exit) {
		case 2:
			return EXIT_USAGE;
		case 3:
		case 127:
			return EXIT_RESOURCE;
		case 4:
			return EXIT_UNAVAILABLE;
		}
	}
	return rc == -ENOENT ? EXIT_RESOURCE : EXIT_FAILED;
}
