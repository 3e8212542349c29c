/* Memory-transaction simulator (Zhang & Owens, HPCA 2011, Sec. 4.3 and
 * Fig. 10-11a): from the per-thread addresses of one warp instruction, the
 * hardware transactions it costs.  The paper needed it because its
 * functional simulator only counted instructions; on Hopper the counters
 * give the totals, and the simulator answers what the counters cannot:
 * what a changed layout or a changed transaction size would cost.
 *
 * Global memory.  Threads are coalesced in groups of `group_threads`
 * (the issue granularity: 32 on Hopper, a half-warp of 16 on GT200, 2 in
 * the paper's Fig. 10 example).  Each group costs one request, one
 * transaction per distinct aligned `segment_bytes` piece it touches (a
 * 32-byte sector on Hopper, 8 bytes in Fig. 10) and one tag lookup per
 * distinct `line_bytes` line (128 on Hopper).  With gt200 set, the
 * compute-capability 1.2/1.3 protocol of Sec. 4.3 is used instead: find
 * the segment (32/64/128 B by word size) of the lowest pending thread,
 * serve every thread inside it, shrink it to the half that is used while
 * it stays >= 32 B, repeat.
 *
 * Shared memory.  `banks` banks of `bank_bytes`; a warp's access is split
 * into phases of `phase_threads` threads (16, a half-warp, on GT200), or of
 * banks * bank_bytes / access_bytes threads when phase_threads is 0 (32,
 * 16 and 8 threads for 4-, 8- and 16-byte accesses on Hopper: 128 bytes a
 * phase).  A phase costs as many wavefronts as the most distinct words any
 * one bank must deliver (threads reading the same word share it:
 * broadcast), at least one; without conflicts it would cost ceil(distinct
 * words / banks).  With `warp_if_free` (Hopper), a warp whose accesses hit
 * each bank at most once costs one wavefront in all: 8-byte accesses by
 * lane pairs to 16 words take one wavefront, not two (this rule fits the
 * 18 shared patterns checked against the counters, docs/bottleneck.md).
 */
#ifndef GPUQ_BOTTLENECK_TXSIM_H
#define GPUQ_BOTTLENECK_TXSIM_H

#include <stdint.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_BOTTLENECK_TX_MAX_THREADS 32 /* one warp instruction */

typedef struct gm_bottleneck_tx_global_rules {
    int group_threads; /* threads coalesced together (issue granularity) */
    int segment_bytes; /* transaction size (power of two) */
    int line_bytes;    /* tag / cache-line size (power of two); 0: not counted */
    int gt200;         /* 1: the CC 1.2/1.3 segment-shrinking protocol */
} gm_bottleneck_tx_global_rules;

typedef struct gm_bottleneck_tx_shared_rules {
    int banks;         /* 32 on Hopper, 16 on GT200 */
    int bank_bytes;    /* 4 */
    int phase_threads; /* 0: banks * bank_bytes / access_bytes */
    int warp_if_free;  /* 1: one wavefront when the whole warp is conflict-free */
} gm_bottleneck_tx_shared_rules;

extern const gm_bottleneck_tx_global_rules gm_bottleneck_tx_hopper_global; /* {32, 32, 128, 0} */
extern const gm_bottleneck_tx_shared_rules gm_bottleneck_tx_hopper_shared; /* {32, 4, 0, 1} */
extern const gm_bottleneck_tx_global_rules gm_bottleneck_tx_gt200_global;  /* {16, 32, 0, 1} */
extern const gm_bottleneck_tx_shared_rules gm_bottleneck_tx_gt200_shared;  /* {16, 4, 16, 0} */

/* Totals of one or more warp instructions (gm_bottleneck_tx_*_add accumulates). */
typedef struct gm_bottleneck_tx_global_cost {
    double instructions; /* warp instructions with an active thread */
    double requests;     /* groups with an active thread */
    double transactions; /* sectors (segments) */
    double lines;        /* distinct lines per group */
    double bytes;        /* bytes moved: transactions * segment size (gt200: the shrunk sizes) */
    double useful_bytes; /* bytes the threads asked for */
} gm_bottleneck_tx_global_cost;

typedef struct gm_bottleneck_tx_shared_cost {
    double instructions;
    double wavefronts;   /* with bank conflicts */
    double ideal;        /* without: ceil(distinct words / banks) per phase */
} gm_bottleneck_tx_shared_cost;

/* One warp instruction: n threads (1..32), addr[i] the byte address of
 * thread i, active[i] != 0 when it takes part (active NULL: all), each
 * accessing access_bytes (1, 2, 4, 8 or 16) at an address aligned to it.
 * Adds to *cost.  GM_ERR_INVALID_ARG for a misaligned address, a bad size
 * or bad rules. */
gm_status gm_bottleneck_tx_global_add(const gm_bottleneck_tx_global_rules *r, const uint64_t *addr,
                                      const unsigned char *active, int n, int access_bytes,
                                      gm_bottleneck_tx_global_cost *cost, gm_error *err);
gm_status gm_bottleneck_tx_shared_add(const gm_bottleneck_tx_shared_rules *r, const uint64_t *addr,
                                      const unsigned char *active, int n, int access_bytes,
                                      gm_bottleneck_tx_shared_cost *cost, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
