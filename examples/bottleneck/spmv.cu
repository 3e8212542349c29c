// Sparse matrix-vector multiply on a 3x3-blocked matrix, the third case
// study of Zhang & Owens (HPCA 2011, Sec. 5.3, Fig. 9-12).  The matrix is
// generated like the paper's QCD matrix: a 4-D periodic lattice of L^4
// sites, 3 components per site (3x3 blocks), each site coupled to itself
// and its 8 neighbours: 9 blocks, 27 nonzeros per row.
//   ELL         one row per thread; values and column indices column-major
//   BELL+IM     one block row per thread; the 9 values of each block and one
//               column index per block, interleaved across threads (IM)
//   BELL+IMIV   the same with the vectors interleaved too (IV): component c of
//               site j at c * sites + j, so neighbouring threads read
//               neighbouring words (Fig. 10)
// Bytes per matrix entry (Fig. 11a) come from the transaction simulator
// (src/papers/bottleneck/bottleneck_txsim.c) over every warp instruction's addresses, for 32-byte
// (Hopper), 16-byte and 4-byte (ideal) transactions.
//
//   spmv [--profile | --sim-only] [L]   (default L = 24: 331,776 sites, 995,328
//   rows, 26.9 M nonzeros: 215 MB of ELL data, more than the 50 MB L2)
// Prints CSV: case,kernel,median_us,spread,gflops,max_rel_err, then the
// simulated bytes per entry.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers/bottleneck/bottleneck_txsim.h"

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "spmv: %s: %s\n", #x, cudaGetErrorString(e_));             \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define NB 9 /* blocks per block row */

__global__ void spmv_ell(int rows, const float *__restrict__ val, const int *__restrict__ col,
                         const float *__restrict__ x, float *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0;
    for (int j = 0; j < 3 * NB; j++) s += val[(size_t)j * rows + r] * x[col[(size_t)j * rows + r]];
    y[r] = s;
}
// IV = 0: x[3 * site + c], y[3 * site + r]; IV = 1: x[c * sites + site], y likewise.
template <int IV>
__global__ void spmv_bell(int sites, const float *__restrict__ val, const int *__restrict__ bcol,
                          const float *__restrict__ x, float *y)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= sites) return;
    float s0 = 0, s1 = 0, s2 = 0;
    for (int j = 0; j < NB; j++) {
        int c = bcol[(size_t)j * sites + b];
        float x0 = IV ? x[c] : x[3 * c], x1 = IV ? x[sites + c] : x[3 * c + 1],
              x2 = IV ? x[2 * sites + c] : x[3 * c + 2];
        const float *v = val + (size_t)j * 9 * sites + b;
        s0 += v[0] * x0 + v[(size_t)1 * sites] * x1 + v[(size_t)2 * sites] * x2;
        s1 += v[(size_t)3 * sites] * x0 + v[(size_t)4 * sites] * x1 + v[(size_t)5 * sites] * x2;
        s2 += v[(size_t)6 * sites] * x0 + v[(size_t)7 * sites] * x1 + v[(size_t)8 * sites] * x2;
    }
    if (IV) { y[b] = s0; y[sites + b] = s1; y[2 * sites + b] = s2; }
    else { y[3 * b] = s0; y[3 * b + 1] = s1; y[3 * b + 2] = s2; }
}

/* The 9 block columns of site b: itself, then -1/+1 along each dimension. */
static void neighbours(int L, int b, int *out)
{
    int c[4] = {b % L, b / L % L, b / (L * L) % L, b / (L * L * L)};
    out[0] = b;
    for (int d = 0, k = 1; d < 4; d++)
        for (int s = -1; s <= 1; s += 2, k++) {
            int cc[4] = {c[0], c[1], c[2], c[3]};
            cc[d] = (cc[d] + s + L) % L;
            out[k] = cc[0] + L * (cc[1] + L * (cc[2] + L * cc[3]));
        }
}

/* Simulated bytes per matrix entry of the three formats (Fig. 11a): every
 * warp instruction of every SIM_STRIDE-th warp through the simulator (the
 * lattice repeats, so a sample tells the whole). */
#define SIM_STRIDE 8
static void simulate(int L, int sites, const int *bc)
{
    const int seg[3] = {32, 16, 4};
    const char *fmt[3] = {"ELL", "BELL+IM", "BELL+IMIV"};
    int rows = 3 * sites;
    for (int f = 0; f < 3; f++) {
        double bytes[3][3] = {{0}}; /* [segment][value, index, vector] */
        double entries = 0;
        for (int sgi = 0; sgi < 3; sgi++) {
            entries = 0;
            gm_bottleneck_tx_global_rules r = {32, seg[sgi], 0, 0};
            gm_bottleneck_tx_global_cost cv, ci, cx;
            memset(&cv, 0, sizeof cv); memset(&ci, 0, sizeof ci); memset(&cx, 0, sizeof cx);
            int threads = f == 0 ? rows : sites;
            for (int w0 = 0; w0 < threads; w0 += 32 * SIM_STRIDE) {
                uint64_t av[32], ai[32], ax[32];
                unsigned char act[32];
                for (int t = 0; t < 32; t++) {
                    act[t] = w0 + t < threads;
                    entries += act[t] ? (f == 0 ? 27.0 : 81.0) : 0;
                }
                if (f == 0) {
                    for (int j = 0; j < 3 * NB; j++) {
                        for (int t = 0; t < 32; t++) {
                            int rr = w0 + t < rows ? w0 + t : 0, site = rr / 3, comp = rr % 3;
                            av[t] = 4ull * ((size_t)j * rows + rr);
                            ai[t] = 4ull * ((size_t)j * rows + rr);
                            ax[t] = 4ull * (3 * bc[site * NB + j / 3] + j % 3 + 0 * comp);
                        }
                        gm_bottleneck_tx_global_add(&r, av, act, 32, 4, &cv, NULL);
                        gm_bottleneck_tx_global_add(&r, ai, act, 32, 4, &ci, NULL);
                        gm_bottleneck_tx_global_add(&r, ax, act, 32, 4, &cx, NULL);
                    }
                } else {
                    for (int j = 0; j < NB; j++) {
                        for (int t = 0; t < 32; t++) {
                            int b = w0 + t < sites ? w0 + t : 0;
                            ai[t] = 4ull * ((size_t)j * sites + b);
                        }
                        gm_bottleneck_tx_global_add(&r, ai, act, 32, 4, &ci, NULL);
                        for (int e = 0; e < 9; e++) {
                            for (int t = 0; t < 32; t++) {
                                int b = w0 + t < sites ? w0 + t : 0;
                                av[t] = 4ull * ((size_t)(j * 9 + e) * sites + b);
                            }
                            gm_bottleneck_tx_global_add(&r, av, act, 32, 4, &cv, NULL);
                        }
                        for (int cc = 0; cc < 3; cc++) {
                            for (int t = 0; t < 32; t++) {
                                int b = w0 + t < sites ? w0 + t : 0, c = bc[b * NB + j];
                                ax[t] = 4ull * (f == 2 ? (size_t)cc * sites + c : 3ull * c + cc);
                            }
                            gm_bottleneck_tx_global_add(&r, ax, act, 32, 4, &cx, NULL);
                        }
                    }
                }
            }
            bytes[sgi][0] = cv.bytes; bytes[sgi][1] = ci.bytes; bytes[sgi][2] = cx.bytes;
        }
        for (int sgi = 0; sgi < 3; sgi++)
            printf("bytes_per_entry,%s,%d,%.3f,%.3f,%.3f,%.3f\n", fmt[f], seg[sgi],
                   bytes[sgi][0] / entries, bytes[sgi][1] / entries, bytes[sgi][2] / entries,
                   (bytes[sgi][0] + bytes[sgi][1] + bytes[sgi][2]) / entries);
    }
    (void)L;
}

static int cmpf(const void *p, const void *q)
{
    float a = *(const float *)p, b = *(const float *)q;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    int sim_only = argc > 1 && !strcmp(argv[1], "--sim-only"); /* no GPU needed */
    int profile = sim_only || (argc > 1 && !strcmp(argv[1], "--profile"));
    int L = argc > 1 + profile ? atoi(argv[1 + profile]) : 24;
    if (L < 3 || L > 40) {
        fprintf(stderr, "spmv: L must be 3..40 (got %d)\n", L);
        return 1;
    }
    int sites = L * L * L * L, rows = 3 * sites;
    size_t nnz = (size_t)rows * 3 * NB;
    int *bc = (int *)malloc((size_t)sites * NB * sizeof(int));
    for (int b = 0; b < sites; b++) neighbours(L, b, bc + (size_t)b * NB);
    if (sim_only) {
        printf("bytes_per_entry,format,transaction_bytes,value,index,vector,total\n");
        simulate(L, sites, bc);
        return 0;
    }
    /* block (b, j) entry (r, c): a deterministic value */
    float *blk = (float *)malloc((size_t)sites * NB * 9 * sizeof(float));
    for (size_t i = 0; i < (size_t)sites * NB * 9; i++)
        blk[i] = (float)(((i * 2654435761u) >> 8) & 0xffff) / 65536.0f - 0.5f;
    float *hx = (float *)malloc(rows * 4), *hy = (float *)malloc(rows * 4);
    for (int i = 0; i < rows; i++) hx[i] = (float)((i * 40503u) & 1023) / 1024.0f;
    /* formats */
    float *ell_v = (float *)malloc(nnz * 4), *bell_v = (float *)malloc(nnz * 4);
    int *ell_c = (int *)malloc(nnz * 4), *bell_c = (int *)malloc((size_t)sites * NB * 4);
    float *xiv = (float *)malloc(rows * 4);
    for (int b = 0; b < sites; b++)
        for (int j = 0; j < NB; j++) {
            bell_c[(size_t)j * sites + b] = bc[b * NB + j];
            for (int e = 0; e < 9; e++) {
                float v = blk[((size_t)b * NB + j) * 9 + e];
                int r = e / 3, c = e % 3;
                bell_v[(size_t)(j * 9 + e) * sites + b] = v;
                ell_v[(size_t)(j * 3 + c) * rows + 3 * b + r] = v;
                ell_c[(size_t)(j * 3 + c) * rows + 3 * b + r] = 3 * bc[b * NB + j] + c;
            }
        }
    for (int b = 0; b < sites; b++)
        for (int c = 0; c < 3; c++) xiv[c * sites + b] = hx[3 * b + c];
    /* reference in double */
    double *ref = (double *)calloc(rows, sizeof(double));
    for (int b = 0; b < sites; b++)
        for (int j = 0; j < NB; j++)
            for (int e = 0; e < 9; e++)
                ref[3 * b + e / 3] += (double)blk[((size_t)b * NB + j) * 9 + e] * hx[3 * bc[b * NB + j] + e % 3];
    float *d_ev, *d_bv, *d_x, *d_xiv, *d_y;
    int *d_ec, *d_bc;
    CK(cudaMalloc(&d_ev, nnz * 4)); CK(cudaMalloc(&d_bv, nnz * 4)); CK(cudaMalloc(&d_ec, nnz * 4));
    CK(cudaMalloc(&d_bc, (size_t)sites * NB * 4)); CK(cudaMalloc(&d_x, rows * 4));
    CK(cudaMalloc(&d_xiv, rows * 4)); CK(cudaMalloc(&d_y, rows * 4));
    CK(cudaMemcpy(d_ev, ell_v, nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_bv, bell_v, nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ec, ell_c, nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_bc, bell_c, (size_t)sites * NB * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_x, hx, rows * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_xiv, xiv, rows * 4, cudaMemcpyHostToDevice));
    printf("# matrix: 4-D lattice L=%d, %d sites, %d rows, %zu nonzeros (3x3 blocks, 9 per block row)\n",
           L, sites, rows, nnz);
    printf("case,kernel,median_us,spread,gflops,max_rel_err\n");
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const char *names[3] = {"ELL", "BELL+IM", "BELL+IMIV"};
    const char *kern[3] = {"spmv_ell", "spmv_bell<0>", "spmv_bell<1>"};
    for (int f = 0; f < 3; f++) {
        int reps = profile ? 1 : 11;
        float ms[11];
        for (int r = profile ? 0 : -1; r < reps; r++) {
            CK(cudaMemset(d_y, 0xff, rows * 4));
            CK(cudaEventRecord(e0));
            if (f == 0) spmv_ell<<<(rows + 255) / 256, 256>>>(rows, d_ev, d_ec, d_x, d_y);
            else if (f == 1) spmv_bell<0><<<(sites + 127) / 128, 128>>>(sites, d_bv, d_bc, d_x, d_y);
            else spmv_bell<1><<<(sites + 127) / 128, 128>>>(sites, d_bv, d_bc, d_xiv, d_y);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            if (r >= 0) CK(cudaEventElapsedTime(&ms[r], e0, e1));
        }
        qsort(ms, reps, sizeof(float), cmpf);
        CK(cudaMemcpy(hy, d_y, rows * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int i = 0; i < rows; i++) {
            double got = f == 2 ? hy[(i % 3) * sites + i / 3] : hy[i];
            double e = fabs(got - ref[i]) / (fabs(ref[i]) + 1e-3);
            if (!(e <= worst)) worst = e;
        }
        printf("%s,%s,%.3f,%.4f,%.2f,%.2e\n", names[f], kern[f], ms[reps / 2] * 1e3,
               (ms[reps - 1] - ms[0]) / ms[reps / 2], 2.0 * nnz / (ms[reps / 2] * 1e6), worst);
        if (!(worst < 1e-3)) {
            fprintf(stderr, "spmv: %s result wrong (relative error %.2e)\n", names[f], worst);
            return 1;
        }
    }
    printf("bytes_per_entry,format,transaction_bytes,value,index,vector,total\n");
    simulate(L, sites, bc);
    return 0;
}
