/* The ranked kernel summary that opens every report (report_rank.c): one
 * row per kernel name (per file, that is per process), ranked by total GPU
 * time, with its launches, total and mean time, share of the GPU time and
 * the verdict of its launches summed (the --summary row's).  Internal to
 * libgpuq; the text, CSV, JSON and HTML writers share it. */
#ifndef GPUQ_REPORT_RANK_H
#define GPUQ_REPORT_RANK_H

#include "report_internal.h"

typedef struct report_rank {
    const report_rows *kernels; /* one row per kernel name per file (report_ctx's) */
    size_t count;               /* kernels->count */
    size_t *order;              /* rank r (0 first) -> row of kernels */
    size_t *rank_of;            /* row of kernels -> rank (0 first) */
    double *time_ns;            /* per row: duration summed over the launches that have one */
    size_t *timed;              /* per row: launches with a duration */
    double total_ns;            /* every launch's duration (those that have one) */
    size_t n_timed;             /* launches with a duration */
    size_t n_launches;
} report_rank;

/* Ranks the kernels (the report's kernel rows, report_ctx).  GM_ERR_NOMEM. */
gm_status report_rank_make(const gm_report *rep, const report_rows *kernels, report_rank *rk,
                           gm_error *err);
void report_rank_free(report_rank *rk);

/* The row's mean time per timed launch (NaN none) and share of the GPU time
 * (NaN when no launch has a duration). */
double report_rank_mean_ns(const report_rank *rk, size_t row);
double report_rank_share(const report_rank *rk, size_t row);

/* The block each writer opens with: text (a "== kernels by GPU time" table
 * after the header), CSV ('#' lines before the report's heading, read as
 * CSV once "# " is taken off), JSON (members "gpu_time_ns" and "kernels"
 * of the top object, each starting with ",\n"). */
void report_rank_write_text(FILE *out, const gm_report *rep, const report_rank *rk);
void report_rank_write_csv(FILE *out, const gm_report *rep, const report_rank *rk);
void report_rank_write_json(FILE *out, const gm_report *rep, const report_rank *rk);

#endif
