/* Suite "units": the rates Hopper's units sustain, for the bottleneck
 * model's unit components (bottleneck_units.h), written to
 * tables/<gpu>/units.csv.  One row of bottleneck_unit_rows.h is one
 * measured curve:
 *
 *   kind=tensor  FLOP (int8: operations) per clock per SM of one tensor
 *                instruction against warps per SM: mma.sync with operands in
 *                registers at 1..32 warps, wgmma at 1..4 warpgroups;
 *   kind=memory  bytes per clock per SM and GB/s of L2-resident (half the
 *                L2) and DRAM-resident (2 GiB) 16-byte .cg loads and stores
 *                against bytes in flight per SM (warps x loads per thread x
 *                16), and of TMA bulk loads (stages x bytes per copy);
 *   kind=device  the L2 size and the memory's quoted peak the sweep used.
 *
 * Each point: one warm-up, then the median of `reps` timed launches (device
 * events), spread = (max - min) / median, and the SM clock block 0 saw
 * during the median launch (clock_mhz): every rate carries the clock it ran
 * at, and `value` is per clock of that clock; `work` is one launch's FLOPs
 * or bytes.  `documented` is the same
 * quantity as published (bottleneck_unit_rows.h), `documented_rate` the
 * whole GPU's at the row's clock (GFLOP/s, GB/s).  The suite is re-measured
 * whole on --resume (a few seconds); the file is checkpointed after each
 * part.  Columns: docs/bottleneck.md, "The suite units". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stats.h"
#include "core/suite_clock.h"
#include "gpuq/suite.h"
#include "bottleneck_kernels.h"
#include "bottleneck_unit_rows.h"
#include "bottleneck_units_kernels.h"

#define MAX_REPS 21
#define DRAM_BYTES (2ull << 30)   /* DRAM-resident: far beyond any L2 */
#define TARGET_CYCLES 1e6         /* tensor points: ~0.5 ms at the guessed rate */
#define L2_TARGET_BYTES (4ull << 30)
#define TMA_TARGET_BYTES (2ull << 30)

/* The rows as data (bottleneck_unit_rows.h). */
typedef struct tensor_row {
    const char *id, *type;
    int wgmma, arch;
    unsigned emul;
    double flop, documented;
    const char *sass;
} tensor_row;
#define BOTTLENECK_T_ROW(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    {#id, type, BOTTLENECK_IS_GMMA_##form, arch, emul, flop, doc, sass},
#define BOTTLENECK_IS_GMMA_HMMA 0
#define BOTTLENECK_IS_GMMA_GMMA_SS 1
#define BOTTLENECK_IS_GMMA_GMMA_RS 1
static const tensor_row tensor_rows[GM_BOTTLENECK_UNITS_N_TENSOR] = {GM_BOTTLENECK_UNITS_TENSOR_ROWS(BOTTLENECK_T_ROW)};
#undef BOTTLENECK_T_ROW

typedef struct memory_row {
    const char *id;
    int tma, l2, store, documented;
    const char *sass;
} memory_row;
#define BOTTLENECK_PATH_LSU 0
#define BOTTLENECK_PATH_TMA 1
#define BOTTLENECK_RES_L2 1
#define BOTTLENECK_RES_DRAM 0
#define BOTTLENECK_M_ROW(id, path, resident, store, sass, doc) \
    {#id, BOTTLENECK_PATH_##path, BOTTLENECK_RES_##resident, store, doc, sass},
static const memory_row memory_rows[GM_BOTTLENECK_UNITS_N_MEMORY] = {GM_BOTTLENECK_UNITS_MEMORY_ROWS(BOTTLENECK_M_ROW)};
#undef BOTTLENECK_M_ROW

/* The SASS each row's kernel must hold (kernel names: tu_<id> for tensor
 * rows; the LSU and TMA kernels are shared by their rows). */
#define BOTTLENECK_T_SASS(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    {"tu_" #id, sass, BOTTLENECK_SASS_MIN_##form},
#define BOTTLENECK_SASS_MIN_HMMA 16   /* GB_BOTTLENECK_UNITS_MMA_PER_ITER in one loop body */
#define BOTTLENECK_SASS_MIN_GMMA_SS 8 /* GB_BOTTLENECK_UNITS_GMMA_PER_ITER */
#define BOTTLENECK_SASS_MIN_GMMA_RS 8
#define BOTTLENECK_M_SASS(id, path, resident, store, sass, doc) {BOTTLENECK_KERNEL_##path##_##store, sass, 1},
#define BOTTLENECK_KERNEL_LSU_0 "tu_lsu_ld"
#define BOTTLENECK_KERNEL_LSU_1 "tu_lsu_st"
#define BOTTLENECK_KERNEL_TMA_0 "tu_tma_ld"
static const gb_sass_expect units_sass[] = {
    GM_BOTTLENECK_UNITS_TENSOR_ROWS(BOTTLENECK_T_SASS) GM_BOTTLENECK_UNITS_MEMORY_ROWS(BOTTLENECK_M_SASS){NULL, NULL, 0},
};

static const int mma_warps_full[] = {1, 2, 4, 8, 12, 16, 24, 32};
static const int mma_warps_quick[] = {4, 16};
static const int lsu_warps_full[] = {4, 8, 16, 32};
static const int lsu_warps_quick[] = {8, 32};
static const int lsu_per_thread[] = {1, 2, 4, 8};
static const int tma_points[][2] = {{4096, 1}, {4096, 4}, {16384, 1}, {16384, 2},
                                    {16384, 4}, {16384, 8}, {16384, 12}}; /* chunk, stages */

static const char *const cols[] = {"kind",      "name",       "type",       "warps",
                                   "blocks",    "threads",    "iters",      "work",
                                   "bytes_in_flight", "value", "rate",      "clock_mhz",
                                   "spread",    "documented", "documented_rate", "unit",
                                   "sass"};
#define NCOLS 17

static const gb_suite_key units_keys[] = {
    {"rows", "comma-separated rows to measure (default all): tensor, memory, wgmma, tma or "
             "row names (hmma_bf16, gmma_bf16_ss, l2_ld, tma_dram_ld, ...)", NULL},
    {"reps", "timed launches per point, median kept (default 5, 1..21)", NULL},
    {NULL, NULL, NULL},
};

typedef struct bottleneck_units_ctx {
    const gb_suite_run *run;
    gm_mdata *md;
    double mhz;          /* the suite's clock before it ran */
    int sm, cc, reps;
    long long l2_bytes;
    double dram_peak;    /* GB/s */
    long done, total;
    int want_t[GM_BOTTLENECK_UNITS_N_TENSOR], want_m[GM_BOTTLENECK_UNITS_N_MEMORY];
} bottleneck_units_ctx;

static gm_status cuda_fail(int st, const char *what, gm_error *err)
{
    gm_status kind = st == GB_BOTTLENECK_ERR_NO_CUDA ? GM_ERR_UNSUPPORTED : GM_ERR_CUDA;
    return gm_fail(err, kind, "units: %s: %s", what, gb_bottleneck_units_error_string(st));
}

/* Which rows `rows=` selects (all without it). */
static gm_status parse_rows(const gb_suite_run *run, int *want_t, int *want_m, int *reps,
                            gm_error *err)
{
    const char *rows = NULL;
    *reps = 5;
    for (size_t i = 0; i < run->n_settings; i++) {
        const gb_suite_setting *s = &run->settings[i];
        if (strcmp(s->key, "rows") == 0) {
            rows = s->value;
        } else if (strcmp(s->key, "reps") == 0) {
            gm_status st = gb_suite_parse_int("units", "reps", s->value, 1, MAX_REPS, reps, err);
            if (st != GM_OK)
                return st;
        } else {
            return gm_fail(err, GM_ERR_PARSE, "units.%s: no such setting (known: rows, reps)",
                           s->key);
        }
    }
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++)
        want_t[i] = !rows;
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_MEMORY; i++)
        want_m[i] = !rows;
    if (!rows)
        return GM_OK;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", rows);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++)
            if (strcmp(t, tensor_rows[i].id) == 0 || strcmp(t, "tensor") == 0 ||
                (strcmp(t, "wgmma") == 0 && tensor_rows[i].wgmma))
                want_t[i] = hit = 1;
        for (int i = 0; i < GM_BOTTLENECK_UNITS_N_MEMORY; i++)
            if (strcmp(t, memory_rows[i].id) == 0 || strcmp(t, "memory") == 0 ||
                (strcmp(t, "tma") == 0 && memory_rows[i].tma))
                want_m[i] = hit = 1;
        if (!hit)
            return gm_fail(err, GM_ERR_RANGE, "units.rows: '%s' is no row (known: tensor, "
                                              "memory, wgmma, tma or a row's name)", t);
    }
    return GM_OK;
}

static gm_status units_check(const gb_suite_run *run, gm_error *err)
{
    int t[GM_BOTTLENECK_UNITS_N_TENSOR], m[GM_BOTTLENECK_UNITS_N_MEMORY], reps;
    return parse_rows(run, t, m, &reps, err);
}

static gm_status add_row(bottleneck_units_ctx *c, const char *kind, const char *name,
                         const char *type, const double *v, const char *unit, const char *sass,
                         gm_error *err)
{
    const char *texts[NCOLS] = {kind, name, type, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, NULL, NULL, NULL, unit, sass};
    double vals[NCOLS];
    memset(vals, 0, sizeof vals);
    memcpy(vals + 3, v, 12 * sizeof(double)); /* warps .. documented_rate */
    return gm_mdata_add_values(c->md, texts, vals, err);
}

static gm_status step(bottleneck_units_ctx *c, gm_error *err)
{
    c->done++;
    c->run->progress(c->run->io, c->done, c->total, "points");
    if (c->run->stop(c->run->io)) {
        gm_error e2;
        c->run->checkpoint(c->run->io, c->md, &e2);
        return gm_fail(err, GM_ERR_INTERRUPTED, "units: stopped; partial data kept");
    }
    return GM_OK;
}

/* One point: a warm-up and c->reps timed launches of `launch`; the median
 * time (ms), its spread and the clock of the median launch. */
typedef int (*launch_fn)(const void *arg, float *ms, double *mhz);
static int measure(const bottleneck_units_ctx *c, launch_fn launch, const void *arg, double *ms_med,
                   double *spread, double *mhz)
{
    float ms[MAX_REPS];
    double clk[MAX_REPS], sorted[MAX_REPS];
    double warm_mhz = 0;
    int st = launch(arg, &ms[0], &warm_mhz);
    for (int r = 0; r < c->reps && st == 0; r++)
        st = launch(arg, &ms[r], &clk[r]);
    if (st)
        return st;
    for (int r = 0; r < c->reps; r++)
        sorted[r] = ms[r];
    *ms_med = gm_median_sort(sorted, (size_t)c->reps);
    *spread = *ms_med > 0 ? (sorted[c->reps - 1] - sorted[0]) / *ms_med : NAN;
    /* the clock of the launch nearest the median (the suite's clock where
     * the kernel's readings made no sense) */
    *mhz = c->mhz;
    double best = INFINITY;
    for (int r = 0; r < c->reps; r++)
        if (clk[r] > 0 && fabs(ms[r] - *ms_med) < best) {
            best = fabs(ms[r] - *ms_med);
            *mhz = clk[r];
        }
    return 0;
}

/* ---- tensor rows ---- */
typedef struct tensor_arg {
    int row, blocks, threads, iters;
} tensor_arg;

static int launch_tensor(const void *arg, float *ms, double *mhz)
{
    const tensor_arg *a = arg;
    return gb_bottleneck_units_tensor_run(a->row, a->blocks, a->threads, a->iters, ms, mhz);
}

static gm_status measure_tensor(bottleneck_units_ctx *c, gm_error *err)
{
    int quick = c->run->quick;
    for (int row = 0; row < GM_BOTTLENECK_UNITS_N_TENSOR; row++) {
        const tensor_row *t = &tensor_rows[row];
        if (!c->want_t[row])
            continue;
        /* warps per SM: mma.sync's list; wgmma in warpgroups of 4 warps */
        int wl[8], nw = 0;
        if (t->wgmma) {
            for (int g = 1; g <= 4; g++)
                if (!quick || g == 1 || g == 4)
                    wl[nw++] = 4 * g;
        } else {
            const int *src = quick ? mma_warps_quick : mma_warps_full;
            nw = quick ? 2 : 8;
            memcpy(wl, src, (size_t)nw * sizeof *wl);
        }
        /* left out below the instruction's compute capability, and where
         * the compiler emulates it (its rate would not be the pipe's) */
        int emulated = c->cc * 10 >= t->arch && !GM_BOTTLENECK_UNITS_NATIVE(t->arch, t->emul,
                                                                            c->cc * 10);
        int skipped = !GM_BOTTLENECK_UNITS_NATIVE(t->arch, t->emul, c->cc * 10);
        for (int i = 0; i < nw; i++) {
            gm_status s = GM_OK;
            if (!skipped) {
                int w = wl[i];
                double per_iter = t->flop * (t->wgmma ? GB_BOTTLENECK_UNITS_GMMA_PER_ITER * w / 4.0
                                                      : GB_BOTTLENECK_UNITS_MMA_PER_ITER * (double)w);
                double guess = t->documented * (t->wgmma ? 0.9 : 0.6); /* FLOP/clk/SM */
                tensor_arg a = {row, c->sm, 32 * w,
                                (int)fmax(4, TARGET_CYCLES * guess / per_iter)};
                double ms, spread, mhz;
                int st = measure(c, launch_tensor, &a, &ms, &spread, &mhz);
                if (st && gb_bottleneck_units_error_is_no_image(st)) {
                    skipped = 1; /* no code for this GPU in the build: the row is left out */
                } else if (st) {
                    return cuda_fail(st, t->id, err);
                } else {
                    double flop = per_iter * a.iters * c->sm;
                    double per_clk = flop / (ms * 1e-3 * mhz * 1e6 * c->sm);
                    double v[12] = {w, a.blocks, a.threads, a.iters, flop, 0, per_clk,
                                    flop / (ms * 1e6), mhz, spread, t->documented,
                                    t->documented * c->sm * mhz * 1e-3};
                    s = add_row(c, "tensor", t->id, t->type, v,
                                strcmp(t->type, "int8") == 0 ? "OP/clk/SM" : "FLOP/clk/SM",
                                t->sass, err);
                }
            }
            if (s == GM_OK)
                s = step(c, err);
            if (s != GM_OK)
                return s;
        }
        if (emulated && !c->run->quiet)
            printf("units: %s left out (compute capability %d.x has no native instruction for "
                   "it: the compiler emulates it)\n",
                   t->id, c->cc / 10);
        else if (skipped && !c->run->quiet)
            printf("units: %s left out (needs compute capability %d.%d, this build or GPU "
                   "has no code for it)\n",
                   t->id, t->arch / 100, t->arch / 10 % 10);
    }
    return GM_OK;
}

/* ---- memory rows ---- */
typedef struct lsu_arg {
    int store, per_thread, blocks, threads;
    const void *buf;
    long long n_vec, steps;
} lsu_arg;

static int launch_lsu(const void *arg, float *ms, double *mhz)
{
    const lsu_arg *a = arg;
    return gb_bottleneck_units_lsu_run(a->store, a->per_thread, a->buf, a->n_vec, a->steps,
                                       a->blocks, a->threads, ms, mhz);
}

typedef struct tma_arg {
    const void *buf;
    long long n_chunks, per_block;
    int chunk, stages, blocks;
} tma_arg;

static int launch_tma(const void *arg, float *ms, double *mhz)
{
    const tma_arg *a = arg;
    return gb_bottleneck_units_tma_run(a->buf, a->n_chunks, a->chunk, a->stages, a->per_block,
                                       a->blocks, ms, mhz);
}

static gm_status memory_point(bottleneck_units_ctx *c, const memory_row *m, launch_fn fn,
                              const void *arg, double warps, double blocks, double threads,
                              double iters, double in_flight, double bytes, gm_error *err)
{
    double ms, spread, mhz;
    int st = measure(c, fn, arg, &ms, &spread, &mhz);
    if (st)
        return cuda_fail(st, m->id, err);
    double gbps = bytes / (ms * 1e6);
    double per_clk = bytes / (ms * 1e-3 * mhz * 1e6 * c->sm);
    double doc = m->documented ? c->dram_peak : NAN;
    double v[12] = {warps, blocks, threads, iters, bytes, in_flight, per_clk, gbps, mhz, spread,
                    doc / (mhz * 1e-3 * c->sm), doc};
    gm_status s = add_row(c, "memory", m->id, m->tma ? "tma" : "lsu", v, "B/clk/SM", m->sass, err);
    return s == GM_OK ? step(c, err) : s;
}

static gm_status measure_memory(bottleneck_units_ctx *c, void *buf, gm_error *err)
{
    int quick = c->run->quick;
    const int *wl = quick ? lsu_warps_quick : lsu_warps_full;
    int nw = quick ? 2 : 4;
    /* the L2-resident working set: half the L2 */
    unsigned long long l2_set = (unsigned long long)(c->l2_bytes > 0 ? c->l2_bytes / 2 : 16 << 20);
    for (int r = 0; r < GM_BOTTLENECK_UNITS_N_MEMORY; r++) {
        const memory_row *m = &memory_rows[r];
        if (!c->want_m[r])
            continue;
        unsigned long long set = m->l2 ? l2_set : DRAM_BYTES;
        if (m->tma) {
            for (size_t p = 0; p < sizeof tma_points / sizeof tma_points[0]; p++) {
                if (quick && p != 0 && p != 5)
                    continue;
                int chunk = tma_points[p][0], stages = tma_points[p][1];
                unsigned long long target = m->l2 ? TMA_TARGET_BYTES : DRAM_BYTES;
                tma_arg a = {buf, (long long)(set / chunk),
                             (long long)(target / ((unsigned long long)chunk * c->sm)), chunk,
                             stages, c->sm};
                double bytes = (double)a.per_block * chunk * c->sm;
                gm_status s = memory_point(c, m, launch_tma, &a, 1, c->sm, 32, a.per_block,
                                           (double)chunk * stages, bytes, err);
                if (s != GM_OK)
                    return s;
            }
            continue;
        }
        for (int i = 0; i < nw; i++)
            for (int k = 0; k < 4; k++) {
                if (quick && k != 0 && k != 3)
                    continue;
                int w = wl[i], u = lsu_per_thread[k];
                long long per_step = (long long)u * c->sm * 32 * w; /* 16-byte elements */
                long long n_vec = (long long)(set / 16) / per_step * per_step;
                gm_status s = GM_OK;
                if (n_vec < per_step) { /* more in flight than the working set holds */
                    s = step(c, err);
                } else {
                    unsigned long long target = m->l2 ? L2_TARGET_BYTES : set;
                    long long steps = (long long)(target / 16) / per_step;
                    lsu_arg a = {m->store, u, c->sm, 32 * w, buf, n_vec, steps < 1 ? 1 : steps};
                    s = memory_point(c, m, launch_lsu, &a, w, c->sm, 32 * w, a.steps,
                                     (double)w * 32 * 16 * u, (double)a.steps * per_step * 16,
                                     err);
                }
                if (s != GM_OK)
                    return s;
            }
    }
    return GM_OK;
}

static long count_points(const bottleneck_units_ctx *c)
{
    int quick = c->run->quick;
    long n = 0;
    for (int r = 0; r < GM_BOTTLENECK_UNITS_N_TENSOR; r++)
        if (c->want_t[r])
            n += tensor_rows[r].wgmma ? (quick ? 2 : 4) : (quick ? 2 : 8);
    for (int r = 0; r < GM_BOTTLENECK_UNITS_N_MEMORY; r++)
        if (c->want_m[r])
            n += memory_rows[r].tma ? (quick ? 2 : 7) : (quick ? 4 : 16);
    return n;
}

static gm_status units_run(const gb_suite_run *run, gm_error *err)
{
    bottleneck_units_ctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    gm_status s = parse_rows(run, c.want_t, c.want_m, &c.reps, err);
    if (s != GM_OK)
        return s;
    int st = gb_bottleneck_units_device_info(run->device, &c.sm, &c.cc, &c.l2_bytes, &c.dram_peak);
    if (st)
        return cuda_fail(st, "device", err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double mhz1 = 0;
    if ((st = gb_bottleneck_clock_mhz(&c.mhz)))
        return cuda_fail(st, "clock", err);
    gm_mdata_meta meta = *run->meta;
    meta.sm_clock_mhz = c.mhz;
    snprintf(meta.method, sizeof meta.method,
             "median of %d event-timed launches after a warm-up; tensor: PTX mma.sync (8 "
             "accumulators per warp) and wgmma (one commit group in flight); memory: 16-byte "
             ".cg LSU and cp.async.bulk; clock per point from clock64 vs globaltimer",
             c.reps);
    c.md = gm_mdata_new(&meta, NCOLS, cols);
    if (!c.md)
        return gm_fail(err, GM_ERR_NOMEM, "units: out of memory");
    c.total = count_points(&c);
    double vl[12] = {0, 0, 0, 0, 0, 0, (double)c.l2_bytes, NAN, NAN, NAN, NAN, NAN};
    s = add_row(&c, "device", "l2_bytes", "", vl, "B", "", err);
    double vd[12] = {0, 0, 0, 0, 0, 0, c.dram_peak, NAN, NAN, NAN, NAN, NAN};
    if (s == GM_OK)
        s = add_row(&c, "device", "dram_peak_gbps", "", vd, "GB/s", "", err);
    void *buf = NULL;
    if (s == GM_OK && (st = gb_bottleneck_units_malloc(&buf, DRAM_BYTES)) == 0)
        st = gb_bottleneck_units_memset(buf, DRAM_BYTES);
    if (s == GM_OK && st)
        s = cuda_fail(st, "buffer", err);
    /* the LSU rows first, then mma.sync, wgmma and TMA (the newest code)
     * last: what was measured is checkpointed before each part */
    int want_m[GM_BOTTLENECK_UNITS_N_MEMORY];
    memcpy(want_m, c.want_m, sizeof want_m);
    for (int r = 0; r < GM_BOTTLENECK_UNITS_N_MEMORY; r++)
        c.want_m[r] = want_m[r] && !memory_rows[r].tma;
    if (s == GM_OK && (s = measure_memory(&c, buf, err)) == GM_OK)
        s = run->checkpoint(run->io, c.md, err);
    if (s == GM_OK && (s = measure_tensor(&c, err)) == GM_OK)
        s = run->checkpoint(run->io, c.md, err);
    for (int r = 0; r < GM_BOTTLENECK_UNITS_N_MEMORY; r++)
        c.want_m[r] = want_m[r] && memory_rows[r].tma;
    if (s == GM_OK && c.cc >= 90 && (s = measure_memory(&c, buf, err)) == GM_OK)
        s = run->checkpoint(run->io, c.md, err);
    gb_bottleneck_units_free(buf);
    if (s == GM_OK && (st = gb_bottleneck_clock_mhz(&mhz1)))
        s = cuda_fail(st, "clock", err);
    if (s == GM_OK) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (!run->quiet)
            printf("units: %ld points in %.1f s, SM clock %.0f MHz before, %.0f after%s\n",
                   c.done, wall, c.mhz, mhz1,
                   gb_clock_changed(c.mhz, mhz1, 0.02) ? " (changed: each row has its own)" : "");
        s = run->checkpoint(run->io, c.md, err);
    }
    gm_mdata_free(c.md);
    return s;
}

const gb_suite gb_suite_units = {
    .name = "units",
    .measures = "rates of Hopper's units for the bottleneck model: tensor pipe (mma.sync, "
                "wgmma), L2, DRAM and TMA bandwidth, each at the SM clock it ran at",
    .sweep = "tensor: 11 instructions x warps/SM 1..32 (wgmma: 1..4 warpgroups); memory: L2- "
             "and DRAM-resident ld/st x 4..32 warps x 1..8 loads in flight, TMA x 7 stage "
             "sizes",
    .file = "units.csv",
    .expected_s = 5.0, /* an estimate from the points' target times, not yet measured */
    .sass = units_sass,
    .run = units_run,
    .keys = units_keys,
    .check = units_check,
};
