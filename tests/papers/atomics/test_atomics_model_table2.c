/* Unit tests of the model's Table 2 (paper 000, Sec. 3), its variants by
 * name and the wavefront busy time, on the synthetic table of
 * atomics_model_fixture.h.  Every expected number is worked out by hand in a
 * comment next to it. */
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

/* ---- Table 2 ----------------------------------------------------------- */

static void test_table2_worked_example(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_atomics_sm_result r;
    gm_error err = {{0}};
    /* One SM: N_f = 300 FAO and N_c = 100 CAS jobs, n-hat = 2, e = 2, T = 86000.
     *   N = 400, c = n N_c / N = 2 * 100 / 400 = 0.5
     *   T(2,2,0.5) = (T(2,2,0) + T(2,2,1)) / 2 = (200 + 230) / 2 = 215
     *   S = 215 / 2 = 107.5, B = N S = 43000, U = B / T = 0.5 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 300, 100, 0, 2, 2, 86000, &r, &err), GM_OK);
    assert_exact(r.N, 400);
    assert_exact(r.N_c, 100);
    assert_near(r.c, 0.5, TOL);
    assert_near(r.S, 107.5, TOL);
    assert_near(r.B, 43000, 1e-6);
    assert_near(r.U, 0.5, TOL);
    assert_exact(r.T, 86000);
    assert_int_equal(r.clamp_flags, 0);
    gm_atomics_table_free(t);
}

static void test_table2_all_fao_and_all_cas(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_atomics_sm_result r;
    /* all FAO, n = 4, e = 1: c = 0, S = T(4,1,0)/4 = (100+80+10+20)/4 = 52.5 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 1000, 0, 0, 4, 1, 105000, &r, NULL), GM_OK);
    assert_near(r.c, 0, TOL);
    assert_near(r.S, 52.5, TOL);
    assert_near(r.U, 0.5, TOL);
    /* all CAS, n = 4, e = 1: c = 4, S = T(4,1,4)/4 = 330/4 = 82.5 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 0, 1000, 0, 4, 1, 82500, &r, NULL), GM_OK);
    assert_near(r.c, 4, TOL);
    assert_near(r.S, 82.5, TOL);
    assert_near(r.U, 1.0, TOL);
    gm_atomics_table_free(t);
}

static void test_table2_no_jobs(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_atomics_sm_result r;
    /* N = 0: B = 0, U = 0, even when T = 0 (no division) */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 0, 0, 0, 2, 0, 0, &r, NULL), GM_OK);
    assert_exact(r.B, 0);
    assert_exact(r.U, 0);
    assert_exact(r.N, 0);
    gm_atomics_table_free(t);
}

static void test_table2_rejects_bad_input(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_atomics_sm_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table2_sm(t, &o, 10, 0, 0, 2, 2, 0, &r, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "T=0 cycles with N=10 jobs"));
    assert_int_equal(gm_atomics_table2_sm(t, &o, 10, 0, 0, 2, 2, -5, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_table2_sm(t, &o, -1, 0, 0, 2, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_table2_sm(t, &o, NAN, 0, 0, 2, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_table2_sm(t, &o, 10, 0, 0, NAN, 2, 100, &r, &err), GM_ERR_RANGE);
    assert_int_equal(gm_atomics_table2_sm(NULL, &o, 10, 0, 0, 2, 2, 100, &r, &err),
                     GM_ERR_INVALID_ARG);
    gm_atomics_table_free(t);
}

static void test_table2_by_opcode_weighted(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_POPC);
    gm_atomics_model_options o = model("opcode");
    gm_atomics_sm_result r;
    /* N_f = 100 ADD, N_c = 100 CAS, N_popc = 200 POPC.INC, n = 2, e = 1, T = 52000.
     *   FAO/CAS series: its own CAS share: c = 2 * 100 / 200 = 1,
     *     S_fc = T(2,1,1) / 2 = 190 / 2 = 95
     *   POPC series: S_p = T_popc(2) / 2 = 70 / 2 = 35
     *   S = (200 * 95 + 200 * 35) / 400 = 65, B = 26000, U = 0.5 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 100, 100, 200, 2, 1, 52000, &r, NULL), GM_OK);
    assert_exact(r.N, 400);
    assert_exact(r.N_popc, 200);
    assert_near(r.c, 1, TOL);
    assert_near(r.S, 65, TOL);
    assert_near(r.B, 26000, 1e-6);
    assert_near(r.U, 0.5, TOL);
    /* The paper's split counts POPC.INC as FAO: N_f = 300, N_c = 100,
     *   c = 2 * 100 / 400 = 0.5, S = T(2,1,0.5)/2 = 175/2 = 87.5, B = 35000 */
    gm_atomics_model_options p = model("paper");
    assert_int_equal(gm_atomics_table2_sm(t, &p, 100, 100, 200, 2, 1, 52000, &r, NULL), GM_OK);
    assert_exact(r.N_popc, 0);
    assert_near(r.c, 0.5, TOL);
    assert_near(r.S, 87.5, TOL);
    assert_near(r.B, 35000, 1e-6);
    gm_atomics_table_free(t);
}

static void test_table2_missing_series(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("opcode");
    gm_atomics_sm_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table2_sm(t, &o, 100, 0, 100, 2, 1, 1000, &r, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "no popc_inc,same_address,single_shot series"));
    o = model("steady");
    assert_int_equal(gm_atomics_table2_sm(t, &o, 100, 0, 0, 2, 1, 1000, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "add,same_address,steady_state"));
    gm_atomics_table_free(t);
}

static void test_table2_clamp_flags_travel(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_atomics_sm_result r;
    /* e = 6 > 4 lanes, n = 5 > 4 warps */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 10, 0, 0, 5, 6, 1000, &r, NULL), GM_OK);
    assert_int_equal(r.clamp_flags, GM_ATOMICS_CLAMP_N_HIGH | GM_ATOMICS_CLAMP_E_HIGH);
    gm_atomics_table_free(t);
}

static void test_e_from_counters(void **state)
{
    (void)state;
    /* Table 2: e = O / sum N */
    assert_exact(gm_atomics_e_from_counters(3200, 100), 32);
    assert_exact(gm_atomics_e_from_counters(315, 100), 3.15);
    assert_exact(gm_atomics_e_from_counters(0, 0), 0);
    assert_exact(gm_atomics_e_from_counters(50, 0), 0);
}

/* ---- variants ---------------------------------------------------------- */

static void test_model_by_name(void **state)
{
    (void)state;
    gm_atomics_model_options o;
    assert_int_equal(gm_atomics_model_by_name("paper", &o), GM_OK);
    assert_int_equal(o.method, GM_ATOMICS_METHOD_SINGLE_SHOT);
    assert_int_equal(o.n_source, GM_ATOMICS_N_OCCUPANCY);
    assert_int_equal(o.split, GM_ATOMICS_SPLIT_FAO_CAS);
    assert_int_equal(o.pattern, GM_ATOMICS_PATTERN_SAME_ADDRESS);
    assert_string_equal(o.name, "paper");
    assert_int_equal(gm_atomics_model_by_name("steady", &o), GM_OK);
    assert_int_equal(o.method, GM_ATOMICS_METHOD_STEADY_STATE);
    assert_int_equal(gm_atomics_model_by_name("measured-n", &o), GM_OK);
    assert_int_equal(o.n_source, GM_ATOMICS_N_MEASURED);
    assert_int_equal(gm_atomics_model_by_name("opcode", &o), GM_OK);
    assert_int_equal(o.split, GM_ATOMICS_SPLIT_BY_OPCODE);
    assert_int_equal(o.e_source, GM_ATOMICS_E_WAVEFRONTS);
    assert_int_equal(o.busy, GM_ATOMICS_BUSY_QUEUE);
    assert_int_equal(gm_atomics_model_by_name("measured-steady", &o), GM_OK);
    assert_int_equal(o.method, GM_ATOMICS_METHOD_STEADY_STATE);
    assert_int_equal(o.n_source, GM_ATOMICS_N_MEASURED);
    assert_int_equal(o.split, GM_ATOMICS_SPLIT_BY_OPCODE);
    assert_int_equal(o.e_source, GM_ATOMICS_E_LANES);
    assert_int_equal(o.busy, GM_ATOMICS_BUSY_QUEUE);
    gm_atomics_model_options w;
    assert_int_equal(gm_atomics_model_by_name("wavefront", &w), GM_OK);
    assert_int_equal(w.busy, GM_ATOMICS_BUSY_WAVEFRONTS);
    assert_int_equal(w.method, GM_ATOMICS_METHOD_STEADY_STATE);
    assert_int_equal(w.e_source, GM_ATOMICS_E_WAVEFRONTS);
    /* The validation chose `wavefront` (docs/validation.md): `default` is a
     * copy of it under its own name.  (Before the validation: `paper`.) */
    assert_int_equal(gm_atomics_model_by_name("default", &o), GM_OK);
    assert_string_equal(o.name, "default");
    assert_int_equal(o.method, w.method);
    assert_int_equal(o.n_source, w.n_source);
    assert_int_equal(o.split, w.split);
    assert_int_equal(o.pattern, w.pattern);
    assert_int_equal(o.e_source, w.e_source);
    assert_int_equal(o.busy, w.busy);
    assert_int_equal(o.latency, GM_ATOMICS_LATENCY_ISSUE);
    /* `latency-sb-mio`: `default`'s U, the latency kind's two-counter L */
    assert_int_equal(gm_atomics_model_by_name("latency-sb-mio", &o), GM_OK);
    assert_int_equal(o.busy, w.busy);
    assert_int_equal(o.method, w.method);
    assert_int_equal(o.e_source, w.e_source);
    assert_int_equal(o.latency, GM_ATOMICS_LATENCY_SB_MIO);
    /* `paper` stays the paper's Table 2 */
    assert_int_equal(gm_atomics_model_by_name("paper", &o), GM_OK);
    assert_int_equal(o.e_source, GM_ATOMICS_E_WAVEFRONTS);
    assert_int_equal(o.busy, GM_ATOMICS_BUSY_QUEUE);
    assert_int_equal(gm_atomics_model_by_name("Paper", &o), GM_ERR_PARSE);
    assert_int_equal(gm_atomics_model_by_name(NULL, &o), GM_ERR_INVALID_ARG);
    /* every listed name resolves */
    char names[128];
    snprintf(names, sizeof names, "%s", gm_atomics_model_names());
    int count = 0;
    for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
        assert_int_equal(gm_atomics_model_by_name(tok, &o), GM_OK);
        assert_string_equal(o.name, tok);
        count++;
    }
    assert_int_equal(count, 8);
}

/* ---- wavefront busy time -------------------------------------------------- */

static void test_cycles_per_wavefront_median_slope(void **state)
{
    (void)state;
    gm_atomics_table *t = wave_table();
    double w = 0;
    gm_atomics_method used = GM_ATOMICS_METHOD_COUNT;
    /* slopes 9, 1, 1.5, 2 on layers 1..4: median 1.75 (wave_table) */
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, &used, NULL),
                     GM_OK);
    assert_near(w, 1.75, TOL);
    assert_int_equal(used, GM_ATOMICS_METHOD_STEADY_STATE);
    /* the single-shot series: T = 100 + 20n + 10e^2 + 30c + 5ne, slope
     * (T(n,4,0) - T(n,2,0)) / 2n = (120 + 10n) / 2n = 60/n + 5: 65, 35, 25,
     * 20 on layers 1..4, median (25 + 35) / 2 = 30 */
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_SINGLE_SHOT, &w, &used, NULL),
                     GM_OK);
    assert_near(w, 30, TOL);
    assert_int_equal(used, GM_ATOMICS_METHOD_SINGLE_SHOT);
    gm_atomics_table_free(t);
    /* no steady-state series: the single-shot one, and said so */
    t = test_table(0);
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, &used, NULL),
                     GM_OK);
    assert_near(w, 30, TOL);
    assert_int_equal(used, GM_ATOMICS_METHOD_SINGLE_SHOT);
    gm_atomics_table_free(t);
}

static void test_cycles_per_wavefront_odd_layer_count(void **state)
{
    (void)state;
    /* 8 warps x 4 lanes, T = 10 + n e (n + 1): slope per wavefront n + 1 on
     * layer n; layers n_max/4 = 2 .. 8 (7 of them) have slopes 3..9, median 6 */
    gm_atomics_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU 8");
    m.sm_count = 1;
    m.max_warps_per_sm = 8;
    m.warp_size = 4;
    gm_atomics_table *t = gm_atomics_table_new(&m);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    for (int n = 1; n <= 8; n++)
        for (int e = 1; e <= 4; e++) {
            double T = 10 + (double)n * e * (n + 1);
            *gm_atomics_series_cell(s, n, e, 0) = (gm_atomics_cell){T, T, T, 0, 1, 0};
        }
    double w;
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, NULL, NULL),
                     GM_OK);
    assert_near(w, 6, TOL);
    /* a missing cell on a layer it reads: an error naming it */
    gm_atomics_series_cell(s, 5, 2, 0)->t_median = NAN;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "n=5"));
    gm_atomics_table_free(t);
}

static void test_cycles_per_wavefront_errors(void **state)
{
    (void)state;
    gm_atomics_table_meta m;
    memset(&m, 0, sizeof m);
    m.max_warps_per_sm = 4;
    m.warp_size = 4;
    gm_atomics_table *t = gm_atomics_table_new(&m);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_POPC_INC,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    double w;
    gm_error err = {{0}};
    /* no add,same_address series at all */
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "no add,same_address series"));
    assert_int_equal(gm_atomics_cycles_per_wavefront(NULL, GM_ATOMICS_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_INVALID_ARG);
    /* a flat series (T the same at every e): w = 0 is no rate */
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_STEADY_STATE, 0, &s),
                     GM_OK);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            *gm_atomics_series_cell(s, n, e, 0) = (gm_atomics_cell){40, 40, 40, 0, 1, 0};
    assert_int_equal(gm_atomics_cycles_per_wavefront(t, GM_ATOMICS_METHOD_STEADY_STATE, &w, NULL, &err),
                     GM_ERR_RANGE);
    gm_atomics_table_free(t);
}

static void test_table2_wavefront_busy(void **state)
{
    (void)state;
    gm_atomics_table *t = wave_table();
    gm_atomics_model_options o = model("wavefront");
    gm_atomics_sm_result r;
    /* N_f = 300, N_c = 100, e = 2.5 wavefronts per job (O = 1000), w = 1.75:
     *   S = e w = 4.375, B = N S = 400 * 4.375 = 1750 (= O w), T = 3500: U = 0.5.
     * n is not used (any n, or none, gives the same); c = 2 * 100 / 400 = 0.5 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 300, 100, 0, 2, 2.5, 3500, &r, NULL), GM_OK);
    assert_exact(r.N, 400);
    assert_near(r.S, 4.375, TOL);
    assert_near(r.B, 1750, 1e-9);
    assert_near(r.U, 0.5, TOL);
    assert_near(r.c, 0.5, TOL);
    assert_int_equal(r.clamp_flags, 0);
    assert_int_equal(gm_atomics_table2_sm(t, &o, 300, 100, 0, NAN, 2.5, 3500, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    /* e = 64 wavefronts (a 32-lane CAS on one address) is no clamp here:
     * S = 64 * 1.75 = 112 for each of 10 jobs, B = 1120, U = 1120 / 2240 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 0, 10, 0, 3, 64, 2240, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    assert_int_equal(r.clamp_flags, 0);
    /* POPC.INC jobs count like any other: 1 wavefront each, e = 1 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 0, 0, 200, 3, 1, 700, &r, NULL), GM_OK);
    assert_near(r.U, 0.5, TOL);
    /* no jobs: exactly 0 */
    assert_int_equal(gm_atomics_table2_sm(t, &o, 0, 0, 0, 3, 0, 700, &r, NULL), GM_OK);
    assert_exact(r.U, 0);
    assert_exact(r.B, 0);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table2_sm(t, &o, 10, 0, 0, 3, -1, 700, &r, &err), GM_ERR_RANGE);
    gm_atomics_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
