/* validate_app: runs the validation cases (vk.h) and prints one CSV line per
 * case with its launch shape, its atomic instruction stream and its time.
 *
 *   validate_app --list                      the case table, no GPU work
 *   validate_app [--group G] [--case NAME]   time the selected cases (all by default)
 *   validate_app --profile --iters-from CSV  one launch per case, nothing else,
 *                                            for ncu / gpuq profile (run.sh)
 *
 * Timing: CUDA events around each launch; per case a calibration sizes the
 * loop so the kernel runs about --target-us, then --warmup launches, then
 * --reps launches (median, min, max).  Mixed cases time their atomics-only
 * twin (same kernel, same launch, k = 0) interleaved with the case, so clock
 * drift hits both alike; histogram cases time their replay the same way.
 *
 * Exit codes: 0 ok, 1 usage, 2 input error, 3 CUDA error, 77 no GPU.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vk.h"

#define VK_EXIT_USAGE 1
#define VK_EXIT_INPUT 2
#define VK_EXIT_CUDA 3
#define VK_EXIT_NO_GPU 77

#define VK_CHECK(call)                                                                       \
    do {                                                                                     \
        cudaError_t vk_err_ = (call);                                                        \
        if (vk_err_ != cudaSuccess) {                                                        \
            fprintf(stderr, "validate_app: %s failed at %s:%d (%s)\n", #call, __FILE__,      \
                    __LINE__, cudaGetErrorString(vk_err_));                                  \
            exit(VK_EXIT_CUDA);                                                              \
        }                                                                                    \
    } while (0)

/* Sizes.  The histogram image: 32 Mpixel RGBA (128 MiB) puts the paper's
 * kernels at roughly 0.1-0.6 ms on an H200 (hopper-probe.md has 4 Mpixel at
 * 12-75 us).  The load buffer is 256 MiB, five times an H200's 50 MiB L2. */
#define VK_IMAGE_PIXELS (1u << 25)
#define VK_GBUF_WORDS (1u << 26)
#define VK_GATOM_WORDS 1024
#define VK_ITERS_MIN 16u
#define VK_ITERS_MAX (1u << 24)
#define VK_TWIN_MIN_US 100.0  /* an atomics-only twin shorter than this is lengthened, */
#define VK_CASE_MAX_US 2000.0 /* unless that pushes the case itself past this */

typedef struct vk_device {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int max_warps_per_sm;
    int max_blocks_per_sm;
    size_t smem_per_sm, smem_reserved_per_block, smem_optin_per_block;
    int driver_version, runtime_version;
} vk_device;

typedef struct vk_options {
    int list, profile;
    int reps, warmup;
    double target_us;
    const char *iters_from;
    char **names;
    int n_names;
    char **groups;
    int n_groups;
} vk_options;

/* Per-case run results. */
typedef struct vk_result {
    unsigned blocks;
    size_t smem_bytes;
    unsigned iters;
    double t_med, t_min, t_max;      /* the case, microseconds */
    double a_med, a_min, a_max;      /* its atomics-only twin; NAN where none */
    double f_med;                    /* hash table: its twin without probing; NAN elsewhere */
    int reps;
    double n_atom_expected;          /* warp-level shared atomics by construction; NAN unknown */
    int launches;                    /* kernel launches per run of the case */
} vk_result;

/* Shared device buffers, created once (cudaMalloc/cudaMemcpy/cudaMemset only:
 * no kernel launch happens outside the cases, so that a profiler's launch
 * list maps one to one onto the case list). */
typedef struct vk_buffers {
    unsigned *gbuf, *gatom, *out;
    size_t out_words;
    unsigned *image_solid, *image_uniform;
    unsigned *hist, *sink;
    unsigned solid_rgba;
    vk_cub_state cub;
    int cub_ready;
} vk_buffers;

static const char *const group_names[VK_GROUP_COUNT] = {"atomic", "free", "mixed", "real"};
static const char *const op_names[VK_OP_COUNT] = {"none", "add", "popc_inc", "cas", "add+cas",
                                                  "popc_inc+add"};
static const char *const work_names[VK_WORK_COUNT] = {"none", "fma", "gload", "lds_sts", "red_global"};
static const char *const family_kernels[VK_FAMILY_COUNT] = {"vk_loop", "vk_hist", "vk_hist",
                                                           "DeviceHistogram", "vk_hash"};

static void vk_pattern_name(const vk_case *c, char *buf, size_t len)
{
    switch (c->pattern) {
    case VK_PAT_NONE: snprintf(buf, len, "none"); break;
    case VK_PAT_SAME: snprintf(buf, len, "same_address"); break;
    case VK_PAT_SHARED_WORD: snprintf(buf, len, "shared_word"); break;
    case VK_PAT_BANK: snprintf(buf, len, "bank%d", c->bank_ways); break;
    case VK_PAT_FREE: snprintf(buf, len, "conflict_free"); break;
    case VK_PAT_SOLID: snprintf(buf, len, "solid"); break;
    case VK_PAT_UNIFORM: snprintf(buf, len, "uniform"); break;
    case VK_PAT_HASH: snprintf(buf, len, "hash"); break;
    default: snprintf(buf, len, "?"); break;
    }
}

/* ---------------------------------------------------------------- cases */

typedef struct vk_case_list {
    vk_case *v;
    int n, cap;
} vk_case_list;

static void vk_push(vk_case_list *l, const vk_device *dev, vk_case c)
{
    /* Limits read off the device: shapes it cannot hold are left out. */
    if (c.family == VK_FAMILY_LOOP &&
        ((c.threads / 32) * c.blocks_per_sm > dev->max_warps_per_sm || c.blocks_per_sm > dev->max_blocks_per_sm))
        return;
    char pat[32];
    vk_pattern_name(&c, pat, sizeof pat);
    if (c.family == VK_FAMILY_LOOP) {
        int n = snprintf(c.name, sizeof c.name, "%s_%s_e%d_t%dx%d", op_names[c.op], pat, c.e, c.threads,
                         c.blocks_per_sm);
        if (c.op == VK_OP_NONE)
            n = snprintf(c.name, sizeof c.name, "%s%d_t%dx%d", work_names[c.work], c.k, c.threads,
                         c.blocks_per_sm);
        if (c.alt_warps)
            n += snprintf(c.name + n, sizeof c.name - n, "_alt%d", c.alt_warps);
        if (c.chain)
            n += snprintf(c.name + n, sizeof c.name - n, "_chain");
        if (c.waves > 1)
            n += snprintf(c.name + n, sizeof c.name - n, "_w%d", c.waves);
        if (c.group == VK_GROUP_MIXED)
            snprintf(c.name + n, sizeof c.name - n, "_%s%d", work_names[c.work], c.k);
    } else if (c.family == VK_FAMILY_CUB) {
        snprintf(c.name, sizeof c.name, "cub_%s", pat);
    } else if (c.family == VK_FAMILY_HASH) {
        snprintf(c.name, sizeof c.name, "hash_%s_t%dx%d", c.op == VK_OP_CAS ? "cas" : "lds_sts",
                 c.threads, c.blocks_per_sm);
    } else {
        snprintf(c.name, sizeof c.name, "%s_%s_%s_t%d", c.family == VK_FAMILY_HIST ? "hist" : "hist2",
                 c.use_result ? "add" : "popc_inc", pat, c.threads);
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = (vk_case *)realloc(l->v, (size_t)l->cap * sizeof *l->v);
        if (!l->v) {
            fprintf(stderr, "validate_app: out of memory\n");
            exit(VK_EXIT_INPUT);
        }
    }
    l->v[l->n++] = c;
}

static vk_case vk_loop_case(vk_group g, vk_op op, vk_pattern pat, int e, int threads, int bps)
{
    vk_case c;
    memset(&c, 0, sizeof c);
    c.group = g;
    c.family = VK_FAMILY_LOOP;
    c.op = op;
    c.pattern = pat;
    c.e = e;
    c.threads = threads;
    c.blocks_per_sm = bps;
    c.waves = 1;
    return c;
}

/* The case table: sweeps of the issue's four groups. */
static void vk_build_cases(const vk_device *dev, vk_case_list *l)
{
    static const vk_op pure_ops[] = {VK_OP_ADD, VK_OP_POPC, VK_OP_CAS};
    static const struct { int threads, bps; } occupancy[] = {
        {32, 1}, {32, 2}, {32, 4}, {32, 8}, {32, 16}, {32, 32}, {64, 1}, {64, 4}, {64, 16}, {64, 32},
        {128, 1}, {128, 2}, {128, 4}, {128, 8}, {128, 16}, {256, 1}, {256, 3}, {256, 4}, {256, 8},
        {384, 1}, {384, 2}, {384, 4}, {384, 5}, {1024, 1}, {1024, 2}};
    static const struct { int threads, bps; } many_waves[] = {
        {32, 1}, {32, 8}, {128, 1}, {128, 4}, {128, 16}, {1024, 1}, {1024, 2}};
    static const struct { int threads, bps; } three_levels[] = {{256, 1}, {256, 4}, {1024, 2}};
    const int n_occ = (int)(sizeof occupancy / sizeof occupancy[0]);
    const int n_waves = (int)(sizeof many_waves / sizeof many_waves[0]);

    /* 1. Atomic-bound.  Occupancy: warps per SM 1..64 from several block
     * shapes, one wave and eight waves. */
    for (int o = 0; o < 3; o++) {
        for (int s = 0; s < n_occ; s++)
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                         occupancy[s].threads, occupancy[s].bps));
        for (int s = 0; s < n_waves; s++) {
            vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                     many_waves[s].threads, many_waves[s].bps);
            c.waves = 8;
            vk_push(l, dev, c);
        }
    }
    /* Active lanes e (e = 32 is in the occupancy sweep). */
    for (int o = 0; o < 3; o++)
        for (int e = 1; e < 32; e *= 2)
            for (int s = 0; s < 3; s++)
                vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, e,
                                             three_levels[s].threads, three_levels[s].bps));
    /* Conflict patterns: one word per block, k-way bank conflicts, conflict-free. */
    for (int o = 0; o < 3; o++) {
        for (int s = 0; s < 2; s++) {
            int t = three_levels[s].threads, b = three_levels[s].bps;
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SHARED_WORD, 32, t, b));
            for (int ways = 2; ways <= 32; ways *= 2) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_BANK, 32, t, b);
                c.bank_ways = ways;
                vk_push(l, dev, c);
            }
            vk_push(l, dev, vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_FREE, 32, t, b));
        }
    }
    /* Job mix: c CAS warps out of n (the paper's c, Sec. 3.1), and
     * POPC.INC with ADD. */
    static const struct { int threads, bps; } mix_shapes[] = {{256, 1}, {1024, 1}, {1024, 2}};
    for (int s = 0; s < 3; s++) {
        int warps = mix_shapes[s].threads / 32;
        int alts[] = {warps / 8, warps / 4, warps / 2, 3 * warps / 4};
        for (int e = 1; e <= 32; e += 31)
            for (int a = 0; a < 4; a++) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_MIX_ADD_CAS, VK_PAT_SAME, e,
                                         mix_shapes[s].threads, mix_shapes[s].bps);
                c.alt_warps = alts[a];
                vk_push(l, dev, c);
            }
        if (s > 0)
            for (int a = 1; a < 4; a++) {
                vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_MIX_POPC_ADD, VK_PAT_SAME, 32,
                                         mix_shapes[s].threads, mix_shapes[s].bps);
                c.alt_warps = alts[a];
                vk_push(l, dev, c);
            }
    }
    /* Dependent chains: one atomic in flight per warp. */
    static const struct { int threads, bps; } chain_shapes[] = {{32, 1}, {128, 1}, {128, 4}, {1024, 2}};
    for (int o = 0; o < 3; o += 2)
        for (int s = 0; s < 4; s++) {
            vk_case c = vk_loop_case(VK_GROUP_ATOMIC, pure_ops[o], VK_PAT_SAME, 32,
                                     chain_shapes[s].threads, chain_shapes[s].bps);
            c.chain = 1;
            vk_push(l, dev, c);
        }
    for (int s = 0; s < 4; s += 3) {
        vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_ADD, VK_PAT_SAME, 1, chain_shapes[s].threads,
                                 chain_shapes[s].bps);
        c.chain = 1;
        vk_push(l, dev, c);
    }
    /* A shared-memory hash table: CAS inserts with linear probing, one
     * block of 512 threads per SM, each thread waiting for its CAS (hash.cu). */
    {
        vk_case c = vk_loop_case(VK_GROUP_ATOMIC, VK_OP_CAS, VK_PAT_HASH, 32, 512, 1);
        c.family = VK_FAMILY_HASH;
        c.chain = 1;
        vk_push(l, dev, c);
    }

    /* 2. Atomic-free: true U = 0. */
    static const struct { vk_work work; int k; } free_work[] = {
        {VK_WORK_FMA, 16}, {VK_WORK_GLOAD, 4}, {VK_WORK_LDS, 4}, {VK_WORK_REDG, 1}};
    for (int w = 0; w < 4; w++)
        for (int s = 0; s < 3; s++) {
            vk_case c = vk_loop_case(VK_GROUP_FREE, VK_OP_NONE, VK_PAT_NONE, 32, three_levels[s].threads,
                                     three_levels[s].bps);
            c.work = free_work[w].work;
            c.k = free_work[w].k;
            vk_push(l, dev, c);
        }
    /* The hash table probed with plain LDS/STS: the atomic case's control
     * flow without atomics. */
    {
        vk_case c = vk_loop_case(VK_GROUP_FREE, VK_OP_NONE, VK_PAT_HASH, 32, 512, 1);
        c.family = VK_FAMILY_HASH;
        c.chain = 1;
        vk_push(l, dev, c);
    }

    /* 3. Mixed: k units of independent work per atomic, k from 0 until the
     * atomics stop mattering. */
    static const struct { vk_op op; vk_pattern pat; vk_work work; int k_max; int n_shapes; } mixed[] = {
        {VK_OP_ADD, VK_PAT_SAME, VK_WORK_FMA, 256, 3},   {VK_OP_ADD, VK_PAT_SAME, VK_WORK_GLOAD, 32, 3},
        {VK_OP_POPC, VK_PAT_SAME, VK_WORK_FMA, 128, 2},  {VK_OP_POPC, VK_PAT_SAME, VK_WORK_GLOAD, 8, 2},
        {VK_OP_CAS, VK_PAT_SAME, VK_WORK_FMA, 512, -1},  {VK_OP_ADD, VK_PAT_FREE, VK_WORK_FMA, 128, -1}};
    /* k = 0 (the atomics-only kernel itself, U_true = 1 up to noise) once
     * per (op, pattern, shape): in its FMA series, which every load series
     * has beside it. */
    for (int m = 0; m < (int)(sizeof mixed / sizeof mixed[0]); m++) {
        /* n_shapes = -1: only the middle level (256 x 4, 32 warps per SM). */
        int s0 = mixed[m].n_shapes < 0 ? 1 : 0;
        int s1 = mixed[m].n_shapes < 0 ? 2 : mixed[m].n_shapes;
        for (int s = s0; s < s1; s++)
            for (int k = 0; k <= mixed[m].k_max; k = k ? 2 * k : 1) {
                if (k == 0 && mixed[m].work != VK_WORK_FMA)
                    continue;
                vk_case c = vk_loop_case(VK_GROUP_MIXED, mixed[m].op, mixed[m].pat, 32,
                                         three_levels[s].threads, three_levels[s].bps);
                c.work = mixed[m].work;
                c.k = k;
                vk_push(l, dev, c);
            }
    }

    /* 4. Real kernels: the paper's histograms (Sec. 4) on a solid and a
     * uniform image, 256 and 1024 threads, one block per SM; CUB last. */
    for (int f = VK_FAMILY_HIST; f <= VK_FAMILY_HIST2; f++)
        for (int r = 0; r < 2; r++)
            for (int p = VK_PAT_SOLID; p <= VK_PAT_UNIFORM; p++)
                for (int t = 256; t <= 1024; t *= 4) {
                    vk_case c;
                    memset(&c, 0, sizeof c);
                    c.group = VK_GROUP_REAL;
                    c.family = (vk_family)f;
                    c.op = r ? VK_OP_ADD : VK_OP_POPC;
                    c.use_result = r;
                    c.pattern = (vk_pattern)p;
                    c.e = 32;
                    c.threads = t;
                    c.blocks_per_sm = 1;
                    c.waves = 1;
                    vk_push(l, dev, c);
                }
    for (int p = VK_PAT_SOLID; p <= VK_PAT_UNIFORM; p++) {
        vk_case c;
        memset(&c, 0, sizeof c);
        c.group = VK_GROUP_REAL;
        c.family = VK_FAMILY_CUB;
        c.op = VK_OP_ADD;
        c.pattern = (vk_pattern)p;
        c.e = 32;
        vk_push(l, dev, c);
    }

    for (int i = 0; i < l->n; i++)
        for (int j = i + 1; j < l->n; j++)
            if (strcmp(l->v[i].name, l->v[j].name) == 0) {
                fprintf(stderr, "validate_app: duplicate case name '%s' (bug in vk_build_cases)\n",
                        l->v[i].name);
                exit(VK_EXIT_INPUT);
            }
}

/* --------------------------------------------------------------- device */

static int vk_device_open(vk_device *dev)
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
static void vk_device_default(vk_device *dev)
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

typedef struct vk_timer {
    cudaStream_t stream;
    cudaEvent_t start, stop;
} vk_timer;

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

/* What one timed launch runs. */
typedef struct vk_launch {
    const vk_case *c;
    const vk_device *dev;
    vk_buffers *b;
    const void *kernel;
    unsigned blocks;
    size_t smem;
    unsigned iters;
    int replay;   /* histograms: the replay kernel */
} vk_launch;

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

static void vk_buffers_create(vk_buffers *b, const vk_device *dev)
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

static void vk_buffers_release(vk_buffers *b)
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

typedef struct vk_iters_table {
    char **names;
    unsigned *iters;
    int n;
} vk_iters_table;

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
static int vk_run_case(const vk_case *c, const vk_device *dev, vk_buffers *b, vk_timer *t,
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

/* ---------------------------------------------------------------- output */

static const char *const csv_header =
    "group,name,blocks,threads,op,pattern,e,k,time_us,atomics_only_us,time_min_us,time_max_us,"
    "atomics_only_min_us,atomics_only_max_us,reps,iters,work,chain,blocks_per_sm,warps_per_sm,waves,"
    "alt_warps,cas_warps_per_sm,smem_bytes,n_atom_expected,launches,kernel,no_probe_us";

static void vk_fmt(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        buf[0] = '\0';
    else
        snprintf(buf, len, fmt, v);
}

static void vk_print_row(const vk_case *c, const vk_result *r)
{
    char pat[32], t[6][32], n_atom[32], bare[32];
    vk_pattern_name(c, pat, sizeof pat);
    vk_fmt(t[0], sizeof t[0], r->t_med, "%.2f");
    vk_fmt(t[1], sizeof t[1], r->a_med, "%.2f");
    vk_fmt(t[2], sizeof t[2], r->t_min, "%.2f");
    vk_fmt(t[3], sizeof t[3], r->t_max, "%.2f");
    vk_fmt(t[4], sizeof t[4], r->a_min, "%.2f");
    vk_fmt(t[5], sizeof t[5], r->a_max, "%.2f");
    vk_fmt(n_atom, sizeof n_atom, r->n_atom_expected, "%.0f");
    vk_fmt(bare, sizeof bare, r->f_med, "%.2f");
    char launches[16] = "";
    if (r->launches >= 0) /* -1: unknown (a CUB run could not be captured) */
        snprintf(launches, sizeof launches, "%d", r->launches);
    int warps_per_sm = c->family == VK_FAMILY_CUB ? 0 : (c->threads / 32) * c->blocks_per_sm;
    int cas_warps = 0;
    if (c->op == VK_OP_CAS)
        cas_warps = warps_per_sm;
    else if (c->op == VK_OP_MIX_ADD_CAS)
        cas_warps = c->alt_warps * c->blocks_per_sm;
    printf("%s,%s,%u,%d,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%d,%u,%s,%d,%d,%d,%d,%d,%d,%zu,%s,%s,%s,%s\n",
           group_names[c->group], c->name, r->blocks, c->threads,
           c->family == VK_FAMILY_CUB ? "cub_internal" : op_names[c->op], pat, c->e, c->k, t[0],
           t[1], t[2], t[3], t[4], t[5], r->reps, r->iters, work_names[c->work], c->chain,
           c->blocks_per_sm, warps_per_sm, c->waves, c->alt_warps, cas_warps, r->smem_bytes, n_atom,
           launches, family_kernels[c->family], bare);
    fflush(stdout);
}

static void vk_print_meta(const vk_device *dev, const vk_options *opt, int argc, char **argv)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("# gpuq validation cases v1\n");
    printf("# device: %s\n", dev->name);
    printf("# compute_capability: %d.%d\n", dev->cc_major, dev->cc_minor);
    printf("# sm_count: %d\n# max_warps_per_sm: %d\n# max_blocks_per_sm: %d\n", dev->sm_count,
           dev->max_warps_per_sm, dev->max_blocks_per_sm);
    printf("# driver_version: %d\n# runtime_version: %d\n", dev->driver_version, dev->runtime_version);
    printf("# date: %s\n", date);
    if (opt->list)
        printf("# mode: list\n");
    else if (opt->profile)
        printf("# mode: profile (one launch per case, iterations from %s)\n", opt->iters_from);
    else
        printf("# mode: timing (CUDA events; %d warm-up, median of %d; target %.0f us)\n", opt->warmup,
               opt->reps, opt->target_us);
    printf("# command:");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n%s\n", csv_header);
}

/* ------------------------------------------------------------------ CLI */

static void vk_usage(FILE *out)
{
    fprintf(out,
            "usage: validate_app [--list] [--group G]... [--case NAME]... [options]\n"
            "\n"
            "Runs gpuq's validation kernels (docs/validation.md) and prints one CSV line\n"
            "per case: launch shape, atomic instruction stream, time in microseconds.\n"
            "\n"
            "  --list            print the case table (no GPU work)\n"
            "  --group G         run the cases of group G: atomic, free, mixed, real\n"
            "  --case NAME       run case NAME (repeatable; comma-separated list allowed)\n"
            "  --reps N          timed launches per case, median reported (default 7)\n"
            "  --warmup N        untimed launches first (default 2)\n"
            "  --target-us T     loop sizing: kernel time to aim for (default 400)\n"
            "  --profile         one launch per case and nothing else (for ncu, gpuq profile)\n"
            "  --iters-from CSV  loop trips per case from an earlier timing run (needed by --profile)\n"
            "  --help            this text\n"
            "\n"
            "exit codes: 0 ok, 1 usage, 2 input error, 3 CUDA error, 77 no GPU\n");
}

static long vk_parse_long(const char *opt, const char *v, long lo, long hi)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!end || *end || x < lo || x > hi) {
        fprintf(stderr, "validate_app: %s: '%s' is not a number in %ld..%ld (try --help)\n", opt, v, lo, hi);
        exit(VK_EXIT_USAGE);
    }
    return x;
}

static void vk_add_names(char ***list, int *n, char *arg)
{
    for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
        *list = (char **)realloc(*list, (size_t)(*n + 1) * sizeof **list);
        if (!*list)
            exit(VK_EXIT_INPUT);
        (*list)[(*n)++] = tok;
    }
}

/* Reads `name` and `iters` columns of a timing CSV written by this program. */
static int vk_iters_load(const char *path, vk_iters_table *t)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int name_col = -1, iters_col = -1;
    memset(t, 0, sizeof *t);
    if (!f) {
        fprintf(stderr, "validate_app: --iters-from: cannot open '%s'\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *fields[64];
        int nf = 0;
        for (char *p = line; nf < 64;) {
            fields[nf++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
        }
        if (name_col < 0) {
            for (int i = 0; i < nf; i++) {
                if (strcmp(fields[i], "name") == 0)
                    name_col = i;
                if (strcmp(fields[i], "iters") == 0)
                    iters_col = i;
            }
            if (name_col < 0 || iters_col < 0) {
                fprintf(stderr, "validate_app: --iters-from: '%s' has no name/iters header\n", path);
                fclose(f);
                return -1;
            }
            continue;
        }
        if (nf <= name_col || nf <= iters_col)
            continue;
        t->names = (char **)realloc(t->names, (size_t)(t->n + 1) * sizeof *t->names);
        t->iters = (unsigned *)realloc(t->iters, (size_t)(t->n + 1) * sizeof *t->iters);
        if (!t->names || !t->iters)
            exit(VK_EXIT_INPUT);
        t->names[t->n] = strdup(fields[name_col]);
        t->iters[t->n] = (unsigned)strtoul(fields[iters_col], NULL, 10);
        t->n++;
    }
    fclose(f);
    return 0;
}

static int vk_selected(const vk_case *c, const vk_options *opt)
{
    if (opt->n_names == 0 && opt->n_groups == 0)
        return 1;
    for (int i = 0; i < opt->n_names; i++)
        if (strcmp(opt->names[i], c->name) == 0)
            return 1;
    for (int i = 0; i < opt->n_groups; i++)
        if (strcmp(opt->groups[i], group_names[c->group]) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    vk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.reps = 7;
    opt.warmup = 2;
    opt.target_us = 400.0;
    static const struct option longopts[] = {
        {"list", no_argument, NULL, 'l'},         {"group", required_argument, NULL, 'g'},
        {"case", required_argument, NULL, 'c'},   {"reps", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'}, {"target-us", required_argument, NULL, 't'},
        {"profile", no_argument, NULL, 'p'},      {"iters-from", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'l': opt.list = 1; break;
        case 'g': vk_add_names(&opt.groups, &opt.n_groups, optarg); break;
        case 'c': vk_add_names(&opt.names, &opt.n_names, optarg); break;
        case 'r': opt.reps = (int)vk_parse_long("--reps", optarg, 1, 64); break;
        case 'w': opt.warmup = (int)vk_parse_long("--warmup", optarg, 0, 100); break;
        case 't': opt.target_us = (double)vk_parse_long("--target-us", optarg, 10, 100000); break;
        case 'p': opt.profile = 1; break;
        case 'i': opt.iters_from = optarg; break;
        case 'h': vk_usage(stdout); return 0;
        default: vk_usage(stderr); return VK_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "validate_app: unexpected argument '%s' (try --help)\n", argv[optind]);
        return VK_EXIT_USAGE;
    }
    if (opt.profile && !opt.iters_from) {
        fprintf(stderr, "validate_app: --profile needs --iters-from (a timing CSV), so that the "
                        "profiled launches are the timed ones (try --help)\n");
        return VK_EXIT_USAGE;
    }
    for (int i = 0; i < opt.n_groups; i++) {
        int known = 0;
        for (int g = 0; g < VK_GROUP_COUNT; g++)
            known |= strcmp(opt.groups[i], group_names[g]) == 0;
        if (!known) {
            fprintf(stderr, "validate_app: --group: unknown group '%s' (atomic, free, mixed, real)\n",
                    opt.groups[i]);
            return VK_EXIT_USAGE;
        }
    }

    vk_device dev;
    memset(&dev, 0, sizeof dev);
    if (opt.list) {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || vk_device_open(&dev) != 0)
            vk_device_default(&dev);
    } else if (vk_device_open(&dev) != 0) {
        return VK_EXIT_NO_GPU;
    }

    vk_case_list cases = {NULL, 0, 0};
    vk_build_cases(&dev, &cases);
    for (int i = 0; i < opt.n_names; i++) {
        int found = 0;
        for (int j = 0; j < cases.n; j++)
            found |= strcmp(opt.names[i], cases.v[j].name) == 0;
        if (!found) {
            fprintf(stderr, "validate_app: --case: no case named '%s' on this device (see --list)\n",
                    opt.names[i]);
            return VK_EXIT_USAGE;
        }
    }

    vk_print_meta(&dev, &opt, argc, argv);
    if (opt.list) {
        vk_result none;
        memset(&none, 0, sizeof none);
        none.t_med = none.t_min = none.t_max = NAN;
        none.a_med = none.a_min = none.a_max = NAN;
        none.n_atom_expected = NAN;
        for (int i = 0; i < cases.n; i++) {
            const vk_case *c = &cases.v[i];
            if (!vk_selected(c, &opt))
                continue;
            /* Shape without running: grids as they will be launched;
             * CUB's launch count is only known by capturing a run. */
            none.f_med = NAN;
            none.blocks = c->family == VK_FAMILY_LOOP || c->family == VK_FAMILY_HASH
                              ? (unsigned)(c->waves * c->blocks_per_sm * dev.sm_count)
                          : c->family == VK_FAMILY_CUB ? 0u : (unsigned)dev.sm_count;
            none.launches = c->family == VK_FAMILY_CUB ? -1 : 1;
            vk_print_row(c, &none);
        }
        free(cases.v);
        return 0;
    }

    vk_iters_table iters_table;
    memset(&iters_table, 0, sizeof iters_table);
    if (opt.iters_from && vk_iters_load(opt.iters_from, &iters_table) != 0)
        return VK_EXIT_INPUT;

    vk_buffers buffers;
    vk_buffers_create(&buffers, &dev);
    vk_timer timer;
    VK_CHECK(cudaStreamCreateWithFlags(&timer.stream, cudaStreamNonBlocking));
    VK_CHECK(cudaEventCreate(&timer.start));
    VK_CHECK(cudaEventCreate(&timer.stop));

    int ran = 0, skipped = 0, failed = 0;
    for (int i = 0; i < cases.n; i++) {
        const vk_case *c = &cases.v[i];
        if (!vk_selected(c, &opt))
            continue;
        vk_result r;
        int rc = vk_run_case(c, &dev, &buffers, &timer, &opt, opt.iters_from ? &iters_table : NULL, &r);
        if (rc == 0) {
            vk_print_row(c, &r);
            ran++;
        } else if (rc == -1) {
            skipped++;
        } else {
            failed++;
        }
    }
    fprintf(stderr, "validate_app: %d cases ran, %d skipped, %d failed a correctness check\n", ran,
            skipped, failed);

    cudaEventDestroy(timer.start);
    cudaEventDestroy(timer.stop);
    cudaStreamDestroy(timer.stream);
    vk_buffers_release(&buffers);
    free(cases.v);
    return failed ? VK_EXIT_INPUT : 0;
}
