// Validation cases of the "global atomics" unit (docs/global-atomics.md):
// kernels whose L2 atomic-unit utilization is known by construction.
//
//   atomic  nothing but global atomics (ATOM/RED/CAS; 32/64-bit; f32) on one
//           address, a few addresses, every thread its own sector, or
//           coalesced: the atomic units always have work, U_true = 1;
//   free    no global atomic (FMAs, a copy, shared-memory atomics):
//           U_true = 0 exactly;
//   mixed   the same atomics with K dependent FMAs per atomic (the knob):
//           U_true = T(atomics-only twin) / T(mixed), the twin being the
//           atomic case of the same operation, pattern and count.
//
//   gatomics_cases --list                   the cases, one per line
//   gatomics_cases --times [--reps N]       CSV: case, group, ..., ms, U_true
//   gatomics_cases --profile                every case once (for ncu), CSV manifest
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

enum Op { ATOM32, RED32, ATOM64, RED64, ATOMF32, REDF32, CAS32, NONE, COPY, SHARED };
enum Pat { ONE, FEW, DISTINCT, COALESCED };

const char *op_name(int op)
{
    static const char *n[] = {"atom.add.u32", "red.add.u32", "atom.add.u64", "red.add.u64",
                              "atom.add.f32", "red.add.f32", "atom.cas.u32", "fma",
                              "copy", "atoms.add"};
    return n[op];
}
const char *pat_name(int p)
{
    static const char *n[] = {"one", "few", "distinct", "coalesced"};
    return n[p];
}

template <int OP>
__device__ __forceinline__ unsigned long long op1(char *p)
{
    unsigned r = 0;
    unsigned long long r64 = 0;
    float rf = 0;
    switch (OP) {
    case ATOM32:
        asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(p) : "memory");
        return r;
    case RED32:
        asm volatile("red.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
        return 0;
    case ATOM64:
        asm volatile("atom.global.add.u64 %0, [%1], 1;" : "=l"(r64) : "l"(p) : "memory");
        return r64;
    case RED64:
        asm volatile("red.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
        return 0;
    case ATOMF32:
        asm volatile("atom.global.add.f32 %0, [%1], 0f3F800000;" : "=f"(rf) : "l"(p) : "memory");
        return __float_as_uint(rf);
    case REDF32:
        asm volatile("red.global.add.f32 [%0], 0f3F800000;" ::"l"(p) : "memory");
        return 0;
    case CAS32:
        asm volatile("atom.global.cas.b32 %0, [%1], 0, 1;" : "=r"(r) : "l"(p) : "memory");
        return r;
    default:
        return 0;
    }
}

// Every thread: iters x (K dependent FMAs, then one operation).  The
// operation does not depend on the FMAs, so the two can overlap.
template <int OP>
__global__ void __launch_bounds__(1024, 2)
    gv_loop(char *buf, int pattern, int naddr, int iters, int k16, unsigned long long *sink)
{
    const unsigned long long gtid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned es = (OP == ATOM64 || OP == RED64) ? 8u : 4u;
    unsigned long long off;
    switch (pattern) {
    case ONE: off = 0; break;
    case FEW: off = (gtid % (unsigned)naddr) * 4096ull; break;
    case DISTINCT: off = gtid * 32ull; break;
    default: off = gtid * es; break;
    }
    char *p = buf + off;
    float f = 1.0f + (float)(threadIdx.x & 3) * 1e-7f;
    const float a = 0.9999999f, b = 1e-7f;
    unsigned long long acc = 0;
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < k16; k++) {
#pragma unroll
            for (int j = 0; j < 16; j++)
                f = fmaf(f, a, b);
        }
        acc += op1<OP>(p);
    }
    sink[gtid] = acc + __float_as_uint(f);
}

// Atomic-free: a copy through L2 (loads and stores, no atomics).
__global__ void gv_copy(const float4 *in, float4 *out, size_t n, int iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < iters; r++)
        for (size_t j = i; j < n; j += (size_t)gridDim.x * blockDim.x)
            out[j] = make_float4(in[j].x + r, in[j].y, in[j].z, in[j].w);
}

// Atomic-free for L2: shared-memory atomics only (a per-block histogram
// that is never written back with atomics).
__global__ void gv_shared(const unsigned *in, size_t n, unsigned *out)
{
    __shared__ unsigned h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[in[j] & 255u], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        out[(size_t)blockIdx.x * 256 + i] = h[i];
}

struct Case {
    std::string name, group;
    int op, pattern, naddr, iters, k16;
    std::string twin; // mixed: the atomic case it is compared with
};

int n_sm = 132;

std::vector<Case> make_cases()
{
    std::vector<Case> cs;
    const int ops[] = {ATOM32, RED32, ATOM64, RED64, ATOMF32, REDF32, CAS32};
    struct P {
        int pat, naddr, iters;
        const char *tag;
    } pats[] = {{ONE, 1, 2, "one"},          {FEW, 4, 4, "few4"},        {FEW, 16, 8, "few16"},
                {DISTINCT, 1, 32, "distinct"}, {COALESCED, 1, 256, "coalesced"}};
    for (int op : ops)
        for (const P &p : pats) {
            Case c{std::string(op_name(op)) + "_" + p.tag, "atomic", op, p.pat, p.naddr, p.iters, 0, ""};
            cs.push_back(c);
        }
    cs.push_back({"fma_only", "free", NONE, DISTINCT, 1, 16, 64, ""});
    cs.push_back({"copy", "free", COPY, DISTINCT, 1, 8, 0, ""});
    cs.push_back({"shared_atomics", "free", SHARED, DISTINCT, 1, 1, 0, ""});
    // Mixed: the knob is K = 16 * k16 FMAs per atomic.
    struct M {
        int op, pat, naddr, iters;
        const char *tag;
        int k16[3];
    } mixed[] = {{ATOM32, ONE, 1, 2, "one", {512, 2048, 8192}},
                 {RED32, ONE, 1, 2, "one", {512, 2048, 8192}},
                 {ATOM32, DISTINCT, 1, 32, "distinct", {8, 32, 128}},
                 {RED32, DISTINCT, 1, 32, "distinct", {8, 32, 128}},
                 {ATOM32, FEW, 16, 8, "few16", {32, 128, 512}},
                 {REDF32, ONE, 1, 2, "one", {512, 2048, 8192}}};
    for (const M &m : mixed)
        for (int k : m.k16) {
            std::string twin = std::string(op_name(m.op)) + "_" + m.tag;
            cs.push_back({twin + "_k" + std::to_string(16 * k), "mixed", m.op, m.pat, m.naddr, m.iters, k, twin});
        }
    return cs;
}

char *d_buf;
unsigned long long *d_sink;
float4 *d_in4, *d_out4;
unsigned *d_hist_in, *d_hist_out;
const size_t COPY_N = 4u << 20; // float4s: 64 MB each way
const size_t HIST_N = 16u << 20;

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "gatomics_cases: %s: %s\n", #x, cudaGetErrorString(e_));           \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

void launch(const Case &c)
{
    dim3 grid(2 * n_sm), block(1024);
    switch (c.op) {
    case ATOM32: gv_loop<ATOM32><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case RED32: gv_loop<RED32><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case ATOM64: gv_loop<ATOM64><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case RED64: gv_loop<RED64><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case ATOMF32: gv_loop<ATOMF32><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case REDF32: gv_loop<REDF32><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case CAS32: gv_loop<CAS32><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case NONE: gv_loop<NONE><<<grid, block>>>(d_buf, c.pattern, c.naddr, c.iters, c.k16, d_sink); break;
    case COPY: gv_copy<<<grid, block>>>(d_in4, d_out4, COPY_N, c.iters); break;
    default: gv_shared<<<grid, 512>>>(d_hist_in, HIST_N, d_hist_out); break;
    }
    CK(cudaGetLastError());
}

} // namespace

int main(int argc, char **argv)
{
    enum { LIST, TIMES, PROFILE } mode = LIST;
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) mode = LIST;
        else if (!strcmp(argv[i], "--times")) mode = TIMES;
        else if (!strcmp(argv[i], "--profile")) mode = PROFILE;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "gatomics_cases: unknown argument '%s' (--list | --times [--reps N] | --profile)\n", argv[i]);
            return 1;
        }
    }
    if (reps < 1 || reps > 101) {
        fprintf(stderr, "gatomics_cases: --reps must be 1..101\n");
        return 1;
    }
    std::vector<Case> cs = make_cases();
    if (mode == LIST) {
        for (const Case &c : cs)
            printf("%s %s\n", c.group.c_str(), c.name.c_str());
        return 0;
    }
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count < 1) {
        fprintf(stderr, "gatomics_cases: no CUDA device\n");
        return 77;
    }
    CK(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, 0));
    const size_t buf_bytes = 80ull << 20;
    CK(cudaMalloc(&d_buf, buf_bytes));
    CK(cudaMalloc(&d_sink, (size_t)n_sm * 2048 * 8));
    CK(cudaMalloc(&d_in4, COPY_N * sizeof(float4)));
    CK(cudaMalloc(&d_out4, COPY_N * sizeof(float4)));
    CK(cudaMalloc(&d_hist_in, HIST_N * 4));
    CK(cudaMalloc(&d_hist_out, (size_t)n_sm * 2 * 256 * 4));
    CK(cudaMemset(d_in4, 0, COPY_N * sizeof(float4)));
    CK(cudaMemset(d_hist_in, 7, HIST_N * 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (mode == PROFILE)
        printf("index,case,group,op,pattern,naddr,iters,fma,twin\n");
    else
        printf("case,group,op,pattern,naddr,iters,fma,twin,ms,ms_min,ms_max,reps\n");
    int index = 0;
    std::vector<std::pair<std::string, double>> times;
    for (const Case &c : cs) {
        CK(cudaMemset(d_buf, 0, buf_bytes));
        if (mode == PROFILE) {
            launch(c);
            CK(cudaDeviceSynchronize());
            printf("%d,%s,%s,%s,%s,%d,%d,%d,%s\n", index++, c.name.c_str(), c.group.c_str(),
                   op_name(c.op), pat_name(c.pattern), c.naddr, c.iters, 16 * c.k16, c.twin.c_str());
            continue;
        }
        launch(c); // warm-up
        std::vector<double> ms;
        for (int r = 0; r < reps; r++) {
            CK(cudaEventRecord(e0));
            launch(c);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float t = 0;
            CK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        double med = ms[ms.size() / 2];
        printf("%s,%s,%s,%s,%d,%d,%d,%s,%.6f,%.6f,%.6f,%d\n", c.name.c_str(), c.group.c_str(),
               op_name(c.op), pat_name(c.pattern), c.naddr, c.iters, 16 * c.k16, c.twin.c_str(), med,
               ms.front(), ms.back(), reps);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
