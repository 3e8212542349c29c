/* The paper's histogram kernels (CUDA C): Listings 1 and 2 (paper 000,
 * Sec. 4) in ATOMS.ADD and ATOMS.POPC.INC flavours. */
#include "hist_kernels.cuh"

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
