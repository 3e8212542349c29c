/* Kernel shapes measured in full (collector_repeat.c): a table from a
 * launch's shape (mangled kernel name, grid, block, registers per thread,
 * shared memory per block) to the counters of its launches measured in
 * full, one per distinct work (instructions issued): the same kernel at the
 * same shape can do other work for other arguments (PyTorch's reduce_kernel
 * reduces tensors of several sizes at one grid).  No CUPTI: the cmocka
 * tests use it as the collector does. */
#ifndef GPUQ_GI_SHAPES_H
#define GPUQ_GI_SHAPES_H

#include <stddef.h>

#include "gpuq/counters.h"

typedef struct gi_shapes gi_shapes;

/* Distinct works a shape keeps a full launch of; a shape that does more
 * (or a new work when the table holds 2 x max_shapes works over all its
 * shapes) is measured in full from then on.  PyTorch's mean reduce_kernel did 5 at
 * one grid in tests/bench/torch_library_kernels.py (H200). */
#define GI_SHAPE_SOURCES 16
/* Full launches of a shape after a refused repeat, at most, while none
 * brings a new work: the refused one may not come back (a one-off). */
#define GI_SHAPE_LEARN 4

/* A table that remembers at most max_shapes shapes; NULL when out of
 * memory. */
gi_shapes *gi_shapes_new(size_t max_shapes);
void gi_shapes_free(gi_shapes *t);
size_t gi_shapes_count(const gi_shapes *t);

/* Launches of k's shape measured in full so far; 0 for a shape not seen,
 * and while its next launch should be measured in full (a repeat did work
 * none of its full launches did, until a full launch brings a new work or
 * GI_SHAPE_LEARN have not; or more works than GI_SHAPE_SOURCES). */
long gi_shapes_full(const gi_shapes *t, const gm_launch_counters *k);
/* k, measured in full, becomes the source of its shape for its work
 * (metric row `work`, within `tolerance` relative; work < 0: one source per
 * shape) and counts one more full launch.  A work no source did is a new
 * source, and ends the full launches a refused repeat asked for; a known
 * work counts one of the GI_SHAPE_LEARN they may take.  0 when it
 * could not be kept: the table holds max_shapes others, or out of memory
 * (the shape then stays measured in full). */
int gi_shapes_remember(gi_shapes *t, const gm_launch_counters *k, int work, double tolerance);
/* Every metric row r with !own[r] of k, from the source of its shape whose
 * work (row `work`, measured on k too) is within `tolerance` of k's; work
 * < 0: the newest source.  1 completed; 0 (k unchanged) when the shape has
 * no source; -1 (k unchanged) when no source did k's work: gi_shapes_full
 * then answers 0 for the shape until a full launch brings a new work. */
int gi_shapes_complete(gi_shapes *t, gm_launch_counters *k, const unsigned char *own, int work,
                       double tolerance);

#endif
