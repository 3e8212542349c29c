/* Unit tests of the calibration table: names, storage, validation, the CSV
 * loader (every rejection rule of docs/table-format.md) and the atomic writer.
 *
 * The tables here are synthetic, made by a formula in this file, so that
 * every expected value can be computed by hand; they are not measurements. */
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
#include "gpuq/table.h"

/* ---- helpers ---------------------------------------------------------- */

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
static void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)

static char tmp_dir[256];

static int make_tmp_dir(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gpuq_test_table.XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_tmp_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp_dir, name);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Synthetic T for the test tables: T = 100 + 10 n + 3 e + 7 c, with
 * t_min = T - 1, t_max = T + 2 and spread = 3 / T. */
static double synth_T(int n, int e, int c)
{
    return 100.0 + 10.0 * n + 3.0 * e + 7.0 * c;
}

static gm_table_meta small_meta(int n_max, int e_max)
{
    gm_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU");
    m.cc_major = 9;
    m.cc_minor = 0;
    m.sm_count = 4;
    m.max_warps_per_sm = n_max;
    m.warp_size = e_max;
    m.sm_clock_mhz = 1980;
    m.driver_version = 13000;
    m.runtime_version = 13000;
    snprintf(m.date, sizeof m.date, "2026-11-22T00:00:00Z");
    snprintf(m.method_note, sizeof m.method_note, "synthetic test table");
    m.reps = 7;
    m.spread_threshold = 0.05;
    snprintf(m.gpuq_version, sizeof m.gpuq_version, "0.1.0");
    return m;
}

static void fill_series(gm_series *s)
{
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                gm_cell *cell = gm_series_cell(s, n, e, c);
                double T = synth_T(n, e, c);
                *cell = (gm_cell){T, T - 1, T + 2, 3 / T, 7, 0};
            }
}

/* A complete table: add/same_address/single_shot mixing CAS, and
 * popc_inc/same_address/single_shot without. */
static gm_table *synth_table(int n_max, int e_max)
{
    gm_table_meta m = small_meta(n_max, e_max);
    gm_table *t = gm_table_new(&m);
    assert_non_null(t);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    fill_series(s);
    assert_int_equal(gm_table_add_series(t, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 0, &s),
                     GM_OK);
    fill_series(s);
    return t;
}

/* A table file as editable lines.  The base text (n_max = 2, e_max = 2):
 *   line 1      magic
 *   lines 2-14  metadata, in writer order (gpu_name .. gpuq_version)
 *   lines 15-16 series add (mixes CAS), popc_inc (no CAS)
 *   line 17     column header
 *   lines 18-27 add rows: n=1 (e=1 c=0,1; e=2 c=0,1), n=2 (e=1 c=0..2; e=2 c=0..2)
 *   lines 28-31 popc_inc rows: (n,e) = (1,1) (1,2) (2,1) (2,2)
 * Tests change one line and check the loader's answer. */
#define MAX_LINES 64
typedef struct text {
    int count;
    char line[MAX_LINES][256];
} text;

static void text_base(text *t)
{
    static const char *const head[] = {
        "# gpuq calibration table v1",
        "# gpu_name: Test GPU",
        "# compute_capability: 9.0",
        "# sm_count: 4",
        "# max_warps_per_sm: 2",
        "# warp_size: 2",
        "# sm_clock_mhz: 1980",
        "# driver_version: 13000",
        "# runtime_version: 13000",
        "# date: 2026-11-22T00:00:00Z",
        "# method_note: synthetic test table",
        "# reps: 7",
        "# spread_threshold: 0.05",
        "# gpuq_version: 0.1.0",
        "# series: add,same_address,single_shot,mixes_cas=1",
        "# series: popc_inc,same_address,single_shot,mixes_cas=0",
        "class,pattern,method,n,e,c,t_median,t_min,t_max,spread,reps,flags",
    };
    t->count = 0;
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        snprintf(t->line[t->count++], 256, "%s", head[i]);
    for (int n = 1; n <= 2; n++)
        for (int e = 1; e <= 2; e++)
            for (int c = 0; c <= n; c++) {
                double T = synth_T(n, e, c);
                snprintf(t->line[t->count++], 256, "add,same_address,single_shot,%d,%d,%d,%g,%g,%g,0.02,7,0",
                         n, e, c, T, T - 1, T + 2);
            }
    for (int n = 1; n <= 2; n++)
        for (int e = 1; e <= 2; e++) {
            double T = synth_T(n, e, 0) / 2;
            snprintf(t->line[t->count++], 256, "popc_inc,same_address,single_shot,%d,%d,0,%g,%g,%g,0.02,7,0",
                     n, e, T, T - 1, T + 2);
        }
}

/* 1-based line numbers, as in the loader's messages. */
static void text_set(text *t, int line_no, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->line[line_no - 1], 256, fmt, ap);
    va_end(ap);
}

static void text_insert(text *t, int line_no, const char *s)
{
    assert_true(t->count < MAX_LINES);
    memmove(t->line[line_no], t->line[line_no - 1], (size_t)(t->count - line_no + 1) * 256);
    snprintf(t->line[line_no - 1], 256, "%s", s);
    t->count++;
}

static void text_delete(text *t, int line_no)
{
    memmove(t->line[line_no - 1], t->line[line_no], (size_t)(t->count - line_no) * 256);
    t->count--;
}

static void text_write(const text *t, const char *path, const char *eol)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < t->count; i++)
        fprintf(f, "%s%s", t->line[i], eol);
    assert_int_equal(fclose(f), 0);
}

/* Loads text t and expects status want with `needle` in the message. */
static void expect_load(const text *t, gm_status want, const char *needle)
{
    char path[300];
    tmp_path(path, sizeof path, "x.csv");
    text_write(t, path, "\n");
    gm_table *table = NULL;
    gm_error err = {{0}};
    gm_status st = gm_table_load(path, &table, &err);
    if (st != want || (needle && !strstr(err.msg, needle)))
        print_error("status %s, message '%s'; wanted %s with '%s'\n", gm_strerror(st), err.msg,
                    gm_strerror(want), needle ? needle : "");
    assert_int_equal(st, want);
    if (needle)
        assert_non_null(strstr(err.msg, needle));
    if (want == GM_OK)
        assert_non_null(table);
    else {
        assert_null(table);
        /* Every rejection names the file. */
        assert_non_null(strstr(err.msg, path));
    }
    gm_table_free(table);
}

static void expect_line_error(int line_no, const char *content, gm_status want, const char *needle)
{
    text t;
    text_base(&t);
    text_set(&t, line_no, "%s", content);
    char with_line[300];
    snprintf(with_line, sizeof with_line, "x.csv:%d: %s", line_no, needle);
    expect_load(&t, want, with_line);
}

/* ---- names ------------------------------------------------------------ */

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < GM_CLASS_COUNT; i++) {
        gm_job_class c;
        assert_int_equal(gm_class_parse(gm_class_name((gm_job_class)i), &c), GM_OK);
        assert_int_equal(c, i);
    }
    for (int i = 0; i < GM_PATTERN_COUNT; i++) {
        gm_pattern p;
        assert_int_equal(gm_pattern_parse(gm_pattern_name((gm_pattern)i), &p), GM_OK);
        assert_int_equal(p, i);
    }
    for (int i = 0; i < GM_METHOD_COUNT; i++) {
        gm_method m;
        assert_int_equal(gm_method_parse(gm_method_name((gm_method)i), &m), GM_OK);
        assert_int_equal(m, i);
    }
    assert_string_equal(gm_class_name(GM_CLASS_POPC_INC), "popc_inc");
    assert_string_equal(gm_pattern_name(GM_PATTERN_SAME_ADDRESS), "same_address");
    assert_string_equal(gm_method_name(GM_METHOD_STEADY_STATE), "steady_state");
}

static void test_names_unknown(void **state)
{
    (void)state;
    gm_job_class c;
    gm_pattern p;
    gm_method m;
    assert_int_equal(gm_class_parse("ADD", &c), GM_ERR_PARSE);
    assert_int_equal(gm_class_parse("", &c), GM_ERR_PARSE);
    assert_int_equal(gm_class_parse(NULL, &c), GM_ERR_PARSE);
    assert_int_equal(gm_pattern_parse("same", &p), GM_ERR_PARSE);
    assert_int_equal(gm_method_parse("single-shot", &m), GM_ERR_PARSE);
    assert_string_equal(gm_class_name(GM_CLASS_COUNT), "unknown");
}

/* ---- storage ---------------------------------------------------------- */

static void test_add_find_and_nan_cells(void **state)
{
    (void)state;
    gm_table_meta m = small_meta(3, 2);
    gm_table *t = gm_table_new(&m);
    gm_series *s = NULL;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    assert_int_equal(s->n_max, 3);
    assert_int_equal(s->e_max, 2);
    assert_true(isnan(gm_series_cell(s, 3, 2, 3)->t_median));
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 0, NULL),
                     GM_ERR_DUPLICATE);
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_STEADY_STATE, 1, NULL),
                     GM_OK);
    const gm_series *found = gm_table_find(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                           GM_METHOD_STEADY_STATE);
    assert_non_null(found);
    assert_int_equal(found->method, GM_METHOD_STEADY_STATE);
    assert_null(gm_table_find(t, GM_CLASS_CAS, GM_PATTERN_SAME_ADDRESS, GM_METHOD_SINGLE_SHOT));
    assert_int_equal(t->n_series, 2);
    gm_table_free(t);
}

static void test_add_series_needs_valid_axes(void **state)
{
    (void)state;
    gm_table_meta m = small_meta(0, 32);
    gm_table *t = gm_table_new(&m);
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, NULL),
                     GM_ERR_INVALID_ARG);
    t->meta.max_warps_per_sm = 4;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_COUNT, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, NULL),
                     GM_ERR_INVALID_ARG);
    gm_table_free(t);
    gm_table_free(NULL); /* allowed, like free() */
}

static void test_series_cell_bounds(void **state)
{
    (void)state;
    gm_table *t = synth_table(4, 3);
    const gm_series *add = &t->series[0], *popc = &t->series[1];
    assert_non_null(gm_series_cell(add, 1, 1, 0));
    assert_non_null(gm_series_cell(add, 4, 3, 4));
    assert_null(gm_series_cell(add, 0, 1, 0));
    assert_null(gm_series_cell(add, 5, 1, 0));
    assert_null(gm_series_cell(add, 1, 0, 0));
    assert_null(gm_series_cell(add, 1, 4, 0));
    assert_null(gm_series_cell(add, 1, 1, -1));
    assert_null(gm_series_cell(add, 2, 1, 3)); /* c <= n */
    assert_non_null(gm_series_cell(popc, 4, 3, 0));
    assert_null(gm_series_cell(popc, 4, 3, 1)); /* no CAS axis */
    assert_null(gm_series_cell(NULL, 1, 1, 0));
    /* Every (n, e, c) has its own cell holding its own value. */
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 3; e++)
            for (int c = 0; c <= n; c++)
                assert_near(gm_series_cell(add, n, e, c)->t_median, synth_T(n, e, c), 0);
    gm_table_free(t);
}

/* ---- validate --------------------------------------------------------- */

static void test_validate_complete_ok(void **state)
{
    (void)state;
    gm_table *t = synth_table(4, 3);
    gm_error err = {{0}};
    assert_int_equal(gm_table_validate(t, &err), GM_OK);
    gm_table_free(t);
}

static void test_validate_missing_cell_named(void **state)
{
    (void)state;
    gm_table *t = synth_table(4, 3);
    gm_series_cell(&t->series[0], 3, 2, 1)->t_median = NAN;
    gm_series_cell(&t->series[0], 4, 1, 0)->t_median = NAN;
    gm_error err = {{0}};
    assert_int_equal(gm_table_validate(t, &err), GM_ERR_MISSING);
    /* The first missing cell in (n, e, c) order. */
    assert_non_null(strstr(err.msg, "series add,same_address,single_shot: cell n=3 e=2 c=1"));
    gm_table_free(t);
}

static void test_validate_bad_values(void **state)
{
    (void)state;
    gm_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    gm_cell *cell = gm_series_cell(&t->series[1], 2, 2, 0);
    gm_cell keep = *cell;
    cell->t_max = INFINITY;
    assert_int_equal(gm_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "t_max is infinite"));
    *cell = keep;
    cell->t_min = -1;
    assert_int_equal(gm_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "t_min=-1 is negative"));
    *cell = keep;
    cell->t_min = cell->t_median + 1;
    assert_int_equal(gm_table_validate(t, &err), GM_ERR_RANGE);
    *cell = keep;
    t->meta.sm_count = 0;
    assert_int_equal(gm_table_validate(t, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "sm_count"));
    t->meta.sm_count = 4;
    assert_int_equal(gm_table_validate(t, &err), GM_OK);
    assert_int_equal(gm_table_validate(NULL, &err), GM_ERR_INVALID_ARG);
    gm_table_free(t);
}

/* ---- loader: valid inputs --------------------------------------------- */

static void test_load_base_text(void **state)
{
    (void)state;
    text t;
    text_base(&t);
    char path[300];
    tmp_path(path, sizeof path, "base.csv");
    text_write(&t, path, "\n");
    gm_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_table_load(path, &table, &err), GM_OK);
    assert_string_equal(table->meta.gpu_name, "Test GPU");
    assert_int_equal(table->meta.cc_major, 9);
    assert_int_equal(table->meta.cc_minor, 0);
    assert_int_equal(table->meta.max_warps_per_sm, 2);
    assert_near(table->meta.spread_threshold, 0.05, 0);
    assert_int_equal(table->n_series, 2);
    const gm_series *add = gm_table_find(table, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT);
    assert_non_null(add);
    assert_int_equal(add->mixes_cas, 1);
    /* line 27 is n=2 e=2 c=2: T = 100 + 20 + 6 + 14 = 140 */
    assert_near(gm_series_cell(add, 2, 2, 2)->t_median, 140, 0);
    assert_near(gm_series_cell(add, 2, 2, 2)->t_max, 142, 0);
    const gm_series *popc = gm_table_find(table, GM_CLASS_POPC_INC, GM_PATTERN_SAME_ADDRESS,
                                          GM_METHOD_SINGLE_SHOT);
    assert_int_equal(popc->mixes_cas, 0);
    /* (100 + 10 + 6) / 2 = 58 */
    assert_near(gm_series_cell(popc, 1, 2, 0)->t_median, 58, 0);
    gm_table_free(table);
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
    gm_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_table_load(path, &table, &err), GM_OK);
    assert_string_equal(table->meta.gpu_name, "Test GPU"); /* no stray '\r' */
    gm_table_free(table);
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
    gm_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_table_load_stream(f, "stdin", &table, &err), GM_ERR_MISSING);
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
    gm_table *table = NULL;
    gm_error err = {{0}};
    tmp_path(path, sizeof path, "does-not-exist.csv");
    assert_int_equal(gm_table_load(path, &table, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot open (No such file or directory)"));
    assert_null(table);
    assert_int_equal(gm_table_load(tmp_dir, &table, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "is a directory"));
    assert_null(table);
    assert_int_equal(gm_table_load(NULL, &table, &err), GM_ERR_INVALID_ARG);
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
    gm_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_table_load(path, &table, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "long.csv:2: line longer than 4095 characters"));
}

static void test_reject_meta_text_too_long(void **state)
{
    (void)state;
    char line[256];
    snprintf(line, sizeof line, "# date: %040d", 0);
    expect_line_error(10, line, GM_ERR_RANGE, "date longer than 31 characters");
}

/* ---- writer ----------------------------------------------------------- */

static void assert_tables_identical(const gm_table *a, const gm_table *b)
{
    const gm_table_meta *ma = &a->meta, *mb = &b->meta;
    assert_string_equal(ma->gpu_name, mb->gpu_name);
    assert_int_equal(ma->cc_major, mb->cc_major);
    assert_int_equal(ma->cc_minor, mb->cc_minor);
    assert_int_equal(ma->sm_count, mb->sm_count);
    assert_int_equal(ma->max_warps_per_sm, mb->max_warps_per_sm);
    assert_int_equal(ma->warp_size, mb->warp_size);
    assert_memory_equal(&ma->sm_clock_mhz, &mb->sm_clock_mhz, sizeof(double));
    assert_int_equal(ma->driver_version, mb->driver_version);
    assert_int_equal(ma->runtime_version, mb->runtime_version);
    assert_string_equal(ma->date, mb->date);
    assert_string_equal(ma->method_note, mb->method_note);
    assert_int_equal(ma->reps, mb->reps);
    assert_memory_equal(&ma->spread_threshold, &mb->spread_threshold, sizeof(double));
    assert_string_equal(ma->gpuq_version, mb->gpuq_version);
    assert_int_equal(a->n_series, b->n_series);
    for (int i = 0; i < a->n_series; i++) {
        const gm_series *sa = &a->series[i], *sb = &b->series[i];
        assert_int_equal(sa->cls, sb->cls);
        assert_int_equal(sa->pattern, sb->pattern);
        assert_int_equal(sa->method, sb->method);
        assert_int_equal(sa->mixes_cas, sb->mixes_cas);
        for (int n = 1; n <= sa->n_max; n++)
            for (int e = 1; e <= sa->e_max; e++)
                for (int c = 0; c <= (sa->mixes_cas ? n : 0); c++) {
                    const gm_cell *x = gm_series_cell(sa, n, e, c), *y = gm_series_cell(sb, n, e, c);
                    if (isnan(x->t_median)) {
                        assert_true(isnan(y->t_median));
                        continue;
                    }
                    /* bit-exact, not approximately equal */
                    assert_memory_equal(&x->t_median, &y->t_median, sizeof(double));
                    assert_memory_equal(&x->t_min, &y->t_min, sizeof(double));
                    assert_memory_equal(&x->t_max, &y->t_max, sizeof(double));
                    assert_memory_equal(&x->spread, &y->spread, sizeof(double));
                    assert_int_equal(x->reps, y->reps);
                    assert_int_equal(x->flags, y->flags);
                }
    }
}

static void test_write_load_round_trip_exact(void **state)
{
    (void)state;
    gm_table *t = synth_table(5, 4);
    /* Values that %.9g or %g would round: thirds, tiny, huge, 0. */
    gm_cell *cell = gm_series_cell(&t->series[0], 3, 2, 1);
    *cell = (gm_cell){1.0 / 3.0 + 300, 0.1 + 0.2 + 299, 1e15 / 7, 2.0 / 3.0, 11, GM_CELL_REMEASURED};
    cell = gm_series_cell(&t->series[1], 1, 1, 0);
    *cell = (gm_cell){0, 0, 5e-324, 0, 0, GM_CELL_HIGH_SPREAD | GM_CELL_NOT_CORESIDENT};
    t->meta.sm_clock_mhz = 1980.0 / 7.0;
    t->meta.spread_threshold = 0.1;
    char path[300];
    tmp_path(path, sizeof path, "round.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    gm_table *back = NULL;
    assert_int_equal(gm_table_load(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    /* and writing what was read gives the same bytes */
    char path2[300];
    tmp_path(path2, sizeof path2, "round2.csv");
    assert_int_equal(gm_table_write_file(path2, back, &err), GM_OK);
    char *a = test_read_file(path), *b = test_read_file(path2);
    assert_string_equal(a, b);
    /* compact: a plain value is written without 17 digits */
    assert_non_null(strstr(a, "add,same_address,single_shot,1,1,0,113,112,115,"));
    free(a);
    free(b);
    gm_table_free(back);
    gm_table_free(t);
}

static void test_write_full_size_table_round_trip(void **state)
{
    (void)state;
    /* Hopper size: 64 warps x 32 lanes, c = 0..n: 32 x (2 + 3 + ... + 65) = 68,608 cells in the FAO/CAS series. */
    gm_table *t = synth_table(64, 32);
    char path[300];
    tmp_path(path, sizeof path, "h200-size.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    gm_table *back = NULL;
    assert_int_equal(gm_table_load(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    gm_table_free(back);
    gm_table_free(t);
}

static void test_write_stream_header_format(void **state)
{
    (void)state;
    gm_table *t = synth_table(1, 1);
    FILE *f = tmpfile();
    gm_error err = {{0}};
    assert_int_equal(gm_table_write(f, t, &err), GM_OK);
    rewind(f);
    char line[300];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "# gpuq calibration table v2\n");
    /* v2: the common machine-data header first (gpuq/mdata.h). */
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "# suite: atomics\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "# gpu_name: Test GPU\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "# compute_capability: 9.0\n");
    fclose(f);
    gm_table_free(t);
}

/* v2 round trip of what v1 could not hold (mem_clock_mhz) and of a clock
 * with more than six digits; the header is read by the machine-data header
 * reader too (gm_mdata_read_meta), as the GPU folders are searched. */
static void test_v2_header_round_trip(void **state)
{
    (void)state;
    gm_table *t = synth_table(1, 1);
    t->meta.sm_clock_mhz = 1979.99935;
    t->meta.mem_clock_mhz = 2619.5;
    snprintf(t->meta.date, sizeof t->meta.date, "2026-11-25T20:00:00Z");
    char path[300];
    tmp_path(path, sizeof path, "v2.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    gm_table *back = NULL;
    assert_int_equal(gm_table_load(path, &back, &err), GM_OK);
    assert_true(back->meta.sm_clock_mhz == 1979.99935);
    assert_true(back->meta.mem_clock_mhz == 2619.5);
    assert_string_equal(back->meta.method_note, t->meta.method_note);
    assert_tables_identical(t, back);
    gm_mdata_meta mm;
    assert_int_equal(gm_mdata_read_meta(path, &mm, &err), GM_OK);
    assert_string_equal(mm.suite, "atomics");
    assert_string_equal(mm.gpu_name, "Test GPU");
    assert_true(mm.sm_clock_mhz == 1979.99935);
    assert_string_equal(mm.method, t->meta.method_note);
    gm_table_free(back);
    gm_table_free(t);
}

/* Another suite's header on a table body is refused by name. */
static void test_v2_other_suite_refused(void **state)
{
    (void)state;
    gm_table *t = synth_table(1, 1);
    char path[300];
    tmp_path(path, sizeof path, "suite.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    /* Rewrite line 2 ("# suite: atomics") as another suite. */
    FILE *f = fopen(path, "r+");
    assert_non_null(f);
    char first[64];
    assert_non_null(fgets(first, sizeof first, f));
    assert_int_equal(fputs("# suite: sched  ", f) >= 0, 1); /* same length as "# suite: atomics" */
    fclose(f);
    gm_table *back = NULL;
    assert_int_equal(gm_table_load(path, &back, &err), GM_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "suite 'sched'"));
    assert_null(back);
    gm_table_free(t);
}

static int count_tmp_files(void)
{
    DIR *d = opendir(tmp_dir);
    assert_non_null(d);
    int count = 0;
    struct dirent *ent;
    while ((ent = readdir(d)))
        if (strstr(ent->d_name, ".tmp."))
            count++;
    closedir(d);
    return count;
}

static void test_write_failure_keeps_old_file(void **state)
{
    (void)state;
    char path[300];
    tmp_path(path, sizeof path, "keep.csv");
    gm_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    char *before = test_read_file(path);
    /* An invalid table fails after the temporary file was created. */
    gm_series_cell(&t->series[0], 2, 1, 1)->t_min = -5;
    assert_int_equal(gm_table_write_file(path, t, &err), GM_ERR_RANGE);
    char *after = test_read_file(path);
    assert_string_equal(before, after);
    assert_int_equal(count_tmp_files(), 0);
    free(before);
    free(after);
    gm_table_free(t);
}

static void test_write_rename_failure_cleans_up(void **state)
{
    (void)state;
    /* Renaming a file over a non-empty directory fails: the directory stays,
     * the temporary file goes. */
    char dir[300], inner[320];
    tmp_path(dir, sizeof dir, "occupied");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(inner, sizeof inner, "%s/keep", dir);
    write_text(inner, "x");
    gm_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(dir, t, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot rename"));
    struct stat sb;
    assert_int_equal(stat(inner, &sb), 0);
    assert_int_equal(count_tmp_files(), 0);
    gm_table_free(t);
}

static void test_write_missing_directory(void **state)
{
    (void)state;
    char path[300];
    tmp_path(path, sizeof path, "no/such/dir/t.csv");
    gm_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot create temporary file"));
    gm_table_free(t);
}

static void test_write_unwritable_directory(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root writes into a read-only directory anyway */
    char dir[300], path[320];
    tmp_path(dir, sizeof dir, "readonly");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/t.csv", dir);
    gm_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    char *before = test_read_file(path);
    chmod(dir, 0555);
    gm_series_cell(&t->series[0], 1, 1, 0)->t_median = 113.5;
    assert_int_equal(gm_table_write_file(path, t, &err), GM_ERR_IO);
    chmod(dir, 0755);
    char *after = test_read_file(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
    gm_table_free(t);
}

/* ---- partial tables (checkpoints) ------------------------------------- */

static void test_partial_checkpoint(void **state)
{
    (void)state;
    gm_table_meta m = small_meta(3, 2);
    gm_table *t = gm_table_new(&m);
    gm_series *s;
    assert_int_equal(gm_table_add_series(t, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    /* only n = 1 measured so far */
    for (int e = 1; e <= 2; e++)
        for (int c = 0; c <= 1; c++)
            *gm_series_cell(s, 1, e, c) = (gm_cell){synth_T(1, e, c), synth_T(1, e, c), synth_T(1, e, c), 0, 3, 0};
    char path[300];
    tmp_path(path, sizeof path, "checkpoint.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_table_write_file(path, t, &err), GM_OK);
    gm_table *back = NULL;
    assert_int_equal(gm_table_load(path, &back, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "cell n=2 e=1 c=0: missing"));
    assert_null(back);
    assert_int_equal(gm_table_load_partial(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    assert_true(isnan(gm_series_cell(&back->series[0], 3, 2, 3)->t_median));
    assert_near(gm_series_cell(&back->series[0], 1, 2, 1)->t_median, synth_T(1, 2, 1), 0);
    /* a partial load still rejects a bad row */
    text tx;
    text_base(&tx);
    text_set(&tx, 18, "add,same_address,single_shot,1,1,0,113,112,inf,0.02,7,0");
    char bad[300];
    tmp_path(bad, sizeof bad, "bad-partial.csv");
    text_write(&tx, bad, "\n");
    gm_table_free(back);
    back = NULL;
    assert_int_equal(gm_table_load_partial(bad, &back, &err), GM_ERR_RANGE);
    gm_table_free(t);
}

static void test_loads_shipped_test_data(void **state)
{
    (void)state;
    /* tests/model/data/tiny.csv: a hand-written 2-warp, 2-lane table kept
     * in the repository, so that the format is also pinned by a file. */
    gm_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_table_load(GPUQ_SOURCE_DIR "/tests/model/data/tiny.csv", &table, &err),
                     GM_OK);
    assert_int_equal(table->meta.max_warps_per_sm, 2);
    const gm_series *add = gm_table_find(table, GM_CLASS_ADD, GM_PATTERN_SAME_ADDRESS,
                                         GM_METHOD_SINGLE_SHOT);
    assert_non_null(add);
    assert_near(gm_series_cell(add, 2, 2, 1)->t_median, 160, 0);
    gm_table_free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_names_unknown),
        cmocka_unit_test(test_add_find_and_nan_cells),
        cmocka_unit_test(test_add_series_needs_valid_axes),
        cmocka_unit_test(test_series_cell_bounds),
        cmocka_unit_test(test_validate_complete_ok),
        cmocka_unit_test(test_validate_missing_cell_named),
        cmocka_unit_test(test_validate_bad_values),
        cmocka_unit_test(test_load_base_text),
        cmocka_unit_test(test_load_crlf_and_blank_lines),
        cmocka_unit_test(test_load_columns_in_any_row_order_and_spaces),
        cmocka_unit_test(test_load_other_warp_size_allowed),
        cmocka_unit_test(test_load_stream_name),
        cmocka_unit_test(test_reject_empty_file),
        cmocka_unit_test(test_reject_wrong_magic),
        cmocka_unit_test(test_reject_missing_magic),
        cmocka_unit_test(test_reject_unsupported_version),
        cmocka_unit_test(test_v2_header_round_trip),
        cmocka_unit_test(test_v2_other_suite_refused),
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
        cmocka_unit_test(test_write_load_round_trip_exact),
        cmocka_unit_test(test_write_full_size_table_round_trip),
        cmocka_unit_test(test_write_stream_header_format),
        cmocka_unit_test(test_write_failure_keeps_old_file),
        cmocka_unit_test(test_write_rename_failure_cleans_up),
        cmocka_unit_test(test_write_missing_directory),
        cmocka_unit_test(test_write_unwritable_directory),
        cmocka_unit_test(test_partial_checkpoint),
        cmocka_unit_test(test_loads_shipped_test_data),
    };
    return cmocka_run_group_tests(tests, make_tmp_dir, remove_tmp_dir);
}
