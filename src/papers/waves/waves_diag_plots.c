/* gpuq diag --plot: GPUDIAG's figures (paper 003) from the sched machine
 * data: fu(c) per instruction (Fig. 4.2), the warp issue timeline
 * (Fig. 4.3), N_slot against 1/usage with the slopes of Eq. 3.12-3.13
 * (Fig. 4.4), T against G at the doubling point (Eq. 3.8), and predicted
 * against measured kernel time (Fig. 4.5). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "waves_diag.h"
#include "waves_diag_svg.h"
#include "waves_meas.h"

typedef struct cols {
    int kind, name, x, y, z, value, doc, extra;
} cols;

static cols get_cols(const gm_mdata *md)
{
    cols c = {gm_mdata_col(md, "kind"), gm_mdata_col(md, "name"), gm_mdata_col(md, "x"),
              gm_mdata_col(md, "y"),    gm_mdata_col(md, "z"),    gm_mdata_col(md, "value"),
              gm_mdata_col(md, "doc"),  gm_mdata_col(md, "extra")};
    return c;
}

static int kind_is(const gm_mdata *md, const cols *c, size_t r, const char *k, const char *name)
{
    const char *t = gm_mdata_text(md, r, c->kind), *n = gm_mdata_text(md, r, c->name);
    return t && !strcmp(t, k) && (!name || (n && !strcmp(n, name)));
}

/* A figure is written as DIR/FILE.tmp.<pid> and renamed when complete
 * (close_fig), so that a failed write leaves no torn figure. */
static FILE *open_fig(const char *dir, const char *file, int w, int h, const char *title,
                      const gm_mdata *md, int *written)
{
    char path[4096], t[256];
    snprintf(path, sizeof path, "%s/%s.tmp.%ld", dir, file, (long)getpid());
    snprintf(t, sizeof t, "%s: %s", title, md->meta.gpu_name);
    FILE *f = cli_waves_svg_open(path, w, h, t);
    if (f)
        (*written)++;
    return f;
}

static gm_status close_fig(FILE *f, const char *dir, const char *file, gm_error *err)
{
    char tmp[4096 + 32], path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (cli_waves_svg_close(f) != 0 || rename(tmp, path) != 0) {
        gm_status st = gm_fail(err, GM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return st;
    }
    return GM_OK;
}

static void fig_fu(FILE *f, const gm_waves_data *d)
{
    cli_waves_svg_plot p;
    double ymax = 1;
    for (size_t i = 0; i < d->n_ops; i++)
        for (size_t c = 0; c < d->ops[i].fu.n; c++)
            ymax = d->ops[i].fu.fu[c] > ymax ? d->ops[i].fu.fu[c] : ymax;
    cli_waves_svg_panel(&p, f, 70, 40, 640, 440, 1, 32, 0.8, ymax * 1.1, 0, 1,
                        "fu(c) = P(c) / P_1 (Eq. 3.4), one block of c warps", "c (warps)", "fu(c)");
    for (size_t i = 0; i < d->n_ops; i++) {
        double x[64], y[64];
        int n = 0;
        for (size_t c = 0; c < d->ops[i].fu.n && n < 64; c++, n++) {
            x[n] = (double)c + 1;
            y[n] = d->ops[i].fu.fu[c];
        }
        cli_waves_svg_line(&p, x, y, n, cli_waves_svg_color((int)i), 0);
        cli_waves_svg_points(&p, x, y, n, cli_waves_svg_color((int)i), 1.8);
        cli_waves_svg_legend(&p, cli_waves_svg_color((int)i),
                             d->ops[i].sass[0] ? d->ops[i].sass : d->ops[i].name);
    }
}

static void fig_wsched(FILE *f, const gm_mdata *md)
{
    cols c = get_cols(md);
    cli_waves_svg_plot p[4];
    double xmax[4] = {1, 1, 1, 1};
    for (size_t r = 0; r < md->n_rows; r++)
        if (kind_is(md, &c, r, "wsched", NULL)) {
            int q = (int)gm_mdata_num(md, r, c.z) % 4;
            double v = gm_mdata_num(md, r, c.value);
            xmax[q] = v > xmax[q] ? v : xmax[q];
        }
    for (int q = 0; q < 4; q++) {
        char t[64];
        snprintf(t, sizeof t, "scheduler %d (hardware warp id mod 4 = %d)", q, q);
        cli_waves_svg_panel(&p[q], f, 70 + 480.0 * (q % 2), 50 + 330.0 * (q / 2), 400, 260, 0,
                            xmax[q] * 1.02, -1, 32, 0, 0, t, "clock (cycles from the first read)",
                            "warp in block");
    }
    for (size_t r = 0; r < md->n_rows; r++) {
        if (!kind_is(md, &c, r, "wsched", NULL))
            continue;
        int q = (int)gm_mdata_num(md, r, c.z) % 4;
        double x = gm_mdata_num(md, r, c.value), y = gm_mdata_num(md, r, c.x);
        cli_waves_svg_points(&p[q], &x, &y, 1, cli_waves_svg_color((int)y % 8), 1.6);
    }
}

static void fig_nslot(FILE *f, const gm_waves_data *d, gm_waves_form form)
{
    const gm_mdata *md = d->md;
    cols c = get_cols(md);
    const gm_waves_params *pp = &d->form[form];
    static const char *const names[3] = {"wsb", "shm", "rf"};
    static const char *const titles[3] = {"warp slots: N_slot vs 1/b (Eq. 3.9)",
                                          "shared memory: N_slot vs 1/s (Eq. 3.10)",
                                          "registers: N_slot vs 1/(r w b) (Eq. 3.11)"};
    static const char *const xl[3] = {"1 / b (warps)", "1 / s (bytes)", "1 / (r w b)"};
    double slope[3] = {pp->N2, (double)pp->S, (double)pp->R};
    for (int k = 0; k < 3; k++) {
        cli_waves_svg_plot p;
        double xs[256], ys[256], ya[256];
        int n = 0;
        double xmax = 0;
        for (size_t r = 0; r < md->n_rows && n < 256; r++) {
            if (!kind_is(md, &c, r, "nslot", names[k]))
                continue;
            double b = gm_mdata_num(md, r, c.x), s = gm_mdata_num(md, r, c.y),
                   rr = gm_mdata_num(md, r, c.z);
            double inv = k == 0 ? 1 / b : k == 1 ? 1 / s : 1 / (rr * 32 * b);
            if (!(inv > 0) || !isfinite(inv))
                continue;
            xs[n] = inv;
            ys[n] = gm_mdata_num(md, r, c.value);
            ya[n] = gm_mdata_num(md, r, c.doc);
            xmax = inv > xmax ? inv : xmax;
            n++;
        }
        cli_waves_svg_panel(&p, f, 70 + 420.0 * k, 50, 340, 300, 0, xmax * 1.05, 0, pp->N1 * 1.15,
                            0, 0, titles[k], xl[k], "N_slot");
        double lx[2] = {0, xmax * 1.05}, ly[2] = {0, slope[k] * xmax * 1.05};
        cli_waves_svg_line(&p, lx, ly, 2, "#999", 1);
        cli_waves_svg_points(&p, xs, ys, n, cli_waves_svg_color(0), 2.6);
        cli_waves_svg_points(&p, xs, ya, n, cli_waves_svg_color(1), 1.2);
        cli_waves_svg_legend(&p, cli_waves_svg_color(0), "measured (semaphore)");
        cli_waves_svg_legend(&p, cli_waves_svg_color(1), "occupancy API");
        cli_waves_svg_legend(&p, "#999", k == 0 ? "slope N2" : k == 1 ? "slope S" : "slope R");
    }
}

static void fig_nmp(FILE *f, const gm_waves_data *d)
{
    const gm_mdata *md = d->md;
    cols c = get_cols(md);
    double x[256], y[256];
    int n = 0;
    double xmax = 1, ymax = 1;
    for (size_t r = 0; r < md->n_rows && n < 256; r++)
        if (kind_is(md, &c, r, "nmp", NULL)) {
            x[n] = gm_mdata_num(md, r, c.x);
            y[n] = gm_mdata_num(md, r, c.value);
            xmax = x[n] > xmax ? x[n] : xmax;
            ymax = y[n] > ymax ? y[n] : ymax;
            n++;
        }
    cli_waves_svg_plot p;
    cli_waves_svg_panel(&p, f, 80, 40, 600, 360, 1, xmax * 1.1, 0, ymax * 1.1, 1, 0,
                        "num mp (Eq. 3.8): FFMA, 32 warps per block, blocks synchronised",
                        "G (blocks)", "cycles of the slowest block");
    cli_waves_svg_points(&p, x, y, n, cli_waves_svg_color(0), 3);
}

static void fig_tgb(FILE *f, const gm_waves_data *d, gm_waves_form form)
{
    static const char *const ops[] = {"lds", "ffma", "mufu_ex2", "ldg"};
    double lo = INFINITY, hi = 0;
    gm_waves_fit fits[4];
    for (int i = 0; i < 4; i++) {
        if (gm_waves_fit_tgb(d, ops[i], form, &fits[i], NULL) != GM_OK)
            memset(&fits[i], 0, sizeof fits[i]);
        for (size_t k = 0; k < fits[i].n; k++) {
            double a = fits[i].meas[k] < fits[i].pred[k] ? fits[i].meas[k] : fits[i].pred[k];
            double b = fits[i].meas[k] > fits[i].pred[k] ? fits[i].meas[k] : fits[i].pred[k];
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
    }
    if (!(hi > 0))
        lo = 0.01, hi = 10;
    cli_waves_svg_plot p;
    cli_waves_svg_panel(&p, f, 80, 40, 520, 520, lo / 1.3, hi * 1.3, lo / 1.3, hi * 1.3, 1, 1,
                        "Eq. 3.2 with measured fu(c) and N_slot vs measured time (Fig. 4.5)",
                        "predicted (ms)", "measured (ms)");
    double lx[2] = {lo / 1.3, hi * 1.3};
    cli_waves_svg_line(&p, lx, lx, 2, "#999", 1);
    for (int i = 0; i < 4; i++) {
        char t[96];
        /* where the file has every launch: a bar from the fastest to the
         * slowest launch at 2n, less the median at n (gm_waves_data_tgb_range) */
        for (size_t k = 0; k < fits[i].n; k++) {
            double x[2], y[2];
            if (!gm_waves_data_tgb_range(d, ops[i], fits[i].G[k], fits[i].b[k], &y[0], &y[1]))
                continue;
            x[0] = x[1] = fits[i].pred[k];
            cli_waves_svg_line(&p, x, y, 2, cli_waves_svg_color(i), 0);
        }
        cli_waves_svg_points(&p, fits[i].pred, fits[i].meas, (int)fits[i].n, cli_waves_svg_color(i),
                             2.5);
        snprintf(t, sizeof t, "%s: r = %.4f, median error %.1f%%", ops[i], fits[i].r,
                 100 * fits[i].median_err);
        cli_waves_svg_legend(&p, cli_waves_svg_color(i), t);
        gm_waves_fit_free(&fits[i]);
    }
}

gm_status cli_waves_diag_plot(const gm_waves_data *d, gm_waves_form form, const char *dir,
                              int *written, gm_error *err)
{
    FILE *f;
    *written = 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gm_fail(err, GM_ERR_IO, "%s: %s", dir, strerror(errno));
    gm_status st;
    if (!(f = open_fig(dir, "fu.svg", 760, 540, "functional units", d->md, written)))
        goto fail;
    fig_fu(f, d);
    if ((st = close_fig(f, dir, "fu.svg", err)) != GM_OK)
        return st;
    if (!(f = open_fig(dir, "wsched.svg", 980, 700, "warp issue log, one block of 32 warps",
                       d->md, written)))
        goto fail;
    fig_wsched(f, d->md);
    if ((st = close_fig(f, dir, "wsched.svg", err)) != GM_OK)
        return st;
    if (!(f = open_fig(dir, "nslot.svg", 1320, 420, "state buffers", d->md, written)))
        goto fail;
    fig_nslot(f, d, form);
    if ((st = close_fig(f, dir, "nslot.svg", err)) != GM_OK)
        return st;
    if (!(f = open_fig(dir, "nmp.svg", 720, 450, "multiprocessors", d->md, written)))
        goto fail;
    fig_nmp(f, d);
    if ((st = close_fig(f, dir, "nmp.svg", err)) != GM_OK)
        return st;
    if (!(f = open_fig(dir, "tgb.svg", 640, 620, "end to end", d->md, written)))
        goto fail;
    fig_tgb(f, d, form);
    if ((st = close_fig(f, dir, "tgb.svg", err)) != GM_OK)
        return st;
    return GM_OK;
fail:
    return gm_fail(err, GM_ERR_IO, "%s: cannot write a figure: %s", dir, strerror(errno));
}
