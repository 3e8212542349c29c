/* The atomic-latency quantity L and the two-kind verdict
 * (src/model/atomic_latency.c), on hand-computed cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/atomic_latency.h"
#include "gpuq/model.h"

/* 1 SM-wide example: 64 warps max, occupancy 25% (16 warps), 1000 active
 * cycles -> W_active = 16000 warp-cycles. */
static gm_atomic_latency_input sample(double sb, double mio, double n, double inst)
{
    gm_atomic_latency_input in = {sb, mio, 25.0, 1000.0, 64, n, inst};
    return in;
}

static void all_atomics_waited_for(void **state)
{
    (void)state;
    /* Only ATOMS in the shared pipe: 12000 + 2000 of 16000 warp-cycles. */
    gm_atomic_latency_input in = sample(12000, 2000, 500, 500);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_null(out.missing);
    assert_float_equal(out.warps_active, 16000, 1e-9);
    assert_float_equal(out.atom_share, 1.0, 1e-12);
    assert_float_equal(out.stall_share, 14000.0 / 16000, 1e-12);
    assert_float_equal(out.L, 0.875, 1e-12);
}

static void plain_loads_apportioned(void **state)
{
    (void)state;
    /* A quarter of the shared-pipe instructions are ATOMS: a quarter of the
     * short-scoreboard and MIO stalls count. */
    gm_atomic_latency_input in = sample(8000, 0, 100, 400);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_float_equal(out.atom_share, 0.25, 1e-12);
    assert_float_equal(out.L, 0.5 * 0.25, 1e-12);
}

static void no_atomics_is_zero_even_without_stall_counters(void **state)
{
    (void)state;
    gm_atomic_latency_input in = sample(NAN, NAN, 0, 400);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_true(out.L == 0.0);
    assert_null(out.missing);
}

static void missing_counter_named(void **state)
{
    (void)state;
    gm_atomic_latency_input in = sample(NAN, 10, 5, 5);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_true(isnan(out.L));
    assert_string_equal(out.missing, "smsp__warps_issue_stalled_short_scoreboard.sum");
    in = sample(1, 1, 5, 5);
    in.max_warps_per_sm = 0;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_true(isnan(out.L));
    assert_non_null(out.missing);
}

static void bad_input_fails(void **state)
{
    (void)state;
    gm_atomic_latency_input in = sample(-1, 0, 5, 5);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "short_scoreboard"));
    assert_int_equal(gm_atomic_latency_compute(NULL, &out, &err), GM_ERR_INVALID_ARG);
}

static void share_capped_at_one(void **state)
{
    (void)state;
    /* Stalls over the derived W_active (it is 1.5% off at worst) and N above
     * the pipe count (mixed files): L stays a share. */
    gm_atomic_latency_input in = sample(16100, 0, 600, 500);
    gm_atomic_latency out;
    gm_error err;
    assert_int_equal(gm_atomic_latency_compute(&in, &out, &err), GM_OK);
    assert_float_equal(out.atom_share, 1.0, 1e-12);
    assert_float_equal(out.L, 1.0, 1e-12);
}

static void kinds(void **state)
{
    (void)state;
    const double u = GM_U_SIGNIFICANT, l = GM_L_LATENCY;
    assert_int_equal(gm_atomic_kind_of(0.97, 0.0, u, l), GM_ATOMIC_KIND_THROUGHPUT);
    assert_int_equal(gm_atomic_kind_of(0.97, NAN, u, l), GM_ATOMIC_KIND_THROUGHPUT);
    assert_int_equal(gm_atomic_kind_of(0.14, 0.85, u, l), GM_ATOMIC_KIND_LATENCY);
    assert_int_equal(gm_atomic_kind_of(0.14, l, u, l), GM_ATOMIC_KIND_LATENCY);
    assert_int_equal(gm_atomic_kind_of(0.14, l - 0.01, u, l), GM_ATOMIC_KIND_NONE);
    assert_int_equal(gm_atomic_kind_of(0.14, NAN, u, l), GM_ATOMIC_KIND_UNKNOWN);
    assert_int_equal(gm_atomic_kind_of(NAN, 0.9, u, l), GM_ATOMIC_KIND_UNKNOWN);
    assert_string_equal(gm_atomic_kind_name(GM_ATOMIC_KIND_LATENCY), "latency");
    assert_string_equal(gm_atomic_kind_name(GM_ATOMIC_KIND_THROUGHPUT), "throughput");
    assert_string_equal(gm_atomic_kind_name(GM_ATOMIC_KIND_NONE), "none");
}

static void verdict_lines(void **state)
{
    (void)state;
    char buf[192];
    const double b = GM_U_BOTTLENECK, u = GM_U_SIGNIFICANT, l = GM_L_LATENCY;
    gm_atomic_verdict_text(buf, sizeof buf, 0.97, 0.1, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are the bottleneck (throughput, U = 97%)");
    gm_atomic_verdict_text(buf, sizeof buf, 0.62, 0.1, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are a significant load (throughput, U = 62%)");
    gm_atomic_verdict_text(buf, sizeof buf, 0.14, 0.85, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are the bottleneck (latency: warps wait on "
                             "ATOMS 85% of cycles; U = 14%)");
    gm_atomic_verdict_text(buf, sizeof buf, 0.12, 0.03, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are not the bottleneck (U = 12%; warps wait "
                             "on ATOMS 3% of cycles)");
    gm_atomic_verdict_text(buf, sizeof buf, 0.12, NAN, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are not the bottleneck (U = 12%)");
    /* Truncation keeps the buffer terminated. */
    char small[8];
    gm_atomic_verdict_text(small, sizeof small, 0.97, 0.1, b, u, l);
    assert_int_equal(strlen(small), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_atomics_waited_for),
        cmocka_unit_test(plain_loads_apportioned),
        cmocka_unit_test(no_atomics_is_zero_even_without_stall_counters),
        cmocka_unit_test(missing_counter_named),
        cmocka_unit_test(bad_input_fails),
        cmocka_unit_test(share_capped_at_one),
        cmocka_unit_test(kinds),
        cmocka_unit_test(verdict_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
