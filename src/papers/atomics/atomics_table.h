/* The calibration table: measured T(n,e,c) of the shared-memory atomic unit
 * (paper 000, Sec. 3.2), one "series" per (job class, address pattern,
 * measurement method), with the metadata of the GPU it was measured on.
 *
 * Axes of one series (all integral, as measured):
 *   n  queue length: warp-instructions that arrive at once on one SM, 1..n_max
 *      (n_max = max resident warps per SM, read off the device: 64 on Hopper)
 *   e  active lanes per warp-instruction, 1..e_max (warp size, 32)
 *   c  how many of the n warps issue ATOMS.CAS instead of the series' class;
 *      0..n when the series mixes CAS in (the paper's FAO/CAS grid), only 0
 *      when it does not (e.g. POPC.INC on its own)
 * T is in SM cycles: last completion minus first arrival over all n warps.
 *
 * On-disk format (docs/table-format.md): CSV with a '#' metadata header,
 *
 *   # gpuq calibration table v1
 *   # gpu_name: NVIDIA H200
 *   # compute_capability: 9.0
 *   # ... one "key: value" line per gm_atomics_table_meta field
 *   # series: add,same_address,single_shot,mixes_cas=1   (one line per series)
 *   class,pattern,method,n,e,c,t_median,t_min,t_max,spread,reps,flags
 *   add,same_address,single_shot,1,1,0,338.0,336.0,341.0,0.0148,7,0
 *
 * v1 files (no suite line, method_note for method, no mem_clock_mhz) still
 * load.  The loader validates everything (header, every metadata key, ranges, the
 * complete monotone index grid, duplicates, NaN/negative values) and reports
 * the first problem with its line number.  The writer writes to a temporary
 * file in the same directory and renames it, so a crash never leaves a torn
 * table behind.
 */
#ifndef GPUQ_ATOMICS_TABLE_H
#define GPUQ_ATOMICS_TABLE_H

#include <stdio.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Written: v2.  Read: v1 and v2. */
#define GM_ATOMICS_TABLE_FORMAT_VERSION 2

/* Job classes: what kind of ATOMS warp-instruction a job is.  Adding a class
 * is one enum value here plus one row in the name table in atomics_table.c (and, to
 * measure it, one descriptor row in the calibrate benchmark). */
typedef enum gm_atomics_job_class {
    GM_ATOMICS_CLASS_ADD = 0,   /* ATOMS.ADD, result used: the paper's FAO */
    GM_ATOMICS_CLASS_CAS,       /* ATOMS.CAS */
    GM_ATOMICS_CLASS_POPC_INC,  /* ATOMS.POPC.INC: atomicAdd(p, 1) with the result unused (sm_80+) */
    GM_ATOMICS_CLASS_EXCH,      /* ATOMS.EXCH */
    GM_ATOMICS_CLASS_MIN,       /* ATOMS.MIN */
    GM_ATOMICS_CLASS_MAX,       /* ATOMS.MAX */
    GM_ATOMICS_CLASS_AND,       /* ATOMS.AND */
    GM_ATOMICS_CLASS_OR,        /* ATOMS.OR */
    GM_ATOMICS_CLASS_XOR,       /* ATOMS.XOR */
    GM_ATOMICS_CLASS_ADD64,     /* ATOMS.ADD.64 */
    GM_ATOMICS_CLASS_COUNT
} gm_atomics_job_class;

/* Where the e active lanes of one warp-instruction point. */
typedef enum gm_atomics_pattern {
    GM_ATOMICS_PATTERN_SAME_ADDRESS = 0, /* all active lanes on one word: serialization degree e (the paper's) */
    GM_ATOMICS_PATTERN_DISTINCT_BANK,    /* each active lane in its own bank: no conflict */
    GM_ATOMICS_PATTERN_COUNT
} gm_atomics_pattern;

/* How T was measured. */
typedef enum gm_atomics_method {
    GM_ATOMICS_METHOD_SINGLE_SHOT = 0,  /* each warp issues one atomic; the paper's method */
    GM_ATOMICS_METHOD_STEADY_STATE,     /* each warp keeps one atomic in flight for many rounds; T per round */
    GM_ATOMICS_METHOD_COUNT
} gm_atomics_method;

/* Cell flags (bit set). */
#define GM_ATOMICS_CELL_HIGH_SPREAD   0x1u /* spread stayed above the threshold after re-measuring */
#define GM_ATOMICS_CELL_REMEASURED    0x2u /* the first measurement was discarded and repeated */
/* some repetitions were discarded: blocks not on one SM */
#define GM_ATOMICS_CELL_NOT_CORESIDENT 0x4u
#define GM_ATOMICS_CELL_ARRIVAL_SKEW  0x8u /* some repetitions were discarded: the n warps did not arrive together */

typedef struct gm_atomics_cell {
    double t_median;  /* cycles; NaN in memory means "not measured" */
    double t_min;
    double t_max;
    double spread;    /* (t_max - t_min) / t_median over the kept repetitions */
    int reps;         /* repetitions kept */
    unsigned flags;   /* GM_ATOMICS_CELL_* */
} gm_atomics_cell;

typedef struct gm_atomics_series {
    gm_atomics_job_class cls;
    gm_atomics_pattern pattern;
    gm_atomics_method method;
    int mixes_cas;    /* 1: c runs 0..n; 0: only c = 0 */
    int n_max;        /* == table meta max_warps_per_sm */
    int e_max;        /* == table meta warp_size */
    /* use gm_atomics_series_cell(); n_max * e_max * (mixes_cas ? n_max + 1 : 1) cells */
    gm_atomics_cell *cells;
} gm_atomics_series;

typedef struct gm_atomics_table_meta {
    char gpu_name[128];       /* cudaDeviceProp.name */
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;             /* multiprocessors */
    int max_warps_per_sm;     /* maxThreadsPerMultiProcessor / warpSize: n_max */
    int warp_size;            /* e_max */
    double sm_clock_mhz;      /* SM clock observed during calibration (clock64 vs globaltimer) */
    int driver_version;       /* cudaDriverGetVersion */
    int runtime_version;      /* cudaRuntimeGetVersion */
    char date[32];            /* ISO 8601 UTC, when calibration finished */
    char method_note[256];    /* free text: how it was measured */
    int reps;                 /* repetitions per cell requested */
    double spread_threshold;  /* cells above this were re-measured */
    char gpuq_version[32];
    double mem_clock_mhz;     /* memory clock observed during calibration; 0 unknown (v2) */
} gm_atomics_table_meta;

typedef struct gm_atomics_table {
    gm_atomics_table_meta meta;
    int n_series;
    gm_atomics_series *series;
} gm_atomics_table;

/* Names used in the file and on the command line ("add", "same_address",
 * "single_shot").  Parsers return GM_ERR_PARSE for an unknown name. */
const char *gm_atomics_class_name(gm_atomics_job_class cls);
const char *gm_atomics_pattern_name(gm_atomics_pattern pattern);
const char *gm_atomics_method_name(gm_atomics_method method);
gm_status gm_atomics_class_parse(const char *name, gm_atomics_job_class *out);
gm_status gm_atomics_pattern_parse(const char *name, gm_atomics_pattern *out);
gm_status gm_atomics_method_parse(const char *name, gm_atomics_method *out);

/* Allocates an empty table (no series). */
gm_atomics_table *gm_atomics_table_new(const gm_atomics_table_meta *meta);
void gm_atomics_table_free(gm_atomics_table *table);

/* Adds a series with every cell set to NaN (not measured); returns it via out. */
gm_status gm_atomics_table_add_series(gm_atomics_table *table, gm_atomics_job_class cls,
                                      gm_atomics_pattern pattern, gm_atomics_method method,
                                      int mixes_cas, gm_atomics_series **out);

/* The series for (cls, pattern, method), or NULL. */
const gm_atomics_series *gm_atomics_table_find(const gm_atomics_table *table,
                                               gm_atomics_job_class cls, gm_atomics_pattern pattern,
                                               gm_atomics_method method);

/* Cell (n, e, c) for 1<=n<=n_max, 1<=e<=e_max, 0<=c<=n; NULL outside. */
gm_atomics_cell *gm_atomics_series_cell(const gm_atomics_series *series, int n, int e, int c);

/* Checks a table in memory the way the loader checks a file: metadata ranges,
 * every cell present, finite and >= 0.  First problem goes to err. */
gm_status gm_atomics_table_validate(const gm_atomics_table *table, gm_error *err);

/* Loads and validates.  On success *out is owned by the caller. */
gm_status gm_atomics_table_load(const char *path, gm_atomics_table **out, gm_error *err);
gm_status gm_atomics_table_load_stream(FILE *in, const char *name_for_errors,
                                       gm_atomics_table **out, gm_error *err);

/* Writes the format above.  gm_atomics_table_write_file writes path.tmp.<pid> and
 * renames it over path.  Cells not yet measured (NaN) are skipped, so a
 * partially calibrated table can be checkpointed; gm_atomics_table_load rejects it
 * unless allow_partial is set in gm_atomics_table_load_partial. */
gm_status gm_atomics_table_write(FILE *out, const gm_atomics_table *table, gm_error *err);
gm_status gm_atomics_table_write_file(const char *path, const gm_atomics_table *table,
                                      gm_error *err);
gm_status gm_atomics_table_load_partial(const char *path, gm_atomics_table **out, gm_error *err);

/* The same content as JSON (metadata, then per series its measured cells as
 * [n, e, c, t_median, t_min, t_max, spread, reps, flags]), for tools that
 * would rather not parse the CSV; the _file form writes atomically too. */
gm_status gm_atomics_table_write_json(FILE *out, const gm_atomics_table *table, gm_error *err);
gm_status gm_atomics_table_write_json_file(const char *path, const gm_atomics_table *table,
                                           gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
