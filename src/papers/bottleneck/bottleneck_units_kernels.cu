// Kernels of the suite "units" (Hopper's units as bottleneck components,
// bottleneck_unit_rows.h): the tensor pipe through mma.sync, one kernel per
// row generated from the row, and L2- and DRAM-resident LSU loads and stores
// against bytes in flight.  The wgmma and TMA kernels need sm_90a and live
// in bottleneck_wgmma.cu.  Each timed instruction is written in PTX, its
// results stored under a condition the host never meets, so nothing is dead
// code.  Block 0's thread 0 reads clock64 and %globaltimer before and after
// its work (tu_clock_note): the SM clock the launch ran at, recorded beside
// its rate.  Host launchers (C linkage, gb_bottleneck_units_*) return a cudaError_t.
#include <cuda_runtime.h>
#include <stdint.h>

#include "bottleneck_unit_rows.h"
#include "bottleneck_units_kernels.h"
#include "bottleneck_units_device.cuh"

#ifdef __CUDA_ARCH__
constexpr int TU_ARCH = __CUDA_ARCH__;
#else
constexpr int TU_ARCH = 0;
#endif

// ---- tensor pipe, mma.sync ---------------------------------------------------
// ILP independent accumulators per warp, two rounds of them per iteration:
// a warp keeps ILP mma in flight, so the pipe, not the instruction's latency,
// binds once a few warps share each SMSP.  A (4 registers) and B (2) are the
// same every time: operands from registers.  Each accumulator is 4 registers
// of f32 ("f") or s32 ("r").
#define TU_MMA_ILP 8
#define TU_MMA_ROUNDS 2
#define TU_ACC_F float
#define TU_ACC_I int
#define TU_CON_F "f"
#define TU_CON_I "r"
#define TU_MMA_LOOP(ptx, acc)                                                                      \
    for (int it = 0; it < iters; it++) {                                                           \
        _Pragma("unroll") for (int u = 0; u < TU_MMA_ROUNDS; u++)                                  \
            _Pragma("unroll") for (int k = 0; k < TU_MMA_ILP; k++)                                 \
                asm volatile(ptx " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"          \
                             : "+" TU_CON_##acc(d[k][0]), "+" TU_CON_##acc(d[k][1]),               \
                               "+" TU_CON_##acc(d[k][2]), "+" TU_CON_##acc(d[k][3])                \
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); \
    }
#define TU_MMA_BASE_F "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#define TU_MMA_BASE_I "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
#define TU_KERNEL_HMMA(id, arch, emul, acc, ptx)                                                   \
    __global__ void __launch_bounds__(1024, 1) tu_##id(int iters, unsigned a0, unsigned b0,        \
                                                       TU_ACC_##acc *sink)                         \
    {                                                                                              \
        tu_clock_note(0);                                                                          \
        unsigned a[4], b[2];                                                                       \
        _Pragma("unroll") for (int i = 0; i < 4; i++) a[i] = a0 ^ (threadIdx.x * (2 * i + 1));     \
        _Pragma("unroll") for (int i = 0; i < 2; i++) b[i] = b0 ^ (threadIdx.x * (2 * i + 9));     \
        TU_ACC_##acc d[TU_MMA_ILP][4];                                                             \
        _Pragma("unroll") for (int k = 0; k < TU_MMA_ILP; k++)                                     \
            _Pragma("unroll") for (int i = 0; i < 4; i++) d[k][i] = 0;                             \
        if constexpr (GM_BOTTLENECK_UNITS_NATIVE(arch, emul, TU_ARCH)) {                           \
            TU_MMA_LOOP(ptx, acc);                                                                 \
        } else {                                                                                   \
            /* never run (the launcher refuses the row below its compute                           \
             * capability and where it is emulated, gb_bottleneck_units_tensor_native); an         \
             * instruction this GPU has, so that every architecture's code of                      \
             * the kernel holds HMMA or IMMA */                                                    \
            TU_MMA_LOOP(TU_MMA_BASE_##acc, acc);                                                   \
        }                                                                                          \
        TU_ACC_##acc s = 0;                                                                        \
        _Pragma("unroll") for (int k = 0; k < TU_MMA_ILP; k++) s += d[k][0] + d[k][1] + d[k][2] + d[k][3]; \
        tu_clock_note(2);                                                                          \
        if (s == (TU_ACC_##acc) - 1) sink[0] = s;                                                  \
    }
#define TU_KERNEL_GMMA_SS(id, arch, emul, acc, ptx) /* bottleneck_wgmma.cu */
#define TU_KERNEL_GMMA_RS(id, arch, emul, acc, ptx)
#define TU_KERNEL(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    TU_KERNEL_##form(id, arch, emul, acc, ptx)
GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_KERNEL)
#undef TU_KERNEL

// ---- L2 and DRAM through the LSU -------------------------------------------------
// Thread t of T keeps U 16-byte accesses in flight: element b + u T + t of
// the working set (u < U), b stepping by U T and wrapping at n, a multiple of
// U T (the host makes it one), so no access leaves the working set.  .cg
// keeps L1 out: loads and stores go to L2 (and beyond it, for DRAM).  Every
// word a load brings is used: ptxas narrows a vector load to the words read
// after it, whatever the PTX says (with .x and .w alone, each v4 load became
// two 4-byte LDGs, twice the sectors from L1 per byte and half the bytes in
// flight; the SASS check's LDG.E.128 row caught it on the H200, 2026-12-02).
template <int U>
__global__ void __launch_bounds__(1024, 1) tu_lsu_ld(const int4 *__restrict__ p, long long n,
                                                     long long steps, int *sink)
{
    tu_clock_note(0);
    const long long T = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    long long b = 0;
    for (long long j = 0; j < steps; j++) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            asm volatile("ld.global.cg.v4.s32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                         : "l"(p + b + u * T + t));
#pragma unroll
        for (int u = 0; u < U; u++) acc ^= (unsigned)(v[u].x ^ v[u].y ^ v[u].z ^ v[u].w);
        b += U * T;
        if (b >= n) b = 0;
    }
    tu_clock_note(2);
    if (acc == 0x9e3779b9u) sink[0] = (int)acc;
}
template <int U>
__global__ void __launch_bounds__(1024, 1) tu_lsu_st(int4 *p, long long n, long long steps)
{
    tu_clock_note(0);
    const long long T = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int v = (int)t;
    long long b = 0;
    for (long long j = 0; j < steps; j++) {
#pragma unroll
        for (int u = 0; u < U; u++)
            asm volatile("st.global.cg.v4.s32 [%0], {%1, %1, %1, %1};" ::"l"(p + b + u * T + t), "r"(v)
                         : "memory");
        b += U * T;
        if (b >= n) b = 0;
    }
    tu_clock_note(2);
}

// ---- host launchers ---------------------------------------------------------------
extern "C" int gb_bottleneck_units_tensor_arch(int row)
{
    switch (row) {
#define TU_ARCH_ROW(id, type, form, arch, ...) \
    case GM_BOTTLENECK_UNITS_##id: return arch;
        GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_ARCH_ROW)
#undef TU_ARCH_ROW
    }
    return 0;
}

extern "C" int gb_bottleneck_units_tensor_native(int row, int cc100)
{
    switch (row) {
#define TU_NATIVE_ROW(id, type, form, arch, emul, ...) \
    case GM_BOTTLENECK_UNITS_##id: return GM_BOTTLENECK_UNITS_NATIVE(arch, emul, cc100);
        GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_NATIVE_ROW)
#undef TU_NATIVE_ROW
    }
    return 0;
}

extern "C" int gb_bottleneck_units_tensor_run(int row, int blocks, int threads, int iters,
                                              float *ms, double *mhz)
{
    static void *sink;
    cudaError_t st = cudaSuccess;
    if (!sink && (st = cudaMalloc(&sink, 64)) != cudaSuccess) return st;
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (!gb_bottleneck_units_tensor_native(row, major * 100 + minor * 10)) return cudaErrorNoKernelImageForDevice;
    if (gb_bottleneck_units_tensor_arch(row) >= 900) return gb_bottleneck_units_gmma_run(row, blocks, threads, iters, ms, mhz);
    cudaEvent_t e0, e1;
    if ((st = tu_timed_begin(&e0, &e1)) != cudaSuccess) return st;
    switch (row) {
#define TU_LAUNCH_HMMA(id, acc) \
    case GM_BOTTLENECK_UNITS_##id: tu_##id<<<blocks, threads>>>(iters, 0x3c003c00u, 0x3c003c00u, (TU_ACC_##acc *)sink); break;
#define TU_LAUNCH_GMMA_SS(id, acc)
#define TU_LAUNCH_GMMA_RS(id, acc)
#define TU_LAUNCH(id, type, form, arch, emul, k, acc, ...) TU_LAUNCH_##form(id, acc)
        GM_BOTTLENECK_UNITS_TENSOR_ROWS(TU_LAUNCH)
#undef TU_LAUNCH
    default: break;
    }
    return tu_timed_end(e0, e1, ms, mhz);
}

extern "C" int gb_bottleneck_units_lsu_run(int store, int per_thread, const void *buf,
                                           long long n_vec, long long steps, int blocks,
                                           int threads, float *ms, double *mhz)
{
    static int *sink;
    cudaError_t st = cudaSuccess;
    if (!sink && (st = cudaMalloc((void **)&sink, 64)) != cudaSuccess) return st;
    cudaEvent_t e0, e1;
    if ((st = tu_timed_begin(&e0, &e1)) != cudaSuccess) return st;
    const int4 *p = (const int4 *)buf;
#define TU_L(U)                                                                           \
    (store ? tu_lsu_st<U><<<blocks, threads>>>((int4 *)p, n_vec, steps)                    \
           : tu_lsu_ld<U><<<blocks, threads>>>(p, n_vec, steps, sink))
    switch (per_thread) {
    case 1: TU_L(1); break;
    case 2: TU_L(2); break;
    case 4: TU_L(4); break;
    case 8: TU_L(8); break;
    default: tu_timed_end(e0, e1, ms, mhz); return cudaErrorInvalidValue;
    }
#undef TU_L
    return tu_timed_end(e0, e1, ms, mhz);
}

/* The device the suite runs on: its SMs, L2 bytes and the memory's quoted
 * peak (memory clock x bus width x 2, bytes per ns). */
extern "C" int gb_bottleneck_units_device_info(int device, int *sm_count, int *cc,
                                               long long *l2_bytes, double *dram_peak_gbps)
{
    cudaError_t st = cudaSetDevice(device);
    if (st != cudaSuccess) return st;
    int v[5] = {0, 0, 0, 0, 0};
    const cudaDeviceAttr a[5] = {cudaDevAttrMultiProcessorCount, cudaDevAttrComputeCapabilityMajor,
                                 cudaDevAttrComputeCapabilityMinor, cudaDevAttrL2CacheSize,
                                 cudaDevAttrGlobalMemoryBusWidth};
    for (int i = 0; i < 5 && st == cudaSuccess; i++) st = cudaDeviceGetAttribute(&v[i], a[i], device);
    int mem_khz = 0;
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
    if (st != cudaSuccess) return st;
    *sm_count = v[0];
    *cc = v[1] * 10 + v[2];
    *l2_bytes = v[3];
    *dram_peak_gbps = mem_khz * 1e3 * 2.0 * (v[4] / 8.0) / 1e9;
    return 0;
}
extern "C" int gb_bottleneck_units_malloc(void **p, size_t n) { return cudaMalloc(p, n); }
extern "C" int gb_bottleneck_units_memset(void *p, size_t n) { return cudaMemset(p, 1, n); }
extern "C" void gb_bottleneck_units_free(void *p) { cudaFree(p); }
extern "C" const char *gb_bottleneck_units_error_string(int st) { return cudaGetErrorString((cudaError_t)st); }
extern "C" int gb_bottleneck_units_error_is_no_image(int st)
{
    return st == cudaErrorNoKernelImageForDevice || st == cudaErrorInvalidDeviceFunction;
}
