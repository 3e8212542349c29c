/* gpuq_host_passes (host_passes.h). */
#include "host_passes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_profiler_host.h>

static long failed(char *why, size_t len, const char *call, CUptiResult rc)
{
    snprintf(why, len, "%s: error %d", call, (int)rc);
    return -1;
}

/* The passes of host's configuration once names[0..n) are added to it. */
static long config_passes(CUpti_Profiler_Host_Object *host, const char **names, size_t n,
                          char *why, size_t len)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params a;
    memset(&a, 0, sizeof a);
    a.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    a.pHostObject = host;
    a.ppMetricNames = names;
    a.numMetrics = n;
    CUptiResult rc = cuptiProfilerHostConfigAddMetrics(&a);
    if (rc != CUPTI_SUCCESS)
        return failed(why, len, "cuptiProfilerHostConfigAddMetrics", rc);
    CUpti_Profiler_Host_GetConfigImageSize_Params sz;
    memset(&sz, 0, sizeof sz);
    sz.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sz.pHostObject = host;
    if ((rc = cuptiProfilerHostGetConfigImageSize(&sz)) != CUPTI_SUCCESS)
        return failed(why, len, "cuptiProfilerHostGetConfigImageSize", rc);
    uint8_t *img = malloc(sz.configImageSize);
    if (!img)
        return -1;
    long result = -1;
    CUpti_Profiler_Host_GetConfigImage_Params ci;
    memset(&ci, 0, sizeof ci);
    ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    ci.pHostObject = host;
    ci.configImageSize = sz.configImageSize;
    ci.pConfigImage = img;
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = sz.configImageSize;
    np.pConfigImage = img;
    if ((rc = cuptiProfilerHostGetConfigImage(&ci)) != CUPTI_SUCCESS)
        failed(why, len, "cuptiProfilerHostGetConfigImage", rc);
    else if ((rc = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS)
        failed(why, len, "cuptiProfilerHostGetNumOfPasses", rc);
    else
        result = (long)np.numOfPasses;
    free(img);
    return result;
}

long gpuq_host_passes(const char *chip, const char **names, size_t n, int drop_unknown,
                      FILE *list_unknown, char *why, size_t len)
{
    why[0] = '\0';
    CUpti_Profiler_Host_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip;
    CUptiResult rc = cuptiProfilerHostInitialize(&p);
    if (rc != CUPTI_SUCCESS) {
        snprintf(why, len, "cuptiProfilerHostInitialize for chip '%s': error %d", chip, (int)rc);
        return -1;
    }
    long result = -1;
    if (!drop_unknown) {
        result = config_passes(p.pHostObject, names, n, why, len);
    } else {
        /* A name CUPTI does not know would fail the whole set: a property
         * query finds them first (as collector_host.c does). */
        const char **valid = calloc(n + 1, sizeof *valid);
        size_t nv = 0;
        for (size_t i = 0; valid && i < n; i++) {
            CUpti_Profiler_Host_GetMetricProperties_Params q;
            memset(&q, 0, sizeof q);
            q.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
            q.pHostObject = p.pHostObject;
            q.pMetricName = names[i];
            if (cuptiProfilerHostGetMetricProperties(&q) == CUPTI_SUCCESS)
                valid[nv++] = names[i];
            else if (list_unknown)
                fprintf(list_unknown, "  unknown on %s: %s\n", chip, names[i]);
        }
        if (nv)
            result = config_passes(p.pHostObject, valid, nv, why, len);
        free(valid);
    }
    CUpti_Profiler_Host_Deinitialize_Params d;
    memset(&d, 0, sizeof d);
    d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    d.pHostObject = p.pHostObject;
    cuptiProfilerHostDeinitialize(&d);
    return result;
}
