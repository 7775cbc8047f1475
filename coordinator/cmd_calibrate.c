/*
 * cmd_calibrate.c - displace calibrate: Woodside step 1. Time the fluid
 * alone on each CPU, judge whether the host is quiet, save tau_F.
 */
#include "calib/calibration.h"
#include "calib/procfs.h"
#include "calib/stats.h"
#include "common/cli.h"
#include "coordinator/context.h"
#include "coordinator/csvout.h"
#include "coordinator/displace.h"
#include "coordinator/experiment.h"
#include "coordinator/jsonout.h"
#include "coordinator/msg.h"
#include "common/dclock.h"
#include "common/outfile.h"
#include "common/safetext.h"
#include "fluid/fluid_args.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SECONDS_NS 50000000ull      /* one replication: many short ones reach a CI sooner */
#define DEFAULT_MAX_TIME_NS 10000000000ull   /* per CPU */
#define TARGET_CI 0.002                      /* 0.2 % of tau_F */
#define STEIN_N0 20                          /* the first stage of Stein's rule: replications */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: displace calibrate [--cpus LIST] [--precision P%% | --reps R] [options]\n"
		"\n"
		"Step 1 of the displacement method: runs the fluid alone on each CPU in\n"
		"replications of S seconds, until tau_F (ns per loop) is known to P%% (95%%\n"
		"CI) or --max-time runs out, or for R replications; reports tau_F with its\n"
		"CI, judges whether the host is quiet enough to measure on, and saves the\n"
		"result in the calibration store.\n"
		"\n"
		"Placement:\n"
		"  --cpus LIST          CPUs to calibrate, one after another: 0-3,5 or all\n"
		"                       (default 0)\n"
		"  --fluid-sched CLASS  the fluid's class: idle (SCHED_IDLE), nice (nice 19)\n"
		"                       or normal (default idle)\n"
		"\n"
		"Measurement:\n"
		"  --precision P%%       replications until the 95%% CI of tau_F (the wider of\n"
		"                       the t interval and that of %d batch means of\n"
		"                       consecutive replications) is within P%%\n"
		"                       (default %.1f%%): %d first, then at least as many as\n"
		"                       Stein's two-stage rule asks for at their spread, and\n"
		"                       more while the CI is wider, or until --max-time; the\n"
		"                       report says whether P was reached\n"
		"  --max-time T         per CPU, the most time --precision may take\n"
		"                       (default %.0fs)\n"
		"  --reps R             exactly R replications per CPU instead\n"
		"  --seconds S          length of one replication, e.g. 50ms or 1s\n"
		"                       (default %.0f ms)\n"
		"  --chunk-loops N      fluid loops between two clock readings (default %d,\n"
		"                       about 1 us)\n"
		"\n"
		"Output:\n"
		"  --calibration FILE   the calibration store (default\n"
		"                       $XDG_CACHE_HOME/displace/calibration.csv, else\n"
		"                       ~/.cache/displace/calibration.csv, whose directory is\n"
		"                       made if missing; FILE's directory must exist). It is\n"
		"                       checked before calibrating, and replaced whole: never\n"
		"                       through a symbolic link\n"
		"  --no-save            do not write the store\n"
		"  --json               print JSON instead of the human report\n"
		"  --quiet              no progress on stderr (it is shown only when stderr\n"
		"                       is a terminal, and not when --json output goes to a\n"
		"                       pipe or file)\n"
		"  --strict             exit 5 unless every CPU is quiet and reached a 95%% CI\n"
		"                       of 0.2%% of tau_F (or of --precision)\n"
		"  -h, --help           this help\n"
		"\n"
		"The verdict is 'quiet' or 'not quiet: <reason>; <remedy>'. It looks at the\n"
		"load average before calibrating, the CPU time other processes used during\n"
		"it (from /proc/*/stat, naming the top ones), steal time and the fluid's\n"
		"share of its CPU (from /proc/stat), and the CV of tau_F across replications.\n"
		"\n"
		"Exit status: 0 done, 1 the fluid failed, 2 usage error, 3 the store cannot\n"
		"be read or written, 5 not quiet or CI not reached under --strict.\n",
		CALIB_BATCHES, 100 * TARGET_CI, STEIN_N0, DEFAULT_MAX_TIME_NS / 1e9, DEFAULT_SECONDS_NS / 1e6, FLUID_DEFAULT_CHUNK_LOOPS);
}

/* how many replications: exactly reps, else until target (a fraction of tau_F) or max_ns */
struct cal_plan {
	unsigned reps;
	double target;
	uint64_t rep_ns, max_ns;
};

enum cal_stop { CAL_STOP_REPS, CAL_STOP_TARGET, CAL_STOP_MAX_TIME };
static const char *const cal_stop_name[] = { "reps", "target", "max-time" };

struct cpu_result {
	int cpu;
	unsigned reps;        /* replications made */
	size_t stein_n;       /* what Stein's rule asked for (0: --reps) */
	enum cal_stop stop;
	struct calib_result r;
	struct calib_quiet_in q;
	struct calib_verdict v;
	double *tau_reps;     /* tau_F of each replication in time order (owned; NULL if it failed) */
};

static void free_results(struct cpu_result *res, int n)
{
	for (int i = 0; res && i < n; i++)
		free(res[i].tau_reps);
	free(res);
}

static int calibrate_cpu(struct exp_env *e, int cpu, const struct exp_fluid_opts *fo, const struct cal_plan *pl,
			 const struct context *ctx, double loadavg1, struct msg_progress *prog, double *done,
			 struct cpu_result *res, char *err, size_t errlen)
{
	struct cli_cpus one = { .n = 1, .cpu = { cpu } };
	struct calib_acc acc = { 0 };
	struct procfs_task *t0 = NULL, *t1 = NULL;
	size_t n0 = 0, n1 = 0;
	struct procfs_stat s0, s1;
	int rc = 0, have_stat;
	memset(res, 0, sizeof *res);
	res->cpu = cpu;
	procfs_read_tasks(&t0, &n0);
	have_stat = procfs_read_stat(&s0) == 0;
	uint64_t w0 = dclock_raw_ns(), deadline = w0 + pl->max_ns;
	/* --precision: STEIN_N0 replications, then the number Stein's rule asks for at their spread */
	size_t want = pl->reps ? pl->reps : STEIN_N0;
	res->stop = pl->reps ? CAL_STOP_REPS : CAL_STOP_TARGET;
	if (!pl->reps)
		msg_progress_deadline(prog, deadline);
	for (unsigned i = 0; i < want && !rc; i++) {
		static struct fluid_report r;
		if (!pl->reps && i >= 2 && dclock_raw_ns() + pl->rep_ns > deadline) {
			res->stop = CAL_STOP_MAX_TIME;
			break;
		}
		if (pl->reps)
			msg_progress_phase(prog, "CPU %d, replication %u of %u", cpu, i + 1, pl->reps);
		else
			msg_progress_phase(prog, "CPU %d, replication %u of %zu%s", cpu, i + 1, want,
					   res->stein_n ? " (Stein)" : " (first stage)");
		rc = exp_run_fluids(e, &one, fo, pl->rep_ns, &r, err, errlen);
		if (!rc && (rc = calib_acc_add(&acc, &r)))
			snprintf(err, errlen, "out of memory");
		*done += 1;
		msg_progress_update(prog, *done);
		if (!rc && !pl->reps && acc.n >= 2) {
			struct stats_summary t;
			struct calib_batches b;
			calib_tau_summary(acc.tau, acc.n, 0.95, &t, &b);
			if (acc.n == STEIN_N0) {
				res->stein_n = stats_stein_n(t.sd * b.serial, acc.n, pl->target * t.mean, 0.95);
				want = res->stein_n > want ? res->stein_n : want;
			}
			msg_progress_ci(prog, 100 * t.ci_half / t.mean, 100 * pl->target);
			/*
			 * Stein's number is a floor, not a stop: the host's speed
			 * comes in bursts, and a quiet first stage asks for too
			 * few. Past it, go on while the interval over all the
			 * replications is wider than the target.
			 */
			if (acc.n >= want && acc.n >= STEIN_N0 && !(t.ci_half <= pl->target * t.mean))
				want = acc.n + 1;
		}
	}
	res->reps = (unsigned)acc.n;
	double wall_s = (double)(dclock_raw_ns() - w0) / 1e9;
	if (!rc) {
		procfs_read_tasks(&t1, &n1);
		have_stat = have_stat && procfs_read_stat(&s1) == 0;
		calib_acc_result(&acc, pl->target, &res->r);
		struct calib_quiet_in *q = &res->q;
		q->cpu = cpu;
		q->ncpus_online = ctx->online.n;
		q->loadavg1 = loadavg1;
		q->cv = acc.n > 1 ? res->r.tau.cv : NAN;
		q->fluid_share = res->r.fluid_share;
		q->steal_frac = have_stat ? calib_steal_frac(&s0, &s1, cpu) : NAN;
		calib_others(t0, n0, t1, n1, getpid(), wall_s, ctx->user_hz, q);
		calib_judge(q, &res->v);
		res->tau_reps = acc.tau; /* kept for the JSON's replications */
		acc.tau = NULL;
	}
	calib_acc_free(&acc);
	free(t0);
	free(t1);
	return rc;
}

static void print_cpu(const struct cpu_result *r, const struct exp_fluid_opts *fo, const char *variant,
		      const struct cal_plan *pl)
{
	const struct stats_summary *t = &r->r.tau;
	printf("CPU %d   fluid %s at %s, %u x %.3g s\n", r->cpu, variant, fo->sched, r->reps, (double)pl->rep_ns / 1e9);
	const struct calib_batches *b = &r->r.batches;
	if (t->n > 1) {
		printf("  tau_F        %.5f ns/loop ± %.5f (95%% CI, ±%.2f%%)  CV %.2f%%  min…max %.5f…%.5f  n=%zu\n", t->mean,
		       t->ci_half, 100 * t->ci_half / t->mean, 100 * t->cv, t->min, t->max, t->n);
		if (b->p < STATS_SPELLS_P)
			printf("               the host's speed moved in spells: the means of %d batches of consecutive "
			       "replications varied more than the spread within the batches gives (p = %.2g), and the CI, "
			       "over those means, is %.2f times the t interval\n",
			       CALIB_BATCHES, b->p, b->serial);
	} else {
		printf("  tau_F        %.5f ns/loop  n=1: no CI or CV (use --reps 2 or more)\n", t->mean);
	}
	printf("  undisturbed  %.5f ns/loop (chunks with nothing else in them)  CV %.2f%%\n", r->r.tau0.mean,
	       100 * r->r.tau0.cv);
	printf("  fluid share  %.2f%% of CPU %d (the fluid's CPU time over its wall time)\n", 100 * r->r.fluid_share, r->cpu);
	printf("  gaps         %.0f/s, mean %.1f us, longest %.0f us: %.2f%% of the time went to other work\n",
	       r->r.gap_rate_per_s, r->r.gap_mean_us, r->r.longest_gap_us, 100 * r->r.gap_frac);
	if (t->n > 1 && t->ci_half / t->mean > pl->target)
		printf("  precision    ±%.2f%% reached%s; the ±%.2g%% target needs about %.0f replications at this spread, "
		       "about %.0f s, or a steadier host\n",
		       100 * t->ci_half / t->mean, r->stop == CAL_STOP_MAX_TIME ? " when --max-time ran out" : "",
		       100 * pl->target, r->r.needed_reps, r->r.needed_reps * (double)pl->rep_ns / 1e9);
	else if (t->n > 1)
		printf("  precision    ±%.3f%%, within the ±%.2g%% target\n", 100 * t->ci_half / t->mean, 100 * pl->target);
	if (r->stein_n)
		printf("  stopping     Stein's rule: %d replications, then %zu at their spread, more while the CI is wider "
		       "than the target; %u made (%s)\n",
		       STEIN_N0, r->stein_n, r->reps, r->stop == CAL_STOP_MAX_TIME ? "--max-time ran out" : "target reached");
	/* other users name their processes: their names never reach the terminal raw */
	char safe[4 * sizeof r->v.reason[0]];
	if (r->q.ntop > 0)
		printf("  others       %.1f%% of a CPU in other processes; top: %s (pid %d) %.1f%%\n",
		       100 * r->q.others_frac, safetext_copy(safe, sizeof safe, r->q.top[0].comm), r->q.top[0].pid,
		       100 * r->q.top[0].frac);
	if (r->v.quiet) {
		printf("  verdict      quiet\n");
	} else {
		printf("  verdict      not quiet:\n");
		for (int i = 0; i < r->v.n; i++)
			printf("               - %s\n", safetext_copy(safe, sizeof safe, r->v.reason[i]));
	}
}

static json_t *cpu_json(const struct cpu_result *r, const struct cal_plan *pl)
{
	json_t *reasons = json_array();
	for (int i = 0; i < r->v.n; i++)
		json_array_append_new(reasons, jout_text(r->v.reason[i]));
	json_t *o = json_object();
	json_object_set_new(o, "cpu", json_integer(r->cpu));
	json_object_set_new(o, "tau_f_ns", jout_num(r->r.tau.mean));
	json_object_set_new(o, "ci95_ns", jout_num(r->r.tau.ci_half));
	json_object_set_new(o, "ci_serial_factor", jout_num(r->r.batches.serial));
	json_object_set_new(o, "batch_variance_ratio", jout_num(r->r.batches.ratio));
	json_object_set_new(o, "spells_p", jout_num(r->r.batches.p));
	json_object_set_new(o, "spells", json_boolean(r->r.batches.p < STATS_SPELLS_P));
	json_object_set_new(o, "cv", jout_num(r->r.tau.cv));
	json_object_set_new(o, "min_ns", jout_num(r->r.tau.min));
	json_object_set_new(o, "max_ns", jout_num(r->r.tau.max));
	json_object_set_new(o, "reps", json_integer(r->reps));
	json_object_set_new(o, "seconds", jout_num((double)pl->rep_ns / 1e9));
	json_object_set_new(o, "precision_target", jout_num(pl->target));
	json_object_set_new(o, "precision_reached", json_boolean(r->r.tau.ci_half / r->r.tau.mean <= pl->target));
	json_object_set_new(o, "stein_reps", r->stein_n ? json_integer((json_int_t)r->stein_n) : json_null());
	json_object_set_new(o, "stopped_by", json_string(cal_stop_name[r->stop]));
	json_object_set_new(o, "tau0_ns", jout_num(r->r.tau0.mean));
	json_object_set_new(o, "tau0_cv", jout_num(r->r.tau0.cv));
	json_object_set_new(o, "fluid_share", jout_num(r->r.fluid_share));
	json_object_set_new(o, "gap_rate_per_s", jout_num(r->r.gap_rate_per_s));
	json_object_set_new(o, "gap_mean_us", jout_num(r->r.gap_mean_us));
	json_object_set_new(o, "gap_frac", jout_num(r->r.gap_frac));
	json_object_set_new(o, "steal_frac", jout_num(r->q.steal_frac));
	json_object_set_new(o, "others_frac", jout_num(r->q.others_frac));
	json_object_set_new(o, "quiet", json_boolean(r->v.quiet));
	json_object_set_new(o, "reasons", reasons);
	json_t *reps = json_array();
	for (unsigned i = 0; r->tau_reps && i < r->reps; i++)
		json_array_append_new(reps, jout_num(r->tau_reps[i]));
	json_object_set_new(o, "replications_tau_ns", reps);
	return o;
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },	 { "seconds", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },	 { "precision", required_argument, NULL, 'p' },
		{ "max-time", required_argument, NULL, 'm' },	 { "fluid-sched", required_argument, NULL, 'S' },
		{ "chunk-loops", required_argument, NULL, 'L' }, { "calibration", required_argument, NULL, 'f' },
		{ "no-save", no_argument, NULL, 'n' },		 { "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },		 { "strict", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },		 { 0, 0, 0, 0 },
	};
	const char *cpus_arg = "0", *store_arg = NULL;
	uint64_t reps64 = 0, chunk = FLUID_DEFAULT_CHUNK_LOOPS;
	struct cal_plan pl = { .target = TARGET_CI, .rep_ns = DEFAULT_SECONDS_NS, .max_ns = DEFAULT_MAX_TIME_NS };
	int precision_given = 0, max_time_given = 0;
	enum fluid_sched sched = FLUID_SCHED_IDLE;
	int json = 0, save = 1, strict = 0, c;

	struct msg_getopt g = { .cmd = "calibrate", .opts = opts, .usage = usage, .json = &json };
	while ((c = msg_getopt_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'c':
			cpus_arg = optarg;
			break;
		case 's':
			if (cli_parse_duration_ns(optarg, &pl.rep_ns) || pl.rep_ns < 1000000 || pl.rep_ns > 3600000000000ull)
				return msg_usage("calibrate", "invalid value '%s' for --seconds (1ms to 1h, e.g. 250ms)", optarg);
			break;
		case 'r':
			if (cli_parse_u64(optarg, 1, 100000, &reps64))
				return msg_usage("calibrate", "invalid value '%s' for --reps (1 to 100000)", optarg);
			break;
		case 'p':
			if (cli_parse_percent(optarg, &pl.target) || !(pl.target > 0) || pl.target >= 1)
				return msg_usage("calibrate", "invalid value '%s' for --precision (a percentage above 0 and "
							      "below 100, e.g. 0.2%%)", optarg);
			precision_given = 1;
			break;
		case 'm':
			if (cli_parse_duration_ns(optarg, &pl.max_ns) || pl.max_ns < 1000000)
				return msg_usage("calibrate", "invalid value '%s' for --max-time (1ms or more, e.g. 10s)",
						 optarg);
			max_time_given = 1;
			break;
		case 'S':
			if (fluid_sched_parse(optarg, &sched))
				return msg_usage("calibrate", "invalid value '%s' for --fluid-sched (idle, nice or normal)",
						 optarg);
			break;
		case 'L':
			if (cli_parse_u64(optarg, 1, 1000000000, &chunk))
				return msg_usage("calibrate", "invalid value '%s' for --chunk-loops", optarg);
			break;
		case 'f':
			if (!*optarg || !safetext_printable(optarg))
				return msg_usage("calibrate", "invalid value '%s' for --calibration (a file name, not empty, "
							      "without control characters)", optarg);
			store_arg = optarg;
			break;
		case 'n':
			save = 0;
			break;
		case 'q':
			msg_set_quiet(true);
			break;
		case 'x':
			strict = 1;
			break;
		}
	}
	if (g.status >= 0)
		return g.status;
	if (msg_no_operands("calibrate", argc, argv))
		return EXIT_USAGE;
	msg_set_json(json);

	struct context ctx;
	context_read(&ctx);
	static struct cli_cpus cpus;
	int rc = cli_parse_cpulist(cpus_arg, &ctx.online, &cpus);
	if (rc)
		return msg_usage("calibrate", "invalid CPU list '%s' for --cpus (e.g. 0-3,5 or all)", cpus_arg);
	for (int i = 0; i < cpus.n; i++)
		if (!cli_cpus_contains(&ctx.online, cpus.cpu[i])) {
			char on[256];
			cli_format_cpulist(&ctx.online, on, sizeof on);
			return msg_usage("calibrate", "cpu %d is not online (online: %s)", cpus.cpu[i], on);
		}
	if (reps64 && (precision_given || max_time_given))
		return msg_usage("calibrate", "--reps fixes the number of replications; --precision and --max-time "
					      "choose it: give one");
	pl.reps = (unsigned)reps64;

	/* the store is checked before the work, so a broken one costs nothing */
	char store_path[4096];
	if (store_arg)
		snprintf(store_path, sizeof store_path, "%s", store_arg);
	else if (calib_store_default_path(store_path, sizeof store_path)) {
		msg_error("cannot locate the calibration store: neither XDG_CACHE_HOME nor HOME is set; use --calibration FILE");
		return EXIT_RESOURCE;
	}
	/* only the default store's directory is made; a path the user gave is taken as it is */
	int store_flags = store_arg ? 0 : CALIB_STORE_MKDIR;
	if (save && (rc = calib_store_check(store_path, store_flags))) {
		msg_error("cannot write the calibration store '%s': %s", store_path, outfile_strerror(rc));
		return EXIT_RESOURCE;
	}
	struct calib_store store;
	unsigned long line;
	char why[256];
	rc = calib_store_load(store_path, &store, &line, why, sizeof why);
	if (rc == -EBADMSG) {
		msg_error("%s:%lu: %s", store_path, line, why);
		return EXIT_RESOURCE;
	}
	if (rc) {
		msg_error("cannot read '%s': %s", store_path, strerror(-rc));
		return EXIT_RESOURCE;
	}

	struct exp_env *env = malloc(sizeof *env);
	char err[512];
	if (!env || exp_env_init(env, err, sizeof err)) {
		msg_error("%s", env ? err : "out of memory");
		free(env);
		calib_store_free(&store);
		return EXIT_RESOURCE;
	}
	/* every CPU calibrated (--cpus all): the coordinator moves off each one in turn */
	int pin_each = exp_pin_coordinator(env, &cpus, &ctx.online) < 0;
	struct exp_fluid_opts fo = { .sched = fluid_sched_name(sched), .chunk_loops = chunk };
	char variant[48];
	context_variant(variant, sizeof variant, (unsigned long long)chunk);

	struct procfs_loadavg la;
	double loadavg1 = procfs_read_loadavg(&la) == 0 ? la.l1 : NAN;
	struct cpu_result *res = calloc((size_t)cpus.n, sizeof *res);
	struct msg_progress prog;
	double done = 0;
	uint64_t t_start = dclock_raw_ns();
	msg_progress_start(&prog, "calibrating", pl.reps ? (double)pl.reps * cpus.n : 0);
	int failed = 0, ncal = 0;
	for (int i = 0; i < cpus.n && res; i++) {
		if (pin_each) {
			struct cli_cpus one = { .n = 1, .cpu = { cpus.cpu[i] } };
			exp_pin_coordinator(env, &one, &ctx.online);
		}
		rc = calibrate_cpu(env, cpus.cpu[i], &fo, &pl, &ctx, loadavg1, &prog, &done, &res[i], err,
				   sizeof err);
		if (rc) {
			failed = 1;
			break;
		}
		ncal++;
	}
	msg_progress_end(&prog);
	double took_s = (double)(dclock_raw_ns() - t_start) / 1e9;
	int interrupted = env->interrupted;
	exp_env_fini(env);
	free(env);
	if (!res) {
		msg_error("out of memory");
		calib_store_free(&store);
		return EXIT_FAILED;
	}
	if (failed) {
		msg_error("%s", interrupted ? "interrupted; nothing was saved" : err);
		free_results(res, ncal);
		calib_store_free(&store);
		return EXIT_FAILED;
	}

	int untrusted = 0;
	char date[32];
	csvout_date(date, sizeof date);
	for (int i = 0; i < ncal; i++) {
		struct cpu_result *r = &res[i];
		if (!r->v.quiet || !(r->r.tau.ci_half / r->r.tau.mean <= pl.target))
			untrusted = 1;
		struct calib_row row;
		memset(&row, 0, sizeof row);
		snprintf(row.host, sizeof row.host, "%s", ctx.host);
		snprintf(row.kernel, sizeof row.kernel, "%s", ctx.kernel);
		snprintf(row.cpu_model, sizeof row.cpu_model, "%s", ctx.cpu_model);
		row.cpu = r->cpu;
		snprintf(row.variant, sizeof row.variant, "%s", variant);
		snprintf(row.sched, sizeof row.sched, "%s", fo.sched);
		row.tau_f_ns = r->r.tau.mean;
		row.ci95_ns = isnan(r->r.tau.ci_half) ? 0 : r->r.tau.ci_half;
		row.cv = r->r.tau.cv;
		row.tau0_ns = r->r.tau0.mean;
		row.reps = r->reps;
		row.seconds = (double)pl.rep_ns / 1e9;
		row.quiet = r->v.quiet;
		calib_verdict_text(&r->v, row.verdict, sizeof row.verdict);
		snprintf(row.date, sizeof row.date, "%s", date);
		calib_store_put(&store, &row);
	}
	char save_why[256] = "";
	int save_rc = save ? calib_store_save(store_path, &store, store_flags, save_why, sizeof save_why) : 0;

	if (json) {
		json_t *arr = json_array();
		for (int i = 0; i < ncal; i++)
			json_array_append_new(arr, cpu_json(&res[i], &pl));
		json_t *o = json_object();
		json_object_set_new(o, "context", context_json(&ctx));
		json_object_set_new(o, "cpus", arr);
		json_object_set_new(o, "store", save ? jout_text(store_path) : json_null());
		json_object_set_new(o, "seconds_taken", json_real(took_s));
		jout_print(o);
	} else {
		context_print(&ctx, stdout);
		printf("\n");
		for (int i = 0; i < ncal; i++) {
			print_cpu(&res[i], &fo, variant, &pl);
			printf("\n");
		}
		printf("calibrated %d CPU%s in %.1f s%s%s\n", ncal, ncal == 1 ? "" : "s", took_s,
		       save && !save_rc ? "; saved to " : "", save && !save_rc ? store_path : "");
	}
	free_results(res, ncal);
	calib_store_free(&store);
	if (save_rc) {
		msg_error("cannot write '%s': %s", store_path, save_why[0] ? save_why : outfile_strerror(save_rc));
		return EXIT_RESOURCE;
	}
	if (strict && untrusted) {
		msg_warn("the host is not quiet or the CI target was not reached (--strict)");
		return EXIT_UNTRUSTED;
	}
	return EXIT_OK;
}
