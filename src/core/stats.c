/* Order statistics shared by the suites and models (src/core/stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gm_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return v[0];
    if (q >= 1)
        return v[n - 1];
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[i];
}

double gm_median_sort(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return gm_quantile_sorted(v, n, 0.5);
}

double gm_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    double m = gm_median_sort(c, n);
    free(c);
    return m;
}
