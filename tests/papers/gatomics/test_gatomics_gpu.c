/* GPU test of suite gatomics (src/papers/gatomics/gatomics_suite.c).
 *
 * 1. Timings depend on the operation's result: the stall kernels read the
 *    closing clock after the result is stored to shared memory; the control
 *    kernels (ga_nodep_*) read it before.  Were the timing not waiting for
 *    the result, both would measure the same few issue cycles; an ATOM and
 *    a load that go to L2 take hundreds of cycles, so the dependent time must
 *    exceed the control's by a wide margin (3x and 100 cycles).
 * 2. The suite in --quick form runs through its descriptor, writes its
 *    machine data, and the file holds every experiment with sane values:
 *    clock64 pairs cost less than an atomic, L2 throughput over distinct
 *    sectors beats one address, the rates the model needs are there.
 * Exits 77 without a usable GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papers/gatomics/gatomics_kernels.h"
#include "papers/gatomics/gatomics_model.h"
#include "core/stats.h"
#include "gpuq/suite.h"

extern const gb_suite gb_suite_gatomics;

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* Median per-thread cycles of one stall launch, 1 warp per SM, strided. */
static double stall_median(int op, int dep, int n_sm, void *buf, float *d_cycles,
                           unsigned long long *d_sink)
{
    gb_gatomics_stall_args a = {.op = op, .k = 0, .pattern = GB_GATOMICS_PAT_STRIDED, .dep = dep,
                       .grid = (unsigned)n_sm, .block = 32, .iters = 16, .warm = 4,
                       .buf = buf, .cycles = d_cycles, .sink = d_sink};
    if (gb_gatomics_launch_stall(&a, NULL) != 0 || cudaDeviceSynchronize() != cudaSuccess)
        return NAN;
    size_t n = (size_t)n_sm * 32;
    float *h = malloc(n * sizeof *h);
    double *v = malloc(n * sizeof *v);
    cudaMemcpy(h, d_cycles, n * sizeof *h, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < n; i++)
        v[i] = h[i];
    double m = gm_median_sort(v, n);
    free(h);
    free(v);
    return m;
}

static void dependency_test(void)
{
    int n_sm = 0;
    cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, 0);
    void *buf = NULL;
    float *d_cycles = NULL;
    unsigned long long *d_sink = NULL;
    cudaMalloc(&buf, (size_t)n_sm * 32 * 128);
    cudaMalloc((void **)&d_cycles, (size_t)n_sm * 32 * sizeof(float));
    cudaMalloc((void **)&d_sink, (size_t)n_sm * 32 * 8);
    cudaMemset(buf, 0, (size_t)n_sm * 32 * 128);
    const int ops[2] = {GB_GATOMICS_ATOM32, GB_GATOMICS_LD32};
    const char *names[2] = {"atom.add.u32", "ld.u32"};
    for (int i = 0; i < 2; i++) {
        double dep = stall_median(ops[i], 1, n_sm, buf, d_cycles, d_sink);
        double nodep = stall_median(ops[i], 0, n_sm, buf, d_cycles, d_sink);
        printf("%s: %.1f cycles waiting for the result, %.1f without (control)\n", names[i], dep,
               nodep);
        CHECK(dep >= 100 && dep >= 3 * nodep,
              "%s: time with the result dependency (%.1f) not well above the control (%.1f)",
              names[i], dep, nodep);
    }
    cudaFree(buf);
    cudaFree(d_cycles);
    cudaFree(d_sink);
}

static void io_progress(void *io, long done, long total, const char *what)
{
    (void)io, (void)done, (void)total, (void)what;
}
static int io_stop(void *io)
{
    (void)io;
    return 0;
}
static gm_status io_checkpoint(void *io, const gm_mdata *md, gm_error *err)
{
    return gm_mdata_write_file((const char *)io, md, err);
}

static double value(const gm_mdata *md, const char *ex, const char *op, const char *pattern,
                    int warps)
{
    int ce = gm_mdata_col(md, "experiment"), co = gm_mdata_col(md, "op"),
        cp = gm_mdata_col(md, "pattern"), cw = gm_mdata_col(md, "warps"),
        cm = gm_mdata_col(md, "median");
    for (size_t r = 0; r < md->n_rows; r++)
        if (strcmp(gm_mdata_text(md, r, ce), ex) == 0 && strcmp(gm_mdata_text(md, r, co), op) == 0 &&
            strcmp(gm_mdata_text(md, r, cp), pattern) == 0 &&
            (warps < 0 || gm_mdata_num(md, r, cw) == warps))
            return gm_mdata_num(md, r, cm);
    return NAN;
}

static void quick_suite_test(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gpuq-gatomics-%d.csv", (int)getpid());
    gm_mdata_meta meta = {0};
    snprintf(meta.suite, sizeof meta.suite, "gatomics");
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "%.127s", prop.name);
    meta.cc_major = prop.major;
    meta.cc_minor = prop.minor;
    meta.sm_count = prop.multiProcessorCount;
    snprintf(meta.date, sizeof meta.date, "2026-01-01T00:00:00Z");
    snprintf(meta.method, sizeof meta.method, "test_gatomics_gpu --quick");
    gb_suite_run run = {.device = 0, .out_path = path, .quick = 1, .meta = &meta, .io = path,
                        .progress = io_progress, .stop = io_stop, .checkpoint = io_checkpoint};
    gm_error err = {{0}};
    gm_status st = gb_suite_gatomics.run(&run, &err);
    CHECK(st == GM_OK, "quick suite: %s", err.msg);
    gm_mdata *md = NULL;
    st = gm_mdata_load(path, &md, &err);
    CHECK(st == GM_OK, "load %s: %s", path, err.msg);
    if (!md)
        return;
    const char *ex[] = {"clock", "stall", "lock", "lockwidth", "sector", "l2rate", "interfere",
                        "hide", "hidepoint"};
    int ce = gm_mdata_col(md, "experiment");
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        int found = 0;
        for (size_t r = 0; r < md->n_rows; r++)
            found |= strcmp(gm_mdata_text(md, r, ce), ex[i]) == 0;
        CHECK(found, "no rows of experiment %s", ex[i]);
    }
    double clk = value(md, "clock", "clock64", "pair", 1);
    double atom = value(md, "stall", "atom.add.u32", "strided", 1);
    printf("quick: clock64 pair %.1f cycles, strided atom %.1f cycles\n", clk, atom);
    CHECK(clk > 0 && clk < 50, "clock64 pair %.1f cycles", clk);
    CHECK(atom > 5 * clk, "strided atom %.1f not above 5x the clock pair %.1f", atom, clk);
    gm_gatomics_rates rates;
    st = gm_gatomics_rates_from_mdata(md, NULL, &rates, &err);
    CHECK(st == GM_OK, "rates: %s", err.msg);
    if (st == GM_OK) {
        printf("quick: ATOM %.2f / %.2f Gsector/s, RED %.2f / %.2f (one / distinct)\n",
               rates.one[0] / 1e9, rates.peak[0] / 1e9, rates.one[1] / 1e9, rates.peak[1] / 1e9);
        CHECK(rates.peak[GM_GATOMICS_ATOM] > 4 * rates.one[GM_GATOMICS_ATOM],
              "ATOM distinct not above one");
        CHECK(rates.peak[GM_GATOMICS_RED] > 4 * rates.one[GM_GATOMICS_RED],
              "RED distinct not above one");
    }
    gm_mdata_free(md);
    remove(path);
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("skipped: no usable CUDA device\n");
        return 77;
    }
    dependency_test();
    quick_suite_test();
    if (failures)
        printf("%d failure(s)\n", failures);
    else
        printf("OK\n");
    return failures ? 1 : 0;
}
