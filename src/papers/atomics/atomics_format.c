/* The shared-atomic table as machine data (gpuq/unit.h, gm_mdata_format): the
 * atomics unit declares it, so that the one machine-data path (gm_machine_load)
 * finds, loads, checks and frees it like every other suite's file, and the
 * generic loader knows its header (v1 and v2 files, atomics_table.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gzstream.h"
#include "atomics_format.h"
#include "atomics_table.h"
#include "atomics_table_internal.h"

#define TABLE_MAGIC gm_atomics_table_magic

/* Reads gpu_name and sm_count from a table's '#' header without loading
 * the cells.  0 when the file looks like a table and has both. */
static int read_table_identity(const char *path, char *name, size_t name_len, int *sm_count)
{
    FILE *in = NULL;
    gm_error err;
    if (gm_open_input(path, "table file", &in, &err) != GM_OK)
        return -1; /* the searched folder's stray FIFO or device is not a table */
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

gm_status gm_atomics_find_flat(const char *gpu_name, int sm_count, char *path, size_t len,
                               gm_error *err)
{
    /* Table files lying directly in a searched folder (what 'gpuq calibrate
     * -o FILE' wrote before suites had folders). */
    const char *dirs[3];
    size_t n = gm_mdata_search_dirs(dirs, 3);
    for (size_t i = 0; i < n; i++)
        if (search_dir(dirs[i], gpu_name, sm_count, path, len))
            return GM_OK;
    return gm_fail(err, GM_ERR_MISSING, "no calibration table for %s", gpu_name);
}

static gm_status atomics_load(const char *path, void **data, gm_mdata_meta *meta, gm_error *err)
{
    gm_atomics_table *t = NULL;
    gm_status st = gm_atomics_table_load(path, &t, err);
    if (st != GM_OK)
        return st;
    memset(meta, 0, sizeof *meta);
    snprintf(meta->suite, sizeof meta->suite, "atomics");
    snprintf(meta->gpu_name, sizeof meta->gpu_name, "%s", t->meta.gpu_name);
    meta->cc_major = t->meta.cc_major;
    meta->cc_minor = t->meta.cc_minor;
    meta->sm_count = t->meta.sm_count;
    meta->sm_clock_mhz = t->meta.sm_clock_mhz;
    meta->mem_clock_mhz = t->meta.mem_clock_mhz;
    meta->driver_version = t->meta.driver_version;
    meta->runtime_version = t->meta.runtime_version;
    snprintf(meta->date, sizeof meta->date, "%s", t->meta.date);
    snprintf(meta->method, sizeof meta->method, "%s", t->meta.method_note);
    snprintf(meta->gpuq_version, sizeof meta->gpuq_version, "%s", t->meta.gpuq_version);
    *data = t;
    return GM_OK;
}

static void atomics_free(void *data)
{
    gm_atomics_table_free(data);
}

const gm_mdata_format gm_atomics_format = {
    .suite = "atomics",
    .magic = gm_atomics_table_magic,
    .what = "shared-atomic calibration table",
    .read_with = "gpuq table",
    .version = GM_ATOMICS_TABLE_FORMAT_VERSION,
    .load = atomics_load,
    .free = atomics_free,
    .find = gm_atomics_find_flat,
};
