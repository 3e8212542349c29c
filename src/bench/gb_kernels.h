/* What the host launcher (bench_cuda.c, C) and the kernels (gb_kernels.cu,
 * CUDA) share: the per-SM cell descriptor, the per-SM result, the kernel
 * parameters and the table of kernels per job class.  Not part of gpuq's API.
 */
#ifndef GPUQ_GB_KERNELS_H
#define GPUQ_GB_KERNELS_H

#include "gpuq/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shared-memory words a block zeroes and aims at: up to 32 warps x 32 lanes
 * in the distinct-bank pattern. */
#define GB_TARGET_WORDS 1024

/* The cell one SM measures in one launch, indexed by %smid so that both
 * blocks of a co-resident pair find the same cell. */
typedef struct gb_cell_desc {
    int active;      /* 0: no cell on this SM in this launch */
    int n, e, c;
    int lane_stride; /* words between lanes: 0 same address, 1 distinct bank */
    int warp_stride; /* words between the warps' targets: 0 same address, 32 distinct bank */
    int rounds;      /* atomics per warp: 1 single-shot, GB_STEADY_ROUNDS steady state */
    /* Bit w: warp w of the cell issues CAS (c of the n bits set, spread
     * evenly).  Computed on the host: a division in the kernel would sit
     * between the start barrier and the atomics. */
    unsigned cas_mask_lo, cas_mask_hi;
    /* 1 and 0 as values loaded from memory before the start: the ADD operand,
     * and the mask that makes addresses and clock reads depend on results.
     * Kernel parameters would be re-read from the constant bank inside the
     * timed region. */
    unsigned one, zero_mask;
} gb_cell_desc;

/* What the blocks on one SM leave behind; zeroed before every launch. */
typedef struct gb_sm_result {
    unsigned long long first_inv; /* ~(first arrival): atomicMax of ~t is the min of t with 0 as the neutral start */
    unsigned long long last;      /* last completion */
    unsigned long long t0;        /* agreed start time (clock64 of this SM) */
    /* Diagnostics (gb_launch_detail): last arrival, and per block role the
     * first arrival (inverted, as above) and the last completion. */
    unsigned long long last_arrival;
    unsigned long long role_first_inv[2];
    unsigned long long role_last[2];
    unsigned arrive;              /* blocks that reached this SM (role = arrival order) */
    unsigned ready;               /* blocks at the start barrier */
    unsigned ok;                  /* blocks that met their partner in time and measured */
    unsigned pad;
} gb_sm_result;

typedef struct gb_kernel_params {
    const gb_cell_desc *cells;  /* [nsmid] */
    gb_sm_result *results;      /* [nsmid] */
    unsigned nsmid;
    unsigned blocks_per_cell;   /* 1 for n <= 32, 2 above */
    unsigned long long start_margin;       /* cycles from the rendezvous to the common start */
    unsigned long long rendezvous_timeout; /* cycles a block waits for its partner */
} gb_kernel_params;

/* One row per job class with a kernel: the single-shot and steady-state
 * instances of the one templated kernel, as host stubs for cudaLaunchKernel. */
typedef struct gb_kernel_row {
    gm_job_class cls;
    int mixes_cas;
    const void *kernel[GM_METHOD_COUNT];
} gb_kernel_row;

extern const gb_kernel_row gb_kernel_rows[];
extern const int gb_kernel_row_count;

/* Writes %smid and %nsmid of each block: out[2 * blockIdx.x], out[2 * blockIdx.x + 1]. */
extern const void *const gb_smid_kernel;
/* Per block: clock64 and %globaltimer (ns) elapsed over duration_ns of spinning:
 * out[2 * blockIdx.x] cycles, out[2 * blockIdx.x + 1] ns.
 * Parameters: (unsigned long long duration_ns, unsigned long long *out). */
extern const void *const gb_clock_kernel;

#ifdef __cplusplus
}
#endif
#endif
