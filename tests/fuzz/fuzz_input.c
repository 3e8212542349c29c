/* The harnesses' shared helpers (fuzz_input.h). */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <math.h>

#include "fuzz_input.h"
#include "gpuq/mdata.h"
#include "gpuq/unit.h"

const char *fuzz_input_path(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("gpuq-fuzz-input", 0);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            return NULL;
        done += (size_t)n;
    }
    return path;
}

int fuzz_load_counters(const uint8_t *data, size_t size,
                       gm_status (*load)(const char *, gm_counters_set *, gm_error *),
                       gm_counters_set *set)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return 0;
    gm_error err = {{0}};
    if (load(path, set, &err) != GM_OK) {
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
        return 0;
    }
    fuzz_check_counter_ranges(set);
    return 1;
}

void fuzz_check_counter_ranges(const gm_counters_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        const gm_launch_counters *k = &set->launches[i];
        for (int m = 0; m < GM_METRIC_COUNT; m++)
            FUZZ_CHECK(isnan(k->metric[m]) ||
                       gm_quantity_ok(gm_metric_table[m].quantity, k->metric[m]));
        for (size_t v = 0; k->pass.valid && v < gm_code_pass_values(gm_units_file_pass()); v++)
            FUZZ_CHECK(gm_quantity_ok(GM_Q_MEAN, k->pass.value[v]));
    }
}

gm_mdata *fuzz_load_mdata(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return NULL;
    gm_mdata *md = NULL;
    gm_error err = {{0}};
    gm_status st = gm_mdata_load(path, &md, &err);
    FUZZ_CHECK((st == GM_OK) == (md != NULL));
    if (st != GM_OK)
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
    /* what loads holds no number strtod alone would take: no inf, no hex */
    for (size_t i = 0; md && i < md->n_rows * md->n_cols; i++)
        FUZZ_CHECK(isnan(md->num[i]) || isfinite(md->num[i]));
    return md;
}

void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "%s:%d: broken promise: %s\n", file, line, what);
    abort();
}
