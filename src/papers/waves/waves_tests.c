/* Suite "sched": the kernel-limits, functional-units, num-mp and
 * warp-scheduling-policy tests (paper 003, Sec. 3.2.1-3.2.2, Table 3.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waves_data.h"
#include "core/stats.h"
#include "waves_suite.h"

#define WAVES_REPS 3
/* warp instructions per warp per pass of the fu kernel (Fig. 3.3's
 * N_period x |insts|): long enough that the clock reads cost nothing */
#define WAVES_FU_OPS 16384

static gm_status launch(gb_waves_ctx *c, gb_waves_kern *k, unsigned G, unsigned B, unsigned n,
                        uint64_t sync, double *ms, gm_error *err)
{
    gb_waves_launch l = {{G, 1, 1}, {B, 1, 1}, 0, 0, c->out, sync, c->data, n, G};
    return gb_waves_jit_run(c->j, k, &l, c->timeout_s, ms, err);
}

/* 1 when the launch is accepted and runs, 0 when the driver refuses it */
static int accepted(gb_waves_ctx *c, gb_waves_kern *k, const gb_waves_launch *l, gm_status *fatal,
                    gm_error *err)
{
    gm_error e;
    gm_status st = gb_waves_jit_run(c->j, k, l, c->timeout_s, NULL, &e);
    if (st == GM_OK)
        return 1;
    if (st != GM_ERR_RANGE) {
        *fatal = st;
        *err = e;
    }
    return 0;
}

/* largest v in [lo, hi] with ok(v), given ok(lo) (binary search, Sec. 3.2.1) */
typedef int (*probe_fn)(gb_waves_ctx *c, void *arg, long v, gm_status *fatal, gm_error *err);
static long bsearch_max(gb_waves_ctx *c, void *arg, long lo, long hi, probe_fn ok, gm_status *fatal,
                        gm_error *err)
{
    while (lo < hi && *fatal == GM_OK) {
        long mid = lo + (hi - lo + 1) / 2;
        if (ok(c, arg, mid, fatal, err))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

typedef struct probe_arg {
    gb_waves_kern *k;
    int dim;     /* 0..2 block dims, 3..5 grid dims */
    int optin;   /* dynamic smem with the opt-in */
} probe_arg;

static int probe_dims(gb_waves_ctx *c, void *arg, long v, gm_status *fatal, gm_error *err)
{
    probe_arg *a = arg;
    gb_waves_launch l = {{1, 1, 1}, {1, 1, 1}, 0, 0, c->out, 0, c->data, 0, 1};
    if (a->dim < 3)
        l.block[a->dim] = (unsigned)v;
    else
        l.grid[a->dim - 3] = (unsigned)v;
    return accepted(c, a->k, &l, fatal, err);
}

static int probe_dyn_smem(gb_waves_ctx *c, void *arg, long v, gm_status *fatal, gm_error *err)
{
    probe_arg *a = arg;
    gm_error e;
    if (a->optin && gb_waves_kern_set_dyn_smem(a->k, (int)v, &e) != GM_OK)
        return 0;
    gb_waves_launch l = {{1, 1, 1}, {32, 1, 1}, 0, (unsigned)v, c->out, c->sync, c->data, 1000, 1};
    gb_waves_reset_sync(c, &e);
    return accepted(c, a->k, &l, fatal, err);
}

/* static shared memory: the JIT or the launch refuses beyond the limit */
static int probe_static_smem(gb_waves_ctx *c, void *arg, long v, gm_status *fatal, gm_error *err)
{
    (void)arg;
    gb_waves_kern *k = NULL;
    gm_error e;
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, v, 0, 0, 1) < 0 || gb_waves_load(c, "gd_count", &k, &e))
        return 0;
    gb_waves_launch l = {{1, 1, 1}, {32, 1, 1}, 0, 0, c->out, c->sync, c->data, 1000, 1};
    gb_waves_reset_sync(c, &e);
    int ok = accepted(c, k, &l, fatal, err);
    gb_waves_kern_free(k);
    return ok;
}

typedef struct regs_arg {
    int B;
    int regs_seen;
} regs_arg;

/* registers: a kernel holding about v live registers, launched with B threads */
static int probe_regs(gb_waves_ctx *c, void *arg, long v, gm_status *fatal, gm_error *err)
{
    regs_arg *a = arg;
    gb_waves_kern *k = NULL;
    gm_error e;
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, 0, (int)v, (int)v, 1) < 0 ||
        gb_waves_load(c, "gd_count", &k, &e))
        return 0;
    gb_waves_launch l = {{1, 1, 1}, {(unsigned)a->B, 1, 1}, 0, 0, c->out, c->sync, c->data, 1000, 1};
    gb_waves_reset_sync(c, &e);
    int ok = accepted(c, k, &l, fatal, err);
    if (ok)
        a->regs_seen = gb_waves_kern_regs(k);
    gb_waves_kern_free(k);
    return ok;
}

gm_status gb_waves_test_limits(gb_waves_ctx *c, gm_error *err)
{
    gb_waves_kern *k = NULL;
    gm_status st = GM_OK, fatal = GM_OK;
    const gb_waves_dev *d = &c->dev;
    if (gb_waves_ptx_empty(c->ptx, GB_WAVES_PTX_MAX, c->cc) < 0 || (st = gb_waves_load(c, "gd_empty", &k, err)))
        return st ? st : gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    static const char *const names[6] = {"L_T_B", "L_B_y", "L_B_z", "L_G_x", "L_G_y", "L_G_z"};
    long lim[6];
    for (int dim = 0; dim < 6 && fatal == GM_OK; dim++) {
        probe_arg a = {k, dim, 0};
        if (dim == 3) {
            /* x reaches 2^31 - 1: one run of 2^20 blocks, the driver's
             * refusal at 2^31, and a run of 2^31 - 1 empty blocks when the
             * first says it takes under 5 s */
            gb_waves_launch l = {{1u << 20, 1, 1}, {1, 1, 1}, 0, 0, c->out, 0, c->data, 0, 1};
            double ms20 = NAN, ms31 = NAN;
            long lo = 0;
            if (gb_waves_jit_run(c->j, k, &l, c->timeout_s, &ms20, err) == GM_OK)
                lo = 1L << 20;
            l.grid[0] = 0x80000000u;
            int refused = !accepted(c, k, &l, &fatal, err);
            if (lo && refused && !c->quick && ms20 * 2048 < 5000) {
                l.grid[0] = 0x7FFFFFFFu;
                if (gb_waves_jit_run(c->j, k, &l, 60.0, &ms31, err) == GM_OK)
                    lo = 0x7FFFFFFFL;
            }
            gb_waves_row(c, "param", "L_G_x_run_ms", 1L << 20, NAN, NAN, ms20, NAN, ms31,
                         refused ? "x: ms of 2^20 blocks, extra: ms of 2^31-1; 2^31 refused"
                           : "x: 2^31 blocks accepted", err);
            lim[dim] = lo;
        } else {
            lim[dim] = bsearch_max(c, &a, 1, dim < 3 ? 8192 : (1L << 20), probe_dims, &fatal, err);
        }
        gb_waves_progress(c, 20, "kernel limits");
    }
    int docs[6] = {d->max_threads_per_block, d->max_block_dim[1], d->max_block_dim[2],
                   d->max_grid_dim[0], d->max_grid_dim[1], d->max_grid_dim[2]};
    for (int i = 0; i < 6 && fatal == GM_OK; i++)
        gb_waves_row(c, "param", names[i], NAN, NAN, NAN, (double)lim[i], docs[i], NAN, "", err);
    c->L_TB = (int)lim[0];
    gb_waves_kern_free(k);
    if (fatal != GM_OK)
        return fatal;
    gb_waves_row(c, "param", "L_T_G", NAN, NAN, NAN, (double)lim[0] * (double)lim[3],
                 (double)d->max_threads_per_block * d->max_grid_dim[0], NAN, "L(T/B) x blocks in x",
                 err);

    /* L(S/B): static (JIT), dynamic, dynamic with the opt-in */
    long s_static = bsearch_max(c, NULL, 16, 1L << 20, probe_static_smem, &fatal, err);
    gb_waves_row(c, "param", "L_S_B_static", NAN, NAN, NAN, s_static, d->smem_per_block, NAN,
                 "static .shared through the driver's PTX JIT", err);
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, -1, 0, 0, 1) < 0 ||
        (st = gb_waves_load(c, "gd_count", &k, err)) != GM_OK)
        return st ? st : gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    probe_arg a = {k, 0, 0};
    long s_dyn = bsearch_max(c, &a, 0, 1L << 20, probe_dyn_smem, &fatal, err);
    a.optin = 1;
    long s_opt = bsearch_max(c, &a, 0, 1L << 20, probe_dyn_smem, &fatal, err);
    gb_waves_kern_free(k);
    gb_waves_row(c, "param", "L_S_B_dyn", NAN, NAN, NAN, s_dyn, d->smem_per_block, NAN, "", err);
    gb_waves_row(c, "param", "L_S_B_optin", NAN, NAN, NAN, s_opt, d->smem_per_block_optin, NAN,
                 "dynamic, MAX_DYNAMIC_SHARED_SIZE_BYTES opt-in", err);
    gb_waves_progress(c, 40, "kernel limits");

    /* L(R/T): what the JIT grants a kernel holding 300 live registers, no cap */
    if (gb_waves_ptx_count(c->ptx, GB_WAVES_PTX_MAX, c->cc, 0, 300, 0, 1) >= 0 &&
        gb_waves_load(c, "gd_count", &k, err) == GM_OK) {
        gb_waves_row(c, "param", "L_R_T", NAN, NAN, NAN, gb_waves_kern_regs(k), 255, NAN,
                     "doc: programming guide (registers per thread)", err);
        gb_waves_kern_free(k);
        k = NULL;
    }
    /* L(R/B) = max_B r(B) B (Sec. 3.2.1) */
    double lrb = 0;
    static const int Bs[] = {1024, 512, 256};
    for (size_t i = 0; i < 3 && fatal == GM_OK; i++) {
        regs_arg r = {Bs[i], -1};
        bsearch_max(c, &r, 16, 255, probe_regs, &fatal, err);
        if (r.regs_seen > 0) {
            gb_waves_row(c, "param", "r_max_at_B", Bs[i], NAN, NAN, r.regs_seen, NAN, NAN, "", err);
            if ((double)r.regs_seen * Bs[i] > lrb)
                lrb = (double)r.regs_seen * Bs[i];
        }
    }
    gb_waves_row(c, "param", "L_R_B", NAN, NAN, NAN, lrb, d->regs_per_block, NAN, "", err);
    gb_waves_progress(c, 60, "kernel limits");
    return fatal;
}

/* cycles of the timed pass of one block (G = 1), median of WAVES_REPS */
static gm_status fu_cycles(gb_waves_ctx *c, gb_waves_kern *k, int warps, unsigned n, double *cyc,
                           gm_error *err)
{
    double v[WAVES_REPS];
    for (int r = 0; r < WAVES_REPS; r++) {
        uint64_t t = 0;
        gm_status st = launch(c, k, 1, 32u * (unsigned)warps, n, 0, NULL, err);
        if (st == GM_OK)
            st = gb_waves_jit_read(c->j, &t, c->out, 8, err);
        if (st != GM_OK)
            return st;
        v[r] = (double)t;
    }
    *cyc = gm_median(v, WAVES_REPS);
    return GM_OK;
}

unsigned waves_fu_iters(const gb_waves_fu_op *op);
unsigned waves_fu_iters(const gb_waves_fu_op *op)
{
    return (unsigned)(WAVES_FU_OPS / op->per_iter);
}

/* Sec. 3.2.2: (G, b) = (1, c), P(c) = time / (N_period |insts|), fu = P(c) / P_1 */
gm_status gb_waves_test_fu(gb_waves_ctx *c, gm_error *err)
{
    static const int quick_c[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    int cmax = c->L_TB > 0 ? c->L_TB / 32 : 32;
    if (cmax > 32)
        cmax = 32;
    for (size_t i = 0; i < gb_waves_fu_op_count() && i < GB_WAVES_MAX_OPS; i++) {
        const gb_waves_fu_op *op = &gb_waves_fu_ops[i];
        char entry[64];
        gb_waves_kern *k = NULL;
        gm_status st;
        if (gb_waves_stop(c))
            return gm_fail(err, GM_ERR_INTERRUPTED, "stopped in the functional-units test");
        snprintf(entry, sizeof entry, "gd_fu_%s", op->name);
        if (gb_waves_ptx_fu(c->ptx, GB_WAVES_PTX_MAX, op, c->cc) < 0)
            return gm_fail(err, GM_ERR_NOMEM, "PTX of %s too long", op->name);
        if ((st = gb_waves_load(c, entry, &k, err)) != GM_OK)
            return st;
        unsigned n = waves_fu_iters(op);
        double ops = (double)n * op->per_iter;
        gm_waves_fu_curve *f = &c->fu[i];
        memset(f, 0, sizeof *f);
        /* warm-up launch: clocks up, code loaded */
        double P1 = 0;
        fu_cycles(c, k, 1, n, &P1, err);
        int n_c = c->quick ? (int)(sizeof quick_c / sizeof quick_c[0]) : cmax;
        double prev_fu = 1;
        int prev_c = 0;
        for (int ci = 0; ci < n_c; ci++) {
            int cw = c->quick ? quick_c[ci] : ci + 1;
            if (cw > cmax)
                break;
            double cyc;
            if ((st = fu_cycles(c, k, cw, n, &cyc, err)) != GM_OK) {
                gb_waves_kern_free(k);
                return st;
            }
            double P = cyc / ops;
            if (cw == 1)
                P1 = P;
            double fu = P / P1;
            /* quick mode: the curve between measured c is filled linearly */
            for (int cc = prev_c + 1; cc <= cw; cc++)
                f->fu[cc - 1] = cc == cw ? fu : prev_fu + (fu - prev_fu) * (cc - prev_c) / (cw - prev_c);
            prev_c = cw;
            prev_fu = fu;
            f->n = (size_t)cw;
            gb_waves_row(c, "fu", op->name, cw, P, NAN, fu, NAN, cyc, c->quick ? "quick" : "", err);
            gb_waves_progress(c, WAVES_REPS, "functional units");
        }
        f->P1 = P1;
        int c_at = 0;
        double thr = gm_waves_throughput_bot(f, &c_at) * 32.0; /* Eq. 3.7, threads */
        if (!strcmp(op->name, "hfma2"))
            thr *= 2; /* two half results per thread instruction, as the guide counts */
        int s_u = gm_waves_infer_s_u(f);
        gb_waves_row(c, "fu_sum", op->name, P1, s_u, c_at, thr, op->guide > 0 ? op->guide : NAN,
                     NAN, op->sass, err);
        gb_waves_row(c, "kern", op->name, gb_waves_kern_regs(k), gb_waves_kern_static_smem(k), NAN,
                     NAN, NAN, NAN, "", err);
        c->fu_ok[i] = 1;
        gb_waves_kern_free(k);
    }
    return GM_OK;
}

/* T(G) of the FFMA kernel at b = 32 warps, blocks synchronised through
 * global memory (Sec. 3.2.2): max over blocks of the timed pass's cycles;
 * NaN when the semaphore timed out (not co-resident). */
static gm_status nmp_time(gb_waves_ctx *c, gb_waves_kern *k, unsigned G, unsigned n, double *T,
                          gm_error *err)
{
    static uint64_t t[8192];
    double v[WAVES_REPS];
    if (G > 8192)
        return gm_fail(err, GM_ERR_RANGE, "G = %u beyond the n_mp search", G);
    for (int r = 0; r < WAVES_REPS; r++) {
        uint32_t flag[2] = {0, 0};
        gm_status st = gb_waves_reset_sync(c, err);
        if (st == GM_OK)
            st = launch(c, k, G, 1024, n, c->sync, NULL, err);
        if (st == GM_OK)
            st = gb_waves_jit_read(c->j, t, c->out, 8 * (size_t)G, err);
        if (st == GM_OK)
            st = gb_waves_jit_read(c->j, flag, c->sync, 8, err);
        if (st != GM_OK)
            return st;
        double mx = 0;
        for (unsigned i = 0; i < G; i++)
            if ((double)t[i] > mx)
                mx = (double)t[i];
        v[r] = flag[1] ? NAN : mx;
    }
    *T = gm_median(v, WAVES_REPS);
    gb_waves_row(c, "nmp", "ffma", G, 32, NAN, *T, NAN, NAN, "", err);
    gb_waves_progress(c, WAVES_REPS, "num mp");
    return GM_OK;
}

/* Eq. 3.8: with b = c_2x (fu(2b) = 2 fu(b): FFMA at 32 warps), the time
 * doubles where G goes from n_mp to n_mp + 1. */
gm_status gb_waves_test_nmp(gb_waves_ctx *c, gm_error *err)
{
    gb_waves_kern *k = NULL;
    gm_status st;
    const gb_waves_fu_op *op = gb_waves_fu_op_find("ffma");
    if (gb_waves_ptx_fu(c->ptx, GB_WAVES_PTX_MAX, op, c->cc) < 0)
        return gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    if ((st = gb_waves_load(c, "gd_fu_ffma", &k, err)) != GM_OK)
        return st;
    unsigned n = waves_fu_iters(op);
    double T1, T;
    long lo = 1, hi = 0;
    if ((st = nmp_time(c, k, 1, n, &T1, err)) != GM_OK)
        goto done;
    for (long G = 2; G <= 4096; G *= 2) { /* doubling until the time doubles */
        if ((st = nmp_time(c, k, (unsigned)G, n, &T, err)) != GM_OK)
            goto done;
        if (!(T < GM_WAVES_NMP_RATIO * T1)) {
            hi = G;
            break;
        }
        lo = G;
    }
    if (hi == 0) {
        st = gm_fail(err, GM_ERR_RANGE, "the time never doubled up to 4096 blocks (Eq. 3.8)");
        goto done;
    }
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if ((st = nmp_time(c, k, (unsigned)mid, n, &T, err)) != GM_OK)
            goto done;
        if (T < GM_WAVES_NMP_RATIO * T1)
            lo = mid;
        else
            hi = mid;
    }
    /* the neighbourhood for the figure */
    for (long G = lo - 2; G <= lo + 3; G++)
        if (G > 1 && G != lo && G != hi && (st = nmp_time(c, k, (unsigned)G, n, &T, err)) != GM_OK)
            goto done;
    c->n_mp = (int)lo;
    gb_waves_row(c, "param", "n_mp", NAN, NAN, NAN, lo, c->dev.sm_count, NAN,
                 "Eq. 3.8: last G before T(G) >= 1.25 T(1) (FFMA; 32 warps)", err);
done:
    gb_waves_kern_free(k);
    return st;
}

/* Sec. 3.2.2 / Fig. 4.3: every warp of one full block logs the clock at
 * each of `steps` issues; classified per scheduler (hardware warp id mod 4). */
gm_status gb_waves_test_wsched(gb_waves_ctx *c, gm_error *err)
{
    enum { STEPS = 32 };
    gb_waves_kern *k = NULL;
    gm_status st;
    int warps = (c->L_TB > 0 ? c->L_TB : 1024) / 32;
    if (warps > 32)
        warps = 32;
    if (gb_waves_ptx_wsched(c->ptx, GB_WAVES_PTX_MAX, c->cc, STEPS) < 0)
        return gm_fail(err, GM_ERR_NOMEM, "PTX too long");
    if ((st = gb_waves_load(c, "gd_wsched", &k, err)) != GM_OK)
        return st;
    static uint64_t buf[32 * (STEPS + 1)];
    for (int r = 0; r < 2 && st == GM_OK; r++) /* the second run is kept (warm) */
        st = launch(c, k, 1, 32u * (unsigned)warps, 1, 0, NULL, err);
    if (st == GM_OK)
        st = gb_waves_jit_read(c->j, buf, c->out, sizeof buf, err);
    gb_waves_kern_free(k);
    if (st != GM_OK)
        return st;
    uint32_t t0 = (uint32_t)buf[1];
    for (int w = 0; w < warps; w++)
        if ((uint32_t)buf[w * (STEPS + 1) + 1] - t0 > 0x80000000u)
            t0 = (uint32_t)buf[w * (STEPS + 1) + 1];
    gm_waves_issue log[4][32 * STEPS];
    size_t nlog[4] = {0, 0, 0, 0};
    for (int w = 0; w < warps; w++) {
        int hw = (int)buf[w * (STEPS + 1)];
        for (int s = 0; s < STEPS; s++) {
            double clk = (double)(uint32_t)((uint32_t)buf[w * (STEPS + 1) + 1 + s] - t0);
            gb_waves_row(c, "wsched", "", w, s, hw, clk, NAN, NAN, "", err);
            gm_waves_issue *e = &log[hw % 4][nlog[hw % 4]++];
            e->warp = w;
            e->clock = clk;
        }
    }
    for (int q = 0; q < 4; q++) {
        gm_waves_policy_stats ps;
        char name[16];
        snprintf(name, sizeof name, "smsp%d", q);
        if (nlog[q] < 2 || gm_waves_classify_policy(log[q], nlog[q], STEPS, &ps, NULL) != GM_OK)
            continue;
        gb_waves_row(c, "policy", name, ps.cyclic_frac, ps.oldest_frac, (double)ps.events,
                     ps.mean_run, NAN, ps.cyclic_down_frac, gm_waves_policy_name(ps.policy), err);
    }
    gb_waves_progress(c, 10, "warp scheduling");
    return GM_OK;
}
