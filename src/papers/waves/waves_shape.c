/* Launch-shape what-ifs with the kernel's own wave cost: waves_shape.h. */
#include "waves_shape.h"

#include <math.h>
#include <string.h>

const char *gm_waves_shape_from_name(gm_waves_shape_from f)
{
    static const char *const names[] = {"-", "latency (measured)", "components", "ffma fu(c)"};
    return (unsigned)f <= GM_WAVES_SHAPE_FU ? names[f] : "-";
}

/* n equal blocks, each needing the share d of the unit at its own pace,
 * served oldest first.  With K = floor(1/d) blocks at their own pace the
 * unit has rho = 1/d - K blocks' worth left, which goes to the next; when
 * the oldest finishes, that one runs at its own pace and the share left
 * goes to the one after.  So block j < K ends at 1, and block j >= K gets
 * the leftover from F[j-K-1] (the end of the block that made it the next)
 * to F[j-K] (the end of the one that lets it run at its own pace):
 *
 *     F[j] = F[j-K] + 1 - rho (F[j-K] - F[j-K-1]),   F[-1] = 0,
 *
 * in units of one block's own time; continuous in d (at 1/d = K, rho = 0:
 * whole generations, ceil(n / K)). */
static double gen_ends(int n, double d, double *mean)
{
    *mean = 1;
    if (!(d > 0) || n <= 1 || n * d <= 1)
        return 1;
    if (d >= 1) {
        *mean = d * (n + 1) / 2.0; /* one after another */
        return n * d;
    }
    if (n > GM_WAVES_SHAPE_MAX_GEN) {
        *mean = n * d; /* evenly shared: all end together */
        return n * d;
    }
    int K = (int)floor(1 / d);
    double rho = 1 / d - K, F[GM_WAVES_SHAPE_MAX_GEN], end = 1, sum = 0;
    for (int j = 0; j < n; j++) {
        if (j < K) {
            F[j] = 1;
        } else {
            double a = F[j - K], p = j - K - 1 >= 0 ? F[j - K - 1] : 0;
            F[j] = a + 1 - rho * (a - p);
        }
        end = fmax(end, F[j]);
        sum += F[j];
    }
    *mean = sum / n;
    return end;
}

double gm_waves_shape_gen(int n, double d)
{
    double mean;
    return gen_ends(n, d, &mean);
}

double gm_waves_shape_gen_mean(int n, double d)
{
    double mean;
    gen_ends(n, d, &mean);
    return mean;
}

/* The waves of Eq. 3.2 on the busiest SM: `count` waves of c warps per SM
 * in `blocks` blocks of b warps, at most two kinds (the full ones and the
 * last), and each kind's costs at alpha = 1: W (the kernel's busiest
 * component) and Wb (a block alone, its per-SM units: what the L2 and DRAM
 * give one block depends on every other SM's, and is in W). */
typedef struct shape_waves {
    int n, b;
    double c[2], count[2], blocks[2], sms;
    double W[2], Wb[2];
} shape_waves;

static void waves_of(const gm_waves_shape *s, long G, int b, int N, shape_waves *w)
{
    long g = gm_waves_blocks_per_mp(G, s->n_mp), full = g / N, rem = g % N;
    w->n = 0;
    w->b = b;
    w->sms = G < s->n_mp ? (double)G : (double)s->n_mp;
    if (full > 0) {
        w->c[w->n] = (double)b * N;
        w->blocks[w->n] = N;
        w->count[w->n++] = (double)full;
    }
    if (rem > 0) {
        w->c[w->n] = (double)b * rem;
        w->blocks[w->n] = (double)rem;
        w->count[w->n++] = 1;
    }
}

/* fn(ctx, c, sms) through the launch's memo (gm_waves_busy_memo) */
static double busy_at(const gm_waves_shape *s, gm_waves_busy_fn fn, int sm, double c, double sms)
{
    gm_waves_busy_memo *m = s->memo;
    if (!m)
        return fn(s->ctx, c, sms);
    if (m->ctx != s->ctx)
        m->ctx = s->ctx, m->n = 0;
    for (int i = 0; i < m->n; i++)
        if (m->e[i].sm == sm && m->e[i].c == c && m->e[i].sms == sms)
            return m->e[i].ns;
    double ns = fn(s->ctx, c, sms);
    if (m->n < GM_WAVES_BUSY_MEMO) {
        m->e[m->n].sm = sm;
        m->e[m->n].c = c;
        m->e[m->n].sms = sms;
        m->e[m->n++].ns = ns;
    }
    return ns;
}

/* W(c) of one wave: the kernel's own, or the suite's fu(c). */
static double wave_busy(const gm_waves_shape *s, double c, double sms)
{
    if (s->from == GM_WAVES_SHAPE_FU || !s->busy)
        return s->fu ? gm_waves_fu_at(s->fu, c) : NAN;
    return busy_at(s, s->busy, 0, c, sms);
}

/* The per-SM units' part of W(c) (the whole of it without sm_busy); NaN
 * for the suite's fu(c), which has no units: no generations then. */
static double wave_sm_busy(const gm_waves_shape *s, double c, double sms)
{
    if (s->from == GM_WAVES_SHAPE_FU || !s->busy)
        return NAN;
    return s->sm_busy ? busy_at(s, s->sm_busy, 1, c, sms) : busy_at(s, s->busy, 0, c, sms);
}

/* Every wave kind's costs at alpha = 1; 0 where one cannot be had. */
static int costs_of(const gm_waves_shape *s, shape_waves *w)
{
    int ok = 1;
    for (int i = 0; i < w->n; i++) {
        w->W[i] = wave_busy(s, w->c[i], w->sms);
        w->Wb[i] = wave_sm_busy(s, w->b, w->sms);
        ok &= isfinite(w->W[i]) && w->W[i] >= 0;
        if (!(isfinite(w->Wb[i]) && w->Wb[i] >= 0))
            w->Wb[i] = 0; /* the suite's fu(c): no per-SM part, the floor is L */
    }
    return ok;
}

/* The blocks of wave kind i on the busiest scheduler, and their warps on
 * it (*per): the scheduler holds ceil(c / S) of the wave's warps, of blocks
 * under S warps one warp each, of larger ones ceil(b / S). */
static double busiest_scheduler(const shape_waves *w, int i, double *per)
{
    const double S = GM_WAVES_SHAPE_SCHEDULERS;
    *per = ceil(w->b / S);
    return w->b >= S ? w->blocks[i] : ceil(w->c[i] / S);
}

/* The floor term of wave kind i, t_1 gen(n, d) (waves_shape.h): a block
 * alone, times the generations its blocks take on the busiest scheduler
 * where they are more than it keeps at their own pace (K, fixed by the
 * fit: the term grows with L and alpha). */
static double floor_term(const gm_waves_shape *s, const shape_waves *w, int i, double L,
                         double alpha)
{
    double t1 = fmax(L, alpha * w->Wb[i]);
    if (!isfinite(s->K))
        return t1;
    double per, n = busiest_scheduler(w, i, &per);
    if (per >= s->K)
        return t1; /* a block alone fills the scheduler: alpha W(c) holds the wave */
    return t1 * gm_waves_shape_gen((int)n, per / s->K);
}

/* sum of count x max(alpha W, t_1 gen) over the waves */
static double waves_time(const gm_waves_shape *s, const shape_waves *w, double L, double alpha)
{
    double t = 0;
    for (int i = 0; i < w->n; i++)
        t += w->count[i] * fmax(alpha * w->W[i], floor_term(s, w, i, L, alpha));
    return t;
}

/* The x in [lo, hi] where f(x) = target, f nondecreasing (bisection). */
static double solve(const gm_waves_shape *s, const shape_waves *w, int for_L, double other,
                    double lo, double hi, double target)
{
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        double t = for_L ? waves_time(s, w, mid, other) : waves_time(s, w, other, mid);
        if (t < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* K of waves_shape.h: Little's law, the warps whose own latency L0 covers
 * the time the per-SM unit takes for them at its best rate (the launch's
 * warps at max_warps per SM, where the suite's curves have levelled off),
 * per scheduler, in whole warps; INFINITY where it cannot be had (no
 * latency, or mostly a scoreboard's: GM_WAVES_SHAPE_FIXED). */
static double sched_warps(const gm_waves_shape *s, double L0)
{
    if (!(L0 > 0) || s->from == GM_WAVES_SHAPE_FU || !s->busy || !(s->fixed_share >= GM_WAVES_SHAPE_FIXED))
        return INFINITY;
    double cmax = s->max_warps > 0 ? s->max_warps : 64;
    double per_warp = wave_sm_busy(s, cmax, s->n_mp) / cmax;
    if (!(per_warp > 0) || !isfinite(per_warp))
        return INFINITY;
    return fmax(1, floor(L0 / (per_warp * GM_WAVES_SHAPE_SCHEDULERS) + 0.5));
}

/* The warps' own latency their lifetime gives (waves_shape.h), 0 where it
 * cannot: no lifetime or no K; a block that alone fills the scheduler (its
 * time is its unit's, not latency); blocks served oldest first over more
 * than one wave (the waves' ends are not followed one by one). */
static double lifetime_latency(const gm_waves_shape *s, const shape_waves *w, int dom)
{
    if (!(s->lifetime_ns > 0) || !isfinite(s->lifetime_ns) || !isfinite(s->K))
        return 0;
    double per, n = busiest_scheduler(w, dom, &per), d = per / s->K;
    if (per >= s->K)
        return 0;
    double waves = 0;
    for (int i = 0; i < w->n; i++)
        waves += w->count[i];
    if (n * d > 1 && waves > 1)
        return 0;
    return s->lifetime_ns / gm_waves_shape_gen_mean((int)n, d);
}

gm_status gm_waves_shape_fit(gm_waves_shape *s, long G, int b, int N, double T_ns, gm_error *err)
{
    if (!s || G < 1 || b < 1 || N < 1 || s->n_mp < 1 || !(T_ns > 0))
        return gm_fail(err, GM_ERR_INVALID_ARG, "waves: bad launch shape for the what-ifs");
    s->fixed = isfinite(s->fixed_ns) && s->fixed_ns > 0 ? fmin(s->fixed_ns, T_ns / 2) : 0;
    double work = T_ns - s->fixed;
    double L0 = isfinite(s->latency_ns) && s->latency_ns > 0 ? s->latency_ns : 0;
    shape_waves w;
    waves_of(s, G, b, N, &w);
    double nw = 0, H0 = 0, wmin = INFINITY, wmax = 0;
    s->from = s->busy ? GM_WAVES_SHAPE_COMPONENTS : GM_WAVES_SHAPE_FU;
    s->K = INFINITY;
    for (int pass = 0; pass < 2; pass++) {
        int ok = costs_of(s, &w);
        if (ok)
            break;
        if (s->from == GM_WAVES_SHAPE_FU || !s->fu)
            return gm_fail(err, GM_ERR_INVALID_ARG, "waves: no cost of a wave for the what-ifs");
        s->from = GM_WAVES_SHAPE_FU; /* the components cannot say: the suite's curve */
    }
    for (int i = 0; i < w.n; i++) {
        nw += w.count[i];
        H0 += w.count[i] * w.W[i];
        if (w.W[i] > 0)
            wmin = fmin(wmin, w.W[i]), wmax = fmax(wmax, w.W[i]);
    }
    s->K = sched_warps(s, L0);
    int dom = w.n == 2 && w.count[1] > w.count[0] ? 1 : 0;
    double Llife = lifetime_latency(s, &w, dom);
    if (Llife > L0) {
        L0 = Llife; /* the states the collection left out count too */
        s->K = sched_warps(s, L0);
    }
    /* which term holds the launch's most waves up: the floor (in its
     * generations, and the warps' own latency must count in it), where that
     * latency is known, or else the busy share's threshold */
    double fl = floor_term(s, &w, dom, L0, 1);
    int latency = isfinite(s->latency_ns) ? fl >= w.W[dom] && fl > floor_term(s, &w, dom, 0, 1)
                                          : H0 < GM_WAVES_SHAPE_BUSY * work;
    if (s->from == GM_WAVES_SHAPE_COMPONENTS && H0 < work && latency) {
        /* latency bound: the time the components leave is the waves' floor */
        s->from = GM_WAVES_SHAPE_LATENCY;
        s->alpha = 1;
        s->L = solve(s, &w, 1, 1, 0, work, work);
    } else if (!(wmax > 0) || nw * L0 >= work) {
        /* the warps' own latency (or nothing else) accounts for the time */
        s->K = INFINITY;
        s->L = work / nw;
        s->alpha = wmax > 0 ? fmin(1, s->L / wmax) : 0;
    } else {
        s->L = L0;
        s->alpha = solve(s, &w, 0, L0, 0, work / wmin, work);
    }
    return GM_OK;
}

double gm_waves_shape_time(const gm_waves_shape *s, long G, int b, int N)
{
    if (!s || G < 1 || b < 1 || N < 1 || s->from == GM_WAVES_SHAPE_NONE)
        return NAN;
    shape_waves w;
    waves_of(s, G, b, N, &w);
    costs_of(s, &w);
    /* at least one wave, each at least the floor: never below a single wave's time */
    return s->fixed + waves_time(s, &w, s->L, s->alpha);
}
