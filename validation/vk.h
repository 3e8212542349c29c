/* The validation suite: kernels whose shared-memory atomic busy time is known
 * by construction, the ground truth against which every utilization number
 * gpuq prints is checked (docs/validation.md).  Prefix vk_.
 *
 * Four groups (the list, docs/validation.md says why each is truth):
 *   atomic  warps that do nothing but shared atomics: true U is about 100%
 *   free    no shared atomics at all (FMA, streaming loads, LDS/STS, global
 *           atomics): true U = 0
 *   mixed   per atomic, k units of independent other work (FMAs or global
 *           loads): U_true(k) = T(atomics-only, k = 0) / T(k)
 *   real    the paper's histogram kernels (Sec. 4, Listings 1 and 2) and CUB's
 *           DeviceHistogram: U_true from an atomics-only replay where one exists
 *
 * Adding a case: one more row from vk_build_cases() in validate_app.cu; a new
 * (op, chain, work, k) combination of the loop kernel also needs one entry
 * in VK_LOOP_VARIANTS (kernels.cu).
 */
#ifndef GPUQ_VALIDATION_VK_H
#define GPUQ_VALIDATION_VK_H

#include <cuda_runtime.h>

typedef enum vk_group { VK_GROUP_ATOMIC = 0, VK_GROUP_FREE, VK_GROUP_MIXED, VK_GROUP_REAL, VK_GROUP_COUNT } vk_group;

/* Which shared atomic each warp issues.  The two mixes split the warps of a
 * block: warps [0, alt_warps) issue the second opcode. */
typedef enum vk_op {
    VK_OP_NONE = 0,     /* no shared atomics (atomic-free group) */
    VK_OP_ADD,          /* atomicAdd, old value used: ATOMS.ADD (the paper's FAO) */
    VK_OP_POPC,         /* atomicAdd(p, 1), old value unused: ATOMS.POPC.INC */
    VK_OP_CAS,          /* atomicCAS: ATOMS.CAS */
    VK_OP_MIX_ADD_CAS,  /* ADD warps plus alt_warps CAS warps per block (the paper's c) */
    VK_OP_MIX_POPC_ADD, /* POPC.INC warps plus alt_warps ADD warps per block */
    VK_OP_COUNT
} vk_op;

/* Other work per atomic (mixed group) or the only work (atomic-free group). */
typedef enum vk_work {
    VK_WORK_NONE = 0,
    VK_WORK_FMA,   /* k FP32 FMAs, independent of the atomics (4 chains) */
    VK_WORK_GLOAD, /* k coalesced 4-byte loads per lane from a buffer larger than L2 */
    VK_WORK_LDS,   /* k shared load + store pairs (LDS/STS, never ATOMS) */
    VK_WORK_REDG,  /* k global atomicAdds with the result unused (RED, not ATOMS) */
    VK_WORK_COUNT
} vk_work;

/* Which kernel a case runs. */
typedef enum vk_family {
    VK_FAMILY_LOOP = 0, /* vk_loop: atomics and/or work in a loop (groups atomic, free, mixed) */
    VK_FAMILY_HIST,     /* the paper's Listing 1 */
    VK_FAMILY_HIST2,    /* the paper's Listing 2 (channels reordered by thread id) */
    VK_FAMILY_CUB,      /* cub::DeviceHistogram::MultiHistogramEven<4, 4> */
    VK_FAMILY_HASH,     /* vk_hash: shared-memory hash table, CAS inserts (hash.cu) */
    VK_FAMILY_COUNT
} vk_family;

/* Where the active lanes of one warp-instruction point.  The loop kernel
 * computes each lane's word as
 *   warp * warp_stride + (lane & lane_mask) + (lane >> lane_shift) * row_stride
 * from run-time values, so the compiler can never prove an address
 * warp-uniform and aggregate the atomics (hopper-probe.md, "Trap"). */
typedef enum vk_pattern {
    VK_PAT_NONE = 0,      /* no atomics */
    VK_PAT_SAME,          /* all active lanes on one word, one word per warp: serialization e */
    VK_PAT_SHARED_WORD,   /* all active lanes of all warps of a block on one word */
    VK_PAT_BANK,          /* bank_ways distinct words in each bank (k-way bank conflict) */
    VK_PAT_FREE,          /* one word per lane, all in different banks */
    VK_PAT_SOLID,         /* histogram of a one-colour image (real group) */
    VK_PAT_UNIFORM,       /* histogram of a uniformly random image (real group) */
    VK_PAT_HASH,          /* hash-table slots of distinct keys, linear probing */
    VK_PAT_COUNT
} vk_pattern;

/* One validation case: everything that defines its launch and its atomic
 * instruction stream. */
typedef struct vk_case {
    char name[80];
    vk_group group;
    vk_family family;
    vk_op op;
    vk_pattern pattern;
    int bank_ways;     /* VK_PAT_BANK: 2..32 */
    int e;             /* active lanes per warp-instruction, 1..32 */
    int chain;         /* 1: each atomic's address depends on the previous result */
    vk_work work;
    int k;             /* work units per atomic (per loop trip in the free group) */
    int threads;       /* per block */
    int blocks_per_sm; /* resident blocks per SM, enforced with dynamic shared memory */
    int waves;         /* grid = waves x blocks_per_sm x SMs (loop family) */
    int alt_warps;     /* mixes: warps per block that issue the second opcode */
    int use_result;    /* histograms: 1 = old value used (ATOMS.ADD), 0 = POPC.INC */
} vk_case;

/* Everything the loop kernel reads; passed by value. */
typedef struct vk_loop_args {
    unsigned iters;        /* loop trips per warp */
    int e;                 /* lanes [0, e) are active */
    unsigned lane_mask, lane_shift, row_stride, warp_stride; /* address pattern, see vk_pattern */
    int alt_warps;
    unsigned zero;         /* always 0, but a run-time value: chains and addresses */
    float fma_mul, fma_add;
    const unsigned *gbuf;  /* VK_WORK_GLOAD source */
    unsigned gmask;        /* gbuf words - 1 (a power of two) */
    unsigned *gatom;       /* VK_WORK_REDG targets (1024 words) */
    unsigned *out;         /* one word per thread: keeps every result live */
    int smem_words;        /* words of dynamic shared memory the kernel zeroes */
} vk_loop_args;

/* Words of shared memory the loop kernel touches: atomics region (up to
 * 31 * 32 + 31 + 32 warps) and the LDS/STS region behind it. */
#define VK_LOOP_ATOMIC_WORDS 1088
#define VK_LOOP_LDS_WORDS 1024
#define VK_LOOP_SMEM_WORDS (VK_LOOP_ATOMIC_WORDS + VK_LOOP_LDS_WORDS)

/* The loop kernel for (op, chain, work, k), or NULL where that combination
 * is not compiled (VK_LOOP_VARIANTS in kernels.cu: k is a template argument,
 * so that k units of work are exactly k instructions). */
const void *vk_loop_kernel(vk_op op, int chain, vk_work work, int k);
cudaError_t vk_loop_launch(const void *kernel, unsigned blocks, unsigned threads,
                           size_t smem_bytes, cudaStream_t stream, const vk_loop_args *args);

/* Histogram kernels (real.cu).  `replay` runs the same atomic instruction
 * stream with the pixel computed in registers instead of loaded. */
typedef struct vk_hist_args {
    const unsigned *image;  /* RGBA pixels, one 32-bit word each */
    unsigned pixels;
    unsigned solid_rgba;    /* replay of a solid image: the colour */
    int uniform;            /* replay of the uniform image: vk_pixel_hash(i) */
    unsigned zero;          /* run-time 0 (keeps the replay address per-lane) */
    unsigned *hist;         /* 1024 global counters */
    unsigned *sink;         /* written only if an impossible sum comes out */
} vk_hist_args;

const void *vk_hist_kernel(int reorder, int use_result, int replay);
cudaError_t vk_hist_launch(const void *kernel, unsigned blocks, unsigned threads,
                           cudaStream_t stream, const vk_hist_args *args);

/* The uniform test image: pixel i = vk_pixel_hash(i), on host and device. */
__host__ __device__ static inline unsigned vk_pixel_hash(unsigned i)
{
    unsigned x = i * 0x9E3779B1u + 0x7F4A7C15u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return x;
}

/* The hash-table kernel (hash.cu).  Table of `slots` words (a power of two)
 * in dynamic shared memory; each round every thread inserts keys_per_round
 * distinct keys.  *fail counts blocks whose final table is wrong. */
typedef struct vk_hash_args {
    unsigned rounds;         /* loop trips (the case's iters) */
    unsigned slots;
    unsigned keys_per_round;
    unsigned seed;           /* keys are (index ^ seed); 0 keeps them below VK_HASH_EMPTY */
    unsigned *fail;
    unsigned *out;           /* one word per thread: keeps the probe counts live */
} vk_hash_args;

#define VK_HASH_SLOTS 16384u        /* 64 KiB of table */
#define VK_HASH_KEYS_PER_ROUND 16u  /* x 512 threads: load factor 1/2 */

/* mode 1: CAS inserts; 0: the twin without probing; 2: probing with plain
 * LDS/STS (hash.cu). */
const void *vk_hash_kernel(int mode);
cudaError_t vk_hash_launch(const void *kernel, unsigned blocks, unsigned threads, size_t smem_bytes,
                           cudaStream_t stream, const vk_hash_args *args);

/* CUB's DeviceHistogram::MultiHistogramEven<4, 4> over 8-bit RGBA pixels,
 * 256 bins per channel.  vk_cub_prepare sizes and allocates temporary
 * storage; vk_cub_run launches (no allocation, no synchronization). */
typedef struct vk_cub_state {
    void *temp;
    size_t temp_bytes;
    unsigned *hist[4];
} vk_cub_state;

cudaError_t vk_cub_prepare(vk_cub_state *st, const unsigned *image, unsigned pixels);
cudaError_t vk_cub_run(vk_cub_state *st, const unsigned *image, unsigned pixels, cudaStream_t stream);
void vk_cub_release(vk_cub_state *st);

#endif
