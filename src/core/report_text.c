/* The text report: a header (device, counters, machine data, sections
 * skipped), the ranked kernels (report_rank.c), one table per section (the launch columns, then the unit's
 * fields that have a width) and one verdict line per kernel. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_rank.h"

/* "132" for (132,1,1), "64,2" for (64,2,1), "8,8,4" otherwise */
static void format_dim3(char *buf, size_t len, const unsigned d[3])
{
    if (d[1] == 1 && d[2] == 1)
        snprintf(buf, len, "%u", d[0]);
    else if (d[2] == 1)
        snprintf(buf, len, "%u,%u", d[0], d[1]);
    else
        snprintf(buf, len, "%u,%u,%u", d[0], d[1], d[2]);
}

/* One line per cell whatever the text holds: control characters as spaces. */
static void put_clean(FILE *out, const char *text, int width, int left)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    for (char *p = buf; *p; p++)
        if (iscntrl((unsigned char)*p))
            *p = ' ';
    fprintf(out, left ? "%-*s" : "%*s", width, buf);
}

#define NAME_WIDTH 30
#define PROCESS_WIDTH 12

static void write_header(FILE *out, const gm_report *rep, const report_rows *rows)
{
    const gm_counters_meta *cm = &rep->files[0].set->meta;
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
            const gm_counters_meta *m = &rep->files[f].set->meta;
            char label[64];
            report_process_label(rep, f, label, sizeof label);
            fprintf(out, "file:     %s (%s, %zu launches%s%s)\n",
                    rep->files[f].path ? rep->files[f].path : "-", label, rep->files[f].set->count,
                    m->command[0] ? ": " : "", m->command);
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
    (void)rows;
}

static void write_section(FILE *out, const gm_report *rep, const report_rows *rows, size_t s)
{
    const gm_report_section *sec = &rep->sections[s];
    const gm_unit *u = sec->unit;
    fprintf(out, "\n== %s [%s]: %s\n", u->title, u->name, u->paper);
    if (u->text_notes) {
        const void **results = calloc(rows->count ? rows->count : 1, sizeof *results);
        if (results) {
            for (size_t i = 0; i < rows->count; i++)
                results[i] = report_result(rep, rows, s, i);
            u->text_notes(out, sec->state, results, rows->count);
            free((void *)results);
        }
    }
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = rows->count ? u->fields(sec->state, report_result(rep, rows, s, 0), f,
                                        GM_UNIT_MAX_FIELDS)
                            : 0;
    /* heading */
    fprintf(out, "%6s  ", rep->summary ? "first" : "id");
    if (rows->multi_file)
        fprintf(out, "%-*s ", PROCESS_WIDTH, "process");
    fprintf(out, "%-*s", NAME_WIDTH, "kernel");
    if (rep->summary)
        fprintf(out, " %8s", "launches");
    fprintf(out, " %13s", "grid x block");
    for (size_t j = 0; j < nf; j++)
        if (f[j].width > 0)
            fprintf(out, " %*s", f[j].width, f[j].heading ? f[j].heading : f[j].name);
    fputc('\n', out);
    for (size_t i = 0; i < rows->count; i++) {
        const gm_launch_counters *k = rows->launches[i];
        fprintf(out, "%6" PRIu64 "  ", k->launch_id);
        if (rows->multi_file) {
            char label[64];
            report_process_label(rep, rows->file_of[i], label, sizeof label);
            put_clean(out, label, PROCESS_WIDTH, 1);
            fputc(' ', out);
        }
        put_clean(out, rows->display[i], NAME_WIDTH, 1);
        if (rep->summary)
            fprintf(out, " %8zu", rows->launch_count[i]);
        char grid[40], block[40], config[88];
        format_dim3(grid, sizeof grid, k->grid);
        format_dim3(block, sizeof block, k->block);
        if (rows->config_varies && rows->config_varies[i])
            snprintf(config, sizeof config, "varies");
        else
            snprintf(config, sizeof config, "%s x %s", grid, block);
        fprintf(out, " %13s", config);
        nf = u->fields(sec->state, report_result(rep, rows, s, i), f, GM_UNIT_MAX_FIELDS);
        for (size_t j = 0; j < nf; j++) {
            if (f[j].width <= 0)
                continue;
            char v[64];
            report_field_text(&f[j], v, sizeof v);
            fputc(' ', out);
            put_clean(out, v, f[j].width, 0);
        }
        fputc('\n', out);
    }
    if (rows->count == 0)
        fprintf(out, "(no kernel launches in the counters)\n");
}

void report_write_text(FILE *out, const gm_report *rep, const report_rows *rows)
{
    write_header(out, rep, rows);
    if (rows->rank)
        report_rank_write_text(out, rep, rows->rank);
    for (size_t s = 0; s < rep->n_sections; s++)
        write_section(out, rep, rows, s);
    fprintf(out, "\nverdicts%s:\n",
            rep->n_sections > 1 ? " (the section that holds each kernel up most)" : "");
    for (size_t i = 0; i < rows->count; i++) {
        fprintf(out, "%6" PRIu64 "  ", rows->launches[i]->launch_id);
        if (rows->multi_file) {
            char label[64];
            report_process_label(rep, rows->file_of[i], label, sizeof label);
            put_clean(out, label, 0, 1);
            fputs(": ", out);
        }
        put_clean(out, rows->display[i], 0, 1);
        int s = rows->verdict_section[i];
        const gm_unit_verdict *v = s >= 0 ? report_verdict(rep, rows, (size_t)s, i) : NULL;
        fputs(": ", out);
        put_clean(out, v && v->text[0] ? v->text : "no verdict", 0, 1);
        if (rep->n_sections > 1 && s >= 0)
            fprintf(out, " [%s]", rep->sections[s].unit->name);
        fputc('\n', out);
    }
}
