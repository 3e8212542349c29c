// Ground truth for the latency and launch verdicts (docs/bottleneck.md,
// "Latency and launch bound: validation"): kernels whose time latency or the
// launch sets by construction, and the kernels changed as the what-ifs say
// (more warps, more independent chains per warp, the launches fused or in a
// CUDA graph); and the T(g,b) sweep of the waves section's launch-shape
// what-ifs (docs/diag.md).  Every kernel writes its result, so the compiler
// keeps the work (check_sass.py checks the SASS).
//
//   lb_validate --cases           the case table (CSV) and exit
//   lb_validate --time [--reps N] every case event-timed: median of N (5) after a
//                                 warm-up; then 64 launches of the tiny kernel back
//                                 to back, the same in a CUDA graph, and fused
//   lb_validate --profile         one launch per case, in table order (under gpuq
//                                 profile or ncu)
//   lb_validate --sweep-time [--reps N], --sweep-profile
//                                 the T(g,b) sweep: a dependent FFMA chain (one per
//                                 thread, then two) at 1-32 warps per block, grids
//                                 from half the SMs to 64 waves
// Output: CSV on stdout.  Timing: a kernel that holds the GPU for 20 us is
// launched first, so that the timed launch and both events are queued before
// the GPU reaches them and the events time the GPU, not the CPU; the stream
// of tiny launches is timed without it (the CPU's pace is what it measures).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "lb_validate: %s: %s\n", #x, cudaGetErrorString(e_));          \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define UNROLL 64 // few loop instructions beside the FFMAs: the issue share stays the chain's
// FFMAs per SM in every chain case: the same work at every warp count and
// chain count, so that a twin's time is the base's work at more concurrency.
#define FFMA_PER_SM (327680L * 32)
// dependent loads per SM in every pointer-chase case
#define CHASE_PER_SM (2048L * 32)
#define CHASE_WORDS (1u << 22) // 16 MiB: resident in L2

// ---- kernels --------------------------------------------------------------------
// K independent dependent chains of FFMA per thread, UNROLL x iters long each.
template <int K>
__global__ void __launch_bounds__(1024, 2) lb_ffma(int iters, float a, float b, float *out)
{
    float x[K];
#pragma unroll
    for (int k = 0; k < K; k++) x[k] = threadIdx.x * 1e-3f + k;
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
#pragma unroll
            for (int k = 0; k < K; k++) x[k] = fmaf(x[k], a, b);
        }
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < K; k++) s += x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// A pointer chase: each warp follows its own cycle through `next` (all its
// lanes one address, .cg: every load waits for the L2), `steps` loads.
__global__ void __launch_bounds__(1024, 2) lb_chase(const unsigned *__restrict__ next, int steps,
                                                    unsigned *out)
{
    unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned p = (gw * 40503u) & (CHASE_WORDS - 1);
    for (int i = 0; i < steps; i++) p = __ldcg(next + p);
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

// Barriers in a loop: warp 0 of the block does 8 dependent FFMAs per
// iteration, the others one, so the others wait at the barrier.
__global__ void lb_barrier(int iters, float a, float b, float *out)
{
    float x = threadIdx.x * 1e-3f;
    int n = threadIdx.x < 32 ? 8 : 1;
    for (int i = 0; i < iters; i++) {
        for (int j = 0; j < n; j++) x = fmaf(x, a, b);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void lb_empty(void) {}

// One store per thread: the least a kernel can do and still write a result.
__global__ void lb_store(unsigned *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

// Holds the GPU (see the header comment).
__global__ void lb_hold(long long ns)
{
    uint64_t t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while ((long long)(t1 - t0) < ns);
}

// ---- the cases ------------------------------------------------------------------
enum { C_FFMA, C_CHASE, C_BARRIER, C_EMPTY, C_STORE };

struct lb_case {
    char name[40];
    int kind;
    int chains;      // C_FFMA: K
    int blocks;      // absolute (sm-dependent ones filled in at run time)
    int threads;
    int iters;       // FFMA: chain iterations; CHASE: steps; BARRIER: iterations
};

#define MAX_CASES 64
static lb_case cases[MAX_CASES];
static int n_cases;

static void add(const char *name, int kind, int chains, int blocks, int threads, int iters)
{
    lb_case *c = &cases[n_cases++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = kind;
    c->chains = chains;
    c->blocks = blocks;
    c->threads = threads;
    c->iters = iters;
}

// w warps per SM: one block of w warps per SM up to 32, two of 32 beyond.
static void per_sm(int w, int sm, int *blocks, int *threads)
{
    *blocks = w <= 32 ? sm : sm * (w / 32);
    *threads = w <= 32 ? 32 * w : 1024;
}

static void build_cases(int sm)
{
    static const int warps[] = {1, 2, 4, 8, 16, 32, 64};
    char name[40];
    int blocks, threads;
    for (int k = 1; k <= 4; k *= 2)
        for (int i = 0; i < 7; i++) {
            per_sm(warps[i], sm, &blocks, &threads);
            snprintf(name, sizeof name, "ffma_c%d_w%d", k, warps[i]);
            add(name, C_FFMA, k, blocks, threads, (int)(FFMA_PER_SM / (32L * warps[i] * k * UNROLL)));
        }
    static const int chase_warps[] = {1, 2, 4, 8, 16};
    for (int i = 0; i < 5; i++) {
        per_sm(chase_warps[i], sm, &blocks, &threads);
        snprintf(name, sizeof name, "chase_w%d", chase_warps[i]);
        add(name, C_CHASE, 0, blocks, threads, (int)(CHASE_PER_SM / (32L * chase_warps[i])));
    }
    // tiny grids: one block of one warp, four blocks of two; about 100 us of chain
    add("tiny_1block", C_FFMA, 1, 1, 32, 49152 / UNROLL);
    add("tiny_4blocks", C_FFMA, 1, 4, 64, 49152 / UNROLL);
    add("barrier_loop", C_BARRIER, 0, sm, 256, 4096);
    add("empty_1", C_EMPTY, 0, 1, 32, 0);
    add("empty_grid", C_EMPTY, 0, sm, 128, 0);
    add("store_1", C_STORE, 0, 1, 32, 0);
    add("store_grid", C_STORE, 0, sm, 256, 0);
    // the launch-bound kernel of the fused / graph what-ifs: 768 dependent
    // FFMAs on one warp (about 1.6 us: with a launch's own cost still under an
    // empty launch back to back), and the same 64 times in one launch
    add("launch_chain", C_FFMA, 1, 1, 32, 768 / UNROLL);
    add("fused_chain64", C_FFMA, 1, 1, 32, 64 * 768 / UNROLL);
}

struct bufs {
    float *f;
    unsigned *u, *next;
};

static void launch(const lb_case *c, const bufs &B)
{
    switch (c->kind) {
    case C_FFMA:
        if (c->chains == 1) lb_ffma<1><<<c->blocks, c->threads>>>(c->iters, 0.999f, 0.5f, B.f);
        else if (c->chains == 2) lb_ffma<2><<<c->blocks, c->threads>>>(c->iters, 0.999f, 0.5f, B.f);
        else lb_ffma<4><<<c->blocks, c->threads>>>(c->iters, 0.999f, 0.5f, B.f);
        break;
    case C_CHASE: lb_chase<<<c->blocks, c->threads>>>(B.next, c->iters, B.u); break;
    case C_BARRIER: lb_barrier<<<c->blocks, c->threads>>>(c->iters, 0.999f, 0.5f, B.f); break;
    case C_EMPTY: lb_empty<<<c->blocks, c->threads>>>(); break;
    case C_STORE: lb_store<<<c->blocks, c->threads>>>(B.u); break;
    }
}

static int cmpf(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

// Median, min and max of `reps` timings of fn (ms), after one warm-up; with
// `hold`, the GPU is held first so that the events time the GPU alone.
template <typename F> static void time_it(int reps, int hold, F fn, float out[3])
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float ms[64];
    if (reps > 64) reps = 64;
    for (int r = -1; r < reps; r++) {
        if (hold) lb_hold<<<1, 1>>>(20000);
        CK(cudaEventRecord(e0));
        fn();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        if (r >= 0) CK(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    qsort(ms, reps, sizeof ms[0], cmpf);
    out[0] = ms[reps / 2];
    out[1] = ms[0];
    out[2] = ms[reps - 1];
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

static const lb_case *find(const char *name)
{
    for (int i = 0; i < n_cases; i++)
        if (!strcmp(cases[i].name, name)) return &cases[i];
    return NULL;
}

// The launch-bound what-ifs: 64 launches of launch_chain back to back (the
// CPU's pace), the same 64 in a CUDA graph (the GPU's), and fused_chain64.
static void time_launches(int reps, const bufs &B)
{
    const lb_case *tiny = find("launch_chain"), *fused = find("fused_chain64");
    const int N = 64;
    float t[3];
    time_it(reps, 0, [&] { for (int i = 0; i < N; i++) launch(tiny, B); }, t);
    printf("stream64,launch_chain,%d,%d,%d,%.4f,%.4f,%.4f\n", tiny->blocks, tiny->threads, N,
           t[0] * 1e3 / N, t[1] * 1e3 / N, t[2] * 1e3 / N);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < N; i++)
        lb_ffma<1><<<tiny->blocks, tiny->threads, 0, s>>>(tiny->iters, 0.999f, 0.5f, B.f);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    time_it(reps, 1, [&] { CK(cudaGraphLaunch(ge, 0)); }, t);
    printf("graph64,launch_chain,%d,%d,%d,%.4f,%.4f,%.4f\n", tiny->blocks, tiny->threads, N,
           t[0] * 1e3 / N, t[1] * 1e3 / N, t[2] * 1e3 / N);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    time_it(reps, 1, [&] { launch(fused, B); }, t);
    printf("fused64,fused_chain64,%d,%d,%d,%.4f,%.4f,%.4f\n", fused->blocks, fused->threads, N,
           t[0] * 1e3 / N, t[1] * 1e3 / N, t[2] * 1e3 / N);
}

// ---- the T(g,b) sweep ------------------------------------------------------------
#define SWEEP_ITERS (20480 / UNROLL) // dependent FFMAs per thread: about 41 us for one warp alone
// The chains per thread the sweep runs: one (a warp issues every 4 clocks:
// 4 warps keep a scheduler busy), then two of half the length each (every 2
// clocks: 2 warps), the same FFMAs per thread.
static const int sweep_chains[] = {1, 2};

struct sweep_pt {
    int b, G;
};

// Warps per block 1..32; grids: half the SMs, then n_mp x {2^k, 3 x 2^k} up
// to 64 waves (N_slot from the occupancy API): closed under the what-ifs'
// 2G, G/2, (2b, G/2) and (b/2, 2G).
static int sweep_points(int sm, sweep_pt *pts, int max)
{
    int n = 0;
    for (int b = 1; b <= 32; b *= 2) {
        int N = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&N, lb_ffma<1>, 32 * b, 0));
        long top = 64L * N;
        if (n < max) pts[n++] = {b, sm / 2};
        for (long g = 1; g <= top && n < max; g *= 2) pts[n++] = {b, (int)(sm * g)};
        for (long g = 3; g <= top && n < max; g *= 2) pts[n++] = {b, (int)(sm * g)};
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "--time";
    int reps = 5;
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    if (reps < 1) reps = 1;
    int sm = 0;
    CK(cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0));
    build_cases(sm);
    if (!strcmp(mode, "--cases")) {
        printf("case,kind,chains,blocks,threads,iters\n");
        static const char *kinds[] = {"ffma", "chase", "barrier", "empty", "store"};
        for (int i = 0; i < n_cases; i++)
            printf("%s,%s,%d,%d,%d,%d\n", cases[i].name, kinds[cases[i].kind], cases[i].chains,
                   cases[i].blocks, cases[i].threads, cases[i].iters);
        return 0;
    }
    bufs B;
    CK(cudaMalloc(&B.f, 64L * sm * 2048 * sizeof(float))); // every grid's one word per thread
    CK(cudaMalloc(&B.u, (size_t)sm * 2048 * sizeof(unsigned)));
    CK(cudaMalloc(&B.next, CHASE_WORDS * sizeof(unsigned)));
    {
        // one cycle through every word (Sattolo), so that no chase repeats early
        unsigned *h = (unsigned *)malloc(CHASE_WORDS * sizeof(unsigned));
        if (!h) return 1;
        for (unsigned i = 0; i < CHASE_WORDS; i++) h[i] = i;
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (unsigned i = CHASE_WORDS - 1; i > 0; i--) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned j = (unsigned)(x % i), t = h[i];
            h[i] = h[j], h[j] = t;
        }
        CK(cudaMemcpy(B.next, h, CHASE_WORDS * sizeof(unsigned), cudaMemcpyHostToDevice));
        free(h);
    }
    if (!strcmp(mode, "--time") || !strcmp(mode, "--profile")) {
        int timing = !strcmp(mode, "--time");
        printf("case,kernel,blocks,threads,launches,median_us,min_us,max_us\n");
        for (int i = 0; i < n_cases; i++) {
            const lb_case *c = &cases[i];
            float t[3] = {0, 0, 0};
            if (timing) {
                time_it(reps, 1, [&] { launch(c, B); }, t);
            } else {
                launch(c, B);
                CK(cudaDeviceSynchronize());
            }
            printf("%s,%s,%d,%d,1,%.4f,%.4f,%.4f\n", c->name, c->name, c->blocks, c->threads,
                   t[0] * 1e3, t[1] * 1e3, t[2] * 1e3);
        }
        if (timing) time_launches(reps, B);
        return 0;
    }
    if (!strcmp(mode, "--sweep-time") || !strcmp(mode, "--sweep-profile")) {
        int timing = !strcmp(mode, "--sweep-time");
        sweep_pt pts[256];
        int n = sweep_points(sm, pts, 256);
        printf("point,chains,b,G,median_us,min_us,max_us\n");
        for (int k : sweep_chains)
            for (int i = 0; i < n; i++) {
                lb_case c = {"", C_FFMA, k, pts[i].G, 32 * pts[i].b, SWEEP_ITERS / k};
                float t[3] = {0, 0, 0};
                if (timing) {
                    time_it(reps, 1, [&] { launch(&c, B); }, t);
                } else {
                    launch(&c, B);
                    CK(cudaDeviceSynchronize());
                }
                printf("c%d_b%d_G%d,%d,%d,%d,%.4f,%.4f,%.4f\n", k, pts[i].b, pts[i].G, k,
                       pts[i].b, pts[i].G, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3);
            }
        return 0;
    }
    fprintf(stderr, "lb_validate: unknown mode '%s' (--cases, --time, --profile, --sweep-time, "
                    "--sweep-profile)\n", mode);
    return 1;
}
