/* Models as registered units (design.md): each paper's model is one row of
 * the unit table (src/papers/units.c).  A unit names the metrics and the
 * machine data it needs, turns one launch's counters into its result, and
 * describes that result as a list of fields, from which one report writer
 * makes the text, CSV and JSON of its section.  Units are pure C: no CUDA,
 * no CUPTI, testable anywhere.
 *
 * Adding a model (docs/architecture.md has the worked example, the shared-
 * atomic unit in src/papers/atomics/atomics_unit.c):
 *   1. its equations in a pure-C module in the paper's folder
 *      (src/papers/<name>/<name>_model.c and .h), with CPU tests;
 *   2. src/papers/<name>/<name>_unit.c: a `const gm_unit gm_unit_<name>`
 *      that fills the rows below;
 *   3. one row in gm_units[] (src/papers/units.c), its metrics as rows of
 *      gm_metric_table (src/core/metrics.c) if new, and the files in
 *      src/papers/<name>/CMakeLists.txt;
 *   4. a section in docs/ with its validation.
 */
#ifndef GPUQ_UNIT_H
#define GPUQ_UNIT_H

#include <stddef.h>
#include <stdio.h>
#include "gpuq/code_pass.h"
#include "gpuq/counters.h"
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_MACHINE_MAX_FILES 16

/* Machine data with a body of its suite's own instead of the generic CSV
 * body of gpuq/mdata.h (a unit's `format` says so).  Its files open with
 * `magic` and a version number, then the common '#' header; everything else
 * about them (finding, loading, checking the GPU, reporting what is missing)
 * goes the way of every other suite's. */
typedef struct gm_mdata_format {
    const char *suite;     /* the suite whose files these are */
    const char *magic;     /* the first line up to its version number */
    const char *what;      /* in messages: "a <what>, not generic machine data" */
    const char *read_with; /* the command that reads such a file */
    int version;           /* the version this gpuq writes */
    /* Loads and validates path; *meta gets the common header. */
    gm_status (*load)(const char *path, void **data, gm_mdata_meta *meta, gm_error *err);
    void (*free)(void *data);
    /* Optional: the file for a GPU where the common search (gm_mdata_find)
     * finds none, e.g. in a layout of older releases; GM_ERR_MISSING if none. */
    gm_status (*find)(const char *gpu_name, int sm_count, char *path, size_t len,
                      gm_error *err);
} gm_mdata_format;

/* The format of `suite` if some unit declares one (NULL: the generic body). */
const gm_mdata_format *gm_mdata_format_of(const char *suite);

/* The machine data of one GPU, as found for a report.  Suites whose file
 * is missing are listed in `missing` (one line each, with the command that
 * measures them); the units that need them are skipped, the rest report. */
typedef struct gm_machine {
    char gpu_name[128];
    int sm_count;
    size_t n_files;
    struct {
        char suite[32];
        char path[4096];
        gm_mdata_meta meta;        /* its common header */
        gm_mdata *md;              /* generic body (owned), or NULL */
        void *data;                /* a body of the suite's own format, or NULL */
        void (*free_data)(void *); /* frees data; NULL: borrowed */
    } files[GM_MACHINE_MAX_FILES];
    size_t n_missing;
    char missing[GM_MACHINE_MAX_FILES][256];
} gm_machine;

/* The generic machine data of `suite`, NULL when it was not found. */
const gm_mdata *gm_machine_suite(const gm_machine *m, const char *suite);
/* The data of a suite with a format of its own, NULL when it was not found. */
const void *gm_machine_data(const gm_machine *m, const char *suite);
/* The path and common header of a suite's file, NULL when it was not found. */
const char *gm_machine_path(const gm_machine *m, const char *suite);
const gm_mdata_meta *gm_machine_meta(const gm_machine *m, const char *suite);
/* Adds a suite's data loaded elsewhere (its format's body; free_data NULL:
 * borrowed, else freed with the machine) and drops the suite's line from
 * `missing`.  Fails when the suite is there already or the machine is full
 * (data is then freed as if it had been added). */
gm_status gm_machine_adopt(gm_machine *m, const char *suite, const char *path,
                           const gm_mdata_meta *meta, void *data, void (*free_data)(void *),
                           gm_error *err);
/* Moves the file of `suite` (either body, its path and header) from one
 * machine to another, e.g. one loaded ahead of time for a guessed GPU; the
 * suite's line in to's `missing` is dropped.  Fails, changing nothing, when
 * `from` lacks the suite, `to` has it already or is full. */
gm_status gm_machine_take(gm_machine *to, gm_machine *from, const char *suite, gm_error *err);
/* 1 when every suite the NULL-terminated list names was found. */
int gm_machine_has(const gm_machine *m, const char *const *suites);

/* Fills m for (gpu_name, sm_count): every suite named in `suites`
 * (NULL-terminated) is looked up with gm_mdata_find, or taken from an
 * explicit path (overrides: "suite=path" strings, e.g. from --table; checked
 * against the GPU unless force).  A suite not found is a line in m->missing,
 * not an error; a file found but invalid is an error. */
/* The file of `suite` for (gpu_name, sm_count): gm_mdata_find's search (the
 * file "<suite>.csv" or its .gz twin), then the suite's format's own find. */
gm_status gm_machine_find(const char *suite, const char *gpu_name, int sm_count, char *path,
                          size_t len, gm_error *err);
gm_status gm_machine_load(gm_machine *m, const char *gpu_name, int sm_count,
                          const char *const *suites, const char *const *overrides, int force,
                          gm_error *err);
void gm_machine_free(gm_machine *m);

/* One field of a unit's result: the unit describes its result as fields,
 * the report writes them (text columns, CSV columns "<unit>.<name>", JSON
 * keys inside the section's object). */
typedef enum gm_field_kind {
    GM_FIELD_NUM = 0, /* a real number (NaN: not available) */
    GM_FIELD_PCT,     /* a fraction, shown in text as a percentage */
    GM_FIELD_TEXT     /* text (NULL: empty) */
} gm_field_kind;

/* gm_field.flags */
#define GM_FIELD_TEXT_ONLY 0x1u /* a column of the text table only (a combined display
                                   of other fields, e.g. "[U lo, hi]") */
#define GM_FIELD_TEXT_DASH 0x2u /* the text table shows "-" (undefined for this launch,
                                   e.g. e without atomics); CSV/JSON keep the value */

typedef struct gm_field {
    const char *name;     /* CSV / JSON key inside the section ("U") */
    gm_field_kind kind;
    double num;
    const char *text;     /* valid until the result is freed */
    int width;            /* > 0: a column of the text table this wide; 0: CSV/JSON only */
    const char *heading;  /* text column heading; NULL: name */
    unsigned flags;       /* GM_FIELD_* */
} gm_field;

#define GM_UNIT_MAX_FIELDS 96

/* The verdict of one section for one launch: how much this section says the
 * kernel is held up (0 nothing .. 1 fully; NaN undecided) and one line. */
typedef struct gm_unit_verdict {
    double severity;
    char text[192];       /* "shared-memory atomics are the bottleneck (U = 97%)" */
} gm_unit_verdict;

typedef struct gm_unit {
    const char *name;           /* key: --section NAME, CSV prefix, JSON key ("atomics") */
    const char *title;          /* section heading ("shared atomics") */
    const char *paper;          /* "Dong & Pai, GPGPU 2025 (paper 000)" */
    const char *const *metrics; /* NULL-terminated metric names it reads (gpuq/metrics.h) */
    const char *const *suites;  /* NULL-terminated machine-data suites it needs */
    const char *variants;       /* comma-separated variant names, the default first; "" none */
    size_t result_size;         /* bytes of one result (the report allocates them) */

    /* Once per report: reads the machine data into the unit's state.
     * variant: one of `variants`, or NULL for the default. */
    gm_status (*prepare)(const gm_machine *m, const char *variant, void **state,
                         gm_error *err);
    void (*release)(void *state);

    /* One launch (or, with --summary, one kernel's launches summed).  A
     * launch the unit cannot take (a counter missing) still gets a result
     * whose verdict says why; only invalid arguments fail. */
    gm_status (*apply)(const void *state, const gm_counters_meta *meta,
                       const gm_launch_counters *k, void *result, gm_error *err);
    void (*free_result)(void *result); /* may be NULL */

    /* The result as fields (at most GM_UNIT_MAX_FIELDS); the same names in
     * the same order for every result of a report. */
    size_t (*fields)(const void *state, const void *result, gm_field *out, size_t max);
    void (*verdict)(const void *state, const void *result, gm_unit_verdict *out);

    /* Optional: "  - ..." lines under the section heading in text (the
     * approximations in use), given the note flags of every row of the
     * report ORed together (note_flags; 0 without it).  A report is written
     * a chunk of launches at a time, so the notes see flags, not results. */
    void (*text_notes)(FILE *out, const void *state, unsigned notes);
    /* Optional: the flags of one result that the text notes depend on. */
    unsigned (*note_flags)(const void *result);
    /* Optional: more JSON members inside the section's object (nested data
     * such as per-SM values), each starting with ",\n". */
    void (*json_extra)(FILE *out, int indent, const void *state, const void *result);

    /* Optional: NULL-terminated suites the unit uses where present (loaded
     * with the others; prepare finds them with gm_machine_suite, and falls
     * back when they are missing, saying so in its fields). */
    const char *const *optional_suites;

    /* Optional: the format of a suite's machine data whose body is its own
     * (the unit that reads it declares it; gm_mdata_format_of finds it). */
    const gm_mdata_format *format;

    /* Optional: what the unit reads from the kernels' machine code, a pass
     * `gpuq profile` runs over the program once the counters are in
     * (gpuq/code_pass.h). */
    const gm_code_pass *code_pass;

    /* Optional: NULL-terminated metrics the unit reads where present but
     * that the collector gathers only on request (GPUQ_EXTRA_METRICS=@NAME),
     * because they would add replay passes to the default set. */
    const char *const *opt_in_metrics;
} gm_unit;

/* The registry (src/papers/units.c), in report order. */
extern const gm_unit *const gm_units[];
size_t gm_unit_count(void);
const gm_unit *gm_unit_find(const char *name);
/* The union of the metrics of the given units (all when units == NULL), as
 * rows of gm_metric_table, each once; returns the count (<= max).  The
 * collector gathers exactly these. */
size_t gm_units_metric_rows(const gm_unit *const *units, size_t n_units, int *rows, size_t max);
/* The code pass of a run (gm_unit.code_pass): the first unit in registry
 * order that declares one and is among sections[0 .. n_sections) (every
 * unit when n_sections is 0), and, when meta is not NULL, whose pass's
 * `when` metric the counters hold (any, when they do not list their
 * metrics).  NULL: no pass. */
const gm_code_pass *gm_units_code_pass(const char *const *sections, size_t n_sections,
                                       const gm_counters_meta *meta);
/* The pass whose result columns the counters file and the CSV and JSON
 * reports carry (gm_launch_counters.pass): the first in registry order,
 * NULL when no unit declares one (then there are no such columns). */
const gm_code_pass *gm_units_file_pass(void);
/* Appends unit u's opt-in metrics (gm_unit.opt_in_metrics) to rows[0 .. *n),
 * each once, at most max; returns how many were added. */
size_t gm_unit_opt_in_rows(const gm_unit *u, int *rows, size_t *n, size_t max);

#ifdef __cplusplus
}
#endif
#endif
