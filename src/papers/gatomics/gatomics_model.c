/* Global-memory atomics: the busy time of the L2 atomic units (paper 002
 * carried over with paper 000's U = B / T) and the readings of Robertson's
 * experiments.  src/papers/gatomics/gatomics_model.h has the equations. */
#include "gatomics_model.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const gm_gatomics_columns[] = {"experiment", "op", "bits", "pattern", "warps", "param",
                                     "median", "lo", "hi", "unit", "n"};

static const char *const form_names[GM_GATOMICS_FORM_COUNT] = {"rate", "rate-f32", "server",
                                                          "direct"};

gm_status gm_gatomics_form_by_name(const char *name, gm_gatomics_form *out, gm_error *err)
{
    if (!out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gm_gatomics_form_by_name: NULL output");
    if (!name) {
        *out = GM_GATOMICS_FORM_RATE;
        return GM_OK;
    }
    for (int f = 0; f < GM_GATOMICS_FORM_COUNT; f++)
        if (strcmp(name, form_names[f]) == 0) {
            *out = (gm_gatomics_form)f;
            return GM_OK;
        }
    return gm_fail(err, GM_ERR_RANGE, "global-atomics variant '%s' unknown (rate, rate-f32, server, direct)",
                   name);
}

const char *gm_gatomics_form_name(gm_gatomics_form f)
{
    return (f >= 0 && f < GM_GATOMICS_FORM_COUNT) ? form_names[f] : "?";
}

double gm_gatomics_k_eff(double active_sum, double active_max)
{
    if (!(active_max > 0))
        return 1.0;
    double k = active_sum / active_max;
    return k < 1.0 ? 1.0 : k; /* sum >= max always; guards rounding in exported values */
}

gm_status gm_gatomics_apply(const gm_gatomics_rates *rates, gm_gatomics_form form,
                            const gm_gatomics_input *in, gm_gatomics_result *out, gm_error *err)
{
    if (!in || !out || (form != GM_GATOMICS_FORM_DIRECT && !rates))
        return gm_fail(err, GM_ERR_INVALID_ARG, "gm_gatomics_apply: NULL argument");
    if (form < 0 || form >= GM_GATOMICS_FORM_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gm_gatomics_apply: form %d unknown", (int)form);
    memset(out, 0, sizeof *out);
    out->B = out->B_slice = out->B_all = NAN;
    out->U_direct = NAN;
    out->X = out->k_eff = NAN;

    double N = 0;
    int have_n = 1;
    for (int c = 0; c < GM_GATOMICS_CLASSES; c++) {
        if (isnan(in->sectors[c]))
            have_n = 0;
        else if (in->sectors[c] < 0)
            return gm_fail(err, GM_ERR_RANGE, "atomic sectors %g < 0", in->sectors[c]);
        else
            N += in->sectors[c];
    }
    out->N = have_n ? N : NAN;
    /* The direct reading is shown beside every form when its counters exist. */
    if (!isnan(in->active_max) && in->l2_cycles > 0)
        out->U_direct = in->active_max / in->l2_cycles;

    if (have_n && N == 0) {
        /* No atomic sector reached L2: nothing kept the units busy (the
         * issue's bar: U exactly 0 for kernels without global atomics). */
        out->B = out->B_slice = out->B_all = 0;
        out->U = 0;
        out->U_direct = 0;
        out->X = 0;
        out->k_eff = NAN;
        out->notes |= GM_GATOMICS_NOTE_NO_ATOMICS;
        return GM_OK;
    }
    if (form == GM_GATOMICS_FORM_DIRECT) {
        out->U = out->U_direct;
        if (isnan(out->U))
            out->notes |= GM_GATOMICS_NOTE_MISSING;
        if (have_n && in->duration_s > 0)
            out->X = N / in->duration_s;
        return GM_OK;
    }
    if (!have_n || isnan(in->active_sum) || isnan(in->active_max) || isnan(in->duration_s)) {
        out->U = NAN;
        out->notes |= GM_GATOMICS_NOTE_MISSING;
        return GM_OK;
    }
    if (!(in->duration_s > 0))
        return gm_fail(err, GM_ERR_RANGE, "duration %g s with %g atomic sectors", in->duration_s, N);
    if (!(in->active_max > 0))
        out->notes |= GM_GATOMICS_NOTE_NO_ACTIVITY;
    out->k_eff = gm_gatomics_k_eff(in->active_sum, in->active_max);
    out->X = N / in->duration_s;

    double b_slice = 0, b_all = 0;
    for (int c = 0; c < GM_GATOMICS_CLASSES; c++) {
        double n = in->sectors[c];
        if (n == 0)
            continue;
        double r1 = rates->one[c], rp = rates->peak[c];
        if (!(r1 > 0) || !isfinite(r1) || !(rp > 0) || !isfinite(rp))
            return gm_fail(err, GM_ERR_RANGE, "%s rates R_one %g, R_peak %g: need finite > 0",
                           c == GM_GATOMICS_ATOM  ? "ATOM"
                           : c == GM_GATOMICS_RED ? "RED"
                                                  : "CAS",
                           r1, rp);
        b_slice += n / (out->k_eff * r1);
        b_all += n / rp;
    }
    out->B_slice = b_slice;
    out->B_all = b_all;
    if (form == GM_GATOMICS_FORM_SERVER) {
        out->B = b_slice;
    } else {
        out->B = b_slice > b_all ? b_slice : b_all;
        if (b_all >= b_slice)
            out->notes |= GM_GATOMICS_NOTE_ALL_BOUND;
    }
    out->U = out->B / in->duration_s;
    return GM_OK;
}

/* The gatomics file's cells (gpuq/ranges.h), checked before any is read:
 * the rates the model divides by are finite and positive. */
static const gm_mdata_rule gatomics_rules[] = {
    {"l2rate", "warps", GM_Q_WARPS, 0}, {"l2rate", "median", GM_Q_RATE, 0},
    {NULL, "bits", GM_Q_REAL, 1},       {NULL, "warps", GM_Q_REAL, 1},
    {NULL, "param", GM_Q_REAL, 1},      {NULL, "median", GM_Q_REAL, 1},
    {NULL, "lo", GM_Q_REAL, 1},         {NULL, "hi", GM_Q_REAL, 1},
    {NULL, "n", GM_Q_REAL, 1},
};

gm_status gm_gatomics_rates_from_mdata(const gm_mdata *md,
                                       const char *const ops_in[GM_GATOMICS_CLASSES],
                                       gm_gatomics_rates *out, gm_error *err)
{
    if (!md || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gm_gatomics_rates_from_mdata: NULL argument");
    const char *need[] = {"experiment", "op", "pattern", "warps", "median", "unit"};
    int col[6];
    for (int i = 0; i < 6; i++) {
        col[i] = gm_mdata_col(md, need[i]);
        if (col[i] < 0)
            return gm_fail(err, GM_ERR_MISSING, "gatomics data: no column '%s'", need[i]);
    }
    gm_status cst = gm_mdata_check(md, "experiment", gatomics_rules,
                                   sizeof gatomics_rules / sizeof gatomics_rules[0], err);
    if (cst != GM_OK)
        return cst;
    const char *defaults[GM_GATOMICS_CLASSES] = {"atom.add.u32", "red.add.u32", "atom.cas.u32"};
    const char *pats[2] = {"one", "distinct"};
    for (int c = 0; c < GM_GATOMICS_CLASSES; c++) {
        const char *op = ops_in && ops_in[c] ? ops_in[c] : defaults[c];
        for (int p = 0; p < 2; p++) {
            double best_w = -1, v = NAN;
            for (size_t r = 0; r < md->n_rows; r++) {
                if (strcmp(gm_mdata_text(md, r, col[0]), "l2rate") != 0 ||
                    strcmp(gm_mdata_text(md, r, col[1]), op) != 0 ||
                    strcmp(gm_mdata_text(md, r, col[2]), pats[p]) != 0)
                    continue;
                if (strcmp(gm_mdata_text(md, r, col[5]), "Gsector/s") != 0)
                    return gm_fail(err, GM_ERR_PARSE, "gatomics data row %zu: unit '%s', not Gsector/s",
                                   r + 1, gm_mdata_text(md, r, col[5]));
                double w = gm_mdata_num(md, r, col[3]);
                if (w > best_w) {
                    best_w = w;
                    v = gm_mdata_num(md, r, col[4]);
                }
            }
            if (best_w < 0)
                return gm_fail(err, GM_ERR_MISSING,
                               "gatomics data: no l2rate row for %s, pattern %s (gpuq calibrate "
                               "--suite gatomics)", op, pats[p]);
            if (!(v > 0) || !isfinite(v))
                return gm_fail(err, GM_ERR_RANGE, "gatomics data: l2rate %s %s = %g, need > 0",
                               op, pats[p], v);
            if (p == 0)
                out->one[c] = v * 1e9;
            else
                out->peak[c] = v * 1e9;
        }
    }
    return GM_OK;
}

gm_status gm_gatomics_rates_for_form(const gm_mdata *md, gm_gatomics_form form,
                                     gm_gatomics_rates *out, gm_error *err)
{
    const char *f32[GM_GATOMICS_CLASSES] = {"atom.add.f32", "red.add.f32", "atom.cas.u32"};
    return gm_gatomics_rates_from_mdata(md, form == GM_GATOMICS_FORM_RATE_F32 ? f32 : NULL, out,
                                        err);
}

gm_status gm_gatomics_lock_width(const double *offset, const double *t, size_t n, double tol,
                                 double *width, gm_error *err)
{
    if (!offset || !t || !width || n < 2 || !(tol >= 0))
        return gm_fail(err, GM_ERR_RANGE, "lock width: need >= 2 offsets and tol >= 0");
    double far[64];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && !(offset[i] > offset[i - 1]))
            return gm_fail(err, GM_ERR_RANGE, "lock width: offsets not ascending at %zu", i);
        if (offset[i] >= 256 && nf < 64)
            far[nf++] = t[i];
    }
    if (nf == 0)
        return gm_fail(err, GM_ERR_RANGE, "lock width: no offset >= 256 bytes for the floor");
    double floor_t = gm_median_sort(far, nf);
    /* The smallest i from which every later time is at the floor. */
    size_t from = n;
    for (size_t i = n; i-- > 0;) {
        if (fabs(t[i] - floor_t) <= tol * floor_t)
            from = i;
        else
            break;
    }
    *width = from == n ? offset[n - 1] : (from == 0 ? 0 : offset[from]);
    return GM_OK;
}

double gm_gatomics_hide_point(const double *k, const double *t_with, const double *t_without,
                              size_t n, double tol)
{
    size_t from = n;
    for (size_t i = n; i-- > 0;) {
        if (t_with[i] <= t_without[i] * (1 + tol))
            from = i;
        else
            break;
    }
    return from == n ? NAN : k[from];
}
