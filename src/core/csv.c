/* The RFC 4180 CSV reader (csv_internal.h) the counters loader, the ncu
 * importer, the table loader and the tests share: one physical line at a
 * time, fields split with quoted line breaks followed. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_internal.h"

/* ------------------------------------------------------------------------
 * CSV helpers (csv_internal.h) */

void gm_csv_reader_init(gm_csv_reader *r, FILE *in, const char *name)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->name = name ? name : "(stream)";
    r->next_line = 1;
}

void gm_csv_reader_free(gm_csv_reader *r)
{
    free(r->raw);
    free(r->field_buf);
    free(r->fields);
    free(r->blk);
    memset(r, 0, sizeof *r);
}

/* Read-ahead: a block at a time (fread), lines found with memchr.  A byte
 * at a time (getc) took a third of reading a counters file. */
#define CSV_BLOCK (256 * 1024)

static int grow_raw(gm_csv_reader *r, size_t need)
{
    if (need <= r->raw_cap)
        return 1;
    size_t cap = r->raw_cap ? r->raw_cap : 256;
    while (cap < need)
        cap *= 2;
    char *grown = realloc(r->raw, cap);
    if (!grown)
        return 0;
    r->raw = grown;
    r->raw_cap = cap;
    return 1;
}

/* Appends one physical line (without terminator) to r->raw.  The checks
 * are those of a byte at a time, in the same order: a NUL byte, then a
 * record longer than GM_CSV_RECORD_MAX (so that /dev/zero or a file with
 * no newline costs at most that much memory before a clean error). */
static gm_status append_physical_line(gm_csv_reader *r, int *eof, gm_error *err)
{
    size_t start = r->raw_len;
    int at_end = 0;
    *eof = 0;
    if (!r->blk && !(r->blk = malloc(CSV_BLOCK)))
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", r->name);
    for (;;) {
        if (r->blk_pos == r->blk_len) {
            r->blk_pos = 0;
            r->blk_len = fread(r->blk, 1, CSV_BLOCK, r->in);
            if (r->blk_len == 0) {
                at_end = 1;
                break;
            }
        }
        const char *p = r->blk + r->blk_pos;
        size_t avail = r->blk_len - r->blk_pos;
        const char *nl = memchr(p, '\n', avail);
        size_t take = nl ? (size_t)(nl - p) : avail;
        size_t room = r->raw_len < (size_t)GM_CSV_RECORD_MAX
                          ? (size_t)GM_CSV_RECORD_MAX - r->raw_len
                          : 0; /* bytes before the bound */
        const char *nul = memchr(p, '\0', take);
        if (nul && (size_t)(nul - p) <= room) /* C strings would cut the field short */
            return gm_fail(err, GM_ERR_PARSE, "%s:%ld: NUL byte in the line", r->name,
                           r->next_line);
        if (take > room)
            return gm_fail(err, GM_ERR_PARSE,
                           "%s:%ld: line longer than %ld bytes (not a CSV file, or no newline)",
                           r->name, r->next_line, GM_CSV_RECORD_MAX);
        if (!grow_raw(r, r->raw_len + take + 2))
            return gm_fail(err, GM_ERR_NOMEM, "%s:%ld: line too long to hold", r->name,
                           r->next_line);
        memcpy(r->raw + r->raw_len, p, take);
        r->raw_len += take;
        r->blk_pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (at_end && ferror(r->in))
        return gm_fail(err, GM_ERR_IO, "%s:%ld: read failed: %s", r->name, r->next_line,
                       strerror(errno));
    if (at_end && r->raw_len == start)
        *eof = 1;
    if (!r->raw) {
        r->raw = malloc(1);
        if (!r->raw)
            return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", r->name);
        r->raw_cap = 1;
    }
    if (r->raw_len > start && r->raw[r->raw_len - 1] == '\r')
        r->raw_len--;
    r->raw[r->raw_len] = '\0';
    if (!*eof)
        r->next_line++;
    return GM_OK;
}

gm_status gm_csv_next_line(gm_csv_reader *r, int *eof, gm_error *err)
{
    r->raw_len = 0;
    r->n_fields = 0;
    r->line = r->next_line;
    return append_physical_line(r, eof, err);
}

static gm_status push_field(gm_csv_reader *r, size_t offset, gm_error *err)
{
    if (r->n_fields == r->fields_cap) {
        size_t cap = r->fields_cap ? r->fields_cap * 2 : 32;
        char **grown = realloc(r->fields, cap * sizeof *grown);
        if (!grown)
            return gm_fail(err, GM_ERR_NOMEM, "%s:%ld: out of memory", r->name, r->line);
        r->fields = grown;
        r->fields_cap = cap;
    }
    /* Offsets for now: field_buf may still move while continuation lines
     * are read; converted to pointers at the end of gm_csv_split. */
    r->fields[r->n_fields++] = (char *)(uintptr_t)offset;
    return GM_OK;
}

static gm_status grow_field_buf(gm_csv_reader *r, gm_error *err)
{
    /* Unquoting only shrinks text and each comma becomes a NUL, so the
     * unquoted fields fit in raw_len + 1 bytes. */
    if (r->field_buf_cap >= r->raw_len + 2)
        return GM_OK;
    size_t cap = r->raw_len + 64;
    char *grown = realloc(r->field_buf, cap);
    if (!grown)
        return gm_fail(err, GM_ERR_NOMEM, "%s:%ld: out of memory", r->name, r->line);
    r->field_buf = grown;
    r->field_buf_cap = cap;
    return GM_OK;
}

/* Reads the next physical line onto the current record after a '\n', for a
 * quoted field that spans lines. */
static gm_status continue_record(gm_csv_reader *r, gm_error *err)
{
    int eof = 0;
    if (r->raw_len + 2 > r->raw_cap) {
        size_t cap = r->raw_cap * 2 + 2;
        char *grown = realloc(r->raw, cap);
        if (!grown)
            return gm_fail(err, GM_ERR_NOMEM, "%s:%ld: out of memory", r->name, r->line);
        r->raw = grown;
        r->raw_cap = cap;
    }
    r->raw[r->raw_len++] = '\n';
    r->raw[r->raw_len] = '\0';
    gm_status st = append_physical_line(r, &eof, err);
    if (st != GM_OK)
        return st;
    if (eof)
        return gm_fail(err, GM_ERR_PARSE,
                       "%s:%ld: quoted field %zu is not closed before the end of the file "
                       "(truncated?)",
                       r->name, r->line, r->n_fields);
    return GM_OK;
}

gm_status gm_csv_split(gm_csv_reader *r, gm_error *err)
{
    gm_status st;
    size_t out = 0, pos = 0, field_start = 0;
    int in_quotes = 0, was_quoted = 0;
    r->n_fields = 0;
    if ((st = grow_field_buf(r, err)) != GM_OK || (st = push_field(r, 0, err)) != GM_OK)
        return st;
    if (!memchr(r->raw, '"', r->raw_len)) {
        /* No quote: each comma ends a field, and nothing else happens (the
         * loop below, at memchr's speed). */
        memcpy(r->field_buf, r->raw, r->raw_len + 1);
        for (char *p = r->field_buf, *end = r->field_buf + r->raw_len;;) {
            char *comma = memchr(p, ',', (size_t)(end - p));
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
            if ((st = push_field(r, (size_t)(p - r->field_buf), err)) != GM_OK)
                return st;
        }
        for (size_t i = 0; i < r->n_fields; i++)
            r->fields[i] = r->field_buf + (size_t)(uintptr_t)r->fields[i];
        return GM_OK;
    }
    for (;;) {
        while (pos < r->raw_len) {
            char ch = r->raw[pos++];
            if (in_quotes) {
                if (ch != '"') {
                    r->field_buf[out++] = ch;
                } else if (pos < r->raw_len && r->raw[pos] == '"') {
                    r->field_buf[out++] = '"'; /* "" inside quotes is one quote */
                    pos++;
                } else {
                    in_quotes = 0;
                    if (pos < r->raw_len && r->raw[pos] != ',')
                        return gm_fail(err, GM_ERR_PARSE,
                                       "%s:%ld: field %zu: text after a closing quote", r->name,
                                       r->line, r->n_fields);
                }
            } else if (ch == ',') {
                r->field_buf[out++] = '\0';
                field_start = out;
                was_quoted = 0;
                if ((st = push_field(r, out, err)) != GM_OK)
                    return st;
            } else if (ch == '"') {
                if (out != field_start || was_quoted)
                    return gm_fail(err, GM_ERR_PARSE,
                                   "%s:%ld: field %zu: quote inside an unquoted field", r->name,
                                   r->line, r->n_fields);
                in_quotes = 1;
                was_quoted = 1;
            } else {
                r->field_buf[out++] = ch;
            }
        }
        if (!in_quotes)
            break;
        if ((st = continue_record(r, err)) != GM_OK || (st = grow_field_buf(r, err)) != GM_OK)
            return st;
    }
    r->field_buf[out] = '\0';
    for (size_t i = 0; i < r->n_fields; i++)
        r->fields[i] = r->field_buf + (size_t)(uintptr_t)r->fields[i];
    return GM_OK;
}

int gm_read_line(FILE *in, char *buf, size_t size)
{
    size_t len = 0;
    int ch, nul = 0;
    /* A character at a time to see NUL bytes and stop at the bound; unlocked,
     * since a shipped table is ~30 MB of text and locked getc made loading
     * 2.4x slower. */
    flockfile(in);
    while ((ch = getc_unlocked(in)) != EOF && ch != '\n') {
        if (len + 2 >= size) {
            funlockfile(in);
            return -1;
        }
        nul |= ch == '\0';
        buf[len++] = (char)ch;
    }
    funlockfile(in);
    if (ch == EOF && len == 0)
        return 0;
    buf[len] = '\0';
    if (len > 0 && buf[len - 1] == '\r')
        buf[--len] = '\0';
    return nul ? -2 : 1;
}

int gm_csv_parse_double(const char *text, double *out)
{
    char *end = NULL;
    if (!text || !*text || isspace((unsigned char)*text))
        return -1;
    errno = 0;
    double v = strtod(text, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int gm_csv_parse_long(const char *text, long long *out)
{
    char *end = NULL;
    if (!text || !*text || isspace((unsigned char)*text))
        return -1;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

