/* waves_jit.h on the CUDA driver API: PTX through the driver's JIT linker
 * (so the cubin it made can be disassembled), launches with clusters, the
 * occupancy API.  Errors become gm_status with the driver's error name. */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "waves_jit.h"

/* The driver is opened at run time (dlopen), so that gpuq starts, and
 * reports, on machines without one. */
#define DRV_FUNCS(X) \
    X(cuCtxSetCurrent) \
    X(cuDeviceGet) \
    X(cuDeviceGetAttribute) \
    X(cuDeviceGetName) \
    X(cuDevicePrimaryCtxRelease) \
    X(cuDevicePrimaryCtxRetain) \
    X(cuDriverGetVersion) \
    X(cuEventCreate) \
    X(cuEventDestroy) \
    X(cuEventElapsedTime) \
    X(cuEventQuery) \
    X(cuEventRecord) \
    X(cuFuncGetAttribute) \
    X(cuFuncSetAttribute) \
    X(cuGetErrorName) \
    X(cuGetErrorString) \
    X(cuInit) \
    X(cuLaunchKernelEx) \
    X(cuLinkAddData) \
    X(cuLinkComplete) \
    X(cuLinkCreate) \
    X(cuLinkDestroy) \
    X(cuMemAlloc) \
    X(cuMemFree) \
    X(cuMemcpyDtoH) \
    X(cuMemcpyHtoD) \
    X(cuMemsetD8) \
    X(cuModuleGetFunction) \
    X(cuModuleLoadData) \
    X(cuModuleUnload) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
    X(cuOccupancyMaxActiveClusters)
#define STR_(x) #x
#define XSTR(x) STR_(x) /* the versioned symbol cuda.h maps a name to */
#define DECL(f) static __typeof__(&f) p_##f;
DRV_FUNCS(DECL)

static int drv_load(void)
{
    static int state = 0; /* 0 not tried, 1 ok, -1 failed */
    if (state)
        return state > 0;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    state = -1;
    if (!h)
        return 0;
#define LOAD(f) if (!(p_##f = (__typeof__(&f))dlsym(h, XSTR(f)))) return 0;
    DRV_FUNCS(LOAD)
#undef LOAD
    state = 1;
    return 1;
}

struct gb_waves_jit {
    CUdevice dev;
    CUcontext ctx;
    CUevent ev0, ev1;
    CUevent evb[GB_WAVES_JIT_BATCH + 1]; /* gb_waves_jit_run_batch's, made on first use */
    int n_evb;
    uint64_t allocs[64];
    int n_allocs;
};

struct gb_waves_kern {
    CUmodule mod;
    CUfunction fn;
    void *cubin;
    size_t cubin_size;
};

static gm_status cu_fail(gm_error *err, gm_status st, CUresult r, const char *what)
{
    const char *name = NULL, *text = NULL;
    p_cuGetErrorName(r, &name);
    p_cuGetErrorString(r, &text);
    return gm_fail(err, st, "%s: %s (%s)", what, name ? name : "?", text ? text : "?");
}

#define CU(call, what)                                                                        \
    do {                                                                                      \
        CUresult r_ = (call);                                                                 \
        if (r_ != CUDA_SUCCESS)                                                               \
            return cu_fail(err, GM_ERR_CUDA, r_, what);                                       \
    } while (0)

static int attr(CUdevice d, CUdevice_attribute a)
{
    int v = -1;
    if (p_cuDeviceGetAttribute(&v, a, d) != CUDA_SUCCESS)
        return -1;
    return v;
}

gm_status gb_waves_jit_open(int device, gb_waves_jit **out, gb_waves_dev *dev, gm_error *err)
{
    *out = NULL;
    if (!drv_load())
        return gm_fail(err, GM_ERR_NO_GPU, "no CUDA driver (libcuda.so.1 cannot be opened)");
    CUresult r = p_cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_FOUND)
        return cu_fail(err, GM_ERR_NO_GPU, r, "cuInit");
    if (r != CUDA_SUCCESS)
        return cu_fail(err, GM_ERR_NO_GPU, r, "cuInit");
    gb_waves_jit *j = calloc(1, sizeof *j);
    if (!j)
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    if ((r = p_cuDeviceGet(&j->dev, device)) != CUDA_SUCCESS ||
        (r = p_cuDevicePrimaryCtxRetain(&j->ctx, j->dev)) != CUDA_SUCCESS) {
        free(j);
        return cu_fail(err, GM_ERR_NO_GPU, r, "device");
    }
    p_cuCtxSetCurrent(j->ctx);
    if ((r = p_cuEventCreate(&j->ev0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (r = p_cuEventCreate(&j->ev1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
        gb_waves_jit_close(j);
        return cu_fail(err, GM_ERR_CUDA, r, "cuEventCreate");
    }
    memset(dev, 0, sizeof *dev);
    p_cuDeviceGetName(dev->name, sizeof dev->name, j->dev);
    CUdevice d = j->dev;
    dev->cc_major = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    dev->cc_minor = attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    dev->sm_count = attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    dev->warp_size = attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    dev->max_threads_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    dev->max_block_dim[0] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    dev->max_block_dim[1] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    dev->max_block_dim[2] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    dev->max_grid_dim[0] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    dev->max_grid_dim[1] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    dev->max_grid_dim[2] = attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    dev->smem_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    dev->smem_per_block_optin = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    dev->smem_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    dev->reserved_smem_per_block = attr(d, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    dev->regs_per_block = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    dev->regs_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    dev->max_threads_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    dev->max_blocks_per_sm = attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    dev->clock_khz = attr(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    dev->mem_clock_khz = attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p_cuDriverGetVersion(&dev->driver_version);
    *out = j;
    return GM_OK;
}

void gb_waves_jit_close(gb_waves_jit *j)
{
    if (!j)
        return;
    p_cuCtxSetCurrent(j->ctx);
    for (int i = 0; i < j->n_allocs; i++)
        p_cuMemFree((CUdeviceptr)j->allocs[i]);
    if (j->ev0)
        p_cuEventDestroy(j->ev0);
    if (j->ev1)
        p_cuEventDestroy(j->ev1);
    for (int i = 0; i < j->n_evb; i++)
        p_cuEventDestroy(j->evb[i]);
    p_cuDevicePrimaryCtxRelease(j->dev);
    free(j);
}

gm_status gb_waves_jit_load(gb_waves_jit *j, const char *ptx, const char *entry,
                            gb_waves_kern **out, gm_error *err)
{
    char log[4096] = "";
    CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *val[2] = {log, (void *)(size_t)sizeof log};
    CUlinkState ls;
    void *cubin = NULL;
    size_t size = 0;
    *out = NULL;
    p_cuCtxSetCurrent(j->ctx);
    CU(p_cuLinkCreate(2, opt, val, &ls), "cuLinkCreate");
    CUresult r = p_cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, entry, 0, NULL,
                               NULL);
    if (r == CUDA_SUCCESS)
        r = p_cuLinkComplete(ls, &cubin, &size);
    if (r != CUDA_SUCCESS) {
        p_cuLinkDestroy(ls);
        for (char *p = log; *p; p++)
            if (*p == '\n')
                *p = ' ';
        /* the JIT refusing a kernel (too much shared memory ...) is a limit, not a fault */
        return gm_fail(err, GM_ERR_RANGE, "JIT of %s: %s", entry, log[0] ? log : "failed");
    }
    gb_waves_kern *k = calloc(1, sizeof *k);
    if (!k || !(k->cubin = malloc(size))) {
        free(k);
        p_cuLinkDestroy(ls);
        return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    memcpy(k->cubin, cubin, size);
    k->cubin_size = size;
    p_cuLinkDestroy(ls);
    if ((r = p_cuModuleLoadData(&k->mod, k->cubin)) != CUDA_SUCCESS ||
        (r = p_cuModuleGetFunction(&k->fn, k->mod, entry)) != CUDA_SUCCESS) {
        gb_waves_kern_free(k);
        return cu_fail(err, GM_ERR_RANGE, r, entry);
    }
    *out = k;
    return GM_OK;
}

void gb_waves_kern_free(gb_waves_kern *k)
{
    if (!k)
        return;
    if (k->mod)
        p_cuModuleUnload(k->mod);
    free(k->cubin);
    free(k);
}

int gb_waves_kern_regs(const gb_waves_kern *k)
{
    int v = -1;
    p_cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
    return v;
}

int gb_waves_kern_static_smem(const gb_waves_kern *k)
{
    int v = -1;
    p_cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
    return v;
}

void gb_waves_kern_cubin(const gb_waves_kern *k, const void **data, size_t *size)
{
    *data = k->cubin;
    *size = k->cubin_size;
}

gm_status gb_waves_kern_set_dyn_smem(gb_waves_kern *k, int bytes, gm_error *err)
{
    CUresult r = p_cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, GM_ERR_RANGE, r, "dynamic shared-memory opt-in");
    return GM_OK;
}

gm_status gb_waves_kern_set_nonportable(gb_waves_kern *k, int on, gm_error *err)
{
    CUresult r =
        p_cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, on);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, GM_ERR_UNSUPPORTED, r, "non-portable cluster opt-in");
    return GM_OK;
}

static void fill_config(CUlaunchConfig *c, CUlaunchAttribute *a, const gb_waves_launch *l)
{
    memset(c, 0, sizeof *c);
    c->gridDimX = l->grid[0] ? l->grid[0] : 1;
    c->gridDimY = l->grid[1] ? l->grid[1] : 1;
    c->gridDimZ = l->grid[2] ? l->grid[2] : 1;
    c->blockDimX = l->block[0] ? l->block[0] : 1;
    c->blockDimY = l->block[1] ? l->block[1] : 1;
    c->blockDimZ = l->block[2] ? l->block[2] : 1;
    c->sharedMemBytes = l->dyn_smem;
    c->hStream = NULL;
    if (l->cluster) {
        memset(a, 0, sizeof *a);
        a->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a->value.clusterDim.x = l->cluster;
        a->value.clusterDim.y = 1;
        a->value.clusterDim.z = 1;
        c->attrs = a;
        c->numAttrs = 1;
    }
}

/* Waits for ev, at most timeout_s (polled: a kernel that hangs is reported,
 * not waited for). */
static gm_status wait_event(CUevent ev, double timeout_s, gm_error *err)
{
    struct timespec t0, now, nap = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        CUresult r = p_cuEventQuery(ev);
        if (r == CUDA_SUCCESS)
            return GM_OK;
        if (r != CUDA_ERROR_NOT_READY)
            return cu_fail(err, GM_ERR_CUDA, r, "kernel");
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) >
            timeout_s)
            return gm_fail(err, GM_ERR_CUDA, "kernel still running after %.1f s", timeout_s);
        nanosleep(&nap, NULL);
    }
}

gm_status gb_waves_jit_run(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                           double timeout_s, double *ms, gm_error *err)
{
    CUlaunchConfig c;
    CUlaunchAttribute a;
    CUdeviceptr out = (CUdeviceptr)l->out, sync = (CUdeviceptr)l->sync, data = (CUdeviceptr)l->data;
    unsigned n = l->n, G = l->G;
    void *params[] = {&out, &sync, &data, &n, &G};
    p_cuCtxSetCurrent(j->ctx);
    fill_config(&c, &a, l);
    CU(p_cuEventRecord(j->ev0, NULL), "cuEventRecord");
    CUresult r = p_cuLaunchKernelEx(&c, k->fn, params, NULL);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, GM_ERR_RANGE, r, "launch refused");
    CU(p_cuEventRecord(j->ev1, NULL), "cuEventRecord");
    gm_status ws = wait_event(j->ev1, timeout_s, err);
    if (ws != GM_OK)
        return ws;
    if (ms) {
        float f = 0;
        CU(p_cuEventElapsedTime(&f, j->ev0, j->ev1), "cuEventElapsedTime");
        *ms = f;
    }
    return GM_OK;
}

gm_status gb_waves_jit_run_batch(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                 size_t count, double timeout_s, double *ms, gm_error *err)
{
    if (count == 0)
        return GM_OK;
    if (count > GB_WAVES_JIT_BATCH || !l || !ms)
        return gm_fail(err, GM_ERR_INVALID_ARG, "batch of %zu launches (1..%d)", count,
                       GB_WAVES_JIT_BATCH);
    p_cuCtxSetCurrent(j->ctx);
    while ((size_t)j->n_evb < count + 1) {
        CU(p_cuEventCreate(&j->evb[j->n_evb], CU_EVENT_DEFAULT), "cuEventCreate");
        j->n_evb++;
    }
    CU(p_cuEventRecord(j->evb[0], NULL), "cuEventRecord");
    for (size_t i = 0; i < count; i++) {
        CUlaunchConfig c;
        CUlaunchAttribute a;
        CUdeviceptr out = (CUdeviceptr)l[i].out, sync = (CUdeviceptr)l[i].sync,
                    data = (CUdeviceptr)l[i].data;
        unsigned n = l[i].n, G = l[i].G;
        void *params[] = {&out, &sync, &data, &n, &G};
        fill_config(&c, &a, &l[i]);
        CUresult r = p_cuLaunchKernelEx(&c, k->fn, params, NULL);
        if (r != CUDA_SUCCESS)
            return cu_fail(err, GM_ERR_RANGE, r, "launch refused");
        CU(p_cuEventRecord(j->evb[i + 1], NULL), "cuEventRecord");
    }
    gm_status st = wait_event(j->evb[count], timeout_s, err);
    for (size_t i = 0; i < count && st == GM_OK; i++) {
        float f = 0;
        CU(p_cuEventElapsedTime(&f, j->evb[i], j->evb[i + 1]), "cuEventElapsedTime");
        ms[i] = f;
    }
    return st;
}

gm_status gb_waves_jit_alloc(gb_waves_jit *j, size_t bytes, uint64_t *dptr, gm_error *err)
{
    CUdeviceptr p;
    if (j->n_allocs >= 64)
        return gm_fail(err, GM_ERR_NOMEM, "too many allocations");
    p_cuCtxSetCurrent(j->ctx);
    CU(p_cuMemAlloc(&p, bytes), "cuMemAlloc");
    j->allocs[j->n_allocs++] = (uint64_t)p;
    *dptr = (uint64_t)p;
    return GM_OK;
}

gm_status gb_waves_jit_zero(gb_waves_jit *j, uint64_t dptr, size_t bytes, gm_error *err)
{
    (void)j;
    CU(p_cuMemsetD8((CUdeviceptr)dptr, 0, bytes), "cuMemsetD8");
    return GM_OK;
}

gm_status gb_waves_jit_read(gb_waves_jit *j, void *dst, uint64_t src, size_t bytes, gm_error *err)
{
    (void)j;
    CU(p_cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH");
    return GM_OK;
}

gm_status gb_waves_jit_write(gb_waves_jit *j, uint64_t dst, const void *src, size_t bytes,
                             gm_error *err)
{
    (void)j;
    CU(p_cuMemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD");
    return GM_OK;
}

gm_status gb_waves_kern_occupancy(gb_waves_kern *k, int block, int dyn_smem, int *blocks,
                                  gm_error *err)
{
    CU(p_cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, k->fn, block, (size_t)dyn_smem),
       "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return GM_OK;
}

gm_status gb_waves_kern_max_clusters(gb_waves_jit *j, gb_waves_kern *k, const gb_waves_launch *l,
                                     int *clusters, gm_error *err)
{
    CUlaunchConfig c;
    CUlaunchAttribute a;
    (void)j;
    fill_config(&c, &a, l);
    CUresult r = p_cuOccupancyMaxActiveClusters(clusters, k->fn, &c);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, GM_ERR_RANGE, r, "cuOccupancyMaxActiveClusters");
    return GM_OK;
}
