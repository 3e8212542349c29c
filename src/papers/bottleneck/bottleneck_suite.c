/* Suite "throughput": the microbenchmarks of Zhang & Owens (HPCA 2011,
 * paper 004, Sec. 4) on Hopper, written to tables/<gpu>/throughput.csv.
 *
 *   kind=inst    warp-instructions / clock / SM of one SASS instruction per
 *                SM pipe, against warps per SM (Fig. 2 left), with one
 *                dependent chain per thread (ilp 1, the paper's) and four
 *                independent ones (ilp 4), beside the programming guide's
 *                throughput table (`documented`);
 *   kind=issue   the same for an FFMA + FFMA + LOP3 mix: the issue rate;
 *   kind=shared  wavefronts / clock / SM of a shared-to-shared copy of 4-,
 *                8- and 16-byte elements with k-way bank conflicts, against
 *                warps per SM (Fig. 2 right; wavefronts from the simulator);
 *   kind=global  bytes / ns of loads and stores (ld/st.global.cg, so L1 is
 *                out) against blocks x threads x transactions per thread
 *                (Fig. 3), DRAM-resident (fresh memory each launch) and
 *                L2-resident (a 16 MB window);
 *   kind=launch  ns of one empty launch: name=empty back to back from the CPU,
 *                name=queued queued on the GPU behind a kernel that holds it,
 *                name=graph a node of a CUDA graph of them; name=graph_gap
 *                what a graph node adds to a kernel that spins
 *                GB_BOTTLENECK_GRAPH_SPIN_NS (its node's time less the spin);
 *   kind=device  the warps an SM holds.
 * Each point: one warm-up, then the median of REPS timed launches (device
 * events), `spread` = (max - min) / median.  The whole suite is re-measured
 * on --resume (it takes a few seconds); the file is checkpointed after each
 * part.  Column meanings: docs/bottleneck.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stats.h"
#include "bottleneck_txsim.h"
#include "gpuq/suite.h"
#include "core/suite_clock.h"
#include "bottleneck_kernels.h"

static const gb_sass_expect throughput_sass[] = {
    {"tp_inst_ffma", "FFMA", 64},   {"tp_inst_imad", "IMAD", 64},
    {"tp_inst_lop3", "LOP3", 64},   {"tp_inst_dfma", "DFMA", 64},
    {"tp_inst_hfma2", "HFMA2", 64}, {"tp_inst_mufu", "MUFU.EX2", 64},
    {"tp_inst_issue", "FFMA", 128}, {"tp_inst_issue", "LOP3", 64},
    {"tp_shared_copy", "LDS", 16},  {"tp_shared_copy", "STS", 16},
    {"tp_global_ld", "LDG", 1},     {"tp_global_st", "STG", 1},
    {NULL, NULL, 0},
};

#define REPS 5
#define L2_WINDOW (16u << 20)   /* L2-resident working set (H100 L2: 50 MB) */
#define DRAM_BYTES (2ull << 30) /* DRAM-resident runs walk through 2 GiB */
#define TARGET_CYCLES 4e5       /* instruction kernels: ~0.2 ms at peak */

static const int warps_full[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
static const int warps_quick[] = {1, 8, 64};
static const int blocks_list[] = {1, 4, 16, 66, 132, 264, 528, 1056, 2112, 4224};
static const int threads_list[] = {64, 128, 256, 512, 1024};
#define N_THREADS 5
static const int per_thread_list[] = {1, 4, 16, 64, 256};
#define N_PER_THREAD 5
#define MAX_REGION (512ull << 20) /* bytes one global launch may move */
static const int bytes_list[] = {4, 8, 16};
static const int ways_list[] = {1, 2, 4, 8, 16, 32};

/* Pipe, SASS and documented rate (cc 9.0 programming guide, results per
 * clock per SM / 32 lanes; HFMA2 makes two results) of each timed op. */
static const struct {
    int op;
    const char *kind, *pipe, *sass;
    double documented, guess;
    int chains;
} ops[] = {
    {GB_BOTTLENECK_FFMA, "inst", "fma", "FFMA", 128.0 / 32, 4, 1},
    {GB_BOTTLENECK_IMAD, "inst", "fmaheavy", "IMAD", 64.0 / 32, 2, 1},
    {GB_BOTTLENECK_LOP3, "inst", "alu", "LOP3", 64.0 / 32, 2, 1},
    {GB_BOTTLENECK_DFMA, "inst", "fp64", "DFMA", 64.0 / 32, 2, 1},
    {GB_BOTTLENECK_HFMA2, "inst", "fp16", "HFMA2", 256.0 / 2 / 32, 4, 1},
    {GB_BOTTLENECK_MUFU, "inst", "xu", "MUFU.EX2", 16.0 / 32, 0.5, 1},
    {GB_BOTTLENECK_ISSUE, "issue", "issue", "FFMA+LOP3", 4, 4, 3},
};

static const char *const cols[] = {"kind",       "name",  "bytes",  "ways",       "ilp",
                                   "warps",      "blocks", "threads", "per_thread", "value",
                                   "spread",     "documented", "sass"};
#define NCOLS 13


typedef struct bottleneck_ctx {
    const gb_suite_run *run;
    gm_mdata *md;
    double mhz;
    int sm, max_warps;
    long done, total;
} bottleneck_ctx;

/* Median of the REPS event times and their spread, (max - min) / median. */
static double median_spread(const float *ms, int n, double *spread)
{
    double v[REPS];
    for (int i = 0; i < n && i < REPS; i++)
        v[i] = ms[i];
    n = n < REPS ? n : REPS;
    double med = gm_median_sort(v, (size_t)n);
    *spread = med > 0 ? (v[n - 1] - v[0]) / med : NAN;
    return med;
}

static gm_status cuda_fail(int st, const char *what, gm_error *err)
{
    gm_status kind = st == GB_BOTTLENECK_ERR_NO_CUDA ? GM_ERR_UNSUPPORTED : GM_ERR_CUDA;
    return gm_fail(err, kind, "throughput: %s: %s", what, gb_bottleneck_error_string(st));
}

static gm_status add_row(bottleneck_ctx *c, const char *kind, const char *name, const double *v,
                         const char *sass, gm_error *err)
{
    const char *texts[NCOLS] = {kind, name, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL, NULL, NULL, NULL, sass};
    double vals[NCOLS];
    memset(vals, 0, sizeof vals);
    memcpy(vals + 2, v, 10 * sizeof(double)); /* bytes .. documented */
    return gm_mdata_add_values(c->md, texts, vals, err);
}

static gm_status step(bottleneck_ctx *c, const char *what, gm_error *err)
{
    c->done++;
    c->run->progress(c->run->io, c->done, c->total, what);
    if (c->run->stop(c->run->io)) {
        gm_error e2;
        c->run->checkpoint(c->run->io, c->md, &e2);
        return gm_fail(err, GM_ERR_INTERRUPTED, "throughput: stopped; partial data kept");
    }
    return GM_OK;
}

/* Blocks and threads that put w warps on each SM: one block per SM up to
 * 32 warps, two above. */
static void shape(const bottleneck_ctx *c, int w, int *blocks, int *threads)
{
    *blocks = w <= 32 ? c->sm : 2 * c->sm;
    *threads = w <= 32 ? 32 * w : 16 * w;
}

static gm_status measure_inst(bottleneck_ctx *c, const int *wl, int nw, gm_error *err)
{
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int ilp = 1; ilp <= 4; ilp += 3)
        for (int i = 0; i < nw; i++) {
            if (ops[o].op == GB_BOTTLENECK_ISSUE && ilp != 1)
                continue; /* the issue kernel has its own three chains */
            int w = wl[i], blocks, threads;
            shape(c, w, &blocks, &threads);
            /* iterations for ~TARGET_CYCLES at the expected peak */
            double per_iter = (double)GB_BOTTLENECK_UNROLL * ops[o].chains * w / ops[o].guess;
            int iters = (int)fmax(4, TARGET_CYCLES / per_iter);
            float ms[REPS];
            /* warm-up */
            int st = gb_bottleneck_inst_run(ops[o].op, ilp, blocks, threads, iters, &ms[0]);
            for (int r = 0; r < REPS && st == 0; r++)
                st = gb_bottleneck_inst_run(ops[o].op, ilp, blocks, threads, iters, &ms[r]);
            if (st)
                return cuda_fail(st, ops[o].sass, err);
            double spread, med = median_spread(ms, REPS, &spread);
            double inst = (double)iters * GB_BOTTLENECK_UNROLL * ops[o].chains * blocks * (threads / 32);
            double rate = inst / (med * 1e-3 * c->mhz * 1e6 * c->sm);
            double v[10] = {0, 0, ops[o].op == GB_BOTTLENECK_ISSUE ? 3 : ilp, w, blocks, threads,
                            iters, rate, spread, ops[o].documented};
            gm_status s = add_row(c, ops[o].kind, ops[o].pipe, v, ops[o].sass, err);
            if (s == GM_OK)
                s = step(c, "points", err);
            if (s != GM_OK)
                return s;
        }
    return GM_OK;
}

/* Wavefronts of one warp's access at stride `ways` elements (the simulator). */
static double wavefronts_per_access(int bytes, int stride)
{
    uint64_t a[32];
    for (int t = 0; t < 32; t++)
        a[t] = (uint64_t)t * (uint64_t)stride * (uint64_t)bytes;
    gm_bottleneck_tx_shared_cost cost;
    memset(&cost, 0, sizeof cost);
    return gm_bottleneck_tx_shared_add(&gm_bottleneck_tx_hopper_shared, a, NULL, 32, bytes, &cost,
                                       NULL) == GM_OK
               ? cost.wavefronts
               : NAN;
}

static gm_status measure_shared(bottleneck_ctx *c, const int *wl, int nw, int quick, gm_error *err)
{
    for (size_t b = 0; b < 3; b++)
        for (size_t k = 0; k < 6; k++) {
            if (quick && k > 1)
                continue;
            int bytes = bytes_list[b], ways = ways_list[k];
            double wf = wavefronts_per_access(bytes, ways);
            for (int i = 0; i < nw; i++) {
                int w = wl[i], blocks, threads;
                shape(c, w, &blocks, &threads);
                double smem_sm = (double)w * 32 * ways * bytes * 2;
                if (smem_sm > 200 * 1024)
                    continue; /* more shared memory than an SM has */
                /* 8 x 2 copies per iteration, each a load and a store: 32 accesses */
                int iters = (int)fmax(2, TARGET_CYCLES / (32.0 * w * wf));
                float ms[REPS];
                int st = gb_bottleneck_shared_run(bytes, ways, blocks, threads, iters, &ms[0]);
                for (int r = 0; r < REPS && st == 0; r++)
                    st = gb_bottleneck_shared_run(bytes, ways, blocks, threads, iters, &ms[r]);
                if (st)
                    return cuda_fail(st, "shared copy", err);
                double spread, med = median_spread(ms, REPS, &spread);
                double total = wf * 32.0 * iters * blocks * (threads / 32);
                double rate = total / (med * 1e-3 * c->mhz * 1e6 * c->sm);
                double v[10] = {bytes, ways, 1, w, blocks, threads, iters, rate, spread, NAN};
                char sass[32];
                snprintf(sass, sizeof sass, "LDS/STS.%d", bytes * 8);
                gm_status s = add_row(c, "shared", "copy", v, sass, err);
                if (s == GM_OK)
                    s = step(c, "points", err);
                if (s != GM_OK)
                    return s;
            }
        }
    return GM_OK;
}

static gm_status measure_global(bottleneck_ctx *c, int quick, gm_error *err)
{
    void *buf = NULL;
    int *sink = NULL;
    int st = gb_bottleneck_malloc(&buf, DRAM_BYTES);
    if (!st)
        st = gb_bottleneck_malloc((void **)&sink, 64);
    if (!st)
        st = gb_bottleneck_memset(buf, DRAM_BYTES);
    if (st) {
        gb_bottleneck_free(buf);
        return cuda_fail(st, "global buffers", err);
    }
    gm_status s = GM_OK;
    unsigned long long offset = 0;
    for (int l2 = 0; l2 < 2 && s == GM_OK; l2++)
        for (int store = 0; store < 2 && s == GM_OK; store++)
            for (int b = 0; b < 3 && s == GM_OK; b++)
                for (int i = 0; i < 10 && s == GM_OK; i++)
                    for (int j = 0; j < N_THREADS && s == GM_OK; j++)
                        for (int k = 0; k < N_PER_THREAD && s == GM_OK; k++) {
                            if (quick && (i % 4 || j % 2 || k % 2))
                                continue;
                            int bytes = bytes_list[b], blocks = blocks_list[i];
                            int threads = threads_list[j], m = per_thread_list[k];
                            unsigned long long region =
                                (unsigned long long)blocks * threads * m * bytes;
                            if (region > MAX_REGION) {
                                s = step(c, "points", err); /* too long for a few seconds */
                                continue;
                            }
                            float ms[REPS];
                            int e = 0;
                            for (int r = -1; r < REPS && !e; r++) {
                                void *p = buf;
                                long long mask = (long long)(L2_WINDOW / bytes) - 1;
                                if (!l2) { /* fresh memory: nothing of it is in L2 */
                                    if (offset + region > DRAM_BYTES)
                                        offset = 0;
                                    p = (char *)buf + offset;
                                    offset += (region + 4095) & ~4095ull;
                                    mask = -1;
                                }
                                e = gb_bottleneck_global_run(store, bytes, p, mask, blocks, threads,
                                                             m, sink, &ms[r < 0 ? 0 : r]);
                            }
                            if (e) {
                                s = cuda_fail(e, "global", err);
                                break;
                            }
                            double spread, med = median_spread(ms, REPS, &spread);
                            double v[10] = {bytes, 0, 1, 0, blocks, threads, m,
                                            (double)region / (med * 1e6), spread, NAN};
                            char name[16];
                            snprintf(name, sizeof name, "%s_%s", l2 ? "l2" : "dram",
                                     store ? "st" : "ld");
                            s = add_row(c, "global", name, v, store ? "STG" : "LDG", err);
                            if (s == GM_OK)
                                s = step(c, "points", err);
                        }
    gb_bottleneck_free(buf);
    gb_bottleneck_free(sink);
    return s;
}

static gm_status throughput_run(const gb_suite_run *run, gm_error *err)
{
    bottleneck_ctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    int st = gb_bottleneck_device_info(run->device, &c.sm, &c.max_warps);
    if (st)
        return cuda_fail(st, "device", err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double mhz0 = 0, mhz1 = 0;
    if ((st = gb_bottleneck_clock_mhz(&mhz0)))
        return cuda_fail(st, "clock", err);
    c.mhz = mhz0;
    gm_mdata_meta meta = *run->meta;
    meta.sm_clock_mhz = mhz0;
    snprintf(meta.method, sizeof meta.method,
             "median of %d event-timed launches after a warm-up; dependent chains of %d "
             "PTX-written instructions; clock from clock64 vs globaltimer",
             REPS, GB_BOTTLENECK_UNROLL);
    c.md = gm_mdata_new(&meta, NCOLS, cols);
    if (!c.md)
        return gm_fail(err, GM_ERR_NOMEM, "throughput: out of memory");
    const int *wl = run->quick ? warps_quick : warps_full;
    int nw = run->quick ? 3 : (int)(sizeof warps_full / sizeof warps_full[0]);
    c.total = (2L * (long)(sizeof ops / sizeof ops[0]) - 1) * nw + 3L * (run->quick ? 2 : 6) * nw +
              (run->quick ? 4L * 3 * 3 * 3 * 3 : 4L * 3 * 10 * N_THREADS * N_PER_THREAD);
    gm_status s = GM_OK;
    float ms = 0;
    /* One empty launch queued on the GPU (a CUDA graph's pace: the launch-
     * bound what-ifs), then back to back from the CPU (the Hopper form's
     * fixed cost).  The queued row comes first: a reader that knows only
     * kind=launch takes the last such row, the back-to-back one. */
    if ((st = gb_bottleneck_queued_run(c.sm, 32, 20, &ms)) == 0)
        st = gb_bottleneck_queued_run(c.sm, 32, 200, &ms);
    if (st)
        s = cuda_fail(st, "queued empty launch", err);
    double vq[10] = {0, 0, 1, 0, c.sm, 32, 200, ms * 1e6 / 200, NAN, NAN};
    if (s == GM_OK)
        s = add_row(&c, "launch", "queued", vq, "", err);
    /* The same in a CUDA graph: each node of empty launches (the graph's
     * pace), and each node of launches that spin GB_BOTTLENECK_GRAPH_SPIN_NS beyond
     * that spin (what a graph adds to a kernel's own time between two
     * dependent nodes: the CUDA-graph what-if).  Before the back-to-back row,
     * for the same reason.  Where a graph cannot be made the rows are left
     * out (the what-if then falls back on the queued row) and the suite
     * goes on. */
    const char *no_graph = NULL;
    for (int spin = 0; spin < 2 && s == GM_OK && !no_graph; spin++) {
        long long ns = spin ? GB_BOTTLENECK_GRAPH_SPIN_NS : 0;
        if ((st = gb_bottleneck_graph_run(c.sm, 32, ns, 20, &ms)) == 0)
            st = gb_bottleneck_graph_run(c.sm, 32, ns, 200, &ms);
        if (st) {
            no_graph = gb_bottleneck_error_string(st);
            break;
        }
        /* never below 0: the file's launch rows are durations */
        double vg[10] = {0, 0, 1, 0, c.sm, 32, 200, fmax(0, ms * 1e6 / 200 - (double)ns), NAN, NAN};
        s = add_row(&c, "launch", spin ? "graph_gap" : "graph", vg, "", err);
    }
    /* the median of REPS timings of 200, as every other point: one timing
     * alone read 4.39, 4.65 and 4.84 us per launch in three H200 runs of
     * 2026-12-01/02, and the launch-bound what-ifs divide by it */
    float reps[REPS];
    if (s == GM_OK && (st = gb_bottleneck_inst_run(GB_BOTTLENECK_EMPTY, 1, c.sm, 32, 20, &ms)) == 0)
        for (int r = 0; r < REPS && st == 0; r++)
            st = gb_bottleneck_inst_run(GB_BOTTLENECK_EMPTY, 1, c.sm, 32, 200, &reps[r]);
    if (s == GM_OK && st)
        s = cuda_fail(st, "empty launch", err);
    double spread = NAN;
    if (s == GM_OK)
        ms = (float)median_spread(reps, REPS, &spread);
    double v[10] = {0, 0, 1, 0, c.sm, 32, 200, ms * 1e6 / 200, spread, NAN};
    if (s == GM_OK)
        s = add_row(&c, "launch", "empty", v, "", err);
    double vd[10] = {0, 0, 1, 0, 0, 0, 0, c.max_warps, NAN, NAN};
    if (s == GM_OK)
        s = add_row(&c, "device", "max_warps_per_sm", vd, "", err);
    if (s == GM_OK && (s = measure_inst(&c, wl, nw, err)) == GM_OK)
        s = run->checkpoint(run->io, c.md, err);
    if (s == GM_OK && (s = measure_shared(&c, wl, nw, run->quick, err)) == GM_OK)
        s = run->checkpoint(run->io, c.md, err);
    if (s == GM_OK)
        s = measure_global(&c, run->quick, err);
    if (s == GM_OK && (st = gb_bottleneck_clock_mhz(&mhz1)))
        s = cuda_fail(st, "clock", err);
    if (s == GM_OK) {
        /* The clock seen before and after: a change over 2% is reported. */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (!run->quiet)
            printf("throughput: %ld points in %.1f s, SM clock %.0f MHz before, %.0f after%s\n",
                   c.done, wall, mhz0, mhz1,
                   gb_clock_changed(mhz0, mhz1, 0.02) ? " (changed: rates assume the first)"
                                                     : "");
        if (!run->quiet && no_graph)
            printf("throughput: the CUDA graph rows were not measured (%s)\n", no_graph);
        s = run->checkpoint(run->io, c.md, err);
    }
    gm_mdata_free(c.md);
    return s;
}

const gb_suite gb_suite_throughput = {
    .name = "throughput",
    .measures = "instruction, shared-memory and global-memory throughput (paper 004, Sec. 4, "
                "Fig. 2-3)",
    .sweep = "warps/SM 1..64 per SM pipe and issue; shared 4/8/16 B x 1..32-way conflicts; "
             "global ld/st 4/8/16 B x blocks x threads x per-thread, DRAM and L2",
    .file = "throughput.csv",
    .expected_s = 2.0, /* 1.8 s on an H100 SXM (docs/bottleneck.md) */
    .sass = throughput_sass,
    .run = throughput_run,
    .keys = NULL,
    .check = NULL,
};
