/* The kernels that time the histogram rather than compute it (CUDA C): the
 * delay kernel before each timed run and the DRAM read-bandwidth probe. */
#include "hist_kernels.cuh"

/* Spins one thread for `cycles` SM cycles.  Launched before each timed run,
 * it keeps the GPU busy while the host queues the run and its events, so
 * that the host's launch latency stays out of the measured interval. */
extern "C" __global__ void hist_delay(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

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
