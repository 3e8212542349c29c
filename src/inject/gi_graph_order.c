/* The order of a CUDA graph's kernel nodes (gi_graph_order.h). */
#include <stdlib.h>
#include <string.h>

#include "gi_graph_order.h"

/* Whether node `to` depends, directly or not, on node `from`: a walk back
 * over dependencies that stops at nodes placed before `from`. */
static int depends_on(size_t to, size_t from, const size_t *const *deps, const size_t *n_deps,
                      const size_t *pos_of, unsigned char *seen, size_t *stack, size_t n)
{
    memset(seen, 0, n);
    size_t top = 0;
    stack[top++] = to;
    seen[to] = 1;
    while (top) {
        size_t cur = stack[--top];
        for (size_t d = 0; d < n_deps[cur]; d++) {
            size_t j = deps[cur][d];
            if (j == from)
                return 1;
            if (!seen[j] && pos_of[j] > pos_of[from]) {
                seen[j] = 1;
                stack[top++] = j;
            }
        }
    }
    return 0;
}

int gi_graph_order(size_t n, const size_t *const *deps, const size_t *n_deps,
                   const unsigned char *is_kernel, size_t *order, int *one_order)
{
    *one_order = 1;
    if (n == 0)
        return 1;
    size_t edges = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < n_deps[i]; d++) {
            if (deps[i][d] >= n)
                return 0;
            edges++;
        }
    /* Dependants of each node, as a CSR list: Kahn's algorithm in
     * O(nodes + edges). */
    size_t *start = calloc(n + 1, sizeof *start), *fill = calloc(n, sizeof *fill),
           *child = calloc(edges + 1, sizeof *child), *indeg = calloc(n, sizeof *indeg),
           *pos_of = calloc(n, sizeof *pos_of), *stack = calloc(n + 1, sizeof *stack);
    unsigned char *seen = calloc(n, 1);
    int rc = -1;
    if (!start || !fill || !child || !indeg || !pos_of || !stack || !seen)
        goto out;
    for (size_t i = 0; i < n; i++) {
        indeg[i] = n_deps[i];
        for (size_t d = 0; d < n_deps[i]; d++)
            start[deps[i][d] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t i = 0; i < n; i++)
        for (size_t d = 0; d < n_deps[i]; d++) {
            size_t j = deps[i][d];
            child[start[j] + fill[j]++] = i;
        }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            order[tail++] = i;
    while (head < tail) {
        size_t cur = order[head];
        pos_of[cur] = head++;
        for (size_t c = start[cur]; c < start[cur + 1]; c++)
            if (--indeg[child[c]] == 0)
                order[tail++] = child[c];
    }
    if (tail != n) {
        rc = 0; /* a cycle */
        goto out;
    }
    size_t prev = n;
    for (size_t p = 0; p < n && *one_order; p++) {
        size_t i = order[p];
        if (!is_kernel[i])
            continue;
        if (prev != n && !depends_on(i, prev, deps, n_deps, pos_of, seen, stack, n))
            *one_order = 0;
        prev = i;
    }
    rc = 1;
out:
    free(start);
    free(fill);
    free(child);
    free(indeg);
    free(pos_of);
    free(stack);
    free(seen);
    return rc;
}
