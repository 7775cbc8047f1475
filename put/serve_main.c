/*
 * serve_main.c - the one main of 'put serve' and 'displace serve': the
 * options, pinning, and the server's life from the ready line to the stop
 * line. Each front end passes a struct serve_main_front (put/serve_main.h)
 * that prints for it.
 */
#include "put/serve_main.h"
#include "common/cli.h"
#include "common/pin.h"
#include "put/serve.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* the exit statuses of DESIGN.md, the same in put and displace */
enum { SERVE_EXIT_OK = 0, SERVE_EXIT_FAILED = 1, SERVE_EXIT_USAGE = 2, SERVE_EXIT_RESOURCE = 3 };

/* what next_option returns for a word that is not an option (getopt_long's style only) */
#define SERVE_OPERAND 1

static const struct option serve_opts[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "unix", required_argument, NULL, 'u' },
	{ "cpu", required_argument, NULL, 'c' },
	{ "ignore-stdin", no_argument, NULL, 'i' },
	{ "idle-timeout", required_argument, NULL, 'I' },
	{ "max-conns", required_argument, NULL, 'm' },
	{ "max-per-source", required_argument, NULL, 'M' },
	{ "fluid-cpus", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* the message, whatever its length (a value may be long); NULL without memory */
static char *vformat(const char *fmt, va_list ap)
{
	char *s;
	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

/* the message through one of the front end's printers (error, warn) */
__attribute__((format(printf, 2, 3))) static void front_say(void (*say)(const char *msg), const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	say(msg ? msg : "out of memory");
	free(msg);
}

/* a usage error; the exit status */
__attribute__((format(printf, 3, 4))) static int front_usage(const struct serve_main_front *f, bool unknown_option,
							      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	f->usage_error(msg ? msg : "out of memory", unknown_option);
	free(msg);
	return SERVE_EXIT_USAGE;
}

/*
 * next_option - the next option, as getopt_long answers: its val, ':' for
 * an option without its value, '?' for an unknown one, SERVE_OPERAND for
 * a word after the options, -1 at the end. *arg is the value, *word the
 * word to name in a usage error. With SERVE_MAIN_EXACT, *i is the next
 * word; getopt_long keeps its own (optind).
 */
static int next_option(enum serve_main_argv style, int argc, char **argv, int *i, const char **arg,
		       const char **word)
{
	*arg = NULL;
	*word = NULL;
	if (style == SERVE_MAIN_GETOPT) {
		int c = getopt_long(argc, argv, ":h", serve_opts, NULL);
		*arg = optarg;
		if (c == ':' || c == '?')
			*word = argv[optind - 1];
		if (c == -1 && optind < argc) {
			*word = argv[optind];
			return SERVE_OPERAND;
		}
		return c;
	}
	if (*i >= argc)
		return -1;
	const char *a = argv[*i];
	*word = a;
	if (!strcmp(a, "-h")) {
		++*i;
		return 'h';
	}
	for (const struct option *o = serve_opts; o->name; o++) {
		char flag[32];
		int missing = 0;
		snprintf(flag, sizeof flag, "--%s", o->name);
		if (o->has_arg == no_argument) {
			if (strcmp(a, flag))
				continue;
		} else if (!(*arg = cli_opt_value(argc, argv, i, flag, &missing))) {
			if (missing)
				return ':';
			continue;
		}
		++*i;
		return o->val;
	}
	return '?';
}

static void help(const struct serve_main_front *f)
{
	printf("usage: %s [--listen ADDR[:PORT]] [--unix PATH|none] [--cpu N] [--ignore-stdin]\n"
	       "       %*s [--idle-timeout D] [--max-conns N] [--max-per-source N]%s\n\n",
	       f->prog, (int)strlen(f->prog), "", f->fluids ? " [--fluid-cpus LIST]" : "");
	fputs(SERVE_HELP_TEXT, stdout);
	fputs(f->help_tail, stdout);
}

int serve_main(int argc, char **argv, int cpu, const struct serve_main_front *f)
{
	struct serve_config cfg;
	char err[512], line[512];
	const char *v, *word, *fluid_arg = NULL;
	int c, rc, i = 1;

	serve_config_init(&cfg);
	cfg.log = f->log;
	optind = 1;
	opterr = 0;
	while ((c = next_option(f->argv_style, argc, argv, &i, &v, &word)) != -1) {
		switch (c) {
		case 'l':
			rc = serve_config_listen(&cfg, v);
			if (rc)
				return front_usage(f, false, "invalid value '%s' for --listen (%s)", v,
						   rc == -ERANGE ? "the port must leave PORT+1 for rpc"
								 : "numeric IPv4, [IPv6] or bare IPv6, then an optional :PORT");
			break;
		case 'u':
			rc = serve_config_unix(&cfg, v);
			if (rc)
				return front_usage(f, false, "invalid value '%s' for --unix (%s)", v,
						   rc == -ENAMETOOLONG ? "above 107 bytes" : "empty or with white space");
			break;
		case 'c':
			if (cli_parse_int(v, 0, CLI_MAX_CPUS - 1, &cpu))
				return front_usage(f, false, "invalid value '%s' for --cpu", v);
			break;
		case 'i':
			cfg.watch_stdin = 0;
			break;
		case 'I':
			if (serve_config_idle(&cfg, v))
				return front_usage(f, false, "invalid value '%s' for --idle-timeout (a duration of 1s to 1d)", v);
			break;
		case 'm':
			if (serve_config_max_conns(&cfg, v))
				return front_usage(f, false, "invalid value '%s' for --max-conns (1 to %u)", v,
						   SERVE_MAX_CONNS_LIMIT);
			break;
		case 'M':
			if (serve_config_max_per_source(&cfg, v))
				return front_usage(f, false, "invalid value '%s' for --max-per-source (1 to %u)", v,
						   SERVE_MAX_CONNS_LIMIT);
			break;
		case 'F':
			if (!f->fluids)
				return front_usage(f, false, "--fluid-cpus is for 'displace serve': %s runs no fluids", f->prog);
			if (cli_parse_cpulist(v, NULL, &cfg.fluid_cpus) || cfg.fluid_cpus.n > CTL_MAX_CPUS)
				return front_usage(f, false, "invalid value '%s' for --fluid-cpus (1 to %d CPU numbers, e.g. 1 or 2-3)",
						   v, CTL_MAX_CPUS);
			fluid_arg = v;
			break;
		case 'h':
			help(f);
			return SERVE_EXIT_OK;
		case ':':
			return front_usage(f, false, "option '%s' needs a value", word);
		case SERVE_OPERAND:
			return front_usage(f, false, "unexpected argument '%s'", word);
		default:
			return front_usage(f, true, "unknown option '%s'", word);
		}
	}

	if (fluid_arg) {
		rc = f->fluids(&cfg.fluid_cpus, &cfg.fluids, err, sizeof err);
		if (rc == -EINVAL)
			return front_usage(f, false, "invalid value '%s' for --fluid-cpus: %s", fluid_arg, err);
		if (rc) {
			f->error(err);
			return SERVE_EXIT_RESOURCE;
		}
	}
	if (f->die_with_parent) {
		/* SIGTERM, not SIGKILL: the server removes its unix socket file on the way out */
		pid_t parent = getppid();
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != parent)
			return SERVE_EXIT_FAILED;
	}
	signal(SIGPIPE, SIG_IGN);
	/* before serve_open, so that anything it starts is pinned too */
	int prc = cpu >= 0 ? pin_to_cpu(cpu) : 0;
	if (prc) {
		front_say(f->error, "cannot pin to cpu %d: %s", cpu, strerror(-prc));
		return SERVE_EXIT_USAGE;
	}
	struct serve *srv;
	rc = serve_open(&cfg, &srv, err, sizeof err);
	if (rc) {
		f->error(err);
		return rc == -ENOMEM || rc == -EINVAL ? SERVE_EXIT_FAILED : SERVE_EXIT_RESOURCE;
	}
	if (!serve_config_is_local(&cfg)) {
		char where[80], fluids[200] = "";
		net_format_addr(&cfg.listen, where, sizeof where);
		if (cfg.fluids) {
			char list[160];
			cli_format_cpulist(&cfg.fluid_cpus, list, sizeof list);
			snprintf(fluids, sizeof fluids, " and run fluids on its CPUs %s", list);
		}
		front_say(f->warn, "listening on %s (rpc on the next port) beyond loopback: the peer has no "
			      "authentication, anyone who reaches it can use it%s; listen on a trusted network only",
			   where, fluids);
	}
	serve_ready_line(srv, line, sizeof line);
	printf("%s\n", line);
	fflush(stdout);
	rc = serve_run(srv, err, sizeof err);
	if (rc)
		f->error(err);
	serve_stop_line(srv, line, sizeof line);
	printf("%s\n", line);
	serve_close(srv);
	return fflush(stdout) || rc ? SERVE_EXIT_FAILED : SERVE_EXIT_OK;
}
