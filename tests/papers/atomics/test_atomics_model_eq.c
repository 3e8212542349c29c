/* Unit tests of the model's equations (paper 000, Sec. 3): Eq. 1 (T-hat at
 * integral points), Eq. 2 (multilinear interpolation) and Eq. 3 (S = T/n),
 * on the synthetic table of atomics_model_fixture.h.  Every expected number is
 * worked out by hand in a comment next to it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/atomics/atomics_model.h"
#include "atomics_model_fixture.h"

/* ---- Eq. 1 ------------------------------------------------------------- */

static void test_T_hat_integral_points(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_POPC);
    const gm_atomics_series *s = add_series(t);
    double T;
    unsigned flags = 99;
    /* T(2,3,1) = 100 + 40 + 90 + 30 + 30 = 290 */
    assert_int_equal(gm_atomics_T_hat(s, 2, 3, 1, &T, &flags), GM_OK);
    assert_exact(T, 290);
    assert_int_equal(flags, 0);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                assert_int_equal(gm_atomics_T_hat(s, n, e, c, &T, NULL), GM_OK);
                assert_exact(T, T_add(n, e, c));
            }
    gm_atomics_table_free(t);
}

static void test_T_hat_n_zero(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T = -1;
    /* Eq. 1: T-hat(0, e, c) = 0 */
    assert_int_equal(gm_atomics_T_hat(add_series(t), 0, 3, 0, &T, NULL), GM_OK);
    assert_exact(T, 0);
    assert_int_equal(gm_atomics_T_hat(add_series(t), -1, 3, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_hat(NULL, 1, 1, 0, &T, NULL), GM_ERR_INVALID_ARG);
    gm_atomics_table_free(t);
}

static void test_T_hat_clamps(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_POPC);
    const gm_atomics_series *s = add_series(t);
    double T;
    unsigned flags;
    /* n = 8 > 4 with c = 4 (half CAS): n -> 4, c -> 4 * 4/8 = 2:
     * T(4,1,2) = 100 + 80 + 10 + 60 + 20 = 270 */
    assert_int_equal(gm_atomics_T_hat(s, 8, 1, 4, &T, &flags), GM_OK);
    assert_exact(T, 270);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_N_HIGH);
    /* e = 0 -> 1: T(1,1,0) = 100 + 20 + 10 + 5 = 135 */
    assert_int_equal(gm_atomics_T_hat(s, 1, 0, 0, &T, &flags), GM_OK);
    assert_exact(T, 135);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_E_LOW);
    /* e = 9 -> 4: T(1,4,0) = 100 + 20 + 160 + 20 = 300 */
    assert_int_equal(gm_atomics_T_hat(s, 1, 9, 0, &T, &flags), GM_OK);
    assert_exact(T, 300);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_E_HIGH);
    /* c = -2 -> 0, c = 3 > n = 2 -> 2: T(2,1,2) = 100 + 40 + 10 + 60 + 10 = 220 */
    assert_int_equal(gm_atomics_T_hat(s, 2, 1, -2, &T, &flags), GM_OK);
    assert_exact(T, T_add(2, 1, 0));
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_LOW);
    assert_int_equal(gm_atomics_T_hat(s, 2, 1, 3, &T, &flags), GM_OK);
    assert_exact(T, 220);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_HIGH);
    /* a series without CAS only has c = 0: T_popc(3) = 80 */
    assert_int_equal(gm_atomics_T_hat(popc_series(t), 3, 2, 1, &T, &flags), GM_OK);
    assert_exact(T, 80);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_HIGH);
    gm_atomics_table_free(t);
}

static void test_T_hat_missing_cell(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_series_cell(&t->series[0], 3, 2, 1)->t_median = NAN;
    double T;
    assert_int_equal(gm_atomics_T_hat(&t->series[0], 3, 2, 1, &T, NULL), GM_ERR_MISSING);
    gm_atomics_table_free(t);
}

/* ---- Eq. 2 ------------------------------------------------------------- */

static void test_interp_integral_points_exact(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    const gm_atomics_series *s = add_series(t);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                double T;
                unsigned flags = 99;
                assert_int_equal(gm_atomics_T_interp(s, n, e, c, &T, &flags), GM_OK);
                assert_exact(T, T_add(n, e, c)); /* bit-exact, not close */
                assert_int_equal(flags, 0);
            }
    gm_atomics_table_free(t);
}

static void test_interp_along_e(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    /* T(2,2,0) = 100 + 40 + 40 + 20 = 200, T(2,3,0) = 100 + 40 + 90 + 30 = 260:
     * e = 2.5 -> 230 (the formula itself would give 227.5) */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2, 2.5, 0, &T, NULL), GM_OK);
    assert_near(T, 230, TOL);
    /* e = 2.25 -> 200 + 0.25 * 60 = 215 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2, 2.25, 0, &T, NULL), GM_OK);
    assert_near(T, 215, TOL);
    gm_atomics_table_free(t);
}

static void test_interp_along_n(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    /* T(1,1,0) = 135, T(2,1,0) = 100 + 40 + 10 + 10 = 160: n = 1.5 -> 147.5 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 1.5, 1, 0, &T, NULL), GM_OK);
    assert_near(T, 147.5, TOL);
    gm_atomics_table_free(t);
}

static void test_interp_along_c(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    /* T(3,2,1) = 100 + 60 + 40 + 30 + 30 = 260, T(3,2,2) = 290: c = 1.2 -> 266 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 3, 2, 1.2, &T, NULL), GM_OK);
    assert_near(T, 266, TOL);
    gm_atomics_table_free(t);
}

static void test_interp_trilinear(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T, S;
    /* (n, e, c) = (2.5, 1.5, 0.5):
     * layer 2: e=1: T(2,1,0)=160, T(2,1,1)=190 -> 175; e=2: 200, 230 -> 215; e=1.5 -> 195
     * layer 3: e=1: T(3,1,0)=100+60+10+15=185, 215 -> 200; e=2: 230, 260 -> 245; -> 222.5
     * n = 2.5 -> (195 + 222.5) / 2 = 208.75;  S = 208.75 / 2.5 = 83.5 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2.5, 1.5, 0.5, &T, NULL), GM_OK);
    assert_near(T, 208.75, TOL);
    assert_int_equal(gm_atomics_S(add_series(t), 2.5, 1.5, 0.5, &S, NULL), GM_OK);
    assert_near(S, 83.5, TOL);
    /* unequal weights, so that swapped weights would show: (2, 1.25, 0.75):
     * e=1: 160 + 0.75 * 30 = 182.5; e=2: 200 + 0.75 * 30 = 222.5; e=1.25: 192.5 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2, 1.25, 0.75, &T, NULL), GM_OK);
    assert_near(T, 192.5, TOL);
    /* (2.25, 1.75, 0.5): layer 2: 175 + 0.75 * 40 = 205; layer 3: 200 + 0.75 * 45
     * = 233.75; n = 2.25: 205 + 0.25 * 28.75 = 212.1875 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2.25, 1.75, 0.5, &T, NULL), GM_OK);
    assert_near(T, 212.1875, TOL);
    gm_atomics_table_free(t);
}

static void test_interp_c_domain_between_layers(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    unsigned flags = 99;
    /* (n, e, c) = (1.5, 1, 1.5): layer 1 has c only up to 1, so it uses
     * T(1,1,1) = 165; layer 2: T(2,1,1) = 190, T(2,1,2) = 220 -> c=1.5: 205.
     * n = 1.5 -> (165 + 205) / 2 = 185.  Domain edge, not a clamp. */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 1.5, 1, 1.5, &T, &flags), GM_OK);
    assert_near(T, 185, TOL);
    assert_int_equal(flags, 0);
    /* (3.25, 1, 3.1): layer 3 uses c = 3: T(3,1,3) = 185 + 90 = 275;
     * layer 4: T(4,1,3) = 100+80+10+90+20 = 300, T(4,1,4) = 330 -> 303;
     * n: 275 + 0.25 * 28 = 282 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 3.25, 1, 3.1, &T, &flags), GM_OK);
    assert_near(T, 282, 1e-9);
    assert_int_equal(flags, 0);
    gm_atomics_table_free(t);
}

static void test_interp_below_one_warp(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T, S;
    /* n = 0.5, e = 2, c = 0.25: layer 1: T(1,2,0) = 170, T(1,2,1) = 200 -> 177.5;
     * T rises linearly from T-hat(0) = 0: T = 0.5 * 177.5 = 88.75, S = 177.5 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 0.5, 2, 0.25, &T, NULL), GM_OK);
    assert_near(T, 88.75, TOL);
    assert_int_equal(gm_atomics_S(add_series(t), 0.5, 2, 0.25, &S, NULL), GM_OK);
    assert_near(S, 177.5, TOL);
    /* for every 0 < n < 1, S = T(1, e, 0) exactly: T(1,3,0) = 100+20+90+15 = 225 */
    for (double n = 0.05; n < 1; n += 0.1) {
        assert_int_equal(gm_atomics_S(add_series(t), n, 3, 0, &S, NULL), GM_OK);
        assert_exact(S, 225);
    }
    gm_atomics_table_free(t);
}

static void test_interp_n_zero(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T = -1, S = -1;
    assert_int_equal(gm_atomics_T_interp(add_series(t), 0, 2.5, 0, &T, NULL), GM_OK);
    assert_exact(T, 0);
    assert_int_equal(gm_atomics_S(add_series(t), 0, 2.5, 0, &S, NULL), GM_OK);
    assert_exact(S, 0);
    gm_atomics_table_free(t);
}

static void test_interp_clamp_flags_each_edge(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_POPC);
    const gm_atomics_series *s = add_series(t);
    double T;
    unsigned flags;
    /* n = 6 > n_max = 4: T(4,2,0) = 100+80+40+40 = 260 */
    assert_int_equal(gm_atomics_T_interp(s, 6, 2, 0, &T, &flags), GM_OK);
    assert_near(T, 260, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_N_HIGH);
    /* e = 0.3 -> 1: T(2,1,0) = 160 */
    assert_int_equal(gm_atomics_T_interp(s, 2, 0.3, 0, &T, &flags), GM_OK);
    assert_near(T, 160, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_E_LOW);
    /* e = 4.5 -> 4: T(2,4,0) = 100+40+160+40 = 340 */
    assert_int_equal(gm_atomics_T_interp(s, 2, 4.5, 0, &T, &flags), GM_OK);
    assert_near(T, 340, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_E_HIGH);
    /* c = -0.5 -> 0 */
    assert_int_equal(gm_atomics_T_interp(s, 2, 1, -0.5, &T, &flags), GM_OK);
    assert_near(T, 160, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_LOW);
    /* c = 2.5 > n = 2 -> 2: T(2,1,2) = 220 */
    assert_int_equal(gm_atomics_T_interp(s, 2, 1, 2.5, &T, &flags), GM_OK);
    assert_near(T, 220, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_HIGH);
    /* several at once: n = 5, e = 7, c = 6 > n: c -> 5, then n -> 4 keeps the
     * all-CAS share, c -> 4: T(4,4,4) = 100+80+160+120+80 = 540 */
    assert_int_equal(gm_atomics_T_interp(s, 5, 7, 6, &T, &flags), GM_OK);
    assert_near(T, 540, TOL);
    assert_int_equal(flags,
                     GM_ATOMICS_CLAMP_N_HIGH | GM_ATOMICS_CLAMP_E_HIGH | GM_ATOMICS_CLAMP_C_HIGH);
    /* POPC.INC series: c > 0 clamps to 0: T_popc between n=2 (70) and 3 (80) */
    assert_int_equal(gm_atomics_T_interp(popc_series(t), 2.5, 1.5, 0.5, &T, &flags), GM_OK);
    assert_near(T, 75, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_C_HIGH);
    assert_int_equal(gm_atomics_T_interp(popc_series(t), 2.5, 1.5, 0, &T, &flags), GM_OK);
    assert_int_equal(flags, 0);
    gm_atomics_table_free(t);
}

static void test_interp_n_high_keeps_cas_share(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    unsigned flags;
    /* n = 8, c = 2 (a quarter CAS) -> n = 4, c = 1: T(4,1,1) = 100+80+10+30+20 = 240 */
    assert_int_equal(gm_atomics_T_interp(add_series(t), 8, 1, 2, &T, &flags), GM_OK);
    assert_near(T, 240, TOL);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_N_HIGH);
    gm_atomics_table_free(t);
}

static void test_interp_rejects_bad_input(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double T;
    assert_int_equal(gm_atomics_T_interp(add_series(t), NAN, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_interp(add_series(t), 1, NAN, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_interp(add_series(t), 1, 1, NAN, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_interp(add_series(t), INFINITY, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_interp(add_series(t), -0.5, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_S(add_series(t), -1, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_T_interp(NULL, 1, 1, 0, &T, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_atomics_S(add_series(t), 1, 1, 0, NULL, NULL), GM_ERR_INVALID_ARG);
    gm_atomics_table_free(t);
}

static void test_interp_partial_table(void **state)
{
    (void)state;
    /* A checkpoint with only layers 1 and 2: points inside them work (an
     * integral point reads no neighbour), points that need layer 3 say so. */
    gm_atomics_table *t = test_table(0);
    for (int e = 1; e <= 4; e++)
        for (int c = 0; c <= 3; c++)
            gm_atomics_series_cell(&t->series[0], 3, e, c)->t_median = NAN;
    double T;
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2, 4, 2, &T, NULL), GM_OK);
    assert_exact(T, T_add(2, 4, 2));
    assert_int_equal(gm_atomics_T_interp(add_series(t), 1.5, 2.5, 0.5, &T, NULL), GM_OK);
    assert_int_equal(gm_atomics_T_interp(add_series(t), 2.5, 1, 0, &T, NULL), GM_ERR_MISSING);
    gm_atomics_table_free(t);
}

/* ---- Eq. 3 ------------------------------------------------------------- */

static void test_S_is_T_over_n(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    double S;
    /* S(4,4,4) = T(4,4,4) / 4 = 540 / 4 = 135 */
    assert_int_equal(gm_atomics_S(add_series(t), 4, 4, 4, &S, NULL), GM_OK);
    assert_exact(S, 135);
    for (int n = 1; n <= 4; n++) {
        assert_int_equal(gm_atomics_S(add_series(t), n, 2, 1, &S, NULL), GM_OK);
        assert_exact(S, T_add(n, 2, 1) / n);
    }
    /* beyond the grid S uses n_max for T and n alike: S(6,2,0) = T(4,2,0)/4 = 65 */
    unsigned flags;
    assert_int_equal(gm_atomics_S(add_series(t), 6, 2, 0, &S, &flags), GM_OK);
    assert_exact(S, 65);
    assert_int_equal(flags, GM_ATOMICS_CLAMP_N_HIGH);
    gm_atomics_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_T_hat_integral_points),
        cmocka_unit_test(test_T_hat_n_zero),
        cmocka_unit_test(test_T_hat_clamps),
        cmocka_unit_test(test_T_hat_missing_cell),
        cmocka_unit_test(test_interp_integral_points_exact),
        cmocka_unit_test(test_interp_along_e),
        cmocka_unit_test(test_interp_along_n),
        cmocka_unit_test(test_interp_along_c),
        cmocka_unit_test(test_interp_trilinear),
        cmocka_unit_test(test_interp_c_domain_between_layers),
        cmocka_unit_test(test_interp_below_one_warp),
        cmocka_unit_test(test_interp_n_zero),
        cmocka_unit_test(test_interp_clamp_flags_each_edge),
        cmocka_unit_test(test_interp_n_high_keeps_cas_share),
        cmocka_unit_test(test_interp_rejects_bad_input),
        cmocka_unit_test(test_interp_partial_table),
        cmocka_unit_test(test_S_is_T_over_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
