/* Suite "gatomics": the experiments on the GPU (gatomics_suite.c has the row,
 * the settings and the SASS expectations; its header says what each experiment
 * measures).  C on the CUDA runtime API; gatomics_measure_nocuda.c stands in
 * for it without CUDA. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gatomics_kernels.h"
#include "gatomics_model.h"
#include "core/stats.h"
#include "gatomics_suite.h"

typedef struct op_desc {
    int op;
    const char *name;
    int bits;
} op_desc;

static const op_desc stall_ops[] = {
    {GB_GATOMICS_LD32, "ld.u32", 32},         {GB_GATOMICS_ST32, "st.u32", 32},
    {GB_GATOMICS_LDST32, "ldst.u32", 32},     {GB_GATOMICS_RED32, "red.add.u32", 32},
    {GB_GATOMICS_ATOM32, "atom.add.u32", 32}, {GB_GATOMICS_CAS32, "atom.cas.u32", 32},
    {GB_GATOMICS_LD64, "ld.u64", 64},         {GB_GATOMICS_ST64, "st.u64", 64},
    {GB_GATOMICS_LDST64, "ldst.u64", 64},     {GB_GATOMICS_RED64, "red.add.u64", 64},
    {GB_GATOMICS_ATOM64, "atom.add.u64", 64}, {GB_GATOMICS_CAS64, "atom.cas.u64", 64},
    {GB_GATOMICS_REDF32, "red.add.f32", 32},  {GB_GATOMICS_ATOMF32, "atom.add.f32", 32},
};
#define N_STALL_OPS (sizeof stall_ops / sizeof stall_ops[0])

static const op_desc rate_ops[] = {
    {GB_GATOMICS_ATOM32, "atom.add.u32", 32}, {GB_GATOMICS_RED32, "red.add.u32", 32},
    {GB_GATOMICS_CAS32, "atom.cas.u32", 32},  {GB_GATOMICS_ATOM64, "atom.add.u64", 64},
    {GB_GATOMICS_RED64, "red.add.u64", 64},   {GB_GATOMICS_ATOMF32, "atom.add.f32", 32},
    {GB_GATOMICS_REDF32, "red.add.f32", 32},
};
#define N_RATE_OPS (sizeof rate_ops / sizeof rate_ops[0])

static const char *const pattern_names[GB_GATOMICS_PAT_COUNT] = {
    "same", "strided", "coalesced", "one", "one32", "few", "distinct"};

/* ---- the GPU side ---------------------------------------------------------- */

typedef struct gatomics_ctx {
    int n_sm;
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    char *buf;
    float *d_cycles, *h_cycles;
    unsigned long long *d_sink, *d_elapsed, *h_elapsed;
    size_t max_threads;
    gm_mdata *md;
    const gb_suite_run *run;
    long done, total;
} gatomics_ctx;

static gm_status cuda_check(int rc, const char *what, gm_error *err)
{
    if (rc == 0)
        return GM_OK;
    return gm_fail(err, GM_ERR_CUDA, "gatomics: %s: %s", what, cudaGetErrorString((cudaError_t)rc));
}
#define TRY(call, what)                                                                            \
    do {                                                                                           \
        gm_status st_ = cuda_check((int)(call), what, err);                                        \
        if (st_ != GM_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

static gm_status add_row(gatomics_ctx *c, const char *ex, const char *op, int bits,
                         const char *pattern, int warps, double param, double med, double lo,
                         double hi, const char *unit, double n, gm_error *err)
{
    const char *texts[GM_GATOMICS_NCOLS] = {ex, op, NULL, pattern, NULL, NULL, NULL, NULL, NULL, unit, NULL};
    double vals[GM_GATOMICS_NCOLS] = {0, 0, bits, 0, warps, param, med, lo, hi, 0, n};
    return gm_mdata_add_values(c->md, texts, vals, err);
}

static void tick(gatomics_ctx *c, const char *what)
{
    c->done++;
    c->run->progress(c->run->io, c->done, c->total, what);
}

/* Grid and block for `warps` per SM: one block per SM up to 32 warps, two of
 * 1024 threads above (the kernels' launch bounds allow two per SM). */
static void shape(const gatomics_ctx *c, int warps, unsigned *grid, unsigned *block)
{
    if (warps <= 32) {
        *grid = (unsigned)c->n_sm;
        *block = 32u * (unsigned)warps;
    } else {
        *grid = 2u * (unsigned)c->n_sm;
        *block = 16u * (unsigned)warps;
    }
}

/* Per-warp means of the per-thread values (negative: not measuring), then
 * the median and the 10th/90th percentiles over warps; the paper's error
 * bars are the spread over threads.  samples accumulates across launches. */
static size_t warp_means(const float *v, size_t n_threads, double *out)
{
    size_t n = 0;
    for (size_t w = 0; w < n_threads / 32; w++) {
        double s = 0;
        int k = 0;
        for (int l = 0; l < 32; l++) {
            float x = v[w * 32 + (size_t)l];
            if (x >= 0) {
                s += x;
                k++;
            }
        }
        if (k)
            out[n++] = s / k;
    }
    return n;
}

static void summarize(double *s, size_t n, double *med, double *lo, double *hi)
{
    *med = gm_median_sort(s, n); /* sorts */
    *lo = gm_quantile_sorted(s, n, 0.1);
    *hi = gm_quantile_sorted(s, n, 0.9);
}

static gm_status fetch_cycles(gatomics_ctx *c, size_t n_threads, double *samples, size_t *ns,
                              gm_error *err)
{
    TRY(cudaMemcpyAsync(c->h_cycles, c->d_cycles, n_threads * sizeof(float),
                        cudaMemcpyDeviceToHost, c->stream), "copy back");
    TRY(cudaStreamSynchronize(c->stream), "kernel");
    *ns += warp_means(c->h_cycles, n_threads, samples + *ns);
    return GM_OK;
}

static gm_status ex_clock(gatomics_ctx *c, const gb_gatomics_options *o, double *samples,
                          gm_error *err)
{
    const char *names[3] = {"clock", "clock64", "globaltimer"};
    for (int which = 0; which < 3; which++)
        for (int wi = 0; wi < o->n_warps; wi++) {
            unsigned grid, block;
            shape(c, o->warps[wi], &grid, &block);
            size_t ns = 0;
            for (int r = 0; r < o->reps; r++) {
                TRY(gb_gatomics_launch_clock(which, grid, block, c->d_cycles, c->stream),
                    "clock kernel");
                gm_status st = fetch_cycles(c, (size_t)grid * block, samples, &ns, err);
                if (st != GM_OK)
                    return st;
            }
            double m, lo, hi;
            summarize(samples, ns, &m, &lo, &hi);
            gm_status st = add_row(c, "clock", names[which], which ? 64 : 32, "pair",
                                   o->warps[wi], 0, m, lo, hi, which == 2 ? "ns" : "cycle",
                                   (double)ns, err);
            if (st != GM_OK)
                return st;
            tick(c, "points");
        }
    return GM_OK;
}

static gm_status stall_point(gatomics_ctx *c, const gb_gatomics_options *o, int op, int k,
                             int pattern, int warps, double *samples, double *m, double *lo,
                             double *hi, size_t *ns, gm_error *err)
{
    unsigned grid, block;
    shape(c, warps, &grid, &block);
    gb_gatomics_stall_args a = {.op = op,
                                .k = k,
                                .pattern = pattern,
                                .dep = 1,
                                .grid = grid,
                                .block = block,
                                .iters = o->iters,
                                .warm = GB_GATOMICS_STALL_WARM,
                                .buf = c->buf,
                                .cycles = c->d_cycles,
                                .sink = c->d_sink};
    *ns = 0;
    for (int r = 0; r < o->reps; r++) {
        TRY(gb_gatomics_launch_stall(&a, c->stream), "stall kernel");
        gm_status st = fetch_cycles(c, (size_t)grid * block, samples, ns, err);
        if (st != GM_OK)
            return st;
    }
    summarize(samples, *ns, m, lo, hi);
    return GM_OK;
}

static gm_status ex_stall(gatomics_ctx *c, const gb_gatomics_options *o, double *samples,
                          gm_error *err)
{
    const int pats[3] = {GB_GATOMICS_PAT_SAME, GB_GATOMICS_PAT_STRIDED, GB_GATOMICS_PAT_COALESCED};
    for (size_t i = 0; i < N_STALL_OPS; i++)
        for (int p = 0; p < 3; p++)
            for (int k = 0; k <= 50; k += 50)
                for (int wi = 0; wi < o->n_warps; wi++) {
                    double m, lo, hi;
                    size_t ns;
                    TRY(cudaMemsetAsync(c->buf, 0, 40ull << 20, c->stream), "memset");
                    gm_status st = stall_point(c, o, stall_ops[i].op, k, pats[p], o->warps[wi],
                                               samples, &m, &lo, &hi, &ns, err);
                    if (st == GM_OK)
                        st = add_row(c, "stall", stall_ops[i].name, stall_ops[i].bits,
                                     pattern_names[pats[p]], o->warps[wi], k, m, lo, hi, "cycle",
                                     (double)ns, err);
                    if (st != GM_OK)
                        return st;
                    tick(c, "points");
                }
    return GM_OK;
}

static gm_status ex_hide(gatomics_ctx *c, const gb_gatomics_options *o, double *samples,
                         gm_error *err)
{
    const int ks[GB_GATOMICS_K_COUNT] = GB_GATOMICS_K_LIST;
    const int warps[2] = {1, 8};
    for (int wi = 0; wi < 2; wi++) {
        double kv[GB_GATOMICS_K_COUNT], with[GB_GATOMICS_K_COUNT], without[GB_GATOMICS_K_COUNT];
        for (int ki = 0; ki < GB_GATOMICS_K_COUNT; ki++) {
            for (int twin = 0; twin < 2; twin++) {
                double m, lo, hi;
                size_t ns;
                int op = twin ? GB_GATOMICS_NONE : GB_GATOMICS_ATOM32;
                gm_status st = stall_point(c, o, op, ks[ki], GB_GATOMICS_PAT_STRIDED, warps[wi],
                                           samples, &m, &lo, &hi, &ns, err);
                if (st == GM_OK)
                    st = add_row(c, "hide", twin ? "fma" : "atom.add.u32", 32, "strided",
                                 warps[wi], ks[ki], m, lo, hi, "cycle", (double)ns, err);
                if (st != GM_OK)
                    return st;
                (twin ? without : with)[ki] = m;
            }
            kv[ki] = ks[ki];
            tick(c, "points");
        }
        /* Where the atomic stops costing anything beyond the FMAs (2%). */
        double hp = gm_gatomics_hide_point(kv, with, without, GB_GATOMICS_K_COUNT, 0.02);
        gm_status st = add_row(c, "hidepoint", "atom.add.u32", 32, "strided", warps[wi], 0.02,
                               hp, hp, hp, "fma", 1, err);
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
}

static gm_status ex_lock(gatomics_ctx *c, const gb_gatomics_options *o, double *samples,
                         gm_error *err)
{
    const double offs[] = {0, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    const int n_off = (int)(sizeof offs / sizeof offs[0]);
    const int bpsm[2] = {1, 4}; /* 8 and 32 warps per SM */
    for (int b = 0; b < 2; b++) {
        double t[sizeof offs / sizeof offs[0]];
        unsigned grid = (unsigned)(c->n_sm * bpsm[b]);
        for (int i = 0; i < n_off; i++) {
            size_t ns = 0;
            TRY(cudaMemsetAsync(c->buf, 0, (size_t)grid * 65536u, c->stream), "memset");
            for (int r = 0; r < o->reps; r++) {
                TRY(gb_gatomics_launch_lock(grid, (unsigned)offs[i], o->iters,
                                            GB_GATOMICS_STALL_WARM, c->buf, c->d_cycles, c->d_sink,
                                            c->stream),
                    "lock kernel");
                gm_status st = fetch_cycles(c, (size_t)grid * 256u, samples, &ns, err);
                if (st != GM_OK)
                    return st;
            }
            double m, lo, hi;
            summarize(samples, ns, &m, &lo, &hi);
            t[i] = m;
            gm_status st = add_row(c, "lock", "atom.add.u32", 32, "offset", 8 * bpsm[b], offs[i],
                                   m, lo, hi, "cycle", (double)ns, err);
            if (st != GM_OK)
                return st;
            tick(c, "points");
        }
        double w = NAN;
        gm_status st = gm_gatomics_lock_width(offs, t, (size_t)n_off, 0.03, &w, err);
        if (st == GM_OK)
            st = add_row(c, "lockwidth", "atom.add.u32", 32, "offset", 8 * bpsm[b], 0.03, w, w, w,
                         "byte", 1, err);
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
}

/* One launch's time in ms. */
static gm_status time_rate(gatomics_ctx *c, int op, int pattern, int lps, unsigned grid,
                           unsigned block, int iters, double *ms, gm_error *err)
{
    TRY(cudaEventRecord(c->e0, c->stream), "event");
    TRY(gb_gatomics_launch_rate(op, pattern, lps, grid, block, iters, c->buf, c->d_sink, c->stream),
        "rate kernel");
    TRY(cudaEventRecord(c->e1, c->stream), "event");
    TRY(cudaEventSynchronize(c->e1), "rate kernel");
    float t = 0;
    TRY(cudaEventElapsedTime(&t, c->e0, c->e1), "event time");
    *ms = t;
    return GM_OK;
}

/* One rate point, operations per second.  Two sizes, iters and 3 x iters,
 * and the rate from their difference: the launch, the ramp-up and the tail
 * cancel (a single launch of ~0.1 ms read 8% low).  Median of `reps` pairs;
 * lo/hi their extremes. */
static gm_status rate_point(gatomics_ctx *c, int op, int pattern, int lps, int warps, int iters,
                            int reps, double active_per_warp, double *m, double *lo, double *hi,
                            gm_error *err)
{
    unsigned grid, block;
    shape(c, warps, &grid, &block);
    double r[GB_GATOMICS_RATE_REPS + 1];
    TRY(cudaMemsetAsync(c->buf, 0, 16ull << 20, c->stream), "memset");
    TRY(gb_gatomics_launch_rate(op, pattern, lps, grid, block, 2, c->buf, c->d_sink, c->stream),
        "warm-up");
    const double ops_per_iter = (double)grid * (block / 32) * active_per_warp;
    for (int i = 0; i < reps; i++) {
        double t1, t3;
        gm_status st = time_rate(c, op, pattern, lps, grid, block, iters, &t1, err);
        if (st == GM_OK)
            st = time_rate(c, op, pattern, lps, grid, block, 3 * iters, &t3, err);
        if (st != GM_OK)
            return st;
        r[i] = t3 > t1 ? ops_per_iter * 2.0 * iters / ((t3 - t1) * 1e-3) / 1e9 : NAN;
    }
    *m = gm_median_sort(r, (size_t)reps);
    *lo = r[0];
    *hi = r[reps - 1];
    return GM_OK;
}

static gm_status ex_sector(gatomics_ctx *c, const gb_gatomics_options *o, gm_error *err)
{
    const int ops[2] = {GB_GATOMICS_RED32, GB_GATOMICS_ATOM32};
    const char *names[2] = {"red.add.u32", "atom.add.u32"};
    (void)o;
    int reps = c->run->quick ? 1 : GB_GATOMICS_RATE_REPS;
    for (int i = 0; i < 2; i++)
        for (int lps = 1; lps <= 8; lps *= 2) {
            double m, lo, hi;
            gm_status st = rate_point(c, ops[i], GB_GATOMICS_PAT_DISTINCT, lps, 64, 64, reps, 32,
                                      &m, &lo, &hi, err);
            if (st == GM_OK)
                st = add_row(c, "sector", names[i], 32, "distinct", 64, lps, m, lo, hi, "Gop/s",
                             reps, err);
            if (st != GM_OK)
                return st;
            tick(c, "points");
        }
    return GM_OK;
}

static gm_status ex_l2rate(gatomics_ctx *c, const gb_gatomics_options *o, gm_error *err)
{
    int reps = c->run->quick ? 1 : GB_GATOMICS_RATE_REPS;
    (void)o;
    const int pats[4] = {GB_GATOMICS_PAT_ONE, GB_GATOMICS_PAT_ONE32, GB_GATOMICS_PAT_FEW,
                         GB_GATOMICS_PAT_DISTINCT};
    const int warps[2] = {16, 64};
    for (size_t i = 0; i < N_RATE_OPS; i++)
        for (int p = 0; p < 4; p++)
            for (int wi = 0; wi < 2; wi++) {
                /* Iterations: one-address patterns run at ~1 op per L2 cycle,
                 * the spread ones ~80x faster; both ~0.1-0.5 ms. */
                int iters = pats[p] == GB_GATOMICS_PAT_ONE32      ? 4
                            : pats[p] == GB_GATOMICS_PAT_DISTINCT ? 32
                                                                  : 64;
                if (pats[p] == GB_GATOMICS_PAT_ONE && warps[wi] == 16)
                    iters = 128;
                double active =
                    (pats[p] == GB_GATOMICS_PAT_ONE || pats[p] == GB_GATOMICS_PAT_FEW) ? 1 : 32;
                double m, lo, hi;
                gm_status st = rate_point(c, rate_ops[i].op, pats[p], 1, warps[wi], iters, reps,
                                          active, &m, &lo, &hi, err);
                /* One lane per sector: sectors = operations.  All lanes on
                 * one address: operations (how many sectors the L2 counts is
                 * the counters' to say). */
                if (st == GM_OK)
                    st = add_row(c, "l2rate", rate_ops[i].name, rate_ops[i].bits,
                                 pattern_names[pats[p]], warps[wi], 0, m, lo, hi,
                                 pats[p] == GB_GATOMICS_PAT_ONE32 ? "Gop/s" : "Gsector/s", reps,
                                 err);
                if (st != GM_OK)
                    return st;
                tick(c, "points");
            }
    return GM_OK;
}

static gm_status ex_interfere(gatomics_ctx *c, const gb_gatomics_options *o, double *samples,
                              gm_error *err)
{
    (void)o;
    unsigned grid = 2u * (unsigned)c->n_sm, block = 1024;
    const int iters = 32, hot = 48;
    double res[2];
    for (int with = 0; with < 2; with++) {
        size_t ns = 0;
        int reps = c->run->quick ? 1 : GB_GATOMICS_RATE_REPS;
        for (int r = 0; r < reps; r++) {
            TRY(cudaMemsetAsync(c->buf, 0, 72ull << 20, c->stream), "memset");
            TRY(gb_gatomics_launch_interfere(grid, block, iters, with ? hot : 0, c->buf,
                                             c->d_elapsed, c->d_sink, c->stream),
                "interfere kernel");
            TRY(cudaMemcpyAsync(c->h_elapsed, c->d_elapsed, (size_t)c->n_sm * 8,
                                cudaMemcpyDeviceToHost, c->stream), "copy back");
            TRY(cudaStreamSynchronize(c->stream), "interfere kernel");
            for (int b = 0; b < c->n_sm; b++)
                samples[ns++] = (double)c->h_elapsed[b] / iters;
        }
        double m, lo, hi;
        summarize(samples, ns, &m, &lo, &hi);
        res[with] = m;
        gm_status st = add_row(c, "interfere", "atom.add.u32", 32,
                               with ? "distinct+hot" : "distinct", 32, with ? hot : 0, m, lo, hi,
                               "cycle", (double)ns, err);
        if (st != GM_OK)
            return st;
        tick(c, "points");
    }
    return add_row(c, "interfere", "atom.add.u32", 32, "ratio", 32, hot, res[1] / res[0],
                   res[1] / res[0], res[1] / res[0], "x", 1, err);
}

static int experiment_present(const gm_mdata *md, const char *ex)
{
    int col = gm_mdata_col(md, "experiment");
    for (size_t r = 0; col >= 0 && r < md->n_rows; r++)
        if (strcmp(gm_mdata_text(md, r, col), ex) == 0)
            return 1;
    return 0;
}

static long points_of(int ex, const gb_gatomics_options *o)
{
    switch (ex) {
    case EX_CLOCK: return 3L * o->n_warps;
    case EX_STALL: return (long)N_STALL_OPS * 3 * 2 * o->n_warps;
    case EX_LOCK: return 24;
    case EX_SECTOR: return 8;
    case EX_L2RATE: return (long)N_RATE_OPS * 8;
    case EX_INTERFERE: return 2;
    default: return 2L * GB_GATOMICS_K_COUNT;
    }
}

gm_status gb_gatomics_measure(const gb_suite_run *run, gm_error *err)
{
    gb_gatomics_options o;
    gm_status st = gb_gatomics_parse_options(run, &o, err);
    if (st != GM_OK)
        return st;
    gatomics_ctx c = {.run = run};
    double *samples = NULL;
    if (run->resume) {
        FILE *f = fopen(run->out_path, "r");
        if (f) {
            fclose(f);
            if ((st = gm_mdata_load(run->out_path, &c.md, err)) != GM_OK)
                return st;
        }
    }
    gm_mdata_meta meta = *run->meta;
    if (!meta.method[0])
        snprintf(meta.method, sizeof meta.method,
                 "stall/clock/lock/hide: clock64 per thread, median and 10/90%% over warps; "
                 "rates: CUDA events, two launch sizes (docs/global-atomics.md)");
    if (!c.md && !(c.md = gm_mdata_new(&meta, GM_GATOMICS_NCOLS, gm_gatomics_columns)))
        return gm_fail(err, GM_ERR_NOMEM, "gatomics: machine data");
    int todo[EX_COUNT];
    for (int e = 0; e < EX_COUNT; e++) {
        todo[e] = o.ex[e] && !experiment_present(c.md, gb_gatomics_ex_names[e]);
        if (todo[e])
            c.total += points_of(e, &o);
    }

    int dev = run->device, n_sm = 0;
    if ((st = cuda_check(cudaSetDevice(dev), "device", err)) != GM_OK)
        goto done;
    if ((st = cuda_check(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, dev),
                         "SM count", err)) != GM_OK)
        goto done;
    c.n_sm = n_sm;
    c.max_threads = (size_t)n_sm * GB_GATOMICS_MAX_THREADS_PER_SM;
    if ((st = cuda_check(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking), "stream", err)) ||
        (st = cuda_check(cudaEventCreate(&c.e0), "event", err)) ||
        (st = cuda_check(cudaEventCreate(&c.e1), "event", err)) ||
        (st = cuda_check(cudaMalloc((void **)&c.buf, GB_GATOMICS_BUF_BYTES), "buffer", err)) ||
        (st = cuda_check(cudaMalloc((void **)&c.d_cycles, c.max_threads * 4), "buffer", err)) ||
        (st = cuda_check(cudaMalloc((void **)&c.d_sink, c.max_threads * 8), "buffer", err)) ||
        (st = cuda_check(cudaMalloc((void **)&c.d_elapsed, (size_t)n_sm * 8), "buffer", err)) ||
        (st = cuda_check(cudaMallocHost((void **)&c.h_cycles, c.max_threads * 4), "buffer", err)) ||
        (st = cuda_check(cudaMallocHost((void **)&c.h_elapsed, (size_t)n_sm * 8), "buffer", err)))
        goto done;
    samples = malloc((size_t)(c.max_threads / 32 + 1) * 21 * sizeof *samples);
    if (!samples) {
        st = gm_fail(err, GM_ERR_NOMEM, "gatomics: samples");
        goto done;
    }
    run->progress(run->io, 0, c.total, "points");
    for (int e = 0; e < EX_COUNT && st == GM_OK; e++) {
        if (!todo[e])
            continue;
        if (run->stop(run->io)) {
            st = gm_fail(err, GM_ERR_INTERRUPTED, "gatomics: stopped before '%s'",
                         gb_gatomics_ex_names[e]);
            break;
        }
        size_t rows_before = c.md->n_rows;
        switch (e) {
        case EX_CLOCK: st = ex_clock(&c, &o, samples, err); break;
        case EX_STALL: st = ex_stall(&c, &o, samples, err); break;
        case EX_LOCK: st = ex_lock(&c, &o, samples, err); break;
        case EX_SECTOR: st = ex_sector(&c, &o, err); break;
        case EX_L2RATE: st = ex_l2rate(&c, &o, err); break;
        case EX_INTERFERE: st = ex_interfere(&c, &o, samples, err); break;
        default: st = ex_hide(&c, &o, samples, err); break;
        }
        if (st != GM_OK)
            c.md->n_rows = rows_before; /* an experiment is kept whole or not at all */
        gm_error cerr;
        gm_status cst = run->checkpoint(run->io, c.md, &cerr);
        if (st == GM_OK && cst != GM_OK) {
            *err = cerr;
            st = cst;
        }
    }
done:
    free(samples);
    if (c.h_cycles)
        cudaFreeHost(c.h_cycles);
    if (c.h_elapsed)
        cudaFreeHost(c.h_elapsed);
    cudaFree(c.buf);
    cudaFree(c.d_cycles);
    cudaFree(c.d_sink);
    cudaFree(c.d_elapsed);
    if (c.e0)
        cudaEventDestroy(c.e0);
    if (c.e1)
        cudaEventDestroy(c.e1);
    if (c.stream)
        cudaStreamDestroy(c.stream);
    gm_mdata_free(c.md);
    return st;
}
