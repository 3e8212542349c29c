/* A bounded cache of results keyed on all their inputs: memo.h. */
#include "core/memo.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An entry: its key's hash, when it was last used (0: empty), the key,
 * the value. */
typedef struct entry {
    uint64_t hash, used;
} entry;

struct gm_memo {
    pthread_mutex_t lock;
    size_t key_size, value_size, stride, sets;
    uint64_t clock;
    gm_memo_stats stats;
    unsigned char *slots;
};

gm_status gm_memo_create(size_t key_size, size_t value_size, size_t capacity, gm_memo **out,
                         gm_error *err)
{
    if (!out || key_size == 0 || value_size == 0 || capacity == 0 ||
        capacity > ((size_t)1 << 24))
        return gm_fail(err, GM_ERR_INVALID_ARG, "memo: bad key, value or capacity");
    *out = NULL;
    size_t sets = 1;
    while (sets * GM_MEMO_WAYS < capacity)
        sets *= 2;
    size_t stride = (sizeof(entry) + key_size + value_size + 7) / 8 * 8;
    gm_memo *m = calloc(1, sizeof *m);
    unsigned char *slots = m ? calloc(sets * GM_MEMO_WAYS, stride) : NULL;
    if (!slots || pthread_mutex_init(&m->lock, NULL) != 0) {
        free(slots);
        free(m);
        return gm_fail(err, GM_ERR_NOMEM, "memo: out of memory");
    }
    m->key_size = key_size;
    m->value_size = value_size;
    m->stride = stride;
    m->sets = sets;
    m->slots = slots;
    m->stats.capacity = sets * GM_MEMO_WAYS;
    m->stats.bytes = sizeof *m + sets * GM_MEMO_WAYS * stride;
    *out = m;
    return GM_OK;
}

void gm_memo_free(gm_memo *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m->slots);
    free(m);
}

/* Eight independent multiply-xor lanes over the key's 8-byte words, so
 * that a key of a kilobyte and more (a launch's metrics) hashes in a couple
 * of hundred cycles; each step is a bijection of its lane, so keys that
 * differ in one word differ in that lane; the lanes folded and mixed
 * (MurmurHash3's finalizer).  Not for an adversary, only to spread the
 * sets: equal hashes are compared whole. */
static uint64_t hash_of(const void *key, size_t n)
{
    const unsigned char *p = key;
    const uint64_t mul = 0xff51afd7ed558ccdu;
    uint64_t h[8], w, x = n;
    for (int j = 0; j < 8; j++)
        h[j] = 0x9e3779b97f4a7c15u * (uint64_t)(j + 1);
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int j = 0; j < 8; j++) {
            memcpy(&w, p + i + 8 * (size_t)j, 8);
            h[j] = (h[j] ^ w) * mul;
        }
    for (int j = 0; i < n; i += 8, j++) {
        w = 0;
        memcpy(&w, p + i, n - i < 8 ? n - i : 8);
        h[j] = (h[j] ^ w) * mul;
    }
    for (int j = 0; j < 8; j++)
        x = (x ^ h[j] ^ (h[j] >> 29)) * 0xc4ceb9fe1a85ec53u;
    x ^= x >> 33;
    x *= mul;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53u;
    return x ^ (x >> 33);
}

static entry *slot(const gm_memo *m, size_t set, int way)
{
    return (entry *)(void *)(m->slots + (set * GM_MEMO_WAYS + (size_t)way) * m->stride);
}

static unsigned char *key_of(entry *e)
{
    return (unsigned char *)(e + 1);
}

/* The entry of key in its set, or NULL. */
static entry *find(const gm_memo *m, size_t set, uint64_t h, const void *key)
{
    for (int w = 0; w < GM_MEMO_WAYS; w++) {
        entry *e = slot(m, set, w);
        if (e->used && e->hash == h && memcmp(key_of(e), key, m->key_size) == 0)
            return e;
    }
    return NULL;
}

int gm_memo_get(gm_memo *m, const void *key, void *value)
{
    if (!m || !key || !value)
        return 0;
    uint64_t h = hash_of(key, m->key_size);
    size_t set = (size_t)(h >> 20) & (m->sets - 1);
    pthread_mutex_lock(&m->lock);
    entry *e = find(m, set, h, key);
    if (e) {
        e->used = ++m->clock;
        memcpy(value, key_of(e) + m->key_size, m->value_size);
        m->stats.hits++;
    } else {
        m->stats.misses++;
    }
    pthread_mutex_unlock(&m->lock);
    return e != NULL;
}

void gm_memo_put(gm_memo *m, const void *key, const void *value)
{
    if (!m || !key || !value)
        return;
    uint64_t h = hash_of(key, m->key_size);
    size_t set = (size_t)(h >> 20) & (m->sets - 1);
    pthread_mutex_lock(&m->lock);
    entry *e = find(m, set, h, key);
    for (int w = 0; !e && w < GM_MEMO_WAYS; w++) {
        entry *c = slot(m, set, w);
        if (!c->used) {
            e = c; /* an empty way */
            m->stats.entries++;
        }
    }
    if (!e) {
        e = slot(m, set, 0); /* the set is full: its least recently used */
        for (int w = 1; w < GM_MEMO_WAYS; w++)
            if (slot(m, set, w)->used < e->used)
                e = slot(m, set, w);
        m->stats.evictions++;
    }
    e->hash = h;
    e->used = ++m->clock;
    memcpy(key_of(e), key, m->key_size);
    memcpy(key_of(e) + m->key_size, value, m->value_size);
    pthread_mutex_unlock(&m->lock);
}

void gm_memo_stats_of(gm_memo *m, gm_memo_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    *st = m->stats;
    pthread_mutex_unlock(&m->lock);
}

size_t gm_memo_launch_key_size(void)
{
    return offsetof(gm_memo_launch_key, metric) + (size_t)GM_METRIC_COUNT * sizeof(double);
}

int gm_memo_launch_key_fill(gm_memo_launch_key *key, const gm_counters_meta *meta,
                            const gm_launch_counters *k)
{
    memset(key, 0, gm_memo_launch_key_size());
    if (!k || k->n_sm > 0)
        return 0;
    memcpy(key->metric, k->metric, (size_t)GM_METRIC_COUNT * sizeof k->metric[0]);
    memcpy(key->pass, k->pass.value, sizeof key->pass);
    memcpy(key->grid, k->grid, sizeof key->grid);
    memcpy(key->block, k->block, sizeof key->block);
    key->regs_per_thread = k->regs_per_thread;
    key->shared_bytes = k->shared_bytes;
    key->summed = k->summed;
    key->pass_valid = k->pass.valid;
    key->sm_count = meta ? meta->sm_count : 0;
    key->max_warps_per_sm = meta ? meta->max_warps_per_sm : 0;
    return 1;
}

void gm_memo_launch(gm_memo *m, const gm_counters_meta *meta, const gm_launch_counters *k,
                    gm_memo_compute_fn compute, const void *state, void *result)
{
    gm_memo_launch_key key;
    int keyed = m && gm_memo_launch_key_fill(&key, meta, k);
    if (keyed && gm_memo_get(m, &key, result))
        return;
    compute(state, meta, k, result);
    if (keyed)
        gm_memo_put(m, &key, result);
}
