/* The calibration table: names, storage, validation, the CSV loader and the
 * atomic writer (format: include/gpuq/table.h, docs/table-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuq/table.h"
#include "gpuq/gzstream.h"
#include "csv_internal.h"

/* Longest accepted line, newline excluded.  Real lines are under 200
 * characters; the limit only stops a binary file from being read as one line. */
#define TABLE_LINE_MAX 4095

static const char *const table_magic = "# gpuq calibration table v";
static const char *const column_header =
    "class,pattern,method,n,e,c,t_median,t_min,t_max,spread,reps,flags";
#define TABLE_COLUMNS 12

#define GM_CELL_KNOWN_FLAGS (GM_CELL_HIGH_SPREAD | GM_CELL_REMEASURED | GM_CELL_NOT_CORESIDENT | GM_CELL_ARRIVAL_SKEW)

/* ---- names ------------------------------------------------------------ */

static const char *const class_names[GM_CLASS_COUNT] = {
    [GM_CLASS_ADD] = "add",   [GM_CLASS_CAS] = "cas", [GM_CLASS_POPC_INC] = "popc_inc",
    [GM_CLASS_EXCH] = "exch", [GM_CLASS_MIN] = "min", [GM_CLASS_MAX] = "max",
    [GM_CLASS_AND] = "and",   [GM_CLASS_OR] = "or",   [GM_CLASS_XOR] = "xor",
    [GM_CLASS_ADD64] = "add64",
};
static const char *const pattern_names[GM_PATTERN_COUNT] = {
    [GM_PATTERN_SAME_ADDRESS] = "same_address",
    [GM_PATTERN_DISTINCT_BANK] = "distinct_bank",
};
static const char *const method_names[GM_METHOD_COUNT] = {
    [GM_METHOD_SINGLE_SHOT] = "single_shot",
    [GM_METHOD_STEADY_STATE] = "steady_state",
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

const char *gm_class_name(gm_job_class cls)
{
    return name_of(class_names, GM_CLASS_COUNT, (int)cls);
}

const char *gm_pattern_name(gm_pattern pattern)
{
    return name_of(pattern_names, GM_PATTERN_COUNT, (int)pattern);
}

const char *gm_method_name(gm_method method)
{
    return name_of(method_names, GM_METHOD_COUNT, (int)method);
}

gm_status gm_class_parse(const char *name, gm_job_class *out)
{
    int i = index_of(class_names, GM_CLASS_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_job_class)i;
    return GM_OK;
}

gm_status gm_pattern_parse(const char *name, gm_pattern *out)
{
    int i = index_of(pattern_names, GM_PATTERN_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_pattern)i;
    return GM_OK;
}

gm_status gm_method_parse(const char *name, gm_method *out)
{
    int i = index_of(method_names, GM_METHOD_COUNT, name);
    if (i < 0 || !out)
        return GM_ERR_PARSE;
    *out = (gm_method)i;
    return GM_OK;
}

/* ---- storage ---------------------------------------------------------- */

/* A series without CAS only has c = 0, so its c axis has one entry; a
 * mixing series has c = 0..n_max (entries with c > n are never used). */
static int c_axis_len(const gm_series *s)
{
    return s->mixes_cas ? s->n_max + 1 : 1;
}

static size_t cell_count(const gm_series *s)
{
    return (size_t)s->n_max * (size_t)s->e_max * (size_t)c_axis_len(s);
}

gm_table *gm_table_new(const gm_table_meta *meta)
{
    gm_table *t = calloc(1, sizeof *t);
    if (t && meta)
        t->meta = *meta;
    return t;
}

void gm_table_free(gm_table *table)
{
    if (!table)
        return;
    for (int i = 0; i < table->n_series; i++)
        free(table->series[i].cells);
    free(table->series);
    free(table);
}

static int meta_axes_ok(const gm_table_meta *m)
{
    return m->max_warps_per_sm >= 1 && m->max_warps_per_sm <= 1024 && m->warp_size >= 1 &&
           m->warp_size <= 64;
}

gm_status gm_table_add_series(gm_table *table, gm_job_class cls, gm_pattern pattern,
                              gm_method method, int mixes_cas, gm_series **out)
{
    if (!table || (int)cls < 0 || cls >= GM_CLASS_COUNT || (int)pattern < 0 ||
        pattern >= GM_PATTERN_COUNT || (int)method < 0 || method >= GM_METHOD_COUNT ||
        !meta_axes_ok(&table->meta))
        return GM_ERR_INVALID_ARG;
    if (gm_table_find(table, cls, pattern, method))
        return GM_ERR_DUPLICATE;

    gm_series s = {.cls = cls,
                   .pattern = pattern,
                   .method = method,
                   .mixes_cas = mixes_cas ? 1 : 0,
                   .n_max = table->meta.max_warps_per_sm,
                   .e_max = table->meta.warp_size};
    size_t count = cell_count(&s);
    s.cells = malloc(count * sizeof *s.cells);
    if (!s.cells)
        return GM_ERR_NOMEM;
    for (size_t i = 0; i < count; i++)
        s.cells[i] = (gm_cell){.t_median = NAN, .t_min = NAN, .t_max = NAN, .spread = NAN};

    gm_series *grown = realloc(table->series, (size_t)(table->n_series + 1) * sizeof *grown);
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

const gm_series *gm_table_find(const gm_table *table, gm_job_class cls, gm_pattern pattern,
                               gm_method method)
{
    if (!table)
        return NULL;
    for (int i = 0; i < table->n_series; i++) {
        const gm_series *s = &table->series[i];
        if (s->cls == cls && s->pattern == pattern && s->method == method)
            return s;
    }
    return NULL;
}

gm_cell *gm_series_cell(const gm_series *series, int n, int e, int c)
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
 * ("tables/x.csv: ").  Shared by the loader and gm_table_validate. */
static gm_status check_meta(const gm_table_meta *m, const char *prefix, gm_error *err)
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
static gm_status check_cell_values(const gm_cell *cell, const char *where, gm_error *err)
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
    if (cell->t_min > cell->t_median || cell->t_median > cell->t_max)
        return gm_fail(err, GM_ERR_RANGE, "%snot t_min <= t_median <= t_max (%g, %g, %g)", where,
                       cell->t_min, cell->t_median, cell->t_max);
    if (cell->reps < 0)
        return gm_fail(err, GM_ERR_RANGE, "%sreps=%d is negative", where, cell->reps);
    if (cell->flags & ~GM_CELL_KNOWN_FLAGS)
        return gm_fail(err, GM_ERR_RANGE, "%sflags=%u has unknown bits", where, cell->flags);
    return GM_OK;
}

static void series_label(const gm_series *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s,%s,%s", gm_class_name(s->cls), gm_pattern_name(s->pattern),
             gm_method_name(s->method));
}

/* Checks every cell of a series: measured cells must be valid; unless
 * allow_missing, every (n, e, c) of the grid must be measured. */
static gm_status check_series_cells(const gm_series *s, int allow_missing, const char *prefix,
                                    gm_error *err)
{
    char label[64];
    series_label(s, label, sizeof label);
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                const gm_cell *cell = gm_series_cell(s, n, e, c);
                char where[160];
                snprintf(where, sizeof where, "%sseries %s: cell n=%d e=%d c=%d: ", prefix, label, n,
                         e, c);
                if (isnan(cell->t_median)) {
                    if (allow_missing)
                        continue;
                    return gm_fail(err, GM_ERR_MISSING, "%smissing", where);
                }
                gm_status st = check_cell_values(cell, where, err);
                if (st != GM_OK)
                    return st;
            }
    return GM_OK;
}

static gm_status check_table(const gm_table *table, int allow_missing, const char *prefix,
                             gm_error *err)
{
    if (!table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no table");
    gm_status st = check_meta(&table->meta, prefix, err);
    if (st != GM_OK)
        return st;
    if (table->n_series <= 0)
        return gm_fail(err, GM_ERR_MISSING, "%sno series declared", prefix);
    for (int i = 0; i < table->n_series; i++) {
        const gm_series *s = &table->series[i];
        char label[64];
        series_label(s, label, sizeof label);
        if (gm_table_find(table, s->cls, s->pattern, s->method) != s)
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

gm_status gm_table_validate(const gm_table *table, gm_error *err)
{
    return check_table(table, 0, "", err);
}

/* ---- loader ----------------------------------------------------------- */

typedef enum meta_kind { META_TEXT, META_INT, META_DOUBLE, META_CC } meta_kind;

typedef struct meta_key {
    const char *key;
    meta_kind kind;
    size_t offset;   /* into gm_table_meta */
    size_t size;     /* text capacity */
    int required;
} meta_key;

#define META_FIELD(f) offsetof(gm_table_meta, f), sizeof(((gm_table_meta *)0)->f)

/* Every gm_table_meta field, in the order the writer writes them.  Required
 * keys are what the model needs (the grid and the GPU identity); the rest
 * describe the calibration run and default to 0 / empty. */
static const meta_key meta_keys[] = {
    {"gpu_name", META_TEXT, META_FIELD(gpu_name), 1},
    {"compute_capability", META_CC, 0, 0, 1},
    {"sm_count", META_INT, META_FIELD(sm_count), 1},
    {"max_warps_per_sm", META_INT, META_FIELD(max_warps_per_sm), 1},
    {"warp_size", META_INT, META_FIELD(warp_size), 1},
    {"sm_clock_mhz", META_DOUBLE, META_FIELD(sm_clock_mhz), 0},
    {"driver_version", META_INT, META_FIELD(driver_version), 0},
    {"runtime_version", META_INT, META_FIELD(runtime_version), 0},
    {"date", META_TEXT, META_FIELD(date), 0},
    {"method_note", META_TEXT, META_FIELD(method_note), 0},
    {"reps", META_INT, META_FIELD(reps), 0},
    {"spread_threshold", META_DOUBLE, META_FIELD(spread_threshold), 0},
    {"gpuq_version", META_TEXT, META_FIELD(gpuq_version), 0},
};
#define META_KEY_COUNT (sizeof meta_keys / sizeof meta_keys[0])

typedef struct series_decl {
    gm_job_class cls;
    gm_pattern pattern;
    gm_method method;
    int mixes_cas;
} series_decl;

typedef struct loader {
    const char *name;
    long line_no;
    gm_table *table;
    int meta_seen[META_KEY_COUNT];
    series_decl decls[GM_CLASS_COUNT * GM_PATTERN_COUNT * GM_METHOD_COUNT];
    int n_decls;
    int header_seen;
    unsigned char *present; /* per series, per cell: 1 once a row gave it */
} loader;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        s[--len] = '\0';
    return s;
}

/* Strict integer: optional sign, digits, nothing else. */
static int parse_long(const char *text, long *out)
{
    if (*text == '\0')
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

/* Strict real: strtod's syntax, nothing after it.  NaN/inf parse here and
 * are rejected by the range checks, which say so by name. */
static int parse_double(const char *text, double *out)
{
    if (*text == '\0')
        return 0;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || (errno == ERANGE && isinf(v)))
        return 0;
    *out = v;
    return 1;
}

static gm_status parse_meta_line(loader *ld, char *body, gm_error *err)
{
    char *colon = strchr(body, ':');
    if (!colon)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: expected '# key: value'", ld->name, ld->line_no);
    *colon = '\0';
    char *key = trim(body), *value = trim(colon + 1);

    if (strcmp(key, "series") == 0) {
        char *fields[5];
        int nf = 0;
        for (char *p = value; p && nf < 5; nf++) {
            fields[nf] = p;
            p = strchr(p, ',');
            if (p)
                *p++ = '\0';
        }
        series_decl d;
        if (nf != 4)
            return gm_fail(err, GM_ERR_PARSE,
                           "%s:%ld: series needs <class>,<pattern>,<method>,mixes_cas=<0|1>",
                           ld->name, ld->line_no);
        for (int i = 0; i < 4; i++)
            fields[i] = trim(fields[i]);
        if (gm_class_parse(fields[0], &d.cls) != GM_OK)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown job class '%s'", ld->name,
                           ld->line_no, fields[0]);
        if (gm_pattern_parse(fields[1], &d.pattern) != GM_OK)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown address pattern '%s'", ld->name,
                           ld->line_no, fields[1]);
        if (gm_method_parse(fields[2], &d.method) != GM_OK)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown method '%s'", ld->name, ld->line_no,
                           fields[2]);
        if (strcmp(fields[3], "mixes_cas=0") == 0)
            d.mixes_cas = 0;
        else if (strcmp(fields[3], "mixes_cas=1") == 0)
            d.mixes_cas = 1;
        else
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: expected mixes_cas=0 or mixes_cas=1, got '%s'",
                           ld->name, ld->line_no, fields[3]);
        for (int i = 0; i < ld->n_decls; i++)
            if (ld->decls[i].cls == d.cls && ld->decls[i].pattern == d.pattern &&
                ld->decls[i].method == d.method)
                return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: series %s,%s,%s declared twice",
                               ld->name, ld->line_no, fields[0], fields[1], fields[2]);
        ld->decls[ld->n_decls++] = d;
        return GM_OK;
    }

    size_t k = 0;
    while (k < META_KEY_COUNT && strcmp(meta_keys[k].key, key) != 0)
        k++;
    if (k == META_KEY_COUNT)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown metadata key '%s'", ld->name, ld->line_no,
                       key);
    if (ld->meta_seen[k])
        return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: metadata key '%s' given twice", ld->name,
                       ld->line_no, key);
    ld->meta_seen[k] = 1;

    gm_table_meta *m = &ld->table->meta;
    char *field = (char *)m + meta_keys[k].offset;
    switch (meta_keys[k].kind) {
    case META_TEXT:
        if (strlen(value) >= meta_keys[k].size)
            return gm_fail(err, GM_ERR_RANGE, "%s:%ld: %s longer than %zu characters", ld->name,
                           ld->line_no, key, meta_keys[k].size - 1);
        memcpy(field, value, strlen(value) + 1);
        return GM_OK;
    case META_INT: {
        long v;
        if (!parse_long(value, &v) || v < INT_MIN || v > INT_MAX)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not an integer", ld->name,
                           ld->line_no, key, value);
        memcpy(field, &(int){(int)v}, sizeof(int));
        return GM_OK;
    }
    case META_DOUBLE: {
        double v;
        if (!parse_double(value, &v))
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not a number", ld->name,
                           ld->line_no, key, value);
        memcpy(field, &v, sizeof v);
        return GM_OK;
    }
    case META_CC: {
        /* "X.Y": one or two digits, a dot, one digit. */
        size_t len = strlen(value);
        const char *dot = strchr(value, '.');
        int ok = dot && (dot - value == 1 || dot - value == 2) && len == (size_t)(dot - value) + 2;
        for (size_t i = 0; ok && i < len; i++)
            if (value + i != dot && (value[i] < '0' || value[i] > '9'))
                ok = 0;
        if (!ok)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: compute_capability='%s' is not X.Y",
                           ld->name, ld->line_no, value);
        m->cc_major = atoi(value);
        m->cc_minor = dot[1] - '0';
        return GM_OK;
    }
    }
    return GM_OK;
}

/* Called at the column header: all metadata is known, so the metadata can
 * be checked and the declared series allocated. */
static gm_status finish_header(loader *ld, gm_error *err)
{
    for (size_t k = 0; k < META_KEY_COUNT; k++)
        if (meta_keys[k].required && !ld->meta_seen[k])
            return gm_fail(err, GM_ERR_MISSING, "%s:%ld: required metadata key '%s' missing before the column header",
                           ld->name, ld->line_no, meta_keys[k].key);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s: ", ld->name);
    gm_status st = check_meta(&ld->table->meta, prefix, err);
    if (st != GM_OK)
        return st;
    if (ld->n_decls == 0)
        return gm_fail(err, GM_ERR_MISSING, "%s:%ld: no '# series:' line before the column header",
                       ld->name, ld->line_no);
    size_t total = 0;
    for (int i = 0; i < ld->n_decls; i++) {
        const series_decl *d = &ld->decls[i];
        st = gm_table_add_series(ld->table, d->cls, d->pattern, d->method, d->mixes_cas, NULL);
        if (st != GM_OK)
            return gm_fail(err, st, "%s: cannot allocate series (%s)", ld->name, gm_strerror(st));
        total += cell_count(&ld->table->series[i]);
    }
    ld->present = calloc(total, 1);
    if (!ld->present)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate the cell map", ld->name);
    ld->header_seen = 1;
    return GM_OK;
}

static gm_status parse_row(loader *ld, char *line, gm_error *err)
{
    char *f[TABLE_COLUMNS + 1];
    int nf = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        if (nf <= TABLE_COLUMNS)
            f[nf] = p;
        nf++;
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    if (nf != TABLE_COLUMNS)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %d columns, expected %d", ld->name, ld->line_no,
                       nf, TABLE_COLUMNS);
    for (int i = 0; i < TABLE_COLUMNS; i++)
        f[i] = trim(f[i]);

    gm_job_class cls;
    gm_pattern pattern;
    gm_method method;
    if (gm_class_parse(f[0], &cls) != GM_OK)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown job class '%s'", ld->name, ld->line_no,
                       f[0]);
    if (gm_pattern_parse(f[1], &pattern) != GM_OK)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown address pattern '%s'", ld->name,
                       ld->line_no, f[1]);
    if (gm_method_parse(f[2], &method) != GM_OK)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown method '%s'", ld->name, ld->line_no,
                       f[2]);
    int si = 0;
    while (si < ld->table->n_series &&
           !(ld->table->series[si].cls == cls && ld->table->series[si].pattern == pattern &&
             ld->table->series[si].method == method))
        si++;
    if (si == ld->table->n_series)
        return gm_fail(err, GM_ERR_MISSING, "%s:%ld: row for series %s,%s,%s, which no '# series:' line declares",
                       ld->name, ld->line_no, f[0], f[1], f[2]);
    const gm_series *s = &ld->table->series[si];

    static const char *const int_names[3] = {"n", "e", "c"};
    long idx[3];
    for (int i = 0; i < 3; i++)
        if (!parse_long(f[3 + i], &idx[i]))
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not an integer", ld->name,
                           ld->line_no, int_names[i], f[3 + i]);
    long n = idx[0], e = idx[1], c = idx[2];
    if (n < 1 || n > s->n_max)
        return gm_fail(err, GM_ERR_RANGE, "%s:%ld: n=%ld outside 1..%d", ld->name, ld->line_no, n,
                       s->n_max);
    if (e < 1 || e > s->e_max)
        return gm_fail(err, GM_ERR_RANGE, "%s:%ld: e=%ld outside 1..%d", ld->name, ld->line_no, e,
                       s->e_max);
    if (!s->mixes_cas && c != 0)
        return gm_fail(err, GM_ERR_RANGE, "%s:%ld: c=%ld but series %s,%s,%s has mixes_cas=0 (c must be 0)",
                       ld->name, ld->line_no, c, f[0], f[1], f[2]);
    if (c < 0 || c > n)
        return gm_fail(err, GM_ERR_RANGE, "%s:%ld: c=%ld outside 0..%ld (c <= n)", ld->name,
                       ld->line_no, c, n);

    static const char *const real_names[4] = {"t_median", "t_min", "t_max", "spread"};
    double v[4];
    for (int i = 0; i < 4; i++)
        if (!parse_double(f[6 + i], &v[i]))
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not a number", ld->name,
                           ld->line_no, real_names[i], f[6 + i]);
    long reps, flags;
    if (!parse_long(f[10], &reps) || reps < INT_MIN || reps > INT_MAX)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: reps='%s' is not an integer", ld->name,
                       ld->line_no, f[10]);
    if (!parse_long(f[11], &flags) || flags < 0 || flags > (long)UINT_MAX)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: flags='%s' is not a non-negative integer",
                       ld->name, ld->line_no, f[11]);

    gm_cell cell = {.t_median = v[0], .t_min = v[1], .t_max = v[2], .spread = v[3],
                    .reps = (int)reps, .flags = (unsigned)flags};
    char where[300];
    snprintf(where, sizeof where, "%s:%ld: ", ld->name, ld->line_no);
    gm_status st = check_cell_values(&cell, where, err);
    if (st != GM_OK)
        return st;

    gm_cell *slot = gm_series_cell(s, (int)n, (int)e, (int)c);
    size_t offset = 0;
    for (int i = 0; i < si; i++)
        offset += cell_count(&ld->table->series[i]);
    offset += (size_t)(slot - s->cells);
    if (ld->present[offset])
        return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: cell %s,%s,%s n=%ld e=%ld c=%ld given twice",
                       ld->name, ld->line_no, f[0], f[1], f[2], n, e, c);
    ld->present[offset] = 1;
    *slot = cell;
    return GM_OK;
}

/* Reads one line into buf (newline and a trailing CR removed).  Returns 1
 * for a line, 0 at end of file, -1 for a line too long, -2 for a NUL byte
 * in the line (a C string would end there). */
static int read_line(FILE *in, char *buf, size_t size)
{
    size_t len = 0;
    int ch, nul = 0;
    while ((ch = getc(in)) != EOF && ch != '\n') {
        if (len + 2 >= size)
            return -1;
        nul |= ch == '\0';
        buf[len++] = (char)ch;
    }
    if (ch == EOF && len == 0)
        return 0;
    buf[len] = '\0';
    if (len > 0 && buf[len - 1] == '\r')
        buf[--len] = '\0';
    return nul ? -2 : 1;
}

static gm_status load_lines(loader *ld, FILE *in, int allow_partial, gm_error *err)
{
    char buf[TABLE_LINE_MAX + 2];
    int got;
    gm_status st;
    while ((got = read_line(in, buf, sizeof buf)) != 0) {
        ld->line_no++;
        if (got == -2)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: NUL byte in the line", ld->name,
                           ld->line_no);
        if (got < 0)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: line longer than %d characters", ld->name,
                           ld->line_no, TABLE_LINE_MAX);
        char *line = buf;
        if (ld->line_no == 1) {
            /* A UTF-8 byte-order mark from a spreadsheet program is not content. */
            if (strncmp(line, "\xEF\xBB\xBF", 3) == 0)
                line += 3;
            size_t magic_len = strlen(table_magic);
            if (strncmp(line, table_magic, magic_len) != 0)
                return gm_fail(err, GM_ERR_PARSE,
                               "%s:1: not a gpuq calibration table (first line must be '%s%d')",
                               ld->name, table_magic, GM_TABLE_FORMAT_VERSION);
            long version;
            if (!parse_long(line + magic_len, &version))
                return gm_fail(err, GM_ERR_PARSE, "%s:1: bad format version '%s'", ld->name,
                               line + magic_len);
            if (version != GM_TABLE_FORMAT_VERSION)
                return gm_fail(err, GM_ERR_MISMATCH,
                               "%s:1: format version %ld is not supported (this gpuq reads v%d)",
                               ld->name, version, GM_TABLE_FORMAT_VERSION);
            continue;
        }
        line = trim(line);
        if (*line == '\0')
            continue;
        if (*line == '#') {
            if (ld->header_seen)
                return gm_fail(err, GM_ERR_PARSE, "%s:%ld: '#' line after the column header",
                               ld->name, ld->line_no);
            st = parse_meta_line(ld, line + 1, err);
        } else if (!ld->header_seen) {
            if (strcmp(line, column_header) != 0)
                return gm_fail(err, GM_ERR_PARSE, "%s:%ld: wrong column header (expected '%s')",
                               ld->name, ld->line_no, column_header);
            st = finish_header(ld, err);
        } else {
            st = parse_row(ld, line, err);
        }
        if (st != GM_OK)
            return st;
    }
    if (ferror(in))
        return gm_fail(err, GM_ERR_IO, "%s: read error after line %ld (%s)", ld->name, ld->line_no,
                       strerror(errno));
    if (ld->line_no == 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: empty file", ld->name);
    if (!ld->header_seen)
        return gm_fail(err, GM_ERR_MISSING, "%s: no column header line", ld->name);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s: ", ld->name);
    return check_table(ld->table, allow_partial, prefix, err);
}

static gm_status load_stream(FILE *in, const char *name, int allow_partial, gm_table **out,
                             gm_error *err)
{
    if (!in || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no input stream or output pointer");
    *out = NULL;
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.name = name ? name : "<stream>";
    ld.table = gm_table_new(NULL);
    if (!ld.table)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate the table", ld.name);
    gm_status st = load_lines(&ld, in, allow_partial, err);
    free(ld.present);
    if (st != GM_OK) {
        gm_table_free(ld.table);
        return st;
    }
    *out = ld.table;
    return GM_OK;
}

gm_status gm_table_load_stream(FILE *in, const char *name_for_errors, gm_table **out,
                               gm_error *err)
{
    return load_stream(in, name_for_errors, 0, out, err);
}

static gm_status load_path(const char *path, int allow_partial, gm_table **out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output pointer");
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return gm_fail(err, GM_ERR_IO, "%s: is a directory, not a table file", path);
    FILE *in = gm_fopen_maybe_gz(path, "r");
    if (!in && errno == ENOTSUP)
        return gm_fail(err, GM_ERR_UNSUPPORTED,
                       "%s: this gpuq was built without zlib (gunzip the table first)", path);
    if (!in)
        return gm_fail(err, GM_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    gm_status st = load_stream(in, path, allow_partial, out, err);
    fclose(in);
    return st;
}

gm_status gm_table_load(const char *path, gm_table **out, gm_error *err)
{
    return load_path(path, 0, out, err);
}

gm_status gm_table_load_partial(const char *path, gm_table **out, gm_error *err)
{
    return load_path(path, 1, out, err);
}

/* ---- writer ----------------------------------------------------------- */

/* The four numbers of a cell, each with the fewest digits that read back as
 * the same double (gm_csv_format_double), for both writers. */
typedef struct cell_text {
    char med[40], lo[40], hi[40], spread[40];
} cell_text;

static cell_text cell_numbers(const gm_cell *cell)
{
    cell_text t;
    gm_csv_format_double(t.med, sizeof t.med, cell->t_median);
    gm_csv_format_double(t.lo, sizeof t.lo, cell->t_min);
    gm_csv_format_double(t.hi, sizeof t.hi, cell->t_max);
    gm_csv_format_double(t.spread, sizeof t.spread, cell->spread);
    return t;
}

gm_status gm_table_write(FILE *out, const gm_table *table, gm_error *err)
{
    if (!out || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no output stream or table");
    /* Never write what the loader would refuse: the cells present must be
     * valid (missing ones are skipped, for checkpoints). */
    gm_status st = check_table(table, 1, "", err);
    if (st != GM_OK)
        return st;

    const gm_table_meta *m = &table->meta;
    fprintf(out, "%s%d\n", table_magic, GM_TABLE_FORMAT_VERSION);
    for (size_t k = 0; k < META_KEY_COUNT; k++) {
        const char *field = (const char *)m + meta_keys[k].offset;
        char num[40];
        fprintf(out, "# %s: ", meta_keys[k].key);
        switch (meta_keys[k].kind) {
        case META_TEXT:
            fputs(field, out);
            break;
        case META_INT: {
            int v;
            memcpy(&v, field, sizeof v);
            fprintf(out, "%d", v);
            break;
        }
        case META_DOUBLE: {
            double v;
            memcpy(&v, field, sizeof v);
            gm_csv_format_double(num, sizeof num, v);
            fputs(num, out);
            break;
        }
        case META_CC:
            fprintf(out, "%d.%d", m->cc_major, m->cc_minor);
            break;
        }
        fputc('\n', out);
    }
    for (int i = 0; i < table->n_series; i++) {
        const gm_series *s = &table->series[i];
        fprintf(out, "# series: %s,%s,%s,mixes_cas=%d\n", gm_class_name(s->cls),
                gm_pattern_name(s->pattern), gm_method_name(s->method), s->mixes_cas);
    }
    fprintf(out, "%s\n", column_header);
    for (int i = 0; i < table->n_series; i++) {
        const gm_series *s = &table->series[i];
        for (int n = 1; n <= s->n_max; n++)
            for (int e = 1; e <= s->e_max; e++)
                for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                    const gm_cell *cell = gm_series_cell(s, n, e, c);
                    if (isnan(cell->t_median))
                        continue;
                    cell_text t = cell_numbers(cell);
                    fprintf(out, "%s,%s,%s,%d,%d,%d,%s,%s,%s,%s,%d,%u\n", gm_class_name(s->cls),
                            gm_pattern_name(s->pattern), gm_method_name(s->method), n, e, c, t.med,
                            t.lo, t.hi, t.spread, cell->reps, cell->flags);
                }
    }
    if (ferror(out))
        return gm_fail(err, GM_ERR_IO, "write failed (%s)", strerror(errno));
    return GM_OK;
}

gm_status gm_table_write_json(FILE *out, const gm_table *table, gm_error *err)
{
    if (!out || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no output stream or table");
    gm_status st = check_table(table, 1, "", err);
    if (st != GM_OK)
        return st;
    const gm_table_meta *m = &table->meta;
    char clock[40], threshold[40];
    gm_csv_format_double(clock, sizeof clock, m->sm_clock_mhz);
    gm_csv_format_double(threshold, sizeof threshold, m->spread_threshold);
    fprintf(out, "{\n  \"format\": \"gpuq calibration table\",\n  \"version\": %d,\n",
            GM_TABLE_FORMAT_VERSION);
    fprintf(out, "  \"meta\": {\n    \"gpu_name\": ");
    gm_json_write_string(out, m->gpu_name);
    fprintf(out, ",\n    \"compute_capability\": \"%d.%d\",\n", m->cc_major, m->cc_minor);
    fprintf(out, "    \"sm_count\": %d,\n    \"max_warps_per_sm\": %d,\n    \"warp_size\": %d,\n",
            m->sm_count, m->max_warps_per_sm, m->warp_size);
    fprintf(out, "    \"sm_clock_mhz\": %s,\n", clock[0] ? clock : "null");
    fprintf(out, "    \"driver_version\": %d,\n    \"runtime_version\": %d,\n    \"date\": ",
            m->driver_version, m->runtime_version);
    gm_json_write_string(out, m->date);
    fprintf(out, ",\n    \"method_note\": ");
    gm_json_write_string(out, m->method_note);
    fprintf(out, ",\n    \"reps\": %d,\n    \"spread_threshold\": %s,\n    \"gpuq_version\": ",
            m->reps, threshold[0] ? threshold : "null");
    gm_json_write_string(out, m->gpuq_version);
    fprintf(out, "\n  },\n  \"cell_fields\": [\"n\", \"e\", \"c\", \"t_median\", \"t_min\", "
                 "\"t_max\", \"spread\", \"reps\", \"flags\"],\n  \"series\": [");
    for (int i = 0; i < table->n_series; i++) {
        const gm_series *s = &table->series[i];
        fprintf(out, "%s\n    {\"class\": \"%s\", \"pattern\": \"%s\", \"method\": \"%s\", "
                     "\"mixes_cas\": %s,\n     \"cells\": [",
                i ? "," : "", gm_class_name(s->cls), gm_pattern_name(s->pattern),
                gm_method_name(s->method), s->mixes_cas ? "true" : "false");
        int first = 1;
        for (int n = 1; n <= s->n_max; n++)
            for (int e = 1; e <= s->e_max; e++)
                for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                    const gm_cell *cell = gm_series_cell(s, n, e, c);
                    if (isnan(cell->t_median))
                        continue;
                    cell_text t = cell_numbers(cell);
                    fprintf(out, "%s\n      [%d, %d, %d, %s, %s, %s, %s, %d, %u]", first ? "" : ",",
                            n, e, c, t.med, t.lo, t.hi, t.spread, cell->reps, cell->flags);
                    first = 0;
                }
        fprintf(out, "\n     ]}");
    }
    fprintf(out, "\n  ]\n}\n");
    if (ferror(out))
        return gm_fail(err, GM_ERR_IO, "write failed (%s)", strerror(errno));
    return GM_OK;
}

/* Flushes a closed file's data to disk before it is renamed into place. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* fsync of the directory makes the rename itself durable; best effort,
 * since some file systems refuse fsync on a directory. */
static void sync_parent_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    char *slash = strrchr(copy, '/');
    const char *dir = ".";
    if (slash == copy)
        dir = "/";
    else if (slash) {
        *slash = '\0';
        dir = copy;
    }
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

typedef gm_status (*table_writer)(FILE *out, const gm_table *table, gm_error *err);

/* Writes path.tmp.<pid> with writer and renames it over path. */
static gm_status write_file_atomically(const char *path, const gm_table *table,
                                       table_writer writer, gm_error *err)
{
    if (!path || !table)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or table");
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate a path", path);
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());

    gm_status st = GM_OK;
    /* A ".gz" target gets a compressed temp file: the name keeps ".gz" last. */
    if (gm_path_is_gz(path))
        snprintf(tmp, len, "%.*s.tmp.%ld.gz", (int)(strlen(path) - 3), path, (long)getpid());
    FILE *out = gm_fopen_maybe_gz(tmp, "w");
    if (!out) {
        st = gm_fail(err, GM_ERR_IO, "%s: cannot create temporary file %s (%s)", path, tmp,
                     strerror(errno));
        free(tmp);
        return st;
    }
    st = writer(out, table, err);
    if (st == GM_OK && fflush(out) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot write %s (%s)", path, tmp, strerror(errno));
    if (fclose(out) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot close %s (%s)", path, tmp, strerror(errno));
    if (st == GM_OK && sync_file(tmp) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot sync %s (%s)", path, tmp, strerror(errno));
    if (st == GM_OK && rename(tmp, path) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot rename %s over it (%s)", path, tmp,
                     strerror(errno));
    if (st != GM_OK)
        unlink(tmp);
    else
        sync_parent_dir(path);
    free(tmp);
    return st;
}

gm_status gm_table_write_file(const char *path, const gm_table *table, gm_error *err)
{
    return write_file_atomically(path, table, gm_table_write, err);
}

gm_status gm_table_write_json_file(const char *path, const gm_table *table, gm_error *err)
{
    return write_file_atomically(path, table, gm_table_write_json, err);
}
