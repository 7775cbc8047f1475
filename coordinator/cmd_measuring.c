/* cmd_measuring.c - what measure, sweep and predict share at the user's end */
#include "coordinator/cmd_measuring.h"
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/msg.h"
#include "common/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
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

void measuring_moved_add(struct measuring_moved *m, const struct summary *sum)
{
	m->outliers += sum->outliers;
	m->moved += sum->moved_above + sum->moved_below;
	m->spells += sum->spells;
}

void measuring_warn_outliers(const struct measuring_moved *m, const char *remedy)
{
	if (m->outliers)
		msg_warn("%zu %s left out: other work ran during them; %s", m->outliers,
			 m->outliers == 1 ? "pair was an outlier and was" : "pairs were outliers and were", remedy);
	if (m->moved)
		msg_info("%zu %s cost was far from the others' with the OS's account of the PUT moved as much: its "
			 "own time changed, not another task's; %s kept (cost_moved in the JSON)",
			 m->moved, m->moved == 1 ? "pair's" : "pairs'", m->moved == 1 ? "it is" : "they are");
	if (m->spells)
		msg_warn("%zu %s moved in spells longer than a pair: %d batch means of the pairs in time order varied "
			 "more than the spread within the batches gives (p below %g); the batch means' interval "
			 "(ci95_batches_us in the JSON) is the one that holds the cost beyond these minutes, where the t "
			 "interval takes the pairs as independent; measure for longer, or again later",
			 m->spells, m->spells == 1 ? "result" : "results", SUM_BATCHES, STATS_SPELLS_P);
}

int measuring_check_counts(const struct session *s)
{
	const struct opts *m = &s->m;
	if (m->reps && m->precision)
		return msg_usage(m->cmd, "--reps and --precision exclude each other");
	if (!m->precision && (m->stopping_given || m->precision_of_given))
		return msg_usage(m->cmd, "--%s says how --precision works: give --precision too",
				 m->stopping_given ? "stopping" : "precision-of");
	if (m->reps == 1 && m->fit)
		return msg_usage(m->cmd, "--reps 1 cannot fit a line; use at least 2, or --no-fit");
	return 0;
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
			 "'displace calibrate' gives a quiet-host verdict%s",
			 s->m.cpu, st->variant, fluid_sched_name(s->m.sched),
			 s->m.precision_of == PREC_NORMALISED ? ", and the normalised cost a reference that other "
								"measurements share (without it, this one's first calibration)"
							      : "");
		return;
	case STORE_ROW:
		if (!st->quiet)
			msg_warn("the last calibration of CPU %d (%s) judged the host %s", s->m.cpu, st->date, st->verdict);
		if (st->tau0_ns > 0)
			return;
		break;
	}
	if (s->m.precision_of == PREC_NORMALISED)
		msg_info("no saved undisturbed speed for CPU %d: the normalised cost's reference is this measurement's "
			 "first calibration, so it compares with no other measurement; 'displace calibrate' saves one",
			 s->m.cpu);
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
	if (!s->trace_auto[0]) /* said at the first start */
		store_note(s);
	if (s->store.status == STORE_ROW && s->store.tau0_ns > 0)
		s->seq.tau0_ref_ns = s->store.tau0_ns;
	if ((rc = session_start_peer(s))) {
		if (rc == -EINVAL)
			return msg_usage(s->m.cmd, "%s", s->err);
		msg_error("%s", s->err);
		return rc == -EINTR ? EXIT_FAILED : EXIT_RESOURCE;
	}
	return 0;
}

int measuring_choose_ops(struct session *s, struct series *ser)
{
	int rc = session_choose_ops(s, ser);
	if (rc)
		return measuring_fail(s, rc);
	/* say what the runs do instead of the option they leave out (spin: --us becomes --loops-per-op) */
	const struct put_pilot *pl = &s->w->pilot;
	const char *fixed = pl->fix_replaces ? series_added(ser, pl->fix_option) : NULL;
	if (fixed)
		msg_info("%s: every run with %s, what the pilot calibrated %s to", s->w->name, fixed, pl->fix_replaces);
	return 0;
}

int measuring_may_auto_trace(const struct session *s)
{
	return !s->m.trace_others && !s->m.no_trace_others;
}

int measuring_auto_trace(const struct session *s, const struct summary *sum, char *why, size_t len)
{
	if (!measuring_may_auto_trace(s) || !sum_auto_trace(sum) || !schedtrace_usable())
		return 0;
	if (sum_nowhere_else(sum))
		snprintf(why, len, "every CPU without a fluid was busy (CPU %d %.0f%% of the co-runs)", sum->other_cpu,
			 100 * sum->other_cpu_busy);
	else
		snprintf(why, len, "other tasks took %.1f%% of CPU %d from the fluid in the calibrations",
			 100 * sum->others_share, s->m.cpu);
	return 1;
}

unsigned measuring_whole_pairs(unsigned reps, const char *why)
{
	if (reps % 2 == 0)
		return reps;
	msg_info("--reps %u rounded up to %u: %s", reps, reps + 1, why);
	return reps + 1;
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

void measuring_busy_init(struct measuring_busy *b)
{
	*b = (struct measuring_busy){ .share = 1, .others = 0, .bound_pct = 0, .bound_ns = 0, .idle = 0, .idle_known = 0,
				      .other_cpu = -1, .other_busy = NAN, .traced = NAN, .traced_cal = NAN, .unknown = NAN,
				      .switches = NAN };
}

void measuring_busy_add(struct measuring_busy *b, const struct summary *sum)
{
	b->share = fmin(b->share, sum_fluid_share(sum));
	if (isfinite(sum->others_share))
		b->others = fmax(b->others, sum->others_share);
	if (isfinite(sum->idle_share)) {
		b->idle = fmax(b->idle, sum->idle_share);
		b->idle_known = 1;
	}
	/* (fmax takes the other figure when one is NAN: untraced stays NAN) */
	b->traced = fmax(b->traced, sum->traced_share);
	b->traced_cal = fmax(b->traced_cal, sum->traced_cal_share);
	b->unknown = fmax(b->unknown, sum->unknown_share);
	b->switches = fmax(b->switches, sum->traced_switches_per_op);
	if (sum_nowhere_else(sum) && !(sum->other_cpu_busy <= b->other_busy)) {
		b->other_cpu = sum->other_cpu;
		b->other_busy = sum->other_cpu_busy;
	}
	double pct = 100 * sum->e_shared_ns / fabs(sum->tau.mean);
	if (isfinite(pct) && pct > b->bound_pct) {
		b->bound_pct = pct;
		b->bound_ns = sum->e_shared_ns;
	}
}

/* every CPU with no fluid was busy: the host's other tasks had only the measured one */
static int warn_nowhere_else(const struct session *s, const struct measuring_busy *b)
{
	/* traced, what they took beside the PUT is taken out of each co-run, not assumed from the calibrations */
	if (b->other_cpu < 0 || s->seq.o.trace)
		return 0;
	msg_warn("CPU %d, the least busy CPU without a fluid, was busy %.0f%% of the runs: the host's other tasks had "
		 "no idle CPU but those with a fluid, CPU %d among them, where they take a different share beside the "
		 "PUT than beside the fluid alone, "
		 "so the CI may not hold (beside a memory-bandwidth hog, 91 to 97 of 100 such 95%% CIs did: "
		 "docs/estimators.md); leave a CPU free of load while measuring, or as root add --trace-others, "
		 "which takes their time out of each run, or read the cost of these operations (the 'these ops' "
		 "line; --precision-of these-ops aims --precision at it), whose interval holds what the OS saw "
		 "of the PUT",
		 b->other_cpu, 100 * b->other_busy, s->m.cpu);
	return 1;
}

/* --trace-others: what the trace took out, and what it could not see */
static int warn_traced(const struct session *s, const struct measuring_busy *b)
{
	int warned = 0;
	uint64_t dropped = 0;
	if (!s->seq.o.trace)
		return 0;
	if (schedtrace_dropped(s->seq.o.trace, &dropped) == 0 && dropped) {
		msg_warn("the scheduler trace lost %" PRIu64 " events (its buffer filled between two reads): other tasks' "
			 "time in some windows is short, and the result can be high",
			 dropped);
		warned = 1;
	}
	if (s->seq.o.trace->bad_lines) {
		msg_warn("the scheduler trace had %" PRIu64 " lines of sched_ events it could not read: the tasks they "
			 "name were not followed, and other tasks' time may be short or misplaced",
			 s->seq.o.trace->bad_lines);
		warned = 1;
	}
	if (b->unknown >= SUM_MAX_OTHERS_SHARE) {
		msg_warn("the scheduler trace could not tell who held CPU %d for %.1f%% of a co-run's time (a task's "
			 "switch-out was missing from it): that time is left in, and the result can be high by up to it",
			 s->m.cpu, 100 * b->unknown);
		warned = 1;
	}
	/*
	 * every switch the trace records costs the switching CPU the event's
	 * write, in the result: about 0.8 µs a switch on the development VM
	 * (docs/estimators.md), +8 % for a 2 KB tcp send beside its peer
	 */
	if (b->switches >= 1)
		msg_info("the scheduler trace saw %.1f context switches per operation on CPU %d; recording each costs the "
			 "CPU time that is in the result (about 0.8 µs a switch on the development VM: "
			 "docs/estimators.md), so on a quiet host measure this workload without --trace-others",
			 b->switches, s->m.cpu);
	if (b->traced_cal >= SUM_MAX_OTHERS_SHARE || b->traced >= SUM_MAX_OTHERS_SHARE)
		msg_info("other tasks held CPU %d %.1f%% of the co-runs and %.1f%% of the calibrations; the scheduler "
			 "trace took their time out of each",
			 s->m.cpu, 100 * b->traced, 100 * b->traced_cal);
	return warned;
}

int measuring_warn_busy(const struct session *s, const struct measuring_busy *b)
{
	int nowhere = warn_nowhere_else(s, b) | warn_traced(s, b);
	char how[96];
	snprintf(how, sizeof how, "find it with: ps -eLo pid,psr,pcpu,comm | awk '$2 == %d'", s->m.cpu);
	if (b->others >= SUM_MAX_OTHERS_SHARE) {
		char bound[96] = "";
		if (b->bound_pct > 0)
			snprintf(bound, sizeof bound, " by up to %.2f µs per operation (%.1f%%)", b->bound_ns / 1e3,
				 b->bound_pct);
		if (s->seq.o.trace)
			msg_warn("in the calibrations around the runs the fluid was off %.1f%% of CPU %d beyond what the "
				 "scheduler trace cut out: softirq threads and kworkers (left in, as they may run the PUT's "
				 "work) or stretches the trace could not name; beside the PUT they can take less of the CPU "
				 "than alone, so the result can be low%s; %s",
				 100 * b->others, s->m.cpu, bound, how);
		else
			msg_warn("in the calibrations around the runs the fluid was off %.1f%% of CPU %d: another process "
				 "held it; beside the PUT it competes with the PUT and can take less of the CPU than alone, "
				 "so the result can be low%s; %s and stop it, measure another CPU with --cpu, or as root add "
				 "--trace-others, which takes its time out of each run",
				 100 * b->others, s->m.cpu, bound, how);
		return 1;
	}
	if (b->idle >= SUM_MAX_OTHERS_SHARE)
		msg_info("CPU %d was idle %.0f%% of the calibrations though the fluid was ready to run: a CPU limit "
			 "(cgroup cpu.max) throttled the measurement; the off-CPU estimator leaves idle time out, the "
			 "others do not (docs/estimators.md)",
			 s->m.cpu, 100 * b->idle);
	/* (under --trace-others tau_F, and so the share, has the traced tasks' time cut out already) */
	if (b->share >= SUM_MIN_FLUID_SHARE || b->idle >= SUM_MAX_OTHERS_SHARE)
		return nowhere;
	msg_warn("in the calibrations around the runs the fluid ran at only %.0f%% of its undisturbed speed on CPU %d, "
		 "and no other process took the CPU from it: interrupts or the hypervisor held it%s, and the result "
		 "and its CI carry their changes; measure when the host is quieter, or another CPU with --cpu",
		 100 * b->share, s->m.cpu,
		 b->idle_known ? ""
			       : ", or a CPU limit (cgroup cpu.max) held the fluid off an idle CPU, which the result "
				 "counts as work (as root, displace can tell and leave it out)");
	return 1;
}

/* index of the measured CPU among the fluid CPUs of a summary, or -1 */
static int put_cpu_index(const struct session *s, const struct summary *sum)
{
	for (int i = 0; i < sum->ncpu; i++)
		if (sum->cpu_id[i] == s->m.cpu)
			return i;
	return -1;
}

int measuring_check_truth(const struct session *s, const struct summary *sum, const char *label,
			  struct measuring_said *said)
{
	struct measuring_said once = { 0 };
	if (!said)
		said = &once;
	int untrusted = 0, i = put_cpu_index(s, sum);
	double ipi = i >= 0 ? sum->ipi_per_op[i] : NAN, dev = i >= 0 ? sum->dev_irq_per_op[i] : NAN;
	double tau = fabs(sum->tau.mean), held = sum->held.mean;
	const struct sum_perturb *p = &sum->perturb;
	int held_big = isfinite(held) && tau > 0 && held > MEASURING_MAX_CHANGE_PCT / 100 * tau;
	/*
	 * The fluid changed the PUT's own CPU time by more than 5 % of the
	 * result: that much of the cost is the fluid's doing. (Relative to the
	 * result, not to the PUT's own time, which is a part of it: beside a
	 * peer on the same CPU the PUT's own time grew 11 % here, a 3 % part of
	 * the cost.)
	 */
	double delta = p->n ? p->cpu_corun.mean - p->cpu_alone.mean : NAN;
	if (isfinite(delta) && !p->cpu_compared) {
		/* getrusage's hold beside the fluid is known (est_rebill_ns), the one alone is not */
		if (said->perturb_unknown++)
			msg_info("%sthe perturbation check did not compare the PUT's own CPU time, as above", label);
		else
			msg_info("%sthe perturbation check did not compare the PUT's own CPU time: without its own counter "
				 "that is getrusage, which billed it up to %.3f µs per operation of the fluid's time (a "
				 "wake-up from another CPU) beside the fluid, and an unknown hold alone; --task-clock "
				 "compares it (docs/estimators.md)",
				 label, p->hold_ns / 1e3);
		delta = NAN;
	}
	if (isfinite(delta) && tau > 0 && fabs(delta) > MEASURING_MAX_CHANGE_PCT / 100 * tau) {
		char ci[32] = "";
		if (isfinite(p->cpu_change.ci_half))
			snprintf(ci, sizeof ci, " ± %.1f", p->cpu_change.ci_half);
		if (said->perturb++)
			msg_warn("%sbeside the fluid the PUT's own CPU time per operation changed by %+.3f µs (%+.1f%%%s), "
				 "%.1f%% of the cost: the fluid perturbs it, as above",
				 label, delta / 1e3, p->cpu_change.mean, ci, 100 * fabs(delta) / tau);
		else
			msg_warn("%sbeside the fluid the PUT's own CPU time per operation changed by %+.3f µs (%+.1f%%%s: %.3f "
				 "against %.3f alone), %.1f%% of the cost: the fluid perturbs it (cache, context switches), so "
				 "the cost is that of the PUT beside a busy CPU; check it against a saturated run (displace "
				 "predict --clients)",
				 label, delta / 1e3, p->cpu_change.mean, ci, p->cpu_corun.mean / 1e3, p->cpu_alone.mean / 1e3,
				 100 * fabs(delta) / tau);
		untrusted = 1;
	}
	if (sum->estimator == SUM_OFFCPU && held_big && dev >= 0.1) {
		/* interrupt work on the fluid's time is in held, and not in the result */
		msg_warn("%sthe fluid held CPU %d %.2f µs per operation without progressing, with %.2f device interrupts "
			 "per operation on that CPU: their work ran on the fluid's time, which the off-CPU result leaves "
			 "out and the classic estimate (%.2f µs) counts, together with any wake-up delay; steer the device's "
			 "interrupts to the measured CPU's work or away from it (/proc/irq/N/smp_affinity), or use "
			 "--estimator classic if there are no wake-up IPIs (%.2f per operation here)",
			 label, s->m.cpu, held / 1e3, dev, sum->est[SUM_CLASSIC].mean / 1e3, ipi);
		untrusted = 1;
	} else if (sum->estimator == SUM_OFFCPU && held_big) {
		/*
		 * A saturated CPU paid 12 % of it on 2026-11-23 and about 70 % on
		 * 2026-11-24, on the same VM and code (bench/RESULTS.md): which
		 * share is the host's, so no interval of ours holds it
		 */
		char why[160] = "";
		if (ipi >= 0.5)
			snprintf(why, sizeof why, ", with %.2f wake-up IPIs per operation: the time a hypervisor takes to "
				 "deliver a wake-up to a running vCPU", ipi);
		if (said->held++)
			msg_warn("%sthe fluid held CPU %d %.2f µs per operation without progressing (classic %.2f µs less "
				 "off-CPU %.2f): as above, the cost under load lies between the two",
				 label, s->m.cpu, held / 1e3, sum->est[SUM_CLASSIC].mean / 1e3, sum->est[SUM_OFFCPU].mean / 1e3);
		else
			msg_warn("%sthe fluid held CPU %d %.2f µs per operation without progressing (classic %.2f µs less "
				 "off-CPU %.2f)%s. The result leaves it out, but a saturated CPU can pay part of it "
				 "(none to most, on the development VM, from one day to the next), so the cost of an operation "
				 "under load lies between the result and classic, and the CI does not hold that: %s "
				 "(docs/estimators.md)",
				 label, s->m.cpu, held / 1e3, sum->est[SUM_CLASSIC].mean / 1e3, sum->est[SUM_OFFCPU].mean / 1e3,
				 why, said->saturating ? "the saturated runs here are the check"
						  : "check it against a saturated run (displace predict --clients)");
		untrusted = 1;
	} else if (sum->estimator != SUM_OFFCPU && held_big) {
		msg_warn("%sthe %s estimate counts %.2f µs per operation in which the fluid held CPU %d without "
			 "progressing (%.2f wake-up IPIs per operation): a hypervisor's wake-up delay, of which a "
			 "saturated CPU may pay none or part; the off-CPU estimate, which leaves it all out, is %.2f µs "
			 "(--estimator off-cpu): check both against a saturated run (displace predict --clients)",
			 label, sum_estimator_name(sum->estimator), held / 1e3, s->m.cpu, ipi,
			 sum->est[SUM_OFFCPU].mean / 1e3);
		untrusted = 1;
	} else if (!isfinite(held) && ipi >= 0.5) {
		msg_warn("%s%.2f wake-up IPIs per operation reached CPU %d while the fluid ran, and without the fluid's "
			 "task-clock the off-CPU estimate is not available: on a VM the classic estimate can count the "
			 "hypervisor's wake-up delay (docs/estimators.md)",
			 label, ipi, s->m.cpu);
		untrusted = 1;
	}
	if (p->n && isfinite(p->wall_change.mean) && p->wall_change.mean > MEASURING_MAX_CHANGE_PCT && !untrusted)
		msg_info("%sthe fluid slows each operation's wall time by %+.0f%% (%.1f µs against %.1f alone): "
			 "wake-ups wait for the busy CPU; the cost counts CPU time, which this does not change",
			 label, p->wall_change.mean, p->wall_corun.mean / 1e3, p->wall_alone.mean / 1e3);
	return untrusted;
}

/*
 * the part of the target's interval no stopping rule shrinks: these
 * operations' background and steal, or the result's bound on a shared CPU
 */
static double fixed_half(const struct session *s, const struct summary *sum)
{
	if (s->m.precision_of == PREC_THESE)
		return isfinite(sum->these_fixed_ns) ? sum->these_fixed_ns : 0;
	return s->m.precision_of == PREC_NORMALISED ? sum->tau_bound_ns * sum_norm_scale(sum) : sum->tau_bound_ns;
}

/* the figure --precision aims at, in a summary that may be changed */
static struct stats_summary *target_of(const struct session *s, struct summary *sum)
{
	return s->m.precision_of == PREC_NORMALISED ? &sum->norm : s->m.precision_of == PREC_THESE ? &sum->these : &sum->tau;
}

const struct stats_summary *measuring_target(const struct session *s, const struct summary *sum)
{
	return target_of(s, (struct summary *)sum); /* read only */
}

/* enum precision_of: the name in messages */
static const char *const target_name[PREC_N] = { "result", "normalised cost", "cost of these operations" };

const char *measuring_target_key(const struct session *s)
{
	return opts_precision_of_arg[s->m.precision_of];
}

const char *measuring_target_name(const struct session *s)
{
	return target_name[s->m.precision_of];
}

/*
 * Why a result or a normalised cost is slow to narrow, when it is: the cost
 * itself moved between pairs, which the OS's account of the PUT shows, so
 * the cost of these operations is much narrower ("" otherwise)
 */
static void moved_why(const struct summary *sum, const struct stats_summary *t, char *buf, size_t len)
{
	double these = sum->these.ci_half / fabs(sum->these.mean), own = t->ci_half / fabs(t->mean);
	if (!(these < 0.5 * own) || !isfinite(sum->these_os_cv)) /* these operations' own target: never narrower */
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "; the cost itself moved between %s (the OS's account of the PUT by %.1f%%, sd), "
			 "and the cost of these operations is ±%.2f%% (--precision-of these-ops)",
			 sum->fitted ? "pairs" : "runs", 100 * sum->these_os_cv, 100 * these);
}

void measuring_unmet_why(const struct session *s, const struct summary *sum, char *buf, size_t len)
{
	const struct stats_summary *t = measuring_target(s, sum);
	double bg = fixed_half(s, sum), pct = 100 * bg / fabs(t->mean);
	if (!isfinite(t->mean))
		snprintf(buf, len, "; it has no figure: %s",
			 s->m.precision_of == PREC_THESE ? "the OS's account of the PUT (task-clock or getrusage, "
								   "or the local peer's time) was missing from an estimate"
							 : "the fluid's undisturbed speed was not measured");
	else if (!(bg > 0 && bg >= s->m.precision * fabs(t->mean)))
		moved_why(sum, t, buf, len);
	else if (s->m.precision_of == PREC_THESE)
		snprintf(buf, len, "; the background the OS bills to the PUT (%.2f%%) and its time the OS billed to others "
			 "(%.2f%%) alone are ±%.2f%%, which no number of pairs shrinks: aim at the result, or at a "
			 "wider P",
			 isfinite(sum->these_bg_ns) ? 100 * sum->these_bg_ns / fabs(t->mean) : 0,
			 isfinite(sum->these_unbilled_ns) ? 100 * sum->these_unbilled_ns / fabs(t->mean) : 0, pct);
	else if (sum->trace_bound_ns > 0 && sum->trace_bound_ns >= sum->shared_bound_ns)
		snprintf(buf, len, "; what the %.3f switches per op the trace saw can leave in (e_trace) makes the bound "
			 "alone ±%.2f%%, which no number of pairs shrinks: measure without the trace "
			 "(--no-trace-others), or at a wider P",
			 sum->traced_switches_per_op, pct);
	else if (sum_shared_cpu(sum))
		snprintf(buf, len, "; the shared CPU's bound e_shared alone is ±%.2f%%, which no number of pairs "
			 "shrinks: free the CPU, or as root add --trace-others",
			 pct);
	else
		snprintf(buf, len, "; with no other CPU free for the host's tasks, the bound e_shared alone is ±%.2f%%, "
			 "which no number of pairs shrinks: leave a CPU free of load, or as root add --trace-others",
			 pct);
}

json_t *measuring_stop_json(const struct session *s, const struct stop_state *st)
{
	if (s->m.stopping == STOP_NAIVE)
		return json_string("naive");
	json_t *j = json_pack("{s:s, s:I, s:o}", "rule", s->m.stopping == STOP_STEIN ? "stein" : "three-stage",
			      "n0", (json_int_t)st->n0, "s0_us", jout_num(st->n0 ? st->s0 / 1e3 : NAN));
	if (s->m.stopping == STOP_THREE) {
		json_object_set_new(j, "n1", json_integer((json_int_t)st->n1));
		json_object_set_new(j, "s1_us", jout_num(st->n1 ? st->s1 / 1e3 : NAN));
	}
	json_object_set_new(j, "target_n", json_integer((json_int_t)st->target));
	return j;
}

void measuring_stop_text(const struct session *s, const struct stop_state *st, char *buf, size_t len)
{
	if (s->m.stopping == STOP_NAIVE || !st->n0)
		snprintf(buf, len, "%s", "");
	else if (s->m.stopping == STOP_STEIN)
		snprintf(buf, len, " (Stein: %zu estimates asked by the first %zu)", st->target, st->n0);
	else if (!st->n1 || st->n1 == st->n0)
		snprintf(buf, len, " (three stages: the first %zu asked for %zu)", st->n0, st->target);
	else
		snprintf(buf, len, " (three stages: the first %zu asked for %zu, whose sd asked for %zu)", st->n0, st->n1,
			 st->target);
}

int measuring_stop_check(const struct session *s, struct stop_state *st, const struct summary *sum)
{
	const struct stats_summary *t = measuring_target(s, sum);
	/* these operations' sd is a residual's, about a line on the OS's account (the same for every update) */
	st->k = s->m.precision_of == PREC_THESE ? 1 : 0;
	double bg = fixed_half(s, sum);
	return stop_update(s->m.stopping, st, t->n, t->sd, t->ci_half - bg, s->m.precision * fabs(t->mean) - bg);
}

int measuring_out_of_reach(const struct session *s, const struct stop_state *st, const struct summary *sum)
{
	const struct stats_summary *t = measuring_target(s, sum);
	/*
	 * twice a first stage's worth of estimates (the rule itself never
	 * starts on a target below zero), so that one burst in the first
	 * seconds does not end the measurement
	 */
	double fixed = fixed_half(s, sum);
	return t->n >= 2 * STOP_N0 + st->k && fixed > 0 && fixed >= s->m.precision * fabs(t->mean);
}

void measuring_stop_progress(const struct session *s, const struct stop_state *st, const struct summary *sum,
			     struct msg_progress *p)
{
	const struct stats_summary *t = measuring_target(s, sum);
	double bg = fixed_half(s, sum);
	msg_progress_ci(p, 100 * (stop_half(s->m.stopping, st, t->n, t->ci_half - bg) + bg) / fabs(t->mean),
			100 * s->m.precision);
}

void measuring_stop_ci(const struct session *s, const struct stop_state *st, struct summary *sum)
{
	if (s->m.stopping == STOP_NAIVE || !st->n0)
		return;
	struct stats_summary *t = target_of(s, sum);
	double bg = fixed_half(s, sum);
	double t_half = t->ci_half - bg, half = stop_half(s->m.stopping, st, t->n, t_half);
	t->ci_half = half + bg;
	/* three stages keep the t interval when it is the wider: the budget names the rule only when it gave the interval */
	if (t == &sum->tau && fabs(half - t_half) > 1e-9 * fabs(t_half))
		sum->tau_ci_rule = s->m.stopping == STOP_STEIN ? "Stein's two-stage interval" : "three stages' interval";
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
		msg_error("cannot open '%s': %s", s->m.csv, outfile_strerror(rc));
	return rc ? EXIT_RESOURCE : 0;
}

int measuring_check_plot(const struct session *s)
{
	if (!s->m.plot)
		return 0;
	/* options.c refused an empty name and control characters */
	int rc = plot_check_path(s->m.plot);
	if (rc) {
		msg_error("cannot write the plot '%s': %s", s->m.plot, outfile_strerror(rc));
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
		msg_error("cannot write the plot '%s': %s", svg_path, rc == -EIO ? hint : outfile_strerror(rc));
	else if (rc == 1)
		msg_warn("%s", hint);
	else
		msg_info("%s", hint);
	return rc < 0 ? -1 : 0;
}

/* the signal that stopped the runs (SIGINT, SIGTERM, SIGHUP), or 0 */
static int stop_signal(const struct session *s)
{
	if (s->interrupted)
		return s->interrupted;
	return s->env && s->env->interrupted ? (s->env->signal ? s->env->signal : SIGINT) : 0;
}

/* that signal, as "SIGTERM" */
static const char *signal_name(const struct session *s)
{
	int sig = stop_signal(s);
	const char *n = sig ? sigabbrev_np(sig) : NULL;
	static char buf[16];
	if (!n)
		return "a signal";
	snprintf(buf, sizeof buf, "SIG%s", n);
	return buf;
}

int measuring_fail(const struct session *s, int rc)
{
	if (rc == -EINTR) {
		msg_error("interrupted by %s; every child was stopped%s%s", signal_name(s),
			  s->m.csv ? " and the rows measured so far are in " : "", s->m.csv ? s->m.csv : "");
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
	return rc == -ENOENT || rc == -EMFILE ? EXIT_RESOURCE : EXIT_FAILED;
}

int measuring_stopped(struct session *s, int rc, int have_result)
{
	if (rc != -EINTR || !have_result)
		return measuring_fail(s, rc);
	s->interrupted = s->env && s->env->signal ? s->env->signal : SIGINT;
	msg_warn("interrupted by %s: every child was stopped; the result below is of the runs measured before it%s%s",
		 signal_name(s), s->m.csv ? ", whose rows are in " : "", s->m.csv ? s->m.csv : "");
	return EXIT_FAILED;
}

int measuring_output(const struct session *s, json_t *o)
{
	int sig = stop_signal(s);
	if (o) {
		json_object_set_new(o, "interrupted", json_boolean(sig));
		if (sig)
			json_object_set_new(o, "interrupted_by", json_string(signal_name(s)));
		json_object_set_new(o, "context", context_json(&s->ctx));
		return jout_print(o);
	}
	if (sig)
		printf("  INTERRUPTED by %s: a partial result, of the runs measured before it\n", signal_name(s));
	return fflush(stdout) ? -EIO : 0;
}
