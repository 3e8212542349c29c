/* The histogram kernels behind a C interface: the paper's Listings 1 and 2
 * (paper 000, Sec. 4) in an ATOMS.ADD and an ATOMS.POPC.INC flavour, the fast
 * histogram (hist_fast) with its ablation variants, CUB's
 * DeviceHistogram::MultiHistogramEven as the library baseline, and a
 * DRAM read-bandwidth probe.
 *
 * Kernels live in hist_paper.cu, hist_fast.cu, hist_bytes.cu, hist_probe.cu
 * (CUDA C; hist_kernels.cu looks them up) and hist_cub.cu (the only C++);
 * the host side here is C11 on the CUDA runtime API.  Nothing prints or
 * exits: every CUDA error comes back as GM_ERR_CUDA with the call and the
 * runtime's message in the gm_error.
 *
 * Histogram layout everywhere: HIST_CHANNELS x HIST_BINS 32-bit counters,
 * channel c's bin v at c * HIST_BINS + v (hist_image.h).
 */
#ifndef HIST_GPU_H
#define HIST_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "gpuq/status.h"
#include "hist_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hist_kernel_id {
    HIST_K_HIST = 0,     /* Listing 1, channels 0..3, ATOMS.ADD (result read) */
    HIST_K_HIST2,        /* Listing 2, channels rotated by thread id, ATOMS.ADD */
    HIST_K_HIST_POPC,    /* Listing 1, result unused: ATOMS.POPC.INC */
    HIST_K_HIST2_POPC,   /* Listing 2, ATOMS.POPC.INC */
    HIST_K_FAST,         /* hist_fast: the fast histogram (docs/case-study/hist_fast_notes.md) */
    HIST_K_CUB,          /* cub::DeviceHistogram::MultiHistogramEven<4,4> */
    /* hist_fast ablations and diagnostics (hist_fast.cu, table at the end
     * of the fast-histogram section) */
    HIST_K_FAST_QSTEP,      /* quad test per step, branches on every path (run 3's hist_fast) */
    HIST_K_FAST_PLAIN,      /* no fast path for repeated values */
    HIST_K_FAST_QUADS,      /* quad test per group of 128 pixels instead of per step */
    HIST_K_FAST_RUNS,       /* warp-uniform register runs instead of the quad test */
    HIST_K_FAST_BRANCH,     /* plain, with each channel behind an opaque branch (diagnostic) */
    HIST_K_FAST_ADD,        /* plain with ATOMS.ADD instead of POPC.INC (diagnostic) */
    HIST_K_FAST_NOPREFETCH, /* quads, next step's loads not issued before counting */
    HIST_K_FAST_R16,        /* quads, 16 lane replicas instead of 32 */
    HIST_K_FAST_R1,         /* quads, one shared histogram (the paper's layout) */
    HIST_K_FAST_L1,         /* quads, one 16-byte load per lane and step */
    HIST_K_FAST_L8,         /* quads, eight 16-byte loads per lane and step, no prefetch */
    HIST_K_FAST_V1,         /* the first version: runs, no prefetch */
    HIST_K_FAST_V1PLAIN,    /* the first version without runs */
    HIST_K_FAST_H16,        /* plain, 16-bit counters: 64 KiB, 3 blocks of 512 per SM */
    HIST_K_FAST_H16Q,       /* h16 with the per-step quad test */
    HIST_K_FAST_H16W,       /* plain, 16-bit counters, 2 blocks of 1024 per SM (<= 32 registers) */
    HIST_K_FAST_BYTES,        /* lane-private 8-bit counters, LDS/STS, no atomics on random data */
    HIST_K_FAST_BYTES_NOPAIR, /* fast_bytes, one pixel's updates in flight at a time */
    HIST_K_FAST_BYTES4,       /* fast_bytes, four 16-byte loads per lane and step instead of 8 */
    HIST_K_FAST_MATCH,        /* warp-private 32-bit counters, duplicates via __match_any_sync */
    HIST_K_FAST_V4,           /* run 4's hist_fast: plain layout, shift/mask/LEA per address */
    HIST_K_COUNT
} hist_kernel_id;

typedef struct hist_kernel_desc {
    hist_kernel_id id;
    const char *name;    /* --kernel name */
    const char *symbol;  /* the __global__ function's name (extern "C"), for gpuq profile -k;
                            NULL for CUB (its kernels are CUB's) */
    int paper;           /* 1 for the paper's four kernels (the sweep) */
    const char *what;    /* one line for --help and reports */
} hist_kernel_desc;

/* HIST_K_COUNT rows in hist_kernel_id order. */
extern const hist_kernel_desc hist_kernel_table[HIST_K_COUNT];

/* The row for a --kernel name, or NULL. */
const hist_kernel_desc *hist_kernel_find(const char *name);

typedef struct hist_device_info {
    int device;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_sm;
    int max_threads_per_block;
    size_t shared_per_sm;          /* bytes */
    size_t shared_per_block_optin; /* bytes, the most one block may ask for */
    int driver_version, runtime_version;
} hist_device_info;

/* Per-process GPU state: device buffers sized for max_pixels, CUB temporary
 * storage, events.  Opaque. */
typedef struct hist_gpu hist_gpu;

/* Opens the current device and allocates.  GM_ERR_NO_GPU when no CUDA device
 * is usable (message says why). */
gm_status hist_gpu_create(size_t max_pixels, hist_gpu **out, gm_error *err);
void hist_gpu_destroy(hist_gpu *gpu);

const hist_device_info *hist_gpu_device(const hist_gpu *gpu);

/* Copies pixels * HIST_CHANNELS bytes to the device image buffer. */
gm_status hist_gpu_upload(hist_gpu *gpu, const hist_image *img, gm_error *err);

/* Blocks a kernel gets by default: SM count x resident blocks per SM at this
 * block size (cudaOccupancyMaxActiveBlocksPerMultiprocessor).  CUB picks its
 * own grid: 0.  GM_ERR_RANGE when threads is not a multiple of 32 in
 * 32..max_threads_per_block, or the kernel cannot run at that size. */
gm_status hist_gpu_default_blocks(hist_gpu *gpu, hist_kernel_id k, int threads, int *blocks,
                                  gm_error *err);

/* Enqueues one histogram of the first `pixels` pixels of the uploaded image:
 * zero the output, then the kernel(s).  threads/blocks are ignored for CUB. */
gm_status hist_gpu_run(hist_gpu *gpu, hist_kernel_id k, size_t pixels, int threads, int blocks,
                       gm_error *err);

/* Waits for the device and copies the histogram back. */
gm_status hist_gpu_result(hist_gpu *gpu, uint32_t out[HIST_TOTAL_BINS], gm_error *err);

/* Times `reps` runs of hist_gpu_run after `warmup` untimed ones, each between
 * two CUDA events (zeroing + kernel, as CUB's call also zeroes its output);
 * us[i] gets run i's microseconds.  Before each timed run a one-thread
 * kernel spins ~50 us, so that the host has queued the run and its stop
 * event before the start event executes: the interval holds GPU work only,
 * not the host's launch latency (the same for every probe below). */
gm_status hist_gpu_time(hist_gpu *gpu, hist_kernel_id k, size_t pixels, int threads, int blocks,
                        int warmup, int reps, double *us, gm_error *err);

/* Times `reps` cudaMemsetAsync calls that zero the output (the first half of
 * every hist_gpu_run of a shared-memory kernel), to show what it adds. */
gm_status hist_gpu_zero_time(hist_gpu *gpu, int warmup, int reps, double *us, gm_error *err);

/* DRAM read bandwidth of the device image buffer (bytes = pixels * 4):
 * a read-only kernel that loads every 16-byte word and folds it into a
 * checksum (so the loads cannot be dropped), tried at a few launch shapes;
 * us[] gets the `reps` times of the fastest shape (by median).
 * *checksum: the folded value, to print. */
gm_status hist_gpu_read_bandwidth(hist_gpu *gpu, size_t pixels, int warmup, int reps,
                                  double *us, uint32_t *checksum, char *shape, size_t shape_len,
                                  gm_error *err);

/* cudaMemcpy device-to-device of the image into a second buffer (reads and
 * writes `pixels * 4` bytes each), `reps` times. */
gm_status hist_gpu_copy_bandwidth(hist_gpu *gpu, size_t pixels, int warmup, int reps,
                                  double *us, gm_error *err);

/* ---- implemented in the .cu files (kernel symbols and CUB) ---- */

/* The __global__ function of a kernel (for cudaLaunchKernel and the
 * occupancy/attribute calls), NULL for CUB.  All take
 * (const uint8_t *rgba, unsigned long long pixels, uint32_t *hist, uint32_t *sink). */
const void *hist_kernel_function(hist_kernel_id k);

/* Dynamic shared memory a kernel needs (bytes; 0 for the paper's kernels,
 * which declare theirs statically). */
size_t hist_kernel_dynamic_shared(hist_kernel_id k);

/* Kernels with 16-bit counters: the most pixels one lane column of one
 * block may count (65535), and the loads per step; 0 for 32-bit counters. */
unsigned long long hist_kernel_lane_limit(hist_kernel_id k, int *loads);

/* The delay kernel (hist_delay(long long cycles)) that covers launch latency
 * in timed runs. */
const void *hist_delay_function(void);

/* The read-bandwidth kernel, `loads` (4 or 8) 16-byte loads in flight per
 * thread: (const uint4 *in, unsigned long long words, uint32_t *sink). */
const void *hist_read_function(int loads);

/* CUB: temporary storage size for `pixels`, then the run (zeroes hist
 * itself).  Return the CUDA error code. */
int hist_cub_temp_bytes(size_t pixels, size_t *bytes);
int hist_cub_run(void *temp, size_t temp_bytes, const uint8_t *rgba, size_t pixels,
                 uint32_t *hist, void *stream);

#ifdef __cplusplus
}
#endif
#endif
