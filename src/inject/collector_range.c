/* The counters pass: the paper's Table 1 quantities (Sec. 3.3), as Hopper
 * names them in gm_metric_table[], through CUPTI's range profiler.
 *
 * One range per kernel (AutoRange).  A window (SetConfig + Start) opens at
 * the API ENTER of a profiled launch and stays open for up to GPUQ_BATCH
 * launches: a Start after the first costs about 1.6 ms on GH100 (the first
 * about 200 ms; docs/profile.md), so it is paid once per batch, not once
 * per launch.
 * Each launch of the window is its own auto range, in launch order: the
 * device lock serializes the launch calls and the auto range serializes the
 * kernels.  The window closes (Stop, Decode, Evaluate per range, one row
 * per launch) when it is full, and before anything that must not fall into
 * it: an unprofiled launch, a graph launch, a stream capture, another
 * context; and at context destruction, exit and fatal signals.  The number
 * of ranges must equal the number of launches; if not, the window's rows
 * get no counters and later windows hold one launch each.
 * The hardware metrics fit in one pass on GH100, which UserReplay collects
 * without replaying anything; if the chip needs more passes, KernelReplay
 * replays each kernel inside its launch (saving and restoring memory).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector_internal.h"
#include "collector_host.h"
#include "collector_range.h"
#include "collector_repeat.h"
#include "collector_window.h"

#ifndef GPUQ_VERSION
#define GPUQ_VERSION "0.0.0-dev"
#endif

#define g g_collector



static void describe_source(gi_device *dev)
{
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char repeats[96] = "";
    gi_repeat_describe(dev, repeats, sizeof repeats);
    snprintf(dev->meta.source, sizeof dev->meta.source,
             "gpuq profile %s, CUPTI range profiler (auto range, %s replay, %zu pass%s, "
             "%zu launch%s per window%s) on %.80s, %s",
             GPUQ_VERSION, dev->replay == CUPTI_KernelReplay ? "kernel" : "user", dev->passes,
             dev->passes == 1 ? "" : "es", dev->batch_full, dev->batch_full == 1 ? "" : "es",
             repeats, dev->meta.device_name, date);
    /* the counters file's header: "# passes: N", "# pid: N" */
    dev->meta.passes = (int)dev->passes;
    dev->meta.pid = (long)getpid();
}

/* Launches per window: GPUQ_BATCH, except with kernel replay, where each
 * launch keeps its own window as before (CUPTI replays inside the launch;
 * batching was not tried there). */
/* The kernel duration under user replay (check_durations), a guard: a
 * CUPTI that dropped gpu__time_duration from batched windows would leave
 * every row without its time.  (Suspected on an H200 on 2026-12-01; the
 * durations were there and the check that said otherwise read counters
 * v1's column, docs/profile.md.)  A device's first window holds one launch
 * and its second two, and each is checked: a window of one without
 * durations moves the device to kernel replay, a window of two to one
 * launch per window. */
enum { GI_DURATION_DONE = 0, GI_DURATION_SINGLE, GI_DURATION_PAIR };

static int collects_duration(const gi_device *dev)
{
    int row = gi_duration_row();
    for (size_t m = 0; m < dev->n_metrics && row >= 0; m++)
        if ((int)dev->metric_ids[m] == row)
            return 1;
    return 0;
}

static void choose_batch(gi_device *dev)
{
    dev->batch_max = g.batch ? g.batch : 1;
    if (dev->replay == CUPTI_KernelReplay && dev->batch_max > 1) {
        gi_verbose("kernel replay: one launch per window (GPUQ_BATCH=%zu ignored)", g.batch);
        dev->batch_max = 1;
    }
    /* Exactly the launches: Start's first call costs about 1 ms per range
     * of capacity on GH100 (docs/profile.md).  A kernel that was not
     * expected in a full window shows as a dropped range, a mismatch. */
    dev->range_capacity = dev->batch_max;
    dev->batch_full = dev->batch_max;
    dev->duration_check = GI_DURATION_DONE;
    if (dev->replay == CUPTI_UserReplay && collects_duration(dev)) {
        dev->duration_check = GI_DURATION_SINGLE;
        dev->batch_max = 1;
    }
}

int gi_range_device_setup(gi_device *dev, CUcontext ctx)
{
    if (!gi_device_chip_and_support(dev, CUPTI_PROFILER_RANGE_PROFILING))
        return 0;

    if (!gi_host_setup(dev, ctx))
        return 0;

    char why[160];
    if (!gi_host_config_image(dev->host, &dev->config, &dev->config_size, &dev->passes, why,
                              sizeof why)) {
        gi_stand_down(GI_ERROR_CUPTI, "%s", why);
        return 0;
    }

    /* One pass: UserReplay, the kernel runs once, nothing is replayed.
     * More: KernelReplay, CUPTI reruns the kernel inside its launch. */
    if (g.forced_replay)
        dev->replay = (CUpti_ProfilerReplayMode)g.forced_replay;
    else
        dev->replay = dev->passes == 1 ? CUPTI_UserReplay : CUPTI_KernelReplay;
    if (dev->replay == CUPTI_UserReplay && dev->passes != 1) {
        gi_stand_down(GI_ERROR_UNSUPPORTED,
                      "the metrics need %zu passes on %s, which user replay cannot collect from an "
                      "unmodified program (unset GPUQ_REPLAY to use kernel replay)",
                      dev->passes, dev->chip);
        return 0;
    }
    if (dev->passes != 1)
        gi_note("the metrics need %zu passes on %s: kernel replay (each profiled kernel runs %zu "
                "times, device memory saved and restored)",
                dev->passes, dev->chip, dev->passes);
    choose_batch(dev);
    if (!gi_repeat_setup(dev))
        return 0;
    describe_source(dev);
    uint32_t cupti_version = 0;
    char cupti_path[512] = "";
    if (g.verbose) {
        cuptiGetVersion(&cupti_version);
        if (!gi_loaded_cupti(cupti_path, sizeof cupti_path))
            snprintf(cupti_path, sizeof cupti_path, "?");
    }
    gi_verbose("device %d: chip %s, %zu metrics, %zu pass(es), %s replay, config image %zu bytes, "
               "CUPTI API %u (built with %d) from %s",
               dev->ordinal, dev->chip, dev->n_metrics, dev->passes,
               dev->replay == CUPTI_KernelReplay ? "kernel" : "user", dev->config_size,
               cupti_version, CUPTI_API_VERSION, cupti_path);
    return 1;
}

static int init_counter_data(gi_device *dev)
{
    gi_metric_set full = gi_full_set(dev);
    return gi_rp_init_image(dev, &full, dev->range_capacity, dev->counter_data,
                            dev->counter_data_size, NULL, 0);
}

/* The launches of a window that never got counters (a failure between
 * Start and Decode): their memory goes, no row is written. */
static void drop_pending(gi_device *dev)
{
    for (size_t i = 0; i < dev->n_pending; i++)
        gm_launch_counters_clear(&dev->pending[i]);
    dev->n_pending = 0;
}

static void disable_profiler(gi_device *dev)
{
    if (!dev->rp)
        return;
    if (dev->captures_active > 0) {
        /* At exit with a capture still open (no window is: the capture's
         * begin closed it): a Disable could synchronize; the process ends
         * anyway. */
        drop_pending(dev);
        return;
    }
    gi_range_flush(dev);
    drop_pending(dev); /* left only if the flush failed */
    CUpti_RangeProfiler_Disable_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = dev->rp;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerDisable(&p);
    gi_call_done(GI_CALL_RP_DISABLE, t0);
    if (rc != CUPTI_SUCCESS)
        gi_verbose("cuptiRangeProfilerDisable returned %d", (int)rc);
    dev->rp = NULL;
    dev->rp_ctx = NULL;
    dev->sized_config = NULL;
    dev->sized_ranges = 0;
    dev->window_open = 0;
    free(dev->counter_data);
    dev->counter_data = NULL;
    dev->counter_data_size = 0;
    gi_repeat_window *rw = gi_repeat_window_of(dev);
    if (rw) {
        free(rw->counter_data);
        rw->counter_data = NULL;
        rw->counter_data_size = 0;
    }
    free(dev->graph_data);
    dev->graph_data = NULL;
    dev->graph_data_size = dev->graph_capacity = 0;
}

/* The open window's set: the one-pass set's for a repeat window. */
static gi_metric_set window_set(const gi_device *dev)
{
    gi_metric_set set = gi_full_set(dev);
    if (dev->window_repeat)
        gi_repeat_set(dev, &set);
    return set;
}

static int set_config(gi_device *dev)
{
    dev->rp_set = dev->window_repeat;
    gi_metric_set set = window_set(dev);
    gi_repeat_window *w = dev->window_repeat ? gi_repeat_window_of(dev) : NULL;
    if (w)
        return gi_rp_set_config(dev, &set, w->counter_data, w->counter_data_size, w->capacity,
                                NULL, 0);
    return gi_rp_set_config(dev, &set, dev->counter_data, dev->counter_data_size,
                            dev->range_capacity, NULL, 0);
}

/* The profiler object on ctx, configured for one set (repeat: the
 * one-pass set).  The range profiler is enabled on one context of a device
 * at a time: switching contexts flushes and disables the previous one
 * first.  An object keeps the configuration of its first SetConfig:
 * a later SetConfig of the other set took its replay mode but not its
 * metrics (CUPTI 13.0, GH100: a one-pass user-replay window then asked for
 * more passes).  So a switch of sets disables the object and enables a new
 * one. */
static int enable_profiler(gi_device *dev, CUcontext ctx, int repeat)
{
    if (dev->rp_ctx == ctx && dev->rp && (dev->rp_set < 0 || dev->rp_set == repeat))
        return 1;
    if (dev->rp && dev->rp_ctx == ctx)
        dev->set_switches++;
    disable_profiler(dev);
    if (!dev->pending) {
        choose_batch(dev);
        gi_repeat_window *rw = gi_repeat_window_of(dev);
        size_t room = rw && rw->capacity > dev->batch_full ? rw->capacity : dev->batch_full;
        dev->pending = calloc(room, sizeof *dev->pending);
        if (!dev->pending) {
            gi_stand_down(GI_ERROR_IO, "out of memory");
            return 0;
        }
    }
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = ctx;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerEnable", rc);
    dev->rp = ep.pRangeProfilerObject;
    dev->rp_ctx = ctx;
    dev->rp_set = -1; /* the first SetConfig says */

    gi_metric_set full = gi_full_set(dev);
    int sized = gi_rp_counter_data_size(dev, &full, dev->range_capacity, &dev->counter_data_size,
                                        NULL, 0);
    gi_call_done(GI_CALL_RP_ENABLE, t0);
    if (!sized)
        return 0;
    dev->counter_data = calloc(1, dev->counter_data_size);
    if (!dev->counter_data) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    /* The one-pass set's counter data, for the repeat windows. */
    gi_metric_set one;
    gi_repeat_window *rw = gi_repeat_window_of(dev);
    if (rw && gi_repeat_set(dev, &one)) {
        if (!gi_rp_counter_data_size(dev, &one, rw->capacity, &rw->counter_data_size, NULL, 0))
            return 0;
        free(rw->counter_data);
        rw->counter_data = calloc(1, rw->counter_data_size);
        if (!rw->counter_data) {
            gi_stand_down(GI_ERROR_IO, "out of memory");
            return 0;
        }
        if (!gi_rp_init_image(dev, &one, rw->capacity, rw->counter_data, rw->counter_data_size,
                              NULL, 0))
            return 0;
    }
    gi_verbose("range profiler enabled on device %d: up to %zu launches per window, counter "
               "data %zu bytes for %zu ranges", dev->ordinal, dev->batch_max,
               dev->counter_data_size, dev->range_capacity);
    return init_counter_data(dev);
}

/* Kernel replay saves the device memory in use before a profiled kernel
 * and restores it before each further pass.  When more is in use than is
 * free, the copy cannot stay on the GPU: it goes through the host, tens of
 * GB per pass at PCIe speed, and in pinned host memory that may not exist.
 * Measured on an H200 (141 GB, 128 GB host RAM, 2026-12-01): a JAX
 * program, which preallocates 75% of the GPU, made no progress for 70 s
 * inside its first replayed launch (plain run: 12 s).  So the bound is
 * "more in use than free" (about half the GPU), checked before every
 * replayed launch (cuMemGetInfo, microseconds against the milliseconds of a
 * replay): above it the collector stops within that launch, saying why and
 * what to change, and the program runs on unprofiled.  Returns 1 to go on. */
static int replay_memory_ok(gi_device *dev)
{
    if (dev->replay != CUPTI_KernelReplay || dev->passes < 2)
        return 1; /* one pass: nothing is replayed */
    size_t free_b = 0, total_b = 0;
    if (cuMemGetInfo(&free_b, &total_b) != CUDA_SUCCESS || total_b == 0)
        return 1; /* unknown: CUPTI's replay as before */
    size_t used = total_b - free_b;
    if (used <= free_b)
        return 1;
    gi_stand_down(GI_ERROR_UNSUPPORTED,
                  "device %d has %.1f of its %.1f GB in use, more than is free: kernel replay "
                  "(%zu passes) would save and restore it through the host for every profiled "
                  "kernel, minutes per launch (a JAX or TensorFlow program preallocates most of "
                  "the GPU: set XLA_PYTHON_CLIENT_PREALLOCATE=false or "
                  "XLA_PYTHON_CLIENT_MEM_FRACTION=.4; or collect one pass's metrics, "
                  "GPUQ_METRICS in docs/profile.md)",
                  dev->ordinal, (double)used / 1e9, (double)total_b / 1e9, dev->passes);
    return 0;
}

int gi_range_begin(gi_device *dev, CUcontext ctx, int repeat)
{
    uint64_t t0 = gi_now_ns();
    repeat = repeat && gi_repeat_window_of(dev);
    /* A switch of sets costs a new profiler object and its first Start,
     * of the order of a launch replayed in full (H200: 25 switches and 27
     * full launches, 5.0 s of opening windows against 0.18 s a replayed
     * launch): a lone repeat among full launches is measured in full; the
     * second repeat in a row switches. */
    int wanted = repeat;
    if (repeat && dev->rp && dev->rp_ctx == ctx && dev->rp_set == 0 && !dev->repeat_streak)
        repeat = 0;
    dev->repeat_streak = wanted;
    if (!repeat && !replay_memory_ok(dev))
        return 0; /* a one-pass window saves no memory */
    /* A window holds launches of one set: the other set's is closed (and
     * its object, enable_profiler). */
    if (dev->window_open && dev->window_repeat != repeat && !gi_range_flush(dev))
        return 0;
    if (!enable_profiler(dev, ctx, repeat))
        return 0;
    if (dev->dirty) {
        /* An unprofiled kernel may still run (its launch closed the last
         * window); wait, so that the new window sees only profiled ones. */
        if (!gi_ctx_synchronize())
            return 0;
        dev->dirty = 0;
    }
    uint64_t t1 = gi_now_ns();
    if (!dev->window_open) {
        dev->window_repeat = repeat;
        if (!set_config(dev))
            return 0;
        if (!gi_rp_start(dev, NULL, 0))
            return 0;
        dev->window_open = 1;
    }
    uint64_t t2 = gi_now_ns();
    dev->phase_ns[GI_PHASE_SYNC] += t1 - t0;
    dev->phase_ns[GI_PHASE_BEGIN] += t2 - t1;
    return 1;
}

int gi_range_end(gi_device *dev, gi_launch *launch, int launch_ok)
{
    if (launch_ok) {
        /* The row waits in the window; it takes over the launch's strings. */
        dev->pending[dev->n_pending++] = launch->k;
        gm_launch_counters_init(&launch->k);
    }
    /* Full, or the last launch -c allows (after it no launch takes the
     * device lock, so nothing would close the window before exit). */
    gi_repeat_window *rw = dev->window_repeat ? gi_repeat_window_of(dev) : NULL;
    size_t room = rw ? rw->batch_max : dev->batch_max;
    if (dev->n_pending >= room || gi_filter_exhausted(&g.filter))
        return gi_range_flush(dev);
    return 1;
}

/* The closed window's first n launches that got their duration. */
static size_t with_duration(const gi_device *dev, size_t n)
{
    size_t have = 0;
    int row = gi_duration_row();
    for (size_t i = 0; i < n && row >= 0; i++)
        have += isfinite(dev->pending[i].metric[row]) != 0;
    return have;
}

/* After a checked window (choose_batch): durations there, the next step;
 * missing, the fallback, said in one line. */
static void check_durations(gi_device *dev, size_t n)
{
    if (dev->duration_check == GI_DURATION_DONE || n == 0)
        return;
    size_t have = with_duration(dev, n);
    uint32_t version = 0;
    cuptiGetVersion(&version);
    if (dev->duration_check == GI_DURATION_SINGLE) {
        if (have == n) {
            dev->batch_max = dev->batch_full < 2 ? dev->batch_full : 2;
            dev->duration_check = dev->batch_full > 1 ? GI_DURATION_PAIR : GI_DURATION_DONE;
            return;
        }
        gi_verbose("device %d: user replay gave no gpu__time_duration for a window of one launch "
                   "(CUPTI API %u): kernel replay, one launch per window, from now on",
                   dev->ordinal, version);
        dev->replay = CUPTI_KernelReplay;
        dev->batch_full = dev->batch_max = 1;
    } else if (have == n) {
        dev->batch_max = dev->batch_full;
    } else {
        gi_verbose("device %d: user replay gave no gpu__time_duration for %zu of %zu launches "
                   "in one window (CUPTI API %u): one launch per window from now on",
                   dev->ordinal, n - have, n, version);
        dev->batch_full = dev->batch_max = 1;
    }
    dev->duration_check = GI_DURATION_DONE;
    describe_source(dev);
}

/* The first repeat window holds one launch: with its duration, the later
 * ones hold up to GPUQ_BATCH; without it (a CUPTI that drops the duration
 * from user-replay windows), repeats are measured in full from now on. */
static void check_repeat_durations(gi_device *dev, gi_repeat_window *rw, size_t n)
{
    if (rw->checked || n == 0)
        return;
    rw->checked = 1;
    if (with_duration(dev, n) == n) {
        rw->batch_max = rw->capacity;
        return;
    }
    gi_note("device %d: a one-pass window gave no kernel duration: every launch is measured "
            "in full from now on", dev->ordinal);
    rw->off = 1;
}

/* GPUQ_DEBUG: what one closed window held. */
static void debug_window(const gi_device *dev, const uint8_t *data, size_t data_size,
                         size_t ranges, size_t dropped)
{
    char names[768];
    size_t used = 0;
    names[0] = '\0';
    for (size_t r = 0; r < ranges && used + 32 < sizeof names; r++) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri;
        memset(&ri, 0, sizeof ri);
        ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
        ri.pCounterDataImage = data;
        ri.counterDataImageSize = data_size;
        ri.rangeIndex = r;
        ri.rangeDelimiter = "/";
        const char *name = cuptiRangeProfilerCounterDataGetRangeInfo(&ri) == CUPTI_SUCCESS &&
                                   ri.rangeName
                               ? ri.rangeName
                               : "?";
        int w = snprintf(names + used, sizeof names - used, "%s%.40s", r ? " " : "", name);
        if (w > 0)
            used += (size_t)w;
    }
    gi_note("[debug] device %d window %llu: %zu launches, %zu ranges (%zu dropped): %s%s",
            dev->ordinal, (unsigned long long)dev->windows, dev->n_pending, ranges, dropped,
            names, used + 32 >= sizeof names ? " ..." : "");
}

/* Closing a window from a thread whose current context is another one (the
 * flush thread of a fatal signal): the profiler's context is made current. */
static int push_profiler_context(gi_device *dev)
{
    CUcontext current = NULL;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == dev->rp_ctx)
        return 0;
    return cuCtxPushCurrent(dev->rp_ctx) == CUDA_SUCCESS;
}

int gi_range_flush(gi_device *dev)
{
    if (!dev->window_open) {
        drop_pending(dev);
        return 1;
    }
    dev->window_open = 0;
    int pushed = push_profiler_context(dev);
    int ok = 0;
    uint64_t t0 = gi_now_ns();
    int all_submitted = 0;
    /* The window's set and counter data: the one-pass set's for repeats. */
    gi_metric_set set = window_set(dev);
    gi_repeat_window *rw = dev->window_repeat ? gi_repeat_window_of(dev) : NULL;
    uint8_t *data = rw ? rw->counter_data : dev->counter_data;
    size_t data_size = rw ? rw->counter_data_size : dev->counter_data_size;
    if (!gi_rp_stop(dev, &all_submitted, NULL, 0))
        goto out;
    if (!all_submitted) {
        gi_stand_down(GI_ERROR_UNSUPPORTED,
                      "the range profiler asks for another pass after a window (%zu passes, "
                      "%s replay): an unmodified program cannot be replayed",
                      dev->passes, dev->replay == CUPTI_KernelReplay ? "kernel" : "user");
        goto out;
    }
    size_t dropped = 0, ranges = 0;
    if (!gi_rp_decode(dev, &dropped, NULL, 0))
        goto out;
    uint64_t t1 = gi_now_ns();
    if (!gi_rp_ranges(data, data_size, &ranges, NULL, 0))
        goto out;
    if (g.debug)
        debug_window(dev, data, data_size, ranges, dropped);

    /* Range i is launch i.  A single launch in its own window keeps the
     * rule of one-launch windows: a stray range is reported and the last
     * range used.  In a longer window a stray range would shift every
     * later launch: none gets counters (NaN), and the rest of the run uses
     * one-launch windows. */
    size_t n = dev->n_pending;
    int exact = ranges == n && dropped == 0;
    size_t first_range = 0;
    int usable = exact;
    if (!exact && n == 1 && ranges >= 1) {
        first_range = ranges - 1;
        usable = 1;
    }
    if (!exact && n > 0) {
        pthread_mutex_lock(&g.lock);
        int first = g.range_mismatches == 0;
        g.range_mismatches += n;
        pthread_mutex_unlock(&g.lock);
        if (first)
            gi_note("a window of %zu launch%s (from launch %llu of %s) holds %zu ranges (%zu "
                    "dropped): %s (reported as range_mismatches)",
                    n, n == 1 ? "" : "es", (unsigned long long)dev->pending[0].launch_id,
                    dev->pending[0].kernel, ranges, dropped,
                    usable ? "its counters use the last range"
                           : "these launches get no counters; one launch per window from now on");
        if (!usable) {
            if (rw)
                rw->batch_max = 1;
            else
                dev->batch_max = 1;
        }
    }
    for (size_t i = 0; usable && i < n; i++) {
        double values[GM_METRIC_MAX];
        if (!gi_rp_evaluate(&set, data, data_size, first_range + i, values, NULL, 0))
            goto out;
        for (size_t m = 0; m < set.n_metrics; m++)
            dev->pending[i].metric[set.metric_ids[m]] = values[m];
    }
    if (usable && rw)
        check_repeat_durations(dev, rw, n);
    else if (usable)
        check_durations(dev, n);
    /* Repeats take the rest of their row from their shape's full launch;
     * a full launch becomes its shape's. */
    for (size_t i = 0; i < n; i++) {
        if (rw)
            gi_repeat_complete(dev, &dev->pending[i]);
        else
            gi_repeat_remember(dev, &dev->pending[i]);
    }
    if (rw) {
        pthread_mutex_lock(&g.lock);
        g.repeat_launches += n;
        pthread_mutex_unlock(&g.lock);
    }
    uint64_t t2 = gi_now_ns();
    if (!gi_rp_init_image(dev, &set, rw ? rw->capacity : dev->range_capacity, data, data_size,
                          NULL, 0))
        goto out;
    uint64_t t3 = gi_now_ns();
    for (size_t i = 0; i < n; i++) {
        uint64_t tw = gi_now_ns();
        gi_write_row(dev, &dev->pending[i]);
        gi_call_done(GI_CALL_WRITE_ROW, tw);
    }
    uint64_t t4 = gi_now_ns();
    dev->phase_ns[GI_PHASE_STOP] += t1 - t0;
    dev->phase_ns[GI_PHASE_EVALUATE] += t2 - t1;
    dev->phase_ns[GI_PHASE_RESET] += t3 - t2;
    dev->phase_ns[GI_PHASE_WRITE] += t4 - t3;
    dev->phase_launches += n;
    ok = 1;
out:
    drop_pending(dev);
    if (pushed) {
        CUcontext popped;
        cuCtxPopCurrent(&popped);
    }
    return ok;
}

void gi_range_context_gone(gi_device *dev, CUcontext ctx)
{
    if (dev->rp_ctx == ctx)
        disable_profiler(dev);
}

void gi_range_device_teardown(gi_device *dev)
{
    disable_profiler(dev);
    gi_repeat_teardown(dev);
    free(dev->pending);
    dev->pending = NULL;
    if (dev->host) {
        gi_host_deinit(dev->host);
        dev->host = NULL;
    }
    free(dev->config);
    dev->config = NULL;
    free(dev->availability);
    dev->availability = NULL;
}

/* ---- graph launches (collector_graph.c) -------------------------------- */

/* The counter data image of graph windows, for at least `ranges` ranges. */
static int graph_image(gi_device *dev, size_t ranges, char *why, size_t len)
{
    gi_metric_set full = gi_full_set(dev);
    if (dev->graph_data && dev->graph_capacity >= ranges)
        return gi_rp_init_image(dev, &full, dev->graph_capacity, dev->graph_data,
                                dev->graph_data_size, why, len);
    free(dev->graph_data);
    dev->graph_data = NULL;
    size_t cap = 16;
    while (cap < ranges)
        cap *= 2;
    size_t size = 0;
    if (!gi_rp_counter_data_size(dev, &full, cap, &size, why, len))
        return 0;
    dev->graph_data = calloc(1, size);
    if (!dev->graph_data) {
        snprintf(why, len, "out of memory");
        return 0;
    }
    dev->graph_data_size = size;
    dev->graph_capacity = cap;
    return graph_image(dev, ranges, why, len);
}

int gi_range_graph_begin(gi_device *dev, CUcontext ctx, size_t kernels, char *why, size_t len)
{
    why[0] = '\0';
    uint64_t t0 = gi_now_ns();
    if (dev->window_open && !gi_range_flush(dev))
        return 0;
    if (!enable_profiler(dev, ctx, 0))
        return 0;
    if (dev->dirty) {
        if (!gi_ctx_synchronize())
            return 0;
        dev->dirty = 0;
    }
    if (!graph_image(dev, kernels, why, len))
        return 0;
    gi_metric_set full = gi_full_set(dev);
    dev->rp_set = 0;
    if (!gi_rp_set_config(dev, &full, dev->graph_data, dev->graph_data_size,
                          dev->graph_capacity, why, len) ||
        !gi_rp_start(dev, why, len))
        return 0;
    dev->phase_ns[GI_PHASE_BEGIN] += gi_now_ns() - t0;
    return 1;
}

int gi_range_graph_collect(gi_device *dev, size_t expected, size_t *ranges, size_t *dropped,
                           double *values, char *why, size_t len)
{
    why[0] = '\0';
    *ranges = *dropped = 0;
    int all_submitted = 0;
    size_t n_ranges = 0, n_dropped = 0;
    if (!gi_rp_stop(dev, &all_submitted, why, len) ||
        !gi_rp_decode(dev, &n_dropped, why, len) ||
        !gi_rp_ranges(dev->graph_data, dev->graph_data_size, &n_ranges, why, len))
        return 0;
    *ranges = n_ranges;
    *dropped = n_dropped;
    if (*ranges != expected || *dropped)
        return 1;
    gi_metric_set full = gi_full_set(dev);
    for (size_t i = 0; i < expected; i++)
        if (!gi_rp_evaluate(&full, dev->graph_data, dev->graph_data_size, i,
                            values + i * full.n_metrics, why, len))
            return 0;
    dev->phase_launches += expected;
    return 1;
}
