/* Finding the calibration table for a GPU (atomics_table_lookup.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomics_format.h"
#include "atomics_table_lookup.h"
#include "cli/cli.h"
#include "gpuq/mdata.h"

gm_status cli_atomics_table_find(const char *gpu_name, int sm_count, char *path, size_t len,
                                 gm_error *err)
{
    if (!gpu_name || !path || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table lookup: no device name or buffer");
    if (gpu_name[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING,
                       "the counters do not name their GPU, so no table can be chosen for them "
                       "(pass --table FILE; ncu's default CSV page has no device name, "
                       "'ncu --csv --page raw' output has)");
    /* The machine-data layout first: <dir>/<gpu folder>/atomics.csv[.gz],
     * then table files lying directly in a folder (atomics_format.c). */
    cli_search_dirs();
    if (gm_mdata_find(gpu_name, sm_count, "atomics", "atomics.csv", path, len, NULL) == GM_OK ||
        gm_atomics_find_flat(gpu_name, sm_count, path, len, NULL) == GM_OK)
        return GM_OK;
    if (sm_count > 0)
        return gm_fail(err, GM_ERR_MISSING,
                       "no calibration table for %s with %d SMs (run 'gpuq calibrate --suite "
                       "atomics' on that GPU, or pass --table)",
                       gpu_name, sm_count);
    return gm_fail(err, GM_ERR_MISSING,
                   "no calibration table for %s (run 'gpuq calibrate --suite atomics' on that "
                   "GPU, or pass --table)",
                   gpu_name);
}

gm_status cli_atomics_table_check(const gm_atomics_table *table, const char *table_path,
                                  const char *gpu_name, int sm_count, gm_error *err)
{
    if (!table || !gpu_name)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table check: no table or device name");
    if (gpu_name[0] == '\0')
        return GM_OK; /* nothing to compare with */
    const gm_atomics_table_meta *m = &table->meta;
    if (strcmp(m->gpu_name, gpu_name) == 0 && (sm_count == 0 || m->sm_count == sm_count))
        return GM_OK;
    return gm_fail(err, GM_ERR_MISMATCH,
                   "table %s was measured on %s with %d SMs, the counters come from %s with %d "
                   "SMs (pass --force to use it anyway, or run 'gpuq calibrate --suite atomics' "
                   "on that GPU)",
                   table_path ? table_path : "(table)", m->gpu_name, m->sm_count, gpu_name,
                   sm_count);
}

gm_status cli_atomics_table_resolve(const char *explicit_path, const char *gpu_name, int sm_count,
                                    int force, gm_atomics_table **out, char *path_used, size_t len,
                                    gm_error *err)
{
    if (!out || !path_used || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table lookup: no output");
    *out = NULL;
    gm_status st;
    if (explicit_path) {
        snprintf(path_used, len, "%s", explicit_path);
    } else if ((st = cli_atomics_table_find(gpu_name, sm_count, path_used, len, err)) != GM_OK) {
        return st;
    }
    gm_atomics_table *table = NULL;
    if ((st = gm_atomics_table_load(path_used, &table, err)) != GM_OK)
        return st;
    if (explicit_path && !force &&
        (st = cli_atomics_table_check(table, path_used, gpu_name ? gpu_name : "", sm_count, err)) !=
            GM_OK) {
        gm_atomics_table_free(table);
        return st;
    }
    *out = table;
    return GM_OK;
}
