/* The NVTX range filter's matching (gi_nvtx.h). */
#include "gi_nvtx.h"

#include <stdlib.h>
#include <string.h>

int gi_nvtx_name_matches(const char *name, const char *want)
{
    return name && want && want[0] && strcmp(name, want) == 0;
}

void gi_nvtx_push(gi_nvtx_thread *t, const char *name, const char *want)
{
    if (t->depth < GI_NVTX_TRACKED_DEPTH && gi_nvtx_name_matches(name, want))
        t->match_bits |= (uint64_t)1 << t->depth;
    if (t->depth < UINT32_MAX)
        t->depth++;
}

void gi_nvtx_pop(gi_nvtx_thread *t)
{
    if (t->depth == 0)
        return;
    t->depth--;
    if (t->depth < GI_NVTX_TRACKED_DEPTH)
        t->match_bits &= ~((uint64_t)1 << t->depth);
}

int gi_nvtx_thread_inside(const gi_nvtx_thread *t)
{
    return t->match_bits != 0;
}

int gi_nvtx_start(gi_nvtx_open *o, uint64_t id, const char *name, const char *want)
{
    if (!gi_nvtx_name_matches(name, want))
        return 1;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        uint64_t *grown = realloc(o->ids, cap * sizeof *grown);
        if (!grown)
            return 0;
        o->ids = grown;
        o->cap = cap;
    }
    o->ids[o->n++] = id;
    return 1;
}

void gi_nvtx_end(gi_nvtx_open *o, uint64_t id)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->ids[i] == id) {
            o->ids[i] = o->ids[--o->n];
            return;
        }
}

int gi_nvtx_open_inside(const gi_nvtx_open *o)
{
    return o->n > 0;
}

void gi_nvtx_open_free(gi_nvtx_open *o)
{
    free(o->ids);
    memset(o, 0, sizeof *o);
}
