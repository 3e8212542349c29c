/* libFuzzer harness: the report writers on any counters file the loader
 * accepts (the ranked kernels in every format, and the HTML page), with the
 * shared-atomic section from a small table built here.  Besides surviving
 * (ASan+UBSan), the page must keep its promise whatever the names hold:
 * exactly its own two <script> elements, and no '<', '>' or U+2028 inside
 * its data block; the CSV's ranked block is '#' lines only, one per kernel
 * plus two, before the heading. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "gpuq/counters.h"
#include "gpuq/report.h"
#include "papers/atomics/atomics_table.h"

/* T = 100 + 10 n + 5 e + 20 c cycles on a 2-SM GPU, as the tests' table. */
static gm_atomics_table *small_table(void)
{
    gm_atomics_table_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "gpuq Test GPU");
    meta.cc_major = 9;
    meta.sm_count = 2;
    meta.max_warps_per_sm = 4;
    meta.warp_size = 4;
    meta.sm_clock_mhz = 1000;
    meta.reps = 1;
    meta.spread_threshold = 0.05;
    gm_atomics_table *t = gm_atomics_table_new(&meta);
    gm_atomics_series *s = NULL;
    if (!t || gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD, GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                          GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s) != GM_OK)
        abort();
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                cell->t_median = cell->t_min = cell->t_max = 100 + 10 * n + 5 * e + 20 * c;
                cell->reps = 1;
            }
    return t;
}

static size_t count(const char *hay, size_t len, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        n += memcmp(hay + i, needle, k) == 0;
    return n;
}

/* Not inlined: inlined at -O3, GCC 12 takes the stream's hold on &text for a
 * pointer into the caller's frame and fails the build (-Wdangling-pointer). */
__attribute__((noinline)) static char *render(const gm_report *rep, gm_format fmt, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    gm_error err = {{0}};
    FUZZ_CHECK(out != NULL);
    FUZZ_CHECK(gm_report_write(out, rep, fmt, &err) == GM_OK);
    fclose(out);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gm_atomics_table *table;
    static gm_machine machine;
    if (!table) {
        table = small_table();
        if (gm_machine_adopt(&machine, "atomics", "small table", NULL, table, NULL, NULL) != GM_OK)
            abort();
    }
    /* Four writers on every launch: a few hundred launches take seconds
     * under the sanitizers, past libFuzzer's timeout (html_large checks the
     * large reports), and the paths are all there in a few dozen. */
    if (size > 64 * 1024)
        return 0;
    gm_counters_set set;
    if (!fuzz_load_counters(data, size, gm_counters_load, &set))
        return 0;
    const char *const sections[] = {"atomics", NULL};
    gm_report_options opt = {.sections = sections, .summary = size % 2};
    gm_report_file file = {.set = &set, .path = "fuzz.csv"};
    gm_report rep;
    gm_error err = {{0}};
    if (gm_report_make(&rep, &file, 1, &machine, &opt, &err) != GM_OK) {
        gm_counters_set_clear(&set);
        return 0;
    }
    size_t len;
    char *page = render(&rep, GM_FORMAT_HTML, &len);
    FUZZ_CHECK(strlen(page) == len); /* no NUL byte from a name */
    FUZZ_CHECK(count(page, len, "<script") == 2 && count(page, len, "</script") == 2);
    const char *open = strstr(page, "id=\"gpuq-data\">");
    FUZZ_CHECK(open != NULL);
    open += strlen("id=\"gpuq-data\">");
    const char *close = strstr(open, "</script>");
    FUZZ_CHECK(close != NULL);
    size_t n = (size_t)(close - open);
    FUZZ_CHECK(memchr(open, '<', n) == NULL && memchr(open, '>', n) == NULL);
    FUZZ_CHECK(count(open, n, "\xe2\x80\xa8") == 0 && count(open, n, "\xe2\x80\xa9") == 0);
    free(page);

    /* the CSV: '#' lines up to the heading, two more than the kernels (the
     * JSON's "rank" members count them) */
    char *csv = render(&rep, GM_FORMAT_CSV, &len);
    size_t hashes = 0;
    const char *p = csv;
    while (*p == '#') {
        hashes++;
        p = strchr(p, '\n');
        FUZZ_CHECK(p != NULL);
        p++;
    }
    FUZZ_CHECK(strncmp(p, "launch_id,", 10) == 0);
    free(csv);
    char *json = render(&rep, GM_FORMAT_JSON, &len);
    FUZZ_CHECK(hashes == 2 + count(json, len, "\n    {\"rank\": "));
    free(json);
    free(render(&rep, GM_FORMAT_TEXT, &len));
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
    return 0;
}
