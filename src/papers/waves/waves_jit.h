/* The "sched" suite's window on the GPU: PTX JIT-compiled by the driver
 * (cuLink*, which also hands back the cubin for the SASS check), launches
 * with any grid, block, cluster and dynamic shared memory, the device's
 * documented limits and the occupancy API.  C on the CUDA driver API
 * (waves_jit_cuda.c); without CUDA every call answers GM_ERR_UNSUPPORTED
 * (waves_jit_nocuda.c). */
#ifndef GPUQ_WAVES_JIT_H
#define GPUQ_WAVES_JIT_H

#include <stddef.h>
#include <stdint.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the driver documents about the device (cuDeviceGetAttribute). */
typedef struct gb_waves_dev {
    char name[128];
    int cc_major, cc_minor, sm_count, warp_size;
    int max_threads_per_block, max_block_dim[3], max_grid_dim[3];
    int smem_per_block, smem_per_block_optin, smem_per_sm, reserved_smem_per_block;
    int regs_per_block, regs_per_sm, max_threads_per_sm, max_blocks_per_sm;
    int clock_khz, mem_clock_khz, driver_version;
} gb_waves_dev;

typedef struct gb_waves_jit gb_waves_jit;
typedef struct gb_waves_kern gb_waves_kern;

gm_status gb_waves_jit_open(int device, gb_waves_jit **out, gb_waves_dev *dev, gm_error *err);
void gb_waves_jit_close(gb_waves_jit *j);

/* JIT-compiles ptx (driver's default optimisation) and finds entry. */
gm_status gb_waves_jit_load(gb_waves_jit *j, const char *ptx, const char *entry,
                            gb_waves_kern **out, gm_error *err);
void gb_waves_kern_free(gb_waves_kern *k);
int gb_waves_kern_regs(const gb_waves_kern *k);         /* registers per thread */
int gb_waves_kern_static_smem(const gb_waves_kern *k);  /* bytes */
/* The cubin the driver made (valid while k lives). */
void gb_waves_kern_cubin(const gb_waves_kern *k, const void **data, size_t *size);
/* Opt-in to `bytes` of dynamic shared memory per block. */
gm_status gb_waves_kern_set_dyn_smem(gb_waves_kern *k, int bytes, gm_error *err);
/* Allows clusters beyond the portable size. */
gm_status gb_waves_kern_set_nonportable(gb_waves_kern *k, int on, gm_error *err);

typedef struct gb_waves_launch {
    unsigned grid[3], block[3];
    unsigned cluster;           /* blocks per cluster in x (0: no cluster) */
    unsigned dyn_smem;
    uint64_t out, sync, data;   /* device addresses (kernel parameters) */
    unsigned n, G;
} gb_waves_launch;

/* Launches and waits (at most timeout_s seconds; a kernel still running
 * then is an error).  A launch the driver refuses (configuration, too many
 * resources) is GM_ERR_RANGE with the driver's reason, the context intact.
 * ms (may be NULL) gets the event-timed duration. */
gm_status gb_waves_jit_run(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                           double timeout_s, double *ms, gm_error *err);

/* Launches l[0..count-1] back to back on one stream with an event between
 * every two, and waits once (at most timeout_s for all of them): ms[i] is
 * launch i's time, from the event before it to the event after it.  The
 * GPU runs the launches without waiting for the host, so a host thread
 * that is late (scheduled out between an event and its launch) stretches
 * at most the first time, not every one as with gb_waves_jit_run.  At most
 * GB_WAVES_JIT_BATCH launches; a refused launch is GM_ERR_RANGE as in
 * gb_waves_jit_run (the launches before it still run). */
#define GB_WAVES_JIT_BATCH 64
gm_status gb_waves_jit_run_batch(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                 size_t count, double timeout_s, double *ms, gm_error *err);

gm_status gb_waves_jit_alloc(gb_waves_jit *j, size_t bytes, uint64_t *dptr, gm_error *err);
gm_status gb_waves_jit_zero(gb_waves_jit *j, uint64_t dptr, size_t bytes, gm_error *err);
gm_status gb_waves_jit_read(gb_waves_jit *j, void *dst, uint64_t src, size_t bytes, gm_error *err);
gm_status gb_waves_jit_write(gb_waves_jit *j, uint64_t dst, const void *src, size_t bytes,
                             gm_error *err);

/* cuOccupancyMaxActiveBlocksPerMultiprocessor */
gm_status gb_waves_kern_occupancy(gb_waves_kern *k, int block, int dyn_smem, int *blocks,
                                  gm_error *err);
/* cuOccupancyMaxActiveClusters for the launch l */
gm_status gb_waves_kern_max_clusters(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                     int *clusters, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
