/* The instantiated CUDA graphs the collector knows, by their exec handle
 * (pure C, tested on the CPU: tests/profile/test_gi_graph_registry.c).
 *
 * A record is listed while its handle lives and is freed once it is
 * neither listed nor in use: cuGraphExecDestroy (or an update, which lists
 * a new record under the same handle) unlists it, and a launch of the graph
 * that took it before keeps it until it ends.  So a program that
 * instantiates and destroys graphs for hours holds the records of its live
 * graphs only, and a record is never freed under a launch that reads it.
 * The caller serializes every call (collector_graph.c: one mutex). */
#ifndef GPUQ_GI_GRAPH_REGISTRY_H
#define GPUQ_GI_GRAPH_REGISTRY_H

#include <stddef.h>

/* One record and its references: the registry's while listed, and one per
 * gi_registry_take. */
typedef struct gi_reg_node {
    void *item;
    unsigned refs;
} gi_reg_node;

typedef struct gi_registry {
    struct gi_reg_slot {
        const void *key;
        gi_reg_node *node;
    } *slots;                   /* the listed records */
    size_t n, cap;
    void (*free_item)(void *);  /* frees a record no one holds any more */
} gi_registry;

/* Lists item under key; a record listed under key before is unlisted (and
 * freed when no launch holds it).  The node, or NULL when out of memory
 * (item is then not listed: the caller still owns it). */
gi_reg_node *gi_registry_put(gi_registry *r, const void *key, void *item);
/* The node listed under key, NULL none; with take one more reference, to
 * give back with gi_registry_release. */
gi_reg_node *gi_registry_peek(const gi_registry *r, const void *key);
gi_reg_node *gi_registry_take(gi_registry *r, const void *key);
void gi_registry_release(gi_registry *r, gi_reg_node *node);
/* Unlists key's record (its handle was destroyed); nothing when none. */
void gi_registry_drop(gi_registry *r, const void *key);
/* Records listed. */
size_t gi_registry_count(const gi_registry *r);

#endif
