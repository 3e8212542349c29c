/* How one end-to-end kernel time T(g,b) of the sched suite is made from
 * repeated launches (paper 003, Sec. 4.3.3; docs/diag.md, "How T(g,b) is
 * measured"), and how noisy a kernel's points were.  Pure C.
 *
 * Every point (G blocks of b warps) is launched k times at n and k times at
 * 2n loop iterations, in rounds: every round launches every point of the
 * kernel once per size, in an order that changes from round to round
 * (gm_waves_round_order), so that a slow drift of the GPU (clocks,
 * temperature) does not line up with G or b.  The point's time is the
 * difference of the two medians, median T(2n) - median T(n): the launch and
 * the kernel's prologue cancel (Eq. 3.4 with N_period -> infinity), and one
 * odd launch moves neither median.  The spread of each size's k launches is
 * kept beside it, so a reader sees which points were noisy. */
#ifndef GPUQ_WAVES_MEAS_H
#define GPUQ_WAVES_MEAS_H

#include <stddef.h>
#include "waves_data.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n repeated launch times of one configuration */
typedef struct gm_waves_spread {
    size_t n;       /* values used (NaN and <= 0 are failed launches: skipped) */
    double median, min, max;
    double spread;  /* (max - min) / median */
} gm_waves_spread;

/* GM_ERR_INVALID_ARG when v is NULL or no value is usable. */
gm_status gm_waves_spread_of(const double *v, size_t n, gm_waves_spread *out);

/* One T(g,b) point from k launches at n (t1) and k at 2n (t2) iterations. */
typedef struct gm_waves_tgb_point {
    gm_waves_spread t1, t2;
    double ms;      /* t2.median - t1.median */
    double spread;  /* the larger of t1.spread and t2.spread */
} gm_waves_tgb_point;

/* GM_ERR_INVALID_ARG when either size has no usable launch. */
gm_status gm_waves_tgb_point_of(const double *t1, const double *t2, size_t k,
                                gm_waves_tgb_point *out);

/* order[0..n-1] = the points' order in round `round`: a permutation of
 * 0..n-1 (Fisher-Yates on a fixed linear congruential sequence seeded by
 * the round), the same for the same round on every run. */
void gm_waves_round_order(size_t n, unsigned round, size_t *order);

/* A point whose launches spread by more than this is listed as noisy
 * (gpuq diag). */
#define GM_WAVES_NOISY 0.05

/* How noisy one kernel's T(g,b) points were, from the rows "tgbs" of a
 * sched file (x = G, y = b, z = launches per size, value = spread of the
 * launches at 2n, extra = at n): the point's spread is the larger. */
typedef struct gm_waves_noise {
    size_t n;           /* points with a spread row */
    size_t above;       /* points whose spread exceeds the threshold */
    double median;      /* median spread over the points */
    double max;         /* the largest, at G_max, b_max */
    double G_max;
    int b_max;
    int k;              /* launches per size (the first row's) */
} gm_waves_noise;

/* 1 and *out filled when op has spread rows, 0 otherwise (files written
 * before the rows existed: median of 3 two-launch differences, no spread). */
int gm_waves_data_tgb_noise(const gm_waves_data *d, const char *op, double threshold,
                            gm_waves_noise *out);

/* The range one point's launches span, from its rows "tgbr" (x = G, y =
 * b, z = round, value = T(2n), extra = T(n)): *lo, *hi = the fastest and
 * slowest launch at 2n less the median at n (the n part cancelled at its
 * median, as in the point itself).  1 when the rows exist, 0 otherwise. */
int gm_waves_data_tgb_range(const gm_waves_data *d, const char *op, long G, int b, double *lo,
                            double *hi);

#ifdef __cplusplus
}
#endif
#endif
