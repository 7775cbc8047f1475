/* options.c - the options measure, sweep and predict share */
#include "coordinator/options.h"
#include "calib/summary.h"
#include "common/safetext.h"
#include "put/net.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

const char opts_help_placement[] =
	"Placement:\n"
	"  --cpu N              the measured CPU: the PUT and its fluid run there\n"
	"                       (default: the first CPU of --cpus, else 0)\n"
	"  --cpus LIST          one fluid on each of these CPUs (must include --cpu);\n"
	"                       each CPU's displacement is shown and the total is the\n"
	"                       cost (default: just --cpu)\n"
	"  --fluid-sched CLASS  idle (SCHED_IDLE), nice (nice 19) or normal\n"
	"                       (default idle)\n"
	"  --peer ADDR          socket and RPC workloads: use this peer ('displace\n"
	"                       serve' on another host; its work is not measured).\n"
	"                       Without it a local peer is started, and the\n"
	"                       workloads' own --peer defaults do not apply\n"
	"  --peer-cpu N|same    the local peer's CPU (default: another CPU, not the\n"
	"                       measured CPU's SMT sibling); same puts it on the\n"
	"                       measured CPU, so its work is in the displacement.\n"
	"                       Not with --peer, and neither is for a workload\n"
	"                       without a peer\n";

const char opts_help_both_ends[] =
	"  --remote-cpus LIST|all  with --peer: measure the peer's host too, with a\n"
	"                       fluid on these of its CPUs, which 'displace serve\n"
	"                       --fluid-cpus' there offers (all: every one); the\n"
	"                       result gives the local cost, the remote cost and\n"
	"                       their total, per CPU on both ends (default: off)\n";

/*
 * --ops, --reps, --precision, the fit and --csv mean a little different
 * things in measure, sweep and predict: each command gets its own lines.
 */
void opts_help_measurement(FILE *f, const char *cmd)
{
	int predict = !strcmp(cmd, "predict"), sweep = !strcmp(cmd, "sweep");
	fputs("Measurement:\n", f);
	if (predict)
		fputs("  --ops L              loop iterations per cost run, at least 1 (default:\n"
		      "                       chosen from a pilot run so that one run lasts about\n"
		      "                       --run-time)\n"
		      "  --reps R             rounds per size (default 8, at least 2; an odd R is\n"
		      "                       rounded up); each round is a cost pair (L and a\n"
		      "                       null run: the fit) and a saturated run; the blocking\n"
		      "                       mode runs in the first 16 rounds only\n"
		      "  --precision P%       instead of --reps, add rounds, 8 at least, until the\n"
		      "                       error of every size's displacement prediction has a\n"
		      "                       95% CI within P percentage points, or --max-time\n"
		      "                       runs out\n",
		      f);
	else
		fprintf(f,
			"  --ops L              operations per run (default: chosen from a pilot run so\n"
			"                       that one run lasts about --run-time; exec: 1)%s\n"
			"  --reps R             runs%s (default %s pairs of L and L/4);\n"
			"                       with the fit, an odd R is rounded up to whole pairs\n"
			"  --precision P%%       instead of --reps, add pairs%s until the\n"
			"                       95%% CI is within P%% of the mean, or --max-time runs out:\n"
			"                       three stages, 4 pairs, then half of what their sd asks\n"
			"                       for (at most 16), then what the sd of all those asks\n"
			"                       for, and on while the CI is wider than P (the CI:\n"
			"                       Stein's on that sd, or the t interval of all the\n"
			"                       pairs if wider; on a shared CPU, or with no other\n"
			"                       CPU free, it holds the bound e_shared, and when\n"
			"                       that alone is wider than P it stops after 8 pairs\n"
			"                       and says so)\n"
			"  --precision-of W     the figure --precision aims at: result (default; the\n"
			"                       mean cost of the process), normalised (the cost at\n"
			"                       the fluid's reference speed), or these-ops (the cost\n"
			"                       of the operations measured, given the OS's account of\n"
			"                       the PUT's CPU time in each pair: not of the runs to\n"
			"                       come when the cost itself moves)\n"
			"  --stopping R         three-stage (default), stein (Stein's two stages: 4\n"
			"                       pairs, then what their sd asks for; exact coverage\n"
			"                       for normal estimates, more pairs), or naive: stop as\n"
			"                       soon as the usual t interval is within P (it\n"
			"                       under-covers; for benches)\n",
			sweep ? "" : ". --ops 0\n                       runs set-up and tear-down only: the start-up cost S",
			sweep ? " per size" : "", sweep ? "8: 4" : "16: 8", sweep ? " to every size" : "");
	if (!predict)
		fputs("  --flows K            socket workloads: K connections at once from the one\n"
		      "                       PUT, round robin, one message in flight on each\n"
		      "                       (1 to 256, default 1); the cost is per operation\n"
		      "                       and per byte at that concurrency\n",
		      f);
	fputs("  --max-time T         stop adding runs after T (default 10m); also the limit\n"
	      "                       of one run is 10 x its expected length, at least 60 s\n"
	      "  --run-time T         target length of one L run (default 200ms)\n",
	      f);
	if (!predict)
		fputs("  --fit, --no-fit      pairs of runs of L and L/4 operations, in a random\n"
		      "                       order (a null run when L < 4), and take the slope\n"
		      "                       of T_PUT against L as tau, the intercept as the\n"
		      "                       start-up cost S (default);\n"
		      "                       or one op count per run, tau = T_PUT / L, S included\n",
		      f);
	fputs(predict ? "  --short-run R        the blocking operation's fit pair: L and quarter\n"
			"                       (L/4, default) or null (a run of no operation)\n"
		      : "  --short-run R        the fit pair's short run: quarter (L/4, default),\n"
			"                       whose slope with L leaves out the first operations'\n"
			"                       start-up effects, or null (no operation): measured\n"
			"                       no quicker, and reading spin 0.1 us high (benches)\n",
	      f);
	fputs("  --calib-time T       each bracketing calibration (default 50ms)\n"
	      "  --lead-in T, --lead-out T  the fluid alone before and after the PUT\n"
	      "                       (default 5ms each: the fluid's speed is least certain\n"
	      "                       there, so they are kept short)\n"
	      "  --chunk-loops N      fluid loops per timed chunk (default 1000)\n"
	      "  --estimator E        the result: off-cpu (the time the fluid was off its\n"
	      "                       CPU, by its own task-clock), classic (Woodside: its\n"
	      "                       lost loops) or drift-robust; every one is shown\n"
	      "                       (default off-cpu; classic with --clock-resolution)\n"
	      "  --no-perturbation-check  skip the runs of the PUT alone that show how\n"
	      "                       much the fluid changes it (one per pair, L/4 ops);\n"
	      "                       its own CPU time is getrusage's without\n"
	      "                       --task-clock, and not compared when a wake-up\n"
	      "                       from another CPU bills it over 1% of the result\n"
	      "                       of the fluid's time\n"
	      "  --trace-others, --no-trace-others  trace the scheduler (root: a tracefs\n"
	      "                       instance of its own) and take out of each\n"
	      "                       calibration and co-run the time other tasks held\n"
	      "                       the CPU in it; softirq threads and kworkers, which\n"
	      "                       may run the PUT's own work, stay in. Narrower CIs\n"
	      "                       on a busy host, and no bias from a neighbour on the\n"
	      "                       CPU. Each switch traced can leave 0.8 us (the\n"
	      "                       PUT's own) to 2 us (others') in the result, and\n"
	      "                       its CI holds that (e_trace).\n"
	      "                       As root, measure starts again traced when every\n"
	      "                       other CPU is 90% busy or others take 1% of the\n"
	      "                       measured one, if the PUT switches so seldom that\n"
	      "                       the trace costs under 0.1% of the result; or not\n"
	      "                       (--no-trace-others)\n"
	      "  --task-clock, --no-task-clock  put a perf task-clock counter on the PUT,\n"
	      "                       for the OS table and as the off-CPU estimator's\n"
	      "                       account of the cost of these operations; or not\n"
	      "                       (default: that account is then getrusage less what\n"
	      "                       the scheduler billed it of the fluid's time). Every\n"
	      "                       context switch of a task with a counter pays perf's\n"
	      "                       hooks, which the result counts as the PUT's: on the\n"
	      "                       development VM +1.1 to 1.4 us per op for a 2 KB tcp\n"
	      "                       send on one CPU, and about +2.5 across CPUs, where\n"
	      "                       the noise is larger (bench/counter-cost)\n"
	      "  --clock-resolution D quantise every timestamp (fluid, put) to a simulated\n"
	      "                       clock of resolution D with a random phase, e.g. 1ms\n"
	      "  --calibration FILE   the calibration store to compare with (see calibrate)\n",
	      f);
}

void opts_help_output(FILE *f, const char *cmd, const char *more)
{
	fputs("Output:\n", f);
	if (!strcmp(cmd, "predict"))
		fputs("  --csv FILE           append one row per size (header in README.md)\n", f);
	else
		fprintf(f,
			"  --csv FILE           append one row per run and a summary row%s\n"
			"                       (header in README.md), each flushed as it is measured\n",
			strcmp(cmd, "sweep") ? "" : " per size");
	fputs("                       (never through a symbolic link; a regular file only)\n", f);
	if (more)
		fputs(more, f);
	fputs("  --json               print JSON instead of the human report\n"
	      "  --quiet              no progress or notes on stderr (warnings stay); the\n"
	      "                       progress line (phase, CI so far under --precision,\n"
	      "                       ETA) is shown only when stderr is a terminal, and\n"
	      "                       not when --json output goes to a pipe or file\n"
	      "  --strict             exit 5 if the result is untrustworthy (CI not reached,\n"
	      "                       outliers, a cost that moved in spells, a CPU shared\n"
	      "                       with another process, noisy host, the fluid\n"
	      "                       perturbing the PUT, or time the fluid was held that\n"
	      "                       a loaded CPU may pay)\n"
	      "  -h, --help           this help\n",
	      f);
	if (strcmp(cmd, "predict"))
		fputs("\nSIGINT, SIGTERM or SIGHUP stops the runs: the summary of those measured so\n"
		      "far is printed, marked interrupted (JSON: \"interrupted\": true), and the\n"
		      "exit status is 1.\n",
		      f);
}

enum {
	O_CPU = 1000, O_CPUS, O_PEER_CPU, O_PEER, O_SCHED, O_OPS, O_REPS, O_PRECISION, O_MAX_TIME, O_RUN_TIME,
	O_FIT, O_NO_FIT, O_CAL, O_LEAD_IN, O_LEAD_OUT, O_CHUNK, O_CLOCK_RES, O_CSV, O_PLOT, O_STORE, O_JSON, O_QUIET,
	O_STRICT, O_ESTIMATOR, O_NO_PERTURB, O_TRACE_OTHERS, O_NO_TRACE_OTHERS, O_PRECISION_OF, O_STOPPING, O_REMOTE_CPUS, O_FLOWS,
	O_TASK_CLOCK, O_NO_TASK_CLOCK, O_SHORT_RUN,
};

static const struct opts_extra common[] = {
	{ "cpu", 1, O_CPU },
	{ "cpus", 1, O_CPUS },
	{ "peer-cpu", 1, O_PEER_CPU },
	{ "peer", 1, O_PEER },
	{ "remote-cpus", 1, O_REMOTE_CPUS },
	{ "flows", 1, O_FLOWS },
	{ "fluid-sched", 1, O_SCHED },
	{ "ops", 1, O_OPS },
	{ "reps", 1, O_REPS },
	{ "precision", 1, O_PRECISION },
	{ "max-time", 1, O_MAX_TIME },
	{ "run-time", 1, O_RUN_TIME },
	{ "fit", 0, O_FIT },
	{ "no-fit", 0, O_NO_FIT },
	{ "short-run", 1, O_SHORT_RUN },
	{ "calib-time", 1, O_CAL },
	{ "lead-in", 1, O_LEAD_IN },
	{ "lead-out", 1, O_LEAD_OUT },
	{ "chunk-loops", 1, O_CHUNK },
	{ "clock-resolution", 1, O_CLOCK_RES },
	{ "estimator", 1, O_ESTIMATOR },
	{ "no-perturbation-check", 0, O_NO_PERTURB },
	{ "trace-others", 0, O_TRACE_OTHERS },
	{ "no-trace-others", 0, O_NO_TRACE_OTHERS },
	{ "task-clock", 0, O_TASK_CLOCK },
	{ "no-task-clock", 0, O_NO_TASK_CLOCK },
	{ "precision-of", 1, O_PRECISION_OF },
	{ "stopping", 1, O_STOPPING },
	{ "csv", 1, O_CSV },
	{ "plot", 1, O_PLOT },
	{ "calibration", 1, O_STORE },
	{ "json", 0, O_JSON },
	{ "quiet", 0, O_QUIET },
	{ "strict", 0, O_STRICT },
	{ NULL, 0, 0 },
};

const char *const opts_precision_of_arg[PREC_N] = { "result", "normalised", "these-ops" };

/* --estimator's values, in enum sum_estimator order */
static const char *const estimator_arg[SUM_NEST] = { "off-cpu", "classic", "drift-robust" };

/* a file to write: not empty, and no control character (a plot's name goes into a gnuplot script) */
static int file_name(const char *v)
{
	return *v && safetext_printable(v) ? 0 : -1;
}

/* the index of v among names[0..n), or -1 */
static int name_index(const char *v, const char *const names[], int n)
{
	for (int k = 0; k < n; k++)
		if (!strcmp(v, names[k]))
			return k;
	return -1;
}

static int common_opt(struct opts *m, int id, const char *v)
{
	uint64_t u;
	int k;
	switch (id) {
	case O_CPU:
		m->cpu_given = 1;
		return cli_parse_int(v, 0, CLI_MAX_CPUS - 1, &m->cpu);
	case O_CPUS:
		m->cpus_arg = v;
		return 0;
	case O_PEER_CPU:
		m->peer_cpu_arg = v;
		return 0;
	case O_PEER:
		m->peer_arg = v;
		return 0;
	case O_REMOTE_CPUS:
		m->remote_cpus_arg = v;
		return 0;
	case O_FLOWS:
		if (cli_parse_u64(v, 1, NET_MAX_FLOWS, &u))
			return -1;
		m->flows = (unsigned)u;
		return 0;
	case O_SCHED:
		return fluid_sched_parse(v, &m->sched);
	case O_OPS:
		m->ops_given = 1;
		return cli_parse_u64(v, 0, UINT64_MAX / 8, &m->ops);
	case O_REPS:
		if (cli_parse_u64(v, 1, 100000, &u))
			return -1;
		m->reps = (unsigned)u;
		return 0;
	case O_PRECISION:
		return cli_parse_percent(v, &m->precision);
	case O_MAX_TIME:
		return cli_parse_duration_ns(v, &m->max_time_ns) || m->max_time_ns == 0 ? -1 : 0;
	case O_RUN_TIME:
		return cli_parse_duration_ns(v, &m->run_ns) || m->run_ns < 1000000 ? -1 : 0;
	case O_FIT:
		m->fit = 1;
		return 0;
	case O_NO_FIT:
		m->fit = 0;
		return 0;
	case O_SHORT_RUN: {
		static const char *const names[] = { [SUM_SHORT_QUARTER] = "quarter", [SUM_SHORT_NULL] = "null" };
		if ((k = name_index(v, names, sizeof names / sizeof names[0])) < 0)
			return -1;
		m->short_run = (enum sum_short)k;
		return 0;
	}
	case O_CAL:
		return cli_parse_duration_ns(v, &m->cal_ns) || m->cal_ns < 10000000 ? -1 : 0;
	case O_LEAD_IN:
		return cli_parse_duration_ns(v, &m->lead_in_ns) || m->lead_in_ns < 1000000 ? -1 : 0;
	case O_LEAD_OUT:
		return cli_parse_duration_ns(v, &m->lead_out_ns) || m->lead_out_ns < 1000000 ? -1 : 0;
	case O_CHUNK:
		return cli_parse_u64(v, 1, 1000000000, &m->chunk_loops);
	case O_CLOCK_RES:
		return cli_parse_duration_ns(v, &m->clock_res_ns) || m->clock_res_ns == 0 ? -1 : 0;
	case O_ESTIMATOR:
		if ((k = name_index(v, estimator_arg, SUM_NEST)) < 0)
			return -1;
		m->estimator = k;
		return 0;
	case O_NO_PERTURB:
		m->no_perturb = 1;
		return 0;
	case O_TRACE_OTHERS:
		m->trace_others = 1;
		m->no_trace_others = 0;
		return 0;
	case O_NO_TRACE_OTHERS:
		m->trace_others = 0;
		m->no_trace_others = 1;
		return 0;
	case O_TASK_CLOCK:
		m->task_clock = 1;
		return 0;
	case O_NO_TASK_CLOCK:
		m->task_clock = 0;
		return 0;
	case O_PRECISION_OF:
		m->precision_of_given = 1;
		if ((k = name_index(v, opts_precision_of_arg, PREC_N)) < 0)
			return -1;
		m->precision_of = (enum precision_of)k;
		return 0;
	case O_STOPPING: {
		static const char *const names[] = { [STOP_THREE] = "three-stage", [STOP_STEIN] = "stein",
						     [STOP_NAIVE] = "naive" };
		m->stopping_given = 1;
		if ((k = name_index(v, names, sizeof names / sizeof names[0])) < 0)
			return -1;
		m->stopping = (enum stop_rule)k;
		return 0;
	}
	case O_CSV:
		m->csv = v;
		return file_name(v);
	case O_PLOT:
		m->plot = v;
		return file_name(v);
	case O_STORE:
		m->store = v;
		return file_name(v);
	case O_JSON:
		m->json = 1;
		return 0;
	case O_QUIET:
		m->quiet = 1;
		return 0;
	case O_STRICT:
		m->strict = 1;
		return 0;
	}
	return -1;
}

static const struct opts_extra *lookup(const struct opts_extra *t, const char *name, size_t len)
{
	for (; t && t->name; t++)
		if (strlen(t->name) == len && !strncmp(t->name, name, len))
			return t;
	return NULL;
}

static const char *hint(int id)
{
	switch (id) {
	case O_CPU:
		return " (a CPU number)";
	case O_SCHED:
		return " (idle, nice or normal)";
	case O_OPS:
		return " (0 or a positive integer)";
	case O_REPS:
		return " (1 to 100000)";
	case O_PRECISION:
		return " (a percentage above 0 and below 100, e.g. 1%)";
	case O_MAX_TIME:
	case O_RUN_TIME:
	case O_CAL:
	case O_LEAD_IN:
	case O_LEAD_OUT:
	case O_CLOCK_RES:
		return " (a positive duration, e.g. 500ms)";
	case O_ESTIMATOR:
		return " (off-cpu, classic or drift-robust)";
	case O_CSV:
	case O_PLOT:
	case O_STORE:
		return " (a file name, not empty, without control characters)";
	case O_PRECISION_OF:
		return " (result, normalised or these-ops)";
	case O_STOPPING:
		return " (three-stage, stein or naive)";
	case O_SHORT_RUN:
		return " (quarter or null)";
	case O_FLOWS:
		return " (1 to 256 connections)";
	default:
		return "";
	}
}


int opts_parse(int argc, char **argv, struct opts *m, const struct opts_extra *extra,
	       int (*on_extra)(int id, const char *val, void *ctx, char *err, size_t errlen), void *ctx, char *err,
	       size_t errlen)
{
	const char *cmd = m->cmd;
	err[0] = '\0';
	memset(m, 0, sizeof *m);
	m->cmd = cmd;
	m->cpu = 0;
	m->sched = FLUID_SCHED_IDLE;
	m->fit = 1;
	m->max_time_ns = 600000000000ull;
	m->cal_ns = 50000000;   /* short runs and calibrations: more pairs in the same time (bench/time-to-precision) */
	m->lead_in_ns = 5000000;
	m->lead_out_ns = 5000000;
	m->run_ns = 200000000;
	m->chunk_loops = FLUID_DEFAULT_CHUNK_LOOPS;
	m->estimator = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			if (!m->workload)
				return cli_fail(err, errlen, -EINVAL, "'--' before the workload name");
			for (; i < argc; i++)
				if (m->nwargs < OPTS_MAX_WARGS)
					m->wargs[m->nwargs++] = argv[i];
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			m->help = 1;
			return 0;
		}
		if (!strncmp(a, "--", 2)) {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct opts_extra *o = lookup(common, name, len);
			const struct opts_extra *x = o ? NULL : lookup(extra, name, len);
			if (!o && !x) {
				if (!m->workload)
					return cli_fail(err, errlen, -EINVAL, "unknown option '%s'", a);
				if (m->nwargs < OPTS_MAX_WARGS)
					m->wargs[m->nwargs++] = argv[i];
				continue;
			}
			const struct opts_extra *t = o ? o : x;
			const char *val = NULL;
			if (t->has_arg) {
				if (eq)
					val = eq + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return cli_fail(err, errlen, -EINVAL, "option '--%s' needs a value", t->name);
			} else if (eq) {
				return cli_fail(err, errlen, -EINVAL, "option '--%s' takes no value", t->name);
			}
			if (o) {
				if (common_opt(m, o->id, val))
					return cli_fail(err, errlen, -EINVAL, "invalid value '%s' for --%s%s", val, o->name, hint(o->id));
			} else {
				char why[256] = "";
				if (on_extra(x->id, val, ctx, why, sizeof why))
					return cli_fail(err, errlen, -EINVAL, "%s", why[0] ? why : "invalid option value");
			}
			continue;
		}
		if (a[0] == '-' && a[1] && !m->workload)
			return cli_fail(err, errlen, -EINVAL, "unknown option '%s'", a);
		if (!m->workload) {
			m->workload = a;
			m->wargs[m->nwargs++] = argv[i];
		} else if (m->nwargs < OPTS_MAX_WARGS) {
			m->wargs[m->nwargs++] = argv[i];
		}
	}
	if (m->nwargs >= OPTS_MAX_WARGS)
		return cli_fail(err, errlen, -EINVAL, "too many workload arguments (at most %d)", OPTS_MAX_WARGS - 1);
	return 0;
}
