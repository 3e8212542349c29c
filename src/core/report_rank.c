/* The ranked kernel summary (report_rank.h).  A long report lists every
 * launch in launch order, section by section; what a reader first asks is
 * which kernels take the GPU time, and why.  So every report opens, as
 * Nsight Systems' kernel summary does, with the kernels ranked by total GPU
 * time (gpu__time_duration summed over their launches), with the answer
 * beside each row: the verdict of the kernel's launches summed, the same
 * row --summary reports. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "report_rank.h"

typedef struct rank_key {
    size_t row;
    double time;
    size_t launches;
} rank_key;

/* Most GPU time first; kernels without any duration after every timed one,
 * by launches; then the order of first appearance (the row index). */
static int by_time(const void *pa, const void *pb)
{
    const rank_key *a = pa, *b = pb;
    int ta = !isnan(a->time), tb = !isnan(b->time);
    if (ta != tb)
        return tb - ta;
    if (ta && a->time != b->time)
        return a->time > b->time ? -1 : 1;
    if (a->launches != b->launches)
        return a->launches > b->launches ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

gm_status report_rank_make(const gm_report *rep, const report_rows *kernels, report_rank *rk,
                           gm_error *err)
{
    memset(rk, 0, sizeof *rk);
    const gm_report_input *in = rep->input;
    rk->kernels = kernels;
    size_t n = kernels->count, nk = n ? n : 1;
    rk->count = n;
    rk->n_launches = rep->n_launches;
    rk->order = calloc(nk, sizeof *rk->order);
    rk->rank_of = calloc(nk, sizeof *rk->rank_of);
    rk->time_ns = calloc(nk, sizeof *rk->time_ns);
    rk->timed = calloc(nk, sizeof *rk->timed);
    rank_key *keys = calloc(nk, sizeof *keys);
    if (!rk->order || !rk->rank_of || !rk->time_ns || !rk->timed || !keys) {
        free(keys);
        report_rank_free(rk);
        return gm_fail(err, GM_ERR_NOMEM, "kernel summary: out of memory");
    }
    /* Summed over the launches that have a duration as they were read
     * (report_scan.c) rather than read from the summary row: a sum there is
     * NaN as soon as one launch lacks its duration (an NCCL kernel listed
     * without counters), and the time of the others still counts. */
    for (size_t g = 0; g < n; g++) {
        rk->time_ns[g] = in->groups[g].time_ns;
        rk->timed[g] = in->groups[g].timed;
    }
    rk->total_ns = in->total_ns;
    rk->n_timed = in->n_timed;
    for (size_t g = 0; g < n; g++)
        keys[g] = (rank_key){g, rk->time_ns[g], kernels->launch_count[g]};
    qsort(keys, n, sizeof *keys, by_time);
    for (size_t r = 0; r < n; r++) {
        rk->order[r] = keys[r].row;
        rk->rank_of[keys[r].row] = r;
    }
    free(keys);
    return GM_OK;
}

void report_rank_free(report_rank *rk)
{
    free(rk->order);
    free(rk->rank_of);
    free(rk->time_ns);
    free(rk->timed);
    memset(rk, 0, sizeof *rk);
}

double report_rank_mean_ns(const report_rank *rk, size_t row)
{
    return rk->timed[row] ? rk->time_ns[row] / (double)rk->timed[row] : NAN;
}

double report_rank_share(const report_rank *rk, size_t row)
{
    if (!rk->n_timed || !(rk->total_ns > 0))
        return NAN;
    return rk->timed[row] ? rk->time_ns[row] / rk->total_ns : 0.0;
}

/* The verdict line of a kernel row and the section that gives it. */
static const char *row_verdict(const gm_report *rep, const report_rank *rk, size_t row,
                               const char **section)
{
    int s = rk->kernels->verdict_section[row];
    *section = s >= 0 ? rep->sections[s].unit->name : "";
    if (s < 0)
        return "";
    const gm_unit_verdict *v = &rk->kernels->verdicts[row * rep->n_sections + (size_t)s];
    return v->text;
}

/* ------------------------------------------------------------------------
 * Text */

/* Control characters as spaces: one line per row whatever a name holds. */
static void put_line_text(FILE *out, const char *text, int width, int left)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    for (char *p = buf; *p; p++)
        if (iscntrl((unsigned char)*p))
            *p = ' ';
    fprintf(out, left ? "%-*s" : "%*s", width, buf);
}

static void fmt_share(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100 * v);
}

#define RANK_NAME_WIDTH 30
#define RANK_PROCESS_WIDTH 12

void report_rank_write_text(FILE *out, const gm_report *rep, const report_rank *rk)
{
    const report_rows *kr = rk->kernels;
    char total[32];
    gm_fmt_num(total, sizeof total, rk->n_timed ? rk->total_ns * 1e-6 : NAN);
    fprintf(out, "\n== kernels by GPU time: %zu launch%s of %zu kernel%s", rk->n_launches,
            rk->n_launches == 1 ? "" : "es", rk->count, rk->count == 1 ? "" : "s");
    if (rk->n_timed)
        fprintf(out, ", %s ms on the GPU", total);
    fputc('\n', out);
    if (rk->n_timed < rk->n_launches)
        fprintf(out, "  - %zu launch%s without a duration (gpu__time_duration): not in the "
                     "times%s\n",
                rk->n_launches - rk->n_timed, rk->n_launches - rk->n_timed == 1 ? "" : "es",
                rk->n_timed ? "" : "; ranked by launches");
    fprintf(out, "  - verdict: of the kernel's launches summed (its --summary row)%s\n",
            rep->n_sections > 1 ? "; [section] the section that gives it" : "");
    fprintf(out, "%6s  ", "rank");
    if (kr->multi_file)
        fprintf(out, "%-*s ", RANK_PROCESS_WIDTH, "process");
    fprintf(out, "%-*s %8s %10s %10s %7s  %s\n", RANK_NAME_WIDTH, "kernel", "launches",
            "total ms", "mean us", "share", "verdict");
    for (size_t r = 0; r < rk->count; r++) {
        size_t g = rk->order[r];
        fprintf(out, "%6zu  ", r + 1);
        if (kr->multi_file) {
            char label[64];
            report_process_label(rep, kr->file_of[g], label, sizeof label);
            put_line_text(out, label, RANK_PROCESS_WIDTH, 1);
            fputc(' ', out);
        }
        put_line_text(out, kr->display[g], RANK_NAME_WIDTH, 1);
        char t[32], m[32], s[32];
        gm_fmt_num(t, sizeof t, rk->time_ns[g] * 1e-6);
        gm_fmt_num(m, sizeof m, report_rank_mean_ns(rk, g) * 1e-3);
        fmt_share(s, sizeof s, report_rank_share(rk, g));
        fprintf(out, " %8zu %10s %10s %7s  ", kr->launch_count[g], t, m, s);
        const char *section;
        const char *v = row_verdict(rep, rk, g, &section);
        put_line_text(out, v[0] ? v : "no verdict", 0, 1);
        if (rep->n_sections > 1 && section[0])
            fprintf(out, " [%s]", section);
        fputc('\n', out);
    }
    if (rk->count == 0)
        fprintf(out, "(no kernel launches in the counters)\n");
}

/* ------------------------------------------------------------------------
 * CSV: '#' lines, which every reader of gpuq's CSV skips (the counters
 * files' header is '#' lines too), so the report's own table still starts
 * at its heading; without "# " the block is a CSV table of its own. */

/* A CSV field on one line: control characters (a newline would end the
 * '#' line inside a quoted field) as spaces. */
static void csv_line_field(FILE *out, const char *text)
{
    char *copy = strdup(text ? text : "");
    if (!copy) {
        fputs(text ? text : "", out);
        return;
    }
    for (char *p = copy; *p; p++)
        if (iscntrl((unsigned char)*p))
            *p = ' ';
    gm_csv_write_field(out, copy);
    free(copy);
}

static void csv_num(FILE *out, double v)
{
    char buf[40];
    gm_csv_format_double(buf, sizeof buf, v);
    fputc(',', out);
    fputs(buf, out);
}

void report_rank_write_csv(FILE *out, const gm_report *rep, const report_rank *rk)
{
    const report_rows *kr = rk->kernels;
    fprintf(out, "# kernels by GPU time: %zu launches of %zu kernels (without its leading '# ' "
                 "this block is a CSV table; the report's rows follow it)\n",
            rk->n_launches, rk->count);
    fputs("# rank", out);
    if (kr->multi_file)
        fputs(",file,pid", out);
    fputs(",kernel,demangled,mangled,first_launch_id,launches,timed_launches,gpu_time_ns,"
          "mean_ns,share,verdict_section,verdict\n",
          out);
    for (size_t r = 0; r < rk->count; r++) {
        size_t g = rk->order[r];
        fprintf(out, "# %zu", r + 1);
        if (kr->multi_file) {
            const gm_report_file *f = &rep->files[kr->file_of[g]];
            fputc(',', out);
            csv_line_field(out, f->path ? f->path : "");
            if (report_file_meta(rep, kr->file_of[g])->pid > 0)
                fprintf(out, ",%ld", report_file_meta(rep, kr->file_of[g])->pid);
            else
                fputc(',', out);
        }
        for (int b = 0; b < GM_NAME_BASE_COUNT; b++) {
            fputc(',', out);
            csv_line_field(out, kr->names[b][g]);
        }
        fprintf(out, ",%" PRIu64 ",%zu,%zu", kr->launches[g]->launch_id, kr->launch_count[g],
                rk->timed[g]);
        csv_num(out, rk->time_ns[g]);
        csv_num(out, report_rank_mean_ns(rk, g));
        csv_num(out, report_rank_share(rk, g));
        const char *section;
        const char *v = row_verdict(rep, rk, g, &section);
        fputc(',', out);
        csv_line_field(out, section);
        fputc(',', out);
        csv_line_field(out, v);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------------
 * JSON */

void report_rank_write_json(FILE *out, const gm_report *rep, const report_rank *rk)
{
    const report_rows *kr = rk->kernels;
    fputs(",\n  \"gpu_time_ns\": ", out);
    gm_json_write_num(out, rk->n_timed ? rk->total_ns : NAN);
    fputs(",\n  \"kernels\": [", out);
    static const char *const name_keys[GM_NAME_BASE_COUNT] = {"kernel", "demangled", "mangled"};
    for (size_t r = 0; r < rk->count; r++) {
        size_t g = rk->order[r];
        fprintf(out, "%s\n    {\"rank\": %zu", r ? "," : "", r + 1);
        if (kr->multi_file)
            fprintf(out, ", \"file\": %zu", kr->file_of[g]);
        for (int b = 0; b < GM_NAME_BASE_COUNT; b++) {
            fprintf(out, ", \"%s\": ", name_keys[b]);
            gm_json_write_string(out, kr->names[b][g]);
        }
        fprintf(out, ", \"first_launch_id\": %" PRIu64 ", \"launches\": %zu, "
                     "\"timed_launches\": %zu, \"gpu_time_ns\": ",
                kr->launches[g]->launch_id, kr->launch_count[g], rk->timed[g]);
        gm_json_write_num(out, rk->time_ns[g]);
        fputs(", \"mean_ns\": ", out);
        gm_json_write_num(out, report_rank_mean_ns(rk, g));
        fputs(", \"share\": ", out);
        gm_json_write_num(out, report_rank_share(rk, g));
        const char *section;
        const char *v = row_verdict(rep, rk, g, &section);
        fputs(", \"verdict_section\": ", out);
        if (section[0])
            gm_json_write_string(out, section);
        else
            fputs("null", out);
        fputs(", \"verdict\": ", out);
        gm_json_write_string(out, v);
        fputc('}', out);
    }
    fputs(rk->count ? "\n  ]" : "]", out);
}
