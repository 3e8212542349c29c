/* The second quantity of the shared-atomic unit, beside U: the share of
 * active warp-cycles in which warps wait on shared-memory atomics.
 *
 * U (paper 000, Dong & Pai, Sec. 3; papers/atomics/atomics_model.h) measures the atomic
 * unit's throughput: the share of its peak wavefront rate a kernel uses.
 * A kernel with few atomics in flight, each one waited for, can spend
 * nearly all its time on atomics while U reads low (docs/validation.md:
 * 1-8 warps per SM, dependent chains).  This module measures that wait
 * from Hopper's warp-state counters, by stall reason:
 *
 *   L = (W_sb + W_mio) / W_active  x  N / I_shared            (form "sb-mio")
 *     + (W_wait + W_sel) / W_active  x  N / W_sel             (form "issue", shipped)
 *
 *   W_sb      smsp__warps_issue_stalled_short_scoreboard.sum: warp-cycles
 *             stalled on the result of an MIO operation (shared memory,
 *             ATOMS included; special math) -- where a warp waits for its
 *             ATOMS.ADD / ATOMS.CAS result (measured by PC sampling on
 *             kernels built for it, docs/validation.md);
 *   W_mio     smsp__warps_issue_stalled_mio_throttle.sum: warp-cycles
 *             stalled because the MIO queue is full -- where warps wait to
 *             issue ATOMS at a saturated unit;
 *   W_active  active warp-cycles, sm__warps_active.sum, derived from
 *             counters the model already reads: occupancy / 100 x
 *             max warps per SM x sm__cycles_active.sum (within 1.6% of the
 *             counter itself on the 348 validation kernels; reading it costs
 *             no counter);
 *   N / I_shared  the ATOMS share of the LSU shared-pipe instructions
 *             (smsp__inst_executed_op_shared_atom.sum over
 *             sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum, which
 *             counts LDS, LDSM and ATOMS): both stall reasons also cover
 *             plain shared loads, so they are apportioned by instruction
 *             count (an approximation: an ATOMS is waited for longer than an
 *             LDS).
 *
 *   W_wait    smsp__warps_issue_stalled_wait.sum: warp-cycles waiting on a
 *             fixed-latency dependency -- where a warp that issues ATOMS
 *             whose result nothing reads (POPC.INC, RED-like ADD) is held:
 *             issue pacing, 0.57 of the cycles of one such warp per SM;
 *   W_sel     smsp__warps_issue_stalled_selected.sum: warp-cycles in which
 *             the warp issues, one per issued warp-instruction, so it is
 *             also the issued-instruction count that apportions both terms
 *             (N / W_sel: the ATOMS share of what the warps issue).
 *
 * The second term is the form the validation data supports
 * (docs/validation.md, "The latency quantity"): on the H100 run it names
 * the four POPC.INC loops at 1-2 warps per SM that the first term alone
 * reads as 0, and keeps the atomic-free and mixed bars.  The first term
 * alone, the earlier two-counter form, stays selectable (form "sb-mio";
 * model variant "latency-sb-mio"), and is what the shipped form falls back
 * to, exactly and with its own threshold, where W_wait or W_sel was not
 * collected (counters files recorded before them): out->form says which.
 *
 * L is 0 exactly without shared atomics (N = 0), whatever else is missing.
 *
 * The kind of the verdict:
 *   U >= GM_ATOMICS_U_SIGNIFICANT                       throughput
 *   U <  GM_ATOMICS_U_SIGNIFICANT, L >= GM_L_LATENCY    latency
 *   otherwise                                   none
 * GM_L_LATENCY (form "issue") and GM_L_LATENCY_SB_MIO (form "sb-mio") are
 * chosen from the validation data (docs/validation.md, "The latency
 * quantity"), each for its own form: the middle of the gap between the
 * atomic-bound kernels that U misses and the kernels whose true U is below
 * 50%.
 */
#ifndef GPUQ_ATOMICS_LATENCY_H
#define GPUQ_ATOMICS_LATENCY_H

#include <stddef.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Latency verdict thresholds on L (docs/validation.md, "The latency
 * quantity"): of the shipped form, and of the two-counter form. */
#define GM_L_LATENCY 0.34
#define GM_L_LATENCY_SB_MIO 0.32

/* Which L (see above).  0 is the shipped one. */
typedef enum gm_atomics_latency_form {
    GM_ATOMICS_LATENCY_ISSUE = 0, /* short scoreboard + MIO throttle + wait + selected */
    GM_ATOMICS_LATENCY_SB_MIO     /* short scoreboard + MIO throttle (the earlier form) */
} gm_atomics_latency_form;

/* "issue", "sb-mio" */
const char *gm_atomics_latency_form_name(gm_atomics_latency_form form);
/* GM_L_LATENCY or GM_L_LATENCY_SB_MIO */
double gm_atomics_latency_threshold(gm_atomics_latency_form form);

/* The counters L reads, as in one launch's counters (NaN: not collected). */
typedef struct gm_atomics_latency_input {
    double stalled_short_scoreboard; /* W_sb, warp-cycles */
    double stalled_mio_throttle;     /* W_mio, warp-cycles */
    double occupancy_pct;            /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double cycles_sum;               /* sm__cycles_active.sum */
    int max_warps_per_sm;            /* the GPU's (device attribute) */
    double n_atom;                   /* smsp__inst_executed_op_shared_atom.sum */
    double shared_inst;              /* sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum */
    double stalled_wait;             /* W_wait, warp-cycles (form "issue") */
    double stalled_selected;         /* W_sel, warp-cycles = issued warp-instructions */
    gm_atomics_latency_form form;    /* the form asked for */
} gm_atomics_latency_input;

typedef struct gm_atomics_latency {
    double L;            /* share of active warp-cycles waiting on ATOMS, 0..1; NaN: unknown */
    double stall_share;  /* (W_sb + W_mio) / W_active, before apportioning */
    double atom_share;   /* N / I_shared */
    double issue_share;  /* (W_wait + W_sel) / W_active; NaN in form "sb-mio" */
    double issue_atom_share; /* N / W_sel; NaN in form "sb-mio" */
    double warps_active; /* W_active, warp-cycles */
    gm_atomics_latency_form form; /* the form L was computed in: sb-mio where the
                             issue form lacked W_wait or W_sel */
    const char *missing; /* NULL, or the first input that was missing (static text) */
} gm_atomics_latency;

/* Fills out.  A missing input of the two-counter form gives L = NaN and
 * names it in out->missing (GM_OK: not an error); W_wait or W_sel missing
 * in form "issue" gives the two-counter L (out->form says so).  Negative
 * inputs are GM_ERR_RANGE, NULL pointers GM_ERR_INVALID_ARG.  N / I_shared
 * and N / W_sel are capped at 1 (the counts come from one run and agree;
 * the cap only guards against mixed files), and each is 1 where its
 * denominator is 0 while N > 0 (the same guard). */
gm_status gm_atomics_latency_compute(const gm_atomics_latency_input *in, gm_atomics_latency *out,
                                     gm_error *err);

typedef enum gm_atomics_kind {
    GM_ATOMICS_KIND_NONE = 0,   /* atomics do not hold the kernel up */
    GM_ATOMICS_KIND_THROUGHPUT, /* U >= GM_ATOMICS_U_SIGNIFICANT */
    GM_ATOMICS_KIND_LATENCY,    /* U below it, L >= l_threshold */
    GM_ATOMICS_KIND_UNKNOWN     /* U is NaN, or U is low and L is NaN */
} gm_atomics_kind;

/* The kind for (U, L); u_threshold is GM_ATOMICS_U_SIGNIFICANT, l_threshold
 * gm_atomics_latency_threshold() of the form L was computed in, in the report
 * (parameters for the validation's sweeps). */
gm_atomics_kind gm_atomics_kind_of(double U, double L, double u_threshold, double l_threshold);
/* "throughput", "latency", "none", "unknown" */
const char *gm_atomics_kind_name(gm_atomics_kind kind);

/* The verdict line of the atomic section for a launch with atomics, with
 * the kind named (issue wording):
 *   "shared-memory atomics are the bottleneck (throughput, U = 97%)"
 *   "shared-memory atomics are a significant load (throughput, U = 62%)"
 *   "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS
 *    85% of cycles; U = 14%)"
 *   "shared-memory atomics are not the bottleneck (U = 12%; warps wait on
 *    ATOMS 3% of cycles)"
 * u_bottleneck splits "the bottleneck" from "a significant load" (GM_ATOMICS_U_BOTTLENECK).
 * Returns the characters written (as snprintf); buf is always terminated. */
int gm_atomics_verdict_text(char *buf, size_t len, double U, double L, double u_bottleneck,
                            double u_threshold, double l_threshold);

#ifdef __cplusplus
}
#endif
#endif
