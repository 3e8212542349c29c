/* Memory-transaction simulator: Zhang & Owens, Sec. 4.2-4.3 and Fig. 10,
 * with Hopper's sector / line / wavefront rules (src/papers/bottleneck/bottleneck_txsim.h). */
#include "bottleneck_txsim.h"

#include <stddef.h>
#include <string.h>

const gm_bottleneck_tx_global_rules gm_bottleneck_tx_hopper_global = {32, 32, 128, 0};
const gm_bottleneck_tx_shared_rules gm_bottleneck_tx_hopper_shared = {32, 4, 0, 1};
const gm_bottleneck_tx_global_rules gm_bottleneck_tx_gt200_global = {16, 32, 0, 1};
const gm_bottleneck_tx_shared_rules gm_bottleneck_tx_gt200_shared = {16, 4, 16, 0};

/* Largest number of pieces one group can touch: 32 threads x 16 bytes in
 * pieces of at least 1 byte would be 512; segments are >= 4 bytes in any
 * rule we model, so 32 x (16 / 4 + 1). */
#define MAX_PIECES (GM_BOTTLENECK_TX_MAX_THREADS * 5)

static int is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Adds the aligned pieces of size `piece` covering [a, a + w) to set[] (no
 * duplicates); returns the new count, or -1 when the set is full. */
static int add_pieces(uint64_t *set, int count, uint64_t a, int w, int piece)
{
    for (uint64_t p = a / (uint64_t)piece; p <= (a + (uint64_t)w - 1) / (uint64_t)piece; p++) {
        int seen = 0;
        for (int i = 0; i < count && !seen; i++)
            seen = set[i] == p;
        if (seen)
            continue;
        if (count >= MAX_PIECES)
            return -1;
        set[count++] = p;
    }
    return count;
}

static gm_status check_access(const uint64_t *addr, const unsigned char *active, int n,
                              int access_bytes, gm_error *err)
{
    if (!addr || n < 1 || n > GM_BOTTLENECK_TX_MAX_THREADS)
        return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: %d threads (1..%d)", n,
                       GM_BOTTLENECK_TX_MAX_THREADS);
    if (!is_pow2(access_bytes) || access_bytes > 16)
        return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: access of %d bytes (1, 2, 4, 8 or 16)",
                       access_bytes);
    for (int i = 0; i < n; i++)
        if ((!active || active[i]) && addr[i] % (uint64_t)access_bytes)
            return gm_fail(err, GM_ERR_INVALID_ARG,
                           "txsim: thread %d address 0x%llx not aligned to %d bytes", i,
                           (unsigned long long)addr[i], access_bytes);
    return GM_OK;
}

/* The CC 1.2/1.3 protocol for one group (Sec. 4.3, steps 1-4); returns the
 * transactions and adds their bytes. */
static int gt200_group(const uint64_t *addr, const int *thr, int m, int w, double *bytes)
{
    int pending[GM_BOTTLENECK_TX_MAX_THREADS];
    for (int i = 0; i < m; i++)
        pending[i] = 1;
    int size0 = w == 1 ? 32 : w == 2 ? 64 : 128;
    int tx = 0;
    for (;;) {
        int lo = -1;
        for (int i = 0; i < m && lo < 0; i++)
            if (pending[i])
                lo = i; /* (1) the lowest-numbered pending thread */
        if (lo < 0)
            break;
        uint64_t size = (uint64_t)size0;
        uint64_t base = addr[thr[lo]] & ~(size - 1);
        uint64_t first = UINT64_MAX, last = 0;
        for (int i = 0; i < m; i++) { /* (2) every thread inside that segment */
            uint64_t a = addr[thr[i]];
            if (pending[i] && a >= base && a < base + size) {
                pending[i] = 0;
                if (a < first)
                    first = a;
                if (a + (uint64_t)w - 1 > last)
                    last = a + (uint64_t)w - 1;
            }
        }
        while (size > 32) { /* (3) shrink to the used half */
            uint64_t half = size / 2;
            if (last < base + half)
                size = half;
            else if (first >= base + half) {
                base += half;
                size = half;
            } else
                break;
        }
        *bytes += (double)size;
        tx++; /* (4) repeat until every thread is served */
    }
    return tx;
}

gm_status gm_bottleneck_tx_global_add(const gm_bottleneck_tx_global_rules *r, const uint64_t *addr,
                                      const unsigned char *active, int n, int access_bytes,
                                      gm_bottleneck_tx_global_cost *cost, gm_error *err)
{
    if (!r || !cost || r->group_threads < 1 || !is_pow2(r->segment_bytes) ||
        r->segment_bytes < 4 || (r->line_bytes && !is_pow2(r->line_bytes)))
        return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: bad global-memory rules");
    gm_status st = check_access(addr, active, n, access_bytes, err);
    if (st != GM_OK)
        return st;
    int any = 0;
    for (int g = 0; g < n; g += r->group_threads) {
        int thr[GM_BOTTLENECK_TX_MAX_THREADS], m = 0;
        for (int i = g; i < n && i < g + r->group_threads; i++)
            if (!active || active[i])
                thr[m++] = i;
        if (m == 0)
            continue;
        any = 1;
        cost->requests += 1;
        cost->useful_bytes += (double)m * access_bytes;
        if (r->gt200) {
            cost->transactions += gt200_group(addr, thr, m, access_bytes, &cost->bytes);
            continue;
        }
        uint64_t seg[MAX_PIECES], line[MAX_PIECES];
        int ns = 0, nl = 0;
        for (int i = 0; i < m; i++) {
            ns = add_pieces(seg, ns, addr[thr[i]], access_bytes, r->segment_bytes);
            if (r->line_bytes)
                nl = add_pieces(line, nl, addr[thr[i]], access_bytes, r->line_bytes);
            if (ns < 0 || nl < 0)
                return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: too many pieces in one group");
        }
        cost->transactions += ns;
        cost->lines += nl;
        cost->bytes += (double)ns * r->segment_bytes;
    }
    cost->instructions += any;
    return GM_OK;
}

gm_status gm_bottleneck_tx_shared_add(const gm_bottleneck_tx_shared_rules *r, const uint64_t *addr,
                                      const unsigned char *active, int n, int access_bytes,
                                      gm_bottleneck_tx_shared_cost *cost, gm_error *err)
{
    if (!r || !cost || r->banks < 1 || r->banks > 64 || r->bank_bytes < 1 || r->phase_threads < 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: bad shared-memory rules");
    gm_status st = check_access(addr, active, n, access_bytes, err);
    if (st != GM_OK)
        return st;
    int phase = r->phase_threads;
    if (phase == 0)
        phase = r->banks * r->bank_bytes / access_bytes;
    if (phase < 1)
        phase = 1;
    if (phase > GM_BOTTLENECK_TX_MAX_THREADS)
        phase = GM_BOTTLENECK_TX_MAX_THREADS;
    if (r->warp_if_free) { /* the whole warp, each bank at most once: one pass */
        uint64_t words[MAX_PIECES];
        int nw = 0, per_bank[64] = {0}, most = 0;
        for (int i = 0; i < n; i++)
            if (!active || active[i]) {
                nw = add_pieces(words, nw, addr[i], access_bytes, r->bank_bytes);
                if (nw < 0)
                    break; /* more words than a conflict-free warp can have */
            }
        for (int i = 0; i < nw; i++) {
            int b = (int)(words[i] % (uint64_t)r->banks);
            if (++per_bank[b] > most)
                most = per_bank[b];
        }
        if (nw > 0 && most == 1) {
            cost->wavefronts += 1;
            cost->ideal += 1;
            cost->instructions += 1;
            return GM_OK;
        }
    }
    int any = 0;
    for (int p = 0; p < n; p += phase) {
        uint64_t words[MAX_PIECES];
        int nw = 0;
        for (int i = p; i < n && i < p + phase; i++)
            if (!active || active[i]) {
                nw = add_pieces(words, nw, addr[i], access_bytes, r->bank_bytes);
                if (nw < 0)
                    return gm_fail(err, GM_ERR_INVALID_ARG, "txsim: too many words in one phase");
            }
        if (nw == 0)
            continue;
        any = 1;
        /* Distinct words per bank: words[] holds no duplicates, so counting
         * the words of each bank counts its distinct rows. */
        int per_bank[64];
        memset(per_bank, 0, sizeof per_bank);
        int most = 1;
        for (int i = 0; i < nw; i++) {
            int b = (int)(words[i] % (uint64_t)r->banks);
            if (++per_bank[b] > most)
                most = per_bank[b];
        }
        cost->wavefronts += most;
        /* Without conflicts: the distinct words spread over all banks. */
        cost->ideal += (nw + r->banks - 1) / r->banks;
    }
    cost->instructions += any;
    return GM_OK;
}
