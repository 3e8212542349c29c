/* Host launchers of the suite "units" (bottleneck_units_kernels.cu,
 * bottleneck_wgmma.cu), C linkage; each returns a cudaError_t (0 = success),
 * the time of one launch in ms (device events) and the SM clock it ran at in
 * MHz (clock64 against %globaltimer in block 0; 0 when not read).  Without
 * CUDA, bottleneck_units_kernels_nocuda.c: every call returns
 * GB_BOTTLENECK_ERR_NO_CUDA.  Rows are GM_BOTTLENECK_UNITS_* of bottleneck_unit_rows.h. */
#ifndef GPUQ_BOTTLENECK_UNITS_KERNELS_H
#define GPUQ_BOTTLENECK_UNITS_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The compute capability a tensor row needs, x 100 (800, 890, 900). */
int gb_bottleneck_units_tensor_arch(int row);
/* 1 when a GPU of compute capability cc100 (x 100) runs the row's
 * instruction natively: at least `arch`, and not in a family the row's
 * `emul` names (bottleneck_unit_rows.h). */
int gb_bottleneck_units_tensor_native(int row, int cc100);
/* mma.sync rows: blocks x threads, each warp `iters` x 16 instructions;
 * wgmma rows: each warpgroup (128 threads) `iters` x 8. */
int gb_bottleneck_units_tensor_run(int row, int blocks, int threads, int iters, float *ms,
                                   double *mhz);
int gb_bottleneck_units_gmma_run(int row, int blocks, int threads, int iters, float *ms,
                                 double *mhz);
#define GB_BOTTLENECK_UNITS_MMA_PER_ITER 16  /* mma.sync per warp per iteration (8 accumulators x 2) */
#define GB_BOTTLENECK_UNITS_GMMA_PER_ITER 8  /* wgmma per warpgroup per iteration (one commit group) */
/* LSU: 16-byte .cg loads or stores, per_thread (1, 2, 4, 8) in flight per
 * thread, `steps` rounds over a working set of n_vec 16-byte elements (a
 * multiple of per_thread x blocks x threads). */
int gb_bottleneck_units_lsu_run(int store, int per_thread, const void *buf, long long n_vec,
                                long long steps, int blocks, int threads, float *ms, double *mhz);
/* TMA: cp.async.bulk of `chunk` bytes into `stages` shared buffers, one
 * thread of each block issuing, `per_block` copies per block over a working
 * set of n_chunks chunks. */
int gb_bottleneck_units_tma_run(const void *buf, long long n_chunks, int chunk, int stages,
                                long long per_block, int blocks, float *ms, double *mhz);
/* Selects `device`: SMs, compute capability x 10, L2 bytes, the memory's
 * quoted peak in GB/s. */
int gb_bottleneck_units_device_info(int device, int *sm_count, int *cc, long long *l2_bytes,
                                    double *dram_peak_gbps);
int gb_bottleneck_units_malloc(void **p, size_t n);
int gb_bottleneck_units_memset(void *p, size_t n);
void gb_bottleneck_units_free(void *p);
const char *gb_bottleneck_units_error_string(int st);
/* 1 when st says this build or GPU has no code for the kernel (a row the
 * suite leaves out, not a failure). */
int gb_bottleneck_units_error_is_no_image(int st);

#ifdef __cplusplus
}
#endif
#endif
