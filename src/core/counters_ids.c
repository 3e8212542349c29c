/* The launch ids of a counters file whose ids do not only increase
 * (counters_internal.h): no id may repeat, and the message names the
 * smallest one that does with its second line and its first, as a sort of
 * every (id, line) pair finds it.  The pairs are sorted in runs of at most
 * 2^20 (16 MiB each) and, past one run, merged from temporary files, so
 * that memory stays bounded for a file of any size. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters_internal.h"
#include "csv_internal.h"
#include "gzstream.h"

#define RUN_MAX_DEFAULT ((size_t)1 << 20)
static size_t run_max = RUN_MAX_DEFAULT;

void gm_counters_check_ids_run(size_t max)
{
    run_max = max ? max : RUN_MAX_DEFAULT;
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

typedef struct id_runs {
    id_line *buf;
    size_t n;
    FILE **runs; /* sorted runs written out, each read back in order */
    size_t *left;
    size_t n_runs, cap_runs;
} id_runs;

/* An unlinked temporary file for one run. */
static FILE *temp_stream(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/gpuq-ids.XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+");
    if (!f)
        close(fd);
    return f;
}

static gm_status spill(id_runs *r, const char *name, gm_error *err)
{
    qsort(r->buf, r->n, sizeof *r->buf, compare_id_line);
    if (r->n_runs == r->cap_runs) {
        size_t cap = r->cap_runs ? 2 * r->cap_runs : 8;
        FILE **runs = realloc(r->runs, cap * sizeof *runs);
        size_t *left = runs ? realloc(r->left, cap * sizeof *left) : NULL;
        if (runs)
            r->runs = runs;
        if (!runs || !left)
            return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", name);
        r->left = left;
        r->cap_runs = cap;
    }
    FILE *f = temp_stream();
    if (!f)
        return gm_fail(err, GM_ERR_IO, "%s: cannot make a temporary file for the launch ids (%s)",
                       name, strerror(errno));
    if (fwrite(r->buf, sizeof *r->buf, r->n, f) != r->n || fflush(f) != 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        int e = errno;
        fclose(f);
        return gm_fail(err, GM_ERR_IO, "%s: cannot write a temporary file (%s)", name,
                       strerror(e));
    }
    r->runs[r->n_runs] = f;
    r->left[r->n_runs++] = r->n;
    r->n = 0;
    return GM_OK;
}

static gm_status duplicate(const char *name, const id_line *second, const id_line *first,
                           gm_error *err)
{
    return gm_fail(err, GM_ERR_DUPLICATE, "%s:%ld: launch_id %" PRIu64 " already used on line %ld",
                   name, second->line, second->id, first->line);
}

/* The runs merged in (id, line) order: the first pair equal in id to the
 * one before it is the answer. */
static gm_status merge(id_runs *r, const char *name, gm_error *err)
{
    id_line *head = calloc(r->n_runs, sizeof *head);
    if (!head)
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", name);
    gm_status st = GM_OK;
    for (size_t i = 0; i < r->n_runs && st == GM_OK; i++)
        if (fread(&head[i], sizeof head[i], 1, r->runs[i]) != 1)
            st = gm_fail(err, GM_ERR_IO, "%s: cannot read a temporary file back", name);
    id_line prev = {0, 0};
    int have_prev = 0;
    while (st == GM_OK) {
        size_t best = r->n_runs;
        for (size_t i = 0; i < r->n_runs; i++)
            if (r->left[i] && (best == r->n_runs || compare_id_line(&head[i], &head[best]) < 0))
                best = i;
        if (best == r->n_runs)
            break;
        id_line cur = head[best];
        if (have_prev && cur.id == prev.id) {
            st = duplicate(name, &cur, &prev, err);
            break;
        }
        prev = cur;
        have_prev = 1;
        if (--r->left[best] && fread(&head[best], sizeof head[best], 1, r->runs[best]) != 1)
            st = gm_fail(err, GM_ERR_IO, "%s: cannot read a temporary file back", name);
    }
    free(head);
    return st;
}

/* The ids of the rows after the column row, with their lines. */
static gm_status read_ids(gm_csv_reader *rd, id_runs *r, gm_error *err)
{
    gm_status st;
    int eof = 0, have_columns = 0;
    if ((st = gm_csv_next_line(rd, &eof, err)) != GM_OK || eof) /* the version line */
        return st;
    for (;;) {
        if ((st = gm_csv_next_line(rd, &eof, err)) != GM_OK || eof)
            return st;
        if (rd->raw_len == 0 || rd->raw[0] == '#')
            continue;
        if (!have_columns) {
            have_columns = 1;
            if ((st = gm_csv_split(rd, err)) != GM_OK)
                return st;
            continue;
        }
        if ((st = gm_csv_split(rd, err)) != GM_OK)
            return st;
        char *end = NULL;
        errno = 0;
        unsigned long long id = rd->n_fields ? strtoull(rd->fields[0], &end, 10) : 0;
        if (!rd->n_fields || !end || *end || errno)
            continue; /* the reader refused such a row already */
        if (r->n == run_max && (st = spill(r, rd->name, err)) != GM_OK)
            return st;
        r->buf[r->n++] = (id_line){id, rd->line};
    }
}

gm_status gm_counters_check_ids(const char *path, gm_error *err)
{
    FILE *in = NULL;
    gm_status st = gm_open_input(path, "counters file", &in, err);
    if (st != GM_OK)
        return st;
    id_runs r;
    memset(&r, 0, sizeof r);
    r.buf = malloc(run_max * sizeof *r.buf);
    if (!r.buf) {
        fclose(in);
        return gm_fail(err, GM_ERR_NOMEM, "%s: out of memory", path);
    }
    gm_csv_reader rd;
    gm_csv_reader_init(&rd, in, path);
    st = read_ids(&rd, &r, err);
    gm_csv_reader_free(&rd);
    fclose(in);
    if (st == GM_OK && r.n_runs == 0) {
        /* one run: sorted in memory */
        qsort(r.buf, r.n, sizeof *r.buf, compare_id_line);
        for (size_t i = 1; i < r.n && st == GM_OK; i++)
            if (r.buf[i].id == r.buf[i - 1].id)
                st = duplicate(path, &r.buf[i], &r.buf[i - 1], err);
    } else if (st == GM_OK) {
        if (r.n)
            st = spill(&r, path, err);
        if (st == GM_OK)
            st = merge(&r, path, err);
    }
    for (size_t i = 0; i < r.n_runs; i++)
        fclose(r.runs[i]);
    free(r.runs);
    free(r.left);
    free(r.buf);
    return st;
}
