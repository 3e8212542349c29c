/* GPUDIAG (paper 003, H. Kim, "Modeling the GPU Instruction Scheduling
 * Performance using Microbenchmarks", SNU 2023): the analytical model of the
 * limit checker, the block scheduler with its state buffers and the warp
 * scheduler with its functional units, and the derivations that turn the
 * microbenchmarks' measurements into the model's parameters.
 *
 * Pure C: no CUDA.  Every function is pinned by CPU tests on hand-computed
 * values (tests/papers/waves/test_waves_model.c).  Notation follows the paper:
 *   w      warp size;  b = ceil(B / w) warps per block;  G blocks per grid
 *   s      shared memory per block (bytes);  r registers per thread
 *   n_mp   multiprocessors;  g = ceil(G / n_mp) blocks per multiprocessor
 *   N1     barrier buffer (blocks per SM);  N2 warp slots per SM
 *   S      shared memory per SM;  s_min its allocation unit
 *   R      registers per SM;  r_min the allocation unit of a warp's registers
 *   fu(c)  relative time of c warps of one block (Eq. 3.4)
 *
 * Two forms of N_slot are kept (design.md: the paper's form stays selectable
 * beside the variant the data supports):
 *   GM_WAVES_FORM_PAPER   Eq. 3.3 as printed;
 *   GM_WAVES_FORM_HOPPER  what the measurements on sm_90 need: every block also
 *                      holds s_res reserved bytes of shared memory, and the
 *                      register file is split in r_parts partitions that
 *                      each hold whole warps (docs/diag.md shows the data).
 */
#ifndef GPUQ_WAVES_MODEL_H
#define GPUQ_WAVES_MODEL_H

#include <stddef.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ceil(a, u) and floor(a, u) of the paper's footnote 1: a rounded up or
 * down to a multiple of u (u <= 0: a unchanged). */
long gm_waves_round_up(long a, long u);
long gm_waves_round_down(long a, long u);

/* ---- Eq. 3.1: the limit checker ------------------------------------- */

typedef struct gm_waves_limits {
    long threads_per_block;   /* L(T/B) */
    double threads_per_grid;  /* L(T/G): blocks in x times L(T/B) */
    long smem_per_block;      /* L(S/B), bytes (with the opt-in, where asked) */
    long regs_per_thread;     /* L(R/T) */
    long regs_per_block;      /* L(R/B) */
} gm_waves_limits;

/* Which conditions of Eq. 3.1 a launch violates (0: it is accepted). */
enum {
    GM_WAVES_BAD_THREADS_PER_BLOCK = 1,
    GM_WAVES_BAD_THREADS_PER_GRID = 2,
    GM_WAVES_BAD_SMEM_PER_BLOCK = 4,
    GM_WAVES_BAD_REGS_PER_THREAD = 8,
    GM_WAVES_BAD_REGS_PER_BLOCK = 16
};
/* B threads per block, G blocks, s bytes of shared memory (rounded up to
 * s_min), r registers per thread (a warp's w*r rounded up to r_min). */
unsigned gm_waves_limit_check(const gm_waves_limits *L, int w, long B, double G, long s, long s_min,
                              long r, long r_min);

/* ---- Eq. 3.3: N_slot from the state buffers ------------------------- */

typedef enum gm_waves_form {
    GM_WAVES_FORM_PAPER = 0,
    GM_WAVES_FORM_HOPPER,
    GM_WAVES_FORM_COUNT
} gm_waves_form;

const char *gm_waves_form_name(gm_waves_form f);            /* "paper", "hopper" */
gm_status gm_waves_form_parse(const char *text, gm_waves_form *out);

typedef struct gm_waves_params {
    int w;          /* warp size */
    int n_mp;       /* multiprocessors (Eq. 3.8) */
    int N1;         /* blocks per SM (barrier buffer) */
    int N2;         /* warps per SM (warp-slot buffer) */
    long S;         /* shared memory per SM, bytes */
    long s_min;     /* shared-memory allocation unit, bytes */
    long s_res;     /* reserved shared memory per block (HOPPER form; 0 in the paper) */
    long R;         /* registers per SM */
    long r_min;     /* register allocation unit of one warp (registers) */
    int r_parts;    /* register-file partitions holding whole warps (HOPPER form) */
    gm_waves_form form;
} gm_waves_params;

/* What holds N_slot down: the terms of Eq. 3.3 that reach the minimum. */
enum {
    GM_WAVES_LIM_BLOCKS = 1, /* N1 */
    GM_WAVES_LIM_WARPS = 2,  /* N2 / b */
    GM_WAVES_LIM_SMEM = 4,   /* S / ceil(s, s_min) */
    GM_WAVES_LIM_REGS = 8    /* R / (ceil(r w, r_min) b) */
};
/* "warps", "blocks", "shared memory", "registers", joined by '+' when
 * several bind; into buf. */
const char *gm_waves_limiter_text(unsigned lim, char *buf, size_t len);

/* N_slot(b, s, r) of Eq. 3.3 for b warps per block, s bytes of shared
 * memory per block, r registers per thread; *limiter (may be NULL) gets the
 * binding terms.  0 when one block does not fit. */
int gm_waves_nslot(const gm_waves_params *p, int b, long s, long r, unsigned *limiter);

/* Eq. 3.3 read backwards, for what-ifs: how many blocks of b warps an SM
 * would hold if the registers and shared memory did not bind, and what the
 * launch would have to change to get there. */
typedef struct gm_waves_relief {
    int nslot;        /* N_slot(b, s, r) as launched */
    unsigned limiter; /* its binding terms (GM_WAVES_LIM_*) */
    int nslot_free;   /* N_slot(b, 0, 0): the block and warp-slot limits alone (and, in
                         the HOPPER form, the reserved shared memory per block) */
    long regs_max;    /* the most registers per thread whose term alone still allows
                         nslot_free (at most GM_WAVES_MAX_REGS) */
    long smem_max;    /* the most shared bytes per block whose term alone still allows
                         nslot_free */
} gm_waves_relief;

/* Registers per thread the ISA can address (255 on every NVIDIA GPU since
 * sm_35; the programming guide's "maximum number of 32-bit registers per
 * thread"): the search bound of regs_max. */
#define GM_WAVES_MAX_REGS 255

/* Fills *out for b warps per block, s bytes, r registers per thread.
 * GM_ERR_INVALID_ARG when b < 1, s < 0, r < 0 or the parameters are empty. */
gm_status gm_waves_relief_of(const gm_waves_params *p, int b, long s, long r, gm_waves_relief *out,
                             gm_error *err);

/* ---- Eq. 3.4-3.7: functional units ---------------------------------- */

/* One functional unit u: t_u inverse throughput (cycles per warp
 * instruction), m_u s_u replicated units in s_u groups (m_u may be
 * INFINITY: never a bottleneck). */
typedef struct gm_waves_unit {
    double t, m;
    int s;
} gm_waves_unit;

/* Eq. 3.5: P(c) = max(P_1, t_bot c / m_bot) (the unpartitioned form). */
double gm_waves_period(const gm_waves_unit *u, size_t n, double P1, double c);
/* Eq. 3.6: fu(c) = max_u {1, t_u / (m_u P_1) ceil(c / s_u)}. */
double gm_waves_fu_model(const gm_waves_unit *u, size_t n, double P1, int c);

/* A measured fu(c) curve: fu[c - 1] for c = 1 .. n (fu[0] == 1). */
typedef struct gm_waves_fu_curve {
    size_t n;
    double fu[64];
    double P1;        /* cycles of one period of {insts} for one warp */
} gm_waves_fu_curve;

/* Eq. 3.7: throughput_bot = max_c(c / fu(c)) / P_1, warp instructions per
 * cycle per SM when P_1 is cycles per instruction; *c_at gets the argmax. */
double gm_waves_throughput_bot(const gm_waves_fu_curve *f, int *c_at);
/* s_u from the step shape of fu (Fig. 4.2b): the s in {1, 2, 4, 8} whose
 * staircase k ceil(c / s) fits the saturated part (fu >= 1.5) best; 0 when
 * the curve never saturates. */
int gm_waves_infer_s_u(const gm_waves_fu_curve *f);
/* fu(c) from a measured curve; beyond its end, Eq. 3.6 with the measured
 * bottleneck throughput (fu grows as c / (throughput_bot P_1)).  fu(0) = 0. */
double gm_waves_fu_at(const gm_waves_fu_curve *f, double c);

/* ---- Eq. 3.2: kernel time from the block scheduler ------------------- */

/* g = ceil(G / n_mp). */
long gm_waves_blocks_per_mp(long G, int n_mp);
/* T(g, b) = floor(g / N_slot) fu(b N_slot) + fu(b (g mod N_slot)), in units
 * of fu (T(1, 1) = fu(1) = 1). */
double gm_waves_time(const gm_waves_fu_curve *f, long g, int b, int nslot);
/* Waves g / N_slot and the efficiency of the last, partial wave
 * ((g mod N_slot) / N_slot; 1 when g is a multiple of N_slot). */
double gm_waves_waves(long g, int nslot, double *tail_eff);

/* ---- Eq. 3.8: n_mp from the doubling point --------------------------- */

/* T[i] is the time at G = i + 1 blocks (b = c_2x warps each).  n_mp is the
 * last G before the first G whose time is >= ratio (1.5 for a doubling)
 * times T[0]; 0 when no doubling is in the series. */
int gm_waves_nmp_from_series(const double *T, size_t n, double ratio);

/* ---- Eq. 3.9-3.13: state buffers from N_slot measurements ------------ */

/* One measured point: b warps per block, s bytes, r registers per thread,
 * total blocks found co-resident on the GPU, and N_slot = total / n_mp. */
typedef struct gm_waves_point {
    int b;
    long s;
    long r;
    long total;
    int nslot;
    int not_divisible;  /* total is not a multiple of n_mp (the V520 case) */
} gm_waves_point;

/* N_slot from a co-resident total; flags a total not divisible by n_mp. */
void gm_waves_point_from_total(gm_waves_point *pt, int n_mp);

/* Eq. 3.12 from warp-slot points (s = 0, small r): N1 = N_slot(b = 1),
 * N2 = max_b b N_slot(b).  GM_ERR_MISSING without a b = 1 point. */
gm_status gm_waves_derive_wsb(const gm_waves_point *pts, size_t n, int *N1, int *N2, gm_error *err);

/* Eq. 3.10 + 3.13 from shared-memory points (b = 1): for the given reserved
 * bytes per block s_res (0: the paper), S = max_s ceil(s + s_res, s_min)
 * N_slot(s) and s_min is the first of the candidates (ascending) that makes
 * Eq. 3.10 agree with every point; when none does, the one with the fewest
 * disagreements.  *mismatch gets that count. */
gm_status gm_waves_derive_shm(const gm_waves_point *pts, size_t n, int nslot1, long s_res,
                              const long *cands, size_t n_cands, long *S, long *s_min,
                              int *mismatch, gm_error *err);

/* Eq. 3.11 + 3.13 from register points (s = 0) with N_slot,wsb(b) from the
 * derived N1, N2: R = max ceil(r w, r_min) b N_slot and r_min chosen as for
 * s_min.  r_parts = 1 is the paper's form; > 1 splits R in partitions of
 * whole warps (HOPPER). */
gm_status gm_waves_derive_rf(const gm_waves_point *pts, size_t n, int w, int N1, int N2,
                             int r_parts, const long *cands, size_t n_cands, long *R, long *r_min,
                             int *mismatch, gm_error *err);

/* ---- warp-scheduling policy (Sec. 3.2.2, Fig. 4.3) ------------------- */

typedef enum gm_waves_policy {
    GM_WAVES_POLICY_UNKNOWN = 0,
    GM_WAVES_POLICY_RR,   /* round robin: the next warp in cyclic order */
    GM_WAVES_POLICY_OF,   /* oldest first: the lowest-numbered ready warp */
    GM_WAVES_POLICY_GTO   /* greedy then oldest: one warp until it stalls */
} gm_waves_policy;
const char *gm_waves_policy_name(gm_waves_policy p);

typedef struct gm_waves_issue {
    int warp;          /* warp id inside the block */
    double clock;      /* issue clock of the logged instruction */
} gm_waves_issue;

typedef struct gm_waves_policy_stats {
    size_t events;
    double mean_run;        /* issues in a row by the same warp */
    double cyclic_frac;     /* switches to the next warp in cyclic order */
    double cyclic_down_frac;/* switches to the next warp in descending cyclic order */
    double oldest_frac;     /* switches to the lowest-numbered other warp not yet done */
    gm_waves_policy policy;
} gm_waves_policy_stats;

/* Classifies the issue log of the warps of one scheduler (any order; it is
 * sorted by clock, ties by warp).  steps: logged issues per warp (a warp is
 * done after its last).  GTO when mean_run >= 2; else OF when oldest_frac
 * >= 0.9 and above both cyclic fractions (two warps alternating fit both);
 * else RR when the larger cyclic fraction (either direction: Hopper walks
 * its warps downwards) is >= 0.6; else unknown. */
gm_status gm_waves_classify_policy(const gm_waves_issue *log, size_t n, int steps,
                                   gm_waves_policy_stats *out, gm_error *err);

/* ---- accuracy (Sec. 4.3.3) ------------------------------------------ */

/* Pearson r of x and y (NaN when undefined). */
double gm_waves_pearson(const double *x, const double *y, size_t n);
/* Median of |pred / meas - 1| (NaN when n == 0). */
double gm_waves_median_abs_err(const double *pred, const double *meas, size_t n);

#ifdef __cplusplus
}
#endif
#endif
