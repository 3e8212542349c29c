/* validate_app running one case: the device, launch shapes, timing with
 * CUDA events, the shared buffers and the checks of each case's result. */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validate_app.h"

/* --------------------------------------------------------------- device */

int vk_device_open(vk_device *dev)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "validate_app: no usable CUDA device (%s): skipped\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "no device");
        return -1;
    }
    cudaDeviceProp prop;
    dev->id = 0;
    VK_CHECK(cudaSetDevice(dev->id));
    VK_CHECK(cudaGetDeviceProperties(&prop, dev->id));
    snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    dev->cc_major = prop.major;
    dev->cc_minor = prop.minor;
    dev->sm_count = prop.multiProcessorCount;
    dev->max_warps_per_sm = prop.maxThreadsPerMultiProcessor / prop.warpSize;
    dev->max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    dev->smem_per_sm = prop.sharedMemPerMultiprocessor;
    dev->smem_reserved_per_block = prop.reservedSharedMemPerBlock;
    dev->smem_optin_per_block = prop.sharedMemPerBlockOptin;
    VK_CHECK(cudaDriverGetVersion(&dev->driver_version));
    VK_CHECK(cudaRuntimeGetVersion(&dev->runtime_version));
    return 0;
}

/* A device without one (--list) lists cases for an H100/H200-like shape. */
void vk_device_default(vk_device *dev)
{
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "(no device: listing for 64 warps and 32 blocks per SM)");
    dev->sm_count = 132;
    dev->max_warps_per_sm = 64;
    dev->max_blocks_per_sm = 32;
}

/* ---------------------------------------------------------- launch shape */

/* The dynamic shared memory that makes exactly `bps` blocks of `kernel`
 * resident per SM (the occupancy knob), found with the occupancy API.
 * Returns 0 and sets *bytes, or -1 when no size gives bps (e.g. registers
 * already limit the SM to fewer blocks). */
static int vk_smem_for_bps(const vk_device *dev, const void *kernel, int threads, int bps,
                           size_t min_bytes, size_t *bytes)
{
    const size_t step = 128;
    VK_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
    VK_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)dev->smem_optin_per_block));
    size_t s = dev->smem_per_sm / (size_t)bps;
    s = s > dev->smem_reserved_per_block ? s - dev->smem_reserved_per_block : 0;
    s = s / step * step;
    if (s > dev->smem_optin_per_block)
        s = dev->smem_optin_per_block / step * step;
    if (s < min_bytes)
        s = min_bytes;
    for (int tries = 0; tries < 4096; tries++) {
        int nb = 0;
        VK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, threads, s));
        if (nb == bps) {
            *bytes = s;
            return 0;
        }
        if (nb > bps) {
            if (s + step > dev->smem_optin_per_block)
                return -1;
            s += step;
        } else {
            if (s < min_bytes + step)
                return -1;
            s -= step;
        }
    }
    return -1;
}

/* Words of shared memory a loop case touches: its atomics' words (see
 * vk_loop_args_for) and, for LDS/STS work, one word per thread behind them. */
static int vk_case_smem_words(const vk_case *c)
{
    int warps = c->threads / 32, atomic_words;
    switch (c->pattern) {
    case VK_PAT_SHARED_WORD: atomic_words = 1; break;
    case VK_PAT_BANK: atomic_words = warps + 31 + 31 * 32; break; /* worst case: 32 ways */
    case VK_PAT_FREE: atomic_words = warps + 32; break;
    default: atomic_words = warps; break;
    }
    if (c->family == VK_FAMILY_HASH)
        return (int)VK_HASH_SLOTS;
    if (c->work == VK_WORK_LDS)
        return VK_LOOP_ATOMIC_WORDS + c->threads;
    return atomic_words;
}

/* 1 if `kernel` runs exactly bps blocks per SM with `bytes` of dynamic
 * shared memory (the twin of a mixed case must share the case's launch). */
static int vk_twin_fits(const vk_device *dev, const void *kernel, int threads, int bps, size_t bytes)
{
    int nb = 0;
    VK_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
    VK_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)dev->smem_optin_per_block));
    VK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, threads, bytes));
    return nb == bps ? 0 : -1;
}

static void vk_loop_args_for(const vk_case *c, const vk_buffers *b, unsigned iters, size_t smem,
                             vk_loop_args *a)
{
    memset(a, 0, sizeof *a);
    a->iters = iters;
    a->e = c->e;
    a->alt_warps = c->alt_warps;
    a->zero = 0u;
    a->fma_mul = 0.999f;
    a->fma_add = 0.5f;
    a->gbuf = b->gbuf;
    a->gmask = VK_GBUF_WORDS - 1u;
    a->gatom = b->gatom;
    a->out = b->out;
    a->smem_words = vk_case_smem_words(c); /* the rest of smem only limits occupancy */
    (void)smem;
    a->warp_stride = 1u;
    a->lane_shift = 5u; /* lane >> 5 == 0: no row term unless a pattern sets one */
    switch (c->pattern) {
    case VK_PAT_SHARED_WORD:
        a->warp_stride = 0u;
        break;
    case VK_PAT_BANK: {
        /* g = 32 / ways lanes per row: lanes l and l + g share a bank, so
         * each bank holds `ways` distinct words of one warp-instruction. */
        unsigned g = 32u / (unsigned)c->bank_ways, shift = 0;
        while ((1u << shift) < g)
            shift++;
        a->lane_mask = g - 1u;
        a->lane_shift = shift;
        a->row_stride = 32u;
        break;
    }
    case VK_PAT_FREE:
        a->lane_mask = 31u;
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------- timing */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double vk_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void vk_launch_once(const vk_launch *L, cudaStream_t stream)
{
    const vk_case *c = L->c;
    if (c->family == VK_FAMILY_LOOP) {
        vk_loop_args a;
        vk_loop_args_for(c, L->b, L->iters, L->smem, &a);
        VK_CHECK(vk_loop_launch(L->kernel, L->blocks, (unsigned)c->threads, L->smem, stream, &a));
    } else if (c->family == VK_FAMILY_CUB) {
        const unsigned *img = c->pattern == VK_PAT_SOLID ? L->b->image_solid : L->b->image_uniform;
        VK_CHECK(vk_cub_run(&L->b->cub, img, VK_IMAGE_PIXELS, stream));
    } else if (c->family == VK_FAMILY_HASH) {
        vk_hash_args h;
        memset(&h, 0, sizeof h);
        h.rounds = L->iters;
        h.slots = VK_HASH_SLOTS;
        h.keys_per_round = VK_HASH_KEYS_PER_ROUND;
        h.seed = 0u;
        h.fail = L->b->sink;
        h.out = L->b->out;
        VK_CHECK(vk_hash_launch(L->kernel, L->blocks, (unsigned)c->threads, L->smem, stream, &h));
    } else {
        vk_hist_args h;
        memset(&h, 0, sizeof h);
        h.image = c->pattern == VK_PAT_SOLID ? L->b->image_solid : L->b->image_uniform;
        h.pixels = VK_IMAGE_PIXELS;
        h.solid_rgba = L->b->solid_rgba;
        h.uniform = c->pattern == VK_PAT_UNIFORM;
        h.hist = L->b->hist;
        h.sink = L->b->sink;
        const void *kern = vk_hist_kernel(c->family == VK_FAMILY_HIST2, c->use_result, L->replay);
        VK_CHECK(vk_hist_launch(kern, L->blocks, (unsigned)c->threads, stream, &h));
    }
    VK_CHECK(cudaGetLastError());
}

static double vk_time_once(const vk_launch *L, vk_timer *t)
{
    float ms = 0.0f;
    VK_CHECK(cudaEventRecord(t->start, t->stream));
    vk_launch_once(L, t->stream);
    VK_CHECK(cudaEventRecord(t->stop, t->stream));
    VK_CHECK(cudaEventSynchronize(t->stop));
    VK_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return 1000.0 * (double)ms;
}

/* Median of n launches after one warm-up. */
static double vk_time_median(const vk_launch *L, vk_timer *t, int n)
{
    double v[16];
    if (n > 16)
        n = 16;
    vk_time_once(L, t);
    for (int i = 0; i < n; i++)
        v[i] = vk_time_once(L, t);
    return vk_median(v, n);
}

/* Loop trips so that L runs about target_us: two rounds of scaling from a
 * short probe (the first round's time includes the launch overhead). */
static unsigned vk_calibrate_iters(vk_launch L, vk_timer *t, double target_us)
{
    unsigned iters = 64;
    for (int round = 0; round < 2; round++) {
        L.iters = iters;
        double us = vk_time_median(&L, t, 3);
        double want = (double)iters * target_us / (us > 1.0 ? us : 1.0);
        if (want < VK_ITERS_MIN)
            want = VK_ITERS_MIN;
        if (want > VK_ITERS_MAX)
            want = VK_ITERS_MAX;
        iters = ((unsigned)want + 3u) & ~3u;
    }
    return iters;
}

/* -------------------------------------------------------------- buffers */

void vk_buffers_create(vk_buffers *b, const vk_device *dev)
{
    memset(b, 0, sizeof *b);
    /* Largest grid: 8 waves of 64 warps per SM. */
    b->out_words = (size_t)8 * (size_t)dev->max_warps_per_sm * 32u * (size_t)dev->sm_count;
    VK_CHECK(cudaMalloc((void **)&b->out, b->out_words * sizeof(unsigned)));
    VK_CHECK(cudaMalloc((void **)&b->gbuf, (size_t)VK_GBUF_WORDS * sizeof(unsigned)));
    VK_CHECK(cudaMemset(b->gbuf, 1, (size_t)VK_GBUF_WORDS * sizeof(unsigned)));
    VK_CHECK(cudaMalloc((void **)&b->gatom, VK_GATOM_WORDS * sizeof(unsigned)));
    VK_CHECK(cudaMemset(b->gatom, 0, VK_GATOM_WORDS * sizeof(unsigned)));
    VK_CHECK(cudaMalloc((void **)&b->hist, 1024 * sizeof(unsigned)));
    VK_CHECK(cudaMalloc((void **)&b->sink, sizeof(unsigned)));

    /* Test images, made on the host so no kernel runs outside the cases. */
    const size_t bytes = (size_t)VK_IMAGE_PIXELS * sizeof(unsigned);
    unsigned *host = (unsigned *)malloc(bytes);
    if (!host) {
        fprintf(stderr, "validate_app: out of host memory for the test images\n");
        exit(VK_EXIT_INPUT);
    }
    b->solid_rgba = 0xFF8040C0u; /* one colour: every pixel, every channel one bin */
    for (unsigned i = 0; i < VK_IMAGE_PIXELS; i++)
        host[i] = b->solid_rgba;
    VK_CHECK(cudaMalloc((void **)&b->image_solid, bytes));
    VK_CHECK(cudaMemcpy(b->image_solid, host, bytes, cudaMemcpyHostToDevice));
    for (unsigned i = 0; i < VK_IMAGE_PIXELS; i++)
        host[i] = vk_pixel_hash(i);
    VK_CHECK(cudaMalloc((void **)&b->image_uniform, bytes));
    VK_CHECK(cudaMemcpy(b->image_uniform, host, bytes, cudaMemcpyHostToDevice));
    free(host);
}

void vk_buffers_release(vk_buffers *b)
{
    if (b->cub_ready)
        vk_cub_release(&b->cub);
    cudaFree(b->out);
    cudaFree(b->gbuf);
    cudaFree(b->gatom);
    cudaFree(b->hist);
    cudaFree(b->sink);
    cudaFree(b->image_solid);
    cudaFree(b->image_uniform);
}

/* The histogram a correct kernel computes, per channel (1024 bins). */
static void vk_expected_hist(const vk_buffers *b, vk_pattern pat, unsigned *want)
{
    memset(want, 0, 1024 * sizeof *want);
    for (unsigned i = 0; i < VK_IMAGE_PIXELS; i++) {
        unsigned px = pat == VK_PAT_SOLID ? b->solid_rgba : vk_pixel_hash(i);
        for (int c = 0; c < 4; c++)
            want[256 * c + ((px >> (8 * c)) & 255u)]++;
    }
}

/* Runs the hash-table case once: every block's final table must hold
 * exactly its keys (the kernel counts them and bumps the fail word). */
static int vk_check_hash(const vk_launch *L, cudaStream_t stream)
{
    unsigned fail = 0;
    VK_CHECK(cudaMemsetAsync(L->b->sink, 0, sizeof(unsigned), stream));
    vk_launch_once(L, stream);
    VK_CHECK(cudaMemcpyAsync(&fail, L->b->sink, sizeof fail, cudaMemcpyDeviceToHost, stream));
    VK_CHECK(cudaStreamSynchronize(stream));
    if (fail) {
        fprintf(stderr, "validate_app: %s: %u blocks' hash tables are wrong\n", L->c->name, fail);
        return -1;
    }
    return 0;
}

/* Runs a real case once and compares its histogram with the host's. */
static int vk_check_real(const vk_launch *L, cudaStream_t stream)
{
    static unsigned want_solid[1024], want_uniform[1024];
    static int have_solid, have_uniform;
    unsigned got[1024];
    const vk_case *c = L->c;
    unsigned *want = c->pattern == VK_PAT_SOLID ? want_solid : want_uniform;
    int *have = c->pattern == VK_PAT_SOLID ? &have_solid : &have_uniform;
    if (!*have) {
        vk_expected_hist(L->b, c->pattern, want);
        *have = 1;
    }
    if (c->family == VK_FAMILY_CUB) {
        vk_launch_once(L, stream);
        VK_CHECK(cudaStreamSynchronize(stream));
        for (int ch = 0; ch < 4; ch++)
            VK_CHECK(cudaMemcpy(got + 256 * ch, L->b->cub.hist[ch], 256 * sizeof(unsigned),
                                cudaMemcpyDeviceToHost));
    } else {
        VK_CHECK(cudaMemsetAsync(L->b->hist, 0, 1024 * sizeof(unsigned), stream));
        vk_launch_once(L, stream);
        VK_CHECK(cudaStreamSynchronize(stream));
        VK_CHECK(cudaMemcpy(got, L->b->hist, sizeof got, cudaMemcpyDeviceToHost));
    }
    for (int i = 0; i < 1024; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "validate_app: %s%s: bin %d is %u, expected %u\n", c->name,
                    L->replay ? " (replay)" : "", i, got[i], want[i]);
            return -1;
        }
    return 0;
}

/* Kernel launches per run of a CUB case, counted by capturing one run into
 * a graph (a profiler lists every one of them).  -1 if capture fails. */
static int vk_count_cub_launches(vk_buffers *b, cudaStream_t stream)
{
    cudaGraph_t graph;
    size_t n = 0, kernels = 0;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        return -1;
    cudaError_t run = vk_cub_run(&b->cub, b->image_solid, VK_IMAGE_PIXELS, stream);
    if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || run != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    VK_CHECK(cudaGraphGetNodes(graph, NULL, &n));
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)calloc(n ? n : 1, sizeof *nodes);
    VK_CHECK(cudaGraphGetNodes(graph, nodes, &n));
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType type;
        VK_CHECK(cudaGraphNodeGetType(nodes[i], &type));
        kernels += type == cudaGraphNodeTypeKernel;
    }
    free(nodes);
    cudaGraphDestroy(graph);
    return (int)kernels;
}

/* ------------------------------------------------------------- one case */

/* Warp-level shared atomics a histogram launch issues: 4 per pixel-trip of
 * each warp, where warp w's lane 0 (its longest-running lane) makes
 * ceil((pixels - 32 w) / stride) trips. */
static double vk_hist_atoms(unsigned blocks, unsigned threads)
{
    const double stride = (double)blocks * threads;
    double total = 0.0;
    for (unsigned w = 0; w < blocks * threads / 32u; w++) {
        double first = 32.0 * w;
        if (first < VK_IMAGE_PIXELS)
            total += ceil(((double)VK_IMAGE_PIXELS - first) / stride);
    }
    return 4.0 * total;
}

static int vk_iters_lookup(const vk_iters_table *t, const char *name, unsigned *iters)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->names[i], name) == 0) {
            *iters = t->iters[i];
            return 0;
        }
    return -1;
}

/* Runs one case; returns 0, or -1 when it cannot run on this device (the
 * reason is on stderr).  CUDA errors exit. */
int vk_run_case(const vk_case *c, const vk_device *dev, vk_buffers *b, vk_timer *t,
                const vk_options *opt, const vk_iters_table *iters_from, vk_result *r)
{
    memset(r, 0, sizeof *r);
    r->a_med = r->a_min = r->a_max = NAN;
    r->f_med = NAN;
    r->t_med = r->t_min = r->t_max = NAN;
    r->n_atom_expected = NAN;
    r->launches = 1;

    vk_launch L;
    const void *twin_kernel = NULL;
    memset(&L, 0, sizeof L);
    L.c = c;
    L.dev = dev;
    L.b = b;

    if (c->family == VK_FAMILY_HASH) {
        L.kernel = vk_hash_kernel(c->op == VK_OP_CAS ? 1 : 2);
        size_t need = (size_t)VK_HASH_SLOTS * sizeof(unsigned);
        if (vk_smem_for_bps(dev, L.kernel, c->threads, c->blocks_per_sm, need, &L.smem) != 0 ||
            vk_twin_fits(dev, vk_hash_kernel(0), c->threads, c->blocks_per_sm, L.smem) != 0) {
            fprintf(stderr, "validate_app: %s: skipped: no shared-memory size gives %d blocks of %d "
                            "threads per SM\n", c->name, c->blocks_per_sm, c->threads);
            return -1;
        }
        L.blocks = (unsigned)(c->blocks_per_sm * dev->sm_count);
    } else if (c->family == VK_FAMILY_LOOP) {
        /* k = 0 is the atomics-only kernel (no work compiled in). */
        L.kernel = vk_loop_kernel(c->op, c->chain, c->k ? c->work : VK_WORK_NONE, c->k);
        twin_kernel = vk_loop_kernel(c->op, c->chain, VK_WORK_NONE, 0);
        if (!L.kernel || (c->group == VK_GROUP_MIXED && !twin_kernel)) {
            fprintf(stderr, "validate_app: %s: (op, chain, work, k) not compiled (bug: add it to "
                            "VK_LOOP_VARIANTS)\n", c->name);
            return -1;
        }
        size_t need = (size_t)vk_case_smem_words(c) * sizeof(unsigned);
        if (vk_smem_for_bps(dev, L.kernel, c->threads, c->blocks_per_sm, need, &L.smem) != 0) {
            fprintf(stderr, "validate_app: %s: skipped: no shared-memory size gives %d blocks of %d "
                            "threads per SM\n", c->name, c->blocks_per_sm, c->threads);
            return -1;
        }
        if (c->group == VK_GROUP_MIXED && vk_twin_fits(dev, twin_kernel, c->threads, c->blocks_per_sm,
                                                       L.smem) != 0) {
            fprintf(stderr, "validate_app: %s: skipped: its atomics-only twin does not run %d blocks "
                            "per SM with the same launch\n", c->name, c->blocks_per_sm);
            return -1;
        }
        L.blocks = (unsigned)(c->waves * c->blocks_per_sm * dev->sm_count);
    } else if (c->family == VK_FAMILY_CUB) {
        if (!b->cub_ready) {
            VK_CHECK(vk_cub_prepare(&b->cub, b->image_solid, VK_IMAGE_PIXELS));
            b->cub_ready = 1;
        }
        L.blocks = 0;
        r->launches = vk_count_cub_launches(b, t->stream);
    } else {
        L.blocks = (unsigned)dev->sm_count; /* one block per SM, as in the paper's case study */
    }
    r->blocks = L.blocks;
    r->smem_bytes = L.smem;

    if (c->family == VK_FAMILY_LOOP || c->family == VK_FAMILY_HASH) {
        if (iters_from) {
            if (vk_iters_lookup(iters_from, c->name, &L.iters) != 0) {
                fprintf(stderr, "validate_app: %s: not in --iters-from file: skipped\n", c->name);
                return -1;
            }
        } else {
            L.iters = vk_calibrate_iters(L, t, opt->target_us);
            if (c->group == VK_GROUP_MIXED && c->k > 0) {
                /* The twin must not be so short that launch overhead shows,
                 * nor the case so long that a sweep takes minutes: a twin
                 * below VK_TWIN_MIN_US only happens where U_true is tiny. */
                vk_launch twin = L;
                twin.kernel = twin_kernel;
                unsigned twin_iters = vk_calibrate_iters(twin, t, VK_TWIN_MIN_US);
                unsigned case_max = (unsigned)((double)L.iters * VK_CASE_MAX_US / opt->target_us);
                if (twin_iters > L.iters)
                    L.iters = twin_iters < case_max ? twin_iters : case_max;
            }
        }
        r->iters = L.iters;
        if (c->family == VK_FAMILY_HASH) /* the probe count depends on the CAS results */
            r->n_atom_expected = c->op == VK_OP_CAS ? NAN : 0.0;
        else if (c->op != VK_OP_NONE)
            r->n_atom_expected = (double)L.blocks * (c->threads / 32) * (double)L.iters;
        else
            r->n_atom_expected = 0.0;
    } else {
        r->iters = VK_IMAGE_PIXELS;
        if (c->family != VK_FAMILY_CUB)
            r->n_atom_expected = vk_hist_atoms(L.blocks, (unsigned)c->threads);
    }

    if (opt->profile) {
        vk_launch_once(&L, t->stream);
        VK_CHECK(cudaStreamSynchronize(t->stream));
        return 0;
    }

    /* The atomics-only twin: same launch, same atomic stream, no other work
     * (mixed: k = 0; histograms: the replay kernel). */
    int has_twin = (c->group == VK_GROUP_MIXED) || c->family == VK_FAMILY_HIST || c->family == VK_FAMILY_HIST2;
    vk_launch twin = L;
    twin.replay = 1;
    if (twin_kernel)
        twin.kernel = twin_kernel;
    if (c->family == VK_FAMILY_HASH && c->op == VK_OP_CAS && vk_check_hash(&L, t->stream) != 0)
        return -2;
    if (c->group == VK_GROUP_REAL) {
        if (vk_check_real(&L, t->stream) != 0)
            return -2;
        if (has_twin && vk_check_real(&twin, t->stream) != 0)
            return -2;
    }

    for (int i = 0; i < opt->warmup; i++) {
        vk_time_once(&L, t);
        if (has_twin)
            vk_time_once(&twin, t);
    }
    double tv[64], av[64];
    int reps = opt->reps > 64 ? 64 : opt->reps;
    for (int i = 0; i < reps; i++) {
        tv[i] = vk_time_once(&L, t);
        if (has_twin)
            av[i] = vk_time_once(&twin, t);
    }
    if (c->family == VK_FAMILY_HASH) {
        /* The twin without probing (same clears, keys, hashes), alternating
         * with the case like the atomics-only twins above. */
        vk_launch bare = L;
        bare.kernel = vk_hash_kernel(0);
        double fv[64];
        vk_time_once(&bare, t);
        for (int i = 0; i < reps; i++) {
            vk_time_once(&L, t);
            fv[i] = vk_time_once(&bare, t);
        }
        r->f_med = vk_median(fv, reps);
    }
    r->reps = reps;
    r->t_med = vk_median(tv, reps); /* sorts tv */
    r->t_min = tv[0];
    r->t_max = tv[reps - 1];
    if (has_twin) {
        r->a_med = vk_median(av, reps);
        r->a_min = av[0];
        r->a_max = av[reps - 1];
    }
    return 0;
}
