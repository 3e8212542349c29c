/* Profiling passes a metric set needs on a chip, from CUPTI's host API
 * alone (no GPU): cuptiProfilerHostGetNumOfPasses on the range profiler's
 * config image, the number gpuq's collector reads before it chooses user
 * replay (1 pass) or kernel replay (docs/validation.md, "The latency
 * quantity": what the stall counters cost).
 *
 *   metric_passes CHIP LIST [LIST...]     e.g. metric_passes GH100 a.sum,b.sum
 *
 * Prints "<passes><TAB><list>" per list, "?" where CUPTI refuses the set
 * (an unknown metric: the reason is on stderr).  Exit 0, 1 on usage. */
#define _POSIX_C_SOURCE 200809L
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passes(const char *chip, char *list, size_t *out)
{
    const char *names[256];
    size_t n = 0;
    for (char *t = strtok(list, ","); t && n < 256; t = strtok(NULL, ","))
        names[n++] = t;
    CUpti_Profiler_Host_Initialize_Params ip;
    memset(&ip, 0, sizeof ip);
    ip.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    ip.pChipName = chip;
    CUptiResult rc = cuptiProfilerHostInitialize(&ip);
    if (rc != CUPTI_SUCCESS) {
        fprintf(stderr, "metric_passes: cuptiProfilerHostInitialize for chip '%s': error %d\n", chip, (int)rc);
        return -1;
    }
    CUpti_Profiler_Host_ConfigAddMetrics_Params ap;
    memset(&ap, 0, sizeof ap);
    ap.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    ap.pHostObject = ip.pHostObject;
    ap.ppMetricNames = names;
    ap.numMetrics = n;
    if ((rc = cuptiProfilerHostConfigAddMetrics(&ap)) != CUPTI_SUCCESS) {
        fprintf(stderr, "metric_passes: cuptiProfilerHostConfigAddMetrics: error %d\n", (int)rc);
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImageSize_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    sp.pHostObject = ip.pHostObject;
    if ((rc = cuptiProfilerHostGetConfigImageSize(&sp)) != CUPTI_SUCCESS) return -1;
    uint8_t *img = malloc(sp.configImageSize);
    if (!img)
        return -1;
    CUpti_Profiler_Host_GetConfigImage_Params cp;
    memset(&cp, 0, sizeof cp);
    cp.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    cp.pHostObject = ip.pHostObject;
    cp.configImageSize = sp.configImageSize;
    cp.pConfigImage = img;
    if ((rc = cuptiProfilerHostGetConfigImage(&cp)) != CUPTI_SUCCESS) {
        free(img);
        return -1;
    }
    CUpti_Profiler_Host_GetNumOfPasses_Params np;
    memset(&np, 0, sizeof np);
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = sp.configImageSize;
    np.pConfigImage = img;
    if ((rc = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS) {
        free(img);
        return -1;
    }
    *out = np.numOfPasses;
    free(img);
    CUpti_Profiler_Host_Deinitialize_Params dp;
    memset(&dp, 0, sizeof dp);
    dp.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    dp.pHostObject = ip.pHostObject;
    cuptiProfilerHostDeinitialize(&dp);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: metric_passes CHIP LIST [LIST...] (LIST: comma-separated metric names)\n");
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        char *copy = strdup(argv[i]);
        size_t p = 0;
        if (!copy) {
            fprintf(stderr, "metric_passes: out of memory\n");
            return 1;
        }
        if (passes(argv[1], copy, &p) != 0)
            printf("?\t%s\n", argv[i]);
        else
            printf("%zu\t%s\n", p, argv[i]);
        free(copy);
    }
    return 0;
}
