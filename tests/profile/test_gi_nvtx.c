/* The NVTX range filter's matching (gi_nvtx.h): push/pop nesting on a
 * thread, start/end ranges by id, exact names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "inject/gi_nvtx.h"

static void test_names_match_exactly(void **state)
{
    (void)state;
    assert_true(gi_nvtx_name_matches("step", "step"));
    assert_false(gi_nvtx_name_matches("step 2", "step"));
    assert_false(gi_nvtx_name_matches("ste", "step"));
    assert_false(gi_nvtx_name_matches(NULL, "step")); /* a registered or wide name */
    assert_false(gi_nvtx_name_matches("step", ""));
    assert_false(gi_nvtx_name_matches("step", NULL));
}

/* Inside from the push of the range to its pop, at any depth below it;
 * ranges of other names nest inside and around it. */
static void test_push_pop_nesting(void **state)
{
    (void)state;
    gi_nvtx_thread t = {0, 0};
    assert_false(gi_nvtx_thread_inside(&t));
    gi_nvtx_push(&t, "warmup", "step");
    assert_false(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t);
    gi_nvtx_push(&t, "epoch", "step");
    gi_nvtx_push(&t, "step", "step");
    assert_true(gi_nvtx_thread_inside(&t));
    gi_nvtx_push(&t, "forward", "step");
    assert_true(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t); /* forward */
    assert_true(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t); /* step */
    assert_false(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t); /* epoch */
    assert_int_equal(t.depth, 0);
    /* an unbalanced pop changes nothing, the next push still counts */
    gi_nvtx_pop(&t);
    assert_int_equal(t.depth, 0);
    gi_nvtx_push(&t, "step", "step");
    assert_true(gi_nvtx_thread_inside(&t));
    /* the same name nested in itself: inside until the outer pop */
    gi_nvtx_push(&t, "step", "step");
    gi_nvtx_pop(&t);
    assert_true(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t);
    assert_false(gi_nvtx_thread_inside(&t));
}

/* Below the tracked depth nothing matches, and the levels still count, so
 * that the pops come back to the right level. */
static void test_deep_stacks(void **state)
{
    (void)state;
    gi_nvtx_thread t = {0, 0};
    for (int i = 0; i < GI_NVTX_TRACKED_DEPTH; i++)
        gi_nvtx_push(&t, "x", "step");
    gi_nvtx_push(&t, "step", "step"); /* level 64: not tracked */
    assert_false(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t);
    gi_nvtx_pop(&t); /* level 63 */
    gi_nvtx_push(&t, "step", "step");
    assert_true(gi_nvtx_thread_inside(&t));
    gi_nvtx_pop(&t);
    assert_false(gi_nvtx_thread_inside(&t));
    assert_int_equal(t.depth, GI_NVTX_TRACKED_DEPTH - 1);
}

/* Start/end ranges: inside while any range of the name is open, whatever
 * the order of the ends; other names and unknown ids change nothing. */
static void test_start_end(void **state)
{
    (void)state;
    gi_nvtx_open o = {NULL, 0, 0};
    assert_int_equal(gi_nvtx_start(&o, 1, "load", "step"), 1);
    assert_false(gi_nvtx_open_inside(&o));
    for (uint64_t id = 10; id < 30; id++) /* grows past its first capacity */
        assert_int_equal(gi_nvtx_start(&o, id, "step", "step"), 1);
    assert_true(gi_nvtx_open_inside(&o));
    gi_nvtx_end(&o, 1); /* not tracked */
    gi_nvtx_end(&o, 99);
    assert_int_equal(o.n, 20);
    for (uint64_t id = 29; id >= 11; id--)
        gi_nvtx_end(&o, id);
    assert_true(gi_nvtx_open_inside(&o));
    gi_nvtx_end(&o, 10);
    assert_false(gi_nvtx_open_inside(&o));
    gi_nvtx_open_free(&o);
    assert_null(o.ids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_match_exactly),
        cmocka_unit_test(test_push_pop_nesting),
        cmocka_unit_test(test_deep_stacks),
        cmocka_unit_test(test_start_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
