/* Unit tests of the metric table (src/core/metrics.c): the shared-atomic
 * rows first in gm_atomics_metric_id order, unique names, lookup by metric name or
 * short column, and the `ncu --metrics` list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/counters.h"
#include "papers/atomics/atomics_model.h"
#include "gpuq/metrics.h"

static void test_table_fits_and_names_are_unique(void **state)
{
    (void)state;
    assert_true(gm_metric_count() >= GM_ATOMICS_M_ATOMIC_ROWS);
    assert_true(gm_metric_count() <= GM_METRIC_MAX);
    for (size_t m = 0; m < gm_metric_count(); m++) {
        assert_true(strlen(gm_metric_table[m].name) > 4);
        assert_true(strlen(gm_metric_table[m].column) > 0);
        assert_true(strlen(gm_metric_table[m].meaning) > 10);
        /* a column name is a CSV header cell and a report column: no commas, quotes, dots */
        assert_null(strpbrk(gm_metric_table[m].column, ",\". "));
        for (size_t o = 0; o < m; o++) {
            assert_string_not_equal(gm_metric_table[m].name, gm_metric_table[o].name);
            assert_string_not_equal(gm_metric_table[m].column, gm_metric_table[o].column);
            assert_string_not_equal(gm_metric_table[m].name, gm_metric_table[o].column);
        }
    }
}

static void test_atomic_rows_in_id_order(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *name, *column;
    } expect[] = {
        {GM_ATOMICS_M_N_ATOM_SASS, "smsp__sass_inst_executed_op_shared_atom.sum", "N_atom_sass"},
        {GM_ATOMICS_M_N_ATOM, "smsp__inst_executed_op_shared_atom.sum", "N_atom"},
        {GM_ATOMICS_M_N_CAS, "smsp__inst_executed_op_shared_atom_dot_cas.sum", "N_cas"},
        {GM_ATOMICS_M_N_ALU, "smsp__inst_executed_op_shared_atom_dot_alu.sum", "N_alu"},
        {GM_ATOMICS_M_O_WAVEFRONTS, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "O_wavefronts"},
        {GM_ATOMICS_M_CYCLES_SUM, "sm__cycles_active.sum", "cycles_sum"},
        {GM_ATOMICS_M_CYCLES_AVG, "sm__cycles_active.avg", "cycles_avg"},
        {GM_ATOMICS_M_CYCLES_MIN, "sm__cycles_active.min", "cycles_min"},
        {GM_ATOMICS_M_CYCLES_MAX, "sm__cycles_active.max", "cycles_max"},
        {GM_ATOMICS_M_OCCUPANCY_PCT, "sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_pct"},
        {GM_ATOMICS_M_DURATION_NS, "gpu__time_duration.sum", "duration_ns"},
        {GM_ATOMICS_M_SHARED_PENDING, "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum", "shared_pending"},
        {GM_ATOMICS_M_SHARED_INST, "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum", "shared_inst"},
    };
    assert_int_equal(sizeof expect / sizeof expect[0], GM_ATOMICS_M_ATOMIC_ROWS);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        assert_string_equal(gm_metric_table[expect[i].id].name, expect[i].name);
        assert_string_equal(gm_metric_table[expect[i].id].column, expect[i].column);
    }
    /* occupancy is an average over cycles; everything else of the model adds up */
    for (int m = 0; m < GM_ATOMICS_M_ATOMIC_ROWS; m++)
        assert_int_equal(gm_metric_table[m].sum,
                         m == GM_ATOMICS_M_OCCUPANCY_PCT ? GM_SUM_CYCLE_WEIGHTED : GM_SUM_ADD);
}

static void test_find_by_name_or_column(void **state)
{
    (void)state;
    assert_int_equal(gm_metric_find("sm__cycles_active.max"), GM_ATOMICS_M_CYCLES_MAX);
    assert_int_equal(gm_metric_find("cycles_max"), GM_ATOMICS_M_CYCLES_MAX);
    assert_int_equal(gm_metric_find("O_wavefronts"), GM_ATOMICS_M_O_WAVEFRONTS);
    for (size_t m = 0; m < gm_metric_count(); m++) {
        assert_int_equal(gm_metric_find(gm_metric_table[m].name), (int)m);
        assert_int_equal(gm_metric_find(gm_metric_table[m].column), (int)m);
    }
    assert_int_equal(gm_metric_find("sm__cycles_active"), -1); /* no prefix match */
    assert_int_equal(gm_metric_find(""), -1);
    assert_int_equal(gm_metric_find(NULL), -1);
}

static void test_instrumented(void **state)
{
    (void)state;
    assert_true(gm_metric_is_instrumented("smsp__sass_inst_executed_op_shared_atom.sum"));
    assert_true(gm_metric_is_instrumented("smsp__sass_sectors_mem_global.sum"));
    assert_false(gm_metric_is_instrumented("smsp__inst_executed_op_shared_atom.sum"));
    assert_false(gm_metric_is_instrumented("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
    assert_false(gm_metric_is_instrumented(NULL));
}

static void test_list(void **state)
{
    (void)state;
    char buf[256];
    int rows[] = {GM_ATOMICS_M_CYCLES_SUM, GM_ATOMICS_M_N_CAS};
    assert_non_null(gm_metric_list(rows, 2, buf, sizeof buf));
    assert_string_equal(buf, "sm__cycles_active.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum");
    /* exactly fitting, one byte short, a bad row */
    size_t need = strlen(buf) + 1;
    assert_non_null(gm_metric_list(rows, 2, buf, need));
    assert_null(gm_metric_list(rows, 2, buf, need - 1));
    int bad[] = {(int)gm_metric_count()};
    assert_null(gm_metric_list(bad, 1, buf, sizeof buf));
    assert_non_null(gm_metric_list(rows, 0, buf, sizeof buf));
    assert_string_equal(buf, "");
    /* the whole table, as `gpuq model --metrics` prints it */
    char expect[GM_METRIC_MAX * 80] = "";
    for (size_t m = 0; m < gm_metric_count(); m++) {
        if (m)
            strcat(expect, ",");
        strcat(expect, gm_metric_table[m].name);
    }
    assert_string_equal(gm_metric_list_csv(), expect);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_fits_and_names_are_unique),
        cmocka_unit_test(test_atomic_rows_in_id_order),
        cmocka_unit_test(test_find_by_name_or_column),
        cmocka_unit_test(test_instrumented),
        cmocka_unit_test(test_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
