/* The utilization report: per kernel launch (or per kernel name with
 * summary), its launch configuration, every model input and intermediate
 * quantity, U and a plain verdict.  Three writers share one structure:
 * text for people, CSV and JSON for machines.  JSON carries everything,
 * including the raw counters, so a report can be recomputed offline.
 */
#ifndef GPUQ_REPORT_H
#define GPUQ_REPORT_H

#include <stdio.h>
#include "gpuq/counters.h"
#include "gpuq/model.h"
#include "gpuq/status.h"
#include "gpuq/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_format {
    GM_FORMAT_TEXT = 0,
    GM_FORMAT_CSV,
    GM_FORMAT_JSON,
    GM_FORMAT_COUNT
} gm_format;

gm_status gm_format_parse(const char *name, gm_format *out);
const char *gm_format_name(gm_format f);

typedef struct gm_report {
    const gm_counters_set *counters;  /* inputs (not owned) */
    const gm_table *table;            /* calibration table used (not owned) */
    const char *table_path;           /* where it came from ("embedded H200 table", a path) */
    gm_model_options options;
    size_t count;
    gm_kernel_result *results;        /* one per counters->launches[i] (owned) */
    int summary;                      /* 1: aggregate launches by kernel name */
} gm_report;

/* Applies the model to every launch of the set.  A launch the model cannot
 * take (e.g. missing counters) still gets a result, with a verdict that says
 * why; only invalid arguments fail. */
gm_status gm_report_build(gm_report *rep, const gm_counters_set *set, const gm_table *table,
                          const char *table_path, const gm_model_options *opt, gm_error *err);
void gm_report_free(gm_report *rep);

gm_status gm_report_write(FILE *out, const gm_report *rep, gm_format fmt, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
