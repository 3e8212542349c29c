/* Machine data: the common header, the generic file, finding a GPU's file. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/mdata.h"
#include "test_helpers.h"

static gm_mdata_meta sample_meta(void)
{
    gm_mdata_meta m = th_meta("sched", TH_H100, 132, "2026-11-24T03:00:00Z");
    m.sm_clock_mhz = 1755;
    m.driver_version = 13000;
    m.runtime_version = 13000;
    snprintf(m.method, sizeof m.method, "test");
    snprintf(m.gpuq_version, sizeof m.gpuq_version, "0.2.0");
    return m;
}

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpuq-test-mdata.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static gm_status load_text(const char *text, gm_mdata **md, gm_error *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    gm_status st = gm_mdata_load_stream(f, "t.csv", md, err);
    fclose(f);
    return st;
}

static void round_trip(void **state)
{
    (void)state;
    gm_mdata_meta meta = sample_meta();
    const char *cols[] = {"param", "value", "documented"};
    gm_mdata *md = gm_mdata_new(&meta, 3, cols);
    assert_non_null(md);
    gm_error err;
    const char *t1[] = {"n_mp", NULL, NULL};
    double v1[] = {0, 132, 132};
    assert_int_equal(gm_mdata_add_values(md, t1, v1, &err), GM_OK);
    const char *t2[] = {"N_slot", NULL, "nan"};
    double v2[] = {0, 0.1 + 0.2, 0};
    assert_int_equal(gm_mdata_add_values(md, t2, v2, &err), GM_OK);

    char path[400];
    snprintf(path, sizeof path, "%s/sched.csv", tmpdir);
    assert_int_equal(gm_mdata_write_file(path, md, &err), GM_OK);
    gm_mdata *back = NULL;
    assert_int_equal(gm_mdata_load(path, &back, &err), GM_OK);
    assert_int_equal(back->n_rows, 2);
    assert_int_equal(back->n_cols, 3);
    assert_string_equal(back->meta.gpu_name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(back->meta.cc_major, 9);
    assert_int_equal(back->meta.sm_count, 132);
    int value = gm_mdata_col(back, "value");
    assert_int_equal(value, 1);
    assert_int_equal(gm_mdata_col(back, "absent"), -1);
    /* %.17g: the double reads back bit for bit. */
    assert_true(gm_mdata_num(back, 1, value) == 0.1 + 0.2);
    assert_string_equal(gm_mdata_text(back, 0, 0), "n_mp");
    assert_true(isnan(gm_mdata_num(back, 0, 0)));
    assert_true(isnan(gm_mdata_num(back, 1, 2)));
    assert_null(gm_mdata_text(back, 2, 0));

    /* The same through gzip. */
    snprintf(path, sizeof path, "%s/sched.csv.gz", tmpdir);
    assert_int_equal(gm_mdata_write_file(path, md, &err), GM_OK);
    gm_mdata *gz = NULL;
    assert_int_equal(gm_mdata_load(path, &gz, &err), GM_OK);
    assert_int_equal(gz->n_rows, 2);
    gm_mdata_free(gz);
    gm_mdata_free(back);
    gm_mdata_free(md);
}

static void rejects_bad_cells_and_columns(void **state)
{
    (void)state;
    gm_mdata_meta meta = sample_meta();
    const char *dup[] = {"a", "a"};
    assert_null(gm_mdata_new(&meta, 2, dup));
    const char *comma[] = {"a,b"};
    assert_null(gm_mdata_new(&meta, 1, comma));
    const char *cols[] = {"a"};
    gm_mdata *md = gm_mdata_new(&meta, 1, cols);
    gm_error err;
    const char *bad[] = {"x,y"};
    assert_int_equal(gm_mdata_add_row(md, bad, &err), GM_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "column 'a'"));
    gm_mdata_free(md);
}

#define HEADER                                                                               \
    "# gpuq machine data v1\n# suite: sched\n# gpu_name: G\n# compute_capability: 9.0\n"     \
    "# sm_count: 4\n# date: 2026-11-24\n"

static void loader_reports_line_numbers(void **state)
{
    (void)state;
    struct {
        const char *text;
        gm_status st;
        const char *needle;
    } cases[] = {
        {"", GM_ERR_PARSE, "empty file"},
        {"a,b\n", GM_ERR_PARSE, "t.csv:1: not a gpuq machine-data file"},
        {"# gpuq machine data v7\n", GM_ERR_MISMATCH, "format version '7'"},
        {HEADER "a,b\n1,2\n3\n", GM_ERR_PARSE, "t.csv:9: 1 fields, the header has 2"},
        {HEADER "a,b\n1,2,3\n", GM_ERR_PARSE, "t.csv:8: more than 2 fields"},
        {HEADER "a,a\n", GM_ERR_DUPLICATE, "t.csv:7: column 'a' named twice"},
        {HEADER "a,\n", GM_ERR_PARSE, "column 2 has no name"},
        {HEADER, GM_ERR_MISSING, "no column header"},
        {HEADER "a\n# late: 1\n", GM_ERR_PARSE, "t.csv:8: '#' line after"},
        {"# gpuq machine data v1\n# suite: s\n# gpu_name: G\n# compute_capability: 9.0\n"
         "# date: d\na\n",
         GM_ERR_MISSING, "no 'sm_count'"},
        {"# gpuq machine data v1\n# sm_count: many\n", GM_ERR_PARSE, "t.csv:2: sm_count"},
        {"# gpuq machine data v1\n# compute_capability: 9\n", GM_ERR_PARSE, "MAJOR.MINOR"},
        {"# gpuq machine data v1\n# sm_clock_mhz: -5\n", GM_ERR_RANGE, "sm_clock_mhz"},
        {"# gpuq machine data v1\nno colon here\n", GM_ERR_MISSING, "t.csv:2: header: no 'suite'"},
        {"# gpuq calibration table v1\n# gpu_name: G\n", GM_ERR_MISSING, "no column header"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gm_mdata *md = (gm_mdata *)&md;
        gm_error err = {{0}};
        gm_status st = load_text(cases[i].text, &md, &err);
        if (st != cases[i].st || !strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: status %d (want %d), message '%s' (want '%s')", i, (int)st,
                     (int)cases[i].st, err.msg, cases[i].needle);
        assert_null(md);
    }
}

static void loader_refuses_nul_and_keeps_unknown_keys_out(void **state)
{
    (void)state;
    static const char with_nul[] = HEADER "a,b\n1,\0" "2\n";
    FILE *f = fmemopen((void *)with_nul, sizeof with_nul - 1, "r");
    gm_mdata *md = NULL;
    gm_error err;
    assert_int_equal(gm_mdata_load_stream(f, "t.csv", &md, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "t.csv:8: NUL byte"));
    fclose(f);

    assert_int_equal(load_text(HEADER "# written_by_a_newer_gpuq: yes\nx\n7\n", &md, &err), GM_OK);
    assert_int_equal(md->n_rows, 1);
    assert_true(gm_mdata_num(md, 0, 0) == 7.0);
    gm_mdata_free(md);
}

static void dir_names(void **state)
{
    (void)state;
    char buf[64];
    gm_mdata_dir_name("NVIDIA H100 80GB HBM3", buf, sizeof buf);
    assert_string_equal(buf, "nvidia-h100-80gb-hbm3");
    gm_mdata_dir_name("NVIDIA H200", buf, sizeof buf);
    assert_string_equal(buf, "nvidia-h200");
    gm_mdata_dir_name("  --Tesla (T4)!! ", buf, sizeof buf);
    assert_string_equal(buf, "tesla-t4");
    gm_mdata_dir_name("", buf, sizeof buf);
    assert_string_equal(buf, "unknown-gpu");
    gm_mdata_dir_name("NVIDIA H100 80GB HBM3", buf, 8);
    assert_int_equal(strlen(buf), 7);
}

static void find_by_header_not_folder_name(void **state)
{
    (void)state;
    char dir[400], path[600];
    /* The folder's name says nothing about the GPU: the header decides. */
    snprintf(dir, sizeof dir, "%s/tables/some-folder", tmpdir);
    char mk[500];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", dir);
    assert_int_equal(system(mk), 0);
    gm_mdata_meta meta = sample_meta();
    const char *cols[] = {"x"};
    gm_mdata *md = gm_mdata_new(&meta, 1, cols);
    const char *row[] = {"1"};
    gm_error err;
    assert_int_equal(gm_mdata_add_row(md, row, &err), GM_OK);
    snprintf(path, sizeof path, "%s/sched.csv.gz", dir);
    assert_int_equal(gm_mdata_write_file(path, md, &err), GM_OK);
    gm_mdata_free(md);

    char tables[400];
    snprintf(tables, sizeof tables, "%s/tables", tmpdir);
    unsetenv("GPUQ_TABLE_DIR");
    gm_mdata_set_search_dirs(NULL, tables);
    char found[600];
    assert_int_equal(gm_mdata_find("NVIDIA H100 80GB HBM3", 132, "sched", "sched.csv", found,
                                   sizeof found, &err),
                     GM_OK);
    assert_string_equal(found, path);
    assert_int_equal(gm_mdata_find("NVIDIA H100 80GB HBM3", 0, "sched", "sched.csv", found,
                                   sizeof found, &err),
                     GM_OK);
    assert_int_equal(gm_mdata_find("NVIDIA H100 80GB HBM3", 114, "sched", "sched.csv", found,
                                   sizeof found, &err),
                     GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "gpuq calibrate --suite sched"));
    assert_int_equal(gm_mdata_find("NVIDIA H200", 132, "sched", "sched.csv", found,
                                   sizeof found, &err),
                     GM_ERR_MISSING);
    gm_mdata_meta m;
    assert_int_equal(gm_mdata_read_meta(path, &m, &err), GM_OK);
    assert_string_equal(m.suite, "sched");
}

static void reads_the_atomic_table_header(void **state)
{
    (void)state;
    /* The shipped atomic tables are machine data too: their header has the
     * common keys (method_note standing for method) and suite "atomics". */
    static const char table[] =
        "# gpuq calibration table v1\n# gpu_name: NVIDIA H200\n# compute_capability: 9.0\n"
        "# sm_count: 132\n# max_warps_per_sm: 64\n# date: 2026-11-22T02:06:53Z\n"
        "# method_note: single shot\nclass,pattern\n";
    char path[400];
    snprintf(path, sizeof path, "%s/atomics.csv", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(table, f);
    fclose(f);
    gm_mdata_meta m;
    gm_error err;
    assert_int_equal(gm_mdata_read_meta(path, &m, &err), GM_OK);
    assert_string_equal(m.suite, "atomics");
    assert_string_equal(m.method, "single shot");
    assert_int_equal(m.sm_count, 132);
    gm_mdata *md = NULL;
    assert_int_equal(gm_mdata_load(path, &md, &err), GM_ERR_MISMATCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(rejects_bad_cells_and_columns),
        cmocka_unit_test(loader_reports_line_numbers),
        cmocka_unit_test(loader_refuses_nul_and_keeps_unknown_keys_out),
        cmocka_unit_test(dir_names),
        cmocka_unit_test(find_by_header_not_folder_name),
        cmocka_unit_test(reads_the_atomic_table_header),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
