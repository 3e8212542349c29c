/* The CUPTI host side of the counters pass (collector_host.c). */
#ifndef GPUQ_COLLECTOR_HOST_H
#define GPUQ_COLLECTOR_HOST_H

#include "collector_internal.h"

/* Chip name and cuptiProfilerDeviceSupported for one API (both passes). */
int gi_device_chip_and_support(gi_device *dev, CUpti_Profiler_API api);
/* The host object (dev->host) with the metrics to gather (dev->metric_names,
 * dev->metric_ids, the counters file's columns in dev->meta), reading the
 * availability image only if the chip needs it.  0 after standing down. */
int gi_host_setup(gi_device *dev, CUcontext ctx);
void gi_host_deinit(CUpti_Profiler_Host_Object *host);
/* A host object of the device's chip with names[0..n) added; 0 (why says
 * which call failed) without standing down. */
int gi_host_for_metrics(gi_device *dev, const char **names, size_t n,
                        CUpti_Profiler_Host_Object **host, char *why, size_t len);
/* The configuration image of host's metrics (malloc'ed, *config) and the
 * passes it needs; 0 (why says which call failed) without standing down. */
int gi_host_config_image(CUpti_Profiler_Host_Object *host, uint8_t **config, size_t *size,
                         size_t *passes, char *why, size_t len);

#endif
