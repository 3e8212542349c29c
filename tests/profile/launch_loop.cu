/* A launch-heavy program for the collector's memory check
 * (launch_memory.sh): N launches of an empty kernel, one block of 32
 * threads, on one stream, synchronized every 10,000.  It prints its own peak
 * resident memory (VmHWM of /proc/self/status, which holds the collector's
 * too) after a fifth of the launches and after all of them:
 *
 *   launch_loop: VmHWM_kB after LAUNCHES: KB
 *
 * so that growth per launch shows as the difference.  With "graphs" after
 * N: one plain launch, then N times a CUDA graph of 64 kernel nodes is
 * captured, instantiated, launched and destroyed (the collector reads every
 * instantiated graph's nodes: their records must go with the graphs).
 * Exits 77 when no CUDA device is usable. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void k_empty(int *sink)
{
    if (sink && threadIdx.x == 1024)
        *sink = 1; /* never true: the kernel does nothing, but is not elided */
}

static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static int graph_loop(long n)
{
    cudaStream_t s;
    k_empty<<<1, 32>>>(NULL); /* one row of counters: a run that measured something */
    if (cudaStreamCreate(&s) != cudaSuccess)
        return 1;
    for (long i = 0; i < n; i++) {
        cudaGraph_t g;
        cudaGraphExec_t e;
        cudaError_t err = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
        for (int j = 0; j < 64 && err == cudaSuccess; j++)
            k_empty<<<1, 32, 0, s>>>(NULL);
        if (err == cudaSuccess)
            err = cudaStreamEndCapture(s, &g);
        if (err == cudaSuccess)
            err = cudaGraphInstantiate(&e, g, 0);
        if (err == cudaSuccess)
            err = cudaGraphLaunch(e, s);
        if (err == cudaSuccess && (i + 1) % 1000 == 0)
            err = cudaStreamSynchronize(s);
        if (err != cudaSuccess) {
            fprintf(stderr, "launch_loop: %s at graph %ld\n", cudaGetErrorString(err), i + 1);
            return 1;
        }
        cudaGraphExecDestroy(e);
        cudaGraphDestroy(g);
        if (i + 1 == n / 5 || i + 1 == n)
            fprintf(stderr, "launch_loop: VmHWM_kB after %ld: %ld\n", i + 1, vm_hwm_kb());
    }
    return cudaStreamSynchronize(s) == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    int devices = 0;
    if (n < 5 || cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        fprintf(stderr, "launch_loop: no usable CUDA device (or N < 5)\n");
        return 77;
    }
    if (argc > 2 && strcmp(argv[2], "graphs") == 0)
        return graph_loop(n);
    for (long i = 0; i < n; i++) {
        k_empty<<<1, 32>>>(NULL);
        if ((i + 1) % 10000 == 0 || i + 1 == n) {
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                fprintf(stderr, "launch_loop: %s after %ld launches\n", cudaGetErrorString(e),
                        i + 1);
                return 1;
            }
        }
        if (i + 1 == n / 5 || i + 1 == n)
            fprintf(stderr, "launch_loop: VmHWM_kB after %ld: %ld\n", i + 1, vm_hwm_kb());
    }
    return 0;
}
