/* The text report: a header (device, counters, machine data, sections
 * skipped), the ranked kernels (report_rank.c), one table per section (the
 * launch columns, then the unit's fields that have a width) and one
 * verdict line per kernel. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_rank.h"
#include "spool.h"

/* Cells are written without printf (a million-launch report writes some
 * 50 million), byte for byte as "%*s", "%-*s" and "%u" write them. */

/* A row is put together in a buffer and written at once. */
typedef struct line {
    FILE *out;
    size_t n;
    char b[8192];
} line;

static void l_flush(line *l)
{
    fwrite(l->b, 1, l->n, l->out);
    l->n = 0;
}

static void l_put(line *l, const char *s, size_t n)
{
    if (l->n + n > sizeof l->b) {
        l_flush(l);
        if (n > sizeof l->b) {
            fwrite(s, 1, n, l->out);
            return;
        }
    }
    memcpy(l->b + l->n, s, n);
    l->n += n;
}

static void l_str(line *l, const char *s)
{
    l_put(l, s, strlen(s));
}

static void l_spaces(line *l, size_t n)
{
    static const char spaces[] = "                                                                ";
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        l_put(l, spaces, k);
        n -= k;
    }
}

/* s (n bytes) padded to width: on the right when left, else on the left. */
static void put_padded(line *l, const char *s, size_t n, int width, int left)
{
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    if (!left)
        l_spaces(l, pad);
    l_put(l, s, n);
    if (left)
        l_spaces(l, pad);
}

static size_t put_uint(char *out, unsigned long long u)
{
    char d[24];
    size_t n = 0;
    do {
        d[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (size_t i = 0; i < n; i++)
        out[i] = d[n - 1 - i];
    return n;
}

/* "132" for (132,1,1), "64,2" for (64,2,1), "8,8,4" otherwise */
static size_t format_dim3(char *buf, const unsigned d[3])
{
    size_t n = put_uint(buf, d[0]);
    int parts = d[2] != 1 ? 3 : d[1] != 1 ? 2 : 1;
    for (int i = 1; i < parts; i++) {
        buf[n++] = ',';
        n += put_uint(buf + n, d[i]);
    }
    return n;
}

/* One line per cell whatever the text holds: control characters as spaces
 * (and, as ever, at most 255 bytes of it). */
static void put_clean(line *l, const char *text, int width, int left)
{
    const char *t = text ? text : "";
    size_t n = strnlen(t, 255);
    char buf[256];
    const char *shown = t;
    for (size_t i = 0; i < n; i++)
        if (iscntrl((unsigned char)t[i])) {
            memcpy(buf, t, n);
            for (size_t j = i; j < n; j++)
                if (iscntrl((unsigned char)buf[j]))
                    buf[j] = ' ';
            shown = buf;
            break;
        }
    put_padded(l, shown, n, width, left);
}

/* "%6" PRIu64 "  ": a launch id in its column. */
static void put_id(line *l, uint64_t id)
{
    char b[24];
    size_t n = put_uint(b, id);
    put_padded(l, b, n, 6, 0);
    l_put(l, "  ", 2);
}

#define NAME_WIDTH 30
#define PROCESS_WIDTH 12

static void write_header(FILE *out, const gm_report *rep)
{
    const gm_counters_meta *cm = report_file_meta(rep, 0);
    fprintf(out, "gpuq report\n");
    fprintf(out, "device:   %s (cc %d.%d, %d SMs, %d warps/SM)\n",
            cm->device_name[0] ? cm->device_name : "(not named in the counters)", cm->cc_major,
            cm->cc_minor, cm->sm_count, cm->max_warps_per_sm);
    if (rep->n_files == 1) {
        if (cm->source[0])
            fprintf(out, "source:   %s\n", cm->source);
        if (cm->command[0])
            fprintf(out, "command:  %s\n", cm->command);
    } else {
        for (size_t f = 0; f < rep->n_files; f++) {
            const gm_counters_meta *m = report_file_meta(rep, f);
            char label[64];
            report_process_label(rep, f, label, sizeof label);
            fprintf(out, "file:     %s (%s, %zu launches%s%s)\n",
                    rep->files[f].path ? rep->files[f].path : "-", label,
                    report_file_launches(rep, f), m->command[0] ? ": " : "", m->command);
            if (strcmp(m->device_name, cm->device_name) != 0 || m->sm_count != cm->sm_count)
                fprintf(out, "          on %s (%d SMs)\n", m->device_name, m->sm_count);
        }
    }
    size_t metrics;
    int passes;
    report_counter_stats(rep, &metrics, &passes);
    if (passes > 0)
        fprintf(out, "counters: %zu metrics, %d pass%s\n", metrics, passes, passes == 1 ? "" : "es");
    else
        fprintf(out, "counters: %zu metrics, passes not recorded\n", metrics);
    fprintf(out, "sections:");
    for (size_t s = 0; s < rep->n_sections; s++)
        fprintf(out, "%s %s", s ? "," : "", rep->sections[s].unit->name);
    fputc('\n', out);
    for (size_t i = 0; i < rep->n_skipped; i++)
        fprintf(out, "skipped:  %s\n", rep->skipped[i]);
    fprintf(out, "rows:     %s\n",
            rep->summary ? "one per kernel (per process), launches summed" : "one per launch");
}

/* A section's column heading: the launch columns, then the fields with a
 * width (none when there is no row to take them from). */
static void write_heading(FILE *out, const gm_report *rep, int multi_file, const gm_field *f,
                          size_t nf)
{
    fprintf(out, "%6s  ", rep->summary ? "first" : "id");
    if (multi_file)
        fprintf(out, "%-*s ", PROCESS_WIDTH, "process");
    fprintf(out, "%-*s", NAME_WIDTH, "kernel");
    if (rep->summary)
        fprintf(out, " %8s", "launches");
    fprintf(out, " %13s", "grid x block");
    for (size_t j = 0; j < nf; j++)
        if (f[j].width > 0)
            fprintf(out, " %*s", f[j].width, f[j].heading ? f[j].heading : f[j].name);
    fputc('\n', out);
}

/* Section s's rows of one chunk (after the heading when it is the first). */
static int write_rows(FILE *out, const gm_report *rep, const report_rows *rows, size_t s,
                      int first_chunk)
{
    const gm_report_section *sec = &rep->sections[s];
    const gm_unit *u = sec->unit;
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf;
    if (first_chunk) {
        nf = u->fields(sec->state, report_result(rep, rows, s, 0), f, GM_UNIT_MAX_FIELDS);
        write_heading(out, rep, rows->multi_file, f, nf);
    }
    line *l = malloc(sizeof *l);
    if (!l)
        return -1; /* out of memory: the report fails */
    l->out = out;
    l->n = 0;
    for (size_t i = 0; i < rows->count; i++) {
        const gm_launch_counters *k = rows->launches[i];
        put_id(l, k->launch_id);
        if (rows->multi_file) {
            char label[64];
            report_process_label(rep, rows->file_of[i], label, sizeof label);
            put_clean(l, label, PROCESS_WIDTH, 1);
            l_put(l, " ", 1);
        }
        put_clean(l, rows->display[i], NAME_WIDTH, 1);
        if (rep->summary) {
            char b[24];
            size_t n = put_uint(b, rows->launch_count[i]);
            l_put(l, " ", 1);
            put_padded(l, b, n, 8, 0);
        }
        char config[88];
        size_t n = 0;
        if (rows->config_varies && rows->config_varies[i]) {
            memcpy(config, "varies", n = 6);
        } else {
            n = format_dim3(config, k->grid);
            memcpy(config + n, " x ", 3);
            n += 3;
            n += format_dim3(config + n, k->block);
        }
        l_put(l, " ", 1);
        put_padded(l, config, n, 13, 0);
        nf = u->fields(sec->state, report_result(rep, rows, s, i), f, GM_UNIT_MAX_FIELDS);
        for (size_t j = 0; j < nf; j++) {
            if (f[j].width <= 0)
                continue;
            char v[64];
            report_field_text(&f[j], v, sizeof v);
            l_put(l, " ", 1);
            put_clean(l, v, f[j].width, 0);
        }
        l_put(l, "\n", 1);
    }
    l_flush(l);
    free(l);
    return 0;
}

static int write_verdicts(FILE *out, const gm_report *rep, const report_rows *rows)
{
    line *l = malloc(sizeof *l);
    if (!l)
        return -1; /* out of memory: the report fails */
    l->out = out;
    l->n = 0;
    for (size_t i = 0; i < rows->count; i++) {
        put_id(l, rows->launches[i]->launch_id);
        if (rows->multi_file) {
            char label[64];
            report_process_label(rep, rows->file_of[i], label, sizeof label);
            put_clean(l, label, 0, 1);
            l_put(l, ": ", 2);
        }
        put_clean(l, rows->display[i], 0, 1);
        int s = rows->verdict_section[i];
        const gm_unit_verdict *v = s >= 0 ? report_verdict(rep, rows, (size_t)s, i) : NULL;
        l_put(l, ": ", 2);
        put_clean(l, v && v->text[0] ? v->text : "no verdict", 0, 1);
        if (rep->n_sections > 1 && s >= 0) {
            l_put(l, " [", 2);
            l_str(l, rep->sections[s].unit->name);
            l_put(l, "]", 1);
        }
        l_put(l, "\n", 1);
    }
    l_flush(l);
    free(l);
    return 0;
}

/* One chunk's rows (or a half of them): every section's into its spool,
 * the verdicts into the last; the first row of all after the headings. */
typedef struct chunk_job {
    const gm_report *rep;
    size_t heading_at; /* the row before which the headings go; SIZE_MAX none */
} chunk_job;

static int write_chunk(void *ctx, const report_rows *rows, FILE *const *outs)
{
    const chunk_job *j = ctx;
    int rc = 0;
    for (size_t s = 0; s < j->rep->n_sections && rc == 0; s++)
        rc = write_rows(outs[s], j->rep, rows, s, rows->first == j->heading_at);
    return rc ? rc : write_verdicts(outs[j->rep->n_sections], j->rep, rows);
}

/* The sections' rows and the verdicts come a chunk at a time but are
 * written one after the other: each goes into a spool (spool.h) as its
 * rows come, and the report is put together at the end, with each
 * section's notes (which depend on every row: gm_unit.note_flags). */
gm_status report_write_text(FILE *out, const report_ctx *c, gm_error *err)
{
    const gm_report *rep = c->rep;
    size_t ns = rep->n_sections, total = 0;
    gm_spool *spool[GM_REPORT_MAX_SECTIONS + 1] = {NULL};
    unsigned notes[GM_REPORT_MAX_SECTIONS] = {0};
    report_cursor *cur = NULL;
    gm_status st = report_cursor_open(c, &cur, err);
    for (size_t s = 0; s <= ns && st == GM_OK; s++)
        st = gm_spool_open(&spool[s], 0, err);
    const report_rows *rows;
    FILE *outs[GM_REPORT_MAX_SECTIONS + 1];
    for (size_t s = 0; s <= ns && st == GM_OK; s++)
        outs[s] = gm_spool_stream(spool[s]);
    while (st == GM_OK && (st = report_cursor_next(cur, &rows, err)) == GM_OK && rows) {
        chunk_job job = {rep, total == 0 ? rows->first : SIZE_MAX};
        st = report_write_in_halves(rep, rows, outs, ns + 1, write_chunk, &job, err);
        for (size_t s = 0; s < ns; s++) {
            const gm_unit *u = rep->sections[s].unit;
            for (size_t i = 0; u->note_flags && i < rows->count; i++)
                notes[s] |= u->note_flags(report_result(rep, rows, s, i));
        }
        total += rows->count;
    }
    report_cursor_close(cur);
    if (st == GM_OK) {
        write_header(out, rep);
        report_rank_write_text(out, rep, c->rank);
    }
    for (size_t s = 0; s < ns && st == GM_OK; s++) {
        const gm_report_section *sec = &rep->sections[s];
        const gm_unit *u = sec->unit;
        fprintf(out, "\n== %s [%s]: %s\n", u->title, u->name, u->paper);
        if (u->text_notes)
            u->text_notes(out, sec->state, notes[s]);
        if (total == 0)
            write_heading(out, rep, c->kernels.multi_file, NULL, 0);
        st = gm_spool_copy(spool[s], out, err);
        if (total == 0)
            fprintf(out, "(no kernel launches in the counters)\n");
    }
    if (st == GM_OK) {
        fprintf(out, "\nverdicts%s:\n",
                ns > 1 ? " (the section that holds each kernel up most)" : "");
        st = gm_spool_copy(spool[ns], out, err);
    }
    for (size_t s = 0; s <= ns; s++)
        gm_spool_close(spool[s]);
    return st;
}
