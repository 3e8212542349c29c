/* Unit tests of the order of a CUDA graph's kernel nodes (gi_graph_order.h):
 * a topological order, and whether the graph fixes the kernels' order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "inject/gi_graph_order.h"

/* A graph as edges "i depends on j", at most 8 nodes. */
typedef struct graph {
    size_t n;
    size_t dep[8][8], n_dep[8];
    const size_t *deps[8];
    unsigned char kernel[8];
} graph;

static void init(graph *g, size_t n, const char *kernels)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    for (size_t i = 0; i < n; i++) {
        g->deps[i] = g->dep[i];
        g->kernel[i] = kernels[i] == 'k';
    }
}

static void edge(graph *g, size_t node, size_t depends_on)
{
    g->dep[node][g->n_dep[node]++] = depends_on;
}

static int order(graph *g, size_t *out, int *one)
{
    return gi_graph_order(g->n, g->deps, g->n_dep, g->kernel, out, one);
}

/* Where each node sits in the order. */
static void positions(const size_t *order, size_t n, size_t *pos)
{
    for (size_t p = 0; p < n; p++)
        pos[order[p]] = p;
}

static void test_chain_is_one_order(void **state)
{
    (void)state;
    /* Captured from one stream: k0 -> memset -> k2 -> k3, listed out of order. */
    graph g;
    init(&g, 4, "k-kk");
    edge(&g, 1, 0);
    edge(&g, 2, 1);
    edge(&g, 3, 2);
    size_t o[8], pos[8];
    int one = -1;
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 1);
    positions(o, g.n, pos);
    assert_true(pos[0] < pos[1] && pos[1] < pos[2] && pos[2] < pos[3]);
}

static void test_parallel_kernels_are_not(void **state)
{
    (void)state;
    /* A diamond with kernels on both branches: their order is open. */
    graph g;
    init(&g, 4, "kkkk");
    edge(&g, 1, 0);
    edge(&g, 2, 0);
    edge(&g, 3, 1);
    edge(&g, 3, 2);
    size_t o[8];
    int one = -1;
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 0);
}

static void test_parallel_non_kernels_keep_the_order(void **state)
{
    (void)state;
    /* k0, then two memcpys side by side, then k3: the kernels' order is fixed
     * through either branch. */
    graph g;
    init(&g, 4, "k--k");
    edge(&g, 1, 0);
    edge(&g, 2, 0);
    edge(&g, 3, 1);
    edge(&g, 3, 2);
    size_t o[8];
    int one = -1;
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 1);
    /* Two independent kernels, no edge at all: open. */
    init(&g, 2, "kk");
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 0);
    /* One kernel and an unrelated memset: one order for the kernels. */
    init(&g, 2, "k-");
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 1);
}

static void test_transitive_dependency_counts(void **state)
{
    (void)state;
    /* k0 -> e1 -> e2 -> k3 and k0 -> k4 -> k3?  k4 and k3: k3 depends on k4;
     * k0 before both.  Order k0, (e1, e2, k4 in some order), k3: kernels
     * k0 < k4 < k3 all linked. */
    graph g;
    init(&g, 5, "k--kk");
    edge(&g, 1, 0);
    edge(&g, 2, 1);
    edge(&g, 3, 2);
    edge(&g, 4, 0);
    edge(&g, 3, 4);
    size_t o[8], pos[8];
    int one = -1;
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 1);
    positions(o, g.n, pos);
    assert_true(pos[0] < pos[4] && pos[4] < pos[3] && pos[2] < pos[3]);
    /* Without the edge k4 -> k3, k4 and k3 are on parallel branches. */
    g.n_dep[3] = 1;
    assert_int_equal(order(&g, o, &one), 1);
    assert_int_equal(one, 0);
}

static void test_bad_graphs(void **state)
{
    (void)state;
    graph g;
    size_t o[8];
    int one = -1;
    init(&g, 2, "kk");
    edge(&g, 0, 1);
    edge(&g, 1, 0);
    assert_int_equal(order(&g, o, &one), 0); /* a cycle */
    init(&g, 2, "kk");
    edge(&g, 0, 7);
    assert_int_equal(order(&g, o, &one), 0); /* no such node */
    assert_int_equal(gi_graph_order(0, NULL, NULL, NULL, o, &one), 1);
    assert_int_equal(one, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_is_one_order),
        cmocka_unit_test(test_parallel_kernels_are_not),
        cmocka_unit_test(test_parallel_non_kernels_keep_the_order),
        cmocka_unit_test(test_transitive_dependency_counts),
        cmocka_unit_test(test_bad_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
