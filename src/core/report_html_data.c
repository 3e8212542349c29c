/* The HTML report's data (report_html.h): one JSON object the page's script
 * reads.  Every string passes through gm_json_write_string_html, so no
 * kernel name can end the <script> element it stands in; the script puts
 * every string into the page as text, never as markup.
 *
 * Size: a 10,000-launch profile must stay a file of a few megabytes, so
 * the kernels (one row per name and process) carry every field of every
 * section, exact, while a launch carries only the cells of the text report
 * (as formatted there), and those as indices into a table of distinct
 * rows: launches of one kernel often repeat whole rows (the waves section
 * of one launch configuration), and verdicts repeat too. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "report_html.h"
#include "spool.h"

/* Kernels beyond this rank carry their text cells only (a profile of
 * thousands of distinct names stays small; the page says so). */
#define HTML_FULL_KERNELS 500
/* Launches listed one by one at most: a page of 10,000 is under 5 MB
 * (tests/html/large_check.py), one of this many about 25 MB, as much as a
 * browser opens without a long wait; the kernels' rows count every launch. */
#define HTML_MAX_LAUNCHES 50000

/* ------------------------------------------------------------------------
 * Distinct strings, by index */

typedef struct strtab {
    char **s;
    size_t n, cap;
    size_t *slot; /* open addressing; SIZE_MAX empty */
    size_t slot_cap;
    int failed;
} strtab;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

static int strtab_grow(strtab *t)
{
    size_t cap = t->slot_cap ? t->slot_cap * 2 : 256;
    size_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return 0;
    for (size_t i = 0; i < cap; i++)
        slot[i] = SIZE_MAX;
    for (size_t k = 0; k < t->n; k++) {
        size_t i = str_hash(t->s[k]) & (cap - 1);
        while (slot[i] != SIZE_MAX)
            i = (i + 1) & (cap - 1);
        slot[i] = k;
    }
    free(t->slot);
    t->slot = slot;
    t->slot_cap = cap;
    return 1;
}

/* The index of s (added if new); 0 after a failed allocation (t->failed). */
static size_t strtab_add(strtab *t, const char *s)
{
    if (t->failed)
        return 0;
    if (2 * (t->n + 1) > t->slot_cap && !strtab_grow(t)) {
        t->failed = 1;
        return 0;
    }
    size_t i = str_hash(s) & (t->slot_cap - 1);
    while (t->slot[i] != SIZE_MAX) {
        if (strcmp(t->s[t->slot[i]], s) == 0)
            return t->slot[i];
        i = (i + 1) & (t->slot_cap - 1);
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        char **grown = realloc(t->s, cap * sizeof *grown);
        if (!grown) {
            t->failed = 1;
            return 0;
        }
        t->s = grown;
        t->cap = cap;
    }
    if (!(t->s[t->n] = strdup(s))) {
        t->failed = 1;
        return 0;
    }
    t->slot[i] = t->n;
    return t->n++;
}

static void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------------
 * Pieces */

static void jstr(FILE *out, const char *s)
{
    gm_json_write_string_html(out, s);
}

static void jkey(FILE *out, const char *k)
{
    fputc(',', out);
    jstr(out, k);
    fputc(':', out);
}

/* "132" for (132,1,1), "64,2" for (64,2,1), "8,8,4" otherwise (as the text) */
static void format_config(char *buf, size_t len, const gm_launch_counters *k, int varies)
{
    if (varies) {
        snprintf(buf, len, "varies");
        return;
    }
    char d[2][40];
    const unsigned *v[2] = {k->grid, k->block};
    for (int i = 0; i < 2; i++) {
        if (v[i][1] == 1 && v[i][2] == 1)
            snprintf(d[i], sizeof d[i], "%u", v[i][0]);
        else if (v[i][2] == 1)
            snprintf(d[i], sizeof d[i], "%u,%u", v[i][0], v[i][1]);
        else
            snprintf(d[i], sizeof d[i], "%u,%u,%u", v[i][0], v[i][1], v[i][2]);
    }
    snprintf(buf, len, "%s x %s", d[0], d[1]);
}

/* The unit's notes under its heading in the text report, as one string. */
static void write_notes(FILE *out, const gm_report *rep, size_t s, unsigned notes)
{
    const gm_unit *u = rep->sections[s].unit;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = u->text_notes ? open_memstream(&text, &len) : NULL;
    if (mem) {
        u->text_notes(mem, rep->sections[s].state, notes);
        fclose(mem);
    }
    jstr(out, text ? text : "");
    free(text);
}

static void write_figure(FILE *out, const report_html_figure *fig)
{
    if (!fig) {
        fputs("null", out);
        return;
    }
    fputs("{\"kind\":", out);
    jstr(out, fig->kind);
    jkey(out, "fields");
    fputc('[', out);
    for (size_t i = 0; fig->fields[i]; i++) {
        fputs(i ? "," : "", out);
        jstr(out, fig->fields[i]);
    }
    fputc(']', out);
    jkey(out, "lo");
    if (fig->lo)
        jstr(out, fig->lo);
    else
        fputs("null", out);
    jkey(out, "hi");
    if (fig->hi)
        jstr(out, fig->hi);
    else
        fputs("null", out);
    jkey(out, "marks");
    fputc('[', out);
    for (size_t i = 0; i < 3 && fig->marks[i] > 0; i++) {
        fputs(i ? "," : "", out);
        gm_json_write_num(out, fig->marks[i]);
    }
    fputc(']', out);
    jkey(out, "caption");
    jstr(out, fig->caption);
    fputc('}', out);
}

/* A section's field list, the same for every result: row 0's (an empty
 * result's when there is no row). */
static void write_fields(FILE *out, const gm_report *rep, const report_rows *rows, size_t s)
{
    const gm_unit *u = rep->sections[s].unit;
    void *empty = rows ? NULL : calloc(1, u->result_size);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = 0;
    if (rows || empty)
        nf = u->fields(rep->sections[s].state, empty ? empty : report_result(rep, rows, s, 0), f,
                       GM_UNIT_MAX_FIELDS);
    fputc('[', out);
    for (size_t j = 0; j < nf; j++) {
        fputs(j ? ",{\"n\":" : "{\"n\":", out);
        jstr(out, f[j].name);
        jkey(out, "h");
        jstr(out, f[j].heading ? f[j].heading : f[j].name);
        jkey(out, "k");
        jstr(out, f[j].kind == GM_FIELD_PCT ? "pct" : f[j].kind == GM_FIELD_NUM ? "num" : "text");
        fprintf(out, ",\"t\":%d,\"c\":%d}", f[j].width > 0, !(f[j].flags & GM_FIELD_TEXT_ONLY));
    }
    fputc(']', out);
    free(empty); /* nothing of its own: fields() only read it (as the CSV's heading) */
}

/* The sections, with their notes (from every row's flags) and field lists
 * (written as the first chunk came, in fields[s]; NULL: no row). */
static gm_status write_sections(FILE *out, const gm_report *rep, const unsigned *notes,
                                gm_spool *const *fields, gm_error *err)
{
    jkey(out, "sections");
    fputc('[', out);
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        const gm_unit *u = sec->unit;
        const report_html_figure *fig = report_html_figure_find(u->name);
        fputs(s ? ",\n{\"name\":" : "\n{\"name\":", out);
        jstr(out, u->name);
        jkey(out, "title");
        jstr(out, u->title);
        jkey(out, "paper");
        jstr(out, u->paper);
        jkey(out, "variant");
        jstr(out, sec->variant[0] ? sec->variant : "default");
        jkey(out, "notes");
        write_notes(out, rep, s, notes[s]);
        jkey(out, "bar");
        jstr(out, fig ? fig->bar : "the section's verdict severity");
        jkey(out, "fig");
        write_figure(out, fig);
        jkey(out, "fields");
        if (fields[s]) {
            gm_status st = gm_spool_copy(fields[s], out, err);
            if (st != GM_OK)
                return st;
        } else {
            write_fields(out, rep, NULL, s);
        }
        fputs("}", out);
    }
    fputs("]", out);
    return GM_OK;
}

/* The text cells of one row's section, joined by US (0x1f) into buf. */
static void row_cells(const gm_report *rep, const report_rows *rows, size_t s, size_t i,
                      char *buf, size_t len)
{
    const gm_report_section *sec = &rep->sections[s];
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = sec->unit->fields(sec->state, report_result(rep, rows, s, i), f,
                                  GM_UNIT_MAX_FIELDS);
    size_t at = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < nf; j++) {
        if (f[j].width <= 0)
            continue;
        char v[256];
        report_field_text(&f[j], v, sizeof v);
        int w = snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? "\x1f" : "", v);
        if (w > 0)
            at += (size_t)w;
    }
}

/* A joined row as a JSON array of strings. */
static void write_cells(FILE *out, const char *joined)
{
    fputc('[', out);
    const char *p = joined;
    for (int first = 1;; first = 0) {
        const char *end = strchr(p, '\x1f');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char v[256];
        snprintf(v, sizeof v, "%.*s", (int)n, p);
        fputs(first ? "" : ",", out);
        jstr(out, v);
        if (!end)
            break;
        p = end + 1;
    }
    fputc(']', out);
}

#define CELLS_MAX 8192

static void write_kernel(FILE *out, const gm_report *rep, const report_rank *rk, size_t r)
{
    const report_rows *kr = rk->kernels;
    size_t g = rk->order[r];
    char buf[CELLS_MAX];
    fprintf(out, "%s\n{\"rank\":%zu,\"row\":%zu,\"file\":%zu", r ? "," : "", r + 1, g,
            kr->file_of[g]);
    jkey(out, "name");
    jstr(out, kr->display[g]);
    jkey(out, "fn");
    jstr(out, kr->names[GM_NAME_FUNCTION][g]);
    jkey(out, "dm");
    jstr(out, kr->names[GM_NAME_DEMANGLED][g]);
    jkey(out, "mg");
    jstr(out, kr->names[GM_NAME_MANGLED][g]);
    fprintf(out, ",\"id\":%" PRIu64 ",\"n\":%zu,\"tn\":%zu,\"t\":", kr->launches[g]->launch_id,
            kr->launch_count[g], rk->timed[g]);
    gm_json_write_num(out, rk->time_ns[g]);
    fputs(",\"m\":", out);
    gm_json_write_num(out, report_rank_mean_ns(rk, g));
    fputs(",\"s\":", out);
    gm_json_write_num(out, report_rank_share(rk, g));
    format_config(buf, sizeof buf, kr->launches[g], kr->config_varies[g]);
    jkey(out, "cfg");
    jstr(out, buf);
    int vs = kr->verdict_section[g];
    fprintf(out, ",\"vs\":%d", vs);
    jkey(out, "v");
    jstr(out, vs >= 0 ? report_verdict(rep, kr, (size_t)vs, g)->text : "");
    jkey(out, "sec");
    fputc('[', out);
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_unit_verdict *v = report_verdict(rep, kr, s, g);
        fputs(s ? ",{\"sev\":" : "{\"sev\":", out);
        gm_json_write_num(out, v->severity);
        jkey(out, "v");
        jstr(out, v->text);
        jkey(out, "txt");
        row_cells(rep, kr, s, g, buf, sizeof buf);
        write_cells(out, buf);
        if (r < HTML_FULL_KERNELS) {
            const gm_report_section *sec = &rep->sections[s];
            gm_field f[GM_UNIT_MAX_FIELDS];
            size_t nf = sec->unit->fields(sec->state, report_result(rep, kr, s, g), f,
                                          GM_UNIT_MAX_FIELDS);
            jkey(out, "val");
            fputc('[', out);
            int first = 1;
            for (size_t j = 0; j < nf; j++) {
                if (f[j].flags & GM_FIELD_TEXT_ONLY)
                    continue;
                fputs(first ? "" : ",", out);
                first = 0;
                if (f[j].kind == GM_FIELD_TEXT)
                    jstr(out, f[j].text ? f[j].text : "");
                else
                    gm_json_write_num(out, f[j].num);
            }
            fputc(']', out);
        }
        fputc('}', out);
    }
    fputs("]}", out);
}

/* Per launch, column by column (arrays of numbers are the smallest JSON):
 * id, kernel row, duration, configuration, verdict, and per section the
 * severity (in thousandths: a bar needs no more), the section's verdict
 * and its text cells (indices into "strings" and "cells").  The columns
 * grow a chunk at a time, each in a spool; at most HTML_MAX_LAUNCHES
 * launches (the page says how many of how many). */
enum { COL_ID, COL_K, COL_T, COL_CFG, COL_VS, COL_SEV, COL_SV, COL_CELLS, N_COLS };
static const char *const col_names[N_COLS] = {"id", "k", "t", "cfg", "vs", "sev", "sv", "cells"};

typedef struct html_launches {
    gm_spool *col[N_COLS];
    size_t n;
    strtab strings, cells;
} html_launches;

static void add_launches(html_launches *h, const gm_report *rep, const report_rows *rows)
{
    size_t ns = rep->n_sections;
    char buf[CELLS_MAX];
    FILE *col[N_COLS];
    for (int c = 0; c < N_COLS; c++)
        col[c] = gm_spool_stream(h->col[c]);
    const int dur = gm_metric_find("gpu__time_duration.sum");
    for (size_t i = 0; i < rows->count && h->n < HTML_MAX_LAUNCHES; i++, h->n++) {
        const char *sep = h->n ? "," : "";
        const gm_launch_counters *k = rows->launches[i];
        fprintf(col[COL_ID], "%s%" PRIu64, sep, k->launch_id);
        fprintf(col[COL_K], "%s%zu", sep, rows->kernel_row[i]);
        fputs(sep, col[COL_T]);
        gm_json_write_num(col[COL_T], dur < 0 ? NAN : k->metric[dur]);
        format_config(buf, sizeof buf, k, 0);
        fprintf(col[COL_CFG], "%s%zu", sep, strtab_add(&h->strings, buf));
        fprintf(col[COL_VS], "%s%d", sep, rows->verdict_section[i]);
        for (size_t s = 0; s < ns; s++) {
            const char *ssep = h->n || s ? "," : "";
            const gm_unit_verdict *v = report_verdict(rep, rows, s, i);
            if (isnan(v->severity))
                fprintf(col[COL_SEV], "%snull", ssep);
            else
                fprintf(col[COL_SEV], "%s%.0f", ssep, 1000 * v->severity);
            fprintf(col[COL_SV], "%s%zu", ssep, strtab_add(&h->strings, v->text));
            row_cells(rep, rows, s, i, buf, sizeof buf);
            fprintf(col[COL_CELLS], "%s%zu", ssep, strtab_add(&h->cells, buf));
        }
    }
}

static gm_status write_launches(FILE *out, html_launches *h, gm_error *err)
{
    jkey(out, "launches");
    for (int c = 0; c < N_COLS; c++) {
        fprintf(out, "%s\"%s\":[", c ? "]," : "{", col_names[c]);
        gm_status st = gm_spool_copy(h->col[c], out, err);
        if (st != GM_OK)
            return st;
    }
    fputs("]}", out);
    fprintf(out, ",\"listed\":%zu", h->n);
    return GM_OK;
}

static void write_files(FILE *out, const gm_report *rep)
{
    jkey(out, "files");
    fputc('[', out);
    for (size_t f = 0; f < rep->n_files; f++) {
        const gm_counters_meta *m = report_file_meta(rep, f);
        char label[64];
        report_process_label(rep, f, label, sizeof label);
        fputs(f ? ",{\"label\":" : "{\"label\":", out);
        jstr(out, label);
        jkey(out, "path");
        jstr(out, rep->files[f].path ? rep->files[f].path : "");
        jkey(out, "command");
        jstr(out, m->command);
        jkey(out, "device");
        jstr(out, m->device_name);
        fprintf(out, ",\"launches\":%zu}", report_file_launches(rep, f));
    }
    fputc(']', out);
}

/* The chunks first (every row's note flags, the field lists, the launch
 * columns), then the object in its order. */
gm_status report_html_write_data(FILE *out, const report_ctx *c, gm_error *err)
{
    const gm_report *rep = c->rep;
    const report_rank *rk = c->rank;
    html_launches h;
    memset(&h, 0, sizeof h);
    gm_spool *fields[GM_REPORT_MAX_SECTIONS] = {NULL};
    unsigned notes[GM_REPORT_MAX_SECTIONS] = {0};
    report_cursor *cur;
    gm_status st = report_cursor_open(c, &cur, err);
    for (int k = 0; k < N_COLS && st == GM_OK && !rep->summary; k++)
        st = gm_spool_open(&h.col[k], 0, err);
    const report_rows *rows;
    size_t total = 0;
    while (st == GM_OK && (st = report_cursor_next(cur, &rows, err)) == GM_OK && rows) {
        for (size_t s = 0; s < rep->n_sections && st == GM_OK; s++) {
            const gm_unit *u = rep->sections[s].unit;
            for (size_t i = 0; u->note_flags && i < rows->count; i++)
                notes[s] |= u->note_flags(report_result(rep, rows, s, i));
            if (total == 0 && (st = gm_spool_open(&fields[s], 0, err)) == GM_OK)
                write_fields(gm_spool_stream(fields[s]), rep, rows, s);
        }
        if (!rep->summary)
            add_launches(&h, rep, rows);
        total += rows->count;
    }
    report_cursor_close(cur);
    if (st == GM_OK) {
        fputs("{\"format\":\"gpuq report html v1\"", out);
        fprintf(out, ",\"multi\":%s,\"summary\":%s", c->kernels.multi_file ? "true" : "false",
                rep->summary ? "true" : "false");
        fprintf(out, ",\"n_launches\":%zu,\"n_timed\":%zu,\"full_kernels\":%d,\"total_ns\":",
                rk->n_launches, rk->n_timed, HTML_FULL_KERNELS);
        gm_json_write_num(out, rk->n_timed ? rk->total_ns : NAN);
        write_files(out, rep);
        st = write_sections(out, rep, notes, fields, err);
    }
    if (st == GM_OK) {
        jkey(out, "kernels");
        fputc('[', out);
        for (size_t r = 0; r < rk->count; r++)
            write_kernel(out, rep, rk, r);
        fputc(']', out);
        if (!rep->summary)
            st = write_launches(out, &h, err);
    }
    if (st == GM_OK) {
        jkey(out, "strings");
        fputc('[', out);
        for (size_t i = 0; i < h.strings.n; i++) {
            fputs(i ? "," : "", out);
            jstr(out, h.strings.s[i]);
        }
        fputs("]", out);
        jkey(out, "cells");
        fputc('[', out);
        for (size_t i = 0; i < h.cells.n; i++) {
            fputs(i ? ",\n" : "\n", out);
            write_cells(out, h.cells.s[i]);
        }
        fputs("]", out);
        /* out of memory while interning: the page says the launches are
         * incomplete rather than showing wrong rows */
        fprintf(out, ",\"incomplete\":%s}", h.strings.failed || h.cells.failed ? "true" : "false");
    }
    for (int k = 0; k < N_COLS; k++)
        gm_spool_close(h.col[k]);
    for (size_t s = 0; s < GM_REPORT_MAX_SECTIONS; s++)
        gm_spool_close(fields[s]);
    strtab_free(&h.strings);
    strtab_free(&h.cells);
    return st;
}
