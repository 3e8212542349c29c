/* Profiling passes a metric set needs on a chip, from CUPTI's host API
 * alone (no GPU): cuptiProfilerHostGetNumOfPasses on the range profiler's
 * config image, the number the collector reads before it chooses user
 * replay (1 pass) or kernel replay (docs/profile.md).  One function for
 * the two tools that ask it: gpuq_metric_passes (per unit) and
 * validation/metric_passes (per list, validation/cupti_passes.sh). */
#ifndef GPUQ_INJECT_HOST_PASSES_H
#define GPUQ_INJECT_HOST_PASSES_H

#include <stddef.h>
#include <stdio.h>

/* Passes for names[0..n) on chip.  drop_unknown: names the chip does not
 * know are left out first, as the collector leaves them out (each listed
 * on list_unknown when it is not NULL); else such a name makes CUPTI
 * refuse the set.  Returns the passes, or -1 with the reason in why (empty
 * where no CUPTI call failed: no name left, out of memory). */
long gpuq_host_passes(const char *chip, const char **names, size_t n, int drop_unknown,
                      FILE *list_unknown, char *why, size_t len);

#endif
