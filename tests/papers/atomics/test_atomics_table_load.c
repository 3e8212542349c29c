/* Unit tests of the calibration-table CSV loader: valid inputs and every
 * rejection rule of docs/table-format.md, one edited line at a time
 * (atomics_table_fixture.h). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "gpuq/mdata.h"
#include "papers/atomics/atomics_table.h"

#include "atomics_table_fixture.h"

/* ---- loader: valid inputs --------------------------------------------- */

static void test_load_base_text(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    char path[300];
    tmp_path(path, sizeof path, "base.csv");
    text_write(&t, path, "\n");
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(path, &table, &err), GM_OK);
    assert_string_equal(table->meta.gpu_name, "Test GPU");
    assert_int_equal(table->meta.cc_major, 9);
    assert_int_equal(table->meta.cc_minor, 0);
    assert_int_equal(table->meta.max_warps_per_sm, 2);
    assert_near(table->meta.spread_threshold, 0.05, 0);
    assert_int_equal(table->n_series, 2);
    const gm_atomics_series *add = gm_atomics_table_find(table, GM_ATOMICS_CLASS_ADD,
                                                         GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                         GM_ATOMICS_METHOD_SINGLE_SHOT);
    assert_non_null(add);
    assert_int_equal(add->mixes_cas, 1);
    /* line 27 is n=2 e=2 c=2: T = 100 + 20 + 6 + 14 = 140 */
    assert_near(gm_atomics_series_cell(add, 2, 2, 2)->t_median, 140, 0);
    assert_near(gm_atomics_series_cell(add, 2, 2, 2)->t_max, 142, 0);
    const gm_atomics_series *popc = gm_atomics_table_find(table, GM_ATOMICS_CLASS_POPC_INC,
                                                          GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                          GM_ATOMICS_METHOD_SINGLE_SHOT);
    assert_int_equal(popc->mixes_cas, 0);
    /* (100 + 10 + 6) / 2 = 58 */
    assert_near(gm_atomics_series_cell(popc, 1, 2, 0)->t_median, 58, 0);
    gm_atomics_table_free(table);
}

static void test_load_crlf_and_blank_lines(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_insert(&t, 5, "");
    text_insert(&t, 19, "   ");
    t.line[t.count++][0] = '\0';
    char path[300];
    tmp_path(path, sizeof path, "crlf.csv");
    text_write(&t, path, "\r\n");
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(path, &table, &err), GM_OK);
    assert_string_equal(table->meta.gpu_name, "Test GPU"); /* no stray '\r' */
    gm_atomics_table_free(table);
}

static void test_load_columns_in_any_row_order_and_spaces(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    /* swap two rows and pad a field with spaces: rows need no order */
    char keep[256];
    memcpy(keep, t.line[17], 256);
    memcpy(t.line[17], t.line[30], 256);
    memcpy(t.line[30], keep, 256);
    text_set(&t, 20, "add,same_address,single_shot, 1 ,2,0, 116 ,115,118,0.02,7,0");
    expect_load(&t, GM_OK, NULL);
}

static void test_load_other_warp_size_allowed(void **state)
{
    (void)state;
    /* warp_size other than 32 is allowed in 1..64: here 1 lane, so the
     * rows with e = 2 go */
    text t;
    text_base(&t);
    text_set(&t, 6, "# warp_size: 1");
    for (int line = t.count; line >= 18; line--) {
        int n, e;
        const char *p = t.line[line - 1];
        for (int commas = 0; commas < 3; p++)
            if (*p == ',')
                commas++;
        assert_int_equal(sscanf(p, "%d,%d", &n, &e), 2);
        if (e == 2)
            text_delete(&t, line);
    }
    assert_int_equal(t.count, 17 + 5 + 2);
    expect_load(&t, GM_OK, NULL);
}

static void test_load_stream_name(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs("# gpuq calibration table v1\n# gpu_name: X\n", f);
    rewind(f);
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load_stream(f, "stdin", &table, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "stdin: no column header"));
    assert_null(table);
    fclose(f);
}

/* ---- loader: rejections ----------------------------------------------- */

static void test_reject_empty_file(void **state)
{
    (void)state;
    text t = {.count = 0};
    expect_load(&t, GM_ERR_PARSE, "empty file");
}

static void test_reject_wrong_magic(void **state)
{
    (void)state;
    expect_line_error(1, "# gpuq counters v1", GM_ERR_PARSE, "not a gpuq calibration table");
}

static void test_reject_missing_magic(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_delete(&t, 1);
    expect_load(&t, GM_ERR_PARSE, "x.csv:1: not a gpuq calibration table");
}

static void test_reject_unsupported_version(void **state)
{
    (void)state;
    expect_line_error(1, "# gpuq calibration table v3", GM_ERR_MISMATCH,
                      "format version 3 is not supported");
    /* A v2 header holds v2's keys: v1's method_note is unknown there, and
     * the suite line is required. */
    text t;
    text_base(&t);
    text_set(&t, 1, "%s", "# gpuq calibration table v2");
    expect_load(&t, GM_ERR_PARSE, "x.csv:11: unknown metadata key 'method_note'");
    expect_line_error(1, "# gpuq calibration table vX", GM_ERR_PARSE, "bad format version");
}

static void test_reject_unknown_meta_key(void **state)
{
    (void)state;
    expect_line_error(7, "# sm_clock: 1980", GM_ERR_PARSE, "unknown metadata key 'sm_clock'");
    expect_line_error(7, "# sm_clock_mhz 1980", GM_ERR_PARSE, "expected '# key: value'");
}

static void test_reject_missing_required_key(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_delete(&t, 4); /* sm_count; the column header is now line 16 */
    expect_load(&t, GM_ERR_MISSING, "x.csv:16: required metadata key 'sm_count' missing");
}

static void test_optional_meta_keys_default(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    for (int line = 14; line >= 7; line--) /* sm_clock_mhz .. gpuq_version */
        text_delete(&t, line);
    expect_load(&t, GM_OK, NULL);
}

static void test_reject_duplicate_meta_key(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_insert(&t, 5, "# sm_count: 8");
    expect_load(&t, GM_ERR_DUPLICATE, "x.csv:5: metadata key 'sm_count' given twice");
}

static void test_reject_bad_sm_count(void **state)
{
    (void)state;
    expect_line_error(4, "# sm_count: many", GM_ERR_PARSE, "sm_count='many' is not an integer");
    expect_line_error(4, "# sm_count: 132x", GM_ERR_PARSE, "sm_count='132x' is not an integer");
    /* Range is checked when the header is complete, naming the file. */
    text t;
    text_base(&t);
    text_set(&t, 4, "# sm_count: 0");
    expect_load(&t, GM_ERR_RANGE, "sm_count=0 must be positive");
    text_set(&t, 4, "# sm_count: -3");
    expect_load(&t, GM_ERR_RANGE, "sm_count=-3 must be positive");
}

static void test_reject_bad_max_warps(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_set(&t, 5, "# max_warps_per_sm: 0");
    expect_load(&t, GM_ERR_RANGE, "max_warps_per_sm=0 outside 1..1024");
    text_set(&t, 5, "# max_warps_per_sm: 1025");
    expect_load(&t, GM_ERR_RANGE, "max_warps_per_sm=1025 outside 1..1024");
}

static void test_reject_bad_warp_size(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_set(&t, 6, "# warp_size: 65");
    expect_load(&t, GM_ERR_RANGE, "warp_size=65 outside 1..64");
    text_set(&t, 6, "# warp_size: 0");
    expect_load(&t, GM_ERR_RANGE, "warp_size=0 outside 1..64");
}

static void test_reject_bad_compute_capability(void **state)
{
    (void)state;
    expect_line_error(3, "# compute_capability: 9", GM_ERR_PARSE, "compute_capability='9' is not X.Y");
    expect_line_error(3, "# compute_capability: 9.0a", GM_ERR_PARSE, "compute_capability='9.0a' is not X.Y");
    expect_line_error(3, "# compute_capability: sm_90", GM_ERR_PARSE, "compute_capability='sm_90' is not X.Y");
    expect_line_error(3, "# compute_capability: .9", GM_ERR_PARSE, "compute_capability='.9' is not X.Y");
    text t;
    text_base(&t);
    text_set(&t, 3, "# compute_capability: 10.3");
    expect_load(&t, GM_OK, NULL);
}

static void test_reject_bad_double_meta(void **state)
{
    (void)state;
    expect_line_error(7, "# sm_clock_mhz: fast", GM_ERR_PARSE, "sm_clock_mhz='fast' is not a number");
    text t;
    text_base(&t);
    text_set(&t, 13, "# spread_threshold: nan");
    expect_load(&t, GM_ERR_RANGE, "spread_threshold");
}

static void test_reject_series_twice(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_insert(&t, 17, "# series: add,same_address,single_shot,mixes_cas=0");
    expect_load(&t, GM_ERR_DUPLICATE, "x.csv:17: series add,same_address,single_shot declared twice");
}

static void test_reject_bad_series_line(void **state)
{
    (void)state;
    expect_line_error(16, "# series: popc_inc,same_address,single_shot", GM_ERR_PARSE, "series needs");
    expect_line_error(16, "# series: popc_inc,same_address,single_shot,mixes_cas=0,x", GM_ERR_PARSE,
                      "series needs");
    expect_line_error(16, "# series: popc,same_address,single_shot,mixes_cas=0", GM_ERR_PARSE,
                      "unknown job class 'popc'");
    expect_line_error(16, "# series: popc_inc,same_address,single_shot,mixes_cas=2", GM_ERR_PARSE,
                      "expected mixes_cas=0 or mixes_cas=1");
}

static void test_reject_no_series(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    while (t.count > 17)
        text_delete(&t, t.count);
    text_delete(&t, 16);
    text_delete(&t, 15);
    expect_load(&t, GM_ERR_MISSING, "x.csv:15: no '# series:' line");
}

static void test_reject_undeclared_series_rows(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_insert(&t, 32, "cas,same_address,single_shot,1,1,0,120,119,122,0.02,7,0");
    expect_load(&t, GM_ERR_MISSING, "x.csv:32: row for series cas,same_address,single_shot");
}

static void test_reject_wrong_column_header(void **state)
{
    (void)state;
    expect_line_error(17, "class,pattern,method,n,e,c,t,t_min,t_max,spread,reps,flags", GM_ERR_PARSE,
                      "wrong column header");
    text t;
    text_base(&t);
    text_delete(&t, 17); /* rows straight after the metadata */
    expect_load(&t, GM_ERR_PARSE, "x.csv:17: wrong column header");
}

static void test_reject_column_count(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7", GM_ERR_PARSE,
                      "11 columns, expected 12");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7,0,", GM_ERR_PARSE,
                      "13 columns, expected 12");
}

static void test_reject_non_numeric(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,fast,112,115,0.02,7,0", GM_ERR_PARSE,
                      "t_median='fast' is not a number");
    expect_line_error(18, "add,same_address,single_shot,one,1,0,113,112,115,0.02,7,0", GM_ERR_PARSE,
                      "n='one' is not an integer");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,,115,0.02,7,0", GM_ERR_PARSE,
                      "t_min='' is not a number");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,x,0", GM_ERR_PARSE,
                      "reps='x' is not an integer");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7,-1", GM_ERR_PARSE,
                      "flags='-1'");
    expect_line_error(18, "addd,same_address,single_shot,1,1,0,113,112,115,0.02,7,0", GM_ERR_PARSE,
                      "unknown job class 'addd'");
}

static void test_reject_trailing_garbage(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113.0x,112,115,0.02,7,0", GM_ERR_PARSE,
                      "t_median='113.0x' is not a number");
    expect_line_error(18, "add,same_address,single_shot,1,1e0,0,113,112,115,0.02,7,0", GM_ERR_PARSE,
                      "e='1e0' is not an integer");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113 5,112,115,0.02,7,0", GM_ERR_PARSE,
                      "t_median='113 5' is not a number");
}

static void test_reject_nan_inf(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,nan,112,115,0.02,7,0", GM_ERR_RANGE,
                      "t_median is NaN");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,inf,0.02,7,0", GM_ERR_RANGE,
                      "t_max is infinite");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,1e999,0.02,7,0", GM_ERR_PARSE,
                      "t_max='1e999' is not a number");
}

static void test_reject_negative(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,-113,-114,-112,0.02,7,0", GM_ERR_RANGE,
                      "t_median=-113 is negative");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,-0.5,7,0", GM_ERR_RANGE,
                      "spread=-0.5 is negative");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,-7,0", GM_ERR_RANGE,
                      "reps=-7 is negative");
}

static void test_reject_min_median_max_order(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,114,115,0.02,7,0", GM_ERR_RANGE,
                      "not t_min <= t_median <= t_max (114, 113, 115)");
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,112.5,0.02,7,0", GM_ERR_RANGE,
                      "not t_min <= t_median <= t_max");
    /* equal is fine (one repetition) */
    text t;
    text_base(&t);
    text_set(&t, 18, "add,same_address,single_shot,1,1,0,113,113,113,0,1,0");
    expect_load(&t, GM_OK, NULL);
}

static void test_reject_unknown_flags(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7,16", GM_ERR_RANGE,
                      "flags=16 has unknown bits");
    text t;
    text_base(&t);
    text_set(&t, 18, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7,7");
    expect_load(&t, GM_OK, NULL);
}

static void test_reject_n_out_of_range(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,0,1,0,113,112,115,0.02,7,0", GM_ERR_RANGE,
                      "n=0 outside 1..2");
    expect_line_error(18, "add,same_address,single_shot,3,1,0,113,112,115,0.02,7,0", GM_ERR_RANGE,
                      "n=3 outside 1..2");
}

static void test_reject_e_out_of_range(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,0,0,113,112,115,0.02,7,0", GM_ERR_RANGE,
                      "e=0 outside 1..2");
    /* The message of the task statement, on a table with 32 lanes. */
    text t;
    text_base(&t);
    text_set(&t, 6, "# warp_size: 32");
    text_set(&t, 18, "add,same_address,single_shot,1,33,0,113,112,115,0.02,7,0");
    expect_load(&t, GM_ERR_RANGE, "x.csv:18: e=33 outside 1..32");
}

static void test_reject_c_out_of_range(void **state)
{
    (void)state;
    expect_line_error(18, "add,same_address,single_shot,1,1,2,113,112,115,0.02,7,0", GM_ERR_RANGE,
                      "c=2 outside 0..1 (c <= n)");
    expect_line_error(18, "add,same_address,single_shot,1,1,-1,113,112,115,0.02,7,0", GM_ERR_RANGE,
                      "c=-1 outside 0..1");
    expect_line_error(28, "popc_inc,same_address,single_shot,1,1,1,55,54,57,0.02,7,0", GM_ERR_RANGE,
                      "c=1 but series popc_inc,same_address,single_shot has mixes_cas=0");
}

static void test_reject_duplicate_cell(void **state)
{
    (void)state;
    expect_line_error(19, "add,same_address,single_shot,1,1,0,113,112,115,0.02,7,0", GM_ERR_DUPLICATE,
                      "cell add,same_address,single_shot n=1 e=1 c=0 given twice");
}

static void test_reject_missing_cell(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_delete(&t, 25); /* n=2 e=2 c=0 */
    text_delete(&t, 23); /* n=2 e=1 c=1: the first missing one */
    expect_load(&t, GM_ERR_MISSING, "series add,same_address,single_shot: cell n=2 e=1 c=1: missing");
}

static void test_reject_meta_after_header(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    text_insert(&t, 20, "# sm_count: 8");
    expect_load(&t, GM_ERR_PARSE, "x.csv:20: '#' line after the column header");
}

static void test_reject_missing_file_and_directory(void **state)
{
    (void)state;
    char path[300];
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    tmp_path(path, sizeof path, "does-not-exist.csv");
    assert_int_equal(gm_atomics_table_load(path, &table, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "(No such file or directory)"));
    assert_null(table);
    assert_int_equal(gm_atomics_table_load(tmp_dir, &table, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "is a directory"));
    assert_null(table);
    assert_int_equal(gm_atomics_table_load(NULL, &table, &err), GM_ERR_INVALID_ARG);
}

static void test_reject_line_too_long(void **state)
{
    (void)state;
    char path[300];
    tmp_path(path, sizeof path, "long.csv");
    FILE *f = fopen(path, "w");
    fputs("# gpuq calibration table v1\n# method_note: ", f);
    for (int i = 0; i < 5000; i++)
        fputc('x', f);
    fputs("\n", f);
    fclose(f);
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(path, &table, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "long.csv:2: line longer than 4095 characters"));
}

static void test_reject_meta_text_too_long(void **state)
{
    (void)state;
    char line[256];
    snprintf(line, sizeof line, "# date: %040d", 0);
    expect_line_error(10, line, GM_ERR_RANGE, "date longer than 31 characters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_base_text),
        cmocka_unit_test(test_load_crlf_and_blank_lines),
        cmocka_unit_test(test_load_columns_in_any_row_order_and_spaces),
        cmocka_unit_test(test_load_other_warp_size_allowed),
        cmocka_unit_test(test_load_stream_name),
        cmocka_unit_test(test_reject_empty_file),
        cmocka_unit_test(test_reject_wrong_magic),
        cmocka_unit_test(test_reject_missing_magic),
        cmocka_unit_test(test_reject_unsupported_version),
        cmocka_unit_test(test_reject_unknown_meta_key),
        cmocka_unit_test(test_reject_missing_required_key),
        cmocka_unit_test(test_optional_meta_keys_default),
        cmocka_unit_test(test_reject_duplicate_meta_key),
        cmocka_unit_test(test_reject_bad_sm_count),
        cmocka_unit_test(test_reject_bad_max_warps),
        cmocka_unit_test(test_reject_bad_warp_size),
        cmocka_unit_test(test_reject_bad_compute_capability),
        cmocka_unit_test(test_reject_bad_double_meta),
        cmocka_unit_test(test_reject_series_twice),
        cmocka_unit_test(test_reject_bad_series_line),
        cmocka_unit_test(test_reject_no_series),
        cmocka_unit_test(test_reject_undeclared_series_rows),
        cmocka_unit_test(test_reject_wrong_column_header),
        cmocka_unit_test(test_reject_column_count),
        cmocka_unit_test(test_reject_non_numeric),
        cmocka_unit_test(test_reject_trailing_garbage),
        cmocka_unit_test(test_reject_nan_inf),
        cmocka_unit_test(test_reject_negative),
        cmocka_unit_test(test_reject_min_median_max_order),
        cmocka_unit_test(test_reject_unknown_flags),
        cmocka_unit_test(test_reject_n_out_of_range),
        cmocka_unit_test(test_reject_e_out_of_range),
        cmocka_unit_test(test_reject_c_out_of_range),
        cmocka_unit_test(test_reject_duplicate_cell),
        cmocka_unit_test(test_reject_missing_cell),
        cmocka_unit_test(test_reject_meta_after_header),
        cmocka_unit_test(test_reject_missing_file_and_directory),
        cmocka_unit_test(test_reject_line_too_long),
        cmocka_unit_test(test_reject_meta_text_too_long),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
