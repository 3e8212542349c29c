/* GPUDIAG model (paper 003; src/papers/waves/waves_model.h): Eq. 3.1-3.13, the
 * warp-scheduling policy classifier of Sec. 3.2.2 and the accuracy measures
 * of Sec. 4.3.3.  Pure C. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "waves_model.h"
#include "core/stats.h"
#include "gpuq/ranges.h"

long gm_waves_round_up(long a, long u)
{
    if (u <= 0)
        return a;
    return (a + u - 1) / u * u;
}

long gm_waves_round_down(long a, long u)
{
    if (u <= 0)
        return a;
    return a / u * u;
}

/* Eq. 3.1 */
unsigned gm_waves_limit_check(const gm_waves_limits *L, int w, long B, double G, long s, long s_min,
                              long r, long r_min)
{
    unsigned bad = 0;
    long b = w > 0 ? (B + w - 1) / w : 0;
    if (B > L->threads_per_block)
        bad |= GM_WAVES_BAD_THREADS_PER_BLOCK;
    if ((double)B * G > L->threads_per_grid)
        bad |= GM_WAVES_BAD_THREADS_PER_GRID;
    if (gm_waves_round_up(s, s_min) > L->smem_per_block)
        bad |= GM_WAVES_BAD_SMEM_PER_BLOCK;
    if (r > L->regs_per_thread)
        bad |= GM_WAVES_BAD_REGS_PER_THREAD;
    if (b * gm_waves_round_up(r * w, r_min) > L->regs_per_block)
        bad |= GM_WAVES_BAD_REGS_PER_BLOCK;
    return bad;
}

static const char *const form_names[GM_WAVES_FORM_COUNT] = {"paper", "hopper"};

const char *gm_waves_form_name(gm_waves_form f)
{
    return (unsigned)f < GM_WAVES_FORM_COUNT ? form_names[f] : "?";
}

gm_status gm_waves_form_parse(const char *text, gm_waves_form *out)
{
    for (int i = 0; i < GM_WAVES_FORM_COUNT; i++) {
        if (text && strcmp(text, form_names[i]) == 0) {
            *out = (gm_waves_form)i;
            return GM_OK;
        }
    }
    return GM_ERR_INVALID_ARG;
}

const char *gm_waves_limiter_text(unsigned lim, char *buf, size_t len)
{
    static const char *const names[] = {"blocks", "warps", "shared memory", "registers"};
    size_t k = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < 4; i++) {
        if (lim & (1u << i)) {
            int n = snprintf(buf + k, len - k, "%s%s", k ? "+" : "", names[i]);
            if (n < 0 || (size_t)n >= len - k)
                break;
            k += (size_t)n;
        }
    }
    return buf;
}

/* Eq. 3.3, with the HOPPER form's reserved shared memory and register-file
 * partitions (waves_model.h). */
int gm_waves_nslot(const gm_waves_params *p, int b, long s, long r, unsigned *limiter)
{
    long terms[4];
    if (b <= 0 || p->N1 <= 0 || p->N2 <= 0)
        return 0;
    terms[0] = p->N1;
    terms[1] = p->N2 / b;
    long s_res = p->form == GM_WAVES_FORM_HOPPER ? p->s_res : 0;
    long s_blk = s + s_res > 0 ? gm_waves_round_up(s + s_res, p->s_min) : 0;
    terms[2] = s_blk > 0 ? p->S / s_blk : LONG_MAX;
    long rw = gm_waves_round_up(r * p->w, p->r_min);
    if (rw <= 0) {
        terms[3] = LONG_MAX;
    } else if (p->form == GM_WAVES_FORM_HOPPER && p->r_parts > 1) {
        long per_part = p->R / p->r_parts / rw; /* whole warps in one partition */
        terms[3] = per_part * p->r_parts / b;
    } else {
        terms[3] = p->R / (rw * b);
    }
    long m = terms[0];
    for (int i = 1; i < 4; i++)
        if (terms[i] < m)
            m = terms[i];
    if (limiter) {
        *limiter = 0;
        for (int i = 0; i < 4; i++)
            if (terms[i] == m)
                *limiter |= 1u << i;
    }
    return m < 0 ? 0 : (int)m;
}

gm_status gm_waves_relief_of(const gm_waves_params *p, int b, long s, long r, gm_waves_relief *out,
                             gm_error *err)
{
    if (!p || !out || b < 1 || s < 0 || r < 0 || p->N1 <= 0 || p->N2 <= 0 || p->S <= 0 ||
        p->R <= 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gpudiag: bad arguments to the occupancy what-if");
    memset(out, 0, sizeof *out);
    out->nslot = gm_waves_nslot(p, b, s, r, &out->limiter);
    out->nslot_free = gm_waves_nslot(p, b, 0, 0, NULL);
    /* Each term of Eq. 3.3 falls as its resource grows: the last r (s)
     * that keeps its term at nslot_free, the other resource at zero. */
    long lo = 0, hi = GM_WAVES_MAX_REGS;
    while (lo < hi) {
        long mid = (lo + hi + 1) / 2;
        if (gm_waves_nslot(p, b, 0, mid, NULL) >= out->nslot_free)
            lo = mid;
        else
            hi = mid - 1;
    }
    out->regs_max = lo;
    lo = 0, hi = p->S;
    while (lo < hi) {
        long mid = (lo + hi + 1) / 2;
        if (gm_waves_nslot(p, b, mid, 0, NULL) >= out->nslot_free)
            lo = mid;
        else
            hi = mid - 1;
    }
    out->smem_max = lo;
    return GM_OK;
}

/* Eq. 3.5 */
double gm_waves_period(const gm_waves_unit *u, size_t n, double P1, double c)
{
    double P = P1;
    for (size_t i = 0; i < n; i++) {
        if (!(u[i].m > 0) || isinf(u[i].m))
            continue;
        double v = u[i].t * c / u[i].m;
        if (v > P)
            P = v;
    }
    return P;
}

/* Eq. 3.6 */
double gm_waves_fu_model(const gm_waves_unit *u, size_t n, double P1, int c)
{
    double f = 1.0;
    for (size_t i = 0; i < n; i++) {
        if (!(u[i].m > 0) || isinf(u[i].m) || u[i].s <= 0)
            continue;
        double v = u[i].t / (u[i].m * P1) * (double)((c + u[i].s - 1) / u[i].s);
        if (v > f)
            f = v;
    }
    return f;
}

/* max_c c / fu(c), in warps per unit of fu */
static double max_c_over_fu(const gm_waves_fu_curve *f, int *c_at)
{
    double best = 0;
    int at = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (!(f->fu[i] > 0))
            continue;
        double v = (double)(i + 1) / f->fu[i];
        if (v > best) {
            best = v;
            at = (int)i + 1;
        }
    }
    if (c_at)
        *c_at = at;
    return best;
}

/* Eq. 3.7 */
double gm_waves_throughput_bot(const gm_waves_fu_curve *f, int *c_at)
{
    if (!(f->P1 > 0) || f->n == 0)
        return NAN;
    return max_c_over_fu(f, c_at) / f->P1;
}

int gm_waves_infer_s_u(const gm_waves_fu_curve *f)
{
    static const int cands[] = {1, 2, 4, 8};
    int best_s = 0, n_sat = 0;
    double best_err = INFINITY;
    for (size_t i = 0; i < f->n; i++)
        if (f->fu[i] >= 1.5)
            n_sat++;
    if (n_sat < 3)
        return 0;
    for (size_t k = 0; k < sizeof cands / sizeof cands[0]; k++) {
        int s = cands[k];
        double sq = 0, sfq = 0, err = 0;
        for (size_t i = 0; i < f->n; i++) {
            if (f->fu[i] < 1.5)
                continue;
            double q = (double)((i + 1 + (size_t)s - 1) / (size_t)s);
            sq += q * q;
            sfq += f->fu[i] * q;
        }
        double kk = sfq / sq;
        for (size_t i = 0; i < f->n; i++) {
            if (f->fu[i] < 1.5)
                continue;
            double q = (double)((i + 1 + (size_t)s - 1) / (size_t)s);
            double d = (f->fu[i] - kk * q) / f->fu[i];
            err += d * d;
        }
        if (err < best_err * 0.999) { /* a larger s must fit clearly better */
            best_err = err;
            best_s = s;
        }
    }
    return best_s;
}

double gm_waves_fu_at(const gm_waves_fu_curve *f, double c)
{
    if (!(c > 0) || f->n == 0)
        return 0;
    size_t ci = (size_t)ceil(c);
    if (ci <= f->n)
        return f->fu[ci - 1];
    double thr = max_c_over_fu(f, NULL);
    double v = thr > 0 ? c / thr : NAN;
    return v > f->fu[f->n - 1] ? v : f->fu[f->n - 1];
}

long gm_waves_blocks_per_mp(long G, int n_mp)
{
    if (n_mp <= 0 || G <= 0)
        return 0;
    return (G + n_mp - 1) / n_mp;
}

/* Eq. 3.2 */
double gm_waves_time(const gm_waves_fu_curve *f, long g, int b, int nslot)
{
    if (nslot <= 0 || b <= 0 || g < 0)
        return NAN;
    long full = g / nslot, rem = g % nslot;
    return (double)full * gm_waves_fu_at(f, (double)b * nslot) + gm_waves_fu_at(f, (double)b * rem);
}

double gm_waves_waves(long g, int nslot, double *tail_eff)
{
    if (nslot <= 0) {
        if (tail_eff)
            *tail_eff = NAN;
        return NAN;
    }
    long rem = g % nslot;
    if (tail_eff)
        *tail_eff = rem == 0 ? 1.0 : (double)rem / nslot;
    return (double)g / nslot;
}

/* Eq. 3.8 */
int gm_waves_nmp_from_series(const double *T, size_t n, double ratio)
{
    if (n < 2 || !(T[0] > 0))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (T[i] >= ratio * T[0])
            return (int)i;
    return 0;
}

void gm_waves_point_from_total(gm_waves_point *pt, int n_mp)
{
    if (n_mp <= 0) {
        pt->nslot = 0;
        pt->not_divisible = 1;
        return;
    }
    pt->nslot = (int)(pt->total / n_mp);
    pt->not_divisible = pt->total % n_mp != 0;
}

/* A point the capacity fits can take: what the sched reader's range
 * rules let through (gpuq/ranges.h), so that the products below stay far
 * inside a long (at most 2^24 bytes x 64 blocks, 255 x 32 registers x 4096
 * warps) whoever builds the points. */
static gm_status check_points(const gm_waves_point *pts, size_t n, gm_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const gm_waves_point *p = &pts[i];
        if (!gm_quantity_ok(GM_Q_WARPS_PER_BLOCK, p->b) ||
            !gm_quantity_ok(GM_Q_BLOCKS_PER_SM, p->nslot) ||
            !gm_quantity_ok(GM_Q_SMEM_BYTES, (double)p->s) ||
            !gm_quantity_ok(GM_Q_REGS, (double)p->r))
            return gm_fail(err, GM_ERR_RANGE,
                           "point %zu (b = %d, s = %ld, r = %ld, N_slot = %d) outside the ranges "
                           "a GPU has (b 1..64, s 0..2^24, r 0..255, N_slot 0..64)",
                           i + 1, p->b, p->s, p->r, p->nslot);
    }
    return GM_OK;
}

/* Eq. 3.12 */
gm_status gm_waves_derive_wsb(const gm_waves_point *pts, size_t n, int *N1, int *N2, gm_error *err)
{
    int n1 = -1, n2 = 0;
    gm_status st = check_points(pts, n, err);
    if (st != GM_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].b == 1)
            n1 = pts[i].nslot;
        if (pts[i].b * pts[i].nslot > n2)
            n2 = pts[i].b * pts[i].nslot;
    }
    if (n1 < 0)
        return gm_fail(err, GM_ERR_MISSING, "warp-slot points have no b = 1 point (Eq. 3.12)");
    *N1 = n1;
    *N2 = n2;
    return GM_OK;
}

/* The inputs of one capacity fit: the shared-memory one (Eq. 3.10) reads
 * nslot1 and s_res, the register one (Eq. 3.11) w, N1, N2 and r_parts. */
typedef struct waves_fit {
    /* what point p takes of the resource with allocation unit u */
    long (*demand)(const struct waves_fit *f, const gm_waves_point *p, long u);
    /* whether capacity cap and unit u predict point p's nslot */
    int (*fits)(const struct waves_fit *f, const gm_waves_point *p, long u, long cap);
    int nslot1;
    long s_res;
    int w, N1, N2, r_parts;
} waves_fit;

/* Eq. 3.13's search, one for both resources: for each candidate unit the
 * capacity is the largest demand of any point; the unit whose capacity
 * mispredicts the fewest points' nslot wins (the first of equals), and an
 * exact fit ends the search. */
static void waves_search(const waves_fit *f, const gm_waves_point *pts, size_t n, const long *cands,
                         size_t n_cands, long *cap, long *unit, int *mismatch)
{
    int best_mis = -1;
    for (size_t k = 0; k < n_cands; k++) {
        long u = cands[k], cap_k = 0;
        for (size_t i = 0; i < n; i++) {
            long v = f->demand(f, &pts[i], u);
            if (v > cap_k)
                cap_k = v;
        }
        int mis = 0;
        for (size_t i = 0; i < n; i++)
            if (!f->fits(f, &pts[i], u, cap_k))
                mis++;
        if (best_mis < 0 || mis < best_mis) {
            best_mis = mis;
            *cap = cap_k;
            *unit = u;
        }
        if (mis == 0)
            break;
    }
    *mismatch = best_mis;
}

static long shm_demand(const waves_fit *f, const gm_waves_point *p, long u)
{
    return gm_waves_round_up(p->s + f->s_res, u) * p->nslot;
}

static int shm_fits(const waves_fit *f, const gm_waves_point *p, long u, long S)
{
    long blk = gm_waves_round_up(p->s + f->s_res, u);
    long pred = blk > 0 ? S / blk : f->nslot1;
    return (pred > f->nslot1 ? f->nslot1 : pred) == p->nslot;
}

/* Eq. 3.10 + 3.13 */
gm_status gm_waves_derive_shm(const gm_waves_point *pts, size_t n, int nslot1, long s_res,
                              const long *cands, size_t n_cands, long *S, long *s_min,
                              int *mismatch, gm_error *err)
{
    if (n == 0 || n_cands == 0)
        return gm_fail(err, GM_ERR_MISSING, "no shared-memory points or s_min candidates");
    gm_status st = check_points(pts, n, err);
    if (st != GM_OK)
        return st;
    if (s_res < 0 || s_res > (1L << 24))
        return gm_fail(err, GM_ERR_RANGE, "reservation %ld outside 0..2^24", s_res);
    waves_fit f = {.demand = shm_demand, .fits = shm_fits, .nslot1 = nslot1, .s_res = s_res};
    waves_search(&f, pts, n, cands, n_cands, S, s_min, mismatch);
    return GM_OK;
}

static long rf_demand(const waves_fit *f, const gm_waves_point *p, long u)
{
    long rw = gm_waves_round_up(p->r * f->w, u);
    long warps = (long)p->nslot * p->b;
    /* whole warps per partition: the fullest partition holds ceil(warps / parts) */
    return f->r_parts > 1 ? rw * ((warps + f->r_parts - 1) / f->r_parts) * f->r_parts
                          : rw * warps;
}

static int rf_fits(const waves_fit *f, const gm_waves_point *p, long u, long R)
{
    long rw = gm_waves_round_up(p->r * f->w, u);
    if (rw <= 0)
        return 0;
    long wsb = f->N2 / p->b < f->N1 ? f->N2 / p->b : f->N1;
    long pred = f->r_parts > 1 ? (R / f->r_parts / rw) * f->r_parts / p->b : R / (rw * p->b);
    return (pred < wsb ? pred : wsb) == p->nslot;
}

/* Eq. 3.11 + 3.13 */
gm_status gm_waves_derive_rf(const gm_waves_point *pts, size_t n, int w, int N1, int N2,
                             int r_parts, const long *cands, size_t n_cands, long *R, long *r_min,
                             int *mismatch, gm_error *err)
{
    if (n == 0 || n_cands == 0 || r_parts < 1)
        return gm_fail(err, GM_ERR_MISSING, "no register points or r_min candidates");
    gm_status st = check_points(pts, n, err);
    if (st != GM_OK)
        return st;
    if (w < 1 || w > 64 || r_parts > 64 || N1 < 0 || N1 > 64 || N2 < 0 || N2 > 64 * 64)
        return gm_fail(err, GM_ERR_RANGE, "w = %d, r_parts = %d, N1 = %d or N2 = %d out of range",
                       w, r_parts, N1, N2);
    waves_fit f = {.demand = rf_demand, .fits = rf_fits, .w = w, .N1 = N1, .N2 = N2,
                   .r_parts = r_parts};
    waves_search(&f, pts, n, cands, n_cands, R, r_min, mismatch);
    return GM_OK;
}

/* ---- warp-scheduling policy ----------------------------------------- */

const char *gm_waves_policy_name(gm_waves_policy p)
{
    switch (p) {
    case GM_WAVES_POLICY_RR: return "round robin";
    case GM_WAVES_POLICY_OF: return "oldest first";
    case GM_WAVES_POLICY_GTO: return "greedy then oldest";
    default: return "unclassified";
    }
}

static int cmp_issue(const void *a, const void *b)
{
    const gm_waves_issue *x = a, *y = b;
    if (x->clock != y->clock)
        return x->clock < y->clock ? -1 : 1;
    return (x->warp > y->warp) - (x->warp < y->warp);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

gm_status gm_waves_classify_policy(const gm_waves_issue *log, size_t n, int steps,
                                   gm_waves_policy_stats *out, gm_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 2 || steps < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "a policy needs at least two issues");
    gm_waves_issue *v = malloc(n * sizeof *v);
    int *ids = malloc(n * sizeof *ids);
    int *done = calloc(n, sizeof *done);
    if (!v || !ids || !done) {
        free(v); free(ids); free(done);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    memcpy(v, log, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_issue);
    for (size_t i = 0; i < n; i++)
        ids[i] = v[i].warp;
    qsort(ids, n, sizeof *ids, cmp_int);
    size_t nw = 0;
    for (size_t i = 0; i < n; i++)
        if (nw == 0 || ids[nw - 1] != ids[i])
            ids[nw++] = ids[i];
    /* index of each issue's warp among the distinct ids */
    size_t runs = 1, switches = 0, cyclic = 0, cyclic_down = 0, oldest = 0;
    size_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nw && ids[k] != v[i].warp)
            k++;
        if (i > 0 && k != prev) {
            runs++;
            switches++;
            /* the next not-done warp after prev, cyclically */
            size_t nx = prev;
            for (size_t j = 1; j <= nw; j++) {
                size_t c = (prev + j) % nw;
                if (done[c] < steps) {
                    nx = c;
                    break;
                }
            }
            if (nx == k)
                cyclic++;
            /* the same, walking the warps downwards */
            size_t nd = prev;
            for (size_t j = 1; j <= nw; j++) {
                size_t c = (prev + nw - j) % nw;
                if (done[c] < steps) {
                    nd = c;
                    break;
                }
            }
            if (nd == k)
                cyclic_down++;
            size_t lo = 0; /* the oldest other warp not yet done */
            while (lo < nw && (done[lo] >= steps || lo == prev))
                lo++;
            if (lo == k)
                oldest++;
        }
        done[k]++;
        prev = k;
    }
    out->events = n;
    out->mean_run = (double)n / (double)runs;
    out->cyclic_frac = switches ? (double)cyclic / switches : NAN;
    out->cyclic_down_frac = switches ? (double)cyclic_down / switches : NAN;
    out->oldest_frac = switches ? (double)oldest / switches : NAN;
    double cyc = out->cyclic_down_frac > out->cyclic_frac ? out->cyclic_down_frac : out->cyclic_frac;
    if (out->mean_run >= 2.0)
        out->policy = GM_WAVES_POLICY_GTO;
    else if (out->oldest_frac >= 0.9 && out->oldest_frac > cyc)
        out->policy = GM_WAVES_POLICY_OF;
    else if (cyc >= 0.6)
        out->policy = GM_WAVES_POLICY_RR;
    else
        out->policy = GM_WAVES_POLICY_UNKNOWN;
    free(v);
    free(ids);
    free(done);
    return GM_OK;
}

/* ---- accuracy ------------------------------------------------------- */

double gm_waves_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (!(sxx > 0) || !(syy > 0))
        return NAN;
    return sxy / sqrt(sxx * syy);
}

double gm_waves_median_abs_err(const double *pred, const double *meas, size_t n)
{
    if (n == 0)
        return NAN;
    double *e = malloc(n * sizeof *e);
    if (!e)
        return NAN;
    for (size_t i = 0; i < n; i++)
        e[i] = fabs(pred[i] / meas[i] - 1.0);
    double m = gm_median(e, n);
    free(e);
    return m;
}
