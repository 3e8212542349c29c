/* Suite "gatomics": what its row (gatomics_suite.c) and its measuring code
 * (gatomics_measure_cuda.c; gatomics_measure_nocuda.c without CUDA) share. */
#ifndef GPUQ_GATOMICS_SUITE_H
#define GPUQ_GATOMICS_SUITE_H

#include "gpuq/suite.h"

#define BUF_BYTES (80ull << 20)
#define MAX_THREADS_PER_SM 2048
#define DEFAULT_REPS 3
#define STALL_ITERS 24
#define STALL_WARM 4
#define RATE_REPS 5 /* rate points: pairs of launches */

enum { EX_CLOCK, EX_STALL, EX_LOCK, EX_SECTOR, EX_L2RATE, EX_INTERFERE, EX_HIDE, EX_COUNT };
extern const char *const ga_ex_names[EX_COUNT];

typedef struct ga_options {
    int ex[EX_COUNT];
    int reps;
    int warps[8];
    int n_warps;
    int iters;
} ga_options;

/* The settings of one run (gatomics.KEY=VALUE, --quick). */
gm_status ga_parse_options(const gb_suite_run *run, ga_options *o, gm_error *err);

/* Runs the experiments (gb_suite.run). */
gm_status ga_measure(const gb_suite_run *run, gm_error *err);

#endif
