/* Unit tests of the table of kernel shapes measured in full (gi_shapes.h):
 * what makes two launches one shape, the source a repeat is completed
 * from, the works a shape keeps, and the bound on the table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/metrics.h"
#include "inject/gi_shapes.h"

static gm_launch_counters launch(const char *mangled, unsigned grid, unsigned block, int regs,
                                 int shared, double fill)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    k.mangled = k.kernel = (char *)mangled; /* not owned: never cleared */
    k.grid[0] = grid;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = block;
    k.block[1] = k.block[2] = 1;
    k.regs_per_thread = regs;
    k.shared_bytes = shared;
    for (size_t r = 0; r < gm_metric_count(); r++)
        k.metric[r] = fill + (double)r;
    return k;
}

/* The metric row that tells a launch's work (instructions issued). */
static int work_row(void)
{
    int row = -1;
    for (size_t r = 0; r < gm_metric_count(); r++)
        if (gm_metric_table[r].every_launch == GM_EVERY_LAUNCH_WORK)
            row = (int)r;
    assert_true(row >= 0);
    return row;
}

static void test_one_shape_is_every_field(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(100);
    assert_non_null(t);
    gm_launch_counters a = launch("_Z4gemmv", 132, 256, 64, 1024, 1000);
    assert_int_equal(gi_shapes_full(t, &a), 0);
    assert_int_equal(gi_shapes_remember(t, &a, -1, 0), 1);
    assert_int_equal(gi_shapes_full(t, &a), 1);
    /* the same shape, other counters: still one shape, counted twice */
    gm_launch_counters same = launch("_Z4gemmv", 132, 256, 64, 1024, 7);
    assert_int_equal(gi_shapes_full(t, &same), 1);
    assert_int_equal(gi_shapes_remember(t, &same, -1, 0), 1);
    assert_int_equal(gi_shapes_full(t, &a), 2);
    assert_int_equal(gi_shapes_count(t), 1);
    /* each field alone makes another shape */
    gm_launch_counters other[] = {
        launch("_Z4gemmi", 132, 256, 64, 1024, 0), launch("_Z4gemmv", 133, 256, 64, 1024, 0),
        launch("_Z4gemmv", 132, 128, 64, 1024, 0), launch("_Z4gemmv", 132, 256, 32, 1024, 0),
        launch("_Z4gemmv", 132, 256, 64, 2048, 0)};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        assert_int_equal(gi_shapes_full(t, &other[i]), 0);
    gm_launch_counters grid_y = a;
    grid_y.grid[1] = 2;
    assert_int_equal(gi_shapes_full(t, &grid_y), 0);
    gi_shapes_free(t);
}

static void test_complete_keeps_own_rows(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(100);
    gm_launch_counters full1 = launch("_Z3fooPf", 64, 128, 40, 0, 1000);
    gm_launch_counters full2 = launch("_Z3fooPf", 64, 128, 40, 0, 2000);
    assert_int_equal(gi_shapes_remember(t, &full1, -1, 0), 1);
    assert_int_equal(gi_shapes_remember(t, &full2, -1, 0), 1); /* the last one is the source */
    unsigned char own[GM_METRIC_MAX] = {0};
    int duration = gm_metric_find("gpu__time_duration.sum");
    int inst = gm_metric_find("smsp__inst_executed.sum");
    assert_true(duration >= 0 && inst >= 0);
    own[duration] = 1;
    gm_launch_counters rep = launch("_Z3fooPf", 64, 128, 40, 0, NAN);
    rep.metric[duration] = 5.0;
    assert_int_equal(gi_shapes_complete(t, &rep, own, -1, 0), 1);
    assert_true(rep.metric[duration] == 5.0);            /* its own */
    assert_true(rep.metric[inst] == 2000.0 + (double)inst); /* the last full launch's */
    /* a shape with no source: unchanged */
    gm_launch_counters stranger = launch("_Z3barv", 64, 128, 40, 0, NAN);
    assert_int_equal(gi_shapes_complete(t, &stranger, own, -1, 0), 0);
    assert_true(isnan(stranger.metric[inst]));
    gi_shapes_free(t);
}

static void test_other_work_is_refused(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(10);
    int issued = work_row();
    int inst = gm_metric_find("smsp__inst_executed.sum");
    assert_true(issued >= 0 && inst >= 0);
    gm_launch_counters full = launch("_Z4hist", 8, 256, 32, 4096, 0);
    full.metric[issued] = 1e6;
    assert_int_equal(gi_shapes_remember(t, &full, issued, 0.01), 1);
    unsigned char own[GM_METRIC_MAX] = {0};
    own[issued] = 1;
    /* within 1%: completed */
    gm_launch_counters near = launch("_Z4hist", 8, 256, 32, 4096, NAN);
    near.metric[issued] = 1e6 * 1.009;
    assert_int_equal(gi_shapes_complete(t, &near, own, issued, 0.01), 1);
    assert_true(near.metric[inst] == (double)inst);
    assert_int_equal(gi_shapes_full(t, &near), 1);
    /* 2% more instructions: other work, refused, and the shape's next
     * launch is measured in full */
    gm_launch_counters far = launch("_Z4hist", 8, 256, 32, 4096, NAN);
    far.metric[issued] = 1e6 * 1.02;
    assert_int_equal(gi_shapes_complete(t, &far, own, issued, 0.01), -1);
    assert_true(isnan(far.metric[inst]));
    assert_true(far.metric[issued] == 1e6 * 1.02);
    assert_int_equal(gi_shapes_full(t, &far), 0);
    /* no work measured on the repeat: refused too */
    gm_launch_counters none = launch("_Z4hist", 8, 256, 32, 4096, NAN);
    assert_int_equal(gi_shapes_complete(t, &none, own, issued, 0.01), -1);
    gi_shapes_free(t);
}

/* PyTorch's reduce_kernel at one grid, reducing tensors of two sizes in
 * turn (A B A B ...): after one refusal the shape is measured in full until
 * a full launch does B's work; then both works are completed. */
static void test_alternating_works_are_learnt(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(10);
    int issued = work_row();
    int inst = gm_metric_find("smsp__inst_executed.sum");
    assert_true(issued >= 0 && inst >= 0);
    unsigned char own[GM_METRIC_MAX] = {0};
    own[issued] = 1;
    gm_launch_counters a = launch("_Z6reducev", 32, 512, 40, 0, 100);
    gm_launch_counters b = launch("_Z6reducev", 32, 512, 40, 0, 200);
    a.metric[issued] = 2.5e6;
    b.metric[issued] = 3.7e6;
    assert_int_equal(gi_shapes_remember(t, &a, issued, 0.01), 1);
    assert_int_equal(gi_shapes_full(t, &a), 1);
    gm_launch_counters rep = launch("_Z6reducev", 32, 512, 40, 0, NAN);
    rep.metric[issued] = b.metric[issued];
    assert_int_equal(gi_shapes_complete(t, &rep, own, issued, 0.01), -1);
    assert_int_equal(gi_shapes_full(t, &a), 0);
    /* A again, in full: a work the shape has; still learning */
    assert_int_equal(gi_shapes_remember(t, &a, issued, 0.01), 1);
    assert_int_equal(gi_shapes_full(t, &a), 0);
    /* B in full: learnt */
    assert_int_equal(gi_shapes_remember(t, &b, issued, 0.01), 1);
    assert_int_equal(gi_shapes_full(t, &a), 3);
    for (int i = 0; i < 4; i++) {
        const gm_launch_counters *src = i % 2 ? &b : &a;
        gm_launch_counters r = launch("_Z6reducev", 32, 512, 40, 0, NAN);
        r.metric[issued] = src->metric[issued] * 1.005;
        assert_int_equal(gi_shapes_complete(t, &r, own, issued, 0.01), 1);
        assert_true(r.metric[inst] == src->metric[inst]); /* from its own work's launch */
    }
    assert_int_equal(gi_shapes_full(t, &a), 3);
    gi_shapes_free(t);
}

/* A shape whose every launch does other work: GI_SHAPE_SOURCES works are
 * kept, and after them it is measured in full for good. */
static void test_endless_works_go_full(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(10);
    int issued = work_row();
    unsigned char own[GM_METRIC_MAX] = {0};
    own[issued] = 1;
    for (int i = 0; i <= GI_SHAPE_SOURCES; i++) {
        gm_launch_counters k = launch("_Z4randv", 4, 64, 16, 0, i);
        k.metric[issued] = 1e5 * (i + 1);
        assert_int_equal(gi_shapes_remember(t, &k, issued, 0.01), 1);
        assert_int_equal(gi_shapes_full(t, &k), i < GI_SHAPE_SOURCES ? i + 1 : 0);
    }
    /* the works kept are still completed from */
    gm_launch_counters r = launch("_Z4randv", 4, 64, 16, 0, NAN);
    r.metric[issued] = 1e5;
    assert_int_equal(gi_shapes_complete(t, &r, own, issued, 0.01), 1);
    assert_int_equal(gi_shapes_full(t, &r), 0);
    gi_shapes_free(t);
}

/* A refused repeat whose work never comes back (one launch issued 1.07%
 * more than its shape's others on the H200): the shape is measured in full
 * for GI_SHAPE_LEARN launches, then completed again. */
static void test_one_off_work_ends_learning(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(10);
    int issued = work_row();
    unsigned char own[GM_METRIC_MAX] = {0};
    own[issued] = 1;
    gm_launch_counters a = launch("_Z6reducei", 1, 512, 40, 0, 100);
    a.metric[issued] = 2.4897e6;
    assert_int_equal(gi_shapes_remember(t, &a, issued, 0.01), 1);
    gm_launch_counters odd = launch("_Z6reducei", 1, 512, 40, 0, NAN);
    odd.metric[issued] = 2.5165e6;
    assert_int_equal(gi_shapes_complete(t, &odd, own, issued, 0.01), -1);
    for (int i = 0; i < GI_SHAPE_LEARN; i++) {
        assert_int_equal(gi_shapes_full(t, &a), 0);
        assert_int_equal(gi_shapes_remember(t, &a, issued, 0.01), 1);
    }
    assert_int_equal(gi_shapes_full(t, &a), 1 + GI_SHAPE_LEARN);
    gm_launch_counters rep = launch("_Z6reducei", 1, 512, 40, 0, NAN);
    rep.metric[issued] = a.metric[issued];
    assert_int_equal(gi_shapes_complete(t, &rep, own, issued, 0.01), 1);
    gi_shapes_free(t);
}

/* The works over all shapes are bounded (2 x max_shapes): past the bound a
 * shape's new work sends it to full launches, and its known works still
 * complete repeats. */
static void test_works_are_bounded_over_shapes(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(2); /* room for 4 works */
    int issued = work_row();
    unsigned char own[GM_METRIC_MAX] = {0};
    own[issued] = 1;
    for (int w = 1; w <= 3; w++) {
        gm_launch_counters a = launch("_Z1av", 1, 32, 8, 0, w);
        a.metric[issued] = 1e6 * w;
        assert_int_equal(gi_shapes_remember(t, &a, issued, 0.01), 1);
        assert_int_equal(gi_shapes_full(t, &a), w);
    }
    gm_launch_counters b = launch("_Z1bv", 1, 32, 8, 0, 0);
    b.metric[issued] = 1e6;
    assert_int_equal(gi_shapes_remember(t, &b, issued, 0.01), 1); /* its first: always kept */
    assert_int_equal(gi_shapes_full(t, &b), 1);
    b.metric[issued] = 2e6;
    assert_int_equal(gi_shapes_remember(t, &b, issued, 0.01), 1);
    assert_int_equal(gi_shapes_full(t, &b), 0); /* no room for a fifth work */
    gm_launch_counters rep = launch("_Z1av", 1, 32, 8, 0, NAN);
    rep.metric[issued] = 2e6;
    assert_int_equal(gi_shapes_complete(t, &rep, own, issued, 0.01), 1);
    assert_true(rep.metric[0] == 2.0); /* from a's second work */
    gi_shapes_free(t);
}

static void test_bounded_and_growing(void **state)
{
    (void)state;
    gi_shapes *t = gi_shapes_new(1000);
    char names[1001][24];
    for (int i = 0; i < 1000; i++) {
        snprintf(names[i], sizeof names[i], "_Z1k%dv", i);
        gm_launch_counters k = launch(names[i], (unsigned)i + 1, 32, 8, 0, i);
        assert_int_equal(gi_shapes_remember(t, &k, -1, 0), 1);
    }
    assert_int_equal(gi_shapes_count(t), 1000);
    /* every one still found after the table grew, with its own source */
    unsigned char own[GM_METRIC_MAX] = {0};
    for (int i = 0; i < 1000; i += 37) {
        gm_launch_counters k = launch(names[i], (unsigned)i + 1, 32, 8, 0, NAN);
        assert_int_equal(gi_shapes_full(t, &k), 1);
        assert_int_equal(gi_shapes_complete(t, &k, own, -1, 0), 1);
        assert_true(k.metric[0] == (double)i);
    }
    /* full: a new shape is not kept, a known one still counts */
    snprintf(names[1000], sizeof names[1000], "_Z1newv");
    gm_launch_counters extra = launch(names[1000], 1, 32, 8, 0, 0);
    assert_int_equal(gi_shapes_remember(t, &extra, -1, 0), 0);
    assert_int_equal(gi_shapes_full(t, &extra), 0);
    gm_launch_counters known = launch(names[5], 6, 32, 8, 0, 0);
    assert_int_equal(gi_shapes_remember(t, &known, -1, 0), 1);
    assert_int_equal(gi_shapes_full(t, &known), 2);
    gi_shapes_free(t);
}

static void test_every_launch_set_has_the_duration(void **state)
{
    (void)state;
    /* The collector gives repeats a one-pass set only when it holds the
     * duration; the table must mark it, and not mark everything (then a
     * repeat would be a full launch). */
    size_t marked = 0;
    for (size_t r = 0; r < gm_metric_count(); r++)
        marked += gm_metric_table[r].every_launch != 0;
    int duration = gm_metric_find("gpu__time_duration.sum");
    assert_true(duration >= 0);
    assert_int_equal(gm_metric_table[duration].every_launch, GM_EVERY_LAUNCH);
    assert_true(marked > 1 && marked < gm_metric_count());
    /* one row is the work's fingerprint, measured on every launch */
    size_t work = 0;
    for (size_t r = 0; r < gm_metric_count(); r++)
        work += gm_metric_table[r].every_launch == GM_EVERY_LAUNCH_WORK;
    assert_int_equal(work, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_shape_is_every_field),
        cmocka_unit_test(test_complete_keeps_own_rows),
        cmocka_unit_test(test_other_work_is_refused),
        cmocka_unit_test(test_alternating_works_are_learnt),
        cmocka_unit_test(test_endless_works_go_full),
        cmocka_unit_test(test_one_off_work_ends_learning),
        cmocka_unit_test(test_works_are_bounded_over_shapes),
        cmocka_unit_test(test_bounded_and_growing),
        cmocka_unit_test(test_every_launch_set_has_the_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
