/* The CSV report: the ranked kernels as '#' lines (report_rank.c), then
 * one row per launch (or per kernel with --summary), the
 * launch columns, the counters the sections read (by their short column
 * name), the code pass's result (gpuq/code_pass.h), then every section's fields as
 * "<unit>.<field>", and the verdict line: verdict_section, verdict.
 * Numbers read back exactly; an empty cell is a value not available. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_rank.h"


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

/* A row is put together in a buffer and written at once (some 200 cells a
 * row), byte for byte as fprintf, csv_num and csv_text write them. */
typedef struct rowbuf {
    char *b;
    size_t n, cap;
    int failed; /* out of memory: the report fails */
} rowbuf;

static int rb_room(rowbuf *r, size_t more)
{
    if (r->n + more <= r->cap)
        return 1;
    size_t cap = r->cap ? r->cap : 8192;
    while (cap < r->n + more)
        cap *= 2;
    char *g = realloc(r->b, cap);
    if (!g) {
        r->failed = 1;
        return 0;
    }
    r->b = g;
    r->cap = cap;
    return 1;
}

static void rb_put(rowbuf *r, const char *s, size_t n)
{
    if (rb_room(r, n)) {
        memcpy(r->b + r->n, s, n);
        r->n += n;
    }
}

static void rb_char(rowbuf *r, char c)
{
    rb_put(r, &c, 1);
}

/* "%lld" (and %d, %ld, %u, %zu, PRIu64 of what fits) */
static void rb_int(rowbuf *r, long long v)
{
    char d[24];
    size_t n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        d[sizeof d - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        d[sizeof d - 1 - n++] = '-';
    rb_put(r, d + sizeof d - n, n);
}

static void rb_uint(rowbuf *r, unsigned long long u)
{
    char d[24];
    size_t n = 0;
    do {
        d[sizeof d - 1 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    rb_put(r, d + sizeof d - n, n);
}

static void rb_num(rowbuf *r, double v)
{
    char buf[40];
    gm_csv_format_double(buf, sizeof buf, v);
    rb_char(r, ',');
    rb_put(r, buf, strlen(buf));
}

/* ",FIELD" quoted as gm_csv_write_field quotes it */
static void rb_text(rowbuf *r, const char *text)
{
    const char *t = text ? text : "";
    size_t len = strlen(t);
    rb_char(r, ',');
    int quote = strpbrk(t, ",\"\r\n") != NULL ||
                (len > 0 && (isspace((unsigned char)t[0]) || isspace((unsigned char)t[len - 1])));
    if (!quote) {
        rb_put(r, t, len);
        return;
    }
    rb_char(r, '"');
    for (const char *p = t; *p; p++) {
        if (*p == '"')
            rb_char(r, '"');
        rb_char(r, *p);
    }
    rb_char(r, '"');
}

static void write_row(rowbuf *r, const gm_report *rep, const report_rows *rows, size_t i)
{
    const gm_launch_counters *k = rows->launches[i];
    rb_uint(r, k->launch_id);
    if (rows->multi_file) {
        const gm_report_file *f = &rep->files[rows->file_of[i]];
        long pid = report_file_meta(rep, rows->file_of[i])->pid;
        rb_text(r, f->path ? f->path : "");
        rb_char(r, ',');
        if (pid > 0)
            rb_int(r, pid);
    }
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        rb_text(r, rows->names[b][i]);
    if (rep->summary) {
        rb_char(r, ',');
        rb_uint(r, rows->launch_count[i]);
        rb_char(r, ',');
        rb_int(r, rows->config_varies[i]);
    }
    rb_char(r, ',');
    rb_int(r, k->device);
    for (int d = 0; d < 3; d++) {
        rb_char(r, ',');
        rb_uint(r, k->grid[d]);
    }
    for (int d = 0; d < 3; d++) {
        rb_char(r, ',');
        rb_uint(r, k->block[d]);
    }
    rb_char(r, ',');
    rb_int(r, k->regs_per_thread);
    rb_char(r, ',');
    rb_int(r, k->shared_bytes);
    for (size_t m = 0; m < rows->n_metric_rows; m++)
        rb_num(r, k->metric[rows->metric_rows[m]]);
    const gm_code_pass *pass = gm_units_file_pass();
    if (pass) {
        rb_char(r, ',');
        rb_int(r, k->pass.valid ? 1 : 0);
    }
    for (size_t v = 0; v < gm_code_pass_values(pass); v++)
        rb_num(r, k->pass.valid ? k->pass.value[v] : NAN);
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        gm_field f[GM_UNIT_MAX_FIELDS];
        size_t nf = sec->unit->fields(sec->state, report_result(rep, rows, s, i), f,
                                      GM_UNIT_MAX_FIELDS);
        for (size_t j = 0; j < nf; j++) {
            if (f[j].flags & GM_FIELD_TEXT_ONLY)
                continue;
            if (f[j].kind == GM_FIELD_TEXT)
                rb_text(r, f[j].text);
            else
                rb_num(r, f[j].num);
        }
    }
    int s = rows->verdict_section[i];
    const gm_unit_verdict *v = s >= 0 ? report_verdict(rep, rows, (size_t)s, i) : NULL;
    rb_text(r, s >= 0 ? rep->sections[s].unit->name : "");
    rb_text(r, v ? v->text : "");
    rb_char(r, '\n');
}

static int write_rows(void *ctx, const report_rows *rows, FILE *const *outs)
{
    rowbuf r = {NULL, 0, 0, 0};
    for (size_t i = 0; i < rows->count && !r.failed; i++) {
        r.n = 0;
        write_row(&r, ctx, rows, i);
        if (!r.failed && r.n && fwrite(r.b, 1, r.n, outs[0]) != r.n)
            break; /* the stream's error ends the report */
    }
    free(r.b);
    return r.failed ? -1 : 0;
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
