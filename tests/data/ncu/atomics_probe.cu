/* A tiny program whose Nsight Compute CSV output is gpuq's test data for the
 * ncu importer (tests/data/ncu/README.md says how it was recorded).
 *
 * Four kernels, each one block of 256 threads (8 warps), each thread issuing
 * `iters` shared-memory atomics on a slot read from global memory, so the
 * compiler cannot prove the address warp-uniform and aggregate the atomics
 * (shared/notes/hopper-probe.md, "Trap"):
 *   probe_atoms_add   atomicAdd, old value used        -> ATOMS.ADD
 *   probe_popc_inc    atomicAdd(p, 1), value unused    -> ATOMS.POPC.INC
 *   probe_atoms_cas   atomicCAS, old value used        -> ATOMS.CAS
 *   probe_no_atomics  plain loads and stores           -> no ATOMS
 * Expected counts per atomic kernel: N = 8 warps x iters warp-instructions.
 * The slots are lane % PROBE_SLOTS_USED, so each warp-instruction has
 * 32 / PROBE_SLOTS_USED lanes on each address.
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define PROBE_THREADS 256
#define PROBE_BINS 32
#define PROBE_SLOTS_USED 8
#define PROBE_ITERS 4

#define PROBE_CHECK(call)                                                              \
    do {                                                                               \
        cudaError_t probe_err_ = (call);                                               \
        if (probe_err_ != cudaSuccess) {                                               \
            fprintf(stderr, "atomics_probe: %s failed (%s)\n", #call,                 \
                    cudaGetErrorString(probe_err_));                                   \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

__global__ void probe_atoms_add(const int *slot, int iters, unsigned *out)
{
    __shared__ unsigned bins[PROBE_BINS];
    if (threadIdx.x < PROBE_BINS)
        bins[threadIdx.x] = 0;
    __syncthreads();
    unsigned *bin = &bins[slot[threadIdx.x]];
    unsigned acc = 0;
    for (int i = 0; i < iters; i++)
        acc += atomicAdd(bin, 1u); /* old value used: ATOMS.ADD */
    out[threadIdx.x] = acc;
}

__global__ void probe_popc_inc(const int *slot, int iters, unsigned *out)
{
    __shared__ unsigned bins[PROBE_BINS];
    if (threadIdx.x < PROBE_BINS)
        bins[threadIdx.x] = 0;
    __syncthreads();
    unsigned *bin = &bins[slot[threadIdx.x]];
    for (int i = 0; i < iters; i++)
        atomicAdd(bin, 1u); /* old value unused: ATOMS.POPC.INC */
    __syncthreads();
    if (threadIdx.x < PROBE_BINS)
        out[threadIdx.x] = bins[threadIdx.x];
}

__global__ void probe_atoms_cas(const int *slot, int iters, unsigned *out)
{
    __shared__ unsigned bins[PROBE_BINS];
    if (threadIdx.x < PROBE_BINS)
        bins[threadIdx.x] = 0;
    __syncthreads();
    unsigned *bin = &bins[slot[threadIdx.x]];
    unsigned seen = 0;
    for (int i = 0; i < iters; i++)
        seen += atomicCAS(bin, seen, seen + 1u); /* ATOMS.CAS, old value used */
    out[threadIdx.x] = seen;
}

__global__ void probe_no_atomics(const int *slot, int iters, unsigned *out)
{
    out[threadIdx.x] = (unsigned)(slot[threadIdx.x] * iters);
}

int main(void)
{
    int host_slot[PROBE_THREADS];
    for (int t = 0; t < PROBE_THREADS; t++)
        host_slot[t] = t % PROBE_SLOTS_USED;

    int *slot = NULL;
    unsigned *out = NULL;
    PROBE_CHECK(cudaMalloc(&slot, sizeof host_slot));
    PROBE_CHECK(cudaMalloc(&out, PROBE_THREADS * sizeof(unsigned)));
    PROBE_CHECK(cudaMemcpy(slot, host_slot, sizeof host_slot, cudaMemcpyHostToDevice));

    unsigned host_out[PROBE_THREADS];
    probe_atoms_add<<<1, PROBE_THREADS>>>(slot, PROBE_ITERS, out);
    PROBE_CHECK(cudaGetLastError());
    probe_popc_inc<<<1, PROBE_THREADS>>>(slot, PROBE_ITERS, out);
    PROBE_CHECK(cudaGetLastError());
    PROBE_CHECK(cudaMemcpy(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost));
    /* Every used slot received (256 / PROBE_SLOTS_USED) x iters increments. */
    unsigned expect = PROBE_THREADS / PROBE_SLOTS_USED * PROBE_ITERS;
    for (int b = 0; b < PROBE_SLOTS_USED; b++) {
        if (host_out[b] != expect) {
            fprintf(stderr, "atomics_probe: bin %d = %u, expected %u\n", b, host_out[b],
                    expect);
            return 1;
        }
    }
    probe_atoms_cas<<<1, PROBE_THREADS>>>(slot, PROBE_ITERS, out);
    PROBE_CHECK(cudaGetLastError());
    probe_no_atomics<<<1, PROBE_THREADS>>>(slot, PROBE_ITERS, out);
    PROBE_CHECK(cudaGetLastError());
    PROBE_CHECK(cudaDeviceSynchronize());
    printf("atomics_probe: 4 kernels ran, popc_inc bins = %u each\n", expect);
    PROBE_CHECK(cudaFree(slot));
    PROBE_CHECK(cudaFree(out));
    return 0;
}
