/* Launch tracking: the driver API callbacks of kernel launches, graph
 * launches and stream captures, the filter, and handing a selected launch to
 * the pass (collector_range.c or collector_sass.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector_internal.h"
#include "collector_range.h"
#include "collector_sass.h"

#define g g_collector

/* The C++ runtime's demangler (libstdc++), declared here so that the
 * collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

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
    gi_device *dev = gi_device_of(cb->context);
    if (!dev)
        return;
    pthread_mutex_lock(&dev->lock);
    L->action = GI_ACTION_HOLD;
    L->dev = dev;
    L->ctx = cb->context;
    if (!dev->setup_done) {
        dev->ordinal = (int)(dev - g.devices);
        gi_device_setup(dev, cb->context);
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
            gi_write_status_locked();
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

void CUPTIAPI gi_on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
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
        gi_on_context_created(rd->context);
        break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        gi_on_context_destroy(rd->context);
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

int gi_in_launch_callback(void)
{
    return tls_depth != 0;
}
