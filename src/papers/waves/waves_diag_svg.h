/* A small SVG plotter for gpuq diag --plot: one panel with axes, ticks,
 * lines, points and a legend; linear or log axes. */
#ifndef GPUQ_WAVES_DIAG_SVG_H
#define GPUQ_WAVES_DIAG_SVG_H

#include <stdio.h>

typedef struct cli_waves_svg_plot {
    FILE *f;
    double x0, y0, w, h;          /* panel in the page, pixels */
    double xmin, xmax, ymin, ymax;
    int logx, logy;
    int n_legend;
} cli_waves_svg_plot;

/* Opens path and writes the page header (width x height pixels, white). */
FILE *cli_waves_svg_open(const char *path, int width, int height, const char *title);
/* Ends the figure and closes it: 0, or -1 when a write failed (errno). */
int cli_waves_svg_close(FILE *f);
/* A panel at (x0, y0) of w x h pixels with axes, ticks and labels. */
void cli_waves_svg_panel(cli_waves_svg_plot *p, FILE *f, double x0, double y0, double w, double h,
                         double xmin, double xmax, double ymin, double ymax, int logx, int logy,
                         const char *title, const char *xlabel, const char *ylabel);
void cli_waves_svg_line(cli_waves_svg_plot *p, const double *x, const double *y, int n,
                        const char *color, int dashed);
void cli_waves_svg_points(cli_waves_svg_plot *p, const double *x, const double *y, int n,
                          const char *color, double r);
void cli_waves_svg_legend(cli_waves_svg_plot *p, const char *color, const char *text);
/* The ith of a fixed set of distinguishable colours. */
const char *cli_waves_svg_color(int i);

#endif
