/* The CUPTI host side of the counters pass: chip support, the counter
 * availability image, the host object and the choice of metrics (the union
 * the registered units declare, docs/profile.md "Which metrics"). */
#include <stdlib.h>
#include <string.h>

#include "collector_host.h"
#include "collector_internal.h"
#include "gpuq/unit.h"

#define g g_collector

/* The instrumented metrics always take a pass of their own: the sass pass
 * provides them. */
static int is_hardware_metric(const char *name)
{
    return !gm_metric_is_instrumented(name);
}

/* A host object for the device's chip, with the counter availability
 * image `availability` (NULL: without one). */
static CUptiResult host_initialize(gi_device *dev, uint8_t *availability,
                                   CUpti_Profiler_Host_Object **host)
{
    CUpti_Profiler_Host_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = dev->chip;
    p.pCounterAvailabilityImage = availability;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerHostInitialize(&p);
    gi_call_done(GI_CALL_HOST_INIT, t0);
    if (rc == CUPTI_SUCCESS)
        *host = p.pHostObject;
    return rc;
}

static int host_init(gi_device *dev, CUpti_Profiler_Host_Object **host)
{
    CUptiResult rc = host_initialize(dev, dev->availability, host);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostInitialize", rc);
    return 1;
}

static int read_availability(gi_device *dev, CUcontext ctx)
{
    CUpti_Profiler_GetCounterAvailability_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ap.ctx = ctx;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerGetCounterAvailability(&ap);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerGetCounterAvailability", rc);
    dev->availability = malloc(ap.counterAvailabilityImageSize);
    if (!dev->availability) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    ap.pCounterAvailabilityImage = dev->availability;
    rc = cuptiProfilerGetCounterAvailability(&ap);
    gi_call_done(GI_CALL_AVAILABILITY, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerGetCounterAvailability", rc);
    return 1;
}

/* Whether CUPTI knows the chip well enough to make a host object and add
 * gpuq's metrics without a counter availability image. */
static int host_works_without_availability(gi_device *dev, CUpti_Profiler_Host_Object **keep)
{
    /* The same object choose_metrics would make (no image either): kept
     * for it, one host initialization less per run. */
    return host_initialize(dev, NULL, keep) == CUPTI_SUCCESS;
}

static void host_deinit(CUpti_Profiler_Host_Object *host)
{
    CUpti_Profiler_Host_Deinitialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = host;
    uint64_t t0 = gi_now_ns();
    cuptiProfilerHostDeinitialize(&p);
    gi_call_done(GI_CALL_HOST_DEINIT, t0);
}

static CUptiResult add_metrics(CUpti_Profiler_Host_Object *host, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = host;
    p.ppMetricNames = names;
    p.numMetrics = n;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerHostConfigAddMetrics(&p);
    gi_call_done(GI_CALL_ADD_METRICS, t0);
    return rc;
}

/* One item of a comma-separated list: copied into name ("" when empty or
 * not shorter than size); returns where the next item starts. */
static const char *list_item(const char *p, char *name, size_t size)
{
    size_t len = strcspn(p, ",");
    name[0] = '\0';
    if (len > 0 && len < size) {
        memcpy(name, p, len);
        name[len] = '\0';
    }
    return p + len + (p[len] == ',');
}

/* Adds the table rows named in a comma-separated list (metric or column
 * names); an unknown name is noted and skipped (its value has no place in
 * a counters row). */
static void add_named_rows(const char *list, const char *var, int *rows, size_t *n, size_t max)
{
    char name[256];
    for (const char *p = list; p && *p;) {
        p = list_item(p, name, sizeof name);
        if (!name[0])
            continue;
        if (name[0] == '@') {
            /* @UNIT: that unit's opt-in metrics (gm_unit.opt_in_metrics) */
            const gm_unit *u = gm_unit_find(name + 1);
            if (!u || !u->opt_in_metrics)
                gi_note("%s: '%s' names no unit with opt-in metrics: skipped", var, name);
            else
                gm_unit_opt_in_rows(u, rows, n, max);
            continue;
        }
        int row = gm_metric_find(name);
        int seen = 0;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = rows[j] == row;
        if (row < 0)
            gi_note("%s: '%s' is not a metric of gpuq's table (gpuq/metrics.h): skipped", var,
                    name);
        else if (!seen && *n < max)
            rows[(*n)++] = row;
    }
}

/* The table rows to gather: the union of the metrics the registered units
 * declare (GPUQ_SECTIONS=a,b: of those units only), plus GPUQ_EXTRA_METRICS;
 * GPUQ_METRICS replaces the whole list.  Only hardware metrics: the
 * `_sass_` ones are the sass pass's.  Returns 0 after standing down. */
static int metric_rows(int *rows, size_t *n, size_t max, int *file_rows, size_t *n_file)
{
    *n = 0;
    *n_file = 0;
    const char *only = getenv(GI_ENV(GI_ENV_METRICS));
    if (only && only[0]) {
        add_named_rows(only, GI_ENV(GI_ENV_METRICS), rows, n, max);
    } else {
        const char *sections = getenv(GI_ENV(GI_ENV_SECTIONS));
        const gm_unit *units[64];
        size_t n_units = 0;
        char name[128];
        for (const char *p = sections; p && *p;) {
            p = list_item(p, name, sizeof name);
            if (!name[0])
                continue;
            const gm_unit *u = gm_unit_find(name);
            if (!u) {
                gi_stand_down(GI_ERROR_CONFIG, "GPUQ_SECTIONS: no unit '%s'", name);
                return 0;
            }
            if (n_units < 64)
                units[n_units++] = u;
        }
        *n = gm_units_metric_rows(n_units ? units : NULL, n_units, rows, max);
        add_named_rows(getenv(GI_ENV(GI_ENV_EXTRA_METRICS)), GI_ENV(GI_ENV_EXTRA_METRICS), rows, n, max);
    }
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (is_hardware_metric(gm_metric_table[rows[i]].name))
            rows[kept++] = rows[i];
        else if (file_rows && *n_file < GM_METRIC_MAX)
            file_rows[(*n_file)++] = rows[i]; /* the sass pass fills it: a column */
    *n = kept;
    if (kept == 0) {
        gi_stand_down(GI_ERROR_CONFIG, "no hardware metric to gather (GPUQ_METRICS, "
                      "GPUQ_SECTIONS)");
        return 0;
    }
    return 1;
}

/* The counters file has a column for each metric gathered, and for the
 * instrumented ones the sass pass adds (counters v2: named columns). */
static void set_file_columns(gi_device *dev, const int *sass_rows, size_t n_sass)
{
    dev->meta.n_metrics = 0;
    for (size_t i = 0; i < n_sass; i++)
        dev->meta.metric_rows[dev->meta.n_metrics++] = sass_rows[i];
    for (size_t i = 0; i < dev->n_metrics && dev->meta.n_metrics < GM_METRIC_MAX; i++)
        dev->meta.metric_rows[dev->meta.n_metrics++] = (int)dev->metric_ids[i];
}

/* Metric i moves down to position *kept if the chip has it; else it is
 * dropped with a note (its column stays empty). */
static void keep_if_available(gi_device *dev, size_t i, int available, size_t *kept)
{
    if (!available) {
        gi_note("metric %s is not available on %s (%s): it stays empty", dev->metric_names[i],
                dev->chip, dev->meta.device_name);
        return;
    }
    dev->metric_names[*kept] = dev->metric_names[i];
    dev->metric_ids[*kept] = dev->metric_ids[i];
    (*kept)++;
}

static int no_metric_left(gi_device *dev)
{
    gi_stand_down(GI_ERROR_UNSUPPORTED, "none of gpuq's metrics exists on chip %s", dev->chip);
    return 0;
}

/* Chooses the metrics this chip knows among metric_rows().  All at once
 * first, on the host object that is then kept (dev->host); if the chip
 * rejects the set, each metric alone on a scratch host object, so that one
 * unknown name costs that metric (NaN), not the run, and dev->host is made
 * afresh with the ones kept.  CUPTI schedules the set into as few passes
 * as the counters allow (cuptiProfilerHostGetNumOfPasses, read after). */
static int choose_metrics(gi_device *dev, CUpti_Profiler_Host_Object *made)
{
    int rows[GM_METRIC_MAX], sass_rows[GM_METRIC_MAX];
    size_t n_rows = 0, n_sass = 0;
    if (!metric_rows(rows, &n_rows, GM_METRIC_MAX, sass_rows, &n_sass)) {
        if (made)
            host_deinit(made);
        return 0;
    }
    dev->n_metrics = 0;
    for (size_t i = 0; i < n_rows; i++) {
        dev->metric_names[dev->n_metrics] = gm_metric_table[rows[i]].name;
        dev->metric_ids[dev->n_metrics] = rows[i];
        dev->n_metrics++;
    }
    CUpti_Profiler_Host_Object *host = made;
    if (!host && !host_init(dev, &host))
        return 0;
    /* Names the chip does not know are dropped first (a property query,
     * 0.2 ms for 36 names): a failed cuptiProfilerHostConfigAddMetrics
     * leaves the host object unusable (measured with CUPTI 13.0's host API
     * for GH100: later adds fail with CUPTI_ERROR_UNKNOWN), and one host
     * object per name costs 30-100 ms each. */
    size_t valid = 0;
    for (size_t i = 0; i < dev->n_metrics; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params q;
        memset(&q, 0, sizeof q);
        q.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        q.pHostObject = host;
        q.pMetricName = dev->metric_names[i];
        keep_if_available(dev, i, cuptiProfilerHostGetMetricProperties(&q) == CUPTI_SUCCESS,
                          &valid);
    }
    dev->n_metrics = valid;
    if (valid == 0) {
        host_deinit(host);
        return no_metric_left(dev);
    }
    CUptiResult rc = add_metrics(host, dev->metric_names, dev->n_metrics);
    if (rc == CUPTI_SUCCESS) {
        dev->host = host;
        set_file_columns(dev, sass_rows, n_sass);
        return 1;
    }
    host_deinit(host);
    if (rc != CUPTI_ERROR_INVALID_PARAMETER && rc != CUPTI_ERROR_INVALID_METRIC_NAME)
        return gi_cupti_failed("cuptiProfilerHostConfigAddMetrics", rc);
    size_t kept = 0;
    for (size_t i = 0; i < dev->n_metrics; i++) {
        if (!host_init(dev, &host))
            return 0;
        rc = add_metrics(host, &dev->metric_names[i], 1);
        host_deinit(host);
        keep_if_available(dev, i, rc == CUPTI_SUCCESS, &kept);
    }
    dev->n_metrics = kept;
    if (kept == 0)
        return no_metric_left(dev);
    if (!host_init(dev, &dev->host))
        return 0;
    if ((rc = add_metrics(dev->host, dev->metric_names, dev->n_metrics)) != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerHostConfigAddMetrics", rc);
    set_file_columns(dev, sass_rows, n_sass);
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
    uint64_t t0 = gi_now_ns();
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
    gi_call_done(GI_CALL_DEVICE_SUPPORT, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerDeviceSupported", rc);
    if (sp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "device %d (%s): %s", dev->ordinal,
                      dev->meta.device_name, support_problem(&sp));
        return 0;
    }
    return 1;
}

int gi_host_setup(gi_device *dev, CUcontext ctx)
{
    /* The counter availability image is needed only for chips newer than
     * this CUPTI ("required for future chip support", CUpti_Profiler_Host_
     * Initialize_Params) and reading it costs about 115 ms on GH100, so it is
     * read only when the host object cannot be made without it.  It must be
     * read before any session exists on the device. */
    CUpti_Profiler_Host_Object *host = NULL;
    if (!host_works_without_availability(dev, &host) && !read_availability(dev, ctx))
        return 0;
    return choose_metrics(dev, host);
}

void gi_host_deinit(CUpti_Profiler_Host_Object *host)
{
    host_deinit(host);
}

int gi_host_for_metrics(gi_device *dev, const char **names, size_t n,
                        CUpti_Profiler_Host_Object **host, char *why, size_t len)
{
    *host = NULL;
    CUpti_Profiler_Host_Object *made = NULL;
    CUptiResult rc = host_initialize(dev, dev->availability, &made);
    if (rc != CUPTI_SUCCESS) {
        snprintf(why, len, "cuptiProfilerHostInitialize: CUPTI error %d", (int)rc);
        return 0;
    }
    if ((rc = add_metrics(made, names, n)) != CUPTI_SUCCESS) {
        host_deinit(made);
        snprintf(why, len, "cuptiProfilerHostConfigAddMetrics: CUPTI error %d", (int)rc);
        return 0;
    }
    *host = made;
    return 1;
}

int gi_host_config_image(CUpti_Profiler_Host_Object *host, uint8_t **config, size_t *size,
                         size_t *passes, char *why, size_t len)
{
    *config = NULL;
    *size = *passes = 0;
    CUpti_Profiler_Host_GetConfigImageSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sz.pHostObject = host;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerHostGetConfigImageSize(&sz);
    if (rc != CUPTI_SUCCESS) {
        snprintf(why, len, "cuptiProfilerHostGetConfigImageSize: CUPTI error %d", (int)rc);
        return 0;
    }
    uint8_t *image = malloc(sz.configImageSize);
    if (!image) {
        snprintf(why, len, "out of memory");
        return 0;
    }
    CUpti_Profiler_Host_GetConfigImage_Params ci;
    memset(&ci, 0, sizeof ci);
    ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    ci.pHostObject = host;
    ci.configImageSize = sz.configImageSize;
    ci.pConfigImage = image;
    rc = cuptiProfilerHostGetConfigImage(&ci);
    gi_call_done(GI_CALL_CONFIG_IMAGE, t0);
    if (rc != CUPTI_SUCCESS) {
        free(image);
        snprintf(why, len, "cuptiProfilerHostGetConfigImage: CUPTI error %d", (int)rc);
        return 0;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = sz.configImageSize;
    np.pConfigImage = image;
    t0 = gi_now_ns();
    rc = cuptiProfilerHostGetNumOfPasses(&np);
    gi_call_done(GI_CALL_NUM_PASSES, t0);
    if (rc != CUPTI_SUCCESS) {
        free(image);
        snprintf(why, len, "cuptiProfilerHostGetNumOfPasses: CUPTI error %d", (int)rc);
        return 0;
    }
    *config = image;
    *size = sz.configImageSize;
    *passes = np.numOfPasses;
    return 1;
}
