/* Unit tests of the calibration-table writer (atomic: temp file + rename),
 * its round trip through the loader, partial tables (checkpoints) and the
 * shipped test data.  Synthetic tables (atomics_table_fixture.h). */
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

/* ---- writer ----------------------------------------------------------- */

static void test_write_load_round_trip_exact(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(5, 4);
    /* Values that %.9g or %g would round: thirds, tiny, huge, 0. */
    gm_atomics_cell *cell = gm_atomics_series_cell(&t->series[0], 3, 2, 1);
    *cell = (gm_atomics_cell){1.0 / 3.0 + 300, 0.1 + 0.2 + 299, 1e15 / 7, 2.0 / 3.0, 11, GM_ATOMICS_CELL_REMEASURED};
    cell = gm_atomics_series_cell(&t->series[1], 1, 1, 0);
    *cell = (gm_atomics_cell){0, 0, 5e-324, 0, 0, GM_ATOMICS_CELL_HIGH_SPREAD | GM_ATOMICS_CELL_NOT_CORESIDENT};
    t->meta.sm_clock_mhz = 1980.0 / 7.0;
    t->meta.spread_threshold = 0.1;
    char path[300];
    tmp_path(path, sizeof path, "round.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    gm_atomics_table *back = NULL;
    assert_int_equal(gm_atomics_table_load(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    /* and writing what was read gives the same bytes */
    char path2[300];
    tmp_path(path2, sizeof path2, "round2.csv");
    assert_int_equal(gm_atomics_table_write_file(path2, back, &err), GM_OK);
    char *a = test_read_file(path), *b = test_read_file(path2);
    assert_string_equal(a, b);
    /* compact: a plain value is written without 17 digits */
    assert_non_null(strstr(a, "add,same_address,single_shot,1,1,0,113,112,115,"));
    free(a);
    free(b);
    gm_atomics_table_free(back);
    gm_atomics_table_free(t);
}

static void test_write_full_size_table_round_trip(void **state)
{
    (void)state;
    /* Hopper size: 64 warps x 32 lanes, c = 0..n: 32 x (2 + 3 + ... + 65) = 68,608 cells in the FAO/CAS series. */
    gm_atomics_table *t = synth_table(64, 32);
    char path[300];
    tmp_path(path, sizeof path, "h200-size.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    gm_atomics_table *back = NULL;
    assert_int_equal(gm_atomics_table_load(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    gm_atomics_table_free(back);
    gm_atomics_table_free(t);
}

static void test_write_stream_header_format(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(1, 1);
    FILE *f = tmpfile();
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write(f, t, &err), GM_OK);
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
    gm_atomics_table_free(t);
}

/* v2 round trip of what v1 could not hold (mem_clock_mhz) and of a clock
 * with more than six digits; the header is read by the machine-data header
 * reader too (gm_mdata_read_meta), as the GPU folders are searched. */
static void test_v2_header_round_trip(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(1, 1);
    t->meta.sm_clock_mhz = 1979.99935;
    t->meta.mem_clock_mhz = 2619.5;
    snprintf(t->meta.date, sizeof t->meta.date, "2026-11-25T20:00:00Z");
    char path[300];
    tmp_path(path, sizeof path, "v2.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    gm_atomics_table *back = NULL;
    assert_int_equal(gm_atomics_table_load(path, &back, &err), GM_OK);
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
    gm_atomics_table_free(back);
    gm_atomics_table_free(t);
}

/* Another suite's header on a table body is refused by name. */
static void test_v2_other_suite_refused(void **state)
{
    (void)state;
    gm_atomics_table *t = synth_table(1, 1);
    char path[300];
    tmp_path(path, sizeof path, "suite.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    /* Rewrite line 2 ("# suite: atomics") as another suite. */
    FILE *f = fopen(path, "r+");
    assert_non_null(f);
    char first[64];
    assert_non_null(fgets(first, sizeof first, f));
    assert_int_equal(fputs("# suite: sched  ", f) >= 0, 1); /* same length as "# suite: atomics" */
    fclose(f);
    gm_atomics_table *back = NULL;
    assert_int_equal(gm_atomics_table_load(path, &back, &err), GM_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "suite 'sched'"));
    assert_null(back);
    gm_atomics_table_free(t);
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
    gm_atomics_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    char *before = test_read_file(path);
    /* An invalid table fails after the temporary file was created. */
    gm_atomics_series_cell(&t->series[0], 2, 1, 1)->t_min = -5;
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_ERR_RANGE);
    char *after = test_read_file(path);
    assert_string_equal(before, after);
    assert_int_equal(count_tmp_files(), 0);
    free(before);
    free(after);
    gm_atomics_table_free(t);
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
    gm_atomics_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(dir, t, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot rename"));
    struct stat sb;
    assert_int_equal(stat(inner, &sb), 0);
    assert_int_equal(count_tmp_files(), 0);
    gm_atomics_table_free(t);
}

static void test_write_missing_directory(void **state)
{
    (void)state;
    char path[300];
    tmp_path(path, sizeof path, "no/such/dir/t.csv");
    gm_atomics_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot create temporary file"));
    gm_atomics_table_free(t);
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
    gm_atomics_table *t = synth_table(2, 2);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    char *before = test_read_file(path);
    chmod(dir, 0555);
    gm_atomics_series_cell(&t->series[0], 1, 1, 0)->t_median = 113.5;
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_ERR_IO);
    chmod(dir, 0755);
    char *after = test_read_file(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
    gm_atomics_table_free(t);
}

/* ---- partial tables (checkpoints) ------------------------------------- */

static void test_partial_checkpoint(void **state)
{
    (void)state;
    gm_atomics_table_meta m = small_meta(3, 2);
    gm_atomics_table *t = gm_atomics_table_new(&m);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    /* only n = 1 measured so far */
    for (int e = 1; e <= 2; e++)
        for (int c = 0; c <= 1; c++)
            *gm_atomics_series_cell(s, 1, e,
                                    c) = (gm_atomics_cell){synth_T(1, e, c), synth_T(1, e, c), synth_T(1, e, c), 0, 3, 0};
    char path[300];
    tmp_path(path, sizeof path, "checkpoint.csv");
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_write_file(path, t, &err), GM_OK);
    gm_atomics_table *back = NULL;
    assert_int_equal(gm_atomics_table_load(path, &back, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "cell n=2 e=1 c=0: missing"));
    assert_null(back);
    assert_int_equal(gm_atomics_table_load_partial(path, &back, &err), GM_OK);
    assert_tables_identical(t, back);
    assert_true(isnan(gm_atomics_series_cell(&back->series[0], 3, 2, 3)->t_median));
    assert_near(gm_atomics_series_cell(&back->series[0], 1, 2, 1)->t_median, synth_T(1, 2, 1), 0);
    /* a partial load still rejects a bad row */
    text tx;
    text_base(&tx);
    text_set(&tx, 18, "add,same_address,single_shot,1,1,0,113,112,inf,0.02,7,0");
    char bad[300];
    tmp_path(bad, sizeof bad, "bad-partial.csv");
    text_write(&tx, bad, "\n");
    gm_atomics_table_free(back);
    back = NULL;
    assert_int_equal(gm_atomics_table_load_partial(bad, &back, &err), GM_ERR_RANGE);
    gm_atomics_table_free(t);
}

static void test_loads_shipped_test_data(void **state)
{
    (void)state;
    /* tests/papers/atomics/data/tiny.csv: a hand-written 2-warp, 2-lane table kept
     * in the repository, so that the format is also pinned by a file. */
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(GPUQ_SOURCE_DIR "/tests/papers/atomics/data/tiny.csv", &table, &err),
                     GM_OK);
    assert_int_equal(table->meta.max_warps_per_sm, 2);
    const gm_atomics_series *add = gm_atomics_table_find(table, GM_ATOMICS_CLASS_ADD,
                                                         GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                         GM_ATOMICS_METHOD_SINGLE_SHOT);
    assert_non_null(add);
    assert_near(gm_atomics_series_cell(add, 2, 2, 1)->t_median, 160, 0);
    gm_atomics_table_free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_header_round_trip),
        cmocka_unit_test(test_v2_other_suite_refused),
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
