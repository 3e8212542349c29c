/* Per-launch hardware counters: the paper's Table 1 quantities as gpuq
 * collects them on Hopper, plus launch configuration.  This is the only
 * structure that crosses from the collector (CUPTI, or an ncu CSV import) to
 * the model: the model never sees CUPTI.
 *
 * The list of metrics lives in one table, gm_metric_table[], which both the
 * CUPTI collector and the ncu importer read; a field that was not collected
 * is NaN.
 *
 * Counters file ("gpuq counters v2", docs/counters-format.md): CSV with a '#'
 * metadata header (device name, SM count, max warps per SM, how it was
 * recorded, the process, the replay passes) and one row per kernel launch;
 * one column per metric collected, named by the metric ("sm__cycles_active.sum"),
 * so a new metric is a row of gm_metric_table, not a new format; then the
 * columns of the code pass's result, which the pass names (gm_pass_result,
 * gm_units_file_pass in gpuq/unit.h).  v1 files
 * (the 13 shared-atomic metrics under their short names) still load.  The
 * collector appends and flushes one row per launch, so a crash loses
 * nothing already measured.
 */
#ifndef GPUQ_COUNTERS_H
#define GPUQ_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gpuq/metrics.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_COUNTERS_FORMAT_VERSION 2

/* What a unit's code pass (gpuq/code_pass.h) read from one launch's machine
 * code: values no hardware counter gives.  The pass names them
 * (gm_code_pass.result_key and result_values: the counters file's and the
 * reports' columns); they are counts, >= 0 and possibly fractional, that
 * add up over launches (--summary). */
#define GM_PASS_VALUES_MAX 8
typedef struct gm_pass_result {
    int valid;                        /* 0: not found (the values are NaN) */
    double value[GM_PASS_VALUES_MAX]; /* in the order of the pass's result_values */
} gm_pass_result;

typedef struct gm_launch_counters {
    uint64_t launch_id;        /* 0-based order of profiled launches in the process */
    char *kernel;              /* demangled name (owned) */
    char *mangled;             /* mangled name (owned; may equal kernel) */
    int device;
    unsigned grid[3], block[3];
    int regs_per_thread;       /* -1 unknown */
    int shared_bytes;          /* static + dynamic per block; -1 unknown */
    double metric[GM_METRIC_MAX]; /* by gm_metric_table row; NaN = not collected */
    gm_pass_result pass;       /* the run's code pass, if any */
    /* Per-SM values where a GPU exposes them (not Hopper); NULL otherwise.
     * Each array has n_sm entries. */
    int n_sm;
    double *sm_n_f, *sm_n_c, *sm_cycles, *sm_occupancy;
    /* Launches added into this row (gpuq model --summary), for terms paid
     * once per launch; 0: one launch as recorded. */
    unsigned summed;
} gm_launch_counters;

typedef struct gm_counters_meta {
    char device_name[128];
    int cc_major, cc_minor;
    int sm_count;
    int max_warps_per_sm;
    char source[256];   /* "gpuq profile 0.1.0 on NVIDIA H200, 2026-11-22", "ncu csv import: file" */
    char command[512];  /* the profiled command line, if known */
    long pid;           /* the profiled process (v2 "# pid:"); 0 unknown */
    int passes;         /* replay passes the collector needed (v2 "# passes:"); 0 unknown */
    /* The metric columns of the file, as rows of gm_metric_table in file
     * order.  Writing: n_metrics 0 means every row of the table.  Loading:
     * the file's columns (v1: the 13 shared-atomic rows). */
    size_t n_metrics;
    int metric_rows[GM_METRIC_MAX];
} gm_counters_meta;

typedef struct gm_counters_set {
    gm_counters_meta meta;
    size_t count, capacity;
    gm_launch_counters *launches;
} gm_counters_set;

void gm_launch_counters_init(gm_launch_counters *k);   /* zeros; metrics NaN; pass invalid */
void gm_launch_counters_clear(gm_launch_counters *k);  /* frees owned strings/arrays */
/* A metric's value by name (gm_metric_find): NaN when it was not collected
 * or the table has no such metric. */
double gm_launch_metric(const gm_launch_counters *k, const char *name);
gm_status gm_launch_counters_set_names(gm_launch_counters *k, const char *kernel,
                                       const char *mangled);

void gm_counters_set_init(gm_counters_set *set);
void gm_counters_set_clear(gm_counters_set *set);
/* Appends a copy that takes ownership of k's strings/arrays (k is reset). */
gm_status gm_counters_set_push(gm_counters_set *set, gm_launch_counters *k);

/* Counters file I/O (always v2).  write_header once, then append_row per
 * launch with the same meta (its metric columns; each row is flushed).
 * load validates header, columns and values; it reads v1 and v2, and skips
 * v2 metric columns this gpuq's table does not know. */
gm_status gm_counters_write_header(FILE *out, const gm_counters_meta *meta, gm_error *err);
gm_status gm_counters_append_row(FILE *out, const gm_counters_meta *meta,
                                 const gm_launch_counters *k, gm_error *err);
gm_status gm_counters_write_file(const char *path, const gm_counters_set *set, gm_error *err);
gm_status gm_counters_load(const char *path, gm_counters_set *out, gm_error *err);

/* Imports `ncu --csv --metrics <gm_metric_table names> ...` output (the
 * "long" one-row-per-metric layout ncu prints by default, and the wide
 * --print-units base layout).  Launch config comes from the "Grid Size" and
 * "Block Size" columns where present. */
gm_status gm_ncu_csv_load(const char *path, gm_counters_set *out, gm_error *err);

/* The comma-separated list of metric names for `ncu --metrics`. */
const char *gm_metric_list_csv(void);

#ifdef __cplusplus
}
#endif
#endif
