/* Order statistics (src/core/stats.h): the median and quantiles every
 * suite reports its repeated measurements with. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/stats.h"

#define NEAR(a, b) assert_float_equal((a), (b), 1e-9)

static void median_sort_and_quantile(void **state)
{
    (void)state;
    double v[] = {5, 1, 4, 2, 3};
    assert_float_equal(gm_median_sort(v, 5), 3, 0);
    assert_float_equal(gm_quantile_sorted(v, 5, 0.25), 2, 0);
    assert_float_equal(gm_quantile_sorted(v, 5, 0.1), 1.4, 1e-12);
    double e[] = {2, 1};
    assert_float_equal(gm_median_sort(e, 2), 1.5, 0);
    assert_true(isnan(gm_median_sort(e, 0)));
}

/* The copying median leaves its input as it was. */
static void median_of_copy(void **state)
{
    (void)state;
    double v[] = {5, 1, 3, 2};
    NEAR(gm_median(v, 4), 2.5);
    assert_true(isnan(gm_median(v, 0)));
    assert_float_equal(v[0], 5, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_sort_and_quantile),
        cmocka_unit_test(median_of_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
