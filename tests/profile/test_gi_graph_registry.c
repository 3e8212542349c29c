/* Unit tests of the collector's registry of instantiated CUDA graphs
 * (gi_graph_registry.h): a record is freed once its handle is destroyed or
 * updated and no launch holds it, never before; a program that
 * instantiates and destroys graphs a million times keeps none of the dead
 * ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "inject/gi_graph_registry.h"

typedef struct record {
    int id;
    int *freed; /* set when freed */
} record;

static size_t n_freed;

static void free_record(void *item)
{
    record *r = item;
    if (r->freed)
        *r->freed = 1;
    n_freed++;
    free(r);
}

static record *make(int id, int *freed)
{
    record *r = malloc(sizeof *r);
    assert_non_null(r);
    r->id = id;
    r->freed = freed;
    return r;
}

static const void *handle(uintptr_t h)
{
    return (const void *)h;
}

static void test_destroy_frees(void **state)
{
    (void)state;
    gi_registry reg = {.free_item = free_record};
    int freed_a = 0, freed_b = 0;
    assert_non_null(gi_registry_put(&reg, handle(0x10), make(1, &freed_a)));
    assert_non_null(gi_registry_put(&reg, handle(0x20), make(2, &freed_b)));
    assert_int_equal(gi_registry_count(&reg), 2);
    assert_int_equal(((record *)gi_registry_peek(&reg, handle(0x20))->item)->id, 2);
    assert_null(gi_registry_peek(&reg, handle(0x30)));
    gi_registry_drop(&reg, handle(0x10));
    assert_true(freed_a);
    assert_false(freed_b);
    assert_null(gi_registry_peek(&reg, handle(0x10)));
    assert_int_equal(gi_registry_count(&reg), 1);
    gi_registry_drop(&reg, handle(0x10)); /* twice, or unknown: nothing */
    gi_registry_drop(&reg, handle(0x99));
    gi_registry_release(&reg, NULL);
    gi_registry_drop(&reg, handle(0x20));
    assert_true(freed_b);
    assert_int_equal(gi_registry_count(&reg), 0);
    free(reg.slots);
}

/* A launch in flight keeps its record through a destroy (or an update) on
 * another thread; the launch's end frees it. */
static void test_launch_keeps_record(void **state)
{
    (void)state;
    gi_registry reg = {.free_item = free_record};
    int freed_old = 0, freed_new = 0;
    gi_registry_put(&reg, handle(0x10), make(1, &freed_old));
    gi_reg_node *held = gi_registry_take(&reg, handle(0x10));
    assert_non_null(held);
    /* an update lists a new record under the same handle */
    gi_registry_put(&reg, handle(0x10), make(2, &freed_new));
    assert_false(freed_old);
    assert_int_equal(((record *)gi_registry_peek(&reg, handle(0x10))->item)->id, 2);
    assert_int_equal(((record *)held->item)->id, 1); /* still readable */
    gi_registry_release(&reg, held);
    assert_true(freed_old);
    /* a destroy while launched */
    held = gi_registry_take(&reg, handle(0x10));
    gi_registry_drop(&reg, handle(0x10));
    assert_false(freed_new);
    assert_null(gi_registry_take(&reg, handle(0x10)));
    gi_registry_release(&reg, held);
    assert_true(freed_new);
    free(reg.slots);
}

/* A million instantiate, launch, destroy: every record freed, the registry
 * no larger than the graphs alive at once (three here). */
static void test_many_graphs_bounded(void **state)
{
    (void)state;
    gi_registry reg = {.free_item = free_record};
    n_freed = 0;
    for (uintptr_t i = 0; i < 1000000; i++) {
        const void *h = handle(0x1000 + 16 * (i % 3)); /* handles reused */
        assert_non_null(gi_registry_put(&reg, h, make((int)i, NULL)));
        gi_reg_node *l = gi_registry_take(&reg, h);
        assert_int_equal(((record *)l->item)->id, (int)i);
        gi_registry_release(&reg, l);
        if (i % 2)
            gi_registry_drop(&reg, h); /* others are replaced by the next put */
        assert_true(gi_registry_count(&reg) <= 3);
    }
    assert_true(reg.cap <= 16);
    size_t live = gi_registry_count(&reg);
    while (reg.n)
        gi_registry_drop(&reg, reg.slots[0].key);
    assert_int_equal(n_freed, 1000000);
    assert_true(live <= 3);
    free(reg.slots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_frees),
        cmocka_unit_test(test_launch_keeps_record),
        cmocka_unit_test(test_many_graphs_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
