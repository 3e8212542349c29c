/* The calibration table's writers: CSV (format v2: the common machine-data
 * header, then the table's own keys, the series and the cells) and JSON,
 * each to a stream or atomically to a file (atomic_file.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/atomic_file.h"
#include "core/csv_internal.h"
#include "gpuq/mdata.h"
#include "atomics_table_internal.h"


/* The four numbers of a cell, each with the fewest digits that read back as
 * the same double (gm_csv_format_double), for both writers. */
typedef struct cell_text {
    char med[40], lo[40], hi[40], spread[40];
} cell_text;

static cell_text cell_numbers(const gm_atomics_cell *cell)
{
    cell_text t;
    gm_csv_format_double(t.med, sizeof t.med, cell->t_median);
    gm_csv_format_double(t.lo, sizeof t.lo, cell->t_min);
    gm_csv_format_double(t.hi, sizeof t.hi, cell->t_max);
    gm_csv_format_double(t.spread, sizeof t.spread, cell->spread);
    return t;
}

/* One written cell: series s's cell (n, e, c); first: the series' first. */
typedef void (*cell_writer)(FILE *out, const gm_atomics_series *s, int n, int e, int c,
                            const gm_atomics_cell *cell, int first);

/* Each present cell of s in the order both formats list them (n, then e,
 * then c); missing ones (NaN median, a checkpoint's) are skipped. */
static void write_cells(FILE *out, const gm_atomics_series *s, cell_writer write)
{
    int first = 1;
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                if (isnan(cell->t_median))
                    continue;
                write(out, s, n, e, c, cell, first);
                first = 0;
            }
}

/* Never write what the loader would refuse: the cells present must be
 * valid (missing ones are skipped, for checkpoints). */
static gm_status check_writable(FILE *out, const gm_atomics_table *table, gm_error *err)
{
    if (!out || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no output stream or table");
    return gm_atomics_table_check(table, 1, "", err);
}

static gm_status check_written(FILE *out, gm_error *err)
{
    if (ferror(out))
        return gm_fail(err, GM_ERR_IO, "write failed (%s)", strerror(errno));
    return GM_OK;
}

static void csv_cell(FILE *out, const gm_atomics_series *s, int n, int e, int c,
                     const gm_atomics_cell *cell, int first)
{
    cell_text t = cell_numbers(cell);
    fprintf(out, "%s,%s,%s,%d,%d,%d,%s,%s,%s,%s,%d,%u\n", gm_atomics_class_name(s->cls),
            gm_atomics_pattern_name(s->pattern), gm_atomics_method_name(s->method), n, e, c, t.med,
            t.lo, t.hi, t.spread, cell->reps, cell->flags);
}

static void json_cell(FILE *out, const gm_atomics_series *s, int n, int e, int c,
                      const gm_atomics_cell *cell, int first)
{
    cell_text t = cell_numbers(cell);
    fprintf(out, "%s\n      [%d, %d, %d, %s, %s, %s, %s, %d, %u]", first ? "" : ",", n, e, c,
            t.med, t.lo, t.hi, t.spread, cell->reps, cell->flags);
}

gm_status gm_atomics_table_write(FILE *out, const gm_atomics_table *table, gm_error *err)
{
    gm_status st = check_writable(out, table, err);
    if (st != GM_OK)
        return st;

    /* v2: the common machine-data header, then the table's own keys. */
    const gm_atomics_table_meta *m = &table->meta;
    gm_mdata_meta common;
    gm_atomics_table_common_meta(m, &common);
    fprintf(out, "%s%d\n", gm_atomics_table_magic, GM_ATOMICS_TABLE_FORMAT_VERSION);
    gm_mdata_meta_write(out, &common);
    char threshold[40];
    gm_csv_format_double(threshold, sizeof threshold, m->spread_threshold);
    fprintf(out, "# max_warps_per_sm: %d\n# warp_size: %d\n# reps: %d\n# spread_threshold: %s\n",
            m->max_warps_per_sm, m->warp_size, m->reps, threshold);
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *s = &table->series[i];
        fprintf(out, "# series: %s,%s,%s,mixes_cas=%d\n", gm_atomics_class_name(s->cls),
                gm_atomics_pattern_name(s->pattern), gm_atomics_method_name(s->method),
                s->mixes_cas);
    }
    fprintf(out, "%s\n", gm_atomics_table_column_header);
    for (int i = 0; i < table->n_series; i++)
        write_cells(out, &table->series[i], csv_cell);
    return check_written(out, err);
}

gm_status gm_atomics_table_write_json(FILE *out, const gm_atomics_table *table, gm_error *err)
{
    gm_status st = check_writable(out, table, err);
    if (st != GM_OK)
        return st;
    const gm_atomics_table_meta *m = &table->meta;
    char clock[40], threshold[40];
    gm_csv_format_double(clock, sizeof clock, m->sm_clock_mhz);
    gm_csv_format_double(threshold, sizeof threshold, m->spread_threshold);
    fprintf(out, "{\n  \"format\": \"gpuq calibration table\",\n  \"version\": %d,\n",
            GM_ATOMICS_TABLE_FORMAT_VERSION);
    fprintf(out, "  \"meta\": {\n    \"suite\": \"atomics\",\n    \"gpu_name\": ");
    gm_json_write_string(out, m->gpu_name);
    fprintf(out, ",\n    \"compute_capability\": \"%d.%d\",\n", m->cc_major, m->cc_minor);
    fprintf(out, "    \"sm_count\": %d,\n    \"max_warps_per_sm\": %d,\n    \"warp_size\": %d,\n",
            m->sm_count, m->max_warps_per_sm, m->warp_size);
    char mem_clock[40];
    gm_csv_format_double(mem_clock, sizeof mem_clock, m->mem_clock_mhz);
    fprintf(out, "    \"sm_clock_mhz\": %s,\n    \"mem_clock_mhz\": %s,\n", clock[0] ? clock : "null",
            mem_clock[0] ? mem_clock : "null");
    fprintf(out, "    \"driver_version\": %d,\n    \"runtime_version\": %d,\n    \"date\": ",
            m->driver_version, m->runtime_version);
    gm_json_write_string(out, m->date);
    fprintf(out, ",\n    \"method_note\": ");
    gm_json_write_string(out, m->method_note);
    fprintf(out, ",\n    \"reps\": %d,\n    \"spread_threshold\": %s,\n    \"gpuq_version\": ",
            m->reps, threshold[0] ? threshold : "null");
    gm_json_write_string(out, m->gpuq_version);
    fprintf(out, "\n  },\n  \"cell_fields\": [\"n\", \"e\", \"c\", \"t_median\", \"t_min\", "
                 "\"t_max\", \"spread\", \"reps\", \"flags\"],\n  \"series\": [");
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *s = &table->series[i];
        fprintf(out, "%s\n    {\"class\": \"%s\", \"pattern\": \"%s\", \"method\": \"%s\", "
                     "\"mixes_cas\": %s,\n     \"cells\": [",
                i ? "," : "", gm_atomics_class_name(s->cls), gm_atomics_pattern_name(s->pattern),
                gm_atomics_method_name(s->method), s->mixes_cas ? "true" : "false");
        write_cells(out, s, json_cell);
        fprintf(out, "\n     ]}");
    }
    fprintf(out, "\n  ]\n}\n");
    return check_written(out, err);
}

static gm_status write_csv(FILE *out, const void *table, gm_error *err)
{
    return gm_atomics_table_write(out, table, err);
}

static gm_status write_json(FILE *out, const void *table, gm_error *err)
{
    return gm_atomics_table_write_json(out, table, err);
}

gm_status gm_atomics_table_write_file(const char *path, const gm_atomics_table *table,
                                      gm_error *err)
{
    if (!path || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or table");
    return gm_write_file_atomically(path, write_csv, table, err);
}

gm_status gm_atomics_table_write_json_file(const char *path, const gm_atomics_table *table,
                                           gm_error *err)
{
    if (!path || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or table");
    return gm_write_file_atomically(path, write_json, table, err);
}
