/* The loaders' number parser, range table and file opener
 * (gpuq/ranges.h, gm_mdata_check, gm_open_input): what counts as a
 * number, which values a quantity takes, that docs/input-ranges.md gives
 * the same table, and that nothing blocks on a FIFO. */
#define _GNU_SOURCE
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

#include "core/gzstream.h"
#include "gpuq/mdata.h"
#include "gpuq/metrics.h"
#include "gpuq/ranges.h"

static void decimal_numbers_only(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double v;
    } good[] = {{"12", 12}, {"-3.5", -3.5}, {"+2", 2}, {"1e6", 1e6}, {".5", 0.5},
                {"5.", 5},  {"1E-3", 1e-3}, {"0", 0}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = -1;
        assert_int_equal(gm_number_parse(good[i].text, &v), 0);
        assert_true(v == good[i].v);
    }
    static const char *const bad[] = {"0x1p3", "0x10", "inf", "-inf", "nan", "NaN", " 3", "3 ",
                                      "",      "1e",   ".",   "1,5",  "++1", "e5",  "1/0", "\t"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 7;
        assert_int_equal(gm_number_parse(bad[i], &v), -1);
        assert_true(v == 7); /* untouched */
    }
    double v;
    assert_int_equal(gm_number_parse("1e999", &v), -2);
    assert_int_equal(gm_number_parse("-0", &v), 0);
    assert_true(v == 0 && !signbit(v)); /* -0 is 0: never "U = -0%" */
    assert_int_equal(gm_number_parse("1e-400", &v), 0);
    assert_true(v == 0 && !signbit(v));
}

/* Plain decimals of up to 19 digits are read without strtod: the same
 * double strtod reads, for every length, point position and leading zero
 * (two million of them, half with 16 to 20 digits, the averages of a
 * counters file). */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static void decimals_read_as_strtod_reads(void **state)
{
    (void)state;
    char text[40];
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = rng();
        int digits = i % 2 ? 16 + (int)(r % 5) : 1 + (int)(r % 15);
        int point = (int)((r >> 8) % (unsigned)(digits + 2)) - 1, zeros = (int)((r >> 16) % 3);
        size_t n = 0;
        for (int z = 0; z < zeros; z++)
            text[n++] = '0';
        for (int k = 0; k < digits; k++) {
            if (k == point)
                text[n++] = '.';
            text[n++] = (char)('0' + rng() % 10);
        }
        if (point == digits)
            text[n++] = '.';
        text[n] = '\0';
        double v = -1;
        assert_int_equal(gm_number_parse(text, &v), 0);
        if (v != strtod(text, NULL))
            fail_msg("'%s' read as %.17g, strtod reads %.17g", text, v, strtod(text, NULL));
    }
    /* halfway cases: 2^53 + 1 and its neighbours, as decimals with a point */
    static const char *const ties[] = {"9007199254740993.0", "9007199254740995.0",
                                       "900719925474099.35", "0.90071992547409935",
                                       "18446744073709551615", "1844674407370955161.5"};
    for (size_t i = 0; i < sizeof ties / sizeof ties[0]; i++) {
        double v = -1;
        assert_int_equal(gm_number_parse(ties[i], &v), 0);
        assert_true(v == strtod(ties[i], NULL));
    }
}

static void quantity_ranges(void **state)
{
    (void)state;
    gm_error err = {{0}};
    assert_int_equal(gm_quantity_check(GM_Q_EVENTS, 48, "f:9", "O", &err), GM_OK);
    assert_int_equal(gm_quantity_check(GM_Q_EVENTS, 1e20, "f:9", "O", &err), GM_ERR_RANGE);
    assert_string_equal(err.msg, "f:9: O 1e+20 outside 0..9.22337e+18 (an event count)");
    assert_int_equal(gm_quantity_check(GM_Q_EVENTS, 24.5, "f:9", "N", &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "24.5 is not a whole number"));
    assert_int_equal(gm_quantity_check(GM_Q_EVENTS, NAN, "f:9", "N", &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "not a finite number"));
    /* rates are positive: 0 is out, the smallest positive is in */
    assert_false(gm_quantity_ok(GM_Q_RATE, 0));
    assert_true(gm_quantity_ok(GM_Q_RATE, 1e-300));
    assert_false(gm_quantity_ok(GM_Q_RATE, INFINITY));
    assert_true(gm_quantity_ok(GM_Q_PERCENT, 100));
    assert_false(gm_quantity_ok(GM_Q_PERCENT, 100.5));
    assert_true(gm_quantity_ok(GM_Q_MEAN, 133152.28787878787));
    assert_false(gm_quantity_ok(GM_Q_DURATION_NS, 1.8e14)); /* two days */
    assert_false(gm_quantity_ok(GM_Q_BLOCKS_PER_SM, 2082408386));
    assert_false(gm_quantity_ok(GM_QUANTITY_COUNT, 1));
    double out = -1;
    assert_int_equal(gm_quantity_parse(GM_Q_EVENTS, "0x1p3", "f:2", "O", &out, &err),
                     GM_ERR_PARSE);
    assert_string_equal(err.msg, "f:2: O '0x1p3' is not a number (plain decimal only)");
    assert_true(out == -1);
    assert_int_equal(gm_quantity_parse(GM_Q_REGS, "32", "f:2", "z", &out, &err), GM_OK);
    assert_true(out == 32);
}

/* docs/input-ranges.md's table is this table: same names, bounds and
 * integer flags, row for row. */
static void docs_table_matches(void **state)
{
    (void)state;
    FILE *f = fopen(GPUQ_SOURCE_DIR "/docs/input-ranges.md", "r");
    assert_non_null(f);
    char line[1024];
    int seen[GM_QUANTITY_COUNT] = {0};
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64], min[64], max[64], integer[16];
        if (sscanf(line, "| %63[a-z_] | %63[^ |] | %63[^ |] | %15[a-z] |", name, min, max,
                   integer) != 4)
            continue;
        if (strcmp(name, "quantity") == 0)
            continue;
        int q = -1;
        for (int i = 0; i < GM_QUANTITY_COUNT; i++)
            if (strcmp(gm_quantity_table[i].name, name) == 0)
                q = i;
        assert_true(q >= 0); /* a documented quantity the code has */
        const gm_quantity_range *r = &gm_quantity_table[q];
        int open = min[0] == '>';
        assert_int_equal(open, r->min_open);
        assert_true(strtod(min + open, NULL) == r->min);
        assert_true(strtod(max, NULL) == r->max);
        assert_int_equal(strcmp(integer, "yes") == 0, r->integer);
        seen[q]++;
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, GM_QUANTITY_COUNT);
    for (int i = 0; i < GM_QUANTITY_COUNT; i++)
        assert_int_equal(seen[i], 1);
}

/* Every metric names a quantity, and ncu's unit of it. */
static void metrics_have_quantities(void **state)
{
    (void)state;
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        assert_true((unsigned)gm_metric_table[m].quantity < GM_QUANTITY_COUNT);
        assert_non_null(gm_metric_table[m].unit);
    }
    static const struct {
        const char *name;
        gm_quantity q;
        const char *unit;
    } rows[] = {
        {"sm__warps_active.avg.pct_of_peak_sustained_active", GM_Q_PERCENT, "%"},
        {"gpu__time_duration.sum", GM_Q_DURATION_NS, "ns"},
        {"sm__cycles_active.avg", GM_Q_MEAN, "cycle"},
        {"sm__cycles_active.sum", GM_Q_CYCLES, "cycle"},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", GM_Q_EVENTS, ""},
        {"dram__bytes_read.sum", GM_Q_BYTES, "byte"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int m = gm_metric_find(rows[i].name);
        assert_true(m >= 0);
        assert_int_equal(gm_metric_table[m].quantity, rows[i].q);
        assert_string_equal(gm_metric_table[m].unit, rows[i].unit);
    }
}

static gm_mdata *two_rows(const char *x0, const char *x1)
{
    gm_mdata_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.suite, sizeof meta.suite, "demo");
    const char *cols[] = {"kind", "x"};
    gm_mdata *md = gm_mdata_new(&meta, 2, cols);
    assert_non_null(md);
    const char *r0[] = {"a", x0}, *r1[] = {"b", x1};
    assert_int_equal(gm_mdata_add_row(md, r0, NULL), GM_OK);
    assert_int_equal(gm_mdata_add_row(md, r1, NULL), GM_OK);
    return md;
}

/* A rule covers its row kind only; nan passes where the rule allows it. */
static void mdata_rules(void **state)
{
    (void)state;
    static const gm_mdata_rule rules[] = {{"a", "x", GM_Q_WARPS_PER_BLOCK, 0},
                                          {NULL, "x", GM_Q_REAL, 1}};
    gm_error err = {{0}};
    gm_mdata *md = two_rows("32", "nan");
    assert_int_equal(gm_mdata_check(md, "kind", rules, 2, &err), GM_OK);
    gm_mdata_free(md);
    md = two_rows("nan", "1");
    assert_int_equal(gm_mdata_check(md, "kind", rules, 2, &err), GM_ERR_PARSE);
    assert_string_equal(err.msg,
                        "demo row 1: demo row 'a', column 'x' 'nan' is not a number (plain "
                        "decimal only)");
    gm_mdata_free(md);
    md = two_rows("65", "1");
    assert_int_equal(gm_mdata_check(md, "kind", rules, 2, &err), GM_ERR_RANGE);
    assert_non_null(strstr(err.msg, "65 outside 1..64 (warps per block)"));
    gm_mdata_free(md);
    md = two_rows("1", "1e300");
    assert_int_equal(gm_mdata_check(md, "kind", rules, 2, &err), GM_ERR_RANGE);
    gm_mdata_free(md);
    md = two_rows("1", "0x1p3"); /* never a number, even where no rule asks */
    assert_true(isnan(gm_mdata_num(md, 1, 1)));
    gm_mdata_free(md);
}

/* A FIFO without a writer, a device and a directory are refused at once. */
static void open_refuses_what_blocks(void **state)
{
    (void)state;
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/gpuq-test-fifo-%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_open_input(fifo, "counters file", &f, &err), GM_ERR_IO);
    assert_null(f);
    assert_non_null(strstr(err.msg, "is a FIFO, not a regular file"));
    unlink(fifo);
    assert_int_equal(gm_open_input("/dev/zero", "counters file", &f, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "/dev/zero: is a character device"));
    assert_int_equal(gm_open_input(GPUQ_SOURCE_DIR "/docs", "table file", &f, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "is a directory, not a table file"));
    assert_int_equal(gm_open_input(GPUQ_SOURCE_DIR "/docs/input-ranges.md", "x", &f, &err),
                     GM_OK);
    assert_non_null(f);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decimal_numbers_only),  cmocka_unit_test(quantity_ranges),
        cmocka_unit_test(decimals_read_as_strtod_reads),
        cmocka_unit_test(docs_table_matches),    cmocka_unit_test(metrics_have_quantities),
        cmocka_unit_test(mdata_rules),           cmocka_unit_test(open_refuses_what_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
