/* Repeated launches (collector_repeat.c): a kernel shape measured in full
 * is not replayed again. */
#ifndef GPUQ_COLLECTOR_REPEAT_H
#define GPUQ_COLLECTOR_REPEAT_H

#include "collector_internal.h"

/* The one-pass set of a device whose full set needs kernel replay (none
 * otherwise, or with GPUQ_FULL_LAUNCHES=0).  0 only after standing down
 * (out of memory); a set CUPTI will not make in one pass is left out with
 * a GPUQ_VERBOSE line. */
int gi_repeat_setup(gi_device *dev);
void gi_repeat_teardown(gi_device *dev);
/* For the counters file's source line: "; repeats ..." or "" without a set. */
void gi_repeat_describe(const gi_device *dev, char *buf, size_t len);

/* 1 when this launch's kernel shape has had its GPUQ_FULL_LAUNCHES
 * launches measured in full: it gets the one-pass set. */
int gi_repeat_wants(const gi_device *dev, const gm_launch_counters *k);
/* After a full window: the row becomes its shape's source for its work
 * (a row without its duration does not). */
void gi_repeat_remember(gi_device *dev, const gm_launch_counters *k);
/* After a one-pass window: the metrics outside the set, from the shape's
 * newest full launch of the same work (gi_shapes.h). */
void gi_repeat_complete(const gi_device *dev, gm_launch_counters *k);

/* The one-pass set, for the range profiler's calls (collector_range.c). */
typedef struct gi_metric_set {
    CUpti_Profiler_Host_Object *host;
    const uint8_t *config;
    size_t config_size;
    CUpti_ProfilerReplayMode replay;
    size_t n_metrics;
    const char *const *metric_names;
    const int *metric_ids;
} gi_metric_set;

/* The device's full set, and its one-pass set (0 when it has none). */
gi_metric_set gi_full_set(const gi_device *dev);
int gi_repeat_set(const gi_device *dev, gi_metric_set *set);

/* The one-pass windows' counter data and batch (collector_range.c owns
 * the calls; these are the repeat state's fields). */
typedef struct gi_repeat_window {
    uint8_t *counter_data;
    size_t counter_data_size;
    size_t capacity;  /* ranges a window holds: GPUQ_BATCH */
    size_t batch_max; /* 1 until a window gave its durations, then capacity */
    int checked;      /* the first window's durations were looked at */
    int off;          /* they were missing: no more repeat windows */
} gi_repeat_window;
gi_repeat_window *gi_repeat_window_of(gi_device *dev);

#endif
