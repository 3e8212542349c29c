/* gi_shapes.h: open addressing on an FNV-1a hash of the shape, at most
 * half full. */
#include "gi_shapes.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"

typedef struct gi_shape {
    uint64_t hash; /* 0: empty slot */
    char *mangled;
    unsigned grid[3], block[3];
    int regs, shared;
    long full;
    /* The shape's full launches of distinct work, newest of each work kept:
     * n_sources rows of gm_metric_count() metrics (room for cap_sources). */
    double *sources;
    int n_sources, cap_sources;
    int learning; /* full launches left after a refused repeat (0: none) */
    int varies;   /* more works than GI_SHAPE_SOURCES: full from then on */
} gi_shape;

struct gi_shapes {
    gi_shape *slots;
    size_t n_slots, n_shapes, max_shapes;
    size_t n_sources, max_sources; /* over every shape: the memory bound */
};

static const char *name_of(const gm_launch_counters *k)
{
    return k->mangled ? k->mangled : k->kernel ? k->kernel : "";
}

static uint64_t shape_hash(const gm_launch_counters *k)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = name_of(k); *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    const unsigned v[8] = {k->grid[0],  k->grid[1],  k->grid[2],
                           k->block[0], k->block[1], k->block[2],
                           (unsigned)k->regs_per_thread, (unsigned)k->shared_bytes};
    for (size_t i = 0; i < 8; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h ? h : 1;
}

static int same_shape(const gi_shape *s, uint64_t h, const gm_launch_counters *k)
{
    return s->hash == h && memcmp(s->grid, k->grid, sizeof s->grid) == 0 &&
           memcmp(s->block, k->block, sizeof s->block) == 0 && s->regs == k->regs_per_thread &&
           s->shared == k->shared_bytes && strcmp(s->mangled, name_of(k)) == 0;
}

static int same_work(double mine, double theirs, double tolerance)
{
    return isfinite(mine) && isfinite(theirs) && fabs(mine - theirs) <= tolerance * fabs(theirs);
}

/* The source of s whose work matches k's, or -1; without a work row the
 * newest source. */
static int source_of(const gi_shape *s, const gm_launch_counters *k, int work, double tolerance)
{
    if (work < 0)
        return s->n_sources - 1;
    for (int i = 0; i < s->n_sources; i++)
        if (same_work(k->metric[work], s->sources[(size_t)i * gm_metric_count() + work],
                      tolerance))
            return i;
    return -1;
}

/* k's slot, or the empty one where it would go; NULL: no slots yet. */
static gi_shape *slot_of(const gi_shapes *t, const gm_launch_counters *k)
{
    if (!t || !t->n_slots)
        return NULL;
    uint64_t h = shape_hash(k);
    for (size_t i = (size_t)h & (t->n_slots - 1);; i = (i + 1) & (t->n_slots - 1))
        if (t->slots[i].hash == 0 || same_shape(&t->slots[i], h, k))
            return &t->slots[i];
}

static int grow(gi_shapes *t)
{
    size_t n = t->n_slots ? 2 * t->n_slots : 64;
    gi_shape *slots = calloc(n, sizeof *slots);
    if (!slots)
        return 0;
    for (size_t i = 0; i < t->n_slots; i++) {
        if (!t->slots[i].hash)
            continue;
        size_t j = (size_t)t->slots[i].hash & (n - 1);
        while (slots[j].hash)
            j = (j + 1) & (n - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    return 1;
}

gi_shapes *gi_shapes_new(size_t max_shapes)
{
    gi_shapes *t = calloc(1, sizeof *t);
    if (t) {
        t->max_shapes = max_shapes;
        /* every shape's first work, and as many more over all shapes:
         * 2 x 16384 x 79 metrics of 8 bytes is 21 MB inside the program */
        t->max_sources = 2 * max_shapes;
    }
    return t;
}

void gi_shapes_free(gi_shapes *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_slots; i++) {
        free(t->slots[i].mangled);
        free(t->slots[i].sources);
    }
    free(t->slots);
    free(t);
}

size_t gi_shapes_count(const gi_shapes *t)
{
    return t ? t->n_shapes : 0;
}

long gi_shapes_full(const gi_shapes *t, const gm_launch_counters *k)
{
    const gi_shape *s = slot_of(t, k);
    return s && s->hash && !s->varies && !s->learning ? s->full : 0;
}

int gi_shapes_remember(gi_shapes *t, const gm_launch_counters *k, int work, double tolerance)
{
    if (!t)
        return 0;
    gi_shape *s = slot_of(t, k);
    if (!s || !s->hash) {
        if (t->n_shapes >= t->max_shapes)
            return 0;
        if (2 * (t->n_shapes + 1) > t->n_slots && !grow(t))
            return 0;
        s = slot_of(t, k);
        if (!(s->mangled = strdup(name_of(k))))
            return 0;
        s->hash = shape_hash(k);
        memcpy(s->grid, k->grid, sizeof s->grid);
        memcpy(s->block, k->block, sizeof s->block);
        s->regs = k->regs_per_thread;
        s->shared = k->shared_bytes;
        t->n_shapes++;
    }
    int i = s->n_sources ? source_of(s, k, work, tolerance) : -1;
    if (i < 0 && s->n_sources < GI_SHAPE_SOURCES &&
        (s->n_sources == 0 || t->n_sources < t->max_sources)) {
        /* work no source did: a new source, and the shape has learnt it */
        if (s->n_sources == s->cap_sources) {
            int cap = s->cap_sources ? 2 * s->cap_sources : 1;
            double *more = realloc(s->sources, (size_t)cap * gm_metric_count() * sizeof *more);
            if (!more)
                return 0;
            s->sources = more;
            s->cap_sources = cap;
        }
        i = s->n_sources++;
        t->n_sources++;
        s->learning = 0;
    } else if (i < 0) {
        i = s->n_sources - 1;
        s->varies = 1;
    } else if (s->learning > 0) {
        /* a work it had: the refused one may have been a one-off */
        s->learning--;
    }
    s->full++;
    memcpy(&s->sources[(size_t)i * gm_metric_count()], k->metric,
           gm_metric_count() * sizeof *k->metric);
    return 1;
}

int gi_shapes_complete(gi_shapes *t, gm_launch_counters *k, const unsigned char *own, int work,
                       double tolerance)
{
    gi_shape *s = slot_of(t, k);
    if (!s || !s->hash || !s->n_sources)
        return 0;
    int i = source_of(s, k, work, tolerance);
    if (i < 0) {
        s->learning = GI_SHAPE_LEARN;
        return -1;
    }
    const double *src = &s->sources[(size_t)i * gm_metric_count()];
    for (size_t row = 0; row < gm_metric_count(); row++)
        if (!own[row])
            k->metric[row] = src[row];
    return 1;
}
