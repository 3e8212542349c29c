/* SVG panels for gpuq diag --plot (waves_diag_svg.h). */
#include <math.h>
#include <stdio.h>

#include "waves_diag_svg.h"

const char *cli_waves_svg_color(int i)
{
    static const char *const c[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                    "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                                    "#3182bd", "#e6550d"};
    return c[(unsigned)i % (sizeof c / sizeof c[0])];
}

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

FILE *cli_waves_svg_open(const char *path, int width, int height, const char *title)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">",
            width, height, width / 2);
    esc(f, title);
    fputs("</text>\n", f);
    return f;
}

int cli_waves_svg_close(FILE *f)
{
    if (!f)
        return -1;
    fputs("</svg>\n", f);
    int bad = fflush(f) != 0 || ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

static double tx(const cli_waves_svg_plot *p, double x)
{
    double a = p->logx ? log10(x) : x, lo = p->logx ? log10(p->xmin) : p->xmin,
           hi = p->logx ? log10(p->xmax) : p->xmax;
    return p->x0 + (a - lo) / (hi - lo) * p->w;
}

static double ty(const cli_waves_svg_plot *p, double y)
{
    double a = p->logy ? log10(y) : y, lo = p->logy ? log10(p->ymin) : p->ymin,
           hi = p->logy ? log10(p->ymax) : p->ymax;
    return p->y0 + p->h - (a - lo) / (hi - lo) * p->h;
}

static int inside(const cli_waves_svg_plot *p, double x, double y)
{
    if (!isfinite(x) || !isfinite(y) || (p->logx && x <= 0) || (p->logy && y <= 0))
        return 0;
    return x >= p->xmin && x <= p->xmax && y >= p->ymin && y <= p->ymax;
}

static void ticks(cli_waves_svg_plot *p, int axis)
{
    int logv = axis ? p->logy : p->logx;
    double lo = axis ? p->ymin : p->xmin, hi = axis ? p->ymax : p->xmax;
    double v[32];
    int n = 0;
    if (logv) {
        for (double d = pow(10, floor(log10(lo))); d <= hi * 1.0001 && n < 32; d *= 10)
            if (d >= lo * 0.9999)
                v[n++] = d;
    } else {
        double step = pow(10, floor(log10((hi - lo) / 5)));
        if ((hi - lo) / step > 10)
            step *= 2;
        if ((hi - lo) / step > 10)
            step *= 2.5;
        for (double d = ceil(lo / step) * step; d <= hi + 1e-9 * step && n < 32; d += step)
            v[n++] = d;
    }
    for (int i = 0; i < n; i++) {
        if (axis) {
            double y = ty(p, v[i]);
            fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                    p->x0, y, p->x0 + p->w, y);
            fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", p->x0 - 4,
                    y + 4, v[i]);
        } else {
            double x = tx(p, v[i]);
            fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                    x, p->y0, x, p->y0 + p->h);
            fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x,
                    p->y0 + p->h + 14, v[i]);
        }
    }
}

void cli_waves_svg_panel(cli_waves_svg_plot *p, FILE *f, double x0, double y0, double w, double h,
                         double xmin, double xmax, double ymin, double ymax, int logx, int logy,
                         const char *title, const char *xlabel, const char *ylabel)
{
    *p = (cli_waves_svg_plot){f, x0, y0, w, h, xmin, xmax, ymin, ymax, logx, logy, 0};
    if (!(p->xmax > p->xmin))
        p->xmax = p->xmin + 1;
    if (!(p->ymax > p->ymin))
        p->ymax = p->ymin + 1;
    ticks(p, 0);
    ticks(p, 1);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"black\"/>\n", x0, y0, w, h);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">", x0 + w / 2,
            y0 - 6);
    esc(f, title);
    fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x0 + w / 2,
            y0 + h + 30);
    esc(f, xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
               "text-anchor=\"middle\">", x0 - 42, y0 + h / 2);
    esc(f, ylabel);
    fputs("</text>\n", f);
}

void cli_waves_svg_line(cli_waves_svg_plot *p, const double *x, const double *y, int n,
                        const char *color, int dashed)
{
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (!inside(p, x[i], y[i])) {
            if (open)
                fputs("\"/>\n", p->f);
            open = 0;
            continue;
        }
        if (!open)
            fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"",
                    color, dashed ? " stroke-dasharray=\"5,4\"" : "");
        fprintf(p->f, "%.1f,%.1f ", tx(p, x[i]), ty(p, y[i]));
        open = 1;
    }
    if (open)
        fputs("\"/>\n", p->f);
}

void cli_waves_svg_points(cli_waves_svg_plot *p, const double *x, const double *y, int n,
                          const char *color, double r)
{
    for (int i = 0; i < n; i++)
        if (inside(p, x[i], y[i]))
            fprintf(p->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
                          "fill-opacity=\"0.7\"/>\n", tx(p, x[i]), ty(p, y[i]), r, color);
}

void cli_waves_svg_legend(cli_waves_svg_plot *p, const char *color, const char *text)
{
    double y = p->y0 + 12 + 14 * p->n_legend++;
    fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
            p->x0 + 8, y - 9, color);
    fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\">", p->x0 + 22, y);
    esc(p->f, text);
    fputs("</text>\n", p->f);
}
