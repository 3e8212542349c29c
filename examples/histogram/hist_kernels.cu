/* Histogram kernels (CUDA C): the paper's Listings 1 and 2 (paper 000,
 * Sec. 4) in ATOMS.ADD and ATOMS.POPC.INC flavours, the fast histogram and
 * its ablations, and the DRAM read-bandwidth probe.  Every kernel is
 * extern "C", so its symbol is its plain name (gpuq profile -k '^hist_add$').
 * Launched from C through cudaLaunchKernel (hist_gpu.c).
 */
#include <stdint.h>

#include "hist_gpu.h"

#define FULL_WARP 0xffffffffu
#define WARP_SIZE 32

/* ---- The paper's kernels --------------------------------------------- */

/* Listing 1 (rotate = 0) and Listing 2 (rotate = 1): 256 bins x 4 channels
 * in shared memory, consecutive pixels to consecutive threads, grid-stride
 * loop, bytes read one channel at a time as in the listing, merge into global
 * memory at the end.
 *
 * read_result = 0: atomicAdd's result is unused, so nvcc emits
 * ATOMS.POPC.INC (sm_80+, Sec. 2).  read_result = 1: the result is summed and
 * the sum written out under a condition the compiler cannot decide, which
 * keeps ATOMS.ADD (the paper's "dummy read", Sec. 4.1, A6000 paragraph). */
static __device__ __forceinline__ void paper_histogram(const uint8_t *__restrict__ in,
                                                       unsigned long long pixels,
                                                       uint32_t *__restrict__ hist,
                                                       uint32_t *__restrict__ sink,
                                                       const int rotate, const int read_result)
{
    __shared__ uint32_t smem[HIST_TOTAL_BINS];
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nt = (unsigned long long)gridDim.x * blockDim.x;
    uint32_t seen = 0;

    for (unsigned j = threadIdx.x; j < HIST_TOTAL_BINS; j += blockDim.x)
        smem[j] = 0;
    __syncthreads(); /* start barrier */

    for (unsigned long long i = t; i < pixels; i += nt) {
        const unsigned long long in_base = i * HIST_CHANNELS;
        uint32_t offsets[HIST_CHANNELS];

#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; ++c)
            offsets[c] = in[in_base + c];
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; ++c) {
            /* Listing 2, line 14: neighbouring threads start at different
             * channels, so a solid colour spreads over 4 bins. */
            const int chan = rotate ? (int)((c + t % HIST_CHANNELS) % HIST_CHANNELS) : c;
            uint32_t *addr = &smem[HIST_BINS * chan + offsets[chan]];
            if (read_result)
                seen += atomicAdd(addr, 1u);
            else
                atomicAdd(addr, 1u);
        }
    }
    __syncthreads(); /* end barrier */

    for (unsigned j = threadIdx.x; j < HIST_TOTAL_BINS; j += blockDim.x)
        if (smem[j])
            atomicAdd(&hist[j], smem[j]);
    /* Practically never true, but the compiler cannot know that, so the
     * ATOMS results above stay live (ATOMS.ADD instead of POPC.INC). */
    if (read_result && seen == 0xffffffffu)
        sink[0] = seen;
}

extern "C" __global__ void hist_add(const uint8_t *__restrict__ in, unsigned long long pixels,
                                    uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)
{
    paper_histogram(in, pixels, hist, sink, 0, 1);
}

extern "C" __global__ void hist2_add(const uint8_t *__restrict__ in, unsigned long long pixels,
                                     uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)
{
    paper_histogram(in, pixels, hist, sink, 1, 1);
}

extern "C" __global__ void hist_popc(const uint8_t *__restrict__ in, unsigned long long pixels,
                                     uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)
{
    paper_histogram(in, pixels, hist, sink, 0, 0);
}

extern "C" __global__ void hist2_popc(const uint8_t *__restrict__ in, unsigned long long pixels,
                                      uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)
{
    paper_histogram(in, pixels, hist, sink, 1, 0);
}

/* ---- The fast histogram ------------------------------------------------
 * Ideas (measured one by one in docs/case-study/hist_fast_notes.md):
 *  - 16-byte loads: each lane reads 4 pixels at once, `loads` of them in
 *    flight, so the DRAM pipe stays full at one block per SM;
 *  - lane replicas: `replicas` copies of the 1024 counters interleaved word
 *    by word, lane l updating copy l % replicas.  With 32 copies, lane l's
 *    counters all sit in bank l, so a warp's 32 increments never conflict in
 *    a bank whatever the pixel values: every ATOMS is one wavefront (e = 1
 *    in the paper's Table 2 terms, where the plain layout gives e = 3 on
 *    random data and 32 on a solid image);
 *  - warp-uniform fast path: when a channel has one value in all 128 pixels a
 *    warp holds (a solid image, flat graphics, the constant alpha of a
 *    photo), no atomic is issued; the count goes to a per-warp register run
 *    (value, count) that is flushed with one atomic when the value changes;
 *  - atomicAdd(p, 1) with the result unused: ATOMS.POPC.INC.
 * Shared memory: replicas x 4 KiB (dynamic), 128 KiB at 32 copies, so one
 * block per SM on Hopper: the 16-byte loads keep enough bytes in flight. */

#define FAST_MAX_LOADS 8

/* Counter of (channel, value) in copy `rep`. */
static __device__ __forceinline__ uint32_t fast_slot(uint32_t c, uint32_t value, uint32_t rep,
                                                     const int replicas)
{
    return ((c << 8) | value) * (uint32_t)replicas + rep;
}

/* Adds the 4 pixels of one 16-byte word to channel c's counters. */
static __device__ __forceinline__ void fast_add4(uint32_t *s, uint4 px, const int c, uint32_t rep,
                                                 const int replicas)
{
    const int shift = 8 * c;
    atomicAdd(&s[fast_slot(c, (px.x >> shift) & 0xffu, rep, replicas)], 1u);
    atomicAdd(&s[fast_slot(c, (px.y >> shift) & 0xffu, rep, replicas)], 1u);
    atomicAdd(&s[fast_slot(c, (px.z >> shift) & 0xffu, rep, replicas)], 1u);
    atomicAdd(&s[fast_slot(c, (px.w >> shift) & 0xffu, rep, replicas)], 1u);
}

static __device__ __forceinline__ void fast_histogram(const uint8_t *__restrict__ in,
                                                      unsigned long long pixels,
                                                      uint32_t *__restrict__ hist,
                                                      const int replicas, const int uniform_path,
                                                      const int loads)
{
    extern __shared__ uint4 fast_smem[];
    uint32_t *s = (uint32_t *)fast_smem;
    const uint32_t lane = threadIdx.x % WARP_SIZE;
    const uint32_t rep = lane % (uint32_t)replicas;
    const uint4 *in4 = (const uint4 *)in; /* cudaMalloc'ed: 256-byte aligned */
    const unsigned long long quads = pixels / 4;
    const unsigned long long warp =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / WARP_SIZE;
    const unsigned long long chunk = (unsigned long long)WARP_SIZE * loads; /* quads per warp step */
    uint32_t run_value[HIST_CHANNELS] = {0, 0, 0, 0};
    uint32_t run_count[HIST_CHANNELS] = {0, 0, 0, 0};

    for (uint32_t j = threadIdx.x; j < (uint32_t)replicas * HIST_TOTAL_BINS / 4; j += blockDim.x)
        fast_smem[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    /* A warp takes `loads` groups of 32 consecutive 16-byte words (512 bytes
     * per group, coalesced), issues all loads, then counts. */
    for (unsigned long long base = warp * chunk; base < quads; base += warps * chunk) {
        uint4 px[FAST_MAX_LOADS];
#pragma unroll
        for (int k = 0; k < loads; k++) {
            const unsigned long long q = base + (unsigned long long)k * WARP_SIZE + lane;
            px[k] = q < quads ? __ldg(&in4[q]) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < loads; k++) {
            const unsigned long long group = base + (unsigned long long)k * WARP_SIZE;
            const int full = group + WARP_SIZE <= quads;     /* warp-uniform */
            const int valid = group + lane < quads;
            uint32_t mixed = 0xffffffffu; /* byte c nonzero: channel c not uniform */

            if (group >= quads)
                break;
            if (uniform_path && full) {
                const uint32_t ref = __shfl_sync(FULL_WARP, px[k].x, 0);
                const uint32_t diff =
                    (px[k].x ^ ref) | (px[k].y ^ ref) | (px[k].z ^ ref) | (px[k].w ^ ref);
                mixed = __reduce_or_sync(FULL_WARP, diff);
#pragma unroll
                for (int c = 0; c < HIST_CHANNELS; c++) {
                    const uint32_t value = (ref >> (8 * c)) & 0xffu;
                    if ((mixed >> (8 * c)) & 0xffu)
                        continue;
                    if (value != run_value[c]) {
                        if (lane == 0 && run_count[c])
                            atomicAdd(&s[fast_slot(c, run_value[c], 0, replicas)], run_count[c]);
                        run_value[c] = value;
                        run_count[c] = 0;
                    }
                    run_count[c] += WARP_SIZE * 4;
                }
            }
            if (!valid)
                continue;
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++)
                if ((mixed >> (8 * c)) & 0xffu)
                    fast_add4(s, px[k], c, rep, replicas);
        }
    }
    if (lane == 0)
        for (int c = 0; c < HIST_CHANNELS; c++)
            if (run_count[c])
                atomicAdd(&s[fast_slot(c, run_value[c], 0, replicas)], run_count[c]);

    /* The last pixels % 4 pixels, one per thread of block 0. */
    if (blockIdx.x == 0 && threadIdx.x < pixels % 4) {
        const unsigned long long i = quads * 4 + threadIdx.x;
        for (int c = 0; c < HIST_CHANNELS; c++)
            atomicAdd(&s[fast_slot(c, in[i * HIST_CHANNELS + c], 0, replicas)], 1u);
    }
    __syncthreads();

    /* Sum the copies of each bin; lane l starts at copy l so that the 32
     * lanes read 32 different banks. */
    for (uint32_t bin = threadIdx.x; bin < HIST_TOTAL_BINS; bin += blockDim.x) {
        uint32_t sum = 0;
        for (int r = 0; r < replicas; r++)
            sum += s[bin * (uint32_t)replicas + ((uint32_t)r + lane) % (uint32_t)replicas];
        if (sum)
            atomicAdd(&hist[bin], sum);
    }
}

#define FAST_KERNEL(name, replicas, uniform_path, loads)                                         \
    extern "C" __global__ void name(const uint8_t *__restrict__ in, unsigned long long pixels,   \
                                    uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)    \
    {                                                                                            \
        (void)sink;                                                                              \
        fast_histogram(in, pixels, hist, replicas, uniform_path, loads);                         \
    }

FAST_KERNEL(hist_fast, 32, 1, 4)
FAST_KERNEL(hist_fast_r16, 16, 1, 4)
FAST_KERNEL(hist_fast_r1, 1, 1, 4)
FAST_KERNEL(hist_fast_nouni, 32, 0, 4)
FAST_KERNEL(hist_fast_l1, 32, 1, 1)
FAST_KERNEL(hist_fast_l8, 32, 1, 8)

/* ---- DRAM read bandwidth ------------------------------------------------
 * Grid-stride 16-byte loads, `loads` in flight per thread, folded into one
 * word per warp that is stored (sink[warp]) so no load can be dropped. */
static __device__ __forceinline__ void read_words(const uint4 *__restrict__ in,
                                                  unsigned long long words,
                                                  uint32_t *__restrict__ sink, const int loads)
{
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long nt = (unsigned long long)gridDim.x * blockDim.x;
    uint32_t acc = 0;

    for (unsigned long long i = t; i < words; i += nt * loads) {
        uint4 v[FAST_MAX_LOADS];
#pragma unroll
        for (int k = 0; k < loads; k++) {
            const unsigned long long j = i + k * nt;
            v[k] = j < words ? __ldg(&in[j]) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < loads; k++)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    for (int d = WARP_SIZE / 2; d > 0; d /= 2)
        acc ^= __shfl_xor_sync(FULL_WARP, acc, d);
    if (threadIdx.x % WARP_SIZE == 0)
        sink[t / WARP_SIZE] = acc;
}

extern "C" __global__ void hist_read4(const uint4 *__restrict__ in, unsigned long long words,
                                      uint32_t *__restrict__ sink)
{
    read_words(in, words, sink, 4);
}

extern "C" __global__ void hist_read8(const uint4 *__restrict__ in, unsigned long long words,
                                      uint32_t *__restrict__ sink)
{
    read_words(in, words, sink, 8);
}

/* ---- Host-side lookup ---------------------------------------------------- */

const void *hist_kernel_function(hist_kernel_id k)
{
    switch (k) {
    case HIST_K_HIST: return (const void *)hist_add;
    case HIST_K_HIST2: return (const void *)hist2_add;
    case HIST_K_HIST_POPC: return (const void *)hist_popc;
    case HIST_K_HIST2_POPC: return (const void *)hist2_popc;
    case HIST_K_FAST: return (const void *)hist_fast;
    case HIST_K_FAST_R16: return (const void *)hist_fast_r16;
    case HIST_K_FAST_R1: return (const void *)hist_fast_r1;
    case HIST_K_FAST_NOUNI: return (const void *)hist_fast_nouni;
    case HIST_K_FAST_L1: return (const void *)hist_fast_l1;
    case HIST_K_FAST_L8: return (const void *)hist_fast_l8;
    case HIST_K_CUB:
    case HIST_K_COUNT: break;
    }
    return NULL;
}

size_t hist_kernel_dynamic_shared(hist_kernel_id k)
{
    const size_t copy = HIST_TOTAL_BINS * sizeof(uint32_t);

    switch (k) {
    case HIST_K_FAST:
    case HIST_K_FAST_NOUNI:
    case HIST_K_FAST_L1:
    case HIST_K_FAST_L8: return 32 * copy;
    case HIST_K_FAST_R16: return 16 * copy;
    case HIST_K_FAST_R1: return copy;
    default: return 0;
    }
}

const void *hist_read_function(int loads)
{
    return loads == 8 ? (const void *)hist_read8 : (const void *)hist_read4;
}
