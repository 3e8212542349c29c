// Dense matrix multiply after Volkov & Demmel (SC'08), the first case study
// of Zhang & Owens (HPCA 2011, Sec. 5.1, Table 2, Fig. 4): C = A B, all
// column-major N x N floats.  A block of 64 threads computes a 64 x T piece
// of C (one row of T values per thread, in registers); only B's T x T
// sub-matrix is staged in shared memory, A is read from global memory one
// value per thread per k.  Sub-matrix sizes T = 8, 16, 32.
//
//   matmul [--profile] [N]   timing: median of 9 launches after a warm-up per
//                            size; --profile: one launch per size (for ncu)
// Prints CSV: case,kernel,regs,smem_bytes,blocks_per_sm,warps_per_sm,median_us,
// spread,gflops,max_rel_err.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "matmul: %s: %s\n", #x, cudaGetErrorString(e_));           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

template <int T>
__global__ void __launch_bounds__(64) mm_volkov(const float *__restrict__ A, const float *__restrict__ B,
                                               float *C, int n)
{
    __shared__ float bs[T][T + 1]; // +1: the transposed fill below is conflict-free
    const int row = blockIdx.x * 64 + threadIdx.x, col0 = blockIdx.y * T;
    float c[T];
#pragma unroll
    for (int j = 0; j < T; j++) c[j] = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
        // B(k0 .. k0+T, col0 .. col0+T) into shared memory, 64 threads at a time
        for (int e = threadIdx.x; e < T * T; e += 64) {
            int kk = e % T, j = e / T;
            bs[kk][j] = B[(size_t)(col0 + j) * n + k0 + kk];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < T; kk++) {
            float a = A[(size_t)(k0 + kk) * n + row];
#pragma unroll
            for (int j = 0; j < T; j++) c[j] = fmaf(a, bs[kk][j], c[j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < T; j++) C[(size_t)(col0 + j) * n + row] = c[j];
}

__global__ void mm_init(float *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        p[i] = (float)(h & 0xffff) / 65536.0f - 0.5f;
    }
}

template <int T>
static void run(const char *mode, int n, const float *A, const float *B, float *C, const float *hA,
                const float *hB)
{
    dim3 grid(n / 64, n / T);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, mm_volkov<T>));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mm_volkov<T>, 64, 0));
    float ms[9];
    int reps = strcmp(mode, "--profile") ? 9 : 1;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (reps > 1) mm_volkov<T><<<grid, 64>>>(A, B, C, n);
    for (int r = 0; r < reps; r++) {
        CK(cudaMemset(C, 0xff, (size_t)n * n * 4)); // poison: every element must be written
        CK(cudaEventRecord(e0));
        mm_volkov<T><<<grid, 64>>>(A, B, C, n);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        CK(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    for (int i = 0; i < reps; i++) // sort
        for (int j = i + 1; j < reps; j++)
            if (ms[j] < ms[i]) { float t = ms[i]; ms[i] = ms[j]; ms[j] = t; }
    // 64 entries of C against a double-precision reference
    float *hC = (float *)malloc((size_t)n * n * 4);
    CK(cudaMemcpy(hC, C, (size_t)n * n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        int i = (s * 7919) % n, j = (s * 104729) % n;
        double ref = 0, mag = 0;
        for (int k = 0; k < n; k++) {
            ref += (double)hA[(size_t)k * n + i] * hB[(size_t)j * n + k];
            mag += fabs((double)hA[(size_t)k * n + i] * hB[(size_t)j * n + k]);
        }
        double err = fabs(hC[(size_t)j * n + i] - ref) / (mag > 0 ? mag : 1);
        if (!(err <= worst)) worst = err;
    }
    free(hC);
    double med = ms[reps / 2];
    printf("matmul_%dx%d,mm_volkov<%d>,%d,%zu,%d,%d,%.3f,%.4f,%.1f,%.2e\n", T, T, T, fa.numRegs,
           fa.sharedSizeBytes, per_sm, per_sm * 2, med * 1e3, (ms[reps - 1] - ms[0]) / med,
           2.0 * n * (double)n * n / (med * 1e6), worst);
    if (!(worst < 1e-4)) {
        fprintf(stderr, "matmul: %dx%d result wrong (relative error %.2e)\n", T, T, worst);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 && argv[1][0] == '-' ? argv[1] : "--time";
    int n = argc > 1 && argv[argc - 1][0] != '-' ? atoi(argv[argc - 1]) : 2048;
    if (n < 64 || n % 64) {
        fprintf(stderr, "matmul: N must be a positive multiple of 64 (got %d)\n", n);
        return 1;
    }
    size_t bytes = (size_t)n * n * 4;
    float *A, *B, *C;
    CK(cudaMalloc(&A, bytes));
    CK(cudaMalloc(&B, bytes));
    CK(cudaMalloc(&C, bytes));
    mm_init<<<512, 256>>>(A, (size_t)n * n, 1);
    mm_init<<<512, 256>>>(B, (size_t)n * n, 2);
    float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
    CK(cudaMemcpy(hA, A, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hB, B, bytes, cudaMemcpyDeviceToHost));
    printf("case,kernel,regs,smem_bytes,blocks_per_sm,warps_per_sm,median_us,spread,gflops,max_rel_err\n");
    run<8>(mode, n, A, B, C, hA, hB);
    run<16>(mode, n, A, B, C, hA, hB);
    run<32>(mode, n, A, B, C, hA, hB);
    free(hA);
    free(hB);
    return 0;
}
