/* The counters pass: CUPTI's range profiler (collector_range.c). */
#ifndef GPUQ_COLLECTOR_RANGE_H
#define GPUQ_COLLECTOR_RANGE_H

#include "collector_internal.h"

/* Range profiler (collector_range.c). */
int gi_range_device_setup(gi_device *dev, CUcontext ctx);
/* Opens (or joins) a window for a launch: of the one-pass set when repeat
 * (gi_repeat_wants) and the device has one, else of the full set. */
int gi_range_begin(gi_device *dev, CUcontext ctx, int repeat);
int gi_range_end(gi_device *dev, gi_launch *launch, int launch_ok);
/* Closes the open window (dev->lock held): Stop, Decode, one row per
 * launch in it.  Returns 0 when the collector stood down. */
int gi_range_flush(gi_device *dev);
void gi_range_context_gone(gi_device *dev, CUcontext ctx);

void gi_range_device_teardown(gi_device *dev);

/* A graph launch's own window (collector_graph.c), dev->lock held: closes
 * the open window, waits for unprofiled work, Start with room for `kernels`
 * ranges.  Returns 0 when it did not open one: after standing down (why
 * empty), or when CUPTI refused it on the graph path (why says which call
 * and error; the collector goes on). */
int gi_range_graph_begin(gi_device *dev, CUcontext ctx, size_t kernels, char *why, size_t len);
/* Stop and Decode of that window: the ranges CUPTI gave and dropped, and
 * when ranges == expected, each range's metric values (values[i *
 * dev->n_metrics + m], in dev->metric_names order).  0 on a CUPTI failure
 * (why says which). */
int gi_range_graph_collect(gi_device *dev, size_t expected, size_t *ranges, size_t *dropped,
                           double *values, char *why, size_t len);

#endif
