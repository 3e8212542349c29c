/* The range profiler's calls, each once for every kind of window (the
 * full set's, the one-pass set's of repeated launches, a graph launch's):
 * 1 on success, else gi_window_failed's answer (collector_window.h). */
#include <string.h>

#include "collector_internal.h"
#include "collector_window.h"

/* A CUPTI failure of a window's calls.  Ordinary windows (why NULL) stand
 * the collector down; graph windows say it in why and return 0 (the
 * launches outside graphs go on being profiled). */
int gi_window_failed(char *why, size_t len, const char *call, CUptiResult rc)
{
    if (!why)
        return gi_cupti_failed(call, rc);
    const char *name = NULL;
    if (cuptiGetResultString(rc, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI error";
    snprintf(why, len, "%s failed on a graph launch (%s, CUPTI error %d)", call, name, (int)rc);
    return 0;
}

int gi_rp_init_image(gi_device *dev, const gi_metric_set *set, size_t ranges, uint8_t *data,
                     size_t size, char *why, size_t len)
{
    /* Initialize lays the image out for the metrics and ranges of the
     * object's last GetCounterDataSize (an image of another set fails with
     * CUPTI_ERROR_UNKNOWN, CUPTI 13.0 on GH100): asked again on a switch. */
    size_t expected = 0;
    if ((dev->sized_config != set->config || dev->sized_ranges != ranges) &&
        !gi_rp_counter_data_size(dev, set, ranges, &expected, why, len))
        return 0;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = dev->rp;
    p.counterDataSize = size;
    p.pCounterData = data;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerCounterDataImageInitialize(&p);
    gi_call_done(GI_CALL_IMAGE_INIT, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerCounterDataImageInitialize", rc);
    return 1;
}

/* The counter data image's size for `ranges` ranges of a set's metrics. */
int gi_rp_counter_data_size(gi_device *dev, const gi_metric_set *set, size_t ranges,
                            size_t *size, char *why, size_t len)
{
    CUpti_RangeProfiler_GetCounterDataSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    sz.pRangeProfilerObject = dev->rp;
    sz.pMetricNames = (const char **)set->metric_names;
    sz.numMetrics = set->n_metrics;
    sz.maxNumOfRanges = ranges;
    sz.maxNumRangeTreeNodes = (uint32_t)ranges;
    CUptiResult rc = cuptiRangeProfilerGetCounterDataSize(&sz);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerGetCounterDataSize", rc);
    *size = sz.counterDataSize;
    dev->sized_config = set->config;
    dev->sized_ranges = ranges;
    return 1;
}

/* Start: the window's first call on the device is counted apart (its cost
 * grows with the range capacity, docs/profile.md). */
int gi_rp_start(gi_device *dev, char *why, size_t len)
{
    CUpti_RangeProfiler_Start_Params st;
    memset(&st, 0, sizeof st);
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = dev->rp;
    uint64_t ts = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerStart(&st);
    gi_call_done(dev->windows == 0 ? GI_CALL_FIRST_START : GI_CALL_START, ts);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerStart", rc);
    dev->windows++;
    return 1;
}

/* Stop; *all_submitted: no further pass is asked for. */
int gi_rp_stop(gi_device *dev, int *all_submitted, char *why, size_t len)
{
    CUpti_RangeProfiler_Stop_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = dev->rp;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerStop(&sp);
    gi_call_done(GI_CALL_STOP, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerStop", rc);
    *all_submitted = sp.isAllPassSubmitted != 0;
    return 1;
}

/* Decode waits for the window's kernels (it synchronizes the context). */
int gi_rp_decode(gi_device *dev, size_t *dropped, char *why, size_t len)
{
    CUpti_RangeProfiler_DecodeData_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dp.pRangeProfilerObject = dev->rp;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerDecodeData(&dp);
    gi_call_done(GI_CALL_DECODE, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerDecodeData", rc);
    *dropped = dp.numOfRangeDropped;
    return 1;
}

int gi_rp_ranges(const uint8_t *data, size_t size, size_t *ranges, char *why, size_t len)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    ip.pCounterDataImage = data;
    ip.counterDataImageSize = size;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerGetCounterDataInfo(&ip);
    gi_call_done(GI_CALL_DATA_INFO, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerGetCounterDataInfo", rc);
    *ranges = ip.numTotalRanges;
    return 1;
}

/* A set's metrics of one range, into values[0..set->n_metrics). */
int gi_rp_evaluate(const gi_metric_set *set, const uint8_t *data, size_t size,
                   size_t range, double *values, char *why, size_t len)
{
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
    memset(&ev, 0, sizeof ev);
    ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    ev.pHostObject = set->host;
    ev.pCounterDataImage = data;
    ev.counterDataImageSize = size;
    ev.rangeIndex = range;
    ev.ppMetricNames = (const char **)set->metric_names;
    ev.numMetrics = set->n_metrics;
    ev.pMetricValues = values;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerHostEvaluateToGpuValues(&ev);
    gi_call_done(GI_CALL_EVALUATE, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiProfilerHostEvaluateToGpuValues", rc);
    return 1;
}


int gi_rp_set_config(gi_device *dev, const gi_metric_set *set, uint8_t *data, size_t size,
                     size_t capacity, char *why, size_t len)
{
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = dev->rp;
    sc.configSize = set->config_size;
    sc.pConfig = set->config;
    sc.counterDataImageSize = size;
    sc.pCounterDataImage = data;
    sc.range = CUPTI_AutoRange;
    sc.replayMode = set->replay;
    sc.maxRangesPerPass = capacity;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiRangeProfilerSetConfig(&sc);
    gi_call_done(GI_CALL_SET_CONFIG, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_window_failed(why, len, "cuptiRangeProfilerSetConfig", rc);
    return 1;
}