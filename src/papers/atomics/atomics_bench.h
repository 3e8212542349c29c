/* The calibrate microbenchmarks behind a small C interface (gb_ prefix).
 *
 * Paper 000, Sec. 3.2: n warp-instructions arrive at once on one SM, each with
 * e active lanes, c of them CAS; T = last completion - first arrival, and
 * S = T / n (Eq. 3).  gpuq measures one such cell per SM in parallel: a launch
 * carries up to gb_atomics_cells_per_launch() cells, indexed by the SM they run on.
 *
 * Two halves:
 *   - the cell scheduler (atomics_sched.c, pure C, CPU-tested): which cells go into
 *     which launch, repetitions, retries of discarded samples, re-measuring
 *     noisy cells, resuming from a partial table;
 *   - the launcher (atomics_bench_cuda.c, or atomics_bench_nocuda.c where nvcc was missing):
 *     runs one gb_atomics_launch on the GPU and hands back one T per cell and
 *     repetition (NaN where the sample was discarded).
 *
 * Adding a job class (EXCH, MIN/MAX, AND/OR/XOR, 64-bit):
 *   1. its gm_atomics_job_class already exists in src/papers/atomics/atomics_table.h (add it there
 *      and in atomics_table.c's name table if not);
 *   2. one device functor in atomics_kernels.cu (like gb_op_add);
 *   3. one row in gb_atomics_kernel_rows[] in atomics_kernels.cu (kernels instantiated
 *      from the functor) and one row in atomics_class_specs[] in atomics_sched.c (mixes_cas);
 *   4. the expected opcode in tests/papers/atomics/check_sass.sh.
 */
#ifndef GPUQ_ATOMICS_BENCH_H
#define GPUQ_ATOMICS_BENCH_H

#include "gpuq/mdata.h"
#include "gpuq/status.h"
#include "gpuq/suite.h"
#include "atomics_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most repetitions of one launch (the re-measure pass asks for 3x --reps). */
#define GB_ATOMICS_MAX_REPS 64
/* Rounds per warp in the steady-state method: T per round = T / rounds. */
#define GB_ATOMICS_STEADY_ROUNDS 32

/* 1 if this build can run GPU benchmarks. */
int gb_atomics_available(void);

/* ---- the cell scheduler (atomics_sched.c) ---- */

/* Whether a class's series mixes CAS in (c = 0..n, the paper's FAO/CAS grid)
 * or stands alone (c = 0 only).  GM_ERR_UNSUPPORTED for classes without a
 * kernel yet. */
gm_status gb_atomics_class_mixes_cas(gm_atomics_job_class cls, int *mixes_cas, gm_error *err);

/* One cell of a launch. */
typedef struct gb_atomics_launch_cell {
    int id;            /* scheduler's cell id */
    gm_atomics_pattern pattern;
    int e, c;
} gb_atomics_launch_cell;

/* One kernel launch (repeated reps times): every cell shares the kernel
 * (class, mixes_cas, method) and n, because n fixes the block size. */
typedef struct gb_atomics_launch {
    gm_atomics_job_class cls;
    int mixes_cas;
    gm_atomics_method method;
    int n;
    int reps;          /* repetitions to run; each gives one sample per cell */
    int n_cells;
    /* owned by the scheduler; valid until the next gb_atomics_sched_next */
    gb_atomics_launch_cell *cells;
} gb_atomics_launch;

typedef struct gb_atomics_sched_options {
    int cells_per_launch;    /* SMs used per launch (one cell per SM) */
    int reps;                /* samples kept per cell (--reps) */
    double spread_threshold; /* re-measure once above this (--spread-threshold) */
    int remeasure_reps;      /* samples kept when re-measuring (<= GB_ATOMICS_MAX_REPS) */
    int max_attempts;        /* launches a cell may go through before it is given up */
} gb_atomics_sched_options;

typedef struct gb_atomics_sched gb_atomics_sched;

/* Plans every cell of every series of table whose t_median is NaN (so a
 * table loaded with gm_atomics_table_load_partial resumes where it stopped).  The
 * scheduler writes finished cells into table; table must outlive it. */
gm_status gb_atomics_sched_new(gm_atomics_table *table, const gb_atomics_sched_options *opt,
                               gb_atomics_sched **out, gm_error *err);
void gb_atomics_sched_free(gb_atomics_sched *sched);

/* Next launch to run.  Returns 1 and fills *launch, or 0 when every cell is
 * finished or given up. */
int gb_atomics_sched_next(gb_atomics_sched *sched, gb_atomics_launch *launch);

/* Hands back the samples of the launch last returned by gb_atomics_sched_next:
 * samples[r * launch->n_cells + i] is repetition r of cell i, NaN when the
 * GPU discarded it (blocks not co-resident, SM without a block). */
gm_status gb_atomics_sched_record(gb_atomics_sched *sched, const gb_atomics_launch *launch,
                                  const double *samples, gm_error *err);

typedef struct gb_atomics_sched_progress {
    long total;       /* cells planned (not measured when the scheduler started) */
    long done;        /* finished, written into the table */
    long failed;      /* given up after max_attempts */
    long remeasured;  /* cells that went through the re-measure pass */
    long launches;    /* gb_atomics_sched_record calls so far */
} gb_atomics_sched_progress;

void gb_atomics_sched_get_progress(const gb_atomics_sched *sched, gb_atomics_sched_progress *out);

/* Median, min, max and spread = (max - min) / median of count values
 * (sorts values in place).  GM_ERR_INVALID_ARG when count < 1. */
gm_status gb_atomics_stats(double *values, int count, double *median, double *min, double *max,
                           double *spread);

/* ---- the launcher (atomics_bench_cuda.c / atomics_bench_nocuda.c) ---- */

typedef struct gb_atomics_context gb_atomics_context;

/* Opens CUDA device `device`, reads its properties, finds the SM ids and
 * sizes shared memory so that one (n <= 32) or two (n > 32) blocks fit per SM.
 * GM_ERR_NO_GPU when there is no usable device; GM_ERR_UNSUPPORTED in a build
 * without CUDA. */
gm_status gb_atomics_open(int device, gb_atomics_context **out, gm_error *err);
void gb_atomics_close(gb_atomics_context *ctx);

/* Fills gpu_name, cc, sm_count, max_warps_per_sm, warp_size, driver and
 * runtime versions; leaves the other fields alone. */
void gb_atomics_device_meta(const gb_atomics_context *ctx, gm_atomics_table_meta *meta);

/* gb_device_identity and gb_device_sm_clock (gpuq/suite.h) are this
 * launcher's too. */

/* Cells that one launch can carry: the SMs the GPU reports. */
int gb_atomics_cells_per_launch(const gb_atomics_context *ctx);

/* SM clock in MHz, from clock64 against %globaltimer over a ~10 ms kernel on
 * every SM (median over SMs).  Never changes clocks.  Also warms the GPU up. */
gm_status gb_atomics_measure_sm_clock(gb_atomics_context *ctx, double *mhz, gm_error *err);

/* How gb_atomics_run_launch measures (defaults: gb_atomics_run_options_default). */
typedef struct gb_atomics_run_options {
    /* Measurements per SM and launch, 1..GB_ATOMICS_MAX_INNER; the launch's sample
     * of a cell is the smallest T among its valid measurements. */
    int inner_reps;
    /* A measurement whose first-to-last arrival spread exceeds
     * skew_floor + skew_fraction * T (cycles, T of the whole measurement) is
     * discarded: the n warps did not arrive together, which the model's T
     * assumes (paper 000, Sec. 3.2). */
    double skew_fraction;
    double skew_floor;
    /* Diagnostics only (bench_skew): kernel variants (GB_ATOMICS_VARIANT_* in
     * atomics_kernels.h; 0 for calibrate), and whether to keep every warp's
     * times for gb_atomics_launch_warps (one more copy per launch). */
    unsigned variant;
    int keep_warp_times;
} gb_atomics_run_options;

/* Most inner measurements per launch. */
#define GB_ATOMICS_MAX_INNER 8
/* Defaults, chosen from the measurements in docs/calibration.md: with the
 * quiet window, first-to-last arrival spreads stay below ~150 cycles single
 * shot and ~550 steady state (n = 64, issue of 64 warps), where the first
 * kernel version had single warps 1000-1500 cycles late. */
#define GB_ATOMICS_DEFAULT_INNER_REPS 8
#define GB_ATOMICS_DEFAULT_SKEW_FRACTION 0.25
#define GB_ATOMICS_DEFAULT_SKEW_FLOOR 256.0

/* A sample value gb_atomics_run_launch reports when every measurement of it was
 * discarded for arrival skew (NaN: the blocks did not meet or started late). */
#define GB_ATOMICS_SAMPLE_SKEWED (-1.0)
/* The cell flag the scheduler sets for such samples: a bit of its own once
 * src/papers/atomics/atomics_table.h has one, until then the bit for discarded samples. */
#ifdef GM_ATOMICS_CELL_ARRIVAL_SKEW
#define GB_ATOMICS_CELL_SKEWED GM_ATOMICS_CELL_ARRIVAL_SKEW
#else
#define GB_ATOMICS_CELL_SKEWED GM_ATOMICS_CELL_NOT_CORESIDENT
#endif

void gb_atomics_run_options_default(gb_atomics_run_options *opt);
/* GM_ERR_INVALID_ARG for values out of range. */
gm_status gb_atomics_set_run_options(gb_atomics_context *ctx, const gb_atomics_run_options *opt,
                                     gm_error *err);

/* Why measurements were discarded, summed over all gb_atomics_run_launch calls. */
typedef struct gb_atomics_run_counters {
    long measurements;   /* inner measurements of cells (warm-up launch excluded) */
    long not_coresident; /* the blocks did not meet on one SM */
    long late;           /* a block reached the planned start after it */
    long overrun;        /* a warp completed after the quiet window closed */
    long skewed;         /* arrival spread above the skew limit */
} gb_atomics_run_counters;

void gb_atomics_get_run_counters(const gb_atomics_context *ctx, gb_atomics_run_counters *out);

/* Runs one warm-up launch, then launch->reps launches of the same cells (cell
 * i moves to another SM each repetition), and fills
 * samples[r * n_cells + i] with T in SM cycles (per round for steady state):
 * the smallest valid of the inner measurements, NaN where none was valid
 * because the blocks did not meet or started late, GB_ATOMICS_SAMPLE_SKEWED where
 * every measurement was discarded for arrival skew. */
gm_status gb_atomics_run_launch(gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                double *samples, gm_error *err);

/* Diagnostics of the last gb_atomics_run_launch: measurement `inner` of cell i,
 * repetition rep (0-based, warm-up excluded), in cycles after that
 * measurement's planned start.  For tests and docs; calibrate does not use it. */
typedef enum gb_atomics_verdict {
    GB_ATOMICS_VALID = 0,
    GB_ATOMICS_NOT_CORESIDENT,
    GB_ATOMICS_LATE,
    GB_ATOMICS_OVERRUN,
    GB_ATOMICS_SKEWED,
} gb_atomics_verdict;

typedef struct gb_atomics_cell_detail {
    unsigned blocks_ok;     /* blocks that measured (== blocks per cell when valid) */
    gb_atomics_verdict verdict;
    double t;               /* last completion - first arrival, whole (not per round) */
    double first_arrival;
    double last_arrival;
    double last_completion;
    double window;          /* quiet window of the measurement */
} gb_atomics_cell_detail;

gm_status gb_atomics_launch_detail(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                   int rep, int cell, int inner, gb_atomics_cell_detail *out,
                                   gm_error *err);

/* Per warp of the cell (keep_warp_times must have been set): warps
 * 0..launch->n-1, block role = warp / ceil(n/2) for n > 32. */
typedef struct gb_atomics_warp_detail {
    double first_arrival;  /* first lane's clock before its atomic */
    double last_arrival;   /* last lane's */
    double completion;     /* last lane's clock after the result */
    int role;              /* block of the pair */
    int hw_warp;           /* %warpid: slot on the SM (slot % 4: SM sub-partition) */
    int late;              /* this warp's block started late (warp 0 of a block) */
} gb_atomics_warp_detail;

gm_status gb_atomics_launch_warps(const gb_atomics_context *ctx, const gb_atomics_launch *launch,
                                  int rep, int cell, int inner, gb_atomics_warp_detail *out,
                                  gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
