/* Random-refill block scheduling (src/papers/waves/waves_refill.h): the
 * busiest SM's tail count from the hypergeometric distribution, and the
 * kernel time Eq. 3.2 gives for it.  Pure C. */
#include <math.h>

#include "waves_refill.h"

/* log C(a, k) */
static double lchoose(long a, long k)
{
    return lgamma((double)a + 1) - lgamma((double)k + 1) - lgamma((double)(a - k) + 1);
}

long gm_waves_refill_max(long M, long K, long n, int n_mp)
{
    if (M <= 0 || K < 0 || K > M || n < 0 || n > M || n_mp <= 0)
        return -1;
    long lo = n - (M - K) > 0 ? n - (M - K) : 0, hi = K < n ? K : n;
    double F = 0, lall = lchoose(M, n);
    for (long k = lo; k < hi; k++) {
        F += exp(lchoose(K, k) + lchoose(M - K, n - k) - lall);
        /* P(max <= k) = P(X <= k)^n_mp (the SMs taken as independent) */
        if (F > 0 && n_mp * log(F) >= log(0.5))
            return k;
    }
    return hi;
}

long gm_waves_refill_tail(long G, int nslot, int n_mp, double m, long *full)
{
    long W = (long)nslot * n_mp;
    if (full)
        *full = W > 0 ? G / W : 0;
    if (W <= 0 || G <= W || G % W == 0)
        return 0;
    long R = G % W, even = (R + n_mp - 1) / n_mp;
    long h = gm_waves_refill_max(W, nslot, R, n_mp);
    if (!(m > 0) || h <= even)
        return even;
    if (m > 1)
        m = 1;
    return (long)ceil((double)even + m * (double)(h - even) - 1e-9);
}

double gm_waves_time_refill(const gm_waves_fu_curve *f, long G, int b, int nslot, int n_mp,
                            double m)
{
    if (nslot <= 0 || b <= 0 || n_mp <= 0 || G < 0)
        return NAN;
    long full = 0, tail = gm_waves_refill_tail(G, nslot, n_mp, m, &full);
    if (tail == 0)
        return gm_waves_time(f, gm_waves_blocks_per_mp(G, n_mp), b, nslot);
    return (double)full * gm_waves_fu_at(f, (double)b * nslot) + gm_waves_fu_at(f, (double)b * tail);
}

double gm_waves_refill_mix(long observed_max, long G, int nslot, int n_mp)
{
    long W = (long)nslot * n_mp;
    if (W <= 0 || G <= W || G % W == 0)
        return NAN;
    long R = G % W, even = (R + n_mp - 1) / n_mp;
    long h = gm_waves_refill_max(W, nslot, R, n_mp);
    if (h <= even)
        return 0;
    double m = (double)(observed_max - even) / (double)(h - even);
    return m < 0 ? 0 : m > 1 ? 1 : m;
}

double gm_waves_refill_mix_at(double m1, double m32, int b)
{
    if (isnan(m1))
        return m32;
    if (isnan(m32))
        return m1;
    double x = b <= 1 ? 0 : b >= 32 ? 1 : log2((double)b) / 5;
    return m1 + (m32 - m1) * x;
}
