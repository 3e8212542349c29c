/* Unit tests of the model (paper 000, Sec. 3): Eq. 1-3, Table 2 and its
 * application to one launch.  Every expected number is worked out by hand
 * in a comment next to it.
 *
 * The test table is synthetic (a formula, not a measurement), 4 warps x 4
 * lanes, chosen so that multilinear interpolation differs from the formula
 * itself (the e^2 term), which catches an interpolation that merely
 * evaluates something smooth:
 *   FAO/CAS series (add, mixes CAS):  T(n,e,c) = 100 + 20 n + 10 e^2 + 30 c + 5 n e
 *   POPC.INC series (no CAS):         T(n,e)   = 50 + 10 n
 *   steady-state FAO/CAS series:      T(n,e,c) = 4 n e + c     (for the "steady" variant)
 *   steady-state POPC.INC series:     T(n,e)   = 2 n           (for "measured-steady")
 * wave_table() has one more steady-state FAO/CAS series whose e slope per job
 * differs by layer, for the wavefront variant's w (see there).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/model.h"

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
static void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)
#define assert_exact(got, want) check_near((got), (want), 0, __FILE__, __LINE__)
#define TOL 1e-9

static double T_add(int n, int e, int c)
{
    return 100 + 20.0 * n + 10.0 * e * e + 30.0 * c + 5.0 * n * e;
}

static double T_popc(int n)
{
    return 50 + 10.0 * n;
}

static double T_steady(int n, int e, int c)
{
    return 4.0 * n * e + c;
}

static void fill(gm_series *s, double (*f)(int, int, int))
{
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                double T = f(n, e, c);
                *gm_series_cell(s, n, e, c) = (gm_cell){T, T, T, 0, 1, 0};
            }
}

static double popc_3(int n, int e, int c)
{
    (void)e;
    (void)c;
    return T_popc(n);
}

static double popc_steady(int n, int e, int c)
{
    (void)e;
    (void)c;
    return 2.0 * n;
}

enum { WITH_POPC = 1, WITH_STEADY = 2, WITH_POPC_STEADY = 4 };

static gm_table *test_table(int which)
{
    gm_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU");
    m.cc_major = 9;
    m.sm_count = 4;
    m.max_warps_per_sm = 4;
    m.warp_size = 4;
    gm_table *t = gm_table_new(&m);
    assert_non_null(t);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    fill(s, T_add);
    if (which & WITH_POPC) {
        assert_int_equal(gm_table_add_series(t, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS,
                                             GM_METHOD_SINGLE_SHOT, 0, &s),
                         GM_OK);
        fill(s, popc_3);
    }
    if (which & WITH_STEADY) {
        assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                             GM_METHOD_STEADY_STATE, 1, &s),
                         GM_OK);
        fill(s, T_steady);
    }
    if (which & WITH_POPC_STEADY) {
        assert_int_equal(gm_table_add_series(t, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS,
                                             GM_METHOD_STEADY_STATE, 0, &s),
                         GM_OK);
        fill(s, popc_steady);
    }
    return t;
}

/* Steady-state series for w: T(n,e,c) = 50 + c + w_n n e with w_n = 9, 1,
 * 1.5, 2 cycles per wavefront on layers n = 1..4.  The slope of gm_cycles_
 * per_wavefront, (T(n,4,0) - T(n,2,0)) / (n (4 - 2)), is w_n on layer n;
 * the layers n_max/4 = 1 .. 4 give the median (1.5 + 2) / 2 = 1.75: the
 * latency-bound layer n = 1 (9) does not pull it. */
static const double wave_w[5] = {0, 9, 1, 1.5, 2};

static double T_wave(int n, int e, int c)
{
    return 50 + c + wave_w[n] * n * e;
}

static gm_table *wave_table(void)
{
    gm_table *t = test_table(0);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_STEADY_STATE, 1, &s),
                     GM_OK);
    fill(s, T_wave);
    return t;
}

static const gm_series *add_series(const gm_table *t)
{
    return gm_table_find(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS, GM_METHOD_SINGLE_SHOT);
}

static const gm_series *popc_series(const gm_table *t)
{
    return gm_table_find(t, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS, GM_METHOD_SINGLE_SHOT);
}

static gm_model_options model(const char *name)
{
    gm_model_options o;
    assert_int_equal(gm_model_by_name(name, &o), GM_OK);
    return o;
}

/* What gm_launch_counters_init does (counters.c), by hand: zeros, every
 * metric NaN (not collected), no opcode split. */
static void counters_blank(gm_launch_counters *k)
{
    memset(k, 0, sizeof *k);
    for (int i = 0; i < GM_METRIC_COUNT; i++)
        k->metric[i] = NAN;
    k->split.valid = 0;
    k->split.add = k->split.cas = k->split.popc_inc = k->split.other = NAN;
}

/* The worked example of test_table2_worked_example as counters of a
 * 4-SM launch (average SM = the example):
 *   N = 1600 (400 per SM), N_c = 400 (100 per SM), O = 3200 (e = 2),
 *   cycles sum 344000 over avg 86000 -> 4 SMs, occupancy 50% -> n-hat 2,
 *   cycles min 43000, max 172000. */
static void counters_example(gm_launch_counters *k)
{
    counters_blank(k);
    k->metric[GM_M_N_ATOM_SASS] = 1600;
    k->metric[GM_M_N_ATOM] = 1600;
    k->metric[GM_M_N_CAS] = 400;
    k->metric[GM_M_N_ALU] = 1200;
    k->metric[GM_M_O_WAVEFRONTS] = 3200;
    k->metric[GM_M_CYCLES_SUM] = 344000;
    k->metric[GM_M_CYCLES_AVG] = 86000;
    k->metric[GM_M_CYCLES_MIN] = 43000;
    k->metric[GM_M_CYCLES_MAX] = 172000;
    k->metric[GM_M_OCCUPANCY_PCT] = 50;
}

/* ---- Eq. 1 ------------------------------------------------------------- */

static void test_T_hat_integral_points(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_POPC);
    const gm_series *s = add_series(t);
    double T;
    unsigned flags = 99;
    /* T(2,3,1) = 100 + 40 + 90 + 30 + 30 = 290 */
    assert_int_equal(gm_T_hat(s, 2, 3, 1, &T, &flags), GM_OK);
    assert_exact(T, 290);
    assert_int_equal(flags, 0);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                assert_int_equal(gm_T_hat(s, n, e, c, &T, NULL), GM_OK);
                assert_exact(T, T_add(n, e, c));
            }
    gm_table_free(t);
}

static void test_T_hat_n_zero(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T = -1;
    /* Eq. 1: T-hat(0, e, c) = 0 */
    assert_int_equal(gm_T_hat(add_series(t), 0, 3, 0, &T, NULL), GM_OK);
    assert_exact(T, 0);
    assert_int_equal(gm_T_hat(add_series(t), -1, 3, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_hat(NULL, 1, 1, 0, &T, NULL), GM_ERR_INVALID_ARG);
    gm_table_free(t);
}

static void test_T_hat_clamps(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_POPC);
    const gm_series *s = add_series(t);
    double T;
    unsigned flags;
    /* n = 8 > 4 with c = 4 (half CAS): n -> 4, c -> 4 * 4/8 = 2:
     * T(4,1,2) = 100 + 80 + 10 + 60 + 20 = 270 */
    assert_int_equal(gm_T_hat(s, 8, 1, 4, &T, &flags), GM_OK);
    assert_exact(T, 270);
    assert_int_equal(flags, GM_CLAMP_N_HIGH);
    /* e = 0 -> 1: T(1,1,0) = 100 + 20 + 10 + 5 = 135 */
    assert_int_equal(gm_T_hat(s, 1, 0, 0, &T, &flags), GM_OK);
    assert_exact(T, 135);
    assert_int_equal(flags, GM_CLAMP_E_LOW);
    /* e = 9 -> 4: T(1,4,0) = 100 + 20 + 160 + 20 = 300 */
    assert_int_equal(gm_T_hat(s, 1, 9, 0, &T, &flags), GM_OK);
    assert_exact(T, 300);
    assert_int_equal(flags, GM_CLAMP_E_HIGH);
    /* c = -2 -> 0, c = 3 > n = 2 -> 2: T(2,1,2) = 100 + 40 + 10 + 60 + 10 = 220 */
    assert_int_equal(gm_T_hat(s, 2, 1, -2, &T, &flags), GM_OK);
    assert_exact(T, T_add(2, 1, 0));
    assert_int_equal(flags, GM_CLAMP_C_LOW);
    assert_int_equal(gm_T_hat(s, 2, 1, 3, &T, &flags), GM_OK);
    assert_exact(T, 220);
    assert_int_equal(flags, GM_CLAMP_C_HIGH);
    /* a series without CAS only has c = 0: T_popc(3) = 80 */
    assert_int_equal(gm_T_hat(popc_series(t), 3, 2, 1, &T, &flags), GM_OK);
    assert_exact(T, 80);
    assert_int_equal(flags, GM_CLAMP_C_HIGH);
    gm_table_free(t);
}

static void test_T_hat_missing_cell(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_series_cell(&t->series[0], 3, 2, 1)->t_median = NAN;
    double T;
    assert_int_equal(gm_T_hat(&t->series[0], 3, 2, 1, &T, NULL), GM_ERR_MISSING);
    gm_table_free(t);
}

/* ---- Eq. 2 ------------------------------------------------------------- */

static void test_interp_integral_points_exact(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    const gm_series *s = add_series(t);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                double T;
                unsigned flags = 99;
                assert_int_equal(gm_T_interp(s, n, e, c, &T, &flags), GM_OK);
                assert_exact(T, T_add(n, e, c)); /* bit-exact, not close */
                assert_int_equal(flags, 0);
            }
    gm_table_free(t);
}

static void test_interp_along_e(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    /* T(2,2,0) = 100 + 40 + 40 + 20 = 200, T(2,3,0) = 100 + 40 + 90 + 30 = 260:
     * e = 2.5 -> 230 (the formula itself would give 227.5) */
    assert_int_equal(gm_T_interp(add_series(t), 2, 2.5, 0, &T, NULL), GM_OK);
    assert_near(T, 230, TOL);
    /* e = 2.25 -> 200 + 0.25 * 60 = 215 */
    assert_int_equal(gm_T_interp(add_series(t), 2, 2.25, 0, &T, NULL), GM_OK);
    assert_near(T, 215, TOL);
    gm_table_free(t);
}

static void test_interp_along_n(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    /* T(1,1,0) = 135, T(2,1,0) = 100 + 40 + 10 + 10 = 160: n = 1.5 -> 147.5 */
    assert_int_equal(gm_T_interp(add_series(t), 1.5, 1, 0, &T, NULL), GM_OK);
    assert_near(T, 147.5, TOL);
    gm_table_free(t);
}

static void test_interp_along_c(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    /* T(3,2,1) = 100 + 60 + 40 + 30 + 30 = 260, T(3,2,2) = 290: c = 1.2 -> 266 */
    assert_int_equal(gm_T_interp(add_series(t), 3, 2, 1.2, &T, NULL), GM_OK);
    assert_near(T, 266, TOL);
    gm_table_free(t);
}

static void test_interp_trilinear(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T, S;
    /* (n, e, c) = (2.5, 1.5, 0.5):
     * layer 2: e=1: T(2,1,0)=160, T(2,1,1)=190 -> 175; e=2: 200, 230 -> 215; e=1.5 -> 195
     * layer 3: e=1: T(3,1,0)=100+60+10+15=185, 215 -> 200; e=2: 230, 260 -> 245; -> 222.5
     * n = 2.5 -> (195 + 222.5) / 2 = 208.75;  S = 208.75 / 2.5 = 83.5 */
    assert_int_equal(gm_T_interp(add_series(t), 2.5, 1.5, 0.5, &T, NULL), GM_OK);
    assert_near(T, 208.75, TOL);
    assert_int_equal(gm_S(add_series(t), 2.5, 1.5, 0.5, &S, NULL), GM_OK);
    assert_near(S, 83.5, TOL);
    /* unequal weights, so that swapped weights would show: (2, 1.25, 0.75):
     * e=1: 160 + 0.75 * 30 = 182.5; e=2: 200 + 0.75 * 30 = 222.5; e=1.25: 192.5 */
    assert_int_equal(gm_T_interp(add_series(t), 2, 1.25, 0.75, &T, NULL), GM_OK);
    assert_near(T, 192.5, TOL);
    /* (2.25, 1.75, 0.5): layer 2: 175 + 0.75 * 40 = 205; layer 3: 200 + 0.75 * 45
     * = 233.75; n = 2.25: 205 + 0.25 * 28.75 = 212.1875 */
    assert_int_equal(gm_T_interp(add_series(t), 2.25, 1.75, 0.5, &T, NULL), GM_OK);
    assert_near(T, 212.1875, TOL);
    gm_table_free(t);
}

static void test_interp_c_domain_between_layers(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    unsigned flags = 99;
    /* (n, e, c) = (1.5, 1, 1.5): layer 1 has c only up to 1, so it uses
     * T(1,1,1) = 165; layer 2: T(2,1,1) = 190, T(2,1,2) = 220 -> c=1.5: 205.
     * n = 1.5 -> (165 + 205) / 2 = 185.  Domain edge, not a clamp. */
    assert_int_equal(gm_T_interp(add_series(t), 1.5, 1, 1.5, &T, &flags), GM_OK);
    assert_near(T, 185, TOL);
    assert_int_equal(flags, 0);
    /* (3.25, 1, 3.1): layer 3 uses c = 3: T(3,1,3) = 185 + 90 = 275;
     * layer 4: T(4,1,3) = 100+80+10+90+20 = 300, T(4,1,4) = 330 -> 303;
     * n: 275 + 0.25 * 28 = 282 */
    assert_int_equal(gm_T_interp(add_series(t), 3.25, 1, 3.1, &T, &flags), GM_OK);
    assert_near(T, 282, 1e-9);
    assert_int_equal(flags, 0);
    gm_table_free(t);
}

static void test_interp_below_one_warp(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T, S;
    /* n = 0.5, e = 2, c = 0.25: layer 1: T(1,2,0) = 170, T(1,2,1) = 200 -> 177.5;
     * T rises linearly from T-hat(0) = 0: T = 0.5 * 177.5 = 88.75, S = 177.5 */
    assert_int_equal(gm_T_interp(add_series(t), 0.5, 2, 0.25, &T, NULL), GM_OK);
    assert_near(T, 88.75, TOL);
    assert_int_equal(gm_S(add_series(t), 0.5, 2, 0.25, &S, NULL), GM_OK);
    assert_near(S, 177.5, TOL);
    /* for every 0 < n < 1, S = T(1, e, 0) exactly: T(1,3,0) = 100+20+90+15 = 225 */
    for (double n = 0.05; n < 1; n += 0.1) {
        assert_int_equal(gm_S(add_series(t), n, 3, 0, &S, NULL), GM_OK);
        assert_exact(S, 225);
    }
    gm_table_free(t);
}

static void test_interp_n_zero(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T = -1, S = -1;
    assert_int_equal(gm_T_interp(add_series(t), 0, 2.5, 0, &T, NULL), GM_OK);
    assert_exact(T, 0);
    assert_int_equal(gm_S(add_series(t), 0, 2.5, 0, &S, NULL), GM_OK);
    assert_exact(S, 0);
    gm_table_free(t);
}

static void test_interp_clamp_flags_each_edge(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_POPC);
    const gm_series *s = add_series(t);
    double T;
    unsigned flags;
    /* n = 6 > n_max = 4: T(4,2,0) = 100+80+40+40 = 260 */
    assert_int_equal(gm_T_interp(s, 6, 2, 0, &T, &flags), GM_OK);
    assert_near(T, 260, TOL);
    assert_int_equal(flags, GM_CLAMP_N_HIGH);
    /* e = 0.3 -> 1: T(2,1,0) = 160 */
    assert_int_equal(gm_T_interp(s, 2, 0.3, 0, &T, &flags), GM_OK);
    assert_near(T, 160, TOL);
    assert_int_equal(flags, GM_CLAMP_E_LOW);
    /* e = 4.5 -> 4: T(2,4,0) = 100+40+160+40 = 340 */
    assert_int_equal(gm_T_interp(s, 2, 4.5, 0, &T, &flags), GM_OK);
    assert_near(T, 340, TOL);
    assert_int_equal(flags, GM_CLAMP_E_HIGH);
    /* c = -0.5 -> 0 */
    assert_int_equal(gm_T_interp(s, 2, 1, -0.5, &T, &flags), GM_OK);
    assert_near(T, 160, TOL);
    assert_int_equal(flags, GM_CLAMP_C_LOW);
    /* c = 2.5 > n = 2 -> 2: T(2,1,2) = 220 */
    assert_int_equal(gm_T_interp(s, 2, 1, 2.5, &T, &flags), GM_OK);
    assert_near(T, 220, TOL);
    assert_int_equal(flags, GM_CLAMP_C_HIGH);
    /* several at once: n = 5, e = 7, c = 6 > n: c -> 5, then n -> 4 keeps the
     * all-CAS share, c -> 4: T(4,4,4) = 100+80+160+120+80 = 540 */
    assert_int_equal(gm_T_interp(s, 5, 7, 6, &T, &flags), GM_OK);
    assert_near(T, 540, TOL);
    assert_int_equal(flags, GM_CLAMP_N_HIGH | GM_CLAMP_E_HIGH | GM_CLAMP_C_HIGH);
    /* POPC.INC series: c > 0 clamps to 0: T_popc between n=2 (70) and 3 (80) */
    assert_int_equal(gm_T_interp(popc_series(t), 2.5, 1.5, 0.5, &T, &flags), GM_OK);
    assert_near(T, 75, TOL);
    assert_int_equal(flags, GM_CLAMP_C_HIGH);
    assert_int_equal(gm_T_interp(popc_series(t), 2.5, 1.5, 0, &T, &flags), GM_OK);
    assert_int_equal(flags, 0);
    gm_table_free(t);
}

static void test_interp_n_high_keeps_cas_share(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    unsigned flags;
    /* n = 8, c = 2 (a quarter CAS) -> n = 4, c = 1: T(4,1,1) = 100+80+10+30+20 = 240 */
    assert_int_equal(gm_T_interp(add_series(t), 8, 1, 2, &T, &flags), GM_OK);
    assert_near(T, 240, TOL);
    assert_int_equal(flags, GM_CLAMP_N_HIGH);
    gm_table_free(t);
}

static void test_interp_rejects_bad_input(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double T;
    assert_int_equal(gm_T_interp(add_series(t), NAN, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_interp(add_series(t), 1, NAN, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_interp(add_series(t), 1, 1, NAN, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_interp(add_series(t), INFINITY, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_interp(add_series(t), -0.5, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_S(add_series(t), -1, 1, 0, &T, NULL), GM_ERR_RANGE);
    assert_int_equal(gm_T_interp(NULL, 1, 1, 0, &T, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_S(add_series(t), 1, 1, 0, NULL, NULL), GM_ERR_INVALID_ARG);
    gm_table_free(t);
}

static void test_interp_partial_table(void **state)
{
    (void)state;
    /* A checkpoint with only layers 1 and 2: points inside them work (an
     * integral point reads no neighbour), points that need layer 3 say so. */
    gm_table *t = test_table(0);
    for (int e = 1; e <= 4; e++)
        for (int c = 0; c <= 3; c++)
            gm_series_cell(&t->series[0], 3, e, c)->t_median = NAN;
    double T;
    assert_int_equal(gm_T_interp(add_series(t), 2, 4, 2, &T, NULL), GM_OK);
    assert_exact(T, T_add(2, 4, 2));
    assert_int_equal(gm_T_interp(add_series(t), 1.5, 2.5, 0.5, &T, NULL), GM_OK);
    assert_int_equal(gm_T_interp(add_series(t), 2.5, 1, 0, &T, NULL), GM_ERR_MISSING);
    gm_table_free(t);
}

/* ---- Eq. 3 ------------------------------------------------------------- */

static void test_S_is_T_over_n(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    double S;
    /* S(4,4,4) = T(4,4,4) / 4 = 540 / 4 = 135 */
    assert_int_equal(gm_S(add_series(t), 4, 4, 4, &S, NULL), GM_OK);
    assert_exact(S, 135);
    for (int n = 1; n <= 4; n++) {
        assert_int_equal(gm_S(add_series(t), n, 2, 1, &S, NULL), GM_OK);
        assert_exact(S, T_add(n, 2, 1) / n);
    }
    /* beyond the grid S uses n_max for T and n alike: S(6,2,0) = T(4,2,0)/4 = 65 */
    unsigned flags;
    assert_int_equal(gm_S(add_series(t), 6, 2, 0, &S, &flags), GM_OK);
    assert_exact(S, 65);
    assert_int_equal(flags, GM_CLAMP_N_HIGH);
    gm_table_free(t);
}

/* ---- Table 2 ----------------------------------------------------------- */

static void test_table2_worked_example(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_sm_result r;
    gm_error err = {{0}};
    /* One SM: N_f = 300 FAO and N_c = 100 CAS jobs, n-hat = 2, e = 2, T = 86000.
     *   N = 400, c = n N_c / N = 2 * 100 / 400 = 0.5
     *   T(2,2,0.5) = (T(2,2,0) + T(2,2,1)) / 2 = (200 + 230) / 2 = 215
     *   S = 215 / 2 = 107.5, B = N S = 43000, U = B / T = 0.5 */
    assert_int_equal(gm_table2_sm(t, &o, 300, 100, 0, 2, 2, 86000, &r, &err), GM_OK);
    assert_exact(r.N, 400);
    assert_exact(r.N_c, 100);
    assert_near(r.c, 0.5, TOL);
    assert_near(r.S, 107.5, TOL);
    assert_near(r.B, 43000, 1e-6);
    assert_near(r.U, 0.5, TOL);
    assert_exact(r.T, 86000);
    assert_int_equal(r.clamp_flags, 0);
    gm_table_free(t);
}

static void test_table2_all_fao_and_all_cas(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_sm_result r;
    /* all FAO, n = 4, e = 1: c = 0, S = T(4,1,0)/4 = (100+80+10+20)/4 = 52.5 */
    assert_int_equal(gm_table2_sm(t, &o, 1000, 0, 0, 4, 1, 105000, &r, NULL), GM_OK);
    assert_near(r.c, 0, TOL);
    assert_near(r.S, 52.5, TOL);
    assert_near(r.U, 0.5, TOL);
    /* all CAS, n = 4, e = 1: c = 4, S = T(4,1,4)/4 = 330/4 = 82.5 */
    assert_int_equal(gm_table2_sm(t, &o, 0, 1000, 0, 4, 1, 82500, &r, NULL), GM_OK);
    assert_near(r.c, 4, TOL);
    assert_near(r.S, 82.5, TOL);
    assert_near(r.U, 1.0, TOL);
    gm_table_free(t);
}

static void test_table2_no_jobs(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_sm_result r;
    /* N = 0: B = 0, U = 0, even when T = 0 (no division) */
    assert_int_equal(gm_table2_sm(t, &o, 0, 0, 0, 2, 0, 0, &r, NULL), GM_OK);
    assert_exact(r.B, 0);
    assert_exact(r.U, 0);
    assert_exact(r.N, 0);
    gm_table_free(t);
}

static void test_table2_rejects_bad_input(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_sm_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_table2_sm(t, &o, 10, 0, 0, 2, 2, 0, &r, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "T=0 cycles with N=10 jobs"));
    assert_int_equal(gm_table2_sm(t, &o, 10, 0, 0, 2, 2, -5, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_table2_sm(t, &o, -1, 0, 0, 2, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_table2_sm(t, &o, NAN, 0, 0, 2, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_table2_sm(t, &o, 10, 0, 0, NAN, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_table2_sm(NULL, &o, 10, 0, 0, 2, 2, 100, &r, &err), GM_ERR_INVALID_ARG);
    gm_table_free(t);
}

static void test_table2_by_opcode_weighted(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_POPC);
    gm_model_options o = model("opcode");
    gm_sm_result r;
    /* N_f = 100 ADD, N_c = 100 CAS, N_popc = 200 POPC.INC, n = 2, e = 1, T = 52000.
     *   FAO/CAS series: its own CAS share: c = 2 * 100 / 200 = 1,
     *     S_fc = T(2,1,1) / 2 = 190 / 2 = 95
     *   POPC series: S_p = T_popc(2) / 2 = 70 / 2 = 35
     *   S = (200 * 95 + 200 * 35) / 400 = 65, B = 26000, U = 0.5 */
    assert_int_equal(gm_table2_sm(t, &o, 100, 100, 200, 2, 1, 52000, &r, NULL), GM_OK);
    assert_exact(r.N, 400);
    assert_exact(r.N_popc, 200);
    assert_near(r.c, 1, TOL);
    assert_near(r.S, 65, TOL);
    assert_near(r.B, 26000, 1e-6);
    assert_near(r.U, 0.5, TOL);
    /* The paper's split counts POPC.INC as FAO: N_f = 300, N_c = 100,
     *   c = 2 * 100 / 400 = 0.5, S = T(2,1,0.5)/2 = 175/2 = 87.5, B = 35000 */
    gm_model_options p = model("paper");
    assert_int_equal(gm_table2_sm(t, &p, 100, 100, 200, 2, 1, 52000, &r, NULL), GM_OK);
    assert_exact(r.N_popc, 0);
    assert_near(r.c, 0.5, TOL);
    assert_near(r.S, 87.5, TOL);
    assert_near(r.B, 35000, 1e-6);
    gm_table_free(t);
}

static void test_table2_missing_series(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("opcode");
    gm_sm_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_table2_sm(t, &o, 100, 0, 100, 2, 1, 1000, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "no popc_inc,same_address,single_shot series"));
    o = model("steady");
    assert_int_equal(gm_table2_sm(t, &o, 100, 0, 0, 2, 1, 1000, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "add,same_address,steady_state"));
    gm_table_free(t);
}

static void test_table2_clamp_flags_travel(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_sm_result r;
    /* e = 6 > 4 lanes, n = 5 > 4 warps */
    assert_int_equal(gm_table2_sm(t, &o, 10, 0, 0, 5, 6, 1000, &r, NULL), GM_OK);
    assert_int_equal(r.clamp_flags, GM_CLAMP_N_HIGH | GM_CLAMP_E_HIGH);
    gm_table_free(t);
}

static void test_e_from_counters(void **state)
{
    (void)state;
    /* Table 2: e = O / sum N */
    assert_exact(gm_e_from_counters(3200, 100), 32);
    assert_exact(gm_e_from_counters(315, 100), 3.15);
    assert_exact(gm_e_from_counters(0, 0), 0);
    assert_exact(gm_e_from_counters(50, 0), 0);
}

/* ---- variants ---------------------------------------------------------- */

static void test_model_by_name(void **state)
{
    (void)state;
    gm_model_options o;
    assert_int_equal(gm_model_by_name("paper", &o), GM_OK);
    assert_int_equal(o.method, GM_METHOD_SINGLE_SHOT);
    assert_int_equal(o.n_source, GM_N_OCCUPANCY);
    assert_int_equal(o.split, GM_SPLIT_FAO_CAS);
    assert_int_equal(o.pattern, GM_PATTERN_SAME_ADDRESS);
    assert_string_equal(o.name, "paper");
    assert_int_equal(gm_model_by_name("steady", &o), GM_OK);
    assert_int_equal(o.method, GM_METHOD_STEADY_STATE);
    assert_int_equal(gm_model_by_name("measured-n", &o), GM_OK);
    assert_int_equal(o.n_source, GM_N_MEASURED);
    assert_int_equal(gm_model_by_name("opcode", &o), GM_OK);
    assert_int_equal(o.split, GM_SPLIT_BY_OPCODE);
    assert_int_equal(o.e_source, GM_E_WAVEFRONTS);
    assert_int_equal(o.busy, GM_BUSY_QUEUE);
    assert_int_equal(gm_model_by_name("measured-steady", &o), GM_OK);
    assert_int_equal(o.method, GM_METHOD_STEADY_STATE);
    assert_int_equal(o.n_source, GM_N_MEASURED);
    assert_int_equal(o.split, GM_SPLIT_BY_OPCODE);
    assert_int_equal(o.e_source, GM_E_LANES);
    assert_int_equal(o.busy, GM_BUSY_QUEUE);
    gm_model_options w;
    assert_int_equal(gm_model_by_name("wavefront", &w), GM_OK);
    assert_int_equal(w.busy, GM_BUSY_WAVEFRONTS);
    assert_int_equal(w.method, GM_METHOD_STEADY_STATE);
    assert_int_equal(w.e_source, GM_E_WAVEFRONTS);
    /* The validation chose `wavefront` (docs/validation.md): `default` is a
     * copy of it under its own name.  (Before the validation: `paper`.) */
    assert_int_equal(gm_model_by_name("default", &o), GM_OK);
    assert_string_equal(o.name, "default");
    assert_int_equal(o.method, w.method);
    assert_int_equal(o.n_source, w.n_source);
    assert_int_equal(o.split, w.split);
    assert_int_equal(o.pattern, w.pattern);
    assert_int_equal(o.e_source, w.e_source);
    assert_int_equal(o.busy, w.busy);
    /* `paper` stays the paper's Table 2 */
    assert_int_equal(gm_model_by_name("paper", &o), GM_OK);
    assert_int_equal(o.e_source, GM_E_WAVEFRONTS);
    assert_int_equal(o.busy, GM_BUSY_QUEUE);
    assert_int_equal(gm_model_by_name("Paper", &o), GM_ERR_PARSE);
    assert_int_equal(gm_model_by_name(NULL, &o), GM_ERR_INVALID_ARG);
    /* every listed name resolves */
    char names[128];
    snprintf(names, sizeof names, "%s", gm_model_names());
    int count = 0;
    for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
        assert_int_equal(gm_model_by_name(tok, &o), GM_OK);
        assert_string_equal(o.name, tok);
        count++;
    }
    assert_int_equal(count, 7);
}

/* ---- wavefront busy time -------------------------------------------------- */

static void test_cycles_per_wavefront_median_slope(void **state)
{
    (void)state;
    gm_table *t = wave_table();
    double w = 0;
    gm_method used = GM_METHOD_COUNT;
    /* slopes 9, 1, 1.5, 2 on layers 1..4: median 1.75 (wave_table) */
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, &used, NULL), GM_OK);
    assert_near(w, 1.75, TOL);
    assert_int_equal(used, GM_METHOD_STEADY_STATE);
    /* the single-shot series: T = 100 + 20n + 10e^2 + 30c + 5ne, slope
     * (T(n,4,0) - T(n,2,0)) / 2n = (120 + 10n) / 2n = 60/n + 5: 65, 35, 25,
     * 20 on layers 1..4, median (25 + 35) / 2 = 30 */
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_SINGLE_SHOT, &w, &used, NULL), GM_OK);
    assert_near(w, 30, TOL);
    assert_int_equal(used, GM_METHOD_SINGLE_SHOT);
    gm_table_free(t);
    /* no steady-state series: the single-shot one, and said so */
    t = test_table(0);
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, &used, NULL), GM_OK);
    assert_near(w, 30, TOL);
    assert_int_equal(used, GM_METHOD_SINGLE_SHOT);
    gm_table_free(t);
}

static void test_cycles_per_wavefront_odd_layer_count(void **state)
{
    (void)state;
    /* 8 warps x 4 lanes, T = 10 + n e (n + 1): slope per wavefront n + 1 on
     * layer n; layers n_max/4 = 2 .. 8 (7 of them) have slopes 3..9, median 6 */
    gm_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU 8");
    m.sm_count = 1;
    m.max_warps_per_sm = 8;
    m.warp_size = 4;
    gm_table *t = gm_table_new(&m);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    for (int n = 1; n <= 8; n++)
        for (int e = 1; e <= 4; e++) {
            double T = 10 + (double)n * e * (n + 1);
            *gm_series_cell(s, n, e, 0) = (gm_cell){T, T, T, 0, 1, 0};
        }
    double w;
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, NULL, NULL), GM_OK);
    assert_near(w, 6, TOL);
    /* a missing cell on a layer it reads: an error naming it */
    gm_series_cell(s, 5, 2, 0)->t_median = NAN;
    gm_error err = {{0}};
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "n=5"));
    gm_table_free(t);
}

static void test_cycles_per_wavefront_errors(void **state)
{
    (void)state;
    gm_table_meta m;
    memset(&m, 0, sizeof m);
    m.max_warps_per_sm = 4;
    m.warp_size = 4;
    gm_table *t = gm_table_new(&m);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    double w;
    gm_error err = {{0}};
    /* no add,same_address series at all */
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "no add,same_address series"));
    assert_int_equal(gm_cycles_per_wavefront(NULL, GM_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_INVALID_ARG);
    /* a flat series (T the same at every e): w = 0 is no rate */
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            *gm_series_cell(s, n, e, 0) = (gm_cell){40, 40, 40, 0, 1, 0};
    assert_int_equal(gm_cycles_per_wavefront(t, GM_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_RANGE);
    gm_table_free(t);
}

static void test_table2_wavefront_busy(void **state)
{
    (void)state;
    gm_table *t = wave_table();
    gm_model_options o = model("wavefront");
    gm_sm_result r;
    /* N_f = 300, N_c = 100, e = 2.5 wavefronts per job (O = 1000), w = 1.75:
     *   S = e w = 4.375, B = N S = 400 * 4.375 = 1750 (= O w), T = 3500: U = 0.5.
     * n is not used (any n, or none, gives the same); c = 2 * 100 / 400 = 0.5 */
    assert_int_equal(gm_table2_sm(t, &o, 300, 100, 0, 2, 2.5, 3500, &r, NULL), GM_OK);
    assert_exact(r.N, 400);
    assert_near(r.S, 4.375, TOL);
    assert_near(r.B, 1750, 1e-9);
    assert_near(r.U, 0.5, TOL);
    assert_near(r.c, 0.5, TOL);
    assert_int_equal(r.clamp_flags, 0);
    assert_int_equal(gm_table2_sm(t, &o, 300, 100, 0, NAN, 2.5, 3500, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    /* e = 64 wavefronts (a 32-lane CAS on one address) is no clamp here:
     * S = 64 * 1.75 = 112 for each of 10 jobs, B = 1120, U = 1120 / 2240 */
    assert_int_equal(gm_table2_sm(t, &o, 0, 10, 0, 3, 64, 2240, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    assert_int_equal(r.clamp_flags, 0);
    /* POPC.INC jobs count like any other: 1 wavefront each, e = 1 */
    assert_int_equal(gm_table2_sm(t, &o, 0, 0, 200, 3, 1, 700, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    /* no jobs: exactly 0 */
    assert_int_equal(gm_table2_sm(t, &o, 0, 0, 0, 3, 0, 700, &r, NULL), GM_OK);
    assert_exact(r.U, 0);
    assert_exact(r.B, 0);
    gm_error err = {{0}};
    assert_int_equal(gm_table2_sm(t, &o, 10, 0, 0, 3, -1, 700, &r, &err), GM_ERR_RANGE);
    gm_table_free(t);
}

/* ---- gm_model_apply ---------------------------------------------------- */

static void test_apply_average_sm(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    gm_kernel_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, &err), GM_OK);
    /* sm_count = 344000 / 86000 = 4; per SM: N = 400, N_c = 100; e = 3200/1600 = 2;
     * n-hat = 50% x 4 warps = 2: the worked example, U = 0.5 */
    assert_int_equal(r.sm_count, 4);
    assert_exact(r.avg.N, 400);
    assert_exact(r.avg.N_c, 100);
    assert_exact(r.avg.e, 2);
    assert_exact(r.n_hat, 2);
    assert_exact(r.avg.n, 2);
    assert_near(r.avg.U, 0.5, TOL);
    /* bounds: U_lo = B / T_max = 43000 / 172000 = 0.25, U_hi = B / T_min = 1 */
    assert_near(r.U_lo, 0.25, TOL);
    assert_near(r.U_hi, 1.0, TOL);
    assert_int_equal(r.notes, GM_NOTE_AVG_SM | GM_NOTE_E_UNIFORM | GM_NOTE_N_APPROX);
    assert_string_equal(r.split_source, "hardware dot_cas/dot_alu");
    assert_true(isnan(r.n_measured));
    assert_int_equal(r.n_per_sm, 0);
    assert_null(r.per_sm);
    gm_kernel_result_free(&r);
    gm_table_free(t);
}

static void test_apply_sm_count_fallback_and_N_source(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    t->meta.sm_count = 8;
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_M_CYCLES_SUM] = NAN;      /* no sum: SM count from the table, 8 */
    k.metric[GM_M_N_ATOM_SASS] = NAN;     /* N from the hardware counter instead */
    k.metric[GM_M_N_ATOM] = 3200;         /* 400 per SM over 8 SMs */
    k.metric[GM_M_N_CAS] = 800;           /* 100 per SM */
    k.metric[GM_M_O_WAVEFRONTS] = 6400;   /* e = 2 */
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_int_equal(r.sm_count, 8);
    assert_exact(r.avg.N, 400);
    assert_near(r.avg.U, 0.5, TOL); /* the worked example again */
    gm_kernel_result_free(&r);
    gm_table_free(t);
}

static void test_apply_no_atomics(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_M_N_ATOM_SASS] = 0;
    k.metric[GM_M_O_WAVEFRONTS] = NAN; /* not needed when N = 0 */
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.U, 0);
    assert_exact(r.avg.B, 0);
    assert_exact(r.U_lo, 0);
    assert_exact(r.U_hi, 0);
    assert_true(r.notes & GM_NOTE_NO_ATOMICS);
    assert_false(r.notes & GM_NOTE_MISSING_COUNTER);
    gm_kernel_result_free(&r);
    gm_table_free(t);
}

static void expect_missing(gm_metric_id drop, const char *model_name, const char *needle)
{
    gm_table *t = test_table(WITH_POPC);
    gm_model_options o = model(model_name);
    gm_launch_counters k;
    counters_example(&k);
    k.metric[drop] = NAN;
    if (drop == GM_M_N_ATOM_SASS)
        k.metric[GM_M_N_ATOM] = NAN;
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_NOTE_MISSING_COUNTER);
    assert_true(isnan(r.avg.U)); /* no number rather than a wrong one */
    if (!strstr(r.verdict, needle))
        print_error("verdict '%s' lacks '%s'\n", r.verdict, needle);
    assert_non_null(strstr(r.verdict, needle));
    gm_kernel_result_free(&r);
    gm_table_free(t);
}

static void test_apply_missing_counters_say_which(void **state)
{
    (void)state;
    expect_missing(GM_M_N_ATOM_SASS, "paper", "smsp__sass_inst_executed_op_shared_atom.sum");
    expect_missing(GM_M_O_WAVEFRONTS, "paper", "O (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum)");
    expect_missing(GM_M_OCCUPANCY_PCT, "paper", "sm__warps_active.avg.pct_of_peak_sustained_active");
    expect_missing(GM_M_SHARED_PENDING, "measured-n", "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum");
}

static void test_apply_missing_cycles(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_M_CYCLES_AVG] = NAN;
    k.metric[GM_M_CYCLES_SUM] = NAN;
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_NOTE_MISSING_COUNTER);
    assert_non_null(strstr(r.verdict, "sm__cycles_active.avg"));
    /* only the average: T = sum / SM count = 344000 / 4 */
    counters_example(&k);
    k.metric[GM_M_CYCLES_AVG] = NAN;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.T, 86000, TOL);
    assert_near(r.avg.U, 0.5, TOL);
    /* no T_min: U_hi undefined; T_min = 0: undefined too */
    counters_example(&k);
    k.metric[GM_M_CYCLES_MIN] = 0;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(isnan(r.U_hi));
    assert_near(r.U_lo, 0.25, TOL);
    gm_table_free(t);
}

static void test_apply_cas_sources(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    gm_kernel_result r;
    /* only dot_alu: N_c = N - N_f = 1600 - 1200 = 400: same answer */
    counters_example(&k);
    k.metric[GM_M_N_CAS] = NAN;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 100);
    assert_near(r.avg.U, 0.5, TOL);
    assert_non_null(strstr(r.split_source, "dot_alu"));
    assert_false(r.notes & GM_NOTE_MISSING_COUNTER);
    /* neither: assumed no CAS, and said so.  c = 0: S = T(2,2,0)/2 = 100,
     * B = 40000, U = 40000 / 86000 */
    k.metric[GM_M_N_ALU] = NAN;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 0);
    assert_near(r.avg.U, 40000.0 / 86000.0, TOL);
    assert_true(r.notes & GM_NOTE_MISSING_COUNTER);
    assert_string_equal(r.split_source, "assumed no CAS: N_c counter missing");
    /* neither, but an opcode split: N_c = N * cas / total = 1600 * 1/4 */
    k.split = (gm_opcode_split){1, 300, 100, 0, 0};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 100);
    assert_string_equal(r.split_source, "sass classification");
    gm_table_free(t);
}

static void test_apply_measured_n(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("measured-n");
    gm_launch_counters k;
    counters_example(&k);
    /* pending / cycles_sum = 1376000 / 344000 = 4 shared instructions in
     * flight per SM; atomics' share N_atom / shared inst = 1600 / 3200 = 0.5:
     * n = 2, the worked example (U = 0.5), without the n-hat note */
    k.metric[GM_M_SHARED_PENDING] = 1376000;
    k.metric[GM_M_SHARED_INST] = 3200;
    k.metric[GM_M_OCCUPANCY_PCT] = 100; /* n-hat 4, reported but not used */
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.n_measured, 2);
    assert_exact(r.n_hat, 4);
    assert_exact(r.avg.n, 2);
    assert_near(r.avg.U, 0.5, TOL);
    assert_false(r.notes & GM_NOTE_N_APPROX);
    /* the paper's variant computes n_measured too, for comparison */
    o = model("paper");
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.n_measured, 2);
    assert_exact(r.avg.n, 4);
    assert_true(r.notes & GM_NOTE_N_APPROX);
    gm_table_free(t);
}

static void test_apply_measured_n_below_one(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("measured-n");
    gm_launch_counters k;
    counters_example(&k);
    /* 0.5 per SM in flight, all of them atomics: n = 0.5, so S = T(1, e, c)
     * with c = 0.5 * 100/400 = 0.125: T(1,2,0) = 170, T(1,2,1) = 200 -> 173.75;
     * B = 400 * 173.75 = 69500, U = 69500 / 86000 */
    k.metric[GM_M_SHARED_PENDING] = 172000;
    k.metric[GM_M_SHARED_INST] = 1600;
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.n, 0.5);
    assert_near(r.avg.S, 173.75, TOL);
    assert_near(r.avg.U, 69500.0 / 86000.0, TOL);
    gm_table_free(t);
}

static void test_apply_opcode_split(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_POPC);
    gm_model_options o = model("opcode");
    gm_launch_counters k;
    counters_example(&k);
    /* 4 SMs; split ADD 1 : CAS 1 : POPC 2 of N = 1600 -> per SM 100/100/200;
     * e = O/N = 1600/1600 = 1; n-hat = 2; T = 52000: the by-opcode worked
     * example of test_table2_by_opcode_weighted, U = 0.5 */
    k.metric[GM_M_O_WAVEFRONTS] = 1600;
    k.metric[GM_M_CYCLES_SUM] = 208000;
    k.metric[GM_M_CYCLES_AVG] = 52000;
    k.split = (gm_opcode_split){1, 400, 400, 800, 0};
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_popc, 200);
    assert_exact(r.avg.N_c, 100);
    assert_near(r.avg.S, 65, TOL);
    assert_near(r.avg.U, 0.5, TOL);
    assert_string_equal(r.split_source, "sass classification");
    assert_false(r.notes & GM_NOTE_SPLIT_FALLBACK);
    gm_table_free(t);
}

static void test_apply_opcode_fallbacks(void **state)
{
    (void)state;
    gm_model_options o = model("opcode");
    gm_launch_counters k;
    gm_kernel_result r;
    /* no split collected: the paper's FAO/CAS split, flagged */
    gm_table *t = test_table(WITH_POPC);
    counters_example(&k);
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_NOTE_SPLIT_FALLBACK);
    assert_string_equal(r.split_source,
                        "fallback: no opcode split collected; hardware dot_cas/dot_alu");
    assert_near(r.avg.U, 0.5, TOL);
    assert_exact(r.avg.N_popc, 0);
    gm_table_free(t);
    /* POPC.INC jobs but no POPC.INC series in the table */
    t = test_table(0);
    k.split = (gm_opcode_split){1, 400, 400, 800, 0};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_NOTE_SPLIT_FALLBACK);
    assert_non_null(strstr(r.split_source, "fallback: table has no popc_inc series"));
    assert_near(r.avg.U, 0.5, TOL);
    /* an empty split */
    k.split = (gm_opcode_split){1, 0, 0, 0, 0};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_non_null(strstr(r.split_source, "fallback: opcode split is empty"));
    /* no POPC.INC jobs: no POPC series needed, no fallback */
    k.split = (gm_opcode_split){1, 1200, 400, 0, 0};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_false(r.notes & GM_NOTE_SPLIT_FALLBACK);
    assert_near(r.avg.U, 0.5, TOL);
    gm_table_free(t);
}

static void test_apply_steady_variant_uses_steady_series(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_STEADY);
    gm_model_options o = model("steady");
    gm_launch_counters k;
    counters_example(&k);
    /* steady series: T(2,2,0.5) = (T(2,2,0) + T(2,2,1)) / 2 = (16 + 17) / 2 = 16.5,
     * S = 8.25, B = 400 * 8.25 = 3300, U = 3300 / 86000 */
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.S, 8.25, TOL);
    assert_near(r.avg.U, 3300.0 / 86000.0, TOL);
    gm_table_free(t);
    /* a table without it: an error that names the series */
    t = test_table(0);
    gm_error err = {{0}};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "add,same_address,steady_state"));
    gm_table_free(t);
}

static void test_apply_wavefront_variant(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_STEADY);
    gm_launch_counters k;
    counters_example(&k);
    gm_kernel_result r;
    /* steady series T = 4ne + c: slope 4 on every layer, w = 4.  Per SM:
     * N = 400, e = O/N = 3200/1600 = 2: S = 8, B = 3200 (= O/SM x w = 800 x 4),
     * T = 86000: U = 3200/86000; bounds B/T_max = 3200/172000, B/T_min = 3200/43000 */
    for (int i = 0; i < 2; i++) {
        gm_model_options o = model(i ? "default" : "wavefront");
        assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
        assert_near(r.avg.S, 8, TOL);
        assert_near(r.avg.B, 3200, 1e-9);
        assert_near(r.avg.U, 3200.0 / 86000.0, TOL);
        assert_near(r.U_lo, 3200.0 / 172000.0, TOL);
        assert_near(r.U_hi, 3200.0 / 43000.0, TOL);
        assert_exact(r.avg.n, 2); /* n-hat, reported only */
        assert_int_equal(r.notes, GM_NOTE_AVG_SM | GM_NOTE_E_UNIFORM);
    }
    gm_model_options o = model("wavefront");
    /* no occupancy: nothing missing, n unknown */
    k.metric[GM_M_OCCUPANCY_PCT] = NAN;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.U, 3200.0 / 86000.0, TOL);
    assert_true(isnan(r.avg.n));
    assert_false(r.notes & GM_NOTE_MISSING_COUNTER);
    /* no atomics: exactly 0 */
    k.metric[GM_M_N_ATOM_SASS] = 0;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.U, 0);
    gm_table_free(t);
    /* a table without a steady-state series: w from the single-shot one
     * (30, test_cycles_per_wavefront_median_slope), flagged:
     * S = 2 x 30 = 60, B = 24000, U = 24000 / 86000 */
    t = test_table(0);
    counters_example(&k);
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.U, 24000.0 / 86000.0, TOL);
    assert_true(r.notes & GM_NOTE_W_SINGLE_SHOT);
    gm_table_free(t);
}

static void test_apply_wavefront_per_sm(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_STEADY);
    gm_model_options o = model("wavefront");
    gm_launch_counters k;
    counters_blank(&k);
    /* per SM, w = 4, e = O/N = 800/400 = 2, S = 8: SM 0: 400 jobs, B = 3200,
     * T = 6400: U = 0.5; SM 1: no jobs, U = 0 (occupancy unknown on both:
     * not needed).  Average: B = 1600, T = 5200. */
    double n_f[2] = {300, 0}, n_c[2] = {100, 0}, cycles[2] = {6400, 4000}, occ[2] = {NAN, NAN};
    k.n_sm = 2;
    k.sm_n_f = n_f;
    k.sm_n_c = n_c;
    k.sm_cycles = cycles;
    k.sm_occupancy = occ;
    k.metric[GM_M_O_WAVEFRONTS] = 800;
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.per_sm[0].U, 0.5, TOL);
    assert_exact(r.per_sm[1].U, 0);
    assert_near(r.avg.U, 1600.0 / 5200.0, TOL);
    gm_kernel_result_free(&r);
    gm_table_free(t);
}

static void test_apply_measured_steady_lanes(void **state)
{
    (void)state;
    gm_table *t = test_table(WITH_STEADY | WITH_POPC_STEADY);
    gm_model_options o = model("measured-steady");
    gm_launch_counters k;
    counters_example(&k);
    /* measured n = pending/cycles x N/inst = 1376000/344000 x 1600/3200 = 2 */
    k.metric[GM_M_SHARED_PENDING] = 1376000;
    k.metric[GM_M_SHARED_INST] = 3200;
    /* Split ADD 1200, CAS 400, no POPC.INC; 2 lanes each: O = 1200 x 2 +
     * 2 x 400 x 2 = 4000 wavefronts (O/N = 2.5, but lanes e = 4000 / (1200 +
     * 2 x 400) = 2).  Per SM N = 400, N_c = 100, c = 2 x 100/400 = 0.5;
     * steady T(2,2,0.5) = 16.5, S = 8.25, B = 3300, U = 3300 / 86000 */
    k.metric[GM_M_O_WAVEFRONTS] = 4000;
    k.split = (gm_opcode_split){1, 1200, 400, 0, 0};
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.n, 2);
    assert_near(r.avg.e, 2, TOL);
    assert_near(r.avg.S, 8.25, TOL);
    assert_near(r.avg.U, 3300.0 / 86000.0, TOL);
    assert_false(r.notes & GM_NOTE_N_APPROX);
    /* With POPC.INC: split ADD 800, CAS 400, POPC 400 (per SM 200/100/100);
     * O = 400 x 1 + 800 x 2 + 2 x 400 x 2 = 3600: e = (3600 - 400) / (800 +
     * 800) = 2.  FAO/CAS series: c = 2 x 100/300, T(2,2,2/3) = 16 + 2/3,
     * S_fc = 25/3; POPC.INC steady T = 2n: S_p = 4/2 = 2;
     * S = (300 x 25/3 + 100 x 2) / 400 = 6.75, B = 2700, U = 2700 / 86000 */
    k.metric[GM_M_O_WAVEFRONTS] = 3600;
    k.split = (gm_opcode_split){1, 800, 400, 400, 0};
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.e, 2, TOL);
    assert_exact(r.avg.N_popc, 100);
    assert_near(r.avg.S, 6.75, TOL);
    assert_near(r.avg.U, 2700.0 / 86000.0, TOL);
    /* The other variants keep e = O/N = 3600/1600 = 2.25 */
    o = model("opcode");
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.e, 2.25, TOL);
    gm_table_free(t);
}

static void test_apply_clamp_note(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_M_O_WAVEFRONTS] = 1600 * 6; /* e = 6 > 4 lanes */
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_NOTE_CLAMPED);
    assert_int_equal(r.avg.clamp_flags, GM_CLAMP_E_HIGH);
    gm_table_free(t);
}

static void test_apply_per_sm(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_blank(&k);
    /* SM 0: the worked example (N_f 300, N_c 100, 86000 cycles, 50%): U = 0.5
     * SM 1: idle for atomics (0 jobs, 50000 cycles): U = 0
     * e = O / N = 800 / 400 = 2 on both.  Average SM: N = 200, B = 21500,
     * T = 68000, U = 21500 / 68000; bounds are the SMs' least and most U. */
    double n_f[2] = {300, 0}, n_c[2] = {100, 0}, cycles[2] = {86000, 50000}, occ[2] = {50, 50};
    k.n_sm = 2;
    k.sm_n_f = n_f;
    k.sm_n_c = n_c;
    k.sm_cycles = cycles;
    k.sm_occupancy = occ;
    k.metric[GM_M_O_WAVEFRONTS] = 800;
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_int_equal(r.n_per_sm, 2);
    assert_int_equal(r.sm_count, 2);
    assert_near(r.per_sm[0].U, 0.5, TOL);
    assert_exact(r.per_sm[1].U, 0);
    assert_exact(r.avg.N, 200);
    assert_near(r.avg.B, 21500, 1e-6);
    assert_exact(r.avg.T, 68000);
    assert_near(r.avg.U, 21500.0 / 68000.0, TOL);
    assert_exact(r.U_lo, 0);
    assert_near(r.U_hi, 0.5, TOL);
    assert_false(r.notes & GM_NOTE_AVG_SM);
    assert_true(r.notes & GM_NOTE_E_UNIFORM);
    assert_string_equal(r.split_source, "per-SM N_f/N_c counters");
    gm_kernel_result_free(&r);
    assert_null(r.per_sm);
    assert_int_equal(r.n_per_sm, 0);
    gm_kernel_result_free(&r); /* twice is harmless */
    gm_table_free(t);
}

static void test_apply_per_sm_vs_average(void **state)
{
    (void)state;
    /* Two identical SMs, per SM or as totals: the same U. */
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters per, tot;
    counters_blank(&per);
    double n_f[2] = {300, 300}, n_c[2] = {100, 100}, cycles[2] = {86000, 86000}, occ[2] = {50, 50};
    per.n_sm = 2;
    per.sm_n_f = n_f;
    per.sm_n_c = n_c;
    per.sm_cycles = cycles;
    per.sm_occupancy = occ;
    per.metric[GM_M_O_WAVEFRONTS] = 1600;
    counters_blank(&tot);
    tot.metric[GM_M_N_ATOM_SASS] = 800;
    tot.metric[GM_M_N_CAS] = 200;
    tot.metric[GM_M_O_WAVEFRONTS] = 1600;
    tot.metric[GM_M_CYCLES_SUM] = 172000;
    tot.metric[GM_M_CYCLES_AVG] = 86000;
    tot.metric[GM_M_OCCUPANCY_PCT] = 50;
    gm_kernel_result a, b;
    assert_int_equal(gm_model_apply(t, &o, &per, &a, NULL), GM_OK);
    assert_int_equal(gm_model_apply(t, &o, &tot, &b, NULL), GM_OK);
    assert_near(a.avg.U, 0.5, TOL);
    assert_near(b.avg.U, 0.5, TOL);
    assert_near(a.avg.S, b.avg.S, TOL);
    assert_near(a.avg.c, b.avg.c, TOL);
    assert_true(isnan(b.U_lo)); /* no min/max cycles given */
    gm_kernel_result_free(&a);
    gm_kernel_result_free(&b);
    gm_table_free(t);
}

static void test_apply_rejects_null(void **state)
{
    (void)state;
    gm_table *t = test_table(0);
    gm_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    gm_kernel_result r;
    assert_int_equal(gm_model_apply(NULL, &o, &k, &r, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_model_apply(t, NULL, &k, &r, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_model_apply(t, &o, NULL, &r, NULL), GM_ERR_INVALID_ARG);
    k.metric[GM_M_N_ATOM_SASS] = -5;
    assert_int_equal(gm_model_apply(t, &o, &k, &r, NULL), GM_ERR_RANGE);
    gm_table_free(t);
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
        cmocka_unit_test(test_table2_worked_example),
        cmocka_unit_test(test_table2_all_fao_and_all_cas),
        cmocka_unit_test(test_table2_no_jobs),
        cmocka_unit_test(test_table2_rejects_bad_input),
        cmocka_unit_test(test_table2_by_opcode_weighted),
        cmocka_unit_test(test_table2_missing_series),
        cmocka_unit_test(test_table2_clamp_flags_travel),
        cmocka_unit_test(test_e_from_counters),
        cmocka_unit_test(test_model_by_name),
        cmocka_unit_test(test_cycles_per_wavefront_median_slope),
        cmocka_unit_test(test_cycles_per_wavefront_odd_layer_count),
        cmocka_unit_test(test_cycles_per_wavefront_errors),
        cmocka_unit_test(test_table2_wavefront_busy),
        cmocka_unit_test(test_apply_average_sm),
        cmocka_unit_test(test_apply_sm_count_fallback_and_N_source),
        cmocka_unit_test(test_apply_no_atomics),
        cmocka_unit_test(test_apply_missing_counters_say_which),
        cmocka_unit_test(test_apply_missing_cycles),
        cmocka_unit_test(test_apply_cas_sources),
        cmocka_unit_test(test_apply_measured_n),
        cmocka_unit_test(test_apply_measured_n_below_one),
        cmocka_unit_test(test_apply_opcode_split),
        cmocka_unit_test(test_apply_opcode_fallbacks),
        cmocka_unit_test(test_apply_steady_variant_uses_steady_series),
        cmocka_unit_test(test_apply_wavefront_variant),
        cmocka_unit_test(test_apply_wavefront_per_sm),
        cmocka_unit_test(test_apply_measured_steady_lanes),
        cmocka_unit_test(test_apply_clamp_note),
        cmocka_unit_test(test_apply_per_sm),
        cmocka_unit_test(test_apply_per_sm_vs_average),
        cmocka_unit_test(test_apply_rejects_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
