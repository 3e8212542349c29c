/* The "bottleneck" unit end to end on a hand-made machine (the one of
 * test_zhang_owens.c, fewer rows): counters by metric name in, fields and
 * verdict out, both variants. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

extern const gm_unit gm_unit_bottleneck;

static gm_machine mach;

static int setup(void **state)
{
    (void)state;
    gm_mdata_meta meta = th_meta("throughput", "test GPU", 2, "");
    meta.sm_clock_mhz = 1000;
    const char *cols[] = {"kind", "name", "bytes", "ways", "warps", "blocks", "threads",
                          "per_thread", "value"};
    gm_mdata *md = gm_mdata_new(&meta, 9, cols);
    static const char *const rows[][9] = {
        {"inst", "fma", "0", "0", "16", "0", "0", "0", "4"},
        {"inst", "alu", "0", "0", "16", "0", "0", "0", "2"},
        {"issue", "issue", "0", "0", "16", "0", "0", "0", "4"},
        {"shared", "copy", "4", "1", "16", "0", "0", "0", "1"},
        {"global", "dram_ld", "4", "0", "0", "64", "256", "4", "1000"},
        {"global", "dram_st", "4", "0", "0", "64", "256", "4", "1000"},
        {"global", "l2_ld", "4", "0", "0", "64", "256", "4", "2000"},
        {"global", "l2_st", "4", "0", "0", "64", "256", "4", "2000"},
        {"launch", "empty", "0", "0", "0", "0", "0", "0", "1000"},
    };
    gm_error err;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (gm_mdata_add_row(md, rows[i], &err) != GM_OK)
            return -1;
    th_machine_with(&mach, "throughput", md);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gm_mdata_free(mach.files[0].md);
    return 0;
}

static void set(gm_launch_counters *k, const char *name, double v)
{
    int row = gm_metric_find(name);
    assert_true(row >= 0);
    k->metric[row] = v;
}

/* test_zhang_owens.c's base launch: paper form 2000 ns (instructions),
 * Hopper form 2600 ns (shared memory, bank conflicts). */
static void launch(gm_launch_counters *k)
{
    gm_launch_counters_init(k);
    k->grid[0] = 64, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = k->block[2] = 1;
    set(k, "smsp__inst_executed.sum", 12000);
    set(k, "smsp__inst_executed_pipe_fma.sum", 8000);
    set(k, "smsp__inst_executed_pipe_alu.sum", 4000);
    set(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 3200);
    set(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 2400); /* 800 ideal */
    set(k, "smsp__inst_executed_op_global_ld.sum", 2048);
    set(k, "smsp__inst_executed_op_global_st.sum", 0);
    set(k, "smsp__sass_sectors_mem_global.sum", 8192);
    set(k, "smsp__sass_sectors_mem_global_ideal.sum", 8192);
    set(k, "dram__bytes_read.sum", 1e6);
    set(k, "dram__bytes_write.sum", 0);
    set(k, "lts__t_sectors_op_read.sum", 1e6 / 32);
    set(k, "lts__t_sectors_op_write.sum", 0);
    set(k, "sm__warps_active.avg.pct_of_peak_sustained_active", 25); /* 16 of 64 */
    set(k, "gpu__time_duration.sum", 2500);
    set(k, "sm__cycles_elapsed.avg", 2500); /* 1 GHz */
}

static double field(const gm_field *f, size_t n, const char *name, const char **text)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0) {
            if (text)
                *text = f[i].text;
            return f[i].num;
        }
    fail_msg("no field %s", name);
    return NAN;
}

static void run_variant(const char *variant, double want_ns, const char *want_part,
                        const char *want_verdict)
{
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach, variant, &st, &err), GM_OK);
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 2;
    meta.max_warps_per_sm = 64;
    gm_launch_counters k;
    launch(&k);
    void *res = calloc(1, u->result_size);
    assert_int_equal(u->apply(st, &meta, &k, res, &err), GM_OK);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    const char *part = NULL;
    field(f, n, "bottleneck", &part);
    assert_string_equal(part, want_part);
    assert_true(fabs(field(f, n, "predicted_us", NULL) - want_ns / 1e3) < 1e-9);
    assert_true(fabs(field(f, n, "measured_us", NULL) - 2.5) < 1e-12);
    assert_true(fabs(field(f, n, "error", NULL) - (want_ns - 2500) / 2500) < 1e-9);
    gm_unit_verdict v;
    u->verdict(st, res, &v);
    assert_string_equal(v.text, want_verdict);
    gm_launch_counters_clear(&k);
    free(res);
    u->release(st);
}

static void hopper(void **state)
{
    (void)state;
    run_variant(NULL, 2600, "shared",
                "shared memory is the bottleneck (2.6 us of 2.5 measured): bank conflicts");
}

static void paper(void **state)
{
    (void)state;
    run_variant("paper", 2000, "instruction",
                "the instruction pipeline is the bottleneck (2.0 us of 2.5 measured)");
}

static void missing_counters_and_bad_variant(void **state)
{
    (void)state;
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach, "gt200", &st, &err), GM_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "known: hopper, paper"));
    assert_int_equal(u->prepare(&mach, NULL, &st, &err), GM_OK);
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 2;
    gm_launch_counters k;
    gm_launch_counters_init(&k); /* nothing collected */
    k.grid[0] = k.block[0] = 1;
    void *res = calloc(1, u->result_size);
    assert_int_equal(u->apply(st, &meta, &k, res, &err), GM_OK);
    gm_unit_verdict v;
    u->verdict(st, res, &v);
    assert_non_null(strstr(v.text, "not modelled"));
    assert_true(isnan(v.severity));
    gm_launch_counters_clear(&k);
    free(res);
    u->release(st);
    gm_machine empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(u->prepare(&empty, NULL, &st, &err), GM_ERR_MISSING);
    /* every metric the unit names is a row of the table */
    for (size_t i = 0; u->metrics[i]; i++)
        assert_true(gm_metric_find(u->metrics[i]) >= 0);
    assert_non_null(gm_unit_find("bottleneck"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hopper),
        cmocka_unit_test(paper),
        cmocka_unit_test(missing_counters_and_bad_variant),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
