/* File helpers shared by the cmocka unit tests (include after <cmocka.h>). */
#ifndef GPUQ_TEST_FILES_H
#define GPUQ_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* The whole file as a NUL-terminated string (malloc'ed); fails the test
 * when it cannot be read. */
static inline char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
