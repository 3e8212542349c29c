/* The synthetic table and launch counters that the model tests share
 * (test_atomics_model_eq.c, test_atomics_model_table2.c, test_atomics_model_apply.c); the formulas
 * are in atomics_model_fixture.h. */
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

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}

double T_add(int n, int e, int c)
{
    return 100 + 20.0 * n + 10.0 * e * e + 30.0 * c + 5.0 * n * e;
}

double T_popc(int n)
{
    return 50 + 10.0 * n;
}

double T_steady(int n, int e, int c)
{
    return 4.0 * n * e + c;
}

void fill(gm_atomics_series *s, double (*f)(int, int, int))
{
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                double T = f(n, e, c);
                *gm_atomics_series_cell(s, n, e, c) = (gm_atomics_cell){T, T, T, 0, 1, 0};
            }
}

double popc_3(int n, int e, int c)
{
    (void)e;
    (void)c;
    return T_popc(n);
}

double popc_steady(int n, int e, int c)
{
    (void)e;
    (void)c;
    return 2.0 * n;
}

gm_atomics_table *test_table(int which)
{
    gm_atomics_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU");
    m.cc_major = 9;
    m.sm_count = 4;
    m.max_warps_per_sm = 4;
    m.warp_size = 4;
    gm_atomics_table *t = gm_atomics_table_new(&m);
    assert_non_null(t);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    fill(s, T_add);
    if (which & WITH_POPC) {
        assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_POPC_INC,
                                                     GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                     GM_ATOMICS_METHOD_SINGLE_SHOT, 0, &s),
                         GM_OK);
        fill(s, popc_3);
    }
    if (which & WITH_STEADY) {
        assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                     GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                     GM_ATOMICS_METHOD_STEADY_STATE, 1, &s),
                         GM_OK);
        fill(s, T_steady);
    }
    if (which & WITH_POPC_STEADY) {
        assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_POPC_INC,
                                                     GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                     GM_ATOMICS_METHOD_STEADY_STATE, 0, &s),
                         GM_OK);
        fill(s, popc_steady);
    }
    return t;
}

/* Steady-state series for w: T(n,e,c) = 50 + c + w_n n e with w_n = 9, 1,
 * 1.5, 2 cycles per wavefront on layers n = 1..4.  The slope of
 * gm_atomics_cycles_per_wavefront, (T(n,4,0) - T(n,2,0)) / (n (4 - 2)), is w_n on layer n;
 * the layers n_max/4 = 1 .. 4 give the median (1.5 + 2) / 2 = 1.75: the
 * latency-bound layer n = 1 (9) does not pull it. */
const double wave_w[5] = {0, 9, 1, 1.5, 2};

double T_wave(int n, int e, int c)
{
    return 50 + c + wave_w[n] * n * e;
}

gm_atomics_table *wave_table(void)
{
    gm_atomics_table *t = test_table(0);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_STEADY_STATE, 1, &s),
                     GM_OK);
    fill(s, T_wave);
    return t;
}

const gm_atomics_series *add_series(const gm_atomics_table *t)
{
    return gm_atomics_table_find(t, GM_ATOMICS_CLASS_ADD, GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                 GM_ATOMICS_METHOD_SINGLE_SHOT);
}

const gm_atomics_series *popc_series(const gm_atomics_table *t)
{
    return gm_atomics_table_find(t, GM_ATOMICS_CLASS_POPC_INC, GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                 GM_ATOMICS_METHOD_SINGLE_SHOT);
}

gm_atomics_model_options model(const char *name)
{
    gm_atomics_model_options o;
    assert_int_equal(gm_atomics_model_by_name(name, &o), GM_OK);
    return o;
}

/* What gm_launch_counters_init does (counters.c), by hand: zeros, every
 * metric NaN (not collected), no opcode split. */
void counters_blank(gm_launch_counters *k)
{
    memset(k, 0, sizeof *k);
    for (int i = 0; i < GM_METRIC_COUNT; i++)
        k->metric[i] = NAN;
    k->pass.valid = 0;
    for (int v = 0; v < GM_PASS_VALUES_MAX; v++)
        k->pass.value[v] = NAN;
}

/* The worked example of test_table2_worked_example as counters of a
 * 4-SM launch (average SM = the example):
 *   N = 1600 (400 per SM), N_c = 400 (100 per SM), O = 3200 (e = 2),
 *   cycles sum 344000 over avg 86000 -> 4 SMs, occupancy 50% -> n-hat 2,
 *   cycles min 43000, max 172000. */
void counters_example(gm_launch_counters *k)
{
    counters_blank(k);
    k->metric[GM_ATOMICS_M_N_ATOM_SASS] = 1600;
    k->metric[GM_ATOMICS_M_N_ATOM] = 1600;
    k->metric[GM_ATOMICS_M_N_CAS] = 400;
    k->metric[GM_ATOMICS_M_N_ALU] = 1200;
    k->metric[GM_ATOMICS_M_O_WAVEFRONTS] = 3200;
    k->metric[GM_ATOMICS_M_CYCLES_SUM] = 344000;
    k->metric[GM_ATOMICS_M_CYCLES_AVG] = 86000;
    k->metric[GM_ATOMICS_M_CYCLES_MIN] = 43000;
    k->metric[GM_ATOMICS_M_CYCLES_MAX] = 172000;
    k->metric[GM_ATOMICS_M_OCCUPANCY_PCT] = 50;
}
