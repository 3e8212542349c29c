/* waves_jit.h without CUDA: every call says so. */
#include "waves_jit.h"

#define NO_CUDA(err) gm_fail(err, GM_ERR_UNSUPPORTED, "gpuq was built without CUDA (no nvcc)")

gm_status gb_waves_jit_open(int device, gb_waves_jit **out, gb_waves_dev *dev, gm_error *err)
{
    (void)device, (void)dev;
    *out = NULL;
    return NO_CUDA(err);
}
void gb_waves_jit_close(gb_waves_jit *j) { (void)j; }
gm_status gb_waves_jit_load(gb_waves_jit *j, const char *ptx, const char *entry,
                            gb_waves_kern **out, gm_error *err)
{
    (void)j, (void)ptx, (void)entry;
    *out = NULL;
    return NO_CUDA(err);
}
void gb_waves_kern_free(gb_waves_kern *k) { (void)k; }
int gb_waves_kern_regs(const gb_waves_kern *k) { (void)k; return -1; }
int gb_waves_kern_static_smem(const gb_waves_kern *k) { (void)k; return -1; }
void gb_waves_kern_cubin(const gb_waves_kern *k, const void **data, size_t *size)
{
    (void)k;
    *data = NULL;
    *size = 0;
}
gm_status gb_waves_kern_set_dyn_smem(gb_waves_kern *k, int bytes, gm_error *err)
{
    (void)k, (void)bytes;
    return NO_CUDA(err);
}
gm_status gb_waves_kern_set_nonportable(gb_waves_kern *k, int on, gm_error *err)
{
    (void)k, (void)on;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_run(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                           double timeout_s, double *ms, gm_error *err)
{
    (void)j, (void)k, (void)l, (void)timeout_s, (void)ms;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_run_batch(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                 size_t count, double timeout_s, double *ms, gm_error *err)
{
    (void)j, (void)k, (void)l, (void)count, (void)timeout_s, (void)ms;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_alloc(gb_waves_jit *j, size_t bytes, uint64_t *dptr, gm_error *err)
{
    (void)j, (void)bytes, (void)dptr;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_zero(gb_waves_jit *j, uint64_t dptr, size_t bytes, gm_error *err)
{
    (void)j, (void)dptr, (void)bytes;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_read(gb_waves_jit *j, void *dst, uint64_t src, size_t bytes, gm_error *err)
{
    (void)j, (void)dst, (void)src, (void)bytes;
    return NO_CUDA(err);
}
gm_status gb_waves_jit_write(gb_waves_jit *j, uint64_t dst, const void *src, size_t bytes,
                             gm_error *err)
{
    (void)j, (void)dst, (void)src, (void)bytes;
    return NO_CUDA(err);
}
gm_status gb_waves_kern_occupancy(gb_waves_kern *k, int block, int dyn_smem, int *blocks,
                                  gm_error *err)
{
    (void)k, (void)block, (void)dyn_smem, (void)blocks;
    return NO_CUDA(err);
}
gm_status gb_waves_kern_max_clusters(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                     int *clusters, gm_error *err)
{
    (void)j, (void)k, (void)l, (void)clusters;
    return NO_CUDA(err);
}
