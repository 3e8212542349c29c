/* Device helpers of the fast histogram that hist_fast_bytes reuses
 * (hist_fast.cu, hist_bytes.cu). */
#ifndef HIST_FAST_CUH
#define HIST_FAST_CUH

#include "hist_kernels.cuh"

static __device__ __forceinline__ uint32_t channel_of(uint32_t px, int c)
{
    return (px >> (8 * c)) & 0xffu;
}

/* Issues the 16-byte loads of one warp step: group k is the 32 words from
 * base + 32 k, one per lane. */
static __device__ __forceinline__ void fast_load(uint4 *px, const uint4 *__restrict__ in4,
                                                 unsigned long long base,
                                                 unsigned long long quads, uint32_t lane,
                                                 const int loads)
{
#pragma unroll
    for (int k = 0; k < loads; k++) {
        const unsigned long long q = base + (unsigned long long)k * WARP_SIZE + lane;
        px[k] = q < quads ? __ldg(&in4[q]) : make_uint4(0, 0, 0, 0);
    }
}

#endif
