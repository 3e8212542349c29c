/* The calibration table: names, storage, validation and the metadata keys
 * (format: src/papers/atomics/atomics_table.h, docs/table-format.md).  The loader is in
 * atomics_table_load.c, the writers in atomics_table_write.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomics_table.h"
#include "core/gzstream.h"
#include "gpuq/mdata.h"
#include "atomics_table_internal.h"

const char gm_atomics_table_magic[] = "# gpuq calibration table v";
const char gm_atomics_table_column_header[] =
    "class,pattern,method,n,e,c,t_median,t_min,t_max,spread,reps,flags";

#define ATOMICS_CELL_KNOWN_FLAGS (GM_ATOMICS_CELL_HIGH_SPREAD | GM_ATOMICS_CELL_REMEASURED | GM_ATOMICS_CELL_NOT_CORESIDENT | GM_ATOMICS_CELL_ARRIVAL_SKEW)

/* ---- names ------------------------------------------------------------ */

static const char *const class_names[GM_ATOMICS_CLASS_COUNT] = {
    [GM_ATOMICS_CLASS_ADD] = "add",   [GM_ATOMICS_CLASS_CAS] = "cas", [GM_ATOMICS_CLASS_POPC_INC] = "popc_inc",
    [GM_ATOMICS_CLASS_EXCH] = "exch", [GM_ATOMICS_CLASS_MIN] = "min", [GM_ATOMICS_CLASS_MAX] = "max",
    [GM_ATOMICS_CLASS_AND] = "and",   [GM_ATOMICS_CLASS_OR] = "or",   [GM_ATOMICS_CLASS_XOR] = "xor",
    [GM_ATOMICS_CLASS_ADD64] = "add64",
};
static const char *const pattern_names[GM_ATOMICS_PATTERN_COUNT] = {
    [GM_ATOMICS_PATTERN_SAME_ADDRESS] = "same_address",
    [GM_ATOMICS_PATTERN_DISTINCT_BANK] = "distinct_bank",
};
static const char *const method_names[GM_ATOMICS_METHOD_COUNT] = {
    [GM_ATOMICS_METHOD_SINGLE_SHOT] = "single_shot",
    [GM_ATOMICS_METHOD_STEADY_STATE] = "steady_state",
};

static const char *name_of(const char *const *names, int count, int value)
{
    if (value < 0 || value >= count)
        return "unknown";
    return names[value];
}

static int index_of(const char *const *names, int count, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *gm_atomics_class_name(gm_atomics_job_class cls)
{
    return name_of(class_names, GM_ATOMICS_CLASS_COUNT, (int)cls);
}

const char *gm_atomics_pattern_name(gm_atomics_pattern pattern)
{
    return name_of(pattern_names, GM_ATOMICS_PATTERN_COUNT, (int)pattern);
}

const char *gm_atomics_method_name(gm_atomics_method method)
{
    return name_of(method_names, GM_ATOMICS_METHOD_COUNT, (int)method);
}

gm_status gm_atomics_class_parse(const char *name, gm_atomics_job_class *out)
{
    int i = index_of(class_names, GM_ATOMICS_CLASS_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_atomics_job_class)i;
    return GM_OK;
}

gm_status gm_atomics_pattern_parse(const char *name, gm_atomics_pattern *out)
{
    int i = index_of(pattern_names, GM_ATOMICS_PATTERN_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_atomics_pattern)i;
    return GM_OK;
}

gm_status gm_atomics_method_parse(const char *name, gm_atomics_method *out)
{
    int i = index_of(method_names, GM_ATOMICS_METHOD_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_atomics_method)i;
    return GM_OK;
}

/* ---- storage ---------------------------------------------------------- */

/* A series without CAS only has c = 0, so its c axis has one entry; a
 * mixing series has c = 0..n_max (entries with c > n are never used). */
static int c_axis_len(const gm_atomics_series *s)
{
    return s->mixes_cas ? s->n_max + 1 : 1;
}

size_t gm_atomics_table_cell_count(const gm_atomics_series *s)
{
    return (size_t)s->n_max * (size_t)s->e_max * (size_t)c_axis_len(s);
}

gm_atomics_table *gm_atomics_table_new(const gm_atomics_table_meta *meta)
{
    gm_atomics_table *t = calloc(1, sizeof *t);
    if (t && meta)
        t->meta = *meta;
    return t;
}

void gm_atomics_table_free(gm_atomics_table *table)
{
    if (!table)
        return;
    for (int i = 0; i < table->n_series; i++)
        free(table->series[i].cells);
    free(table->series);
    free(table);
}

static int meta_axes_ok(const gm_atomics_table_meta *m)
{
    return m->max_warps_per_sm >= 1 && m->max_warps_per_sm <= 1024 && m->warp_size >= 1 &&
           m->warp_size <= 64;
}

gm_status gm_atomics_table_add_series(gm_atomics_table *table, gm_atomics_job_class cls,
                                      gm_atomics_pattern pattern, gm_atomics_method method,
                                      int mixes_cas, gm_atomics_series **out)
{
    if (!table || (int)cls < 0 || cls >= GM_ATOMICS_CLASS_COUNT || (int)pattern < 0 ||
        pattern >= GM_ATOMICS_PATTERN_COUNT || (int)method < 0 || method >= GM_ATOMICS_METHOD_COUNT ||
        !meta_axes_ok(&table->meta))
        return GM_ERR_INVALID_ARG;
    if (gm_atomics_table_find(table, cls, pattern, method))
        return GM_ERR_DUPLICATE;

    gm_atomics_series s = {.cls = cls,
                           .pattern = pattern,
                           .method = method,
                           .mixes_cas = mixes_cas ? 1 : 0,
                           .n_max = table->meta.max_warps_per_sm,
                           .e_max = table->meta.warp_size};
    size_t count = gm_atomics_table_cell_count(&s);
    s.cells = malloc(count * sizeof *s.cells);
    if (!s.cells)
        return GM_ERR_NOMEM;
    for (size_t i = 0; i < count; i++)
        s.cells[i] = (gm_atomics_cell){.t_median = NAN, .t_min = NAN, .t_max = NAN, .spread = NAN};

    gm_atomics_series *grown = realloc(table->series,
                                       (size_t)(table->n_series + 1) * sizeof *grown);
    if (!grown) {
        free(s.cells);
        return GM_ERR_NOMEM;
    }
    table->series = grown;
    table->series[table->n_series] = s;
    if (out)
        *out = &table->series[table->n_series];
    table->n_series++;
    return GM_OK;
}

const gm_atomics_series *gm_atomics_table_find(const gm_atomics_table *table,
                                               gm_atomics_job_class cls, gm_atomics_pattern pattern,
                                               gm_atomics_method method)
{
    if (!table)
        return NULL;
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *s = &table->series[i];
        if (s->cls == cls && s->pattern == pattern && s->method == method)
            return s;
    }
    return NULL;
}

gm_atomics_cell *gm_atomics_series_cell(const gm_atomics_series *series, int n, int e, int c)
{
    if (!series || !series->cells || n < 1 || n > series->n_max || e < 1 || e > series->e_max ||
        c < 0 || c > n || (c > 0 && !series->mixes_cas))
        return NULL;
    size_t at = ((size_t)(n - 1) * (size_t)series->e_max + (size_t)(e - 1)) *
                    (size_t)c_axis_len(series) +
                (size_t)c;
    return &series->cells[at];
}

/* ---- validation ------------------------------------------------------- */

static int text_is_one_line(const char *s)
{
    return strpbrk(s, "\r\n") == NULL;
}

/* Checks the metadata ranges; the prefix goes in front of the message
 * ("tables/x.csv: ").  Shared by the loader and gm_atomics_table_validate. */
gm_status gm_atomics_table_check_meta(const gm_atomics_table_meta *m, const char *prefix,
                                      gm_error *err)
{
    if (m->gpu_name[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "%sgpu_name is empty", prefix);
    if (m->cc_major < 1 || m->cc_major > 99 || m->cc_minor < 0 || m->cc_minor > 9)
        return gm_fail(err, GM_ERR_RANGE, "%scompute_capability %d.%d is not a CUDA compute capability",
                       prefix, m->cc_major, m->cc_minor);
    if (m->sm_count <= 0)
        return gm_fail(err, GM_ERR_RANGE, "%ssm_count=%d must be positive", prefix, m->sm_count);
    if (m->max_warps_per_sm < 1 || m->max_warps_per_sm > 1024)
        return gm_fail(err, GM_ERR_RANGE, "%smax_warps_per_sm=%d outside 1..1024", prefix,
                       m->max_warps_per_sm);
    if (m->warp_size < 1 || m->warp_size > 64)
        return gm_fail(err, GM_ERR_RANGE, "%swarp_size=%d outside 1..64", prefix, m->warp_size);
    if (!isfinite(m->sm_clock_mhz) || m->sm_clock_mhz < 0)
        return gm_fail(err, GM_ERR_RANGE, "%ssm_clock_mhz=%g must be finite and >= 0", prefix,
                       m->sm_clock_mhz);
    if (!isfinite(m->mem_clock_mhz) || m->mem_clock_mhz < 0)
        return gm_fail(err, GM_ERR_RANGE, "%smem_clock_mhz=%g must be finite and >= 0", prefix,
                       m->mem_clock_mhz);
    if (m->driver_version < 0 || m->runtime_version < 0)
        return gm_fail(err, GM_ERR_RANGE, "%sdriver_version/runtime_version must be >= 0", prefix);
    if (m->reps < 0)
        return gm_fail(err, GM_ERR_RANGE, "%sreps=%d must be >= 0", prefix, m->reps);
    if (!isfinite(m->spread_threshold) || m->spread_threshold < 0)
        return gm_fail(err, GM_ERR_RANGE, "%sspread_threshold=%g must be finite and >= 0", prefix,
                       m->spread_threshold);
    const char *texts[] = {m->gpu_name, m->date, m->method_note, m->gpuq_version};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (!text_is_one_line(texts[i]))
            return gm_fail(err, GM_ERR_RANGE, "%sa metadata text holds a line break", prefix);
    return GM_OK;
}

/* A measured cell: finite, non-negative, t_min <= t_median <= t_max. */
gm_status gm_atomics_table_check_cell(const gm_atomics_cell *cell, const char *where, gm_error *err)
{
    const double v[] = {cell->t_median, cell->t_min, cell->t_max, cell->spread};
    const char *names[] = {"t_median", "t_min", "t_max", "spread"};
    for (int i = 0; i < 4; i++) {
        if (!isfinite(v[i]))
            return gm_fail(err, GM_ERR_RANGE, "%s%s is %s", where, names[i],
                           isnan(v[i]) ? "NaN" : "infinite");
        if (v[i] < 0)
            return gm_fail(err, GM_ERR_RANGE, "%s%s=%g is negative", where, names[i], v[i]);
    }
    /* the physical range (gpuq/ranges.h): a time in clocks under a day */
    for (int i = 0; i < 3; i++)
        if (!gm_quantity_ok(GM_Q_CLOCKS, v[i]))
            return gm_fail(err, GM_ERR_RANGE, "%s%s=%g outside 0..%g (%s)", where, names[i], v[i],
                           gm_quantity_table[GM_Q_CLOCKS].max,
                           gm_quantity_table[GM_Q_CLOCKS].meaning);
    if (!gm_quantity_ok(GM_Q_RATIO, cell->spread))
        return gm_fail(err, GM_ERR_RANGE, "%sspread=%g outside 0..%g", where, cell->spread,
                       gm_quantity_table[GM_Q_RATIO].max);
    if (cell->t_min > cell->t_median || cell->t_median > cell->t_max)
        return gm_fail(err, GM_ERR_RANGE, "%snot t_min <= t_median <= t_max (%g, %g, %g)", where,
                       cell->t_min, cell->t_median, cell->t_max);
    if (cell->reps < 0)
        return gm_fail(err, GM_ERR_RANGE, "%sreps=%d is negative", where, cell->reps);
    if (cell->flags & ~ATOMICS_CELL_KNOWN_FLAGS)
        return gm_fail(err, GM_ERR_RANGE, "%sflags=%u has unknown bits", where, cell->flags);
    return GM_OK;
}

static void series_label(const gm_atomics_series *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s,%s,%s", gm_atomics_class_name(s->cls),
             gm_atomics_pattern_name(s->pattern), gm_atomics_method_name(s->method));
}

/* Checks every cell of a series: measured cells must be valid; unless
 * allow_missing, every (n, e, c) of the grid must be measured. */
static gm_status check_series_cells(const gm_atomics_series *s, int allow_missing,
                                    const char *prefix, gm_error *err)
{
    char label[64];
    series_label(s, label, sizeof label);
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                char where[160];
                snprintf(where, sizeof where, "%sseries %s: cell n=%d e=%d c=%d: ", prefix, label, n,
                         e, c);
                if (isnan(cell->t_median)) {
                    if (allow_missing)
                        continue;
                    return gm_fail(err, GM_ERR_MISSING, "%smissing", where);
                }
                gm_status st = gm_atomics_table_check_cell(cell, where, err);
                if (st != GM_OK)
                    return st;
            }
    return GM_OK;
}

gm_status gm_atomics_table_check(const gm_atomics_table *table, int allow_missing,
                                 const char *prefix, gm_error *err)
{
    if (!table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no table");
    gm_status st = gm_atomics_table_check_meta(&table->meta, prefix, err);
    if (st != GM_OK)
        return st;
    if (table->n_series <= 0)
        return gm_fail(err, GM_ERR_MISSING, "%sno series declared", prefix);
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *s = &table->series[i];
        char label[64];
        series_label(s, label, sizeof label);
        if (gm_atomics_table_find(table, s->cls, s->pattern, s->method) != s)
            return gm_fail(err, GM_ERR_DUPLICATE, "%sseries %s declared twice", prefix, label);
        if (s->n_max != table->meta.max_warps_per_sm || s->e_max != table->meta.warp_size)
            return gm_fail(err, GM_ERR_MISMATCH,
                           "%sseries %s has n_max=%d e_max=%d but the metadata says %d, %d", prefix,
                           label, s->n_max, s->e_max, table->meta.max_warps_per_sm,
                           table->meta.warp_size);
        st = check_series_cells(s, allow_missing, prefix, err);
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
}

gm_status gm_atomics_table_validate(const gm_atomics_table *table, gm_error *err)
{
    return gm_atomics_table_check(table, 0, "", err);
}

/* ---- metadata keys ---------------------------------------------------- */

#define META_FIELD(f) offsetof(gm_atomics_table_meta, f), sizeof(((gm_atomics_table_meta *)0)->f)
#define V1 GM_ATOMICS_TABLE_V1
#define V2 GM_ATOMICS_TABLE_V2

/* Every gm_atomics_table_meta field and the version(s) whose header holds it.  v2
 * writes the common machine-data header first (gm_mdata_meta_write: suite
 * .. gpuq_version, v1's method_note named method), then the table's own
 * keys in this order.  Required keys are what the model needs (the grid
 * and the GPU identity); the rest describe the run and default to 0 or
 * empty. */
const gm_atomics_table_meta_key gm_atomics_table_meta_keys[] = {
    {"suite", GM_ATOMICS_META_SUITE, 0, 0, 1, V2},
    {"gpu_name", GM_ATOMICS_META_TEXT, META_FIELD(gpu_name), 1, V1 | V2},
    {"compute_capability", GM_ATOMICS_META_CC, 0, 0, 1, V1 | V2},
    {"sm_count", GM_ATOMICS_META_INT, META_FIELD(sm_count), 1, V1 | V2},
    {"max_warps_per_sm", GM_ATOMICS_META_INT, META_FIELD(max_warps_per_sm), 1, V1 | V2},
    {"warp_size", GM_ATOMICS_META_INT, META_FIELD(warp_size), 1, V1 | V2},
    {"sm_clock_mhz", GM_ATOMICS_META_DOUBLE, META_FIELD(sm_clock_mhz), 0, V1 | V2},
    {"mem_clock_mhz", GM_ATOMICS_META_DOUBLE, META_FIELD(mem_clock_mhz), 0, V2},
    {"driver_version", GM_ATOMICS_META_INT, META_FIELD(driver_version), 0, V1 | V2},
    {"runtime_version", GM_ATOMICS_META_INT, META_FIELD(runtime_version), 0, V1 | V2},
    {"date", GM_ATOMICS_META_TEXT, META_FIELD(date), 0, V1 | V2},
    {"method_note", GM_ATOMICS_META_TEXT, META_FIELD(method_note), 0, V1},
    {"method", GM_ATOMICS_META_TEXT, META_FIELD(method_note), 0, V2},
    {"reps", GM_ATOMICS_META_INT, META_FIELD(reps), 0, V1 | V2},
    {"spread_threshold", GM_ATOMICS_META_DOUBLE, META_FIELD(spread_threshold), 0, V1 | V2},
    {"gpuq_version", GM_ATOMICS_META_TEXT, META_FIELD(gpuq_version), 0, V1 | V2},
};
const size_t gm_atomics_table_meta_key_count = sizeof gm_atomics_table_meta_keys / sizeof gm_atomics_table_meta_keys[0];
_Static_assert(sizeof gm_atomics_table_meta_keys / sizeof gm_atomics_table_meta_keys[0] <= GM_ATOMICS_TABLE_META_KEYS_MAX,
               "the loader's meta_seen[] holds GM_ATOMICS_TABLE_META_KEYS_MAX keys");

void gm_atomics_table_common_meta(const gm_atomics_table_meta *m, gm_mdata_meta *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->suite, sizeof out->suite, "atomics");
    memcpy(out->gpu_name, m->gpu_name, sizeof out->gpu_name);
    out->cc_major = m->cc_major;
    out->cc_minor = m->cc_minor;
    out->sm_count = m->sm_count;
    out->sm_clock_mhz = m->sm_clock_mhz;
    out->mem_clock_mhz = m->mem_clock_mhz;
    out->driver_version = m->driver_version;
    out->runtime_version = m->runtime_version;
    memcpy(out->date, m->date, sizeof out->date);
    memcpy(out->method, m->method_note, sizeof out->method);
    memcpy(out->gpuq_version, m->gpuq_version, sizeof out->gpuq_version);
}
