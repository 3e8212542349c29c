/* The graphs the collector knows (gi_graph_registry.h): an array of the
 * listed records (a program keeps a few graphs alive, so a linear search
 * is what a lookup costs), each behind a node that counts its references. */
#include <stdlib.h>

#include "gi_graph_registry.h"

static size_t index_of(const gi_registry *r, const void *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->slots[i].key == key)
            return i;
    return r->n;
}

void gi_registry_release(gi_registry *r, gi_reg_node *node)
{
    if (!node || node->refs == 0)
        return;
    if (--node->refs == 0) {
        if (r->free_item)
            r->free_item(node->item);
        free(node);
    }
}

/* Unlists slot i (the last one takes its place: the order does not matter). */
static void unlist(gi_registry *r, size_t i)
{
    gi_reg_node *node = r->slots[i].node;
    r->slots[i] = r->slots[--r->n];
    gi_registry_release(r, node);
}

gi_reg_node *gi_registry_put(gi_registry *r, const void *key, void *item)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct gi_reg_slot *grown = realloc(r->slots, cap * sizeof *grown);
        if (!grown)
            return NULL;
        r->slots = grown;
        r->cap = cap;
    }
    gi_reg_node *node = malloc(sizeof *node);
    if (!node)
        return NULL;
    node->item = item;
    node->refs = 1;
    size_t old = index_of(r, key);
    if (old < r->n)
        unlist(r, old); /* an update: the new record takes the handle */
    r->slots[r->n].key = key;
    r->slots[r->n++].node = node;
    return node;
}

gi_reg_node *gi_registry_peek(const gi_registry *r, const void *key)
{
    size_t i = index_of(r, key);
    return i < r->n ? r->slots[i].node : NULL;
}

gi_reg_node *gi_registry_take(gi_registry *r, const void *key)
{
    gi_reg_node *node = gi_registry_peek(r, key);
    if (node)
        node->refs++;
    return node;
}

void gi_registry_drop(gi_registry *r, const void *key)
{
    size_t i = index_of(r, key);
    if (i < r->n)
        unlist(r, i);
}

size_t gi_registry_count(const gi_registry *r)
{
    return r->n;
}
