/* The launch-shape what-ifs (src/papers/waves/waves_shape.h) on wave costs
 * made by hand: a latency-bound launch keeps its time when the grid shrinks,
 * a throughput-bound one scales down to its warps' own latency and no
 * further, and no shape is ever predicted below a single wave's time.  Every
 * expected value is worked out in the comments (n_mp = 132). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "papers/waves/waves_shape.h"

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* W(c) = c x (ns per warp in *ctx): a unit that takes its warps one by one */
static double per_warp(const void *ctx, double c, double sms)
{
    (void)sms;
    return c * *(const double *)ctx;
}

/* N_slot of a made-up SM: 32 blocks, 64 warps */
static int nslot(int b)
{
    return 64 / b < 32 ? 64 / b : 32;
}

/* Every shape of a sweep (1 to 8448 blocks, 1 to 32 warps each) at or above
 * the single wave's time, fixed + L. */
static void never_below_one_wave(const gm_waves_shape *s)
{
    for (long G = 1; G <= 8448; G *= 2)
        for (int b = 1; b <= 32; b *= 2) {
            double t = gm_waves_shape_time(s, G, b, nslot(b));
            if (!(t >= s->fixed + s->L - 1e-9))
                fail_msg("G = %ld, b = %d: %.3f ns below one wave (%.3f ns)", G, b, t,
                         s->fixed + s->L);
        }
}

/* A dependent chain on 132 blocks of one warp: the components explain 10 ns
 * of 100 us, so the launch is latency bound and one wave costs 100 us
 * whatever fills it: half the grid 100 us (not 50), twice the grid (2
 * warps per SM, still one wave) 100 us; 8448 blocks = 132 x 64 = two full
 * waves of 32 warps, each max(100 us, 320 ns): 200 us. */
static void latency_bound(void **state)
{
    (void)state;
    double ns_per_warp = 10;
    gm_waves_shape s = {.busy = per_warp, .ctx = &ns_per_warp, .n_mp = 132, .latency_ns = NAN};
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 100e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_LATENCY);
    near(s.L, 100e3);
    near(s.alpha, 1);
    near(gm_waves_shape_time(&s, 132, 1, 32), 100e3); /* the launch itself */
    near(gm_waves_shape_time(&s, 66, 1, 32), 100e3);
    near(gm_waves_shape_time(&s, 264, 1, 32), 100e3);
    near(gm_waves_shape_time(&s, 8448, 1, 32), 200e3);
    never_below_one_wave(&s);
    /* a fixed cost of 2 us stays once: L = 98 us, 2G of waves = 2 + 2 x 98 */
    s.fixed_ns = 2e3;
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 100e3, NULL), GM_OK);
    near(s.L, 98e3);
    near(gm_waves_shape_time(&s, 8448, 1, 32), 198e3);
    never_below_one_wave(&s);
    /* never more than half the measured time is taken as fixed */
    s.fixed_ns = 80e3;
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 100e3, NULL), GM_OK);
    near(s.fixed, 50e3);
    assert_string_equal(gm_waves_shape_from_name(s.from), "latency (measured)");
}

/* One full wave of 264 blocks of 32 warps (N_slot 2, 64 warps per SM) that
 * its unit keeps busy: W = 64 x 1 us = 64 us of 64 us measured; the warps'
 * own latency 10 us.  alpha = 1; half the grid, 32 warps per SM: 32 us;
 * one block of one warp: max(10, 1) = 10 us, the floor, not 1 us. */
static void throughput_bound(void **state)
{
    (void)state;
    double ns_per_warp = 1e3;
    gm_waves_shape s = {.busy = per_warp, .ctx = &ns_per_warp, .n_mp = 132, .latency_ns = 10e3};
    assert_int_equal(gm_waves_shape_fit(&s, 264, 32, 2, 64e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_COMPONENTS);
    near(s.alpha, 1);
    near(s.L, 10e3);
    near(gm_waves_shape_time(&s, 132, 32, 2), 32e3);
    near(gm_waves_shape_time(&s, 1, 1, 32), 10e3);
    never_below_one_wave(&s);
    /* measured 20% slower than the unit says: alpha 1.25, shapes scale */
    assert_int_equal(gm_waves_shape_fit(&s, 264, 32, 2, 80e3, NULL), GM_OK);
    near(s.alpha, 1.25);
    near(gm_waves_shape_time(&s, 528, 32, 2), 160e3);
    /* without the warp states there is no floor but the unit's own */
    s.latency_ns = NAN;
    assert_int_equal(gm_waves_shape_fit(&s, 264, 32, 2, 80e3, NULL), GM_OK);
    near(s.L, 0);
    near(gm_waves_shape_time(&s, 1, 1, 32), 1.25e3);
}

/* The paper's FFMA fu(c) = max(1, c / 4) with a latency-bound kernel of
 * 264 blocks of 4 warps (N_slot 16, g = 2: one wave of 8 warps per SM, fu =
 * 2) that took 16.3 us: scaled by fu alone, half the grid (4 warps, fu = 1)
 * would be 8.15 us.  With the warps' own latency, 16 us, alpha = 8.15 us and
 * half the grid is max(16, 8.15) = 16 us: not below one wave. */
static void ffma_fu_with_floor(void **state)
{
    (void)state;
    gm_waves_fu_curve fu = {.n = 32, .P1 = 1};
    for (int c = 1; c <= 32; c++)
        fu.fu[c - 1] = c <= 4 ? 1 : c / 4.0;
    gm_waves_shape s = {.fu = &fu, .n_mp = 132, .latency_ns = NAN};
    assert_int_equal(gm_waves_shape_fit(&s, 264, 4, 16, 16.3e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_FU);
    near(gm_waves_shape_time(&s, 132, 4, 16), 8.15e3); /* Eq. 3.2 alone */
    s.latency_ns = 16e3;
    assert_int_equal(gm_waves_shape_fit(&s, 264, 4, 16, 16.3e3, NULL), GM_OK);
    near(s.alpha, 8.15e3);
    near(gm_waves_shape_time(&s, 132, 4, 16), 16e3);
    never_below_one_wave(&s);
    /* warp states longer than the measured time: the time is all latency */
    s.latency_ns = 40e3;
    assert_int_equal(gm_waves_shape_fit(&s, 264, 4, 16, 16.3e3, NULL), GM_OK);
    near(s.L, 16.3e3);
    near(gm_waves_shape_time(&s, 264, 4, 16), 16.3e3);
    never_below_one_wave(&s);
}

/* A wave cost the components cannot give falls back to fu(c); with neither,
 * and with bad shapes, the fit fails. */
static double no_cost(const void *ctx, double c, double sms)
{
    (void)ctx, (void)c, (void)sms;
    return NAN;
}

static void fallbacks_and_bad_input(void **state)
{
    (void)state;
    gm_waves_fu_curve fu = {.n = 1, .P1 = 1, .fu = {1}};
    gm_waves_shape s = {.busy = no_cost, .fu = &fu, .n_mp = 132, .latency_ns = NAN};
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 1e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_FU);
    s.fu = NULL;
    gm_error err;
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 1e3, &err), GM_ERR_INVALID_ARG);
    s.fu = &fu;
    assert_int_equal(gm_waves_shape_fit(&s, 0, 1, 32, 1e3, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 0, 1e3, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_waves_shape_fit(&s, 132, 1, 32, 0, NULL), GM_ERR_INVALID_ARG);
    assert_true(isnan(gm_waves_shape_time(&s, 0, 1, 32)));
    gm_waves_shape unfitted = {.n_mp = 132};
    assert_true(isnan(gm_waves_shape_time(&unfitted, 132, 1, 32)));
}

/* gen(n, d): n equal blocks, each needing the share d of the unit at its
 * own pace, the oldest served first.  Six of a quarter each: four at their
 * own pace, then two: 2.  Three of 0.4: two at their own pace, the third at
 * the 0.2 left (half its pace) until 1, then alone: 1.5.  Five of 0.4: 0, 1
 * end at 1; 2 has done half then and ends at 1.5; 3 and 4 start at 1 at
 * full and half pace, 3 ends at 2, 4 (a quarter done at 1.5, then at full
 * pace with 3) at 2.25.  Continuous where 1/d crosses a whole number. */
static void generations(void **state)
{
    (void)state;
    near(gm_waves_shape_gen(6, 0.25), 2);
    near(gm_waves_shape_gen(4, 0.25), 1);
    near(gm_waves_shape_gen(3, 0.4), 1.5);
    near(gm_waves_shape_gen(5, 0.4), 2.25);
    near(gm_waves_shape_gen(2, 2), 4); /* each alone fills it twice over: in turn */
    near(gm_waves_shape_gen(1, 5), 1);
    near(gm_waves_shape_gen(0, 0.5), 1);
    near(gm_waves_shape_gen(3, NAN), 1);
    assert_true(fabs(gm_waves_shape_gen(24, 1 / 16.0 + 1e-12) - 2) < 1e-9);
    assert_true(fabs(gm_waves_shape_gen(24, 1 / 16.0 - 1e-12) - 2) < 1e-9);
    assert_true(fabs(gm_waves_shape_gen(24, 1 / 24.0 + 1e-12) - 1) < 1e-9);
    /* more blocks than it follows: shared evenly, n d */
    near(gm_waves_shape_gen(GM_WAVES_SHAPE_MAX_GEN + 1, 0.5), (GM_WAVES_SHAPE_MAX_GEN + 1) * 0.5);
}

/* A dependent chain whose warps take 40 us alone and whose per-SM unit
 * takes 2.5 us per warp at its best rate: K = 40 / (2.5 x 4) = 4 warps per
 * scheduler (16 per SM) at their own pace.  Launched as 12 one-warp blocks
 * per SM (G = 1584, N_slot 32) it took 40 us: latency bound, L = 40 us.
 * Twice the grid, 24 per SM: 6 on each scheduler, the oldest 4 at their own
 * pace, the other 2 after them: 80 us, not the 60 us of the unit's rate.
 * Four times: waves of 32 (8 per scheduler, 80 us) and 16 (40 us): 120 us.
 * The same 24 warps as one block (b = 24, N_slot 2): shared evenly inside
 * the block, max(40, 60) = 60 us; as three blocks of 8 (2 per scheduler
 * each, d = 1/2): 80 us; as two of 12 (3 each, d = 3/4): gen = 1 + 2/3,
 * 66.7 us.  Fitted from the 24-warp launch (80 us) instead: L = 40 us, and
 * half of it 40 us. */
static void oldest_first(void **state)
{
    (void)state;
    double ns_per_warp = 2.5e3;
    gm_waves_shape s = {.busy = per_warp, .ctx = &ns_per_warp, .n_mp = 132, .latency_ns = 40e3,
                        .fixed_share = 0.98};
    assert_int_equal(gm_waves_shape_fit(&s, 1584, 1, 32, 40e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_LATENCY);
    near(s.K, 4);
    near(s.L, 40e3);
    near(gm_waves_shape_time(&s, 3168, 1, 32), 80e3);
    near(gm_waves_shape_time(&s, 6336, 1, 32), 120e3);
    near(gm_waves_shape_time(&s, 132, 24, nslot(24)), 60e3);
    near(gm_waves_shape_time(&s, 396, 8, nslot(8)), 80e3);
    near(gm_waves_shape_time(&s, 264, 12, nslot(12)), 40e3 * (1 + 2 / 3.0));
    near(gm_waves_shape_time(&s, 2112, 1, 32), 40e3); /* 16 per SM: all at their own pace */
    never_below_one_wave(&s);
    assert_int_equal(gm_waves_shape_fit(&s, 3168, 1, 32, 80e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_LATENCY);
    near(s.L, 40e3);
    near(gm_waves_shape_time(&s, 1584, 1, 32), 40e3);
    near(gm_waves_shape_time(&s, 6336, 1, 32), 120e3);
    /* a latency mostly on scoreboards (the queue at a unit the launch kept
     * busy is in it): no K, the waves cost max(L, alpha W): 60 us */
    s.latency_ns = 40e3;
    s.fixed_share = 0.3;
    assert_int_equal(gm_waves_shape_fit(&s, 1584, 1, 32, 40e3, NULL), GM_OK);
    assert_true(isinf(s.K));
    near(gm_waves_shape_time(&s, 3168, 1, 32), 60e3);
    /* without the warp states no K either */
    s.latency_ns = s.fixed_share = NAN;
    assert_int_equal(gm_waves_shape_fit(&s, 1584, 1, 32, 40e3, NULL), GM_OK);
    assert_true(isinf(s.K));
}

/* The warps' lifetime as their latency (waves_shape.h).  A chain whose
 * warp states sum to 18.8 us (K = round(18.8 / (4 x 2.5)) = 2 warps per
 * scheduler) and whose warps lived 19.6 us: on 1056 one-warp blocks (8 per
 * SM, 2 on the busiest scheduler = K: their own pace) the lifetime is the
 * latency, K stays round(1.96) = 2, and W(8) = 20 us > 19.6 us leaves the
 * components to fit: alpha = 21 / 20; half the grid then costs the floor,
 * 19.6 us (18.8 us from the warp states alone).  Blocks of 8 warps put 2
 * of a block's warps on each scheduler (>= K: the block's time is the
 * unit's, not latency): the lifetime does not count there.  gen_mean: the
 * ends of gen()'s blocks, 1 1 2 at d = 1/2 (mean 4/3); one after another
 * at d = 1 (1 and 2: 3/2); all at once where n d <= 1. */
static void lifetime_as_latency(void **state)
{
    (void)state;
    near(gm_waves_shape_gen_mean(3, 0.5), 4 / 3.0);
    near(gm_waves_shape_gen_mean(2, 1), 1.5);
    near(gm_waves_shape_gen_mean(4, 0.25), 1);
    near(gm_waves_shape_gen_mean(1, 0.9), 1);
    double ns_per_warp = 2.5e3;
    gm_waves_shape s = {.busy = per_warp, .ctx = &ns_per_warp, .n_mp = 132, .latency_ns = 18.8e3,
                        .fixed_share = 0.98, .lifetime_ns = 19.6e3};
    assert_int_equal(gm_waves_shape_fit(&s, 1056, 1, 32, 21e3, NULL), GM_OK);
    assert_int_equal(s.from, GM_WAVES_SHAPE_COMPONENTS);
    near(s.K, 2);
    near(s.L, 19.6e3);
    near(s.alpha, 21 / 20.0);
    near(gm_waves_shape_time(&s, 528, 1, 32), 19.6e3);
    never_below_one_wave(&s);
    gm_waves_shape t = s;
    t.lifetime_ns = 0; /* unknown: the warp states' sum */
    assert_int_equal(gm_waves_shape_fit(&t, 1056, 1, 32, 21e3, NULL), GM_OK);
    near(t.L, 18.8e3);
    near(gm_waves_shape_time(&t, 528, 1, 32), 18.8e3);
    t = s;
    t.lifetime_ns = 40e3; /* blocks of 8: not their latency */
    assert_int_equal(gm_waves_shape_fit(&t, 132, 8, 8, 21e3, NULL), GM_OK);
    assert_int_equal(t.from, GM_WAVES_SHAPE_COMPONENTS);
    near(t.L, 18.8e3);
}

/* The same chain where the unit is GPU-wide (L2 or DRAM): its per-SM units
 * take 0.1 us per warp, so a scheduler keeps K = 100 warps at their own
 * pace, none waits for an older block, and 24 warps per SM cost the unit's
 * 60 us. */
static double per_warp_sm(const void *ctx, double c, double sms)
{
    (void)ctx, (void)sms;
    return c * 100;
}

static void gpu_wide_unit_shared_evenly(void **state)
{
    (void)state;
    double ns_per_warp = 2.5e3;
    gm_waves_shape s = {.busy = per_warp, .sm_busy = per_warp_sm, .ctx = &ns_per_warp,
                        .n_mp = 132, .latency_ns = 40e3, .fixed_share = 1};
    assert_int_equal(gm_waves_shape_fit(&s, 1584, 1, 32, 40e3, NULL), GM_OK);
    near(s.K, 100);
    near(gm_waves_shape_time(&s, 3168, 1, 32), 60e3);
}

/* Wave costs that count their calls (in *calls): c x ns per warp and a
 * term in sqrt(c), so that no cost is a multiple of another; the per-SM
 * part another such, so that the two differ. */
typedef struct counted {
    double ns_per_warp;
    int *calls;
} counted;

static double counted_busy(const void *ctx, double c, double sms)
{
    const counted *k = ctx;
    (*k->calls)++;
    return c * k->ns_per_warp + 1e3 * sqrt(c) + sms;
}

static double counted_sm_busy(const void *ctx, double c, double sms)
{
    const counted *k = ctx;
    (void)sms;
    (*k->calls)++;
    return 0.9 * c * k->ns_per_warp + 2e3 * sqrt(c);
}

/* The launch's memo of wave costs (gm_waves_busy_memo): the fit and the times
 * of seven shapes are the same bits with it as without, with fewer calls
 * of the cost; a memo left from another ctx is not used. */
static void busy_memo(void **state)
{
    (void)state;
    static const long G[] = {2 * 1584, 792, 792, 3168, 1584, 100, 7};
    static const int b[] = {1, 1, 2, 1, 1, 4, 32};
    double t_plain[sizeof G / sizeof G[0]], t_memo[sizeof G / sizeof G[0]];
    int plain_calls = 0, memo_calls = 0;
    counted plain = {2.5e3, &plain_calls}, memoed = {2.5e3, &memo_calls}, stale = {1, NULL};
    gm_waves_busy_memo memo = {.ctx = &stale, .n = 1};
    memo.e[0].sm = 0;
    memo.e[0].c = 32;
    memo.e[0].sms = 132;
    memo.e[0].ns = 1; /* wrong for this ctx: must not be taken */
    gm_waves_shape s = {.busy = counted_busy, .sm_busy = counted_sm_busy, .ctx = &plain,
                        .n_mp = 132, .latency_ns = 40e3, .fixed_share = 1, .fixed_ns = 3e3};
    gm_waves_shape m = s;
    m.ctx = &memoed;
    m.memo = &memo;
    assert_int_equal(gm_waves_shape_fit(&s, 1584, 1, 32, 400e3, NULL), GM_OK);
    assert_int_equal(gm_waves_shape_fit(&m, 1584, 1, 32, 400e3, NULL), GM_OK);
    assert_memory_equal(&s.L, &m.L, sizeof s.L);
    assert_memory_equal(&s.alpha, &m.alpha, sizeof s.alpha);
    assert_memory_equal(&s.K, &m.K, sizeof s.K);
    assert_int_equal(s.from, m.from);
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        t_plain[i] = gm_waves_shape_time(&s, G[i], b[i], nslot(b[i]));
        t_memo[i] = gm_waves_shape_time(&m, G[i], b[i], nslot(b[i]));
        assert_true(isfinite(t_plain[i]));
    }
    assert_memory_equal(t_plain, t_memo, sizeof t_plain);
    assert_ptr_equal(memo.ctx, &memoed);
    assert_true(memo.n > 0 && memo.n <= GM_WAVES_BUSY_MEMO);
    assert_true(memo_calls < plain_calls);
    assert_int_equal(memo_calls, memo.n); /* each distinct cost once */
    /* the same shapes again: every cost from the memo */
    int before = memo_calls;
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++)
        assert_memory_equal(&t_memo[i], &(double){gm_waves_shape_time(&m, G[i], b[i], nslot(b[i]))},
                            sizeof(double));
    assert_int_equal(memo_calls, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latency_bound),
        cmocka_unit_test(throughput_bound),
        cmocka_unit_test(ffma_fu_with_floor),
        cmocka_unit_test(fallbacks_and_bad_input),
        cmocka_unit_test(generations),
        cmocka_unit_test(oldest_first),
        cmocka_unit_test(gpu_wide_unit_shared_evenly),
        cmocka_unit_test(lifetime_as_latency),
        cmocka_unit_test(busy_memo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
