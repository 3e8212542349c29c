/* Per-launch counters: the counters set and the counters file, "gpuq
 * counters v2" with one column per metric named by the metric, and v1 (the
 * 13 shared-atomic metrics under their short names) still read
 * (docs/counters-format.md). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_internal.h"
#include "gzstream.h"
#include "gpuq/counters.h"

/* ------------------------------------------------------------------------
 * Launch counters and the set */

void gm_launch_counters_init(gm_launch_counters *k)
{
    memset(k, 0, sizeof *k);
    k->regs_per_thread = -1;
    k->shared_bytes = -1;
    for (int m = 0; m < GM_METRIC_MAX; m++)
        k->metric[m] = NAN;
    k->split.valid = 0;
    k->split.add = k->split.cas = k->split.popc_inc = k->split.other = NAN;
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

#define COUNTERS_MAGIC "# gpuq counters v"

/* Fixed columns before the metrics, and the split columns after them. */
static const char *const lead_columns[] = {
    "launch_id", "kernel", "mangled", "device", "grid_x", "grid_y", "grid_z",
    "block_x", "block_y", "block_z", "regs", "shared_bytes",
};
enum { N_LEAD = sizeof lead_columns / sizeof lead_columns[0] };
static const char *const split_columns[] = {
    "split_valid", "split_add", "split_cas", "split_popc_inc", "split_other",
};
enum { N_SPLIT = sizeof split_columns / sizeof split_columns[0] };
/* Counters v1: these metric columns, in this order, by short name (the
 * shared-atomic model's Table 1 counters, all v1 files held).  Read only. */
static const char *const v1_columns[] = {
    "N_atom_sass", "N_atom",     "N_cas",      "N_alu",         "O_wavefronts",
    "cycles_sum",  "cycles_avg", "cycles_min", "cycles_max",    "occupancy_pct",
    "duration_ns", "shared_pending", "shared_inst",
};
enum { N_V1 = sizeof v1_columns / sizeof v1_columns[0] };

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
    for (size_t i = 0; i < N_SPLIT; i++)
        fprintf(out, ",%s", split_columns[i]);
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
    fprintf(out, ",%d", k->split.valid ? 1 : 0);
    if (k->split.valid) {
        put_double(out, k->split.add);
        put_double(out, k->split.cas);
        put_double(out, k->split.popc_inc);
        put_double(out, k->split.other);
    } else {
        fputs(",,,,", out);
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

/* ---- loader ---- */

typedef struct counters_loader {
    gm_csv_reader rd;
    gm_counters_set *set;
    int version;         /* 1 or 2 */
    size_t n_columns;    /* of the header row */
    size_t n_metric_cols;                /* columns between the lead and the split */
    int col_row[GM_METRIC_MAX * 2];      /* metric row of each such column; -1 unknown */
    unsigned seen_keys;  /* bit per meta key */
    long *row_lines;     /* line of each launch, for duplicate messages */
    size_t row_lines_cap;
} counters_loader;

enum meta_key { KEY_DEVICE_NAME, KEY_CC, KEY_SM_COUNT, KEY_MAX_WARPS, KEY_SOURCE, KEY_COMMAND,
                KEY_PID, KEY_PASSES, KEY_COUNT };
static const char *const meta_keys[KEY_COUNT] = {
    "device_name", "compute_capability", "sm_count", "max_warps_per_sm", "source", "command",
    "pid", "passes",
};
/* source and command may be absent (hand-made files); the device keys may not. */
#define REQUIRED_KEYS ((1u << KEY_DEVICE_NAME) | (1u << KEY_CC) | (1u << KEY_SM_COUNT) | \
                       (1u << KEY_MAX_WARPS))

static gm_status copy_meta_text(char *dst, size_t size, const char *value, const char *where,
                                const char *key, gm_error *err)
{
    size_t len = strlen(value);
    if (len >= size)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s is longer than %zu characters", where, key,
                       size - 1);
    memcpy(dst, value, len + 1);
    return GM_OK;
}

static gm_status parse_meta_int(const char *value, const char *where, const char *key, int *out,
                                gm_error *err)
{
    long long v;
    if (gm_csv_parse_long(value, &v) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s '%s' is not an integer", where, key, value);
    if (v < 0 || v > 1000000)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s %lld outside 0..1000000 (0 = unknown)", where,
                       key, v);
    *out = (int)v;
    return GM_OK;
}

static gm_status parse_meta_line(counters_loader *ld, const char *where, gm_error *err)
{
    const char *body = ld->rd.raw + 1;
    while (*body == ' ')
        body++;
    const char *colon = strchr(body, ':');
    if (!colon)
        return gm_fail(err, GM_ERR_PARSE, "%s: metadata line is not '# key: value'", where);
    size_t key_len = (size_t)(colon - body);
    const char *value = colon + 1;
    while (*value == ' ')
        value++;
    int key = -1;
    for (int i = 0; i < KEY_COUNT; i++)
        if (strlen(meta_keys[i]) == key_len && strncmp(body, meta_keys[i], key_len) == 0)
            key = i;
    if (key < 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: unknown metadata key '%.*s'", where,
                       (int)key_len, body);
    if (ld->seen_keys & (1u << key))
        return gm_fail(err, GM_ERR_DUPLICATE, "%s: metadata key '%s' given twice", where,
                       meta_keys[key]);
    ld->seen_keys |= 1u << key;
    gm_counters_meta *m = &ld->set->meta;
    switch (key) {
    case KEY_DEVICE_NAME:
        return copy_meta_text(m->device_name, sizeof m->device_name, value, where, "device_name",
                              err);
    case KEY_SOURCE:
        return copy_meta_text(m->source, sizeof m->source, value, where, "source", err);
    case KEY_COMMAND:
        return copy_meta_text(m->command, sizeof m->command, value, where, "command", err);
    case KEY_SM_COUNT:
        return parse_meta_int(value, where, "sm_count", &m->sm_count, err);
    case KEY_MAX_WARPS:
        return parse_meta_int(value, where, "max_warps_per_sm", &m->max_warps_per_sm, err);
    case KEY_PASSES:
        return parse_meta_int(value, where, "passes", &m->passes, err);
    case KEY_PID: {
        long long pid;
        if (gm_csv_parse_long(value, &pid) != 0 || pid < 0 || pid > 0x7fffffffLL)
            return gm_fail(err, GM_ERR_PARSE, "%s: pid '%s' is not a process id", where, value);
        m->pid = (long)pid;
        return GM_OK;
    }
    default: { /* KEY_CC: "major.minor" */
        int major = 0, minor = 0, used = 0;
        if (sscanf(value, "%d.%d%n", &major, &minor, &used) != 2 || value[used] != '\0' ||
            major < 0 || minor < 0 || major > 99 || minor > 99)
            return gm_fail(err, GM_ERR_PARSE, "%s: compute_capability '%s' is not 'major.minor'",
                           where, value);
        m->cc_major = major;
        m->cc_minor = minor;
        return GM_OK;
    }
    }
}

/* v1: the 13 shared-atomic metrics under their short names, in table
 * order.  v2: the lead columns, metric columns by metric name (any order;
 * names this gpuq does not know are skipped), the split columns. */
static gm_status check_header_row(counters_loader *ld, const char *where, gm_error *err)
{
    gm_status st = gm_csv_split(&ld->rd, err);
    if (st != GM_OK)
        return st;
    size_t n = ld->rd.n_fields;
    char **f = ld->rd.fields;
    gm_counters_meta *m = &ld->set->meta;
    m->n_metrics = 0;
    if (ld->version == 1) {
        /* v1: a fixed set of columns (v1_columns), by short name */
        ld->n_metric_cols = N_V1;
        for (size_t i = 0; i < N_V1; i++) {
            int row = gm_metric_find(v1_columns[i]);
            if (row < 0)
                return gm_fail(err, GM_ERR_INVALID_ARG, "%s: v1 column %s is no metric", where,
                               v1_columns[i]);
            ld->col_row[i] = m->metric_rows[m->n_metrics++] = row;
        }
    } else {
        if (n < N_LEAD + N_SPLIT)
            return gm_fail(err, GM_ERR_PARSE, "%s: header has %zu columns, expected at least %d",
                           where, n, N_LEAD + N_SPLIT);
        ld->n_metric_cols = n - N_LEAD - N_SPLIT;
        if (ld->n_metric_cols > sizeof ld->col_row / sizeof ld->col_row[0])
            return gm_fail(err, GM_ERR_RANGE, "%s: %zu metric columns, at most %zu", where,
                           ld->n_metric_cols, sizeof ld->col_row / sizeof ld->col_row[0]);
        for (size_t i = 0; i < ld->n_metric_cols; i++) {
            const char *name = f[N_LEAD + i];
            int row = gm_metric_find(name);
            if (row >= 0 && strcmp(gm_metric_table[row].name, name) != 0)
                row = -1; /* v2 names metrics in full; a short name is not one */
            if (row < 0 && strchr(name, '.') == NULL)
                return gm_fail(err, GM_ERR_PARSE,
                               "%s: header column %zu is '%s', expected a metric name", where,
                               N_LEAD + i + 1, name);
            for (size_t j = 0; row >= 0 && j < m->n_metrics; j++)
                if (m->metric_rows[j] == row)
                    return gm_fail(err, GM_ERR_DUPLICATE, "%s: metric %s given twice", where,
                                   name);
            ld->col_row[i] = row;
            if (row >= 0)
                m->metric_rows[m->n_metrics++] = row;
        }
    }
    for (size_t i = 0; i < N_LEAD && i < n; i++)
        if (strcmp(f[i], lead_columns[i]) != 0)
            return gm_fail(err, GM_ERR_PARSE, "%s: header column %zu is '%s', expected '%s'",
                           where, i + 1, f[i], lead_columns[i]);
    for (size_t i = 0; ld->version == 1 && i < N_V1 && N_LEAD + i < n; i++)
        if (strcmp(f[N_LEAD + i], v1_columns[i]) != 0)
            return gm_fail(err, GM_ERR_PARSE, "%s: header column %zu is '%s', expected '%s'",
                           where, N_LEAD + i + 1, f[N_LEAD + i], v1_columns[i]);
    size_t s0 = N_LEAD + ld->n_metric_cols;
    for (size_t i = 0; i < N_SPLIT && s0 + i < n; i++)
        if (strcmp(f[s0 + i], split_columns[i]) != 0)
            return gm_fail(err, GM_ERR_PARSE, "%s: header column %zu is '%s', expected '%s'",
                           where, s0 + i + 1, f[s0 + i], split_columns[i]);
    ld->n_columns = N_LEAD + ld->n_metric_cols + N_SPLIT;
    if (n != ld->n_columns)
        return gm_fail(err, GM_ERR_PARSE, "%s: header has %zu columns, expected %zu", where, n,
                       ld->n_columns);
    return GM_OK;
}

static gm_status field_int(const char *text, const char *where, const char *col, long long lo,
                           long long hi, long long *out, gm_error *err)
{
    if (gm_csv_parse_long(text, out) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s '%s' is not an integer", where, col, text);
    if (*out < lo || *out > hi)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s %lld outside %lld..%lld", where, col, *out, lo,
                       hi);
    return GM_OK;
}

/* Empty = NaN (not collected); otherwise a plain decimal number inside the
 * quantity's physical range (gpuq/ranges.h: a count is a whole number
 * below 2^63, a percentage at most 100, a duration under a day). */
static gm_status field_count(const char *text, const char *where, const char *col,
                             gm_quantity q, double *out, gm_error *err)
{
    if (*text == '\0') {
        *out = NAN;
        return GM_OK;
    }
    double v;
    int rc = gm_number_parse(text, &v);
    if (rc != 0)
        return gm_fail(err, rc == -2 ? GM_ERR_RANGE : GM_ERR_PARSE,
                       "%s: %s '%.40s' is not a number (%s)", where, col, text,
                       rc == -2 ? "beyond a double's range" : "plain decimal only");
    if (v < 0)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s %s is negative", where, col, text);
    gm_status st = gm_quantity_check(q, v, where, col, err);
    if (st == GM_OK)
        *out = v;
    return st;
}

static gm_status parse_launch_row(counters_loader *ld, const char *where, gm_launch_counters *k,
                                  gm_error *err)
{
    gm_status st;
    char **f = ld->rd.fields;
    if (ld->rd.n_fields != ld->n_columns)
        return gm_fail(err, GM_ERR_PARSE, "%s: %zu columns, expected %zu (truncated row?)", where,
                       ld->rd.n_fields, ld->n_columns);
    if (f[0][0] == '-')
        return gm_fail(err, GM_ERR_RANGE, "%s: launch_id '%s' is negative", where, f[0]);
    char *end = NULL;
    errno = 0;
    unsigned long long id = strtoull(f[0], &end, 10);
    if (!f[0][0] || *end || errno)
        return gm_fail(err, GM_ERR_PARSE, "%s: launch_id '%s' is not an integer", where, f[0]);
    k->launch_id = id;
    if (f[1][0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "%s: empty kernel name", where);
    if ((st = gm_launch_counters_set_names(k, f[1], f[2][0] ? f[2] : f[1])) != GM_OK)
        return gm_fail(err, st, "%s: out of memory", where);
    long long v;
    if ((st = field_int(f[3], where, "device", 0, 1024, &v, err)) != GM_OK)
        return st;
    k->device = (int)v;
    for (int d = 0; d < 3; d++) {
        if ((st = field_int(f[4 + d], where, lead_columns[4 + d], 1, 2147483647LL, &v, err)) !=
            GM_OK)
            return st;
        k->grid[d] = (unsigned)v;
        if ((st = field_int(f[7 + d], where, lead_columns[7 + d], 1, 1024, &v, err)) != GM_OK)
            return st;
        k->block[d] = (unsigned)v;
    }
    if ((st = field_int(f[10], where, "regs", -1, 65536, &v, err)) != GM_OK)
        return st;
    k->regs_per_thread = (int)v;
    if ((st = field_int(f[11], where, "shared_bytes", -1, 1LL << 30, &v, err)) != GM_OK)
        return st;
    k->shared_bytes = (int)v;
    for (size_t c = 0; c < ld->n_metric_cols; c++) {
        int row = ld->col_row[c];
        if (row < 0)
            continue; /* a metric this gpuq does not know */
        const char *label = ld->version == 1 ? v1_columns[c] : gm_metric_table[row].name;
        if ((st = field_count(f[N_LEAD + c], where, label, gm_metric_table[row].quantity,
                              &k->metric[row], err)) != GM_OK)
            return st;
    }
    const size_t s0 = N_LEAD + ld->n_metric_cols;
    if ((st = field_int(f[s0], where, "split_valid", 0, 1, &v, err)) != GM_OK)
        return st;
    k->split.valid = (int)v;
    double *parts[4] = {&k->split.add, &k->split.cas, &k->split.popc_inc, &k->split.other};
    for (int p = 0; p < 4; p++) {
        const char *text = f[s0 + 1 + (size_t)p];
        if (!k->split.valid) {
            if (*text)
                return gm_fail(err, GM_ERR_PARSE, "%s: %s given while split_valid is 0", where,
                               split_columns[1 + p]);
            continue;
        }
        if (!*text)
            return gm_fail(err, GM_ERR_MISSING, "%s: %s empty while split_valid is 1", where,
                           split_columns[1 + p]);
        /* GM_Q_MEAN: a split apportioned from the counters may be fractional */
        if ((st = field_count(text, where, split_columns[1 + p], GM_Q_MEAN, parts[p], err)) !=
            GM_OK)
            return st;
    }
    return GM_OK;
}

typedef struct id_line {
    uint64_t id;
    long line;
} id_line;

static int compare_id_line(const void *a, const void *b)
{
    const id_line *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static gm_status check_duplicate_ids(counters_loader *ld, gm_error *err)
{
    size_t n = ld->set->count;
    if (n < 2)
        return GM_OK;
    id_line *pairs = malloc(n * sizeof *pairs);
    if (!pairs)
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", ld->rd.name);
    for (size_t i = 0; i < n; i++) {
        pairs[i].id = ld->set->launches[i].launch_id;
        pairs[i].line = ld->row_lines[i];
    }
    qsort(pairs, n, sizeof *pairs, compare_id_line);
    gm_status st = GM_OK;
    for (size_t i = 1; i < n; i++) {
        if (pairs[i].id == pairs[i - 1].id) {
            st = gm_fail(err, GM_ERR_DUPLICATE,
                         "%s:%ld: launch_id %" PRIu64 " already used on line %ld", ld->rd.name,
                         pairs[i].line, pairs[i].id, pairs[i - 1].line);
            break;
        }
    }
    free(pairs);
    return st;
}

static gm_status load_rows(counters_loader *ld, gm_error *err)
{
    gm_status st;
    int eof = 0, have_header = 0;
    char where[300];
    gm_launch_counters k;
    gm_launch_counters_init(&k);

    if ((st = gm_csv_next_line(&ld->rd, &eof, err)) != GM_OK)
        return st;
    int version = 0, used = 0;
    if (eof || sscanf(ld->rd.raw, COUNTERS_MAGIC "%d%n", &version, &used) != 1 ||
        ld->rd.raw[used] != '\0')
        return gm_fail(err, GM_ERR_PARSE, "%s:1: not a gpuq counters file (first line must be "
                       "'" COUNTERS_MAGIC "%d')", ld->rd.name, GM_COUNTERS_FORMAT_VERSION);
    if (version != 1 && version != GM_COUNTERS_FORMAT_VERSION)
        return gm_fail(err, GM_ERR_MISMATCH, "%s:1: counters format v%d, this gpuq reads v1 and v%d",
                       ld->rd.name, version, GM_COUNTERS_FORMAT_VERSION);
    ld->version = version;
    for (;;) {
        if ((st = gm_csv_next_line(&ld->rd, &eof, err)) != GM_OK)
            goto fail;
        if (eof)
            break;
        snprintf(where, sizeof where, "%s:%ld", ld->rd.name, ld->rd.line);
        if (ld->rd.raw_len == 0)
            continue; /* blank lines carry nothing */
        if (!have_header) {
            if (ld->rd.raw[0] == '#') {
                if ((st = parse_meta_line(ld, where, err)) != GM_OK)
                    goto fail;
                continue;
            }
            unsigned missing = REQUIRED_KEYS & ~ld->seen_keys;
            for (int key = 0; missing && key < KEY_COUNT; key++)
                if (missing & (1u << key)) {
                    st = gm_fail(err, GM_ERR_MISSING,
                                 "%s: header row reached without metadata key '%s'", where,
                                 meta_keys[key]);
                    goto fail;
                }
            if ((st = check_header_row(ld, where, err)) != GM_OK)
                goto fail;
            have_header = 1;
            continue;
        }
        if (ld->rd.raw[0] == '#') {
            st = gm_fail(err, GM_ERR_PARSE, "%s: metadata line after the header row", where);
            goto fail;
        }
        if ((st = gm_csv_split(&ld->rd, err)) != GM_OK)
            goto fail;
        snprintf(where, sizeof where, "%s:%ld", ld->rd.name, ld->rd.line);
        if ((st = parse_launch_row(ld, where, &k, err)) != GM_OK)
            goto fail;
        if (ld->set->count == ld->row_lines_cap) {
            size_t cap = ld->row_lines_cap ? ld->row_lines_cap * 2 : 16;
            long *grown = realloc(ld->row_lines, cap * sizeof *grown);
            if (!grown) {
                st = gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", where);
                goto fail;
            }
            ld->row_lines = grown;
            ld->row_lines_cap = cap;
        }
        ld->row_lines[ld->set->count] = ld->rd.line;
        if ((st = gm_counters_set_push(ld->set, &k)) != GM_OK) {
            st = gm_fail(err, st, "%s: out of memory", where);
            goto fail;
        }
    }
    if (!have_header) {
        st = gm_fail(err, GM_ERR_MISSING, "%s:%ld: no header row (launch_id,kernel,...)",
                     ld->rd.name, ld->rd.line);
        goto fail;
    }
    st = check_duplicate_ids(ld, err);
fail:
    gm_launch_counters_clear(&k);
    return st;
}

gm_status gm_counters_load(const char *path, gm_counters_set *out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters file: no path or output set");
    gm_counters_set_init(out);
    FILE *in = NULL;
    gm_status ost = gm_open_input(path, "counters file", &in, err);
    if (ost != GM_OK)
        return ost;
    counters_loader ld;
    memset(&ld, 0, sizeof ld);
    gm_csv_reader_init(&ld.rd, in, path);
    ld.set = out;
    gm_status st = load_rows(&ld, err);
    gm_csv_reader_free(&ld.rd);
    free(ld.row_lines);
    fclose(in);
    if (st != GM_OK)
        gm_counters_set_clear(out);
    return st;
}
