/* Kernel shapes measured in full (collector_repeat.c): a table from a
 * launch's shape (mangled kernel name, grid, block, registers per thread,
 * shared memory per block) to the counters of its last launch measured in
 * full.  No CUPTI: the cmocka tests use it as the collector does. */
#ifndef GPUQ_GI_SHAPES_H
#define GPUQ_GI_SHAPES_H

#include <stddef.h>

#include "gpuq/counters.h"

typedef struct gi_shapes gi_shapes;

/* A table that remembers at most max_shapes shapes; NULL when out of
 * memory. */
gi_shapes *gi_shapes_new(size_t max_shapes);
void gi_shapes_free(gi_shapes *t);
size_t gi_shapes_count(const gi_shapes *t);

/* Launches of k's shape measured in full so far (0: none). */
long gi_shapes_full(const gi_shapes *t, const gm_launch_counters *k);
/* k, measured in full, becomes its shape's source (its metric[] copied)
 * and counts one more full launch.  0 when it could not be kept: the table
 * holds max_shapes others, or out of memory (the shape then stays measured
 * in full). */
int gi_shapes_remember(gi_shapes *t, const gm_launch_counters *k);
/* Every metric row r with !own[r] of k, from its shape's source; rows own
 * marks keep k's values.  The work must match first: metric row `work`
 * (instructions issued), measured on k too, within `tolerance` (relative)
 * of the source's.  1 completed; 0 (k unchanged) when the shape has no
 * source; -1 (k unchanged) when the work differs: the shape is marked as
 * varying, and gi_shapes_full answers 0 for it from then on, so that its
 * later launches are measured in full. */
int gi_shapes_complete(gi_shapes *t, gm_launch_counters *k, const unsigned char *own, int work,
                       double tolerance);

#endif
