/* The order of a CUDA graph's kernel nodes, from its dependencies (pure C,
 * tested on the CPU: tests/profile/test_gi_graph_order.c).
 *
 * CUPTI's auto ranges are numbered in the order the kernels ran.  A graph
 * fixes that order for its kernel nodes exactly when each kernel node
 * depends, directly or through other nodes, on the kernel node before it in
 * a topological order; then range i is kernel node i.  Otherwise (kernels on
 * parallel branches) the order is left to the GPU. */
#ifndef GPUQ_GI_GRAPH_ORDER_H
#define GPUQ_GI_GRAPH_ORDER_H

#include <stddef.h>

/* n nodes; deps[i] lists the n_deps[i] nodes node i depends on (indices);
 * is_kernel[i] says which are kernel nodes.  Fills order[] (n entries) with
 * a topological order (Kahn's algorithm) and sets *one_order
 * to 1 when the kernel nodes can run in that order only.  Returns 0 on a
 * cycle or an index out of range, -1 when out of memory, else 1. */
int gi_graph_order(size_t n, const size_t *const *deps, const size_t *n_deps,
                   const unsigned char *is_kernel, size_t *order, int *one_order);

#endif
