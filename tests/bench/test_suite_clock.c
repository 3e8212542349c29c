/* Unit tests of the SM clock calibrate writes into every suite's header
 * (src/core/suite_clock.c): the before/after rule, and the rewrite of a
 * suite's file, which fills a missing clock and never overwrites the one a
 * suite measured itself.  No GPU: the readings are given as numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/mdata.h"
#include "core/suite_clock.h"

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
static void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)

static void test_rule(void **state)
{
    (void)state;
    assert_near(gb_clock_of_run(1980, 1990), 1985, 1e-9);
    assert_near(gb_clock_of_run(1995, 0), 1995, 1e-9);  /* after not read */
    assert_near(gb_clock_of_run(0, 1755), 1755, 1e-9);  /* before not read */
    assert_near(gb_clock_of_run(0, 0), 0, 0);           /* unknown */
    assert_near(gb_clock_of_run(-5, NAN), 0, 0);        /* junk counts as unread */
    assert_near(gb_clock_of_run(INFINITY, 1600), 1600, 1e-9);
}

static void test_changed(void **state)
{
    (void)state;
    assert_false(gb_clock_changed(1980, 1990, 0.02)); /* 0.5% */
    assert_true(gb_clock_changed(1980, 1500, 0.02));  /* throttled */
    assert_true(gb_clock_changed(1500, 1980, 0.02));
    assert_false(gb_clock_changed(0, 1500, 0.02));    /* one unknown: no claim */
}

static const char *const cols[] = {"name", "value"};

/* A suite's finished file with the given header clock and one row. */
static void write_suite_file(const char *path, double sm_clock)
{
    gm_mdata_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.suite, sizeof meta.suite, "sched");
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "NVIDIA H100 80GB HBM3");
    meta.cc_major = 9;
    meta.sm_count = 132;
    meta.sm_clock_mhz = sm_clock;
    snprintf(meta.date, sizeof meta.date, "2026-11-25T20:57:18Z");
    snprintf(meta.method, sizeof meta.method, "a method line");
    gm_mdata *md = gm_mdata_new(&meta, 2, cols);
    assert_non_null(md);
    const char *row[] = {"L_T_B", "1024"};
    gm_error err = {{0}};
    assert_int_equal(gm_mdata_add_row(md, row, &err), GM_OK);
    assert_int_equal(gm_mdata_write_file(path, md, &err), GM_OK);
    gm_mdata_free(md);
}

static void temp_path(char *buf, size_t len)
{
    snprintf(buf, len, "%s/test_suite_clock.%ld.csv", GPUQ_BINARY_DIR, (long)getpid());
}

/* A suite file whose header says `written` MHz, given the clocks read
 * before and after the suite: whether gb_suite_fill_clock fills it, the
 * clock it reports (want_mhz) and the file as it is then (loaded into
 * *md, its header clock checked; the file is removed). */
static void fill_clock(double written, double before, double after, int want_filled,
                       double want_mhz, gm_mdata **md)
{
    char path[4096];
    temp_path(path, sizeof path);
    write_suite_file(path, written);
    double mhz = -1;
    int filled = -1;
    gm_error err = {{0}};
    assert_int_equal(gb_suite_fill_clock(path, before, after, &mhz, &filled, &err), GM_OK);
    assert_int_equal(filled, want_filled);
    assert_near(mhz, want_mhz, 1e-9);
    *md = NULL;
    assert_int_equal(gm_mdata_load(path, md, &err), GM_OK);
    assert_near((*md)->meta.sm_clock_mhz, want_mhz, 1e-9);
    remove(path);
}

static void test_fills_missing_clock(void **state)
{
    (void)state;
    gm_mdata *md;
    fill_clock(0, 1980, 1990, 1, 1985, &md);
    /* everything else as the suite wrote it */
    assert_string_equal(md->meta.suite, "sched");
    assert_string_equal(md->meta.method, "a method line");
    assert_string_equal(md->meta.date, "2026-11-25T20:57:18Z");
    assert_int_equal(md->n_rows, 1);
    assert_string_equal(gm_mdata_text(md, 0, gm_mdata_col(md, "name")), "L_T_B");
    assert_near(gm_mdata_num(md, 0, gm_mdata_col(md, "value")), 1024, 0);
    gm_mdata_free(md);
}

static void test_keeps_suite_clock(void **state)
{
    (void)state;
    gm_mdata *md;
    fill_clock(1994.9999, 1500, 1500, 0, 1994.9999, &md); /* throughput measures its own */
    gm_mdata_free(md);
}

static void test_no_reading_leaves_zero(void **state)
{
    (void)state;
    gm_mdata *md;
    fill_clock(0, 0, 0, 0, 0, &md);
    gm_mdata_free(md);
}

static void test_missing_file_is_an_error(void **state)
{
    (void)state;
    gm_error err = {{0}};
    double mhz = -1;
    assert_int_not_equal(gb_suite_fill_clock("/nonexistent/sched.partial.csv", 1980, 1980, &mhz,
                                             NULL, &err),
                         GM_OK);
    assert_true(strlen(err.msg) > 0);
    assert_near(mhz, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_changed),
        cmocka_unit_test(test_fills_missing_clock),
        cmocka_unit_test(test_keeps_suite_clock),
        cmocka_unit_test(test_no_reading_leaves_zero),
        cmocka_unit_test(test_missing_file_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
