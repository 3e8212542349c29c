/* Launch tracking: the driver API callbacks of kernel launches, graph
 * launches and stream captures, the filter, and handing a selected launch to
 * the pass (collector_range.c or collector_sass.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector_graph.h"
#include "collector_internal.h"
#include "collector_range.h"
#include "collector_repeat.h"
#include "collector_sass.h"

#define g g_collector

/* The C++ runtime's demangler (libstdc++), declared here so that the
 * collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *gi_demangle(const char *mangled)
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

/* Whether a launch on stream goes into a stream capture (it then runs only
 * when the graph does).  cuStreamIsCapturing is one of the calls the CUDA
 * programming guide allows during a capture.  The legacy stream (NULL, or
 * CU_STREAM_LEGACY) is not asked: while a blocking stream captures, the
 * question itself is an error there; such a launch is the program's own
 * capture error, and the collector only counts it. */
static int stream_is_capturing(CUstream stream, int per_thread)
{
    if (!stream && per_thread)
        stream = CU_STREAM_PER_THREAD;
    if (!stream || stream == CU_STREAM_LEGACY)
        return 0;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return 0;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

static int is_ptsz(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

/* An unprofiled kernel is about to run on dev (device lock held): the open
 * window closes first, so that the kernel does not fall into it, and the
 * next window waits for the kernel.  While a capture is in progress no
 * window is open (capture_begin closed it) and none may be closed. */
/* GPUs of this process the collector has set up (at their first context). */
static int devices_set_up(void)
{
    int n = 0;
    for (int i = 0; i < GI_MAX_DEVICES; i++)
        n += g.devices[i].setup_done != 0;
    return n;
}

static void mark_unprofiled(gi_device *dev)
{
    if (g.pass == GI_PASS_COUNTERS && dev->window_open && dev->captures_active == 0)
        gi_range_flush(dev);
    dev->dirty = 1;
}

/* An NCCL kernel waits for its peers.  It cannot be measured where the
 * peers would have to run while the launch call is held: in a process that
 * drives several GPUs, the peers are launched by this thread after the call
 * returns (on 2 x H100, cuptiRangeProfilerDecodeData failed with CUPTI
 * error 999 and the program's all-reduce failed); under kernel replay
 * (several passes) the kernel reruns inside its launch, and its peers, in
 * this or another process, do not rerun with it (2 x H100, one process per
 * GPU, 5 passes: both ranks hung in the all-reduce; docs/profile.md,
 * "Several GPUs").  The SASS pass replays nothing, but it waits for each
 * instrumented kernel at the launch's exit: with several GPUs in the
 * process that wait never ends either (2 x H100: the second run hung). */
static int collective_unmeasurable(const gi_device *dev)
{
    if (devices_set_up() > 1)
        return 1;
    return g.pass == GI_PASS_COUNTERS && dev->replay == CUPTI_KernelReplay;
}

/* The row of a collective kernel that collective_unmeasurable() holds back
 * (counters pass; the SASS pass only skips it):
 * its name, geometry and device, no counters (the model reports it with
 * empty fields), and one note saying why. */
static void list_collective(gi_device *dev, gm_launch_counters *k)
{
    if (g.pass != GI_PASS_COUNTERS) {
        gm_launch_counters_clear(k);
        return;
    }
    gi_write_row(dev, k);
    gm_launch_counters_clear(k);
    pthread_mutex_lock(&g.lock);
    g.collective_skipped++;
    int first = !g.collective_note_printed;
    g.collective_note_printed = 1;
    pthread_mutex_unlock(&g.lock);
    if (first)
        gi_note("NCCL kernels are listed without counters: %s",
                devices_set_up() > 1
                    ? "in a process that drives several GPUs each waits for peers this process "
                      "launches later (one process per GPU with one pass gets them measured)"
                    : "kernel replay would rerun them without their peers (a metric set that "
                      "fits one pass, often one --section's, gets them measured)");
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

static int is_capture_end(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
}

/* The device of a context without standing down (capture calls must never
 * stop the program's work, whatever CUPTI says). */
static gi_device *device_quiet(CUcontext ctx)
{
    uint32_t id = 0;
    if (!ctx || cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS || id >= GI_MAX_DEVICES)
        return NULL;
    return &g.devices[id];
}

/* Every capture call's first parameter is the stream. */
static CUstream capture_stream(CUpti_CallbackId cbid, const void *params)
{
    CUstream s = params ? *(const CUstream *)params : NULL;
    if (!s && (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz ||
               cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz))
        s = CU_STREAM_PER_THREAD;
    return s;
}

static void capture_forget(gi_device *dev, CUstream stream)
{
    for (size_t i = 0; i < dev->captures_active; i++)
        if (dev->capture_streams[i] == stream) {
            dev->capture_streams[i] = dev->capture_streams[--dev->captures_active];
            return;
        }
}

/* A stream capture is about to begin: the open window closes now, while
 * its Decode may still synchronize, and the capture is recorded before the
 * device lock is released, so that no window opens until it ends.  Tracked
 * even after the collector stood down (the drain must not synchronize
 * during a capture either). */
static void capture_begin(CUpti_CallbackId cbid, const CUpti_CallbackData *cb, gi_launch *L)
{
    L->action = GI_ACTION_NONE;
    gi_device *dev = device_quiet(cb->context);
    if (!dev || g.drained)
        return;
    L->stream = capture_stream(cbid, cb->functionParams);
    pthread_mutex_lock(&dev->lock);
    if (dev->window_open && dev->captures_active == 0 && !g.disabled)
        gi_range_flush(dev);
    if (dev->captures_active < GI_MAX_CAPTURES) {
        dev->capture_streams[dev->captures_active++] = L->stream;
        L->action = GI_ACTION_CAPTURE_BEGIN;
        L->dev = dev;
    } else {
        /* Untracked: count it as if it stayed active until exit. */
        gi_verbose("more than %d captures in progress on device %d", GI_MAX_CAPTURES,
                   (int)(dev - g.devices));
    }
    pthread_mutex_unlock(&dev->lock);
}

static void capture_begin_exit(const CUpti_CallbackData *cb, gi_launch *L)
{
    const CUresult *rv = cb->functionReturnValue;
    if (rv && *rv != CUDA_SUCCESS) {
        /* No capture began: forget it. */
        pthread_mutex_lock(&L->dev->lock);
        capture_forget(L->dev, L->stream);
        pthread_mutex_unlock(&L->dev->lock);
    }
}

/* cuStreamEndCapture ends the capture whatever it returns (an invalidated
 * capture also ends there). */
static void capture_end_exit(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    gi_device *dev = device_quiet(cb->context);
    if (!dev)
        return;
    CUstream stream = capture_stream(cbid, cb->functionParams);
    pthread_mutex_lock(&dev->lock);
    capture_forget(dev, stream);
    pthread_mutex_unlock(&dev->lock);
}

static void count_skipped(void)
{
    pthread_mutex_lock(&g.lock);
    g.launches_seen++;
    g.capture_skipped++;
    pthread_mutex_unlock(&g.lock);
}


pid_t gi_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Per-thread state of the launch callbacks, without thread-local storage
 * in this library: a library with TLS of the initial-exec model (ELF flag
 * STATIC_TLS) takes glibc's static TLS surplus when libcuda dlopen()s it,
 * and in a process that loaded many libraries first (a Hugging Face script:
 * torch, triton, pandas, sklearn, ...) that surplus is used up, dlopen fails
 * with "cannot allocate memory in static TLS block" and CUDA runs the
 * program without the collector.  So each thread's state lives on the heap,
 * found through a pthread key (freed when the thread ends), and the test
 * inject_static_tls (tests/profile/static_tls.sh) fails if STATIC_TLS
 * comes back. */
typedef struct gi_thread_state {
    int depth;          /* nesting of the launch callbacks on this thread */
    int slot;           /* its entry in inside_tids while depth > 0, or -1 */
    pid_t tid;
    gi_nvtx_thread nvtx;
    gi_launch launch;
} gi_thread_state;

static pthread_key_t state_key;
static int state_key_ok;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

static void free_state(void *p)
{
    gi_thread_state *ts = p;
    if (ts)
        gm_launch_counters_clear(&ts->launch.k);
    free(p);
}

static void make_state_key(void)
{
    state_key_ok = pthread_key_create(&state_key, free_state) == 0;
}

/* NULL when out of memory: the thread's launches then pass through. */
static gi_thread_state *thread_state(void)
{
    pthread_once(&state_once, make_state_key);
    if (!state_key_ok)
        return NULL;
    gi_thread_state *ts = pthread_getspecific(state_key);
    if (ts)
        return ts;
    ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    ts->slot = -1;
    ts->tid = gi_gettid();
    if (pthread_setspecific(state_key, ts) != 0) {
        free(ts);
        return NULL;
    }
    return ts;
}

gi_nvtx_thread *gi_thread_nvtx(void)
{
    gi_thread_state *ts = thread_state();
    return ts ? &ts->nvtx : NULL;
}

/* The threads inside a launch callback, for the fatal-signal handler, which
 * may neither allocate nor take a lock (gi_in_launch_callback): a lock-free
 * table of thread ids, a thread's entry claimed at depth 0 -> 1 and cleared
 * at 1 -> 0.  More threads inside at once than slots are counted in
 * inside_untracked, which makes every thread read as inside (the handler
 * then skips the flush: the open window is lost, no deadlock). */
#define GI_INSIDE_SLOTS 256
static _Atomic pid_t inside_tids[GI_INSIDE_SLOTS];
static _Atomic int inside_untracked;

static void mark_inside(gi_thread_state *ts)
{
    unsigned start = (unsigned)ts->tid % GI_INSIDE_SLOTS;
    for (unsigned i = 0; i < GI_INSIDE_SLOTS; i++) {
        unsigned s = (start + i) % GI_INSIDE_SLOTS;
        pid_t expected = 0;
        if (atomic_compare_exchange_strong(&inside_tids[s], &expected, ts->tid)) {
            ts->slot = (int)s;
            return;
        }
    }
    ts->slot = -1;
    atomic_fetch_add(&inside_untracked, 1);
}

static void mark_outside(gi_thread_state *ts)
{
    if (ts->slot >= 0)
        atomic_store(&inside_tids[ts->slot], 0);
    else
        atomic_fetch_sub(&inside_untracked, 1);
    ts->slot = -1;
}

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


static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb, gi_launch *L)
{
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
    if (!dev->setup_done && dev->captures_active == 0) {
        dev->ordinal = (int)(dev - g.devices);
        gi_device_setup(dev, cb->context);
    }
    if (g.disabled)
        return;

    if (g.nvtx_include[0] && !gi_nvtx_inside()) {
        /* --nvtx-include: outside the range, neither profiled nor counted
         * by -s/-c (as Nsight Compute's --nvtx-include) */
        mark_unprofiled(dev);
        pthread_mutex_lock(&g.lock);
        g.nvtx_outside++;
        pthread_mutex_unlock(&g.lock);
        return;
    }
    if (is_graph_launch(cbid)) {
        const cuGraphLaunch_params *gp = cb->functionParams;
        pthread_mutex_lock(&g.lock);
        g.graph_launches++;
        uint64_t seq = g.next_graph_seq++;
        pthread_mutex_unlock(&g.lock);
        if (gp && stream_is_capturing(gp->hStream, is_ptsz(cbid))) {
            /* A child graph of a capture: it runs when that graph does. */
            pthread_mutex_lock(&g.lock);
            g.graph_captured++;
            pthread_mutex_unlock(&g.lock);
            return;
        }
        if (!dev->setup_ok || dev->captures_active > 0) {
            dev->dirty = 1;
            if (dev->captures_active > 0)
                gi_graph_not_profiled(gp ? gp->hGraph : NULL, seq,
                                      "a stream capture was in progress on the device");
            return;
        }
        if (gp && gi_graph_launch_begin(dev, cb->context, gp->hGraph, seq, L)) {
            L->action = GI_ACTION_GRAPH;
            L->entered_ns = gi_now_ns();
            return;
        }
        if (!g.disabled)
            mark_unprofiled(dev);
        return;
    }
    if (!dev->setup_ok)
        return;

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
    if (stream_is_capturing(geo.stream, is_ptsz(cbid))) {
        /* Captured into a graph, not executed now. */
        pthread_mutex_lock(&g.lock);
        g.captured_launches++;
        pthread_mutex_unlock(&g.lock);
        return;
    }
    if (dev->captures_active > 0) {
        /* Runs now, but another stream of the device is capturing: no
         * window may open (module comment, gi_device.captures_active). */
        dev->dirty = 1;
        count_skipped();
        return;
    }

    const char *mangled = cb->symbolName ? cb->symbolName : "(unnamed kernel)";
    char *name = g.filter.has_regex ? gi_demangle(mangled) : NULL;
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
        name = gi_demangle(mangled);
    int collective = gi_is_collective_kernel(mangled) && collective_unmeasurable(dev);

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
    if (collective) {
        /* Listed, not measured: a row without counters, in launch order
         * (the window before it was flushed first). */
        mark_unprofiled(dev);
        list_collective(dev, k);
        return;
    }

    int ok = g.pass == GI_PASS_COUNTERS
                 ? gi_range_begin(dev, cb->context, gi_repeat_wants(dev, k))
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

static void launch_exit(const CUpti_CallbackData *cb, gi_launch *L)
{
    if (L->action == GI_ACTION_NONE)
        return;
    gi_device *dev = L->dev;
    const CUresult *rv = cb->functionReturnValue;
    int launch_ok = !rv || *rv == CUDA_SUCCESS;
    if (L->action == GI_ACTION_PROFILE) {
        dev->phase_ns[GI_PHASE_LAUNCH] += gi_now_ns() - L->entered_ns;
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
    } else if (L->action == GI_ACTION_GRAPH) {
        gi_graph_launch_end(dev, L, launch_ok);
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
        gi_thread_state *ts = thread_state();
        if (!ts)
            return;
        gi_launch *L = &ts->launch;
        if (cb->callbackSite == CUPTI_API_ENTER) {
            /* A call made while this thread is inside one (by CUPTI or by
             * the collector) is not the program's: pass it through. */
            if (ts->depth++ == 0) {
                mark_inside(ts);
                if (is_capture_begin(cbid)) {
                    capture_begin(cbid, cb, L);
                } else if (is_capture_end(cbid)) {
                    L->action = GI_ACTION_CAPTURE_END;
                } else if (gi_graph_is_instantiate(cbid) || gi_graph_is_exec_destroy(cbid)) {
                    L->action = GI_ACTION_NONE;
                    if (gi_graph_is_exec_destroy(cbid))
                        gi_graph_exec_destroyed(cb);
                } else {
                    launch_enter(cbid, cb, L);
                }
            }
        } else if (ts->depth > 0 && --ts->depth == 0) {
            if (is_capture_begin(cbid)) {
                if (L->action == GI_ACTION_CAPTURE_BEGIN)
                    capture_begin_exit(cb, L);
                L->action = GI_ACTION_NONE;
            } else if (is_capture_end(cbid)) {
                capture_end_exit(cbid, cb);
                L->action = GI_ACTION_NONE;
            } else if (gi_graph_is_instantiate(cbid)) {
                gi_graph_instantiated(cbid, cb);
            } else if (!gi_graph_is_exec_destroy(cbid)) {
                launch_exit(cb, L);
            }
            mark_outside(ts);
        }
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_NVTX) {
        gi_nvtx_on_callback(cbid, data);
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
        /* The counters pass keeps cubins only when gpuq asks (for a code
         * pass to read the kernels' code). */
        if (g.cubin_dir[0] && !g.disabled && rd->resourceDescriptor)
            gi_sass_module_loaded(rd->resourceDescriptor);
        break;
    default:
        break;
    }
}

/* Async-signal-safe: a system call and atomic loads. */
int gi_in_launch_callback(void)
{
    if (atomic_load(&inside_untracked) > 0)
        return 1;
    pid_t tid = gi_gettid();
    for (unsigned i = 0; i < GI_INSIDE_SLOTS; i++)
        if (atomic_load(&inside_tids[i]) == tid)
            return 1;
    return 0;
}
