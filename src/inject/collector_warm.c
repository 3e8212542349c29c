/* GPUQ_EARLY_START=1 (off by default): an experiment on the fixed cost of
 * a profiled run.  The first cuptiRangeProfilerStart of a process costs
 * about 200 ms on GH100, later ones about 1.6 ms (docs/profile.md, "Where
 * the 0.3 s goes"); it is paid at the program's first profiled launch,
 * right after the program's own context creation, so nothing hides it.
 *
 * With the switch, a thread started in InitializeInjection waits until the
 * program's cuInit has finished, creates a context of its own on device 0
 * (never the primary context: the program's cudaSetDeviceFlags and its
 * primary context are untouched), sets the device up there and runs one
 * empty window on it (Enable, SetConfig, Start, Stop, Decode, Disable), then
 * destroys that context.  All of it overlaps the program's own context
 * creation and start-up.  If the first Start's cost belongs to the process
 * or the device, the program's first window then starts at the cost of a
 * later one; if it belongs to the context, nothing is gained, and GPUQ_DEBUG
 * shows which ("first start" against "early start (thread)").
 *
 * What the program can see: a second context on device 0 for a few hundred
 * milliseconds at its start (its memory: a program that reads the free
 * memory then sees less), and the device's set-up done on that thread.  No
 * call on the program's contexts, no synchronization of them.  The
 * program's first profiled launch on device 0 waits for the warm-up's
 * window (bounded), as it would wait for its own first Start, once the
 * thread's context exists and the device is set up; a launch that comes
 * earlier tells the thread to make no profiler call and goes on.  A stream
 * capture's begin waits until the thread has destroyed its context, so
 * that none of its calls falls inside a capture (in global mode another
 * thread's unsafe call invalidates it).  Device 0 only: a program on
 * another device gains nothing and device 0's gpuq lock is held until exit.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector_warm.h"

#define g g_collector

/* The driver must be initialized by the program's cuInit, which is running
 * when the thread starts; the thread polls for it, at most this long. */
#define GI_WARM_INIT_WAIT_MS 10000
/* A launch waits at most this long for the warm-up, and so does the exit. */
#define GI_WARM_WAIT_MS 10000

/* RUNNING: the thread works; PROFILER_FREE: its range profiler is disabled
 * (a launch may enable the program's); DONE: its context is destroyed too. */
enum { WARM_NONE = 0, WARM_RUNNING, WARM_PROFILER_FREE, WARM_DONE };

static struct {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    int state;
    int abort;        /* set by a launch that came first, or by the exit */
    int window_begun; /* the thread enabled (or will enable) the range profiler */
    int dev_ready;    /* device 0 is set up (by either thread): no dev->lock needed */
    pthread_t thread;
    uint64_t driver_ns, ctx_ns, start_ns, done_ns, destroyed_ns;
    char failed[160];
} w = {.lock = PTHREAD_MUTEX_INITIALIZER, .done_cond = PTHREAD_COND_INITIALIZER};

static _Thread_local int warm_self __attribute__((tls_model("initial-exec")));

int gi_warm_is_self(void)
{
    return warm_self;
}

static void set_state(int state)
{
    pthread_mutex_lock(&w.lock);
    w.state = state;
    if (state == WARM_PROFILER_FREE)
        w.done_ns = gi_now_ns();
    else
        w.destroyed_ns = gi_now_ns();
    pthread_cond_broadcast(&w.done_cond);
    pthread_mutex_unlock(&w.lock);
}

static void finish(void)
{
    set_state(WARM_DONE);
}

static int aborted(void)
{
    pthread_mutex_lock(&w.lock);
    int a = w.abort;
    pthread_mutex_unlock(&w.lock);
    return a;
}

static void why(const char *call, int rc)
{
    snprintf(w.failed, sizeof w.failed, "%s returned %d", call, rc);
}

/* One empty window on the collector's own context: Start's first call. */
static void warm_window(gi_device *dev, CUcontext ctx)
{
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = ctx;
    CUptiResult rc = cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerEnable", rc);
        return;
    }
    CUpti_RangeProfiler_Object *rp = ep.pRangeProfilerObject;
    uint8_t *image = NULL;

    CUpti_RangeProfiler_GetCounterDataSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    sz.pRangeProfilerObject = rp;
    sz.pMetricNames = dev->metric_names;
    sz.numMetrics = dev->n_metrics;
    sz.maxNumOfRanges = dev->range_capacity;
    sz.maxNumRangeTreeNodes = (uint32_t)dev->range_capacity;
    if ((rc = cuptiRangeProfilerGetCounterDataSize(&sz)) != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerGetCounterDataSize", rc);
        goto out;
    }
    image = calloc(1, sz.counterDataSize);
    if (!image) {
        why("calloc", 0);
        goto out;
    }
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ii;
    memset(&ii, 0, sizeof ii);
    ii.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ii.pRangeProfilerObject = rp;
    ii.counterDataSize = sz.counterDataSize;
    ii.pCounterData = image;
    if ((rc = cuptiRangeProfilerCounterDataImageInitialize(&ii)) != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerCounterDataImageInitialize", rc);
        goto out;
    }
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = rp;
    sc.configSize = dev->config_size;
    sc.pConfig = dev->config;
    sc.counterDataImageSize = sz.counterDataSize;
    sc.pCounterDataImage = image;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = dev->replay;
    sc.maxRangesPerPass = dev->range_capacity;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    if ((rc = cuptiRangeProfilerSetConfig(&sc)) != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerSetConfig", rc);
        goto out;
    }
    CUpti_RangeProfiler_Start_Params st;
    memset(&st, 0, sizeof st);
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = rp;
    w.start_ns = gi_now_ns();
    rc = cuptiRangeProfilerStart(&st);
    gi_call_done(GI_CALL_WARM_START, w.start_ns);
    if (rc != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerStart", rc);
        goto out;
    }
    CUpti_RangeProfiler_Stop_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = rp;
    if ((rc = cuptiRangeProfilerStop(&sp)) != CUPTI_SUCCESS) {
        why("cuptiRangeProfilerStop", rc);
        goto out;
    }
    /* Decode synchronizes the collector's own context, which ran nothing. */
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = rp;
    if ((rc = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS)
        why("cuptiRangeProfilerDecodeData", rc);
out:;
    CUpti_RangeProfiler_Disable_Params dis;
    memset(&dis, 0, sizeof dis);
    dis.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    dis.pRangeProfilerObject = rp;
    if ((rc = cuptiRangeProfilerDisable(&dis)) != CUPTI_SUCCESS && !w.failed[0])
        why("cuptiRangeProfilerDisable", rc);
    free(image);
}

static void *warm_main(void *arg)
{
    (void)arg;
    warm_self = 1;
    /* Block the signals the collector's flush thread handles: they are the
     * program's, not this thread's to receive. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);

    int count = 0;
    uint64_t t0 = gi_now_ns();
    while (cuDeviceGetCount(&count) != CUDA_SUCCESS) {
        if (aborted() || g.disabled || gi_now_ns() - t0 > (uint64_t)GI_WARM_INIT_WAIT_MS * 1000000u) {
            why("waiting for the program's cuInit", 0);
            finish();
            return NULL;
        }
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
    w.driver_ns = gi_now_ns();
    CUdevice cu_dev;
    if (count < 1 || aborted() || cuDeviceGet(&cu_dev, 0) != CUDA_SUCCESS) {
        why("cuDeviceGet", count);
        finish();
        return NULL;
    }
    CUctxCreateParams params;
    memset(&params, 0, sizeof params);
    CUcontext ctx = NULL;
    uint64_t tc = gi_now_ns();
    CUresult crc = cuCtxCreate(&ctx, &params, 0, cu_dev);
    gi_call_done(GI_CALL_WARM_CTX, tc);
    if (crc != CUDA_SUCCESS) {
        why("cuCtxCreate", crc);
        finish();
        return NULL;
    }
    gi_device *dev = &g.devices[0];
    pthread_mutex_lock(&w.lock);
    w.ctx_ns = gi_now_ns();
    pthread_mutex_unlock(&w.lock);
    /* The device is set up here unless the program's first context did it;
     * then a launch may hold dev->lock while it waits for this thread, so
     * the lock is only tried. */
    for (;;) {
        if (pthread_mutex_trylock(&dev->lock) == 0) {
            gi_device_setup(dev, ctx);
            pthread_mutex_unlock(&dev->lock);
            break;
        }
        pthread_mutex_lock(&w.lock);
        int ready_elsewhere = w.dev_ready;
        pthread_mutex_unlock(&w.lock);
        if (ready_elsewhere)
            break;
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    int ready = dev->setup_ok && !g.disabled;
    /* The window is begun unless a launch reached the range profiler
     * before this context existed (gi_warm_wait). */
    pthread_mutex_lock(&w.lock);
    ready = ready && !w.abort;
    w.window_begun = ready;
    pthread_mutex_unlock(&w.lock);
    /* The device's configuration stays as set up: nothing below writes it. */
    if (ready)
        warm_window(dev, ctx);
    else if (!w.failed[0])
        why(g.disabled || !dev->setup_ok ? "device set-up" : "a launch came first", 0);
    set_state(WARM_PROFILER_FREE);
    tc = gi_now_ns();
    cuCtxDestroy(ctx);
    gi_call_done(GI_CALL_WARM_CTX, tc);
    finish();
    return NULL;
}

void gi_warm_start(void)
{
    const char *on = getenv("GPUQ_EARLY_START");
    if (!on || strcmp(on, "1") != 0)
        return;
    pthread_mutex_lock(&w.lock);
    if (pthread_create(&w.thread, NULL, warm_main, NULL) == 0)
        w.state = WARM_RUNNING;
    pthread_mutex_unlock(&w.lock);
    if (w.state == WARM_RUNNING)
        pthread_detach(w.thread);
}

/* Waits until the state is at least `state` (at most GI_WARM_WAIT_MS).  A
 * launch waits for the warm-up's window if it has begun, or if the thread's
 * context exists and the device is set up (then the thread needs no lock
 * the launch holds, and the window's first Start is under way or about to
 * be); else the thread is told to make no profiler call, and the launch
 * goes on.  1 when reached. */
static int wait_state(int state, gi_call call)
{
    pthread_mutex_lock(&w.lock);
    int coming = w.window_begun || (w.ctx_ns && w.dev_ready && !w.abort);
    if (!coming)
        w.abort = 1;
    int ok = 1;
    int need = coming || state == WARM_DONE;
    if (need && w.state != WARM_NONE && w.state < state) {
        uint64_t t0 = gi_now_ns();
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += GI_WARM_WAIT_MS / 1000;
        while (w.state < state)
            if (pthread_cond_timedwait(&w.done_cond, &w.lock, &until) != 0)
                break;
        ok = w.state >= state;
        gi_call_done(call, t0);
    }
    pthread_mutex_unlock(&w.lock);
    return ok;
}

void gi_warm_wait(gi_device *dev)
{
    if (dev->ordinal == 0 && !wait_state(WARM_PROFILER_FREE, GI_CALL_WARM_WAIT))
        gi_note("the range profiler's warm-up (GPUQ_EARLY_START) still runs after %d s",
                GI_WARM_WAIT_MS / 1000);
}

void gi_warm_before_capture(void)
{
    pthread_mutex_lock(&w.lock);
    int idle = w.state == WARM_NONE || w.state == WARM_DONE;
    if (!idle && !w.window_begun)
        w.abort = 1;
    pthread_mutex_unlock(&w.lock);
    if (!idle && !wait_state(WARM_DONE, GI_CALL_WARM_WAIT))
        gi_note("the range profiler's warm-up (GPUQ_EARLY_START) still runs after %d s; a "
                "stream capture begins meanwhile", GI_WARM_WAIT_MS / 1000);
}

void gi_warm_device_ready(const gi_device *dev)
{
    if (dev->ordinal != 0)
        return;
    pthread_mutex_lock(&w.lock);
    w.dev_ready = 1;
    pthread_mutex_unlock(&w.lock);
}

int gi_warm_finish(void)
{
    pthread_mutex_lock(&w.lock);
    if (!w.window_begun)
        w.abort = 1;
    pthread_mutex_unlock(&w.lock);
    if (wait_state(WARM_DONE, GI_CALL_WARM_WAIT))
        return 1;
    /* Its window may be open still; its context is its own. */
    gi_note("the range profiler's warm-up (GPUQ_EARLY_START) still runs at exit; device 0's "
            "profiler state is left as is");
    return 0;
}

void gi_warm_debug(void)
{
    if (w.state == WARM_NONE || !g.t0_ns)
        return;
#define GI_FROM0(t) ((t) ? ((double)(t) - (double)g.t0_ns) / 1e6 : -1.0)
    gi_note("[debug] early start (ms since gpuq started the program): driver ready %.1f, own "
            "context %.1f, its Start %.1f, warm-up done %.1f, context destroyed %.1f%s%s",
            GI_FROM0(w.driver_ns), GI_FROM0(w.ctx_ns), GI_FROM0(w.start_ns), GI_FROM0(w.done_ns),
            GI_FROM0(w.destroyed_ns), w.failed[0] ? "; stopped: " : "", w.failed);
#undef GI_FROM0
}
