/* GPU smoke test of the calibrate launcher: a few cells measured for real.
 *
 * Checks only what must hold on any GPU with shared-memory atomics (paper
 * 000, Sec. 3.2 and Figure 1): every T is positive; S = T/n falls as n grows
 * (S(32) < S(1)); a same-address CAS with e = 32 costs more than an ADD with
 * e = 1; samples come back for (nearly) every cell, n > 32 included (the
 * two-block rendezvous works); S at n = 64 stays within 2x of S at n = 32
 * (the first version's n > 44 defect).  Exits 77 without a usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "papers/atomics/atomics_bench.h"

#define REPS 5

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* Median T of each cell of one launch; NaN if fewer than REPS/2+1 samples came back. */
static void run(gb_atomics_context *ctx, gm_atomics_job_class cls, int mixes,
                gm_atomics_method method, int n, const gb_atomics_launch_cell *cells, int n_cells,
                double *t_median)
{
    gb_atomics_launch_cell copy[16];
    for (int i = 0; i < n_cells; i++)
        copy[i] = cells[i];
    gb_atomics_launch l = {.cls = cls, .mixes_cas = mixes, .method = method, .n = n, .reps = REPS,
                           .n_cells = n_cells, .cells = copy};
    double samples[REPS * 16];
    gm_error err = {{0}};
    gm_status st = gb_atomics_run_launch(ctx, &l, samples, &err);
    if (st != GM_OK) {
        printf("FAIL: gb_atomics_run_launch n=%d: %s (%s)\n", n, err.msg, gm_strerror(st));
        exit(1);
    }
    for (int i = 0; i < n_cells; i++) {
        double kept[REPS];
        int k = 0;
        for (int r = 0; r < REPS; r++)
            if (!isnan(samples[r * n_cells + i]) && samples[r * n_cells + i] >= 0)
                kept[k++] = samples[r * n_cells + i];
        double med = NAN, lo, hi, spread;
        if (k > REPS / 2)
            gb_atomics_stats(kept, k, &med, &lo, &hi, &spread);
        t_median[i] = med;
        printf("  %s %s n=%2d e=%2d c=%2d %-13s T=%9.1f S=%7.2f (%d/%d samples)\n",
               gm_atomics_class_name(cls), gm_atomics_method_name(method), n, cells[i].e,
               cells[i].c, gm_atomics_pattern_name(cells[i].pattern), med, med / n, k, REPS);
        gb_atomics_cell_detail d;
        if (gb_atomics_launch_detail(ctx, &l, 0, i, 0, &d, NULL) == GM_OK)
            printf("    rep 0, measurement 0, cycles after its start: arrivals %.0f..%.0f, "
                   "last completion %.0f (window %.0f), verdict %d\n",
                   d.first_arrival, d.last_arrival, d.last_completion, d.window, (int)d.verdict);
        CHECK(k > REPS / 2, "cell n=%d e=%d c=%d: only %d of %d samples kept", n, cells[i].e,
              cells[i].c, k, REPS);
        CHECK(med > 0, "cell n=%d e=%d c=%d: T=%g not positive", n, cells[i].e, cells[i].c, med);
    }
}

int main(void)
{
    gb_atomics_context *ctx = NULL;
    gm_error err = {{0}};
    gm_status st = gb_atomics_open(0, &ctx, &err);
    if (st == GM_ERR_NO_GPU || st == GM_ERR_UNSUPPORTED) {
        printf("skipped: %s (%s)\n", err.msg, gm_strerror(st));
        return 77;
    }
    if (st != GM_OK) {
        printf("FAIL: gb_atomics_open: %s (%s)\n", err.msg, gm_strerror(st));
        return 1;
    }
    gm_atomics_table_meta meta = {0};
    gb_atomics_device_meta(ctx, &meta);
    double mhz = 0;
    st = gb_atomics_measure_sm_clock(ctx, &mhz, &err);
    CHECK(st == GM_OK && mhz > 100 && mhz < 5000, "SM clock %g MHz (%s)", mhz, err.msg);
    printf("%s, %d SMs, %d cells per launch, SM clock %.0f MHz\n", meta.gpu_name, meta.sm_count,
           gb_atomics_cells_per_launch(ctx), mhz);

    const gm_atomics_pattern SAME = GM_ATOMICS_PATTERN_SAME_ADDRESS, DISTINCT = GM_ATOMICS_PATTERN_DISTINCT_BANK;
    /* ADD/CAS grid, single shot: n = 1, 8, 32, 64 with e = 1 ADD and e = 32 CAS. */
    const gb_atomics_launch_cell n1[] = {{0, SAME, 1, 0}, {1, SAME, 32, 1}, {2, DISTINCT, 32, 0}};
    double t1[3];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 1, n1, 3, t1);
    const gb_atomics_launch_cell n8[] = {{0, SAME, 1, 0}, {1, SAME, 32, 8}};
    double t8[2];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 8, n8, 2, t8);
    const gb_atomics_launch_cell n32[] = {{0, SAME, 1, 0}, {1, SAME, 32, 32}, {2, DISTINCT, 32, 0}};
    double t32[3];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 32, n32, 3, t32);
    const gb_atomics_launch_cell n64[] = {{0, SAME, 1, 0}, {1, SAME, 32, 64}, {2, SAME, 16, 32}};
    double t64[3];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 64, n64, 3, t64);
    /* Just above one block's 32 warps: two blocks meet on one SM. */
    const gb_atomics_launch_cell two_blocks[] = {{0, SAME, 1, 0}, {1, DISTINCT, 32, 0}};
    double t_more[2];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 33, two_blocks, 2, t_more);
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT, 48, two_blocks, 2, t_more);

    CHECK(t32[0] / 32 < t1[0], "S(n=32) = %g not below S(n=1) = %g", t32[0] / 32, t1[0]);
    CHECK(t8[1] > t8[0], "n=8: CAS e=32 (T=%g) not dearer than ADD e=1 (T=%g)", t8[1], t8[0]);
    CHECK(t32[1] > t32[0], "n=32: CAS e=32 (T=%g) not dearer than ADD e=1 (T=%g)", t32[1],
          t32[0]);
    CHECK(t64[1] > t64[0], "n=64: CAS e=32 (T=%g) not dearer than ADD e=1 (T=%g)", t64[1],
          t64[0]);
    CHECK(t1[1] > t1[0], "n=1: CAS e=32 (T=%g) not dearer than ADD e=1 (T=%g)", t1[1], t1[0]);
    /* The first kernel version's defect (docs/calibration.md): two-block
     * single-shot cells with small e came out ~15x too slow (S = 34 cycles
     * at n = 64 against 4.4 at n = 32).  With 64 warps on the SM S may
     * differ from n = 32, but not by a factor of two. */
    CHECK(t64[0] / 64 < 2 * t32[0] / 32, "n=64: S = %g, more than twice S(n=32) = %g",
          t64[0] / 64, t32[0] / 32);

    /* The other kernels: steady state, CAS alone, POPC.INC. */
    const gb_atomics_launch_cell one[] = {{0, SAME, 1, 0}, {1, SAME, 32, 0}, {2, DISTINCT, 32, 0}};
    double t[3];
    run(ctx, GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_STEADY_STATE, 32, one, 3, t);
    CHECK(t[1] > t[0], "steady state n=32: ADD e=32 same address (T=%g) not dearer than e=1 (T=%g)",
          t[1], t[0]);
    run(ctx, GM_ATOMICS_CLASS_CAS, 0, GM_ATOMICS_METHOD_SINGLE_SHOT, 16, one, 3, t);
    run(ctx, GM_ATOMICS_CLASS_POPC_INC, 0, GM_ATOMICS_METHOD_SINGLE_SHOT, 1, one, 3, t);
    run(ctx, GM_ATOMICS_CLASS_POPC_INC, 0, GM_ATOMICS_METHOD_STEADY_STATE, 48, one, 3, t);

    gb_atomics_close(ctx);
    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
