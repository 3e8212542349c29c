/* The CSV report: the ranked kernels as '#' lines (report_rank.c), then
 * one row per launch (or per kernel with --summary), the
 * launch columns, the counters the sections read (by their short column
 * name), the code pass's result (gpuq/code_pass.h), then every section's fields as
 * "<unit>.<field>", and the verdict line: verdict_section, verdict.
 * Numbers read back exactly; an empty cell is a value not available. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_rank.h"

static void csv_num(FILE *out, double v)
{
    char buf[40];
    gm_csv_format_double(buf, sizeof buf, v);
    fputc(',', out);
    fputs(buf, out);
}

static void csv_text(FILE *out, const char *text)
{
    fputc(',', out);
    gm_csv_write_field(out, text ? text : "");
}

/* The heading: the names are the same for every result, so the first
 * row's give them (an empty result's when there is no row). */
static void write_heading(FILE *out, const gm_report *rep, const report_rows *rows)
{
    fputs("launch_id", out);
    if (rows->multi_file)
        fputs(",file,pid", out);
    fputs(",kernel,demangled,mangled", out);
    if (rep->summary)
        fputs(",launches,config_varies", out);
    fputs(",device,grid_x,grid_y,grid_z,block_x,block_y,block_z,regs,shared_bytes", out);
    for (size_t m = 0; m < rows->n_metric_rows; m++)
        fprintf(out, ",%s", gm_metric_table[rows->metric_rows[m]].column);
    const gm_code_pass *pass = gm_units_file_pass();
    for (size_t i = 0; i < gm_code_pass_columns(pass); i++) {
        char name[128];
        gm_code_pass_column(pass, i, name, sizeof name);
        fprintf(out, ",%s", name);
    }
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        void *empty = rows->count ? NULL : calloc(1, sec->unit->result_size);
        if (!rows->count && !empty)
            continue;
        gm_field f[GM_UNIT_MAX_FIELDS];
        size_t nf = sec->unit->fields(sec->state, empty ? empty : report_result(rep, rows, s, 0),
                                      f, GM_UNIT_MAX_FIELDS);
        free(empty);
        for (size_t j = 0; j < nf; j++)
            if (!(f[j].flags & GM_FIELD_TEXT_ONLY))
                fprintf(out, ",%s.%s", sec->unit->name, f[j].name);
    }
    fputs(",verdict_section,verdict\n", out);
}

static void write_row(FILE *out, const gm_report *rep, const report_rows *rows, size_t i)
{
    const gm_launch_counters *k = rows->launches[i];
    fprintf(out, "%" PRIu64, k->launch_id);
    if (rows->multi_file) {
        const gm_report_file *f = &rep->files[rows->file_of[i]];
        long pid = report_file_meta(rep, rows->file_of[i])->pid;
        csv_text(out, f->path ? f->path : "");
        if (pid > 0)
            fprintf(out, ",%ld", pid);
        else
            fputc(',', out);
    }
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        csv_text(out, rows->names[b][i]);
    if (rep->summary)
        fprintf(out, ",%zu,%d", rows->launch_count[i], rows->config_varies[i]);
    fprintf(out, ",%d,%u,%u,%u,%u,%u,%u,%d,%d", k->device, k->grid[0], k->grid[1], k->grid[2],
            k->block[0], k->block[1], k->block[2], k->regs_per_thread, k->shared_bytes);
    for (size_t m = 0; m < rows->n_metric_rows; m++)
        csv_num(out, k->metric[rows->metric_rows[m]]);
    const gm_code_pass *pass = gm_units_file_pass();
    if (pass)
        fprintf(out, ",%d", k->pass.valid ? 1 : 0);
    for (size_t v = 0; v < gm_code_pass_values(pass); v++)
        csv_num(out, k->pass.valid ? k->pass.value[v] : NAN);
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        gm_field f[GM_UNIT_MAX_FIELDS];
        size_t nf = sec->unit->fields(sec->state, report_result(rep, rows, s, i), f,
                                      GM_UNIT_MAX_FIELDS);
        for (size_t j = 0; j < nf; j++) {
            if (f[j].flags & GM_FIELD_TEXT_ONLY)
                continue;
            if (f[j].kind == GM_FIELD_TEXT)
                csv_text(out, f[j].text);
            else
                csv_num(out, f[j].num);
        }
    }
    int s = rows->verdict_section[i];
    const gm_unit_verdict *v = s >= 0 ? report_verdict(rep, rows, (size_t)s, i) : NULL;
    csv_text(out, s >= 0 ? rep->sections[s].unit->name : "");
    csv_text(out, v ? v->text : "");
    fputc('\n', out);
}

static void write_rows(void *ctx, const report_rows *rows, FILE *const *outs)
{
    for (size_t i = 0; i < rows->count; i++)
        write_row(outs[0], ctx, rows, i);
}

gm_status report_write_csv(FILE *out, const report_ctx *c, gm_error *err)
{
    const gm_report *rep = c->rep;
    report_rank_write_csv(out, rep, c->rank);
    report_cursor *cur;
    gm_status st = report_cursor_open(c, &cur, err);
    const report_rows *rows;
    size_t total = 0;
    while (st == GM_OK && (st = report_cursor_next(cur, &rows, err)) == GM_OK && rows) {
        if (total == 0)
            write_heading(out, rep, rows);
        st = report_write_in_halves(rep, rows, &out, 1, write_rows, (void *)rep, err);
        total += rows->count;
    }
    report_cursor_close(cur);
    if (st == GM_OK && total == 0) {
        report_rows none = c->kernels;
        none.count = 0;
        write_heading(out, rep, &none);
    }
    return st;
}
