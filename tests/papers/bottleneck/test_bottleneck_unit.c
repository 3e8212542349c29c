/* The "bottleneck" unit end to end on a hand-made machine (the one of
 * test_bottleneck_model.c, fewer rows): counters by metric name in, fields and
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

#include "papers/waves/waves_model.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

extern const gm_unit gm_unit_bottleneck;

static gm_machine mach;
/* mach's throughput data with the fma pipe twice as fast at 64 warps, and
 * sched data (paper 003) with H100-like parameters */
static gm_machine mach_sched;

/* test_helpers.h's sched rows: the hopper form of test_waves_model.c's H100,
 * N1 32, N2 64, S 233472 (s_min 128, 1024 reserved per block), R 65536
 * (r_min 256, 4 partitions). */
static gm_mdata *sched_md(void)
{
    gm_mdata_meta m = th_meta("sched", "test GPU", 2, "");
    return th_sched_h100(&m);
}

static int setup(void **state)
{
    (void)state;
    th_machine_with(&mach, "throughput", th_throughput_test_gpu(0));
    th_machine_with(&mach_sched, "throughput", th_throughput_test_gpu(1));
    mach_sched.n_files = 2;
    snprintf(mach_sched.files[1].suite, sizeof mach_sched.files[1].suite, "sched");
    mach_sched.files[1].md = sched_md();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gm_mdata_free(mach.files[0].md);
    gm_mdata_free(mach_sched.files[0].md);
    gm_mdata_free(mach_sched.files[1].md);
    return 0;
}

/* test_bottleneck_model.c's base launch: paper form 2000 ns (instructions),
 * Hopper form 2600 ns (shared memory, bank conflicts). */
static void launch(gm_launch_counters *k)
{
    gm_launch_counters_init(k);
    k->grid[0] = 64, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = k->block[2] = 1;
    th_set_metric(k, "smsp__inst_executed.sum", 12000);
    th_set_metric(k, "smsp__inst_executed_pipe_fma.sum", 8000);
    th_set_metric(k, "smsp__inst_executed_pipe_alu.sum", 4000);
    th_set_metric(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 3200);
    th_set_metric(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 2400); /* 800 ideal */
    th_set_metric(k, "smsp__inst_executed_op_global_ld.sum", 2048);
    th_set_metric(k, "smsp__inst_executed_op_global_st.sum", 0);
    th_set_metric(k, "smsp__sass_sectors_mem_global.sum", 8192);
    th_set_metric(k, "smsp__sass_sectors_mem_global_ideal.sum", 8192);
    th_set_metric(k, "dram__bytes_read.sum", 1e6);
    th_set_metric(k, "dram__bytes_write.sum", 0);
    th_set_metric(k, "lts__t_sectors_op_read.sum", 1e6 / 32);
    th_set_metric(k, "lts__t_sectors_op_write.sum", 0);
    th_set_metric(k, "sm__warps_active.avg.pct_of_peak_sustained_active", 25); /* 16 of 64 */
    th_set_metric(k, "gpu__time_duration.sum", 2500);
    th_set_metric(k, "sm__cycles_elapsed.avg", 2500); /* 1 GHz */
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

/* Applies the unit (state st) to k on the 2-SM test GPU of 64 warps per SM,
 * into res; returns its fields, in f. */
static size_t apply(void *st, const gm_launch_counters *k, void *res, gm_field *f)
{
    const gm_unit *u = &gm_unit_bottleneck;
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 2;
    meta.max_warps_per_sm = 64;
    gm_error err;
    assert_int_equal(u->apply(st, &meta, k, res, &err), GM_OK);
    return u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
}

static void done(void *st, gm_launch_counters *k, void *res)
{
    gm_launch_counters_clear(k);
    free(res);
    gm_unit_bottleneck.release(st);
}

static void run_variant(const char *variant, double want_ns, const char *want_part,
                        const char *want_verdict)
{
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach, variant, &st, &err), GM_OK);
    gm_launch_counters k;
    launch(&k);
    void *res = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t n = apply(st, &k, res, f);
    const char *part = NULL;
    field(f, n, "bottleneck", &part);
    assert_string_equal(part, want_part);
    assert_true(fabs(field(f, n, "predicted_us", NULL) - want_ns / 1e3) < 1e-9);
    assert_true(fabs(field(f, n, "measured_us", NULL) - 2.5) < 1e-12);
    assert_true(fabs(field(f, n, "error", NULL) - (want_ns - 2500) / 2500) < 1e-9);
    gm_unit_verdict v;
    u->verdict(st, res, &v);
    assert_string_equal(v.text, want_verdict);
    done(st, &k, res);
}

static void hopper(void **state)
{
    (void)state;
    run_variant(NULL, 2600, "shared",
                "shared memory is the bottleneck (1.6 us of 2.5 measured): bank conflicts");
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
    done(st, &k, res);
    gm_machine empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(u->prepare(&empty, NULL, &st, &err), GM_ERR_MISSING);
    /* every metric the unit names is a row of the table */
    for (size_t i = 0; u->metrics[i]; i++)
        assert_true(gm_metric_find(u->metrics[i]) >= 0);
    assert_non_null(gm_unit_find("bottleneck"));
}

/* The more-warps what-ifs on three launches of test_waves_model.c's relief
 * cases (N_slot from the sched data), 64 blocks on 2 SMs (32 per SM, no
 * grid cap).  Paper form, whose instruction time moves with the warps:
 * fma 8000 / (X(w) 2 SMs 1 GHz) + alu 4000 / (2 x 2) = 1000, with X(w)
 * 4 at 16 warps rising linearly to 8 at 64; shared 3200 / 2 = 1600 ns;
 * global 1e6 B / 1000 GB/s = 1000 ns.  The measured 16 warps: 2000 ns. */
static void more_warps_case(unsigned threads, int regs, int smem, double want_warps,
                            const char *want_from, double want_speedup, double want_free,
                            double want_free_speedup, const char *want_needs)
{
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach_sched, "paper", &st, &err), GM_OK);
    gm_launch_counters k;
    launch(&k);
    k.block[0] = threads;
    k.regs_per_thread = regs;
    k.shared_bytes = smem;
    void *res = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t n = apply(st, &k, res, f);
    const char *text = NULL;
    assert_true(fabs(field(f, n, "predicted_us", NULL) - 2.0) < 1e-9);
    assert_true(fabs(field(f, n, "more_warps", NULL) - want_warps) < 1e-9);
    field(f, n, "more_warps_from", &text);
    assert_string_equal(text, want_from);
    double sp = field(f, n, "speedup_more_warps", NULL);
    if (fabs(sp - want_speedup) > 1e-9)
        fail_msg("speedup_more_warps %.17g, want %.17g", sp, want_speedup);
    double fw = field(f, n, "occ_free_warps", NULL), fs = field(f, n, "speedup_occ_free", NULL);
    if (isnan(want_free)) {
        assert_true(isnan(fw) && isnan(fs));
    } else {
        assert_true(fabs(fw - want_free) < 1e-9);
        assert_true(fabs(fs - want_free_speedup) < 1e-9);
    }
    field(f, n, "occ_needs", &text);
    assert_string_equal(text, want_needs);
    done(st, &k, res);
}

/* 256 threads (b = 8), 72 registers: N_slot 3, 24 warps: X = 4 + 4 x 8 / 48,
 * fma 8000 / (2 X) = 857.14 ns, 1857.14 in all, 2000 / 1857.14 = 14 / 13.
 * Without the register limit 8 blocks, 64 warps: fma 500, inst 1500, the
 * shared 1600 binds: 1.25; registers <= 32 get there (test_waves_model.c). */
static void more_warps_registers(void **state)
{
    (void)state;
    more_warps_case(256, 72, 0, 24, "sched: N_slot 3 x 8 warps (registers)", 14.0 / 13.0, 64,
                    1.25, "registers <= 32 per thread");
}

/* 128 threads (b = 4), 32 registers, 48000 B: N_slot 4, 16 warps, as
 * measured (1x); without the shared limit 16 blocks, 64 warps: 1.25 with
 * at most 13568 B per block. */
static void more_warps_shared(void **state)
{
    (void)state;
    more_warps_case(128, 32, 48000, 16, "sched: N_slot 4 x 4 warps (shared memory)", 1.0, 64,
                    1.25, "shared <= 13568 B per block");
}

/* 1024 threads (b = 32), 16 registers, 4096 B: N_slot 2 by the warp slots,
 * 64 warps: 1.25; nothing for registers or shared memory to free. */
static void more_warps_warps(void **state)
{
    (void)state;
    more_warps_case(1024, 16, 4096, 64, "sched: N_slot 2 x 32 warps (warps)", 1.25, NAN, NAN,
                    "-");
}

/* Without sched data: the device maximum, capped by the grid's blocks per
 * SM; a launch of 2 blocks of 256 threads on 2 SMs reaches 8 warps. */
static void more_warps_fallback(void **state)
{
    (void)state;
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach, NULL, &st, &err), GM_OK);
    gm_launch_counters k;
    launch(&k);
    void *res = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t n = apply(st, &k, res, f);
    const char *text = NULL;
    assert_true(fabs(field(f, n, "more_warps", NULL) - 64) < 1e-9); /* 32 blocks per SM */
    field(f, n, "more_warps_from", &text);
    assert_string_equal(text, "device maximum (no sched data)");
    k.grid[0] = 2;
    n = apply(st, &k, res, f);
    assert_true(fabs(field(f, n, "more_warps", NULL) - 8) < 1e-9);
    done(st, &k, res);
    /* with sched data, the same small grid caps N_slot 3 at 1 block per SM */
    assert_int_equal(u->prepare(&mach_sched, NULL, &st, &err), GM_OK);
    launch(&k);
    k.grid[0] = 2;
    k.regs_per_thread = 72;
    k.shared_bytes = 0;
    res = calloc(1, u->result_size);
    n = apply(st, &k, res, f);
    assert_true(fabs(field(f, n, "more_warps", NULL) - 8) < 1e-9);
    field(f, n, "more_warps_from", &text);
    assert_string_equal(text, "sched: N_slot 3 x 8 warps (registers), grid-capped");
    assert_true(isnan(field(f, n, "occ_free_warps", NULL))); /* the grid, not registers */
    done(st, &k, res);
}

/* The unit keeps the results of launches it has seen (core/memo.h): a
 * launch seen again gets the result it got, and one that differs in any
 * one input (a count, the time, the grid, registers, the header's SM count)
 * gets its own, the one a state that has seen nothing computes, also once
 * a thousand other launches have pushed the first out. */
static void memo_as_computed(void **state)
{
    (void)state;
    const gm_unit *u = &gm_unit_bottleneck;
    void *st = NULL;
    gm_error err;
    assert_int_equal(u->prepare(&mach_sched, NULL, &st, &err), GM_OK);
    void *r1 = calloc(1, u->result_size), *again = calloc(1, u->result_size);
    void *other = calloc(1, u->result_size), *fresh = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    gm_launch_counters k;
    launch(&k);
    k.regs_per_thread = 32;
    k.shared_bytes = 0;
    apply(st, &k, r1, f);
    apply(st, &k, again, f);
    assert_true(th_same_result(u, st, r1, again));
    for (int change = 0; change < 5; change++) {
        launch(&k);
        k.regs_per_thread = 32;
        k.shared_bytes = 0;
        gm_counters_meta meta;
        memset(&meta, 0, sizeof meta);
        meta.sm_count = 2;
        meta.max_warps_per_sm = 64;
        if (change == 0)
            th_set_metric(&k, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 4000);
        else if (change == 1)
            th_set_metric(&k, "gpu__time_duration.sum", 2600);
        else if (change == 2)
            k.grid[0] = 1;
        else if (change == 3)
            k.regs_per_thread = 255;
        else
            meta.sm_count = 1;
        assert_int_equal(u->apply(st, &meta, &k, other, &err), GM_OK);
        if (th_same_result(u, st, r1, other))
            fail_msg("change %d: the same result", change);
        void *st2 = NULL;
        assert_int_equal(u->prepare(&mach_sched, NULL, &st2, &err), GM_OK);
        assert_int_equal(u->apply(st2, &meta, &k, fresh, &err), GM_OK);
        assert_true(th_same_result(u, st, other, fresh));
        assert_int_equal(u->apply(st, &meta, &k, again, &err), GM_OK);
        assert_true(th_same_result(u, st, fresh, again));
        u->release(st2);
    }
    for (int i = 0; i < 1000; i++) {
        launch(&k);
        th_set_metric(&k, "gpu__time_duration.sum", 2500 + i + 1);
        apply(st, &k, other, f);
    }
    launch(&k);
    k.regs_per_thread = 32;
    k.shared_bytes = 0;
    apply(st, &k, again, f);
    assert_true(th_same_result(u, st, r1, again));
    free(r1);
    free(again);
    free(other);
    free(fresh);
    done(st, &k, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hopper),
        cmocka_unit_test(paper),
        cmocka_unit_test(missing_counters_and_bad_variant),
        cmocka_unit_test(more_warps_registers),
        cmocka_unit_test(more_warps_shared),
        cmocka_unit_test(more_warps_warps),
        cmocka_unit_test(more_warps_fallback),
        cmocka_unit_test(memo_as_computed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
