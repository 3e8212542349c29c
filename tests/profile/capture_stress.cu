/* A multi-threaded, multi-stream program with stream captures in all three
 * capture modes, for the gpuq profile stress test (stress_check.sh): under
 * gpuq profile its output and exit status must be those of a plain run,
 * every time.
 *
 * Four host threads, each with a non-blocking stream of its own and a
 * buffer that its kernels add to.  Host barriers fix which launches happen
 * while a capture is in progress, so that every count gpuq reports is the
 * same from run to run:
 *   A  each thread: 3 launches, then waits for its stream            (12)
 *   B  for each mode (global, thread-local, relaxed):
 *        thread 0 begins a capture on its stream, captures 2 launches;
 *        meanwhile threads 1-3 each launch 1 kernel on their own stream
 *        (in thread-local and relaxed mode they also wait for it: legal
 *        there; in global mode a cudaStreamSynchronize of another thread
 *        during the capture fails even without any profiler, so they wait
 *        after it ends); thread 0 ends the capture, instantiates the graph
 *        and launches it 3 times                 (per mode: 2 captured, 3
 *        launched during the capture, 3 graph launches of 2 kernel nodes)
 *   C  each thread: 5 launches at once with the others                (20)
 * Every kernel does ATOMS_ITERS shared-memory atomicAdd per warp (all lanes,
 * one address), so per launch N (warp-level shared atomics) = BLOCKS x
 * WARPS x ATOMS_ITERS, and adds a known value to its thread's buffer.  The
 * program prints each buffer's sum, which depends on every kernel having
 * run exactly as often as the program says.
 *
 * Options: --expect  print the expected counts (for the check) and exit
 *          --exit N  exit with status N after the work
 *          --abort   abort() after the work (as the program of issue 14)
 *          --global-sync  threads 1-3 also wait for their stream during the
 *                    global-mode capture: shows that CUDA itself refuses it
 *                    (no profiler needed); the capture then fails
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define BLOCKS 8
#define BLOCK_THREADS 128
#define WARPS (BLOCK_THREADS / 32)
#define ATOMS_ITERS 64
#define ELEMS (BLOCKS * BLOCK_THREADS)

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t rc_ = (call);                                                            \
        if (rc_ != cudaSuccess) {                                                            \
            printf("capture_stress: %s failed: %s\n", #call, cudaGetErrorString(rc_));      \
            fflush(stdout);                                                                  \
            exit(3);                                                                         \
        }                                                                                    \
    } while (0)

__global__ void k_stress(unsigned *out, int add)
{
    __shared__ unsigned slot;
    if (threadIdx.x == 0)
        slot = 0;
    __syncthreads();
    for (int i = 0; i < ATOMS_ITERS; i++)
        atomicAdd(&slot, 1u); /* same address, all lanes: ATOMS.ADD (or a reduction) */
    __syncthreads();
    /* slot = BLOCK_THREADS * ATOMS_ITERS, so each element grows by add. */
    out[blockIdx.x * blockDim.x + threadIdx.x] += slot / (BLOCK_THREADS * ATOMS_ITERS) * add;
}

static pthread_barrier_t barrier;
static int global_sync; /* --global-sync: wait during a global-mode capture too */
static cudaStream_t streams[THREADS];
static unsigned *bufs[THREADS];

static void wait_all(void)
{
    pthread_barrier_wait(&barrier);
}

static void launch(int t, int add)
{
    k_stress<<<BLOCKS, BLOCK_THREADS, 0, streams[t]>>>(bufs[t], add);
    CHECK(cudaGetLastError());
}

static const cudaStreamCaptureMode modes[3] = {cudaStreamCaptureModeGlobal,
                                               cudaStreamCaptureModeThreadLocal,
                                               cudaStreamCaptureModeRelaxed};

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    /* A */
    for (int i = 0; i < 3; i++)
        launch(t, 1);
    CHECK(cudaStreamSynchronize(streams[t]));
    wait_all();
    /* B */
    for (int m = 0; m < 3; m++) {
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        if (t == 0)
            CHECK(cudaStreamBeginCapture(streams[0], modes[m]));
        wait_all();
        if (t == 0) {
            launch(0, 10);
            launch(0, 100);
        } else {
            launch(t, 2);
            if (modes[m] != cudaStreamCaptureModeGlobal)
                CHECK(cudaStreamSynchronize(streams[t]));
            else if (global_sync) {
                /* What the CUDA programming guide forbids: another thread's
                 * synchronization during a global-mode capture. */
                cudaError_t rc = cudaStreamSynchronize(streams[t]);
                printf("thread %d: cudaStreamSynchronize during a global-mode capture: %s\n", t,
                       cudaGetErrorString(rc));
            }
        }
        wait_all();
        if (t == 0) {
            CHECK(cudaStreamEndCapture(streams[0], &graph));
            CHECK(cudaGraphInstantiate(&exec, graph, 0));
        }
        wait_all();
        if (t == 0) {
            for (int r = 0; r < 3; r++)
                CHECK(cudaGraphLaunch(exec, streams[0]));
            CHECK(cudaStreamSynchronize(streams[0]));
            CHECK(cudaGraphExecDestroy(exec));
            CHECK(cudaGraphDestroy(graph));
        } else {
            CHECK(cudaStreamSynchronize(streams[t]));
        }
        wait_all();
    }
    /* C */
    for (int i = 0; i < 5; i++)
        launch(t, 1000);
    CHECK(cudaStreamSynchronize(streams[t]));
    return NULL;
}

int main(int argc, char **argv)
{
    int exit_code = 0, do_abort = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0) {
            /* launches outside graphs that run and can be profiled; launches
             * captured; launches run during a capture; graph launches; kernel
             * nodes per graph; N per kernel */
            printf("profiled %d\ncaptured %d\ncapture_skipped %d\ngraph_launches %d\n"
                   "graph_nodes %d\nN_atom %d\n",
                   THREADS * 3 + THREADS * 5, 3 * 2, 3 * (THREADS - 1), 3 * 3, 2,
                   BLOCKS * WARPS * ATOMS_ITERS);
            return 0;
        } else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc) {
            exit_code = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--global-sync") == 0) {
            global_sync = 1;
        } else if (strcmp(argv[i], "--abort") == 0) {
            do_abort = 1;
        } else if (strcmp(argv[i], "--probe") == 0) {
            int n = 0;
            if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
                printf("no CUDA device\n");
                return 77;
            }
            return 0;
        } else {
            fprintf(stderr, "capture_stress: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    for (int t = 0; t < THREADS; t++) {
        CHECK(cudaStreamCreateWithFlags(&streams[t], cudaStreamNonBlocking));
        CHECK(cudaMalloc(&bufs[t], ELEMS * sizeof(unsigned)));
        CHECK(cudaMemset(bufs[t], 0, ELEMS * sizeof(unsigned)));
    }
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    static unsigned host[ELEMS];
    for (int t = 0; t < THREADS; t++) {
        CHECK(cudaMemcpy(host, bufs[t], sizeof host, cudaMemcpyDeviceToHost));
        unsigned long long sum = 0;
        for (int i = 0; i < ELEMS; i++)
            sum += host[i];
        printf("thread %d: sum %llu\n", t, sum);
    }
    fflush(stdout);
    if (do_abort)
        abort();
    return exit_code;
}
