/* The JSON report, "gpuq report v2": the header (device, files, counters,
 * sections and what was skipped), the ranked kernels ("gpu_time_ns",
 * "kernels": report_rank.c), then per launch (or per kernel) its
 * configuration, its raw counters by metric name, one object per section
 * (the unit's fields and nested extras) and the verdict.  Strings escaped
 * per RFC 8259, NaN as null. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report_rank.h"

/* ",\n" (or "\n" first), indent spaces, "KEY": (without printf: a launch
 * has some 150 keys) */
static void key(FILE *out, int indent, const char *k, int *first)
{
    static const char lead[] = ",\n                                ";
    int n = indent < (int)sizeof lead - 3 ? indent : (int)sizeof lead - 3;
    if (*first)
        fwrite(lead + 1, 1, (size_t)n + 1, out);
    else
        fwrite(lead, 1, (size_t)n + 2, out);
    for (int i = n; i < indent; i++)
        fputc(' ', out);
    *first = 0;
    gm_json_write_string(out, k);
    fputs(": ", out);
}

static void dim3(FILE *out, const unsigned d[3])
{
    fprintf(out, "[%u, %u, %u]", d[0], d[1], d[2]);
}

static void int_or_null(FILE *out, long v)
{
    if (v >= 0)
        fprintf(out, "%ld", v);
    else
        fputs("null", out);
}

static void write_file_meta(FILE *out, const gm_report *rep, size_t f)
{
    const gm_counters_meta *cm = report_file_meta(rep, f);
    fputs("{\"path\": ", out);
    gm_json_write_string(out, rep->files[f].path ? rep->files[f].path : "");
    fputs(", \"pid\": ", out);
    int_or_null(out, cm->pid > 0 ? cm->pid : -1);
    fputs(", \"device_name\": ", out);
    gm_json_write_string(out, cm->device_name);
    fprintf(out, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, "
                 "\"max_warps_per_sm\": %d, \"passes\": ",
            cm->cc_major, cm->cc_minor, cm->sm_count, cm->max_warps_per_sm);
    int_or_null(out, cm->passes > 0 ? cm->passes : -1);
    fprintf(out, ", \"launches\": %zu, \"source\": ", report_file_launches(rep, f));
    gm_json_write_string(out, cm->source);
    fputs(", \"command\": ", out);
    gm_json_write_string(out, cm->command);
    fputc('}', out);
}

static void write_header(FILE *out, const gm_report *rep, const report_rows *rows, int *first)
{
    key(out, 2, "format", first);
    gm_json_write_string(out, "gpuq report v2");
    key(out, 2, "gpuq_version", first);
    gm_json_write_string(out, GPUQ_VERSION);
    key(out, 2, "files", first);
    fputc('[', out);
    for (size_t f = 0; f < rep->n_files; f++) {
        fprintf(out, "%s\n    ", f ? "," : "");
        write_file_meta(out, rep, f);
    }
    fputs("\n  ]", out);
    size_t metrics;
    int passes;
    report_counter_stats(rep, &metrics, &passes);
    key(out, 2, "counters", first);
    fprintf(out, "{\"metrics\": %zu, \"passes\": ", metrics);
    int_or_null(out, passes > 0 ? passes : -1);
    fputs(", \"columns\": [", out);
    for (size_t m = 0; m < rows->n_metric_rows; m++) {
        fputs(m ? ", " : "", out);
        gm_json_write_string(out, gm_metric_table[rows->metric_rows[m]].name);
    }
    fputs("]}", out);
    key(out, 2, "sections", first);
    fputc('[', out);
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_unit *u = rep->sections[s].unit;
        fprintf(out, "%s\n    {\"name\": ", s ? "," : "");
        gm_json_write_string(out, u->name);
        fputs(", \"title\": ", out);
        gm_json_write_string(out, u->title);
        fputs(", \"paper\": ", out);
        gm_json_write_string(out, u->paper);
        fputs(", \"variant\": ", out);
        gm_json_write_string(out, rep->sections[s].variant[0] ? rep->sections[s].variant
                                                                : "default");
        fputc('}', out);
    }
    fputs(rep->n_sections ? "\n  ]" : "]", out);
    key(out, 2, "skipped", first);
    fputc('[', out);
    for (size_t i = 0; i < rep->n_skipped; i++) {
        fputs(i ? ", " : "", out);
        gm_json_write_string(out, rep->skipped[i]);
    }
    fputc(']', out);
    key(out, 2, "summary", first);
    fputs(rep->summary ? "true" : "false", out);
}

static void write_section(FILE *out, const gm_report *rep, const report_rows *rows, size_t s,
                          size_t i, int indent)
{
    const gm_report_section *sec = &rep->sections[s];
    const void *res = report_result(rep, rows, s, i);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = sec->unit->fields(sec->state, res, f, GM_UNIT_MAX_FIELDS);
    int first = 1;
    fputc('{', out);
    for (size_t j = 0; j < nf; j++) {
        if (f[j].flags & GM_FIELD_TEXT_ONLY)
            continue;
        key(out, indent + 2, f[j].name, &first);
        if (f[j].kind == GM_FIELD_TEXT)
            gm_json_write_string(out, f[j].text);
        else
            gm_json_write_num(out, f[j].num);
    }
    const gm_unit_verdict *v = report_verdict(rep, rows, s, i);
    key(out, indent + 2, "severity", &first);
    gm_json_write_num(out, v->severity);
    key(out, indent + 2, "section_verdict", &first);
    gm_json_write_string(out, v->text);
    if (sec->unit->json_extra)
        sec->unit->json_extra(out, indent + 2, sec->state, res);
    fprintf(out, "\n%*s}", indent, "");
}

static void write_launch(FILE *out, const gm_report *rep, const report_rows *rows, size_t i)
{
    const gm_launch_counters *k = rows->launches[i];
    int first = 1, ind = 6;
    fputs("    {", out);
    key(out, ind, "launch_id", &first);
    fprintf(out, "%" PRIu64, k->launch_id);
    if (rows->multi_file) {
        key(out, ind, "file", &first);
        fprintf(out, "%zu", rows->file_of[i]);
    }
    if (rep->summary) {
        key(out, ind, "launches", &first);
        fprintf(out, "%zu", rows->launch_count[i]);
        key(out, ind, "config_varies", &first);
        fputs(rows->config_varies[i] ? "true" : "false", out);
    }
    static const char *const name_keys[GM_NAME_BASE_COUNT] = {"kernel", "demangled", "mangled"};
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++) {
        key(out, ind, name_keys[b], &first);
        gm_json_write_string(out, rows->names[b][i]);
    }
    key(out, ind, "device", &first);
    fprintf(out, "%d", k->device);
    key(out, ind, "grid", &first);
    dim3(out, k->grid);
    key(out, ind, "block", &first);
    dim3(out, k->block);
    key(out, ind, "regs_per_thread", &first);
    int_or_null(out, k->regs_per_thread);
    key(out, ind, "shared_bytes", &first);
    int_or_null(out, k->shared_bytes);
    key(out, ind, "counters", &first);
    fputc('{', out);
    int cfirst = 1;
    for (size_t m = 0; m < rows->n_metric_rows; m++) {
        key(out, ind + 2, gm_metric_table[rows->metric_rows[m]].name, &cfirst);
        gm_json_write_num(out, k->metric[rows->metric_rows[m]]);
    }
    fprintf(out, "\n%*s}", ind, "");
    const gm_code_pass *pass = gm_units_file_pass();
    if (pass) {
        /* the code pass's result, one object on one line */
        key(out, ind, pass->result_key, &first);
        fprintf(out, "{\"valid\": %s", k->pass.valid ? "true" : "false");
        for (size_t v = 0; v < gm_code_pass_values(pass); v++) {
            fprintf(out, ", \"%s\": ", pass->result_values[v]);
            gm_json_write_num(out, k->pass.valid ? k->pass.value[v] : NAN);
        }
        fputc('}', out);
    }
    key(out, ind, "sections", &first);
    fputc('{', out);
    int sfirst = 1;
    for (size_t s = 0; s < rep->n_sections; s++) {
        key(out, ind + 2, rep->sections[s].unit->name, &sfirst);
        write_section(out, rep, rows, s, i, ind + 2);
    }
    fprintf(out, "\n%*s}", ind, "");
    int vs = rows->verdict_section[i];
    const gm_unit_verdict *v = vs >= 0 ? report_verdict(rep, rows, (size_t)vs, i) : NULL;
    key(out, ind, "verdict_section", &first);
    if (vs >= 0)
        gm_json_write_string(out, rep->sections[vs].unit->name);
    else
        fputs("null", out);
    key(out, ind, "verdict", &first);
    gm_json_write_string(out, v ? v->text : "");
    fputs("\n    }", out);
}

/* Rows, each after ",\n" but the report's first (rows->first counts them). */
static int write_launches(void *ctx, const report_rows *rows, FILE *const *outs)
{
    for (size_t i = 0; i < rows->count; i++) {
        fputs(rows->first + i ? ",\n" : "\n", outs[0]);
        write_launch(outs[0], ctx, rows, i);
    }
    return 0;
}

gm_status report_write_json(FILE *out, const report_ctx *c, gm_error *err)
{
    const gm_report *rep = c->rep;
    int first = 1;
    fputc('{', out);
    write_header(out, rep, &c->kernels, &first);
    report_rank_write_json(out, rep, c->rank);
    key(out, 2, "launches", &first);
    fputc('[', out);
    report_cursor *cur;
    gm_status st = report_cursor_open(c, &cur, err);
    const report_rows *rows;
    size_t total = 0;
    while (st == GM_OK && (st = report_cursor_next(cur, &rows, err)) == GM_OK && rows) {
        st = report_write_in_halves(rep, rows, &out, 1, write_launches, (void *)rep, err);
        total += rows->count;
    }
    report_cursor_close(cur);
    fputs(total ? "\n  ]\n}\n" : "]\n}\n", out);
    return st;
}
