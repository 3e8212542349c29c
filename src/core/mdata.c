/* Machine data (include/gpuq/mdata.h): the common metadata header every
 * suite's file opens with, the generic file of named columns, and finding
 * a GPU's file among the shipped folders. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "atomic_file.h"
#include "csv_internal.h"
#include "gzstream.h"
#include "gpuq/ranges.h"
#include "gpuq/mdata.h"
#include "gpuq/unit.h"
#include "writer.h"

#define MDATA_LINE_MAX 65536
#define MDATA_COLS_MAX 256
#define MDATA_ROWS_MAX 10000000L

static const char mdata_magic[] = "# gpuq machine data v";

/* ---- the common header ------------------------------------------------ */

static int one_line_text(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 && *s != '\t')
            return 0;
    return 1;
}

static gm_status take_text(char *dst, size_t size, const char *key, const char *value,
                           gm_error *err)
{
    if (strlen(value) >= size)
        return gm_fail(err, GM_ERR_RANGE, "%s: value longer than %zu characters", key, size - 1);
    if (!one_line_text(value))
        return gm_fail(err, GM_ERR_PARSE, "%s: control character in the value", key);
    memcpy(dst, value, strlen(value) + 1);
    return GM_OK;
}

static gm_status take_int(int *dst, const char *key, const char *value, long lo, long hi,
                          gm_error *err)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end != '\0' || errno)
        return gm_fail(err, GM_ERR_PARSE, "%s: '%s' is not a whole number", key, value);
    if (v < lo || v > hi)
        return gm_fail(err, GM_ERR_RANGE, "%s: %ld outside %ld..%ld", key, v, lo, hi);
    *dst = (int)v;
    return GM_OK;
}

static gm_status take_double(double *dst, const char *key, const char *value, gm_error *err)
{
    double v;
    if (gm_number_parse(value, &v) != 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: '%s' is not a number", key, value);
    if (!gm_quantity_ok(GM_Q_CLOCK_MHZ, v))
        return gm_fail(err, GM_ERR_RANGE, "%s: %g outside 0..%g (%s)", key, v,
                       gm_quantity_table[GM_Q_CLOCK_MHZ].max,
                       gm_quantity_table[GM_Q_CLOCK_MHZ].meaning);
    *dst = v;
    return GM_OK;
}

static gm_status take_cc(gm_mdata_meta *m, const char *value, gm_error *err)
{
    int major, minor, used = 0;
    if (sscanf(value, "%3d.%3d%n", &major, &minor, &used) != 2 || value[used] != '\0' ||
        major < 1 || minor < 0)
        return gm_fail(err, GM_ERR_PARSE, "compute_capability: '%s' is not MAJOR.MINOR", value);
    m->cc_major = major;
    m->cc_minor = minor;
    return GM_OK;
}

gm_status gm_mdata_meta_take(gm_mdata_meta *meta, const char *key, const char *value,
                             int *known, gm_error *err)
{
    if (!meta || !key || !value || !known)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no meta, key, value or flag");
    *known = 1;
    if (strcmp(key, "suite") == 0)
        return take_text(meta->suite, sizeof meta->suite, key, value, err);
    if (strcmp(key, "gpu_name") == 0)
        return take_text(meta->gpu_name, sizeof meta->gpu_name, key, value, err);
    if (strcmp(key, "compute_capability") == 0)
        return take_cc(meta, value, err);
    if (strcmp(key, "sm_count") == 0)
        return take_int(&meta->sm_count, key, value, 1, 100000, err);
    if (strcmp(key, "sm_clock_mhz") == 0)
        return take_double(&meta->sm_clock_mhz, key, value, err);
    if (strcmp(key, "mem_clock_mhz") == 0)
        return take_double(&meta->mem_clock_mhz, key, value, err);
    if (strcmp(key, "driver_version") == 0)
        return take_int(&meta->driver_version, key, value, 0, 1000000000L, err);
    if (strcmp(key, "runtime_version") == 0)
        return take_int(&meta->runtime_version, key, value, 0, 1000000000L, err);
    if (strcmp(key, "date") == 0)
        return take_text(meta->date, sizeof meta->date, key, value, err);
    /* The atomic table has called it method_note since v1. */
    if (strcmp(key, "method") == 0 || strcmp(key, "method_note") == 0)
        return take_text(meta->method, sizeof meta->method, key, value, err);
    if (strcmp(key, "gpuq_version") == 0)
        return take_text(meta->gpuq_version, sizeof meta->gpuq_version, key, value, err);
    *known = 0;
    return GM_OK;
}

gm_status gm_mdata_meta_check(const gm_mdata_meta *m, gm_error *err)
{
    if (!m)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no metadata");
    if (m->suite[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "header: no 'suite'");
    if (m->gpu_name[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "header: no 'gpu_name'");
    if (m->cc_major < 1)
        return gm_fail(err, GM_ERR_MISSING, "header: no 'compute_capability'");
    if (m->sm_count < 1)
        return gm_fail(err, GM_ERR_MISSING, "header: no 'sm_count'");
    if (m->date[0] == '\0')
        return gm_fail(err, GM_ERR_MISSING, "header: no 'date'");
    return GM_OK;
}

void gm_mdata_meta_write(FILE *out, const gm_mdata_meta *m)
{
    /* Clocks with the fewest digits that read back as the same double:
     * "%.6g" turned 1979.99935 into 1980. */
    char sm_clock[40], mem_clock[40];
    gm_csv_format_double(sm_clock, sizeof sm_clock, m->sm_clock_mhz);
    gm_csv_format_double(mem_clock, sizeof mem_clock, m->mem_clock_mhz);
    fprintf(out, "# suite: %s\n", m->suite);
    fprintf(out, "# gpu_name: %s\n", m->gpu_name);
    fprintf(out, "# compute_capability: %d.%d\n", m->cc_major, m->cc_minor);
    fprintf(out, "# sm_count: %d\n", m->sm_count);
    fprintf(out, "# sm_clock_mhz: %s\n", sm_clock[0] ? sm_clock : "0");
    fprintf(out, "# mem_clock_mhz: %s\n", mem_clock[0] ? mem_clock : "0");
    fprintf(out, "# driver_version: %d\n", m->driver_version);
    fprintf(out, "# runtime_version: %d\n", m->runtime_version);
    fprintf(out, "# date: %s\n", m->date);
    fprintf(out, "# method: %s\n", m->method);
    fprintf(out, "# gpuq_version: %s\n", m->gpuq_version);
}

/* Splits "key: value" (leading/trailing blanks dropped) in place. */
static int split_key_value(char *body, char **key, char **value)
{
    while (*body == ' ')
        body++;
    char *colon = strchr(body, ':');
    if (!colon)
        return 0;
    *colon = '\0';
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        v[--n] = '\0';
    size_t k = strlen(body);
    while (k > 0 && body[k - 1] == ' ')
        body[--k] = '\0';
    *key = body;
    *value = v;
    return k > 0;
}

/* ---- the generic file in memory --------------------------------------- */

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* A cell or column name the writer can put in a CSV field unquoted. */
static int plain_cell(const char *s)
{
    for (; *s; s++)
        if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20)
            return 0;
    return 1;
}

gm_mdata *gm_mdata_new(const gm_mdata_meta *meta, size_t n_cols, const char *const *cols)
{
    if (n_cols == 0 || n_cols > MDATA_COLS_MAX || !cols)
        return NULL;
    /* What the loader could not read back is refused: a header line that
     * starts with '#' is metadata, a line longer than MDATA_LINE_MAX fails. */
    size_t line_len = 0;
    for (size_t c = 0; c < n_cols; c++)
        line_len += (cols[c] ? strlen(cols[c]) : 0) + 1;
    if ((cols[0] && cols[0][0] == '#') || line_len > MDATA_LINE_MAX + 1) /* n_cols - 1 commas */
        return NULL;
    gm_mdata *md = calloc(1, sizeof *md);
    if (!md)
        return NULL;
    if (meta)
        md->meta = *meta;
    md->cols = calloc(n_cols, sizeof *md->cols);
    if (!md->cols) {
        free(md);
        return NULL;
    }
    md->n_cols = n_cols;
    for (size_t c = 0; c < n_cols; c++) {
        if (!cols[c] || !cols[c][0] || !plain_cell(cols[c]) || !(md->cols[c] = dup_text(cols[c]))) {
            gm_mdata_free(md);
            return NULL;
        }
        for (size_t d = 0; d < c; d++)
            if (strcmp(md->cols[d], md->cols[c]) == 0) {
                gm_mdata_free(md);
                return NULL;
            }
    }
    return md;
}

void gm_mdata_free(gm_mdata *md)
{
    if (!md)
        return;
    for (size_t c = 0; c < md->n_cols; c++)
        free(md->cols ? md->cols[c] : NULL);
    for (size_t i = 0; i < md->n_rows * md->n_cols; i++)
        free(md->text[i]);
    free(md->cols);
    free(md->text);
    free(md->num);
    free(md->line);
    free(md);
}

/* The loaders' one number parser (gpuq/ranges.h): "0x1p3", "inf" and
 * "1e999" are not numbers, -0 is 0; "nan" (what the writer puts for a
 * value not measured) and text cells read as NaN. */
static double cell_number(const char *text)
{
    double v;
    return gm_number_parse(text, &v) == 0 ? v : NAN;
}

static gm_status grow(gm_mdata *md, gm_error *err)
{
    if (md->n_rows < md->cap_rows)
        return GM_OK;
    if ((long)md->n_rows >= MDATA_ROWS_MAX)
        return gm_fail(err, GM_ERR_RANGE, "more than %ld rows", MDATA_ROWS_MAX);
    size_t cap = md->cap_rows ? 2 * md->cap_rows : 64;
    char **text = realloc(md->text, cap * md->n_cols * sizeof *text);
    if (!text)
        return gm_fail(err, GM_ERR_NOMEM, "cannot grow the rows to %zu", cap);
    md->text = text;
    double *num = realloc(md->num, cap * md->n_cols * sizeof *num);
    if (!num)
        return gm_fail(err, GM_ERR_NOMEM, "cannot grow the rows to %zu", cap);
    md->num = num;
    long *line = realloc(md->line, cap * sizeof *line);
    if (!line)
        return gm_fail(err, GM_ERR_NOMEM, "cannot grow the rows to %zu", cap);
    md->line = line;
    md->cap_rows = cap;
    return GM_OK;
}

gm_status gm_mdata_add_row(gm_mdata *md, const char *const *cells, gm_error *err)
{
    if (!md || !cells)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no machine data or cells");
    for (size_t c = 0; c < md->n_cols; c++)
        if (!cells[c] || !plain_cell(cells[c]))
            return gm_fail(err, GM_ERR_INVALID_ARG,
                           "column '%s': a cell may not be missing or hold a comma, quote or "
                           "control character",
                           md->cols[c]);
    /* Rows the loader would take for something else, or refuse. */
    size_t line_len = 0;
    for (size_t c = 0; c < md->n_cols; c++)
        line_len += strlen(cells[c]) + 1;
    if (cells[0][0] == '#')
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "a row may not start with '#' (it would read back as a header line)");
    if (md->n_cols == 1 && cells[0][0] == '\0')
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "column '%s': an empty cell in a one-column file would read back as a "
                       "blank line", md->cols[0]);
    if (line_len > MDATA_LINE_MAX + 1) /* n_cols - 1 commas */
        return gm_fail(err, GM_ERR_RANGE, "row longer than %d characters", MDATA_LINE_MAX);
    gm_status st = grow(md, err);
    if (st != GM_OK)
        return st;
    size_t base = md->n_rows * md->n_cols;
    for (size_t c = 0; c < md->n_cols; c++) {
        md->text[base + c] = dup_text(cells[c]);
        if (!md->text[base + c]) {
            for (size_t d = 0; d < c; d++)
                free(md->text[base + d]);
            return gm_fail(err, GM_ERR_NOMEM, "cannot copy a cell");
        }
        md->num[base + c] = cell_number(cells[c]);
    }
    md->line[md->n_rows] = 0;
    md->n_rows++;
    return GM_OK;
}

gm_status gm_mdata_add_values(gm_mdata *md, const char *const *texts, const double *values,
                              gm_error *err)
{
    if (!md || (!texts && !values))
        return gm_fail(err, GM_ERR_INVALID_ARG, "no machine data or values");
    char(*buf)[40] = calloc(md->n_cols, sizeof *buf);
    const char **cells = calloc(md->n_cols, sizeof *cells);
    gm_status st = GM_OK;
    if (!buf || !cells)
        st = gm_fail(err, GM_ERR_NOMEM, "cannot format a row");
    for (size_t c = 0; st == GM_OK && c < md->n_cols; c++) {
        if (texts && texts[c]) {
            cells[c] = texts[c];
        } else if (!values) {
            st = gm_fail(err, GM_ERR_INVALID_ARG, "column '%s': neither text nor value",
                         md->cols[c]);
        } else {
            /* %.17g reads back as the same double; NaN is written "nan". */
            if (isnan(values[c]))
                snprintf(buf[c], sizeof buf[c], "nan");
            else
                snprintf(buf[c], sizeof buf[c], "%.17g", values[c]);
            cells[c] = buf[c];
        }
    }
    if (st == GM_OK)
        st = gm_mdata_add_row(md, cells, err);
    free(buf);
    free(cells);
    return st;
}

int gm_mdata_col(const gm_mdata *md, const char *name)
{
    if (!md || !name)
        return -1;
    for (size_t c = 0; c < md->n_cols; c++)
        if (strcmp(md->cols[c], name) == 0)
            return (int)c;
    return -1;
}

const char *gm_mdata_text(const gm_mdata *md, size_t row, int col)
{
    if (!md || row >= md->n_rows || col < 0 || (size_t)col >= md->n_cols)
        return NULL;
    return md->text[row * md->n_cols + (size_t)col];
}

double gm_mdata_num(const gm_mdata *md, size_t row, int col)
{
    if (!md || row >= md->n_rows || col < 0 || (size_t)col >= md->n_cols)
        return NAN;
    return md->num[row * md->n_cols + (size_t)col];
}

/* ---- loading ---------------------------------------------------------- */

/* Splits a CSV line of plain cells (no quoting: the writer never needs it)
 * into at most max fields; returns the count, or max + 1 when there are
 * more. */
static size_t split_plain(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return max + 1;
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

typedef struct mdata_loader {
    const char *name;
    long line_no;
    const gm_mdata_format *own; /* a body of its suite's own format (header only is read) */
    gm_mdata_meta meta;
    gm_mdata *md;
} mdata_loader;

/* The format whose files open with line's magic, NULL for none. */
static const gm_mdata_format *format_by_magic(const char *line)
{
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_mdata_format *f = gm_units[u]->format;
        if (f && f->magic && strncmp(line, f->magic, strlen(f->magic)) == 0)
            return f;
    }
    return NULL;
}

static gm_status check_magic(mdata_loader *ld, char *line, gm_error *err)
{
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0)
        line += 3;
    const char *rest;
    if (strncmp(line, mdata_magic, strlen(mdata_magic)) == 0) {
        rest = line + strlen(mdata_magic);
    } else if ((ld->own = format_by_magic(line)) != NULL) {
        /* A suite's own body (a unit declares its format); its header is
         * the common one, and the format names its suite. */
        snprintf(ld->meta.suite, sizeof ld->meta.suite, "%s", ld->own->suite);
        return GM_OK;
    } else {
        return gm_fail(err, GM_ERR_PARSE, "%s:1: not a gpuq machine-data file (first line must "
                       "be '%s%d')", ld->name, mdata_magic, GM_MDATA_FORMAT_VERSION);
    }
    if (strcmp(rest, "1") != 0)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s:1: format version '%.20s' is not supported (this gpuq reads v%d)",
                       ld->name, rest, GM_MDATA_FORMAT_VERSION);
    return GM_OK;
}

static gm_status take_header_line(mdata_loader *ld, char *body, gm_error *err)
{
    char *key, *value;
    if (!split_key_value(body, &key, &value))
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: header line is not 'key: value'", ld->name,
                       ld->line_no);
    int known;
    gm_error sub;
    gm_status st = gm_mdata_meta_take(&ld->meta, key, value, &known, &sub);
    if (st != GM_OK)
        return gm_fail(err, st, "%s:%ld: %s", ld->name, ld->line_no, sub.msg);
    /* Keys this gpuq does not know are a newer writer's: kept out, no error. */
    return GM_OK;
}

static gm_status take_columns(mdata_loader *ld, char *line, gm_error *err)
{
    gm_error sub;
    if (gm_mdata_meta_check(&ld->meta, &sub) != GM_OK)
        return gm_fail(err, GM_ERR_MISSING, "%s:%ld: %s", ld->name, ld->line_no, sub.msg);
    char *fields[MDATA_COLS_MAX + 1];
    size_t n = split_plain(line, fields, MDATA_COLS_MAX);
    if (n > MDATA_COLS_MAX)
        return gm_fail(err, GM_ERR_RANGE, "%s:%ld: more than %d columns", ld->name, ld->line_no,
                       MDATA_COLS_MAX);
    for (size_t c = 0; c < n; c++) {
        if (!fields[c][0])
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: column %zu has no name", ld->name,
                           ld->line_no, c + 1);
        if (!plain_cell(fields[c]))
            return gm_fail(err, GM_ERR_PARSE,
                           "%s:%ld: column %zu's name holds a %s (cells are separated by commas)",
                           ld->name, ld->line_no, c + 1,
                           strchr(fields[c], '\t') ? "tab" : "quote or control character");
        for (size_t d = 0; d < c; d++)
            if (strcmp(fields[c], fields[d]) == 0)
                return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: column '%s' named twice",
                               ld->name, ld->line_no, fields[c]);
    }
    ld->md = gm_mdata_new(&ld->meta, n, (const char *const *)fields);
    if (!ld->md)
        return gm_fail(err, GM_ERR_NOMEM, "%s:%ld: cannot allocate the columns", ld->name,
                       ld->line_no);
    snprintf(ld->md->source, sizeof ld->md->source, "%s", ld->name);
    return GM_OK;
}

static gm_status take_row(mdata_loader *ld, char *line, gm_error *err)
{
    char *fields[MDATA_COLS_MAX + 1];
    size_t n = split_plain(line, fields, ld->md->n_cols);
    if (n != ld->md->n_cols)
        return gm_fail(err, GM_ERR_PARSE, "%s:%ld: %s%zu fields, the header has %zu", ld->name,
                       ld->line_no, n > ld->md->n_cols ? "more than " : "",
                       n > ld->md->n_cols ? ld->md->n_cols : n, ld->md->n_cols);
    gm_error sub;
    gm_status st = gm_mdata_add_row(ld->md, (const char *const *)fields, &sub);
    if (st == GM_ERR_INVALID_ARG) /* a cell the writer refuses is malformed input here */
        st = GM_ERR_PARSE;
    if (st != GM_OK)
        return gm_fail(err, st, "%s:%ld: %s", ld->name, ld->line_no, sub.msg);
    ld->md->line[ld->md->n_rows - 1] = ld->line_no;
    return GM_OK;
}

/* Reads lines until the end (header_only: until the first line that is
 * not a header line). */
static gm_status load_lines(mdata_loader *ld, FILE *in, int header_only, gm_error *err)
{
    /* The whole line bound up front: a line is refused as soon as it
     * outgrows it, before more is read. */
    char *buf = malloc(MDATA_LINE_MAX + 2);
    if (!buf)
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", ld->name);
    gm_status st = GM_OK;
    int got;
    while (st == GM_OK && (got = gm_read_line(in, buf, MDATA_LINE_MAX + 2)) != 0) {
        ld->line_no++;
        if (got == -1) {
            st = gm_fail(err, GM_ERR_PARSE, "%s:%ld: line longer than %d characters", ld->name,
                         ld->line_no, MDATA_LINE_MAX);
            break;
        }
        if (got == -2) {
            st = gm_fail(err, GM_ERR_PARSE, "%s:%ld: NUL byte in the line", ld->name, ld->line_no);
            break;
        }
        if (ld->line_no == 1) {
            st = check_magic(ld, buf, err);
            continue;
        }
        if (buf[0] == '\0')
            continue;
        if (buf[0] == '#') {
            if (ld->md) {
                st = gm_fail(err, GM_ERR_PARSE, "%s:%ld: '#' line after the column header",
                             ld->name, ld->line_no);
                break;
            }
            st = take_header_line(ld, buf + 1, err);
            continue;
        }
        if (header_only)
            break;
        if (ld->own) {
            st = gm_fail(err, GM_ERR_MISMATCH,
                         "%s: a %s, not generic machine data (read it with %s)", ld->name,
                         ld->own->what, ld->own->read_with);
            break;
        }
        st = ld->md ? take_row(ld, buf, err) : take_columns(ld, buf, err);
    }
    free(buf);
    if (st != GM_OK)
        return st;
    if (ferror(in))
        return gm_fail(err, GM_ERR_IO, "%s: read error after line %ld (%s)", ld->name,
                       ld->line_no, strerror(errno));
    if (ld->line_no == 0)
        return gm_fail(err, GM_ERR_PARSE, "%s: empty file", ld->name);
    if (header_only) {
        gm_error sub;
        if (gm_mdata_meta_check(&ld->meta, &sub) != GM_OK)
            return gm_fail(err, GM_ERR_MISSING, "%s: %s", ld->name, sub.msg);
        return GM_OK;
    }
    if (!ld->md)
        return gm_fail(err, GM_ERR_MISSING, "%s: no column header line", ld->name);
    return GM_OK;
}

gm_status gm_mdata_load_stream(FILE *in, const char *name, gm_mdata **out, gm_error *err)
{
    if (!in || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no input stream or output pointer");
    *out = NULL;
    mdata_loader ld;
    memset(&ld, 0, sizeof ld);
    ld.name = name ? name : "<stream>";
    gm_status st = load_lines(&ld, in, 0, err);
    if (st != GM_OK) {
        gm_mdata_free(ld.md);
        return st;
    }
    *out = ld.md;
    return GM_OK;
}

static FILE *open_input(const char *path, gm_error *err, gm_status *st)
{
    FILE *in = NULL;
    *st = gm_open_input(path, "machine-data file", &in, err);
    return in;
}

gm_status gm_mdata_load(const char *path, gm_mdata **out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output pointer");
    *out = NULL;
    gm_status st = GM_OK;
    FILE *in = open_input(path, err, &st);
    if (!in)
        return st;
    st = gm_mdata_load_stream(in, path, out, err);
    fclose(in);
    return st;
}

gm_status gm_mdata_read_meta(const char *path, gm_mdata_meta *out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output pointer");
    gm_status st = GM_OK;
    FILE *in = open_input(path, err, &st);
    if (!in)
        return st;
    mdata_loader ld;
    memset(&ld, 0, sizeof ld);
    ld.name = path;
    st = load_lines(&ld, in, 1, err);
    fclose(in);
    gm_mdata_free(ld.md);
    if (st == GM_OK)
        *out = ld.meta;
    return st;
}

/* ---- writing ---------------------------------------------------------- */

gm_status gm_mdata_write(FILE *out, const gm_mdata *md, gm_error *err)
{
    if (!out || !md)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no stream or machine data");
    gm_error sub;
    if (gm_mdata_meta_check(&md->meta, &sub) != GM_OK)
        return gm_fail(err, GM_ERR_MISSING, "machine data to write: %s", sub.msg);
    fprintf(out, "%s%d\n", mdata_magic, GM_MDATA_FORMAT_VERSION);
    gm_mdata_meta_write(out, &md->meta);
    for (size_t c = 0; c < md->n_cols; c++)
        fprintf(out, "%s%s", c ? "," : "", md->cols[c]);
    fputc('\n', out);
    for (size_t r = 0; r < md->n_rows; r++) {
        for (size_t c = 0; c < md->n_cols; c++)
            fprintf(out, "%s%s", c ? "," : "", md->text[r * md->n_cols + c]);
        fputc('\n', out);
    }
    if (ferror(out))
        return gm_fail(err, GM_ERR_IO, "write error (%s)", strerror(errno));
    return GM_OK;
}

static gm_status write_any(FILE *out, const void *md, gm_error *err)
{
    return gm_mdata_write(out, md, err);
}

gm_status gm_mdata_write_file(const char *path, const gm_mdata *md, gm_error *err)
{
    return gm_write_file_atomically(path, write_any, md, err);
}

/* ---- finding a GPU's file --------------------------------------------- */

void gm_mdata_dir_name(const char *gpu_name, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    size_t n = 0;
    int dash = 0;
    for (const char *p = gpu_name ? gpu_name : ""; *p && n + 1 < len; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch)) {
            if (dash && n > 0 && n + 2 < len)
                buf[n++] = '-';
            dash = 0;
            buf[n++] = (char)tolower(ch);
        } else {
            dash = 1;
        }
    }
    buf[n] = '\0';
    if (n == 0)
        snprintf(buf, len, "unknown-gpu");
}

static char search_exe[4096], search_src[4096];

void gm_mdata_set_search_dirs(const char *exe_relative, const char *source_tree)
{
    snprintf(search_exe, sizeof search_exe, "%s", exe_relative ? exe_relative : "");
    snprintf(search_src, sizeof search_src, "%s", source_tree ? source_tree : "");
}

size_t gm_mdata_search_dirs(const char **dirs, size_t max)
{
    const char *all[] = {getenv("GPUQ_TABLE_DIR"), search_exe, search_src};
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] && all[i][0] && n < max)
            dirs[n++] = all[i];
    return n;
}

/* path is dir/sub/file or its ".gz" twin, whichever exists. */
static int existing_file(char *path, size_t len, const char *dir, const char *sub,
                         const char *file)
{
    struct stat sb;
    const char *const suffixes[] = {"", ".gz"};
    for (int i = 0; i < 2; i++) {
        int n = snprintf(path, len, "%s/%s/%s%s", dir, sub, file, suffixes[i]);
        if (n > 0 && (size_t)n < len && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            return 1;
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Looks through the GPU folders under dir, in name order (the answer must
 * not depend on the file system's order); 1 and path set on a match. */
static int find_in(const char *dir, const char *gpu_name, int sm_count, const char *suite,
                   const char *file, char *path, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            char **grown = realloc(names, c * sizeof *grown);
            if (!grown)
                break;
            names = grown;
            cap = c;
        }
        if ((names[n] = dup_text(e->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, compare_names);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        if (!existing_file(path, len, dir, names[i], file))
            continue;
        gm_mdata_meta meta;
        if (gm_mdata_read_meta(path, &meta, NULL) != GM_OK)
            continue;
        found = strcmp(meta.gpu_name, gpu_name) == 0 &&
                (sm_count == 0 || meta.sm_count == sm_count) && strcmp(meta.suite, suite) == 0;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return found;
}

gm_status gm_mdata_find(const char *gpu_name, int sm_count, const char *suite,
                        const char *file_name, char *path, size_t len, gm_error *err)
{
    if (!gpu_name || !suite || !file_name || !path || len == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no GPU name, suite, file name or path buffer");
    const char *env = getenv("GPUQ_TABLE_DIR");
    const char *dirs[] = {env, search_exe, search_src};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i] && dirs[i][0] && find_in(dirs[i], gpu_name, sm_count, suite, file_name, path, len))
            return GM_OK;
    path[0] = '\0';
    char count[32] = "";
    if (sm_count > 0)
        snprintf(count, sizeof count, ", %d SMs", sm_count);
    return gm_fail(err, GM_ERR_MISSING,
                   "no %s data for %s%s (looked in $GPUQ_TABLE_DIR, %s, %s): run 'gpuq calibrate "
                   "--suite %s' on that GPU and point GPUQ_TABLE_DIR at its output folder",
                   suite, gpu_name, count, search_exe[0] ? search_exe : "<gpuq>/../tables",
                   search_src[0] ? search_src : "the source tables/", suite);
}
