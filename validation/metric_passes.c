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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_passes.h"

static int passes(const char *chip, char *list, size_t *out)
{
    const char *names[256];
    size_t n = 0;
    for (char *t = strtok(list, ","); t && n < 256; t = strtok(NULL, ","))
        names[n++] = t;
    char why[256];
    long p = gpuq_host_passes(chip, names, n, 0, NULL, why, sizeof why);
    if (p < 0) {
        if (why[0])
            fprintf(stderr, "metric_passes: %s\n", why);
        return -1;
    }
    *out = (size_t)p;
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
