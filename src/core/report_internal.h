/* What the report writers share (report.c, report_cursor.c build it): the
 * kernels (one row per kernel name of each file, launches summed, every
 * section applied to the sums: the --summary rows and the ranked kernels'
 * verdicts), their names, the ranking, and the rows a writer is given a
 * chunk at a time: per launch (a chunk of launches, read from the files or
 * taken from the sets in memory, every section applied), or per kernel
 * with --summary (one chunk, the kernels).  Internal to libgpuq. */
#ifndef GPUQ_REPORT_INTERNAL_H
#define GPUQ_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include "gpuq/report.h"
#include "report_scan.h"
#include "writer.h"

/* Rows as the writers see them: a chunk of the report's rows, row i being
 * the report's row first + i.  Every array has count entries. */
typedef struct report_rows {
    size_t count;
    size_t first;
    const gm_launch_counters *const *launches;
    const size_t *file_of;               /* index into rep->files */
    const size_t *launch_count;          /* summary: launches per row; NULL per launch */
    const int *config_varies;            /* summary: launch configs differ within the row */
    /* per section s: result of row i at results[s] + i * unit->result_size */
    const unsigned char *results[GM_REPORT_MAX_SECTIONS];
    const gm_unit_verdict *verdicts;     /* count * n_sections, row-major */
    const int *verdict_section;          /* per row: section whose verdict speaks; -1 none */
    const char *const *names[GM_NAME_BASE_COUNT]; /* per row: full name for each base */
    const char *const *display;          /* per row: text display name (rep->name_base) */
    const size_t *kernel_row;            /* per row: its kernel's row (the kernels' own: i) */
    int metric_rows[GM_METRIC_MAX];      /* the counters' columns shown */
    size_t n_metric_rows;
    int multi_file;                      /* rows come from more than one file */
    const struct report_rank *rank;      /* the ranked kernels (report_rank.h) */
} report_rows;

/* The kernels: rep->input's groups with every section applied to their
 * sums (gm_report_make), owned by the report. */
typedef struct report_kernels {
    size_t count;
    const gm_launch_counters **launches; /* the groups' sums */
    size_t *file_of, *launch_count, *row;
    int *config_varies;
    unsigned char *results[GM_REPORT_MAX_SECTIONS];
    gm_unit_verdict *verdicts;
    int *verdict_section;
} report_kernels;

/* Names for a list of rows (the kernels, or the distinct name pairs of the
 * launches): each base's full name and the text's display name. */
typedef struct report_names {
    size_t count;
    char **full[GM_NAME_BASE_COUNT];
    char **display;
} report_names;

struct report_rank;

/* Everything a writer needs besides the chunks (made in gm_report_write). */
typedef struct report_ctx {
    const gm_report *rep;
    report_names kernel_names, pair_names;
    report_rows kernels;         /* the kernels as rows, with their names */
    struct report_rank *rank;
} report_ctx;

gm_status report_ctx_make(const gm_report *rep, report_ctx *c, gm_error *err);
void report_ctx_free(report_ctx *c);

/* The rows of a report a chunk at a time (report_cursor.c).  next gives
 * *rows NULL at the end; a file read from its path must be found as it was
 * when the report was made (GM_ERR_IO otherwise: it changed meanwhile). */
typedef struct report_cursor report_cursor;
gm_status report_cursor_open(const report_ctx *c, report_cursor **out, gm_error *err);
gm_status report_cursor_next(report_cursor *cur, const report_rows **rows, gm_error *err);
void report_cursor_close(report_cursor *cur);

/* Two threads for a chunk (report_par.c): fn(ctx, lo, hi) on rows [0, n/2)
 * here and [n/2, n) on a second thread, or on [0, n) here alone (one
 * processor, GPUQ_THREADS=1, a small chunk).  report_threads: 1 or 2. */
typedef void (*report_range_fn)(void *ctx, size_t lo, size_t hi);
int report_threads(void);
/* 1 or 2 from now on (0: as the environment and the processors say), for tests. */
void report_set_threads(int n);
void report_in_halves(report_range_fn fn, void *ctx, size_t n);
/* Rows lo..hi of r as rows of their own. */
void report_rows_slice(const gm_report *rep, const report_rows *r, size_t lo, size_t hi,
                       report_rows *out);
/* fn writes rows into outs[0 .. n_out): in halves, the second into memory
 * on the second thread and appended to outs after the first, so the bytes
 * are those fn writes for all rows at once. */
#define REPORT_MAX_OUTS (GM_REPORT_MAX_SECTIONS + 1)
typedef int (*report_write_fn)(void *ctx, const report_rows *rows, FILE *const *outs); /* -1: out of memory */
gm_status report_write_in_halves(const gm_report *rep, const report_rows *rows,
                                 FILE *const *outs, size_t n_out, report_write_fn fn, void *ctx,
                                 gm_error *err);

/* The verdict of each row from its sections' (pick: report_pick_verdict). */
void report_pick_verdicts(const gm_report *rep, size_t n, const unsigned char *const *results,
                          gm_unit_verdict *verdicts, int *verdict_section);

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

/* A file's header and launch count. */
const gm_counters_meta *report_file_meta(const gm_report *rep, size_t file);
size_t report_file_launches(const gm_report *rep, size_t file);

/* The process a file came from: "pid 4242", else the file's name. */
void report_process_label(const gm_report *rep, size_t file, char *buf, size_t len);

/* A field's cell in the text table ("-", "97%", "1634", its text). */
void report_field_text(const gm_field *f, char *buf, size_t len);

/* The most passes any file's header records (0 unknown) and the metrics
 * collected (columns with a value in some launch). */
void report_counter_stats(const gm_report *rep, size_t *metrics, int *passes);

/* The writers: each reads the chunks itself; GM_ERR_IO / GM_ERR_NOMEM or a
 * unit's error as the chunks are made. */
gm_status report_write_text(FILE *out, const report_ctx *c, gm_error *err);
gm_status report_write_csv(FILE *out, const report_ctx *c, gm_error *err);
gm_status report_write_json(FILE *out, const report_ctx *c, gm_error *err);
gm_status report_write_html(FILE *out, const report_ctx *c, gm_error *err);

#endif
