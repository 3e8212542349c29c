/* Order statistics the suites and models share: the median of repeated
 * measurements (every microbenchmark reports median and spread) and
 * quantiles for the spread. */
#ifndef GPUQ_STATS_H
#define GPUQ_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Median of v[0..n), sorting v in place (quantiles can follow); NaN when
 * n = 0. */
double gm_median_sort(double *v, size_t n);
/* Median of v[0..n), v unchanged (a sorted copy); NaN when n = 0 or out of
 * memory. */
double gm_median(const double *v, size_t n);
/* q-quantile (0..1, linear between order statistics) of sorted v; NaN when
 * n = 0. */
double gm_quantile_sorted(const double *v, size_t n, double q);

#ifdef __cplusplus
}
#endif

#endif
