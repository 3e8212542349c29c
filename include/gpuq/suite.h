/* Suites as descriptors (design.md): each paper's microbenchmarks are one
 * row of the suite table (src/papers/suites.c).  `gpuq calibrate` runs every
 * suite, or those named by --suite a,b, one after another, with one progress
 * line (ETA), one checkpoint/resume mechanism and one SASS check for all.
 *
 * Adding a suite:
 *   1. src/papers/<name>/<name>_suite.c (host) and its kernels in
 *      src/papers/<name>/<name>_kernels.cu, or PTX generated at run time and JIT-
 *      compiled by the driver where a kernel needs a chosen register count,
 *      shared-memory size or instruction sequence;
 *   2. a `const gb_suite gb_suite_<name>` filling the fields below, and
 *      one row in gb_suites[] (src/papers/suites.c);
 *   3. its SASS expectations (the `sass` rows): the SASS check
 *      (tests/bench/check_suite_sass.sh, label gpu) disassembles the built
 *      kernels and fails unless each named kernel holds what it claims;
 *   4. its machine-data columns in docs/<name>.md, a figure if people would
 *      rather look than read, and the shipped files under tables/<gpu>/.
 */
#ifndef GPUQ_SUITE_H
#define GPUQ_SUITE_H

#include <signal.h>
#include <stddef.h>
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel of the suite and what its SASS must hold: the check finds every
 * function whose name contains `kernel` and requires `opcode` (a prefix of
 * the mnemonic, "ATOMS.POPC.INC", "FFMA") to appear at least min_count times
 * in it. */
typedef struct gb_sass_expect {
    const char *kernel;
    const char *opcode;
    int min_count;
} gb_sass_expect;

/* A setting a suite accepts: `gpuq calibrate --set SUITE.KEY=VALUE`. */
typedef struct gb_suite_key {
    const char *name;   /* "reps" */
    const char *help;   /* one line: what it sets, its range and default */
    /* Optional: a calibrate option of its own that sets it ("inner-reps":
     * --inner-reps VALUE), kept from before suites existed; NULL: none. */
    const char *option;
} gb_suite_key;

/* One --set given for this suite (key already checked against keys[]). */
typedef struct gb_suite_setting {
    const char *key;
    const char *value;
} gb_suite_setting;

/* What a suite's run function is given.  The suite measures, writes its
 * machine data through checkpoint() as it goes (atomically: tmp + rename),
 * reports progress in its own units, and returns when stop() says so with
 * what it has measured saved (GM_ERR_INTERRUPTED). */
typedef struct gb_suite_run {
    int device;                  /* CUDA device ordinal */
    /* Where to write: DIR/NAME.partial.csv[.gz] next to the suite's file
     * (tables/<gpu>/<file> or -o DIR/<file>); calibrate renames it to the
     * suite's file once run returns GM_OK, so an unfinished run never
     * replaces finished data. */
    const char *out_path;
    int resume;                  /* 1: out_path may hold partial data to continue */
    int quick;                   /* 1: the smallest sweep that still tests every kernel (tests) */
    const gm_mdata_meta *meta;   /* common header, filled by calibrate (suite name set) */
    void *io;                    /* calibrate's; pass to the functions below */
    /* Progress: done of total units (the suite's own: cells, points, ...).
     * Calibrate prints one line with the ETA of this suite and of all. */
    void (*progress)(void *io, long done, long total, const char *what);
    /* 1 when the user asked to stop (Ctrl-C, SIGTERM): save and return. */
    int (*stop)(void *io);
    /* Writes md atomically to out_path (and the .json twin when asked). */
    gm_status (*checkpoint)(void *io, const gm_mdata *md, gm_error *err);
    /* The --set values for this suite, in command-line order. */
    const gb_suite_setting *settings;
    size_t n_settings;
    int quiet;                   /* 1: print nothing but errors */
} gb_suite_run;

typedef struct gb_suite {
    const char *name;        /* --suite NAME, the machine-data suite name ("sched") */
    const char *measures;    /* one line: what it measures, with the paper */
    const char *sweep;       /* one line: what it sweeps */
    const char *file;        /* file name in the GPU's folder ("sched.csv") */
    double expected_s;       /* seconds on an H100 or H200, measured (docs) */
    const gb_sass_expect *sass; /* expectations, ended by a row with kernel == NULL */
    /* Runs the suite.  GM_ERR_UNSUPPORTED when this build or GPU cannot. */
    gm_status (*run)(const gb_suite_run *run, gm_error *err);
    /* Settings it accepts, ended by a row with name == NULL; NULL: none. */
    const gb_suite_key *keys;
    /* Optional: checks run->settings (and, with resume, the partial file)
     * before any suite runs, so a bad value stops calibrate at once.
     * GM_ERR_PARSE / GM_ERR_RANGE with the key in err. */
    gm_status (*check)(const gb_suite_run *run, gm_error *err);
} gb_suite;

/* A setting's whole number: *out = value when it is one in lo..hi, else
 * GM_ERR_RANGE "SUITE.KEY needs a whole number in LO..HI, got 'VALUE'". */
gm_status gb_suite_parse_int(const char *suite, const char *key, const char *value, int lo,
                             int hi, int *out, gm_error *err);

/* The table (src/papers/suites.c), in the order calibrate runs them, ended
 * by NULL. */
extern const gb_suite *const gb_suites[];
size_t gb_suite_count(void);
const gb_suite *gb_suite_find(const char *name);

/* The GPU the suites run on, for every suite's header (implemented by the
 * shared-atomic suite's launcher, src/papers/atomics/atomics_bench_cuda.c,
 * whose clock probe they all use; GM_ERR_UNSUPPORTED without CUDA).
 * gb_device_identity: the common header fields of device `device`
 * (gpu_name, cc, sm_count, driver and runtime versions; the others are left
 * alone), without setting up any benchmark: what `gpuq calibrate` needs to
 * name the output folder.  GM_ERR_NO_GPU / GM_ERR_UNSUPPORTED.
 * gb_device_sm_clock: the SM clock now, in MHz. */
gm_status gb_device_identity(int device, gm_mdata_meta *meta, gm_error *err);
gm_status gb_device_sm_clock(int device, double *mhz, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
