/* msg.c - messages to the user: errors, warnings, progress */
#include "coordinator/msg.h"
#include "common/dclock.h"
#include "common/safetext.h"
#include "coordinator/displace.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bool quiet;

void msg_set_quiet(bool q)
{
	quiet = q;
}

bool msg_quiet(void)
{
	return quiet;
}

/*
 * Every message goes through safetext: it may quote a child's error line,
 * a peer's words, a file's content or another user's process name, and
 * none of their bytes may drive the terminal.
 */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0) {
		fprintf(stderr, "displace: %sout of memory\n", prefix);
		return;
	}
	size_t len = 4 * strlen(text) + 1;
	char *safe = malloc(len);
	fprintf(stderr, "displace: %s%s\n", prefix, safe ? safetext_copy(safe, len, text) : "out of memory");
	free(safe);
	free(text);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void msg_info(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int msg_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "try 'displace %s --help'\n", cmd);
	else
		fprintf(stderr, "try 'displace --help'\n");
	return EXIT_USAGE;
}

int msg_getopt_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return msg_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
	return msg_usage(cmd, "unknown option '%s'", argv[optind - 1]);
}


int msg_getopt_next(struct msg_getopt *g, int argc, char **argv)
{
	if (!g->started) {
		/* each command parses its own argv: getopt starts again */
		optind = 1;
		opterr = 0;
		g->status = -1;
		g->started = 1;
	}
	for (;;) {
		int c = getopt_long(argc, argv, ":h", g->opts, NULL);
		switch (c) {
		case -1:
			return -1;
		case 'h':
			g->usage(stdout);
			g->status = EXIT_OK;
			return -1;
		case ':':
		case '?':
			g->status = msg_getopt_error(g->cmd, c, argv);
			return -1;
		case 'j':
			if (g->json) {
				*g->json = 1;
				continue;
			}
			return c;
		default:
			return c;
		}
	}
}

int msg_no_operands(const char *cmd, int argc, char **argv)
{
	return optind < argc ? msg_usage(cmd, "unexpected argument '%s'", argv[optind]) : 0;
}

void msg_progress_start(struct msg_progress *p, const char *what, double total)
{
	p->what = what;
	p->start_ns = dclock_mono_ns();
	p->total = total;
	p->shown = false;
}

void msg_progress_update(struct msg_progress *p, double done)
{
	if (quiet || !isatty(STDERR_FILENO) || p->total <= 0)
		return;
	double frac = done / p->total;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	const int width = 24;
	int fill = (int)(frac * width + 0.5);
	char bar[32];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '=' : ' ';
	bar[width] = '\0';
	double elapsed_s = (double)(dclock_mono_ns() - p->start_ns) / 1e9;
	fprintf(stderr, "\r\033[K%s [%s] %3.0f%%", p->what, bar, frac * 100);
	if (frac > 0.02 && frac < 1) {
		double left_s = elapsed_s * (1 - frac) / frac;
		fprintf(stderr, "  ETA %d:%02d", (int)left_s / 60, (int)left_s % 60);
	}
	fflush(stderr);
	p->shown = true;
}

void msg_progress_end(struct msg_progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
