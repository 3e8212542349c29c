/* The transaction simulator on hand-computed patterns: Hopper's sectors,
 * lines and shared-memory wavefronts, the CC 1.2/1.3 protocol of Sec. 4.3,
 * and the paper's Fig. 10 setting (8-byte transactions, 2-thread issue). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "papers/bottleneck/bottleneck_txsim.h"

static void strided(uint64_t *a, int n, uint64_t base, uint64_t stride)
{
    for (int i = 0; i < n; i++)
        a[i] = base + (uint64_t)i * stride;
}

static gm_bottleneck_tx_global_cost global1(const gm_bottleneck_tx_global_rules *r,
                                            const uint64_t *a, const unsigned char *act, int n,
                                            int bytes)
{
    gm_bottleneck_tx_global_cost c;
    memset(&c, 0, sizeof c);
    gm_error err;
    assert_int_equal(gm_bottleneck_tx_global_add(r, a, act, n, bytes, &c, &err), GM_OK);
    return c;
}

static gm_bottleneck_tx_shared_cost shared1(const gm_bottleneck_tx_shared_rules *r,
                                            const uint64_t *a, int n, int bytes)
{
    gm_bottleneck_tx_shared_cost c;
    memset(&c, 0, sizeof c);
    gm_error err;
    assert_int_equal(gm_bottleneck_tx_shared_add(r, a, NULL, n, bytes, &c, &err), GM_OK);
    return c;
}

static void hopper_global(void **state)
{
    (void)state;
    uint64_t a[32];
    const gm_bottleneck_tx_global_rules *h = &gm_bottleneck_tx_hopper_global;
    strided(a, 32, 4096, 4); /* 128 contiguous bytes: 4 sectors, 1 line */
    gm_bottleneck_tx_global_cost c = global1(h, a, NULL, 32, 4);
    assert_true(c.requests == 1 && c.transactions == 4 && c.lines == 1 && c.bytes == 128);
    assert_true(c.useful_bytes == 128 && c.instructions == 1);
    strided(a, 32, 4100, 4); /* shifted by one word: bytes 4100..4227 span 5 sectors, 2 lines */
    c = global1(h, a, NULL, 32, 4);
    assert_true(c.transactions == 5 && c.lines == 2);
    strided(a, 32, 0, 32); /* one sector per thread, 4 per line */
    c = global1(h, a, NULL, 32, 4);
    assert_true(c.transactions == 32 && c.lines == 8);
    strided(a, 32, 0, 128);
    c = global1(h, a, NULL, 32, 4);
    assert_true(c.transactions == 32 && c.lines == 32 && c.bytes == 1024);
    strided(a, 32, 256, 0); /* every thread the same word */
    c = global1(h, a, NULL, 32, 4);
    assert_true(c.transactions == 1 && c.lines == 1);
    strided(a, 32, 0, 16); /* 16-byte vectors: 512 bytes */
    c = global1(h, a, NULL, 32, 16);
    assert_true(c.transactions == 16 && c.lines == 4 && c.useful_bytes == 512);
    strided(a, 32, 0, 8);
    c = global1(h, a, NULL, 32, 8);
    assert_true(c.transactions == 8 && c.lines == 2);
    unsigned char act[32];
    for (int i = 0; i < 32; i++)
        act[i] = i < 16; /* half a warp: 64 bytes */
    strided(a, 32, 0, 4);
    c = global1(h, a, act, 32, 4);
    assert_true(c.transactions == 2 && c.requests == 1);
    memset(act, 0, sizeof act);
    c = global1(h, a, act, 32, 4);
    assert_true(c.instructions == 0 && c.requests == 0 && c.transactions == 0);
}

static void gt200_protocol(void **state)
{
    (void)state;
    uint64_t a[32];
    const gm_bottleneck_tx_global_rules *g = &gm_bottleneck_tx_gt200_global;
    /* Each half-warp reads 64 contiguous bytes: the 128-byte segment shrinks
     * to the 64-byte half it uses; two half-warps, two transactions. */
    strided(a, 32, 1024, 4);
    gm_bottleneck_tx_global_cost c = global1(g, a, NULL, 32, 4);
    assert_true(c.requests == 2 && c.transactions == 2 && c.bytes == 128);
    /* Stride 2 words: a half-warp spans 128 bytes, no shrinking. */
    strided(a, 32, 1024, 8);
    c = global1(g, a, NULL, 32, 4);
    assert_true(c.transactions == 2 && c.bytes == 256);
    /* Threads 0-7 in one 32-byte piece, 8-15 in another 1 KB away: two
     * transactions per half-warp, each shrunk to 32 bytes. */
    for (int i = 0; i < 16; i++)
        a[i] = (i < 8 ? 0 : 1024) + 4u * (uint64_t)(i % 8);
    c = global1(g, a, NULL, 16, 4);
    assert_true(c.transactions == 2 && c.bytes == 64);
    /* Lowest thread first: thread 0's segment is taken even when thread 0
     * reads the highest address. */
    a[0] = 4096 + 124;
    for (int i = 1; i < 16; i++)
        a[i] = 4096 + 4u * (uint64_t)(i - 1);
    c = global1(g, a, NULL, 16, 4);
    assert_true(c.transactions == 1 && c.bytes == 128);
}

/* Fig. 10 / Sec. 5.3 in the paper's setting: 8-byte transactions (two
 * 4-byte vector entries), issue granularity 2 threads.  The 12x12 matrix
 * of 3x3 blocks is rebuilt from the text (the figure itself is a picture):
 * thread t (1..4) processes block row t-1 in BELL, whose two blocks sit in
 * block columns {0,1}, {2,3}, {0,2}, {1,3}; so thread 1 first reads entry
 * 1 and thread 2 entry 7 (1-based), as the text says.  Each instruction is
 * one (block slot j, row r in block) step of all four threads, which read
 * vector entry 3c + r of their block column c.
 *   straightforward vector: entry i at 4i bytes.  Threads 1,2 (3,4) read
 *     entries 3c+r for c 0 vs 2 (0 vs 1, then 2 vs 3): never in one 8-byte
 *     piece, so 2 x 2 x 3 = 12 transactions per thread pair, 24 in all;
 *   interleaved vector (IV): entry 3c + r at position 4r + c.  Threads 3
 *     and 4 read positions 4r + c and 4r + c + 1 with c even, one piece for
 *     both: 6 shared transactions, 12 - 6 = 6 for the pair, 18 in all; for
 *     threads 1 and 2 the first entries are 2 positions apart instead of 6. */
static void fig10(void **state)
{
    (void)state;
    const gm_bottleneck_tx_global_rules fig = {2, 8, 0, 0};
    static const int bcol[4][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}};
    gm_bottleneck_tx_global_cost plain, iv, pair34_plain, pair34_iv;
    memset(&plain, 0, sizeof plain);
    memset(&iv, 0, sizeof iv);
    memset(&pair34_plain, 0, sizeof pair34_plain);
    memset(&pair34_iv, 0, sizeof pair34_iv);
    gm_error err;
    for (int j = 0; j < 2; j++)
        for (int r = 0; r < 3; r++) {
            uint64_t a[4], b[4];
            for (int t = 0; t < 4; t++) {
                int c = bcol[t][j];
                a[t] = 4u * (uint64_t)(3 * c + r);
                b[t] = 4u * (uint64_t)(4 * r + c);
            }
            assert_int_equal(gm_bottleneck_tx_global_add(&fig, a, NULL, 4, 4, &plain, &err), GM_OK);
            assert_int_equal(gm_bottleneck_tx_global_add(&fig, b, NULL, 4, 4, &iv, &err), GM_OK);
            assert_int_equal(gm_bottleneck_tx_global_add(&fig, a + 2, NULL, 2, 4, &pair34_plain, &err),
                             GM_OK);
            assert_int_equal(gm_bottleneck_tx_global_add(&fig, b + 2, NULL, 2, 4, &pair34_iv, &err),
                             GM_OK);
        }
    assert_true(plain.transactions == 24 && plain.requests == 12);
    assert_true(iv.transactions == 18);
    assert_true(pair34_plain.transactions == 12 && pair34_iv.transactions == 6);
    /* Bytes per vector entry (Fig. 11a's measure): 24 x 8 / 24 entries = 8
     * straightforward, 18 x 8 / 24 = 6 interleaved; with 4-byte transactions
     * (the ideal) 4 either way. */
    assert_true(plain.bytes / 24 == 8 && iv.bytes / 24 == 6);
    const gm_bottleneck_tx_global_rules ideal = {2, 4, 0, 0};
    gm_bottleneck_tx_global_cost id;
    memset(&id, 0, sizeof id);
    uint64_t a[4] = {0, 24, 0, 4};
    assert_int_equal(gm_bottleneck_tx_global_add(&ideal, a, NULL, 4, 4, &id, &err), GM_OK);
    assert_true(id.bytes == id.useful_bytes);
}

static void hopper_shared(void **state)
{
    (void)state;
    uint64_t a[32];
    const gm_bottleneck_tx_shared_rules *h = &gm_bottleneck_tx_hopper_shared;
    /* k-way conflicts: stride k words puts 32/(32/k) = k threads in bank 0. */
    for (int k = 1; k <= 32; k *= 2) {
        strided(a, 32, 0, 4u * (uint64_t)k);
        gm_bottleneck_tx_shared_cost c = shared1(h, a, 32, 4);
        assert_true(c.wavefronts == k && c.ideal == 1);
    }
    strided(a, 32, 0, 4 * 3); /* odd stride: every bank once */
    assert_true(shared1(h, a, 32, 4).wavefronts == 1);
    strided(a, 32, 64, 0); /* broadcast */
    assert_true(shared1(h, a, 32, 4).wavefronts == 1);
    for (int i = 0; i < 32; i++) /* 16 threads on word 0, 16 on word 32: same bank */
        a[i] = i < 16 ? 0 : 128;
    assert_true(shared1(h, a, 32, 4).wavefronts == 2);
    strided(a, 32, 0, 8); /* 8-byte contiguous: two half-warp phases */
    gm_bottleneck_tx_shared_cost c = shared1(h, a, 32, 8);
    assert_true(c.wavefronts == 2 && c.ideal == 2);
    for (int i = 0; i < 32; i++) /* lane pairs on 16 distinct 8-byte words: one (counters) */
        a[i] = (uint64_t)(i / 2) * 8;
    c = shared1(h, a, 32, 8);
    assert_true(c.wavefronts == 1 && c.ideal == 1);
    strided(a, 32, 0, 16); /* 8-byte at stride 16: threads i and i+8 share a bank */
    c = shared1(h, a, 32, 8);
    assert_true(c.wavefronts == 4 && c.ideal == 2);
    strided(a, 32, 0, 16); /* 16-byte contiguous: four quarter-warp phases */
    c = shared1(h, a, 32, 16);
    assert_true(c.wavefronts == 4 && c.ideal == 4);
    strided(a, 32, 0, 32); /* 16-byte at stride 32: 2-way in every phase */
    c = shared1(h, a, 32, 16);
    assert_true(c.wavefronts == 8);
    /* 16 bytes, lanes 0-7 on words 0..31, lanes 8-31 repeating lanes 0-7:
     * conflict-free as a warp, one wavefront (quarter phases would be 4) */
    for (int i = 0; i < 32; i++)
        a[i] = (uint64_t)(i % 8) * 16;
    c = shared1(h, a, 32, 16);
    assert_true(c.wavefronts == 1 && c.ideal == 1);
    /* a conflict in one quarter: phases again, 2 + 1 + 1 + 1 */
    a[1] = 128;
    c = shared1(h, a, 32, 16);
    assert_true(c.wavefronts == 5 && c.ideal == 4);
}

static void gt200_shared(void **state)
{
    (void)state;
    uint64_t a[32];
    strided(a, 32, 0, 4); /* two half-warps, conflict-free */
    gm_bottleneck_tx_shared_cost c = shared1(&gm_bottleneck_tx_gt200_shared, a, 32, 4);
    assert_true(c.wavefronts == 2 && c.ideal == 2);
    strided(a, 32, 0, 8); /* stride 2 of 16 banks: 2-way per half-warp */
    c = shared1(&gm_bottleneck_tx_gt200_shared, a, 32, 4);
    assert_true(c.wavefronts == 4);
}

static void bad_input(void **state)
{
    (void)state;
    uint64_t a[32];
    strided(a, 32, 2, 4);
    gm_bottleneck_tx_global_cost g;
    gm_bottleneck_tx_shared_cost s;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    gm_error err;
    assert_int_equal(gm_bottleneck_tx_global_add(&gm_bottleneck_tx_hopper_global, a, NULL, 32, 4, &g, &err),
                     GM_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "not aligned"));
    strided(a, 32, 0, 4);
    assert_int_equal(gm_bottleneck_tx_global_add(&gm_bottleneck_tx_hopper_global, a, NULL, 0, 4, &g, &err),
                     GM_ERR_INVALID_ARG);
    assert_int_equal(gm_bottleneck_tx_shared_add(&gm_bottleneck_tx_hopper_shared, a, NULL, 32, 3, &s, &err),
                     GM_ERR_INVALID_ARG);
    const gm_bottleneck_tx_global_rules bad = {32, 24, 128, 0};
    assert_int_equal(gm_bottleneck_tx_global_add(&bad, a, NULL, 32, 4, &g, &err),
                     GM_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hopper_global), cmocka_unit_test(gt200_protocol),
        cmocka_unit_test(fig10),         cmocka_unit_test(hopper_shared),
        cmocka_unit_test(gt200_shared),  cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
