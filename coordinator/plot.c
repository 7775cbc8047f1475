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
				fprintf(f, "%.9g %.9g %.9g %.9g\n", s[k].x[i], s[k].y[i],
					s[k].err && isfinite(s[k].err[i]) ? s[k].err[i] : 0.0,
					s[k].base && isfinite(s[k].base[i]) ? s[k].base[i] : 0.0);
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
	fputs("\nset key top left\nset grid\nset yrange [0:*]\nplot ", f);
	for (size_t k = 0; k < ns; k++) {
		if (k)
			fputs(", \\\n     ", f);
		gp_str(f, dat);
		if (s[k].base)
			fprintf(f, " index %zu using 1:4:2 with filledcurves fillstyle solid 0.4 title ", k);
		else
			fprintf(f, " index %zu using 1:2%s with %s lw 2 title ", k, s[k].err ? ":3" : "",
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
