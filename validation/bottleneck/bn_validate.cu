// Ground truth for the bottleneck model (paper 004): kernels whose bottleneck
// is known by construction, each at several warps per SM, and the what-if
// twins (the same kernel without bank conflicts, coalesced).  Also the pipe
// probes (which counter each timed SASS instruction lands in) and the access
// patterns the transaction simulator is checked against (patterns.h).
//
//   bn_validate --time      cases, event-timed: median of 7 launches after a warm-up
//   bn_validate --profile   cases, one launch each (run under ncu -k regex:^bn_)
//   bn_validate --patterns  one launch of one warp per access pattern (under ncu)
//   bn_validate --probes    one launch per pipe probe (under ncu)
// Output: CSV on stdout, one row per case: case,kernel,expected,warps,blocks,
// threads,median_us,spread.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "bn_validate: %s: %s\n", #x, cudaGetErrorString(e_));          \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// ---- known bottlenecks ------------------------------------------------------
// Instruction pipeline: four independent FFMA chains (fma pipe).
__global__ void __launch_bounds__(1024, 2) bn_ffma(int iters, float a, float *sink)
{
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            x0 = fmaf(x0, a, 0.5f); x1 = fmaf(x1, a, 0.5f);
            x2 = fmaf(x2, a, 0.5f); x3 = fmaf(x3, a, 0.5f);
        }
    }
    if (x0 + x1 + x2 + x3 == -1.0f) sink[0] = x0;
}
// Instruction pipeline, expensive instructions: MUFU.RSQ (xu pipe) chains.
__global__ void __launch_bounds__(1024, 2) bn_mufu(int iters, float a, float *sink)
{
    float x0 = threadIdx.x + a, x1 = x0 + 1;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x0));
            asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x1));
        }
    }
    if (x0 + x1 == -1.0f) sink[0] = x0;
}
// Instruction pipeline, fp64: two DFMA chains.
__global__ void __launch_bounds__(1024, 2) bn_dfma(int iters, double a, double *sink)
{
    double x0 = threadIdx.x, x1 = x0 + 1;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            x0 = fma(x0, a, 0.5); x1 = fma(x1, a, 0.5);
        }
    }
    if (x0 + x1 == -1.0) sink[0] = x0;
}
// Shared memory: a copy between two regions, thread stride `stride` words
// (stride 1: no conflicts; 8: 8-way; 32: 32-way).
__global__ void __launch_bounds__(1024, 2) bn_shared(int iters, int stride, int *sink)
{
    extern __shared__ unsigned sh[];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned base = (unsigned)__cvta_generic_to_shared(sh) + warp * 32u * stride * 8u;
    unsigned a = base + lane * stride * 4u, b = a + 32u * stride * 4u, acc = 0;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
            unsigned v;
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
            asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(b), "r"(v + 1));
            acc += v;
            unsigned t = a; a = b; b = t;
        }
    }
    if (acc == 0x9e3779b9u) sink[0] = acc;
}
// Global memory: a streaming float4 copy (DRAM-resident, coalesced).
__global__ void __launch_bounds__(1024, 2) bn_stream(const float4 *__restrict__ in, float4 *out, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        out[i] = in[i];
}
// Global memory: a float gather at `stride` floats (8: one sector per thread,
// uncoalesced) and its twin at stride 1 (coalesced); same instructions.
__global__ void __launch_bounds__(1024, 2) bn_gather(const float *__restrict__ in, float *out, long n, int stride)
{
    float acc = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        acc += __ldcg(in + i * stride);
    if (acc == -1.0f) out[0] = acc;
}
// Global memory, L2-resident: 16-byte .cg loads that wrap in an 8 MiB window.
__global__ void __launch_bounds__(1024, 2) bn_l2(const int4 *__restrict__ in, int iters, int *sink)
{
    const unsigned mask = (8u << 20) / 16 - 1;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x, acc = 0;
    for (int k = 0; k < iters; k++, i += step) {
        int4 v = __ldcg(in + (i & mask));
        acc ^= v.x ^ v.w;
    }
    if (acc == 0x9e3779b9u) sink[0] = acc;
}
__global__ void init_words(unsigned *p, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        p[i] = (unsigned)i * 2654435761u;
}

// ---- pipe probes --------------------------------------------------------------
#define PROBE(name, decl, asmtext, cons)                                          \
    __global__ void name(int *sink)                                               \
    {                                                                             \
        decl;                                                                     \
        _Pragma("unroll") for (int u = 0; u < 64; u++) asm volatile(asmtext : cons); \
        if (sink == (int *)1) sink[0] = (int)x;                                   \
    }
PROBE(bn_probe_ffma, float x = threadIdx.x, "fma.rn.f32 %0, %0, %0, %0;", "+f"(x))
PROBE(bn_probe_imad, int x = threadIdx.x, "mad.lo.s32 %0, %0, %0, %0;", "+r"(x))
PROBE(bn_probe_lop3, int x = threadIdx.x, "lop3.b32 %0, %0, %0, %0, 0x96;", "+r"(x))
PROBE(bn_probe_dfma, double x = threadIdx.x, "fma.rn.f64 %0, %0, %0, %0;", "+d"(x))
PROBE(bn_probe_hfma2, unsigned x = threadIdx.x, "fma.rn.f16x2 %0, %0, %0, %0;", "+r"(x))
PROBE(bn_probe_mufu, float x = threadIdx.x, "ex2.approx.ftz.f32 %0, %0;", "+f"(x))

// ---- access patterns (patterns.h) ---------------------------------------------
__global__ void bn_pat_global(int p, const char *buf, int *sink)
{
    int bytes, active;
    unsigned a = bn_global_addr(p, threadIdx.x, &bytes, &active);
    unsigned v = 0;
    if (active) {
        const char *q = buf + a;
        if (bytes == 4) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q));
        else if (bytes == 8) { unsigned y; asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(v), "=r"(y) : "l"(q)); v ^= y; }
        else { unsigned y, z, w; asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v), "=r"(y), "=r"(z), "=r"(w) : "l"(q)); v ^= y ^ z ^ w; }
    }
    if (v == 0x9e3779b9u) sink[0] = v;
}
__global__ void bn_pat_shared(int p, int *sink)
{
    __shared__ __align__(16) unsigned char sh[16384];
    int bytes, active;
    unsigned a = bn_shared_addr(p, threadIdx.x, &bytes, &active);
    unsigned s = (unsigned)__cvta_generic_to_shared(sh) + a, v = 0;
    if (active) {
        if (bytes == 4) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(s));
        else if (bytes == 8) { unsigned y; asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v), "=r"(y) : "r"(s)); v ^= y; }
        else { unsigned y, z, w; asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v), "=r"(y), "=r"(z), "=r"(w) : "r"(s)); v ^= y ^ z ^ w; }
    }
    if (v == 0x9e3779b9u) sink[0] = v;
}

// ---- the cases ------------------------------------------------------------------
enum { K_FFMA, K_MUFU, K_DFMA, K_SH1, K_SH8, K_SH32, K_STREAM, K_STRIDED, K_CONTIG, K_L2, K_COUNT };
static const char *kname[K_COUNT] = {"ffma", "mufu", "dfma", "shared_1way", "shared_8way",
                                     "shared_32way", "stream", "gather_stride8", "gather_stride1", "l2_ldcg"};
static const char *expected[K_COUNT] = {"instruction", "instruction", "instruction", "shared",
                                        "shared", "shared", "global", "global", "global", "global"};
static const int warps_list[] = {2, 4, 8, 16, 32, 64};

struct bufs {
    float4 *a, *b;
    int *sink;
};

static void launch(int k, int w, int sm, const bufs &B)
{
    int blocks = w <= 32 ? sm : 2 * sm, threads = w <= 32 ? 32 * w : 1024;
    int scale = 64 / w; // same work per SM-cycle of issue at every w: longer per thread when few
    switch (k) {
    case K_FFMA: bn_ffma<<<blocks, threads>>>(384 * scale, 0.999f, (float *)B.sink); break;
    case K_MUFU: bn_mufu<<<blocks, threads>>>(96 * scale, 0.5f, (float *)B.sink); break;
    case K_DFMA: bn_dfma<<<blocks, threads>>>(192 * scale, 0.999, (double *)B.sink); break;
    case K_SH1: case K_SH8: case K_SH32: {
        int stride = k == K_SH1 ? 1 : k == K_SH8 ? 8 : 32;
        // shared bytes per block: warps x 32 x stride x 8; 32-way at 64 warps: 2 x 128 KB
        size_t smem = (size_t)(threads / 32) * 32 * stride * 8;
        CK(cudaFuncSetAttribute(bn_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 110 * 1024));
        if (smem > 110 * 1024) { // more than fits: fewer blocks of the same shape cannot hold w
            blocks = sm; threads = (int)(110 * 1024 / (32 * stride * 8)) * 32; smem = (size_t)(threads / 32) * 32 * stride * 8;
        }
        int iters = (k == K_SH1 ? 256 : k == K_SH8 ? 32 : 8) * scale;
        bn_shared<<<blocks, threads, smem>>>(iters, stride, B.sink);
        break;
    }
    case K_STREAM: bn_stream<<<blocks, threads>>>(B.a, B.b, 16L << 20); break;      // 256 MiB each way
    case K_STRIDED: bn_gather<<<blocks, threads>>>((const float *)B.a, (float *)B.b, 32L << 20, 8); break;
    case K_CONTIG: bn_gather<<<blocks, threads>>>((const float *)B.a, (float *)B.b, 32L << 20, 1); break;
    case K_L2: bn_l2<<<blocks, threads>>>((const int4 *)B.a, 256 * scale, B.sink); break;
    }
}

static int cmpf(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "--time";
    int sm = 0;
    CK(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0));
    bufs B;
    CK(cudaMalloc(&B.a, 1L << 30));
    CK(cudaMalloc(&B.b, 1L << 30));
    CK(cudaMalloc(&B.sink, 64));
    init_words<<<4 * sm, 256>>>((unsigned *)B.a, (1L << 30) / 4);
    CK(cudaDeviceSynchronize());
    if (!strcmp(mode, "--patterns")) {
        printf("space,pattern\n");
        for (int p = 0; p < BN_N_GLOBAL; p++) {
            bn_pat_global<<<1, 32>>>(p, (const char *)B.a, B.sink);
            printf("global,%d\n", p);
        }
        for (int p = 0; p < BN_N_SHARED; p++) {
            bn_pat_shared<<<1, 32>>>(p, B.sink);
            printf("shared,%d\n", p);
        }
        CK(cudaDeviceSynchronize());
        return 0;
    }
    if (!strcmp(mode, "--probes")) {
        bn_probe_ffma<<<1, 32>>>(B.sink); bn_probe_imad<<<1, 32>>>(B.sink);
        bn_probe_lop3<<<1, 32>>>(B.sink); bn_probe_dfma<<<1, 32>>>(B.sink);
        bn_probe_hfma2<<<1, 32>>>(B.sink); bn_probe_mufu<<<1, 32>>>(B.sink);
        CK(cudaDeviceSynchronize());
        printf("probes,ffma imad lop3 dfma hfma2 mufu\n");
        return 0;
    }
    int timing = !strcmp(mode, "--time");
    printf("case,kernel,expected,warps,median_us,spread\n");
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int k = 0; k < K_COUNT; k++)
        for (int wi = 0; wi < 6; wi++) {
            int w = warps_list[wi];
            float ms[7] = {0};
            int reps = timing ? 7 : 1;
            if (timing) launch(k, w, sm, B); // warm-up
            for (int r = 0; r < reps; r++) {
                CK(cudaEventRecord(e0));
                launch(k, w, sm, B);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                CK(cudaEventElapsedTime(&ms[r], e0, e1));
            }
            qsort(ms, reps, sizeof(float), cmpf);
            printf("%s_w%d,%s,%s,%d,%.3f,%.4f\n", kname[k], w, kname[k], expected[k], w,
                   ms[reps / 2] * 1e3, ms[reps / 2] > 0 ? (ms[reps - 1] - ms[0]) / ms[reps / 2] : 0);
        }
    return 0;
}
