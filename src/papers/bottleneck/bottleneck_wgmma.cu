// Kernels of the suite "units" that need sm_90a (compiled for it alone,
// src/papers/bottleneck/CMakeLists.txt): the tensor pipe through wgmma, one
// kernel per row of bottleneck_unit_rows.h, and TMA bulk loads.
//
// wgmma m64n128k<k>: a warpgroup (4 warps) issues 8 back to back on one
// accumulator (64 registers per thread), commits them as a group and waits
// until at most one group is in flight (wgmma.wait_group 1), so the pipe
// always has the next group queued (Luo et al., arXiv 2402.13499: one
// warpgroup per SM, many wgmma before a wait).  Operands: A and B from
// shared memory (SS) or A from registers (RS), through descriptors of
// shared-memory matrices without swizzle: core matrices of 8 rows x 16
// bytes, 128 bytes apart along K and 256 along M/N (PTX ISA, "Matrix
// Descriptor Format"), every byte of them inside the block's buffers.  The
// values are a fixed pattern: the suite times the pipe, not the numbers.
//
// TMA: one thread of each block keeps `stages` cp.async.bulk copies of
// `chunk` bytes in flight from global memory into shared buffers, each with
// an mbarrier that the copy's bytes complete; it waits on the oldest and
// issues the next into its buffer.
#include <cuda_runtime.h>
#include <stdint.h>

#include "bottleneck_unit_rows.h"
#include "bottleneck_units_kernels.h"
#include "bottleneck_units_device.cuh"

#define TU_GMMA_A_BYTES 2048 /* 64 rows x 32 bytes of K */
#define TU_GMMA_B_BYTES 4096 /* 128 rows x 32 bytes */

__device__ __forceinline__ uint64_t tu_desc(unsigned addr)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
           ((uint64_t)(256 >> 4) << 32); /* swizzle 0 (none), base offset 0 */
}

// The 64 accumulators as operands %0..%63, read and written.
#define TU_ACC64                                                                                  \
    "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"      \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46," \
    "%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define TU_O8(C, d, i)                                                                            \
    "+" C(d[i]), "+" C(d[i + 1]), "+" C(d[i + 2]), "+" C(d[i + 3]), "+" C(d[i + 4]),              \
        "+" C(d[i + 5]), "+" C(d[i + 6]), "+" C(d[i + 7])
#define TU_O64(C, d)                                                                              \
    TU_O8(C, d, 0), TU_O8(C, d, 8), TU_O8(C, d, 16), TU_O8(C, d, 24), TU_O8(C, d, 32),           \
        TU_O8(C, d, 40), TU_O8(C, d, 48), TU_O8(C, d, 56)
#define TU_ACC_F float
#define TU_ACC_I int
#define TU_CON_F "f"
#define TU_CON_I "r"

// A and B from shared memory: %64 and %65 their descriptors, %66 scale-d.
#define TU_GMMA_ISSUE_SS(ptx, tail, acc)                                                          \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" ptx " " TU_ACC64                    \
                 ", %64, %65, " tail ";\n}"                                                      \
                 : TU_O64(TU_CON_##acc, d)                                                        \
                 : "l"(da), "l"(db), "r"(1))
// A from registers %64..%67 (the same fragment every time), B's descriptor %68.
#define TU_GMMA_ISSUE_RS(ptx, tail, acc)                                                          \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" ptx " " TU_ACC64                    \
                 ", {%64, %65, %66, %67}, %68, " tail ";\n}"                                     \
                 : TU_O64(TU_CON_##acc, d)                                                        \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

// The A fragment of the RS form: 4 registers per thread, never changed.
#define TU_GMMA_A_SS
#define TU_GMMA_A_RS                                                                              \
    unsigned a[4];                                                                                \
    _Pragma("unroll") for (int i = 0; i < 4; i++) a[i] = 0x3c003c00u ^ (threadIdx.x * (i + 1))

#define TU_GMMA_KERNEL(id, form, acc, ptx, tail)                                                   \
    __global__ void __launch_bounds__(512, 1) tu_##id(int iters, TU_ACC_##acc *sink)             \
    {                                                                                              \
        __shared__ __align__(128) unsigned char smem[TU_GMMA_A_BYTES + TU_GMMA_B_BYTES];           \
        tu_clock_note(0);                                                                          \
        for (int i = threadIdx.x; i < (int)(sizeof smem / 4); i += blockDim.x)                     \
            ((unsigned *)smem)[i] = 0x3c003c00u ^ (unsigned)(i & 0x0f0f);                          \
        /* generic-proxy writes, read by wgmma through the async proxy */                          \
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                               \
        __syncthreads();                                                                           \
        const unsigned base = (unsigned)__cvta_generic_to_shared(smem);                            \
        const uint64_t da = tu_desc(base), db = tu_desc(base + TU_GMMA_A_BYTES);                   \
        TU_GMMA_A_##form;                                                                          \
        (void)da;                                                                                  \
        TU_ACC_##acc d[64];                                                                        \
        _Pragma("unroll") for (int i = 0; i < 64; i++) d[i] = 0;                                   \
        for (int it = 0; it < iters; it++) {                                                       \
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                                \
            _Pragma("unroll") for (int u = 0; u < GB_BOTTLENECK_UNITS_GMMA_PER_ITER; u++)          \
                TU_GMMA_ISSUE_##form(ptx, tail, acc);                                              \
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                         \
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");                         \
        }                                                                                          \
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");                             \
        TU_ACC_##acc s = 0;                                                                        \
        _Pragma("unroll") for (int i = 0; i < 64; i++) s += d[i];                                  \
        tu_clock_note(2);                                                                          \
        if (s == (TU_ACC_##acc) - 1) sink[0] = s;                                                  \
    }
#define TU_KERNEL_HMMA(id, acc, ptx, tail) /* bottleneck_units_kernels.cu */
#define TU_KERNEL_GMMA_SS(id, acc, ptx, tail) TU_GMMA_KERNEL(id, SS, acc, ptx, tail)
#define TU_KERNEL_GMMA_RS(id, acc, ptx, tail) TU_GMMA_KERNEL(id, RS, acc, ptx, tail)
#define TU_KERNEL(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    TU_KERNEL_##form(id, acc, ptx, tail)
GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_KERNEL)
#undef TU_KERNEL

// ---- TMA bulk loads ------------------------------------------------------------
__device__ __forceinline__ void tu_bulk_issue(unsigned bar, unsigned dst, const char *src, int chunk)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(chunk)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(chunk), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void tu_bulk_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
}

#define TU_TMA_MAX_STAGES 16
__global__ void __launch_bounds__(32, 1) tu_tma_ld(const char *__restrict__ src, long long n_chunks,
                                                   int chunk, int stages, long long per_block)
{
    extern __shared__ __align__(128) unsigned char buf[];
    __shared__ __align__(8) unsigned long long bars[TU_TMA_MAX_STAGES];
    tu_clock_note(0);
    if (threadIdx.x != 0) return;
    const unsigned bar0 = (unsigned)__cvta_generic_to_shared(bars);
    const unsigned dst0 = (unsigned)__cvta_generic_to_shared(buf);
    for (int s = 0; s < stages; s++)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8 * s) : "memory");
    // the inits visible to the async proxy before any copy completes on them
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    long long c = blockIdx.x;
    unsigned phase = 0; /* bit s: the parity stage s waits for next */
    long long issued = 0;
    for (int s = 0; s < stages && issued < per_block; s++, issued++) {
        tu_bulk_issue(bar0 + 8 * s, dst0 + s * chunk, src + c * chunk, chunk);
        c += gridDim.x;
        if (c >= n_chunks) c -= n_chunks;
    }
    for (long long k = 0; k < per_block; k++) {
        const int s = (int)(k % stages);
        tu_bulk_wait(bar0 + 8 * s, (phase >> s) & 1);
        phase ^= 1u << s;
        if (issued < per_block) {
            tu_bulk_issue(bar0 + 8 * s, dst0 + s * chunk, src + c * chunk, chunk);
            issued++;
            c += gridDim.x;
            if (c >= n_chunks) c -= n_chunks;
        }
    }
    tu_clock_note(2);
}

// ---- host launchers ---------------------------------------------------------------
extern "C" int gb_bottleneck_units_gmma_run(int row, int blocks, int threads, int iters, float *ms,
                                            double *mhz)
{
    static void *sink;
    cudaError_t st = cudaSuccess;
    if (!sink && (st = cudaMalloc(&sink, 64)) != cudaSuccess) return st;
    if (threads % 128 || threads > 512) return cudaErrorInvalidValue;
    cudaEvent_t e0, e1;
    if ((st = tu_timed_begin(&e0, &e1)) != cudaSuccess) return st;
    switch (row) {
#define TU_LAUNCH_HMMA(id, acc)
#define TU_LAUNCH_GMMA_SS(id, acc) \
    case GM_BOTTLENECK_UNITS_##id: tu_##id<<<blocks, threads>>>(iters, (TU_ACC_##acc *)sink); break;
#define TU_LAUNCH_GMMA_RS(id, acc) TU_LAUNCH_GMMA_SS(id, acc)
#define TU_LAUNCH(id, type, form, arch, emul, k, acc, ...) TU_LAUNCH_##form(id, acc)
        GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_LAUNCH)
#undef TU_LAUNCH
    default: tu_timed_end(e0, e1, ms, mhz); return cudaErrorInvalidValue;
    }
    return tu_timed_end(e0, e1, ms, mhz);
}

extern "C" int gb_bottleneck_units_tma_run(const void *buf, long long n_chunks, int chunk,
                                           int stages, long long per_block, int blocks, float *ms,
                                           double *mhz)
{
    if (stages < 1 || stages > TU_TMA_MAX_STAGES || chunk < 16 || chunk % 16 || n_chunks < 1)
        return cudaErrorInvalidValue;
    size_t smem = (size_t)chunk * stages;
    cudaError_t st = cudaSuccess;
    if (smem > 48 * 1024 &&
        (st = cudaFuncSetAttribute(tu_tma_ld, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem)) != cudaSuccess)
        return st;
    cudaEvent_t e0, e1;
    if ((st = tu_timed_begin(&e0, &e1)) != cudaSuccess) return st;
    tu_tma_ld<<<blocks, 32, smem>>>((const char *)buf, n_chunks, chunk, stages, per_block);
    return tu_timed_end(e0, e1, ms, mhz);
}
