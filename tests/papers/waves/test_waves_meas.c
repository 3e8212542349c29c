/* T(g,b) from repeated launches (src/papers/waves/waves_meas.c): every value
 * below is computed by hand in the comment beside it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/waves/waves_meas.h"
#include "test_helpers.h"

static void near_(double got, double want, int line)
{
    if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
        print_error("line %d: got %.17g, want %.17g\n", line, got, want);
        fail();
    }
}
#define NEAR(got, want) near_((double)(got), (double)(want), __LINE__)

/* 5 launches, one slow: median 2.0 (sorted 1.9 2.0 2.0 2.1 3.0), spread
 * (3.0 - 1.9) / 2.0 = 0.55; failed launches (NaN, 0, -1) are not values. */
static void spread(void **state)
{
    (void)state;
    gm_waves_spread s;
    const double v[] = {2.0, 3.0, 1.9, 2.1, 2.0};
    assert_int_equal(gm_waves_spread_of(v, 5, &s), GM_OK);
    assert_int_equal(s.n, 5);
    NEAR(s.median, 2.0);
    NEAR(s.min, 1.9);
    NEAR(s.max, 3.0);
    NEAR(s.spread, 0.55);
    /* even count: the mean of the middle two; 4 and 6 -> 5, spread (8-1)/5 */
    const double w[] = {8, NAN, 4, 0, 1, -1, 6};
    assert_int_equal(gm_waves_spread_of(w, 7, &s), GM_OK);
    assert_int_equal(s.n, 4);
    NEAR(s.median, 5);
    NEAR(s.spread, 7.0 / 5);
    /* one value: no spread */
    assert_int_equal(gm_waves_spread_of(w, 1, &s), GM_OK);
    NEAR(s.median, 8);
    NEAR(s.spread, 0);
    const double bad[] = {NAN, 0, -2};
    assert_int_equal(gm_waves_spread_of(bad, 3, &s), GM_ERR_INVALID_ARG);
    assert_true(isnan(s.median));
    assert_int_equal(gm_waves_spread_of(NULL, 3, &s), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_waves_spread_of(v, 0, &s), GM_ERR_INVALID_ARG);
}

/* The point is the difference of the medians: n: 1.00 1.01 1.02 (median
 * 1.01), 2n: 2.02 2.00 2.60 (median 2.02) -> 1.01 ms (the median of the
 * per-round differences 1.02, 0.99, 1.58 would be 1.02). */
static void point(void **state)
{
    (void)state;
    gm_waves_tgb_point p;
    const double t1[] = {1.00, 1.01, 1.02}, t2[] = {2.02, 2.00, 2.60};
    assert_int_equal(gm_waves_tgb_point_of(t1, t2, 3, &p), GM_OK);
    NEAR(p.ms, 2.02 - 1.01);
    NEAR(p.t1.median, 1.01);
    NEAR(p.t2.median, 2.02);
    NEAR(p.t1.spread, 0.02 / 1.01);
    NEAR(p.t2.spread, 0.60 / 2.02);
    NEAR(p.spread, 0.60 / 2.02); /* the larger */
    /* slow launches in three of five rounds, one at n and two at 2n: the
     * per-round differences 1.6, 0.5, 1.0, 1.9, 1.0 have median 1.0 only
     * because the slow ones cancel; the medians of each size are 1.0 and 2.0;
     * spread at n 0.5 / 1.0, at 2n 0.9 / 2.0: the point's is 0.5 */
    const double u1[] = {1.0, 1.5, 1.0, 1.0, 1.0}, u2[] = {2.6, 2.0, 2.0, 2.9, 2.0};
    assert_int_equal(gm_waves_tgb_point_of(u1, u2, 5, &p), GM_OK);
    NEAR(p.ms, 1.0);
    NEAR(p.t2.spread, 0.9 / 2.0);
    NEAR(p.spread, 0.5);
    const double none[] = {NAN, NAN, NAN};
    assert_int_equal(gm_waves_tgb_point_of(none, t2, 3, &p), GM_ERR_INVALID_ARG);
    assert_true(isnan(p.ms));
    assert_int_equal(gm_waves_tgb_point_of(t1, none, 3, &p), GM_ERR_INVALID_ARG);
}

/* Every round's order is a permutation, the same on every call, and the
 * rounds differ: of 9 rounds over 77 points, no two alike, and the first
 * point of the rounds is not always the same. */
static void round_order(void **state)
{
    (void)state;
    enum { N = 77, K = 9 };
    size_t o[K][N], again[N];
    for (unsigned r = 0; r < K; r++) {
        gm_waves_round_order(N, r, o[r]);
        int seen[N] = {0};
        for (size_t i = 0; i < N; i++) {
            assert_true(o[r][i] < N);
            seen[o[r][i]]++;
        }
        for (size_t i = 0; i < N; i++)
            assert_int_equal(seen[i], 1);
        gm_waves_round_order(N, r, again);
        assert_memory_equal(again, o[r], sizeof again);
    }
    int firsts = 0;
    for (unsigned a = 0; a < K; a++) {
        for (unsigned b = a + 1; b < K; b++)
            assert_true(memcmp(o[a], o[b], sizeof o[a]) != 0);
        firsts += o[a][0] != o[0][0];
    }
    assert_true(firsts > 0);
    /* a point is not tied to its place: point 0's position over the rounds
     * takes more than one value, and so does the last point's */
    int moved0 = 0, movedl = 0;
    for (unsigned r = 1; r < K; r++) {
        size_t p0 = 0, q0 = 0, pl = 0, ql = 0;
        for (size_t i = 0; i < N; i++) {
            if (o[r][i] == 0) p0 = i;
            if (o[0][i] == 0) q0 = i;
            if (o[r][i] == N - 1) pl = i;
            if (o[0][i] == N - 1) ql = i;
        }
        moved0 += p0 != q0;
        movedl += pl != ql;
    }
    assert_true(moved0 > 0 && movedl > 0);
    /* degenerate sizes */
    size_t one[1] = {7};
    gm_waves_round_order(1, 3, one);
    assert_int_equal(one[0], 0);
    gm_waves_round_order(0, 3, one);
}

/* An H100 sched file with no rows yet: the tests add the rows they need. */
static gm_mdata *empty_sched_file(void)
{
    gm_mdata_meta m = th_meta("sched", TH_H100, 132, "2026-11-25T23:00:00Z");
    static const char *const cols[9] = {"kind", "name", "x", "y", "z",
                                        "value", "doc", "extra", "note"};
    gm_mdata *md = gm_mdata_new(&m, 9, cols);
    assert_non_null(md);
    return md;
}

/* Spread rows of two kernels: lds has 4 points with spreads 0.01, 0.08
 * (the 2n value), 0.02 (the n value, larger), 0.03 -> median (0.02 +
 * 0.03) / 2 = 0.025, max 0.08 at G = 4224, b = 4, one above 5%. */
static void noise(void **state)
{
    (void)state;
    gm_mdata *md = empty_sched_file();
    th_sched_row(md, "tgbs", "lds", "1", "1", "9", "0.01", "", "0.005");
    th_sched_row(md, "tgbs", "lds", "4224", "4", "9", "0.08", "", "0.01");
    th_sched_row(md, "tgbs", "ffma", "1", "1", "9", "0.5", "", "0.5");
    th_sched_row(md, "tgbs", "lds", "66", "2", "9", "0.001", "", "0.02");
    th_sched_row(md, "tgb", "lds", "66", "2", "32", "0.9", "", "0.9");
    th_sched_row(md, "tgbs", "lds", "133", "8", "9", "", "", "0.03");
    gm_waves_data d;
    memset(&d, 0, sizeof d);
    d.md = md;
    gm_waves_noise z;
    assert_int_equal(gm_waves_data_tgb_noise(&d, "lds", 0.05, &z), 1);
    assert_int_equal(z.n, 4);
    assert_int_equal(z.k, 9);
    assert_int_equal(z.above, 1);
    NEAR(z.median, 0.025);
    NEAR(z.max, 0.08);
    NEAR(z.G_max, 4224);
    assert_int_equal(z.b_max, 4);
    assert_int_equal(gm_waves_data_tgb_noise(&d, "lds", 0.01, &z), 1);
    assert_int_equal(z.above, 3); /* 0.08, 0.02, 0.03; 0.01 is not above */
    assert_int_equal(gm_waves_data_tgb_noise(&d, "ffma", 0.05, &z), 1);
    assert_int_equal(z.n, 1);
    /* a file without spread rows (written before them) */
    assert_int_equal(gm_waves_data_tgb_noise(&d, "ldg", 0.05, &z), 0);
    assert_int_equal(z.n, 0);
    assert_true(isnan(z.median));
    assert_int_equal(gm_waves_data_tgb_noise(NULL, "lds", 0.05, &z), 0);
    gm_mdata_free(md);
}

/* Launch rows of one point, 3 rounds: 2n 2.1 2.0 2.5, n 1.0 1.2 1.1 (median
 * 1.1): the range is 2.0 - 1.1 = 0.9 to 2.5 - 1.1 = 1.4; another point or
 * kernel has none. */
static void range(void **state)
{
    (void)state;
    gm_mdata *md = empty_sched_file();
    th_sched_row(md, "tgbr", "lds", "4224", "4", "0", "2.1", "", "1.0");
    th_sched_row(md, "tgbr", "lds", "4225", "4", "0", "9.0", "", "9.0");
    th_sched_row(md, "tgbr", "lds", "4224", "4", "1", "2.0", "", "1.2");
    th_sched_row(md, "tgbr", "ldg", "4224", "4", "1", "7.0", "", "0.1");
    th_sched_row(md, "tgbr", "lds", "4224", "4", "2", "2.5", "", "1.1");
    gm_waves_data d;
    memset(&d, 0, sizeof d);
    d.md = md;
    double lo, hi;
    assert_int_equal(gm_waves_data_tgb_range(&d, "lds", 4224, 4, &lo, &hi), 1);
    NEAR(lo, 2.0 - 1.1);
    NEAR(hi, 2.5 - 1.1);
    assert_int_equal(gm_waves_data_tgb_range(&d, "lds", 4224, 8, &lo, &hi), 0);
    assert_true(isnan(lo) && isnan(hi));
    assert_int_equal(gm_waves_data_tgb_range(&d, "ffma", 4224, 4, &lo, &hi), 0);
    gm_mdata_free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(spread), cmocka_unit_test(point),
                                       cmocka_unit_test(round_order), cmocka_unit_test(noise),
                                       cmocka_unit_test(range)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
