/* The bounded cache of results keyed on all their inputs (src/core/memo.c):
 * a key put is found with its value, a key that differs in one byte is not,
 * a full set gives up its least recently used entry, a launch key holds
 * every input of a launch but its identity, and two threads sharing one
 * cache find only what they put. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/memo.h"
#include "gpuq/metrics.h"

typedef struct key {
    uint64_t a;
    double b[3];
    char tail[5]; /* a size that is not a multiple of 8 */
} key;

static key key_of(uint64_t a)
{
    key k;
    memset(&k, 0, sizeof k);
    k.a = a;
    k.b[0] = (double)a / 3;
    k.b[2] = -(double)a;
    memcpy(k.tail, "abcd", 5);
    return k;
}

static void hit_and_miss(void **state)
{
    (void)state;
    gm_memo *m = NULL;
    assert_int_equal(gm_memo_create(sizeof(key), sizeof(double), 64, &m, NULL), GM_OK);
    key k = key_of(7);
    double v = 0;
    assert_int_equal(gm_memo_get(m, &k, &v), 0);
    double put = 1.5;
    gm_memo_put(m, &k, &put);
    assert_int_equal(gm_memo_get(m, &k, &v), 1);
    assert_true(v == 1.5);
    /* a key that differs in one byte (its last) is another key */
    key k2 = k;
    k2.tail[4] = 'x';
    v = 0;
    assert_int_equal(gm_memo_get(m, &k2, &v), 0);
    assert_true(v == 0);
    put = 2.5;
    gm_memo_put(m, &k2, &put);
    assert_int_equal(gm_memo_get(m, &k, &v), 1);
    assert_true(v == 1.5);
    assert_int_equal(gm_memo_get(m, &k2, &v), 1);
    assert_true(v == 2.5);
    /* the same key again: its value replaced, no entry added */
    put = 3.5;
    gm_memo_put(m, &k, &put);
    assert_int_equal(gm_memo_get(m, &k, &v), 1);
    assert_true(v == 3.5);
    gm_memo_stats st;
    gm_memo_stats_of(m, &st);
    assert_int_equal(st.entries, 2);
    assert_int_equal(st.capacity, 64);
    assert_int_equal(st.hits, 4);
    assert_int_equal(st.misses, 2);
    assert_int_equal(st.evictions, 0);
    assert_true(st.bytes >= 64 * (sizeof(key) + sizeof(double)));
    gm_memo_free(m);
}

/* One set of GM_MEMO_WAYS ways: a fifth key takes the place of the one
 * least recently used, here key 1 (key 0 was read after the fourth). */
static void eviction(void **state)
{
    (void)state;
    gm_memo *m = NULL;
    assert_int_equal(gm_memo_create(sizeof(key), sizeof(uint64_t), GM_MEMO_WAYS, &m, NULL), GM_OK);
    for (uint64_t i = 0; i < GM_MEMO_WAYS; i++) {
        key k = key_of(i);
        uint64_t v = 100 + i;
        gm_memo_put(m, &k, &v);
    }
    key k0 = key_of(0);
    uint64_t v = 0;
    assert_int_equal(gm_memo_get(m, &k0, &v), 1);
    assert_int_equal(v, 100);
    key k5 = key_of(GM_MEMO_WAYS);
    v = 200;
    gm_memo_put(m, &k5, &v);
    gm_memo_stats st;
    gm_memo_stats_of(m, &st);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.entries, GM_MEMO_WAYS);
    key k1 = key_of(1);
    assert_int_equal(gm_memo_get(m, &k1, &v), 0);
    for (uint64_t i = 0; i <= GM_MEMO_WAYS; i++) {
        key k = key_of(i);
        v = 0;
        assert_int_equal(gm_memo_get(m, &k, &v), i != 1);
        if (i != 1)
            assert_int_equal(v, i == GM_MEMO_WAYS ? 200 : 100 + i);
    }
    /* many more keys than entries: each found is its own */
    for (uint64_t i = 0; i < 1000; i++) {
        key k = key_of(1000 + i);
        uint64_t w = 5000 + i;
        gm_memo_put(m, &k, &w);
        assert_int_equal(gm_memo_get(m, &k, &v), 1);
        assert_int_equal(v, w);
    }
    gm_memo_stats_of(m, &st);
    assert_int_equal(st.entries, GM_MEMO_WAYS);
    assert_int_equal(st.evictions, 1001);
    gm_memo_free(m);
}

static void bad_arguments(void **state)
{
    (void)state;
    gm_memo *m = (gm_memo *)&m;
    gm_error e;
    assert_int_equal(gm_memo_create(0, 8, 16, &m, &e), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_memo_create(8, 0, 16, &m, &e), GM_ERR_INVALID_ARG);
    assert_int_equal(gm_memo_create(8, 8, 0, &m, &e), GM_ERR_INVALID_ARG);
    /* no cache: nothing found, nothing kept */
    uint64_t k = 1, v = 2;
    gm_memo_put(NULL, &k, &v);
    assert_int_equal(gm_memo_get(NULL, &k, &v), 0);
    assert_int_equal(v, 2);
    gm_memo_stats st;
    gm_memo_stats_of(NULL, &st);
    assert_int_equal(st.capacity, 0);
    gm_memo_free(NULL);
}

static void launch(gm_launch_counters *k)
{
    gm_launch_counters_init(k);
    k->launch_id = 3;
    k->grid[0] = 264;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = 1024;
    k->block[1] = k->block[2] = 1;
    k->regs_per_thread = 21;
    k->shared_bytes = 4096;
    k->metric[gm_metric_find("gpu__time_duration.sum")] = 71040;
    k->metric[gm_metric_find("smsp__inst_executed.sum")] = 1e6;
}

static int same_key(const gm_counters_meta *ma, const gm_launch_counters *a,
                    const gm_counters_meta *mb, const gm_launch_counters *b)
{
    gm_memo_launch_key ka, kb;
    assert_int_equal(gm_memo_launch_key_fill(&ka, ma, a), 1);
    assert_int_equal(gm_memo_launch_key_fill(&kb, mb, b), 1);
    return memcmp(&ka, &kb, gm_memo_launch_key_size()) == 0;
}

/* Every input of a launch is in its key; its id and names are not. */
static void launch_key(void **state)
{
    (void)state;
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 132;
    meta.max_warps_per_sm = 64;
    gm_launch_counters a, b;
    launch(&a);
    launch(&b);
    assert_true(same_key(&meta, &a, &meta, &b));
    b.launch_id = 99;
    char other_name[] = "other";
    b.kernel = other_name;
    b.device = 1;
    assert_true(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.metric[gm_metric_find("gpu__time_duration.sum")] = 71041;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.metric[GM_METRIC_COUNT - 1] = 0; /* the table's last row */
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.metric[0] = 0; /* and its first */
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.grid[2] = 2;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.block[1] = 2;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.regs_per_thread = 22;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.shared_bytes = -1;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.summed = 2;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.pass.valid = 1;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    b.pass.value[GM_PASS_VALUES_MAX - 1] = 1;
    assert_false(same_key(&meta, &a, &meta, &b));
    launch(&b);
    gm_counters_meta other = meta;
    other.max_warps_per_sm = 48;
    assert_false(same_key(&meta, &a, &other, &b));
    other = meta;
    other.sm_count = 114;
    assert_false(same_key(&meta, &a, &other, &b));
    /* the key's size: every row of the table, and no more */
    assert_int_equal(gm_memo_launch_key_size(),
                     offsetof(gm_memo_launch_key, metric) + GM_METRIC_COUNT * sizeof(double));
    assert_true(gm_memo_launch_key_size() <= sizeof(gm_memo_launch_key));
    /* per-SM values are not in a key: such a launch is not to be cached */
    double per_sm[2] = {1, 2};
    b.n_sm = 2;
    b.sm_cycles = per_sm;
    gm_memo_launch_key kb;
    assert_int_equal(gm_memo_launch_key_fill(&kb, &meta, &b), 0);
}

/* Two threads on one cache of 16 entries, 64 keys each put with a value
 * of its own: whatever either finds is that key's value. */
typedef struct worker {
    gm_memo *m;
    int seed, wrong, found;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    unsigned x = (unsigned)w->seed;
    for (int i = 0; i < 20000; i++) {
        x = x * 1103515245u + 12345u;
        key k = key_of((x >> 8) % 64);
        uint64_t v = 0;
        if (gm_memo_get(w->m, &k, &v)) {
            w->found++;
            w->wrong += v != k.a * 7 + 1;
        } else {
            v = k.a * 7 + 1;
            gm_memo_put(w->m, &k, &v);
        }
    }
    return NULL;
}

static void two_threads(void **state)
{
    (void)state;
    gm_memo *m = NULL;
    assert_int_equal(gm_memo_create(sizeof(key), sizeof(uint64_t), 16, &m, NULL), GM_OK);
    worker w[2] = {{m, 1, 0, 0}, {m, 2, 0, 0}};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, work, &w[1]), 0);
    work(&w[0]);
    pthread_join(t, NULL);
    assert_int_equal(w[0].wrong + w[1].wrong, 0);
    assert_true(w[0].found > 0 && w[1].found > 0);
    gm_memo_stats st;
    gm_memo_stats_of(m, &st);
    assert_int_equal(st.hits, (unsigned long long)(w[0].found + w[1].found));
    assert_int_equal(st.hits + st.misses, 40000);
    assert_true(st.evictions > 0);
    gm_memo_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hit_and_miss), cmocka_unit_test(eviction),
        cmocka_unit_test(bad_arguments), cmocka_unit_test(launch_key),
        cmocka_unit_test(two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
