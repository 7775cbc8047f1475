/* plot.c - SVG plots through gnuplot, or the script and data to make them */
#include "coordinator/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char buf[4096];
		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? p : ".", prog);
		if (access(buf, X_OK) == 0)
			return 1;
		p += n;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* how far apart the series are drawn, as a share of the x range (of its logarithm on a log axis) */
#define DODGE 0.006

/* the smallest and largest finite x of every series (both 0 if there is none) */
static void x_span(const struct plot_series *s, size_t ns, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].x[i])) {
				*lo = fmin(*lo, s[k].x[i]);
				*hi = fmax(*hi, s[k].x[i]);
			}
	if (!isfinite(*lo))
		*lo = *hi = 0;
}

/* a gnuplot string literal: single quotes, doubled inside */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

int plot_write(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
	       const struct plot_series *s, size_t ns, char *hint, size_t hintlen)
{
	char base[4096], dat[4200], gp[4200];
	size_t len = strlen(svg_path);
	if (len >= sizeof base)
		return -ENAMETOOLONG;
	strcpy(base, svg_path);
	if (len > 4 && !strcmp(base + len - 4, ".svg"))
		base[len - 4] = '\0';
	snprintf(dat, sizeof dat, "%s.dat", base);
	snprintf(gp, sizeof gp, "%s.gp", base);

	FILE *f = fopen(dat, "w");
	if (!f)
		return -errno;
	/* one gnuplot data block per series, separated by two blank lines */
	for (size_t k = 0; k < ns; k++) {
		fprintf(f, "# %s\n", s[k].title);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].x[i]) && isfinite(s[k].y[i]))
				fprintf(f, "%.9g %.9g %.9g\n", s[k].x[i], s[k].y[i],
					s[k].err && isfinite(s[k].err[i]) ? s[k].err[i] : 0.0);
		fputs("\n\n", f);
	}
	if (fclose(f))
		return -EIO;

	f = fopen(gp, "w");
	if (!f)
		return -errno;
	fputs("set terminal svg size 900,560 dynamic enhanced font 'sans,12'\nset output ", f);
	gp_str(f, svg_path);
	fputs("\nset title ", f);
	gp_str(f, title);
	fputs("\nset xlabel ", f);
	gp_str(f, xlabel);
	fputs("\nset ylabel ", f);
	gp_str(f, ylabel);
	/*
	 * The key below the graph covers no data; the offsets keep the end
	 * points' CI bars off the border. Sizes that span decades get a log
	 * axis, and each series is drawn DODGE of the x range beside the next,
	 * so that CI bars at one size do not hide each other.
	 */
	double lo, hi;
	x_span(s, ns, &lo, &hi);
	int logx = lo > 0 && hi / lo >= 20;
	fputs("\nset key outside below center horizontal\nset grid\nset autoscale xfix"
	      "\nset offsets graph 0.04, graph 0.04, 0, 0\nset yrange [0:*]\n",
	      f);
	if (logx)
		fputs("set logscale x\n", f);
	fprintf(f, "# the series are drawn up to %.1f%% of the x range apart, so that their CI bars stay apart\nplot ",
		100 * DODGE * (double)(ns > 0 ? ns - 1 : 0) / 2);
	for (size_t k = 0; k < ns; k++) {
		double d = DODGE * ((double)k - (double)(ns - 1) / 2);
		char x[64];
		if (logx)
			snprintf(x, sizeof x, "($1*%.9g)", pow(hi / lo, d));
		else
			snprintf(x, sizeof x, "($1%+.9g)", d * (hi > lo ? hi - lo : fabs(hi)));
		if (k)
			fputs(", \\\n     ", f);
		gp_str(f, dat);
		fprintf(f, " index %zu using %s:2%s with %s lw 2 title ", k, x, s[k].err ? ":3" : "",
			s[k].err ? "yerrorlines" : "linespoints");
		gp_str(f, s[k].title);
	}
	fputs("\n", f);
	if (fclose(f))
		return -EIO;

	if (!in_path("gnuplot")) {
		snprintf(hint, hintlen, "gnuplot is not installed: wrote %s and %s; render with 'gnuplot %s' "
					"(Debian: apt-get install gnuplot-nox)",
			 gp, dat, gp);
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(hint, hintlen, "gnuplot failed on %s", gp);
		return -EIO;
	}
	snprintf(hint, hintlen, "wrote %s (script %s)", svg_path, gp);
	return 0;
}
