/* msg.c - messages to the user: errors, warnings, progress */
#include "coordinator/msg.h"
#include "common/dclock.h"
#include "common/safetext.h"
#include "coordinator/displace.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static bool quiet, json_piped;
/*
 * The progress line on the terminal, and whose it is: any message clears
 * it first. Only compared, never dereferenced, so a progress left without
 * msg_progress_end costs nothing.
 */
static bool line_shown;
static const struct msg_progress *line_owner;

void msg_set_quiet(bool q)
{
	quiet = q;
}

bool msg_quiet(void)
{
	return quiet;
}

void msg_set_json(bool json)
{
	json_piped = json && !isatty(STDOUT_FILENO);
}

static void clear_progress(void)
{
	if (line_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	line_shown = false;
	line_owner = NULL;
}

/*
 * Every message goes through safetext: it may quote a child's error line,
 * a peer's words, a file's content or another user's process name, and
 * none of their bytes may drive the terminal.
 */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	clear_progress();
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
	/* begun again, the line stays until the next draw replaces it */
	memset(p, 0, sizeof *p);
	p->what = what;
	p->start_ns = dclock_raw_ns();
	p->total = total;
	p->ci = p->next_ci = NAN;
}

/* m:ss, or h:mm:ss */
static int fmt_time(char *buf, size_t len, double s)
{
	long t = s > 0 && s < 1e7 ? (long)(s + 0.5) : 0;
	if (t >= 3600)
		return snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	return snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* append to line[0..len) at *k, never past its end */
static void add(char *line, size_t len, size_t *k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *line, size_t len, size_t *k, const char *fmt, ...)
{
	if (*k >= len - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(line + *k, len - *k, fmt, ap);
	va_end(ap);
	if (w > 0)
		*k = *k + (size_t)w < len - 1 ? *k + (size_t)w : len - 1;
}

void msg_progress_text(const struct msg_progress *p, uint64_t now_ns, char *line, size_t len)
{
	size_t k = 0;
	double elapsed_s = (double)(now_ns - p->start_ns) / 1e9;
	char t[32];
	line[0] = '\0';
	add(line, len, &k, "%s%s%s", p->what, p->phase[0] ? ": " : "", p->phase);
	if (p->total > 0) {
		double frac = p->done / p->total;
		frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
		const int width = 20;
		int fill = (int)(frac * width + 0.5);
		char bar[32];
		for (int i = 0; i < width; i++)
			bar[i] = i < fill ? '=' : ' ';
		bar[width] = '\0';
		add(line, len, &k, "  [%s] %.0f/%.0f  %3.0f%%", bar, p->done, p->total, frac * 100);
		if (frac > 0 && frac < 1) {
			fmt_time(t, sizeof t, elapsed_s * (1 - frac) / frac);
			add(line, len, &k, "  ETA %s", t);
		}
		return;
	}
	/* open-ended: the CI against its target, and when it should be reached or the time runs out */
	double left_s = p->deadline_ns > now_ns ? (double)(p->deadline_ns - now_ns) / 1e9 : NAN;
	if (p->ci_target > 0 && isfinite(p->ci))
		add(line, len, &k, "  CI ±%.2f%%, target ±%.2f%%", p->ci, p->ci_target);
	else if (p->ci_target > 0)
		add(line, len, &k, "  CI target ±%.2f%%", p->ci_target);
	/* CI ~ 1/sqrt(n): the units so far took elapsed_s, and n (ci / target)^2 are needed in all */
	double r = p->ci / p->ci_target;
	double eta_s = isfinite(r) && r > 1 ? elapsed_s * (r * r - 1) : NAN;
	if (isfinite(eta_s) && !(eta_s > left_s)) {
		fmt_time(t, sizeof t, eta_s);
		add(line, len, &k, "  ETA ~%s", t);
	} else if (isfinite(left_s)) {
		fmt_time(t, sizeof t, left_s);
		add(line, len, &k, "  ETA ≤%s (--max-time)", t);
	} else {
		fmt_time(t, sizeof t, elapsed_s);
		add(line, len, &k, "  %s", t);
	}
}

/* the line cut to the terminal's width (in characters: UTF-8 continuation bytes take no column) */
static void fit_width(char *line)
{
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	int used = 0;
	for (char *c = line; *c; c++) {
		if (((unsigned char)*c & 0xc0) == 0x80)
			continue;
		if (++used >= cols) {
			*c = '\0';
			return;
		}
	}
}

static bool progress_on(void)
{
	return !quiet && !json_piped && isatty(STDERR_FILENO);
}

/* redraw when nothing is shown yet, or the last draw is MSG_PROGRESS_INTERVAL_NS old */
static void progress_draw(struct msg_progress *p)
{
	if (!progress_on())
		return;
	uint64_t now = dclock_raw_ns();
	if (line_shown && line_owner == p && now - p->drawn_ns < MSG_PROGRESS_INTERVAL_NS)
		return;
	char line[512];
	msg_progress_text(p, now, line, sizeof line);
	fit_width(line);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	p->drawn_ns = now;
	line_shown = true;
	line_owner = p;
}

void msg_progress_phase(struct msg_progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->phase, sizeof p->phase, fmt, ap);
	va_end(ap);
	progress_draw(p);
}

void msg_progress_ci(struct msg_progress *p, double reached_pct, double target_pct)
{
	/* the worst: the largest reached / target; a CI not known yet is worse than any */
	double r = isfinite(reached_pct) && target_pct > 0 ? reached_pct / target_pct : INFINITY;
	double w = isfinite(p->next_ci) && p->next_target > 0 ? p->next_ci / p->next_target : INFINITY;
	if (!p->next_set || r > w) {
		p->next_ci = isfinite(reached_pct) ? reached_pct : NAN;
		p->next_target = target_pct;
		p->next_set = true;
	}
	/* the target is worth showing before any CI */
	if (!(p->ci_target > 0))
		p->ci_target = target_pct;
}

void msg_progress_deadline(struct msg_progress *p, uint64_t deadline_ns)
{
	p->deadline_ns = deadline_ns;
}

void msg_progress_update(struct msg_progress *p, double done)
{
	p->done = done;
	if (p->next_set) {
		p->ci = p->next_ci;
		p->ci_target = p->next_target;
		p->next_set = false;
	}
	/* drawn with the next phase: a draw now would hold the old phase on screen through the next unit */
}

void msg_progress_end(struct msg_progress *p)
{
	if (line_owner == p)
		clear_progress();
}
