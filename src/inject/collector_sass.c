/* The sass pass: how often each instruction of a profiled kernel executed
 * (the CUPTI SASS metric GPUQ_SASS_METRIC, one warp-level count per
 * instruction; gpuq profile sets the one of the run's code pass), and the
 * cubins to find each instruction's opcode in.  What the counts mean is the
 * code pass's, which gpuq profile applies after the program ends (the file:
 * gi_protocol.h; its reader: src/host/host_sass.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cupti_pcsampling.h>

#include "collector_internal.h"
#include "collector_host.h"
#include "collector_sass.h"

#define g g_collector

/* GPUQ_VERBOSE=2: the SASS metrics the chip offers. */
static void list_sass_metrics(const char *chip)
{
    CUpti_SassMetrics_GetNumOfMetrics_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE;
    np.pChipName = chip;
    if (cuptiSassMetricsGetNumOfMetrics(&np) != CUPTI_SUCCESS || np.numOfMetrics == 0)
        return;
    CUpti_SassMetrics_MetricDetails *list = calloc(np.numOfMetrics, sizeof *list);
    if (!list)
        return;
    CUpti_SassMetrics_GetMetrics_Params mp;
    memset(&mp, 0, sizeof mp);
    mp.structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE;
    mp.pChipName = chip;
    mp.numOfMetrics = np.numOfMetrics;
    mp.pMetricsList = list;
    if (cuptiSassMetricsGetMetrics(&mp) == CUPTI_SUCCESS)
        for (size_t i = 0; i < np.numOfMetrics; i++)
            gi_verbose("SASS metric %s: %s", list[i].pMetricName ? list[i].pMetricName : "?",
                       list[i].pMetricDescription ? list[i].pMetricDescription : "");
    free(list);
}

int gi_sass_device_setup(gi_device *dev)
{
    if (!gi_device_chip_and_support(dev, CUPTI_PROFILER_SASS_METRICS))
        return 0;
    CUpti_SassMetrics_GetProperties_Params gp;
    memset(&gp, 0, sizeof gp);
    gp.structSize = CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE;
    gp.pChipName = dev->chip;
    gp.pMetricName = g.sass_metric;
    if (g.verbose > 1)
        list_sass_metrics(dev->chip);
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiSassMetricsGetProperties(&gp);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiSassMetricsGetProperties", rc);
    dev->sass_metric_id = gp.metric.metricId;

    /* Whole-GPU totals per instruction: a code pass sums them per launch. */
    CUpti_SassMetrics_Config config = {dev->sass_metric_id, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU};
    CUpti_SassMetricsSetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
    sc.numOfMetricConfig = 1;
    sc.pConfigs = &config;
    sc.deviceIndex = (uint32_t)dev->ordinal;
    rc = cuptiSassMetricsSetConfig(&sc);
    gi_call_done(GI_CALL_SASS_SETUP, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiSassMetricsSetConfig", rc);
    dev->sass_configured = 1;
    snprintf(dev->meta.source, sizeof dev->meta.source, "gpuq profile sass pass on %s",
             dev->meta.device_name);
    gi_verbose("device %d: SASS metric %s has id %" PRIu64, dev->ordinal, g.sass_metric,
               dev->sass_metric_id);
    return 1;
}

int gi_sass_context_enable(gi_device *dev, gi_context *c)
{
    (void)dev;
    /* Lazy patching instruments each kernel at its first launch instead of
     * every function of every module up front. */
    CUpti_SassMetricsEnable_Params ep;
    memset(&ep, 0, sizeof ep);
    ep.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
    ep.ctx = c->ctx;
    ep.enableLazyPatching = 1;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiSassMetricsEnable(&ep);
    gi_call_done(GI_CALL_SASS_ENABLE, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiSassMetricsEnable", rc);
    c->sass_enabled = 1;
    return 1;
}

/* A growing text buffer for one launch's records. */
typedef struct text_buf {
    char *data;
    size_t len, cap;
    int failed;
} text_buf;

static void tb_printf(text_buf *tb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_printf(text_buf *tb, const char *fmt, ...)
{
    if (tb->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = tb->cap - tb->len;
        int n = tb->data ? vsnprintf(tb->data + tb->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            tb->len += (size_t)n;
            return;
        }
        size_t want = tb->cap ? tb->cap * 2 : 4096;
        while (n >= 0 && want < tb->len + (size_t)n + 1)
            want *= 2;
        char *bigger = realloc(tb->data, want);
        if (!bigger) {
            tb->failed = 1;
            return;
        }
        tb->data = bigger;
        tb->cap = want;
    }
}

/* Where the records of a graph launch go: the kernel node whose function
 * the record is in (the graph's kernel functions are distinct). */
typedef struct record_route {
    size_t n;
    const char *const *names;    /* mangled function name of each node */
    const uint64_t *ids;         /* its launch id */
    text_buf *per;               /* its records */
    size_t *counts;
} record_route;

/* Takes CUPTI's buffered per-instruction counts of ctx.  With a buffer,
 * writes the executed ones as "inst" records of launch_id (with a route,
 * of the node whose function they are in); without, drops them (counts of
 * unprofiled launches). */
static int flush_records_routed(gi_device *dev, CUcontext ctx, text_buf *tb, uint64_t launch_id,
                                size_t *written, const record_route *route)
{
    *written = 0;
    uint64_t t0 = gi_now_ns();
    CUpti_SassMetricsGetDataProperties_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
    dp.ctx = ctx;
    CUptiResult rc = cuptiSassMetricsGetDataProperties(&dp);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiSassMetricsGetDataProperties", rc);
    size_t n = dp.numOfPatchedInstructionRecords, instances = dp.numOfInstances;
    if (n == 0 || instances == 0)
        return 1;
    CUpti_SassMetrics_Data *data = calloc(n, sizeof *data);
    CUpti_SassMetrics_InstanceValue *values = calloc(n * instances, sizeof *values);
    if (!data || !values) {
        free(data);
        free(values);
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        data[i].structSize = sizeof data[i];
        data[i].pInstanceValues = &values[i * instances];
    }
    CUpti_SassMetricsFlushData_Params fp;
    memset(&fp, 0, sizeof fp);
    fp.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
    fp.ctx = ctx;
    fp.numOfPatchedInstructionRecords = n;
    fp.numOfInstances = instances;
    fp.pMetricsData = data;
    rc = cuptiSassMetricsFlushData(&fp);
    gi_call_done(GI_CALL_SASS_FLUSH, t0);
    if (rc != CUPTI_SUCCESS) {
        free(data);
        free(values);
        return gi_cupti_failed("cuptiSassMetricsFlushData", rc);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t executions = 0;
        for (size_t j = 0; j < instances; j++)
            if (data[i].pInstanceValues[j].metricId == dev->sass_metric_id)
                executions += data[i].pInstanceValues[j].value;
        if (route && executions > 0 && data[i].functionName) {
            for (size_t j = 0; j < route->n; j++)
                if (strcmp(route->names[j], data[i].functionName) == 0) {
                    tb_printf(&route->per[j], "inst,%" PRIu64 ",%" PRIx32 ",%" PRIu32 ",%" PRIu64
                              ",%s\n", route->ids[j], data[i].cubinCrc, data[i].pcOffset,
                              executions, data[i].functionName);
                    route->counts[j]++;
                    break;
                }
        } else if (tb && executions > 0 && data[i].functionName) {
            tb_printf(tb, "inst,%" PRIu64 ",%" PRIx32 ",%" PRIu32 ",%" PRIu64 ",%s\n", launch_id,
                      data[i].cubinCrc, data[i].pcOffset, executions, data[i].functionName);
            (*written)++;
        }
        free((void *)data[i].functionName); /* CUPTI hands the name over */
    }
    free(data);
    free(values);
    return 1;
}

static int flush_records(gi_device *dev, CUcontext ctx, text_buf *tb, uint64_t launch_id,
                         size_t *written)
{
    return flush_records_routed(dev, ctx, tb, launch_id, written, NULL);
}

static gi_context *enabled_context(gi_device *dev, CUcontext ctx)
{
    for (size_t i = 0; i < g.n_contexts; i++)
        if (g.contexts[i].ctx == ctx) {
            if (!g.contexts[i].sass_enabled && !gi_sass_context_enable(dev, &g.contexts[i]))
                return NULL;
            return &g.contexts[i];
        }
    if (g.n_contexts >= GI_MAX_CONTEXTS) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "more than %d CUDA contexts", GI_MAX_CONTEXTS);
        return NULL;
    }
    /* A context created before the collector saw it. */
    gi_context *c = &g.contexts[g.n_contexts++];
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->device = dev->ordinal;
    return gi_sass_context_enable(dev, c) ? c : NULL;
}

int gi_sass_context_ready(gi_device *dev, CUcontext ctx)
{
    pthread_mutex_lock(&g.contexts_lock);
    gi_context *c = enabled_context(dev, ctx);
    pthread_mutex_unlock(&g.contexts_lock);
    return c != NULL;
}

int gi_sass_begin(gi_device *dev, CUcontext ctx)
{
    uint64_t t0 = gi_now_ns();
    if (!gi_sass_context_ready(dev, ctx))
        return 0;
    if (dev->dirty) {
        /* Counts accumulate per instruction until flushed: drop those of
         * the unprofiled launches since the last window. */
        if (!gi_ctx_synchronize())
            return 0;
        size_t dropped;
        if (!flush_records(dev, ctx, NULL, 0, &dropped))
            return 0;
        dev->dirty = 0;
    }
    dev->phase_ns[GI_PHASE_SYNC] += gi_now_ns() - t0;
    return 1;
}

int gi_sass_end(gi_device *dev, gi_launch *launch, int launch_ok)
{
    uint64_t t0 = gi_now_ns();
    if (!gi_ctx_synchronize())
        return 0;
    uint64_t t1 = gi_now_ns();
    if (!launch_ok) {
        size_t dropped;
        return flush_records(dev, launch->ctx, NULL, 0, &dropped);
    }
    text_buf tb = {0};
    tb_printf(&tb, "launch,%" PRIu64 ",%d,%s\n", launch->launch_id, dev->ordinal,
              launch->k.mangled ? launch->k.mangled : launch->k.kernel);
    size_t written = 0;
    int ok = flush_records(dev, launch->ctx, &tb, launch->launch_id, &written);
    /* The end line marks the launch complete: a launch cut short by a
     * crash is recognisable and left out. */
    tb_printf(&tb, "end,%" PRIu64 ",%zu\n", launch->launch_id, written);
    uint64_t t2 = gi_now_ns();
    if (tb.failed) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        ok = 0;
    } else if (ok) {
        gi_write_sass_text(tb.data);
        pthread_mutex_lock(&g.lock);
        g.rows_written++;
        pthread_mutex_unlock(&g.lock);
    }
    free(tb.data);
    uint64_t t3 = gi_now_ns();
    dev->phase_ns[GI_PHASE_STOP] += t1 - t0;
    dev->phase_ns[GI_PHASE_EVALUATE] += t2 - t1;
    dev->phase_ns[GI_PHASE_WRITE] += t3 - t2;
    dev->phase_launches++;
    return ok;
}

int gi_sass_end_graph(gi_device *dev, CUcontext ctx, size_t n, const char *const *mangled,
                      const uint64_t *ids, int launch_ok)
{
    if (!gi_ctx_synchronize())
        return 0;
    size_t dropped;
    if (!launch_ok)
        return flush_records(dev, ctx, NULL, 0, &dropped);
    text_buf *per = calloc(n + 1, sizeof *per);
    size_t *counts = calloc(n + 1, sizeof *counts);
    if (!per || !counts) {
        free(per);
        free(counts);
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    record_route route = {n, mangled, ids, per, counts};
    int ok = flush_records_routed(dev, ctx, NULL, 0, &dropped, &route);
    text_buf all = {0};
    for (size_t j = 0; ok && j < n; j++) {
        tb_printf(&all, "launch,%" PRIu64 ",%d,%s\n", ids[j], dev->ordinal, mangled[j]);
        if (per[j].data)
            tb_printf(&all, "%s", per[j].data);
        tb_printf(&all, "end,%" PRIu64 ",%zu\n", ids[j], counts[j]);
    }
    if (all.failed) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        ok = 0;
    } else if (ok && all.data) {
        gi_write_sass_text(all.data);
        pthread_mutex_lock(&g.lock);
        g.rows_written += n;
        pthread_mutex_unlock(&g.lock);
    }
    for (size_t j = 0; j < n; j++)
        free(per[j].data);
    free(per);
    free(counts);
    free(all.data);
    dev->phase_launches += n;
    return ok;
}

void gi_sass_context_gone(gi_context *c)
{
    if (!c->sass_enabled)
        return;
    CUpti_SassMetricsDisable_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    dp.ctx = c->ctx;
    CUptiResult rc = cuptiSassMetricsDisable(&dp);
    if (rc != CUPTI_SUCCESS)
        gi_verbose("cuptiSassMetricsDisable returned %d", (int)rc);
    else if (dp.numOfDroppedRecords)
        gi_verbose("%zu SASS records of unprofiled launches dropped at the end",
                   dp.numOfDroppedRecords);
    c->sass_enabled = 0;
}

void gi_sass_device_teardown(gi_device *dev)
{
    if (!dev->sass_configured)
        return;
    CUpti_SassMetricsUnsetConfig_Params up;
    memset(&up, 0, sizeof up);
    up.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    up.deviceIndex = (uint32_t)dev->ordinal;
    cuptiSassMetricsUnsetConfig(&up);
    dev->sass_configured = 0;
}

/* 1 when the file holds exactly these bytes. */
static int same_file_content(const char *path, const char *data, size_t size)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || (size_t)sb.st_size != size)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[65536];
    size_t off = 0, got;
    int same = 1;
    while (same && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        same = off + got <= size && memcmp(buf, data + off, got) == 0;
        off += got;
    }
    fclose(f);
    return same && off == size;
}

/* Saves each distinct cubin once; the sass pass records it with its CRC.
 * The CRC is not unique: PyTorch loads cubins of the same size that share
 * one (seen on GH100), so files are <crc>-<k>.cubin and compared byte for
 * byte. */
void gi_sass_module_loaded(const CUpti_ModuleResourceData *module)
{
    if (!module->pCubin || module->cubinSize == 0)
        return;
    uint64_t t0 = gi_now_ns();
    CUpti_GetCubinCrcParams cp;
    memset(&cp, 0, sizeof cp);
    cp.size = CUpti_GetCubinCrcParamsSize;
    cp.cubinSize = module->cubinSize;
    cp.cubin = module->pCubin;
    CUptiResult rc = cuptiGetCubinCrc(&cp);
    if (rc != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiGetCubinCrc", rc);
        return;
    }
    if (mkdir(g.cubin_dir, 0755) != 0 && errno != EEXIST) {
        gi_stand_down(GI_ERROR_IO, "cannot create '%s' (%s)", g.cubin_dir, strerror(errno));
        return;
    }
    char path[GI_PATH_MAX + 64];
    struct stat sb;
    for (unsigned k = 0;; k++) {
        snprintf(path, sizeof path, "%s/%016" PRIx64 "-%u.cubin", g.cubin_dir, cp.cubinCrc, k);
        if (stat(path, &sb) != 0)
            break; /* a free name: a cubin not seen before */
        if (same_file_content(path, module->pCubin, module->cubinSize))
            return; /* the same cubin, loaded into another context */
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(module->pCubin, 1, module->cubinSize, f) != module->cubinSize) {
        int e = errno;
        if (f)
            fclose(f);
        gi_stand_down(GI_ERROR_IO, "cannot save the cubin '%s' (%s)", path, strerror(e));
        return;
    }
    if (fclose(f) != 0) {
        gi_stand_down(GI_ERROR_IO, "cannot save the cubin '%s' (%s)", path, strerror(errno));
        return;
    }
    if (g.pass == GI_PASS_SASS) {
        char line[GI_PATH_MAX + 128];
        snprintf(line, sizeof line, "cubin,%" PRIx64 ",%s\n", cp.cubinCrc, path);
        gi_write_sass_text(line);
    }
    pthread_mutex_lock(&g.lock);
    g.cubins_saved++;
    pthread_mutex_unlock(&g.lock);
    gi_call_done(GI_CALL_SAVE_CUBIN, t0);
}
