/* Arrival-skew diagnostics of the calibrate kernels (not a test: a tool for
 * docs/calibration.md, "The n > 44 single-shot defect").
 *
 *   bench_skew [--quick] [--warps]
 *
 * Runs a fixed set of cells (n = 1..64, same-address and distinct-bank, ADD
 * and CAS, single shot; a few steady-state and POPC.INC cells) under each
 * kernel variant (atomics_kernels.h: GB_ATOMICS_VARIANT_*) and prints, per variant and
 * cell: T of single measurements (median, p90), the sample T that calibrate
 * keeps (smallest valid of the inner measurements; median over samples), how
 * often a group of 5 samples (what calibrate keeps per cell) spreads more
 * than 10%, the first-to-last arrival spread (median, p90, max), how many
 * measurements had a warp arriving more than 500 cycles after the first, and
 * when the two blocks' first warps arrived.  --warps lists, for the worst
 * measurement of a few cells, every warp's arrival and completion.
 * Exits 77 without a usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers/atomics/atomics_bench.h"
#include "papers/atomics/atomics_kernels.h"

#define REPS 5
#define MAX_SAMPLES (ATOMICS_MAX_CELLS_PER_LAUNCH * REPS * GB_ATOMICS_MAX_INNER)
#define ATOMICS_MAX_CELLS_PER_LAUNCH 160
#define LATE_WARP_CYCLES 500.0

typedef struct variant_spec {
    const char *name;
    unsigned variant;
    int inner_reps;
} variant_spec;

/* With 2 measurements, the first shows the write-out alone (the block stays
 * for the second), the second adds the block's early exit (a block of the
 * spare wave may then start on the SM while the other block still measures). */
static const variant_spec variants[] = {
    {"first-version write-out: shuffles + 5 global atomics per warp at once",
     GB_ATOMICS_VARIANT_IMMEDIATE | GB_ATOMICS_VARIANT_GLOBAL_NOW, 2},
    {"shuffles at once, staged in shared memory, global once per block",
     GB_ATOMICS_VARIANT_IMMEDIATE, 2},
    {"quiet window, 1 measurement", 0, 1},
    {"quiet window, every warp spins to the start, 1 measurement", GB_ATOMICS_VARIANT_ALL_SPIN, 1},
    {"quiet window, calibrate's default number of measurements", 0, GB_ATOMICS_DEFAULT_INNER_REPS},
};

typedef struct cell_kind {
    const char *name;
    gm_atomics_pattern pattern;
    int e;
    int cas; /* c = n */
} cell_kind;

static const cell_kind kinds[] = {
    {"same e=1", GM_ATOMICS_PATTERN_SAME_ADDRESS, 1, 0},
    {"same e=32", GM_ATOMICS_PATTERN_SAME_ADDRESS, 32, 0},
    {"distinct e=1", GM_ATOMICS_PATTERN_DISTINCT_BANK, 1, 0},
    {"distinct e=32", GM_ATOMICS_PATTERN_DISTINCT_BANK, 32, 0},
    {"same e=1 CAS", GM_ATOMICS_PATTERN_SAME_ADDRESS, 1, 1},
};
#define N_KINDS (int)(sizeof kinds / sizeof kinds[0])

typedef struct series_spec {
    gm_atomics_job_class cls;
    int mixes;
    gm_atomics_method method;
} series_spec;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int count, double q)
{
    if (count == 0)
        return NAN;
    qsort(v, (size_t)count, sizeof *v, compare_double);
    int i = (int)(q * (count - 1) + 0.5);
    return v[i];
}

/* Fraction of groups of REPS consecutive samples whose (max-min)/median
 * exceeds 0.10, calibrate's default re-measure threshold. */
static double high_spread_fraction(const double *samples, int count)
{
    int groups = 0, high = 0;
    for (int g = 0; g + REPS <= count; g += REPS) {
        double v[REPS];
        memcpy(v, samples + g, sizeof v);
        double med, lo, hi, spread;
        gb_atomics_stats(v, REPS, &med, &lo, &hi, &spread);
        groups++;
        high += spread > 0.10;
    }
    return groups ? (double)high / groups : NAN;
}

static void print_warps(gb_atomics_context *ctx, const gb_atomics_launch *l, int rep, int cell,
                        int inner)
{
    gb_atomics_warp_detail w[GB_ATOMICS_MAX_CELL_WARPS];
    gm_error err = {{0}};
    if (gb_atomics_launch_warps(ctx, l, rep, cell, inner, w, &err) != GM_OK) {
        printf("    (no per-warp times: %s)\n", err.msg);
        return;
    }
    printf("    per warp (cell warp: block/hw slot arrival..completion, cycles after the start):\n");
    for (int i = 0; i < l->n; i++) {
        printf("      %2d:%d/%2d %5.0f..%5.0f%s", i, w[i].role, w[i].hw_warp, w[i].first_arrival,
               w[i].completion, w[i].late ? " LATE" : "");
        if (i % 4 == 3 || i == l->n - 1)
            printf("\n");
    }
}

/* One launch of one series at one n, cells of every kind spread over the
 * SMs; prints one line per kind. */
static void run_series(gb_atomics_context *ctx, const variant_spec *vs, series_spec ss, int n,
                       int warps)
{
    const int n_slots = gb_atomics_cells_per_launch(ctx);
    const int n_cells = n_slots < ATOMICS_MAX_CELLS_PER_LAUNCH ? n_slots : ATOMICS_MAX_CELLS_PER_LAUNCH;
    gb_atomics_launch_cell cells[ATOMICS_MAX_CELLS_PER_LAUNCH];
    int n_kinds = ss.mixes ? N_KINDS : N_KINDS - 1;
    for (int i = 0; i < n_cells; i++) {
        const cell_kind *k = &kinds[i % n_kinds];
        cells[i] = (gb_atomics_launch_cell){.id = i, .pattern = k->pattern, .e = k->e,
                                            .c = k->cas ? n : 0};
    }
    gb_atomics_launch l = {.cls = ss.cls, .mixes_cas = ss.mixes, .method = ss.method, .n = n,
                           .reps = REPS, .n_cells = n_cells, .cells = cells};
    static double samples[ATOMICS_MAX_CELLS_PER_LAUNCH * REPS];
    gm_error err = {{0}};
    if (gb_atomics_run_launch(ctx, &l, samples, &err) != GM_OK) {
        printf("FAIL: gb_atomics_run_launch: %s\n", err.msg);
        exit(1);
    }
    const int rounds = ss.method == GM_ATOMICS_METHOD_STEADY_STATE ? GB_ATOMICS_STEADY_ROUNDS : 1;
    for (int kind = 0; kind < n_kinds; kind++) {
        static double t[MAX_SAMPLES], spread[MAX_SAMPLES], kept[MAX_SAMPLES];
        static double first0[MAX_SAMPLES], first1[MAX_SAMPLES];
        static double by_inner[GB_ATOMICS_MAX_INNER][MAX_SAMPLES];
        /* T by how much later the second block's first warp arrived than
         * the first block's: < 0, 0..14, 15..29, 30..44, >= 45 cycles. */
        static double by_offset[5][MAX_SAMPLES];
        int n_by_offset[5] = {0};
        int n_by_inner[GB_ATOMICS_MAX_INNER] = {0};
        int nt = 0, nk = 0, nf = 0, late_warp = 0, verdicts[5] = {0};
        double worst = -1;
        int worst_rep = 0, worst_cell = 0, worst_inner = 0;
        for (int r = 0; r < REPS; r++)
            for (int i = kind; i < n_cells; i += n_kinds) {
                double s = samples[r * n_cells + i];
                if (!isnan(s) && s >= 0)
                    kept[nk++] = s;
                for (int k = 0; k < vs->inner_reps; k++) {
                    gb_atomics_cell_detail d;
                    if (gb_atomics_launch_detail(ctx, &l, r, i, k, &d, &err) != GM_OK)
                        continue;
                    verdicts[d.verdict]++;
                    if (d.verdict == GB_ATOMICS_NOT_CORESIDENT || d.verdict == GB_ATOMICS_LATE)
                        continue;
                    t[nt] = d.t / rounds;
                    by_inner[k][n_by_inner[k]++] = d.t / rounds;
                    spread[nt] = d.last_arrival - d.first_arrival;
                    if (d.t > worst) {
                        worst = d.t;
                        worst_rep = r;
                        worst_cell = i;
                        worst_inner = k;
                    }
                    gb_atomics_warp_detail w[GB_ATOMICS_MAX_CELL_WARPS];
                    if (gb_atomics_launch_warps(ctx, &l, r, i, k, w, NULL) == GM_OK) {
                        double f[2] = {INFINITY, INFINITY}, lastw = 0;
                        for (int j = 0; j < n; j++) {
                            int role = w[j].role & 1;
                            if (w[j].first_arrival < f[role])
                                f[role] = w[j].first_arrival;
                            if (w[j].first_arrival > lastw)
                                lastw = w[j].first_arrival;
                        }
                        if (lastw - d.first_arrival > LATE_WARP_CYCLES)
                            late_warp++;
                        if (n > 32) {
                            first0[nf] = f[0];
                            first1[nf] = f[1];
                            nf++;
                            const double off = f[1] - f[0];
                            const int bin = off < 0 ? 0 : off < 15 ? 1 : off < 30 ? 2 : off < 45 ? 3 : 4;
                            by_offset[bin][n_by_offset[bin]++] = d.t / rounds;
                        }
                    }
                    nt++;
                }
            }
        double hs = high_spread_fraction(kept, nk);
        double kept_med = pct(kept, nk, 0.5), kept_min = pct(kept, nk, 0), kept_max = pct(kept, nk, 1);
        printf("  %-8s n=%2d %-13s T %7.1f p90 %7.1f | sample %7.1f [%7.1f..%7.1f] S %6.2f "
               "hi-spread %3.0f%% | arrival spread %5.0f p90 %5.0f max %5.0f | late-warp %3d/%-3d",
               gm_atomics_method_name(ss.method), n, kinds[kind].name, pct(t, nt, 0.5), pct(t, nt, 0.9),
               kept_med, kept_min, kept_max, kept_med / n, 100 * hs, pct(spread, nt, 0.5),
               pct(spread, nt, 0.9), pct(spread, nt, 1.0), late_warp, nt);
        if (vs->inner_reps > 1) {
            printf(" | T by measurement");
            for (int k = 0; k < vs->inner_reps; k++)
                printf(" %.1f", pct(by_inner[k], n_by_inner[k], 0.5));
        }
        if (nf) {
            printf(" | block firsts %4.0f/%4.0f | T by block-1 lag <0,0-14,15-29,30-44,45+:",
                   pct(first0, nf, 0.5), pct(first1, nf, 0.5));
            for (int b = 0; b < 5; b++)
                printf(" %.0f(%d)", pct(by_offset[b], n_by_offset[b], 0.5), n_by_offset[b]);
        }
        printf(" | dropped late %d overrun %d skewed %d noco %d\n", verdicts[GB_ATOMICS_LATE],
               verdicts[GB_ATOMICS_OVERRUN], verdicts[GB_ATOMICS_SKEWED],
               verdicts[GB_ATOMICS_NOT_CORESIDENT]);
        if (warps && worst >= 0 && kind == 0 && (n == 64 || n == 52)) {
            printf("    worst measurement: T = %.0f\n", worst);
            print_warps(ctx, &l, worst_rep, worst_cell, worst_inner);
        }
    }
}

int main(int argc, char **argv)
{
    int quick = 0, warps = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--warps"))
            warps = 1;
        else {
            fprintf(stderr, "usage: bench_skew [--quick] [--warps]\n");
            return 1;
        }
    }
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
    gb_atomics_measure_sm_clock(ctx, &mhz, &err);
    printf("%s, %d SMs, SM clock %.0f MHz; %d reps per launch, samples = smallest valid inner "
           "measurement\n",
           meta.gpu_name, meta.sm_count, mhz, REPS);

    static const int ns_full[] = {1, 8, 28, 32, 33, 40, 44, 48, 52, 56, 60, 64};
    static const int ns_quick[] = {32, 48, 64};
    const int *ns = quick ? ns_quick : ns_full;
    const int n_ns = quick ? 3 : (int)(sizeof ns_full / sizeof ns_full[0]);
    const series_spec add_single = {GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_SINGLE_SHOT};
    const series_spec add_steady = {GM_ATOMICS_CLASS_ADD, 1, GM_ATOMICS_METHOD_STEADY_STATE};
    const series_spec popc_single = {GM_ATOMICS_CLASS_POPC_INC, 0, GM_ATOMICS_METHOD_SINGLE_SHOT};

    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        gb_atomics_run_options opt;
        gb_atomics_run_options_default(&opt);
        opt.inner_reps = variants[v].inner_reps;
        opt.variant = variants[v].variant;
        opt.keep_warp_times = 1;
        if (gb_atomics_set_run_options(ctx, &opt, &err) != GM_OK) {
            printf("FAIL: gb_atomics_set_run_options: %s\n", err.msg);
            return 1;
        }
        printf("\n== variant %zu: %s (skew limit %.0f + %.2f T)\n", v, variants[v].name,
               opt.skew_floor, opt.skew_fraction);
        for (int i = 0; i < n_ns; i++)
            run_series(ctx, &variants[v], add_single, ns[i], warps);
        run_series(ctx, &variants[v], popc_single, 64, 0);
        run_series(ctx, &variants[v], add_steady, 64, 0);
        if (!quick)
            run_series(ctx, &variants[v], add_steady, 32, 0);
        gb_atomics_run_counters c;
        gb_atomics_get_run_counters(ctx, &c);
        printf("  counters so far: %ld measurements, not co-resident %ld, late %ld, overrun %ld, "
               "skewed %ld\n",
               c.measurements, c.not_coresident, c.late, c.overrun, c.skewed);
    }
    gb_atomics_close(ctx);
    return 0;
}
