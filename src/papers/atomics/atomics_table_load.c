/* The calibration table's CSV loader (format: src/papers/atomics/atomics_table.h,
 * docs/table-format.md): v1 and v2 headers, every line validated, the first
 * problem reported with its line number. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/csv_internal.h"
#include "core/gzstream.h"
#include "atomics_table_internal.h"

/* Longest accepted line, newline excluded.  Real lines are under 300
 * characters; the limit only stops a binary file from being read as one line. */
#define TABLE_LINE_MAX 4095


typedef struct series_decl {
    gm_atomics_job_class cls;
    gm_atomics_pattern pattern;
    gm_atomics_method method;
    int mixes_cas;
} series_decl;

typedef struct loader {
    const char *name;
    long line_no;
    gm_atomics_table *table;
    unsigned version;       /* GM_ATOMICS_TABLE_V1 or GM_ATOMICS_TABLE_V2, from the first line */
    int meta_seen[GM_ATOMICS_TABLE_META_KEYS_MAX];
    series_decl decls[GM_ATOMICS_CLASS_COUNT * GM_ATOMICS_PATTERN_COUNT * GM_ATOMICS_METHOD_COUNT];
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
    /* no hexadecimal floats ("0x1p3"): decimal only, as every loader */
    if (*text == '\0' || strpbrk(text, "xX"))
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
        if (gm_atomics_class_parse(fields[0], &d.cls) != GM_OK)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown job class '%s'", ld->name,
                           ld->line_no, fields[0]);
        if (gm_atomics_pattern_parse(fields[1], &d.pattern) != GM_OK)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown address pattern '%s'", ld->name,
                           ld->line_no, fields[1]);
        if (gm_atomics_method_parse(fields[2], &d.method) != GM_OK)
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
    while (k < gm_atomics_table_meta_key_count && (strcmp(gm_atomics_table_meta_keys[k].key, key) != 0 ||
                                                   !(gm_atomics_table_meta_keys[k].versions & ld->version)))
        k++;
    if (k == gm_atomics_table_meta_key_count)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown metadata key '%s'", ld->name, ld->line_no,
                       key);
    if (ld->meta_seen[k])
        return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: metadata key '%s' given twice", ld->name,
                       ld->line_no, key);
    ld->meta_seen[k] = 1;

    gm_atomics_table_meta *m = &ld->table->meta;
    char *field = (char *)m + gm_atomics_table_meta_keys[k].offset;
    switch (gm_atomics_table_meta_keys[k].kind) {
    case GM_ATOMICS_META_SUITE:
        if (strcmp(value, "atomics") != 0)
            return gm_fail(err, GM_ERR_MISMATCH,
                           "%s:%ld: suite '%s': machine data of another suite, not the atomic "
                           "table", ld->name, ld->line_no, value);
        return GM_OK;
    case GM_ATOMICS_META_TEXT:
        if (strlen(value) >= gm_atomics_table_meta_keys[k].size)
            return gm_fail(err, GM_ERR_RANGE, "%s:%ld: %s longer than %zu characters", ld->name,
                           ld->line_no, key, gm_atomics_table_meta_keys[k].size - 1);
        memcpy(field, value, strlen(value) + 1);
        return GM_OK;
    case GM_ATOMICS_META_INT: {
        long v;
        if (!parse_long(value, &v) || v < INT_MIN || v > INT_MAX)
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not an integer", ld->name,
                           ld->line_no, key, value);
        memcpy(field, &(int){(int)v}, sizeof(int));
        return GM_OK;
    }
    case GM_ATOMICS_META_DOUBLE: {
        double v;
        if (!parse_double(value, &v))
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s='%s' is not a number", ld->name,
                           ld->line_no, key, value);
        memcpy(field, &v, sizeof v);
        return GM_OK;
    }
    case GM_ATOMICS_META_CC: {
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
    for (size_t k = 0; k < gm_atomics_table_meta_key_count; k++)
        if (gm_atomics_table_meta_keys[k].required && (gm_atomics_table_meta_keys[k].versions & ld->version) &&
            !ld->meta_seen[k])
            return gm_fail(err, GM_ERR_MISSING, "%s:%ld: required metadata key '%s' missing before the column header",
                           ld->name, ld->line_no, gm_atomics_table_meta_keys[k].key);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s: ", ld->name);
    gm_status st = gm_atomics_table_check_meta(&ld->table->meta, prefix, err);
    if (st != GM_OK)
        return st;
    if (ld->n_decls == 0)
        return gm_fail(err, GM_ERR_MISSING, "%s:%ld: no '# series:' line before the column header",
                       ld->name, ld->line_no);
    size_t total = 0;
    for (int i = 0; i < ld->n_decls; i++) {
        const series_decl *d = &ld->decls[i];
        st = gm_atomics_table_add_series(ld->table, d->cls, d->pattern, d->method, d->mixes_cas,
                                         NULL);
        if (st != GM_OK)
            return gm_fail(err, st, "%s: cannot allocate series (%s)", ld->name, gm_strerror(st));
        total += gm_atomics_table_cell_count(&ld->table->series[i]);
    }
    ld->present = calloc(total, 1);
    if (!ld->present)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate the cell map", ld->name);
    ld->header_seen = 1;
    return GM_OK;
}

static gm_status parse_row(loader *ld, char *line, gm_error *err)
{
    char *f[GM_ATOMICS_TABLE_COLUMNS + 1];
    int nf = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        if (nf <= GM_ATOMICS_TABLE_COLUMNS)
            f[nf] = p;
        nf++;
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    if (nf != GM_ATOMICS_TABLE_COLUMNS)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %d columns, expected %d", ld->name, ld->line_no,
                       nf, GM_ATOMICS_TABLE_COLUMNS);
    for (int i = 0; i < GM_ATOMICS_TABLE_COLUMNS; i++)
        f[i] = trim(f[i]);

    gm_atomics_job_class cls;
    gm_atomics_pattern pattern;
    gm_atomics_method method;
    if (gm_atomics_class_parse(f[0], &cls) != GM_OK)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown job class '%s'", ld->name, ld->line_no,
                       f[0]);
    if (gm_atomics_pattern_parse(f[1], &pattern) != GM_OK)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: unknown address pattern '%s'", ld->name,
                       ld->line_no, f[1]);
    if (gm_atomics_method_parse(f[2], &method) != GM_OK)
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
    const gm_atomics_series *s = &ld->table->series[si];

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

    gm_atomics_cell cell = {.t_median = v[0], .t_min = v[1], .t_max = v[2], .spread = v[3],
                            .reps = (int)reps, .flags = (unsigned)flags};
    char where[300];
    snprintf(where, sizeof where, "%s:%ld: ", ld->name, ld->line_no);
    gm_status st = gm_atomics_table_check_cell(&cell, where, err);
    if (st != GM_OK)
        return st;

    gm_atomics_cell *slot = gm_atomics_series_cell(s, (int)n, (int)e, (int)c);
    size_t offset = 0;
    for (int i = 0; i < si; i++)
        offset += gm_atomics_table_cell_count(&ld->table->series[i]);
    offset += (size_t)(slot - s->cells);
    if (ld->present[offset])
        return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: cell %s,%s,%s n=%ld e=%ld c=%ld given twice",
                       ld->name, ld->line_no, f[0], f[1], f[2], n, e, c);
    ld->present[offset] = 1;
    *slot = cell;
    return GM_OK;
}

static gm_status load_lines(loader *ld, FILE *in, int allow_partial, gm_error *err)
{
    char buf[TABLE_LINE_MAX + 2];
    int got;
    gm_status st;
    while ((got = gm_read_line(in, buf, sizeof buf)) != 0) {
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
            size_t magic_len = strlen(gm_atomics_table_magic);
            if (strncmp(line, gm_atomics_table_magic, magic_len) != 0)
                return gm_fail(err, GM_ERR_PARSE,
                               "%s:1: not a gpuq calibration table (first line must be '%s%d')",
                               ld->name, gm_atomics_table_magic, GM_ATOMICS_TABLE_FORMAT_VERSION);
            long version;
            if (!parse_long(line + magic_len, &version))
                return gm_fail(err, GM_ERR_PARSE, "%s:1: bad format version '%s'", ld->name,
                               line + magic_len);
            if (version != 1 && version != 2)
                return gm_fail(err, GM_ERR_MISMATCH,
                               "%s:1: format version %ld is not supported (this gpuq reads v1 "
                               "and v2)",
                               ld->name, version);
            ld->version = version == 1 ? GM_ATOMICS_TABLE_V1 : GM_ATOMICS_TABLE_V2;
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
            if (strcmp(line, gm_atomics_table_column_header) != 0)
                return gm_fail(err, GM_ERR_PARSE, "%s:%ld: wrong column header (expected '%s')",
                               ld->name, ld->line_no, gm_atomics_table_column_header);
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
    return gm_atomics_table_check(ld->table, allow_partial, prefix, err);
}

static gm_status load_stream(FILE *in, const char *name, int allow_partial, gm_atomics_table **out,
                             gm_error *err)
{
    if (!in || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no input stream or output pointer");
    *out = NULL;
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.name = name ? name : "<stream>";
    ld.table = gm_atomics_table_new(NULL);
    if (!ld.table)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate the table", ld.name);
    gm_status st = load_lines(&ld, in, allow_partial, err);
    free(ld.present);
    if (st != GM_OK) {
        gm_atomics_table_free(ld.table);
        return st;
    }
    *out = ld.table;
    return GM_OK;
}

gm_status gm_atomics_table_load_stream(FILE *in, const char *name_for_errors,
                                       gm_atomics_table **out, gm_error *err)
{
    return load_stream(in, name_for_errors, 0, out, err);
}

static gm_status load_path(const char *path, int allow_partial, gm_atomics_table **out,
                           gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output pointer");
    *out = NULL;
    FILE *in = NULL;
    gm_status st = gm_open_input(path, "table file", &in, err);
    if (st != GM_OK)
        return st;
    st = load_stream(in, path, allow_partial, out, err);
    fclose(in);
    return st;
}

gm_status gm_atomics_table_load(const char *path, gm_atomics_table **out, gm_error *err)
{
    return load_path(path, 0, out, err);
}

gm_status gm_atomics_table_load_partial(const char *path, gm_atomics_table **out, gm_error *err)
{
    return load_path(path, 1, out, err);
}

