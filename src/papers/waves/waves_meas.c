/* Repeated launches into one T(g,b) point, and the noise of a kernel's
 * points (src/papers/waves/waves_meas.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waves_meas.h"
#include "core/stats.h"

gm_status gm_waves_spread_of(const double *v, size_t n, gm_waves_spread *out)
{
    memset(out, 0, sizeof *out);
    out->median = out->min = out->max = out->spread = NAN;
    if (!v)
        return GM_ERR_INVALID_ARG;
    double *ok = malloc((n ? n : 1) * sizeof *ok);
    if (!ok)
        return GM_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0 && isfinite(v[i])) /* NaN, <= 0: a launch that gave no time */
            ok[m++] = v[i];
    if (m == 0) {
        free(ok);
        return GM_ERR_INVALID_ARG;
    }
    double lo = ok[0], hi = ok[0];
    for (size_t i = 1; i < m; i++) {
        if (ok[i] < lo)
            lo = ok[i];
        if (ok[i] > hi)
            hi = ok[i];
    }
    out->n = m;
    out->median = gm_median(ok, m);
    out->min = lo;
    out->max = hi;
    out->spread = (hi - lo) / out->median;
    free(ok);
    return GM_OK;
}

gm_status gm_waves_tgb_point_of(const double *t1, const double *t2, size_t k,
                                gm_waves_tgb_point *out)
{
    memset(out, 0, sizeof *out);
    out->ms = out->spread = NAN;
    gm_status st = gm_waves_spread_of(t1, k, &out->t1);
    if (st == GM_OK)
        st = gm_waves_spread_of(t2, k, &out->t2);
    if (st != GM_OK)
        return st;
    out->ms = out->t2.median - out->t1.median;
    out->spread = out->t1.spread > out->t2.spread ? out->t1.spread : out->t2.spread;
    return GM_OK;
}

void gm_waves_round_order(size_t n, unsigned round, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    /* Knuth's MMIX LCG; the high bits drive the draws */
    uint64_t x = 0x9E3779B97F4A7C15ull ^ ((uint64_t)round * 0xD1B54A32D192ED03ull);
    for (size_t i = n; i > 1; i--) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)((x >> 33) % i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

int gm_waves_data_tgb_noise(const gm_waves_data *d, const char *op, double threshold,
                            gm_waves_noise *out)
{
    memset(out, 0, sizeof *out);
    out->median = out->max = out->G_max = NAN;
    const gm_mdata *md = d ? d->md : NULL;
    if (!md || !op)
        return 0;
    int ck = gm_mdata_col(md, "kind"), cn = gm_mdata_col(md, "name"), cx = gm_mdata_col(md, "x"),
        cy = gm_mdata_col(md, "y"), cz = gm_mdata_col(md, "z"), cv = gm_mdata_col(md, "value"),
        ce = gm_mdata_col(md, "extra");
    if (ck < 0 || cn < 0 || cx < 0 || cy < 0 || cz < 0 || cv < 0 || ce < 0)
        return 0;
    double *s = malloc((md->n_rows ? md->n_rows : 1) * sizeof *s);
    if (!s)
        return 0;
    for (size_t r = 0; r < md->n_rows; r++) {
        const char *k = gm_mdata_text(md, r, ck), *name = gm_mdata_text(md, r, cn);
        if (!k || !name || strcmp(k, "tgbs") || strcmp(name, op))
            continue;
        double a = gm_mdata_num(md, r, cv), b = gm_mdata_num(md, r, ce);
        double v = isnan(a) ? b : isnan(b) ? a : (a > b ? a : b);
        if (isnan(v))
            continue;
        if (out->n == 0)
            out->k = (int)gm_mdata_num(md, r, cz);
        if (out->n == 0 || v > out->max) {
            out->max = v;
            out->G_max = gm_mdata_num(md, r, cx);
            out->b_max = (int)gm_mdata_num(md, r, cy);
        }
        out->above += v > threshold;
        s[out->n++] = v;
    }
    if (out->n)
        out->median = gm_median(s, out->n);
    free(s);
    return out->n > 0;
}

int gm_waves_data_tgb_range(const gm_waves_data *d, const char *op, long G, int b, double *lo,
                            double *hi)
{
    *lo = *hi = NAN;
    const gm_mdata *md = d ? d->md : NULL;
    if (!md || !op)
        return 0;
    int ck = gm_mdata_col(md, "kind"), cn = gm_mdata_col(md, "name"), cx = gm_mdata_col(md, "x"),
        cy = gm_mdata_col(md, "y"), cv = gm_mdata_col(md, "value"), ce = gm_mdata_col(md, "extra");
    if (ck < 0 || cn < 0 || cx < 0 || cy < 0 || cv < 0 || ce < 0)
        return 0;
    size_t n = 0;
    double *t1 = malloc((md->n_rows ? md->n_rows : 1) * sizeof *t1);
    if (!t1)
        return 0;
    double mn = INFINITY, mx = -INFINITY;
    for (size_t r = 0; r < md->n_rows; r++) {
        const char *k = gm_mdata_text(md, r, ck), *name = gm_mdata_text(md, r, cn);
        if (!k || !name || strcmp(k, "tgbr") || strcmp(name, op) ||
            gm_mdata_num(md, r, cx) != (double)G || gm_mdata_num(md, r, cy) != (double)b)
            continue;
        double a = gm_mdata_num(md, r, cv), e = gm_mdata_num(md, r, ce);
        if (a > 0 && a < mn)
            mn = a;
        if (a > 0 && a > mx)
            mx = a;
        if (e > 0)
            t1[n++] = e;
    }
    int ok = n > 0 && mx >= mn;
    if (ok) {
        double m1 = gm_median(t1, n);
        *lo = mn - m1;
        *hi = mx - m1;
    }
    free(t1);
    return ok;
}
