/* The CLI-collector protocol (gi_protocol.h): what the collector's writer
 * puts in a status file, gpuq profile's reader gets back, field by field;
 * the environment table names each variable once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "inject/gi_protocol.h"

static void temp_path(char *path, size_t len, const char *what)
{
    snprintf(path, len, "%s/test_gi_protocol.%ld.%s", GPUQ_BINARY_DIR, (long)getpid(), what);
}

static void write_file(const char *path, const gi_status *s)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(gi_status_write(f, s), 0);
    assert_int_equal(fclose(f), 0);
}

/* Sets field i of *s to a value that depends on i and `salt` (never 0 or
 * empty, so that a field the reader drops shows). */
static void set_field(gi_status *s, size_t i, int salt)
{
    const gi_status_field *fd = &gi_status_fields[i];
    char *p = (char *)s + fd->offset;
    long long v = 1000 * (long long)(i + 1) + salt;
    switch (fd->kind) {
    case GI_FIELD_LONG:
        *(long *)p = (long)v;
        break;
    case GI_FIELD_LLONG:
        *(long long *)p = v * 1000003LL; /* beyond 32 bits */
        break;
    case GI_FIELD_INT:
        *(int *)p = (int)v;
        break;
    case GI_FIELD_CC:
        s->cc_major = (int)(i + 1);
        s->cc_minor = salt % 10;
        break;
    case GI_FIELD_TEXT:
        snprintf(p, fd->size, "%s value %lld: a b/c", fd->key, v);
        break;
    }
}

static void field_equal(const gi_status *a, const gi_status *b, size_t i)
{
    const gi_status_field *fd = &gi_status_fields[i];
    const char *pa = (const char *)a + fd->offset, *pb = (const char *)b + fd->offset;
    if (fd->kind == GI_FIELD_TEXT) {
        assert_string_equal(pa, pb);
    } else if (fd->kind == GI_FIELD_CC) {
        assert_int_equal(a->cc_major, b->cc_major);
        assert_int_equal(a->cc_minor, b->cc_minor);
    } else {
        assert_memory_equal(pa, pb, fd->size);
    }
}

/* Every field at once, and each field alone (the others zero): the value
 * read back is the one written, and no other field moves. */
static void test_round_trip_every_field(void **state)
{
    (void)state;
    char path[512];
    temp_path(path, sizeof path, "status");
    static gi_status w, r;
    memset(&w, 0, sizeof w);
    for (size_t i = 0; i < gi_status_n_fields; i++)
        set_field(&w, i, 7);
    write_file(path, &w);
    gi_status_read(path, &r);
    assert_int_equal(r.present, 1);
    for (size_t i = 0; i < gi_status_n_fields; i++)
        field_equal(&w, &r, i);
    for (size_t i = 0; i < gi_status_n_fields; i++) {
        memset(&w, 0, sizeof w);
        set_field(&w, i, 3);
        write_file(path, &w);
        gi_status_read(path, &r);
        for (size_t j = 0; j < gi_status_n_fields; j++)
            field_equal(&w, &r, j);
    }
    unlink(path);
}

/* Every member of gi_status but `present` and `written` (gpuq's own, not
 * in the file) has a row: the rows' sizes add up to the struct (less
 * padding, which the offsets show). */
static void test_every_member_has_a_row(void **state)
{
    (void)state;
    size_t covered = sizeof(int) + sizeof(((gi_status *)0)->written); /* present, written */
    for (size_t i = 0; i < gi_status_n_fields; i++) {
        covered += gi_status_fields[i].size;
        if (gi_status_fields[i].kind == GI_FIELD_CC)
            covered += sizeof(int); /* cc_minor rides with cc_major */
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(gi_status_fields[i].key, gi_status_fields[j].key);
            assert_int_not_equal(gi_status_fields[i].offset, gi_status_fields[j].offset);
        }
    }
    assert_true(covered <= sizeof(gi_status));
    assert_true(sizeof(gi_status) - covered < 8 * sizeof(long long)); /* padding only */
}

/* An error text with a newline stays one line; an unknown key (a newer
 * collector's) is skipped; a missing file reads as not present. */
static void test_text_lines_and_unknown_keys(void **state)
{
    (void)state;
    char path[512];
    temp_path(path, sizeof path, "lines");
    static gi_status w, r;
    memset(&w, 0, sizeof w);
    snprintf(w.error, sizeof w.error, "first line\nsecond line");
    snprintf(w.error_kind, sizeof w.error_kind, "%s", gi_error_kind_name(GI_ERROR_CUPTI));
    w.rows = 42;
    write_file(path, &w);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("some_future_key: 9\nrows_written 5\n", f);
    fclose(f);
    gi_status_read(path, &r);
    assert_string_equal(r.error, "first line second line");
    assert_string_equal(r.error_kind, "cupti");
    assert_int_equal(r.rows, 42);
    unlink(path);
    gi_status_read(path, &r);
    assert_int_equal(r.present, 0);
    assert_int_equal(gi_status_parse_line("no_such_key: 1", &r), 0);
    assert_int_equal(gi_status_parse_line("rows_written: 3", &r), 1);
    assert_int_equal(r.rows, 3);
}

static void test_error_kind_names(void **state)
{
    (void)state;
    assert_string_equal(gi_error_kind_name(GI_ERROR_NONE), "none");
    assert_string_equal(gi_error_kind_name(GI_ERROR_IO), "io");
    assert_string_equal(gi_error_kind_name(GI_ERROR_KIND_COUNT), "unknown");
    for (int a = 0; a < GI_ERROR_KIND_COUNT; a++)
        for (int b = 0; b < a; b++)
            assert_string_not_equal(gi_error_kind_name((gi_error_kind)a),
                                    gi_error_kind_name((gi_error_kind)b));
}

/* Row i is variable i; names are unique; gpuq sets the run's own. */
static void test_env_table(void **state)
{
    (void)state;
    for (int i = 0; i < GI_ENV_COUNT; i++) {
        assert_int_equal(gi_env_table[i].id, i);
        assert_non_null(gi_env_table[i].name);
        assert_true(strncmp(gi_env_table[i].name, "GPUQ_", 5) == 0 ||
                    strcmp(gi_env_table[i].name, "CUDA_INJECTION64_PATH") == 0);
        assert_true(gi_env_table[i].meaning && gi_env_table[i].meaning[0]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(gi_env_table[i].name, gi_env_table[j].name);
    }
    assert_int_equal(gi_env_table[GI_ENV_OUT].set_by, GI_ENV_BY_GPUQ);
    assert_int_equal(gi_env_table[GI_ENV_BATCH].set_by, GI_ENV_BY_USER);
    assert_string_equal(GI_ENV(GI_ENV_STATUS), "GPUQ_STATUS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_field),
        cmocka_unit_test(test_every_member_has_a_row),
        cmocka_unit_test(test_text_lines_and_unknown_keys),
        cmocka_unit_test(test_error_kind_names),
        cmocka_unit_test(test_env_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
