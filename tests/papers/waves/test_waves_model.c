/* GPUDIAG model (src/papers/waves/waves_model.c, paper 003): every equation pinned on
 * values computed by hand in the comments, and the parameter derivations
 * (Eq. 3.9-3.13) checked on synthetic N_slot data made by the model itself
 * from known parameters (ground truth by construction). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/waves/waves_model.h"

static void near_(double got, double want, int line)
{
    if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want)))) {
        print_error("line %d: got %.17g, want %.17g\n", line, got, want);
        fail();
    }
}
#define NEAR(got, want) near_((double)(got), (double)(want), __LINE__)

/* The H100's parameters as the suite measured them (docs/diag.md); the
 * tests only need a realistic set. */
static gm_waves_params h100(gm_waves_form form)
{
    gm_waves_params p = {.w = 32, .n_mp = 132, .N1 = 32, .N2 = 64, .S = 233472, .s_min = 128,
                         .s_res = 1024, .R = 65536, .r_min = 256, .r_parts = 4, .form = form};
    return p;
}

static void test_rounding(void **state)
{
    (void)state;
    assert_int_equal(gm_waves_round_up(100, 128), 128);
    assert_int_equal(gm_waves_round_up(256, 128), 256);
    assert_int_equal(gm_waves_round_up(0, 128), 0);
    assert_int_equal(gm_waves_round_down(300, 128), 256);
    assert_int_equal(gm_waves_round_up(7, 0), 7);
}

/* Eq. 3.1 */
static void test_limit_check(void **state)
{
    (void)state;
    gm_waves_limits L = {1024, 1024.0 * 2147483647.0, 232448, 255, 65536};
    /* b = 32, 64 regs: a warp holds 2048 (a multiple of 256): 32 * 2048 = 65536 fits */
    assert_int_equal(gm_waves_limit_check(&L, 32, 1024, 1, 0, 128, 64, 256), 0);
    /* 65 regs: 2080 -> 2304 per warp, 32 * 2304 = 73728 > 65536 */
    assert_int_equal(gm_waves_limit_check(&L, 32, 1024, 1, 0, 128, 65, 256),
                     GM_WAVES_BAD_REGS_PER_BLOCK);
    assert_int_equal(gm_waves_limit_check(&L, 32, 1025, 1, 0, 128, 32, 256),
                     GM_WAVES_BAD_THREADS_PER_BLOCK);
    /* 232449 -> 232576 > 232448 */
    assert_int_equal(gm_waves_limit_check(&L, 32, 32, 1, 232449, 128, 32, 256),
                     GM_WAVES_BAD_SMEM_PER_BLOCK);
    assert_int_equal(gm_waves_limit_check(&L, 32, 32, 1, 232448, 128, 32, 256), 0);
    assert_int_equal(gm_waves_limit_check(&L, 32, 32, 1, 0, 128, 256, 256),
                     GM_WAVES_BAD_REGS_PER_THREAD);
    /* 1024 threads * 2^31 blocks > L(T/G) */
    assert_int_equal(gm_waves_limit_check(&L, 32, 1024, 2147483648.0, 0, 128, 32, 256),
                     GM_WAVES_BAD_THREADS_PER_GRID);
}

/* Eq. 3.3 in both forms */
static void test_nslot(void **state)
{
    (void)state;
    gm_waves_params pp = h100(GM_WAVES_FORM_PAPER), ph = h100(GM_WAVES_FORM_HOPPER);
    unsigned lim;
    char buf[64];
    /* b = 1, no smem, 32 regs: min(32, 64, inf, 65536 / 1024 = 64) = 32 by N1 */
    assert_int_equal(gm_waves_nslot(&pp, 1, 0, 32, &lim), 32);
    assert_int_equal(lim, GM_WAVES_LIM_BLOCKS);
    /* b = 4, 32 regs: min(32, 16, inf, 65536 / 4096 = 16) = 16, warps and registers */
    assert_int_equal(gm_waves_nslot(&pp, 4, 0, 32, &lim), 16);
    assert_int_equal(lim, GM_WAVES_LIM_WARPS | GM_WAVES_LIM_REGS);
    assert_string_equal(gm_waves_limiter_text(lim, buf, sizeof buf), "warps+registers");
    /* s = 100000 -> 100096, 233472 / 100096 = 2.33 -> 2 (paper);
     * + 1024 reserved -> 101120, 2.31 -> 2 (hopper) */
    assert_int_equal(gm_waves_nslot(&pp, 1, 100000, 32, &lim), 2);
    assert_int_equal(lim, GM_WAVES_LIM_SMEM);
    assert_int_equal(gm_waves_nslot(&ph, 1, 100000, 32, NULL), 2);
    /* s = 116000: paper 116096 -> 2.011 -> 2; hopper 117024 -> 117120 -> 1.99 -> 1 */
    assert_int_equal(gm_waves_nslot(&pp, 1, 116000, 32, NULL), 2);
    assert_int_equal(gm_waves_nslot(&ph, 1, 116000, 32, NULL), 1);
    /* b = 8, 72 regs: a warp 2304; 65536 / (2304 * 8) = 3.56 -> 3 (paper);
     * per partition 16384 / 2304 = 7 warps, 28 / 8 = 3 (hopper) */
    assert_int_equal(gm_waves_nslot(&pp, 8, 0, 72, &lim), 3);
    assert_int_equal(lim, GM_WAVES_LIM_REGS);
    assert_int_equal(gm_waves_nslot(&ph, 8, 0, 72, NULL), 3);
    /* b = 3, 40 regs: a warp 1280; paper 65536 / 3840 = 17.07 -> 17 (warps 21);
     * hopper 16384 / 1280 = 12 per partition, 48 / 3 = 16 */
    assert_int_equal(gm_waves_nslot(&pp, 3, 0, 40, NULL), 17);
    assert_int_equal(gm_waves_nslot(&ph, 3, 0, 40, NULL), 16);
    /* a block that does not fit: 255 regs * 32 = 8160 -> 8192 per warp, b = 32:
     * 262144 > 65536 -> 0 */
    assert_int_equal(gm_waves_nslot(&pp, 32, 0, 255, NULL), 0);
    assert_int_equal(gm_waves_nslot(&pp, 0, 0, 32, NULL), 0);
    gm_waves_form f;
    assert_int_equal(gm_waves_form_parse("hopper", &f), GM_OK);
    assert_int_equal(f, GM_WAVES_FORM_HOPPER);
    assert_int_equal(gm_waves_form_parse("bogus", &f), GM_ERR_INVALID_ARG);
}

/* Eq. 3.3 read backwards (hopper form, H100 parameters): three launches,
 * each held down by a different term. */
static void test_relief(void **state)
{
    (void)state;
    gm_waves_params ph = h100(GM_WAVES_FORM_HOPPER);
    gm_waves_relief o;
    /* registers: b = 8, 72 regs: a warp 2304, 16384 / 2304 = 7 per partition,
     * 28 / 8 = 3 blocks (24 warps).  Lifted: min(N1 32, 64 / 8, 233472 / 1024)
     * = 8.  8 blocks need 16 warps per partition, 16384 / 16 = 1024 per warp,
     * r <= 32; and 233472 / 8 = 29184 >= ceil(s + 1024, 128), s <= 28160. */
    assert_int_equal(gm_waves_relief_of(&ph, 8, 0, 72, &o, NULL), GM_OK);
    assert_int_equal(o.nslot, 3);
    assert_int_equal(o.limiter, GM_WAVES_LIM_REGS);
    assert_int_equal(o.nslot_free, 8);
    assert_int_equal(o.regs_max, 32);
    assert_int_equal(o.smem_max, 28160);
    /* shared memory: b = 4, 32 regs, s = 48000: 49024 per block (a multiple
     * of 128), 233472 / 49024 = 4.76 -> 4 (registers 16, warps 16).  Lifted:
     * 16; 233472 / 16 = 14592 >= s + 1024, s <= 13568; registers: 16 blocks
     * of 4 warps = 16 per partition, r <= 32 as above. */
    assert_int_equal(gm_waves_relief_of(&ph, 4, 48000, 32, &o, NULL), GM_OK);
    assert_int_equal(o.nslot, 4);
    assert_int_equal(o.limiter, GM_WAVES_LIM_SMEM);
    assert_int_equal(o.nslot_free, 16);
    assert_int_equal(o.smem_max, 13568);
    assert_int_equal(o.regs_max, 32);
    /* warps: b = 32, 16 regs, s = 4096: 64 / 32 = 2 (registers: 16384 / 512
     * = 32 per partition, 128 / 32 = 4; shared 233472 / 5120 = 45).  Nothing
     * to gain: nslot_free = 2; registers for 2 blocks: 16 warps per
     * partition, r <= 32; shared 233472 / 2 = 116736, s <= 115712. */
    assert_int_equal(gm_waves_relief_of(&ph, 32, 4096, 16, &o, NULL), GM_OK);
    assert_int_equal(o.nslot, 2);
    assert_int_equal(o.limiter, GM_WAVES_LIM_WARPS);
    assert_int_equal(o.nslot_free, 2);
    assert_int_equal(o.regs_max, 32);
    assert_int_equal(o.smem_max, 115712);
    /* paper form, b = 1, 255 regs: a warp 8160 -> 8192, 65536 / 8192 = 8
     * blocks; lifted: N1 = 32, 65536 / 32 = 2048 per warp, r <= 64 */
    gm_waves_params pp = h100(GM_WAVES_FORM_PAPER);
    assert_int_equal(gm_waves_relief_of(&pp, 1, 0, 255, &o, NULL), GM_OK);
    assert_int_equal(o.nslot, 8);
    assert_int_equal(o.nslot_free, 32);
    assert_int_equal(o.regs_max, 64);
    assert_int_equal(gm_waves_relief_of(&pp, 0, 0, 32, &o, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_waves_relief_of(&pp, 1, -1, 32, &o, NULL), GM_ERR_INVALID_ARG);
}

/* Fig. 3.2: t1 = 1, t2 = 3, m1 = 1, m2 = inf, the two units dependent, so
 * one warp's period is P_1 = t1 + t2 = 4.  Eq. 3.5: P(3) = max(4, 3) = 4
 * ("at c = 3 ... P does not increase"), P(5) = max(4, 5) = 5 ("at c = 5, P
 * increased to t1 c / m1"). */
static void test_fig32_example(void **state)
{
    (void)state;
    gm_waves_unit u[2] = {{1, 1, 1}, {3, INFINITY, 1}};
    NEAR(gm_waves_period(u, 2, 4, 1), 4);
    NEAR(gm_waves_period(u, 2, 4, 3), 4);
    NEAR(gm_waves_period(u, 2, 4, 4), 4);
    NEAR(gm_waves_period(u, 2, 4, 5), 5);
    /* Eq. 3.6 with s_u = 1: fu(c) = max(1, c / 4) */
    NEAR(gm_waves_fu_model(u, 2, 4, 3), 1);
    NEAR(gm_waves_fu_model(u, 2, 4, 5), 1.25);
    NEAR(gm_waves_fu_model(u, 2, 4, 8), 2);
    /* fu = P / P_1 (Sec. 3.1.3) */
    for (int c = 1; c <= 12; c++)
        NEAR(gm_waves_fu_model(u, 2, 4, c), gm_waves_period(u, 2, 4, c) / 4);
    /* Eq. 3.7 on that curve: max_c c / fu(c) = 4 (c >= 4), / P_1 = 1 = m1 s1 / t1 */
    gm_waves_fu_curve f = {.n = 12, .P1 = 4};
    for (int c = 1; c <= 12; c++)
        f.fu[c - 1] = gm_waves_fu_model(u, 2, 4, c);
    int at;
    NEAR(gm_waves_throughput_bot(&f, &at), 1.0);
    assert_int_equal(at, 4);
}

/* Eq. 3.6 with partitions: t = 1, m = 2, s = 4, P_1 = 2:
 * fu(c) = max(1, ceil(c / 4) / 4): 1 up to c = 16, 1.25 at 17..20, 1.5 at 21 */
static void test_fu_partitions(void **state)
{
    (void)state;
    gm_waves_unit u = {1, 2, 4};
    NEAR(gm_waves_fu_model(&u, 1, 2, 16), 1);
    NEAR(gm_waves_fu_model(&u, 1, 2, 17), 1.25);
    NEAR(gm_waves_fu_model(&u, 1, 2, 20), 1.25);
    NEAR(gm_waves_fu_model(&u, 1, 2, 21), 1.5);
    /* the staircase is recognised: s_u = 4 (Fig. 4.2b) */
    gm_waves_fu_curve f = {.n = 64, .P1 = 2};
    for (int c = 1; c <= 64; c++)
        f.fu[c - 1] = gm_waves_fu_model(&u, 1, 2, c);
    assert_int_equal(gm_waves_infer_s_u(&f), 4);
    /* a straight line c / 8 is s_u = 1 */
    gm_waves_fu_curve g = {.n = 32, .P1 = 1};
    for (int c = 1; c <= 32; c++)
        g.fu[c - 1] = c <= 8 ? 1.0 : c / 8.0;
    assert_int_equal(gm_waves_infer_s_u(&g), 1);
    /* a flat curve never saturates */
    gm_waves_fu_curve h = {.n = 8, .P1 = 1};
    for (int c = 1; c <= 8; c++)
        h.fu[c - 1] = 1;
    assert_int_equal(gm_waves_infer_s_u(&h), 0);
}

/* fu beyond the measured range (Eq. 3.6 with Eq. 3.7's throughput):
 * curve max(1, c / 4) up to c = 8: c / fu peaks at 4, fu(16) = 16 / 4 = 4 */
static void test_fu_extrapolation(void **state)
{
    (void)state;
    gm_waves_fu_curve f = {.n = 8, .P1 = 1};
    for (int c = 1; c <= 8; c++)
        f.fu[c - 1] = c <= 4 ? 1 : c / 4.0;
    NEAR(gm_waves_fu_at(&f, 0), 0);
    NEAR(gm_waves_fu_at(&f, 6), 1.5);
    NEAR(gm_waves_fu_at(&f, 16), 4);
}

/* Eq. 3.2 with fu(c) = max(1, c / 4):
 * g = 5, b = 2, N_slot = 3: 1 full wave fu(6) = 1.5, then fu(2 * 2) = 1: 2.5
 * g = 6: 2 fu(6) = 3;  g = 1, b = 1: fu(1) = 1;  g = 3, b = 2: fu(6) + fu(0) */
static void test_time(void **state)
{
    (void)state;
    gm_waves_fu_curve f = {.n = 32, .P1 = 1};
    for (int c = 1; c <= 32; c++)
        f.fu[c - 1] = c <= 4 ? 1 : c / 4.0;
    NEAR(gm_waves_time(&f, 5, 2, 3), 2.5);
    NEAR(gm_waves_time(&f, 6, 2, 3), 3);
    NEAR(gm_waves_time(&f, 1, 1, 3), 1);
    NEAR(gm_waves_time(&f, 3, 2, 3), 1.5);
    assert_true(isnan(gm_waves_time(&f, 3, 2, 0)));
    /* g = ceil(G / n_mp): 132 -> 1, 133 -> 2 */
    assert_int_equal(gm_waves_blocks_per_mp(132, 132), 1);
    assert_int_equal(gm_waves_blocks_per_mp(133, 132), 2);
    double tail;
    NEAR(gm_waves_waves(5, 3, &tail), 5.0 / 3);
    NEAR(tail, 2.0 / 3);
    NEAR(gm_waves_waves(6, 3, &tail), 2);
    NEAR(tail, 1);
}

/* Eq. 3.8: the time doubles at G = 4, so n_mp = 3 */
static void test_nmp(void **state)
{
    (void)state;
    double T[] = {10, 10.1, 10, 19.9, 20, 20};
    assert_int_equal(gm_waves_nmp_from_series(T, 6, 1.5), 3);
    double U[] = {10, 10, 10};
    assert_int_equal(gm_waves_nmp_from_series(U, 3, 1.5), 0);
}

/* Eq. 3.12 */
static void test_derive_wsb(void **state)
{
    (void)state;
    gm_waves_point p[] = {{1, 0, 32, 0, 32, 0}, {2, 0, 32, 0, 32, 0}, {3, 0, 32, 0, 21, 0},
                          {4, 0, 32, 0, 16, 0}, {32, 0, 32, 0, 2, 0}};
    int N1, N2;
    assert_int_equal(gm_waves_derive_wsb(p, 5, &N1, &N2, NULL), GM_OK);
    assert_int_equal(N1, 32);
    assert_int_equal(N2, 64); /* max(32, 64, 63, 64, 64) */
    assert_int_equal(gm_waves_derive_wsb(p + 1, 4, &N1, &N2, NULL), GM_ERR_MISSING);
}

/* N_slot from a co-resident total: 4224 / 132 = 32; 4225 is not divisible
 * (the V520 case of Sec. 4.3.2) */
static void test_point_total(void **state)
{
    (void)state;
    gm_waves_point a = {.b = 1, .total = 4224}, b = {.b = 1, .total = 4225};
    gm_waves_point_from_total(&a, 132);
    gm_waves_point_from_total(&b, 132);
    assert_int_equal(a.nslot, 32);
    assert_false(a.not_divisible);
    assert_int_equal(b.nslot, 32);
    assert_true(b.not_divisible);
}

static const long cands[] = {8, 16, 32, 64, 128, 256, 512, 1024};

/* Synthetic shared-memory sweep made by the HOPPER form from known
 * parameters (S = 233472, s_min = 128, 1 KiB reserved).  Deriving with the
 * right reservation gives back S and s_min with no disagreement; the
 * paper's form (no reservation) cannot explain every point. */
static void test_derive_shm(void **state)
{
    (void)state;
    gm_waves_params p = h100(GM_WAVES_FORM_HOPPER);
    gm_waves_point pts[160];
    size_t n = 0;
    for (int k = 1; k <= 32; k++) {
        long edge = p.S / k - p.s_res; /* the largest s that still fits k blocks */
        /* the edge, and points inside an allocation unit, where rounding
         * to s_min decides (S / k is not always a multiple of 128) */
        long ss[4] = {edge, edge - 64, edge - 200, edge + 1};
        for (int j = 0; j < 4; j++) {
            if (ss[j] < 1 || ss[j] > 232448)
                continue;
            gm_waves_point pt = {.b = 1, .s = ss[j], .r = 32};
            pt.nslot = gm_waves_nslot(&p, 1, ss[j], 32, NULL);
            pt.total = (long)pt.nslot * p.n_mp;
            pts[n++] = pt;
        }
    }
    long S, s_min;
    int mis;
    assert_int_equal(gm_waves_derive_shm(pts, n, 32, 1024, cands, 8, &S, &s_min, &mis, NULL),
                     GM_OK);
    assert_int_equal(S, 233472);
    assert_int_equal(s_min, 128);
    assert_int_equal(mis, 0);
    assert_int_equal(gm_waves_derive_shm(pts, n, 32, 0, cands, 8, &S, &s_min, &mis, NULL), GM_OK);
    assert_true(mis > 0);
}

/* Synthetic register sweep from the HOPPER form (R = 65536, r_min = 256,
 * 4 partitions): four partitions give it back exactly; one (the paper's
 * form) disagrees at points such as b = 3, r = 40 (17 vs 16). */
static void test_derive_rf(void **state)
{
    (void)state;
    gm_waves_params p = h100(GM_WAVES_FORM_HOPPER);
    static const int bs[] = {1, 2, 3, 4, 6, 8, 12, 16, 32};
    static const long rs[] = {24, 32, 33, 40, 41, 48, 57, 64, 65, 72, 97, 128, 129, 168, 200, 255};
    gm_waves_point pts[160];
    size_t n = 0;
    for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) {
        for (size_t j = 0; j < sizeof rs / sizeof rs[0]; j++) {
            int ns = gm_waves_nslot(&p, bs[i], 0, rs[j], NULL);
            if (ns == 0)
                continue;
            gm_waves_point pt = {.b = bs[i], .s = 0, .r = rs[j], .nslot = ns};
            pts[n++] = pt;
        }
    }
    long R, r_min;
    int mis;
    assert_int_equal(gm_waves_derive_rf(pts, n, 32, 32, 64, 4, cands, 8, &R, &r_min, &mis, NULL),
                     GM_OK);
    assert_int_equal(R, 65536);
    assert_int_equal(r_min, 256);
    assert_int_equal(mis, 0);
    assert_int_equal(gm_waves_derive_rf(pts, n, 32, 32, 64, 1, cands, 8, &R, &r_min, &mis, NULL),
                     GM_OK);
    assert_true(mis > 0);
}

/* Warp-scheduling policy (Sec. 3.2.2, Fig. 4.3) on made-up issue logs */
static void test_policy(void **state)
{
    (void)state;
    gm_waves_issue log[64];
    gm_waves_policy_stats st;
    /* round robin over 8 warps, 4 issues each: 0..7, 0..7, ... */
    for (int i = 0; i < 32; i++)
        log[i] = (gm_waves_issue){i % 8, i};
    assert_int_equal(gm_waves_classify_policy(log, 32, 4, &st, NULL), GM_OK);
    assert_int_equal(st.policy, GM_WAVES_POLICY_RR);
    NEAR(st.mean_run, 1);
    NEAR(st.cyclic_frac, 1);
    /* round robin walking down, as the H100 issues: 7, 6, .., 0, 7, .. */
    for (int i = 0; i < 32; i++)
        log[i] = (gm_waves_issue){7 - i % 8, i};
    assert_int_equal(gm_waves_classify_policy(log, 32, 4, &st, NULL), GM_OK);
    assert_int_equal(st.policy, GM_WAVES_POLICY_RR);
    NEAR(st.cyclic_down_frac, 1);
    /* upwards only the last switch, 1 -> 0, fits (0 is the only warp left) */
    NEAR(st.cyclic_frac, 1.0 / 31);
    /* greedy: each warp's 4 issues in a row: runs of 4 */
    for (int i = 0; i < 32; i++)
        log[i] = (gm_waves_issue){i / 4, i};
    assert_int_equal(gm_waves_classify_policy(log, 32, 4, &st, NULL), GM_OK);
    assert_int_equal(st.policy, GM_WAVES_POLICY_GTO);
    NEAR(st.mean_run, 4);
    /* oldest first with a stall after every issue: 0 1 0 1 2 3 2 3 (2 issues
     * each): every switch goes to the oldest other warp not done (7 of 7);
     * 1 -> 0 is not the cyclic successor (2), so cyclic = 6/7 */
    int of[] = {0, 1, 0, 1, 2, 3, 2, 3};
    for (int i = 0; i < 8; i++)
        log[i] = (gm_waves_issue){of[i], 100 - 8 + i};
    assert_int_equal(gm_waves_classify_policy(log, 8, 2, &st, NULL), GM_OK);
    NEAR(st.oldest_frac, 1);
    NEAR(st.cyclic_frac, 6.0 / 7);
    assert_int_equal(st.policy, GM_WAVES_POLICY_OF);
    /* input order does not matter: the log is sorted by clock */
    gm_waves_issue rev[8];
    for (int i = 0; i < 8; i++)
        rev[i] = log[7 - i];
    assert_int_equal(gm_waves_classify_policy(rev, 8, 2, &st, NULL), GM_OK);
    assert_int_equal(st.policy, GM_WAVES_POLICY_OF);
    assert_int_equal(gm_waves_classify_policy(log, 1, 2, &st, NULL), GM_ERR_INVALID_ARG);
}

/* Pearson r and median error (Sec. 4.3.3) */
static void test_accuracy(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4}, y[] = {2, 4, 6, 8}, z[] = {4, 3, 2, 1};
    NEAR(gm_waves_pearson(x, y, 4), 1);
    NEAR(gm_waves_pearson(x, z, 4), -1);
    /* errors |1.1/1 - 1| = 0.1, |1.8/2 - 1| = 0.1, |3/3 - 1| = 0: median 0.1 */
    double pred[] = {1.1, 1.8, 3}, meas[] = {1, 2, 3};
    NEAR(gm_waves_median_abs_err(pred, meas, 3), 0.1);
    double c[] = {1, 1, 1};
    assert_true(isnan(gm_waves_pearson(c, x, 3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding),       cmocka_unit_test(test_limit_check),
        cmocka_unit_test(test_nslot),          cmocka_unit_test(test_fig32_example),
        cmocka_unit_test(test_fu_partitions),  cmocka_unit_test(test_fu_extrapolation),
        cmocka_unit_test(test_time),           cmocka_unit_test(test_nmp),
        cmocka_unit_test(test_derive_wsb),     cmocka_unit_test(test_point_total),
        cmocka_unit_test(test_derive_shm),     cmocka_unit_test(test_derive_rf),
        cmocka_unit_test(test_policy),         cmocka_unit_test(test_accuracy),
        cmocka_unit_test(test_relief),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
