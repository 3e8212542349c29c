/* libgpuq_inject.so: the CUPTI collector that `gpuq profile` loads into the
 * profiled program through CUDA_INJECTION64_PATH.
 *
 * Flow (docs/profile.md has the user's view):
 *   InitializeInjection (inside the program's cuInit) reads the GPUQ_*
 *   environment, subscribes to CUPTI callbacks and registers the drain.
 *   CONTEXT_CREATED sets up the device (range profiler host objects, or the
 *   SASS metric configuration).  For every kernel launch the driver API
 *   ENTER callback takes the device lock and applies the filter.  Counters
 *   pass: a selected launch joins the open range profiler window (opening
 *   one if needed); a window closes after GPUQ_BATCH launches, or before
 *   unprofiled work, and its rows are appended and flushed then
 *   (collector_range.c).  Sass pass: a selected launch's EXIT callback
 *   waits for it and writes its instruction counts.  atexit,
 *   CONTEXT_DESTROY_STARTING and fatal signals (a flush thread) drain
 *   whatever is still open.
 *
 * The collector runs inside somebody else's program: it never exits, never
 * crashes it on purpose, and on any CUPTI/CUDA failure prints one line
 * ("gpuq-collector: ...") and stands down, letting the program run on.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "gi_sass.h"

gi_collector g_collector = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .contexts_lock = PTHREAD_MUTEX_INITIALIZER,
};
#define g g_collector

/* The C++ runtime's demangler (libstdc++), declared here so that the
 * collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

uint64_t gi_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void gi_call_done(gi_call call, uint64_t t0)
{
    uint64_t dt = gi_now_ns() - t0;
    __atomic_fetch_add(&g.call_ns[call], dt, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g.call_count[call], 1, __ATOMIC_RELAXED);
}

/* ---- messages --------------------------------------------------------- */

static void emit(const char *prefix, const char *fmt, va_list ap)
{
    /* One write per message, so lines from several threads do not mix. */
    char line[1024];
    int n = snprintf(line, sizeof line, "gpuq-collector: %s", prefix);
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void gi_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}

void gi_verbose(const char *fmt, ...)
{
    if (!g.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit("[verbose] ", fmt, ap);
    va_end(ap);
}

static void write_status_locked(void);

/* Records the first reason and stops profiling; g.lock is held. */
static void stand_down_locked_v(gi_error_kind kind, const char *fmt, va_list ap)
{
    int first = g.error_kind == GI_ERROR_NONE;
    if (first) {
        vsnprintf(g.error, sizeof g.error, fmt, ap);
        g.error_kind = kind;
    }
    g.disabled = 1;
    if (first) {
        gi_note("%s; profiling stopped, the program continues", g.error);
        write_status_locked();
    }
}

static void stand_down_locked(gi_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void stand_down_locked(gi_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    stand_down_locked_v(kind, fmt, ap);
    va_end(ap);
}

void gi_stand_down(gi_error_kind kind, const char *fmt, ...)
{
    pthread_mutex_lock(&g.lock);
    va_list ap;
    va_start(ap, fmt);
    stand_down_locked_v(kind, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&g.lock);
}

int gi_cupti_failed(const char *call, CUptiResult rc)
{
    const char *name = NULL;
    if (cuptiGetResultString(rc, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI error";
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        gi_stand_down(GI_ERROR_PERMISSION,
                      "%s failed (%s): this user may not read the GPU performance counters; "
                      "run as root or with CAP_PERFMON (CAP_SYS_ADMIN before driver R565), or load "
                      "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
                      "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
                      call, name);
        break;
    case CUPTI_ERROR_HARDWARE_BUSY:
        gi_stand_down(GI_ERROR_BUSY,
                      "%s failed (%s): another profiler holds the GPU performance counters "
                      "(Nsight Compute, DCGM profiling: 'dcgmi profile --pause', another CUPTI tool)",
                      call, name);
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        gi_stand_down(GI_ERROR_BUSY,
                      "%s failed (%s): another CUPTI tool is attached to this program "
                      "(Nsight Systems, Nsight Compute, the PyTorch profiler...)",
                      call, name);
        break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        gi_stand_down(GI_ERROR_UNSUPPORTED,
                      "%s failed (%s): CUPTI cannot profile a MIG instance here; "
                      "profile on a GPU without MIG", call, name);
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        gi_stand_down(GI_ERROR_UNSUPPORTED, "%s failed (%s): this GPU or setup cannot be profiled",
                      call, name);
        break;
    default:
        gi_stand_down(GI_ERROR_CUPTI, "%s failed (%s, CUPTI error %d)", call, name, (int)rc);
        break;
    }
    return 0;
}

int gi_cuda_failed(const char *call, CUresult rc)
{
    const char *name = NULL;
    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        name = "unknown CUDA error";
    gi_stand_down(GI_ERROR_CUDA, "%s failed (%s, CUDA error %d)", call, name, (int)rc);
    return 0;
}

int gi_ctx_synchronize(void)
{
    uint64_t t0 = gi_now_ns();
    CUresult rc = cuCtxSynchronize();
    gi_call_done(GI_CALL_CTX_SYNC, t0);
    return rc == CUDA_SUCCESS ? 1 : gi_cuda_failed("cuCtxSynchronize", rc);
}

/* ---- output files ----------------------------------------------------- */

/* Opens the output for this process.  The path is claimed with O_EXCL: when
 * another process of the same run (a child that also uses CUDA) got there
 * first, this one writes PATH.<pid> instead, so that no file is written by
 * two processes. */
static FILE *open_output(void)
{
    int fd = open(g.out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    snprintf(g.out_path_used, sizeof g.out_path_used, "%s", g.out_path);
    if (fd < 0 && errno == EEXIST) {
        snprintf(g.out_path_used, sizeof g.out_path_used, "%s.%ld", g.out_path, (long)getpid());
        fd = open(g.out_path_used, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0)
            gi_note("'%s' is taken by another process of this run; process %ld writes '%s'",
                    g.out_path, (long)getpid(), g.out_path_used);
    }
    if (fd < 0) {
        int e = errno;
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot create '%s' (%s)", g.out_path_used, strerror(e));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        g.out_failed = 1;
    }
    return f;
}

/* Called with g.lock held: opens the output on first use. */
static int output_ready_locked(void)
{
    if (!g.out && !g.out_failed)
        g.out = open_output();
    return g.out && !g.out_failed;
}

void gi_write_row(gi_device *dev, const gm_launch_counters *k)
{
    pthread_mutex_lock(&g.lock);
    gm_error err = {{0}};
    int fresh = !g.out;
    if (!output_ready_locked())
        goto done;
    if (fresh && gm_counters_write_header(g.out, &dev->meta, &err) != GM_OK) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot write the counters header to '%s' (%s)",
                          g.out_path_used, err.msg);
        goto done;
    }
    if (gm_counters_append_row(g.out, k, &err) != GM_OK || fflush(g.out) != 0) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot append to '%s' (%s)", g.out_path_used,
                          err.msg[0] ? err.msg : strerror(errno));
        goto done;
    }
    g.rows_written++;
done:
    pthread_mutex_unlock(&g.lock);
}

void gi_write_sass_text(const char *text)
{
    pthread_mutex_lock(&g.lock);
    int fresh = !g.out;
    if (!output_ready_locked())
        goto done;
    if ((fresh && fprintf(g.out, "%s\nmetric,%s\n", GI_SASS_FILE_MAGIC, g.sass_metric) < 0) ||
        fputs(text, g.out) < 0 ||
        fflush(g.out) != 0) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot append to '%s' (%s)", g.out_path_used,
                          strerror(errno));
    }
done:
    pthread_mutex_unlock(&g.lock);
}

static const char *error_kind_name(gi_error_kind kind)
{
    static const char *const names[] = {"none",  "config", "permission", "busy",
                                        "unsupported", "cupti", "cuda", "io"};
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

/* Status file for gpuq profile: what was profiled, what was not, and why the
 * collector stood down.  Rewritten whole (temporary file + rename). */
static void write_status_locked(void)
{
    if (!g.status_path[0] || getpid() != g.pid)
        return;
    char tmp[GI_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", g.status_path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    size_t passes = 0, batch = 0;
    uint64_t windows = 0;
    const char *replay = "none";
    const gm_counters_meta *meta = NULL;
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        windows += g.devices[i].windows;
        if (g.devices[i].meta.device_name[0] && !meta)
            meta = &g.devices[i].meta;
        if (g.devices[i].setup_ok && g.pass == GI_PASS_COUNTERS && !passes) {
            passes = g.devices[i].passes;
            batch = g.devices[i].batch_max;
            replay = g.devices[i].replay == CUPTI_KernelReplay ? "kernel" : "user";
        }
    }
    fprintf(f,
            "# gpuq collector status v1\n"
            "pid: %ld\n"
            "pass: %s\n"
            "output: %s\n"
            "device_name: %s\n"
            "sm_count: %d\n"
            "compute_capability: %d.%d\n"
            "replay: %s\n"
            "passes: %zu\n"
            "batch: %zu\n"
            "windows: %" PRIu64 "\n"
            "launches_seen: %" PRIu64 "\n"
            "profiled_launches: %" PRIu64 "\n"
            "rows_written: %" PRIu64 "\n"
            "filtered_out_launches: %" PRIu64 "\n"
            "graph_launches: %" PRIu64 "\n"
            "captured_launches: %" PRIu64 "\n"
            "failed_launches: %" PRIu64 "\n"
            "range_mismatches: %" PRIu64 "\n"
            "cubins_saved: %" PRIu64 "\n"
            "drained: %d\n"
            "error_kind: %s\n"
            "error: %s\n",
            (long)g.pid, g.pass == GI_PASS_SASS ? "sass" : "counters",
            g.out_path_used[0] ? g.out_path_used : g.out_path, meta ? meta->device_name : "",
            meta ? meta->sm_count : 0, meta ? meta->cc_major : 0, meta ? meta->cc_minor : 0,
            replay, passes, batch, windows, g.launches_seen,
            g.profiled, g.rows_written, g.filtered_out, g.graph_launches, g.captured_launches,
            g.failed_launches, g.range_mismatches, g.cubins_saved, g.drained,
            error_kind_name(g.error_kind), g.error);
    if (fclose(f) == 0)
        rename(tmp, g.status_path);
    else
        unlink(tmp);
}

/* ---- devices and contexts --------------------------------------------- */

int gi_device_fill_meta(gi_device *dev)
{
    CUdevice d;
    CUresult rc = cuDeviceGet(&d, dev->ordinal);
    if (rc != CUDA_SUCCESS)
        return gi_cuda_failed("cuDeviceGet", rc);
    gm_counters_meta *m = &dev->meta;
    memset(m, 0, sizeof *m);
    int threads_per_sm = 0, warp = 0;
    if ((rc = cuDeviceGetName(m->device_name, sizeof m->device_name, d)) != CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&threads_per_sm,
                                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d)) != CUDA_SUCCESS)
        return gi_cuda_failed("cuDeviceGetAttribute", rc);
    m->max_warps_per_sm = warp > 0 ? threads_per_sm / warp : 0;
    snprintf(m->command, sizeof m->command, "%s", g.command);
    return 1;
}

static void preload_join(void);

static int profiler_initialize(void)
{
    if (g.profiler_initialized)
        return 1;
    preload_join();
    CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerInitialize(&p);
    gi_call_done(GI_CALL_PROFILER_INIT, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerInitialize", rc);
    g.profiler_initialized = 1;
    return 1;
}

/* Called with dev->lock held. */
static void device_setup(gi_device *dev, CUcontext ctx)
{
    if (dev->setup_done)
        return;
    dev->setup_done = 1;
    if (!gi_device_fill_meta(dev))
        return;
    /* gpuq reads the device from here to load its calibration table while
     * the program runs: written before the slow part of the set-up. */
    pthread_mutex_lock(&g.lock);
    write_status_locked();
    pthread_mutex_unlock(&g.lock);
    if (!profiler_initialize())
        return;
    int ok = g.pass == GI_PASS_COUNTERS ? gi_range_device_setup(dev, ctx) : gi_sass_device_setup(dev);
    dev->setup_ok = ok && !g.disabled;
    if (dev->setup_ok)
        gi_verbose("device %d (%s, %s) ready for the %s pass", dev->ordinal, dev->meta.device_name,
                   dev->chip, g.pass == GI_PASS_SASS ? "sass" : "counters");
}

static gi_device *device_of(CUcontext ctx)
{
    uint32_t id = 0;
    CUptiResult rc = cuptiGetDeviceId(ctx, &id);
    if (rc != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiGetDeviceId", rc);
        return NULL;
    }
    if (id >= GI_MAX_DEVICES) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "device %u is beyond the %d devices gpuq handles", id,
                      GI_MAX_DEVICES);
        return NULL;
    }
    return &g.devices[id];
}

static gi_context *context_find(CUcontext ctx)
{
    pthread_mutex_lock(&g.contexts_lock);
    gi_context *found = NULL;
    for (size_t i = 0; i < g.n_contexts; i++)
        if (g.contexts[i].ctx == ctx) {
            found = &g.contexts[i];
            break;
        }
    pthread_mutex_unlock(&g.contexts_lock);
    return found;
}

static void context_forget(CUcontext ctx)
{
    pthread_mutex_lock(&g.contexts_lock);
    for (size_t i = 0; i < g.n_contexts; i++)
        if (g.contexts[i].ctx == ctx) {
            g.contexts[i] = g.contexts[--g.n_contexts];
            break;
        }
    pthread_mutex_unlock(&g.contexts_lock);
}

static void on_context_created(CUcontext ctx)
{
    if (g.disabled)
        return;
    if (!g.first_context_ns)
        g.first_context_ns = gi_now_ns();
    gi_device *dev = device_of(ctx);
    if (!dev)
        return;
    pthread_mutex_lock(&dev->lock);
    dev->ordinal = (int)(dev - g.devices);
    /* Counter availability must be read before any range profiler session
     * is enabled on the device, so the device is set up here, at its first
     * context, not at its first launch. */
    device_setup(dev, ctx);
    if (dev->setup_ok && !g.disabled && g.pass == GI_PASS_SASS)
        gi_sass_context_ready(dev, ctx);
    if (!g.setup_done_ns)
        g.setup_done_ns = gi_now_ns();
    pthread_mutex_unlock(&dev->lock);
}

static void on_context_destroy(CUcontext ctx)
{
    if (g.drained)
        return;
    uint32_t id = 0;
    if (cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS || id >= GI_MAX_DEVICES)
        return;
    gi_device *dev = &g.devices[id];
    pthread_mutex_lock(&dev->lock);
    if (g.pass == GI_PASS_COUNTERS)
        gi_range_context_gone(dev, ctx);
    else {
        gi_context *c = context_find(ctx);
        if (c)
            gi_sass_context_gone(c);
    }
    context_forget(ctx);
    pthread_mutex_unlock(&dev->lock);
    pthread_mutex_lock(&g.lock);
    write_status_locked();
    pthread_mutex_unlock(&g.lock);
}

/* ---- kernel launches -------------------------------------------------- */

static char *demangle(const char *mangled)
{
    if (strncmp(mangled, "_Z", 2) == 0) {
        int status = -1;
        char *d = __cxa_demangle(mangled, NULL, NULL, &status);
        if (status == 0 && d)
            return d;
        free(d);
    }
    return strdup(mangled);
}

typedef struct launch_geometry {
    CUfunction f;
    CUstream stream;
    unsigned grid[3], block[3];
    unsigned dynamic_shared;
} launch_geometry;

static int is_graph_launch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

/* cuLaunch, cuLaunchGrid(Async): deprecated, and the block shape set by
 * cuFuncSetBlockShape cannot be read back. */
static int is_legacy_launch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunch ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync;
}

static void read_geometry(CUpti_CallbackId cbid, const void *params, launch_geometry *geo)
{
    memset(geo, 0, sizeof *geo);
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        /* The cooperative variants share the leading fields. */
        const cuLaunchKernel_params *p = params;
        geo->f = p->f;
        geo->stream = p->hStream;
        geo->grid[0] = p->gridDimX, geo->grid[1] = p->gridDimY, geo->grid[2] = p->gridDimZ;
        geo->block[0] = p->blockDimX, geo->block[1] = p->blockDimY, geo->block[2] = p->blockDimZ;
        geo->dynamic_shared = p->sharedMemBytes;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        geo->f = p->f;
        if (p->config) {
            const CUlaunchConfig *c = p->config;
            geo->stream = c->hStream;
            geo->grid[0] = c->gridDimX, geo->grid[1] = c->gridDimY, geo->grid[2] = c->gridDimZ;
            geo->block[0] = c->blockDimX, geo->block[1] = c->blockDimY, geo->block[2] = c->blockDimZ;
            geo->dynamic_shared = c->sharedMemBytes;
        }
        break;
    }
    default:
        break;
    }
}

/* Registers and static shared memory of the launched function.  Since CUDA
 * 12 the runtime may pass a CUkernel where a CUfunction is expected; the
 * function of the current context is looked up then. */
static void function_resources(CUfunction f, unsigned dynamic_shared, int *regs, int *shared)
{
    *regs = -1;
    *shared = -1;
    if (!f)
        return;
    int r = 0, s = 0;
    if (cuFuncGetAttribute(&r, CU_FUNC_ATTRIBUTE_NUM_REGS, f) != CUDA_SUCCESS) {
        CUfunction fn = NULL;
        if (cuKernelGetFunction(&fn, (CUkernel)f) != CUDA_SUCCESS || !fn ||
            cuFuncGetAttribute(&r, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) != CUDA_SUCCESS)
            return;
        f = fn;
    }
    *regs = r;
    if (cuFuncGetAttribute(&s, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS)
        *shared = s + (int)dynamic_shared;
}

static int stream_is_capturing(CUstream stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return 0;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* An unprofiled kernel is about to run on dev (device lock held): the open
 * window closes first, so that the kernel does not fall into it, and the
 * next window waits for the kernel. */
static void mark_unprofiled(gi_device *dev)
{
    if (g.pass == GI_PASS_COUNTERS && dev->window_open)
        gi_range_flush(dev);
    dev->dirty = 1;
}

static int is_capture_begin(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz;
}

/* A stream capture is about to begin: the window closes now, while its
 * Decode may still synchronize (inside a capture that would invalidate
 * the capture). */
static void capture_begin(const CUpti_CallbackData *cb)
{
    if (g.disabled || g.pass != GI_PASS_COUNTERS || !cb->context)
        return;
    uint32_t id = 0;
    if (cuptiGetDeviceId(cb->context, &id) != CUPTI_SUCCESS || id >= GI_MAX_DEVICES)
        return;
    gi_device *dev = &g.devices[id];
    pthread_mutex_lock(&dev->lock);
    if (dev->window_open)
        gi_range_flush(dev);
    pthread_mutex_unlock(&dev->lock);
}

/* Read by the fatal-signal handler too: initial-exec, so that reading it
 * there never allocates. */
static _Thread_local int tls_depth __attribute__((tls_model("initial-exec")));
static _Thread_local gi_launch tls_launch;

/* The counters pass names each kernel it profiles in
 * GPUQ_CUBIN_DIR/kernels.txt at its first launch, so that gpuq can
 * disassemble its code while the program still runs (the disassembler
 * takes about 0.3 s whatever the size of the code). */
static void note_kernel_name(const char *mangled)
{
    if (g.pass != GI_PASS_COUNTERS || !g.cubin_dir[0])
        return;
    pthread_mutex_lock(&g.lock);
    for (size_t i = 0; i < g.n_kernel_names; i++)
        if (strcmp(g.kernel_names[i], mangled) == 0) {
            pthread_mutex_unlock(&g.lock);
            return;
        }
    char **grown = realloc(g.kernel_names, (g.n_kernel_names + 1) * sizeof *grown);
    char *copy = strdup(mangled);
    if (grown)
        g.kernel_names = grown;
    if (!grown || !copy) {
        free(copy);
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.kernel_names[g.n_kernel_names++] = copy;
    pthread_mutex_unlock(&g.lock);
    char path[GI_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/kernels.txt", g.cubin_dir);
    if (mkdir(g.cubin_dir, 0755) != 0 && errno != EEXIST)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t n = strlen(mangled);
    char *line = malloc(n + 2);
    if (line) {
        memcpy(line, mangled, n);
        line[n] = '\n';
        ssize_t w = write(fd, line, n + 1); /* one write: lines of two threads do not mix */
        (void)w;
        free(line);
    }
    close(fd);
}

static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    gi_launch *L = &tls_launch;
    L->action = GI_ACTION_NONE;
    if (g.disabled)
        return;
    /* Once -c launches were profiled no window opens again: let the rest
     * of the program run without the device lock.  (Read without g.lock:
     * the counter only grows, and a stale read just takes the lock.) */
    if (gi_filter_exhausted(&g.filter) && !is_graph_launch(cbid))
        return;
    gi_device *dev = device_of(cb->context);
    if (!dev)
        return;
    pthread_mutex_lock(&dev->lock);
    L->action = GI_ACTION_HOLD;
    L->dev = dev;
    L->ctx = cb->context;
    if (!dev->setup_done) {
        dev->ordinal = (int)(dev - g.devices);
        device_setup(dev, cb->context);
    }
    if (g.disabled || !dev->setup_ok)
        return;

    if (is_graph_launch(cbid)) {
        /* Only cuGraphLaunch calls back, not its kernel nodes: they cannot
         * be attributed, so they are counted and reported, not profiled. */
        mark_unprofiled(dev);
        pthread_mutex_lock(&g.lock);
        g.graph_launches++;
        if (!g.graph_note_printed) {
            g.graph_note_printed = 1;
            gi_note("CUDA graph launches are not profiled (their kernels are not attributed); "
                    "gpuq profile reports how many were skipped");
            write_status_locked();
        }
        pthread_mutex_unlock(&g.lock);
        return;
    }

    if (is_legacy_launch(cbid)) {
        mark_unprofiled(dev);
        pthread_mutex_lock(&g.lock);
        g.filtered_out++;
        if (!g.legacy_note_printed) {
            g.legacy_note_printed = 1;
            gi_note("launches through the deprecated cuLaunch/cuLaunchGrid are not profiled");
        }
        pthread_mutex_unlock(&g.lock);
        return;
    }

    launch_geometry geo;
    read_geometry(cbid, cb->functionParams, &geo);
    if (stream_is_capturing(geo.stream)) {
        /* Captured into a graph, not executed now. */
        pthread_mutex_lock(&g.lock);
        g.captured_launches++;
        pthread_mutex_unlock(&g.lock);
        return;
    }

    const char *mangled = cb->symbolName ? cb->symbolName : "(unnamed kernel)";
    char *name = g.filter.has_regex ? demangle(mangled) : NULL;
    pthread_mutex_lock(&g.lock);
    g.launches_seen++;
    gi_filter_verdict verdict = gi_filter_next(&g.filter, name ? name : mangled);
    uint64_t launch_id = 0;
    if (verdict == GI_FILTER_PROFILE) {
        launch_id = g.next_launch_id++;
        g.profiled++;
    } else {
        g.filtered_out++;
    }
    pthread_mutex_unlock(&g.lock);
    if (verdict != GI_FILTER_PROFILE) {
        free(name);
        mark_unprofiled(dev);
        return;
    }
    note_kernel_name(mangled);
    if (!name)
        name = demangle(mangled);

    gm_launch_counters *k = &L->k;
    gm_launch_counters_init(k);
    if (!name || gm_launch_counters_set_names(k, name, mangled) != GM_OK) {
        free(name);
        gm_launch_counters_clear(k);
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return;
    }
    free(name);
    k->launch_id = launch_id;
    k->device = dev->ordinal;
    memcpy(k->grid, geo.grid, sizeof k->grid);
    memcpy(k->block, geo.block, sizeof k->block);
    function_resources(geo.f, geo.dynamic_shared, &k->regs_per_thread, &k->shared_bytes);
    L->launch_id = launch_id;

    int ok = g.pass == GI_PASS_COUNTERS ? gi_range_begin(dev, cb->context)
                                        : gi_sass_begin(dev, cb->context);
    if (!ok) {
        gm_launch_counters_clear(k);
        return;
    }
    L->action = GI_ACTION_PROFILE;
    L->entered_ns = gi_now_ns();
    if (!g.first_launch_ns)
        g.first_launch_ns = L->entered_ns;
}

static void launch_exit(const CUpti_CallbackData *cb)
{
    gi_launch *L = &tls_launch;
    if (L->action == GI_ACTION_NONE)
        return;
    gi_device *dev = L->dev;
    if (L->action == GI_ACTION_PROFILE) {
        dev->phase_ns[GI_PHASE_LAUNCH] += gi_now_ns() - L->entered_ns;
        const CUresult *rv = cb->functionReturnValue;
        int launch_ok = !rv || *rv == CUDA_SUCCESS;
        if (!launch_ok) {
            pthread_mutex_lock(&g.lock);
            g.failed_launches++;
            pthread_mutex_unlock(&g.lock);
        }
        if (g.pass == GI_PASS_COUNTERS)
            gi_range_end(dev, L, launch_ok);
        else
            gi_sass_end(dev, L, launch_ok);
        gm_launch_counters_clear(&L->k);
    }
    L->action = GI_ACTION_NONE;
    pthread_mutex_unlock(&dev->lock);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)userdata;
    if (getpid() != g.pid)
        return; /* a forked child: the parent's session is not ours */
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const CUpti_CallbackData *cb = data;
        if (cb->callbackSite == CUPTI_API_ENTER) {
            /* A launch made while this thread is inside one (by CUPTI or by
             * the collector) is not the program's: pass it through. */
            if (tls_depth++ == 0) {
                if (is_capture_begin(cbid)) {
                    tls_launch.action = GI_ACTION_NONE;
                    capture_begin(cb);
                } else {
                    launch_enter(cbid, cb);
                }
            }
        } else if (tls_depth > 0 && --tls_depth == 0) {
            launch_exit(cb);
        }
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RESOURCE)
        return;
    const CUpti_ResourceData *rd = data;
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
        on_context_created(rd->context);
        break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        on_context_destroy(rd->context);
        break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
        /* The counters pass keeps cubins only when gpuq asks (for the
         * opcode split from the disassembly). */
        if (g.cubin_dir[0] && !g.disabled && rd->resourceDescriptor)
            gi_sass_module_loaded(rd->resourceDescriptor);
        break;
    default:
        break;
    }
}

/* ---- end of the process ----------------------------------------------- */

static int lock_with_timeout(pthread_mutex_t *m)
{
    /* A thread the program left running may sit in a launch; exit must
     * not hang on it. */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 2;
    return pthread_mutex_timedlock(m, &t) == 0;
}

/* GPUQ_DEBUG=1: the timeline of the process as the collector saw it and
 * the time of each CUPTI call, so that the cost of profiling can be taken
 * apart (docs/profile.md quotes it). */
static void debug_report(uint64_t drain_end_ns)
{
    static const char *const call_names[GI_CALL_COUNT] = {
        "subscribe", "profiler init", "device support", "counter availability", "host init",
        "add metrics", "config image", "num passes", "range profiler enable", "image init",
        "set config", "first start", "start", "stop", "decode", "counter data info",
        "evaluate", "write row", "ctx synchronize", "range profiler disable", "host deinit",
        "profiler deinit", "sass setup", "sass enable", "sass flush", "save cubin",
        "nvperf preload (thread)", "nvperf preload wait"};
    uint64_t windows = 0;
    for (int i = 0; i < GI_MAX_DEVICES; i++)
        windows += g.devices[i].windows;
#define GI_SINCE(t) ((t) ? ((double)(t) - (double)g.init_ns) / 1e6 : -1.0)
    gi_note("[debug] timeline (ms since InitializeInjection): first context %.1f, device set up "
            "%.1f, first profiled launch %.1f, drain %.1f to %.1f; %" PRIu64 " launches profiled "
            "in %" PRIu64 " windows (GPUQ_BATCH %zu)",
            GI_SINCE(g.first_context_ns), GI_SINCE(g.setup_done_ns), GI_SINCE(g.first_launch_ns),
            GI_SINCE(g.drain_start_ns), GI_SINCE(drain_end_ns), g.profiled, windows, g.batch);
#undef GI_SINCE
    if (g.t0_ns) {
#define GI_FROM0(t) ((t) ? ((double)(t) - (double)g.t0_ns) / 1e6 : -1.0)
        gi_note("[debug] timeline (ms since gpuq started the program): InitializeInjection %.1f, "
                "ready %.1f, first context %.1f, device set up %.1f, first profiled launch %.1f, "
                "drain %.1f to %.1f",
                GI_FROM0(g.init_ns), GI_FROM0(g.ready_ns), GI_FROM0(g.first_context_ns),
                GI_FROM0(g.setup_done_ns), GI_FROM0(g.first_launch_ns), GI_FROM0(g.drain_start_ns),
                GI_FROM0(drain_end_ns));
#undef GI_FROM0
    }
    double total = 0;
    for (int c = 0; c < GI_CALL_COUNT; c++)
        total += (double)g.call_ns[c];
    gi_note("[debug] %-24s %7s %10s %10s", "call", "count", "total ms", "mean ms");
    for (int c = 0; c < GI_CALL_COUNT; c++)
        if (g.call_count[c])
            gi_note("[debug] %-24s %7" PRIu64 " %10.3f %10.4f", call_names[c], g.call_count[c],
                    (double)g.call_ns[c] / 1e6,
                    (double)g.call_ns[c] / 1e6 / (double)g.call_count[c]);
    gi_note("[debug] %-24s %7s %10.3f", "all timed calls", "", total / 1e6);
}

/* Closes every window, writes what was measured and releases CUPTI's
 * objects.  Runs once: at exit, at the first context's destruction in a
 * fork child (never), or in the flush thread after a fatal signal. */
static void drain(void)
{
    if (getpid() != g.pid)
        return;
    pthread_mutex_lock(&g.lock);
    if (g.drained) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.drained = 1;
    g.disabled = 1;
    g.drain_start_ns = gi_now_ns();
    pthread_mutex_unlock(&g.lock);

    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        gi_device *dev = &g.devices[i];
        if (!dev->setup_done)
            continue;
        if (!lock_with_timeout(&dev->lock)) {
            gi_note("device %d is still busy at exit; its profiler state is left as is", i);
            continue;
        }
        if (g.pass == GI_PASS_COUNTERS) {
            gi_range_device_teardown(dev);
        } else {
            pthread_mutex_lock(&g.contexts_lock);
            for (size_t c = 0; c < g.n_contexts; c++)
                if (g.contexts[c].device == i)
                    gi_sass_context_gone(&g.contexts[c]);
            pthread_mutex_unlock(&g.contexts_lock);
            gi_sass_device_teardown(dev);
        }
        pthread_mutex_unlock(&dev->lock);
    }
    if (g.profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
        uint64_t t0 = gi_now_ns();
        cuptiProfilerDeInitialize(&p);
        gi_call_done(GI_CALL_PROFILER_DEINIT, t0);
        g.profiler_initialized = 0;
    }
    pthread_mutex_lock(&g.lock);
    if (g.out) {
        fclose(g.out);
        g.out = NULL;
    }
    write_status_locked();
    pthread_mutex_unlock(&g.lock);
    gi_verbose("drained: %" PRIu64 " launches profiled, %" PRIu64 " rows written", g.profiled,
               g.rows_written);
    static const char *const phase_names[GI_PHASE_COUNT] = {"sync", "begin", "launch", "stop",
                                                            "evaluate", "reset", "write"};
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        const gi_device *dev = &g.devices[i];
        if (!dev->phase_launches)
            continue;
        char line[512];
        int used = snprintf(line, sizeof line, "device %d, mean per profiled launch (us):", i);
        for (int p = 0; p < GI_PHASE_COUNT && used > 0 && (size_t)used < sizeof line; p++)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s %.1f", phase_names[p],
                             dev->phase_ns[p] / 1e3 / (double)dev->phase_launches);
        gi_verbose("%s", line);
    }
    if (g.debug)
        debug_report(gi_now_ns());
}

/* ---- fatal signals ---------------------------------------------------- */

/* A window holds up to GPUQ_BATCH launches whose rows are not written yet.
 * exit() drains through atexit; a fatal signal (Ctrl-C, kill, abort(), a
 * crash) would lose them, so the collector handles the signals whose
 * default action ends the process, where the program left that default:
 * the handler wakes the flush thread, which drains (CUPTI calls are not
 * async-signal-safe, and the interrupted thread may hold any lock), waits
 * for it at most GI_SIGNAL_FLUSH_MS, then restores the default action and
 * re-raises the signal, so the program ends as it would have. */
#define GI_SIGNAL_FLUSH_MS 5000

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
                                    SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static void on_fatal_signal(int sig)
{
    int saved_errno = errno;
    /* Only the first signal flushes, and not from inside a launch callback
     * (that thread holds the device lock the flush needs). */
    if (getpid() == g.pid && !g.signal_seen && tls_depth == 0) {
        g.signal_seen = 1;
        char byte = (char)sig;
        if (write(g.signal_pipe[1], &byte, 1) == 1) {
            struct pollfd done = {g.flushed_pipe[0], POLLIN, 0};
            poll(&done, 1, GI_SIGNAL_FLUSH_MS);
        }
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* Pending until this handler returns; then the default action. */
    raise(sig);
    errno = saved_errno;
}

static void *flush_thread(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    char byte = 0;
    ssize_t n;
    while ((n = read(g.signal_pipe[0], &byte, 1)) < 0 && errno == EINTR)
        ;
    if (n == 1) {
        gi_verbose("signal %d: writing the open window's launches", (int)byte);
        drain();
        n = write(g.flushed_pipe[1], &byte, 1);
        (void)n;
    }
    return NULL;
}

static void install_signal_flush(void)
{
    if (pipe(g.signal_pipe) != 0 || pipe(g.flushed_pipe) != 0) {
        gi_verbose("no pipe for the signal flush (%s): a fatal signal loses the open window",
                   strerror(errno));
        return;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(g.signal_pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(g.flushed_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&thread, &attr, flush_thread, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        gi_verbose("no flush thread (%s): a fatal signal loses the open window", strerror(rc));
        return;
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue; /* the program's own handler, or ignored: left alone */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
    g.signal_flush_ready = 1;
}

static void before_fork(void)
{
    preload_join();
    /* No row is half-written in the stdio buffer when the child is made. */
    pthread_mutex_lock(&g.lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&g.lock);
}

static void after_fork_child(void)
{
    /* The child does not inherit the profiling session: it never writes the
     * parent's files (the pid check in every entry point) and its exit()
     * flushes an empty buffer. */
    pthread_mutex_init(&g.lock, NULL);
    g.disabled = 1;
}

/* ---- configuration and entry point ------------------------------------ */

static int read_path(const char *var, char *dst, int required)
{
    const char *v = getenv(var);
    if (!v || !v[0]) {
        if (required) {
            gi_stand_down(GI_ERROR_CONFIG, "%s is not set (run the program through 'gpuq profile')",
                          var);
            return 0;
        }
        dst[0] = '\0';
        return 1;
    }
    if (strlen(v) >= GI_PATH_MAX - 32) {
        gi_stand_down(GI_ERROR_CONFIG, "%s is too long", var);
        return 0;
    }
    snprintf(dst, GI_PATH_MAX, "%s", v);
    return 1;
}

static int read_config(void)
{
    const char *v = getenv("GPUQ_VERBOSE");
    g.verbose = v && v[0] ? atoi(v) : 0;
    /* The status path first, so that a configuration error is recorded. */
    if (!read_path("GPUQ_STATUS", g.status_path, 0) || !read_path("GPUQ_OUT", g.out_path, 1))
        return 0;
    v = getenv("GPUQ_PASS");
    if (!v || !v[0] || strcmp(v, "counters") == 0) {
        g.pass = GI_PASS_COUNTERS;
    } else if (strcmp(v, "sass") == 0) {
        g.pass = GI_PASS_SASS;
    } else {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_PASS='%s' is neither 'counters' nor 'sass'", v);
        return 0;
    }
    if (!read_path("GPUQ_CUBIN_DIR", g.cubin_dir, 0))
        return 0;
    if (g.pass == GI_PASS_SASS && !g.cubin_dir[0])
        snprintf(g.cubin_dir, sizeof g.cubin_dir, "%s.cubins", g.out_path);
    v = getenv("GPUQ_REPLAY");
    if (!v || !v[0] || strcmp(v, "auto") == 0)
        g.forced_replay = 0;
    else if (strcmp(v, "user") == 0)
        g.forced_replay = CUPTI_UserReplay;
    else if (strcmp(v, "kernel") == 0)
        g.forced_replay = CUPTI_KernelReplay;
    else {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_REPLAY='%s' is not auto, user or kernel", v);
        return 0;
    }
    v = getenv("GPUQ_BATCH");
    if (v && v[0]) {
        gm_error berr = {{0}};
        uint64_t batch = 0;
        if (gi_parse_count("GPUQ_BATCH", v, 1, &batch, &berr) != GM_OK || batch < 1 ||
            batch > GI_MAX_BATCH) {
            gi_stand_down(GI_ERROR_CONFIG, "GPUQ_BATCH='%s' is not a count of 1 to %d", v,
                          GI_MAX_BATCH);
            return 0;
        }
        g.batch = (size_t)batch;
    } else {
        g.batch = GI_DEFAULT_BATCH;
    }
    v = getenv("GPUQ_DEBUG");
    g.debug = v && v[0] && strcmp(v, "0") != 0;
    v = getenv("GPUQ_SASS_METRIC");
    snprintf(g.sass_metric, sizeof g.sass_metric, "%s", v && v[0] ? v : GI_SASS_DEFAULT_METRIC);
    v = getenv("GPUQ_COMMAND");
    snprintf(g.command, sizeof g.command, "%s", v ? v : "");

    gm_error err = {{0}};
    uint64_t skip = 0, count = 0;
    if (gi_parse_count("GPUQ_LAUNCH_SKIP", getenv("GPUQ_LAUNCH_SKIP"), 0, &skip, &err) != GM_OK ||
        gi_parse_count("GPUQ_LAUNCH_COUNT", getenv("GPUQ_LAUNCH_COUNT"), 0, &count, &err) != GM_OK ||
        gi_filter_init(&g.filter, getenv("GPUQ_KERNEL_REGEX"), skip, count, &err) != GM_OK) {
        gi_stand_down(GI_ERROR_CONFIG, "%s", err.msg);
        return 0;
    }
    return 1;
}

/* libcupti dlopen()s libnvperf_host.so by name; the collector's rpath does
 * not apply to that, so load it from CUPTI's directory first when the
 * loader's search path does not have it. */
static void preload_nvperf(void)
{
    uint64_t t0 = gi_now_ns();
    static const char *const libs[] = {"libnvperf_host.so", "libnvperf_target.so"};
    for (size_t i = 0; i < 2; i++) {
        if (dlopen(libs[i], RTLD_NOW | RTLD_GLOBAL))
            continue;
#ifdef GPUQ_CUPTI_LIBDIR
        char path[GI_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", GPUQ_CUPTI_LIBDIR, libs[i]);
        if (dlopen(path, RTLD_NOW | RTLD_GLOBAL))
            continue;
#endif
        gi_verbose("%s not found by the loader; CUPTI may fail to evaluate metrics", libs[i]);
    }
    gi_call_done(GI_CALL_PRELOAD, t0);
}

/* Loading the two NVIDIA perf libraries takes about 0.1 s (H200), which a
 * thread does while the program's cuInit returns and its first context is
 * made; the first device set-up waits for it (preload_join). */
static pthread_t preload_thread;
static int preload_running;
static pthread_mutex_t preload_lock = PTHREAD_MUTEX_INITIALIZER;

static void *preload_main(void *arg)
{
    (void)arg;
    preload_nvperf();
    return NULL;
}

static void preload_start(void)
{
    if (pthread_create(&preload_thread, NULL, preload_main, NULL) == 0)
        preload_running = 1;
    else
        preload_nvperf();
}

/* Also before fork(): a child must not inherit the loader's lock held by a
 * thread that does not exist in it. */
static void preload_join(void)
{
    pthread_mutex_lock(&preload_lock);
    if (preload_running) {
        uint64_t t0 = gi_now_ns();
        pthread_join(preload_thread, NULL);
        preload_running = 0;
        gi_call_done(GI_CALL_PRELOAD_WAIT, t0);
    }
    pthread_mutex_unlock(&preload_lock);
}

static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    /* Not launches: a capture closes the counters window before it begins. */
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
};

static void initialize_once(void)
{
    g.init_ns = gi_now_ns();
    g.pid = getpid();
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        pthread_mutex_init(&g.devices[i].lock, NULL);
        g.devices[i].ordinal = i;
    }
    const char *t0_env = getenv("GPUQ_T0_NS");
    if (t0_env)
        g.t0_ns = strtoull(t0_env, NULL, 10);
    if (!read_config())
        return;

    /* Only the driver API domain: the runtime's launches reach cuLaunchKernel
     * too, and subscribing to both would count them twice. */
    char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {0};
    CUpti_SubscriberParams sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    sp.subscriberName = "gpuq";
    sp.oldSubscriberName = old_name;
    sp.oldSubscriberSize = sizeof old_name;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiSubscribe_v2(&g.subscriber, on_callback, NULL, &sp);
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        gi_stand_down(GI_ERROR_BUSY,
                      "another CUPTI tool (%s) is already attached to this program; gpuq cannot "
                      "profile it at the same time (do not run gpuq under nsys, ncu or a profiler "
                      "that the program starts itself)",
                      old_name[0] ? old_name : "unnamed");
        return;
    }
    if (rc != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiSubscribe_v2", rc);
        return;
    }
    g.subscribed = 1;
    if ((rc = cuptiEnableDomain(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE)) != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiEnableDomain(resource)", rc);
        return;
    }
    for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++) {
        rc = cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids[i]);
        if (rc != CUPTI_SUCCESS) {
            gi_cupti_failed("cuptiEnableCallback", rc);
            return;
        }
    }
    gi_call_done(GI_CALL_SUBSCRIBE, t0);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    preload_start();
    atexit(drain);
    if (g.pass == GI_PASS_COUNTERS && g.batch > 1)
        install_signal_flush();
    g.ready_ns = gi_now_ns();
    gi_verbose("collector ready: pass %s, output '%s'", g.pass == GI_PASS_SASS ? "sass" : "counters",
               g.out_path);
}

/* GPUQ_DEBUG: the end of the timeline (what the program's teardown costs
 * after the drain). */
__attribute__((destructor)) static void debug_unloaded(void)
{
    if (g.debug && g.t0_ns && getpid() == g.pid)
        gi_note("[debug] collector unloaded at %.1f ms since gpuq started the program",
                ((double)gi_now_ns() - (double)g.t0_ns) / 1e6);
}

/* Called by libcuda inside the program's cuInit, before any context exists,
 * when CUDA_INJECTION64_PATH names this library. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_once);
    return 1;
}
