/* Loaders given hostile bytes, and writers that refuse what their loader
 * could not read back.  Each case here was found by a fuzz harness
 * (tests/fuzz/) or a round trip; the fuzz inputs themselves are replayed by
 * the fuzz_replay_* tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/counters.h"
#include "gpuq/mdata.h"
#include "gpuq/status.h"
#include "papers/atomics/atomics_table.h"
#include "test_helpers.h"

#define DATA GPUQ_SOURCE_DIR "/tests/data/"

static void expect_msg(gm_status st, gm_status want, const gm_error *err, const char *a,
                       const char *b)
{
    if (st != want || !strstr(err->msg, a) || !strstr(err->msg, b))
        fail_msg("status %d (want %d), message '%s' (want '%s' and '%s')", st, want, err->msg, a,
                 b);
}

/* A copy of src with a NUL byte put at the start of line `line` (1-based). */
static void copy_with_nul(const char *src, const char *dst, int line)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    assert_non_null(in);
    assert_non_null(out);
    int ch, at = 1, done = 0;
    while ((ch = getc(in)) != EOF) {
        if (at == line && !done) {
            putc('\0', out);
            done = 1;
        }
        putc(ch, out);
        if (ch == '\n')
            at++;
    }
    assert_true(done);
    fclose(in);
    fclose(out);
}

/* ncu CSV whose kernel name holds a NUL byte: it died with SIGSEGV (a
 * launch record cleared before it was initialised). */
static void test_ncu_nul_kernel_name(void **state)
{
    (void)state;
    gm_counters_set s;
    gm_error err = {{0}};
    gm_status st = gm_ncu_csv_load(DATA "ncu/bad_nul_kernel_name.csv", &s, &err);
    expect_msg(st, GM_ERR_PARSE, &err, "bad_nul_kernel_name.csv:6:", "NUL byte");
    assert_int_equal(s.count, 0);
}

/* The same file with the name empty: the path that cleared stack garbage. */
static void test_ncu_empty_kernel_name(void **state)
{
    (void)state;
    gm_counters_set s;
    gm_error err = {{0}};
    gm_status st = gm_ncu_csv_load(DATA "ncu/bad_empty_kernel_name.csv", &s, &err);
    expect_msg(st, GM_ERR_MISSING, &err, "bad_empty_kernel_name.csv:6:", "empty kernel name");
    assert_int_equal(s.count, 0);
}

static void test_counters_nul(void **state)
{
    (void)state;
    char path[] = "/tmp/gpuq-test-nul-counters.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    copy_with_nul(DATA "counters/valid.csv", path, 10);
    gm_counters_set s;
    gm_error err = {{0}};
    gm_status st = gm_counters_load(path, &s, &err);
    expect_msg(st, GM_ERR_PARSE, &err, ":10:", "NUL byte");
    unlink(path);
}

static void test_table_nul(void **state)
{
    (void)state;
    char path[] = "/tmp/gpuq-test-nul-table.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    copy_with_nul(DATA "tables/test_gpu.csv", path, 3);
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    gm_status st = gm_atomics_table_load(path, &t, &err);
    expect_msg(st, GM_ERR_PARSE, &err, ":3:", "NUL byte");
    assert_null(t);
    unlink(path);
}

/* Messages quote file content: they stay one printable line. */
static void test_fail_sanitises_messages(void **state)
{
    (void)state;
    gm_error err;
    gm_fail(&err, GM_ERR_PARSE, "kernel '%s'", "a\nb\x1b[31mc\td\x7f");
    assert_string_equal(err.msg, "kernel 'a?b?[31mc d?'");
}

static gm_mdata_meta sample_meta(void)
{
    return th_meta("sched", TH_H100, 132, "2026-11-24T03:00:00Z");
}

/* Found by the load/write round trip: each was written, then read back as
 * something else or refused. */
static void test_mdata_refuses_what_cannot_read_back(void **state)
{
    (void)state;
    gm_mdata_meta meta = sample_meta();
    const char *hash_first[] = {"#x", "y"};
    assert_null(gm_mdata_new(&meta, 2, hash_first));
    const char *hash_second[] = {"x", "#y"};
    gm_mdata *md = gm_mdata_new(&meta, 2, hash_second); /* not at the line start: fine */
    assert_non_null(md);
    gm_error err = {{0}};
    const char *row_hash[] = {"#1", "2"};
    expect_msg(gm_mdata_add_row(md, row_hash, &err), GM_ERR_INVALID_ARG, &err, "'#'",
               "header line");
    const char *row_ok[] = {"1", "#2"};
    assert_int_equal(gm_mdata_add_row(md, row_ok, &err), GM_OK);
    gm_mdata_free(md);

    const char *one[] = {"only"};
    md = gm_mdata_new(&meta, 1, one);
    assert_non_null(md);
    const char *empty[] = {""};
    expect_msg(gm_mdata_add_row(md, empty, &err), GM_ERR_INVALID_ARG, &err, "'only'",
               "blank line");
    const char *value[] = {"3"};
    assert_int_equal(gm_mdata_add_row(md, value, &err), GM_OK);

    /* what is accepted reads back the same */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    assert_int_equal(gm_mdata_write(mem, md, &err), GM_OK);
    fclose(mem);
    FILE *in = fmemopen(text, len, "r");
    gm_mdata *back = NULL;
    assert_int_equal(gm_mdata_load_stream(in, "mem", &back, &err), GM_OK);
    fclose(in);
    assert_int_equal(back->n_rows, 1);
    assert_string_equal(gm_mdata_text(back, 0, 0), "3");
    gm_mdata_free(back);
    free(text);
    gm_mdata_free(md);

    /* an empty cell is fine where the line still has a comma */
    const char *two[] = {"a", "b"};
    md = gm_mdata_new(&meta, 2, two);
    const char *blank_row[] = {"", ""};
    assert_int_equal(gm_mdata_add_row(md, blank_row, &err), GM_OK);
    gm_mdata_free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ncu_nul_kernel_name),
        cmocka_unit_test(test_ncu_empty_kernel_name),
        cmocka_unit_test(test_counters_nul),
        cmocka_unit_test(test_table_nul),
        cmocka_unit_test(test_fail_sanitises_messages),
        cmocka_unit_test(test_mdata_refuses_what_cannot_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
