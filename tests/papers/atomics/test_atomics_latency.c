/* The atomic-latency quantity L and the two-kind verdict
 * (src/papers/atomics/atomics_latency.c), on hand-computed cases. */
#include <math.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "papers/atomics/atomics_latency.h"
#include "gpuq/counters.h"
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_table.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

/* 1 SM-wide example: 64 warps max, occupancy 25% (16 warps), 1000 active
 * cycles -> W_active = 16000 warp-cycles.  The two-counter form (wait and
 * selected not collected). */
static gm_atomics_latency_input sample(double sb, double mio, double n, double inst)
{
    gm_atomics_latency_input in = {.stalled_short_scoreboard = sb,
                                   .stalled_mio_throttle = mio,
                                   .occupancy_pct = 25.0,
                                   .cycles_sum = 1000.0,
                                   .max_warps_per_sm = 64,
                                   .n_atom = n,
                                   .shared_inst = inst,
                                   .stalled_wait = NAN,
                                   .stalled_selected = NAN,
                                   .form = GM_ATOMICS_LATENCY_ISSUE};
    return in;
}

/* The same with wait and selected collected. */
static gm_atomics_latency_input sample4(double sb, double mio, double n, double inst, double wait,
                                        double sel)
{
    gm_atomics_latency_input in = sample(sb, mio, n, inst);
    in.stalled_wait = wait;
    in.stalled_selected = sel;
    return in;
}

/* L of a valid input (compute must accept it). */
static gm_atomics_latency computed(gm_atomics_latency_input in)
{
    gm_atomics_latency out;
    gm_error err;
    assert_int_equal(gm_atomics_latency_compute(&in, &out, &err), GM_OK);
    return out;
}

static void all_atomics_waited_for(void **state)
{
    (void)state;
    /* Only ATOMS in the shared pipe: 12000 + 2000 of 16000 warp-cycles. */
    gm_atomics_latency out = computed(sample(12000, 2000, 500, 500));
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
    gm_atomics_latency out = computed(sample(8000, 0, 100, 400));
    assert_float_equal(out.atom_share, 0.25, 1e-12);
    assert_float_equal(out.L, 0.5 * 0.25, 1e-12);
}

static void issue_term_names_unread_atomics(void **state)
{
    (void)state;
    /* A POPC.INC-like loop: nothing waits on the ATOMS result (no short
     * scoreboard, no MIO throttle), the warp is paced (wait 8000) and
     * issues 800 instructions, 200 of them ATOMS:
     * (8000 + 800) / 16000 x 200 / 800 = 0.55 x 0.25. */
    gm_atomics_latency out = computed(sample4(0, 0, 200, 200, 8000, 800));
    assert_int_equal(out.form, GM_ATOMICS_LATENCY_ISSUE);
    assert_float_equal(out.stall_share, 0.0, 1e-12);
    assert_float_equal(out.issue_share, 0.55, 1e-12);
    assert_float_equal(out.issue_atom_share, 0.25, 1e-12);
    assert_float_equal(out.L, 0.1375, 1e-12);
    /* Both terms: 4000 / 16000 x 100 / 400 + (2000 + 400) / 16000 x 100 / 400. */
    out = computed(sample4(4000, 0, 100, 400, 2000, 400));
    assert_float_equal(out.L, 0.0625 + 0.0375, 1e-12);
    /* The two-counter form asked for: the issue term is left out. */
    gm_atomics_latency_input in = sample4(4000, 0, 100, 400, 2000, 400);
    in.form = GM_ATOMICS_LATENCY_SB_MIO;
    out = computed(in);
    assert_int_equal(out.form, GM_ATOMICS_LATENCY_SB_MIO);
    assert_float_equal(out.L, 0.0625, 1e-12);
    assert_true(isnan(out.issue_share));
    /* Selected 0 with ATOMS executed (mixed files): the share is capped at 1. */
    out = computed(sample4(0, 0, 100, 100, 1600, 0));
    assert_float_equal(out.issue_atom_share, 1.0, 1e-12);
    assert_float_equal(out.L, 0.1, 1e-12);
    assert_float_equal(gm_atomics_latency_threshold(GM_ATOMICS_LATENCY_ISSUE), GM_L_LATENCY, 0);
    assert_float_equal(gm_atomics_latency_threshold(GM_ATOMICS_LATENCY_SB_MIO), GM_L_LATENCY_SB_MIO,
                       0);
    assert_string_equal(gm_atomics_latency_form_name(GM_ATOMICS_LATENCY_ISSUE), "issue");
    assert_string_equal(gm_atomics_latency_form_name(GM_ATOMICS_LATENCY_SB_MIO), "sb-mio");
}

static void issue_form_falls_back_without_its_counters(void **state)
{
    (void)state;
    /* wait or selected missing: the two-counter L exactly, and says so. */
    for (int which = 0; which < 2; which++) {
        gm_atomics_latency_input in = sample4(12000, 2000, 500, 500, 3000, 1000);
        if (which)
            in.stalled_wait = NAN;
        else
            in.stalled_selected = NAN;
        gm_atomics_latency out = computed(in);
        assert_int_equal(out.form, GM_ATOMICS_LATENCY_SB_MIO);
        assert_null(out.missing);
        assert_float_equal(out.L, 0.875, 0);
        assert_true(isnan(out.issue_share));
    }
    gm_atomics_latency out = computed(sample(12000, 2000, 500, 500));
    assert_int_equal(out.form, GM_ATOMICS_LATENCY_SB_MIO);
    assert_float_equal(out.L, 0.875, 0);
}

static void no_atomics_is_zero_even_without_stall_counters(void **state)
{
    (void)state;
    gm_atomics_latency out = computed(sample(NAN, NAN, 0, 400));
    assert_true(out.L == 0.0);
    assert_null(out.missing);
}

static void missing_counter_named(void **state)
{
    (void)state;
    gm_atomics_latency out = computed(sample(NAN, 10, 5, 5));
    assert_true(isnan(out.L));
    assert_string_equal(out.missing, "smsp__warps_issue_stalled_short_scoreboard.sum");
    gm_atomics_latency_input in = sample(1, 1, 5, 5);
    in.max_warps_per_sm = 0;
    out = computed(in);
    assert_true(isnan(out.L));
    assert_non_null(out.missing);
}

static void bad_input_fails(void **state)
{
    (void)state;
    gm_atomics_latency_input in = sample(-1, 0, 5, 5);
    gm_atomics_latency out;
    gm_error err;
    assert_int_equal(gm_atomics_latency_compute(&in, &out, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "short_scoreboard"));
    assert_int_equal(gm_atomics_latency_compute(NULL, &out, &err), GM_ERR_INVALID_ARG);
    in = sample4(1, 0, 5, 5, -2, 5);
    assert_int_equal(gm_atomics_latency_compute(&in, &out, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "stalled_wait"));
}

static void share_capped_at_one(void **state)
{
    (void)state;
    /* Stalls over the derived W_active (it is up to 1.6% off) and N above
     * the pipe count (mixed files): L stays a share. */
    gm_atomics_latency out = computed(sample(16100, 0, 600, 500));
    assert_float_equal(out.atom_share, 1.0, 1e-12);
    assert_float_equal(out.L, 1.0, 1e-12);
    /* The same with the issue term: N above selected is capped, L too. */
    out = computed(sample4(15000, 0, 500, 500, 1000, 300));
    assert_float_equal(out.issue_atom_share, 1.0, 1e-12);
    assert_float_equal(out.L, 1.0, 1e-12);
}

static void kinds(void **state)
{
    (void)state;
    const double u = GM_ATOMICS_U_SIGNIFICANT, l = GM_L_LATENCY;
    assert_int_equal(gm_atomics_kind_of(0.97, 0.0, u, l), GM_ATOMICS_KIND_THROUGHPUT);
    assert_int_equal(gm_atomics_kind_of(0.97, NAN, u, l), GM_ATOMICS_KIND_THROUGHPUT);
    assert_int_equal(gm_atomics_kind_of(0.14, 0.85, u, l), GM_ATOMICS_KIND_LATENCY);
    assert_int_equal(gm_atomics_kind_of(0.14, l, u, l), GM_ATOMICS_KIND_LATENCY);
    assert_int_equal(gm_atomics_kind_of(0.14, l - 0.01, u, l), GM_ATOMICS_KIND_NONE);
    assert_int_equal(gm_atomics_kind_of(0.14, NAN, u, l), GM_ATOMICS_KIND_UNKNOWN);
    assert_int_equal(gm_atomics_kind_of(NAN, 0.9, u, l), GM_ATOMICS_KIND_UNKNOWN);
    assert_string_equal(gm_atomics_kind_name(GM_ATOMICS_KIND_LATENCY), "latency");
    assert_string_equal(gm_atomics_kind_name(GM_ATOMICS_KIND_THROUGHPUT), "throughput");
    assert_string_equal(gm_atomics_kind_name(GM_ATOMICS_KIND_NONE), "none");
}

static void verdict_lines(void **state)
{
    (void)state;
    char buf[192];
    const double b = GM_ATOMICS_U_BOTTLENECK, u = GM_ATOMICS_U_SIGNIFICANT, l = GM_L_LATENCY;
    gm_atomics_verdict_text(buf, sizeof buf, 0.97, 0.1, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are the bottleneck (throughput, U = 97%)");
    gm_atomics_verdict_text(buf, sizeof buf, 0.62, 0.1, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are a significant load (throughput, U = 62%)");
    gm_atomics_verdict_text(buf, sizeof buf, 0.14, 0.85, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are the bottleneck (latency: warps wait on "
                             "ATOMS 85% of cycles; U = 14%)");
    gm_atomics_verdict_text(buf, sizeof buf, 0.12, 0.03, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are not the bottleneck (U = 12%; warps wait "
                             "on ATOMS 3% of cycles)");
    gm_atomics_verdict_text(buf, sizeof buf, 0.12, NAN, b, u, l);
    assert_string_equal(buf, "shared-memory atomics are not the bottleneck (U = 12%)");
    /* Truncation keeps the buffer terminated. */
    char small[8];
    gm_atomics_verdict_text(small, sizeof small, 0.97, 0.1, b, u, l);
    assert_int_equal(strlen(small), 7);
}

static const gm_field *field(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

/* The atomic unit on five launches of the H100 validation run (ncu raw
 * page, tests/papers/atomics/data/ncu_raw_latency_h100.csv): L by hand from the
 * same counters (occupancy x 64 x cycles, N / I_shared, N / W_sel), kind,
 * verdict, in the shipped form, in the two-counter variant, and in the
 * shipped form with wait and selected taken out (older files): the
 * two-counter numbers again. */
typedef struct recorded_want {
    const char *kernel, *kind, *verdict_head;
    double L;
} recorded_want;

static void unit_on_recorded(const char *variant, int drop_issue_counters, const char *form,
                             const recorded_want *want)
{
    const gm_unit *u = gm_unit_find("atomics");
    gm_machine m;
    th_atomics_machine(&m, "tables/nvidia-h100-80gb-hbm3/atomics.csv.gz");
    gm_counters_set set;
    gm_error err;
    assert_int_equal(gm_ncu_csv_load(GPUQ_SOURCE_DIR "/tests/papers/atomics/data/ncu_raw_latency_h100.csv",
                                     &set, &err),
                     GM_OK);
    assert_int_equal(set.count, 5);
    int rw = gm_metric_find("smsp__warps_issue_stalled_wait.sum");
    int rs = gm_metric_find("smsp__warps_issue_stalled_selected.sum");
    assert_true(rw >= 0 && rs >= 0);
    void *st = NULL;
    assert_int_equal(u->prepare(&m, variant, &st, NULL), GM_OK);
    void *res = calloc(1, u->result_size);
    assert_non_null(res);
    for (size_t i = 0; i < set.count; i++) {
        assert_non_null(strstr(set.launches[i].kernel, want[i].kernel));
        /* the importer took the issue form's counters from the raw page */
        assert_false(isnan(set.launches[i].metric[rw]));
        assert_false(isnan(set.launches[i].metric[rs]));
        if (drop_issue_counters)
            set.launches[i].metric[rw] = set.launches[i].metric[rs] = NAN;
        assert_int_equal(u->apply(st, &set.meta, &set.launches[i], res, NULL), GM_OK);
        gm_field f[GM_UNIT_MAX_FIELDS];
        size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
        const gm_field *L = field(f, nf, "L"), *kind = field(f, nf, "kind");
        const gm_field *lf = field(f, nf, "L_form");
        assert_non_null(L);
        assert_non_null(kind);
        assert_non_null(lf);
        assert_int_equal(L->kind, GM_FIELD_PCT);
        assert_float_equal(L->num, want[i].L, 5e-5);
        assert_string_equal(kind->text, want[i].kind);
        if (set.launches[i].metric[GM_ATOMICS_M_N_ATOM] > 0)
            assert_string_equal(lf->text, form);
        gm_unit_verdict vd;
        u->verdict(st, res, &vd);
        assert_memory_equal(vd.text, want[i].verdict_head, strlen(want[i].verdict_head));
        if (strcmp(want[i].kind, "latency") == 0)
            assert_float_equal(vd.severity, want[i].L, 5e-5);
        if (u->free_result)
            u->free_result(res);
    }
    free(res);
    u->release(st);
    gm_counters_set_clear(&set);
    gm_machine_free(&m);
}

static void unit_on_recorded_launches(void **state)
{
    (void)state;
    /* L = (sb + mio) / W x N / I  +  (wait + sel) / W x N / sel, by hand
     * from the fixture's counters (W = occupancy / 100 x 64 x cycles). */
    static const recorded_want issue[] = {
        /* add_same_address_e32_t32x1: 1 warp per SM, U 0.44 */
        {"vk_loop<1, 0, 0, 0>", "latency",
         "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS 94% of cycles; U = 44%)",
         0.9379},
        /* add_same_address_e32_t1024x2: 64 warps, saturated */
        {"vk_loop<1, 0, 0, 0>", "throughput", "shared-memory atomics are the bottleneck (throughput, U = 100%)",
         0.9881},
        /* add_same_address_e1_t32x1_chain: U 0.03 */
        {"vk_loop<1, 1, 0, 0>", "latency",
         "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS 68% of cycles; U = 3%)",
         0.6762},
        /* hash_cas_t512x1 */
        {"vk_hash<1>", "none", "shared-memory atomics are not the bottleneck (U = ", 0.0984},
        /* fma16_t256x4: no atomics */
        {"vk_loop<0, 0, 1, 16>", "none", "no shared-memory atomics (U = 0)", 0.0},
    };
    /* The two-counter form: (sb + mio) / W x N / I only. */
    static const recorded_want sb_mio[] = {
        {"vk_loop<1, 0, 0, 0>", "latency",
         "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS 90% of cycles; U = 44%)",
         0.9013},
        {"vk_loop<1, 0, 0, 0>", "throughput", "shared-memory atomics are the bottleneck (throughput, U = 100%)",
         0.9864},
        {"vk_loop<1, 1, 0, 0>", "latency",
         "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS 59% of cycles; U = 3%)",
         0.5909},
        {"vk_hash<1>", "none", "shared-memory atomics are not the bottleneck (U = ", 0.0899},
        {"vk_loop<0, 0, 1, 16>", "none", "no shared-memory atomics (U = 0)", 0.0},
    };
    unit_on_recorded(NULL, 0, "issue", issue);
    unit_on_recorded("latency-sb-mio", 0, "sb-mio", sb_mio);
    unit_on_recorded(NULL, 1, "sb-mio", sb_mio);
}

/* Counters without the stall counters (every file recorded before them):
 * L is NaN, the verdict is the one gpuq printed before. */
static void unit_without_stall_counters(void **state)
{
    (void)state;
    const gm_unit *u = gm_unit_find("atomics");
    gm_machine m;
    th_atomics_machine(&m, "tables/nvidia-h200/atomics.csv.gz");
    gm_counters_set set;
    th_recorded_h200(&set);
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    void *res = calloc(1, u->result_size);
    for (size_t i = 0; i < set.count; i++) {
        assert_int_equal(u->apply(st, &set.meta, &set.launches[i], res, NULL), GM_OK);
        gm_atomics_kernel_result want;
        memset(&want, 0, sizeof want);
        gm_atomics_model_options opt;
        assert_int_equal(gm_atomics_model_by_name("default", &opt), GM_OK);
        assert_int_equal(gm_atomics_model_apply_report(gm_machine_data(&m, "atomics"), &opt, &set.launches[i], &want, NULL),
                         GM_OK);
        gm_field f[GM_UNIT_MAX_FIELDS];
        size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
        double N = set.launches[i].metric[GM_ATOMICS_M_N_ATOM];
        if (N > 0)
            assert_true(isnan(field(f, nf, "L")->num));
        gm_unit_verdict vd;
        u->verdict(st, res, &vd);
        assert_string_equal(vd.text, want.verdict);
        gm_atomics_kernel_result_free(&want);
        if (u->free_result)
            u->free_result(res);
    }
    free(res);
    u->release(st);
    gm_counters_set_clear(&set);
    gm_machine_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_atomics_waited_for),
        cmocka_unit_test(plain_loads_apportioned),
        cmocka_unit_test(issue_term_names_unread_atomics),
        cmocka_unit_test(issue_form_falls_back_without_its_counters),
        cmocka_unit_test(no_atomics_is_zero_even_without_stall_counters),
        cmocka_unit_test(missing_counter_named),
        cmocka_unit_test(bad_input_fails),
        cmocka_unit_test(share_capped_at_one),
        cmocka_unit_test(kinds),
        cmocka_unit_test(verdict_lines),
        cmocka_unit_test(unit_on_recorded_launches),
        cmocka_unit_test(unit_without_stall_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
