/* The unit registry (gpuq/unit.h): every model gpuq applies, in report
 * order.  Adding a model: its `const gm_unit gm_unit_<name>` in
 * src/papers/<name>/<name>_unit.c, one extern line and one row below (before
 * the NULL), the file in src/papers/<name>/CMakeLists.txt. */
#include <string.h>

#include "gpuq/metrics.h"
#include "gpuq/unit.h"

extern const gm_unit gm_unit_atomics; /* paper 000: shared-memory atomic unit */
extern const gm_unit gm_unit_gatomics; /* paper 002: L2 atomic units */
extern const gm_unit gm_unit_bottleneck; /* paper 004: Zhang & Owens throughput model */
extern const gm_unit gm_unit_waves; /* paper 003: GPUDIAG blocks and waves */

const gm_unit *const gm_units[] = {
    &gm_unit_atomics,
    &gm_unit_gatomics,
    &gm_unit_bottleneck,
    &gm_unit_waves,
    NULL,
};

size_t gm_unit_count(void)
{
    size_t n = 0;
    while (gm_units[n])
        n++;
    return n;
}

const gm_unit *gm_unit_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; gm_units[i]; i++)
        if (strcmp(gm_units[i]->name, name) == 0)
            return gm_units[i];
    return NULL;
}

size_t gm_units_metric_rows(const gm_unit *const *units, size_t n_units, int *rows, size_t max)
{
    size_t n = 0;
    if (!units)
        n_units = gm_unit_count();
    for (size_t u = 0; u < n_units; u++) {
        const gm_unit *unit = units ? units[u] : gm_units[u];
        if (!unit || !unit->metrics)
            continue;
        for (size_t i = 0; unit->metrics[i]; i++) {
            int row = gm_metric_find(unit->metrics[i]);
            if (row < 0)
                continue; /* test_units checks that every declared metric is a row */
            int seen = 0;
            for (size_t j = 0; j < n && !seen; j++)
                seen = rows[j] == row;
            if (!seen && n < max && rows)
                rows[n++] = row;
        }
    }
    return n;
}

size_t gm_unit_opt_in_rows(const gm_unit *u, int *rows, size_t *n, size_t max)
{
    size_t added = 0;
    for (size_t i = 0; u && u->opt_in_metrics && u->opt_in_metrics[i] && rows && n; i++) {
        int row = gm_metric_find(u->opt_in_metrics[i]);
        int seen = row < 0;
        for (size_t j = 0; j < *n && !seen; j++)
            seen = rows[j] == row;
        if (!seen && *n < max) {
            rows[(*n)++] = row;
            added++;
        }
    }
    return added;
}
