/* The HTML report: one self-contained page (styles, script and figures
 * inline; no network, no fonts or libraries from elsewhere), so that it
 * opens from a file in any browser.  The run's header is written here as
 * HTML, every string of the program escaped (gm_html_write_text); the
 * ranked kernels, their sections and launches are drawn by the page's
 * script (src/core/html/report.js) from the JSON block of
 * report_html_data.c, which puts every string into the page as text. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "report_html.h"

static void html(FILE *out, const char *s)
{
    gm_html_write_text(out, s);
}

/* The first ISO date or date-time in s ("2026-11-25T21:21:47Z",
 * "2026-11-22"), "" none: the counters' source line carries it. */
static void find_date(const char *s, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *p = s; *p; p++) {
        int ok = 1;
        for (int i = 0; i < 10 && ok; i++)
            ok = (i == 4 || i == 7) ? p[i] == '-' : isdigit((unsigned char)p[i]) != 0;
        if (!ok)
            continue;
        size_t n = 10;
        while (p[n] && (isdigit((unsigned char)p[n]) || strchr("T:Z.", p[n])))
            n++;
        snprintf(buf, len, "%.*s", (int)n, p);
        return;
    }
}

static void row_in(FILE *out, const char *key, const char *value, const char *cls)
{
    fputs("<dt>", out);
    html(out, key);
    fprintf(out, "</dt><dd%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    html(out, value);
    fputs("</dd>\n", out);
}

static void row(FILE *out, const char *key, const char *value)
{
    row_in(out, key, value, NULL);
}

static void write_run(FILE *out, const gm_report *rep, const report_rank *rk)
{
    const gm_counters_meta *cm = report_file_meta(rep, 0);
    char buf[1024];
    fputs("<header class=\"run\">\n<div class=\"title\"><span class=\"brand\">gpuq</span> "
          "<span class=\"what\">kernel report</span></div>\n<dl class=\"facts\">\n",
          out);
    snprintf(buf, sizeof buf, "%s (cc %d.%d, %d SMs, %d warps/SM)",
             cm->device_name[0] ? cm->device_name : "(not named in the counters)", cm->cc_major,
             cm->cc_minor, cm->sm_count, cm->max_warps_per_sm);
    row(out, "device", buf);
    if (rep->n_files == 1) {
        if (cm->command[0])
            row_in(out, "program", cm->command, "mono");
    } else {
        snprintf(buf, sizeof buf, "%zu processes (one counters file each)", rep->n_files);
        row(out, "program", buf);
    }
    char date[64];
    find_date(cm->source, date, sizeof date);
    if (date[0])
        row(out, "date", date);
    size_t metrics;
    int passes;
    report_counter_stats(rep, &metrics, &passes);
    if (passes > 0)
        snprintf(buf, sizeof buf, "%zu metrics, %d pass%s", metrics, passes,
                 passes == 1 ? "" : "es");
    else
        snprintf(buf, sizeof buf, "%zu metrics, passes not recorded", metrics);
    row(out, "counters", buf);
    char total[32];
    gm_fmt_num(total, sizeof total, rk->n_timed ? rk->total_ns * 1e-6 : NAN);
    snprintf(buf, sizeof buf, "%zu launch%s of %zu kernel%s%s%s%s", rk->n_launches,
             rk->n_launches == 1 ? "" : "es", rk->count, rk->count == 1 ? "" : "s",
             rk->n_timed ? ", " : "", rk->n_timed ? total : "", rk->n_timed ? " ms on the GPU" : "");
    row(out, "launches", buf);
    buf[0] = '\0';
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s%s%s", s ? ", " : "",
                 sec->unit->name, sec->variant[0] ? ":" : "", sec->variant);
    }
    row(out, "sections", buf);
    if (rep->n_files == 1 && cm->source[0])
        row(out, "source", cm->source);
    fputs("</dl>\n", out);
    if (rep->n_files > 1) {
        fputs("<ul class=\"files\">\n", out);
        for (size_t f = 0; f < rep->n_files; f++) {
            const gm_counters_meta *m = report_file_meta(rep, f);
            char label[64];
            report_process_label(rep, f, label, sizeof label);
            fputs("<li><b>", out);
            html(out, label);
            fputs("</b> ", out);
            html(out, rep->files[f].path ? rep->files[f].path : "-");
            snprintf(buf, sizeof buf, " (%zu launches)", report_file_launches(rep, f));
            html(out, buf);
            if (m->command[0]) {
                fputs(": <code>", out);
                html(out, m->command);
                fputs("</code>", out);
            }
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    if (rep->n_skipped) {
        fputs("<details class=\"skipped\"><summary>", out);
        snprintf(buf, sizeof buf, "%zu section%s or machine-data file%s skipped", rep->n_skipped,
                 rep->n_skipped == 1 ? "" : "s", rep->n_skipped == 1 ? "" : "s");
        html(out, buf);
        fputs("</summary><ul>\n", out);
        for (size_t i = 0; i < rep->n_skipped; i++) {
            fputs("<li>", out);
            html(out, rep->skipped[i]);
            fputs("</li>\n", out);
        }
        fputs("</ul></details>\n", out);
    }
    fputs("</header>\n", out);
}

gm_status report_write_html(FILE *out, const report_ctx *c, gm_error *err)
{
    const gm_report *rep = c->rep;
    const gm_counters_meta *cm = report_file_meta(rep, 0);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* nothing from elsewhere: the page works offline and cannot leak */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"generator\" content=\"gpuq " GPUQ_VERSION "\">\n<title>gpuq: ",
          out);
    html(out, rep->n_files == 1 && cm->command[0] ? cm->command : "kernel report");
    fputs("</title>\n<style>\n", out);
    fputs(report_html_css, out);
    fputs("</style>\n</head>\n<body>\n", out);
    write_run(out, rep, c->rank);
    fputs("<main id=\"app\"><noscript><p class=\"note\">This report draws its tables with "
          "JavaScript; the same numbers are in <code>gpuq model COUNTERS</code> as text, CSV "
          "or JSON.</p></noscript></main>\n",
          out);
    fputs("<script type=\"application/json\" id=\"gpuq-data\">", out);
    gm_status st = report_html_write_data(out, c, err);
    fputs("</script>\n<script>\n", out);
    fputs(report_html_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return st;
}
