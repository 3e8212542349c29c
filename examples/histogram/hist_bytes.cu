/* hist_fast_bytes (CUDA C): lane-private 8-bit counters, no atomics on
 * random data; docs/case-study/hist_fast_notes.md measures it. */
#include "hist_fast.cuh"

/* ---- hist_fast_bytes: lane-private 8-bit counters, no atomics on random data
 * Why: hist_fast_v4 (above) looked bound by the shared-memory atomic unit
 * on random data: 4 ATOMS per 32 pixel-channels at about 2.5-2.8 cycles each
 * per SM (it was the integer pipe: step 6 of hist_fast_notes.md).  A plain
 * load and store (LDS + STS) were expected to cost about one cycle each when
 * conflict-free, so a counter that only its own lane ever touches could be
 * updated without an atomic in about 2 cycles per 32 updates.  Measured
 * (notes, step 5): slower than hist_fast_v4 on every image (uniform 141 us vs
 * 93 us on an H200): 6 warps per SM (1.5 per scheduler, 0.72 eligible) leave
 * the shared pipe at 0.54 wavefronts per cycle and keep too few loads in
 * flight (solid: 80 us).
 *
 * Layout: each warp owns 32 KiB: 256 rows (the value v) x 32 lane columns x
 * 4 bytes (the channel c), byte  v * 128 + lane * 4 + c.  Lane l only touches
 * its column, which lies in bank l: an update is one conflict-free LDS.U8 and
 * one STS.U8 (e = 1 in the paper's terms, Table 2, and no ATOMS at all).
 * The four channels of one pixel are four different bytes, so their updates
 * can be in flight together; two pixels of a lane may share a byte (same
 * channel, same value), so with `pairs` the second pixel's increment for
 * such a channel is 2, its loads issued before the first pixel's stores and
 * its store last (equal_bytes below).
 *
 * 8-bit counters overflow: every update ORs the old value into `seen`; when
 * a lane has read a value >= 128 the warp moves all its bytes into a 32-bit
 * histogram (bytes_flush).  Between checks a counter grows by at most one
 * step's pixels per lane (32), so it stays below 128 + 2 + 32 < 256.  On
 * uniform random data a lane's counter reaches 128 after about 8,000 steps:
 * the flush is practically only the final one.
 *
 * Repeated values: a channel that has one value in all of a lane's pixels of
 * the step takes one ATOMS.ADD(+pixels) into the 32-bit histogram instead of
 * byte updates; channels uniform in every lane skip the byte code (photos:
 * alpha; solid images: all four).
 *
 * Shared memory: BYTES_WARPS x 32 KiB of bytes + BYTES_REPLICAS copies of
 * the 1024 32-bit counters (replica lane % 8, so at most 4 lanes share an
 * address) = 224 KiB, one block of at most BYTES_WARPS warps per SM. */

typedef struct bytes_config {
    int loads; /* 16-byte loads per lane and step */
    int pairs; /* two pixels' updates in flight together */
} bytes_config;

/* 0x01 in each byte where a and b are equal, 0x00 elsewhere.  The low 7
 * bits of each byte are added apart from bit 7, so no carry crosses bytes. */
static __device__ __forceinline__ uint32_t equal_bytes(uint32_t a, uint32_t b)
{
    const uint32_t x = a ^ b;
    const uint32_t low_nonzero = (x & 0x7f7f7f7fu) + 0x7f7f7f7fu;
    return (~(low_nonzero | x) & 0x80808080u) >> 7;
}

/* Byte offset of counter (channel c, value of px's byte c) in a lane's
 * column: v * 128 + c (the lane's column offset is added by the caller). */
static __device__ __forceinline__ uint32_t bytes_offset(uint32_t px, int c)
{
    return (channel_of(px, c) << 7) | (uint32_t)c;
}

/* One pixel: channel c (in `chans`) of px gets byte c of `inc`.  The store
 * keeps the low byte only: adding inc >> 8c carries nothing into it. */
static __device__ __forceinline__ void bytes_pixel(uint8_t *col, uint32_t px, uint32_t inc,
                                                   const int chans, uint32_t *seen)
{
    uint32_t old[HIST_CHANNELS];

#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
        if ((chans >> c) & 1)
            old[c] = col[bytes_offset(px, c)];
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
        if ((chans >> c) & 1) {
            col[bytes_offset(px, c)] = (uint8_t)(old[c] + (inc >> (8 * c)));
            *seen |= old[c];
        }
}

/* Two pixels p and q of one lane, all eight loads before the stores.  Where
 * p and q have the same value in a channel both read the same old byte, so q
 * adds p's increment too and stores after p. */
static __device__ __forceinline__ void bytes_pair(uint8_t *col, uint32_t p, uint32_t q,
                                                  uint32_t inc, const int chans, uint32_t *seen)
{
    const uint32_t inc_q = inc + (equal_bytes(p, q) & inc);
    uint32_t old_p[HIST_CHANNELS], old_q[HIST_CHANNELS];

#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
        if ((chans >> c) & 1) {
            old_p[c] = col[bytes_offset(p, c)];
            old_q[c] = col[bytes_offset(q, c)];
        }
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
        if ((chans >> c) & 1) {
            col[bytes_offset(p, c)] = (uint8_t)(old_p[c] + (inc >> (8 * c)));
            col[bytes_offset(q, c)] = (uint8_t)(old_q[c] + (inc_q >> (8 * c)));
            *seen |= old_p[c] | old_q[c];
        }
}

/* Byte updates for all of a step's pixels, channels in `chans`. */
static __device__ __forceinline__ void bytes_count(uint8_t *col, const uint4 *px, uint32_t inc,
                                                   const int chans, const bytes_config cfg,
                                                   uint32_t *seen)
{
#pragma unroll
    for (int k = 0; k < cfg.loads; k++) {
        if (cfg.pairs) {
            bytes_pair(col, px[k].x, px[k].y, inc, chans, seen);
            bytes_pair(col, px[k].z, px[k].w, inc, chans, seen);
        } else {
            bytes_pixel(col, px[k].x, inc, chans, seen);
            bytes_pixel(col, px[k].y, inc, chans, seen);
            bytes_pixel(col, px[k].z, inc, chans, seen);
            bytes_pixel(col, px[k].w, inc, chans, seen);
        }
    }
}

/* Counter of (channel c, value v) in this lane's replica of the 32-bit
 * histogram (`rep` already points at the lane's replica). */
static __device__ __forceinline__ uint32_t *bytes_wide(uint32_t *rep, int c, uint32_t v)
{
    return &rep[(((uint32_t)c << 8) | v) * BYTES_REPLICAS];
}

/* A full step (every lane has cfg.loads words).  Random data: no lane has a
 * channel with one value over its 4 x loads pixels (probability 2^-8 per
 * pixel beyond the first), one vote, then straight-line byte updates. */
static __device__ __forceinline__ void bytes_step(uint8_t *col, uint32_t *rep, const uint4 *px,
                                                  const bytes_config cfg, uint32_t *seen)
{
    uint32_t mixed = 0, uniform = 0, inc = 0, all;

#pragma unroll
    for (int k = 0; k < cfg.loads; k++)
        mixed |= (px[k].x ^ px[k].y) | (px[k].x ^ px[k].z) | (px[k].x ^ px[k].w) |
                 (px[k].x ^ px[0].x);
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++) {
        if (channel_of(mixed, c) == 0)
            uniform |= 1u << c; /* one value in all this lane's pixels */
        else
            inc |= 1u << (8 * c);
    }
    if (!__any_sync(FULL_WARP, uniform != 0)) {
        bytes_count(col, px, 0x01010101u, 0xf, cfg, seen);
        return;
    }
    /* Channels uniform in every lane need no byte updates at all. */
    all = __reduce_and_sync(FULL_WARP, uniform);
    if (all == 0x8u) /* a photo: constant alpha */
        bytes_count(col, px, inc, 0x7, cfg, seen);
    else if (all != 0xfu) /* 0xf: a solid stretch, nothing to count bytewise */
        bytes_count(col, px, inc, 0xf, cfg, seen);
#pragma unroll
    for (int c = 0; c < HIST_CHANNELS; c++)
        if ((uniform >> c) & 1)
            atomicAdd(bytes_wide(rep, c, channel_of(px[0].x, c)), 4u * (uint32_t)cfg.loads);
}

/* Moves a warp's bytes into the 32-bit histogram and zeroes them.  Lane j
 * sums rows v = j, j + 32, ...; it reads the 32 columns of a row starting at
 * column j, so the warp's 32 loads hit 32 banks.  Two channels at a time in
 * 16-bit halves: 32 columns x < 256 fits. */
static __device__ __forceinline__ void bytes_flush(uint32_t *words, uint32_t *rep, uint32_t lane)
{
    __syncwarp(); /* other lanes' byte stores are visible */
    for (int i = 0; i < HIST_BINS / WARP_SIZE; i++) {
        const uint32_t v = lane + WARP_SIZE * (uint32_t)i;
        uint32_t even = 0, odd = 0; /* channels 0 and 2, 1 and 3 */

#pragma unroll 8
        for (uint32_t k = 0; k < WARP_SIZE; k++) {
            uint32_t *w = &words[v * WARP_SIZE + ((lane + k) % WARP_SIZE)];
            const uint32_t x = *w;
            *w = 0;
            even += x & 0x00ff00ffu;
            odd += (x >> 8) & 0x00ff00ffu;
        }
        if (even & 0xffffu)
            atomicAdd(bytes_wide(rep, 0, v), even & 0xffffu);
        if (odd & 0xffffu)
            atomicAdd(bytes_wide(rep, 1, v), odd & 0xffffu);
        if (even >> 16)
            atomicAdd(bytes_wide(rep, 2, v), even >> 16);
        if (odd >> 16)
            atomicAdd(bytes_wide(rep, 3, v), odd >> 16);
    }
    __syncwarp(); /* zeroes land before any lane updates its column again */
}

static __device__ __forceinline__ void bytes_histogram(const uint8_t *__restrict__ in,
                                                       unsigned long long pixels,
                                                       uint32_t *__restrict__ hist,
                                                       const bytes_config cfg)
{
    extern __shared__ uint4 fast_smem[];
    uint8_t *smem = (uint8_t *)fast_smem;
    const uint32_t lane = threadIdx.x % WARP_SIZE;
    uint8_t *warp_bytes = smem + (threadIdx.x / WARP_SIZE) * BYTES_WARP_SPAN;
    uint8_t *col = warp_bytes + lane * HIST_CHANNELS;
    uint32_t *wide = (uint32_t *)(smem + BYTES_WARPS * BYTES_WARP_SPAN);
    uint32_t *rep = wide + lane % BYTES_REPLICAS;
    const uint4 *in4 = (const uint4 *)in; /* cudaMalloc'ed: 256-byte aligned */
    const unsigned long long quads = pixels / 4;
    const unsigned long long warp =
        ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const unsigned long long warps = (unsigned long long)gridDim.x * blockDim.x / WARP_SIZE;
    const unsigned long long chunk = (unsigned long long)WARP_SIZE * cfg.loads;
    const unsigned long long step = warps * chunk;
    uint4 cur[FAST_MAX_LOADS], next[FAST_MAX_LOADS];
    uint32_t seen = 0;

    for (uint32_t j = threadIdx.x; j < BYTES_SHARED / sizeof(uint4); j += blockDim.x)
        fast_smem[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    /* Steps as in fast_histogram; the next step's loads are in flight while
     * this one is counted. */
    fast_load(cur, in4, warp * chunk, quads, lane, cfg.loads);
    for (unsigned long long base = warp * chunk; base < quads; base += step) {
        fast_load(next, in4, base + step, quads, lane, cfg.loads);
        if (base + chunk <= quads) {
            bytes_step(col, rep, cur, cfg, &seen);
        } else { /* the image's last, partial step: plain atomics */
#pragma unroll
            for (int k = 0; k < cfg.loads; k++)
                if (base + (unsigned long long)k * WARP_SIZE + lane < quads)
#pragma unroll
                    for (int c = 0; c < HIST_CHANNELS; c++) {
                        atomicAdd(bytes_wide(rep, c, channel_of(cur[k].x, c)), 1u);
                        atomicAdd(bytes_wide(rep, c, channel_of(cur[k].y, c)), 1u);
                        atomicAdd(bytes_wide(rep, c, channel_of(cur[k].z, c)), 1u);
                        atomicAdd(bytes_wide(rep, c, channel_of(cur[k].w, c)), 1u);
                    }
        }
        if (__any_sync(FULL_WARP, seen & BYTES_OVERFLOW)) {
            bytes_flush((uint32_t *)warp_bytes, rep, lane);
            seen = 0;
        }
#pragma unroll
        for (int k = 0; k < cfg.loads; k++)
            cur[k] = next[k];
    }

    /* The last pixels % 4 pixels, one per thread of block 0. */
    if (blockIdx.x == 0 && threadIdx.x < pixels % 4) {
        const unsigned long long i = quads * 4 + threadIdx.x;
        for (int c = 0; c < HIST_CHANNELS; c++)
            atomicAdd(bytes_wide(rep, c, in[i * HIST_CHANNELS + c]), 1u);
    }
    bytes_flush((uint32_t *)warp_bytes, rep, lane);
    __syncthreads();

    /* Sum the replicas of each counter; lane l starts at replica l. */
    for (uint32_t b = threadIdx.x; b < HIST_TOTAL_BINS; b += blockDim.x) {
        uint32_t sum = 0;
        for (uint32_t r = 0; r < BYTES_REPLICAS; r++)
            sum += wide[b * BYTES_REPLICAS + (r + lane) % BYTES_REPLICAS];
        if (sum)
            atomicAdd(&hist[b], sum);
    }
}

#define BYTES_KERNEL(name, loads, pairs)                                                       \
    extern "C" __global__ void __launch_bounds__(BYTES_WARPS * WARP_SIZE, 1)                  \
        name(const uint8_t *__restrict__ in, unsigned long long pixels,                        \
             uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)                         \
    {                                                                                          \
        const bytes_config cfg = {loads, pairs};                                               \
        (void)sink;                                                                            \
        bytes_histogram(in, pixels, hist, cfg);                                                \
    }

/*           name                    loads pairs */
BYTES_KERNEL(hist_fast_bytes,        8,    1)
BYTES_KERNEL(hist_fast_bytes_nopair, 8,    0)
BYTES_KERNEL(hist_fast_bytes4,       4,    1)
