/* The single-server model of the shared-memory atomic unit (paper 000,
 * Sec. 3): Eq. 1-3 over a calibration table, Table 2 for one SM, and its
 * application to one kernel launch's counters.  Rules: docs/model.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics_model.h"
#include "atomics_split.h"
#include "core/stats.h"

/* ---- Eq. 1: T-hat at integral points ------------------------------------ */

static gm_status sampled(const gm_atomics_series *s, int n, int e, int c, double *T)
{
    const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
    if (!cell || isnan(cell->t_median))
        return GM_ERR_MISSING;
    *T = cell->t_median;
    return GM_OK;
}

gm_status gm_atomics_T_hat(const gm_atomics_series *s, int n, int e, int c, double *T,
                           unsigned *clamp_flags)
{
    if (!s || !T)
        return GM_ERR_INVALID_ARG;
    unsigned flags = 0;
    if (clamp_flags)
        *clamp_flags = 0;
    if (n < 0)
        return GM_ERR_RANGE;
    if (n == 0) { /* Eq. 1, second case: no jobs, no time */
        *T = 0;
        return GM_OK;
    }
    if (c < 0) {
        c = 0;
        flags |= GM_ATOMICS_CLAMP_C_LOW;
    }
    int c_limit = s->mixes_cas ? n : 0;
    if (c > c_limit) {
        c = c_limit;
        flags |= GM_ATOMICS_CLAMP_C_HIGH;
    }
    if (n > s->n_max) {
        /* c counts CAS among n queued jobs (Table 2: c = n N_c / N), so the
         * CAS share c/n, not c itself, carries over to the clamped n. */
        c = (int)lround((double)c * s->n_max / n);
        n = s->n_max;
        flags |= GM_ATOMICS_CLAMP_N_HIGH;
    }
    if (e < 1) {
        e = 1;
        flags |= GM_ATOMICS_CLAMP_E_LOW;
    } else if (e > s->e_max) {
        e = s->e_max;
        flags |= GM_ATOMICS_CLAMP_E_HIGH;
    }
    if (clamp_flags)
        *clamp_flags = flags;
    return sampled(s, n, e, c, T);
}

/* ---- Eq. 2: multilinear interpolation ----------------------------------- */

/* Bilinear in (e, c) on the integral layer n; 1 <= e <= e_max and
 * 0 <= c <= n (c = 0 for a series without CAS) already hold.  Each step is
 * a + w (b - a), reading b only when w > 0, so that an integral input
 * returns the sampled value exactly and never reads a neighbour cell that a
 * partial table may lack. */
static gm_status layer_T(const gm_atomics_series *s, int n, double e, double c, double *T)
{
    int e0 = (int)floor(e), c0 = (int)floor(c);
    double we = e - e0, wc = c - c0;
    if (e0 >= s->e_max) {
        e0 = s->e_max;
        we = 0;
    }
    if (c0 >= n || !s->mixes_cas) {
        c0 = s->mixes_cas ? n : 0;
        wc = 0;
    }
    double v[2][2] = {{0, 0}, {0, 0}};
    for (int i = 0; i < (we > 0 ? 2 : 1); i++)
        for (int j = 0; j < (wc > 0 ? 2 : 1); j++) {
            gm_status st = sampled(s, n, e0 + i, c0 + j, &v[i][j]);
            if (st != GM_OK)
                return st;
        }
    double at_e0 = wc > 0 ? v[0][0] + wc * (v[0][1] - v[0][0]) : v[0][0];
    double at_e1 = wc > 0 ? v[1][0] + wc * (v[1][1] - v[1][0]) : v[1][0];
    *T = we > 0 ? at_e0 + we * (at_e1 - at_e0) : at_e0;
    return GM_OK;
}

/* Brings real (n, e, c) onto the measured grid, with flags (atomics_model.h).  n is
 * finite and > 0 on return. */
static gm_status clamp_inputs(const gm_atomics_series *s, double *n, double *e, double *c,
                              unsigned *flags)
{
    if (!isfinite(*n) || !isfinite(*e) || !isfinite(*c) || *n < 0)
        return GM_ERR_RANGE;
    *flags = 0;
    if (*c < 0) {
        *c = 0;
        *flags |= GM_ATOMICS_CLAMP_C_LOW;
    }
    double c_limit = s->mixes_cas ? *n : 0;
    if (*c > c_limit) {
        *c = c_limit;
        *flags |= GM_ATOMICS_CLAMP_C_HIGH;
    }
    if (*n > s->n_max) {
        *c = *c * s->n_max / *n; /* keep the CAS share c/n (see gm_atomics_T_hat) */
        if (*c > s->n_max)
            *c = s->n_max;
        *n = s->n_max;
        *flags |= GM_ATOMICS_CLAMP_N_HIGH;
    }
    if (*e < 1) {
        *e = 1;
        *flags |= GM_ATOMICS_CLAMP_E_LOW;
    } else if (*e > s->e_max) {
        *e = s->e_max;
        *flags |= GM_ATOMICS_CLAMP_E_HIGH;
    }
    return GM_OK;
}

/* Eq. 2 on clamped inputs, 0 < n <= n_max. */
static gm_status interp_clamped(const gm_atomics_series *s, double n, double e, double c, double *T)
{
    if (n < 1) {
        /* Between T-hat(0) = 0 and T-hat(1): c <= n < 1 lies in layer 1. */
        double T1;
        gm_status st = layer_T(s, 1, e, c, &T1);
        if (st == GM_OK)
            *T = n * T1;
        return st;
    }
    int n0 = (int)floor(n);
    double wn = n - n0;
    if (n0 >= s->n_max) {
        n0 = s->n_max;
        wn = 0;
    }
    /* Layer n0 holds c only up to n0: c in (n0, n] uses c = n0 there (the
     * domain edge of that layer, not a clamp). */
    double T0, T1;
    gm_status st = layer_T(s, n0, e, c < n0 ? c : n0, &T0);
    if (st != GM_OK || wn == 0) {
        *T = T0;
        return st;
    }
    st = layer_T(s, n0 + 1, e, c, &T1);
    if (st == GM_OK)
        *T = T0 + wn * (T1 - T0);
    return st;
}

gm_status gm_atomics_T_interp(const gm_atomics_series *s, double n, double e, double c, double *T,
                              unsigned *clamp_flags)
{
    if (!s || !T)
        return GM_ERR_INVALID_ARG;
    if (clamp_flags)
        *clamp_flags = 0;
    unsigned flags = 0;
    gm_status st = clamp_inputs(s, &n, &e, &c, &flags);
    if (st != GM_OK)
        return st;
    if (n == 0) {
        *T = 0;
        return GM_OK;
    }
    if (clamp_flags)
        *clamp_flags = flags;
    return interp_clamped(s, n, e, c, T);
}

/* ---- Eq. 3 --------------------------------------------------------------- */

gm_status gm_atomics_S(const gm_atomics_series *s, double n, double e, double c, double *S,
                       unsigned *clamp_flags)
{
    if (!s || !S)
        return GM_ERR_INVALID_ARG;
    if (clamp_flags)
        *clamp_flags = 0;
    unsigned flags = 0;
    gm_status st = clamp_inputs(s, &n, &e, &c, &flags);
    if (st != GM_OK)
        return st;
    if (n == 0) { /* no jobs, no service */
        *S = 0;
        return GM_OK;
    }
    if (clamp_flags)
        *clamp_flags = flags;
    double T;
    if (n < 1)
        /* T = n T(1) there, so S = T(1) exactly, without the round trip. */
        return layer_T(s, 1, e, c, S);
    st = interp_clamped(s, n, e, c, &T);
    if (st == GM_OK)
        *S = T / n;
    return st;
}

/* ---- model variants ------------------------------------------------------ */

/* ATOMS.CAS wavefronts per conflicting lane on Hopper: O/N / conflict degree
 * was 2.000 in all 44 CAS validation cases (docs/validation.md). */
#define ATOMICS_CAS_WAVEFRONTS_PER_LANE 2.0

/* The variants the validation suite compares (docs/validation.md has the
 * numbers; docs/model.md the reasons).  `default` is a copy of the variant
 * the validation chose, under its own name. */
#define WAVEFRONT_OPTIONS                                                                  \
    .method = GM_ATOMICS_METHOD_STEADY_STATE, .n_source = GM_ATOMICS_N_OCCUPANCY, .split = GM_ATOMICS_SPLIT_FAO_CAS, \
    .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS, .e_source = GM_ATOMICS_E_WAVEFRONTS, .busy = GM_ATOMICS_BUSY_WAVEFRONTS

static const gm_atomics_model_options variants[] = {
    /* The paper as written: single-shot S, n-hat from occupancy, FAO/CAS. */
    {.method = GM_ATOMICS_METHOD_SINGLE_SHOT, .n_source = GM_ATOMICS_N_OCCUPANCY,
     .split = GM_ATOMICS_SPLIT_FAO_CAS, .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS,
     .e_source = GM_ATOMICS_E_WAVEFRONTS, .busy = GM_ATOMICS_BUSY_QUEUE, .name = "paper"},
    /* What `gpuq` uses when no --model is given: `wavefront`, the only
     * variant within the mixed-kernel bars on the H200 (docs/validation.md). */
    {WAVEFRONT_OPTIONS, .name = "default"},
    /* S from the steady-state table: every warp keeps one atomic in flight. */
    {.method = GM_ATOMICS_METHOD_STEADY_STATE, .n_source = GM_ATOMICS_N_OCCUPANCY,
     .split = GM_ATOMICS_SPLIT_FAO_CAS, .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS,
     .e_source = GM_ATOMICS_E_WAVEFRONTS, .busy = GM_ATOMICS_BUSY_QUEUE, .name = "steady"},
    /* n from the LSU pending counter instead of occupancy. */
    {.method = GM_ATOMICS_METHOD_SINGLE_SHOT, .n_source = GM_ATOMICS_N_MEASURED,
     .split = GM_ATOMICS_SPLIT_FAO_CAS, .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS,
     .e_source = GM_ATOMICS_E_WAVEFRONTS, .busy = GM_ATOMICS_BUSY_QUEUE, .name = "measured-n"},
    /* POPC.INC jobs on their own series. */
    {.method = GM_ATOMICS_METHOD_SINGLE_SHOT, .n_source = GM_ATOMICS_N_OCCUPANCY,
     .split = GM_ATOMICS_SPLIT_BY_OPCODE, .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS,
     .e_source = GM_ATOMICS_E_WAVEFRONTS, .busy = GM_ATOMICS_BUSY_QUEUE, .name = "opcode"},
    /* Every correction of the queue model at once: the measured n, S from
     * the steady-state table (a loop keeps atomics in flight), POPC.INC on
     * its own series, and e in lanes (CAS costs 2 wavefronts per lane). */
    {.method = GM_ATOMICS_METHOD_STEADY_STATE, .n_source = GM_ATOMICS_N_MEASURED,
     .split = GM_ATOMICS_SPLIT_BY_OPCODE, .pattern = GM_ATOMICS_PATTERN_SAME_ADDRESS,
     .e_source = GM_ATOMICS_E_LANES, .busy = GM_ATOMICS_BUSY_QUEUE, .name = "measured-steady"},
    /* B = O w: a saturated unit retires one wavefront per w cycles whatever
     * the opcode (validation: 1.002 cycles per wavefront for ADD, CAS,
     * POPC.INC and mixes), so the wavefronts alone give its busy time. */
    {WAVEFRONT_OPTIONS, .name = "wavefront"},
    /* `default`, with the latency kind's earlier L: short scoreboard and
     * MIO throttle only (atomics_latency.h; docs/validation.md, "The
     * latency quantity"). */
    {WAVEFRONT_OPTIONS, .latency = GM_ATOMICS_LATENCY_SB_MIO, .name = "latency-sb-mio"},
};
#define VARIANT_COUNT (sizeof variants / sizeof variants[0])

gm_status gm_atomics_model_by_name(const char *name, gm_atomics_model_options *out)
{
    if (!name || !out)
        return GM_ERR_INVALID_ARG;
    for (size_t i = 0; i < VARIANT_COUNT; i++)
        if (strcmp(variants[i].name, name) == 0) {
            *out = variants[i];
            return GM_OK;
        }
    return GM_ERR_PARSE;
}

const char *gm_atomics_model_names(void)
{
    return "paper,default,steady,measured-n,opcode,measured-steady,wavefront,latency-sb-mio";
}

/* ---- Table 2 for one SM -------------------------------------------------- */

double gm_atomics_e_from_counters(double O, double N_sum)
{
    return N_sum > 0 ? O / N_sum : 0;
}

static int nonneg(double x)
{
    return isfinite(x) && x >= 0;
}

gm_status gm_atomics_cycles_per_wavefront(const gm_atomics_table *table, gm_atomics_method method,
                                          double *w, gm_atomics_method *used_method, gm_error *err)
{
    if (!table || !w)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no table or result");
    gm_atomics_method used = method;
    const gm_atomics_series *s = gm_atomics_table_find(table, GM_ATOMICS_CLASS_ADD,
                                                       GM_ATOMICS_PATTERN_SAME_ADDRESS, used);
    if (!s && method != GM_ATOMICS_METHOD_SINGLE_SHOT) {
        used = GM_ATOMICS_METHOD_SINGLE_SHOT;
        s = gm_atomics_table_find(table, GM_ATOMICS_CLASS_ADD, GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                  used);
    }
    if (!s)
        return gm_fail(err, GM_ERR_MISSING,
                       "the table has no add,same_address series to read cycles per wavefront from");
    /* ADD on one address costs one wavefront per active lane (O/N = e,
     * docs/validation.md), so the slope of T over e is the cost of one more
     * wavefront per job; half a warp to a full warp keeps every layer from
     * n_max/4 up in the saturated regime, where that cost is the unit's
     * issue rate and not the latency of a lone job. */
    int e_hi = s->e_max, e_lo = s->e_max / 2;
    int n_lo = s->n_max / 4 >= 1 ? s->n_max / 4 : 1;
    int count = s->n_max - n_lo + 1;
    if (e_lo < 1 || count < 1)
        return gm_fail(err, GM_ERR_RANGE, "a table of %d lanes x %d warps has no e slope",
                       s->e_max, s->n_max);
    double *slopes = malloc((size_t)count * sizeof *slopes);
    if (!slopes)
        return gm_fail(err, GM_ERR_NOMEM, "cannot allocate %d slopes", count);
    for (int i = 0; i < count; i++) {
        int n = n_lo + i;
        double t_hi, t_lo;
        if (sampled(s, n, e_hi, 0, &t_hi) != GM_OK || sampled(s, n, e_lo, 0, &t_lo) != GM_OK) {
            free(slopes);
            return gm_fail(err, GM_ERR_MISSING, "series add,same_address,%s lacks cell n=%d e=%d or e=%d",
                           gm_atomics_method_name(used), n, e_hi, e_lo);
        }
        slopes[i] = (t_hi - t_lo) / ((double)n * (e_hi - e_lo));
    }
    double median = gm_median_sort(slopes, (size_t)count);
    free(slopes);
    if (!(isfinite(median) && median > 0))
        return gm_fail(err, GM_ERR_RANGE, "cycles per wavefront from the add,same_address,%s series "
                       "is %g, not > 0", gm_atomics_method_name(used), median);
    *w = median;
    if (used_method)
        *used_method = used;
    return GM_OK;
}

/* w for the options: the one found once, or found now. */
static gm_status options_w(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                           double *w, gm_atomics_method *used, gm_error *err)
{
    if (opt->w_known) {
        *w = opt->w;
        if (used)
            *used = opt->w_method;
        return GM_OK;
    }
    return gm_atomics_cycles_per_wavefront(table, opt->method, w, used, err);
}

void gm_atomics_model_know_w(const gm_atomics_table *table, gm_atomics_model_options *opt)
{
    opt->w_known = 0;
    if (opt->busy != GM_ATOMICS_BUSY_WAVEFRONTS)
        return;
    gm_error err;
    if (gm_atomics_cycles_per_wavefront(table, opt->method, &opt->w, &opt->w_method, &err) == GM_OK)
        opt->w_known = 1;
}

static const gm_atomics_series *need_series(const gm_atomics_table *table, gm_atomics_job_class cls,
                                            const gm_atomics_model_options *opt, gm_error *err)
{
    const gm_atomics_series *s = gm_atomics_table_find(table, cls, opt->pattern, opt->method);
    if (!s)
        gm_fail(err, GM_ERR_MISSING, "the table has no %s,%s,%s series (model '%s' needs it)",
                gm_atomics_class_name(cls), gm_atomics_pattern_name(opt->pattern),
                gm_atomics_method_name(opt->method), opt->name ? opt->name : "?");
    return s;
}

static gm_status model_S(const gm_atomics_series *s, double n, double e, double c, double *S,
                         unsigned *flags, gm_error *err)
{
    unsigned f = 0;
    gm_status st = gm_atomics_S(s, n, e, c, S, &f);
    *flags |= f;
    if (st == GM_ERR_MISSING)
        return gm_fail(err, st, "series %s,%s,%s lacks a cell near n=%g e=%g c=%g",
                       gm_atomics_class_name(s->cls), gm_atomics_pattern_name(s->pattern),
                       gm_atomics_method_name(s->method), n, e, c);
    if (st != GM_OK)
        return gm_fail(err, st, "S(n=%g, e=%g, c=%g) is undefined", n, e, c);
    return GM_OK;
}

gm_status gm_atomics_table2_sm(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                               double N_f, double N_c, double N_popc, double n, double e, double T,
                               gm_atomics_sm_result *out, gm_error *err)
{
    if (!table || !opt || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no table, options or result");
    if (!nonneg(N_f) || !nonneg(N_c) || !nonneg(N_popc))
        return gm_fail(err, GM_ERR_RANGE, "job counts must be finite and >= 0 (N_f=%g N_c=%g N_popc=%g)",
                       N_f, N_c, N_popc);
    int wavefront_busy = opt->busy == GM_ATOMICS_BUSY_WAVEFRONTS;
    /* The wavefront busy time does not use n: an unknown n (NaN) is fine there. */
    if ((!wavefront_busy && !nonneg(n)) || (wavefront_busy && !(isnan(n) || nonneg(n))) ||
        !isfinite(e))
        return gm_fail(err, GM_ERR_RANGE, "n=%g and e=%g must be finite, n >= 0", n, e);
    if (opt->split != GM_ATOMICS_SPLIT_BY_OPCODE) {
        /* The paper's split: every non-CAS ATOMS is an FAO job. */
        N_f += N_popc;
        N_popc = 0;
    }
    double N_fc = N_f + N_c; /* jobs on the FAO/CAS series */
    double N = N_fc + N_popc; /* Table 2: N = N_f + N_c */
    memset(out, 0, sizeof *out);
    out->N = N;
    out->N_c = N_c;
    out->N_popc = N_popc;
    out->n = n;
    out->e = e;
    out->T = T;
    if (N == 0) /* no jobs: B = 0 and U = 0, whatever T is */
        return GM_OK;
    if (!(isfinite(T) && T > 0))
        return gm_fail(err, GM_ERR_RANGE, "T=%g cycles with N=%g jobs", T, N);

    /* Table 2: c = n N_c / (N_c + N_f); under BY_OPCODE the FAO/CAS series
     * sees the CAS share of its own jobs. */
    out->c = N_fc > 0 ? n * N_c / N_fc : 0;
    if (wavefront_busy) {
        if (e < 0)
            return gm_fail(err, GM_ERR_RANGE, "e=%g wavefronts per job is negative", e);
        double w;
        gm_status st = options_w(table, opt, &w, NULL, err);
        if (st != GM_OK)
            return st;
        out->S = e * w;          /* a job of e wavefronts holds the saturated unit e w cycles */
        out->B = N * out->S;     /* = O w */
        out->U = out->B / T;
        return GM_OK;
    }
    double S_fc = 0, S_popc = 0;
    if (N_fc > 0) {
        const gm_atomics_series *s = need_series(table, GM_ATOMICS_CLASS_ADD, opt, err);
        if (!s)
            return GM_ERR_MISSING;
        gm_status st = model_S(s, n, e, out->c, &S_fc, &out->clamp_flags, err);
        if (st != GM_OK)
            return st;
    }
    if (N_popc > 0) {
        const gm_atomics_series *s = need_series(table, GM_ATOMICS_CLASS_POPC_INC, opt, err);
        if (!s)
            return GM_ERR_MISSING;
        gm_status st = model_S(s, n, e, 0, &S_popc, &out->clamp_flags, err);
        if (st != GM_OK)
            return st;
    }
    out->S = (N_fc * S_fc + N_popc * S_popc) / N; /* mix-weighted by job counts */
    out->B = N * out->S;                           /* Table 2: B = N S(n-hat, e, c) */
    out->U = out->B / T;                           /* Table 2: U = B / T */
    return GM_OK;
}

/* ---- one kernel launch ----------------------------------------------------- */

/* Short names for verdicts; the full metric names are in counters.h. */
static const char *const metric_label[GM_ATOMICS_M_ATOMIC_ROWS] = {
    [GM_ATOMICS_M_N_ATOM_SASS] = "N (smsp__sass_inst_executed_op_shared_atom.sum)",
    [GM_ATOMICS_M_N_ATOM] = "N (smsp__inst_executed_op_shared_atom.sum)",
    [GM_ATOMICS_M_N_CAS] = "N_c (smsp__inst_executed_op_shared_atom_dot_cas.sum)",
    [GM_ATOMICS_M_N_ALU] = "N_f (smsp__inst_executed_op_shared_atom_dot_alu.sum)",
    [GM_ATOMICS_M_O_WAVEFRONTS] = "O (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum)",
    [GM_ATOMICS_M_CYCLES_SUM] = "T (sm__cycles_active.sum)",
    [GM_ATOMICS_M_CYCLES_AVG] = "T (sm__cycles_active.avg)",
    [GM_ATOMICS_M_CYCLES_MIN] = "T.min (sm__cycles_active.min)",
    [GM_ATOMICS_M_CYCLES_MAX] = "T.max (sm__cycles_active.max)",
    [GM_ATOMICS_M_OCCUPANCY_PCT] = "o (sm__warps_active.avg.pct_of_peak_sustained_active)",
    [GM_ATOMICS_M_DURATION_NS] = "duration (gpu__time_duration.sum)",
    [GM_ATOMICS_M_SHARED_PENDING] = "pending (sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum)",
    [GM_ATOMICS_M_SHARED_INST] = "shared inst (sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum)",
};

static gm_status missing(gm_atomics_kernel_result *out, gm_atomics_metric_id id)
{
    out->notes |= GM_ATOMICS_NOTE_MISSING_COUNTER;
    snprintf(out->verdict, sizeof out->verdict, "not modelled: counter %s missing",
             metric_label[id]);
    return GM_OK;
}

static double metric(const gm_launch_counters *k, gm_atomics_metric_id id)
{
    return k->metric[id];
}

/* N_c, N_popc (and N_f = N - both) for N jobs, by the variant's split; sets
 * split_source and notes.  *effective is the split actually used. */
static void split_jobs(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                       const gm_launch_counters *k, int per_sm, double N, double *N_c,
                       double *N_popc, gm_atomics_class_split *effective,
                       gm_atomics_kernel_result *out)
{
    const gm_atomics_split split = gm_atomics_split_of(k), *sp = &split;
    double total = sp->valid ? sp->add + sp->cas + sp->popc_inc + sp->other : NAN;
    int split_ok = sp->valid && isfinite(total) && total > 0;
    *N_popc = 0;
    *effective = GM_ATOMICS_SPLIT_FAO_CAS;
    const char *fallback = NULL;

    if (opt->split == GM_ATOMICS_SPLIT_BY_OPCODE) {
        if (!sp->valid)
            fallback = "fallback: no opcode split collected";
        else if (!split_ok)
            fallback = "fallback: opcode split is empty";
        else if (sp->popc_inc > 0 &&
                 !gm_atomics_table_find(table, GM_ATOMICS_CLASS_POPC_INC, opt->pattern,
                                        opt->method))
            fallback = "fallback: table has no popc_inc series";
        if (!fallback) {
            *N_c = N * sp->cas / total;
            *N_popc = N * sp->popc_inc / total;
            *effective = GM_ATOMICS_SPLIT_BY_OPCODE;
            snprintf(out->split_source, sizeof out->split_source, "sass classification");
            return;
        }
        out->notes |= GM_ATOMICS_NOTE_SPLIT_FALLBACK;
    }

    double n_cas = metric(k, GM_ATOMICS_M_N_CAS), n_alu = metric(k, GM_ATOMICS_M_N_ALU);
    const char *source;
    if (per_sm) {
        *N_c = NAN; /* taken per SM from sm_n_c */
        source = "per-SM N_f/N_c counters";
    } else if (isfinite(n_cas)) {
        *N_c = n_cas;
        source = "hardware dot_cas/dot_alu";
    } else if (isfinite(n_alu)) {
        *N_c = N - n_alu;
        source = "hardware dot_alu (N_c = N - N_f)";
    } else if (split_ok) {
        *N_c = N * sp->cas / total;
        source = "sass classification";
    } else {
        /* Labelled, not hidden: U is then the all-FAO estimate. */
        *N_c = 0;
        out->notes |= GM_ATOMICS_NOTE_MISSING_COUNTER;
        source = "assumed no CAS: N_c counter missing";
    }
    if (*N_c < 0)
        *N_c = 0;
    else if (*N_c > N)
        *N_c = N;
    if (fallback)
        snprintf(out->split_source, sizeof out->split_source, "%s; %s", fallback, source);
    else
        snprintf(out->split_source, sizeof out->split_source, "%s", source);
}

/* Measured n: the LSU shared-pipe FIFO holds pending/cycles instructions per
 * SM on average; the atomics' share of those instructions is theirs. */
static double measured_n(const gm_launch_counters *k, double N)
{
    double pending = metric(k,
                            GM_ATOMICS_M_SHARED_PENDING), cycles = metric(k, GM_ATOMICS_M_CYCLES_SUM);
    double inst = metric(k, GM_ATOMICS_M_SHARED_INST), n_hw = metric(k, GM_ATOMICS_M_N_ATOM);
    if (!isfinite(n_hw))
        n_hw = N;
    if (!nonneg(pending) || !(isfinite(cycles) && cycles > 0) || !(isfinite(inst) && inst > 0))
        return NAN;
    double share = n_hw / inst;
    if (share > 1) /* counting skew between two counters: the atomics are at most all of it */
        share = 1;
    return pending / cycles * share;
}

static int per_sm_usable(const gm_launch_counters *k)
{
    return k->n_sm > 0 && k->sm_n_f && k->sm_n_c && k->sm_cycles && k->sm_occupancy;
}

gm_status gm_atomics_model_apply(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                                 const gm_launch_counters *k, gm_atomics_kernel_result *out,
                                 gm_error *err)
{
    if (!table || !opt || !k || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no table, options, counters or result");
    memset(out, 0, sizeof *out);
    out->avg.U = NAN;
    out->U_lo = out->U_hi = NAN;
    out->n_hat = out->n_measured = NAN;
    int per_sm = per_sm_usable(k);
    int warps_per_sm = table->meta.max_warps_per_sm;

    /* N for the whole launch (Table 1): instrumented count first. */
    double N = metric(k, GM_ATOMICS_M_N_ATOM_SASS);
    if (!isfinite(N))
        N = metric(k, GM_ATOMICS_M_N_ATOM);
    if (per_sm) {
        N = 0;
        for (int i = 0; i < k->n_sm; i++)
            N += k->sm_n_f[i] + k->sm_n_c[i];
    }
    if (!isfinite(N))
        return missing(out, GM_ATOMICS_M_N_ATOM_SASS);
    if (N < 0)
        return gm_fail(err, GM_ERR_RANGE, "N=%g atomic jobs is negative", N);

    /* SM count: sum / avg recovers how many SMs the counters covered. */
    double sum = metric(k, GM_ATOMICS_M_CYCLES_SUM), avg = metric(k, GM_ATOMICS_M_CYCLES_AVG);
    out->sm_count = table->meta.sm_count;
    if (out->sm_count < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table metadata sm_count=%d", out->sm_count);
    if (per_sm)
        out->sm_count = k->n_sm;
    else if (isfinite(sum) && isfinite(avg) && avg > 0 && lround(sum / avg) >= 1)
        out->sm_count = (int)lround(sum / avg);

    /* Table 2: n-hat = o WarpsPerSM */
    out->n_hat = metric(k, GM_ATOMICS_M_OCCUPANCY_PCT) / 100.0 * warps_per_sm;
    out->n_measured = measured_n(k, N);

    if (N == 0) {
        out->notes |= GM_ATOMICS_NOTE_NO_ATOMICS;
        out->avg.U = 0;
        out->U_lo = out->U_hi = 0;
        out->avg.T = isfinite(avg) ? avg : NAN;
        snprintf(out->split_source, sizeof out->split_source, "no atomics");
        return GM_OK;
    }

    double O = metric(k, GM_ATOMICS_M_O_WAVEFRONTS);
    if (!isfinite(O))
        return missing(out, GM_ATOMICS_M_O_WAVEFRONTS);
    double e = gm_atomics_e_from_counters(O, N); /* Table 2: e = O / sum_i N(i) */
    out->notes |= GM_ATOMICS_NOTE_E_UNIFORM;     /* one e for every SM (paper Sec. 3.3) */

    int wavefront_busy = opt->busy == GM_ATOMICS_BUSY_WAVEFRONTS;
    gm_status st;
    if (wavefront_busy) {
        /* Fails early, naming what the table lacks; notes the fallback. */
        double w;
        gm_atomics_method used;
        st = options_w(table, opt, &w, &used, err);
        if (st != GM_OK)
            return st;
        if (used != opt->method)
            out->notes |= GM_ATOMICS_NOTE_W_SINGLE_SHOT;
    }

    double n;
    if (wavefront_busy) {
        /* B = O w needs no n; the one of the variant's source is reported. */
        n = opt->n_source == GM_ATOMICS_N_MEASURED ? out->n_measured : out->n_hat;
    } else if (opt->n_source == GM_ATOMICS_N_MEASURED) {
        if (isnan(out->n_measured))
            return missing(out, !isfinite(metric(k, GM_ATOMICS_M_SHARED_PENDING)) ? GM_ATOMICS_M_SHARED_PENDING
                                : !isfinite(metric(k, GM_ATOMICS_M_SHARED_INST)) ? GM_ATOMICS_M_SHARED_INST
                                                                          : GM_ATOMICS_M_CYCLES_SUM);
        n = out->n_measured;
    } else {
        if (!per_sm && isnan(out->n_hat))
            return missing(out, GM_ATOMICS_M_OCCUPANCY_PCT);
        n = out->n_hat;
        out->notes |= GM_ATOMICS_NOTE_N_APPROX;
    }

    double N_c, N_popc;
    gm_atomics_class_split used;
    split_jobs(table, opt, k, per_sm, N, &N_c, &N_popc, &used, out);
    gm_atomics_model_options eff = *opt;
    eff.split = used;
    double f_cas = N_c / N, f_popc = N_popc / N;
    if (opt->e_source == GM_ATOMICS_E_LANES && !wavefront_busy) {
        /* Lanes per ADD/CAS job: POPC.INC takes 1 wavefront each, CAS 2 per
         * lane, every other ATOMS 1 per lane (docs/validation.md, counters
         * against construction): O = N_popc + N_f e + 2 N_c e. */
        double N_c_all = N_c;
        if (per_sm && used != GM_ATOMICS_SPLIT_BY_OPCODE) {
            N_c_all = 0;
            for (int i = 0; i < k->n_sm; i++)
                N_c_all += k->sm_n_c[i];
        }
        double lane_jobs = (N - N_c_all - N_popc) + ATOMICS_CAS_WAVEFRONTS_PER_LANE * N_c_all;
        e = lane_jobs > 0 ? (O - N_popc) / lane_jobs : 1;
    }

    if (!per_sm) {
        /* The average SM (NCU gives totals only): Table 2 on sums / SM count,
         * bounded by the slowest and fastest SM's cycles. */
        out->notes |= GM_ATOMICS_NOTE_AVG_SM;
        double T = isfinite(avg) ? avg : sum / out->sm_count;
        if (!isfinite(T))
            return missing(out, GM_ATOMICS_M_CYCLES_AVG);
        double per = 1.0 / out->sm_count;
        st = gm_atomics_table2_sm(table, &eff, (N - N_c - N_popc) * per, N_c * per, N_popc * per, n,
                                  e, T, &out->avg, err);
        if (st != GM_OK)
            return st;
        double t_min = metric(k,
                              GM_ATOMICS_M_CYCLES_MIN), t_max = metric(k, GM_ATOMICS_M_CYCLES_MAX);
        if (isfinite(t_max) && t_max > 0)
            out->U_lo = out->avg.B / t_max;
        if (isfinite(t_min) && t_min > 0)
            out->U_hi = out->avg.B / t_min;
    } else {
        /* Per-SM counters (Table 1 with superscript i): Table 2 per SM; the
         * bounds are the least and most utilized SM. */
        out->per_sm = calloc((size_t)k->n_sm, sizeof *out->per_sm);
        if (!out->per_sm)
            return gm_fail(err, GM_ERR_NOMEM, "cannot allocate %d per-SM results", k->n_sm);
        out->n_per_sm = k->n_sm;
        double sums[6] = {0}; /* N, N_c, N_popc, n, B, T */
        for (int i = 0; i < k->n_sm; i++) {
            double N_i = k->sm_n_f[i] + k->sm_n_c[i];
            double Nc_i = used == GM_ATOMICS_SPLIT_BY_OPCODE ? N_i * f_cas : k->sm_n_c[i];
            double Np_i = N_i * f_popc;
            double n_i = opt->n_source == GM_ATOMICS_N_MEASURED
                             ? n
                             : k->sm_occupancy[i] / 100.0 * warps_per_sm;
            if (!isfinite(N_i) || (!wavefront_busy && !isfinite(n_i)) ||
                !isfinite(k->sm_cycles[i])) {
                gm_atomics_kernel_result_free(out);
                return missing(out, !isfinite(n_i) ? GM_ATOMICS_M_OCCUPANCY_PCT
                                   : !isfinite(N_i) ? GM_ATOMICS_M_N_ATOM
                                                    : GM_ATOMICS_M_CYCLES_SUM);
            }
            gm_atomics_sm_result *r = &out->per_sm[i];
            st = gm_atomics_table2_sm(table, &eff, N_i - Nc_i - Np_i, Nc_i, Np_i, n_i, e,
                                      k->sm_cycles[i], r, err);
            if (st != GM_OK) {
                gm_atomics_kernel_result_free(out);
                return st;
            }
            sums[0] += r->N;
            sums[1] += r->N_c;
            sums[2] += r->N_popc;
            sums[3] += r->n;
            sums[4] += r->B;
            sums[5] += r->T;
            out->avg.clamp_flags |= r->clamp_flags;
            if (i == 0 || r->U < out->U_lo)
                out->U_lo = r->U;
            if (i == 0 || r->U > out->U_hi)
                out->U_hi = r->U;
        }
        gm_atomics_sm_result *a = &out->avg;
        double per = 1.0 / k->n_sm;
        a->N = sums[0] * per;
        a->N_c = sums[1] * per;
        a->N_popc = sums[2] * per;
        a->n = sums[3] * per;
        a->B = sums[4] * per;
        a->T = sums[5] * per;
        a->e = e;
        a->S = a->N > 0 ? a->B / a->N : 0;
        a->c = a->N - a->N_popc > 0 ? a->n * a->N_c / (a->N - a->N_popc) : 0;
        a->U = a->T > 0 ? a->B / a->T : 0;
    }
    if (out->avg.clamp_flags)
        out->notes |= GM_ATOMICS_NOTE_CLAMPED;
    return GM_OK;
}

void gm_atomics_kernel_result_free(gm_atomics_kernel_result *r)
{
    if (!r)
        return;
    free(r->per_sm);
    r->per_sm = NULL;
    r->n_per_sm = 0;
}
