/* The SM clock in every suite's machine-data header (gpuq/mdata.h:
 * sm_clock_mhz, "observed during the run").
 *
 * `gpuq calibrate` reads the clock before and after each suite with
 * gb_atomics_measure_sm_clock (atomics_bench.h: clock64 against %globaltimer over a ~10 ms
 * kernel on every SM, the probe the atomic suite uses) and, where the suite
 * wrote no clock of its own, puts the run's value into the suite's file.
 * Pure C: the rule and the file rewrite are CPU-tested (tests/bench/test_suite_clock.c).
 *
 * mem_clock_mhz stays 0 (= not observed): the CUDA runtime and driver APIs
 * give only the memory clock's documented peak (cudaDevAttrMemoryClockRate),
 * not the clock seen during a run, and the header's field means the latter.
 */
#ifndef GPUQ_SUITE_CLOCK_H
#define GPUQ_SUITE_CLOCK_H

#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The clock of a run from the readings before and after it: their mean when
 * both were read (> 0), the one that was read otherwise, 0 (= unknown) when
 * neither was.  Negative or non-finite readings count as not read. */
double gb_clock_of_run(double before_mhz, double after_mhz);

/* 1 when the two readings differ by more than `fraction` of the first (the
 * clock changed during the suite: its rates assume one clock); 0 otherwise
 * or when either is unknown. */
int gb_clock_changed(double before_mhz, double after_mhz, double fraction);

/* Fills sm_clock_mhz of the generic machine-data file at path (gpuq/mdata.h)
 * with gb_clock_of_run(before, after) when the suite left it 0; a file whose
 * header already has a clock (the suite measured its own) is left as it is.
 * The rewrite is atomic (temp file + rename).  *mhz (may be NULL) gets the
 * clock the file holds afterwards, *filled 1 when this call wrote it.
 * Errors of loading or writing the file as gm_mdata_load / _write_file. */
gm_status gb_suite_fill_clock(const char *path, double before_mhz, double after_mhz,
                              double *mhz, int *filled, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
