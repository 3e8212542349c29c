/* Host launchers of the suite "throughput" (bottleneck_kernels.cu), C
 * linkage; each returns a cudaError_t (0 = success) and the time of one
 * launch (or of `iters` empty launches) in ms, from device events.  Without
 * CUDA, bottleneck_kernels_nocuda.c: every call returns GB_BOTTLENECK_ERR_NO_CUDA. */
#ifndef GPUQ_BOTTLENECK_KERNELS_H
#define GPUQ_BOTTLENECK_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Timed instructions; GB_BOTTLENECK_ISSUE is 2 FFMA + 1 LOP3 chains (the issue rate),
 * GB_BOTTLENECK_EMPTY `iters` empty launches back to back. */
enum { GB_BOTTLENECK_FFMA, GB_BOTTLENECK_IMAD, GB_BOTTLENECK_LOP3, GB_BOTTLENECK_DFMA,
       GB_BOTTLENECK_HFMA2, GB_BOTTLENECK_MUFU, GB_BOTTLENECK_ISSUE, GB_BOTTLENECK_EMPTY,
       GB_BOTTLENECK_OPS };
#define GB_BOTTLENECK_UNROLL 64 /* timed instructions per loop iteration and chain */
#define GB_BOTTLENECK_ERR_NO_CUDA (-1) /* no cudaError_t: the build has no CUDA */

int gb_bottleneck_clock_mhz(double *mhz);
/* ilp: 1 or 4 independent chains (GB_BOTTLENECK_ISSUE: always its 3) */
int gb_bottleneck_inst_run(int op, int ilp, int blocks, int threads, int iters, float *ms);
/* `iters` empty launches queued behind a kernel that holds the GPU, so that
 * the GPU runs them back to back at its own pace (as in a CUDA graph): the
 * time from the first to the last. */
int gb_bottleneck_queued_run(int blocks, int threads, int iters, float *ms);
/* A CUDA graph of `nodes` launches, one after the other, each of `blocks`
 * blocks spinning `spin_ns` on the global timer (0: empty), replayed once,
 * then queued behind a kernel that holds the GPU: the time of the replay,
 * first node to last. */
int gb_bottleneck_graph_run(int blocks, int threads, long long spin_ns, int nodes, float *ms);
/* The spin of the graph_gap row: longer than a queued empty launch takes
 * (1.42 us on the H200, docs/bottleneck.md), so that the node's time is the
 * kernel's own and what the graph adds between two dependent nodes. */
#define GB_BOTTLENECK_GRAPH_SPIN_NS 4000LL
/* Copy of `bytes`-wide elements between two shared regions, thread stride
 * `stride` elements, 16 loads and 16 stores per iteration (8 x 2 copies). */
int gb_bottleneck_shared_run(int bytes, int stride, int blocks, int threads, int iters, float *ms);
int gb_bottleneck_global_run(int store, int bytes, void *buf, long long mask_elems, int blocks,
                             int threads, int per_thread, int *sink, float *ms);
/* Selects `device` and reads its SM count and warps per SM. */
int gb_bottleneck_device_info(int device, int *sm_count, int *max_warps);
int gb_bottleneck_malloc(void **p, size_t n);
int gb_bottleneck_memset(void *p, size_t n);
void gb_bottleneck_free(void *p);
const char *gb_bottleneck_error_string(int st);

#ifdef __cplusplus
}
#endif
#endif
