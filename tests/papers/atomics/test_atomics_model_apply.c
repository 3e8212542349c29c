/* Unit tests of gm_atomics_model_apply (paper 000, Sec. 3): the model applied to
 * the counters of one launch, on the synthetic table of atomics_model_fixture.h.
 * Every expected number is worked out by hand in a comment next to it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_split.h"
#include "atomics_model_fixture.h"

/* ---- gm_atomics_model_apply ---------------------------------------------------- */

static void test_apply_average_sm(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    gm_atomics_kernel_result r;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, &err), GM_OK);
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
    assert_int_equal(r.notes,
                     GM_ATOMICS_NOTE_AVG_SM | GM_ATOMICS_NOTE_E_UNIFORM | GM_ATOMICS_NOTE_N_APPROX);
    assert_string_equal(r.split_source, "hardware dot_cas/dot_alu");
    assert_true(isnan(r.n_measured));
    assert_int_equal(r.n_per_sm, 0);
    assert_null(r.per_sm);
    gm_atomics_kernel_result_free(&r);
    gm_atomics_table_free(t);
}

static void test_apply_sm_count_fallback_and_N_source(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    t->meta.sm_count = 8;
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = NAN;      /* no sum: SM count from the table, 8 */
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = NAN;     /* N from the hardware counter instead */
    k.metric[GM_ATOMICS_M_N_ATOM] = 3200;         /* 400 per SM over 8 SMs */
    k.metric[GM_ATOMICS_M_N_CAS] = 800;           /* 100 per SM */
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 6400;   /* e = 2 */
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_int_equal(r.sm_count, 8);
    assert_exact(r.avg.N, 400);
    assert_near(r.avg.U, 0.5, TOL); /* the worked example again */
    gm_atomics_kernel_result_free(&r);
    gm_atomics_table_free(t);
}

static void test_apply_no_atomics(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = 0;
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = NAN; /* not needed when N = 0 */
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.U, 0);
    assert_exact(r.avg.B, 0);
    assert_exact(r.U_lo, 0);
    assert_exact(r.U_hi, 0);
    assert_true(r.notes & GM_ATOMICS_NOTE_NO_ATOMICS);
    assert_false(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    gm_atomics_kernel_result_free(&r);
    gm_atomics_table_free(t);
}

static void expect_missing(gm_atomics_metric_id drop, const char *model_name, const char *needle)
{
    gm_atomics_table *t = test_table(WITH_POPC);
    gm_atomics_model_options o = model(model_name);
    gm_launch_counters k;
    counters_example(&k);
    k.metric[drop] = NAN;
    if (drop == GM_ATOMICS_M_N_ATOM_SASS)
        k.metric[GM_ATOMICS_M_N_ATOM] = NAN;
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    assert_true(isnan(r.avg.U)); /* no number rather than a wrong one */
    if (!strstr(r.verdict, needle))
        print_error("verdict '%s' lacks '%s'\n", r.verdict, needle);
    assert_non_null(strstr(r.verdict, needle));
    gm_atomics_kernel_result_free(&r);
    gm_atomics_table_free(t);
}

static void test_apply_missing_counters_say_which(void **state)
{
    (void)state;
    expect_missing(GM_ATOMICS_M_N_ATOM_SASS, "paper",
                   "smsp__sass_inst_executed_op_shared_atom.sum");
    expect_missing(GM_ATOMICS_M_O_WAVEFRONTS, "paper",
                   "O (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum)");
    expect_missing(GM_ATOMICS_M_OCCUPANCY_PCT, "paper",
                   "sm__warps_active.avg.pct_of_peak_sustained_active");
    expect_missing(GM_ATOMICS_M_SHARED_PENDING, "measured-n",
                   "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum");
}

static void test_apply_missing_cycles(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = NAN;
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = NAN;
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    assert_non_null(strstr(r.verdict, "sm__cycles_active.avg"));
    /* only the average: T = sum / SM count = 344000 / 4 */
    counters_example(&k);
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = NAN;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.T, 86000, TOL);
    assert_near(r.avg.U, 0.5, TOL);
    /* no T_min: U_hi undefined; T_min = 0: undefined too */
    counters_example(&k);
    k.metric[GM_ATOMICS_M_CYCLES_MIN] = 0;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(isnan(r.U_hi));
    assert_near(r.U_lo, 0.25, TOL);
    gm_atomics_table_free(t);
}

static void test_apply_cas_sources(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    gm_atomics_kernel_result r;
    /* only dot_alu: N_c = N - N_f = 1600 - 1200 = 400: same answer */
    counters_example(&k);
    k.metric[GM_ATOMICS_M_N_CAS] = NAN;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 100);
    assert_near(r.avg.U, 0.5, TOL);
    assert_non_null(strstr(r.split_source, "dot_alu"));
    assert_false(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    /* neither: assumed no CAS, and said so.  c = 0: S = T(2,2,0)/2 = 100,
     * B = 40000, U = 40000 / 86000 */
    k.metric[GM_ATOMICS_M_N_ALU] = NAN;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 0);
    assert_near(r.avg.U, 40000.0 / 86000.0, TOL);
    assert_true(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    assert_string_equal(r.split_source, "assumed no CAS: N_c counter missing");
    /* neither, but an opcode split: N_c = N * cas / total = 1600 * 1/4 */
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 300, 100, 0, 0});
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_c, 100);
    assert_string_equal(r.split_source, "sass classification");
    gm_atomics_table_free(t);
}

static void test_apply_measured_n(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("measured-n");
    gm_launch_counters k;
    counters_example(&k);
    /* pending / cycles_sum = 1376000 / 344000 = 4 shared instructions in
     * flight per SM; atomics' share N_atom / shared inst = 1600 / 3200 = 0.5:
     * n = 2, the worked example (U = 0.5), without the n-hat note */
    k.metric[GM_ATOMICS_M_SHARED_PENDING] = 1376000;
    k.metric[GM_ATOMICS_M_SHARED_INST] = 3200;
    k.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = 100; /* n-hat 4, reported but not used */
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.n_measured, 2);
    assert_exact(r.n_hat, 4);
    assert_exact(r.avg.n, 2);
    assert_near(r.avg.U, 0.5, TOL);
    assert_false(r.notes & GM_ATOMICS_NOTE_N_APPROX);
    /* the paper's variant computes n_measured too, for comparison */
    o = model("paper");
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.n_measured, 2);
    assert_exact(r.avg.n, 4);
    assert_true(r.notes & GM_ATOMICS_NOTE_N_APPROX);
    gm_atomics_table_free(t);
}

static void test_apply_measured_n_below_one(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("measured-n");
    gm_launch_counters k;
    counters_example(&k);
    /* 0.5 per SM in flight, all of them atomics: n = 0.5, so S = T(1, e, c)
     * with c = 0.5 * 100/400 = 0.125: T(1,2,0) = 170, T(1,2,1) = 200 -> 173.75;
     * B = 400 * 173.75 = 69500, U = 69500 / 86000 */
    k.metric[GM_ATOMICS_M_SHARED_PENDING] = 172000;
    k.metric[GM_ATOMICS_M_SHARED_INST] = 1600;
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.n, 0.5);
    assert_near(r.avg.S, 173.75, TOL);
    assert_near(r.avg.U, 69500.0 / 86000.0, TOL);
    gm_atomics_table_free(t);
}

static void test_apply_opcode_split(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_POPC);
    gm_atomics_model_options o = model("opcode");
    gm_launch_counters k;
    counters_example(&k);
    /* 4 SMs; split ADD 1 : CAS 1 : POPC 2 of N = 1600 -> per SM 100/100/200;
     * e = O/N = 1600/1600 = 1; n-hat = 2; T = 52000: the by-opcode worked
     * example of test_table2_by_opcode_weighted, U = 0.5 */
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 1600;
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = 208000;
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = 52000;
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 400, 400, 800, 0});
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.N_popc, 200);
    assert_exact(r.avg.N_c, 100);
    assert_near(r.avg.S, 65, TOL);
    assert_near(r.avg.U, 0.5, TOL);
    assert_string_equal(r.split_source, "sass classification");
    assert_false(r.notes & GM_ATOMICS_NOTE_SPLIT_FALLBACK);
    gm_atomics_table_free(t);
}

static void test_apply_opcode_fallbacks(void **state)
{
    (void)state;
    gm_atomics_model_options o = model("opcode");
    gm_launch_counters k;
    gm_atomics_kernel_result r;
    /* no split collected: the paper's FAO/CAS split, flagged */
    gm_atomics_table *t = test_table(WITH_POPC);
    counters_example(&k);
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_ATOMICS_NOTE_SPLIT_FALLBACK);
    assert_string_equal(r.split_source,
                        "fallback: no opcode split collected; hardware dot_cas/dot_alu");
    assert_near(r.avg.U, 0.5, TOL);
    assert_exact(r.avg.N_popc, 0);
    gm_atomics_table_free(t);
    /* POPC.INC jobs but no POPC.INC series in the table */
    t = test_table(0);
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 400, 400, 800, 0});
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_ATOMICS_NOTE_SPLIT_FALLBACK);
    assert_non_null(strstr(r.split_source, "fallback: table has no popc_inc series"));
    assert_near(r.avg.U, 0.5, TOL);
    /* an empty split */
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 0, 0, 0, 0});
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_non_null(strstr(r.split_source, "fallback: opcode split is empty"));
    /* no POPC.INC jobs: no POPC series needed, no fallback */
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 1200, 400, 0, 0});
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_false(r.notes & GM_ATOMICS_NOTE_SPLIT_FALLBACK);
    assert_near(r.avg.U, 0.5, TOL);
    gm_atomics_table_free(t);
}

static void test_apply_steady_variant_uses_steady_series(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_STEADY);
    gm_atomics_model_options o = model("steady");
    gm_launch_counters k;
    counters_example(&k);
    /* steady series: T(2,2,0.5) = (T(2,2,0) + T(2,2,1)) / 2 = (16 + 17) / 2 = 16.5,
     * S = 8.25, B = 400 * 8.25 = 3300, U = 3300 / 86000 */
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.S, 8.25, TOL);
    assert_near(r.avg.U, 3300.0 / 86000.0, TOL);
    gm_atomics_table_free(t);
    /* a table without it: an error that names the series */
    t = test_table(0);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "add,same_address,steady_state"));
    gm_atomics_table_free(t);
}

static void test_apply_wavefront_variant(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_STEADY);
    gm_launch_counters k;
    counters_example(&k);
    gm_atomics_kernel_result r;
    /* steady series T = 4ne + c: slope 4 on every layer, w = 4.  Per SM:
     * N = 400, e = O/N = 3200/1600 = 2: S = 8, B = 3200 (= O/SM x w = 800 x 4),
     * T = 86000: U = 3200/86000; bounds B/T_max = 3200/172000, B/T_min = 3200/43000 */
    for (int i = 0; i < 2; i++) {
        gm_atomics_model_options o = model(i ? "default" : "wavefront");
        assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
        assert_near(r.avg.S, 8, TOL);
        assert_near(r.avg.B, 3200, 1e-9);
        assert_near(r.avg.U, 3200.0 / 86000.0, TOL);
        assert_near(r.U_lo, 3200.0 / 172000.0, TOL);
        assert_near(r.U_hi, 3200.0 / 43000.0, TOL);
        assert_exact(r.avg.n, 2); /* n-hat, reported only */
        assert_int_equal(r.notes, GM_ATOMICS_NOTE_AVG_SM | GM_ATOMICS_NOTE_E_UNIFORM);
    }
    gm_atomics_model_options o = model("wavefront");
    /* no occupancy: nothing missing, n unknown */
    k.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = NAN;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.U, 3200.0 / 86000.0, TOL);
    assert_true(isnan(r.avg.n));
    assert_false(r.notes & GM_ATOMICS_NOTE_MISSING_COUNTER);
    /* no atomics: exactly 0 */
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = 0;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.U, 0);
    gm_atomics_table_free(t);
    /* a table without a steady-state series: w from the single-shot one
     * (30, test_cycles_per_wavefront_median_slope), flagged:
     * S = 2 x 30 = 60, B = 24000, U = 24000 / 86000 */
    t = test_table(0);
    counters_example(&k);
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.U, 24000.0 / 86000.0, TOL);
    assert_true(r.notes & GM_ATOMICS_NOTE_W_SINGLE_SHOT);
    gm_atomics_table_free(t);
}

static void test_apply_wavefront_per_sm(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_STEADY);
    gm_atomics_model_options o = model("wavefront");
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
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 800;
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.per_sm[0].U, 0.5, TOL);
    assert_exact(r.per_sm[1].U, 0);
    assert_near(r.avg.U, 1600.0 / 5200.0, TOL);
    gm_atomics_kernel_result_free(&r);
    gm_atomics_table_free(t);
}

static void test_apply_measured_steady_lanes(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(WITH_STEADY | WITH_POPC_STEADY);
    gm_atomics_model_options o = model("measured-steady");
    gm_launch_counters k;
    counters_example(&k);
    /* measured n = pending/cycles x N/inst = 1376000/344000 x 1600/3200 = 2 */
    k.metric[GM_ATOMICS_M_SHARED_PENDING] = 1376000;
    k.metric[GM_ATOMICS_M_SHARED_INST] = 3200;
    /* Split ADD 1200, CAS 400, no POPC.INC; 2 lanes each: O = 1200 x 2 +
     * 2 x 400 x 2 = 4000 wavefronts (O/N = 2.5, but lanes e = 4000 / (1200 +
     * 2 x 400) = 2).  Per SM N = 400, N_c = 100, c = 2 x 100/400 = 0.5;
     * steady T(2,2,0.5) = 16.5, S = 8.25, B = 3300, U = 3300 / 86000 */
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 4000;
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 1200, 400, 0, 0});
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_exact(r.avg.n, 2);
    assert_near(r.avg.e, 2, TOL);
    assert_near(r.avg.S, 8.25, TOL);
    assert_near(r.avg.U, 3300.0 / 86000.0, TOL);
    assert_false(r.notes & GM_ATOMICS_NOTE_N_APPROX);
    /* With POPC.INC: split ADD 800, CAS 400, POPC 400 (per SM 200/100/100);
     * O = 400 x 1 + 800 x 2 + 2 x 400 x 2 = 3600: e = (3600 - 400) / (800 +
     * 800) = 2.  FAO/CAS series: c = 2 x 100/300, T(2,2,2/3) = 16 + 2/3,
     * S_fc = 25/3; POPC.INC steady T = 2n: S_p = 4/2 = 2;
     * S = (300 x 25/3 + 100 x 2) / 400 = 6.75, B = 2700, U = 2700 / 86000 */
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 3600;
    gm_atomics_split_store(&k.pass, &(gm_atomics_split){1, 800, 400, 400, 0});
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.e, 2, TOL);
    assert_exact(r.avg.N_popc, 100);
    assert_near(r.avg.S, 6.75, TOL);
    assert_near(r.avg.U, 2700.0 / 86000.0, TOL);
    /* The other variants keep e = O/N = 3600/1600 = 2.25 */
    o = model("opcode");
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_near(r.avg.e, 2.25, TOL);
    gm_atomics_table_free(t);
}

static void test_apply_clamp_note(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 1600 * 6; /* e = 6 > 4 lanes */
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
    assert_true(r.notes & GM_ATOMICS_NOTE_CLAMPED);
    assert_int_equal(r.avg.clamp_flags, GM_ATOMICS_CLAMP_E_HIGH);
    gm_atomics_table_free(t);
}

static void test_apply_per_sm(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
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
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 800;
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_OK);
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
    assert_false(r.notes & GM_ATOMICS_NOTE_AVG_SM);
    assert_true(r.notes & GM_ATOMICS_NOTE_E_UNIFORM);
    assert_string_equal(r.split_source, "per-SM N_f/N_c counters");
    gm_atomics_kernel_result_free(&r);
    assert_null(r.per_sm);
    assert_int_equal(r.n_per_sm, 0);
    gm_atomics_kernel_result_free(&r); /* twice is harmless */
    gm_atomics_table_free(t);
}

static void test_apply_per_sm_vs_average(void **state)
{
    (void)state;
    /* Two identical SMs, per SM or as totals: the same U. */
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters per, tot;
    counters_blank(&per);
    double n_f[2] = {300, 300}, n_c[2] = {100, 100}, cycles[2] = {86000, 86000}, occ[2] = {50, 50};
    per.n_sm = 2;
    per.sm_n_f = n_f;
    per.sm_n_c = n_c;
    per.sm_cycles = cycles;
    per.sm_occupancy = occ;
    per.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 1600;
    counters_blank(&tot);
    tot.metric[GM_ATOMICS_M_N_ATOM_SASS] = 800;
    tot.metric[GM_ATOMICS_M_N_CAS] = 200;
    tot.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 1600;
    tot.metric[GM_ATOMICS_M_CYCLES_SUM] = 172000;
    tot.metric[GM_ATOMICS_M_CYCLES_AVG] = 86000;
    tot.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = 50;
    gm_atomics_kernel_result a, b;
    assert_int_equal(gm_atomics_model_apply(t, &o, &per, &a, NULL), GM_OK);
    assert_int_equal(gm_atomics_model_apply(t, &o, &tot, &b, NULL), GM_OK);
    assert_near(a.avg.U, 0.5, TOL);
    assert_near(b.avg.U, 0.5, TOL);
    assert_near(a.avg.S, b.avg.S, TOL);
    assert_near(a.avg.c, b.avg.c, TOL);
    assert_true(isnan(b.U_lo)); /* no min/max cycles given */
    gm_atomics_kernel_result_free(&a);
    gm_atomics_kernel_result_free(&b);
    gm_atomics_table_free(t);
}

static void test_apply_rejects_null(void **state)
{
    (void)state;
    gm_atomics_table *t = test_table(0);
    gm_atomics_model_options o = model("paper");
    gm_launch_counters k;
    counters_example(&k);
    gm_atomics_kernel_result r;
    assert_int_equal(gm_atomics_model_apply(NULL, &o, &k, &r, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_atomics_model_apply(t, NULL, &k, &r, NULL), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_atomics_model_apply(t, &o, NULL, &r, NULL), GM_ERR_INVALID_ARG);
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = -5;
    assert_int_equal(gm_atomics_model_apply(t, &o, &k, &r, NULL), GM_ERR_RANGE);
    gm_atomics_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
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
