/* Suite "sched": the state-buffer tests (N_slot by the global semaphore,
 * Sec. 3.2.3, Fig. 3.4, Eq. 3.9-3.13), Hopper's clusters, and the
 * end-to-end kernel times T(g,b) of Sec. 4.3.3. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waves_data.h"
#include "waves_meas.h"
#include "waves_suite.h"

#define WAVES_QUIET_NS 100000u  /* the watcher's "nobody arrived for" window */
#define WAVES_NSLOT_BOUND 64    /* blocks per SM the count launch offers at most */
/* T(g,b): launches per size and point (docs/diag.md, "How the suite
 * measures"); with 9 the full suite took 34.6 s on an H100 (T(g,b) ~30 s) */
#define WAVES_TGB_K 9
#define WAVES_TGB_K_QUICK 5
#define WAVES_TGB_MAXPTS 96

unsigned waves_fu_iters(const gb_waves_fu_op *op);

/* Blocks co-resident on the whole GPU (gd_count, mode 0): the watcher's count. */
static gm_status count_coresident(gb_waves_ctx *c, gb_waves_kern *k, unsigned B, unsigned dyn,
                                  unsigned cluster, unsigned G, long *total, gm_error *err)
{
    uint32_t v = 0;
    gb_waves_launch l = {{G, 1, 1}, {B, 1, 1}, cluster, dyn, c->out, c->sync, c->data, WAVES_QUIET_NS, G};
    gm_status st = gb_waves_reset_sync(c, err);
    if (st == GM_OK)
        st = gb_waves_jit_zero(c->j, c->out, 8, err);
    if (st == GM_OK)
        st = gb_waves_jit_run(c->j, k, &l, c->timeout_s, NULL, err);
    if (st == GM_OK)
        st = gb_waves_jit_read(c->j, &v, c->out, 4, err);
    *total = (long)v;
    return st;
}

static unsigned count_grid(const gb_waves_ctx *c)
{
    return (unsigned)(c->n_mp * (WAVES_NSLOT_BOUND + 1));
}

typedef struct pts {
    gm_waves_point p[256];
    size_t n;
} pts;

/* One N_slot point: measured, the occupancy API beside it, a row. */
static gm_status nslot_point(gb_waves_ctx *c, gb_waves_kern *k, const char *name, int b, long s,
                             int regs, pts *into, int *api_diff, int *not_div, gm_error *err)
{
    long total;
    int api = -1;
    gm_status st = count_coresident(c, k, 32u * (unsigned)b, (unsigned)s, 0, count_grid(c), &total, err);
    if (st == GM_ERR_RANGE) /* refused: the block does not fit at all */
        return gb_waves_row(c, "nslot", name, b, s, regs, 0, NAN, 0, "launch refused", err);
    if (st != GM_OK)
        return st;
    gm_error e;
    gb_waves_kern_occupancy(k, 32 * b, (int)s, &api, &e);
    gm_waves_point pt = {.b = b, .s = s, .r = regs, .total = total};
    gm_waves_point_from_total(&pt, c->n_mp);
    if (into->n < sizeof into->p / sizeof into->p[0])
        into->p[into->n++] = pt;
    if (api >= 0 && api != pt.nslot)
        (*api_diff)++;
    if (pt.not_divisible)
        (*not_div)++;
    gb_waves_progress(c, 1, "state buffers");
    return gb_waves_row(c, "nslot", name, b, s, regs, pt.nslot, api >= 0 ? api : NAN, (double)total,
                        pt.not_divisible ? "total not divisible by n_mp" : "", err);
}

/* Fig. 3.4 as printed: every block waits for G or times out after 2 ms.
 * Run at the measured total (all fit: no timeout) and one more (cannot all
 * be co-resident: must end by itself, with the timeout flag). */
static gm_status semaphore_check(gb_waves_ctx *c, const char *name, int b, long s, long total,
                                 gm_error *err)
{
    gb_waves_kern *k = NULL;
    gm_status st0;
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, s > 0 ? -1 : 0, 0, 0, 1) < 0)
        return gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    if ((st0 = gb_waves_load(c, "gd_count", &k, err)) != GM_OK)
        return st0;
    if (s > 0 && (st0 = gb_waves_kern_set_dyn_smem(k, (int)s, err)) != GM_OK) {
        gb_waves_kern_free(k);
        return st0;
    }
    for (long G = total; G <= total + 1; G++) {
        uint32_t flag[2] = {0, 0};
        double ms = NAN;
        gb_waves_launch l = {{(unsigned)G, 1, 1}, {32u * (unsigned)b, 1, 1}, 0, (unsigned)s,
                             c->out, c->sync, c->data, 2000000u, (unsigned)G};
        gm_status st = gb_waves_reset_sync(c, err);
        if (st == GM_OK)
            st = gb_waves_jit_run(c->j, k, &l, c->timeout_s, &ms, err);
        if (st == GM_OK)
            st = gb_waves_jit_read(c->j, flag, c->sync, 8, err);
        if (st != GM_OK) {
            gb_waves_kern_free(k);
            return st;
        }
        gb_waves_row(c, "sema", name, G, b, s, flag[1] == 2 ? 1 : 0, NAN, ms,
                     flag[1] == 2 ? "timed out; ended by itself" : "all arrived", err);
    }
    gb_waves_kern_free(k);
    return GM_OK;
}

static gm_status load_count(gb_waves_ctx *c, long smem, int regs, gb_waves_kern **k, gm_error *err)
{
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, smem, regs, regs, 0) < 0)
        return gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    return gb_waves_load(c, "gd_count", k, err);
}

/* Eq. 3.12, 3.13 and the s_min / r_min search on the rows just written
 * (gm_waves_derive_md, the same code gpuq diag and the unit read them with);
 * both forms recorded. */
static void derive(gb_waves_ctx *c, gm_error *err)
{
    gm_waves_derived o;
    const gb_waves_dev *d = &c->dev;
    const int H = GM_WAVES_FORM_HOPPER, P = GM_WAVES_FORM_PAPER;
    if (gm_waves_derive_md(c->md, c->n_mp, &o, err) != GM_OK)
        return;
    gb_waves_row(c, "param", "N1", NAN, NAN, NAN, o.N1, d->max_blocks_per_sm, NAN, "Eq. 3.12", err);
    gb_waves_row(c, "param", "N2", NAN, NAN, NAN, o.N2, d->max_threads_per_sm / 32.0, NAN,
                 "Eq. 3.12", err);
    gb_waves_row(c, "param", "S_paper", NAN, NAN, NAN, o.S[P], d->smem_per_sm, o.s_min[P],
                 "paper form: extra = s_min", err);
    gb_waves_row(c, "param", "S", NAN, NAN, NAN, o.S[H], d->smem_per_sm, NAN, "Eq. 3.13", err);
    gb_waves_row(c, "param", "s_min", NAN, NAN, NAN, o.s_min[H], NAN, NAN, "Eq. 3.10 consistency",
                 err);
    gb_waves_row(c, "param", "s_res", NAN, NAN, NAN, o.s_res[H], d->reserved_smem_per_block, NAN,
                 "reserved per block that explains the most points", err);
    gb_waves_row(c, "param", "shm_mismatch_paper", NAN, NAN, NAN, o.shm_mismatch[P], NAN, o.n_shm,
                 "", err);
    gb_waves_row(c, "param", "shm_mismatch_hopper", NAN, NAN, NAN, o.shm_mismatch[H], NAN, o.n_shm,
                 "", err);
    gb_waves_row(c, "param", "R_paper", NAN, NAN, NAN, o.R[P], d->regs_per_sm, o.r_min[P],
                 "paper form: extra = r_min", err);
    gb_waves_row(c, "param", "R", NAN, NAN, NAN, o.R[H], d->regs_per_sm, NAN, "Eq. 3.13", err);
    gb_waves_row(c, "param", "r_min", NAN, NAN, NAN, o.r_min[H], NAN, NAN,
                 "Eq. 3.11 consistency; per warp", err);
    gb_waves_row(c, "param", "r_parts", NAN, NAN, NAN, o.r_parts[H], NAN, NAN,
                 "register-file partitions", err);
    gb_waves_row(c, "param", "rf_mismatch_paper", NAN, NAN, NAN, o.rf_mismatch[P], NAN, o.n_rf, "",
                 err);
    gb_waves_row(c, "param", "rf_mismatch_hopper", NAN, NAN, NAN, o.rf_mismatch[H], NAN, o.n_rf, "",
                 err);
    gm_waves_params_from_derived(&o, GM_WAVES_FORM_HOPPER, &c->params); /* o.n_mp is c->n_mp */
    c->have_params = 1;
}

gm_status gb_waves_test_nslot(gb_waves_ctx *c, gm_error *err)
{
    pts *wsb = calloc(1, sizeof *wsb), *shm = calloc(1, sizeof *shm), *rf = calloc(1, sizeof *rf);
    gb_waves_kern *k = NULL;
    gm_status st = GM_OK;
    int api_diff = 0, not_div = 0;
    if (!wsb || !shm || !rf) {
        st = gm_fail(err, GM_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (c->n_mp <= 0) {
        st = gm_fail(err, GM_ERR_MISSING, "N_slot needs n_mp (num mp test)");
        goto done;
    }
    int bmax = c->L_TB > 0 ? c->L_TB / 32 : 32;
    /* warp-slot buffer (Eq. 3.9): s = 0, few registers */
    if ((st = load_count(c, 0, 0, &k, err)) != GM_OK)
        goto done;
    int base_regs = gb_waves_kern_regs(k);
    for (int b = 1; b <= bmax && st == GM_OK; b++) {
        if (c->quick && !(b <= 4 || b == 8 || b == 16 || b == 21 || b == 32))
            continue;
        st = nslot_point(c, k, "wsb", b, 0, base_regs, wsb, &api_diff, &not_div, err);
    }
    if (st == GM_OK && wsb->n)
        st = semaphore_check(c, "wsb", 1, 0, wsb->p[0].total, err);
    gb_waves_kern_free(k);
    k = NULL;
    /* shared memory (Eq. 3.10): b = 1, dynamic s around every N_slot edge */
    if (st == GM_OK && (st = load_count(c, -1, 0, &k, err)) == GM_OK)
        st = gb_waves_kern_set_dyn_smem(k, c->dev.smem_per_block_optin, err);
    long smax = c->dev.smem_per_block_optin, S_doc = c->dev.smem_per_sm;
    for (int n = 1; n <= 32 && st == GM_OK; n++) {
        if (c->quick && !(n <= 3 || n == 5 || n == 8 || n == 16 || n == 32))
            continue;
        long edge = S_doc / n - c->dev.reserved_smem_per_block;
        long offs[4] = {0, -64, -200, 1};
        for (int o = 0; o < (c->quick ? 2 : 4) && st == GM_OK; o++) {
            long s = edge + offs[o];
            if (s < 1 || s > smax)
                continue;
            st = nslot_point(c, k, "shm", 1, s, base_regs, shm, &api_diff, &not_div, err);
        }
    }
    if (st == GM_OK && shm->n)
        st = semaphore_check(c, "shm", 1, shm->p[0].s, shm->p[0].total, err);
    gb_waves_kern_free(k);
    k = NULL;
    /* register file (Eq. 3.11): s = 0, kernels holding r registers.  Counts
     * that are multiples of 8 cannot tell an allocation unit of 8 registers
     * per warp from 256 (8 per thread): 36, 44 and 50 can (at 4 and 8 warps
     * per block the whole warps per partition differ), and without them the
     * H200's fit chose 8 and missed the occupancy API at 36, 38 and 50. */
    static const int rs[] = {32, 36, 40, 44, 48, 50, 56, 64, 72, 80, 96, 128, 168, 200, 255};
    static const int bs[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0] && st == GM_OK; i++) {
        if (c->quick && !(rs[i] == 32 || rs[i] == 36 || rs[i] == 44 || rs[i] == 72 || rs[i] == 128 || rs[i] == 255))
            continue;
        if ((st = load_count(c, 0, rs[i], &k, err)) != GM_OK)
            break;
        int regs = gb_waves_kern_regs(k);
        for (size_t j = 0; j < sizeof bs / sizeof bs[0] && st == GM_OK; j++) {
            if (bs[j] > bmax || (c->quick && !(bs[j] == 1 || bs[j] == 3 || bs[j] == 8 || bs[j] == 32)))
                continue;
            st = nslot_point(c, k, "rf", bs[j], 0, regs, rf, &api_diff, &not_div, err);
        }
        gb_waves_kern_free(k);
        k = NULL;
        if (gb_waves_stop(c))
            st = gm_fail(err, GM_ERR_INTERRUPTED, "stopped in the state-buffer test");
    }
    if (st == GM_OK) {
        derive(c, err);
        gb_waves_row(c, "param", "nslot_api_diff", NAN, NAN, NAN, api_diff, 0,
                     (double)(wsb->n + shm->n + rf->n), "points where N_slot != occupancy API",
                     err);
        gb_waves_row(c, "param", "nslot_not_divisible", NAN, NAN, NAN, not_div, 0,
                     (double)(wsb->n + shm->n + rf->n), "totals not divisible by n_mp", err);
    }
done:
    gb_waves_kern_free(k);
    free(wsb);
    free(shm);
    free(rf);
    return st;
}

/* Clusters (Hopper, beyond the paper): the largest cluster a launch
 * accepts, portable and with the opt-in, and how many clusters of one
 * block per SM are co-resident, beside cuOccupancyMaxActiveClusters. */
gm_status gb_waves_test_clusters(gb_waves_ctx *c, gm_error *err)
{
    gb_waves_kern *k = NULL;
    gm_status st = load_count(c, -1, 0, &k, err);
    if (st != GM_OK)
        return st;
    int maxk[2] = {0, 0};
    for (int np = 0; np < 2 && st == GM_OK; np++) {
        if (np && (st = gb_waves_kern_set_nonportable(k, 1, err)) != GM_OK)
            break;
        for (unsigned kk = 1; kk <= 32; kk++) {
            gb_waves_launch l = {{kk, 1, 1}, {32, 1, 1}, kk, 0, c->out, c->sync, c->data, 1000, kk};
            gm_error e;
            gb_waves_reset_sync(c, &e);
            gm_status r = gb_waves_jit_run(c->j, k, &l, c->timeout_s, NULL, &e);
            if (r == GM_OK)
                maxk[np] = (int)kk;
            else if (r != GM_ERR_RANGE) {
                *err = e;
                st = r;
                break;
            }
        }
    }
    if (st == GM_OK) {
        gb_waves_row(c, "param", "cluster_max_portable", NAN, NAN, NAN, maxk[0], 8, NAN,
                     "doc: programming guide, portable cluster size", err);
        gb_waves_row(c, "param", "cluster_max_nonportable", NAN, NAN, NAN, maxk[1], 16, NAN,
                     "doc: programming guide, H100 with the non-portable opt-in", err);
    }
    /* one block per SM: shared memory above half the SM's */
    unsigned dyn = (unsigned)c->dev.smem_per_block_optin;
    if (st == GM_OK)
        st = gb_waves_kern_set_dyn_smem(k, (int)dyn, err);
    static const unsigned ks[] = {1, 2, 3, 4, 6, 8, 12, 16};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0] && st == GM_OK; i++) {
        unsigned kk = ks[i];
        if ((int)kk > maxk[1])
            continue;
        unsigned G = kk * ((unsigned)c->n_mp / kk + 2);
        long total = 0;
        int api = -1;
        st = count_coresident(c, k, 32, dyn, kk, G, &total, err);
        if (st == GM_ERR_RANGE) {
            st = gb_waves_row(c, "cluster", "", kk, NAN, NAN, NAN, NAN, NAN, "launch refused", err);
            continue;
        }
        gb_waves_launch l = {{G, 1, 1}, {32, 1, 1}, kk, dyn, c->out, c->sync, c->data, WAVES_QUIET_NS, G};
        gm_error e;
        gb_waves_kern_max_clusters(c->j, k, &l, &api, &e);
        if (st == GM_OK)
            st = gb_waves_row(c, "cluster", "", kk, NAN, NAN, (double)(total / (long)kk),
                              api >= 0 ? api : NAN, (double)total, "", err);
        gb_waves_progress(c, 1, "clusters");
    }
    gb_waves_kern_free(k);
    return st;
}

/* T(g,b) (Sec. 4.3.3), measured as waves_meas.h describes: k rounds,
 * each launching every point of one kernel once at n and once at 2n loop
 * iterations in the round's order (gm_waves_round_order), the two sizes in
 * alternating order; the point's time is median T(2n) - median T(n). */
typedef struct waves_tgb_pt {
    long G;
    int b, N;
    double t1[WAVES_TGB_K], t2[WAVES_TGB_K]; /* ms at n and 2n, one per round */
} waves_tgb_pt;

static gm_status waves_tgb_flush(gb_waves_ctx *c, gb_waves_kern *k, const gb_waves_launch *ls,
                                 double *const *dst, size_t *m, gm_error *err)
{
    double ms[GB_WAVES_JIT_BATCH];
    gm_status st = gb_waves_jit_run_batch(c->j, k, ls, *m, c->timeout_s, ms, err);
    for (size_t i = 0; i < *m && st == GM_OK; i++)
        if (dst[i])
            *dst[i] = ms[i];
    gb_waves_progress(c, (long)*m, "end-to-end T(g,b)");
    *m = 0;
    return st;
}

/* One round (round < 0: the warm-up, every point once at n, times
 * discarded: clocks up, code and data caches warm, every configuration
 * launched once before any is timed). */
static gm_status waves_tgb_round(gb_waves_ctx *c, gb_waves_kern *k, waves_tgb_pt *p, size_t np,
                                 unsigned n, int round, gm_error *err)
{
    size_t order[WAVES_TGB_MAXPTS];
    gb_waves_launch ls[GB_WAVES_JIT_BATCH];
    double *dst[GB_WAVES_JIT_BATCH];
    size_t m = 0;
    gm_status st = GM_OK;
    gm_waves_round_order(np, round < 0 ? 1000u : (unsigned)round, order);
    for (size_t i = 0; i < np && st == GM_OK; i++) {
        waves_tgb_pt *q = &p[order[i]];
        for (int s = 0; s < (round < 0 ? 1 : 2) && st == GM_OK; s++) {
            int twice = round < 0 ? 0 : s ^ (round & 1); /* odd rounds: 2n first */
            ls[m] = (gb_waves_launch){{(unsigned)q->G, 1, 1}, {32u * (unsigned)q->b, 1, 1}, 0, 0,
                                      c->out, 0, c->data, twice ? 2 * n : n, (unsigned)q->G};
            dst[m] = round < 0 ? NULL : twice ? &q->t2[round] : &q->t1[round];
            if (++m == GB_WAVES_JIT_BATCH)
                st = waves_tgb_flush(c, k, ls, dst, &m, err);
        }
    }
    if (st == GM_OK && m)
        st = waves_tgb_flush(c, k, ls, dst, &m, err);
    return st;
}

/* Where the blocks of a launch with one and a half waves ran: per SM, all
 * its blocks and those that started after the first block of the launch
 * ended (the tail), from the fu kernel's per-block (smid, start, end). */
static gm_status tail_log(gb_waves_ctx *c, gb_waves_kern *k, const char *op, long G, int b,
                          unsigned n, gm_error *err)
{
    enum { MAX_SM = 1024 };
    size_t bytes = 24 * (size_t)G;
    uint64_t *log = malloc(bytes);
    long all[MAX_SM] = {0}, tail[MAX_SM] = {0};
    if (!log)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    gb_waves_launch l = {{(unsigned)G, 1, 1}, {32u * (unsigned)b, 1, 1}, 0, 0, c->out, 0, c->data,
                         n, (unsigned)G};
    gm_status st = gb_waves_jit_run(c->j, k, &l, c->timeout_s, NULL, err);
    if (st == GM_OK)
        st = gb_waves_jit_read(c->j, log, c->out + GB_WAVES_BLOCKLOG_OFFSET, bytes, err);
    if (st == GM_OK) {
        uint64_t first_end = UINT64_MAX;
        for (long i = 0; i < G; i++)
            if (log[3 * i + 2] < first_end)
                first_end = log[3 * i + 2];
        for (long i = 0; i < G; i++) {
            uint64_t sm = log[3 * i];
            if (sm >= MAX_SM)
                continue;
            all[sm]++;
            if (log[3 * i + 1] >= first_end)
                tail[sm]++;
        }
        for (int sm = 0; sm < MAX_SM && st == GM_OK; sm++)
            if (all[sm])
                st = gb_waves_row(c, "tail", op, sm, b, (double)G, (double)tail[sm], NAN,
                                  (double)all[sm], "", err);
    }
    free(log);
    return st;
}

/* Sec. 4.3.3, Fig. 4.5: kernel time over g and b for four instruction
 * kernels; the prediction is made from these rows by the model (gpuq diag).
 * Rows: tgb (the point), tgbs (its launches' spread), tgbr (every launch). */
gm_status gb_waves_test_tgb(gb_waves_ctx *c, gm_error *err)
{
    static const char *const ops[] = {"lds", "ffma", "mufu_ex2", "ldg"};
    static const int bs_full[] = {1, 2, 4, 8, 16, 32}, bs_quick[] = {1, 8, 32};
    const int *bs = c->quick ? bs_quick : bs_full;
    int nb = c->quick ? 3 : 6, K = c->quick ? WAVES_TGB_K_QUICK : WAVES_TGB_K;
    gm_status st = GM_OK;
    waves_tgb_pt *p = malloc(WAVES_TGB_MAXPTS * sizeof *p);
    if (!p)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    for (size_t o = 0; o < 4 && st == GM_OK; o++) {
        const gb_waves_fu_op *op = gb_waves_fu_op_find(ops[o]);
        char entry[64];
        gb_waves_kern *k = NULL;
        snprintf(entry, sizeof entry, "gd_fu_%s", op->name);
        if (gb_waves_ptx_fu(c->ptx, GB_WAVES_PTX_MAX, op, c->cc) < 0) {
            st = gm_fail(err, GM_ERR_NOMEM, "PTX too long");
            break;
        }
        if ((st = gb_waves_load(c, entry, &k, err)) != GM_OK)
            break;
        unsigned n = waves_fu_iters(op) * 2;
        size_t np = 0;
        for (int bi = 0; bi < nb; bi++) {
            int b = bs[bi], N = 0;
            gm_error e;
            if (gb_waves_kern_occupancy(k, 32 * b, 0, &N, &e) != GM_OK || N <= 0)
                continue;
            long m = c->n_mp, full = m * N;
            long Gs[] = {1, m / 2, m, m + 1, full / 2, full - 1, full, full + 1, full + full / 2,
                         2 * full, 2 * full + m / 2, 3 * full, 4 * full};
            long prev = -1;
            for (size_t gi = 0; gi < sizeof Gs / sizeof Gs[0] && np < WAVES_TGB_MAXPTS; gi++) {
                long G = Gs[gi];
                if (G < 1 || G <= prev || (c->quick && gi % 2))
                    continue;
                prev = G;
                p[np++] = (waves_tgb_pt){.G = G, .b = b, .N = N};
            }
        }
        for (int r = -1; r < K && st == GM_OK; r++) {
            st = waves_tgb_round(c, k, p, np, n, r, err);
            if (st == GM_OK && gb_waves_stop(c))
                st = gm_fail(err, GM_ERR_INTERRUPTED, "stopped in the T(g,b) test");
        }
        for (size_t i = 0; i < np && st == GM_OK; i++) {
            gm_waves_tgb_point pt;
            if ((st = gm_waves_tgb_point_of(p[i].t1, p[i].t2, (size_t)K, &pt)) != GM_OK) {
                st = gm_fail(err, st, "T(g,b) of %s at G = %ld, b = %d: no launch timed",
                             op->name, p[i].G, p[i].b);
                break;
            }
            st = gb_waves_row(c, "tgb", op->name, p[i].G, p[i].b, p[i].N, pt.ms, NAN, pt.t1.median,
                              "", err);
            if (st == GM_OK)
                st = gb_waves_row(c, "tgbs", op->name, p[i].G, p[i].b, K, pt.t2.spread, NAN,
                                  pt.t1.spread, "", err);
        }
        for (size_t i = 0; i < np && st == GM_OK; i++)
            for (int r = 0; r < K && st == GM_OK; r++)
                st = gb_waves_row(c, "tgbr", op->name, p[i].G, p[i].b, r, p[i].t2[r], NAN,
                                  p[i].t1[r], "", err);
        /* per-block logs at 1.5 waves, b = 1 and 32 (after the timed rounds) */
        for (int bi = 0; bi < nb && st == GM_OK; bi++) {
            int b = bs[bi], N = 0;
            gm_error e;
            if ((b != 1 && b != 32) || gb_waves_kern_occupancy(k, 32 * b, 0, &N, &e) != GM_OK ||
                N <= 0)
                continue;
            long full = (long)c->n_mp * N;
            st = tail_log(c, k, op->name, full + full / 2, b, n, err);
        }
        gb_waves_kern_free(k);
    }
    free(p);
    return st;
}
