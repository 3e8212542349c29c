/* The report: one header, one section per registered unit whose inputs
 * exist (gpuq/unit.h), and one verdict line per kernel that sums the
 * sections up (the section whose verdict is most severe speaks).  Every
 * report opens with the kernels ranked by GPU time, each with its verdict
 * (report_rank.c).  Four writers share one structure: text for people
 * (report_text.c), CSV (report_csv.c: columns "<unit>.<field>") and JSON
 * ("gpuq report v2", report_json.c) for machines, and one self-contained
 * HTML page (report_html.c) to look at in a browser; JSON carries the raw
 * counters too, so a report can be recomputed offline.
 *
 * Several counters files (one per process of a multi-process job) make one
 * report: every row says which file, and which process (the pid of the
 * file's header), it came from.
 */
#ifndef GPUQ_REPORT_H
#define GPUQ_REPORT_H

#include <stdio.h>
#include "gpuq/kernel_name.h"
#include "gpuq/counters.h"
#include "gpuq/status.h"
#include "gpuq/unit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_format {
    GM_FORMAT_TEXT = 0,
    GM_FORMAT_CSV,
    GM_FORMAT_JSON,
    GM_FORMAT_HTML, /* one self-contained page (report_html.c) */
    GM_FORMAT_COUNT
} gm_format;

gm_status gm_format_parse(const char *name, gm_format *out);
const char *gm_format_name(gm_format f);

#define GM_REPORT_MAX_SECTIONS 16
#define GM_REPORT_MAX_FILES 256

/* What to report. */
typedef struct gm_report_options {
    int summary;                 /* 1: one row per kernel name (per file), launches summed */
    gm_name_base name_base;      /* kernel names in text (CSV and JSON carry all three) */
    const char *const *sections; /* NULL-terminated unit names (--section); NULL: every unit */
    const char *const *variants; /* NULL-terminated "UNIT:VARIANT" (-m); a bare VARIANT is
                                    the first unit's (gm_units[0]); NULL: defaults */
} gm_report_options;

/* One section: a unit prepared with the machine data, and its result for
 * every launch of the report. */
typedef struct gm_report_section {
    const gm_unit *unit;
    char variant[48];         /* "" for the unit's default */
    void *state;              /* unit->prepare's */
    unsigned char *results;   /* n_launches * unit->result_size; sets in memory only */
} gm_report_section;

/* One counters file of the report: a set in memory, or a file the report
 * reads itself (set NULL), twice, a chunk of launches at a time: once when
 * it is made (gm_report_input_read) and again when it is written, so that
 * its memory is bounded by the chunk and the kernels, whatever the number
 * of launches. */
typedef struct gm_report_file {
    const gm_counters_set *set; /* not owned; NULL: read from path */
    const char *path;           /* as given (not owned); NULL for one unnamed set */
} gm_report_file;

/* The report's input read once (report_scan.h): the files' headers, launch
 * counts and every kernel's launches added up; a file read from path is
 * checked as gm_counters_load checks it (the same errors). */
typedef struct gm_report_input gm_report_input;

typedef struct gm_report {
    size_t n_files;
    gm_report_file files[GM_REPORT_MAX_FILES];
    const gm_machine *machine;   /* not owned (unless own_machine) */
    int summary;                 /* may be set after gm_report_make, before writing */
    gm_name_base name_base;
    size_t n_launches;           /* over all files, in file order */
    /* Sets in memory only (NULL when a file is read from its path): every
     * launch and, per section, its result (gm_report_section.results). */
    const gm_launch_counters **launches;
    size_t *file_of;             /* launch -> index into files */
    size_t n_sections;
    gm_report_section sections[GM_REPORT_MAX_SECTIONS];
    size_t n_skipped;            /* sections not reported, one line each, with why */
    char skipped[GM_REPORT_MAX_SECTIONS + GM_MACHINE_MAX_FILES][320];
    int own_machine;             /* machine is the report's to free (a builder's) */
    gm_report_input *input;      /* owned */
    struct report_kernels *kernels; /* the --summary rows, every section applied (owned) */
    size_t chunk;                /* launches per chunk when written (0: the default) */
} gm_report;

gm_status gm_report_input_read(gm_report_input **out, const gm_report_file *files,
                               size_t n_files, gm_error *err);
/* The header of file i (NULL past the last). */
const gm_counters_meta *gm_report_input_meta(const gm_report_input *in, size_t file);
void gm_report_input_free(gm_report_input *in);

/* gm_report_make on an input read already; the report takes it (it is
 * freed with the report, or here when making fails). */
gm_status gm_report_make_from(gm_report *rep, gm_report_input *in, const gm_machine *machine,
                              const gm_report_options *opt, gm_error *err);

/* Applies every selected unit whose machine data and metrics exist to every
 * launch of the files (gm_report_input_read, then gm_report_make_from).  A unit named in opt->sections that cannot report,
 * an unknown section or variant: GM_ERR_INVALID_ARG / GM_ERR_MISSING with
 * the reason.  A unit not asked for by name whose machine data is missing
 * is skipped with a line in rep->skipped.  No section at all: GM_ERR_MISSING
 * with the skipped lines. */
gm_status gm_report_make(gm_report *rep, const gm_report_file *files, size_t n_files,
                         const gm_machine *machine, const gm_report_options *opt,
                         gm_error *err);

/* The checks of gm_report_make that need no counters: every section and
 * variant named exists (GM_ERR_INVALID_ARG with the reason otherwise), so
 * that gpuq profile can refuse them before it runs the program. */
gm_status gm_report_check_options(const gm_report_options *opt, gm_error *err);

void gm_report_free(gm_report *rep);

gm_status gm_report_write(FILE *out, const gm_report *rep, gm_format fmt, gm_error *err);

/* The counters' metrics the report shows: the union of its sections' metric
 * rows (gm_units_metric_rows); returns the count. */
size_t gm_report_metric_rows(const gm_report *rep, int *rows, size_t max);

#ifdef __cplusplus
}
#endif
#endif
