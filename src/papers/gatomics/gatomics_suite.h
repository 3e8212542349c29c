/* Suite "gatomics": what its row (gatomics_suite.c) and its measuring code
 * (gatomics_measure_cuda.c; gatomics_measure_nocuda.c without CUDA) share. */
#ifndef GPUQ_GATOMICS_SUITE_H
#define GPUQ_GATOMICS_SUITE_H

#include "gpuq/suite.h"

#define GB_GATOMICS_BUF_BYTES (80ull << 20)
#define GB_GATOMICS_MAX_THREADS_PER_SM 2048
#define GB_GATOMICS_DEFAULT_REPS 3
#define GB_GATOMICS_STALL_ITERS 24
#define GB_GATOMICS_STALL_WARM 4
#define GB_GATOMICS_RATE_REPS 5 /* rate points: pairs of launches */

enum { EX_CLOCK, EX_STALL, EX_LOCK, EX_SECTOR, EX_L2RATE, EX_INTERFERE, EX_HIDE, EX_COUNT };
extern const char *const gb_gatomics_ex_names[EX_COUNT];

typedef struct gb_gatomics_options {
    int ex[EX_COUNT];
    int reps;
    int warps[8];
    int n_warps;
    int iters;
} gb_gatomics_options;

/* The settings of one run (gatomics.KEY=VALUE, --quick). */
gm_status gb_gatomics_parse_options(const gb_suite_run *run, gb_gatomics_options *o, gm_error *err);

/* Runs the experiments (gb_suite.run). */
gm_status gb_gatomics_measure(const gb_suite_run *run, gm_error *err);

#endif
