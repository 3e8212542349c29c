/* The suite table (suite.h): one row per paper's microbenchmark suite, in
 * the order `gpuq calibrate` runs them.  Adding a suite: its file
 * src/papers/<name>/<name>_suite.c and one row here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/suite.h"

extern const gb_suite gb_suite_atomics; /* paper 000: shared-memory atomics (atomics_suite.c) */
extern const gb_suite gb_suite_gatomics; /* paper 002: global-memory atomics (gatomics_suite.c) */
extern const gb_suite gb_suite_throughput; /* paper 004: Zhang & Owens (bottleneck_suite.c) */
extern const gb_suite gb_suite_units; /* paper 004 on Hopper's units (bottleneck_units_suite.c) */
extern const gb_suite gb_suite_sched; /* paper 003: GPUDIAG scheduling parameters (waves_suite.c) */

const gb_suite *const gb_suites[] = {
    &gb_suite_atomics,
    &gb_suite_gatomics,
    &gb_suite_throughput,
    &gb_suite_units,
    &gb_suite_sched,
    NULL,
};

size_t gb_suite_count(void)
{
    size_t n = 0;
    while (gb_suites[n])
        n++;
    return n;
}

const gb_suite *gb_suite_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; gb_suites[i]; i++)
        if (strcmp(gb_suites[i]->name, name) == 0)
            return gb_suites[i];
    return NULL;
}

gm_status gb_suite_parse_int(const char *suite, const char *key, const char *value, int lo,
                             int hi, int *out, gm_error *err)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < lo || v > hi)
        return gm_fail(err, GM_ERR_RANGE, "%s.%s needs a whole number in %d..%d, got '%s'",
                       suite, key, lo, hi, value);
    *out = (int)v;
    return GM_OK;
}
