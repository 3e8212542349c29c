/* Internal to the "sched" suite (paper 003): the state its tests share
 * (waves_suite.c runs them, waves_tests.c and waves_sweeps.c hold them).
 *
 * Machine data (tables/<gpu>/sched.csv, docs/diag.md): one long table,
 *   kind,name,x,y,z,value,doc,extra,note
 * kind   what the row is                        x / y / z           value (doc)
 * param  a parameter (name)                     -                   measured (documented)
 * fu     fu(c) of an instruction (name)         c / P(c) cycles     fu(c)
 * fu_sum one instruction's summary              P_1 / s_u / c_at    results per clock per SM (guide)
 * kern   a kernel's resources (name)            regs / static smem  -
 * nmp    T at G blocks (Eq. 3.8)                G                   cycles
 * wsched warp issue log (Fig. 4.3)              warp / step / hw id clock
 * policy per scheduler (name smspK)             cyclic / oldest     mean run (note: class)
 * nslot  N_slot (name wsb|shm|rf)               b / s / r           N_slot (occupancy API), extra total
 * sema   paper semaphore (name wsb|shm)         G / b / s           ended with timeout flag, extra ms
 * cluster co-resident clusters                  k                   measured (cuOccupancyMaxActiveClusters)
 * tgb    kernel time (name = instruction)       G / b / N_slot      ms: median T(2n) - median T(n)
 *                                                                   (extra: median T(n))
 * tgbs   spread of a tgb point's launches        G / b / k launches  (max - min) / median at 2n
 *                                                                   (extra: at n)
 * tgbr   one round's launches of a tgb point     G / b / round       ms at 2n (extra: at n)
 */
#ifndef GPUQ_WAVES_SUITE_H
#define GPUQ_WAVES_SUITE_H

#include "waves_model.h"
#include "gpuq/mdata.h"
#include "waves_jit.h"
#include "waves_ptx.h"
#include "gpuq/suite.h"

#define GB_WAVES_NCOLS 9
extern const char *const gb_waves_columns[GB_WAVES_NCOLS];

#define GB_WAVES_PTX_MAX (1 << 20)
#define GB_WAVES_MAX_OPS 24

typedef struct gb_waves_ctx {
    const gb_suite_run *run;
    gb_waves_jit *j;
    gb_waves_dev dev;
    int cc;                 /* 90 */
    int quick;
    uint64_t out, sync, data;
    gm_mdata *md;
    char *ptx;
    long done, total;       /* progress, in launches (estimated) */
    double timeout_s;       /* host wait for one kernel */
    /* results the later tests use */
    int L_TB;
    int n_mp;
    gm_waves_fu_curve fu[GB_WAVES_MAX_OPS];
    int fu_ok[GB_WAVES_MAX_OPS];
    gm_waves_params params; /* derived state buffers (HOPPER form) */
    int have_params;
} gb_waves_ctx;

/* Appends a row (NaN where a number does not apply; text NULL = empty). */
gm_status gb_waves_row(gb_waves_ctx *c, const char *kind, const char *name, double x, double y,
                       double z, double value, double doc, double extra, const char *note,
                       gm_error *err);
void gb_waves_progress(gb_waves_ctx *c, long add, const char *what);
/* 1 when the user asked to stop */
int gb_waves_stop(gb_waves_ctx *c);
/* JIT of the PTX in c->ptx */
gm_status gb_waves_load(gb_waves_ctx *c, const char *entry, gb_waves_kern **k, gm_error *err);
/* resets the semaphore words */
gm_status gb_waves_reset_sync(gb_waves_ctx *c, gm_error *err);

/* the tests, in the order the suite runs them */
gm_status gb_waves_test_limits(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_fu(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_nmp(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_wsched(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_nslot(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_clusters(gb_waves_ctx *c, gm_error *err);
gm_status gb_waves_test_tgb(gb_waves_ctx *c, gm_error *err);

/* The fu kernels' cubins as the driver made them, written to dir/gd_fu_<op>.cubin
 * (the SASS check of every functional-unit kernel). */
gm_status gb_waves_dump_cubins(int device, const char *dir, gm_error *err);

#endif
