// Cyclic reduction for many tridiagonal systems, the second case study of
// Zhang & Owens (HPCA 2011, Sec. 5.2, Fig. 5-8): 512 systems of 512
// equations, one block of 256 threads per system, the system in shared
// memory (8192 systems here: 512 would leave Hopper's 132 SMs idle).  Forward reduction step s (1..9) updates the equations 2^s - 1,
// 2 * 2^s - 1, ... from their neighbours 2^(s-1) away, so the stride, and
// with it the bank conflicts, doubles every step.  CR-NBC pads one word
// every 32 (Hopper has 32 banks; the paper padded 1 per 16 on GT200).
//
//   cr [--profile] [--steps]   default: whole solve (forward reduction,
//       the 1-unknown solve, backward substitution), CR and CR-NBC;
//       --steps: the forward reduction stopped after step s = 0..9 (step 0:
//       load and store only), per step time = T(s) - T(s-1) (Fig. 6-8),
//       then the whole solve (reported as step 10).
// Prints CSV: case,kernel,variant,last_step,median_us,spread,max_residual.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "cr: %s: %s\n", #x, cudaGetErrorString(e_));               \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define NEQ 512
#define NSYS 8192 /* the paper's 512 systems filled 30 GT200 SMs; 132 SMs need more */
#define LOG2N 9

template <int PAD>
__device__ __forceinline__ int ix(int k)
{
    return PAD ? k + (k >> 5) : k; // one word of padding every 32
}

// last_step <= LOG2N: forward reduction through that step, then write b (a
// probe of the partial state); last_step > LOG2N: the whole solve, x out.
template <int PAD>
__global__ void __launch_bounds__(256) cr_solve(const float *ga, const float *gb, const float *gc,
                                               const float *gd, float *gx, int last_step)
{
    const int S = NEQ + (PAD ? NEQ / 32 : 0);
    __shared__ float a[S], b[S], c[S], d[S], x[S];
    const int t = threadIdx.x, base = blockIdx.x * NEQ;
    // step 0: the system into shared memory
    for (int k = t; k < NEQ; k += 256) {
        a[ix<PAD>(k)] = ga[base + k]; b[ix<PAD>(k)] = gb[base + k];
        c[ix<PAD>(k)] = gc[base + k]; d[ix<PAD>(k)] = gd[base + k];
    }
    __syncthreads();
    int stride = 1;
    for (int s = 1; s <= LOG2N && s <= last_step; s++) {
        int half = stride;
        stride *= 2;
        int active = NEQ / stride;
        if (t < active) {
            int k = stride * (t + 1) - 1, l = k - half, r = k + half;
            int K = ix<PAD>(k), L = ix<PAD>(l);
            float k1 = a[K] / b[L];
            float an = -a[L] * k1, bn = b[K] - c[L] * k1, cn = 0, dn = d[K] - d[L] * k1;
            if (r < NEQ) {
                int R = ix<PAD>(r);
                float k2 = c[K] / b[R];
                bn -= a[R] * k2;
                cn = -c[R] * k2;
                dn -= d[R] * k2;
            }
            a[K] = an; b[K] = bn; c[K] = cn; d[K] = dn;
        }
        __syncthreads();
    }
    if (last_step <= LOG2N) {
        for (int k = t; k < NEQ; k += 256) gx[base + k] = b[ix<PAD>(k)];
        return;
    }
    // one unknown left: equation NEQ-1
    if (t == 0) x[ix<PAD>(NEQ - 1)] = d[ix<PAD>(NEQ - 1)] / b[ix<PAD>(NEQ - 1)];
    __syncthreads();
    // backward substitution, strides NEQ/2 .. 1
    for (int st = NEQ; st >= 2; st /= 2) {
        int half = st / 2, n = NEQ / st;
        if (t < n) {
            int k = st * t + half - 1; // the equations eliminated at this level
            float xl = k - half >= 0 ? x[ix<PAD>(k - half)] : 0;
            float xr = x[ix<PAD>(k + half)];
            x[ix<PAD>(k)] = (d[ix<PAD>(k)] - a[ix<PAD>(k)] * xl - c[ix<PAD>(k)] * xr) / b[ix<PAD>(k)];
        }
        __syncthreads();
    }
    for (int k = t; k < NEQ; k += 256) gx[base + k] = x[ix<PAD>(k)];
}

static int cmpf(const void *p, const void *q)
{
    float a = *(const float *)p, b = *(const float *)q;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    int profile = 0, steps = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--profile")) profile = 1;
        else if (!strcmp(argv[i], "--steps")) steps = 1;
        else { fprintf(stderr, "cr: unknown option '%s' (--profile, --steps)\n", argv[i]); return 1; }
    }
    size_t n = (size_t)NEQ * NSYS;
    float *h[4];
    for (int i = 0; i < 4; i++) h[i] = (float *)malloc(n * 4);
    srand(12345);
    for (size_t i = 0; i < n; i++) { // diagonally dominant, random
        size_t k = i % NEQ;
        h[0][i] = k ? (float)rand() / RAND_MAX - 0.5f : 0;
        h[2][i] = k < NEQ - 1 ? (float)rand() / RAND_MAX - 0.5f : 0;
        h[1][i] = 2.0f + (float)rand() / RAND_MAX;
        h[3][i] = (float)rand() / RAND_MAX;
    }
    float *g[5];
    for (int i = 0; i < 5; i++) CK(cudaMalloc(&g[i], n * 4));
    for (int i = 0; i < 4; i++) CK(cudaMemcpy(g[i], h[i], n * 4, cudaMemcpyHostToDevice));
    float *hx = (float *)malloc(n * 4);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("case,kernel,variant,last_step,median_us,spread,max_residual\n");
    for (int v = 0; v < 2; v++)
        for (int s = steps ? 0 : LOG2N + 1; s <= LOG2N + 1; s++) {
            int reps = profile ? 1 : 9;
            float ms[9];
            for (int r = profile ? 0 : -1; r < reps; r++) {
                CK(cudaEventRecord(e0));
                if (v == 0) cr_solve<0><<<NSYS, 256>>>(g[0], g[1], g[2], g[3], g[4], s);
                else cr_solve<1><<<NSYS, 256>>>(g[0], g[1], g[2], g[3], g[4], s);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                if (r >= 0) CK(cudaEventElapsedTime(&ms[r], e0, e1));
            }
            qsort(ms, reps, sizeof(float), cmpf);
            double res = NAN;
            if (s == LOG2N + 1) { // residual of the whole solve
                CK(cudaMemcpy(hx, g[4], n * 4, cudaMemcpyDeviceToHost));
                res = 0;
                for (size_t i = 0; i < n; i++) {
                    size_t k = i % NEQ;
                    double r = h[1][i] * (double)hx[i] - h[3][i];
                    if (k) r += h[0][i] * (double)hx[i - 1];
                    if (k < NEQ - 1) r += h[2][i] * (double)hx[i + 1];
                    if (!(fabs(r) <= res)) res = fabs(r);
                }
                if (!(res < 1e-3)) {
                    fprintf(stderr, "cr: %s solution wrong (residual %.2e)\n", v ? "CR-NBC" : "CR", res);
                    return 1;
                }
            }
            printf("%s_s%d,cr_solve<%d>,%s,%d,%.3f,%.4f,%.2e\n", v ? "crnbc" : "cr", s, v,
                   v ? "CR-NBC" : "CR", s, ms[reps / 2] * 1e3,
                   (ms[reps - 1] - ms[0]) / ms[reps / 2], res);
        }
    return 0;
}
