/* libFuzzer harness: machine data (gm_mdata_load / gm_mdata_write), the
 * one loader and writer behind every suite's file (sched, throughput,
 * gatomics, ...).  Two promises are checked:
 *
 *   input that starts "# gpuq": whatever loads, writes; what it writes
 *   loads back with the same columns, cells and header, and writes the
 *   same bytes again; its header alone (gm_mdata_read_meta) reads the same;
 *
 *   any other input builds a file in memory (first line the column names,
 *   then rows; cells split at TAB): every row the writer accepts must read
 *   back as written. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "gpuq/mdata.h"

#define MAX_CELLS 300

static gm_mdata *load_mem(const char *text, size_t len, gm_status *st)
{
    gm_mdata *md = NULL;
    gm_error err = {{0}};
    FILE *in = len ? fmemopen((void *)text, len, "r") : NULL;
    if (!in) {
        *st = GM_ERR_IO;
        return NULL;
    }
    *st = gm_mdata_load_stream(in, "fuzz", &md, &err);
    fclose(in);
    FUZZ_CHECK((*st == GM_OK) == (md != NULL));
    FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
    return md;
}

/* NULL when the writer refused (a status, not a broken promise). */
static char *write_mem(const gm_mdata *md, size_t *len)
{
    char *text = NULL;
    gm_error err = {{0}};
    FILE *out = open_memstream(&text, len);
    if (!out)
        return NULL;
    gm_status st = gm_mdata_write(out, md, &err);
    fclose(out);
    if (st != GM_OK) {
        free(text);
        return NULL;
    }
    return text;
}

static void same_cells(const gm_mdata *a, const gm_mdata *b)
{
    FUZZ_CHECK(a->n_cols == b->n_cols && a->n_rows == b->n_rows);
    for (size_t c = 0; c < a->n_cols; c++)
        FUZZ_CHECK(strcmp(a->cols[c], b->cols[c]) == 0);
    for (size_t r = 0; r < a->n_rows; r++)
        for (size_t c = 0; c < a->n_cols; c++) {
            FUZZ_CHECK(strcmp(gm_mdata_text(a, r, (int)c), gm_mdata_text(b, r, (int)c)) == 0);
            double x = gm_mdata_num(a, r, (int)c), y = gm_mdata_num(b, r, (int)c);
            FUZZ_CHECK((isnan(x) && isnan(y)) || x == y);
        }
}

static void same_meta(const gm_mdata_meta *a, const gm_mdata_meta *b)
{
    FUZZ_CHECK(strcmp(a->suite, b->suite) == 0 && strcmp(a->gpu_name, b->gpu_name) == 0);
    FUZZ_CHECK(strcmp(a->date, b->date) == 0 && strcmp(a->method, b->method) == 0);
    FUZZ_CHECK(strcmp(a->gpuq_version, b->gpuq_version) == 0);
    FUZZ_CHECK(a->cc_major == b->cc_major && a->cc_minor == b->cc_minor);
    FUZZ_CHECK(a->sm_count == b->sm_count && a->driver_version == b->driver_version);
    FUZZ_CHECK(a->runtime_version == b->runtime_version);
    /* clocks are written with 6 significant digits */
    FUZZ_CHECK(fabs(a->sm_clock_mhz - b->sm_clock_mhz) <= 1e-5 * fabs(a->sm_clock_mhz));
    FUZZ_CHECK(fabs(a->mem_clock_mhz - b->mem_clock_mhz) <= 1e-5 * fabs(a->mem_clock_mhz));
}

static void round_trip(const uint8_t *data, size_t size)
{
    gm_status st;
    /* the header alone (how a GPU's folder is picked): also any file */
    gm_mdata_meta head;
    const char *path = fuzz_input_path(data, size);
    gm_status head_st = path ? gm_mdata_read_meta(path, &head, NULL) : GM_ERR_IO;
    gm_mdata *m1 = load_mem((const char *)data, size, &st);
    if (!m1)
        return;
    if (path) {
        FUZZ_CHECK(head_st == GM_OK); /* a file that loads has a readable header */
        same_meta(&head, &m1->meta);
    }
    size_t len1 = 0, len2 = 0;
    char *b = write_mem(m1, &len1);
    FUZZ_CHECK(b != NULL); /* what loaded is valid: it writes */
    gm_mdata *m2 = load_mem(b, len1, &st);
    FUZZ_CHECK(m2 != NULL);
    same_cells(m1, m2);
    same_meta(&m1->meta, &m2->meta);
    char *c = write_mem(m2, &len2);
    FUZZ_CHECK(c != NULL && len1 == len2 && memcmp(b, c, len1) == 0);
    free(c);
    gm_mdata_free(m2);
    free(b);
    gm_mdata_free(m1);
}

/* Splits s at sep into at most MAX_CELLS pieces (in place). */
static size_t split(char *s, char sep, char **out)
{
    size_t n = 0;
    for (;;) {
        if (n == MAX_CELLS)
            return n + 1;
        out[n++] = s;
        char *p = strchr(s, sep);
        if (!p)
            return n;
        *p = '\0';
        s = p + 1;
    }
}

static void build_and_read(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    gm_mdata_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.suite, sizeof meta.suite, "fuzz");
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "Fuzz GPU");
    meta.cc_major = 9;
    meta.sm_count = 132;
    snprintf(meta.date, sizeof meta.date, "2026-11-25T00:00:00Z");

    char *line = text, *cells[MAX_CELLS + 1];
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    size_t n = split(line, '\t', cells);
    gm_mdata *md = n <= MAX_CELLS ? gm_mdata_new(&meta, n, (const char *const *)cells) : NULL;
    while (md && nl) {
        line = nl + 1;
        if ((nl = strchr(line, '\n')) != NULL)
            *nl = '\0';
        if (split(line, '\t', cells) == md->n_cols)
            gm_mdata_add_row(md, (const char *const *)cells, NULL);
    }
    if (md) {
        size_t len = 0;
        char *written = write_mem(md, &len);
        FUZZ_CHECK(written != NULL);
        gm_status st;
        gm_mdata *back = load_mem(written, len, &st);
        FUZZ_CHECK(back != NULL);
        same_cells(md, back);
        gm_mdata_free(back);
        free(written);
        gm_mdata_free(md);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 6 && memcmp(data, "# gpuq", 6) == 0)
        round_trip(data, size);
    else
        build_and_read(data, size);
    return 0;
}
