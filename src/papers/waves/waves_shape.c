/* Launch-shape what-ifs with the kernel's own wave cost: waves_shape.h. */
#include "waves_shape.h"

#include <math.h>
#include <string.h>

const char *gm_gd_shape_from_name(gm_gd_shape_from f)
{
    static const char *const names[] = {"-", "latency (measured)", "components", "ffma fu(c)"};
    return (unsigned)f <= GM_GD_SHAPE_FU ? names[f] : "-";
}

/* The waves of Eq. 3.2 on the busiest SM: `count` waves of c warps per SM,
 * at most two kinds (the full ones and the last). */
typedef struct shape_waves {
    int n;
    double c[2], count[2], sms;
} shape_waves;

static void waves_of(const gm_gd_shape *s, long G, int b, int N, shape_waves *w)
{
    long g = gm_gd_blocks_per_mp(G, s->n_mp), full = g / N, rem = g % N;
    w->n = 0;
    w->sms = G < s->n_mp ? (double)G : (double)s->n_mp;
    if (full > 0) {
        w->c[w->n] = (double)b * N;
        w->count[w->n++] = (double)full;
    }
    if (rem > 0) {
        w->c[w->n] = (double)b * rem;
        w->count[w->n++] = 1;
    }
}

/* W(c) of one wave: the kernel's own, or the suite's fu(c). */
static double wave_busy(const gm_gd_shape *s, double c, double sms)
{
    if (s->from == GM_GD_SHAPE_FU || !s->busy)
        return s->fu ? gm_gd_fu_at(s->fu, c) : NAN;
    return s->busy(s->ctx, c, sms);
}

/* sum of count x max(L, alpha W) over the waves */
static double waves_time(const shape_waves *w, const double *W, double L, double alpha)
{
    double t = 0;
    for (int i = 0; i < w->n; i++)
        t += w->count[i] * fmax(L, alpha * W[i]);
    return t;
}

/* The x in [lo, hi] where f(x) = target, f nondecreasing (bisection). */
static double solve(const shape_waves *w, const double *W, int for_L, double other, double lo,
                    double hi, double target)
{
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        double t = for_L ? waves_time(w, W, mid, other) : waves_time(w, W, other, mid);
        if (t < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

gm_status gm_gd_shape_fit(gm_gd_shape *s, long G, int b, int N, double T_ns, gm_error *err)
{
    if (!s || G < 1 || b < 1 || N < 1 || s->n_mp < 1 || !(T_ns > 0))
        return gm_fail(err, GM_ERR_INVALID_ARG, "waves: bad launch shape for the what-ifs");
    s->fixed = isfinite(s->fixed_ns) && s->fixed_ns > 0 ? fmin(s->fixed_ns, T_ns / 2) : 0;
    double work = T_ns - s->fixed;
    double L0 = isfinite(s->latency_ns) && s->latency_ns > 0 ? s->latency_ns : 0;
    shape_waves w;
    waves_of(s, G, b, N, &w);
    double W[2], nw = 0, H0 = 0, wmin = INFINITY, wmax = 0;
    s->from = s->busy ? GM_GD_SHAPE_COMPONENTS : GM_GD_SHAPE_FU;
    for (int pass = 0; pass < 2; pass++) {
        int ok = 1;
        nw = H0 = wmax = 0;
        wmin = INFINITY;
        for (int i = 0; i < w.n; i++) {
            W[i] = wave_busy(s, w.c[i], w.sms);
            ok &= isfinite(W[i]) && W[i] >= 0;
            nw += w.count[i];
            H0 += w.count[i] * W[i];
            if (W[i] > 0)
                wmin = fmin(wmin, W[i]), wmax = fmax(wmax, W[i]);
        }
        if (ok)
            break;
        if (s->from == GM_GD_SHAPE_FU || !s->fu)
            return gm_fail(err, GM_ERR_INVALID_ARG, "waves: no cost of a wave for the what-ifs");
        s->from = GM_GD_SHAPE_FU; /* the components cannot say: the suite's curve */
    }
    /* which term holds the launch's most waves up: the floor, where the
     * warps' own latency is known, or else the busy share's threshold */
    int dom = w.n == 2 && w.count[1] > w.count[0] ? 1 : 0;
    int latency = isfinite(s->latency_ns) ? L0 >= W[dom] : H0 < GM_GD_SHAPE_BUSY * work;
    if (s->from == GM_GD_SHAPE_COMPONENTS && H0 < work && latency) {
        /* latency bound: the time the components leave is the waves' floor */
        s->from = GM_GD_SHAPE_LATENCY;
        s->alpha = 1;
        s->L = solve(&w, W, 1, 1, 0, work, work);
    } else if (!(wmax > 0) || nw * L0 >= work) {
        /* the warps' own latency (or nothing else) accounts for the time */
        s->L = work / nw;
        s->alpha = wmax > 0 ? fmin(1, s->L / wmax) : 0;
    } else {
        s->L = L0;
        s->alpha = solve(&w, W, 0, L0, 0, work / wmin, work);
    }
    return GM_OK;
}

double gm_gd_shape_time(const gm_gd_shape *s, long G, int b, int N)
{
    if (!s || G < 1 || b < 1 || N < 1 || s->from == GM_GD_SHAPE_NONE)
        return NAN;
    shape_waves w;
    waves_of(s, G, b, N, &w);
    double W[2];
    for (int i = 0; i < w.n; i++)
        W[i] = wave_busy(s, w.c[i], w.sms);
    /* at least one wave, each at least the floor: never below a single wave's time */
    return s->fixed + waves_time(&w, W, s->L, s->alpha);
}
