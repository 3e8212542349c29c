/* Machine data: what a suite measured on one GPU (design.md).
 *
 * Layout on disk: one folder per GPU, one file per suite,
 *
 *   tables/nvidia-h200/atomics.csv.gz      the shared-atomic table (a format of its own)
 *   tables/nvidia-h200/sched.csv           GPUDIAG parameters (paper 003)
 *   tables/nvidia-h200/throughput.csv      Zhang & Owens curves (paper 004)
 *   tables/nvidia-h200/gatomics.csv        Robertson's curves (paper 002)
 *
 * Every file opens with the same '#' metadata header, read by one parser
 * (gm_mdata_meta_*):
 *
 *   # gpuq machine data v1            (a suite with a body of its own: its magic line)
 *   # suite: sched
 *   # gpu_name: NVIDIA H200
 *   # compute_capability: 9.0
 *   # sm_count: 132
 *   # sm_clock_mhz: 1980              SM clock seen during the run
 *   # mem_clock_mhz: 3201             memory clock seen during the run (0 unknown)
 *   # driver_version: 13000
 *   # runtime_version: 13000
 *   # date: 2026-11-24T10:00:00Z
 *   # method: one line: how it was measured
 *   # gpuq_version: 0.2.0
 *
 * A suite whose unit declares a format (gm_mdata_format, gpuq/unit.h) has a
 * body of its own (the shared-atomic table); every other suite writes the
 * generic body below: one CSV header row of column names, then rows of
 * text or numbers.  A suite decides its columns (docs/<suite>.md); one
 * loader, one writer and one fuzz harness serve them all.
 *
 * A folder is picked by the gpu_name and sm_count of its files, never by the
 * folder's name.  Folders searched, in order: $GPUQ_TABLE_DIR, <directory of
 * the gpuq executable>/../tables, the source tree's tables/.
 */
#ifndef GPUQ_MDATA_H
#define GPUQ_MDATA_H

#include <stddef.h>
#include <stdio.h>
#include "gpuq/ranges.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_MDATA_FORMAT_VERSION 1

/* The common header. */
typedef struct gm_mdata_meta {
    char suite[32];           /* suite name ("sched") */
    char gpu_name[128];       /* cudaDeviceProp.name */
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;             /* multiprocessors */
    double sm_clock_mhz;      /* observed during the run; 0 unknown */
    double mem_clock_mhz;     /* observed during the run; 0 unknown */
    int driver_version;       /* cudaDriverGetVersion */
    int runtime_version;      /* cudaRuntimeGetVersion */
    char date[32];            /* ISO 8601 UTC, when the run finished */
    char method[256];         /* one line: how it was measured */
    char gpuq_version[32];
} gm_mdata_meta;

/* Takes one "key: value" header line (the text after "# ").  *known is set
 * to 1 when key belongs to the common header (the value was parsed or
 * rejected), 0 when it is the caller's to interpret.  Malformed values of
 * known keys: GM_ERR_PARSE / GM_ERR_RANGE with the key in err. */
gm_status gm_mdata_meta_take(gm_mdata_meta *meta, const char *key, const char *value,
                             int *known, gm_error *err);
/* Every required key present and in range (suite, gpu_name, cc, sm_count, date). */
gm_status gm_mdata_meta_check(const gm_mdata_meta *meta, gm_error *err);
/* Writes the common "# key: value" lines (not the first, format line). */
void gm_mdata_meta_write(FILE *out, const gm_mdata_meta *meta);

/* A generic machine-data file: the header and a table of cells.  Every cell
 * keeps its text; num is its value as a number, NaN when it is not one. */
typedef struct gm_mdata {
    gm_mdata_meta meta;
    size_t n_cols, n_rows, cap_rows;
    char **cols;   /* column names (owned) */
    char **text;   /* n_rows * n_cols cells, row-major (owned) */
    double *num;   /* n_rows * n_cols */
    long *line;    /* n_rows: each row's line in its file (0: built in memory) */
    char source[256]; /* the file it was loaded from, for messages ("" in memory) */
} gm_mdata;

gm_mdata *gm_mdata_new(const gm_mdata_meta *meta, size_t n_cols, const char *const *cols);
void gm_mdata_free(gm_mdata *md);
/* Appends a row of n_cols cells given as text. */
gm_status gm_mdata_add_row(gm_mdata *md, const char *const *cells, gm_error *err);
/* Appends a row from printf-style "%s" or "%.9g" pieces: values[i] is used
 * when texts == NULL or texts[i] == NULL. */
gm_status gm_mdata_add_values(gm_mdata *md, const char *const *texts, const double *values,
                              gm_error *err);
/* Column index by name, -1 when absent. */
int gm_mdata_col(const gm_mdata *md, const char *name);
const char *gm_mdata_text(const gm_mdata *md, size_t row, int col);
double gm_mdata_num(const gm_mdata *md, size_t row, int col);

/* One rule of a suite's cell check: in the rows whose key column holds
 * `key` (NULL: every row), the cell of `column` must be a number of
 * quantity q (gpuq/ranges.h); `optional` lets it be empty or "nan" (not
 * measured).  A column the file lacks is skipped (the suite's reader says
 * which columns it needs). */
typedef struct gm_mdata_rule {
    const char *key;
    const char *column;
    gm_quantity q;
    int optional;
} gm_mdata_rule;

/* Checks every row against the rules: GM_ERR_RANGE / GM_ERR_PARSE with
 * "FILE:LINE: SUITE row 'KEY', column 'COL': ..." for the first cell
 * outside its range.  The suite readers call it first, so that what they
 * cast and multiply is in range. */
gm_status gm_mdata_check(const gm_mdata *md, const char *key_column, const gm_mdata_rule *rules,
                         size_t n_rules, gm_error *err);

/* Loads and validates (plain or .gz).  Every problem is reported with its
 * line number; the loader survives any input (fuzzed: tests/fuzz/). */
gm_status gm_mdata_load(const char *path, gm_mdata **out, gm_error *err);
gm_status gm_mdata_load_stream(FILE *in, const char *name, gm_mdata **out, gm_error *err);
/* Writes path.tmp.<pid> and renames it over path: a crash never leaves a
 * torn file.  A suite checkpoints by writing its partial data this way. */
gm_status gm_mdata_write(FILE *out, const gm_mdata *md, gm_error *err);
gm_status gm_mdata_write_file(const char *path, const gm_mdata *md, gm_error *err);

/* Reads only the '#' header of any machine-data file (generic or atomic
 * table, plain or .gz): for picking a folder. */
gm_status gm_mdata_read_meta(const char *path, gm_mdata_meta *out, gm_error *err);

/* The folder name gpuq writes for a GPU: "NVIDIA H100 80GB HBM3" ->
 * "nvidia-h100-80gb-hbm3". */
void gm_mdata_dir_name(const char *gpu_name, char *buf, size_t len);

/* Finds the machine-data file of `suite` for (gpu_name, sm_count; 0 =
 * unknown, matches any) in the searched folders.  file_name is the suite's
 * file ("sched.csv"); a ".gz" twin is accepted too.  GM_ERR_MISSING when
 * none matches, with a message that names the suite and the command that
 * measures it ("gpuq calibrate --suite sched"). */
gm_status gm_mdata_find(const char *gpu_name, int sm_count, const char *suite,
                        const char *file_name, char *path, size_t len, gm_error *err);

/* The source-tree and executable-relative search folders are set by the
 * program (gpuq knows where it runs from); NULL entries are skipped. */
void gm_mdata_set_search_dirs(const char *exe_relative, const char *source_tree);
/* The folders searched, in order ($GPUQ_TABLE_DIR, then those set above;
 * empty ones left out): up to max of them in dirs, returns how many. */
size_t gm_mdata_search_dirs(const char **dirs, size_t max);

#ifdef __cplusplus
}
#endif
#endif
