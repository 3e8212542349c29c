/* Unit tests of the collector's launch filter: regex on the demangled name,
 * then ncu-style skip/count over the matching launches only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "inject/gi_filter.h"

static void test_no_regex_profiles_every_launch(void **state)
{
    (void)state;
    gi_filter f;
    gm_error err = {{0}};
    assert_int_equal(gi_filter_init(&f, NULL, 0, 0, &err), GM_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(gi_filter_next(&f, i % 2 ? "a(int)" : "b(float)"), GI_FILTER_PROFILE);
    assert_false(gi_filter_exhausted(&f));
    assert_int_equal(f.profiled, 100);
    gi_filter_free(&f);

    /* An empty regex is no regex. */
    assert_int_equal(gi_filter_init(&f, "", 0, 0, &err), GM_OK);
    assert_int_equal(f.has_regex, 0);
    assert_int_equal(gi_filter_next(&f, "anything"), GI_FILTER_PROFILE);
    gi_filter_free(&f);
}

/* ncu -k regex:add -s 1 -c 2: skip and count apply to matching launches only. */
static void test_skip_and_count_follow_matching_launches(void **state)
{
    (void)state;
    gi_filter f;
    gm_error err = {{0}};
    assert_int_equal(gi_filter_init(&f, "add", 1, 2, &err), GM_OK);
    static const struct {
        const char *name;
        gi_filter_verdict want;
    } seq[] = {
        {"k_cas_distinct(unsigned int const*, unsigned int*, int)", GI_FILTER_NAME_MISMATCH},
        {"k_add_same(unsigned int const*, unsigned int*, int)", GI_FILTER_SKIPPED},
        {"k_popc_inc(unsigned int const*, unsigned int*, int)", GI_FILTER_NAME_MISMATCH},
        {"k_add_same(unsigned int const*, unsigned int*, int)", GI_FILTER_PROFILE},
        {"void reduce<add_op>(float*)", GI_FILTER_PROFILE},
        {"k_add_same(unsigned int const*, unsigned int*, int)", GI_FILTER_PAST_COUNT},
        {"k_no_atomics(unsigned int const*, unsigned int*, int)", GI_FILTER_NAME_MISMATCH},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        assert_int_equal(gi_filter_next(&f, seq[i].name), seq[i].want);
        /* Exhausted exactly once the second launch was profiled. */
        assert_int_equal(gi_filter_exhausted(&f), i >= 4);
    }
    assert_int_equal(f.matched, 4);
    assert_int_equal(f.profiled, 2);
    gi_filter_free(&f);
}

static void test_regex_is_extended_and_unanchored(void **state)
{
    (void)state;
    gi_filter f;
    gm_error err = {{0}};
    assert_int_equal(gi_filter_init(&f, "^k_(add|cas)_", 0, 0, &err), GM_OK);
    assert_true(gi_filter_name_matches(&f, "k_add_same(int)"));
    assert_true(gi_filter_name_matches(&f, "k_cas_distinct(int)"));
    assert_false(gi_filter_name_matches(&f, "k_popc_inc(int)"));
    assert_false(gi_filter_name_matches(&f, "void k_add_same(int)")); /* anchored by ^ */
    assert_false(gi_filter_name_matches(&f, NULL));
    gi_filter_free(&f);

    assert_int_equal(gi_filter_init(&f, "histogram", 0, 0, &err), GM_OK);
    /* Case matters, as in ncu. */
    assert_false(gi_filter_name_matches(&f, "void at::native::kernelHistogram1D<int>(int*)"));
    assert_true(gi_filter_name_matches(&f, "hist2_histogram_popc(unsigned char const*)"));
    gi_filter_free(&f);
}

static void test_bad_regex_is_a_parse_error(void **state)
{
    (void)state;
    gi_filter f;
    gm_error err = {{0}};
    assert_int_equal(gi_filter_init(&f, "k_(add", 0, 0, &err), GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "k_(add"));
    assert_non_null(strstr(err.msg, "invalid"));
    assert_int_equal(gi_filter_init(NULL, "x", 0, 0, &err), GM_ERR_INVALID_ARG);
}

static void test_count_zero_means_no_limit_and_skip_all(void **state)
{
    (void)state;
    gi_filter f;
    gm_error err = {{0}};
    assert_int_equal(gi_filter_init(&f, NULL, 3, 0, &err), GM_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(gi_filter_next(&f, "k"), GI_FILTER_SKIPPED);
    for (int i = 0; i < 10; i++)
        assert_int_equal(gi_filter_next(&f, "k"), GI_FILTER_PROFILE);
    gi_filter_free(&f);

    assert_int_equal(gi_filter_init(&f, NULL, 0, 1, &err), GM_OK);
    assert_int_equal(gi_filter_next(&f, "k"), GI_FILTER_PROFILE);
    assert_true(gi_filter_exhausted(&f));
    assert_int_equal(gi_filter_next(&f, "k"), GI_FILTER_PAST_COUNT);
    gi_filter_free(&f);
}

static void test_parse_count(void **state)
{
    (void)state;
    uint64_t v = 0;
    gm_error err = {{0}};
    assert_int_equal(gi_parse_count("GPUQ_LAUNCH_SKIP", NULL, 7, &v, &err), GM_OK);
    assert_int_equal(v, 7);
    assert_int_equal(gi_parse_count("GPUQ_LAUNCH_SKIP", "", 5, &v, &err), GM_OK);
    assert_int_equal(v, 5);
    assert_int_equal(gi_parse_count("GPUQ_LAUNCH_SKIP", "0", 5, &v, &err), GM_OK);
    assert_int_equal(v, 0);
    assert_int_equal(gi_parse_count("GPUQ_LAUNCH_COUNT", "18446744073709551615", 0, &v, &err),
                     GM_OK);
    assert_true(v == UINT64_MAX);
    static const char *const bad[] = {"-1", "+3", " 3", "3 ", "1x", "0x10", "18446744073709551616",
                                      "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(gi_parse_count("GPUQ_LAUNCH_COUNT", bad[i], 0, &v, &err), GM_ERR_PARSE);
        assert_non_null(strstr(err.msg, "GPUQ_LAUNCH_COUNT"));
    }
}

/* NCCL's collective kernels, by the names seen on 2 x H100 (NCCL 2.2x, in
 * PyTorch 2.11) and the older form; other kernels are not. */
static void test_collective_kernels(void **state)
{
    (void)state;
    assert_true(gi_is_collective_kernel(
        "ncclDevKernel_AllReduce_Sum_u32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
    assert_true(gi_is_collective_kernel("_Z38ncclDevKernel_AllReduce_Sum_u64_RING_LL24"
                                        "ncclDevKernelArgsStorageILm4096EE"));
    assert_true(gi_is_collective_kernel("ncclKernel_AllGather_RING_LL_Sum_int8_t"));
    assert_false(gi_is_collective_kernel("hist_add"));
    assert_false(gi_is_collective_kernel("void at::native::vectorized_elementwise_kernel<4>"));
    assert_false(gi_is_collective_kernel("nccl_like_but_not"));
    assert_false(gi_is_collective_kernel(""));
    assert_false(gi_is_collective_kernel(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_regex_profiles_every_launch),
        cmocka_unit_test(test_skip_and_count_follow_matching_launches),
        cmocka_unit_test(test_regex_is_extended_and_unanchored),
        cmocka_unit_test(test_bad_regex_is_a_parse_error),
        cmocka_unit_test(test_count_zero_means_no_limit_and_skip_all),
        cmocka_unit_test(test_parse_count),
        cmocka_unit_test(test_collective_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
