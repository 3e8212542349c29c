/* Unit tests of the report written a chunk of launches at a time
 * (src/core/report_scan.c, report_cursor.c, spool.c, counters_read.c and
 * counters_ids.c): a file the report reads from its path, in chunks as
 * small as one launch, gives every report byte for byte as the same file
 * loaded into memory does, in every format, per launch and with --summary,
 * one file or two; a file that changes between the two readings is an
 * error, not a report; the spool keeps its bytes past its memory bound;
 * repeated launch ids are found however the ids are ordered and however
 * many runs the sort takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/counters_internal.h"
#include "core/report_internal.h"
#include "core/spool.h"
#include "gpuq/mdata.h"
#include "gpuq/report.h"
#include "gpuq/unit.h"

#define RECORDED GPUQ_SOURCE_DIR "/data/recorded/"

/* Not inlined: inlined at -O3, GCC 12 takes the stream's hold on &text for a
 * pointer into the caller's frame and fails the build (-Wdangling-pointer). */
__attribute__((noinline)) static char *render(const gm_report *rep, gm_format fmt,
                                              gm_status want)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    gm_error err = {{0}};
    gm_status st = gm_report_write(mem, rep, fmt, &err);
    if (st != want)
        fail_msg("writing: status %d, want %d: %s", st, want, err.msg);
    fclose(mem);
    return text;
}

/* Every suite any unit reads, for the GPU of the counters: loaded once per
 * GPU (the shipped tables take a third of a second each). */
static gm_machine machines[4];
static size_t n_machines;

__attribute__((noinline)) static const gm_machine *machine_for(const gm_counters_meta *meta)
{
    assert_non_null(meta);
    for (size_t i = 0; i < n_machines && i < sizeof machines / sizeof machines[0]; i++)
        if (strcmp(machines[i].gpu_name, meta->device_name) == 0 &&
            machines[i].sm_count == meta->sm_count)
            return &machines[i];
    assert_true(n_machines < sizeof machines / sizeof machines[0]);
    const char *suites[2 * GM_MACHINE_MAX_FILES + 1];
    size_t n = 0;
    for (size_t u = 0; gm_units[u]; u++) {
        for (size_t i = 0; gm_units[u]->suites && gm_units[u]->suites[i]; i++)
            suites[n++] = gm_units[u]->suites[i];
        for (size_t i = 0; gm_units[u]->optional_suites && gm_units[u]->optional_suites[i]; i++)
            suites[n++] = gm_units[u]->optional_suites[i];
    }
    suites[n] = NULL;
    gm_mdata_set_search_dirs(NULL, GPUQ_SOURCE_DIR "/tables");
    gm_machine *m = &machines[n_machines];
    memset(m, 0, sizeof *m);
    gm_error err = {{0}};
    if (gm_machine_load(m, meta->device_name, meta->sm_count, suites, NULL, 0, &err) != GM_OK)
        fail_msg("machine data of %s: %s", meta->device_name, err.msg);
    n_machines++;
    return m;
}

static int teardown_machines(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_machines; i++)
        gm_machine_free(&machines[i]);
    n_machines = 0;
    return 0;
}

/* The reports of paths loaded and read from their paths in chunks of
 * `chunk` launches: the same bytes in every format, per launch and summed. */
static void same_reports(const char *const *paths, size_t n, size_t chunk)
{
    gm_counters_set sets[2];
    gm_report_file mem[2], path[2];
    gm_error err = {{0}};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(gm_counters_load(paths[i], &sets[i], &err), GM_OK);
        mem[i] = (gm_report_file){.set = &sets[i], .path = paths[i]};
        path[i] = (gm_report_file){.set = NULL, .path = paths[i]};
    }
    const gm_machine *machine = machine_for(&sets[0].meta);
    for (int summary = 0; summary < 2; summary++) {
        gm_report_options opt = {.summary = summary};
        gm_report a, b;
        assert_int_equal(gm_report_make(&a, mem, n, machine, &opt, &err), GM_OK);
        assert_int_equal(gm_report_make(&b, path, n, machine, &opt, &err), GM_OK);
        assert_non_null(a.launches);
        assert_null(b.launches); /* nothing of the file held */
        b.chunk = chunk;
        for (int f = 0; f < GM_FORMAT_COUNT; f++) {
            char *ta = render(&a, (gm_format)f, GM_OK), *tb = render(&b, (gm_format)f, GM_OK);
            if (strcmp(ta, tb) != 0) {
                size_t at = 0;
                while (ta[at] == tb[at])
                    at++;
                fail_msg("%s%s, %s, chunks of %zu: the reports differ at byte %zu: '%.60s' vs "
                         "'%.60s'",
                         paths[0], n > 1 ? " and another" : "", gm_format_name((gm_format)f),
                         chunk, at, ta + at, tb + at);
            }
            assert_true(strlen(ta) > 1000);
            free(ta);
            free(tb);
        }
        gm_report_free(&a);
        gm_report_free(&b);
    }
    for (size_t i = 0; i < n; i++)
        gm_counters_set_clear(&sets[i]);
}

static void test_every_recorded_file_in_chunks(void **state)
{
    (void)state;
    static const char *const files[] = {
        RECORDED "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv",
        RECORDED "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.counters.csv",
        RECORDED "histogram-hist-solid-4m-nvidia-h200.counters.csv",
        RECORDED "histogram-hist-uniform-4m-nvidia-h100-80gb-hbm3.counters.csv",
        RECORDED "histogram-hist-uniform-4m-nvidia-h200.counters.csv",
        RECORDED "histogram-hist_popc-solid-4m-nvidia-h100-80gb-hbm3.counters.csv",
        RECORDED "histogram-hist_popc-solid-4m-nvidia-h200.counters.csv",
        RECORDED "realkernels-corpus-nvidia-h200.counters.csv",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        same_reports(&files[i], 1, 7);
    /* one launch a chunk, and one chunk for all */
    same_reports(&files[0], 1, 1);
    same_reports(&files[0], 1, 100000);
}

/* Two processes in one report: the chunks run across the files. */
static void test_two_files_in_chunks(void **state)
{
    (void)state;
    const char *const files[] = {
        RECORDED "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.counters.csv",
        RECORDED "histogram-hist-uniform-4m-nvidia-h100-80gb-hbm3.counters.csv",
    };
    same_reports(files, 2, 5);
}

/* A counters file of n launches: the recorded rows of src over and over,
 * renumbered (as scripts/bench_model_scale.sh makes them). */
static char *repeated_file(const char *src, size_t n)
{
    char *path = strdup("/tmp/gpuq-stream-many.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w"), *in = fopen(src, "r");
    assert_non_null(in);
    char line[65536];
    char *rows[256];
    size_t m = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || strncmp(line, "launch_id,", 10) == 0)
            fputs(line, out);
        else if (m < 256)
            rows[m++] = strdup(strchr(line, ','));
    }
    fclose(in);
    assert_true(m > 0);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%zu%s", i, rows[i % m]);
    for (size_t i = 0; i < m; i++)
        free(rows[i]);
    fclose(out);
    return path;
}

/* Chunks split in two halves on two threads give the bytes of one thread,
 * in every format, for a file read from its path and for sets in memory. */
static void test_two_threads_same_bytes(void **state)
{
    (void)state;
    char *path = repeated_file(RECORDED "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv", 5000);
    gm_counters_set set;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(path, &set, &err), GM_OK);
    gm_report_file files[2] = {{.set = NULL, .path = path}, {.set = &set, .path = path}};
    const gm_machine *machine = machine_for(&set.meta);
    for (int from = 0; from < 2; from++) {
        gm_report_options opt = {0};
        gm_report rep;
        assert_int_equal(gm_report_make(&rep, &files[from], 1, machine, &opt, &err), GM_OK);
        rep.chunk = 1000;
        for (int f = 0; f < GM_FORMAT_COUNT; f++) {
            report_set_threads(1);
            char *one = render(&rep, (gm_format)f, GM_OK);
            report_set_threads(2);
            char *two = render(&rep, (gm_format)f, GM_OK);
            if (strcmp(one, two) != 0)
                fail_msg("%s, %s: one thread and two differ", gm_format_name((gm_format)f),
                         from ? "in memory" : "from the file");
            assert_true(strlen(one) > 100000);
            free(one);
            free(two);
        }
        gm_report_free(&rep);
    }
    report_set_threads(0);
    gm_counters_set_clear(&set);
    unlink(path);
    free(path);
}

static char *copy_to_temp(const char *src)
{
    char *path = strdup("/tmp/gpuq-stream-test.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w"), *in = fopen(src, "r");
    assert_non_null(out);
    assert_non_null(in);
    int ch;
    while ((ch = getc(in)) != EOF)
        putc(ch, out);
    fclose(in);
    fclose(out);
    return path;
}

/* A file read again must be the file first read: one that grew (a profile
 * still appending) makes the writing fail, in any format. */
static void test_changed_file_is_an_error(void **state)
{
    (void)state;
    char *path = copy_to_temp(RECORDED "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.counters.csv");
    gm_report_file file = {.set = NULL, .path = path};
    gm_error err = {{0}};
    gm_report_input *in;
    assert_int_equal(gm_report_input_read(&in, &file, 1, &err), GM_OK);
    gm_counters_meta meta = *gm_report_input_meta(in, 0);
    const gm_machine *machine = machine_for(&meta);
    gm_report_options opt = {0};
    gm_report rep;
    assert_int_equal(gm_report_make_from(&rep, in, machine, &opt, &err), GM_OK);
    char *before = render(&rep, GM_FORMAT_CSV, GM_OK);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("9999,late_kernel,late_kernel,0,1,1,1,32,1,1,-1,-1", f);
    for (size_t i = 0; i < gm_report_input_meta(rep.input, 0)->n_metrics; i++)
        fputc(',', f);
    fputs(",0,,,,\n", f);
    fclose(f);
    for (int fmt = 0; fmt < GM_FORMAT_COUNT; fmt++) {
        char *after = render(&rep, (gm_format)fmt, GM_ERR_IO);
        free(after);
    }
    gm_error e2 = {{0}};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(gm_report_write(mem, &rep, GM_FORMAT_TEXT, &e2), GM_ERR_IO);
    fclose(mem);
    assert_non_null(strstr(e2.msg, "changed while the report was made"));
    free(text);
    free(before);
    gm_report_free(&rep);
    unlink(path);
    free(path);
}

/* Past its memory bound a spool holds its bytes in a temporary file, all of
 * them, in order; it can be written on after a copy. */
static void test_spool_spills_to_a_file(void **state)
{
    (void)state;
    gm_spool *s;
    gm_error err = {{0}};
    assert_int_equal(gm_spool_open(&s, 100, &err), GM_OK);
    char want[200000];
    size_t n = 0;
    for (int i = 0; i < 20000; i++) {
        int w = fprintf(gm_spool_stream(s), "%d,", i);
        n += (size_t)w;
        assert_true(n < sizeof want);
        snprintf(want + n - (size_t)w, sizeof want - (n - (size_t)w), "%d,", i);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(gm_spool_copy(s, mem, &err), GM_OK);
    fputs("|", mem);
    fputs("more", gm_spool_stream(s));
    assert_int_equal(gm_spool_copy(s, mem, &err), GM_OK);
    fclose(mem);
    assert_int_equal(gm_spool_size(s), n + 4);
    assert_int_equal(len, 2 * n + 5);
    assert_memory_equal(text, want, n);
    assert_memory_equal(text + n + 1, want, n);
    assert_memory_equal(text + 2 * n + 1, "more", 4);
    free(text);
    gm_spool_close(s);
}

/* A counters file of the given ids (0..n-1 in the order given). */
static char *ids_file(const unsigned *ids, size_t n)
{
    char *path = strdup("/tmp/gpuq-ids-test.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# gpuq counters v2\n# device_name: test GPU\n# compute_capability: 9.0\n"
          "# sm_count: 2\n# max_warps_per_sm: 64\n"
          "launch_id,kernel,mangled,device,grid_x,grid_y,grid_z,block_x,block_y,block_z,regs,"
          "shared_bytes,split_valid,split_add,split_cas,split_popc_inc,split_other\n",
          f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%u,k,k,0,1,1,1,32,1,1,-1,-1,0,,,,\n", ids[i]);
    fclose(f);
    return path;
}

static void expect_ids(const unsigned *ids, size_t n, gm_status want, const char *msg)
{
    char *path = ids_file(ids, n);
    gm_counters_set set;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(path, &set, &err), want);
    if (msg && !strstr(err.msg, msg))
        fail_msg("'%s' not in '%s'", msg, err.msg);
    if (want == GM_OK) {
        assert_int_equal(set.count, n);
        gm_counters_set_clear(&set);
    }
    unlink(path);
    free(path);
}

/* Lines: the header is 6 lines, so id i of the list is on line 7 + i.  The
 * smallest id that repeats is named, with its second line and its first,
 * in one run sorted in memory and in runs of 3 merged from files. */
static void test_repeated_ids_found_in_any_order(void **state)
{
    (void)state;
    static const unsigned up[] = {0, 1, 2, 5, 9, 10};
    static const unsigned shuffled[] = {4, 2, 0, 3, 1, 5, 7, 6};
    static const unsigned twice[] = {9, 4, 7, 4, 2, 9, 8, 4};
    for (size_t run = 0; run < 2; run++) {
        gm_counters_check_ids_run(run ? 3 : 0);
        expect_ids(up, 6, GM_OK, NULL);
        expect_ids(shuffled, 8, GM_OK, NULL);
        /* 4 on lines 8, 10 and 14; 9 on 7 and 12: 4 is the smallest */
        expect_ids(twice, 8, GM_ERR_DUPLICATE, ":10: launch_id 4 already used on line 8");
    }
    gm_counters_check_ids_run(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_recorded_file_in_chunks),
        cmocka_unit_test(test_two_files_in_chunks),
        cmocka_unit_test(test_two_threads_same_bytes),
        cmocka_unit_test(test_changed_file_is_an_error),
        cmocka_unit_test(test_spool_spills_to_a_file),
        cmocka_unit_test(test_repeated_ids_found_in_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, teardown_machines);
}
