/* What the gatomics suite's host code (gatomics_suite.c, C) and its kernels
 * (gatomics_kernels.cu, CUDA) share.  Not part of gpuq's API.
 *
 * Every timed operation is inline PTX so that the SASS holds exactly the
 * instruction named (LDG.E.STRONG, STG, ATOMG, RED/REDG; the SASS rows of the
 * suite check it), and every timing waits for the operation's result:
 *   load, load+store, atom, cas: the result is stored to shared memory
 *     before the closing clock read (Robertson made the second clock read
 *     depend on the result for the same reason: "the out-of-order
 *     capabilities of the compiler and/or chip were allowing all timing code
 *     to execute before any results were returned");
 *   store, red: they return nothing; a fence.acq_rel.gpu (MEMBAR) follows
 *     them inside the timed region, and it returns only once the write or
 *     reduction has been performed at L2.  The time is the round trip, the
 *     paper's "round-trip time to the controller", not the issue cost.
 * tests/papers/gatomics/test_gatomics_gpu.c checks that removing the dependency
 * changes the atomic's time (a timing that does not depend on the result
 * would not change).
 */
#ifndef GPUQ_GATOMICS_KERNELS_H
#define GPUQ_GATOMICS_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gb_gatomics_op {
    GB_GATOMICS_LD32 = 0, GB_GATOMICS_ST32, GB_GATOMICS_LDST32, GB_GATOMICS_RED32,
    GB_GATOMICS_ATOM32, GB_GATOMICS_CAS32,
    GB_GATOMICS_LD64, GB_GATOMICS_ST64, GB_GATOMICS_LDST64, GB_GATOMICS_RED64,
    GB_GATOMICS_ATOM64, GB_GATOMICS_CAS64,
    GB_GATOMICS_REDF32, GB_GATOMICS_ATOMF32,
    GB_GATOMICS_NONE, /* no memory operation: the FMA-only twin */
    GB_GATOMICS_OP_COUNT
} gb_gatomics_op;

/* Address patterns (the paper's three, and the suite's throughput ones). */
typedef enum gb_gatomics_pattern {
    GB_GATOMICS_PAT_SAME = 0,  /* every thread of an SM on one address; one address per SM
                                  (%smid) */
    GB_GATOMICS_PAT_STRIDED,   /* one address per thread, 128 bytes apart (no coalescing, no
                                  conflict) */
    GB_GATOMICS_PAT_COALESCED, /* one element per thread, consecutive (4 or 8 bytes) */
    GB_GATOMICS_PAT_ONE,       /* lane 0 of every warp of the GPU on one address (throughput) */
    GB_GATOMICS_PAT_ONE32,     /* every lane of every warp on one address (throughput) */
    GB_GATOMICS_PAT_FEW,       /* lane 0 of every warp, 64 addresses 1 KB apart (throughput) */
    GB_GATOMICS_PAT_DISTINCT,  /* every thread its own 32-byte sector (throughput) */
    GB_GATOMICS_PAT_COUNT
} gb_gatomics_pattern;

/* FMA counts compiled for the stall kernels (dependent chain between accesses). */
#define GB_GATOMICS_K_LIST {0, 16, 32, 50, 64, 96, 128, 192, 256, 384}
#define GB_GATOMICS_K_COUNT 10

/* Per-iteration stall time: per thread, the mean cycles of `iters` timed
 * iterations after `warm` untimed ones go to cycles[gtid]. */
typedef struct gb_gatomics_stall_args {
    int op, k, pattern, dep; /* dep 0: no result dependency (the GPU test's control) */
    unsigned grid, block;
    int iters, warm;
    void *buf;               /* device, zeroed, large enough for the pattern */
    float *cycles;           /* device [grid * block] */
    unsigned long long *sink;/* device [grid * block] */
} gb_gatomics_stall_args;
int gb_gatomics_launch_stall(const gb_gatomics_stall_args *a, void *stream);
/* Whether (op, k) has a compiled kernel (ops other than ATOM32/NONE: k 0, 50). */
int gb_gatomics_stall_has(int op, int k);

/* Clock cost: two back-to-back reads of %clock (which 0), %clock64 (1) or
 * %globaltimer (2, ns), 256 times; mean difference per thread. */
int gb_gatomics_launch_clock(int which, unsigned grid, unsigned block, float *out, void *stream);

/* Lock-width sweep (the paper's offset sweep): blocks of 8 warps, lanes 0..7,
 * address = 64 KB * block + 4096 * lane + offset * warp; atom.add.u32 timed
 * like the stall kernel. */
int gb_gatomics_launch_lock(unsigned grid, unsigned offset, int iters, int warm, void *buf,
                            float *cycles, unsigned long long *sink, void *stream);

/* Throughput: every active thread does `iters` operations of `op` (ATOM,
 * RED, CAS; 32/64-bit, f32) under `pattern` with no timing inside; the host
 * times the launch.  lanes_per_sector (sector experiment, pattern
 * DISTINCT only): 1, 2, 4, 8 threads share a 32-byte sector, 4 bytes apart. */
int gb_gatomics_launch_rate(int op, int pattern, int lanes_per_sector, unsigned grid,
                            unsigned block, int iters, void *buf, unsigned long long *sink,
                            void *stream);

/* Interference: blocks of even index do `iters` distinct-sector ATOMs per
 * thread and record their elapsed clock64 cycles in elapsed[block/2]; blocks of
 * odd index do hot_iters ATOMs (lane 0 only) on one address (0: leave). */
int gb_gatomics_launch_interfere(unsigned grid, unsigned block, int iters, int hot_iters, void *buf,
                                 unsigned long long *elapsed, unsigned long long *sink,
                                 void *stream);

#ifdef __cplusplus
}
#endif
#endif
