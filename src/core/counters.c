/* Per-launch counters: the counters set and the writing of the counters
 * file, "gpuq counters v2" with one column per metric named by the metric
 * (docs/counters-format.md); reading it is counters_read.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "csv_internal.h"
#include "gzstream.h"
#include "gpuq/counters.h"
#include "gpuq/unit.h"

/* ------------------------------------------------------------------------
 * Launch counters and the set */

void gm_launch_counters_init(gm_launch_counters *k)
{
    memset(k, 0, sizeof *k);
    k->regs_per_thread = -1;
    k->shared_bytes = -1;
    for (int m = 0; m < GM_METRIC_MAX; m++)
        k->metric[m] = NAN;
    k->pass.valid = 0;
    for (int v = 0; v < GM_PASS_VALUES_MAX; v++)
        k->pass.value[v] = NAN;
}

double gm_launch_metric(const gm_launch_counters *k, const char *name)
{
    int row = gm_metric_find(name);
    return k && row >= 0 ? k->metric[row] : NAN;
}

void gm_launch_counters_clear(gm_launch_counters *k)
{
    if (!k)
        return;
    if (k->mangled != k->kernel)
        free(k->mangled);
    free(k->kernel);
    free(k->sm_n_f);
    free(k->sm_n_c);
    free(k->sm_cycles);
    free(k->sm_occupancy);
    gm_launch_counters_init(k);
}

static char *copy_string(const char *s)
{
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (copy)
        memcpy(copy, s, len + 1);
    return copy;
}

gm_status gm_launch_counters_set_names(gm_launch_counters *k, const char *kernel,
                                       const char *mangled)
{
    if (!k || !kernel)
        return GM_ERR_INVALID_ARG;
    char *new_kernel = copy_string(kernel);
    char *new_mangled = copy_string(mangled ? mangled : kernel);
    if (!new_kernel || !new_mangled) {
        free(new_kernel);
        free(new_mangled);
        return GM_ERR_NOMEM;
    }
    if (k->mangled != k->kernel)
        free(k->mangled);
    free(k->kernel);
    k->kernel = new_kernel;
    k->mangled = new_mangled;
    return GM_OK;
}

void gm_counters_set_init(gm_counters_set *set)
{
    memset(set, 0, sizeof *set);
}

void gm_counters_set_clear(gm_counters_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++)
        gm_launch_counters_clear(&set->launches[i]);
    free(set->launches);
    gm_counters_set_init(set);
}

gm_status gm_counters_set_push(gm_counters_set *set, gm_launch_counters *k)
{
    if (!set || !k)
        return GM_ERR_INVALID_ARG;
    if (set->count == set->capacity) {
        size_t cap = set->capacity ? set->capacity * 2 : 16;
        gm_launch_counters *grown = realloc(set->launches, cap * sizeof *grown);
        if (!grown)
            return GM_ERR_NOMEM;
        set->launches = grown;
        set->capacity = cap;
    }
    set->launches[set->count++] = *k;
    gm_launch_counters_init(k); /* ownership moved: k must not free the strings */
    return GM_OK;
}

/* ------------------------------------------------------------------------
 * The counters file */

/* The columns of the file: counters_internal.h. */
const char *const gm_counters_lead_columns[GM_COUNTERS_N_LEAD] = {
    "launch_id", "kernel", "mangled", "device", "grid_x", "grid_y", "grid_z",
    "block_x", "block_y", "block_z", "regs", "shared_bytes",
};
#define lead_columns gm_counters_lead_columns
#define N_LEAD GM_COUNTERS_N_LEAD
#define COUNTERS_MAGIC GM_COUNTERS_MAGIC

/* The metric rows a meta writes: its own list, or every row of the table. */
static size_t write_rows(const gm_counters_meta *meta, size_t i)
{
    return meta->n_metrics ? (size_t)meta->metric_rows[i] : i;
}

static size_t write_count(const gm_counters_meta *meta)
{
    return meta->n_metrics ? meta->n_metrics : gm_metric_count();
}

static gm_status check_meta_rows(const gm_counters_meta *meta, gm_error *err)
{
    if (meta->n_metrics > GM_METRIC_MAX)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters: %zu metric columns", meta->n_metrics);
    for (size_t i = 0; i < meta->n_metrics; i++)
        if (meta->metric_rows[i] < 0 || (size_t)meta->metric_rows[i] >= gm_metric_count())
            return gm_fail(err, GM_ERR_INVALID_ARG, "counters: metric row %d not in the table",
                           meta->metric_rows[i]);
    return GM_OK;
}

/* Metadata values are one line each: control characters become spaces. */
static void write_meta_value(FILE *out, const char *key, const char *value)
{
    fprintf(out, "# %s: ", key);
    for (const char *p = value; *p; p++)
        fputc(iscntrl((unsigned char)*p) ? ' ' : *p, out);
    fputc('\n', out);
}

gm_status gm_counters_write_header(FILE *out, const gm_counters_meta *meta, gm_error *err)
{
    if (!out || !meta)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters header: no stream or metadata");
    gm_status st = check_meta_rows(meta, err);
    if (st != GM_OK)
        return st;
    fprintf(out, COUNTERS_MAGIC "%d\n", GM_COUNTERS_FORMAT_VERSION);
    write_meta_value(out, "device_name", meta->device_name);
    fprintf(out, "# compute_capability: %d.%d\n", meta->cc_major, meta->cc_minor);
    fprintf(out, "# sm_count: %d\n", meta->sm_count);
    fprintf(out, "# max_warps_per_sm: %d\n", meta->max_warps_per_sm);
    write_meta_value(out, "source", meta->source);
    write_meta_value(out, "command", meta->command);
    if (meta->pid > 0)
        fprintf(out, "# pid: %ld\n", meta->pid);
    if (meta->passes > 0)
        fprintf(out, "# passes: %d\n", meta->passes);
    for (size_t i = 0; i < N_LEAD; i++)
        fprintf(out, "%s%s", i ? "," : "", lead_columns[i]);
    for (size_t i = 0; i < write_count(meta); i++)
        fprintf(out, ",%s", gm_metric_table[write_rows(meta, i)].name);
    const gm_code_pass *pass = gm_units_file_pass();
    for (size_t i = 0; i < gm_code_pass_columns(pass); i++) {
        char name[128];
        gm_code_pass_column(pass, i, name, sizeof name);
        fprintf(out, ",%s", name);
    }
    fputc('\n', out);
    if (fflush(out) != 0 || ferror(out))
        return gm_fail(err, GM_ERR_IO, "counters header: write failed: %s", strerror(errno));
    return GM_OK;
}

static void put_double(FILE *out, double v)
{
    char buf[40];
    gm_csv_format_double(buf, sizeof buf, v);
    fputc(',', out);
    fputs(buf, out);
}

gm_status gm_counters_append_row(FILE *out, const gm_counters_meta *meta,
                                 const gm_launch_counters *k, gm_error *err)
{
    if (!out || !meta || !k || !k->kernel)
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "counters row: no stream, metadata, launch or kernel name");
    gm_status st = check_meta_rows(meta, err);
    if (st != GM_OK)
        return st;
    fprintf(out, "%" PRIu64 ",", k->launch_id);
    gm_csv_write_field(out, k->kernel);
    fputc(',', out);
    gm_csv_write_field(out, k->mangled ? k->mangled : k->kernel);
    fprintf(out, ",%d,%u,%u,%u,%u,%u,%u,%d,%d", k->device, k->grid[0], k->grid[1], k->grid[2],
            k->block[0], k->block[1], k->block[2], k->regs_per_thread, k->shared_bytes);
    for (size_t i = 0; i < write_count(meta); i++)
        put_double(out, k->metric[write_rows(meta, i)]);
    const gm_code_pass *pass = gm_units_file_pass();
    if (pass)
        fprintf(out, ",%d", k->pass.valid ? 1 : 0);
    for (size_t v = 0; v < gm_code_pass_values(pass); v++) {
        if (k->pass.valid)
            put_double(out, k->pass.value[v]);
        else
            fputc(',', out);
    }
    fputc('\n', out);
    /* The collector calls this once per launch: flush so that a crash of the
     * profiled program loses nothing already measured. */
    if (fflush(out) != 0 || ferror(out))
        return gm_fail(err, GM_ERR_IO, "counters row for launch %" PRIu64 ": write failed: %s",
                       k->launch_id, strerror(errno));
    return GM_OK;
}

gm_status gm_counters_write_file(const char *path, const gm_counters_set *set, gm_error *err)
{
    if (!path || !set)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters file: no path or set");
    FILE *out = fopen(path, "w");
    if (!out)
        return gm_fail(err, GM_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    gm_status st = gm_counters_write_header(out, &set->meta, err);
    for (size_t i = 0; st == GM_OK && i < set->count; i++)
        st = gm_counters_append_row(out, &set->meta, &set->launches[i], err);
    if (fclose(out) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return st;
}
