/* What the histogram kernels share (hist_paper.cu, hist_fast.cu,
 * hist_bytes.cu, hist_probe.cu and the host-side lookup in hist_kernels.cu).
 * Every kernel is extern "C", so its symbol is its plain name (gpuq profile
 * -k '^hist_add$').  Launched from C through cudaLaunchKernel (hist_gpu.c).
 */
#ifndef HIST_KERNELS_CUH
#define HIST_KERNELS_CUH

#include <stdint.h>

#include "hist_gpu.h"

#define FULL_WARP 0xffffffffu
#define WARP_SIZE 32

/* The most 16-byte loads in flight per lane (hist_fast.cu, hist_bytes.cu,
 * hist_probe.cu). */
#define FAST_MAX_LOADS 8

/* Shared memory of hist_fast_bytes (hist_bytes.cu has the layout); the
 * host-side lookup sizes its launch from BYTES_SHARED. */
#define BYTES_WARPS 6
#define BYTES_REPLICAS 8
#define BYTES_WARP_SPAN (HIST_BINS * WARP_SIZE * HIST_CHANNELS) /* 32 KiB per warp */
#define BYTES_SHARED \
    (BYTES_WARPS * BYTES_WARP_SPAN + BYTES_REPLICAS * HIST_TOTAL_BINS * (int)sizeof(uint32_t))
#define BYTES_OVERFLOW 0x80u /* an old counter value with this bit set: flush */

#endif
