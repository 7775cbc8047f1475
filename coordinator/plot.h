/* plot.h - SVG plots through gnuplot, or the script and data to make them */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>

struct plot_series {
	const char *title;
	const double *x, *y;
	const double *err;  /* error bars (half-widths), or NULL for a line */
	size_t n;
	const double *base; /* a stacked area: filled from base up to y (err is then not drawn); NULL: none */
};

/*
 * plot_check_path - before any work: svg_path is not empty, has no control
 * character, and it and its .dat and .gp can be written (outfile_check).
 * 0, -EINVAL, or outfile_check's error.
 */
int plot_check_path(const char *svg_path);
/*
 * plot_write - write BASE.dat and BASE.gp (BASE: svg_path without .svg),
 * then run gnuplot on the script if it is installed; the script sends the
 * SVG to standard output. Returns 0 if the SVG was written, 1 if gnuplot
 * is missing (the script and data are there, and hint says how to render
 * them), -EINVAL for a control character in a path or title, -ENODATA if
 * no series has a value (hint says so; nothing is written), -EIO if
 * gnuplot failed (hint says so), or -errno.
 */
int plot_write(const char *svg_path, const char *title, const char *xlabel, const char *ylabel,
	       const struct plot_series *s, size_t ns, char *hint, size_t hintlen);

#endif
