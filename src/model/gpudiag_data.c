/* GPUDIAG machine data into the model's terms (include/gpuq/gpudiag_data.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/gpudiag_data.h"

enum { C_KIND, C_NAME, C_X, C_Y, C_Z, C_VALUE, C_DOC, C_EXTRA, C_NOTE, C_COUNT };
static const char *const cols[C_COUNT] = {"kind", "name", "x", "y", "z",
                                          "value", "doc", "extra", "note"};

static int find_cols(const gm_mdata *md, int *c)
{
    for (int i = 0; i < C_COUNT; i++)
        if ((c[i] = gm_mdata_col(md, cols[i])) < 0)
            return i;
    return -1;
}

static int is(const gm_mdata *md, size_t r, int col, const char *text)
{
    const char *t = gm_mdata_text(md, r, col);
    return t && strcmp(t, text) == 0;
}

double gm_gd_data_param(const gm_mdata *md, const char *name, double *doc, const char **note)
{
    int c[C_COUNT];
    if (doc)
        *doc = NAN;
    if (note)
        *note = NULL;
    if (find_cols(md, c) >= 0)
        return NAN;
    for (size_t r = 0; r < md->n_rows; r++) {
        if (is(md, r, c[C_KIND], "param") && is(md, r, c[C_NAME], name)) {
            if (doc)
                *doc = gm_mdata_num(md, r, c[C_DOC]);
            if (note)
                *note = gm_mdata_text(md, r, c[C_NOTE]);
            return gm_mdata_num(md, r, c[C_VALUE]);
        }
    }
    return NAN;
}

static double param_extra(const gm_mdata *md, const int *c, const char *name)
{
    for (size_t r = 0; r < md->n_rows; r++)
        if (is(md, r, c[C_KIND], "param") && is(md, r, c[C_NAME], name))
            return gm_mdata_num(md, r, c[C_EXTRA]);
    return NAN;
}

static gm_gd_op *op_slot(gm_gd_data *d, const char *name)
{
    for (size_t i = 0; i < d->n_ops; i++)
        if (strcmp(d->ops[i].name, name) == 0)
            return &d->ops[i];
    if (d->n_ops >= GM_GD_MAX_OPS || strlen(name) >= sizeof d->ops[0].name)
        return NULL;
    gm_gd_op *o = &d->ops[d->n_ops++];
    memset(o, 0, sizeof *o);
    strcpy(o->name, name);
    o->thr = o->guide = NAN;
    o->regs = -1;
    return o;
}

/* Quick runs measure some c only: the curve in between is linear. */
static void fill_gaps(gm_gd_fu_curve *f)
{
    size_t prev = 0; /* index + 1 of the last measured point */
    for (size_t i = 0; i < f->n; i++) {
        if (!(f->fu[i] > 0))
            continue;
        if (prev && i + 1 - prev > 1)
            for (size_t k = prev; k < i; k++)
                f->fu[k] = f->fu[prev - 1] +
                           (f->fu[i] - f->fu[prev - 1]) * (double)(k + 1 - prev) / (double)(i + 1 - prev);
        prev = i + 1;
    }
}

gm_status gm_gd_data_load(const gm_mdata *md, gm_gd_data *d, gm_error *err)
{
    int c[C_COUNT];
    memset(d, 0, sizeof *d);
    d->md = md;
    int miss = find_cols(md, c);
    if (miss >= 0)
        return gm_fail(err, GM_ERR_MISSING, "sched machine data has no column '%s'", cols[miss]);
    double n_mp = gm_gd_data_param(md, "n_mp", NULL, NULL);
    if (!(n_mp >= 1))
        return gm_fail(err, GM_ERR_MISSING,
                       "sched machine data has no n_mp (run 'gpuq calibrate --suite sched')");
    gm_gd_params *h = &d->form[GM_GD_FORM_HOPPER], *p = &d->form[GM_GD_FORM_PAPER];
    h->w = p->w = 32;
    h->n_mp = p->n_mp = (int)n_mp;
    h->N1 = p->N1 = (int)gm_gd_data_param(md, "N1", NULL, NULL);
    h->N2 = p->N2 = (int)gm_gd_data_param(md, "N2", NULL, NULL);
    double S = gm_gd_data_param(md, "S", NULL, NULL), Sp = gm_gd_data_param(md, "S_paper", NULL, NULL);
    double R = gm_gd_data_param(md, "R", NULL, NULL), Rp = gm_gd_data_param(md, "R_paper", NULL, NULL);
    h->S = (long)S;
    h->s_min = (long)gm_gd_data_param(md, "s_min", NULL, NULL);
    h->s_res = (long)gm_gd_data_param(md, "s_res", NULL, NULL);
    h->R = (long)R;
    h->r_min = (long)gm_gd_data_param(md, "r_min", NULL, NULL);
    h->r_parts = (int)gm_gd_data_param(md, "r_parts", NULL, NULL);
    h->form = GM_GD_FORM_HOPPER;
    p->S = (long)Sp;
    p->s_min = (long)param_extra(md, c, "S_paper");
    p->R = (long)Rp;
    p->r_min = (long)param_extra(md, c, "R_paper");
    p->r_parts = 1;
    p->form = GM_GD_FORM_PAPER;
    d->have_params = h->N1 > 0 && h->N2 > 0 && S > 0 && R > 0 && Sp > 0 && Rp > 0 &&
                     h->s_min > 0 && h->r_min > 0 && p->s_min > 0 && p->r_min > 0;
    for (size_t r = 0; r < md->n_rows; r++) {
        const char *kind = gm_mdata_text(md, r, c[C_KIND]), *name = gm_mdata_text(md, r, c[C_NAME]);
        gm_gd_op *o;
        if (!kind || !name || !name[0])
            continue;
        if (!strcmp(kind, "fu") && (o = op_slot(d, name))) {
            double cw = gm_mdata_num(md, r, c[C_X]), fu = gm_mdata_num(md, r, c[C_VALUE]);
            if (cw >= 1 && cw <= 64 && fu > 0) {
                o->fu.fu[(int)cw - 1] = fu;
                if ((size_t)cw > o->fu.n)
                    o->fu.n = (size_t)cw;
            }
        } else if (!strcmp(kind, "fu_sum") && (o = op_slot(d, name))) {
            o->fu.P1 = gm_mdata_num(md, r, c[C_X]);
            o->s_u = (int)gm_mdata_num(md, r, c[C_Y]);
            o->c_at = (int)gm_mdata_num(md, r, c[C_Z]);
            o->thr = gm_mdata_num(md, r, c[C_VALUE]);
            o->guide = gm_mdata_num(md, r, c[C_DOC]);
            const char *s = gm_mdata_text(md, r, c[C_NOTE]);
            if (s && strlen(s) < sizeof o->sass)
                strcpy(o->sass, s);
        } else if (!strcmp(kind, "kern") && (o = op_slot(d, name))) {
            o->regs = (int)gm_mdata_num(md, r, c[C_X]);
            o->smem = (long)gm_mdata_num(md, r, c[C_Y]);
        }
    }
    for (size_t i = 0; i < d->n_ops; i++)
        fill_gaps(&d->ops[i].fu);
    return GM_OK;
}

const gm_gd_op *gm_gd_data_op(const gm_gd_data *d, const char *name)
{
    for (size_t i = 0; i < d->n_ops; i++)
        if (strcmp(d->ops[i].name, name) == 0)
            return &d->ops[i];
    return NULL;
}

void gm_gd_fit_free(gm_gd_fit *f)
{
    free(f->meas);
    free(f->pred);
    free(f->G);
    free(f->b);
    free(f->nslot);
    memset(f, 0, sizeof *f);
}

gm_status gm_gd_fit_tgb(const gm_gd_data *d, const char *opname, gm_gd_form form, gm_gd_fit *f,
                        gm_error *err)
{
    int c[C_COUNT];
    const gm_mdata *md = d->md;
    memset(f, 0, sizeof *f);
    f->r = f->median_err = f->max_err = f->scale_ms = NAN;
    const gm_gd_op *op = gm_gd_data_op(d, opname);
    if (!op || op->fu.n == 0 || !d->have_params || (unsigned)form >= GM_GD_FORM_COUNT ||
        find_cols(md, c) >= 0)
        return gm_fail(err, GM_ERR_MISSING, "no fu(c) curve or state-buffer parameters for '%s'",
                       opname);
    size_t cap = md->n_rows;
    f->meas = malloc(cap * sizeof *f->meas);
    f->pred = malloc(cap * sizeof *f->pred);
    f->G = malloc(cap * sizeof *f->G);
    f->b = malloc(cap * sizeof *f->b);
    f->nslot = malloc(cap * sizeof *f->nslot);
    if (!f->meas || !f->pred || !f->G || !f->b || !f->nslot) {
        gm_gd_fit_free(f);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    const gm_gd_params *p = &d->form[form];
    for (size_t r = 0; r < md->n_rows; r++)
        if (is(md, r, c[C_KIND], "tgb") && is(md, r, c[C_NAME], opname) &&
            gm_mdata_num(md, r, c[C_X]) == 1 && gm_mdata_num(md, r, c[C_Y]) == 1)
            f->scale_ms = gm_mdata_num(md, r, c[C_VALUE]);
    if (!(f->scale_ms > 0)) {
        gm_gd_fit_free(f);
        return gm_fail(err, GM_ERR_MISSING, "no measured time at G = 1, b = 1 for '%s'", opname);
    }
    for (size_t r = 0; r < md->n_rows; r++) {
        if (!is(md, r, c[C_KIND], "tgb") || !is(md, r, c[C_NAME], opname))
            continue;
        long G = (long)gm_mdata_num(md, r, c[C_X]);
        int b = (int)gm_mdata_num(md, r, c[C_Y]);
        double meas = gm_mdata_num(md, r, c[C_VALUE]);
        if (G < 1 || b < 1 || !(meas > 0) || (G == 1 && b == 1))
            continue;
        int N = gm_gd_nslot(p, b, op->smem, op->regs > 0 ? op->regs : 32, NULL);
        if (N <= 0)
            continue;
        double T = gm_gd_time(&op->fu, gm_gd_blocks_per_mp(G, p->n_mp), b, N);
        f->meas[f->n] = meas;
        f->pred[f->n] = T * f->scale_ms;
        f->G[f->n] = G;
        f->b[f->n] = b;
        f->nslot[f->n] = N;
        f->n++;
    }
    f->r = gm_gd_pearson(f->pred, f->meas, f->n);
    f->median_err = gm_gd_median_abs_err(f->pred, f->meas, f->n);
    f->max_err = 0;
    for (size_t i = 0; i < f->n; i++) {
        double e = fabs(f->pred[i] / f->meas[i] - 1);
        if (e > f->max_err)
            f->max_err = e;
    }
    return GM_OK;
}
