/* Kernel time when the block scheduler refills freed slots in random order
 * (beyond paper 003; docs/diag.md, "End-to-end accuracy").
 *
 * Eq. 3.2 gives every SM the same share of a partial wave,
 * ceil(G / n_mp) - N_slot blocks after the full waves.  The per-block logs
 * of the sched suite show that a GPU fills the first wave evenly (N_slot
 * blocks on every SM) but hands each later block to whichever slot frees
 * first: for latency-bound kernels that order is close to random, and the
 * busiest SM runs more tail blocks than the even share (H100: up to 22 of
 * an even 16).  The kernel ends with the busiest SM.
 *
 * Model "refill": the R blocks of the last partial wave land on the n_mp
 * N_slot freed slots like R draws without replacement, so one SM's tail
 * count is hypergeometric (M = n_mp N_slot slots, K = N_slot of them its
 * own, R draws); the busiest of n_mp SMs gets the median of their maximum.
 * A kernel whose slots free in a fixed order spreads the tail evenly; the
 * mixing m in [0, 1] interpolates between the even share (m = 0, Eq. 3.2)
 * and the random refill (m = 1), and is measured per kernel from the
 * per-block logs ("tail" rows).  Pure C. */
#ifndef GPUQ_WAVES_REFILL_H
#define GPUQ_WAVES_REFILL_H

#include "waves_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The busiest of n_mp SMs when n of M slots are drawn at random and each SM
 * owns K of them: the smallest k with P(X <= k)^n_mp >= 1/2, X
 * hypergeometric(M, K, n).  -1 on bad arguments. */
long gm_waves_refill_max(long M, long K, long n, int n_mp);

/* Tail blocks on the busiest SM for G blocks of N_slot per SM on n_mp SMs,
 * with mixing m: ceil(e + m (h - e)), e = the even share ceil(R / n_mp), h
 * = gm_waves_refill_max(n_mp N_slot, N_slot, R, n_mp), R the blocks past the
 * full waves.  *full gets the full waves.  0 when G fills whole waves or
 * less than one (Eq. 3.2 holds there: no slot is refilled at random). */
long gm_waves_refill_tail(long G, int nslot, int n_mp, double m, long *full);

/* T(G, b) in units of fu: full fu(b N_slot) + fu(b tail) past one wave,
 * Eq. 3.2 otherwise.  m = 0 gives Eq. 3.2 everywhere.  NaN on bad input. */
double gm_waves_time_refill(const gm_waves_fu_curve *f, long G, int b, int nslot, int n_mp,
                            double m);

/* The mixing one per-block log shows: (observed - e) / (h - e) clamped to
 * [0, 1] for the busiest SM's observed tail count at G blocks; 0 when
 * the random refill predicts no more than the even share; NaN when G is
 * not past one wave. */
double gm_waves_refill_mix(long observed_max, long G, int nslot, int n_mp);

/* The mixing at b warps per block from the logs at b = 1 (m1) and b = 32
 * (m32), linear in log2 b (clamped to [1, 32]); either NaN: the other; both
 * NaN: NaN. */
double gm_waves_refill_mix_at(double m1, double m32, int b);

#ifdef __cplusplus
}
#endif
#endif
