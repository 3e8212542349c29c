/* Host side of the histogram kernels (C11 on the CUDA runtime API): device
 * buffers, launches through cudaLaunchKernel, event timing, bandwidth probes.
 * Every CUDA call is checked; failures come back as GM_ERR_CUDA naming the
 * call and the runtime's reason. */
#include "hist_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* Checks a CUDA runtime call; on failure records it in err and jumps to the
 * function's cleanup label `fail` with st set. */
#define CUDA_TRY(call)                                                                         \
    do {                                                                                       \
        cudaError_t cuda_rc_ = (call);                                                         \
        if (cuda_rc_ != cudaSuccess) {                                                         \
            st = gm_fail(err, GM_ERR_CUDA, "%s failed (%s)", #call,                            \
                         cudaGetErrorString(cuda_rc_));                                        \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

/* The same for a function without cleanup. */
#define CUDA_CHECK(call)                                                                       \
    do {                                                                                       \
        cudaError_t cuda_rc_ = (call);                                                         \
        if (cuda_rc_ != cudaSuccess)                                                           \
            return gm_fail(err, GM_ERR_CUDA, "%s failed (%s)", #call,                          \
                           cudaGetErrorString(cuda_rc_));                                      \
    } while (0)

/* Cycles the delay kernel spins before each timed run (about 50 us at
 * 2 GHz): far longer than the host needs to queue a run and its events. */
#define HIST_DELAY_CYCLES 100000LL

/* One word per warp for the read probe and the ADD kernels' dummy store:
 * enough for 2048 resident threads on 512 SMs. */
#define HIST_SINK_WORDS ((size_t)1 << 15)

const hist_kernel_desc hist_kernel_table[HIST_K_COUNT] = {
    {HIST_K_HIST, "hist", "hist_add", 1, "Listing 1, channels in order, ATOMS.ADD (result read)"},
    {HIST_K_HIST2, "hist2", "hist2_add", 1,
     "Listing 2, channels rotated by thread id, ATOMS.ADD (result read)"},
    {HIST_K_HIST_POPC, "hist_popc", "hist_popc", 1,
     "Listing 1, channels in order, ATOMS.POPC.INC (result unused)"},
    {HIST_K_HIST2_POPC, "hist2_popc", "hist2_popc", 1,
     "Listing 2, channels rotated by thread id, ATOMS.POPC.INC (result unused)"},
    {HIST_K_FAST, "hist_fast", "hist_fast", 0,
     "fast: 4 x 16-byte loads + prefetch, 32 lane replicas, PRMT addresses, POPC.INC, hybrid"},
    {HIST_K_CUB, "cub", NULL, 0, "cub::DeviceHistogram::MultiHistogramEven<4,4> (CCCL)"},
    {HIST_K_FAST_QSTEP, "hist_fast_qstep", "hist_fast_qstep", 0,
     "hist_fast with the quad test per step and branches on every path"},
    {HIST_K_FAST_PLAIN, "hist_fast_plain", "hist_fast_plain", 0,
     "hist_fast without the quad test (4 increments per 4 pixels and channel)"},
    {HIST_K_FAST_QUADS, "hist_fast_quads", "hist_fast_quads", 0,
     "hist_fast with the quad test per group of 128 pixels"},
    {HIST_K_FAST_RUNS, "hist_fast_runs", "hist_fast_runs", 0,
     "hist_fast with warp-uniform register runs instead of the quad test"},
    {HIST_K_FAST_BRANCH, "hist_fast_branch", "hist_fast_branch", 0,
     "diagnostic: plain, each channel behind an always-true opaque branch"},
    {HIST_K_FAST_ADD, "hist_fast_add", "hist_fast_add", 0,
     "diagnostic: plain with ATOMS.ADD instead of ATOMS.POPC.INC"},
    {HIST_K_FAST_NOPREFETCH, "hist_fast_noprefetch", "hist_fast_noprefetch", 0,
     "quads without prefetching the next step's loads"},
    {HIST_K_FAST_R16, "hist_fast_r16", "hist_fast_r16", 0, "quads with 16 lane replicas"},
    {HIST_K_FAST_R1, "hist_fast_r1", "hist_fast_r1", 0,
     "quads with one shared histogram (paper layout)"},
    {HIST_K_FAST_L1, "hist_fast_l1", "hist_fast_l1", 0,
     "quads with one 16-byte load per lane and step"},
    {HIST_K_FAST_L8, "hist_fast_l8", "hist_fast_l8", 0,
     "quads with eight 16-byte loads per lane and step, no prefetch"},
    {HIST_K_FAST_V1, "hist_fast_v1", "hist_fast_v1", 0,
     "first version: 4 loads, 32 replicas, warp-uniform runs, no prefetch"},
    {HIST_K_FAST_V1PLAIN, "hist_fast_v1plain", "hist_fast_v1plain", 0,
     "first version without runs"},
    {HIST_K_FAST_H16, "hist_fast_h16", "hist_fast_h16", 0,
     "plain with 16-bit counters (64 KiB), up to 3 blocks of 512 threads per SM"},
    {HIST_K_FAST_H16Q, "hist_fast_h16q", "hist_fast_h16q", 0,
     "h16 with the quad test per step"},
    {HIST_K_FAST_H16W, "hist_fast_h16w", "hist_fast_h16w", 0,
     "plain with 16-bit counters, 2 loads, 2 blocks of 1024 threads per SM"},
    {HIST_K_FAST_BYTES, "hist_fast_bytes", "hist_fast_bytes", 0,
     "lane-private 8-bit counters (LDS/STS, no atomics on random data), <= 192 threads"},
    {HIST_K_FAST_BYTES_NOPAIR, "hist_fast_bytes_nopair", "hist_fast_bytes_nopair", 0,
     "fast_bytes with one pixel's byte updates in flight at a time"},
    {HIST_K_FAST_BYTES4, "hist_fast_bytes4", "hist_fast_bytes4", 0,
     "fast_bytes with four 16-byte loads per lane and step instead of eight"},
    {HIST_K_FAST_MATCH, "hist_fast_match", "hist_fast_match", 0,
     "warp-private 32-bit counters, LDS/STS, duplicates merged with __match_any_sync"},
    {HIST_K_FAST_V4, "hist_fast_v4", "hist_fast_v4", 0,
     "run 4's hist_fast: plain counter layout (shift, mask, LEA per address)"},
};

const hist_kernel_desc *hist_kernel_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < HIST_K_COUNT; i++)
        if (strcmp(hist_kernel_table[i].name, name) == 0)
            return &hist_kernel_table[i];
    return NULL;
}

struct hist_gpu {
    hist_device_info dev;
    size_t max_pixels;
    size_t image_bytes;     /* max_pixels * 4 rounded up to 16 */
    uint8_t *d_image;
    uint8_t *d_copy;        /* second buffer for the copy probe, allocated on first use */
    uint32_t *d_hist;
    uint32_t *d_sink;
    void *d_cub_temp;
    size_t cub_temp_bytes;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int max_threads[HIST_K_COUNT]; /* per kernel, from cudaFuncGetAttributes; 0 for CUB */
};

static gm_status read_device_info(hist_device_info *dev, gm_error *err)
{
    struct cudaDeviceProp prop;
    int value;

    memset(dev, 0, sizeof *dev);
    CUDA_CHECK(cudaGetDevice(&dev->device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev->device));
    snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->cc_major, cudaDevAttrComputeCapabilityMajor,
                                      dev->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->cc_minor, cudaDevAttrComputeCapabilityMinor,
                                      dev->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->sm_count, cudaDevAttrMultiProcessorCount,
                                      dev->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->max_threads_per_sm,
                                      cudaDevAttrMaxThreadsPerMultiProcessor, dev->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&dev->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock,
                                      dev->device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      dev->device));
    dev->shared_per_sm = (size_t)value;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                      dev->device));
    dev->shared_per_block_optin = (size_t)value;
    CUDA_CHECK(cudaDriverGetVersion(&dev->driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&dev->runtime_version));
    return GM_OK;
}

gm_status hist_gpu_create(size_t max_pixels, hist_gpu **out, gm_error *err)
{
    hist_gpu *gpu = NULL;
    int count = 0;
    gm_status st = GM_OK;
    cudaError_t rc;

    if (!out || max_pixels < 1 || max_pixels > HIST_MAX_PIXELS)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_create");
    *out = NULL;
    rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess)
        return gm_fail(err, GM_ERR_NO_GPU, "cudaGetDeviceCount: %s", cudaGetErrorString(rc));
    if (count < 1)
        return gm_fail(err, GM_ERR_NO_GPU, "no CUDA device found");
    gpu = calloc(1, sizeof *gpu);
    if (!gpu)
        return gm_fail(err, GM_ERR_NOMEM, "GPU state");
    st = read_device_info(&gpu->dev, err);
    if (st != GM_OK)
        goto fail;
    gpu->max_pixels = max_pixels;
    gpu->image_bytes = (max_pixels * HIST_CHANNELS + 15) / 16 * 16;
    /* A blocking stream: it waits for the legacy-stream cudaMemcpy of the
     * upload, whose DMA may still run after a pageable copy returns. */
    CUDA_TRY(cudaStreamCreate(&gpu->stream));
    CUDA_TRY(cudaEventCreate(&gpu->start));
    CUDA_TRY(cudaEventCreate(&gpu->stop));
    CUDA_TRY(cudaMalloc((void **)&gpu->d_image, gpu->image_bytes));
    CUDA_TRY(cudaMemset(gpu->d_image, 0, gpu->image_bytes));
    CUDA_TRY(cudaMalloc((void **)&gpu->d_hist, HIST_TOTAL_BINS * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&gpu->d_sink, HIST_SINK_WORDS * sizeof(uint32_t)));
    CUDA_TRY((cudaError_t)hist_cub_temp_bytes(max_pixels, &gpu->cub_temp_bytes));
    CUDA_TRY(cudaMalloc(&gpu->d_cub_temp, gpu->cub_temp_bytes ? gpu->cub_temp_bytes : 1));
    /* The fast kernels ask for more than the default 48 KiB of dynamic
     * shared memory; one that needs more than this GPU allows stays
     * unconfigured and hist_gpu_default_blocks says so. */
    for (int k = 0; k < HIST_K_COUNT; k++) {
        const void *fn = hist_kernel_function((hist_kernel_id)k);
        size_t dyn = hist_kernel_dynamic_shared((hist_kernel_id)k);
        struct cudaFuncAttributes attr;

        if (!fn)
            continue;
        if (dyn > 0 && dyn <= gpu->dev.shared_per_block_optin)
            CUDA_TRY(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        /* __launch_bounds__ caps some kernels below 1024 threads. */
        CUDA_TRY(cudaFuncGetAttributes(&attr, fn));
        gpu->max_threads[k] = attr.maxThreadsPerBlock;
    }
    *out = gpu;
    return GM_OK;
fail:
    hist_gpu_destroy(gpu);
    return st;
}

void hist_gpu_destroy(hist_gpu *gpu)
{
    if (!gpu)
        return;
    /* Errors while tearing down change nothing for the caller. */
    if (gpu->d_image)
        (void)cudaFree(gpu->d_image);
    if (gpu->d_copy)
        (void)cudaFree(gpu->d_copy);
    if (gpu->d_hist)
        (void)cudaFree(gpu->d_hist);
    if (gpu->d_sink)
        (void)cudaFree(gpu->d_sink);
    if (gpu->d_cub_temp)
        (void)cudaFree(gpu->d_cub_temp);
    if (gpu->start)
        (void)cudaEventDestroy(gpu->start);
    if (gpu->stop)
        (void)cudaEventDestroy(gpu->stop);
    if (gpu->stream)
        (void)cudaStreamDestroy(gpu->stream);
    free(gpu);
}

const hist_device_info *hist_gpu_device(const hist_gpu *gpu)
{
    return gpu ? &gpu->dev : NULL;
}

gm_status hist_gpu_upload(hist_gpu *gpu, const hist_image *img, gm_error *err)
{
    if (!gpu || !img || !img->rgba || img->pixels > gpu->max_pixels)
        return gm_fail(err, GM_ERR_INVALID_ARG, "image larger than the device buffer");
    CUDA_CHECK(cudaMemcpy(gpu->d_image, img->rgba, img->pixels * HIST_CHANNELS,
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    return GM_OK;
}

gm_status hist_gpu_default_blocks(hist_gpu *gpu, hist_kernel_id k, int threads, int *blocks,
                                  gm_error *err)
{
    const void *fn;
    size_t dyn;
    int per_sm = 0;

    if (!gpu || !blocks || k < 0 || k >= HIST_K_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_default_blocks");
    *blocks = 0;
    if (k == HIST_K_CUB)
        return GM_OK;
    if (threads < 32 || threads % 32 != 0 || threads > gpu->dev.max_threads_per_block)
        return gm_fail(err, GM_ERR_RANGE, "%d threads per block: need a multiple of 32 in 32..%d",
                       threads, gpu->dev.max_threads_per_block);
    if (threads > gpu->max_threads[k])
        return gm_fail(err, GM_ERR_UNSUPPORTED, "%s runs at most %d threads per block",
                       hist_kernel_table[k].name, gpu->max_threads[k]);
    fn = hist_kernel_function(k);
    dyn = hist_kernel_dynamic_shared(k);
    if (dyn > gpu->dev.shared_per_block_optin)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "%s needs %zu bytes of shared memory per block, this GPU allows %zu",
                       hist_kernel_table[k].name, dyn, gpu->dev.shared_per_block_optin);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, dyn));
    if (per_sm < 1)
        return gm_fail(err, GM_ERR_UNSUPPORTED, "%s cannot run with %d threads per block here",
                       hist_kernel_table[k].name, threads);
    *blocks = per_sm * gpu->dev.sm_count;
    return GM_OK;
}

/* Kernels with 16-bit counters: refuse a launch where one lane column of one
 * block could count more pixels than a counter holds.  A warp takes
 * ceil(steps / warps) steps of loads x 4 pixels per lane; a block has
 * threads / 32 warps whose lane l share one column; block 0 also counts the
 * last pixels % 4 pixels. */
static gm_status check_lane_limit(hist_kernel_id k, size_t pixels, int threads, int blocks,
                                  gm_error *err)
{
    int loads = 0;
    const unsigned long long limit = hist_kernel_lane_limit(k, &loads);
    unsigned long long steps, warps, worst;

    if (!limit)
        return GM_OK;
    steps = (pixels / 4 + 32ull * loads - 1) / (32ull * loads);
    warps = (unsigned long long)blocks * (unsigned long long)threads / 32;
    worst = (unsigned long long)(threads / 32) * ((steps + warps - 1) / warps) * loads * 4 + 3;
    if (worst > limit)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "%s: up to %llu pixels per 16-bit counter at %d blocks of %d threads "
                       "(limit %llu): use more blocks",
                       hist_kernel_table[k].name, worst, blocks, threads, limit);
    return GM_OK;
}

/* Queues the delay kernel (see HIST_DELAY_CYCLES). */
static gm_status queue_delay(hist_gpu *gpu, gm_error *err)
{
    long long cycles = HIST_DELAY_CYCLES;
    void *args[1] = {&cycles};
    dim3 one = {1, 1, 1};

    CUDA_CHECK(cudaLaunchKernel(hist_delay_function(), one, one, args, 0, gpu->stream));
    return GM_OK;
}

gm_status hist_gpu_run(hist_gpu *gpu, hist_kernel_id k, size_t pixels, int threads, int blocks,
                       gm_error *err)
{
    const uint8_t *rgba;
    unsigned long long n = pixels;
    uint32_t *hist, *sink;
    void *args[4];
    dim3 grid = {1, 1, 1}, block = {1, 1, 1};
    gm_status st;

    if (!gpu || k < 0 || k >= HIST_K_COUNT || pixels < 1 || pixels > gpu->max_pixels)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_run");
    if (k == HIST_K_CUB) {
        /* CUB zeroes its output itself. */
        CUDA_CHECK((cudaError_t)hist_cub_run(gpu->d_cub_temp, gpu->cub_temp_bytes, gpu->d_image,
                                             pixels, gpu->d_hist, gpu->stream));
        return GM_OK;
    }
    if (threads < 32 || threads % 32 != 0 || threads > gpu->dev.max_threads_per_block)
        return gm_fail(err, GM_ERR_RANGE, "%d threads per block: need a multiple of 32 in 32..%d",
                       threads, gpu->dev.max_threads_per_block);
    if (blocks < 1 || (size_t)blocks * (size_t)threads / 32 > HIST_SINK_WORDS)
        return gm_fail(err, GM_ERR_RANGE, "%d blocks: need 1..%zu at %d threads", blocks,
                       HIST_SINK_WORDS * 32 / (size_t)threads, threads);
    if (hist_kernel_dynamic_shared(k) > gpu->dev.shared_per_block_optin)
        return gm_fail(err, GM_ERR_UNSUPPORTED, "%s needs more shared memory than this GPU has",
                       hist_kernel_table[k].name);
    if (threads > gpu->max_threads[k])
        return gm_fail(err, GM_ERR_UNSUPPORTED, "%s runs at most %d threads per block",
                       hist_kernel_table[k].name, gpu->max_threads[k]);
    if ((st = check_lane_limit(k, pixels, threads, blocks, err)) != GM_OK)
        return st;
    rgba = gpu->d_image;
    hist = gpu->d_hist;
    sink = gpu->d_sink;
    args[0] = &rgba;
    args[1] = &n;
    args[2] = &hist;
    args[3] = &sink;
    grid.x = (unsigned)blocks;
    block.x = (unsigned)threads;
    CUDA_CHECK(cudaMemsetAsync(gpu->d_hist, 0, HIST_TOTAL_BINS * sizeof(uint32_t), gpu->stream));
    CUDA_CHECK(cudaLaunchKernel(hist_kernel_function(k), grid, block, args,
                                hist_kernel_dynamic_shared(k), gpu->stream));
    return GM_OK;
}

gm_status hist_gpu_result(hist_gpu *gpu, uint32_t out[HIST_TOTAL_BINS], gm_error *err)
{
    if (!gpu || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_result");
    CUDA_CHECK(cudaStreamSynchronize(gpu->stream));
    CUDA_CHECK(cudaMemcpy(out, gpu->d_hist, HIST_TOTAL_BINS * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    return GM_OK;
}

/* Elapsed microseconds between the two events after the stop event. */
static gm_status event_us(hist_gpu *gpu, double *us, gm_error *err)
{
    float ms = 0;

    CUDA_CHECK(cudaEventSynchronize(gpu->stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, gpu->start, gpu->stop));
    *us = 1000.0 * ms;
    return GM_OK;
}

gm_status hist_gpu_time(hist_gpu *gpu, hist_kernel_id k, size_t pixels, int threads, int blocks,
                        int warmup, int reps, double *us, gm_error *err)
{
    gm_status st;

    if (!gpu || !us || warmup < 0 || reps < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_time");
    for (int i = 0; i < warmup; i++)
        if ((st = hist_gpu_run(gpu, k, pixels, threads, blocks, err)) != GM_OK)
            return st;
    for (int i = 0; i < reps; i++) {
        if ((st = queue_delay(gpu, err)) != GM_OK)
            return st;
        CUDA_CHECK(cudaEventRecord(gpu->start, gpu->stream));
        if ((st = hist_gpu_run(gpu, k, pixels, threads, blocks, err)) != GM_OK)
            return st;
        CUDA_CHECK(cudaEventRecord(gpu->stop, gpu->stream));
        if ((st = event_us(gpu, &us[i], err)) != GM_OK)
            return st;
    }
    return GM_OK;
}

gm_status hist_gpu_zero_time(hist_gpu *gpu, int warmup, int reps, double *us, gm_error *err)
{
    gm_status st;

    if (!gpu || !us || warmup < 0 || reps < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_zero_time");
    for (int i = 0; i < warmup + reps; i++) {
        if ((st = queue_delay(gpu, err)) != GM_OK)
            return st;
        CUDA_CHECK(cudaEventRecord(gpu->start, gpu->stream));
        CUDA_CHECK(cudaMemsetAsync(gpu->d_hist, 0, HIST_TOTAL_BINS * sizeof(uint32_t),
                                   gpu->stream));
        CUDA_CHECK(cudaEventRecord(gpu->stop, gpu->stream));
        if (i >= warmup && (st = event_us(gpu, &us[i - warmup], err)) != GM_OK)
            return st;
    }
    return GM_OK;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
    double *tmp = malloc((size_t)n * sizeof *tmp), m;

    if (!tmp)
        return v[0];
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, compare_double);
    m = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
    free(tmp);
    return m;
}

gm_status hist_gpu_read_bandwidth(hist_gpu *gpu, size_t pixels, int warmup, int reps,
                                  double *us, uint32_t *checksum, char *shape, size_t shape_len,
                                  gm_error *err)
{
    /* Launch shapes tried; the fastest by median is the "measured DRAM read
     * bandwidth", so the target the fast histogram is held to is the
     * hardest one this probe finds. */
    static const struct { int loads, threads; } shapes[] = {{4, 1024}, {8, 1024}, {8, 512},
                                                            {4, 256}};
    const size_t nshapes = sizeof shapes / sizeof shapes[0];
    unsigned long long words = pixels * HIST_CHANNELS / 16;
    double best = -1.0, *trial = NULL;
    uint32_t *host_sink = NULL;
    gm_status st = GM_OK;

    if (!gpu || !us || !checksum || reps < 1 || warmup < 0 || pixels > gpu->max_pixels ||
        words < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_read_bandwidth");
    trial = malloc((size_t)reps * sizeof *trial);
    host_sink = malloc(HIST_SINK_WORDS * sizeof *host_sink);
    if (!trial || !host_sink) {
        st = gm_fail(err, GM_ERR_NOMEM, "read-bandwidth buffers");
        goto fail;
    }
    for (size_t s = 0; s < nshapes; s++) {
        const void *fn = hist_read_function(shapes[s].loads);
        const uint4 *in = (const uint4 *)gpu->d_image;
        uint32_t *sink = gpu->d_sink, sum = 0;
        void *args[3] = {&in, &words, &sink};
        dim3 grid = {1, 1, 1}, block = {1, 1, 1};
        int per_sm = 0;
        size_t warps;
        double m;

        CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, shapes[s].threads, 0));
        if (per_sm < 1)
            continue;
        grid.x = (unsigned)(per_sm * gpu->dev.sm_count);
        block.x = (unsigned)shapes[s].threads;
        warps = (size_t)grid.x * block.x / 32;
        if (warps > HIST_SINK_WORDS)
            continue;
        for (int i = 0; i < warmup + reps; i++) {
            if ((st = queue_delay(gpu, err)) != GM_OK)
                goto fail;
            CUDA_TRY(cudaEventRecord(gpu->start, gpu->stream));
            CUDA_TRY(cudaLaunchKernel(fn, grid, block, args, 0, gpu->stream));
            CUDA_TRY(cudaEventRecord(gpu->stop, gpu->stream));
            if (i >= warmup && (st = event_us(gpu, &trial[i - warmup], err)) != GM_OK)
                goto fail;
        }
        CUDA_TRY(cudaStreamSynchronize(gpu->stream));
        CUDA_TRY(cudaMemcpy(host_sink, gpu->d_sink, warps * sizeof *host_sink,
                            cudaMemcpyDeviceToHost));
        for (size_t w = 0; w < warps; w++)
            sum ^= host_sink[w];
        m = median_of(trial, reps);
        if (best < 0 || m < best) {
            best = m;
            memcpy(us, trial, (size_t)reps * sizeof *us);
            *checksum = sum;
            if (shape && shape_len)
                snprintf(shape, shape_len, "%u blocks x %u threads, %d x 16-byte loads in flight",
                         grid.x, block.x, shapes[s].loads);
        }
    }
    if (best < 0)
        st = gm_fail(err, GM_ERR_CUDA, "no launch shape of the read probe fits this GPU");
fail:
    free(trial);
    free(host_sink);
    return st;
}

gm_status hist_gpu_copy_bandwidth(hist_gpu *gpu, size_t pixels, int warmup, int reps,
                                  double *us, gm_error *err)
{
    const size_t bytes = pixels * HIST_CHANNELS;
    gm_status st;

    if (!gpu || !us || reps < 1 || warmup < 0 || pixels > gpu->max_pixels)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bad arguments to hist_gpu_copy_bandwidth");
    if (!gpu->d_copy)
        CUDA_CHECK(cudaMalloc((void **)&gpu->d_copy, gpu->image_bytes));
    for (int i = 0; i < warmup + reps; i++) {
        if ((st = queue_delay(gpu, err)) != GM_OK)
            return st;
        CUDA_CHECK(cudaEventRecord(gpu->start, gpu->stream));
        CUDA_CHECK(cudaMemcpyAsync(gpu->d_copy, gpu->d_image, bytes, cudaMemcpyDeviceToDevice,
                                   gpu->stream));
        CUDA_CHECK(cudaEventRecord(gpu->stop, gpu->stream));
        if (i >= warmup && (st = event_us(gpu, &us[i - warmup], err)) != GM_OK)
            return st;
    }
    return GM_OK;
}
