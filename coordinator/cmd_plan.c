/* cmd_plan.c - displace plan: the loops a slow clock needs, and how long they take */
#include "calib/slowclock.h"
#include "common/cli.h"
#include "coordinator/displace.h"
#include "coordinator/jsonout.h"
#include "coordinator/msg.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_CONFIDENCE 0.95
#define DEFAULT_PRECISION 0.05

enum method { BEILNER, CHAN, DANZIG };
static const char *const method_name[] = { "beilner", "chan", "danzig" };

static void usage(FILE *f)
{
	fputs("usage: displace plan --resolution D --tau T [--confidence R]\n"
	      "                     [--precision P | --digits N] [--method M] [--max-tau T] [--json]\n"
	      "\n"
	      "Plans an experiment with a slow clock: how many loops (samples) the mean\n"
	      "of an activity of about T needs, with a clock that ticks every D, to be\n"
	      "within +-P of the truth at confidence R, and how long that takes. It also\n"
	      "gives the L_PUT the displacement method needs so that its clock error\n"
	      "e_res = D (1 + L_F(2)/L_F(1)) / (2 L_PUT) stays within +-P (with\n"
	      "L_F(2) = L_F(1), e_res = D / L_PUT). The formulas are in docs/slowclock.md.\n"
	      "\n"
	      "Experiment:\n"
	      "  --resolution D   clock tick, a duration: 1ms, 4ms, 10us (required)\n"
	      "  --tau T          expected duration of the shortest activity to measure\n"
	      "                   (required)\n"
	      "  --max-tau T      the longest activity, usually the whole loop cycle: the\n"
	      "                   experiment takes loops x T (default: --tau)\n"
	      "\n"
	      "Precision:\n"
	      "  --confidence R   confidence level, a percentage in (0, 100): 95 or 99%\n"
	      "                   (default 95)\n"
	      "  --precision P    half-width of the confidence interval, relative to tau:\n"
	      "                   1%, 0.5% (default 5%)\n"
	      "  --digits N       instead of --precision: report tau to N significant\n"
	      "                   digits, the last within one unit (Danzig and Melvin)\n"
	      "                   (default: off, --precision applies)\n"
	      "  --method M       beilner: Beilner 1988 (14a), (14b), and (10b) for the\n"
	      "                            worst case when tau spans a tick or more\n"
	      "                   chan:    Chan (5), with the CI (4) it reaches\n"
	      "                   danzig:  Danzig and Melvin (4), with +-P tau as epsilon\n"
	      "                   (default beilner). For the same +-P all three give the\n"
	      "                   same count; they differ in how they state it.\n"
	      "\n"
	      "Output:\n"
	      "  --json           print JSON instead of text\n"
	      "  -h, --help       this help\n"
	      "\n"
	      "Example: displace plan --resolution 1ms --tau 50us --max-tau 2.5ms\n",
	      f);
}

/* A duration in a readable unit, 4 significant digits. */
static const char *fmt_ns(double ns, char *buf, size_t len)
{
	/* a unit is used from its threshold up: 73 s, not 1.216 min */
	static const struct {
		double from_ns;
		const char *unit;
		double ns;
	} u[] = {
		{ 72 * 3600e9, "days", 86400e9 },
		{ 7200e9, "h", 3600e9 },
		{ 600e9, "min", 60e9 },
		{ 1e9, "s", 1e9 },
		{ 1e6, "ms", 1e6 },
		{ 1e3, "us", 1e3 },
		{ 0, "ns", 1 },
	};
	if (!isfinite(ns)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	size_t i = 0;
	while (i + 1 < sizeof u / sizeof u[0] && fabs(ns) < u[i].from_ns)
		i++;
	snprintf(buf, len, "%.4g %s", ns / u[i].ns, u[i].unit);
	return buf;
}

/* A count of loops: whole numbers while they are exact, then %.3g. */
static const char *fmt_count(double n, char *buf, size_t len)
{
	if (!isfinite(n))
		snprintf(buf, len, "n/a");
	else if (n < 1e15)
		snprintf(buf, len, "%.0f", n);
	else
		snprintf(buf, len, "%.3g", n);
	return buf;
}

struct plan {
	enum method method;
	double res_ns, tau_ns, max_tau_ns;
	double conf, z;
	double prec;     /* half-width relative to tau */
	int digits;      /* 0: --precision */
	double half_ns;  /* prec tau */
	double k, frac;  /* tau = (k + frac) D */
	double loops;    /* rounded up */
	double loops_exact;
	const char *equation;
	double worst;    /* Beilner (10b) worst case, NAN unless k >= 1 */
	double chan_half_ns;
	double lput;     /* displacement: L_PUT for e_res <= half */
	double eres_ns;
};

static void compute(struct plan *p)
{
	p->k = floor(p->tau_ns / p->res_ns);
	p->frac = p->tau_ns / p->res_ns - p->k;
	p->worst = NAN;
	p->chan_half_ns = NAN;
	switch (p->method) {
	case BEILNER: {
		/* Beilner's p is the total width of the CI: twice our half-width */
		double w = slowclock_beilner_width(p->conf);
		if (p->k == 0) {
			p->loops_exact = slowclock_beilner_loops_short(w, 2 * p->prec, p->tau_ns, p->res_ns);
			p->equation = "Beilner (14b)";
		} else {
			p->loops_exact = slowclock_beilner_loops(w, 2 * p->prec, p->tau_ns, p->res_ns);
			p->equation = "Beilner (14a)";
			p->worst = ceil(slowclock_beilner_loops_bound(w, 2 * p->prec, p->tau_ns, p->res_ns));
		}
		break;
	}
	case CHAN:
		p->loops_exact = slowclock_chan_samples(p->k, p->frac, p->z, p->prec);
		p->equation = "Chan (5)";
		break;
	case DANZIG:
		p->loops_exact = slowclock_danzig_samples(p->z, p->res_ns, p->tau_ns, p->half_ns);
		p->equation = "Danzig and Melvin (4)";
		break;
	}
	p->loops = ceil(p->loops_exact);
	/* Chan's CI (4) at that n: z l sqrt(p(1-p)/n), which is z sqrt((10a)) */
	if (p->method == CHAN && p->loops > 0)
		p->chan_half_ns = p->z * sqrt(slowclock_beilner_var_ns2(p->tau_ns, p->res_ns, p->loops));
	/*
	 * displace reports e_res as twice Woodside's figure: a duration read at
	 * both ends is off by up to D, not D/2 (docs/slowclock.md)
	 */
	p->lput = ceil(2 * slowclock_woodside_lput(p->res_ns, p->tau_ns, p->prec, 1));
	p->eres_ns = 2 * slowclock_woodside_eres_ns(p->res_ns, 1, 1, p->lput);
}

static int print_json(const struct plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "method", json_string(method_name[p->method]));
	json_object_set_new(o, "equation", json_string(p->equation));
	json_object_set_new(o, "resolution_ns", jout_num(p->res_ns));
	json_object_set_new(o, "tau_ns", jout_num(p->tau_ns));
	json_object_set_new(o, "max_tau_ns", jout_num(p->max_tau_ns));
	json_object_set_new(o, "confidence", jout_num(p->conf));
	json_object_set_new(o, "z", jout_num(p->z));
	json_object_set_new(o, "precision", jout_num(p->prec));
	json_object_set_new(o, "digits", p->digits ? json_integer(p->digits) : json_null());
	json_object_set_new(o, "half_width_ns", jout_num(p->half_ns));
	json_object_set_new(o, "whole_ticks", jout_num(p->k));
	json_object_set_new(o, "tick_fraction", jout_num(p->frac));
	json_object_set_new(o, "loops", jout_num(p->loops));
	json_object_set_new(o, "loops_exact", jout_num(p->loops_exact));
	json_object_set_new(o, "loops_worst_case", jout_num(p->worst));
	json_object_set_new(o, "experiment_ns", jout_num(p->loops * p->max_tau_ns));
	json_object_set_new(o, "chan_half_width_ns", jout_num(p->chan_half_ns));
	json_t *dm = json_object();
	json_object_set_new(dm, "l_put", jout_num(p->lput));
	json_object_set_new(dm, "e_res_ns", jout_num(p->eres_ns));
	json_object_set_new(dm, "put_cpu_ns", jout_num(p->lput * p->tau_ns));
	json_object_set_new(o, "displacement", dm);
	return jout_print(o) ? EXIT_FAILED : EXIT_OK;
}

static void print_text(const struct plan *p)
{
	char a[48], b[48], c[48];
	static const char *const paper[] = { "Beilner 1988", "Chan", "Danzig and Melvin" };
	printf("Slow-clock plan, method %s (%s)\n\n", method_name[p->method], paper[p->method]);
	printf("  clock resolution D   %s\n", fmt_ns(p->res_ns, a, sizeof a));
	printf("  activity tau         %s (tau/D = %.4g: %.0f whole tick%s + %.4g)\n", fmt_ns(p->tau_ns, a, sizeof a),
	       p->tau_ns / p->res_ns, p->k, p->k == 1 ? "" : "s", p->frac);
	printf("  confidence           %.4g %% (z = %.4f)\n", p->conf * 100, p->z);
	if (p->digits)
		printf("  precision            %d significant digits: +-%s (+-%.3g %%)\n", p->digits,
		       fmt_ns(p->half_ns, a, sizeof a), p->prec * 100);
	else
		printf("  precision            +-%.4g %% (+-%s)\n", p->prec * 100, fmt_ns(p->half_ns, a, sizeof a));
	printf("\n");
	printf("  loops needed         %s (%s)\n", fmt_count(p->loops, a, sizeof a), p->equation);
	if (p->loops == 0)
		printf("                       tau is a whole number of ticks: under Beilner's (8)\n"
		       "                       every interval sees exactly k of them\n");
	if (isfinite(p->worst))
		printf("  worst case           %s (Beilner (10b): wherever tau falls between ticks)\n",
		       fmt_count(p->worst, a, sizeof a));
	if (isfinite(p->chan_half_ns))
		printf("  CI reached           +-%s (Chan (4), at that n)\n", fmt_ns(p->chan_half_ns, a, sizeof a));
	printf("  experiment time      %s (%s loops x %s%s)\n", fmt_ns(p->loops * p->max_tau_ns, b, sizeof b),
	       fmt_count(p->loops, a, sizeof a), fmt_ns(p->max_tau_ns, c, sizeof c),
	       p->max_tau_ns > p->tau_ns ? " loop cycle" : "; --max-tau for a longer loop cycle");
	if (isfinite(p->worst) && p->worst > p->loops)
		printf("  worst-case time      %s\n", fmt_ns(p->worst * p->max_tau_ns, a, sizeof a));

	printf("\nDisplacement method (Woodside, Courtois and Schramm 1997, e_res):\n");
	printf("  L_PUT needed         %s (e_res = 2D/L_PUT = %s <= +-%s, with L_F(2) = L_F(1))\n",
	       fmt_count(p->lput, a, sizeof a), fmt_ns(p->eres_ns, b, sizeof b), fmt_ns(p->half_ns, c, sizeof c));
	printf("  PUT CPU time         %s (L_PUT x tau; the co-run lasts at least this)\n",
	       fmt_ns(p->lput * p->tau_ns, a, sizeof a));
	printf("  e_res is a worst-case bound, twice Woodside's D/L_PUT (a duration read at both\n"
	       "  ends is off by up to D): it holds at any confidence.\n");
}

static int parse_duration(const char *opt, const char *arg, double *ns)
{
	uint64_t v;
	if (cli_parse_duration_ns(arg, &v))
		return msg_usage("plan", "invalid value '%s' for %s (a duration such as 1ms, 50us)", arg, opt);
	if (v == 0)
		return msg_usage("plan", "%s must be above 0, got '%s'", opt, arg);
	*ns = (double)v;
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "resolution", required_argument, NULL, 'r' }, { "tau", required_argument, NULL, 't' },
		{ "max-tau", required_argument, NULL, 'T' },    { "confidence", required_argument, NULL, 'c' },
		{ "precision", required_argument, NULL, 'p' },  { "digits", required_argument, NULL, 'd' },
		{ "method", required_argument, NULL, 'm' },     { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },             { 0, 0, 0, 0 },
	};
	struct plan p = { .method = BEILNER, .conf = DEFAULT_CONFIDENCE, .prec = DEFAULT_PRECISION };
	int json = 0, have_prec = 0, c, rc;
	const char *conf_arg = NULL;
	struct msg_getopt g = { .cmd = "plan", .opts = opts, .usage = usage, .json = &json };
	while ((c = msg_getopt_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'r':
			if ((rc = parse_duration("--resolution", optarg, &p.res_ns)))
				return rc;
			break;
		case 't':
			if ((rc = parse_duration("--tau", optarg, &p.tau_ns)))
				return rc;
			break;
		case 'T':
			if ((rc = parse_duration("--max-tau", optarg, &p.max_tau_ns)))
				return rc;
			break;
		case 'c':
			if (cli_parse_percent(optarg, &p.conf))
				return msg_usage("plan", "invalid value '%s' for --confidence (strictly between 0 and 100, e.g. 95)",
						 optarg);
			conf_arg = optarg;
			break;
		case 'p':
			if (cli_parse_percent(optarg, &p.prec))
				return msg_usage("plan", "invalid value '%s' for --precision (above 0 and below 100 %%, e.g. 1%%)",
						 optarg);
			have_prec = 1;
			break;
		case 'd':
			if (cli_parse_int(optarg, 1, 15, &p.digits))
				return msg_usage("plan", "invalid value '%s' for --digits (1 to 15)", optarg);
			break;
		case 'm': {
			size_t i = 0;
			while (i < 3 && strcmp(optarg, method_name[i]))
				i++;
			if (i == 3)
				return msg_usage("plan", "unknown method '%s' (beilner, chan or danzig)", optarg);
			p.method = (enum method)i;
			break;
		}
		}
	}
	if (g.status >= 0)
		return g.status;
	if (msg_no_operands("plan", argc, argv))
		return EXIT_USAGE;
	if (p.res_ns == 0)
		return msg_usage("plan", "missing --resolution (the clock tick, e.g. 1ms)");
	if (p.tau_ns == 0)
		return msg_usage("plan", "missing --tau (the expected duration, e.g. 50us)");
	if (have_prec && p.digits)
		return msg_usage("plan", "--precision and --digits exclude each other");
	if (p.max_tau_ns == 0)
		p.max_tau_ns = p.tau_ns;
	else if (p.max_tau_ns < p.tau_ns)
		return msg_usage("plan", "--max-tau must be at least --tau (it is the longest activity)");
	/* "0.95" reads as 0.95 %: almost surely meant as 95 % */
	if (conf_arg && p.conf < 0.01 && !strchr(conf_arg, '%'))
		msg_warn("--confidence %s means %s %%; write 95 for 95 %%", conf_arg, conf_arg);

	p.z = slowclock_z(p.conf);
	if (p.digits) {
		p.half_ns = slowclock_digits_eps_ns(p.tau_ns, p.digits);
		p.prec = p.half_ns / p.tau_ns;
	} else {
		p.half_ns = p.prec * p.tau_ns;
	}
	compute(&p);
	if (json)
		return print_json(&p);
	print_text(&p);
	return EXIT_OK;
}
