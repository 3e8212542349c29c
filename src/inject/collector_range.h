/* The counters pass: CUPTI's range profiler (collector_range.c). */
#ifndef GPUQ_COLLECTOR_RANGE_H
#define GPUQ_COLLECTOR_RANGE_H

#include "collector_internal.h"

/* Chip name and cuptiProfilerDeviceSupported for one API (collector_range.c). */
int gi_device_chip_and_support(gi_device *dev, CUpti_Profiler_API api);

/* Range profiler (collector_range.c). */
int gi_range_device_setup(gi_device *dev, CUcontext ctx);
int gi_range_begin(gi_device *dev, CUcontext ctx);
int gi_range_end(gi_device *dev, gi_launch *launch, int launch_ok);
/* Closes the open window (dev->lock held): Stop, Decode, one row per
 * launch in it.  Returns 0 when the collector stood down. */
int gi_range_flush(gi_device *dev);
void gi_range_context_gone(gi_device *dev, CUcontext ctx);

void gi_range_device_teardown(gi_device *dev);

#endif
