/* The L2 atomic-unit model and the readings of Robertson's experiments
 * (src/papers/gatomics/gatomics_model.c), on hand-computed cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "papers/gatomics/gatomics_model.h"
#include "test_helpers.h"

/* R_one = 1e9 sectors/s (one slice), R_peak = 60e9 (all slices), RED twice
 * as fast, CAS as fast as ATOM on one slice, half of it on all. */
static gm_gatomics_rates sample_rates(void)
{
    gm_gatomics_rates r = {{1e9, 2e9, 1e9}, {60e9, 120e9, 30e9}};
    return r;
}

static gm_gatomics_input input(double n_atom, double n_red, double a_sum, double a_max, double t)
{
    gm_gatomics_input in = {{n_atom, n_red, 0}, a_sum, a_max, 1000.0, t};
    return in;
}

static void one_address_saturated(void **state)
{
    (void)state;
    gm_gatomics_rates r = sample_rates();
    /* 1e6 ATOM sectors, all on one slice (A_sum = A_max): k = 1, B = 1e6 / 1e9 = 1 ms. */
    gm_gatomics_input in = input(1e6, 0, 900, 900, 1e-3);
    gm_gatomics_result res;
    gm_error err;
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_float_equal(res.k_eff, 1.0, 1e-12);
    assert_float_equal(res.B_slice, 1e-3, 1e-15);
    assert_float_equal(res.B_all, 1e6 / 60e9, 1e-15);
    assert_float_equal(res.U, 1.0, 1e-12);
    assert_float_equal(res.U_direct, 0.9, 1e-12);
    assert_false(res.notes & GM_GATOMICS_NOTE_ALL_BOUND);
    /* Twice the time: half busy. */
    in.duration_s = 2e-3;
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_float_equal(res.U, 0.5, 1e-12);
}

static void spread_binds_on_peak(void **state)
{
    (void)state;
    gm_gatomics_rates r = sample_rates();
    /* 6e7 sectors over 80 equal slices: B_slice = 6e7 / (80 * 1e9) = 0.75 ms,
     * B_all = 6e7 / 60e9 = 1 ms: the shared path binds (rate form). */
    gm_gatomics_input in = input(6e7, 0, 80 * 500.0, 500, 1e-3);
    gm_gatomics_result res;
    gm_error err;
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_float_equal(res.k_eff, 80, 1e-9);
    assert_float_equal(res.B_slice, 0.75e-3, 1e-15);
    assert_float_equal(res.B_all, 1e-3, 1e-15);
    assert_float_equal(res.U, 1.0, 1e-12);
    assert_true(res.notes & GM_GATOMICS_NOTE_ALL_BOUND);
    /* Paper 000's form, one server per slice, misses the shared cap. */
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_SERVER, &in, &res, &err), GM_OK);
    assert_float_equal(res.U, 0.75, 1e-12);
    /* The direct form reads the counter: 500 / 1000 cycles. */
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_DIRECT, &in, &res, &err), GM_OK);
    assert_float_equal(res.U, 0.5, 1e-12);
    assert_float_equal(res.X, 6e10, 1);
}

static void classes_add(void **state)
{
    (void)state;
    gm_gatomics_rates r = sample_rates();
    /* One slice: 1e6 ATOM (1 ms) + 2e6 RED (1 ms) = 2 ms busy in 4 ms. */
    gm_gatomics_input in = input(1e6, 2e6, 10, 10, 4e-3);
    gm_gatomics_result res;
    gm_error err;
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_float_equal(res.B, 2e-3, 1e-15);
    assert_float_equal(res.U, 0.5, 1e-12);
    assert_float_equal(res.N, 3e6, 0);
    /* CAS spread over 60 slices: 6e7 / 30e9 = 2 ms at the shared peak. */
    gm_gatomics_input cas = {{0, 0, 6e7}, 60 * 10.0, 10, 1000, 2e-3};
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &cas, &res, &err), GM_OK);
    assert_float_equal(res.B_all, 2e-3, 1e-15);
    assert_float_equal(res.U, 1.0, 1e-12);
    assert_true(res.notes & GM_GATOMICS_NOTE_ALL_BOUND);
}

static void no_atomics_is_exactly_zero(void **state)
{
    (void)state;
    gm_gatomics_rates r = sample_rates();
    gm_error err;
    gm_gatomics_result res;
    for (int f = 0; f < GM_GATOMICS_FORM_COUNT; f++) {
        /* Even with the activity counters missing and a zero duration. */
        gm_gatomics_input in = input(0, 0, NAN, NAN, 0);
        assert_int_equal(gm_gatomics_apply(&r, (gm_gatomics_form)f, &in, &res, &err), GM_OK);
        assert_true(res.U == 0.0);
        assert_true(res.notes & GM_GATOMICS_NOTE_NO_ATOMICS);
    }
}

static void missing_and_bad_input(void **state)
{
    (void)state;
    gm_gatomics_rates r = sample_rates();
    gm_error err;
    gm_gatomics_result res;
    gm_gatomics_input in = input(1e6, NAN, 10, 10, 1e-3);
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_true(isnan(res.U));
    assert_true(res.notes & GM_GATOMICS_NOTE_MISSING);
    in = input(1e6, 0, NAN, 10, 1e-3);
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_SERVER, &in, &res, &err), GM_OK);
    assert_true(isnan(res.U));
    in = input(-1, 0, 10, 10, 1e-3);
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_ERR_RANGE);
    in = input(1e6, 0, 10, 10, 0);
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "duration"));
    gm_gatomics_rates bad = r;
    bad.one[GM_GATOMICS_RED] = 0;
    bad.peak[GM_GATOMICS_CAS] = NAN;
    in = input(0, 5, 10, 10, 1e-3);
    assert_int_equal(gm_gatomics_apply(&bad, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "RED"));
    /* The bad RED rate does not matter when no RED sector was seen. */
    in = input(5, 0, 10, 10, 1e-3);
    assert_int_equal(gm_gatomics_apply(&bad, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    in.sectors[GM_GATOMICS_CAS] = 1;
    assert_int_equal(gm_gatomics_apply(&bad, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "CAS"));
    /* No activity seen: one slice assumed, flagged. */
    in = input(1e6, 0, 0, 0, 1e-3);
    assert_int_equal(gm_gatomics_apply(&r, GM_GATOMICS_FORM_RATE, &in, &res, &err), GM_OK);
    assert_true(res.notes & GM_GATOMICS_NOTE_NO_ACTIVITY);
    assert_float_equal(res.U, 1.0, 1e-12);
    assert_float_equal(gm_gatomics_k_eff(10, 0), 1.0, 0);
    assert_float_equal(gm_gatomics_k_eff(30, 10), 3.0, 0);
}

static void forms_by_name(void **state)
{
    (void)state;
    gm_gatomics_form f;
    gm_error err;
    assert_int_equal(gm_gatomics_form_by_name("server", &f, &err), GM_OK);
    assert_int_equal(f, GM_GATOMICS_FORM_SERVER);
    assert_int_equal(gm_gatomics_form_by_name(NULL, &f, &err), GM_OK);
    assert_int_equal(f, GM_GATOMICS_FORM_RATE);
    assert_int_equal(gm_gatomics_form_by_name("rate-f32", &f, &err), GM_OK);
    assert_int_equal(f, GM_GATOMICS_FORM_RATE_F32);
    assert_int_equal(gm_gatomics_form_by_name("queue", &f, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "queue"));
    assert_string_equal(gm_gatomics_form_name(GM_GATOMICS_FORM_DIRECT), "direct");
}

static gm_mdata *rates_file(int with_red_distinct)
{
    gm_mdata_meta m = th_meta("gatomics", TH_H100, 132, "2026-11-25T21:00:00Z");
    gm_mdata *md = gm_mdata_new(&m, GM_GATOMICS_NCOLS, gm_gatomics_columns);
    const char *rows[][GM_GATOMICS_NCOLS] = {
        {"clock", "clock64", "64", "idle", "1", "0", "3", "3", "3", "cycle", "64"},
        {"l2rate", "atom.add.u32", "32", "one", "8", "0", "1.2", "1.1", "1.3", "Gsector/s", "5"},
        {"l2rate", "atom.add.u32", "32", "one", "32", "0", "1.5", "1.4", "1.6", "Gsector/s", "5"},
        {"l2rate", "atom.add.u32", "32", "distinct", "32", "0", "70", "69", "71", "Gsector/s", "5"},
        {"l2rate", "red.add.u32", "32", "one", "32", "0", "1.4", "1.3", "1.5", "Gsector/s", "5"},
        {"l2rate", "atom.cas.u32", "32", "one", "32", "0", "1.3", "1.3", "1.3", "Gsector/s", "5"},
        {"l2rate", "atom.cas.u32", "32", "distinct", "32", "0", "40", "40", "40", "Gsector/s", "5"},
        {"l2rate", "atom.add.f32", "32", "one", "32", "0", "0.56", "0.5", "0.6", "Gsector/s", "5"},
        {"l2rate", "atom.add.f32", "32", "distinct", "32", "0", "62", "62", "62", "Gsector/s", "5"},
        {"l2rate", "red.add.f32", "32", "one", "32", "0", "0.55", "0.5", "0.6", "Gsector/s", "5"},
        {"l2rate", "red.add.u32", "32", "distinct", "32", "0", "90", "89", "91", "Gsector/s", "5"},
    };
    size_t n = sizeof rows / sizeof rows[0] - (with_red_distinct ? 0 : 1);
    gm_error err;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], &err), GM_OK);
    return md;
}

static void rates_from_file(void **state)
{
    (void)state;
    gm_mdata *md = rates_file(1);
    gm_gatomics_rates r;
    gm_error err;
    assert_int_equal(gm_gatomics_rates_from_mdata(md, NULL, &r, &err), GM_OK);
    /* The row with the most warps wins: 1.5, not 1.2. */
    assert_float_equal(r.one[GM_GATOMICS_ATOM], 1.5e9, 1);
    assert_float_equal(r.peak[GM_GATOMICS_ATOM], 70e9, 1);
    assert_float_equal(r.one[GM_GATOMICS_RED], 1.4e9, 1);
    assert_float_equal(r.peak[GM_GATOMICS_RED], 90e9, 1);
    assert_float_equal(r.peak[GM_GATOMICS_CAS], 40e9, 1);
    /* rate-f32 reads the f32 rows; red.add.f32 has no distinct row here. */
    assert_int_equal(gm_gatomics_rates_for_form(md, GM_GATOMICS_FORM_RATE_F32, &r, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "red.add.f32"));
    const char *f32atom[GM_GATOMICS_CLASSES] = {"atom.add.f32", NULL, NULL};
    assert_int_equal(gm_gatomics_rates_from_mdata(md, f32atom, &r, &err), GM_OK);
    assert_float_equal(r.one[GM_GATOMICS_ATOM], 0.56e9, 1);
    assert_float_equal(r.one[GM_GATOMICS_RED], 1.4e9, 1);
    gm_mdata_free(md);
    md = rates_file(0);
    assert_int_equal(gm_gatomics_rates_from_mdata(md, NULL, &r, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "distinct"));
    gm_mdata_free(md);
}

static void lock_width_reading(void **state)
{
    (void)state;
    gm_error err;
    double w;
    const double off[] = {0, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    /* GT200-like: 0 and 4 collide fully, 8 and 16 partly, floor from 32 on. */
    const double gt200[] = {100, 99, 80, 60, 41, 40, 40, 40, 41, 40, 40, 40};
    assert_int_equal(gm_gatomics_lock_width(off, gt200, 12, 0.05, &w, &err), GM_OK);
    assert_float_equal(w, 32, 0);
    /* Flat (no collision penalty): 0. */
    const double flat[] = {550, 551, 549, 552, 550, 550, 551, 550, 549, 550, 552, 550};
    assert_int_equal(gm_gatomics_lock_width(off, flat, 12, 0.02, &w, &err), GM_OK);
    assert_float_equal(w, 0, 0);
    /* A late outlier keeps the width beyond it. */
    const double late[] = {100, 99, 80, 60, 41, 40, 70, 40, 41, 40, 40, 40};
    assert_int_equal(gm_gatomics_lock_width(off, late, 12, 0.05, &w, &err), GM_OK);
    assert_float_equal(w, 256, 0);
    const double bad_off[] = {0, 8, 4};
    assert_int_equal(gm_gatomics_lock_width(bad_off, gt200, 3, 0.05, &w, &err), GM_ERR_RANGE);
    assert_int_equal(gm_gatomics_lock_width(off, gt200, 7, 0.05, &w, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "256"));
}

static void hide_point_reading(void **state)
{
    (void)state;
    const double k[] = {0, 16, 32, 64, 128, 256};
    const double with[] = {600, 600, 610, 640, 700, 1300};
    const double without[] = {10, 70, 140, 280, 560, 1290};
    assert_float_equal(gm_gatomics_hide_point(k, with, without, 6, 0.02), 256, 0);
    const double never[] = {600, 600, 610, 640, 700, 1400};
    assert_true(isnan(gm_gatomics_hide_point(k, never, without, 6, 0.02)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_address_saturated), cmocka_unit_test(spread_binds_on_peak),
        cmocka_unit_test(classes_add),           cmocka_unit_test(no_atomics_is_exactly_zero),
        cmocka_unit_test(missing_and_bad_input), cmocka_unit_test(forms_by_name),
        cmocka_unit_test(rates_from_file),       cmocka_unit_test(lock_width_reading),
        cmocka_unit_test(hide_point_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
