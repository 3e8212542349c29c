/* The row view the three report writers share (report.c builds it):
 * per launch, or per kernel name of each file with --summary (launches
 * summed, every section re-applied to the sums), with every section's
 * result, the verdict line of each row and the kernel names.  Internal to
 * libgpuq. */
#ifndef GPUQ_REPORT_INTERNAL_H
#define GPUQ_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include "gpuq/report.h"
#include "writer.h"

typedef struct report_rows {
    size_t count;
    const gm_launch_counters **launches; /* count entries */
    size_t *file_of;                     /* count entries: index into rep->files */
    size_t *launch_count;                /* summary: launches per row; NULL per launch */
    int *config_varies;                  /* summary: launch configs differ within the row */
    /* per section s: result of row i at results[s] + i * unit->result_size */
    unsigned char *results[GM_REPORT_MAX_SECTIONS];
    int own_results;                     /* summary: results are the rows' own */
    gm_unit_verdict *verdicts;           /* count * n_sections, row-major */
    int *verdict_section;                /* per row: section whose verdict speaks; -1 none */
    char **names[GM_NAME_BASE_COUNT];    /* per row: full name for each base */
    char **display;                      /* per row: text display name (rep->name_base) */
    int metric_rows[GM_METRIC_MAX];      /* the counters' columns shown */
    size_t n_metric_rows;
    int multi_file;                      /* rows come from more than one file */
    const struct report_rank *rank;      /* the ranked kernels (report_rank.h); set by
                                            gm_report_write before a writer runs */
    /* owned by the summary */
    gm_counters_set sums;
    const gm_launch_counters **sum_ptrs;
} report_rows;

gm_status report_rows_make(const gm_report *rep, report_rows *rows, gm_error *err);
void report_rows_free(const gm_report *rep, report_rows *rows);

static inline const void *report_result(const gm_report *rep, const report_rows *rows,
                                        size_t section, size_t row)
{
    return rows->results[section] + row * rep->sections[section].unit->result_size;
}

/* The row's verdict of one section. */
static inline const gm_unit_verdict *report_verdict(const gm_report *rep,
                                                    const report_rows *rows, size_t section,
                                                    size_t row)
{
    return &rows->verdicts[row * rep->n_sections + section];
}

/* Which of n section verdicts is the row's: the highest severity; NaN only
 * when every one is NaN; the first on a tie; -1 when n is 0. */
int report_pick_verdict(const gm_unit_verdict *v, size_t n);

/* The process a file came from: "pid 4242", else the file's name. */
void report_process_label(const gm_report *rep, size_t file, char *buf, size_t len);

/* A field's cell in the text table ("-", "97%", "1634", its text). */
void report_field_text(const gm_field *f, char *buf, size_t len);

/* The most passes any file's header records (0 unknown) and the metrics
 * collected (columns with a value in some launch). */
void report_counter_stats(const gm_report *rep, size_t *metrics, int *passes);

void report_write_text(FILE *out, const gm_report *rep, const report_rows *rows);
void report_write_csv(FILE *out, const gm_report *rep, const report_rows *rows);
void report_write_json(FILE *out, const gm_report *rep, const report_rows *rows);
void report_write_html(FILE *out, const gm_report *rep, const report_rows *rows);

#endif
