/* Shared by the fuzz harnesses (tests/fuzz/, docs/fuzzing.md). */
#ifndef GPUQ_FUZZ_INPUT_H
#define GPUQ_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "gpuq/counters.h"

/* libFuzzer's entry point, also called by replay_main.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file that a loader taking a path can open: an in-memory
 * file (memfd) rewritten for each input, named /proc/self/fd/N.  NULL when
 * it cannot be made (the harness then skips the input). */
const char *fuzz_input_path(const uint8_t *data, size_t size);

/* A broken promise (as opposed to a crash): abort, so that libFuzzer keeps
 * the input and the replay test fails. */
#define FUZZ_CHECK(cond)                                                                      \
    do {                                                                                      \
        if (!(cond))                                                                          \
            fuzz_fail(#cond, __FILE__, __LINE__);                                             \
    } while (0)
void fuzz_fail(const char *what, const char *file, int line);

/* The input loaded as a counters set by load (gm_counters_load or
 * gm_ncu_csv_load): 1 when it loads; a refusal must say why in one line. */
int fuzz_load_counters(const uint8_t *data, size_t size,
                       gm_status (*load)(const char *, gm_counters_set *, gm_error *),
                       gm_counters_set *set);

/* The loaders' range promise (gpuq/ranges.h) on a loaded set: every
 * metric is NaN (not collected) or inside its quantity's range. */
void fuzz_check_counter_ranges(const gm_counters_set *set);

/* The input loaded as machine data (gm_mdata_load through a path): NULL
 * when it does not load; a refusal must say why in one line. */
struct gm_mdata;
struct gm_mdata *fuzz_load_mdata(const uint8_t *data, size_t size);

#endif
