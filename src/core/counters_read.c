/* Reading a counters file ("gpuq counters v2", and v1: the 13 shared-atomic
 * metrics under their short names), one launch at a time
 * (counters_internal.h), and gm_counters_load on top of it
 * (docs/counters-format.md). */
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
#include "gpuq/ranges.h"
#include "gpuq/unit.h"

#define lead_columns gm_counters_lead_columns
#define N_LEAD GM_COUNTERS_N_LEAD
#define COUNTERS_MAGIC GM_COUNTERS_MAGIC

/* Counters v1: these metric columns, in this order, by short name (the
 * shared-atomic model's Table 1 counters, all v1 files held).  Read only. */
static const char *const v1_columns[] = {
    "N_atom_sass", "N_atom",     "N_cas",      "N_alu",         "O_wavefronts",
    "cycles_sum",  "cycles_avg", "cycles_min", "cycles_max",    "occupancy_pct",
    "duration_ns", "shared_pending", "shared_inst",
};
enum { N_V1 = sizeof v1_columns / sizeof v1_columns[0] };

struct gm_counters_reader {
    gm_csv_reader rd;
    FILE *in;
    char *path;
    gm_counters_meta meta;
    int version;         /* 1 or 2 */
    size_t n_columns;    /* of the header row */
    size_t n_metric_cols;                /* columns between the lead and the pass's */
    int col_row[GM_METRIC_MAX * 2];      /* metric row of each such column; -1 unknown */
    /* The code pass's result columns after the metrics (gm_units_file_pass). */
    size_t n_pass_cols;
    char pass_col[1 + GM_PASS_VALUES_MAX][128];
    unsigned seen_keys;  /* bit per meta key */
    size_t count;        /* launches read */
    uint64_t last_id;    /* the previous launch's id */
    int unordered;       /* some id did not increase: check them all at the end */
    int done;            /* the end was reached and checked */
};

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

static gm_status parse_meta_line(gm_counters_reader *ld, const char *where, gm_error *err)
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
    gm_counters_meta *m = &ld->meta;
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
 * names this gpuq does not know are skipped), the code pass's columns. */
static gm_status check_header_row(gm_counters_reader *ld, const char *where, gm_error *err)
{
    gm_status st = gm_csv_split(&ld->rd, err);
    if (st != GM_OK)
        return st;
    size_t n = ld->rd.n_fields;
    char **f = ld->rd.fields;
    gm_counters_meta *m = &ld->meta;
    m->n_metrics = 0;
    const gm_code_pass *pass = gm_units_file_pass();
    ld->n_pass_cols = gm_code_pass_columns(pass);
    for (size_t i = 0; i < ld->n_pass_cols; i++)
        gm_code_pass_column(pass, i, ld->pass_col[i], sizeof ld->pass_col[i]);
    const size_t n_pass = ld->n_pass_cols;
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
        if (n < N_LEAD + n_pass)
            return gm_fail(err, GM_ERR_PARSE, "%s: header has %zu columns, expected at least %zu",
                           where, n, N_LEAD + n_pass);
        ld->n_metric_cols = n - N_LEAD - n_pass;
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
    for (size_t i = 0; i < n_pass && s0 + i < n; i++)
        if (strcmp(f[s0 + i], ld->pass_col[i]) != 0)
            return gm_fail(err, GM_ERR_PARSE, "%s: header column %zu is '%s', expected '%s'",
                           where, s0 + i + 1, f[s0 + i], ld->pass_col[i]);
    ld->n_columns = N_LEAD + ld->n_metric_cols + n_pass;
    if (n != ld->n_columns)
        return gm_fail(err, GM_ERR_PARSE, "%s: header has %zu columns, expected %zu", where, n,
                       ld->n_columns);
    return GM_OK;
}

/* ---- rows ---- */

/* "FILE:LINE" of the current record: only made for a message. */
static const char *row_where(const gm_counters_reader *ld, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%ld", ld->rd.name, ld->rd.line);
    return buf;
}

/* Decimal digits only, at most 18 of them: the value without strtoll (the
 * same value; anything else goes the long way). */
static int digits_value(const char *text, long long *out)
{
    long long v = 0;
    size_t n = 0;
    for (; text[n] >= '0' && text[n] <= '9'; n++) {
        if (n == 18) /* a 19th digit could overflow: the long way */
            return -1;
        v = 10 * v + (text[n] - '0');
    }
    if (n == 0 || text[n] != '\0')
        return -1;
    *out = v;
    return 0;
}

static gm_status field_int(const gm_counters_reader *ld, const char *text, const char *col,
                           long long lo, long long hi, long long *out, gm_error *err)
{
    if ((digits_value(text, out) == 0 || gm_csv_parse_long(text, out) == 0) && *out >= lo &&
        *out <= hi)
        return GM_OK;
    char where[300];
    row_where(ld, where, sizeof where);
    if (gm_csv_parse_long(text, out) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: %s '%s' is not an integer", where, col, text);
    return gm_fail(err, GM_ERR_RANGE, "%s: %s %lld outside %lld..%lld", where, col, *out, lo,
                   hi);
}

/* Empty = NaN (not collected); otherwise a plain decimal number inside the
 * quantity's physical range (gpuq/ranges.h: a count is a whole number
 * below 2^63, a percentage at most 100, a duration under a day). */
static gm_status field_count(const gm_counters_reader *ld, const char *text, const char *col,
                             gm_quantity q, double *out, gm_error *err)
{
    if (*text == '\0') {
        *out = NAN;
        return GM_OK;
    }
    double v;
    int rc = gm_number_parse(text, &v);
    if (rc == 0 && v >= 0 && gm_quantity_ok(q, v)) {
        *out = v;
        return GM_OK;
    }
    char where[300];
    row_where(ld, where, sizeof where);
    if (rc != 0)
        return gm_fail(err, rc == -2 ? GM_ERR_RANGE : GM_ERR_PARSE,
                       "%s: %s '%.40s' is not a number (%s)", where, col, text,
                       rc == -2 ? "beyond a double's range" : "plain decimal only");
    if (v < 0)
        return gm_fail(err, GM_ERR_RANGE, "%s: %s %s is negative", where, col, text);
    return gm_quantity_check(q, v, where, col, err);
}

static gm_status parse_launch_row(gm_counters_reader *ld, gm_launch_counters *k,
                                  const char **kernel, const char **mangled, gm_error *err)
{
    gm_status st;
    char **f = ld->rd.fields;
    char where[300];
    if (ld->rd.n_fields != ld->n_columns)
        return gm_fail(err, GM_ERR_PARSE, "%s: %zu columns, expected %zu (truncated row?)",
                       row_where(ld, where, sizeof where), ld->rd.n_fields, ld->n_columns);
    if (f[0][0] == '-')
        return gm_fail(err, GM_ERR_RANGE, "%s: launch_id '%s' is negative",
                       row_where(ld, where, sizeof where), f[0]);
    long long small;
    if (digits_value(f[0], &small) == 0) {
        k->launch_id = (uint64_t)small;
    } else {
        char *end = NULL;
        errno = 0;
        unsigned long long id = strtoull(f[0], &end, 10);
        if (!f[0][0] || *end || errno)
            return gm_fail(err, GM_ERR_PARSE, "%s: launch_id '%s' is not an integer",
                           row_where(ld, where, sizeof where), f[0]);
        k->launch_id = id;
    }
    if (f[1][0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "%s: empty kernel name",
                       row_where(ld, where, sizeof where));
    *kernel = f[1];
    *mangled = f[2][0] ? f[2] : f[1];
    long long v;
    if ((st = field_int(ld, f[3], "device", 0, 1024, &v, err)) != GM_OK)
        return st;
    k->device = (int)v;
    for (int d = 0; d < 3; d++) {
        if ((st = field_int(ld, f[4 + d], lead_columns[4 + d], 1, 2147483647LL, &v, err)) !=
            GM_OK)
            return st;
        k->grid[d] = (unsigned)v;
        if ((st = field_int(ld, f[7 + d], lead_columns[7 + d], 1, 1024, &v, err)) != GM_OK)
            return st;
        k->block[d] = (unsigned)v;
    }
    if ((st = field_int(ld, f[10], "regs", -1, 65536, &v, err)) != GM_OK)
        return st;
    k->regs_per_thread = (int)v;
    if ((st = field_int(ld, f[11], "shared_bytes", -1, 1LL << 30, &v, err)) != GM_OK)
        return st;
    k->shared_bytes = (int)v;
    for (size_t c = 0; c < ld->n_metric_cols; c++) {
        int row = ld->col_row[c];
        if (row < 0)
            continue; /* a metric this gpuq does not know */
        const char *label = ld->version == 1 ? v1_columns[c] : gm_metric_table[row].name;
        if ((st = field_count(ld, f[N_LEAD + c], label, gm_metric_table[row].quantity,
                              &k->metric[row], err)) != GM_OK)
            return st;
    }
    if (ld->n_pass_cols == 0)
        return GM_OK;
    /* The code pass's result: "<key>_valid", then its values, which must be
     * empty when it is 0 and present when it is 1. */
    const size_t s0 = N_LEAD + ld->n_metric_cols;
    const char *valid = ld->pass_col[0];
    if ((st = field_int(ld, f[s0], valid, 0, 1, &v, err)) != GM_OK)
        return st;
    k->pass.valid = (int)v;
    for (size_t p = 1; p < ld->n_pass_cols; p++) {
        const char *text = f[s0 + p];
        double *value = &k->pass.value[p - 1];
        if (!k->pass.valid) {
            if (*text)
                return gm_fail(err, GM_ERR_PARSE, "%s: %s given while %s is 0",
                               row_where(ld, where, sizeof where), ld->pass_col[p], valid);
            *value = NAN;
            continue;
        }
        if (!*text)
            return gm_fail(err, GM_ERR_MISSING, "%s: %s empty while %s is 1",
                           row_where(ld, where, sizeof where), ld->pass_col[p], valid);
        /* GM_Q_MEAN: a count apportioned from the counters may be fractional */
        if ((st = field_count(ld, text, ld->pass_col[p], GM_Q_MEAN, value, err)) != GM_OK)
            return st;
    }
    return GM_OK;
}

/* ---- the reader ---- */

/* The first line, the '#' metadata and the column row. */
static gm_status read_header(gm_counters_reader *ld, gm_error *err)
{
    gm_status st;
    int eof = 0;
    char where[300];
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
            return st;
        if (eof)
            return gm_fail(err, GM_ERR_MISSING, "%s:%ld: no header row (launch_id,kernel,...)",
                           ld->rd.name, ld->rd.line);
        snprintf(where, sizeof where, "%s:%ld", ld->rd.name, ld->rd.line);
        if (ld->rd.raw_len == 0)
            continue; /* blank lines carry nothing */
        if (ld->rd.raw[0] == '#') {
            if ((st = parse_meta_line(ld, where, err)) != GM_OK)
                return st;
            continue;
        }
        unsigned missing = REQUIRED_KEYS & ~ld->seen_keys;
        for (int key = 0; missing && key < KEY_COUNT; key++)
            if (missing & (1u << key))
                return gm_fail(err, GM_ERR_MISSING,
                               "%s: header row reached without metadata key '%s'", where,
                               meta_keys[key]);
        return check_header_row(ld, where, err);
    }
}

gm_status gm_counters_reader_open(const char *path, gm_counters_reader **out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters file: no path or reader");
    *out = NULL;
    gm_counters_reader *ld = calloc(1, sizeof *ld);
    char *copy = ld ? strdup(path) : NULL;
    if (!ld || !copy) {
        free(ld);
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", path);
    }
    ld->path = copy;
    gm_status st = gm_open_input(path, "counters file", &ld->in, err);
    if (st != GM_OK) {
        free(ld->path);
        free(ld);
        return st;
    }
    gm_csv_reader_init(&ld->rd, ld->in, ld->path);
    if ((st = read_header(ld, err)) != GM_OK) {
        gm_counters_reader_close(ld);
        return st;
    }
    *out = ld;
    return GM_OK;
}

const gm_counters_meta *gm_counters_reader_meta(const gm_counters_reader *r)
{
    return &r->meta;
}

size_t gm_counters_reader_count(const gm_counters_reader *r)
{
    return r->count;
}

gm_status gm_counters_reader_next(gm_counters_reader *ld, gm_launch_counters *k,
                                  const char **kernel, const char **mangled, int *eof,
                                  gm_error *err)
{
    gm_status st;
    *eof = 0;
    if (ld->done) {
        *eof = 1;
        return GM_OK;
    }
    for (;;) {
        if ((st = gm_csv_next_line(&ld->rd, eof, err)) != GM_OK)
            return st;
        if (*eof) {
            /* the ids are checked before the end is given */
            if (ld->unordered && (st = gm_counters_check_ids(ld->path, err)) != GM_OK) {
                *eof = 0;
                return st;
            }
            ld->done = 1;
            return GM_OK;
        }
        if (ld->rd.raw_len == 0)
            continue; /* blank lines carry nothing */
        if (ld->rd.raw[0] == '#') {
            char where[300];
            return gm_fail(err, GM_ERR_PARSE, "%s: metadata line after the header row",
                           row_where(ld, where, sizeof where));
        }
        if ((st = gm_csv_split(&ld->rd, err)) != GM_OK ||
            (st = parse_launch_row(ld, k, kernel, mangled, err)) != GM_OK)
            return st;
        /* Ids that only increase cannot repeat: nothing kept.  The first that
         * does not sends the file to the full check at the end. */
        if (ld->count > 0 && k->launch_id <= ld->last_id)
            ld->unordered = 1;
        ld->last_id = k->launch_id;
        ld->count++;
        return GM_OK;
    }
}

void gm_counters_reader_close(gm_counters_reader *r)
{
    if (!r)
        return;
    gm_csv_reader_free(&r->rd);
    if (r->in)
        fclose(r->in);
    free(r->path);
    free(r);
}

/* ---- the whole file in memory ---- */

gm_status gm_counters_load(const char *path, gm_counters_set *out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "counters file: no path or output set");
    gm_counters_set_init(out);
    gm_counters_reader *rd;
    gm_status st = gm_counters_reader_open(path, &rd, err);
    if (st != GM_OK)
        return st;
    out->meta = rd->meta;
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    for (;;) {
        const char *kernel, *mangled;
        int eof = 0;
        if ((st = gm_counters_reader_next(rd, &k, &kernel, &mangled, &eof, err)) != GM_OK ||
            eof)
            break;
        if ((st = gm_launch_counters_set_names(&k, kernel, mangled)) != GM_OK ||
            (st = gm_counters_set_push(out, &k)) != GM_OK) {
            char where[300];
            st = gm_fail(err, st, "%s: out of memory", row_where(rd, where, sizeof where));
            break;
        }
    }
    gm_launch_counters_clear(&k);
    gm_counters_reader_close(rd);
    if (st != GM_OK)
        gm_counters_set_clear(out);
    return st;
}
