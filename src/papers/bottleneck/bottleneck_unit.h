/* The bottleneck unit's input (paper 004, Zhang & Owens): one launch's
 * counters as the model's launch, the same mapping for the report
 * (src/papers/bottleneck/bottleneck_unit.c) and for the validation
 * (validation/bottleneck/bn_compare.c), so the validation checks what the
 * report computes. */
#ifndef GPUQ_BOTTLENECK_UNIT_H
#define GPUQ_BOTTLENECK_UNIT_H

#include "gpuq/counters.h"
#include "bottleneck_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gm_metric_find of a name that is a string constant (its address keys a
 * cache of 256 names: the unit's and the Hopper units' metrics; NULL: -1). */
int gm_bottleneck_metric_row(const char *name);

/* Fills l from k's counters (NaN where a counter is missing).
 * ideal_from_lsu: where the bank-conflict counter is missing, take the
 * shared instructions (LSU pipe less global ones) as conflict-free
 * wavefronts; only the validation of recordings made without that counter
 * asks for it (BN_IDEAL_FROM_LSU=1). */
void gm_bottleneck_launch_from_counters(const gm_launch_counters *k, int max_warps_per_sm,
                                        int ideal_from_lsu, gm_bottleneck_launch *l);

/* The kernel's own cost of one wave, for the launch-shape what-ifs of the
 * waves section (paper 003; src/papers/waves/waves_shape.h): the busiest
 * component (Zhang & Owens parts and Hopper's units) when `sms` SMs each
 * run `warps_per_sm` of the launch's warps, each warp with the work it was
 * measured to have, at the rates the suite measured at that many warps. */
typedef struct gm_bottleneck_wave {
    const gm_bottleneck_machine *m;
    gm_bottleneck_form form;
    int sm_count;
    gm_bottleneck_launch l;     /* the launch as the model sees it */
    double warps;               /* warps launched, times the launches a row adds up */
    double warps_per_block;
    double sm_units_ns;         /* the per-SM units (tensor, TMA, pipes, issue): the busiest */
    double sm_warps;            /* warps the busiest SM ran: ceil(G / SMs) x b, times launches */
    double gpu_units_ns;        /* the GPU-wide units (L2, DRAM): the longest */
} gm_bottleneck_wave;

/* GM_ERR_MISSING when the launch lacks the instruction counters. */
gm_status gm_bottleneck_wave_init(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                  const gm_launch_counters *k, int max_warps_per_sm, int sm_count,
                                  gm_bottleneck_wave *w, gm_error *err);
/* W(c) in ns (the gm_waves_busy_fn of waves_shape.h; ctx a gm_bottleneck_wave); NaN
 * where the model cannot time it. */
double gm_bottleneck_wave_busy_ns(const void *ctx, double warps_per_sm, double sms);
/* The same of the per-SM components only (instruction, shared memory and
 * the per-SM units: issue, pipes, tensor, TMA; not global memory, L2 or
 * DRAM): what a warp scheduler's order decides (waves_shape.h, sm_busy). */
double gm_bottleneck_wave_sm_busy_ns(const void *ctx, double warps_per_sm, double sms);

#ifdef __cplusplus
}
#endif
#endif
