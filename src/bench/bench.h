/* The calibrate microbenchmarks, behind a C interface (gb_ prefix). */
#ifndef GPUQ_BENCH_H
#define GPUQ_BENCH_H
#include "gpuq/status.h"
#include "gpuq/table.h"

/* 1 if this build can run GPU benchmarks. */
int gb_available(void);

#endif
