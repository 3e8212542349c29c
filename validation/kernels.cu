/* The loop kernel of the validation suite (groups atomic, free and mixed):
 * each warp runs `iters` trips; per trip one shared atomic (op) and K units
 * of other work (work).  The atomics and the work are independent, so the
 * work can overlap with atomics in flight, as in real code.
 *
 * K is a template parameter: the work is fully unrolled, so K units are K
 * instructions of that kind (plus address arithmetic for loads), not K trips
 * of a run-time loop whose control would be extra, unnamed work (a first run
 * with a run-time k made k = 1 FMA cost a POPC.INC kernel 4x its time).
 *
 * Every address and every chain goes through run-time values (vk_loop_args:
 * lane_mask, row_stride, zero), so nvcc can neither aggregate a warp's
 * atomics nor drop work; every result reaches args.out.  check_sass.py
 * verifies the opcodes in the built binary (cuobjdump -sass).
 */
#include "vk.h"

/* Per-thread state threaded through the loop. */
struct vk_state {
    unsigned acc;          /* sum of atomic results (ADD/CAS): keeps them used */
    float f0, f1, f2, f3;  /* four independent FMA chains */
    unsigned g;            /* sum of global loads */
};

/* One shared atomic of opcode OP1 (never a mix).  CHAIN = 1 makes the next
 * address depend on this result (old & zero == 0 at run time), so one warp
 * has one atomic in flight; CHAIN = 0 lets the unrolled loop issue several. */
template <int OP1, int CHAIN>
__device__ __forceinline__ void vk_one_atomic(unsigned *&a, unsigned i, unsigned zero, vk_state &s)
{
    if (OP1 == VK_OP_ADD) {
        unsigned old = atomicAdd(a, 1u);
        s.acc += old;
        if (CHAIN)
            a += old & zero;
    } else if (OP1 == VK_OP_POPC) {
        atomicAdd(a, 1u); /* result unused: ATOMS.POPC.INC on sm_80+ */
    } else if (OP1 == VK_OP_CAS) {
        unsigned cmp = CHAIN ? s.acc : i;
        unsigned old = atomicCAS(a, cmp, cmp + 1u);
        s.acc += old;
        if (CHAIN)
            a += old & zero;
    }
}

/* K units of other work for loop trip i. */
template <int WORK, int K>
__device__ __forceinline__ void vk_work_units(const vk_loop_args &p, unsigned i, unsigned gtid,
                                              unsigned nthreads, unsigned *lds_word, vk_state &s)
{
    if (WORK == VK_WORK_FMA) {
#pragma unroll
        for (int j = 0; j < K; j++) {
            /* Four independent chains, so FMA latency does not serialize them. */
            if ((j & 3) == 0)
                s.f0 = fmaf(s.f0, p.fma_mul, p.fma_add);
            else if ((j & 3) == 1)
                s.f1 = fmaf(s.f1, p.fma_mul, p.fma_add);
            else if ((j & 3) == 2)
                s.f2 = fmaf(s.f2, p.fma_mul, p.fma_add);
            else
                s.f3 = fmaf(s.f3, p.fma_mul, p.fma_add);
        }
    } else if (WORK == VK_WORK_GLOAD) {
        /* Consecutive lanes read consecutive words (128 B per warp-load); the
         * whole grid sweeps a buffer larger than L2, so loads go to DRAM. */
        unsigned base = i * (unsigned)K * nthreads + gtid;
#pragma unroll
        for (int j = 0; j < K; j++)
            s.g += __ldcg(p.gbuf + ((base + (unsigned)j * nthreads) & p.gmask));
    } else if (WORK == VK_WORK_LDS) {
        volatile unsigned *q = lds_word; /* volatile: one LDS and one STS per unit */
#pragma unroll
        for (int j = 0; j < K; j++)
            *q = *q + 1u;
    } else if (WORK == VK_WORK_REDG) {
#pragma unroll
        for (int j = 0; j < K; j++)
            atomicAdd(p.gatom + ((gtid + (unsigned)j) & 1023u), 1u); /* RED.E.ADD, not ATOMS */
    }
}

template <int OP1, int CHAIN, int WORK, int K>
__device__ __forceinline__ void vk_trips(const vk_loop_args &p, unsigned *a, unsigned gtid,
                                         unsigned nthreads, unsigned *lds_word, vk_state &s)
{
    /* Short bodies are unrolled 4x to amortize loop control; long ones are
     * not, to keep the body inside the instruction cache. */
    constexpr int unroll = K >= 16 ? 1 : 4;
#pragma unroll unroll
    for (unsigned i = 0; i < p.iters; i++) {
        vk_one_atomic<OP1, CHAIN>(a, i, p.zero, s);
        vk_work_units<WORK, K>(p, i, gtid, nthreads, lds_word, s);
    }
}

template <int OP, int CHAIN, int WORK, int K>
__global__ void __launch_bounds__(1024, 2) vk_loop(vk_loop_args p)
{
    extern __shared__ unsigned vk_smem[];
    for (int w = threadIdx.x; w < p.smem_words; w += blockDim.x)
        vk_smem[w] = 0u;
    __syncthreads();

    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned nthreads = gridDim.x * blockDim.x;
    unsigned word = warp * p.warp_stride + (lane & p.lane_mask) + (lane >> p.lane_shift) * p.row_stride;
    unsigned *a = vk_smem + word;
    unsigned *lds_word = vk_smem + VK_LOOP_ATOMIC_WORDS + ((threadIdx.x + p.zero) & (VK_LOOP_LDS_WORDS - 1u));
    vk_state s = {0u, (float)lane, (float)warp, 1.0f, 2.0f, 0u};

    if ((int)lane < p.e) {
        const bool second = (int)warp < p.alt_warps; /* warp-uniform */
        if (OP == VK_OP_MIX_ADD_CAS) {
            if (second)
                vk_trips<VK_OP_CAS, CHAIN, WORK, K>(p, a, gtid, nthreads, lds_word, s);
            else
                vk_trips<VK_OP_ADD, CHAIN, WORK, K>(p, a, gtid, nthreads, lds_word, s);
        } else if (OP == VK_OP_MIX_POPC_ADD) {
            if (second)
                vk_trips<VK_OP_ADD, CHAIN, WORK, K>(p, a, gtid, nthreads, lds_word, s);
            else
                vk_trips<VK_OP_POPC, CHAIN, WORK, K>(p, a, gtid, nthreads, lds_word, s);
        } else {
            vk_trips<OP, CHAIN, WORK, K>(p, a, gtid, nthreads, lds_word, s);
        }
    }
    p.out[gtid] = s.acc + s.g + __float_as_uint(s.f0 + s.f1 + s.f2 + s.f3);
}

/* The (op, chain, work, K) combinations compiled; vk_build_cases uses only
 * these (a case outside them is reported as a bug and skipped).  The
 * mixed-group sweeps: K doubles from 1 until the atomics stop mattering. */
#define VK_K_SWEEP_128(X, op, w) X(op, 0, w, 1) X(op, 0, w, 2) X(op, 0, w, 4) X(op, 0, w, 8) \
    X(op, 0, w, 16) X(op, 0, w, 32) X(op, 0, w, 64) X(op, 0, w, 128)
#define VK_K_SWEEP_8(X, op, w) X(op, 0, w, 1) X(op, 0, w, 2) X(op, 0, w, 4) X(op, 0, w, 8)

#define VK_LOOP_VARIANTS(X)                                                      \
    X(VK_OP_ADD, 0, VK_WORK_NONE, 0) X(VK_OP_ADD, 1, VK_WORK_NONE, 0)             \
    X(VK_OP_POPC, 0, VK_WORK_NONE, 0)                                             \
    X(VK_OP_CAS, 0, VK_WORK_NONE, 0) X(VK_OP_CAS, 1, VK_WORK_NONE, 0)             \
    X(VK_OP_MIX_ADD_CAS, 0, VK_WORK_NONE, 0) X(VK_OP_MIX_POPC_ADD, 0, VK_WORK_NONE, 0) \
    VK_K_SWEEP_128(X, VK_OP_ADD, VK_WORK_FMA) X(VK_OP_ADD, 0, VK_WORK_FMA, 256)   \
    VK_K_SWEEP_8(X, VK_OP_ADD, VK_WORK_GLOAD) X(VK_OP_ADD, 0, VK_WORK_GLOAD, 16)  \
    X(VK_OP_ADD, 0, VK_WORK_GLOAD, 32)                                            \
    VK_K_SWEEP_128(X, VK_OP_POPC, VK_WORK_FMA)                                    \
    VK_K_SWEEP_8(X, VK_OP_POPC, VK_WORK_GLOAD)                                    \
    VK_K_SWEEP_128(X, VK_OP_CAS, VK_WORK_FMA) X(VK_OP_CAS, 0, VK_WORK_FMA, 256)   \
    X(VK_OP_CAS, 0, VK_WORK_FMA, 512)                                             \
    X(VK_OP_NONE, 0, VK_WORK_FMA, 16) X(VK_OP_NONE, 0, VK_WORK_GLOAD, 4)          \
    X(VK_OP_NONE, 0, VK_WORK_LDS, 4) X(VK_OP_NONE, 0, VK_WORK_REDG, 1)

const void *vk_loop_kernel(vk_op op, int chain, vk_work work, int k)
{
#define VK_LOOP_ROW(o, c, w, kk)                                       \
    if (op == (o) && chain == (c) && work == (w) && k == (kk))         \
        return (const void *)vk_loop<(o), (c), (w), (kk)>;
    VK_LOOP_VARIANTS(VK_LOOP_ROW)
#undef VK_LOOP_ROW
    return NULL;
}

cudaError_t vk_loop_launch(const void *kernel, unsigned blocks, unsigned threads,
                           size_t smem_bytes, cudaStream_t stream, const vk_loop_args *args)
{
    void *params[] = {(void *)args};
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), params, smem_bytes, stream);
}
