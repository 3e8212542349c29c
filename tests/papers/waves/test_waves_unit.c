/* The "blocks and waves" unit (src/papers/waves/waves_unit.c, paper 003) on
 * made-up sched machine data with H100-like parameters and a linear FFMA
 * fu(c) = max(1, c / 4); every expected value is worked out in comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/waves/waves_model.h"
#include "papers/waves/waves_data.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

static void near_(double got, double want, int line)
{
    if (!(fabs(got - want) <= 1e-9 * (1 + fabs(want)))) {
        print_error("line %d: got %.17g, want %.17g\n", line, got, want);
        fail();
    }
}
#define NEAR(got, want) near_((double)(got), (double)(want), __LINE__)

/* test_helpers.h's H100-like sched rows, with the FFMA fu(c) curve. */
static gm_mdata *sched_md(void)
{
    gm_mdata_meta m = th_meta("sched", TH_H100, 132, "2026-11-25T21:00:00Z");
    gm_mdata *md = th_sched_h100(&m);
    for (int c = 1; c <= 32; c++) {
        char cs[8], fs[32];
        snprintf(cs, sizeof cs, "%d", c);
        snprintf(fs, sizeof fs, "%.17g", c <= 4 ? 1.0 : c / 4.0);
        th_sched_row(md, "fu", "ffma", cs, "1", "", fs, "", "");
    }
    return md;
}

static const gm_field *field(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    fail_msg("no field %s", name);
    return NULL;
}

static void launch(gm_launch_counters *k, unsigned G, unsigned B, int regs, int smem, double ns)
{
    memset(k, 0, sizeof *k);
    for (int i = 0; i < GM_METRIC_MAX; i++)
        k->metric[i] = NAN;
    k->grid[0] = G;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = B;
    k->block[1] = k->block[2] = 1;
    k->regs_per_thread = regs;
    k->shared_bytes = smem;
    k->metric[gm_metric_find("gpu__time_duration.sum")] = ns;
}

static void waves_unit(void **state)
{
    (void)state;
    const gm_unit *u = th_unit("waves", "blocks and waves");
    gm_machine m;
    th_machine_with(&m, "sched", sched_md());
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    void *res = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    gm_launch_counters k;

    /* 396 blocks of 1024 threads, 32 regs: b = 32, N_slot = min(32, 64/32,
     * -, 4 * (16384/1024) / 32 = 2) = 2 (warps and registers); a wave is
     * 264 blocks, 396 / 264 = 1.5 waves, the last half full */
    launch(&k, 396, 1024, 32, 0, 300e3);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    size_t n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 2);
    assert_string_equal(field(f, n, "limiter")->text, "warps+registers");
    NEAR(field(f, n, "waves")->num, 1.5);
    NEAR(field(f, n, "tail")->num, 0.5);
    NEAR(field(f, n, "occupancy")->num, 1);
    NEAR(field(f, n, "T_us")->num, 300);
    /* Eq. 3.2, g = ceil(396/132) = 3, N = 2: fu(64) + fu(32) = 16 + 8 = 24;
     * 2G = 792: g = 6: 3 fu(64) = 48 -> 600 us; G/2 = 198: g = 2: fu(64)
     * = 16 -> 200 us (fu beyond 32 warps: c / 4, Eq. 3.6-3.7) */
    NEAR(field(f, n, "T_2G_us")->num, 600);
    NEAR(field(f, n, "T_halfG_us")->num, 200);
    /* half the blocks of 64 warps: beyond L(T/B) = 1024 threads, no launch */
    assert_true(isnan(field(f, n, "T_2b_halfG_us")->num));
    /* 792 blocks of 16 warps: N = 4, g = 6: 1 fu(64) + fu(32) = 24 -> 300 us */
    NEAR(field(f, n, "T_halfb_2G_us")->num, 300);
    gm_unit_verdict v;
    u->verdict(st, res, &v);
    NEAR(v.severity, 0.25); /* 1 - 1.5 / 2 */
    assert_non_null(strstr(v.text, "1.50 waves of 264 blocks"));

    /* shared memory binds: 40,000 bytes + 1 KiB reserved -> 41,088 after
     * rounding to 128; 233472 / 41088 = 5 (hopper); the paper's form
     * rounds 40,000 to 40,064: 232448 / 40064 = 5 too */
    launch(&k, 66, 128, 32, 40000, 10e3);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 5);
    assert_string_equal(field(f, n, "limiter")->text, "shared memory");
    NEAR(field(f, n, "waves")->num, 0.1);
    u->verdict(st, res, &v);
    assert_non_null(strstr(v.text, "fill 10% of one wave"));

    /* unknown registers: says so, no numbers */
    launch(&k, 66, 128, -1, 0, 10e3);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_true(isnan(field(f, n, "N_slot")->num));
    u->verdict(st, res, &v);
    assert_non_null(strstr(v.text, "register count is unknown"));
    u->release(st);

    /* the paper's form: b = 3 warps, 40 regs: 65536 / (1280 * 3) = 17 vs
     * hopper 4 * (16384 / 1280 = 12) / 3 = 16 */
    assert_int_equal(u->prepare(&m, "paper", &st, NULL), GM_OK);
    launch(&k, 132, 96, 40, 0, 10e3);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 17);
    u->release(st);
    assert_int_equal(u->prepare(&m, "hopper", &st, NULL), GM_OK);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 16);
    u->release(st);

    /* refill: per-block logs of the FFMA kernel, b = 1 spread evenly
     * (mixing 0), b = 32 with 2 tail blocks on 29 SMs (the random refill's
     * busiest: mixing 1); b = 16 gets 0.8 (linear in log2 b) */
    for (int q = 0; q < 2 * 132; q++) {
        int sm = q % 132;
        char x[8], t[8];
        snprintf(x, sizeof x, "%d", sm);
        snprintf(t, sizeof t, "%d", q < 132 ? 16 : sm < 29 ? 2 : sm < 103 ? 1 : 0);
        const char *row[9] = {"tail", "ffma", x, q < 132 ? "1" : "32", q < 132 ? "6336" : "396",
                              t, "", "", ""};
        assert_int_equal(gm_mdata_add_row(m.files[0].md, row, NULL), GM_OK);
    }
    assert_int_equal(u->prepare(&m, "refill", &st, NULL), GM_OK);
    /* 396 blocks of 32 warps, N = 2: one wave of 264 and 132 refilled: even
     * share 1, the random refill's busiest SM 2 (P(X <= 1)^132 ~ 0): T =
     * fu(64) + fu(64) = 32 for 300 us; 2G = 792: three whole waves, 48 ->
     * 450 us; G/2 = 198 blocks (under a wave): fu(64) = 16 -> 150 us;
     * 792 blocks of 16 warps, N = 4: 264 refilled, even 2, random 4
     * (P(X = 4) = 0.062, P(X <= 3)^132 ~ 0), mixing 0.8: ceil(2 + 1.6) =
     * 4: fu(64) + fu(64) = 32 -> 300 us */
    launch(&k, 396, 1024, 32, 0, 300e3);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 2);
    NEAR(field(f, n, "T_2G_us")->num, 450);
    NEAR(field(f, n, "T_halfG_us")->num, 150);
    NEAR(field(f, n, "T_halfb_2G_us")->num, 300);
    u->release(st);
    assert_int_equal(u->prepare(&m, "bogus", &st, NULL), GM_ERR_INVALID_ARG);

    /* no machine data: one clear failure naming the suite */
    gm_machine empty;
    memset(&empty, 0, sizeof empty);
    gm_error err;
    assert_int_equal(u->prepare(&empty, NULL, &st, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "--suite sched"));
    free(res);
    gm_mdata_free(m.files[0].md);
}

/* Eq. 3.2 against kernel times made by Eq. 3.2 itself (ground truth by
 * construction): r = 1 and no error; one point 10% slow gives that point's
 * error as the maximum. */
static void fit_by_construction(void **state)
{
    (void)state;
    gm_mdata *md = sched_md();
    gm_waves_fu_curve f = {.n = 32, .P1 = 1};
    for (int c = 1; c <= 32; c++)
        f.fu[c - 1] = c <= 4 ? 1.0 : c / 4.0;
    static const int bs[] = {1, 2, 8, 32};
    static const long Gs[] = {1, 66, 132, 133, 2112, 4224, 4225, 6336, 8448, 16896};
    for (size_t i = 0; i < 4; i++) {
        int N = bs[i] == 32 ? 2 : bs[i] == 8 ? 8 : 32; /* hopper form, 16 registers */
        for (size_t j = 0; j < sizeof Gs / sizeof Gs[0]; j++) {
            char G[24], b[8], t[40];
            double T = 0.05 * gm_waves_time(&f, gm_waves_blocks_per_mp(Gs[j], 132), bs[i], N);
            if (Gs[j] == 8448 && bs[i] == 8)
                T *= 1.1;
            snprintf(G, sizeof G, "%ld", Gs[j]);
            snprintf(b, sizeof b, "%d", bs[i]);
            snprintf(t, sizeof t, "%.17g", T);
            const char *row[9] = {"tgb", "ffma", G, b, "", t, "", "", ""};
            assert_int_equal(gm_mdata_add_row(md, row, NULL), GM_OK);
        }
    }
    const char *kern[9] = {"kern", "ffma", "16", "0", "", "", "", "", ""};
    assert_int_equal(gm_mdata_add_row(md, kern, NULL), GM_OK);
    gm_waves_data *d = calloc(1, sizeof *d);
    assert_int_equal(gm_waves_data_load(md, d, NULL), GM_OK);
    assert_int_equal(d->derived.n_mp, 132);
    assert_int_equal(d->derived.N1, 32);
    assert_int_equal(d->derived.N2, 64);
    assert_int_equal(d->derived.S[GM_WAVES_FORM_HOPPER], 233472);
    assert_int_equal(d->derived.s_res[GM_WAVES_FORM_HOPPER], 1024);
    assert_int_equal(d->derived.r_parts[GM_WAVES_FORM_HOPPER], 4);
    assert_int_equal(d->derived.shm_mismatch[GM_WAVES_FORM_HOPPER], 0);
    assert_true(d->derived.shm_mismatch[GM_WAVES_FORM_PAPER] > 0);
    gm_waves_fit fit;
    assert_int_equal(gm_waves_fit_tgb(d, "ffma", GM_WAVES_FORM_HOPPER, &fit, NULL), GM_OK);
    assert_int_equal(fit.n, 39); /* 4 x 10 points less the scale point */
    NEAR(fit.max_err, 1 - 1 / 1.1); /* |1 / 1.1 - 1| */
    NEAR(fit.median_err, 0);
    assert_true(fit.r > 0.99 && fit.r < 1);
    gm_waves_fit_free(&fit);
    assert_int_equal(gm_waves_fit_tgb(d, "nosuch", GM_WAVES_FORM_HOPPER, &fit, NULL),
                     GM_ERR_MISSING);
    /* the refill model needs per-block logs: none yet */
    assert_int_equal(gm_waves_fit_tgb_model(d, "ffma", GM_WAVES_FORM_HOPPER, GM_WAVES_T_REFILL,
                                            NULL, &fit, NULL), GM_ERR_MISSING);
    /* logs at 1.5 waves: b = 1 spread evenly (16 tail blocks on every SM:
     * mixing 0), b = 32 with 2 tail blocks on some SMs (the random refill's
     * busiest: mixing 1) */
    for (int k = 0; k < 2 * 132; k++) { /* one launch's rows together, as the suite writes */
        int sm = k % 132;
        char x[8], t[8];
        snprintf(x, sizeof x, "%d", sm);
        snprintf(t, sizeof t, "%d", k < 132 ? 16 : sm % 3 == 0 ? 2 : sm % 3 == 1 ? 0 : 1);
        const char *row[9] = {"tail", "ffma", x, k < 132 ? "1" : "32", k < 132 ? "6336" : "396",
                              t, "", "", ""};
        assert_int_equal(gm_mdata_add_row(md, row, NULL), GM_OK);
    }
    assert_int_equal(gm_waves_data_load(md, d, NULL), GM_OK);
    NEAR(gm_waves_data_op(d, "ffma")->mix[0], 0);
    NEAR(gm_waves_data_op(d, "ffma")->mix[1], 1);
    assert_int_equal(gm_waves_fit_tgb_model(d, "ffma", GM_WAVES_FORM_HOPPER, GM_WAVES_T_REFILL,
                                            NULL, &fit, NULL), GM_OK);
    NEAR(fit.mix[0], 0);
    NEAR(fit.mix[1], 1);
    /* at b = 1 the mixing is 0: those 9 points equal Eq. 3.2's */
    size_t same = 0;
    for (size_t i = 0; i < fit.n; i++)
        if (fit.b[i] == 1)
            same += fabs(fit.pred[i] - fit.meas[i]) <= 1e-9 * fit.meas[i];
    assert_int_equal(same, 9);
    gm_waves_fit_free(&fit);
    free(d);
    gm_mdata_free(md);
}

/* With throughput data and the bottleneck's counters the what-ifs use the
 * kernel's own cost of a wave.  132 blocks of 4 warps (32 registers: N_slot
 * 16), a dependent FFMA chain of 10,000 per warp, 41 us at 1 GHz.  The test
 * GPU's rates (test_helpers.h): fma 4 and issue 4 per clock per SM, the
 * issue rate at 4 warps per SM 4 x 4 / 4 = 4: the components take 40,000 /
 * 4 = 10,000 cycles = 10 us of 41: latency bound, one wave costs 41 us
 * however full.  Twice the grid (8 warps per SM, one wave, 20 us of work)
 * is 41 us, not the FFMA fu(c)'s 82. */
static void kernel_wave_cost(void **state)
{
    (void)state;
    const gm_unit *u = th_unit("waves", "blocks and waves");
    gm_machine m;
    th_machine_with(&m, "sched", sched_md());
    m.n_files = 2;
    snprintf(m.files[1].suite, sizeof m.files[1].suite, "throughput");
    m.files[1].md = th_throughput_test_gpu(0);
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    void *res = calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    gm_launch_counters k;
    launch(&k, 132, 128, 32, 0, 41e3);
    th_set_metric(&k, "smsp__inst_executed.sum", 132 * 4 * 1e4);
    th_set_metric(&k, "smsp__inst_executed_pipe_fma.sum", 132 * 4 * 1e4);
    th_set_metric(&k, "sm__cycles_elapsed.avg", 41e3);
    th_set_metric(&k, "sm__warps_active.avg.pct_of_peak_sustained_active", 100.0 * 4 / 64);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    size_t n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    NEAR(field(f, n, "N_slot")->num, 16);
    assert_string_equal(field(f, n, "tgb_from")->text, "latency (measured)");
    NEAR(field(f, n, "T_floor_us")->num, 41);
    assert_true(fabs(field(f, n, "T_2G_us")->num - 41) < 1e-6);
    assert_true(fabs(field(f, n, "T_halfG_us")->num - 41) < 1e-6);
    /* 4224 blocks: g = 32, two full waves of 64 warps per SM, each 64 x
     * 10,000 / 4 cycles = 160 us at the unit's rate */
    launch(&k, 132 * 32, 128, 32, 0, 2 * 160e3);
    th_set_metric(&k, "smsp__inst_executed.sum", 132 * 32 * 4 * 1e4);
    th_set_metric(&k, "smsp__inst_executed_pipe_fma.sum", 132 * 32 * 4 * 1e4);
    th_set_metric(&k, "sm__cycles_elapsed.avg", 2 * 160e3);
    th_set_metric(&k, "sm__warps_active.avg.pct_of_peak_sustained_active", 100.0);
    /* the warps' own latency from their states: wait 3 + selected 1 cycle
     * per FFMA, 40 us; alpha 1: twice the grid 640 us, half 160 us (one
     * wave), the same threads in blocks of 2 warps (N_slot 32, the same
     * waves) 320 us */
    th_set_metric(&k, "smsp__warps_issue_stalled_wait.sum", 132 * 32 * 4 * 3e4);
    th_set_metric(&k, "smsp__warps_issue_stalled_selected.sum", 132 * 32 * 4 * 1e4);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_string_equal(field(f, n, "tgb_from")->text, "components");
    assert_true(fabs(field(f, n, "T_floor_us")->num - 40) < 1e-6);
    assert_true(fabs(field(f, n, "T_2G_us")->num - 640) < 1e-6);
    assert_true(fabs(field(f, n, "T_halfG_us")->num - 160) < 1e-6);
    assert_true(fabs(field(f, n, "T_halfb_2G_us")->num - 320) < 1e-6);
    u->release(st);
    free(res);
    gm_mdata_free(m.files[0].md);
    gm_mdata_free(m.files[1].md);
}

/* kernel_wave_cost's machine: sched data and the test GPU's throughput */
static void wave_cost_machine(gm_machine *m)
{
    th_machine_with(m, "sched", sched_md());
    m->n_files = 2;
    snprintf(m->files[1].suite, sizeof m->files[1].suite, "throughput");
    m->files[1].md = th_throughput_test_gpu(0);
}

/* kernel_wave_cost's launch of 4224 blocks with its warp states */
static void wave_cost_launch(gm_launch_counters *k)
{
    launch(k, 132 * 32, 128, 32, 0, 2 * 160e3);
    th_set_metric(k, "smsp__inst_executed.sum", 132 * 32 * 4 * 1e4);
    th_set_metric(k, "smsp__inst_executed_pipe_fma.sum", 132 * 32 * 4 * 1e4);
    th_set_metric(k, "sm__cycles_elapsed.avg", 2 * 160e3);
    th_set_metric(k, "sm__warps_active.avg.pct_of_peak_sustained_active", 100.0);
    th_set_metric(k, "smsp__warps_issue_stalled_wait.sum", 132 * 32 * 4 * 3e4);
    th_set_metric(k, "smsp__warps_issue_stalled_selected.sum", 132 * 32 * 4 * 1e4);
}

/* The unit keeps the results of launches it has seen (core/memo.h): a
 * launch seen again gets the result it got, and a launch that differs in
 * any one input (its time, a warp state, the grid, shared memory, the
 * clock) gets its own, the one a state that has seen
 * nothing computes, also once a thousand other launches have pushed the
 * first out. */
static void memo_as_computed(void **state)
{
    (void)state;
    const gm_unit *u = th_unit("waves", "blocks and waves");
    gm_machine m;
    wave_cost_machine(&m);
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    void *r1 = calloc(1, u->result_size), *again = calloc(1, u->result_size);
    void *other = calloc(1, u->result_size), *fresh = calloc(1, u->result_size);
    gm_launch_counters k;
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 132;
    meta.max_warps_per_sm = 64;
    wave_cost_launch(&k);
    assert_int_equal(u->apply(st, &meta, &k, r1, NULL), GM_OK);
    assert_int_equal(u->apply(st, &meta, &k, again, NULL), GM_OK);
    assert_true(th_same_result(u, st, r1, again));
    k.launch_id = 7; /* not an input */
    assert_int_equal(u->apply(st, &meta, &k, again, NULL), GM_OK);
    assert_true(th_same_result(u, st, r1, again));
    for (int change = 0; change < 5; change++) {
        wave_cost_launch(&k);
        if (change == 0)
            th_set_metric(&k, "gpu__time_duration.sum", 2.5 * 160e3);
        else if (change == 1)
            th_set_metric(&k, "smsp__warps_issue_stalled_wait.sum", 132 * 32 * 4 * 6e4);
        else if (change == 2)
            k.grid[0] = 132 * 40;
        else if (change == 3)
            k.shared_bytes = 60000;
        else
            th_set_metric(&k, "sm__cycles_elapsed.avg", 160e3); /* half the clock */
        assert_int_equal(u->apply(st, &meta, &k, other, NULL), GM_OK);
        if (th_same_result(u, st, r1, other))
            fail_msg("change %d: the same result", change);
        void *st2 = NULL;
        assert_int_equal(u->prepare(&m, NULL, &st2, NULL), GM_OK);
        assert_int_equal(u->apply(st2, &meta, &k, fresh, NULL), GM_OK);
        assert_true(th_same_result(u, st, other, fresh));
        /* and again from the cache */
        assert_int_equal(u->apply(st, &meta, &k, again, NULL), GM_OK);
        assert_true(th_same_result(u, st, fresh, again));
        u->release(st2);
    }
    for (int i = 0; i < 1000; i++) {
        wave_cost_launch(&k);
        th_set_metric(&k, "gpu__time_duration.sum", 2 * 160e3 + i + 1);
        assert_int_equal(u->apply(st, &meta, &k, other, NULL), GM_OK);
    }
    wave_cost_launch(&k);
    assert_int_equal(u->apply(st, &meta, &k, again, NULL), GM_OK);
    assert_true(th_same_result(u, st, r1, again));
    u->release(st);
    free(r1);
    free(again);
    free(other);
    free(fresh);
    gm_mdata_free(m.files[0].md);
    gm_mdata_free(m.files[1].md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(waves_unit),
                                       cmocka_unit_test(fit_by_construction),
                                       cmocka_unit_test(kernel_wave_cost),
                                       cmocka_unit_test(memo_as_computed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
