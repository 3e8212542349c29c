/* What the bottleneck unit says about one launch, once its components are
 * timed (bottleneck_model.h, bottleneck_units.h): the physical check, and the
 * verdicts for launches that no unit holds up.
 *
 *   launch bound  the kernel ran no longer than an empty launch takes back
 *                 to back on this GPU (machine data kind=launch), within the
 *                 run-to-run spread: a stream of such launches is paced by
 *                 launching, and fusing or a CUDA graph is what can help;
 *   model error   a component takes longer than the kernel did, by more
 *                 than the spread: the rate it was timed at is wrong for this
 *                 kernel; it is never named the bottleneck and the predicted
 *                 time is no prediction;
 *   unit bound    the largest component holds at least GM_BOTTLENECK_VERDICT_BUSY_SHARE of
 *                 the measured time: that component is the bottleneck; where
 *                 it is the issue slots and the own work of a pipe they
 *                 issue to is within the spread of them, the pipe (the
 *                 issue slots are then "tied": they exceed the pipe only by
 *                 the other instructions, fewer of which cannot gain more
 *                 than the spread);
 *   latency bound no component reaches it: what the warps wait on (the
 *                 warp-state counters), and from Little's law how many more
 *                 warps, or independent operations per warp, would bring the
 *                 busiest unit to its measured rate, against what the launch
 *                 can reach.
 * The thresholds are measured (docs/bottleneck.md, "Verdicts"): the spread
 * from repeated launches of identical kernels in the H200 corpus, the busy
 * share from the by-construction kernels of validation/bottleneck.  Pure C.
 */
#ifndef GPUQ_BOTTLENECK_VERDICT_H
#define GPUQ_BOTTLENECK_VERDICT_H

#include <stddef.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run-to-run spread, (max - min) / median, of repeated launches of the same
 * kernel with the same counts in data/recorded/realkernels-corpus-
 * nvidia-h200.counters.csv (83 groups, 259 launches; same grid, block,
 * instructions, DRAM bytes to 0.1%): at most 6.8% for kernels of 10 us and
 * longer (reduce_kernel, 14 launches around 27.0 us), at most 608 ns below
 * (computeDigitCumSum, 6 launches around 8.7 us; durations come in steps of
 * 32 ns).  test_bottleneck_verdict checks that these cover every group. */
#define GM_BOTTLENECK_VERDICT_SPREAD_REL 0.07
#define GM_BOTTLENECK_VERDICT_SPREAD_NS 640.0
/* A component at or above this share of the measured time is the
 * bottleneck; below, the launch is latency bound.  Of the 60 by-construction
 * kernels of validation/bottleneck (H100, validation/bottleneck/shares.py),
 * the 9 whose time latency sets (dependent DFMA chains at 2-4 warps per SM,
 * the stride-8 gather at 2-4, the coalesced 4-byte gather at 2-32) have
 * shares of 0.18-0.51, the other 51 of 0.69 or more (stream_w2 0.692); 0.6
 * lies in that gap. */
#define GM_BOTTLENECK_VERDICT_BUSY_SHARE 0.6

/* The spread allowed around a measured duration: max(rel x T, abs). */
double gm_bottleneck_verdict_spread_ns(double measured_ns);

/* Warp states, in the order of gm_bottleneck_verdict_stall_metric (one row each: counter,
 * short name, what the warps wait on). */
typedef enum gm_bottleneck_verdict_stall {
    GM_BOTTLENECK_VERDICT_ST_LONG_SB = 0,
    GM_BOTTLENECK_VERDICT_ST_SHORT_SB,
    GM_BOTTLENECK_VERDICT_ST_WAIT,
    GM_BOTTLENECK_VERDICT_ST_BARRIER,
    GM_BOTTLENECK_VERDICT_ST_GMMA,
    GM_BOTTLENECK_VERDICT_ST_BRANCH,
    GM_BOTTLENECK_VERDICT_ST_NO_INST,
    GM_BOTTLENECK_VERDICT_ST_MATH,
    GM_BOTTLENECK_VERDICT_ST_LG,
    GM_BOTTLENECK_VERDICT_ST_MIO,
    GM_BOTTLENECK_VERDICT_ST_MEMBAR,
    GM_BOTTLENECK_VERDICT_ST_SELECTED, /* issuing, not waiting */
    GM_BOTTLENECK_VERDICT_STALLS
} gm_bottleneck_verdict_stall;

const char *gm_bottleneck_verdict_stall_metric(int stall); /* "smsp__warps_issue_stalled_wait.sum"; NULL */
const char *gm_bottleneck_verdict_stall_name(int stall);   /* "wait" */
const char *gm_bottleneck_verdict_stall_words(int stall);  /* "a dependent fixed-latency instruction" */
/* 1 when a warp spends the state waiting on its own work (a dependency, a
 * barrier, a fetch, its own issue), which it would spend alone on the SM
 * too; 0 for the throttles, which are other warps' contention for a unit. */
int gm_bottleneck_verdict_stall_is_latency(int stall);

/* A warp's own latency: the warp-cycles in the latency states (above),
 * summed over the states collected, per warp launched, over the SM clock:
 * the time one warp of the launch takes when nothing competes with it (one
 * block alone; a wave's floor).  NaN when no latency state was collected,
 * warps or clock is not positive. */
double gm_bottleneck_verdict_warp_latency_ns(const double stall[], double warps_launched,
                                             double clock_ghz);
/* Resident warp-cycles of a launch, all SMs: the warps resident per active
 * cycle (sm__warps_active's share of the peak, in %, times max_warps) times
 * the active cycles summed over the SMs.  Every warp state is in it, the
 * ones the collection leaves out too.  NaN unless all three are known. */
double gm_bottleneck_verdict_warp_cycles(double warps_active_pct, double max_warps,
                                         double cycles_active_sum);
/* The share of those warp-cycles in the states that last the same however
 * many warps share the SM (wait: a dependent fixed-latency instruction;
 * selected: issuing); the scoreboards' waits include the queue at the unit
 * they wait on.  NaN when no latency state was collected. */
double gm_bottleneck_verdict_fixed_latency_share(const double stall[]);

#define GM_BOTTLENECK_VERDICT_MAX_COMP 16

typedef enum gm_bottleneck_verdict_kind {
    /* no measured duration: the largest component, as before */
    GM_BOTTLENECK_VERDICT_UNDECIDED = 0,
    GM_BOTTLENECK_VERDICT_UNIT,
    GM_BOTTLENECK_VERDICT_MISFIT,
    GM_BOTTLENECK_VERDICT_LATENCY,
    GM_BOTTLENECK_VERDICT_LAUNCH
} gm_bottleneck_verdict_kind;
/* "unit", "model error", "latency", "launch", "-" */
const char *gm_bottleneck_verdict_kind_name(int kind);

typedef struct gm_bottleneck_verdict_input {
    double measured_ns;             /* gpu__time_duration; NaN: undecided */
    size_t n_comp;
    const char *comp_name[GM_BOTTLENECK_VERDICT_MAX_COMP];
    double comp_ns[GM_BOTTLENECK_VERDICT_MAX_COMP];      /* at the launch's warps (NaN: not timed) */
    double comp_best_ns[GM_BOTTLENECK_VERDICT_MAX_COMP]; /* at the unit's best measured rate (NaN: unknown) */
    unsigned char comp_issue[GM_BOTTLENECK_VERDICT_MAX_COMP]; /* 1: the issue slots (every instruction) */
    double comp_pipe_ns[GM_BOTTLENECK_VERDICT_MAX_COMP];      /* a pipe the issue slots issue to: the
                                                  time of its own work (the instruction
                                                  part: its busiest pipe's, without its
                                                  issue term); NaN: not a pipe */
    double launch_ns;               /* an empty launch back to back; NaN: no machine data */
    double warp_cycles;             /* resident warp-cycles summed over SMs; NaN: unknown */
    double stall[GM_BOTTLENECK_VERDICT_STALLS]; /* warp-cycles per state; NaN: not collected */
    double warps_per_sm;            /* achieved */
    double reachable_warps;         /* what the launch could have (NaN: unknown) */
    const char *reachable_from;     /* how that was found ("sched: N_slot 2 x 8 warps (regs)") */
    double blocks;                  /* grid size */
    double blocks_per_wave;         /* N_slot x SMs (NaN: unknown) */
    int sm_count;
    /* the what-ifs of launch- and latency-bound launches (NaN: unknown) */
    double launches;                /* launches the counts add up (summed rows; NaN, < 1: one);
                                       measured_ns and comp_* are their sums, launch_ns and
                                       queued_ns per launch */
    double queued_ns;               /* GPU time of one empty launch when launches are queued
                                       (a CUDA graph, a stream the CPU keeps ahead of): machine
                                       data kind=launch, name=queued */
    double graph_ns;                /* a node of a CUDA graph of empty launches (name=graph) */
    double graph_gap_ns;            /* what a graph node adds to its kernel's own time
                                       (name=graph_gap) */
    double warps_launched;          /* blocks x warps per block, times launches */
    double clock_ghz;               /* SM cycles per ns */
} gm_bottleneck_verdict_input;

void gm_bottleneck_verdict_input_init(gm_bottleneck_verdict_input *in); /* everything NaN / empty */

typedef struct gm_bottleneck_verdict {
    gm_bottleneck_verdict_kind kind;
    int comp;             /* UNIT: the bottleneck; otherwise the largest component that fits */
    int tied;             /* UNIT: the issue slots, where the pipe named was within the spread
                             of them (-1: none) */
    double share;         /* its time / measured */
    int n_over;           /* components above measured + spread */
    int over;             /* the one most above (-1 none) */
    double over_ratio;    /* its time / measured */
    double spread_ns;     /* the spread used */
    int wait;             /* the waiting state with most warp-cycles (-1: none collected) */
    double wait_share;    /* its share of the warp-cycles */
    double uncollected;   /* share of warp-cycles in states not collected (NaN unknown) */
    int busiest;          /* the component nearest its best rate (-1 none) */
    double busiest_use;   /* its time at the best rate / measured */
    double need_warps;    /* Little's law: warps per SM for the busiest unit's best rate */
    double need_ilp;      /* independent operations per warp, at the warps the launch can have */
    double wave_fill;     /* blocks / blocks_per_wave when under one wave, else NaN */
    double warp_latency_ns; /* gm_bottleneck_verdict_warp_latency_ns of the launch (per launch) */
    /* LATENCY, Little's law at the same latency: T / (T_fix + max((T - T_fix) / k,
     * T_best)), T_best the busiest unit at its best rate, T_fix = queued_ns (0
     * unknown): with k = 2 and 4 times the independent work in flight (twice the
     * warps per SM, or two independent chains per warp), and at the warps the
     * launch can reach */
    double speedup_x2, speedup_x4, speedup_reach;
    /* LAUNCH: a stream of such launches costs max(launch_ns, T) each; fused
     * into one kernel each costs fused_step_ns = max(its warps' own latency,
     * its busiest unit at its best rate); in a CUDA graph max(graph_ns,
     * fused_step_ns + graph_gap_ns), or where those were not measured
     * max(queued_ns, T) */
    double fused_step_ns, speedup_fused, speedup_graph;
    char model_error[128];/* "global 128.2 us > 93.6 us measured (1.37x)", "" none */
    char wait_text[160];  /* "a dependent fixed-latency instruction (wait, 21%)" and the
                             share in states not collected where that is larger */
    char fix[192];        /* what would help (latency, launch), "" none */
    char text[192];       /* the one-line verdict ("" for UNIT: the unit writes it) */
} gm_bottleneck_verdict;

gm_status gm_bottleneck_verdict_decide(const gm_bottleneck_verdict_input *in,
                                       gm_bottleneck_verdict *out, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
