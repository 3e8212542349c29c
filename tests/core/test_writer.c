/* Unit tests of the text-table numbers (src/core/writer.c): gm_fmt_num and
 * gm_fmt_pct print every number as printf's "%.4g", "%.0f" and "%.3g"
 * print it, character for character, now that they do it without printf:
 * ties (to even, on the exact binary value), roundings up to the next power
 * of ten, negative zero, the ends of each range, and a million numbers of
 * every magnitude in between. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/writer.h"

/* gm_fmt_num's rule, through snprintf (the reference). */
static void ref_num(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, len, "%.3g", v);
    else if (v == floor(v))
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 1000)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

static void ref_pct(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (!isfinite(v) || fabs(100 * v) >= 1e6)
        snprintf(buf, len, "%.3g%%", 100 * v);
    else
        snprintf(buf, len, "%.0f%%", 100 * v);
}

/* gm_csv_format_double's rule, through snprintf and strtod. */
static void ref_csv(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        buf[0] = '\0';
        return;
    }
    if (fabs(v) < 1e15 && v == floor(v)) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static size_t checked;

static void same_csv(double v)
{
    char got[64], want[64];
    gm_csv_format_double(got, sizeof got, v);
    ref_csv(want, sizeof want, v);
    if (strcmp(got, want) != 0)
        fail_msg("gm_csv_format_double(%.17g) = '%s', printf says '%s'", v, got, want);
}

static void same(double v)
{
    char got[64], want[64];
    gm_fmt_num(got, sizeof got, v);
    ref_num(want, sizeof want, v);
    if (strcmp(got, want) != 0)
        fail_msg("gm_fmt_num(%.17g) = '%s', printf says '%s'", v, got, want);
    gm_fmt_pct(got, sizeof got, v);
    ref_pct(want, sizeof want, v);
    if (strcmp(got, want) != 0)
        fail_msg("gm_fmt_pct(%.17g) = '%s', printf says '%s'", v, got, want);
    /* the small buffers units use (16 bytes), and one too small for the text */
    char small[16], tiny[4], ref_tiny[4];
    gm_fmt_pct(small, sizeof small, v);
    ref_pct(want, sizeof small, v);
    if (strcmp(small, want) != 0)
        fail_msg("gm_fmt_pct(%.17g) in 16 bytes = '%s', printf says '%s'", v, small, want);
    gm_fmt_num(tiny, sizeof tiny, v);
    ref_num(ref_tiny, sizeof ref_tiny, v);
    if (strcmp(tiny, ref_tiny) != 0)
        fail_msg("gm_fmt_num(%.17g) in 4 bytes = '%s', printf says '%s'", v, tiny, ref_tiny);
    same_csv(v);
    checked++;
}

static void both_signs(double v)
{
    same(v);
    same(-v);
}

static void test_ties_and_edges(void **state)
{
    (void)state;
    /* exact binary ties at the 4th digit and at the unit: to even */
    static const double v[] = {
        0.5,        1.5,        2.5,       0.015625,  0.0078125,  1000.5,     1001.5,
        999.5,      123.125,    12.34375,  0.0012345, 0.001,      0.0009999,  999.95,
        999.96,     999.9999,   99.995,    9.9995,    0.99995,    0.099995,   0.0099995,
        1e-3,       1e6,        999999.5,  999999.4,  0.005,      0.025,      0.125,
        0.3,        0.1,        0.2,       1.0 / 3,   2.0 / 3,    M_PI,       M_E,
        1234.5678,  65535.5,    0,         1,         10,         100,        1000,
        0.00125,    0.00375,    1.00049,   1.0005,    123.45,     123.55,     4.4445e-3,
        5e-324,     1e-300,     1e300,     DBL_MAX,   INFINITY,   0.0049999,  0.00499999999,
        -0.0,       0.29,       0.295,     0.005,     0.0050000001,
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        both_signs(v[i]);
    same(NAN);
    /* percentages: 100 v rounded first, then to the unit */
    for (int i = -2000; i <= 2000; i++)
        both_signs(i / 1000.0 + 0.0005);
}

/* xorshift64*: the same numbers on every run */
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void test_a_million_numbers(void **state)
{
    (void)state;
    for (int i = 0; i < 1000000; i++) {
        /* uniform in log from 1e-5 to 1e7, and numbers of few binary digits
         * (which make ties) */
        double u = (double)(next() >> 11) / 9007199254740992.0;
        double v = pow(10, -5 + 12 * u);
        if (i % 4 == 1)
            v = ldexp((double)(next() % 100000), -(int)(next() % 20));
        if (i % 4 == 2)
            v = (double)(next() % 10000000) / 1000.0;
        both_signs(v);
    }
    assert_true(checked > 2000000);
}

/* The numbers that read back exactly: every double next to a power of two
 * or of ten (where the lower neighbour is nearer, or the digits carry),
 * thirds and sevenths of every magnitude, and random bit patterns. */
static void test_csv_numbers_read_back(void **state)
{
    (void)state;
    for (int ex = -12; ex <= 52; ex++) {
        double p = ldexp(1, ex);
        for (int d = -3; d <= 3; d++) {
            double v = p;
            for (int i = 0; i < (d < 0 ? -d : d); i++)
                v = nextafter(v, d < 0 ? 0 : INFINITY);
            same_csv(v);
            same_csv(-v);
        }
    }
    for (int ex = -7; ex <= 16; ex++) {
        double p = pow(10, ex);
        for (int d = -3; d <= 3; d++) {
            double v = p;
            for (int i = 0; i < (d < 0 ? -d : d); i++)
                v = nextafter(v, d < 0 ? 0 : INFINITY);
            same_csv(v);
            same_csv(v / 3);
            same_csv(v / 7);
            same_csv(-v / 3);
        }
    }
    for (int i = 0; i < 1000000; i++) {
        uint64_t bits = next();
        double v;
        /* exponents from 2^-20 to 2^60: around and past the fast path's range */
        bits = (bits & 0x800fffffffffffffull) | ((uint64_t)(1003 + next() % 80) << 52);
        memcpy(&v, &bits, sizeof v);
        same_csv(v);
    }
}

static void test_copy_text(void **state)
{
    (void)state;
    char b[8], want[8];
    const char *texts[] = {"", "abc", "1234567", "12345678", "a much longer text", NULL};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        for (size_t len = 1; len <= sizeof b; len++) {
            memset(b, 'x', sizeof b);
            memset(want, 'x', sizeof want);
            gm_copy_text(b, len, texts[i]);
            snprintf(want, len, "%s", texts[i] ? texts[i] : "");
            assert_memory_equal(b, want, sizeof b);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ties_and_edges),
        cmocka_unit_test(test_a_million_numbers),
        cmocka_unit_test(test_copy_text),
        cmocka_unit_test(test_csv_numbers_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
