/* A test program with kernels whose shared-memory atomic counts are known by
 * construction, for the gpuq profile GPU tests.
 *
 * Every warp of every kernel runs ATOMS_ITERS iterations of a loop that
 * issues a fixed set of shared atomics, all 32 lanes active, no guard
 * predicate, so per launch
 *   N (warp-instructions of one opcode) = blocks x warps per block x iterations
 *   O (wavefronts) = N x e, with e fixed by the address pattern:
 *     same address for all 32 lanes with ATOMS.ADD: e = 32 (serialized)
 *     a distinct bank per lane: e = 1
 * The addresses come from a device array (all zero, or the lane id), so the
 * compiler cannot prove them warp-uniform and aggregate the atomics
 * (hopper-probe.md).  The opcodes nvcc 13.0 emits for sm_90 are recorded in
 * tests/profile/data/ (cuobjdump -sass); the GPU test checks them again
 * through the exact ADD / CAS / POPC.INC split.
 *
 * Measured on GH100, not by construction: an ATOMS.CAS to 32 distinct banks
 * takes 2 wavefronts (it carries compare and swap values, 8 bytes a lane),
 * so its O is 2 N; the expectations below say so.
 *
 * Sequence of launches (once per --repeat):
 *   k_no_atomics x1, k_add_same x2, k_popc_inc x1, k_cas_distinct x1,
 *   k_mixed x1, then k_add_same and k_popc_inc on two streams at once,
 *   k_cas_distinct x2 from a second host thread, and a CUDA graph holding
 *   k_in_graph launched twice.
 *
 * Options:
 *   --probe          exit 77 with a message when no CUDA device is usable
 *   --expect FILE    write the expected per-launch counts (CSV) to FILE
 *   --repeat N       run the sequence N times (default 1)
 *   --fork           fork a child that exits through exit() (collector test)
 *   --exit N         exit with status N after the work
 *   --abort          abort() after the work (a crash after measurements)
 *   --abort-early    abort() right after the first six launches, with no
 *                    unprofiled launch or exit() after them (the collector's
 *                    signal path must save their counters)
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ATOMS_BLOCKS 256
#define ATOMS_THREADS 256
#define ATOMS_WARPS_PER_BLOCK (ATOMS_THREADS / 32)
/* Long enough (0.1-0.6 ms a kernel on an H200) that the time-based counters
 * of two runs agree within 1%: the ncu cross-check compares them. */
#define ATOMS_ITERS 2048
#define NO_ATOMICS_ITERS (8 * ATOMS_ITERS)
#define ATOMS_SLOTS 64

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t rc_ = (call);                                                            \
        if (rc_ != cudaSuccess) {                                                            \
            fprintf(stderr, "atomics_app: %s failed: %s\n", #call, cudaGetErrorString(rc_)); \
            exit(3);                                                                         \
        }                                                                                    \
    } while (0)

/* ATOMS.ADD, result used, all 32 lanes on one word (slot[] all zero): e = 32. */
__global__ void k_add_same(const unsigned *slot, unsigned *out, int iters)
{
    __shared__ unsigned s[ATOMS_SLOTS];
    if (threadIdx.x < ATOMS_SLOTS)
        s[threadIdx.x] = 0;
    __syncthreads();
    unsigned a = slot[threadIdx.x];
    unsigned acc = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        acc += atomicAdd(&s[a], 1u);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* atomicAdd(p, 1) with the result unused: ATOMS.POPC.INC; lane l on word l. */
__global__ void k_popc_inc(const unsigned *slot, unsigned *out, int iters)
{
    __shared__ unsigned s[ATOMS_SLOTS];
    if (threadIdx.x < ATOMS_SLOTS)
        s[threadIdx.x] = 0;
    __syncthreads();
    unsigned a = slot[threadIdx.x];
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        atomicAdd(&s[a], 1u);
    __syncthreads();
    if (threadIdx.x < ATOMS_SLOTS)
        out[blockIdx.x * ATOMS_SLOTS + threadIdx.x] = s[threadIdx.x];
}

/* One ATOMS.CAS per iteration, lane l on word l (e = 1). */
__global__ void k_cas_distinct(const unsigned *slot, unsigned *out, int iters)
{
    __shared__ unsigned s[ATOMS_SLOTS];
    if (threadIdx.x < ATOMS_SLOTS)
        s[threadIdx.x] = 0;
    __syncthreads();
    unsigned a = slot[threadIdx.x];
    unsigned expected = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        expected = atomicCAS(&s[a], expected, expected + 1) + 1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = expected;
}

/* Per iteration: ATOMS.ADD on one word (e = 32), ATOMS.CAS and
 * ATOMS.POPC.INC on a word per lane (e = 1 each). */
__global__ void k_mixed(const unsigned *same, const unsigned *lane, unsigned *out, int iters)
{
    __shared__ unsigned s[ATOMS_SLOTS];
    __shared__ unsigned t[ATOMS_SLOTS];
    __shared__ unsigned u[ATOMS_SLOTS];
    if (threadIdx.x < ATOMS_SLOTS)
        s[threadIdx.x] = t[threadIdx.x] = u[threadIdx.x] = 0;
    __syncthreads();
    unsigned a = same[threadIdx.x], b = lane[threadIdx.x];
    unsigned acc = 0, expected = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
        acc += atomicAdd(&s[a], 1u);
        expected = atomicCAS(&t[b], expected, expected + 1) + 1;
        atomicAdd(&u[b], 1u);
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc + expected + u[b];
}

/* No shared atomics: N = 0, U = 0. */
__global__ void k_no_atomics(const unsigned *lane, unsigned *out, int iters)
{
    float x = (float)lane[threadIdx.x];
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        x = x * 1.0001f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)x;
}

/* Launched only inside a CUDA graph. */
__global__ void k_in_graph(const unsigned *slot, unsigned *out, int iters)
{
    __shared__ unsigned s[ATOMS_SLOTS];
    if (threadIdx.x < ATOMS_SLOTS)
        s[threadIdx.x] = 0;
    __syncthreads();
    unsigned a = slot[threadIdx.x];
#pragma unroll 1
    for (int i = 0; i < iters; i++)
        atomicAdd(&s[a], 1u);
    __syncthreads();
    if (threadIdx.x < ATOMS_SLOTS)
        out[blockIdx.x * ATOMS_SLOTS + threadIdx.x] = s[threadIdx.x];
}

typedef struct app_buffers {
    unsigned *zeros; /* ATOMS_THREADS zeros: every lane on word 0 */
    unsigned *lanes; /* lane id (threadIdx.x % 32): a word per lane, a bank per lane */
    unsigned *out;
} app_buffers;

static const dim3 grid(ATOMS_BLOCKS), block(ATOMS_THREADS);

static void *second_thread(void *arg)
{
    const app_buffers *b = (const app_buffers *)arg;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        k_cas_distinct<<<grid, block, 0, s>>>(b->lanes, b->out, ATOMS_ITERS);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

static int abort_early;

static void run_sequence(const app_buffers *b)
{
    k_no_atomics<<<grid, block>>>(b->lanes, b->out, NO_ATOMICS_ITERS);
    k_add_same<<<grid, block>>>(b->zeros, b->out, ATOMS_ITERS);
    k_add_same<<<grid, block>>>(b->zeros, b->out, ATOMS_ITERS);
    k_popc_inc<<<grid, block>>>(b->lanes, b->out, ATOMS_ITERS);
    k_cas_distinct<<<grid, block>>>(b->lanes, b->out, ATOMS_ITERS);
    k_mixed<<<grid, block>>>(b->zeros, b->lanes, b->out, ATOMS_ITERS);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (abort_early)
        abort();

    /* Two streams in flight at once. */
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    k_add_same<<<grid, block, 0, s1>>>(b->zeros, b->out, ATOMS_ITERS);
    k_popc_inc<<<grid, block, 0, s2>>>(b->lanes, b->out, ATOMS_ITERS);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));

    /* A second host thread. */
    pthread_t t;
    if (pthread_create(&t, NULL, second_thread, (void *)b) != 0) {
        fprintf(stderr, "atomics_app: pthread_create failed\n");
        exit(3);
    }
    pthread_join(t, NULL);

    /* A CUDA graph: captured once, launched twice. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
    k_in_graph<<<grid, block, 0, s1>>>(b->lanes, b->out, ATOMS_ITERS);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
}

/* The counts each profiled launch of a kernel must show, by construction. */
static int write_expectations(const char *path, int repeat)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    const double warps = (double)ATOMS_BLOCKS * ATOMS_WARPS_PER_BLOCK;
    const double n = warps * ATOMS_ITERS; /* warp-instructions of one opcode */
    fprintf(f, "kernel,launches,N,add,cas,popc_inc,other,O\n");
    fprintf(f, "k_no_atomics,%d,0,0,0,0,0,0\n", repeat);
    fprintf(f, "k_add_same,%d,%.0f,%.0f,0,0,0,%.0f\n", 3 * repeat, n, n, 32 * n);
    fprintf(f, "k_popc_inc,%d,%.0f,0,0,%.0f,0,%.0f\n", 2 * repeat, n, n, n);
    /* CAS: 2 wavefronts per instruction (see the top of this file). */
    fprintf(f, "k_cas_distinct,%d,%.0f,0,%.0f,0,0,%.0f\n", 3 * repeat, n, n, 2 * n);
    /* ADD on one word (32) + CAS (2) + POPC.INC (1) per iteration. */
    fprintf(f, "k_mixed,%d,%.0f,%.0f,%.0f,%.0f,0,%.0f\n", repeat, 3 * n, n, n, n, 35 * n);
    /* Kernel nodes of the graph: ADD to a word per lane (e = 1); profiled
     * node by node where CUPTI gives one range per node (the check accepts
     * instead a line saying why not, and then no row). */
    fprintf(f, "k_in_graph,%d,%.0f,%.0f,0,0,0,%.0f\n", 2 * repeat, n, n, n);
    fprintf(f, "graph_launches,%d,0,0,0,0,0,0\n", 2 * repeat);
    return fclose(f);
}

int main(int argc, char **argv)
{
    const char *expect = NULL;
    int repeat = 1, do_fork = 0, exit_code = 0, do_abort = 0, probe = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--probe") == 0)
            probe = 1;
        else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc)
            expect = argv[++i];
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--fork") == 0)
            do_fork = 1;
        else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
            exit_code = atoi(argv[++i]);
        else if (strcmp(argv[i], "--abort") == 0)
            do_abort = 1;
        else if (strcmp(argv[i], "--abort-early") == 0)
            abort_early = 1;
        else {
            fprintf(stderr, "usage: atomics_app [--probe] [--expect FILE] [--repeat N] [--fork] "
                            "[--exit N] [--abort] [--abort-early]\n");
            return 1;
        }
    }
    int devices = 0;
    cudaError_t rc = cudaGetDeviceCount(&devices);
    if (rc != cudaSuccess || devices == 0) {
        printf("skipped: no usable CUDA device (%s)\n",
               rc != cudaSuccess ? cudaGetErrorString(rc) : "none found");
        return 77;
    }
    if (probe)
        return 0;
    if (repeat < 1)
        repeat = 1;
    if (expect && write_expectations(expect, repeat) != 0)
        return 2;

    unsigned host_zeros[ATOMS_THREADS], host_lanes[ATOMS_THREADS];
    for (int i = 0; i < ATOMS_THREADS; i++) {
        host_zeros[i] = 0;
        host_lanes[i] = (unsigned)(i % 32);
    }
    app_buffers b;
    CHECK(cudaMalloc(&b.zeros, sizeof host_zeros));
    CHECK(cudaMalloc(&b.lanes, sizeof host_lanes));
    CHECK(cudaMalloc(&b.out, sizeof(unsigned) * ATOMS_BLOCKS * ATOMS_THREADS));
    CHECK(cudaMemcpy(b.zeros, host_zeros, sizeof host_zeros, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b.lanes, host_lanes, sizeof host_lanes, cudaMemcpyHostToDevice));

    if (do_fork) {
        /* The child neither uses CUDA nor execs: it exits through exit(),
         * running the atexit handlers it inherited. */
        pid_t pid = fork();
        if (pid == 0)
            exit(0);
        if (pid > 0)
            waitpid(pid, NULL, 0);
    }
    for (int r = 0; r < repeat; r++)
        run_sequence(&b);

    /* Results depend on every kernel, so none is dead code. */
    unsigned check = 0;
    CHECK(cudaMemcpy(&check, b.out, sizeof check, cudaMemcpyDeviceToHost));
    printf("atomics_app: done (%d sequence%s, check %u)\n", repeat, repeat == 1 ? "" : "s", check);
    CHECK(cudaFree(b.zeros));
    CHECK(cudaFree(b.lanes));
    CHECK(cudaFree(b.out));
    if (do_abort)
        abort();
    return exit_code;
}
