/* GPUDIAG machine data (suite "sched", tables/<gpu>/sched.csv; columns in
 * src/papers/waves/waves_suite.h and docs/diag.md) read into the model's terms:
 * the state-buffer parameters in both forms, one fu(c) curve per
 * instruction, and the end-to-end check of Eq. 3.2 against the measured
 * kernel times (Sec. 4.3.3).  Pure C. */
#ifndef GPUQ_WAVES_DATA_H
#define GPUQ_WAVES_DATA_H

#include <stddef.h>
#include "waves_model.h"
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_WAVES_MAX_OPS 32

typedef struct gm_waves_op {
    char name[24];          /* "ffma" */
    char sass[24];          /* "FFMA" */
    gm_waves_fu_curve fu;
    double thr;             /* results per clock per SM (Eq. 3.7) */
    double guide;           /* programming guide, NaN when not listed */
    int s_u, c_at;
    int regs;               /* registers per thread of its kernel */
    long smem;              /* static shared memory of its kernel */
    /* refill mixing (waves_refill.h) its per-block logs show at b = 1
     * ([0]) and b = 32 ([1]) warps; NaN without a "tail" log */
    double mix[2];
} gm_waves_op;

/* Eq. 3.8's threshold: G is past n_mp once T(G) >= this times T(1).  The
 * paper's doubling is 2; two blocks sharing an SM were measured at 1.49 to
 * 2.24 times T(1) on an H100 (the timed pass of the later block overlaps the
 * earlier block's untimed pass unevenly) while blocks alone vary by < 1%,
 * so the midpoint of 1 and 1.5 separates them (docs/diag.md). */
#define GM_WAVES_NMP_RATIO 1.25

/* Everything Eq. 3.8-3.13 derive from the raw rows of a sched file: n_mp
 * from the "nmp" series, then N_slot = total / n_mp at every "nslot" point
 * and the state buffers in both forms ([GM_WAVES_FORM_PAPER], [..._HOPPER]). */
typedef struct gm_waves_derived {
    int n_mp;                       /* Eq. 3.8 on the nmp rows; 0 when they lack a doubling */
    int N1, N2;                     /* Eq. 3.12 */
    long S[GM_WAVES_FORM_COUNT], s_min[GM_WAVES_FORM_COUNT], s_res[GM_WAVES_FORM_COUNT];
    long R[GM_WAVES_FORM_COUNT], r_min[GM_WAVES_FORM_COUNT];
    int r_parts[GM_WAVES_FORM_COUNT];
    int shm_mismatch[GM_WAVES_FORM_COUNT], rf_mismatch[GM_WAVES_FORM_COUNT];
    int n_wsb, n_shm, n_rf;         /* points */
    int not_divisible;              /* totals not a multiple of n_mp (the V520 case) */
    int api_diff;                   /* points where N_slot != the occupancy API */
} gm_waves_derived;

/* n_mp_override > 0 replaces Eq. 3.8's reading.  GM_ERR_MISSING without
 * nmp rows (and no override) or without a b = 1 warp-slot point. */
gm_status gm_waves_derive_md(const gm_mdata *md, int n_mp_override, gm_waves_derived *out,
                             gm_error *err);
/* The model's parameters in form f from what o derived (w = 32: every
 * sched kernel counts warps of 32 threads). */
void gm_waves_params_from_derived(const gm_waves_derived *o, gm_waves_form f, gm_waves_params *out);

typedef struct gm_waves_data {
    const gm_mdata *md;                /* not owned */
    gm_waves_derived derived;          /* from the raw rows (gm_waves_derive_md) */
    gm_waves_params form[GM_WAVES_FORM_COUNT];
    int have_params;                   /* the state-buffer rows were found */
    size_t n_ops;
    gm_waves_op ops[GM_WAVES_MAX_OPS];
} gm_waves_data;

/* Reads md (suite "sched").  GM_ERR_MISSING when a required column or the
 * n_mp row is absent, with the suite to run. */
gm_status gm_waves_data_load(const gm_mdata *md, gm_waves_data *out, gm_error *err);
const gm_waves_op *gm_waves_data_op(const gm_waves_data *d, const char *name);
/* One per-block log of the sched data: the "tail" rows of one kernel, block
 * size and grid (x = SM, value = blocks the SM started after the first
 * block ended). */
typedef struct gm_waves_tail {
    const char *op; /* the kernel's op name */
    int b;          /* warps per block */
    double G;       /* blocks in the grid */
    int sms;        /* SMs that started a tail block */
    int most;       /* the busiest SM's tail blocks */
    long total;     /* all tail blocks (long: a sum over up to 10^7 rows) */
} gm_waves_tail;
/* The next log at or after row *row of d's machine data; *row moves past
 * it.  0 when there is none. */
int gm_waves_data_next_tail(const gm_waves_data *d, size_t *row, gm_waves_tail *t);
/* N_slot of op at b warps per block in form f, as the model takes it (32
 * registers per thread where the data give none); 0 when unknown. */
int gm_waves_data_nslot(const gm_waves_data *d, gm_waves_form f, const gm_waves_op *op, int b);
/* The "param" row `name`: its value (NaN when absent); *doc (may be NULL)
 * the documented value beside it, *note its note. */
double gm_waves_data_param(const gm_mdata *md, const char *name, double *doc, const char **note);

/* Eq. 3.2 against the measured kernel times of one instruction kernel
 * (rows "tgb"): prediction T_rel(g, b) fu-scaled by the measured time at
 * G = 1, b = 1; r and median |error| over the other points. */
typedef struct gm_waves_fit {
    size_t n;               /* points (the scale point excluded) */
    double r, median_err, max_err;
    double scale_ms;        /* measured T at G = 1, b = 1 */
    double mix[2];          /* refill: the mixing used (b = 1, b = 32); NaN for Eq. 3.2 */
    /* per point, n entries (owned; gm_waves_fit_free) */
    double *meas, *pred;
    long *G;
    int *b, *nslot;
} gm_waves_fit;

gm_status gm_waves_fit_tgb(const gm_waves_data *d, const char *op, gm_waves_form form,
                           gm_waves_fit *out, gm_error *err);

/* Which time model the end-to-end check uses: Eq. 3.2 as printed (the
 * even share of a partial wave on every SM) or the random refill of
 * waves_refill.h (the busiest SM's tail, with the kernel's mixing). */
typedef enum gm_waves_tmodel {
    GM_WAVES_T_EQ32 = 0,
    GM_WAVES_T_REFILL,
    GM_WAVES_T_COUNT
} gm_waves_tmodel;
const char *gm_waves_tmodel_name(gm_waves_tmodel t);         /* "eq3.2", "refill" */
gm_status gm_waves_tmodel_parse(const char *text, gm_waves_tmodel *out);

/* gm_waves_fit_tgb with the time model tm; for GM_WAVES_T_REFILL the mixing
 * comes from the per-block logs of `tails` (NULL: d itself), so that a
 * rule measured on one run can be checked on another.  GM_ERR_MISSING when
 * `tails` has no log for op. */
gm_status gm_waves_fit_tgb_model(const gm_waves_data *d, const char *op, gm_waves_form form,
                                 gm_waves_tmodel tm, const gm_waves_data *tails, gm_waves_fit *out,
                                 gm_error *err);
void gm_waves_fit_free(gm_waves_fit *f);

#ifdef __cplusplus
}
#endif
#endif
