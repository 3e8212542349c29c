/* GPUDIAG machine data into the model's terms (src/papers/waves/waves_data.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "waves_data.h"
#include "waves_refill.h"

enum { C_KIND, C_NAME, C_X, C_Y, C_Z, C_VALUE, C_DOC, C_EXTRA, C_NOTE, C_COUNT };
static const char *const cols[C_COUNT] = {"kind", "name", "x", "y", "z",
                                          "value", "doc", "extra", "note"};

/* What each row kind's cells are (gpuq/ranges.h), checked before any is
 * cast or multiplied: a cell the readers cast to an integer is required,
 * one they only compare (> 0) may be "nan" (not measured).  Columns of
 * kinds not listed are any finite number or nan. */
static const gm_mdata_rule sched_rules[] = {
    {"nmp", "x", GM_Q_BLOCKS, 0},           /* G */
    {"nmp", "value", GM_Q_CLOCKS, 1},       /* T(G) */
    {"nslot", "x", GM_Q_WARPS_PER_BLOCK, 0},
    {"nslot", "y", GM_Q_SMEM_BYTES, 0},
    {"nslot", "z", GM_Q_REGS, 0},
    {"nslot", "extra", GM_Q_BLOCKS, 0},     /* blocks resident on the GPU */
    {"nslot", "value", GM_Q_BLOCKS_PER_SM, 1},
    {"nslot", "doc", GM_Q_BLOCKS_PER_SM, 1}, /* the occupancy API's */
    {"fu", "x", GM_Q_WARPS, 0},             /* c */
    {"fu", "value", GM_Q_RATIO, 1},
    {"fu_sum", "x", GM_Q_RATIO, 1},         /* P1 */
    {"fu_sum", "y", GM_Q_WARPS, 0},         /* s_u */
    {"fu_sum", "z", GM_Q_WARPS, 0},         /* c_at */
    {"fu_sum", "value", GM_Q_RATIO, 1},
    {"fu_sum", "doc", GM_Q_RATIO, 1},
    {"kern", "x", GM_Q_REGS, 0},
    {"kern", "y", GM_Q_SMEM_BYTES, 0},
    {"tail", "x", GM_Q_SM_INDEX, 0},
    {"tail", "y", GM_Q_WARPS_PER_BLOCK, 0},
    {"tail", "z", GM_Q_BLOCKS, 0},
    {"tail", "value", GM_Q_BLOCKS, 0},
    {"tgb", "x", GM_Q_BLOCKS, 0},
    {"tgb", "y", GM_Q_WARPS_PER_BLOCK, 0},
    {"tgb", "value", GM_Q_DURATION_MS, 1},
    {"tgbs", "x", GM_Q_BLOCKS, 0},
    {"tgbs", "y", GM_Q_WARPS_PER_BLOCK, 0},
    {"tgbs", "z", GM_Q_INDEX, 0},
    {"tgbs", "value", GM_Q_DURATION_MS, 1},
    {"tgbs", "extra", GM_Q_DURATION_MS, 1},
    {"tgbr", "x", GM_Q_BLOCKS, 0},
    {"tgbr", "y", GM_Q_WARPS_PER_BLOCK, 0},
    {"tgbr", "z", GM_Q_INDEX, 0},
    {"tgbr", "value", GM_Q_DURATION_MS, 1},
    {"tgbr", "extra", GM_Q_DURATION_MS, 1},
    {"wsched", "x", GM_Q_WARPS, 0},
    {"wsched", "y", GM_Q_WARPS, 0},
    {"wsched", "z", GM_Q_WARPS, 0},
    {"wsched", "value", GM_Q_CLOCKS, 1},
    {"cluster", "x", GM_Q_BLOCKS_PER_SM, 0},
    {NULL, "x", GM_Q_REAL, 1},
    {NULL, "y", GM_Q_REAL, 1},
    {NULL, "z", GM_Q_REAL, 1},
    {NULL, "value", GM_Q_REAL, 1},
    {NULL, "doc", GM_Q_REAL, 1},
    {NULL, "extra", GM_Q_REAL, 1},
};

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

double gm_waves_data_param(const gm_mdata *md, const char *name, double *doc, const char **note)
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

static gm_waves_op *find_op(const gm_waves_data *d, const char *name)
{
    for (size_t i = 0; name && i < d->n_ops; i++)
        if (strcmp(d->ops[i].name, name) == 0)
            return (gm_waves_op *)&d->ops[i];
    return NULL;
}

static gm_waves_op *op_slot(gm_waves_data *d, const char *name)
{
    gm_waves_op *found = find_op(d, name);
    if (found)
        return found;
    if (d->n_ops >= GM_WAVES_MAX_OPS || strlen(name) >= sizeof d->ops[0].name)
        return NULL;
    gm_waves_op *o = &d->ops[d->n_ops++];
    memset(o, 0, sizeof *o);
    strcpy(o->name, name);
    o->thr = o->guide = NAN;
    o->regs = -1;
    o->mix[0] = o->mix[1] = NAN;
    return o;
}

/* Quick runs measure some c only: the curve in between is linear. */
static void fill_gaps(gm_waves_fu_curve *f)
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

static int cmp_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Eq. 3.8 on the nmp rows: the last G before the first whose time reaches
 * GM_WAVES_NMP_RATIO T(1). */
static int nmp_from_rows(const gm_mdata *md, const int *c)
{
    size_t n = 0;
    double(*v)[2] = malloc(md->n_rows * sizeof *v);
    if (!v)
        return 0;
    for (size_t r = 0; r < md->n_rows; r++) {
        double T = gm_mdata_num(md, r, c[C_VALUE]);
        if (is(md, r, c[C_KIND], "nmp") && T > 0) {
            v[n][0] = gm_mdata_num(md, r, c[C_X]);
            v[n][1] = T;
            n++;
        }
    }
    qsort(v, n, sizeof *v, cmp_pair);
    int nmp = 0;
    if (n >= 2 && v[0][0] == 1) {
        for (size_t i = 1; i < n; i++) {
            if (v[i][1] >= GM_WAVES_NMP_RATIO * v[0][1]) {
                nmp = (int)v[i - 1][0];
                break;
            }
        }
    }
    free(v);
    return nmp;
}

static const long unit_cands[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048};
#define N_UNIT_CANDS (sizeof unit_cands / sizeof unit_cands[0])

gm_status gm_waves_derive_md(const gm_mdata *md, int n_mp_override, gm_waves_derived *o,
                             gm_error *err)
{
    int c[C_COUNT];
    memset(o, 0, sizeof *o);
    int miss = find_cols(md, c);
    if (miss >= 0)
        return gm_fail(err, GM_ERR_MISSING, "sched machine data has no column '%s'", cols[miss]);
    gm_status cst = gm_mdata_check(md, "kind", sched_rules,
                                   sizeof sched_rules / sizeof sched_rules[0], err);
    if (cst != GM_OK)
        return cst;
    o->n_mp = n_mp_override > 0 ? n_mp_override : nmp_from_rows(md, c);
    if (o->n_mp <= 0)
        return gm_fail(err, GM_ERR_MISSING, "sched machine data: no doubling in the nmp rows "
                                            "(Eq. 3.8; run 'gpuq calibrate --suite sched')");
    gm_waves_point *p = malloc((md->n_rows + 1) * sizeof *p);
    if (!p)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    /* warp slots, shared memory, registers: consecutive blocks of p */
    static const char *const kinds[3] = {"wsb", "shm", "rf"};
    size_t start[4] = {0, 0, 0, 0}, n = 0;
    for (int k = 0; k < 3; k++) {
        start[k] = n;
        for (size_t r = 0; r < md->n_rows; r++) {
            double total = gm_mdata_num(md, r, c[C_EXTRA]);
            if (!is(md, r, c[C_KIND], "nslot") || !is(md, r, c[C_NAME], kinds[k]) || !(total > 0))
                continue;
            gm_waves_point pt = {.b = (int)gm_mdata_num(md, r, c[C_X]),
                                 .s = (long)gm_mdata_num(md, r, c[C_Y]),
                                 .r = (long)gm_mdata_num(md, r, c[C_Z]),
                                 .total = (long)total};
            gm_waves_point_from_total(&pt, o->n_mp);
            if (!gm_quantity_ok(GM_Q_BLOCKS_PER_SM, pt.nslot)) {
                free(p);
                return gm_fail(err, GM_ERR_RANGE,
                               "%s:%ld: sched row 'nslot': %ld blocks on the GPU over n_mp = %d "
                               "is %d blocks per SM, above the device limit of %g",
                               md->source[0] ? md->source : "sched", md->line ? md->line[r] : 0L,
                               pt.total, o->n_mp, pt.nslot,
                               gm_quantity_table[GM_Q_BLOCKS_PER_SM].max);
            }
            o->not_divisible += pt.not_divisible;
            double api = gm_mdata_num(md, r, c[C_DOC]);
            if (!isnan(api) && (int)api != pt.nslot)
                o->api_diff++;
            p[n++] = pt;
        }
    }
    start[3] = n;
    o->n_wsb = (int)(start[1] - start[0]);
    o->n_shm = (int)(start[2] - start[1]);
    o->n_rf = (int)(start[3] - start[2]);
    gm_status st = gm_waves_derive_wsb(p, start[1], &o->N1, &o->N2, err);
    /* shared memory: the paper's form has no reservation; the Hopper form
     * takes the reservation that explains the most points */
    static const long res[] = {0, 256, 512, 1024, 2048};
    for (size_t i = 0; st == GM_OK && o->n_shm && i < sizeof res / sizeof res[0]; i++) {
        long S, smin;
        int mis;
        st = gm_waves_derive_shm(p + start[1], (size_t)o->n_shm, o->N1, res[i], unit_cands,
                                 N_UNIT_CANDS, &S, &smin, &mis, err);
        if (st != GM_OK)
            break;
        if (i == 0) {
            o->S[GM_WAVES_FORM_PAPER] = S;
            o->s_min[GM_WAVES_FORM_PAPER] = smin;
            o->shm_mismatch[GM_WAVES_FORM_PAPER] = mis;
        }
        if (i == 0 || mis < o->shm_mismatch[GM_WAVES_FORM_HOPPER]) {
            o->S[GM_WAVES_FORM_HOPPER] = S;
            o->s_min[GM_WAVES_FORM_HOPPER] = smin;
            o->s_res[GM_WAVES_FORM_HOPPER] = res[i];
            o->shm_mismatch[GM_WAVES_FORM_HOPPER] = mis;
        }
    }
    /* registers: the paper's single file, or whole warps in 2 or 4 partitions */
    static const int parts[] = {1, 2, 4};
    for (size_t i = 0; st == GM_OK && o->n_rf && i < 3; i++) {
        long R, rmin;
        int mis;
        st = gm_waves_derive_rf(p + start[2], (size_t)o->n_rf, 32, o->N1, o->N2, parts[i],
                                unit_cands, N_UNIT_CANDS, &R, &rmin, &mis, err);
        if (st != GM_OK)
            break;
        if (i == 0) {
            o->R[GM_WAVES_FORM_PAPER] = R;
            o->r_min[GM_WAVES_FORM_PAPER] = rmin;
            o->r_parts[GM_WAVES_FORM_PAPER] = 1;
            o->rf_mismatch[GM_WAVES_FORM_PAPER] = mis;
        }
        if (i == 0 || mis < o->rf_mismatch[GM_WAVES_FORM_HOPPER]) {
            o->R[GM_WAVES_FORM_HOPPER] = R;
            o->r_min[GM_WAVES_FORM_HOPPER] = rmin;
            o->r_parts[GM_WAVES_FORM_HOPPER] = parts[i];
            o->rf_mismatch[GM_WAVES_FORM_HOPPER] = mis;
        }
    }
    free(p);
    return st;
}

void gm_waves_params_from_derived(const gm_waves_derived *o, gm_waves_form f, gm_waves_params *p)
{
    memset(p, 0, sizeof *p);
    p->w = 32;
    p->n_mp = o->n_mp;
    p->N1 = o->N1;
    p->N2 = o->N2;
    p->S = o->S[f];
    p->s_min = o->s_min[f];
    p->s_res = o->s_res[f];
    p->R = o->R[f];
    p->r_min = o->r_min[f];
    p->r_parts = f == GM_WAVES_FORM_PAPER ? 1 : o->r_parts[f];
    p->form = f;
}

int gm_waves_data_next_tail(const gm_waves_data *d, size_t *row, gm_waves_tail *t)
{
    const gm_mdata *md = d->md;
    int c[C_COUNT];
    if (!md || find_cols(md, c) >= 0)
        return 0;
    for (size_t r = *row; r < md->n_rows; r++) {
        if (!is(md, r, c[C_KIND], "tail"))
            continue;
        memset(t, 0, sizeof *t);
        t->op = gm_mdata_text(md, r, c[C_NAME]);
        t->b = (int)gm_mdata_num(md, r, c[C_Y]);
        t->G = gm_mdata_num(md, r, c[C_Z]);
        size_t q = r;
        for (; q < md->n_rows && is(md, q, c[C_KIND], "tail") && is(md, q, c[C_NAME], t->op) &&
               (int)gm_mdata_num(md, q, c[C_Y]) == t->b && gm_mdata_num(md, q, c[C_Z]) == t->G;
             q++) {
            int n = (int)gm_mdata_num(md, q, c[C_VALUE]);
            t->sms += n > 0;
            t->total += n;
            t->most = n > t->most ? n : t->most;
        }
        *row = q;
        return 1;
    }
    *row = md->n_rows;
    return 0;
}

int gm_waves_data_nslot(const gm_waves_data *d, gm_waves_form f, const gm_waves_op *op, int b)
{
    if (!d->have_params || !op)
        return 0;
    return gm_waves_nslot(&d->form[f], b, op->smem, op->regs > 0 ? op->regs : 32, NULL);
}

/* The refill mixing of every kernel with a per-block log: the busiest SM's
 * count against the even share and the random refill. */
static void load_mix(gm_waves_data *d)
{
    const gm_waves_params *p = &d->form[GM_WAVES_FORM_HOPPER];
    gm_waves_tail t;
    size_t row = 0;
    while (gm_waves_data_next_tail(d, &row, &t)) {
        gm_waves_op *op = find_op(d, t.op);
        if (!op || (t.b != 1 && t.b != 32) || !(t.G > 0))
            continue;
        int N = gm_waves_data_nslot(d, GM_WAVES_FORM_HOPPER, op, t.b);
        double m = gm_waves_refill_mix(t.most, (long)t.G, N, p->n_mp);
        if (!isnan(m))
            op->mix[t.b == 32] = m;
    }
}

gm_status gm_waves_data_load(const gm_mdata *md, gm_waves_data *d, gm_error *err)
{
    int c[C_COUNT];
    memset(d, 0, sizeof *d);
    d->md = md;
    int miss = find_cols(md, c);
    if (miss >= 0)
        return gm_fail(err, GM_ERR_MISSING, "sched machine data has no column '%s'", cols[miss]);
    /* the parameters come from the raw rows, so that the model and the
     * report agree with Eq. 3.8-3.13 applied to what was measured */
    gm_waves_derived *o = &d->derived;
    gm_status dst = gm_waves_derive_md(md, 0, o, err);
    if (dst != GM_OK)
        return dst;
    for (int f = 0; f < GM_WAVES_FORM_COUNT; f++)
        gm_waves_params_from_derived(o, (gm_waves_form)f, &d->form[f]);
    d->have_params = o->N1 > 0 && o->N2 > 0 && o->n_shm > 0 && o->n_rf > 0 &&
                     o->S[0] > 0 && o->S[1] > 0 && o->R[0] > 0 && o->R[1] > 0;
    for (size_t r = 0; r < md->n_rows; r++) {
        const char *kind = gm_mdata_text(md, r, c[C_KIND]), *name = gm_mdata_text(md, r, c[C_NAME]);
        gm_waves_op *op;
        if (!kind || !name || !name[0])
            continue;
        if (!strcmp(kind, "fu") && (op = op_slot(d, name))) {
            double cw = gm_mdata_num(md, r, c[C_X]), fu = gm_mdata_num(md, r, c[C_VALUE]);
            if (cw >= 1 && cw <= 64 && fu > 0) {
                op->fu.fu[(int)cw - 1] = fu;
                if ((size_t)cw > op->fu.n)
                    op->fu.n = (size_t)cw;
            }
        } else if (!strcmp(kind, "fu_sum") && (op = op_slot(d, name))) {
            op->fu.P1 = gm_mdata_num(md, r, c[C_X]);
            op->s_u = (int)gm_mdata_num(md, r, c[C_Y]);
            op->c_at = (int)gm_mdata_num(md, r, c[C_Z]);
            op->thr = gm_mdata_num(md, r, c[C_VALUE]);
            op->guide = gm_mdata_num(md, r, c[C_DOC]);
            const char *s = gm_mdata_text(md, r, c[C_NOTE]);
            if (s && strlen(s) < sizeof op->sass)
                strcpy(op->sass, s);
        } else if (!strcmp(kind, "kern") && (op = op_slot(d, name))) {
            op->regs = (int)gm_mdata_num(md, r, c[C_X]);
            op->smem = (long)gm_mdata_num(md, r, c[C_Y]);
        }
    }
    for (size_t i = 0; i < d->n_ops; i++)
        fill_gaps(&d->ops[i].fu);
    load_mix(d);
    return GM_OK;
}

const gm_waves_op *gm_waves_data_op(const gm_waves_data *d, const char *name)
{
    return find_op(d, name);
}

void gm_waves_fit_free(gm_waves_fit *f)
{
    free(f->meas);
    free(f->pred);
    free(f->G);
    free(f->b);
    free(f->nslot);
    memset(f, 0, sizeof *f);
}

static const char *const tmodel_names[GM_WAVES_T_COUNT] = {"eq3.2", "refill"};

const char *gm_waves_tmodel_name(gm_waves_tmodel t)
{
    return (unsigned)t < GM_WAVES_T_COUNT ? tmodel_names[t] : "?";
}

gm_status gm_waves_tmodel_parse(const char *text, gm_waves_tmodel *out)
{
    for (int i = 0; i < GM_WAVES_T_COUNT; i++) {
        if (text && strcmp(text, tmodel_names[i]) == 0) {
            *out = (gm_waves_tmodel)i;
            return GM_OK;
        }
    }
    return GM_ERR_INVALID_ARG;
}

gm_status gm_waves_fit_tgb(const gm_waves_data *d, const char *opname, gm_waves_form form,
                           gm_waves_fit *f, gm_error *err)
{
    return gm_waves_fit_tgb_model(d, opname, form, GM_WAVES_T_EQ32, NULL, f, err);
}

gm_status gm_waves_fit_tgb_model(const gm_waves_data *d, const char *opname, gm_waves_form form,
                                 gm_waves_tmodel tm, const gm_waves_data *tails, gm_waves_fit *f,
                                 gm_error *err)
{
    int c[C_COUNT];
    const gm_mdata *md = d->md;
    memset(f, 0, sizeof *f);
    f->r = f->median_err = f->max_err = f->scale_ms = NAN;
    f->mix[0] = f->mix[1] = NAN;
    const gm_waves_op *op = gm_waves_data_op(d, opname);
    if (!op || op->fu.n == 0 || !d->have_params || (unsigned)form >= GM_WAVES_FORM_COUNT ||
        find_cols(md, c) >= 0)
        return gm_fail(err, GM_ERR_MISSING, "no fu(c) curve or state-buffer parameters for '%s'",
                       opname);
    if (tm == GM_WAVES_T_REFILL) {
        const gm_waves_op *t = gm_waves_data_op(tails ? tails : d, opname);
        if (!t || (isnan(t->mix[0]) && isnan(t->mix[1])))
            return gm_fail(err, GM_ERR_MISSING, "no per-block log (tail rows) for '%s': the "
                           "refill model needs its mixing", opname);
        f->mix[0] = t->mix[0];
        f->mix[1] = t->mix[1];
    }
    size_t cap = md->n_rows;
    f->meas = malloc(cap * sizeof *f->meas);
    f->pred = malloc(cap * sizeof *f->pred);
    f->G = malloc(cap * sizeof *f->G);
    f->b = malloc(cap * sizeof *f->b);
    f->nslot = malloc(cap * sizeof *f->nslot);
    if (!f->meas || !f->pred || !f->G || !f->b || !f->nslot) {
        gm_waves_fit_free(f);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    const gm_waves_params *p = &d->form[form];
    for (size_t r = 0; r < md->n_rows; r++)
        if (is(md, r, c[C_KIND], "tgb") && is(md, r, c[C_NAME], opname) &&
            gm_mdata_num(md, r, c[C_X]) == 1 && gm_mdata_num(md, r, c[C_Y]) == 1)
            f->scale_ms = gm_mdata_num(md, r, c[C_VALUE]);
    if (!(f->scale_ms > 0)) {
        gm_waves_fit_free(f);
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
        int N = gm_waves_nslot(p, b, op->smem, op->regs > 0 ? op->regs : 32, NULL);
        if (N <= 0)
            continue;
        double T = tm == GM_WAVES_T_REFILL
                       ? gm_waves_time_refill(&op->fu, G, b, N, p->n_mp,
                                              gm_waves_refill_mix_at(f->mix[0], f->mix[1], b))
                       : gm_waves_time(&op->fu, gm_waves_blocks_per_mp(G, p->n_mp), b, N);
        f->meas[f->n] = meas;
        f->pred[f->n] = T * f->scale_ms;
        f->G[f->n] = G;
        f->b[f->n] = b;
        f->nslot[f->n] = N;
        f->n++;
    }
    f->r = gm_waves_pearson(f->pred, f->meas, f->n);
    f->median_err = gm_waves_median_abs_err(f->pred, f->meas, f->n);
    f->max_err = 0;
    for (size_t i = 0; i < f->n; i++) {
        double e = fabs(f->pred[i] / f->meas[i] - 1);
        if (e > f->max_err)
            f->max_err = e;
    }
    return GM_OK;
}
