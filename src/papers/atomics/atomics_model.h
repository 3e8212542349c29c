/* The operational single-server model of the shared-memory atomic unit
 * (paper 000, Sec. 3).  Every equation of the paper that gpuq implements is
 * in src/papers/atomics/atomics_model.c, named after it:
 *
 *   Eq. 1   gm_atomics_T_hat       T-hat(n,e,c) = T_sampled(n,e,c) for 0 < n <= n_max, 0 for n = 0
 *   Eq. 2   gm_atomics_T_interp    multilinear interpolation of T-hat over (n, e, c)
 *   Eq. 3   gm_atomics_S           S(n,e,c) = T(n,e,c) / n
 *   Table 2 gm_atomics_table2_sm   N, n-hat, c, B = N S(n-hat, e, c), U = B / T for one SM
 *           gm_atomics_e_from_counters   e = O / sum_i N(i)
 *   (not in the paper) gm_atomics_cycles_per_wavefront   w for the wavefront busy time B = O w
 *
 * Pure C, no CUDA: it runs and is tested on machines without a GPU.
 */
#ifndef GPUQ_ATOMICS_MODEL_H
#define GPUQ_ATOMICS_MODEL_H

#include "atomics_latency.h"
#include "gpuq/counters.h"
#include "gpuq/status.h"
#include "atomics_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Paper 000's Table 1 counters are the metric table's first rows, in this
 * order (src/core/metrics.c; test_metrics checks it): this model's code and
 * its tests index gm_launch_counters.metric[] by these ids.  The generic code
 * and the other models find every metric by its name. */
typedef enum gm_atomics_metric_id {
    GM_ATOMICS_M_N_ATOM_SASS = 0, /* smsp__sass_inst_executed_op_shared_atom.sum      N (instrumented) */
    GM_ATOMICS_M_N_ATOM,          /* smsp__inst_executed_op_shared_atom.sum           N (hardware) */
    GM_ATOMICS_M_N_CAS,           /* smsp__inst_executed_op_shared_atom_dot_cas.sum   N_c */
    GM_ATOMICS_M_N_ALU,           /* smsp__inst_executed_op_shared_atom_dot_alu.sum   N_f (non-CAS) */
    GM_ATOMICS_M_O_WAVEFRONTS,    /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum   O */
    GM_ATOMICS_M_CYCLES_SUM,      /* sm__cycles_active.sum   T summed over SMs */
    GM_ATOMICS_M_CYCLES_AVG,      /* sm__cycles_active.avg */
    GM_ATOMICS_M_CYCLES_MIN,      /* sm__cycles_active.min */
    GM_ATOMICS_M_CYCLES_MAX,      /* sm__cycles_active.max */
    GM_ATOMICS_M_OCCUPANCY_PCT,   /* sm__warps_active.avg.pct_of_peak_sustained_active   o (percent) */
    GM_ATOMICS_M_DURATION_NS,     /* gpu__time_duration.sum */
    GM_ATOMICS_M_SHARED_PENDING,  /* sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum   queue-length integral */
    GM_ATOMICS_M_SHARED_INST,     /* sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum  LDS+LDSM+ATOMS */
    GM_ATOMICS_M_ATOMIC_ROWS      /* rows of the shared-atomic model */
} gm_atomics_metric_id;


/* Clamp flags: which inputs fell outside the measured grid and were clamped
 * onto its edge.  Never silent: they travel into the report. */
#define GM_ATOMICS_CLAMP_N_HIGH 0x1u  /* n > n_max: used n_max */
#define GM_ATOMICS_CLAMP_E_LOW  0x2u  /* e < 1: used 1 */
#define GM_ATOMICS_CLAMP_E_HIGH 0x4u  /* e > e_max: used e_max */
#define GM_ATOMICS_CLAMP_C_LOW  0x8u  /* c < 0: used 0 */
#define GM_ATOMICS_CLAMP_C_HIGH 0x10u /* c > n (or > 0 in a series without CAS): used the limit */

/* Eq. 1: T-hat at integral (n, e, c).  n = 0 gives 0.  Out-of-grid integral
 * inputs are clamped and flagged.  Negative n or NaN input: GM_ERR_RANGE. */
gm_status gm_atomics_T_hat(const gm_atomics_series *s, int n, int e, int c, double *T,
                           unsigned *clamp_flags);

/* Eq. 2: T at real (n, e, c) by multilinear interpolation between the 8
 * surrounding integral points of T-hat.  Within an n-layer k, c is limited to
 * 0..k (c <= n is the domain of that layer), so between layers n0 and n0+1 a
 * c in (n0, n0+1] uses c = n0 on the lower layer; this is the domain edge,
 * not a clamp, and is not flagged.  Between n = 0 and 1, T rises linearly
 * from T-hat(0) = 0, so S stays T(1)/1 there. */
gm_status gm_atomics_T_interp(const gm_atomics_series *s, double n, double e, double c, double *T,
                              unsigned *clamp_flags);

/* Eq. 3: S = T / n.  n = 0 gives S = 0 (no jobs, no service). */
gm_status gm_atomics_S(const gm_atomics_series *s, double n, double e, double c, double *S,
                       unsigned *clamp_flags);

/* Where the model takes the queue length n from. */
typedef enum gm_atomics_n_source {
    GM_ATOMICS_N_OCCUPANCY = 0, /* n-hat = o x WarpsPerSM (the paper's Table 2 approximation) */
    GM_ATOMICS_N_MEASURED,      /* shared-memory instructions in flight per SM, from the LSU pending
                           counter (sm__inst_pending_..._shared_cmd_read.sum / cycles), scaled
                           by the atomics' share of those instructions */
    GM_ATOMICS_N_SOURCE_COUNT
} gm_atomics_n_source;

/* How the jobs are split into classes. */
typedef enum gm_atomics_class_split {
    GM_ATOMICS_SPLIT_FAO_CAS = 0, /* the paper: N_f (every non-CAS ATOMS) and N_c, one FAO/CAS series */
    GM_ATOMICS_SPLIT_BY_OPCODE,   /* ADD / CAS / POPC.INC / other from per-instruction classification;
                             POPC.INC jobs use the POPC.INC series */
    GM_ATOMICS_SPLIT_COUNT
} gm_atomics_class_split;

/* What e the table is read at. */
typedef enum gm_atomics_e_source {
    GM_ATOMICS_E_WAVEFRONTS = 0, /* e = O / N (the paper's Table 2) */
    GM_ATOMICS_E_LANES,          /* lanes per ADD/CAS job: e = (O - N_popc) / (N_f + 2 N_c), because on
                            Hopper an ATOMS.CAS costs 2 wavefronts per conflicting lane and a
                            POPC.INC 1 wavefront whatever its lanes (docs/validation.md) */
    GM_ATOMICS_E_SOURCE_COUNT
} gm_atomics_e_source;

/* Where the busy time B comes from. */
typedef enum gm_atomics_busy_source {
    GM_ATOMICS_BUSY_QUEUE = 0,  /* B = N S(n, e, c) with S from the table (the paper's Table 2) */
    GM_ATOMICS_BUSY_WAVEFRONTS, /* B = O w: every wavefront occupies the unit w cycles, w = the
                           cycles per wavefront of the saturated unit read off the table
                           (gm_atomics_cycles_per_wavefront); S = e w with e = O / N; n is not used */
    GM_ATOMICS_BUSY_SOURCE_COUNT
} gm_atomics_busy_source;

typedef struct gm_atomics_model_options {
    gm_atomics_method method;       /* which S: single-shot (paper) or steady-state */
    gm_atomics_n_source n_source;
    gm_atomics_class_split split;
    gm_atomics_pattern pattern;     /* which series' e axis: same-address (paper) */
    gm_atomics_e_source e_source;   /* added with the validation: e = O/N (paper) or lanes */
    gm_atomics_busy_source busy;    /* added with the validation: B = N S (paper) or O w */
    gm_atomics_latency_form latency; /* the latency kind's L (atomics_latency.h); not U's */
    const char *name;               /* "paper", "default", ... for reports */
    /* Cycles per wavefront of the busy-time form (gm_atomics_cycles_per_wavefront),
     * when the caller found them once for the table it passes with these
     * options (gm_atomics_model_know_w); 0: found again for each launch.  A median
     * over the table's cells, the same for every launch of a report. */
    int w_known;
    double w;
    gm_atomics_method w_method;
} gm_atomics_model_options;

/* Fills opt's w_known, w and w_method for table where the options use the
 * busy-time form and the table gives w (nothing otherwise: each launch
 * then fails as it would, naming what the table lacks). */
void gm_atomics_model_know_w(const gm_atomics_table *table, gm_atomics_model_options *opt);

/* Named model variants ("paper" = the paper's model as written). */
gm_status gm_atomics_model_by_name(const char *name, gm_atomics_model_options *out);
/* Comma-separated list of the names gm_atomics_model_by_name accepts. */
const char *gm_atomics_model_names(void);

/* Result of Table 2 for one SM (or the average SM). */
typedef struct gm_atomics_sm_result {
    double N;       /* atomic jobs (warp-instructions) on this SM */
    double N_c;     /* of which CAS */
    double N_popc;  /* of which POPC.INC (GM_ATOMICS_SPLIT_BY_OPCODE only, else 0) */
    double n;       /* queue length used: n-hat or measured */
    double e;       /* active lanes per job */
    double c;       /* queued CAS: n N_c / N */
    double S;       /* service time per job, cycles (mix-weighted under BY_OPCODE) */
    double B;       /* busy time N S, cycles */
    double T;       /* active cycles of this SM */
    double U;       /* B / T; 0 when N = 0 */
    unsigned clamp_flags;
} gm_atomics_sm_result;

/* Table 2 for one SM.  N_f/N_c/N_popc: jobs of each kind (N_popc is part of
 * neither N_f nor N_c), n: queue length, e: active lanes, T: cycles.
 * N = 0 gives B = 0 and U = 0 (no division).  T <= 0 with N > 0: GM_ERR_RANGE.
 * Under GM_ATOMICS_BUSY_WAVEFRONTS, e is wavefronts per job (O / N) and S = e w,
 * B = N S = O w (n and c are reported, not used). */
gm_status gm_atomics_table2_sm(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                               double N_f, double N_c, double N_popc, double n, double e, double T,
                               gm_atomics_sm_result *out, gm_error *err);

/* e = O / sum N (Table 2); 0 when N = 0. */
double gm_atomics_e_from_counters(double O, double N_sum);

/* Cycles per wavefront of the saturated unit, w, from the table: on each
 * n-layer from n_max/4 to n_max of the same-address ADD series of `method`
 * (steady-state: every warp keeps one atomic in flight), the slope
 *   (T(n, e_max, 0) - T(n, e_max/2, 0)) / (n (e_max - e_max/2))
 * is the extra time one more conflicting lane (one more wavefront, O/N = e
 * for ADD) costs per job; w is the median of these slopes.  A slope, not a
 * cell, so that the fixed latency of a job cancels.  *used_method is the
 * series read: `method`, or single-shot where the table lacks that series.
 * GM_ERR_MISSING (naming the series) when neither exists or a cell is missing;
 * GM_ERR_RANGE when w is not finite and > 0. */
gm_status gm_atomics_cycles_per_wavefront(const gm_atomics_table *table, gm_atomics_method method,
                                          double *w, gm_atomics_method *used_method, gm_error *err);

/* Verdict thresholds on U (documented in README). */
#define GM_ATOMICS_U_BOTTLENECK 0.80
#define GM_ATOMICS_U_SIGNIFICANT 0.50

/* The full result for one kernel launch. */
typedef struct gm_atomics_kernel_result {
    gm_atomics_sm_result avg; /* the average SM (sums over SMs divided by the SM count) */
    double U_lo, U_hi;    /* bounds from T.max and T.min; NaN where undefined */
    int sm_count;         /* SM instances the counters covered */
    int n_per_sm;         /* entries in per_sm (0 when the GPU gives no per-SM values) */
    gm_atomics_sm_result *per_sm; /* owned; free with gm_atomics_kernel_result_free */
    double n_hat;         /* occupancy-based n (always computed, for comparison) */
    double n_measured;    /* measured n, NaN where the counter is missing */
    unsigned notes;       /* GM_ATOMICS_NOTE_* */
    char split_source[64]; /* "hardware dot_cas/dot_alu", "sass classification", "fallback: ..." */
    char verdict[192];
} gm_atomics_kernel_result;

#define GM_ATOMICS_NOTE_NO_ATOMICS     0x1u  /* N = 0: U = 0 */
#define GM_ATOMICS_NOTE_AVG_SM         0x2u  /* no per-SM counters: average SM with bounds */
#define GM_ATOMICS_NOTE_N_APPROX       0x4u  /* n is occupancy x WarpsPerSM (paper's approximation) */
#define GM_ATOMICS_NOTE_E_UNIFORM      0x8u  /* e assumed the same on every SM */
#define GM_ATOMICS_NOTE_SPLIT_FALLBACK 0x10u /* class split not available: fell back (see split_source) */
#define GM_ATOMICS_NOTE_CLAMPED        0x20u /* an input was clamped to the table's grid */
#define GM_ATOMICS_NOTE_MISSING_COUNTER 0x40u /* a counter the variant needs is missing */
#define GM_ATOMICS_NOTE_W_SINGLE_SHOT  0x80u /* w read off the single-shot series: the table has no
                                        steady-state one (GM_ATOMICS_BUSY_WAVEFRONTS) */

/* Applies the model to one launch's counters. */
gm_status gm_atomics_model_apply(const gm_atomics_table *table, const gm_atomics_model_options *opt,
                                 const gm_launch_counters *k, gm_atomics_kernel_result *out,
                                 gm_error *err);
void gm_atomics_kernel_result_free(gm_atomics_kernel_result *r);

/* gm_atomics_model_apply for a report: a launch the model cannot take (a counter
 * missing, no series) keeps a result with U = NaN whose verdict says why;
 * otherwise the verdict is gm_atomics_verdict's.  Only invalid arguments fail. */
gm_status gm_atomics_model_apply_report(const gm_atomics_table *table,
                                        const gm_atomics_model_options *opt,
                                        const gm_launch_counters *k, gm_atomics_kernel_result *out,
                                        gm_error *err);

/* The plain verdict for U and the notes ("shared-memory atomics are the
 * bottleneck (U = 97%)"). */
void gm_atomics_verdict(const gm_atomics_kernel_result *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
