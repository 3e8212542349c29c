/* bottleneck_kernels.h without CUDA: every launcher says so, so that the
 * suite's own code (bottleneck_suite.c) is the same in both builds. */
#include "bottleneck_kernels.h"

int gb_bottleneck_clock_mhz(double *mhz)
{
    *mhz = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_inst_run(int op, int ilp, int blocks, int threads, int iters, float *ms)
{
    (void)op, (void)ilp, (void)blocks, (void)threads, (void)iters;
    *ms = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_queued_run(int blocks, int threads, int iters, float *ms)
{
    (void)blocks, (void)threads, (void)iters;
    *ms = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_graph_run(int blocks, int threads, long long spin_ns, int nodes, float *ms)
{
    (void)blocks, (void)threads, (void)spin_ns, (void)nodes;
    *ms = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_shared_run(int bytes, int stride, int blocks, int threads, int iters, float *ms)
{
    (void)bytes, (void)stride, (void)blocks, (void)threads, (void)iters;
    *ms = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_global_run(int store, int bytes, void *buf, long long mask_elems, int blocks,
                             int threads, int per_thread, int *sink, float *ms)
{
    (void)store, (void)bytes, (void)buf, (void)mask_elems, (void)blocks, (void)threads;
    (void)per_thread, (void)sink;
    *ms = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_device_info(int device, int *sm_count, int *max_warps)
{
    (void)device;
    *sm_count = *max_warps = 0;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_malloc(void **p, size_t n)
{
    (void)n;
    *p = NULL;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
int gb_bottleneck_memset(void *p, size_t n)
{
    (void)p, (void)n;
    return GB_BOTTLENECK_ERR_NO_CUDA;
}
void gb_bottleneck_free(void *p) { (void)p; }
const char *gb_bottleneck_error_string(int st)
{
    return st == GB_BOTTLENECK_ERR_NO_CUDA ? "gpuq was built without CUDA (no nvcc)" : "unknown error";
}
