/* GPUDIAG machine data (suite "sched", tables/<gpu>/sched.csv; columns in
 * src/bench/sched_suite.h and docs/diag.md) read into the model's terms:
 * the state-buffer parameters in both forms, one fu(c) curve per
 * instruction, and the end-to-end check of Eq. 3.2 against the measured
 * kernel times (Sec. 4.3.3).  Pure C. */
#ifndef GPUQ_GPUDIAG_DATA_H
#define GPUQ_GPUDIAG_DATA_H

#include <stddef.h>
#include "gpuq/gpudiag.h"
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_GD_MAX_OPS 32

typedef struct gm_gd_op {
    char name[24];          /* "ffma" */
    char sass[24];          /* "FFMA" */
    gm_gd_fu_curve fu;
    double thr;             /* results per clock per SM (Eq. 3.7) */
    double guide;           /* programming guide, NaN when not listed */
    int s_u, c_at;
    int regs;               /* registers per thread of its kernel */
    long smem;              /* static shared memory of its kernel */
} gm_gd_op;

typedef struct gm_gd_data {
    const gm_mdata *md;             /* not owned */
    gm_gd_params form[GM_GD_FORM_COUNT];
    int have_params;                /* the state-buffer rows were found */
    size_t n_ops;
    gm_gd_op ops[GM_GD_MAX_OPS];
} gm_gd_data;

/* Reads md (suite "sched").  GM_ERR_MISSING when a required column or the
 * n_mp row is absent, with the suite to run. */
gm_status gm_gd_data_load(const gm_mdata *md, gm_gd_data *out, gm_error *err);
const gm_gd_op *gm_gd_data_op(const gm_gd_data *d, const char *name);
/* The "param" row `name`: its value (NaN when absent); *doc (may be NULL)
 * the documented value beside it, *note its note. */
double gm_gd_data_param(const gm_mdata *md, const char *name, double *doc, const char **note);

/* Eq. 3.2 against the measured kernel times of one instruction kernel
 * (rows "tgb"): prediction T_rel(g, b) fu-scaled by the measured time at
 * G = 1, b = 1; r and median |error| over the other points. */
typedef struct gm_gd_fit {
    size_t n;               /* points (the scale point excluded) */
    double r, median_err, max_err;
    double scale_ms;        /* measured T at G = 1, b = 1 */
    /* per point, n entries (owned; gm_gd_fit_free) */
    double *meas, *pred;
    long *G;
    int *b, *nslot;
} gm_gd_fit;

gm_status gm_gd_fit_tgb(const gm_gd_data *d, const char *op, gm_gd_form form, gm_gd_fit *out,
                        gm_error *err);
void gm_gd_fit_free(gm_gd_fit *f);

#ifdef __cplusplus
}
#endif
#endif
