/* Unit tests of the machine data of a report (src/core/machine.c): a
 * suite given as SUITE=PATH, found in a GPU folder by its header, or
 * missing (one line naming the sections skipped and the command). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/unit.h"

#define TEST_TABLE GPUQ_SOURCE_DIR "/tests/data/tables/test_gpu.csv"

static const char *const atomics_only[] = {"atomics", NULL};

static int setup(void **state)
{
    (void)state;
    unsetenv("GPUQ_TABLE_DIR");
    gm_mdata_set_search_dirs(NULL, "/nonexistent-gpuq-dir");
    return 0;
}

static void test_override(void **state)
{
    (void)state;
    gm_machine m;
    const char *const ov[] = {"atomics=" TEST_TABLE, NULL};
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 2, atomics_only, ov, 0, NULL), GM_OK);
    assert_non_null(gm_machine_data(&m, "atomics"));
    assert_string_equal(gm_machine_path(&m, "atomics"), TEST_TABLE);
    assert_int_equal(m.n_missing, 0);
    assert_true(gm_machine_has(&m, atomics_only));
    assert_null(gm_machine_suite(&m, "sched"));
    const char *const more[] = {"atomics", "sched", NULL};
    assert_false(gm_machine_has(&m, more));
    gm_machine_free(&m);
    /* another GPU: refused unless forced, with the command that fixes it */
    gm_error err = {{0}};
    assert_int_equal(gm_machine_load(&m, "NVIDIA H200", 132, atomics_only, ov, 0, &err),
                     GM_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "measured on gpuq Test GPU with 2 SMs"));
    assert_non_null(strstr(err.msg, "--force"));
    assert_null(gm_machine_data(&m, "atomics"));
    assert_int_equal(gm_machine_load(&m, "NVIDIA H200", 132, atomics_only, ov, 1, NULL), GM_OK);
    assert_non_null(gm_machine_data(&m, "atomics"));
    gm_machine_free(&m);
    /* a malformed override, a file that is no table */
    const char *const bad[] = {"atomics", NULL};
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 2, atomics_only, bad, 0, NULL),
                     GM_ERR_INVALID_ARG);
    const char *const notab[] = {"atomics=" GPUQ_SOURCE_DIR "/tests/data/counters/valid.csv", NULL};
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 2, atomics_only, notab, 0, NULL),
                     GM_ERR_PARSE);
}

static void test_missing_is_a_line(void **state)
{
    (void)state;
    gm_machine m;
    assert_int_equal(gm_machine_load(&m, "gpuq Other GPU", 2, atomics_only, NULL, 0, NULL), GM_OK);
    assert_null(gm_machine_data(&m, "atomics"));
    assert_int_equal(m.n_missing, 1);
    assert_non_null(strstr(m.missing[0], "no machine data for gpuq Other GPU with 2 SMs"));
    assert_non_null(strstr(m.missing[0], "section atomics skipped"));
    assert_non_null(strstr(m.missing[0], "gpuq calibrate --suite atomics"));
    assert_false(gm_machine_has(&m, atomics_only));
    gm_machine_free(&m);
    /* sched: waves needs it, bottleneck only uses it where present (and
     * still reports): the line names waves alone as skipped */
    const char *const sched_only[] = {"sched", NULL};
    assert_int_equal(gm_machine_load(&m, "gpuq Other GPU", 2, sched_only, NULL, 0, NULL), GM_OK);
    assert_int_equal(m.n_missing, 1);
    assert_non_null(strstr(m.missing[0], "section waves skipped"));
    assert_null(strstr(m.missing[0], "bottleneck"));
    gm_machine_free(&m);
    /* counters without a GPU name: nothing can be picked, and it says why */
    assert_int_equal(gm_machine_load(&m, "", 0, atomics_only, NULL, 0, NULL), GM_OK);
    assert_int_equal(m.n_missing, 1);
    assert_non_null(strstr(m.missing[0], "do not name their GPU"));
    gm_machine_free(&m);
}

/* A file moved from a machine loaded ahead of time (gpuq profile loads the
 * machine data while the program runs) into the report's: the body, path
 * and header go, the missing line goes. */
static void test_take(void **state)
{
    (void)state;
    gm_machine pre, m;
    const char *const ov[] = {"atomics=" TEST_TABLE, NULL};
    assert_int_equal(gm_machine_load(&pre, "gpuq Test GPU", 2, atomics_only, ov, 0, NULL), GM_OK);
    const void *data = gm_machine_data(&pre, "atomics");
    assert_non_null(data);
    assert_int_equal(gm_machine_load(&m, "gpuq Other GPU", 2, atomics_only, NULL, 0, NULL), GM_OK);
    assert_int_equal(m.n_missing, 1);
    gm_error err = {{0}};
    assert_int_equal(gm_machine_take(&m, &pre, "atomics", &err), GM_OK);
    assert_ptr_equal(gm_machine_data(&m, "atomics"), data);
    assert_string_equal(gm_machine_path(&m, "atomics"), TEST_TABLE);
    assert_string_equal(gm_machine_meta(&m, "atomics")->gpu_name, "gpuq Test GPU");
    assert_int_equal(m.n_missing, 0);
    assert_null(gm_machine_data(&pre, "atomics"));
    assert_int_equal(pre.n_files, 0);
    /* nothing left to take; a suite there already */
    assert_int_equal(gm_machine_take(&m, &pre, "atomics", &err), GM_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "no suite atomics"));
    assert_int_equal(gm_machine_load(&pre, "gpuq Test GPU", 2, atomics_only, ov, 0, NULL), GM_OK);
    assert_int_equal(gm_machine_take(&m, &pre, "atomics", &err), GM_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "there already"));
    assert_non_null(gm_machine_data(&pre, "atomics")); /* unchanged */
    gm_machine_free(&pre);
    gm_machine_free(&m); /* frees the taken table once */
}

/* A GPU folder found by the header of its file, not by its name. */
static void test_found_in_gpu_folder(void **state)
{
    (void)state;
    char dir[512], sub[600], file[700], cmd[1600];
    snprintf(dir, sizeof dir, "%s/test_machine_%ld", GPUQ_BINARY_DIR, (long)getpid());
    snprintf(sub, sizeof sub, "%s/some-folder", dir);
    snprintf(file, sizeof file, "%s/atomics.csv", sub);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", sub, TEST_TABLE, file);
    assert_int_equal(system(cmd), 0);
    setenv("GPUQ_TABLE_DIR", dir, 1);
    gm_machine m;
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 2, atomics_only, NULL, 0, NULL), GM_OK);
    assert_non_null(gm_machine_data(&m, "atomics"));
    assert_string_equal(gm_machine_path(&m, "atomics"), file);
    gm_machine_free(&m);
    /* SM count 0 (unknown) matches; another count does not */
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 0, atomics_only, NULL, 0, NULL), GM_OK);
    assert_non_null(gm_machine_data(&m, "atomics"));
    gm_machine_free(&m);
    assert_int_equal(gm_machine_load(&m, "gpuq Test GPU", 4, atomics_only, NULL, 0, NULL), GM_OK);
    assert_null(gm_machine_data(&m, "atomics"));
    assert_int_equal(m.n_missing, 1);
    gm_machine_free(&m);
    unsetenv("GPUQ_TABLE_DIR");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_missing_is_a_line),
        cmocka_unit_test(test_found_in_gpu_folder),
        cmocka_unit_test(test_take),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
