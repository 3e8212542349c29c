/* gpuq_metric_passes: how many passes CUPTI's range profiler needs for the
 * metrics of each registered unit, of all of them together, and of a list
 * given on the command line, on a chip (CUPTI's host API: no GPU needed).
 *
 *   gpuq_metric_passes [CHIP] [METRIC...]      (CHIP default GH100)
 *
 * With METRICs: also their passes alone, and with the first unit's.
 * "every launch": the set repeated launches of a kernel shape get
 * (gm_metric_desc.every_launch, collector_repeat.c).
 *
 * The collector gathers the union of the units' metrics in one
 * configuration; one pass is collected without replay (user replay), more
 * need kernel replay (docs/profile.md).  Names the chip does not know are
 * listed and left out, as the collector leaves them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "host_passes.h"

/* Passes for names[0..n), after dropping unknown names (listed on stdout
 * where list_unknown); -1 on error. */
static long passes(const char *chip, const char **names, size_t n, int list_unknown)
{
    char why[256];
    return gpuq_host_passes(chip, names, n, 1, list_unknown ? stdout : NULL, why, sizeof why);
}

/* The hardware metrics of a set of rows (the _sass_ ones are the sass pass's). */
static size_t hardware_names(const int *rows, size_t n, const char **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!gm_metric_is_instrumented(gm_metric_table[rows[i]].name))
            out[k++] = gm_metric_table[rows[i]].name;
    return k;
}

int main(int argc, char **argv)
{
    const char *chip = argc > 1 ? argv[1] : "GH100";
    int rows[GM_METRIC_MAX];
    const char *names[GM_METRIC_MAX + 64];
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_unit *one[1] = {gm_units[u]};
        size_t n = hardware_names(rows, gm_units_metric_rows(one, 1, rows, GM_METRIC_MAX), names);
        printf("unit %-12s %2zu hardware metrics: %ld pass(es)\n", gm_units[u]->name, n,
               passes(chip, names, n, 1));
    }
    size_t n = hardware_names(rows, gm_units_metric_rows(NULL, 0, rows, GM_METRIC_MAX), names);
    printf("all units      %2zu hardware metrics: %ld pass(es)\n", n, passes(chip, names, n, 0));
    /* The set a repeated launch gets (gm_metric_desc.every_launch): the
     * collector uses it only when CUPTI makes it one pass. */
    size_t every = 0;
    for (size_t i = 0; i < n; i++)
        if (gm_metric_table[gm_metric_find(names[i])].every_launch)
            names[every++] = names[i];
    printf("every launch   %2zu hardware metrics: %ld pass(es)\n", every,
           passes(chip, names, every, 0));
    if (argc > 2) {
        printf("the %d given alone: %ld pass(es)\n", argc - 2,
               passes(chip, (const char **)argv + 2, (size_t)(argc - 2), 1));
        const gm_unit *first[1] = {gm_units[0]};
        size_t k = hardware_names(rows, gm_units_metric_rows(first, 1, rows, GM_METRIC_MAX), names);
        for (int i = 2; i < argc && k < sizeof names / sizeof names[0]; i++)
            names[k++] = argv[i];
        printf("unit %s + the %d given: %ld pass(es)\n", gm_units[0]->name, argc - 2,
               passes(chip, names, k, 1));
    }
    return 0;
}
