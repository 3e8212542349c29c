/* bottleneck_units_kernels.h without CUDA: every launcher says so, so that
 * the suite's own code (bottleneck_units_suite.c) is the same in both
 * builds. */
#include "bottleneck_kernels.h"
#include "bottleneck_units_kernels.h"

int gb_bottleneck_units_tensor_arch(int row)
{
    (void)row;
    return 0;
}
int gb_bottleneck_units_tensor_native(int row, int cc100)
{
    (void)row, (void)cc100;
    return 0;
}
int gb_bottleneck_units_tensor_run(int row, int blocks, int threads, int iters, float *ms,
                                   double *mhz)
{
    (void)row, (void)blocks, (void)threads, (void)iters;
    *ms = 0;
    *mhz = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_units_gmma_run(int row, int blocks, int threads, int iters, float *ms,
                                 double *mhz)
{
    return gb_bottleneck_units_tensor_run(row, blocks, threads, iters, ms, mhz);
}
int gb_bottleneck_units_lsu_run(int store, int per_thread, const void *buf, long long n_vec,
                                long long steps, int blocks, int threads, float *ms, double *mhz)
{
    (void)store, (void)per_thread, (void)buf, (void)n_vec, (void)steps, (void)blocks;
    (void)threads;
    *ms = 0;
    *mhz = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_units_tma_run(const void *buf, long long n_chunks, int chunk, int stages,
                                long long per_block, int blocks, float *ms, double *mhz)
{
    (void)buf, (void)n_chunks, (void)chunk, (void)stages, (void)per_block, (void)blocks;
    *ms = 0;
    *mhz = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_units_device_info(int device, int *sm_count, int *cc, long long *l2_bytes,
                                    double *dram_peak_gbps)
{
    (void)device;
    *sm_count = *cc = 0;
    *l2_bytes = 0;
    *dram_peak_gbps = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_units_malloc(void **p, size_t n)
{
    (void)n;
    *p = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_units_memset(void *p, size_t n)
{
    (void)p, (void)n;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
void gb_bottleneck_units_free(void *p) { (void)p; }
const char *gb_bottleneck_units_error_string(int st) { return gb_bottleneck_error_string(st); }
int gb_bottleneck_units_error_is_no_image(int st)
{
    (void)st;
    return 0;
}
