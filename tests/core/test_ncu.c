/* Unit tests of the ncu CSV importer (src/core/ncu_import.c) on real
 * Nsight Compute output recorded on an H200 (tests/data/README.md) and on
 * variants of it with one defect each. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/counters.h"
#include "papers/atomics/atomics_model.h"

#define NCU GPUQ_SOURCE_DIR "/tests/data/ncu/"

/* The probe's kernels, in launch order. */
enum { ADD = 0, POPC = 1, CAS = 2, NONE = 3 };

static gm_counters_set load_ok(const char *path)
{
    gm_counters_set set;
    gm_error err = {{0}};
    gm_status st = gm_ncu_csv_load(path, &set, &err);
    if (st != GM_OK)
        fail_msg("%s: %s", path, err.msg);
    return set;
}

static double metric(const gm_counters_set *s, size_t launch, gm_atomics_metric_id m)
{
    return s->launches[launch].metric[m];
}

static void test_long_layout_real_output(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "ncu_probe.csv");
    assert_int_equal(s.count, 4);
    assert_string_equal(s.launches[ADD].kernel,
                        "probe_atoms_add(const int *, int, unsigned int *)");
    assert_string_equal(s.launches[NONE].kernel,
                        "probe_no_atomics(const int *, int, unsigned int *)");
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(s.launches[i].launch_id, i);
        assert_int_equal(s.launches[i].grid[0], 1);
        assert_int_equal(s.launches[i].block[0], 256);
        assert_int_equal(s.launches[i].block[2], 1);
    }
    /* 8 warps x 4 atomics each (atomics_probe.cu) */
    assert_true(metric(&s, ADD, GM_ATOMICS_M_N_ATOM_SASS) == 32);
    assert_true(metric(&s, CAS, GM_ATOMICS_M_N_CAS) == 32);
    assert_true(metric(&s, CAS, GM_ATOMICS_M_N_ALU) == 0);
    assert_true(metric(&s, NONE, GM_ATOMICS_M_N_ATOM) == 0);
    /* thousands separators: "1,347" cycles, "2,080" ns */
    assert_true(metric(&s, ADD, GM_ATOMICS_M_CYCLES_SUM) == 1347);
    assert_true(metric(&s, ADD, GM_ATOMICS_M_DURATION_NS) == 2080);
    assert_true(metric(&s, ADD, GM_ATOMICS_M_OCCUPANCY_PCT) == 12.03);
    assert_true(metric(&s, ADD, GM_ATOMICS_M_CYCLES_AVG) == 10.20);
    /* The recording asked ncu for the shared-atomic rows (metrics.c). */
    for (size_t i = 0; i < 4; i++)
        for (int m = 0; m < GM_ATOMICS_M_ATOMIC_ROWS; m++)
            assert_false(isnan(metric(&s, i, (gm_atomics_metric_id)m)));
    /* the default page names neither the GPU nor its SM count */
    assert_string_equal(s.meta.device_name, "");
    assert_int_equal(s.meta.sm_count, 0);
    assert_int_equal(s.meta.cc_major, 9);
    assert_string_equal(s.meta.command, "atomics_probe");
    assert_non_null(strstr(s.meta.source, "ncu csv import"));
    gm_counters_set_clear(&s);
}

static void test_raw_page_real_output(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "ncu_probe_raw.csv");
    assert_int_equal(s.count, 4);
    assert_string_equal(s.meta.device_name, "NVIDIA H200");
    assert_int_equal(s.meta.sm_count, 132);
    assert_int_equal(s.meta.max_warps_per_sm, 64);
    assert_int_equal(s.meta.cc_major, 9);
    assert_int_equal(s.meta.cc_minor, 0);
    assert_int_equal(s.launches[ADD].regs_per_thread, 16);
    assert_int_equal(s.launches[CAS].regs_per_thread, 20);
    assert_int_equal(s.launches[ADD].shared_bytes, 128); /* static 128 + dynamic 0 */
    assert_int_equal(s.launches[NONE].shared_bytes, 0);
    assert_true(metric(&s, ADD, GM_ATOMICS_M_CYCLES_SUM) == 1350);
    assert_true(metric(&s, POPC, GM_ATOMICS_M_SHARED_INST) == 33);
    gm_counters_set_clear(&s);
}

/* The instruction and wavefront counts of the probe do not depend on timing:
 * three independent ncu runs must agree on them exactly. */
static void test_three_recordings_agree_on_counts(void **state)
{
    (void)state;
    gm_counters_set a = load_ok(NCU "ncu_probe.csv");
    gm_counters_set b = load_ok(NCU "ncu_probe_raw.csv");
    gm_counters_set c = load_ok(NCU "ncu_probe_base.csv");
    const gm_atomics_metric_id counts[] = {GM_ATOMICS_M_N_ATOM_SASS, GM_ATOMICS_M_N_ATOM,
                                           GM_ATOMICS_M_N_CAS, GM_ATOMICS_M_N_ALU,
                                           GM_ATOMICS_M_O_WAVEFRONTS};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(a.launches[i].kernel, b.launches[i].kernel);
        assert_string_equal(a.launches[i].kernel, c.launches[i].kernel);
        for (size_t m = 0; m < sizeof counts / sizeof counts[0]; m++) {
            assert_true(metric(&a, i, counts[m]) == metric(&b, i, counts[m]));
            assert_true(metric(&a, i, counts[m]) == metric(&c, i, counts[m]));
        }
    }
    /* e = O / N: 4 lanes per address for ADD, 1 wavefront per POPC.INC */
    assert_true(metric(&a, ADD, GM_ATOMICS_M_O_WAVEFRONTS) / metric(&a, ADD, GM_ATOMICS_M_N_ATOM) == 4);
    assert_true(metric(&a, POPC, GM_ATOMICS_M_O_WAVEFRONTS) / metric(&a, POPC, GM_ATOMICS_M_N_ATOM) == 1);
    gm_counters_set_clear(&a);
    gm_counters_set_clear(&b);
    gm_counters_set_clear(&c);
}

static void test_scaled_units_are_converted(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "units_scaled.csv");
    assert_true(fabs(metric(&s, ADD, GM_ATOMICS_M_DURATION_NS) - 2080) < 1e-9);  /* 2.08 usecond */
    assert_true(fabs(metric(&s, ADD, GM_ATOMICS_M_CYCLES_SUM) - 1347) < 1e-9);   /* 1.347 Kcycle */
    assert_true(fabs(metric(&s, POPC, GM_ATOMICS_M_DURATION_NS) - 2432) < 1e-9); /* 0.002432 msecond */
    gm_counters_set_clear(&s);
}

static void test_missing_metrics_stay_nan(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "missing_metrics.csv");
    assert_int_equal(s.count, 4);
    assert_true(isnan(metric(&s, POPC, GM_ATOMICS_M_OCCUPANCY_PCT)));
    assert_true(isnan(metric(&s, POPC, GM_ATOMICS_M_O_WAVEFRONTS)));
    assert_true(metric(&s, POPC, GM_ATOMICS_M_N_ATOM) == 32); /* the rest of the launch is there */
    assert_true(isnan(metric(&s, CAS, GM_ATOMICS_M_DURATION_NS))); /* "n/a" */
    assert_false(isnan(metric(&s, ADD, GM_ATOMICS_M_OCCUPANCY_PCT)));
    gm_counters_set_clear(&s);
}

static void test_program_output_before_header_is_skipped(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "preamble_quote.csv");
    assert_int_equal(s.count, 4);
    gm_counters_set_clear(&s);
}

static void expect_rejected(const char *file, gm_status want, const char *where,
                            const char *what)
{
    gm_counters_set s;
    gm_error err = {{0}};
    char path[512];
    snprintf(path, sizeof path, NCU "%s", file);
    gm_status st = gm_ncu_csv_load(path, &s, &err);
    if (st != want || !strstr(err.msg, where) || !strstr(err.msg, what))
        fail_msg("%s: status %d (want %d), message '%s' (want '%s' and '%s')", file, st, want,
                 err.msg, where, what);
    assert_int_equal(s.count, 0);
}

static void test_rejects_truncated(void **state)
{
    (void)state;
    expect_rejected("bad_truncated.csv", GM_ERR_PARSE, "bad_truncated.csv:32:", "truncated");
}

static void test_rejects_bad_number(void **state)
{
    (void)state;
    expect_rejected("bad_number.csv", GM_ERR_PARSE, ":9:", "sm__cycles_active.max value '1,3x7'");
}

static void test_rejects_missing_header(void **state)
{
    (void)state;
    expect_rejected("bad_no_header.csv", GM_ERR_MISSING, "bad_no_header.csv", "no ncu CSV header");
}

static void test_rejects_bad_quoting(void **state)
{
    (void)state;
    expect_rejected("bad_quoting.csv", GM_ERR_PARSE, ":32:", "quote");
}

static void test_rejects_unexpected_unit(void **state)
{
    (void)state;
    expect_rejected("bad_unit.csv", GM_ERR_PARSE, ":6:", "unit '%'");
}

static void test_rejects_duplicate_metric_row(void **state)
{
    (void)state;
    expect_rejected("bad_duplicate.csv", GM_ERR_DUPLICATE, ":8:", "given twice");
}

static void test_rejects_gpuq_counters_file(void **state)
{
    (void)state;
    /* A gpuq counters file is not ncu output: say so instead of guessing. */
    gm_counters_set s;
    gm_error err = {{0}};
    assert_int_equal(gm_ncu_csv_load(GPUQ_SOURCE_DIR "/tests/data/counters/valid.csv", &s, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "ncu --csv"));
    assert_int_equal(gm_ncu_csv_load(NCU "does_not_exist.csv", &s, &err), GM_ERR_IO);
}

/* Imported counters go through gpuq's own file unchanged. */
static void test_import_survives_counters_file(void **state)
{
    (void)state;
    gm_counters_set s = load_ok(NCU "ncu_probe_raw.csv");
    char path[512];
    snprintf(path, sizeof path, "%s/test_ncu_%ld.csv", GPUQ_BINARY_DIR, (long)getpid());
    gm_error err = {{0}};
    assert_int_equal(gm_counters_write_file(path, &s, &err), GM_OK);
    gm_counters_set back;
    assert_int_equal(gm_counters_load(path, &back, &err), GM_OK);
    assert_int_equal(back.count, s.count);
    assert_string_equal(back.meta.device_name, "NVIDIA H200");
    for (size_t i = 0; i < s.count; i++)
        for (int m = 0; m < GM_ATOMICS_M_ATOMIC_ROWS; m++) /* the rows a v1 file holds */
            assert_true(metric(&s, i, (gm_atomics_metric_id)m) == metric(&back, i, (gm_atomics_metric_id)m));
    gm_counters_set_clear(&back);
    gm_counters_set_clear(&s);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_layout_real_output),
        cmocka_unit_test(test_raw_page_real_output),
        cmocka_unit_test(test_three_recordings_agree_on_counts),
        cmocka_unit_test(test_scaled_units_are_converted),
        cmocka_unit_test(test_missing_metrics_stay_nan),
        cmocka_unit_test(test_program_output_before_header_is_skipped),
        cmocka_unit_test(test_rejects_truncated),
        cmocka_unit_test(test_rejects_bad_number),
        cmocka_unit_test(test_rejects_missing_header),
        cmocka_unit_test(test_rejects_bad_quoting),
        cmocka_unit_test(test_rejects_unexpected_unit),
        cmocka_unit_test(test_rejects_duplicate_metric_row),
        cmocka_unit_test(test_rejects_gpuq_counters_file),
        cmocka_unit_test(test_import_survives_counters_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
