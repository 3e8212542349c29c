/* Histogram kernels (CUDA C): the paper's Listings 1 and 2 (paper 000,
 * Sec. 4) in ATOMS.ADD and ATOMS.POPC.INC flavours (hist_paper.cu), the fast
 * histogram and its ablations (hist_fast.cu, hist_bytes.cu), and the delay
 * and DRAM read-bandwidth probes (hist_probe.cu).  This file is the
 * host-side lookup from hist_kernel_id to kernel, its shared memory and
 * lane limit.
 */
#include "hist_kernels.cuh"

/* The image kernels all take (in, pixels, hist, sink). */
#define IMAGE_KERNEL(name)                                                                  \
    extern "C" __global__ void name(const uint8_t *__restrict__ in, unsigned long long pixels, \
                                    uint32_t *__restrict__ hist, uint32_t *__restrict__ sink)

/* Defined in hist_paper.cu, hist_fast.cu and hist_bytes.cu. */
IMAGE_KERNEL(hist_add);
IMAGE_KERNEL(hist2_add);
IMAGE_KERNEL(hist_popc);
IMAGE_KERNEL(hist2_popc);
IMAGE_KERNEL(hist_fast);
IMAGE_KERNEL(hist_fast_qstep);
IMAGE_KERNEL(hist_fast_plain);
IMAGE_KERNEL(hist_fast_quads);
IMAGE_KERNEL(hist_fast_runs);
IMAGE_KERNEL(hist_fast_branch);
IMAGE_KERNEL(hist_fast_add);
IMAGE_KERNEL(hist_fast_noprefetch);
IMAGE_KERNEL(hist_fast_r16);
IMAGE_KERNEL(hist_fast_r1);
IMAGE_KERNEL(hist_fast_l1);
IMAGE_KERNEL(hist_fast_l8);
IMAGE_KERNEL(hist_fast_v1);
IMAGE_KERNEL(hist_fast_v1plain);
IMAGE_KERNEL(hist_fast_h16);
IMAGE_KERNEL(hist_fast_h16q);
IMAGE_KERNEL(hist_fast_h16w);
IMAGE_KERNEL(hist_fast_bytes);
IMAGE_KERNEL(hist_fast_bytes_nopair);
IMAGE_KERNEL(hist_fast_bytes4);
IMAGE_KERNEL(hist_fast_match);
IMAGE_KERNEL(hist_fast_v4);
#undef IMAGE_KERNEL

/* Defined in hist_probe.cu. */
extern "C" __global__ void hist_delay(long long cycles);
extern "C" __global__ void hist_read4(const uint4 *__restrict__ in, unsigned long long words,
                                      uint32_t *__restrict__ sink);
extern "C" __global__ void hist_read8(const uint4 *__restrict__ in, unsigned long long words,
                                      uint32_t *__restrict__ sink);

/* ---- Host-side lookup ---------------------------------------------------- */

const void *hist_kernel_function(hist_kernel_id k)
{
    switch (k) {
    case HIST_K_HIST: return (const void *)hist_add;
    case HIST_K_HIST2: return (const void *)hist2_add;
    case HIST_K_HIST_POPC: return (const void *)hist_popc;
    case HIST_K_HIST2_POPC: return (const void *)hist2_popc;
    case HIST_K_FAST: return (const void *)hist_fast;
    case HIST_K_FAST_QSTEP: return (const void *)hist_fast_qstep;
    case HIST_K_FAST_PLAIN: return (const void *)hist_fast_plain;
    case HIST_K_FAST_QUADS: return (const void *)hist_fast_quads;
    case HIST_K_FAST_RUNS: return (const void *)hist_fast_runs;
    case HIST_K_FAST_BRANCH: return (const void *)hist_fast_branch;
    case HIST_K_FAST_ADD: return (const void *)hist_fast_add;
    case HIST_K_FAST_NOPREFETCH: return (const void *)hist_fast_noprefetch;
    case HIST_K_FAST_R16: return (const void *)hist_fast_r16;
    case HIST_K_FAST_R1: return (const void *)hist_fast_r1;
    case HIST_K_FAST_L1: return (const void *)hist_fast_l1;
    case HIST_K_FAST_L8: return (const void *)hist_fast_l8;
    case HIST_K_FAST_V1: return (const void *)hist_fast_v1;
    case HIST_K_FAST_V1PLAIN: return (const void *)hist_fast_v1plain;
    case HIST_K_FAST_H16: return (const void *)hist_fast_h16;
    case HIST_K_FAST_H16Q: return (const void *)hist_fast_h16q;
    case HIST_K_FAST_H16W: return (const void *)hist_fast_h16w;
    case HIST_K_FAST_BYTES: return (const void *)hist_fast_bytes;
    case HIST_K_FAST_BYTES_NOPAIR: return (const void *)hist_fast_bytes_nopair;
    case HIST_K_FAST_BYTES4: return (const void *)hist_fast_bytes4;
    case HIST_K_FAST_MATCH: return (const void *)hist_fast_match;
    case HIST_K_FAST_V4: return (const void *)hist_fast_v4;
    case HIST_K_CUB:
    case HIST_K_COUNT: break;
    }
    return NULL;
}

size_t hist_kernel_dynamic_shared(hist_kernel_id k)
{
    const size_t copy = HIST_TOTAL_BINS * sizeof(uint32_t);

    switch (k) {
    case HIST_K_HIST:
    case HIST_K_HIST2:
    case HIST_K_HIST_POPC:
    case HIST_K_HIST2_POPC:
    case HIST_K_CUB:
    case HIST_K_COUNT: return 0;
    case HIST_K_FAST_BYTES:
    case HIST_K_FAST_BYTES_NOPAIR:
    case HIST_K_FAST_BYTES4: return BYTES_SHARED;
    case HIST_K_FAST_R16: return 16 * copy;
    case HIST_K_FAST_R1: return copy;
    case HIST_K_FAST_H16:
    case HIST_K_FAST_H16Q:
    case HIST_K_FAST_H16W: return 32 * copy / 2;
    default: return 32 * copy;
    }
}

unsigned long long hist_kernel_lane_limit(hist_kernel_id k, int *loads)
{
    switch (k) {
    case HIST_K_FAST_H16:
    case HIST_K_FAST_H16Q:
    case HIST_K_FAST_H16W: *loads = 2; return 0xffffull; /* FAST_KERNEL table: loads 2 */
    default: *loads = 0; return 0;
    }
}

const void *hist_delay_function(void)
{
    return (const void *)hist_delay;
}

const void *hist_read_function(int loads)
{
    return loads == 8 ? (const void *)hist_read8 : (const void *)hist_read4;
}
