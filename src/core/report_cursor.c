/* The report's rows a chunk at a time (report_internal.h).  With --summary
 * the one chunk is the kernels.  Per launch, a chunk is at most
 * REPORT_CHUNK launches: taken from the sets in memory (their results were
 * applied when the report was made), or read again from the files and
 * every section applied to them here, so that a report of any number of
 * launches holds one chunk of them.  A file read again must be the one
 * read when the report was made (same size and time, same launches). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "report_rank.h"

/* Launches per chunk: the chunk's counters, results and verdicts take about
 * 6 KB a launch with every section (11 MB), and per-chunk work is
 * negligible beside the launches' own at this size. */
#define REPORT_CHUNK 2048

struct report_cursor {
    const report_ctx *c;
    const gm_report *rep;
    size_t chunk, next;     /* launches per chunk; the report's index of the next */
    int summary_given;
    size_t file, in_file;   /* the file being taken, launches of it taken */
    gm_counters_reader *rd; /* reading it again from its path */
    gm_launch_counters *buf;
    const gm_launch_counters **launches;
    size_t *file_of, *kernel_row;
    unsigned char *results[GM_REPORT_MAX_SECTIONS]; /* applied here (files read again) */
    size_t n_results[GM_REPORT_MAX_SECTIONS]; /* per section: results to free */
    gm_unit_verdict *verdicts;
    int *verdict_section;
    const char **names[GM_NAME_BASE_COUNT], **display;
    report_rows rows;
};

gm_status report_cursor_open(const report_ctx *c, report_cursor **out, gm_error *err)
{
    const gm_report *rep = c->rep;
    report_cursor *cur = calloc(1, sizeof *cur);
    *out = NULL;
    if (!cur)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    cur->c = c;
    cur->rep = rep;
    cur->chunk = rep->chunk ? rep->chunk : REPORT_CHUNK;
    size_t n = cur->chunk, ns = rep->n_sections ? rep->n_sections : 1;
    int ok = 1;
    if (!rep->summary) {
        ok = (cur->launches = calloc(n, sizeof *cur->launches)) &&
             (cur->file_of = calloc(n, sizeof *cur->file_of)) &&
             (cur->kernel_row = calloc(n, sizeof *cur->kernel_row)) &&
             (cur->verdicts = calloc(n * ns, sizeof *cur->verdicts)) &&
             (cur->verdict_section = calloc(n, sizeof *cur->verdict_section)) &&
             (cur->display = calloc(n, sizeof *cur->display));
        for (int b = 0; ok && b < GM_NAME_BASE_COUNT; b++)
            ok = (cur->names[b] = calloc(n, sizeof *cur->names[b])) != NULL;
        if (ok && !rep->launches) {
            ok = (cur->buf = calloc(n, sizeof *cur->buf)) != NULL;
            for (size_t i = 0; ok && i < n; i++)
                gm_launch_counters_init(&cur->buf[i]);
            for (size_t s = 0; ok && s < rep->n_sections; s++)
                ok = (cur->results[s] = calloc(n, rep->sections[s].unit->result_size)) != NULL;
        }
    }
    if (!ok) {
        report_cursor_close(cur);
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    }
    *out = cur;
    return GM_OK;
}

static void free_results(report_cursor *cur)
{
    const gm_report *rep = cur->rep;
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_unit *u = rep->sections[s].unit;
        if (cur->results[s] && u->free_result)
            for (size_t i = 0; i < cur->n_results[s]; i++)
                u->free_result(cur->results[s] + i * u->result_size);
        cur->n_results[s] = 0;
    }
}

void report_cursor_close(report_cursor *cur)
{
    if (!cur)
        return;
    free_results(cur);
    gm_counters_reader_close(cur->rd);
    /* the chunk's launches own nothing: their names are the input's */
    free(cur->buf);
    free((void *)cur->launches);
    free(cur->file_of);
    free(cur->kernel_row);
    for (size_t s = 0; s < GM_REPORT_MAX_SECTIONS; s++)
        free(cur->results[s]);
    free(cur->verdicts);
    free(cur->verdict_section);
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        free((void *)cur->names[b]);
    free((void *)cur->display);
    free(cur);
}

static gm_status changed(const gm_report *rep, size_t f, gm_error *err)
{
    return gm_fail(err, GM_ERR_IO,
                   "%s changed while the report was made (read again to write the report, it "
                   "is no longer the file first read)",
                   rep->files[f].path);
}

/* Reading file f again: the file first read, still. */
static gm_status reopen(report_cursor *cur, size_t f, gm_error *err)
{
    const report_input_file *rf = &cur->rep->input->files[f];
    struct stat now;
    if (stat(rf->file.path, &now) != 0 || !report_input_same_file(&now, &rf->id))
        return changed(cur->rep, f, err);
    return gm_counters_reader_open(rf->file.path, &cur->rd, err);
}

/* Done with file f: it must not have changed while it was read. */
static gm_status finish_file(report_cursor *cur, size_t f, gm_error *err)
{
    const report_input_file *rf = &cur->rep->input->files[f];
    gm_counters_reader_close(cur->rd);
    cur->rd = NULL;
    struct stat now;
    if (!rf->file.set &&
        (stat(rf->file.path, &now) != 0 || !report_input_same_file(&now, &rf->id)))
        return changed(cur->rep, f, err);
    return GM_OK;
}

/* The next launch of the report into slot i: its counters, file, kernel row
 * and names. */
static gm_status take(report_cursor *cur, size_t i, gm_error *err)
{
    const gm_report *rep = cur->rep;
    const gm_report_input *in = rep->input;
    gm_status st;
    while (cur->in_file == in->files[cur->file].count) {
        if ((st = finish_file(cur, cur->file, err)) != GM_OK)
            return st;
        cur->file++;
        cur->in_file = 0;
    }
    size_t f = cur->file;
    const report_input_file *rf = &in->files[f];
    const char *kernel, *mangled;
    if (rf->file.set) {
        const gm_launch_counters *k = &rf->file.set->launches[cur->in_file];
        kernel = report_kernel_name(k);
        mangled = k->mangled ? k->mangled : kernel;
        cur->launches[i] = k;
    } else {
        if (!cur->rd && (st = reopen(cur, f, err)) != GM_OK)
            return st;
        gm_launch_counters *k = &cur->buf[i];
        int eof = 0;
        if ((st = gm_counters_reader_next(cur->rd, k, &kernel, &mangled, &eof, err)) != GM_OK)
            return st;
        if (eof)
            return changed(rep, f, err);
        cur->launches[i] = k;
    }
    size_t g = report_input_group(in, f, kernel), p = report_input_pair(in, kernel, mangled);
    if (g == SIZE_MAX || p == SIZE_MAX)
        return changed(rep, f, err);
    if (!rf->file.set) {
        /* the names the units may print are the input's (borrowed) */
        cur->buf[i].kernel = in->pairs[p].kernel;
        cur->buf[i].mangled = in->pairs[p].mangled;
    }
    cur->file_of[i] = f;
    cur->kernel_row[i] = g;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        cur->names[b][i] = cur->c->pair_names.full[b][p];
    cur->display[i] = cur->c->pair_names.display[p];
    cur->in_file++;
    return GM_OK;
}

/* Rows lo..hi of a chunk: every section applied (files read again) and
 * the verdicts; each half its own status. */
typedef struct apply_job {
    report_cursor *cur;
    report_rows *rows;
    gm_status st[2];
    gm_error err[2];
} apply_job;

static void apply_range(void *arg, size_t lo, size_t hi)
{
    apply_job *j = arg;
    const gm_report *rep = j->cur->rep;
    int h = lo > 0;
    const unsigned char *res[GM_REPORT_MAX_SECTIONS];
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        const gm_unit *u = sec->unit;
        unsigned char *at = (unsigned char *)j->rows->results[s];
        for (size_t i = lo; !rep->launches && i < hi && j->st[h] == GM_OK; i++)
            j->st[h] = u->apply(sec->state, report_file_meta(rep, j->cur->file_of[i]),
                                j->cur->launches[i], at + i * u->result_size, &j->err[h]);
        res[s] = at + lo * u->result_size;
    }
    if (j->st[h] == GM_OK)
        report_pick_verdicts(rep, hi - lo, res, j->cur->verdicts + lo * rep->n_sections,
                             j->cur->verdict_section + lo);
}

gm_status report_cursor_next(report_cursor *cur, const report_rows **rows, gm_error *err)
{
    const gm_report *rep = cur->rep;
    *rows = NULL;
    if (rep->summary) {
        if (!cur->summary_given && cur->c->kernels.count)
            *rows = &cur->c->kernels; /* no chunk is ever empty */
        cur->summary_given = 1;
        return GM_OK;
    }
    free_results(cur);
    size_t first = cur->next, n = 0;
    gm_status st = GM_OK;
    while (n < cur->chunk && cur->next < rep->n_launches && st == GM_OK) {
        st = take(cur, n, err);
        n += st == GM_OK;
        cur->next += st == GM_OK;
    }
    /* past the last launch: the files' ends checked */
    while (st == GM_OK && cur->next == rep->n_launches && cur->file < rep->n_files) {
        st = finish_file(cur, cur->file, err);
        cur->file++;
    }
    if (st != GM_OK || n == 0)
        return st;
    report_rows *r = &cur->rows;
    *r = cur->c->kernels; /* metric rows, multi_file, rank */
    r->count = n;
    r->first = first;
    r->launches = cur->launches;
    r->file_of = cur->file_of;
    r->launch_count = NULL;
    r->config_varies = NULL;
    r->kernel_row = cur->kernel_row;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        r->names[b] = cur->names[b];
    r->display = cur->display;
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        const gm_unit *u = sec->unit;
        if (rep->launches) {
            r->results[s] = sec->results + first * u->result_size;
            continue;
        }
        /* zeroed where a result owns memory, so that one a failed chunk never
         * reached frees nothing */
        if (u->free_result)
            memset(cur->results[s], 0, n * u->result_size);
        cur->n_results[s] = n;
        r->results[s] = cur->results[s];
    }
    r->verdicts = cur->verdicts;
    r->verdict_section = cur->verdict_section;
    apply_job job = {cur, r, {GM_OK, GM_OK}, {{{0}}, {{0}}}};
    report_in_halves(apply_range, &job, n);
    for (int h = 0; h < 2; h++)
        if (job.st[h] != GM_OK) {
            if (err)
                *err = job.err[h];
            return job.st[h];
        }
    *rows = r;
    return GM_OK;
}
