/* The bottleneck unit's input (paper 004, Zhang & Owens): one launch's
 * counters as the model's launch, the same mapping for the report
 * (src/papers/bottleneck/bottleneck_unit.c) and for the validation
 * (validation/bottleneck/bn_compare.c), so the validation checks what the
 * report computes. */
#ifndef GPUQ_UNIT_BOTTLENECK_H
#define GPUQ_UNIT_BOTTLENECK_H

#include "gpuq/counters.h"
#include "bottleneck_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills l from k's counters (NaN where a counter is missing).
 * ideal_from_lsu: where the bank-conflict counter is missing, take the
 * shared instructions (LSU pipe less global ones) as conflict-free
 * wavefronts; only the validation of recordings made without that counter
 * asks for it (BN_IDEAL_FROM_LSU=1). */
void gm_bn_launch_from_counters(const gm_launch_counters *k, int max_warps_per_sm,
                                int ideal_from_lsu, gm_zo_launch *l);

#ifdef __cplusplus
}
#endif
#endif
