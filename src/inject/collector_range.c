/* The counters pass: the paper's Table 1 quantities (Sec. 3.3), as Hopper
 * names them in gm_metric_table[], through CUPTI's range profiler.
 *
 * One range per kernel (AutoRange).  The window of one launch is opened at
 * its API ENTER (SetConfig + Start) and closed at its EXIT (Stop, Decode,
 * Evaluate), under the device lock, so exactly one kernel falls into it.
 * The hardware metrics fit in one pass on GH100, which UserReplay collects
 * without replaying anything; if the chip needs more passes, KernelReplay
 * replays each kernel inside its launch (saving and restoring memory).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"

#ifndef GPUQ_VERSION
#define GPUQ_VERSION "0.0.0-dev"
#endif

#define g g_collector

/* Ranges the counter data image holds: the launch's own, plus room for a
 * stray one (reported as a mismatch, not an overflow). */
#define GI_MAX_RANGES 2

/* The `_sass_` metrics are instrumented, not counted by hardware, and
 * always take a pass of their own: the sass pass provides them. */
static int is_hardware_metric(const char *name)
{
    return strstr(name, "__sass_") == NULL;
}

static int host_init(gi_device *dev, CUpti_Profiler_Host_Object **host)
{
    CUpti_Profiler_Host_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = dev->chip;
    p.pCounterAvailabilityImage = dev->availability;
    CUptiResult rc = cuptiProfilerHostInitialize(&p);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostInitialize", rc);
    *host = p.pHostObject;
    return 1;
}

static void host_deinit(CUpti_Profiler_Host_Object *host)
{
    CUpti_Profiler_Host_Deinitialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = host;
    cuptiProfilerHostDeinitialize(&p);
}

static CUptiResult add_metrics(CUpti_Profiler_Host_Object *host, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = host;
    p.ppMetricNames = names;
    p.numMetrics = n;
    return cuptiProfilerHostConfigAddMetrics(&p);
}

/* Chooses the metrics of gm_metric_table[] this chip knows.  All at once
 * first; if the chip rejects the set, each metric alone on a scratch host
 * object, so that one unknown name costs that metric (NaN), not the run. */
static int choose_metrics(gi_device *dev)
{
    dev->n_metrics = 0;
    for (int i = 0; i < GM_METRIC_COUNT; i++)
        if (is_hardware_metric(gm_metric_table[i].name)) {
            dev->metric_names[dev->n_metrics] = gm_metric_table[i].name;
            dev->metric_ids[dev->n_metrics] = gm_metric_table[i].id;
            dev->n_metrics++;
        }
    CUpti_Profiler_Host_Object *host = NULL;
    if (!host_init(dev, &host))
        return 0;
    CUptiResult rc = add_metrics(host, dev->metric_names, dev->n_metrics);
    host_deinit(host);
    if (rc == CUPTI_SUCCESS)
        return 1;
    if (rc != CUPTI_ERROR_INVALID_PARAMETER && rc != CUPTI_ERROR_INVALID_METRIC_NAME)
        return gi_cupti_failed("cuptiProfilerHostConfigAddMetrics", rc);
    size_t kept = 0;
    for (size_t i = 0; i < dev->n_metrics; i++) {
        if (!host_init(dev, &host))
            return 0;
        rc = add_metrics(host, &dev->metric_names[i], 1);
        host_deinit(host);
        if (rc == CUPTI_SUCCESS) {
            dev->metric_names[kept] = dev->metric_names[i];
            dev->metric_ids[kept] = dev->metric_ids[i];
            kept++;
        } else {
            gi_note("metric %s is not available on %s (%s): it stays empty", dev->metric_names[i],
                    dev->chip, dev->meta.device_name);
        }
    }
    dev->n_metrics = kept;
    if (kept == 0) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "none of gpuq's metrics exists on chip %s", dev->chip);
        return 0;
    }
    return 1;
}

static const char *support_problem(const CUpti_Profiler_DeviceSupported_Params *p)
{
    if (p->architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "the GPU architecture is not supported (compute capability 7.0 or newer is)";
    if (p->vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return "profiling is disabled on this vGPU";
    if (p->vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "this vGPU configuration is not supported";
    if (p->sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "SLI is not supported";
    if (p->confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "confidential computing mode is not supported";
    if (p->cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "crypto-mining processors are not supported";
    if (p->wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        return "WSL is not supported";
    return "the device cannot be profiled";
}

/* Chip name and the device support check, shared with the sass pass. */
int gi_device_chip_and_support(gi_device *dev, CUpti_Profiler_API api)
{
    CUpti_Device_GetChipName_Params cn;
    memset(&cn, 0, sizeof cn);
    cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    cn.deviceIndex = (size_t)dev->ordinal;
    CUptiResult rc = cuptiDeviceGetChipName(&cn);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiDeviceGetChipName", rc);
    snprintf(dev->chip, sizeof dev->chip, "%s", cn.pChipName ? cn.pChipName : "?");

    CUpti_Profiler_DeviceSupported_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    sp.cuDevice = (CUdevice)dev->ordinal;
    sp.api = api;
    rc = cuptiProfilerDeviceSupported(&sp);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerDeviceSupported", rc);
    if (sp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "device %d (%s): %s", dev->ordinal,
                      dev->meta.device_name, support_problem(&sp));
        return 0;
    }
    return 1;
}

static void describe_source(gi_device *dev)
{
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(dev->meta.source, sizeof dev->meta.source,
             "gpuq profile %s, CUPTI range profiler (auto range, %s replay, %zu pass%s) on %s, %s",
             GPUQ_VERSION, dev->replay == CUPTI_KernelReplay ? "kernel" : "user", dev->passes,
             dev->passes == 1 ? "" : "es", dev->meta.device_name, date);
}

int gi_range_device_setup(gi_device *dev, CUcontext ctx)
{
    if (!gi_device_chip_and_support(dev, CUPTI_PROFILER_RANGE_PROFILING))
        return 0;

    /* Availability is read before any session exists on the device: it
     * may fail while one is active, and it is where missing permissions
     * show first. */
    CUpti_Profiler_GetCounterAvailability_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ap.ctx = ctx;
    CUptiResult rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerGetCounterAvailability", rc);
    dev->availability = malloc(ap.counterAvailabilityImageSize);
    if (!dev->availability) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    ap.pCounterAvailabilityImage = dev->availability;
    if ((rc = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerGetCounterAvailability", rc);

    if (!choose_metrics(dev) || !host_init(dev, &dev->host))
        return 0;
    if ((rc = add_metrics(dev->host, dev->metric_names, dev->n_metrics)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostConfigAddMetrics", rc);

    CUpti_Profiler_Host_GetConfigImageSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sz.pHostObject = dev->host;
    if ((rc = cuptiProfilerHostGetConfigImageSize(&sz)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostGetConfigImageSize", rc);
    dev->config_size = sz.configImageSize;
    dev->config = malloc(dev->config_size);
    if (!dev->config) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    CUpti_Profiler_Host_GetConfigImage_Params ci;
    memset(&ci, 0, sizeof ci);
    ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    ci.pHostObject = dev->host;
    ci.configImageSize = dev->config_size;
    ci.pConfigImage = dev->config;
    if ((rc = cuptiProfilerHostGetConfigImage(&ci)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostGetConfigImage", rc);

    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = dev->config_size;
    np.pConfigImage = dev->config;
    if ((rc = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostGetNumOfPasses", rc);
    dev->passes = np.numOfPasses;

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
    describe_source(dev);
    gi_verbose("device %d: chip %s, %zu metrics, %zu pass(es), %s replay, config image %zu bytes",
               dev->ordinal, dev->chip, dev->n_metrics, dev->passes,
               dev->replay == CUPTI_KernelReplay ? "kernel" : "user", dev->config_size);
    return 1;
}

static int init_counter_data(gi_device *dev)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = dev->rp;
    p.counterDataSize = dev->counter_data_size;
    p.pCounterData = dev->counter_data;
    CUptiResult rc = cuptiRangeProfilerCounterDataImageInitialize(&p);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerCounterDataImageInitialize", rc);
    return 1;
}

/* Closes a window left open by a failure between Start and Stop. */
static int stop_window(gi_device *dev)
{
    if (!dev->window_open)
        return 1;
    dev->window_open = 0;
    CUpti_RangeProfiler_Stop_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = dev->rp;
    CUptiResult rc = cuptiRangeProfilerStop(&sp);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerStop", rc);
    return init_counter_data(dev);
}

static void disable_profiler(gi_device *dev)
{
    if (!dev->rp)
        return;
    stop_window(dev);
    CUpti_RangeProfiler_Disable_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = dev->rp;
    CUptiResult rc = cuptiRangeProfilerDisable(&p);
    if (rc != CUPTI_SUCCESS)
        gi_verbose("cuptiRangeProfilerDisable returned %d", (int)rc);
    dev->rp = NULL;
    dev->rp_ctx = NULL;
    free(dev->counter_data);
    dev->counter_data = NULL;
    dev->counter_data_size = 0;
}

static int set_config(gi_device *dev)
{
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = dev->rp;
    sc.configSize = dev->config_size;
    sc.pConfig = dev->config;
    sc.counterDataImageSize = dev->counter_data_size;
    sc.pCounterDataImage = dev->counter_data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = dev->replay;
    sc.maxRangesPerPass = GI_MAX_RANGES;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUptiResult rc = cuptiRangeProfilerSetConfig(&sc);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerSetConfig", rc);
    return 1;
}

/* The range profiler is enabled on one context of a device at a time:
 * switching contexts disables the previous one first. */
static int enable_profiler(gi_device *dev, CUcontext ctx)
{
    if (dev->rp_ctx == ctx && dev->rp)
        return 1;
    disable_profiler(dev);
    CUpti_RangeProfiler_Enable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    ep.ctx = ctx;
    CUptiResult rc = cuptiRangeProfilerEnable(&ep);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerEnable", rc);
    dev->rp = ep.pRangeProfilerObject;
    dev->rp_ctx = ctx;

    CUpti_RangeProfiler_GetCounterDataSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    sz.pRangeProfilerObject = dev->rp;
    sz.pMetricNames = dev->metric_names;
    sz.numMetrics = dev->n_metrics;
    /* Room for two ranges although one is expected: a stray kernel in the
     * window is then counted as a mismatch, not an overflow. */
    sz.maxNumOfRanges = GI_MAX_RANGES;
    sz.maxNumRangeTreeNodes = GI_MAX_RANGES;
    if ((rc = cuptiRangeProfilerGetCounterDataSize(&sz)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerGetCounterDataSize", rc);
    dev->counter_data_size = sz.counterDataSize;
    dev->counter_data = calloc(1, dev->counter_data_size);
    if (!dev->counter_data) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    gi_verbose("range profiler enabled on device %d, counter data %zu bytes", dev->ordinal,
               dev->counter_data_size);
    return init_counter_data(dev);
}

int gi_range_begin(gi_device *dev, CUcontext ctx)
{
    uint64_t t0 = gi_now_ns();
    if (!enable_profiler(dev, ctx))
        return 0;
    if (dev->dirty) {
        /* An unprofiled kernel may still run; wait, so that the counters
         * of the window see only the profiled one. */
        CUresult cr = cuCtxSynchronize();
        if (cr != CUDA_SUCCESS)
            return gi_cuda_failed("cuCtxSynchronize", cr);
        dev->dirty = 0;
    }
    uint64_t t1 = gi_now_ns();
    /* Start per launch: it costs about 6 ms on GH100 (docs/profile.md), but
     * DecodeData without Stop returns no range, so a window cannot stay open
     * across launches. */
    if (!set_config(dev))
        return 0;
    CUpti_RangeProfiler_Start_Params st;
    memset(&st, 0, sizeof st);
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = dev->rp;
    CUptiResult rc = cuptiRangeProfilerStart(&st);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerStart", rc);
    dev->window_open = 1;
    uint64_t t2 = gi_now_ns();
    dev->phase_ns[GI_PHASE_SYNC] += t1 - t0;
    dev->phase_ns[GI_PHASE_BEGIN] += t2 - t1;
    return 1;
}

int gi_range_end(gi_device *dev, gi_launch *launch, int launch_ok)
{
    uint64_t t0 = gi_now_ns();
    CUpti_RangeProfiler_Stop_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = dev->rp;
    CUptiResult rc = cuptiRangeProfilerStop(&sp);
    dev->window_open = 0;
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerStop", rc);
    if (!sp.isAllPassSubmitted) {
        gi_stand_down(GI_ERROR_UNSUPPORTED,
                      "the range profiler asks for another pass after one launch (%zu passes, "
                      "%s replay): an unmodified program cannot be replayed",
                      dev->passes, dev->replay == CUPTI_KernelReplay ? "kernel" : "user");
        return 0;
    }
    /* Decode waits for the kernel (it synchronizes the context). */
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = dev->rp;
    if ((rc = cuptiRangeProfilerDecodeData(&dp)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerDecodeData", rc);
    uint64_t t1 = gi_now_ns();

    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = dev->counter_data;
    ip.counterDataImageSize = dev->counter_data_size;
    if ((rc = cuptiRangeProfilerGetCounterDataInfo(&ip)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiRangeProfilerGetCounterDataInfo", rc);

    if (launch_ok && (ip.numTotalRanges != 1 || dp.numOfRangeDropped != 0)) {
        pthread_mutex_lock(&g.lock);
        int first = g.range_mismatches++ == 0;
        pthread_mutex_unlock(&g.lock);
        if (first)
            gi_note("launch %llu of %s: %zu ranges in its window (%zu dropped) instead of 1; "
                    "its counters use the last (reported as range_mismatches)",
                    (unsigned long long)launch->launch_id, launch->k.kernel, ip.numTotalRanges,
                    dp.numOfRangeDropped);
    }
    if (launch_ok && ip.numTotalRanges >= 1) {
        double values[GM_METRIC_COUNT];
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
        memset(&ev, 0, sizeof ev);
        ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = dev->host;
        ev.pCounterDataImage = dev->counter_data;
        ev.counterDataImageSize = dev->counter_data_size;
        ev.rangeIndex = ip.numTotalRanges - 1;
        ev.ppMetricNames = dev->metric_names;
        ev.numMetrics = dev->n_metrics;
        ev.pMetricValues = values;
        if ((rc = cuptiProfilerHostEvaluateToGpuValues(&ev)) != CUPTI_SUCCESS)
            return gi_cupti_failed("cuptiProfilerHostEvaluateToGpuValues", rc);
        for (size_t i = 0; i < dev->n_metrics; i++)
            launch->k.metric[dev->metric_ids[i]] = values[i];
    }
    uint64_t t2 = gi_now_ns();
    if (!init_counter_data(dev))
        return 0;
    uint64_t t3 = gi_now_ns();
    if (launch_ok)
        gi_write_row(dev, &launch->k);
    uint64_t t4 = gi_now_ns();
    dev->phase_ns[GI_PHASE_STOP] += t1 - t0;
    dev->phase_ns[GI_PHASE_EVALUATE] += t2 - t1;
    dev->phase_ns[GI_PHASE_RESET] += t3 - t2;
    dev->phase_ns[GI_PHASE_WRITE] += t4 - t3;
    dev->phase_launches++;
    return 1;
}

void gi_range_context_gone(gi_device *dev, CUcontext ctx)
{
    if (dev->rp_ctx == ctx)
        disable_profiler(dev);
}

void gi_range_device_teardown(gi_device *dev)
{
    disable_profiler(dev);
    if (dev->host) {
        host_deinit(dev->host);
        dev->host = NULL;
    }
    free(dev->config);
    dev->config = NULL;
    free(dev->availability);
    dev->availability = NULL;
}
