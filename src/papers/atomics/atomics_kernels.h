/* What the host launcher (atomics_bench_cuda.c, C) and the kernels (atomics_kernels.cu,
 * CUDA) share: the per-SM cell descriptor, the per-SM result, the kernel
 * parameters and the table of kernels per job class.  Not part of gpuq's API.
 */
#ifndef GPUQ_ATOMICS_KERNELS_H
#define GPUQ_ATOMICS_KERNELS_H

#include "atomics_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shared-memory words a block zeroes and aims at: up to 32 warps x 32 lanes
 * in the distinct-bank pattern. */
#define GB_ATOMICS_TARGET_WORDS 1024
/* Most measurements one kernel makes per SM (inner repetitions). */
#define GB_ATOMICS_MAX_INNER_REPS 8
/* Warps of one cell: two blocks of up to 32. */
#define GB_ATOMICS_MAX_CELL_WARPS 64

/* Kernel variants, for the diagnostics only (tests/papers/atomics/bench_skew.c);
 * calibrate uses 0.
 * GB_ATOMICS_VARIANT_IMMEDIATE: a warp reduces its lanes' times (shuffles) and stores
 *   them as soon as its own atomic is done, while other warps may still be
 *   measuring (the write-out of the first calibrate version), instead of
 *   waiting for the end of the measurement window.
 * GB_ATOMICS_VARIANT_GLOBAL_NOW: in addition, lane 0 of each warp issues five
 *   global 64-bit atomics right away (what the first version wrote).
 * GB_ATOMICS_VARIANT_ALL_SPIN: every warp spins on the clock until the start,
 *   instead of warp 0 alone followed by the block's barrier. */
#define GB_ATOMICS_VARIANT_IMMEDIATE 0x1u
#define GB_ATOMICS_VARIANT_GLOBAL_NOW 0x2u
#define GB_ATOMICS_VARIANT_ALL_SPIN 0x4u

/* The cell one SM measures in one launch, indexed by %smid so that both
 * blocks of a co-resident pair find the same cell. */
typedef struct gb_atomics_cell_desc {
    int active;      /* 0: no cell on this SM in this launch */
    int n, e, c;
    int lane_stride; /* words between lanes: 0 same address, 1 distinct bank */
    int warp_stride; /* words between the warps' targets: 0 same address, 32 distinct bank */
    int rounds;      /* atomics per warp: 1 single-shot, GB_ATOMICS_STEADY_ROUNDS steady state */
    /* Bit w: warp w of the cell issues CAS (c of the n bits set, spread
     * evenly).  Computed on the host: a division in the kernel would sit
     * between the start barrier and the atomics. */
    unsigned cas_mask_lo, cas_mask_hi;
    /* 1 and 0 as values loaded from memory before the start: the ADD operand,
     * and the mask that makes addresses and clock reads depend on results.
     * Kernel parameters would be re-read from the constant bank inside the
     * timed region. */
    unsigned one, zero_mask;
    /* Measurement k starts at t0 + k * period (SM clock).  Nothing but the
     * measured atomics runs on the SM from t0 + k * period until
     * + window: both blocks' warps park at their barrier after their atomic,
     * and only then read out their clocks (shuffles, shared stores). */
    unsigned window;
    unsigned period;
} gb_atomics_cell_desc;

/* One measurement (inner repetition) on one SM: clock offsets from its
 * start, reduced over both blocks. */
typedef struct gb_atomics_inner_result {
    unsigned first_inv;    /* ~(first arrival): atomicMax of ~t is the min of t, 0 the neutral start */
    unsigned last_arrival; /* last arrival */
    unsigned last;         /* last completion */
    unsigned late;         /* blocks whose start came after the planned start time */
} gb_atomics_inner_result;

/* What the blocks on one SM leave behind; zeroed before every launch. */
typedef struct gb_atomics_sm_result {
    unsigned long long t0; /* agreed start time (clock64 of this SM) */
    unsigned arrive;       /* blocks that reached this SM (role = arrival order) */
    unsigned ready;        /* blocks at the start barrier */
    unsigned ok;           /* blocks that met their partner in time and measured */
    unsigned pad;
    gb_atomics_inner_result inner[GB_ATOMICS_MAX_INNER_REPS];
    unsigned long long scratch[6]; /* GB_ATOMICS_VARIANT_GLOBAL_NOW writes here */
} gb_atomics_sm_result;

/* One warp's clock readings in one measurement, as offsets from its start:
 * staged in shared memory, reduced per block, and copied out whole for the
 * diagnostics (gb_atomics_launch_warps). */
typedef struct gb_atomics_warp_times {
    unsigned first_arrival; /* first lane's arrival (0xffffffff: no active lane) */
    unsigned last_arrival;
    unsigned completion;    /* last lane's completion */
    unsigned hw;            /* bits 0..7 %warpid, bit 8 block role, bit 31 late start */
} gb_atomics_warp_times;

typedef struct gb_atomics_kernel_params {
    const gb_atomics_cell_desc *cells; /* [nsmid] */
    gb_atomics_sm_result *results; /* [nsmid] */
    gb_atomics_warp_times *diag; /* NULL, or [nsmid][inner_reps][GB_ATOMICS_MAX_CELL_WARPS] */
    unsigned nsmid;
    unsigned blocks_per_cell;   /* 1 for n <= 32, 2 above */
    unsigned inner_reps;        /* measurements per SM, 1..GB_ATOMICS_MAX_INNER_REPS */
    unsigned variant;           /* GB_ATOMICS_VARIANT_* (diagnostics), 0 */
    unsigned long long start_margin;       /* cycles from the rendezvous to the common start */
    unsigned long long rendezvous_timeout; /* cycles a block waits for its partner */
} gb_atomics_kernel_params;

/* One row per job class with a kernel: the single-shot and steady-state
 * instances of the one templated kernel, as host stubs for cudaLaunchKernel. */
typedef struct gb_atomics_kernel_row {
    gm_atomics_job_class cls;
    int mixes_cas;
    const void *kernel[GM_ATOMICS_METHOD_COUNT];
} gb_atomics_kernel_row;

extern const gb_atomics_kernel_row gb_atomics_kernel_rows[];
extern const int gb_atomics_kernel_row_count;

/* Writes %smid and %nsmid of each block: out[2 * blockIdx.x], out[2 * blockIdx.x + 1]. */
extern const void *const gb_atomics_smid_kernel;
/* Per block: clock64 and %globaltimer (ns) elapsed over duration_ns of spinning:
 * out[2 * blockIdx.x] cycles, out[2 * blockIdx.x + 1] ns.
 * Parameters: (unsigned long long duration_ns, unsigned long long *out). */
extern const void *const gb_atomics_clock_kernel;

#ifdef __cplusplus
}
#endif
#endif
