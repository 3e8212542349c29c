/* The metric table: every hardware counter any registered model reads, by
 * its CUPTI / Nsight Compute name.  One table (src/core/metrics.c), read by
 * the CUPTI collector (which gathers the union the selected models declare),
 * the ncu CSV importer and the counters file (v2 has one column per metric,
 * named by the metric).  A new metric is one row there; a model names the
 * metrics it needs in its unit row (gpuq/unit.h) and finds each one's index
 * with gm_metric_find() once.
 *
 * gm_launch_counters.metric[] is indexed by row; NaN = not collected.
 */
#ifndef GPUQ_METRICS_H
#define GPUQ_METRICS_H

#include <stddef.h>
#include "gpuq/ranges.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room in gm_launch_counters.metric[]; a test checks the table fits. */
#define GM_METRIC_MAX 160

/* How --summary adds one kernel's launches into one row. */
typedef enum gm_metric_sum {
    GM_SUM_ADD = 0,       /* counts, cycles, durations: totals over launches */
    GM_SUM_CYCLE_WEIGHTED /* averages over cycles (occupancy): mean weighted by
                             sm__cycles_active.sum, plain mean where cycles are missing */
} gm_metric_sum;

typedef struct gm_metric_desc {
    const char *name;    /* CUPTI / ncu metric name ("sm__cycles_active.sum") */
    const char *column;  /* short name: report column (and counters v1 column) ("cycles_sum") */
    const char *meaning; /* one line for --help and docs */
    gm_metric_sum sum;   /* 0 (add) unless the metric is an average */
    gm_quantity quantity; /* its physical range on load (gpuq/ranges.h) */
    const char *unit;    /* ncu's base unit of it ("inst", "cycle", "" none); an
                            import in another unit ("Kcycle" for wavefronts) is refused */
    int every_launch;    /* GM_EVERY_LAUNCH: in the one-pass set measured on every
                            launch, also the repeats of a kernel shape already
                            measured in full (docs/profile.md, "Repeated launches") */
} gm_metric_desc;

/* gm_metric_desc.every_launch: the metrics a launch's own run must give,
 * because they change from one launch of a kernel shape to the next (its
 * time, its cycles, what the caches held); together one pass on GH100
 * (tests: check_every_launch_one_pass).  The rest (instruction counts,
 * stall reasons, tensor work) a repeated launch takes from the shape's
 * launch measured in full. */
#define GM_EVERY_LAUNCH 1
#define GM_PER_SHAPE 0
/* Measured on every launch and the fingerprint of its work: a repeat is
 * completed from its shape's full launch only where this count matches
 * (one row holds it). */
#define GM_EVERY_LAUNCH_WORK 2

/* The table and its length (<= GM_METRIC_MAX). */
extern const gm_metric_desc gm_metric_table[];
size_t gm_metric_count(void);
/* Rows in use, for loops and checks; arrays are sized GM_METRIC_MAX. */
#define GM_METRIC_COUNT ((int)gm_metric_count())

/* Row of a metric given its metric name or its short column name; -1 when
 * the table has no such metric. */
int gm_metric_find(const char *name);

/* 1 when the metric is counted by SASS instrumentation (`..__sass_..`), not
 * by the hardware: the range profiler cannot collect it (gpuq's SASS pass
 * provides the shared-atomic one); 0 for a hardware counter. */
int gm_metric_is_instrumented(const char *name);


/* The metric names of a set of rows, comma-separated, for `ncu --metrics`
 * (rows NULL: every row of the table).  Written into buf; returns buf, or
 * NULL when it does not fit. */
char *gm_metric_list(const int *rows, size_t n_rows, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
