/* Finding the calibration table for a GPU (atomics_table_lookup.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gzstream.h"
#include "gpuq/mdata.h"
#include "atomics_table_lookup.h"

#ifndef GPUQ_SOURCE_DIR
#define GPUQ_SOURCE_DIR "."
#endif

#define TABLE_MAGIC "# gpuq calibration table v"

/* Reads gpu_name and sm_count from a table's '#' header without loading
 * the cells.  0 when the file looks like a table and has both. */
static int read_table_identity(const char *path, char *name, size_t name_len, int *sm_count)
{
    FILE *in = gm_fopen_maybe_gz(path, "r");
    if (!in)
        return -1;
    char line[512];
    int have_magic = 0, have_name = 0, have_count = 0;
    while (fgets(line, sizeof line, in) && line[0] == '#') {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, TABLE_MAGIC, strlen(TABLE_MAGIC)) == 0)
            have_magic = 1;
        else if (strncmp(line, "# gpu_name: ", 12) == 0 && !have_name) {
            size_t n = strlen(line + 12);
            if (n >= name_len)
                n = name_len - 1;
            memcpy(name, line + 12, n);
            name[n] = '\0';
            have_name = 1;
        } else if (sscanf(line, "# sm_count: %d", sm_count) == 1)
            have_count = 1;
    }
    fclose(in);
    return have_magic && have_name && have_count ? 0 : -1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Searches one directory (in name order, so the answer does not depend on
 * the file system).  1 = found, 0 = not here. */
static int search_dir(const char *dir, const char *gpu_name, int sm_count, char *path,
                      size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t l = strlen(ent->d_name);
        int is_csv = l > 4 && strcmp(ent->d_name + l - 4, ".csv") == 0;
        int is_csv_gz = l > 7 && strcmp(ent->d_name + l - 7, ".csv.gz") == 0;
        if (!is_csv && !is_csv_gz)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **grown = realloc(names, cap * sizeof *grown);
            if (!grown)
                break;
            names = grown;
        }
        if ((names[n] = strdup(ent->d_name)) != NULL)
            n++;
    }
    closedir(d);
    int found = 0;
    if (n)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n && !found; i++) {
        char candidate[4096], table_name[128];
        int table_sms = 0;
        snprintf(candidate, sizeof candidate, "%s/%s", dir, names[i]);
        if (read_table_identity(candidate, table_name, sizeof table_name, &table_sms) != 0)
            continue;
        if (strcmp(table_name, gpu_name) == 0 && (sm_count == 0 || table_sms == sm_count)) {
            snprintf(path, len, "%s", candidate);
            found = 1;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return found;
}

/* <directory of the running executable>/../tables, or "" */
static void exe_tables_dir(char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    buf[0] = '\0';
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    char joined[4200], resolved[PATH_MAX];
    snprintf(joined, sizeof joined, "%s/../tables", exe);
    /* Resolved, so reports name the table plainly ("/x/tables", not "/x/build/../tables"). */
    snprintf(buf, len, "%s", realpath(joined, resolved) ? resolved : joined);
}

void cli_table_search_dirs(void)
{
    char exe_dir[4200];
    exe_tables_dir(exe_dir, sizeof exe_dir);
    gm_mdata_set_search_dirs(exe_dir, GPUQ_SOURCE_DIR "/tables");
}

gm_status cli_table_find(const char *gpu_name, int sm_count, char *path, size_t len,
                         gm_error *err)
{
    if (!gpu_name || !path || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table lookup: no device name or buffer");
    if (gpu_name[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING,
                       "the counters do not name their GPU, so no table can be chosen for them "
                       "(pass --table FILE; ncu's default CSV page has no device name, "
                       "'ncu --csv --page raw' output has)");
    char exe_dir[4200];
    exe_tables_dir(exe_dir, sizeof exe_dir);
    /* The machine-data layout first: <dir>/<gpu folder>/atomics.csv[.gz]. */
    cli_table_search_dirs();
    if (gm_mdata_find(gpu_name, sm_count, "atomics", "atomics.csv", path, len, NULL) == GM_OK)
        return GM_OK;
    /* Then table files lying directly in a folder (what 'gpuq calibrate -o
     * FILE' wrote before suites had folders). */
    const char *dirs[] = {getenv("GPUQ_TABLE_DIR"), exe_dir, GPUQ_SOURCE_DIR "/tables"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i] && dirs[i][0] && search_dir(dirs[i], gpu_name, sm_count, path, len))
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

gm_status cli_table_check(const gm_table *table, const char *table_path, const char *gpu_name,
                          int sm_count, gm_error *err)
{
    if (!table || !gpu_name)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table check: no table or device name");
    if (gpu_name[0] == '\0')
        return GM_OK; /* nothing to compare with */
    const gm_table_meta *m = &table->meta;
    if (strcmp(m->gpu_name, gpu_name) == 0 && (sm_count == 0 || m->sm_count == sm_count))
        return GM_OK;
    return gm_fail(err, GM_ERR_MISMATCH,
                   "table %s was measured on %s with %d SMs, the counters come from %s with %d "
                   "SMs (pass --force to use it anyway, or run 'gpuq calibrate --suite atomics' "
                   "on that GPU)",
                   table_path ? table_path : "(table)", m->gpu_name, m->sm_count, gpu_name,
                   sm_count);
}

gm_status cli_table_resolve(const char *explicit_path, const char *gpu_name, int sm_count,
                            int force, gm_table **out, char *path_used, size_t len,
                            gm_error *err)
{
    if (!out || !path_used || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "table lookup: no output");
    *out = NULL;
    gm_status st;
    if (explicit_path) {
        snprintf(path_used, len, "%s", explicit_path);
    } else if ((st = cli_table_find(gpu_name, sm_count, path_used, len, err)) != GM_OK) {
        return st;
    }
    gm_table *table = NULL;
    if ((st = gm_table_load(path_used, &table, err)) != GM_OK)
        return st;
    if (explicit_path && !force &&
        (st = cli_table_check(table, path_used, gpu_name ? gpu_name : "", sm_count, err)) !=
            GM_OK) {
        gm_table_free(table);
        return st;
    }
    *out = table;
    return GM_OK;
}
