// The gatomics suite's kernels (paper 002, Robertson): clock cost, stall time
// per global-memory operation, the lock-width offset sweep, throughput of the
// L2 atomic units, interference and latency hiding.  gatomics_kernels.h says
// how each timing is made to depend on the operation's result.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gatomics_kernels.h"

namespace {

__device__ __forceinline__ unsigned long long clk64()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ __forceinline__ void fence_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// One operation on p; returns its result (0 for store/red/none) so that the
// caller can make the closing clock read wait for it.
template <int OP>
__device__ __forceinline__ unsigned long long do_op(char *p, unsigned long long v)
{
    unsigned r32 = 0;
    unsigned long long r64 = 0;
    float rf = 0.f;
    switch (OP) {
    case GB_GATOMICS_LD32:
        // volatile: ptxas merges repeated weak loads of one address (ld.cg was
        // executed once for the whole loop); a volatile load is never merged.
        asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r32) : "l"(p) : "memory");
        return r32;
    case GB_GATOMICS_ST32:
        asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"((unsigned)v) : "memory");
        fence_gpu();
        return 0;
    case GB_GATOMICS_LDST32:
        asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r32) : "l"(p) : "memory");
        asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(r32 + (unsigned)v) : "memory");
        return r32;
    case GB_GATOMICS_RED32:
        asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"((unsigned)v) : "memory");
        fence_gpu();
        return 0;
    case GB_GATOMICS_ATOM32:
        asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r32) : "l"(p), "r"((unsigned)v) : "memory");
        return r32;
    case GB_GATOMICS_CAS32:
        asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;"
                     : "=r"(r32) : "l"(p), "r"((unsigned)v), "r"((unsigned)v + 1u) : "memory");
        return r32;
    case GB_GATOMICS_LD64:
        asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(r64) : "l"(p) : "memory");
        return r64;
    case GB_GATOMICS_ST64:
        asm volatile("st.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
        fence_gpu();
        return 0;
    case GB_GATOMICS_LDST64:
        asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(r64) : "l"(p) : "memory");
        asm volatile("st.global.u64 [%0], %1;" ::"l"(p), "l"(r64 + v) : "memory");
        return r64;
    case GB_GATOMICS_RED64:
        asm volatile("red.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
        fence_gpu();
        return 0;
    case GB_GATOMICS_ATOM64:
        asm volatile("atom.global.add.u64 %0, [%1], %2;" : "=l"(r64) : "l"(p), "l"(v) : "memory");
        return r64;
    case GB_GATOMICS_CAS64:
        asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;"
                     : "=l"(r64) : "l"(p), "l"(v), "l"(v + 1ull) : "memory");
        return r64;
    case GB_GATOMICS_REDF32:
        asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"((float)v) : "memory");
        fence_gpu();
        return 0;
    case GB_GATOMICS_ATOMF32:
        asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(rf) : "l"(p), "f"((float)v) : "memory");
        return __float_as_uint(rf);
    default:
        return 0;
    }
}

template <int OP>
__device__ __forceinline__ unsigned elem_bytes()
{
    return (OP == GB_GATOMICS_LD64 || OP == GB_GATOMICS_ST64 || OP == GB_GATOMICS_LDST64 ||
            OP == GB_GATOMICS_RED64 || OP == GB_GATOMICS_ATOM64 || OP == GB_GATOMICS_CAS64)
               ? 8u
               : 4u;
}

// The timed loop.  Per iteration: t0; the operation; K dependent FMAs that do
// not use its result (so that the operation's latency can hide behind them:
// the paper's "free atomics"); the result stored to shared memory (DEP = 1:
// before the closing clock read, which then waits for the result); t1.
template <int OP, int K, int DEP>
__device__ __forceinline__ void stall_body(char *buf, int pattern, int iters, int warm, float *cycles,
                                           unsigned long long *sink)
{
    __shared__ volatile unsigned long long sh[1024];
    const unsigned long long gtid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long off;
    if (pattern == GB_GATOMICS_PAT_SAME)
        off = (unsigned long long)smid() * 128ull;
    else if (pattern == GB_GATOMICS_PAT_STRIDED)
        off = gtid * 128ull;
    else
        off = gtid * elem_bytes<OP>();
    char *p = buf + off;
    float f = 1.0f + (float)(threadIdx.x & 1) * 1e-7f, a = 0.999999f, b = 1e-7f;
    // 32-bit sums: 64 warps per SM leave 32 registers per thread.
    unsigned acc = 0, total = 0;
    const unsigned long long v = 1;
    for (int i = 0; i < warm + iters; i++) {
        unsigned long long t0 = clk64();
        unsigned long long r = do_op<OP>(p, v);
#pragma unroll
        for (int k = 0; k < K; k++)
            f = fmaf(f, a, b);
        unsigned long long t1;
        if (DEP) {
            sh[threadIdx.x] = r;
            t1 = clk64();
        } else {
            t1 = clk64();
            sh[threadIdx.x] = r;
        }
        if (i >= warm)
            total += (unsigned)(t1 - t0);
        acc ^= (unsigned)r ^ (unsigned)(r >> 32);
    }
    cycles[gtid] = (float)((double)total / (double)(iters > 0 ? iters : 1));
    sink[gtid] = acc + (unsigned long long)__float_as_uint(f) + sh[threadIdx.x];
}

template <int WHICH>
__device__ __forceinline__ unsigned long long read_clock()
{
    unsigned long long t;
    if (WHICH == 0) {
        unsigned c;
        asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
        t = c;
    } else if (WHICH == 1) {
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    } else {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    }
    return t;
}

template <int WHICH>
__device__ __forceinline__ void clock_body(float *out)
{
    unsigned long long sum = 0;
    for (int i = 0; i < 256; i++) {
        unsigned long long a = read_clock<WHICH>();
        unsigned long long b = read_clock<WHICH>();
        sum += (WHICH == 0) ? (unsigned long long)((unsigned)b - (unsigned)a) : b - a;
    }
    out[(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x] = (float)((double)sum / 256.0);
}

template <int OP>
__device__ __forceinline__ void rate_body(char *buf, int pattern, int lps, int iters,
                                          unsigned long long *sink)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned long long gtid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long gwarp = gtid >> 5;
    unsigned long long off = 0;
    const unsigned es = elem_bytes<OP>();
    switch (pattern) {
    case GB_GATOMICS_PAT_ONE:
        if (lane != 0)
            return;
        off = 0;
        break;
    case GB_GATOMICS_PAT_ONE32:
        off = 0;
        break;
    case GB_GATOMICS_PAT_FEW:
        if (lane != 0)
            return;
        off = (gwarp & 63ull) * 1024ull;
        break;
    default: /* DISTINCT: lps threads per 32-byte sector, 32 / lps sectors per warp */
        off = gwarp * 1024ull + (unsigned long long)(lane / lps) * 32ull + (lane % lps) * es;
        break;
    }
    char *p = buf + off;
    unsigned long long acc = 0;
    for (int i = 0; i < iters; i++)
        acc += do_op<OP>(p, 1ull);
    sink[gtid] = acc;
}

} // namespace

// ---- kernels, with plain names for the SASS check (suite rows) ----

#define GATOMICS_STALL(NAME, OP, K, DEP)                                                        \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                       \
        NAME(char *buf, int pattern, int iters, int warm, float *cycles, unsigned long long *sink) \
    {                                                                                           \
        stall_body<OP, K, DEP>(buf, pattern, iters, warm, cycles, sink);                        \
    }

#define GATOMICS_STALL_0_50(N, OP)                                                              \
    GATOMICS_STALL(ga_stall_##N##_k0, OP, 0, 1) GATOMICS_STALL(ga_stall_##N##_k50, OP, 50, 1)
GATOMICS_STALL_0_50(ld32, GB_GATOMICS_LD32)
GATOMICS_STALL_0_50(st32, GB_GATOMICS_ST32)
GATOMICS_STALL_0_50(ldst32, GB_GATOMICS_LDST32)
GATOMICS_STALL_0_50(red32, GB_GATOMICS_RED32)
GATOMICS_STALL_0_50(cas32, GB_GATOMICS_CAS32)
GATOMICS_STALL_0_50(ld64, GB_GATOMICS_LD64)
GATOMICS_STALL_0_50(st64, GB_GATOMICS_ST64)
GATOMICS_STALL_0_50(ldst64, GB_GATOMICS_LDST64)
GATOMICS_STALL_0_50(red64, GB_GATOMICS_RED64)
GATOMICS_STALL_0_50(atom64, GB_GATOMICS_ATOM64)
GATOMICS_STALL_0_50(cas64, GB_GATOMICS_CAS64)
GATOMICS_STALL_0_50(redf32, GB_GATOMICS_REDF32)
GATOMICS_STALL_0_50(atomf32, GB_GATOMICS_ATOMF32)
#define GATOMICS_STALL_ALLK(N, OP)                                                              \
    GATOMICS_STALL(ga_stall_##N##_k0, OP, 0, 1) GATOMICS_STALL(ga_stall_##N##_k16, OP, 16, 1)   \
    GATOMICS_STALL(ga_stall_##N##_k32, OP, 32, 1) GATOMICS_STALL(ga_stall_##N##_k50, OP, 50, 1) \
    GATOMICS_STALL(ga_stall_##N##_k64, OP, 64, 1) GATOMICS_STALL(ga_stall_##N##_k96, OP, 96, 1) \
    GATOMICS_STALL(ga_stall_##N##_k128, OP, 128, 1)                                             \
    GATOMICS_STALL(ga_stall_##N##_k192, OP, 192, 1)                                             \
    GATOMICS_STALL(ga_stall_##N##_k256, OP, 256, 1)                                             \
    GATOMICS_STALL(ga_stall_##N##_k384, OP, 384, 1)
GATOMICS_STALL_ALLK(atom32, GB_GATOMICS_ATOM32)
GATOMICS_STALL_ALLK(none, GB_GATOMICS_NONE)
// Controls for the dependency test: the closing clock read before the result is used.
GATOMICS_STALL(ga_nodep_atom32_k0, GB_GATOMICS_ATOM32, 0, 0)
GATOMICS_STALL(ga_nodep_ld32_k0, GB_GATOMICS_LD32, 0, 0)

extern "C" __global__ void ga_clock_clock(float *out) { clock_body<0>(out); }
extern "C" __global__ void ga_clock_clock64(float *out) { clock_body<1>(out); }
extern "C" __global__ void ga_clock_globaltimer(float *out) { clock_body<2>(out); }

extern "C" __global__ void __launch_bounds__(256)
    ga_lock_atom32(char *buf, unsigned offset, int iters, int warm, float *cycles,
                   unsigned long long *sink)
{
    __shared__ volatile unsigned sh[256];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned long long gtid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= 8) {
        cycles[gtid] = -1.0f; // not a measuring lane
        sink[gtid] = 0;
        return;
    }
    char *p = buf + (unsigned long long)blockIdx.x * 65536ull + lane * 4096ull + (unsigned long long)offset * warp;
    unsigned long long total = 0, acc = 0;
    const unsigned v = 1;
    for (int i = 0; i < warm + iters; i++) {
        unsigned long long t0 = clk64();
        unsigned r;
        asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
        sh[threadIdx.x] = r;
        unsigned long long t1 = clk64();
        if (i >= warm)
            total += t1 - t0;
        acc += r;
    }
    cycles[gtid] = (float)((double)total / (double)(iters > 0 ? iters : 1));
    sink[gtid] = acc + sh[threadIdx.x];
}

#define GATOMICS_RATE(N, OP)                                                                    \
    extern "C" __global__ void __launch_bounds__(1024, 2)                                       \
        ga_rate_##N(char *buf, int pattern, int lps, int iters, unsigned long long *sink)       \
    {                                                                                           \
        rate_body<OP>(buf, pattern, lps, iters, sink);                                          \
    }
GATOMICS_RATE(atom32, GB_GATOMICS_ATOM32)
GATOMICS_RATE(red32, GB_GATOMICS_RED32)
GATOMICS_RATE(cas32, GB_GATOMICS_CAS32)
GATOMICS_RATE(atom64, GB_GATOMICS_ATOM64)
GATOMICS_RATE(red64, GB_GATOMICS_RED64)
GATOMICS_RATE(atomf32, GB_GATOMICS_ATOMF32)
GATOMICS_RATE(redf32, GB_GATOMICS_REDF32)

extern "C" __global__ void __launch_bounds__(1024, 2)
    ga_interfere_atom32(char *buf, int iters, int hot_iters, unsigned long long *elapsed,
                        unsigned long long *sink)
{
    __shared__ unsigned long long t_start;
    const unsigned lane = threadIdx.x & 31u;
    const unsigned long long gtid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    if (blockIdx.x & 1u) {
        // Hot blocks: lane 0 of each warp on one address, far from the distinct region.
        if (lane == 0) {
            unsigned *hot = (unsigned *)(buf + (64ull << 20));
            for (int i = 0; i < hot_iters; i++) {
                unsigned r;
                asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(hot) : "memory");
                acc += r;
            }
        }
        sink[gtid] = acc;
        return;
    }
    if (threadIdx.x == 0)
        t_start = clk64();
    __syncthreads();
    const unsigned long long dtid = (unsigned long long)(blockIdx.x >> 1) * blockDim.x + threadIdx.x;
    unsigned *p = (unsigned *)(buf + dtid * 32ull);
    for (int i = 0; i < iters; i++) {
        unsigned r;
        asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(p) : "memory");
        acc += r;
    }
    sink[gtid] = acc;
    __syncthreads(); // every warp's atomics done (their results were summed)
    if (threadIdx.x == 0)
        elapsed[blockIdx.x >> 1] = clk64() - t_start + (acc & 0u);
}

// ---- host launchers ----

namespace {
const int k_list[GB_GATOMICS_K_COUNT] = GB_GATOMICS_K_LIST;

int k_index(int k)
{
    for (int i = 0; i < GB_GATOMICS_K_COUNT; i++)
        if (k_list[i] == k)
            return i;
    return -1;
}

const void *stall_fn(int op, int k, int dep)
{
    if (!dep) {
        if (k != 0)
            return nullptr;
        return op == GB_GATOMICS_ATOM32 ? (const void *)ga_nodep_atom32_k0
                               : op == GB_GATOMICS_LD32 ? (const void *)ga_nodep_ld32_k0 : nullptr;
    }
    if (op == GB_GATOMICS_ATOM32 || op == GB_GATOMICS_NONE) {
        static const void *const atom[GB_GATOMICS_K_COUNT] = {
            (const void *)ga_stall_atom32_k0,   (const void *)ga_stall_atom32_k16,
            (const void *)ga_stall_atom32_k32,  (const void *)ga_stall_atom32_k50,
            (const void *)ga_stall_atom32_k64,  (const void *)ga_stall_atom32_k96,
            (const void *)ga_stall_atom32_k128, (const void *)ga_stall_atom32_k192,
            (const void *)ga_stall_atom32_k256, (const void *)ga_stall_atom32_k384};
        static const void *const none[GB_GATOMICS_K_COUNT] = {
            (const void *)ga_stall_none_k0,   (const void *)ga_stall_none_k16,
            (const void *)ga_stall_none_k32,  (const void *)ga_stall_none_k50,
            (const void *)ga_stall_none_k64,  (const void *)ga_stall_none_k96,
            (const void *)ga_stall_none_k128, (const void *)ga_stall_none_k192,
            (const void *)ga_stall_none_k256, (const void *)ga_stall_none_k384};
        int i = k_index(k);
        return i < 0 ? nullptr : (op == GB_GATOMICS_ATOM32 ? atom[i] : none[i]);
    }
    if (k != 0 && k != 50)
        return nullptr;
    static const void *const two[GB_GATOMICS_OP_COUNT][2] = {
        {(const void *)ga_stall_ld32_k0, (const void *)ga_stall_ld32_k50},
        {(const void *)ga_stall_st32_k0, (const void *)ga_stall_st32_k50},
        {(const void *)ga_stall_ldst32_k0, (const void *)ga_stall_ldst32_k50},
        {(const void *)ga_stall_red32_k0, (const void *)ga_stall_red32_k50},
        {nullptr, nullptr},
        {(const void *)ga_stall_cas32_k0, (const void *)ga_stall_cas32_k50},
        {(const void *)ga_stall_ld64_k0, (const void *)ga_stall_ld64_k50},
        {(const void *)ga_stall_st64_k0, (const void *)ga_stall_st64_k50},
        {(const void *)ga_stall_ldst64_k0, (const void *)ga_stall_ldst64_k50},
        {(const void *)ga_stall_red64_k0, (const void *)ga_stall_red64_k50},
        {(const void *)ga_stall_atom64_k0, (const void *)ga_stall_atom64_k50},
        {(const void *)ga_stall_cas64_k0, (const void *)ga_stall_cas64_k50},
        {(const void *)ga_stall_redf32_k0, (const void *)ga_stall_redf32_k50},
        {(const void *)ga_stall_atomf32_k0, (const void *)ga_stall_atomf32_k50},
        {nullptr, nullptr},
    };
    if (op < 0 || op >= GB_GATOMICS_OP_COUNT)
        return nullptr;
    return two[op][k == 50];
}
} // namespace

extern "C" int gb_gatomics_stall_has(int op, int k) { return stall_fn(op, k, 1) != nullptr; }

extern "C" int gb_gatomics_launch_stall(const gb_gatomics_stall_args *a, void *stream)
{
    const void *fn = stall_fn(a->op, a->k, a->dep);
    if (!fn)
        return (int)cudaErrorInvalidValue;
    char *buf = (char *)a->buf;
    int pattern = a->pattern, iters = a->iters, warm = a->warm;
    float *cycles = a->cycles;
    unsigned long long *sink = a->sink;
    void *args[] = {&buf, &pattern, &iters, &warm, &cycles, &sink};
    return (int)cudaLaunchKernel(fn, dim3(a->grid), dim3(a->block), args, 0, (cudaStream_t)stream);
}

extern "C" int gb_gatomics_launch_clock(int which, unsigned grid, unsigned block, float *out,
                                        void *stream)
{
    const void *fn = which == 0 ? (const void *)ga_clock_clock
                                : which == 1 ? (const void *)ga_clock_clock64 : (const void *)ga_clock_globaltimer;
    void *args[] = {&out};
    return (int)cudaLaunchKernel(fn, dim3(grid), dim3(block), args, 0, (cudaStream_t)stream);
}

extern "C" int gb_gatomics_launch_lock(unsigned grid, unsigned offset, int iters, int warm,
                                       void *buf, float *cycles, unsigned long long *sink,
                                       void *stream)
{
    char *b = (char *)buf;
    void *args[] = {&b, &offset, &iters, &warm, &cycles, &sink};
    return (int)cudaLaunchKernel((const void *)ga_lock_atom32, dim3(grid), dim3(256), args, 0,
                                 (cudaStream_t)stream);
}

extern "C" int gb_gatomics_launch_rate(int op, int pattern, int lanes_per_sector, unsigned grid,
                                       unsigned block, int iters, void *buf,
                                       unsigned long long *sink, void *stream)
{
    const void *fn;
    switch (op) {
    case GB_GATOMICS_ATOM32: fn = (const void *)ga_rate_atom32; break;
    case GB_GATOMICS_RED32: fn = (const void *)ga_rate_red32; break;
    case GB_GATOMICS_CAS32: fn = (const void *)ga_rate_cas32; break;
    case GB_GATOMICS_ATOM64: fn = (const void *)ga_rate_atom64; break;
    case GB_GATOMICS_RED64: fn = (const void *)ga_rate_red64; break;
    case GB_GATOMICS_ATOMF32: fn = (const void *)ga_rate_atomf32; break;
    case GB_GATOMICS_REDF32: fn = (const void *)ga_rate_redf32; break;
    default: return (int)cudaErrorInvalidValue;
    }
    if (lanes_per_sector < 1 || lanes_per_sector > 8)
        return (int)cudaErrorInvalidValue;
    char *b = (char *)buf;
    void *args[] = {&b, &pattern, &lanes_per_sector, &iters, &sink};
    return (int)cudaLaunchKernel(fn, dim3(grid), dim3(block), args, 0, (cudaStream_t)stream);
}

extern "C" int gb_gatomics_launch_interfere(unsigned grid, unsigned block, int iters, int hot_iters,
                                            void *buf, unsigned long long *elapsed,
                                            unsigned long long *sink, void *stream)
{
    char *b = (char *)buf;
    void *args[] = {&b, &iters, &hot_iters, &elapsed, &sink};
    return (int)cudaLaunchKernel((const void *)ga_interfere_atom32, dim3(grid), dim3(block), args, 0,
                                 (cudaStream_t)stream);
}
