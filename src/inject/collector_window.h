/* The range profiler's calls (collector_window.c), for the windows of
 * collector_range.c.  Each returns 1 on success, else what
 * gi_window_failed returns: with why NULL (ordinary windows) the collector
 * stands down; with why given (graph windows) the failure is said there
 * and the launches outside graphs go on being profiled. */
#ifndef GPUQ_COLLECTOR_WINDOW_H
#define GPUQ_COLLECTOR_WINDOW_H

#include "collector_internal.h"
#include "collector_repeat.h"

int gi_window_failed(char *why, size_t len, const char *call, CUptiResult rc);
/* (Re)initializes a counter data image of a set for `ranges` ranges. */
int gi_rp_init_image(gi_device *dev, const gi_metric_set *set, size_t ranges, uint8_t *data,
                     size_t size, char *why, size_t len);
/* The counter data image's size for `ranges` ranges of a set's metrics
 * (the layout the next gi_rp_init_image of that set and ranges uses). */
int gi_rp_counter_data_size(gi_device *dev, const gi_metric_set *set, size_t ranges,
                            size_t *size, char *why, size_t len);
/* SetConfig of a set on a counter data image of `capacity` ranges. */
int gi_rp_set_config(gi_device *dev, const gi_metric_set *set, uint8_t *data, size_t size,
                     size_t capacity, char *why, size_t len);
int gi_rp_start(gi_device *dev, char *why, size_t len);
/* Stop; *all_submitted: no further pass is asked for. */
int gi_rp_stop(gi_device *dev, int *all_submitted, char *why, size_t len);
/* Decode waits for the window's kernels (it synchronizes the context). */
int gi_rp_decode(gi_device *dev, size_t *dropped, char *why, size_t len);
int gi_rp_ranges(const uint8_t *data, size_t size, size_t *ranges, char *why, size_t len);
/* A set's metrics of one range, into values[0..set->n_metrics). */
int gi_rp_evaluate(const gi_metric_set *set, const uint8_t *data, size_t size, size_t range,
                   double *values, char *why, size_t len);

#endif
