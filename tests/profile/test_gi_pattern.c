/* Unit tests of output names by pattern (gi_pattern.h): %p %h %i %q{VAR} %%
 * as Nsight Compute's -o has them, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "inject/gi_pattern.h"

static const char *table_env(const char *name, void *ctx)
{
    (void)ctx;
    if (strcmp(name, "RANK") == 0)
        return "3";
    if (strcmp(name, "JOB_ID") == 0)
        return "j-17";
    if (strcmp(name, "EMPTY") == 0)
        return "";
    return NULL;
}

static gm_status expand(const char *pattern, unsigned seq, char *out, size_t len, gm_error *err)
{
    gi_pattern_values v = {4242, "node7", seq, table_env, NULL};
    return gi_pattern_expand(pattern, &v, out, len, err);
}

static void test_every_specifier(void **state)
{
    (void)state;
    char out[256];
    gm_error err = {{0}};
    assert_int_equal(expand("c.%p.csv", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "c.4242.csv");
    assert_int_equal(expand("%h/%p", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "node7/4242");
    assert_int_equal(expand("run%i", 5, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "run5");
    assert_int_equal(expand("rank%q{RANK}-%q{JOB_ID}.csv", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "rank3-j-17.csv");
    assert_int_equal(expand("100%%.csv", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "100%.csv");
    assert_int_equal(expand("e%q{EMPTY}x", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "ex");
    assert_int_equal(expand("%p%p%%%i", 2, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "42424242%2");
    /* No pattern: the name as it is. */
    assert_int_equal(expand("plain.csv", 0, out, sizeof out, &err), GM_OK);
    assert_string_equal(out, "plain.csv");
}

static void test_what_is_a_pattern(void **state)
{
    (void)state;
    assert_true(gi_pattern_is_pattern("a%pb"));
    assert_false(gi_pattern_is_pattern("plain.csv"));
    assert_true(gi_pattern_uses_seq("r%i.csv"));
    assert_false(gi_pattern_uses_seq("r%p.csv"));
    assert_false(gi_pattern_uses_seq("r%%i.csv")); /* %% then a literal i */
    gm_error err = {{0}};
    assert_int_equal(gi_pattern_check("c.%q{NOT_SET_ANYWHERE}.csv", &err), GM_OK);
}

static void test_errors(void **state)
{
    (void)state;
    char out[64];
    gm_error err = {{0}};
    static const char *const bad[] = {"a%x", "a%", "a%q", "a%qRANK", "a%q{", "a%q{}",
                                      "a%q{RANK"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(gi_pattern_check(bad[i], &err), GM_ERR_PARSE);
        assert_true(err.msg[0] != '\0');
        assert_int_equal(expand(bad[i], 0, out, sizeof out, &err), GM_ERR_PARSE);
    }
    assert_int_equal(gi_pattern_check("", &err), GM_ERR_INVALID_ARG);
    /* An unset variable fails the expansion, naming it. */
    assert_int_equal(expand("r%q{UNSET}.csv", 0, out, sizeof out, &err), GM_ERR_MISSING);
    assert_non_null(strstr(err.msg, "UNSET"));
    /* Too long for the buffer: an error, never a cut name. */
    char tiny[8];
    assert_int_equal(expand("abc%pdef", 0, tiny, sizeof tiny, &err), GM_ERR_RANGE);
    assert_int_equal(expand("1234567", 0, tiny, sizeof tiny, &err), GM_OK);
    assert_int_equal(expand("12345678", 0, tiny, sizeof tiny, &err), GM_ERR_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_specifier),
        cmocka_unit_test(test_what_is_a_pattern),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
