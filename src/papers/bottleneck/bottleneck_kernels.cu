// Kernels of the suite "throughput" (Zhang & Owens, HPCA 2011, Sec. 4):
// instruction throughput per SM pipe against warps per SM (Fig. 2 left),
// shared-memory bandwidth against warps with k-way bank conflicts (Fig. 2
// right), global-memory bandwidth against blocks x threads x transactions
// per thread (Fig. 3), DRAM- and L2-resident.  Each timed instruction is
// written in PTX inside an unrolled dependent chain (one chain per warp, as
// the paper's "repeatedly run an instruction"), so the SASS holds exactly it;
// the results are stored under a condition the host never meets, so nothing
// is dead code.  Host launchers (C linkage, gb_bottleneck_*) return a cudaError_t.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bottleneck_kernels.h"

#define UNROLL 64

// ---- instruction pipes ----------------------------------------------------
// ILP independent chains per thread, UNROLL instructions per loop iteration
// in all: ILP 1 is the paper's dependent chain, ILP 4 what unrolled compiled
// code tends to offer.
#define CHAINS(T, init, body)                                    \
    T x[ILP];                                                    \
    _Pragma("unroll") for (int k = 0; k < ILP; k++) x[k] = init; \
    for (int it = 0; it < iters; it++) {                         \
        _Pragma("unroll") for (int u = 0; u < UNROLL / ILP; u++) \
            _Pragma("unroll") for (int k = 0; k < ILP; k++) body; \
    }                                                            \
    T sum = x[0];                                                \
    _Pragma("unroll") for (int k = 1; k < ILP; k++) sum = sum + x[k];

#define LB __launch_bounds__(1024, 2)
template <int ILP> __global__ void LB tp_inst_ffma(int iters, float a, float b, float *sink)
{
    CHAINS(float, threadIdx.x + k, asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[k]) : "f"(a), "f"(b)));
    if (sum == -1.0f) sink[0] = sum;
}
template <int ILP> __global__ void LB tp_inst_imad(int iters, int a, int b, int *sink)
{
    CHAINS(int, threadIdx.x + k, asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x[k]) : "r"(a), "r"(b)));
    if (sum == -1) sink[0] = sum;
}
template <int ILP> __global__ void LB tp_inst_lop3(int iters, int a, int b, int *sink)
{
    CHAINS(int, threadIdx.x + k, asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x[k]) : "r"(a), "r"(b)));
    if (sum == -1) sink[0] = sum;
}
template <int ILP> __global__ void LB tp_inst_dfma(int iters, double a, double b, double *sink)
{
    CHAINS(double, threadIdx.x + k, asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x[k]) : "d"(a), "d"(b)));
    if (sum == -1.0) sink[0] = sum;
}
template <int ILP> __global__ void LB tp_inst_hfma2(int iters, unsigned a, unsigned b, unsigned *sink)
{
    CHAINS(unsigned, threadIdx.x + k, asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x[k]) : "r"(a), "r"(b)));
    if (sum == 0xffffffffu) sink[0] = sum;
}
template <int ILP> __global__ void LB tp_inst_mufu(int iters, float a, float b, float *sink)
{
    CHAINS(float, threadIdx.x * a + b + k, asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[k])));
    if (sum == -1.0f) sink[0] = sum;
}
// The issue rate: two FFMA chains and one LOP3 chain, independent.  Per SMSP
// the fma pipe needs 2 clocks, the alu pipe 2 (16 lanes), issue 3: issue binds.
__global__ void LB tp_inst_issue(int iters, float a, float b, float *sink)
{
    float x = threadIdx.x, y = x + 1;
    int z = threadIdx.x;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
            asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(y) : "f"(a), "f"(b));
            asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(z) : "r"(__float_as_int(a)), "r"(7));
        }
    }
    if (x + y == -1.0f && z == 3) sink[0] = x;
}
__global__ void tp_empty(void) {}
// Holds the GPU for spin_ns (globaltimer), so that launches made meanwhile
// wait in the stream's queue: the GPU then runs them back to back, paced by
// itself, not by the CPU that launched them.
__global__ void tp_hold(long long spin_ns)
{
    uint64_t t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while ((long long)(t1 - t0) < spin_ns);
}

// The SM clock: clock64 against the global nanosecond timer over ~ms.
__global__ void tp_clock(long long spin_ns, double *mhz)
{
    uint64_t t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    long long c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while ((long long)(t1 - t0) < spin_ns);
    long long c1 = clock64();
    if (threadIdx.x == 0) mhz[0] = (double)(c1 - c0) * 1e3 / (double)(t1 - t0);
}

// ---- shared memory: copy from one region to another -----------------------
// Thread t of a warp reads word (t * stride) of its warp's source row and
// writes it to the same place in the destination: stride k (in accesses of
// `W` bytes) gives k-way conflicts on 4-byte accesses (k <= 32).
// A load and a store of W bytes in one PTX block (volatile: every one is
// kept; the value never leaves the block, so no register is held across).
template <int W> struct sh_io;
template <> struct sh_io<4> {
    static __device__ void copy(unsigned from, unsigned to, unsigned &acc)
    {
        asm volatile("{ .reg .b32 a; ld.volatile.shared.u32 a, [%0]; st.volatile.shared.u32 [%1], a; }"
                     ::"r"(from), "r"(to) : "memory");
        acc += 1;
    }
};
template <> struct sh_io<8> {
    static __device__ void copy(unsigned from, unsigned to, unsigned &acc)
    {
        asm volatile("{ .reg .b32 a, b; ld.volatile.shared.v2.u32 {a, b}, [%0]; "
                     "st.volatile.shared.v2.u32 [%1], {a, b}; }" ::"r"(from), "r"(to) : "memory");
        acc += 1;
    }
};
template <> struct sh_io<16> {
    static __device__ void copy(unsigned from, unsigned to, unsigned &acc)
    {
        asm volatile("{ .reg .b32 a, b, c, d; ld.volatile.shared.v4.u32 {a, b, c, d}, [%0]; "
                     "st.volatile.shared.v4.u32 [%1], {a, b, c, d}; }" ::"r"(from), "r"(to) : "memory");
        acc += 1;
    }
};

template <int W>
__global__ void LB tp_shared_copy(int iters, int stride, int *sink)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // Each warp owns 32 * stride elements of W bytes in each of two regions.
    const unsigned span = 32u * stride * W;
    unsigned src = (unsigned)__cvta_generic_to_shared(smem) + warp * span * 2;
    unsigned dst = src + span;
    const unsigned off = (unsigned)lane * stride * W;
    unsigned acc = 0;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
            sh_io<W>::copy(src + off, dst + off, acc);
            sh_io<W>::copy(dst + off, src + off, acc);
        }
    }
    if (acc == 0x9e3779b9u && sink) sink[0] = 1;
}

// ---- global memory ----------------------------------------------------------
// Thread t's j-th transaction: element (j * total + t) of a `W`-byte array,
// wrapped to `mask` + 1 elements (L2-resident runs); .cg keeps L1 out.
// Every word of a load is read: ptxas narrows a load to the words used, and
// with the first alone the 8- and 16-byte loads were 4-byte LDGs at 8- and
// 16-byte strides (the same sectors per warp, a quarter of the bytes to
// registers; tests/bench/cubin_load_width.py).
template <typename T>
__global__ void LB tp_global_ld(const T *__restrict__ p, int per_thread, long long mask, int *sink)
{
    const long long total = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (int j = 0; j < per_thread; j++) {
        T v = __ldcg(p + ((j * total + t) & mask));
#pragma unroll
        for (unsigned i = 0; i < sizeof(T) / sizeof(unsigned); i++)
            acc ^= ((const unsigned *)&v)[i];
    }
    if (acc == 0x9e3779b9u) sink[0] = (int)acc;
}
template <typename T>
__global__ void LB tp_global_st(T *p, int per_thread, long long mask)
{
    const long long total = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    T v;
    memset(&v, 0, sizeof v);
    *(unsigned *)&v = (unsigned)t;
    for (int j = 0; j < per_thread; j++)
        __stcg(p + ((j * total + t) & mask), v);
}

// ---- host launchers -----------------------------------------------------------
static cudaError_t timed(cudaEvent_t e0, cudaEvent_t e1, float *ms)
{
    cudaError_t st = cudaEventSynchronize(e1);
    if (st == cudaSuccess) st = cudaEventElapsedTime(ms, e0, e1);
    return st;
}

extern "C" int gb_bottleneck_clock_mhz(double *mhz)
{
    double *d = NULL;
    cudaError_t st = cudaMalloc(&d, sizeof(double));
    if (st != cudaSuccess) return st;
    tp_clock<<<1, 32>>>(20 * 1000 * 1000LL, d);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = cudaMemcpy(mhz, d, sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(d);
    return st;
}

extern "C" int gb_bottleneck_inst_run(int op, int ilp, int blocks, int threads, int iters,
                                      float *ms)
{
    static void *sink;
    cudaError_t st = cudaSuccess;
    if (!sink && (st = cudaMalloc(&sink, 64)) != cudaSuccess) return st;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
#define TP_I(kern, ...)                                                                        \
    (ilp == 4 ? kern<4><<<blocks, threads>>>(iters, __VA_ARGS__) : kern<1><<<blocks, threads>>>(iters, __VA_ARGS__))
    switch (op) {
    case GB_BOTTLENECK_FFMA: TP_I(tp_inst_ffma, 0.999f, 0.5f, (float *)sink); break;
    case GB_BOTTLENECK_IMAD: TP_I(tp_inst_imad, 3, 5, (int *)sink); break;
    case GB_BOTTLENECK_LOP3: TP_I(tp_inst_lop3, 0x1234, 0x777, (int *)sink); break;
    case GB_BOTTLENECK_DFMA: TP_I(tp_inst_dfma, 0.999, 0.5, (double *)sink); break;
    case GB_BOTTLENECK_HFMA2: TP_I(tp_inst_hfma2, 0x3bff3bffu, 0x38003800u,
                                   (unsigned *)sink); break;
    case GB_BOTTLENECK_MUFU: TP_I(tp_inst_mufu, 1e-3f, 0.5f, (float *)sink); break;
#undef TP_I
    case GB_BOTTLENECK_ISSUE: tp_inst_issue<<<blocks, threads>>>(iters, 0.999f, 0.5f,
                                                                 (float *)sink); break;
    case GB_BOTTLENECK_EMPTY:
        for (int i = 0; i < iters; i++) tp_empty<<<blocks, threads>>>();
        break;
    default: return cudaErrorInvalidValue;
    }
    cudaEventRecord(e1);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = timed(e0, e1, ms);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

extern "C" int gb_bottleneck_queued_run(int blocks, int threads, int iters, float *ms)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    /* 50 us of hold per launch: ten times what a CPU takes to make one */
    tp_hold<<<1, 1>>>(50000LL * iters);
    cudaEventRecord(e0);
    for (int i = 0; i < iters; i++) tp_empty<<<blocks, threads>>>();
    cudaEventRecord(e1);
    cudaError_t st = cudaGetLastError();
    if (st == cudaSuccess) st = timed(e0, e1, ms);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

extern "C" int gb_bottleneck_graph_run(int blocks, int threads, long long spin_ns, int nodes,
                                       float *ms)
{
    cudaStream_t s;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t st = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (st != cudaSuccess) return st;
    st = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (st == cudaSuccess) {
        for (int i = 0; i < nodes; i++) {
            if (spin_ns > 0) tp_hold<<<blocks, threads, 0, s>>>(spin_ns);
            else tp_empty<<<blocks, threads, 0, s>>>();
        }
        cudaError_t end = cudaStreamEndCapture(s, &g);
        if (st == cudaSuccess) st = cudaGetLastError();
        if (st == cudaSuccess) st = end;
    }
    if (st == cudaSuccess) st = cudaGraphInstantiate(&ge, g, 0);
    /* one replay to warm up (the graph's first launch uploads it) */
    if (st == cudaSuccess) st = cudaGraphLaunch(ge, s);
    if (st == cudaSuccess) st = cudaStreamSynchronize(s);
    if (st == cudaSuccess) st = cudaEventCreate(&e0);
    if (st == cudaSuccess) st = cudaEventCreate(&e1);
    if (st == cudaSuccess) {
        /* 200 us of hold: the graph launch and both events are queued
         * before the GPU reaches them (one graph launch takes the CPU tens
         * of microseconds), so the events time the GPU's own pace */
        tp_hold<<<1, 1, 0, s>>>(200000LL);
        cudaEventRecord(e0, s);
        st = cudaGraphLaunch(ge, s);
        cudaEventRecord(e1, s);
        if (st == cudaSuccess) st = cudaGetLastError();
        if (st == cudaSuccess) st = timed(e0, e1, ms);
    }
    cudaStreamSynchronize(s);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (ge) cudaGraphExecDestroy(ge);
    if (g) cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    return st;
}

extern "C" int gb_bottleneck_shared_run(int bytes, int stride, int blocks, int threads, int iters,
                                        float *ms)
{
    size_t smem = (size_t)(threads / 32) * 32 * stride * bytes * 2;
    cudaError_t st = cudaSuccess;
    void (*k)(int, int, int *) = bytes == 4 ? tp_shared_copy<4> : bytes == 8 ? tp_shared_copy<8> : tp_shared_copy<16>;
    if (smem > 48 * 1024 &&
        (st = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess)
        return st;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    k<<<blocks, threads, smem>>>(iters, stride, NULL);
    cudaEventRecord(e1);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = timed(e0, e1, ms);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

extern "C" int gb_bottleneck_global_run(int store, int bytes, void *buf, long long mask_elems,
                                        int blocks, int threads, int per_thread, int *sink,
                                        float *ms)
{
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    long long mask = mask_elems;
#define TP_G(T)                                                                              \
    (store ? tp_global_st<T><<<blocks, threads>>>((T *)buf, per_thread, mask)                \
           : tp_global_ld<T><<<blocks, threads>>>((const T *)buf, per_thread, mask, sink))
    if (bytes == 4) TP_G(int);
    else if (bytes == 8) TP_G(int2);
    else TP_G(int4);
#undef TP_G
    cudaEventRecord(e1);
    cudaError_t st = cudaGetLastError();
    if (st == cudaSuccess) st = timed(e0, e1, ms);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

/* Selects the device the suite runs on and reads its shape (the suite's
 * kernels and allocations then go to that device, not to device 0). */
extern "C" int gb_bottleneck_device_info(int device, int *sm_count, int *max_warps)
{
    cudaError_t st = cudaSetDevice(device);
    if (st != cudaSuccess) return st;
    cudaDeviceProp p;
    st = cudaGetDeviceProperties(&p, device);
    if (st != cudaSuccess) return st;
    *sm_count = p.multiProcessorCount;
    *max_warps = p.maxThreadsPerMultiProcessor / 32;
    return 0;
}
extern "C" int gb_bottleneck_malloc(void **p, size_t n) { return cudaMalloc(p, n); }
extern "C" int gb_bottleneck_memset(void *p, size_t n) { return cudaMemset(p, 1, n); }
extern "C" void gb_bottleneck_free(void *p) { cudaFree(p); }
extern "C" const char *gb_bottleneck_error_string(int st) { return cudaGetErrorString((cudaError_t)st); }
