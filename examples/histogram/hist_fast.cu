/* The fast histogram (CUDA C) and its ablations, hist_fast_match among
 * them; docs/case-study/hist_fast_notes.md measures each. */
#include "hist_fast.cuh"

/* ---- The fast histogram ------------------------------------------------
 * Ideas (each measured in docs/case-study/hist_fast_notes.md, where the
 * ablation kernels at the end of this section switch them on and off):
 *  - 16-byte loads: each lane reads 4 pixels at once, `loads` of them per
 *    step, and with `prefetch` the next step's loads are issued before the
 *    current step is counted, so DRAM stays busy while the warp does atomics;
 *  - lane replicas: `replicas` copies of the counters interleaved word by
 *    word, lane l updating copy l % replicas.  With 32 copies lane l's
 *    counters all sit in bank l, so a warp's 32 increments never share a bank
 *    whatever the pixel values: every ATOMS is one wavefront (the paper's e,
 *    Table 2, is 1, where the plain layout has e = 3 on random data and 32 on a
 *    solid image for ATOMS.ADD);
 *  - atomicAdd(p, 1) with the result unused: ATOMS.POPC.INC (Sec. 2);
 *  - half16: two 16-bit counters per word (bins 2i and 2i+1), halving shared
 *    memory so that more warps fit on an SM; the increment is then 1 or 65536,
 *    an ATOMS.ADD, and a counter holds at most 65535 (the host refuses a
 *    launch where one lane column of one block could see more pixels);
 *  - fast paths that issue fewer atomics where pixels repeat:
 *      FAST_QUADS: when, in every lane, a channel has one value in the lane's
 *        4 pixels (flat areas, a solid image, a photo's constant alpha), one
 *        atomicAdd(+4) per lane replaces four increments; test: ALU work plus
 *        one VOTE.ALL per channel and group of 128 pixels;
 *      FAST_QSTEP: the same test once per step (all `loads` groups at once);
 *      FAST_RUNS: when a channel has one value in all 128 pixels of the warp,
 *        the count goes to a per-warp register run flushed with one atomic when
 *        the value changes; test: a SHFL and a REDUX per 128 pixels;
 *      FAST_BRANCH: no test, but each channel's increments behind a branch on
 *        a value the compiler cannot see is always true (a diagnostic: what the
 *        branch structure of the fast paths costs by itself);
 *      FAST_HYBRID: the quad test per step, kept off the common paths: one
 *        VOTE.ANY per step decides between the plain straight-line code (random
 *        data pays a vote and a branch per 512 pixels) and the fast paths; those
 *        take the warp's channel mask from one REDUX and have straight-line code
 *        for the two masks photos and flat images produce most (alpha alone,
 *        every channel), where a channel with one value in the whole step takes
 *        one atomicAdd(+4 x loads) per lane;
 *  - prmt: the counters of channels c and c ^ 1 side by side in 256-byte rows
 *    (fast_word), so that a counter's address is one PRMT of the pixel word
 *    (fast_add4) instead of a shift, a mask and a multiply-add: hist_fast_v4
 *    (run 4's hist_fast, plain layout) keeps the integer pipe 90% busy and
 *    that, not the atomic unit, held it at 92 us on random data (notes,
 *    step 6).  The other ablations keep the plain layout.
 * Shared memory: replicas x 4 KiB (2 KiB with half16), dynamic. */

#define FAST_PLAIN 0 /* no fast path: four increments per 4 pixels and channel */
#define FAST_RUNS 1
#define FAST_QUADS 2
#define FAST_QSTEP 3
#define FAST_BRANCH 4
#define FAST_HYBRID 5

typedef struct fast_config {
    int replicas; /* 1, 16 or 32 */
    int half16;   /* 16-bit counters */
    int mode;     /* FAST_* */
    int loads;    /* 16-byte loads per lane and step */
    int prefetch; /* issue the next step's loads before counting */
    int prmt;     /* 32 replicas, 32-bit: the layout below whose addresses take one PRMT */
} fast_config;

/* Adds `amount` to counter (channel c, value v) of copy `rep`.  A literal
 * amount of 1 with 32-bit counters compiles to ATOMS.POPC.INC. */
/* Word of counter (channel c, value v), copy `rep`, 32-bit counters.  The
 * `prmt` layout puts channels c and c ^ 1 side by side in rows of 256 bytes:
 * byte  (c >> 1) x 64 KiB + v x 256 + (c & 1) x 128 + rep x 4,  the same
 * 128 KiB and the same bank (rep) as the plain layout, but the offset within
 * a 64 KiB half is the value in byte 1 over a per-lane constant in byte 0:
 * one PRMT of the pixel and that constant (fast_add4). */
static __device__ __forceinline__ uint32_t fast_word(uint32_t c, uint32_t v, uint32_t rep,
                                                     const fast_config cfg)
{
    if (cfg.prmt)
        return ((c >> 1) << 14) | (v << 6) | ((c & 1u) << 5) | rep;
    return ((c << 8) | v) * (uint32_t)cfg.replicas + rep;
}

static __device__ __forceinline__ void fast_add(uint32_t *s, uint32_t c, uint32_t v, uint32_t rep,
                                                const fast_config cfg, uint32_t amount)
{
    if (cfg.half16)
        atomicAdd(&s[((c << 7) | (v >> 1)) * (uint32_t)cfg.replicas + rep],
                  amount << ((v & 1u) * 16));
    else
        atomicAdd(&s[fast_word(c, v, rep, cfg)], amount);
}

/* Adds the 4 pixels of one 16-byte word to channel c's counters.  With
 * `prmt` each address is one PRMT: byte 0 from the per-lane constant
 * rep x 4 + (c & 1) x 128, byte 1 = the pixel's byte c (the value), bytes 2
 * and 3 zero; the 64 KiB half (c >> 1) is a constant offset.  The plain
 * layout needs a shift, a mask and a multiply-add per address, and run 6's
 * profile found the integer pipe 90% busy in hist_fast_plain. */
static __device__ __forceinline__ void fast_add4(uint32_t *s, uint4 px, const int c, uint32_t rep,
                                                 const fast_config cfg, uint32_t one)
{
    if (cfg.prmt) {
        uint8_t *half = (uint8_t *)s + (uint32_t)(c >> 1) * 65536u;
        const uint32_t lane_bytes = rep * 4u + (uint32_t)(c & 1) * 128u;
        const uint32_t select = 0x7604u | ((uint32_t)c << 4); /* bytes: 0 <- y.b0, 1 <- x.bc */

        atomicAdd((uint32_t *)(half + __byte_perm(px.x, lane_bytes, select)), one);
        atomicAdd((uint32_t *)(half + __byte_perm(px.y, lane_bytes, select)), one);
        atomicAdd((uint32_t *)(half + __byte_perm(px.z, lane_bytes, select)), one);
        atomicAdd((uint32_t *)(half + __byte_perm(px.w, lane_bytes, select)), one);
        return;
    }
    fast_add(s, c, channel_of(px.x, c), rep, cfg, one);
    fast_add(s, c, channel_of(px.y, c), rep, cfg, one);
    fast_add(s, c, channel_of(px.z, c), rep, cfg, one);
    fast_add(s, c, channel_of(px.w, c), rep, cfg, one);
}

/* Per-warp register runs of FAST_RUNS (warp-uniform values). */
typedef struct fast_runs {
    uint32_t value[HIST_CHANNELS];
    uint32_t count[HIST_CHANNELS];
} fast_runs;

/* Counts one step: `loads` groups of 32 words from base.  `opaque` is 0 at run
 * time but unknown to the compiler (FAST_BRANCH, and the ATOMS.ADD
 * diagnostic's increment of 1 + opaque). */
/* One channel of a whole step: `step_uniform` (one value in every lane's
 * 4 x loads pixels), `quad_uniform` (one value per lane and group), or
 * neither. */
static __device__ __forceinline__ void fast_step_channel(uint32_t *s, const uint4 *px, const int c,
                                                         uint32_t rep, const fast_config cfg,
                                                         int step_uniform, int quad_uniform)
{
    if (step_uniform) {
        fast_add(s, c, channel_of(px[0].x, c), rep, cfg, 4u * (uint32_t)cfg.loads);
    } else if (quad_uniform) {
#pragma unroll
        for (int k = 0; k < cfg.loads; k++)
            fast_add(s, c, channel_of(px[k].x, c), rep, cfg, 4u);
    } else {
#pragma unroll
        for (int k = 0; k < cfg.loads; k++)
            fast_add4(s, px[k], c, rep, cfg, 1u);
    }
}

/* FAST_HYBRID on a full step (all `loads` groups inside the image). */
static __device__ __forceinline__ void fast_hybrid_step(uint32_t *s, const uint4 *px, uint32_t rep,
                                                        const fast_config cfg)
{
    uint32_t quad = 0, across = 0, lane_mask = 0, mask;

#pragma unroll
    for (int k = 0; k < cfg.loads; k++) {
        quad |= (px[k].x ^ px[k].y) | (px[k].x ^ px[k].z) | (px[k].x ^ px[k].w);
        across |= px[k].x ^ px[0].x;
    }
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++) {
        if (channel_of(quad, c) == 0)
            lane_mask |= 1u << c; /* quad-uniform channel c in this lane */
        if (channel_of(quad | across, c) == 0)
            lane_mask |= 0x10u << c; /* ... and one value over the whole step */
    }
    /* Random data: no lane has a quad-uniform channel (probability 2^-24
     * per channel and group), one vote, straight-line increments. */
    if (!__any_sync(FULL_WARP, lane_mask != 0)) {
#pragma unroll
        for (int k = 0; k < cfg.loads; k++)
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++)
                fast_add4(s, px[k], c, rep, cfg, 1u);
        return;
    }
    mask = __reduce_and_sync(FULL_WARP, lane_mask);
    if (mask == 0xffu) { /* a solid stretch */
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; c++)
            fast_step_channel(s, px, c, rep, cfg, 1, 1);
    } else if (mask == 0x88u) { /* a photo: constant alpha, the rest varies */
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS - 1; c++)
            fast_step_channel(s, px, c, rep, cfg, 0, 0);
        fast_step_channel(s, px, HIST_CHANNELS - 1, rep, cfg, 1, 1);
    } else {
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; c++)
            fast_step_channel(s, px, c, rep, cfg, (mask >> (4 + c)) & 1u, (mask >> c) & 1u);
    }
}

static __device__ __forceinline__ void fast_count(uint32_t *s, const uint4 *px,
                                                  unsigned long long base,
                                                  unsigned long long quads, uint32_t lane,
                                                  uint32_t rep, fast_runs *runs,
                                                  const fast_config cfg, uint32_t one,
                                                  uint32_t opaque)
{
    uint32_t step_todo = 0xfu; /* channels still to count pixel by pixel */

    if (cfg.mode == FAST_HYBRID && base + (unsigned long long)WARP_SIZE * cfg.loads <= quads) {
        fast_hybrid_step(s, px, rep, cfg);
        return;
    }

    if (cfg.mode == FAST_QSTEP && base + (unsigned long long)WARP_SIZE * cfg.loads <= quads) {
        uint32_t diff = 0;
#pragma unroll
        for (int k = 0; k < cfg.loads; k++)
            diff |= (px[k].x ^ px[k].y) | (px[k].x ^ px[k].z) | (px[k].x ^ px[k].w);
#pragma unroll
        for (int c = 0; c < HIST_CHANNELS; c++)
            if (__all_sync(FULL_WARP, channel_of(diff, c) == 0)) {
#pragma unroll
                for (int k = 0; k < cfg.loads; k++)
                    fast_add(s, c, channel_of(px[k].x, c), rep, cfg, 4u);
                step_todo &= ~(1u << c);
            }
    }
    if (cfg.mode == FAST_BRANCH)
        step_todo ^= opaque;
#pragma unroll
    for (int k = 0; k < cfg.loads; k++) {
        const unsigned long long group = base + (unsigned long long)k * WARP_SIZE;
        const int full = group + WARP_SIZE <= quads; /* warp-uniform */
        const int valid = group + lane < quads;
        uint32_t todo = step_todo;

        if (group >= quads)
            break;
        if (cfg.mode == FAST_RUNS && full) {
            const uint32_t ref = __shfl_sync(FULL_WARP, px[k].x, 0);
            const uint32_t diff =
                (px[k].x ^ ref) | (px[k].y ^ ref) | (px[k].z ^ ref) | (px[k].w ^ ref);
            const uint32_t mixed = __reduce_or_sync(FULL_WARP, diff);
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++) {
                const uint32_t value = channel_of(ref, c);
                if (channel_of(mixed, c))
                    continue;
                if (value != runs->value[c]) {
                    if (lane == 0 && runs->count[c])
                        fast_add(s, c, runs->value[c], 0, cfg, runs->count[c]);
                    runs->value[c] = value;
                    runs->count[c] = 0;
                }
                runs->count[c] += WARP_SIZE * 4;
                todo &= ~(1u << c);
            }
        }
        if (cfg.mode == FAST_QUADS && full) {
            const uint32_t diff = (px[k].x ^ px[k].y) | (px[k].x ^ px[k].z) | (px[k].x ^ px[k].w);
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++)
                if (__all_sync(FULL_WARP, channel_of(diff, c) == 0)) {
                    fast_add(s, c, channel_of(px[k].x, c), rep, cfg, 4u);
                    todo &= ~(1u << c);
                }
        }
        if (!valid)
            continue;
        if (cfg.mode == FAST_PLAIN) {
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++)
                fast_add4(s, px[k], c, rep, cfg, one);
        } else {
#pragma unroll
            for (int c = 0; c < HIST_CHANNELS; c++)
                if (todo & (1u << c))
                    fast_add4(s, px[k], c, rep, cfg, one);
        }
    }
}

static __device__ __forceinline__ void fast_histogram(const uint8_t *__restrict__ in,
                                                      unsigned long long pixels,
                                                      uint32_t *__restrict__ hist,
                                                      const fast_config cfg, const int use_add)
{
    extern __shared__ uint4 fast_smem[];
    uint32_t *s = (uint32_t *)fast_smem;
    const uint32_t words = (uint32_t)cfg.replicas * (cfg.half16 ? HIST_TOTAL_BINS / 2 : HIST_TOTAL_BINS);
    const uint32_t lane = threadIdx.x % WARP_SIZE;
    const uint32_t rep = lane % (uint32_t)cfg.replicas;
    const uint4 *in4 = (const uint4 *)in; /* cudaMalloc'ed: 256-byte aligned */
    const unsigned long long quads = pixels / 4;
    const unsigned long long warp =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / WARP_SIZE;
    const unsigned long long chunk = (unsigned long long)WARP_SIZE * cfg.loads; /* words per step */
    const unsigned long long step = warps * chunk;
    /* Image sizes stay below 2^62, so `opaque` is 0; the compiler cannot
     * know that.  use_add: increment by 1 + 0 instead of a literal 1, which
     * turns POPC.INC into ATOMS.ADD (a diagnostic of their speeds). */
    const uint32_t opaque = (uint32_t)(pixels >> 62);
    const uint32_t one = use_add ? 1u + opaque : 1u;
    fast_runs runs = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    uint4 cur[FAST_MAX_LOADS], next[FAST_MAX_LOADS];

    for (uint32_t j = threadIdx.x; j < words / 4; j += blockDim.x)
        fast_smem[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    /* A warp step covers `loads` groups of 32 consecutive 16-byte words
     * (512 coalesced bytes each); the grid strides over steps. */
    if (cfg.prefetch)
        fast_load(cur, in4, warp * chunk, quads, lane, cfg.loads);
    for (unsigned long long base = warp * chunk; base < quads; base += step) {
        if (cfg.prefetch)
            fast_load(next, in4, base + step, quads, lane, cfg.loads);
        else
            fast_load(cur, in4, base, quads, lane, cfg.loads);
        fast_count(s, cur, base, quads, lane, rep, &runs, cfg, one, opaque);
        if (cfg.prefetch) {
#pragma unroll
            for (int k = 0; k < cfg.loads; k++)
                cur[k] = next[k];
        }
    }
    if (cfg.mode == FAST_RUNS && lane == 0)
        for (int c = 0; c < HIST_CHANNELS; c++)
            if (runs.count[c])
                fast_add(s, c, runs.value[c], 0, cfg, runs.count[c]);

    /* The last pixels % 4 pixels, one per thread of block 0. */
    if (blockIdx.x == 0 && threadIdx.x < pixels % 4) {
        const unsigned long long i = quads * 4 + threadIdx.x;
        for (int c = 0; c < HIST_CHANNELS; c++)
            fast_add(s, c, in[i * HIST_CHANNELS + c], 0, cfg, one);
    }
    __syncthreads();

    /* Sum the copies of each counter word; lane l starts at copy l so that
     * the 32 lanes read 32 different banks.  A 16-bit word holds bins 2i
     * (low half) and 2i + 1. */
    for (uint32_t w = threadIdx.x; w < words / (uint32_t)cfg.replicas; w += blockDim.x) {
        uint32_t lo = 0, hi = 0;
        for (int r = 0; r < cfg.replicas; r++) {
            const uint32_t copy = ((uint32_t)r + lane) % (uint32_t)cfg.replicas;
            const uint32_t v = cfg.prmt ? s[fast_word(w >> 8, w & 0xffu, copy, cfg)]
                                        : s[w * (uint32_t)cfg.replicas + copy];
            if (cfg.half16) {
                lo += v & 0xffffu;
                hi += v >> 16;
            } else {
                lo += v;
            }
        }
        if (cfg.half16) {
            if (lo)
                atomicAdd(&hist[2 * w], lo);
            if (hi)
                atomicAdd(&hist[2 * w + 1], hi);
        } else if (lo) {
            atomicAdd(&hist[w], lo);
        }
    }
}

#define FAST_KERNEL(name, threads, min_blocks, replicas, half16, mode, loads, prefetch, use_add, \
                    prmt)                                                                        \
    extern "C" __global__ void __launch_bounds__(threads, min_blocks)                           \
        name(const uint8_t *__restrict__ in, unsigned long long pixels,                          \
             uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)                           \
    {                                                                                            \
        const fast_config cfg = {replicas, half16, mode, loads, prefetch, prmt};                 \
        (void)sink;                                                                              \
        fast_histogram(in, pixels, hist, cfg, use_add);                                          \
    }

/*          name                  bounds    copies 16bit mode         loads pf add prmt */
FAST_KERNEL(hist_fast,            1024, 1,  32,    0,    FAST_HYBRID, 4,    1, 0, 1)
FAST_KERNEL(hist_fast_v4,         1024, 1,  32,    0,    FAST_HYBRID, 4,    1, 0, 0)
FAST_KERNEL(hist_fast_qstep,      1024, 1,  32,    0,    FAST_QSTEP,  4,    1, 0, 0)
FAST_KERNEL(hist_fast_plain,      1024, 1,  32,    0,    FAST_PLAIN,  4,    1, 0, 0)
FAST_KERNEL(hist_fast_quads,      1024, 1,  32,    0,    FAST_QUADS,  4,    1, 0, 0)
FAST_KERNEL(hist_fast_runs,       1024, 1,  32,    0,    FAST_RUNS,   4,    1, 0, 0)
FAST_KERNEL(hist_fast_branch,     1024, 1,  32,    0,    FAST_BRANCH, 4,    1, 0, 0)
FAST_KERNEL(hist_fast_add,        1024, 1,  32,    0,    FAST_PLAIN,  4,    1, 1, 0)
FAST_KERNEL(hist_fast_noprefetch, 1024, 1,  32,    0,    FAST_QUADS,  4,    0, 0, 0)
FAST_KERNEL(hist_fast_r16,        1024, 1,  16,    0,    FAST_QUADS,  4,    1, 0, 0)
FAST_KERNEL(hist_fast_r1,         1024, 1,  1,     0,    FAST_QUADS,  4,    1, 0, 0)
FAST_KERNEL(hist_fast_l1,         1024, 1,  32,    0,    FAST_QUADS,  1,    1, 0, 0)
FAST_KERNEL(hist_fast_l8,         1024, 1,  32,    0,    FAST_QUADS,  8,    0, 0, 0)
FAST_KERNEL(hist_fast_v1,         1024, 1,  32,    0,    FAST_RUNS,   4,    0, 0, 0)
FAST_KERNEL(hist_fast_v1plain,    1024, 1,  32,    0,    FAST_PLAIN,  4,    0, 0, 0)
FAST_KERNEL(hist_fast_h16,        512,  3,  32,    1,    FAST_PLAIN,  2,    1, 0, 0)
FAST_KERNEL(hist_fast_h16q,       512,  3,  32,    1,    FAST_QSTEP,  2,    1, 0, 0)
FAST_KERNEL(hist_fast_h16w,       1024, 2,  32,    1,    FAST_PLAIN,  2,    0, 0, 0)

/* ---- hist_fast_match: warp-private 32-bit counters, __match_any_sync ----
 * The other way to drop atomics: one 4 KiB histogram per warp, updated with
 * plain loads and stores; lanes holding the same value in a channel find
 * each other with MATCH.ANY and only the lowest adds their count.  The
 * leaders' addresses (256 c + v) fall in bank v % 32: a random warp has
 * about 3 lanes per bank (the paper's e = 3 for uniform images, Sec. 4), so
 * each LDS and STS takes about 3 wavefronts.  Measured: 2.1 ms on uniform
 * (hist_fast_notes.md, step 5): MATCH.ANY itself is the cost. */
static __device__ __forceinline__ void match_add(uint32_t *mine, uint32_t px, uint32_t lane)
{
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++) {
        const uint32_t v = channel_of(px, c);
        const uint32_t peers = __match_any_sync(FULL_WARP, v);
        if (lane == (uint32_t)__ffs(peers) - 1)
            mine[((uint32_t)c << 8) | v] += (uint32_t)__popc(peers);
    }
}

static __device__ __forceinline__ void match_histogram(const uint8_t *__restrict__ in,
                                                       unsigned long long pixels,
                                                       uint32_t *__restrict__ hist)
{
    extern __shared__ uint4 fast_smem[];
    uint32_t *s = (uint32_t *)fast_smem;
    const int loads = 4;
    const uint32_t lane = threadIdx.x % WARP_SIZE;
    const uint32_t nwarps = blockDim.x / WARP_SIZE;
    uint32_t *mine = s + (threadIdx.x / WARP_SIZE) * HIST_TOTAL_BINS;
    const uint4 *in4 = (const uint4 *)in;
    const unsigned long long quads = pixels / 4;
    const unsigned long long warp =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / WARP_SIZE;
    const unsigned long long chunk = (unsigned long long)WARP_SIZE * loads;
    const unsigned long long step = warps * chunk;
    uint4 cur[4], next[4];

    for (uint32_t j = threadIdx.x; j < nwarps * HIST_TOTAL_BINS / 4; j += blockDim.x)
        fast_smem[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    fast_load(cur, in4, warp * chunk, quads, lane, loads);
    for (unsigned long long base = warp * chunk; base < quads; base += step) {
        fast_load(next, in4, base + step, quads, lane, loads);
        if (base + chunk <= quads) {
#pragma unroll
            for (int k = 0; k < loads; k++) {
                match_add(mine, cur[k].x, lane);
                match_add(mine, cur[k].y, lane);
                match_add(mine, cur[k].z, lane);
                match_add(mine, cur[k].w, lane);
            }
        } else {
            __syncwarp(); /* the plain stores above are visible to the atomics */
#pragma unroll
            for (int k = 0; k < loads; k++)
                if (base + (unsigned long long)k * WARP_SIZE + lane < quads)
#pragma unroll
                    for (int c = 0; c < HIST_CHANNELS; c++) {
                        atomicAdd(&mine[(c << 8) | channel_of(cur[k].x, c)], 1u);
                        atomicAdd(&mine[(c << 8) | channel_of(cur[k].y, c)], 1u);
                        atomicAdd(&mine[(c << 8) | channel_of(cur[k].z, c)], 1u);
                        atomicAdd(&mine[(c << 8) | channel_of(cur[k].w, c)], 1u);
                    }
        }
#pragma unroll
        for (int k = 0; k < loads; k++)
            cur[k] = next[k];
    }
    if (blockIdx.x == 0 && threadIdx.x < pixels % 4) {
        const unsigned long long i = quads * 4 + threadIdx.x;
        for (int c = 0; c < HIST_CHANNELS; c++)
            atomicAdd(&mine[(c << 8) | in[i * HIST_CHANNELS + c]], 1u);
    }
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < HIST_TOTAL_BINS; b += blockDim.x) {
        uint32_t sum = 0;
        for (uint32_t w = 0; w < nwarps; w++)
            sum += s[w * HIST_TOTAL_BINS + b];
        if (sum)
            atomicAdd(&hist[b], sum);
    }
}

extern "C" __global__ void __launch_bounds__(1024, 1)
    hist_fast_match(const uint8_t *__restrict__ in, unsigned long long pixels,
                    uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)
{
    (void)sink;
    match_histogram(in, pixels, hist);
}
