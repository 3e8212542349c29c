/* Set-up the model tests repeated: the header of a machine-data file they
 * build, and the shipped table and recorded counters several tests read.
 * Header-only (static inline), so that a test takes it by including it;
 * include <cmocka.h> first. */
#ifndef GPUQ_TESTS_MODEL_TEST_HELPERS_H
#define GPUQ_TESTS_MODEL_TEST_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "gpuq/counters.h"
#include "gpuq/mdata.h"
#include "gpuq/metrics.h"
#include "gpuq/table.h"
#include "gpuq/unit.h"

#define TH_H100 "NVIDIA H100 80GB HBM3"

/* A machine-data header of suite on a Hopper GPU (cc 9.0) named gpu with
 * sm_count SMs, dated date; every other field zero, for the test to set. */
static inline gm_mdata_meta th_meta(const char *suite, const char *gpu, int sm_count,
                                    const char *date)
{
    gm_mdata_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.suite, sizeof m.suite, "%s", suite);
    snprintf(m.gpu_name, sizeof m.gpu_name, "%s", gpu);
    m.cc_major = 9;
    m.sm_count = sm_count;
    snprintf(m.date, sizeof m.date, "%s", date);
    return m;
}

/* The registered unit `name`, checked: it exists, has this title, and
 * every metric it declares is a row of gpuq's table. */
static inline const gm_unit *th_unit(const char *name, const char *title)
{
    const gm_unit *u = gm_unit_find(name);
    assert_non_null(u);
    assert_string_equal(u->title, title);
    for (size_t i = 0; u->metrics[i]; i++)
        assert_true(gm_metric_find(u->metrics[i]) >= 0);
    return u;
}

/* A machine whose only machine data is md, suite's file (owned by m). */
static inline void th_machine_with(gm_machine *m, const char *suite, gm_mdata *md)
{
    memset(m, 0, sizeof *m);
    m->n_files = 1;
    snprintf(m->files[0].suite, sizeof m->files[0].suite, "%s", suite);
    m->files[0].md = md;
}

/* A machine with only the atomics table at path (relative to the source
 * tree) loaded. */
static inline void th_atomics_machine(gm_machine *m, const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", GPUQ_SOURCE_DIR, path);
    memset(m, 0, sizeof *m);
    assert_int_equal(gm_table_load(full, &m->atomics, NULL), GM_OK);
}

/* The histogram's recorded counters on the H200 (data/recorded/), which the
 * shipped H200 table's tests run the atomics unit on. */
static inline void th_recorded_h200(gm_counters_set *set)
{
    assert_int_equal(
        gm_counters_load(GPUQ_SOURCE_DIR
                         "/data/recorded/histogram-hist-uniform-4m-nvidia-h200.counters.csv",
                         set, NULL),
        GM_OK);
    assert_true(set->count > 0);
}

#endif
