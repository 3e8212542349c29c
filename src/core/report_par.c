/* A chunk of rows in two halves on two threads (report_internal.h): the
 * units' apply and the writers' formatting of one launch depend on nothing
 * of another's, and they are most of a long report's time.  The second
 * half runs on a thread of its own (made for the chunk: a few
 * microseconds against the milliseconds of a chunk), its output in memory
 * until it is appended after the first half's, so the bytes are those of
 * one thread.  GPUQ_THREADS=1, one processor, a small chunk or a thread
 * that cannot be made: everything on the calling thread. */
#include <pthread.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_internal.h"

/* Below this many rows a chunk is not split (the threads would cost more). */
#define PAR_MIN_ROWS 64

static int threads; /* 0: not decided yet */

void report_set_threads(int n)
{
    __atomic_store_n(&threads, n == 1 || n == 2 ? n : 0, __ATOMIC_RELAXED);
}

int report_threads(void)
{
    int t = __atomic_load_n(&threads, __ATOMIC_RELAXED);
    if (t)
        return t;
    const char *env = getenv("GPUQ_THREADS");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t = env && env[0] == '1' && env[1] == '\0' ? 1 : cpus >= 2 ? 2 : 1;
    __atomic_store_n(&threads, t, __ATOMIC_RELAXED);
    return t;
}

typedef struct range_job {
    report_range_fn fn;
    void *ctx;
    size_t lo, hi;
} range_job;

static void *run_range(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

void report_in_halves(report_range_fn fn, void *ctx, size_t n)
{
    pthread_t t;
    range_job second = {fn, ctx, n / 2, n};
    if (n < PAR_MIN_ROWS || report_threads() < 2 ||
        pthread_create(&t, NULL, run_range, &second) != 0) {
        fn(ctx, 0, n);
        return;
    }
    fn(ctx, 0, n / 2);
    pthread_join(t, NULL);
}

void report_rows_slice(const gm_report *rep, const report_rows *r, size_t lo, size_t hi,
                       report_rows *out)
{
    *out = *r;
    out->count = hi - lo;
    out->first = r->first + lo;
    out->launches = r->launches + lo;
    out->file_of = r->file_of + lo;
    if (r->launch_count)
        out->launch_count = r->launch_count + lo;
    if (r->config_varies)
        out->config_varies = r->config_varies + lo;
    for (size_t s = 0; s < rep->n_sections; s++)
        out->results[s] = r->results[s] + lo * rep->sections[s].unit->result_size;
    out->verdicts = r->verdicts + lo * rep->n_sections;
    out->verdict_section = r->verdict_section + lo;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        out->names[b] = r->names[b] + lo;
    out->display = r->display + lo;
    if (r->kernel_row)
        out->kernel_row = r->kernel_row + lo;
}

/* The second half's output: one memory stream per output. */
typedef struct write_job {
    const gm_report *rep;
    const report_rows *rows;
    size_t n_out;
    report_write_fn fn;
    void *ctx;
    FILE *const *outs;      /* the first half's */
    FILE *mem[REPORT_MAX_OUTS];
    char *text[REPORT_MAX_OUTS];
    size_t len[REPORT_MAX_OUTS];
    int failed;
} write_job;

static void write_half(void *arg, size_t lo, size_t hi)
{
    write_job *j = arg;
    report_rows half;
    report_rows_slice(j->rep, j->rows, lo, hi, &half);
    if (lo == 0) {
        if (j->fn(j->ctx, &half, j->outs) != 0)
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t i = 0; i < j->n_out; i++) {
        if (!(j->mem[i] = open_memstream(&j->text[i], &j->len[i]))) {
            for (size_t k = 0; k < i; k++)
                fclose(j->mem[k]);
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        __fsetlocking(j->mem[i], FSETLOCKING_BYCALLER); /* this thread's alone */
    }
    int rc = j->fn(j->ctx, &half, j->mem);
    for (size_t i = 0; i < j->n_out; i++)
        if (fclose(j->mem[i]) != 0)
            rc = -1;
    if (rc != 0)
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
}

gm_status report_write_in_halves(const gm_report *rep, const report_rows *rows,
                                 FILE *const *outs, size_t n_out, report_write_fn fn, void *ctx,
                                 gm_error *err)
{
    if (n_out > REPORT_MAX_OUTS)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: %zu outputs", n_out);
    write_job j;
    memset(&j, 0, sizeof j);
    j.rep = rep;
    j.rows = rows;
    j.n_out = n_out;
    j.fn = fn;
    j.ctx = ctx;
    j.outs = outs;
    report_in_halves(write_half, &j, rows->count);
    gm_status st = j.failed ? gm_fail(err, GM_ERR_NOMEM, "report: out of memory") : GM_OK;
    for (size_t i = 0; i < n_out; i++) {
        if (st == GM_OK && j.len[i] && fwrite(j.text[i], 1, j.len[i], outs[i]) != j.len[i])
            st = gm_fail(err, GM_ERR_IO, "report: write failed");
        free(j.text[i]);
    }
    return st;
}
