/* Random-refill block scheduling (src/papers/waves/waves_refill.c): every value
 * below is computed by hand in the comment beside it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "papers/waves/waves_refill.h"

static void near_(double got, double want, int line)
{
    if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want)))) {
        print_error("line %d: got %.17g, want %.17g\n", line, got, want);
        fail();
    }
}
#define NEAR(got, want) near_((double)(got), (double)(want), __LINE__)

/* 2 of 4 slots drawn, an SM owns 2: P(0) = 1/6, P(1) = 4/6, P(2) = 1/6, so
 * P(X <= 1) = 5/6; the busiest of n SMs stays at 1 while (5/6)^n >= 1/2:
 * n = 3 gives 0.579, n = 4 gives 0.482. */
static void busiest_small(void **state)
{
    (void)state;
    assert_int_equal(gm_waves_refill_max(4, 2, 2, 1), 1);
    assert_int_equal(gm_waves_refill_max(4, 2, 2, 3), 1);
    assert_int_equal(gm_waves_refill_max(4, 2, 2, 4), 2);
    /* 4 of 8 slots, K = 2: P(0) = C(6,4)/C(8,4) = 15/70, P(1) = 2 C(6,3)/70 =
     * 40/70: P(X <= 1) = 55/70, ^4 = 0.381 < 1/2: the busiest of 4 gets 2 */
    assert_int_equal(gm_waves_refill_max(8, 2, 4, 4), 2);
    /* 2 of 8: P(0) = 15/28, P(X <= 1) = 27/28, ^4 = 0.865; (15/28)^4 = 0.082 */
    assert_int_equal(gm_waves_refill_max(8, 2, 2, 4), 1);
    /* every slot drawn: every SM gets all K */
    assert_int_equal(gm_waves_refill_max(8, 2, 8, 4), 2);
    assert_int_equal(gm_waves_refill_max(8, 2, 0, 4), 0);
    assert_int_equal(gm_waves_refill_max(8, 9, 2, 4), -1);
    assert_int_equal(gm_waves_refill_max(8, 2, 9, 4), -1);
    assert_int_equal(gm_waves_refill_max(8, 2, 2, 0), -1);
}

/* 4 SMs of 2 slots, G = 12: one full wave of 8, R = 4 tail blocks, even
 * share 1, random refill 2 (above). */
static void tail_count(void **state)
{
    (void)state;
    long full = -1;
    assert_int_equal(gm_waves_refill_tail(12, 2, 4, 0, &full), 1);
    assert_int_equal(full, 1);
    assert_int_equal(gm_waves_refill_tail(12, 2, 4, 1, NULL), 2);
    assert_int_equal(gm_waves_refill_tail(12, 2, 4, 0.5, NULL), 2); /* ceil(1.5) */
    assert_int_equal(gm_waves_refill_tail(12, 2, 4, 7, NULL), 2);   /* m clamped to 1 */
    /* whole waves, less than one wave: Eq. 3.2's share, nothing refilled */
    assert_int_equal(gm_waves_refill_tail(8, 2, 4, 1, &full), 0);
    assert_int_equal(full, 1);
    assert_int_equal(gm_waves_refill_tail(16, 2, 4, 1, &full), 0);
    assert_int_equal(full, 2);
    assert_int_equal(gm_waves_refill_tail(5, 2, 4, 1, &full), 0);
    assert_int_equal(full, 0);
    /* G = 10: R = 2, even 1, random 1 (P(X <= 1)^4 = 0.865) */
    assert_int_equal(gm_waves_refill_tail(10, 2, 4, 1, NULL), 1);
}

/* fu(c) = c (one unit, throughput-bound): 4 SMs, N_slot 2, b = 1. */
static void time_refill(void **state)
{
    (void)state;
    gm_waves_fu_curve f = {.n = 4, .fu = {1, 2, 3, 4}, .P1 = 1};
    /* G = 12, m = 0: fu(2) + fu(1) = 3, Eq. 3.2 with g = 3 */
    NEAR(gm_waves_time_refill(&f, 12, 1, 2, 4, 0), 3);
    NEAR(gm_waves_time_refill(&f, 12, 1, 2, 4, 0), gm_waves_time(&f, 3, 1, 2));
    /* m = 1: the busiest SM runs 2 tail blocks: fu(2) + fu(2) = 4 */
    NEAR(gm_waves_time_refill(&f, 12, 1, 2, 4, 1), 4);
    /* b = 2, m = 1: fu(4) + fu(4) = 8 */
    NEAR(gm_waves_time_refill(&f, 12, 2, 2, 4, 1), 8);
    /* below one wave (G = 5: g = 2): Eq. 3.2, fu(2) = 2 */
    NEAR(gm_waves_time_refill(&f, 5, 1, 2, 4, 1), 2);
    /* two whole waves: 2 fu(2) = 4 */
    NEAR(gm_waves_time_refill(&f, 16, 1, 2, 4, 1), 4);
    assert_true(isnan(gm_waves_time_refill(&f, 12, 1, 0, 4, 1)));
    assert_true(isnan(gm_waves_time_refill(&f, 12, 0, 2, 4, 1)));
}

static void mixing(void **state)
{
    (void)state;
    /* G = 12, N 2, 4 SMs: even 1, random 2: observed 2 -> 1, 1 -> 0 */
    NEAR(gm_waves_refill_mix(2, 12, 2, 4), 1);
    NEAR(gm_waves_refill_mix(1, 12, 2, 4), 0);
    NEAR(gm_waves_refill_mix(0, 12, 2, 4), 0);  /* clamped */
    NEAR(gm_waves_refill_mix(3, 12, 2, 4), 1);  /* clamped */
    NEAR(gm_waves_refill_mix(2, 10, 2, 4), 0);  /* random predicts the even share */
    assert_true(isnan(gm_waves_refill_mix(2, 8, 2, 4)));
    /* H100 LDS at 1.5 waves, b = 1 (N 32, 132 SMs): even 16, random 23,
     * 20 observed: 4/7 */
    assert_int_equal(gm_waves_refill_max(4224, 32, 2112, 132), 23);
    NEAR(gm_waves_refill_mix(20, 6336, 32, 132), 4.0 / 7.0);
    /* between b = 1 and 32, linear in log2 b: b = 4 is 2/5 of the way */
    NEAR(gm_waves_refill_mix_at(0.6, 0, 1), 0.6);
    NEAR(gm_waves_refill_mix_at(0.6, 0, 32), 0);
    NEAR(gm_waves_refill_mix_at(0.6, 0, 64), 0);
    NEAR(gm_waves_refill_mix_at(0.6, 0, 4), 0.36);
    NEAR(gm_waves_refill_mix_at(NAN, 0.5, 4), 0.5);
    NEAR(gm_waves_refill_mix_at(0.2, NAN, 8), 0.2);
    assert_true(isnan(gm_waves_refill_mix_at(NAN, NAN, 8)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(busiest_small), cmocka_unit_test(tail_count),
                                       cmocka_unit_test(time_refill), cmocka_unit_test(mixing)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
