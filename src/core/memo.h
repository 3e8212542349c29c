/* A small bounded cache of a pure computation's results, keyed on every
 * input the computation reads.  A long job repeats its launches: the same
 * kernel at the same shape, often with the same counters (a recording's
 * rows repeated, a loop of identical steps), and a unit's apply on such a
 * launch gives the same result each time.  A result is taken from the
 * cache only where the whole key is equal, byte for byte, so a report is
 * the same with the cache as without it; the key must therefore hold every
 * input (its padding zeroed), which gm_memo_launch_key_fill does for a launch.
 *
 * Keys and values have fixed sizes.  The entries are in sets of
 * GM_MEMO_WAYS, picked by a hash of the key; a full set gives up its least
 * recently used entry.  Memory is capacity x (key + value + 16) bytes,
 * allocated once.  One mutex: the two threads of a report (report_par.c)
 * share a cache.  A NULL cache finds nothing and keeps nothing. */
#ifndef GPUQ_CORE_MEMO_H
#define GPUQ_CORE_MEMO_H

#include <stddef.h>
#include "gpuq/counters.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_MEMO_WAYS 4

typedef struct gm_memo gm_memo;

typedef struct gm_memo_stats {
    unsigned long long hits, misses, evictions;
    size_t entries, capacity; /* held now, at most */
    size_t bytes;             /* allocated */
} gm_memo_stats;

/* capacity: entries at most (rounded up to a power of two of whole sets).
 * GM_ERR_INVALID_ARG for a size of 0, GM_ERR_NOMEM. */
gm_status gm_memo_create(size_t key_size, size_t value_size, size_t capacity, gm_memo **out,
                         gm_error *err);
void gm_memo_free(gm_memo *m);
/* 1 and the value copied out where the key is held; 0 otherwise. */
int gm_memo_get(gm_memo *m, const void *key, void *value);
/* Keeps key -> value (a key held already: its value replaced). */
void gm_memo_put(gm_memo *m, const void *key, const void *value);
void gm_memo_stats_of(gm_memo *m, gm_memo_stats *st);

/* A launch as a key: everything of it a unit's apply may read, but its
 * identity (launch id, names, device): every metric of the table, the code
 * pass's values, the grid, the block, registers, shared memory, the
 * launches a summed row adds up, and the file header's SM count and warps
 * per SM.  A unit whose apply reads the names or the per-SM values cannot
 * be keyed so. */
typedef struct gm_memo_launch_key {
    unsigned grid[3], block[3];
    int regs_per_thread, shared_bytes;
    unsigned summed;
    int pass_valid;
    int sm_count, max_warps_per_sm; /* meta's; 0 without meta */
    double pass[GM_PASS_VALUES_MAX];
    double metric[GM_METRIC_MAX];   /* last: the key ends at the table's last row */
} gm_memo_launch_key;

/* The key's bytes that count (gm_memo_create's key_size): up to the metric
 * table's last row in use (about half of GM_METRIC_MAX), so that a key is
 * hashed and compared in half the time. */
size_t gm_memo_launch_key_size(void);

/* Fills the key's first gm_memo_launch_key_size() bytes (padding zeroed);
 * 0 where the launch has per-SM values, which the key does not hold: not to
 * be cached. */
int gm_memo_launch_key_fill(gm_memo_launch_key *key, const gm_counters_meta *meta,
                            const gm_launch_counters *k);

/* A unit's result of one launch through the cache: the cached one where the
 * launch's key was seen, else compute(state, meta, k, result), kept.  m may
 * be NULL (no cache): compute only. */
typedef void (*gm_memo_compute_fn)(const void *state, const gm_counters_meta *meta,
                                   const gm_launch_counters *k, void *result);
void gm_memo_launch(gm_memo *m, const gm_counters_meta *meta, const gm_launch_counters *k,
                    gm_memo_compute_fn compute, const void *state, void *result);

#ifdef __cplusplus
}
#endif
#endif
