/* Unit tests of the suite table (src/papers/suites.c, suite.h): every row is
 * complete and usable by calibrate, names are unique, the lookup works, the
 * stated times add up to the 120 s that `gpuq calibrate` may take on an H100
 * or H200 (design.md), and every suite's settings are checked before it
 * runs.  No GPU: nothing here calls a suite's run function. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/suite.h"

/* Whole calibrate run (all suites) on an H100 or H200, issue budget. */
#define ALL_SUITES_MAX_S 120.0

static void test_table_is_terminated_and_counted(void **state)
{
    (void)state;
    size_t n = gb_suite_count();
    assert_true(n >= 1);
    assert_null(gb_suites[n]);
    for (size_t i = 0; i < n; i++)
        assert_non_null(gb_suites[i]);
    /* The atomic table of paper 000 is the first row. */
    assert_string_equal(gb_suites[0]->name, "atomics");
}

static void test_rows_complete(void **state)
{
    (void)state;
    for (size_t i = 0; gb_suites[i]; i++) {
        const gb_suite *s = gb_suites[i];
        assert_non_null(s->name);
        assert_true(strlen(s->name) > 0 && strlen(s->name) < 32); /* gm_mdata_meta.suite */
        for (const char *p = s->name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_');
        assert_non_null(s->measures);
        assert_true(strlen(s->measures) > 0);
        assert_non_null(s->sweep);
        assert_true(strlen(s->sweep) > 0);
        assert_non_null(s->file);
        assert_non_null(strstr(s->file, ".csv"));
        assert_null(strchr(s->file, '/'));
        assert_non_null(s->run);
        assert_true(s->expected_s > 0);
        /* At least one SASS expectation, each complete. */
        assert_non_null(s->sass);
        assert_non_null(s->sass[0].kernel);
        for (const gb_sass_expect *e = s->sass; e->kernel; e++) {
            assert_true(strlen(e->kernel) > 0);
            assert_non_null(e->opcode);
            assert_true(strlen(e->opcode) > 0);
            assert_true(e->min_count >= 1);
        }
        /* Setting names unique within the suite, each with a help line. */
        for (const gb_suite_key *k = s->keys; k && k->name; k++) {
            assert_non_null(k->help);
            assert_null(strchr(k->name, '='));
            for (const gb_suite_key *l = k + 1; l->name; l++)
                assert_string_not_equal(k->name, l->name);
        }
    }
}

static void test_names_and_files_unique(void **state)
{
    (void)state;
    for (size_t i = 0; gb_suites[i]; i++)
        for (size_t j = i + 1; gb_suites[j]; j++) {
            assert_string_not_equal(gb_suites[i]->name, gb_suites[j]->name);
            assert_string_not_equal(gb_suites[i]->file, gb_suites[j]->file);
        }
}

static void test_find(void **state)
{
    (void)state;
    for (size_t i = 0; gb_suites[i]; i++)
        assert_ptr_equal(gb_suite_find(gb_suites[i]->name), gb_suites[i]);
    assert_null(gb_suite_find("no-such-suite"));
    assert_null(gb_suite_find(""));
    assert_null(gb_suite_find(NULL));
    assert_null(gb_suite_find("atomic")); /* whole names only */
}

static void test_total_time_within_budget(void **state)
{
    (void)state;
    double total = 0;
    for (size_t i = 0; gb_suites[i]; i++)
        total += gb_suites[i]->expected_s;
    print_message("suites: %zu, stated time %.1f s (budget %.0f s)\n", gb_suite_count(), total,
                  ALL_SUITES_MAX_S);
    assert_true(total <= ALL_SUITES_MAX_S);
}

/* check() accepts the defaults and refuses a value out of range, before
 * anything runs (the atomic suite as the example every suite follows). */
static void test_atomics_settings_checked(void **state)
{
    (void)state;
    const gb_suite *s = gb_suite_find("atomics");
    assert_non_null(s);
    assert_non_null(s->check);
    gb_suite_run run = {0};
    gm_error err = {{0}};
    assert_int_equal(s->check(&run, &err), GM_OK);

    const gb_suite_setting good[] = {{"reps", "7"}, {"classes", "add,popc_inc"},
                                     {"spread_threshold", "0.2"}};
    run.settings = good;
    run.n_settings = 3;
    assert_int_equal(s->check(&run, &err), GM_OK);

    const gb_suite_setting bad[][1] = {{{"reps", "0"}},         {{"reps", "7x"}},
                                       {{"inner_reps", "9"}},   {{"classes", "add,bogus"}},
                                       {{"methods", ""}},       {{"spread_threshold", "-1"}},
                                       {{"classes", "xor"}},    {{"no_such_key", "1"}}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run.settings = bad[i];
        run.n_settings = 1;
        err.msg[0] = '\0';
        assert_int_not_equal(s->check(&run, &err), GM_OK);
        assert_non_null(strstr(err.msg, bad[i][0].key)); /* the message names the key */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_is_terminated_and_counted),
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_names_and_files_unique),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_total_time_within_budget),
        cmocka_unit_test(test_atomics_settings_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
