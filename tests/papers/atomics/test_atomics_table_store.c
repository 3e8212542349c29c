/* Unit tests of the calibration table in memory: names, storage and
 * validation.  Synthetic tables (atomics_table_fixture.h), not measurements. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "gpuq/mdata.h"
#include "papers/atomics/atomics_table.h"

#include "atomics_table_fixture.h"

/* ---- names ------------------------------------------------------------ */

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < GM_ATOMICS_CLASS_COUNT; i++) {
        gm_atomics_job_class c;
        assert_int_equal(gm_atomics_class_parse(gm_atomics_class_name((gm_atomics_job_class)i), &c),
                         GM_OK);
        assert_int_equal(c, i);
    }
    for (int i = 0; i < GM_ATOMICS_PATTERN_COUNT; i++) {
        gm_atomics_pattern p;
        assert_int_equal(gm_atomics_pattern_parse(gm_atomics_pattern_name((gm_atomics_pattern)i), &p),
                         GM_OK);
        assert_int_equal(p, i);
    }
    for (int i = 0; i < GM_ATOMICS_METHOD_COUNT; i++) {
        gm_atomics_method m;
        assert_int_equal(gm_atomics_method_parse(gm_atomics_method_name((gm_atomics_method)i), &m),
                         GM_OK);
        assert_int_equal(m, i);
    }
    assert_string_equal(gm_atomics_class_name(GM_ATOMICS_CLASS_POPC_INC), "popc_inc");
    assert_string_equal(gm_atomics_pattern_name(GM_ATOMICS_PATTERN_SAME_ADDRESS), "same_address");
    assert_string_equal(gm_atomics_method_name(GM_ATOMICS_METHOD_STEADY_STATE), "steady_state");
}

static void test_names_unknown(void **state)
{
    (void)state;
    gm_atomics_job_class c;
    gm_atomics_pattern p;
    gm_atomics_method m;
    assert_int_equal(gm_atomics_class_parse("ADD", &c), GM_ERR_PARSE);
    assert_int_equal(gm_atomics_class_parse("", &c), GM_ERR_PARSE);
    assert_int_equal(gm_atomics_class_parse(NULL, &c), GM_ERR_PARSE);
    assert_int_equal(gm_atomics_pattern_parse("same", &p), GM_ERR_PARSE);
    assert_int_equal(gm_atomics_method_parse("single-shot", &m), GM_ERR_PARSE);
    assert_string_equal(gm_atomics_class_name(GM_ATOMICS_CLASS_COUNT), "unknown");
}

/* ---- storage ---------------------------------------------------------- */

static void test_add_find_and_nan_cells(void **state)
{
    (void)state;
    gm_atomics_table_meta m = small_meta(3, 2);
    gm_atomics_table *t = gm_atomics_table_new(&m);
    gm_atomics_series *s = NULL;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    assert_int_equal(s->n_max, 3);
    assert_int_equal(s->e_max, 2);
    assert_true(isnan(gm_atomics_series_cell(s, 3, 2, 3)->t_median));
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 0, NULL),
                     GM_ERR_DUPLICATE);
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_STEADY_STATE, 1, NULL),
                     GM_OK);
    const gm_atomics_series *found = gm_atomics_table_find(t, GM_ATOMICS_CLASS_ADD,
                                                           GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                           GM_ATOMICS_METHOD_STEADY_STATE);
    assert_non_null(found);
    assert_int_equal(found->method, GM_ATOMICS_METHOD_STEADY_STATE);
    assert_null(gm_atomics_table_find(t, GM_ATOMICS_CLASS_CAS, GM_ATOMICS_PATTERN_SAME_ADDRESS, GM_ATOMICS_METHOD_SINGLE_SHOT));
    assert_int_equal(t->n_series, 2);
    gm_atomics_table_free(t);
}

static void test_add_series_needs_valid_axes(void **state)
{
    (void)state;
    gm_atomics_table_meta m = small_meta(0, 32);
    gm_atomics_table *t = gm_atomics_table_new(&m);
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, NULL),
                     GM_ERR_INVALID_ARG);
    t->meta.max_warps_per_sm = 4;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_COUNT,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, NULL),
                     GM_ERR_INVALID_ARG);
    gm_atomics_table_free(t);
    gm_atomics_table_free(NULL); /* allowed, like free() */
}

static void test_series_cell_bounds(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(4, 3);
    const gm_atomics_series *add = &t->series[0], *popc = &t->series[1];
    assert_non_null(gm_atomics_series_cell(add, 1, 1, 0));
    assert_non_null(gm_atomics_series_cell(add, 4, 3, 4));
    assert_null(gm_atomics_series_cell(add, 0, 1, 0));
    assert_null(gm_atomics_series_cell(add, 5, 1, 0));
    assert_null(gm_atomics_series_cell(add, 1, 0, 0));
    assert_null(gm_atomics_series_cell(add, 1, 4, 0));
    assert_null(gm_atomics_series_cell(add, 1, 1, -1));
    assert_null(gm_atomics_series_cell(add, 2, 1, 3)); /* c <= n */
    assert_non_null(gm_atomics_series_cell(popc, 4, 3, 0));
    assert_null(gm_atomics_series_cell(popc, 4, 3, 1)); /* no CAS axis */
    assert_null(gm_atomics_series_cell(NULL, 1, 1, 0));
    /* Every (n, e, c) has its own cell holding its own value. */
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 3; e++)
            for (int c = 0; c <= n; c++)
                assert_near(gm_atomics_series_cell(add, n, e, c)->t_median, synth_T(n, e, c), 0);
    gm_atomics_table_free(t);
}

/* ---- validate --------------------------------------------------------- */

static void test_validate_complete_ok(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(4, 3);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_OK);
    gm_atomics_table_free(t);
}

static void test_validate_missing_cell_named(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(4, 3);
    gm_atomics_series_cell(&t->series[0], 3, 2, 1)->t_median = NAN;
    gm_atomics_series_cell(&t->series[0], 4, 1, 0)->t_median = NAN;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_ERR_MISSING);
    /* The first missing cell in (n, e, c) order. */
    assert_non_null(strstr(err.msg, "series add,same_address,single_shot: cell n=3 e=2 c=1"));
    gm_atomics_table_free(t);
}

static void test_validate_bad_values(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    gm_atomics_cell *cell = gm_atomics_series_cell(&t->series[1], 2, 2, 0);
    gm_atomics_cell keep = *cell;
    cell->t_max = INFINITY;
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "t_max is infinite"));
    *cell = keep;
    cell->t_min = -1;
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "t_min=-1 is negative"));
    *cell = keep;
    cell->t_min = cell->t_median + 1;
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_ERR_RANGE);
    *cell = keep;
    t->meta.sm_count = 0;
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "sm_count"));
    t->meta.sm_count = 4;
    assert_int_equal(gm_atomics_table_validate(t, &err), GM_OK);
    assert_int_equal(gm_atomics_table_validate(NULL, &err), GM_ERR_INVALID_ARG);
    gm_atomics_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_names_unknown),
        cmocka_unit_test(test_add_find_and_nan_cells),
        cmocka_unit_test(test_add_series_needs_valid_axes),
        cmocka_unit_test(test_series_cell_bounds),
        cmocka_unit_test(test_validate_complete_ok),
        cmocka_unit_test(test_validate_missing_cell_named),
        cmocka_unit_test(test_validate_bad_values),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
