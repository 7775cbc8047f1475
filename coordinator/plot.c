/*
 * plot.c - SVG plots through gnuplot, or the script and data to make them.
 *
 * Every file goes through outfile (a temporary file renamed into place,
 * never through a symbolic link). gnuplot gets the script on its stdin
 * and writes the SVG to its stdout, our temporary file: it opens no file
 * for writing itself, and only the data file for reading. Every string in
 * the script is a gnuplot single-quoted string, in which nothing is
 * expanded (no backquote command, no macro); a control character, which
 * would end the string and start a command, is refused.
 */
#include "coordinator/plot.h"
#include "common/outfile.h"
#include "common/safetext.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* series k has a point to draw (a source not measured, such as the task-clock without --task-clock, has none) */
static int has_point(const struct plot_series *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->x[i]) && isfinite(s->y[i]))
			return 1;
	return 0;
}

/* a gnuplot string literal: single quotes, doubled inside; the caller checked safetext_printable() */
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

/* BASE.dat and BASE.gp beside svg_path (BASE: svg_path without .svg) */
static int names(const char *svg_path, char *dat, char *gp, size_t len)
{
	size_t n = strlen(svg_path);
	if (n > 4 && !strcmp(svg_path + n - 4, ".svg"))
		n -= 4;
	int a = snprintf(dat, len, "%.*s.dat", (int)n, svg_path), b = snprintf(gp, len, "%.*s.gp", (int)n, svg_path);
	return a < 0 || b < 0 || (size_t)a >= len || (size_t)b >= len ? -ENAMETOOLONG : 0;
}

int plot_check_path(const char *svg_path)
{
	char dat[4200], gp[4200];
	int rc;
	if (!svg_path || !*svg_path || !safetext_printable(svg_path))
		return -EINVAL;
	if ((rc = names(svg_path, dat, gp, sizeof dat)))
		return rc;
	if ((rc = outfile_check(svg_path)) || (rc = outfile_check(dat)) || (rc = outfile_check(gp)))
		return rc;
	return 0;
}

/* gnuplot with the script on its stdin and the SVG (a temporary file) on its stdout */
static int run_gnuplot(const char *script, size_t len, const char *svg_path)
{
	struct outfile svg;
	int in = memfd_create("displace-plot.gp", MFD_CLOEXEC);
	if (in < 0)
		return -errno;
	if (write(in, script, len) != (ssize_t)len || lseek(in, 0, SEEK_SET)) {
		close(in);
		return -EIO;
	}
	int rc = outfile_create(&svg, svg_path);
	if (rc) {
		close(in);
		return rc;
	}
	pid_t pid = fork();
	if (pid < 0) {
		rc = -errno;
	} else if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(in, STDIN_FILENO) < 0 || dup2(svg.fd, STDOUT_FILENO) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	} else {
		int st;
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				rc = -errno;
				break;
			}
		if (!rc && (!WIFEXITED(st) || WEXITSTATUS(st)))
			rc = -EIO;
	}
	close(in);
	if (rc)
		outfile_abort(&svg);
	else
		rc = outfile_commit(&svg);
	return rc;
}

int plot_write(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
	       const struct plot_series *s, size_t ns, char *hint, size_t hintlen)
{
	char dat[4200], gp[4200];
	int rc;
	hint[0] = '\0';
	/* all three files can be written, or none is */
	if ((rc = plot_check_path(svg_path)) || (rc = names(svg_path, dat, gp, sizeof dat)))
		return rc;
	if (!safetext_printable(title) || !safetext_printable(xlabel) || !safetext_printable(ylabel))
		return -EINVAL;
	for (size_t k = 0; k < ns; k++)
		if (!safetext_printable(s[k].title))
			return -EINVAL;

	size_t shown = 0; /* the series with a point: the data's blocks and the plot command's */
	for (size_t k = 0; k < ns; k++)
		shown += (size_t)has_point(&s[k]);
	if (!shown) {
		snprintf(hint, hintlen, "nothing to plot: no series has a value");
		return -ENODATA;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	/*
	 * One gnuplot data block per series with a point, separated by two
	 * blank lines. gnuplot does not count a block of comments alone, so an
	 * empty series (a source not measured) would shift every later index
	 * onto the wrong title: it is left out here and from the plot command
	 */
	for (size_t k = 0; k < ns; k++) {
		if (!has_point(&s[k]))
			continue;
		fprintf(f, "# %s\n", s[k].title);
		for (size_t i = 0; i < s[k].n; i++)
			if (isfinite(s[k].x[i]) && isfinite(s[k].y[i]))
				fprintf(f, "%.9g %.9g %.9g %.9g\n", s[k].x[i], s[k].y[i],
					s[k].err && isfinite(s[k].err[i]) ? s[k].err[i] : 0.0,
					s[k].base && isfinite(s[k].base[i]) ? s[k].base[i] : 0.0);
		fputs("\n\n", f);
	}
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	rc = outfile_write(dat, text, len);
	free(text);
	if (rc)
		return rc;

	if (!(f = open_memstream(&text, &len)))
		return -ENOMEM;
	fputs("# written by displace; the SVG goes to standard output: gnuplot FILE.gp > FILE.svg\n"
	      "set terminal svg size 900,560 dynamic enhanced font 'sans,12'\nset title ",
	      f);
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
		100 * DODGE * (double)(shown - 1) / 2);
	int drawn = 0; /* the data block's index: series with a point only */
	for (size_t k = 0; k < ns; k++) {
		double d = DODGE * ((double)drawn - (double)(shown - 1) / 2);
		char x[64];
		if (!has_point(&s[k]))
			continue;
		if (logx)
			snprintf(x, sizeof x, "($1*%.9g)", pow(hi / lo, d));
		else
			snprintf(x, sizeof x, "($1%+.9g)", d * (hi > lo ? hi - lo : fabs(hi)));
		if (drawn)
			fputs(", \\\n     ", f);
		gp_str(f, dat);
		if (s[k].base)
			fprintf(f, " index %d using 1:4:2 with filledcurves fillstyle solid 0.4 title ", drawn);
		else
			fprintf(f, " index %d using %s:2%s with %s lw 2 title ", drawn, x, s[k].err ? ":3" : "",
				s[k].err ? "yerrorlines" : "linespoints");
		drawn++;
		gp_str(f, s[k].title);
	}
	fputs("\n", f);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	rc = outfile_write(gp, text, len);
	if (rc) {
		free(text);
		return rc;
	}

	if (!in_path("gnuplot")) {
		free(text);
		snprintf(hint, hintlen, "gnuplot is not installed: wrote %s and %s; render with 'gnuplot %s > %s' "
					"(Debian: apt-get install gnuplot-nox)",
			 gp, dat, gp, svg_path);
		return 1;
	}
	rc = run_gnuplot(text, len, svg_path);
	free(text);
	if (rc == -EIO)
		snprintf(hint, hintlen, "gnuplot failed on %s", gp);
	else if (!rc)
		snprintf(hint, hintlen, "wrote %s (script %s)", svg_path, gp);
	return rc;
}
