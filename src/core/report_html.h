/* The HTML report (report_html.c): one self-contained page, its data as a
 * JSON block (report_html_data.c), its styles and script (src/core/html/,
 * embedded at build time as report_html_page.c) and one figure per section
 * (src/papers/report_figures.c, beside the unit registry).  Internal to
 * libgpuq. */
#ifndef GPUQ_REPORT_HTML_H
#define GPUQ_REPORT_HTML_H

#include <stdio.h>
#include "report_rank.h"

/* How the page draws one section: a row per unit, by the unit's name and
 * its field names (knowledge as data; the page's script draws each kind). */
typedef struct report_html_figure {
    const char *unit;       /* gm_unit.name */
    const char *bar;        /* what the section's bar (its verdict severity) measures */
    const char *kind;       /* "gauge": fractions on 0..100%; "parts": times against the
                               measured one; "tail": whole rounds of blocks and how full the last is */
    const char *fields[6];  /* the fields drawn, NULL-terminated */
    const char *lo, *hi;    /* gauge: bounds of the first field; parts: the measured and the
                               predicted time */
    double marks[3];        /* gauge: thresholds drawn (0 ends the list) */
    const char *caption;
} report_html_figure;

/* The row of a unit, NULL when the page draws no figure for it. */
const report_html_figure *report_html_figure_find(const char *unit);

/* The page's data: one JSON object (every string escaped for a <script>
 * element). */
gm_status report_html_write_data(FILE *out, const report_ctx *c, gm_error *err);

/* The page's static parts (src/core/html/report.css and report.js). */
extern const char report_html_css[];
extern const char report_html_js[];

#endif
