/* Global-memory atomics (paper 002, Robertson, "CUDA atomics: a practical
 * analysis", GT200) carried over to the L2 atomic units of current GPUs, and
 * the operational model of paper 000 (U = busy time / elapsed time, Table 2)
 * applied to them.  Pure C, no CUDA: tested on machines without a GPU.
 *
 * Robertson's hypothesis (section "How long does an atomic operation stall a
 * thread?"): atomics are done by "a dedicated SIMD ALU on or near the memory
 * controller".  On Hopper that unit sits in every L2 slice; an address
 * belongs to one slice.  The suite `gatomics` measures, per operation class
 * (ATOM: result returned; RED: no result):
 *
 *   R_one   sectors per second one slice's unit sustains (every operation of
 *           the GPU on one address: one slice, saturated);
 *   R_peak  sectors per second all slices together sustain (every operation
 *           on its own 32-byte sector, spread over the slices).
 *
 * A kernel's L2 counters give N_c, the sectors of class c the atomic units
 * took (lts__t_sectors_srcunit_tex_op_{atom,red}.sum, CAS apart through
 * lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum), and how unevenly the
 * slices were loaded: k_eff = A_sum / A_max, A = cycles a slice's atomic
 * input was active (lts__d_atomic_input_cycles_active.sum / .max): k_eff
 * slices' worth of work, the busiest slice carrying 1/k_eff of it.
 *
 * Busy time (the unit carried over from paper 000's B = N S, Table 2):
 *
 *   B_slice = sum_c N_c / (k_eff R_one_c)   the busiest slice's unit
 *   B_all   = sum_c N_c / R_peak_c          the units together (their shared
 *                                           path caps them below k R_one)
 *   form "rate"   (default): B = max(B_slice, B_all),  U = B / T
 *   form "rate-f32": the same with the rates of f32 adds (float atomics run
 *                            2.4x slower on one address; no counter tells them apart)
 *   form "server" (paper 000's single server per slice, no shared cap):
 *                            B = B_slice,              U = B / T
 *   form "direct" (no machine data): U = A_max / C, C = L2 cycles elapsed
 *                            (lts__cycles_elapsed.avg): the busiest slice's
 *                            own activity count.
 *
 * T is the kernel's duration (gpu__time_duration).  N = 0 gives U = 0
 * exactly, whatever else is missing.
 */
#ifndef GPUQ_GATOMICS_MODEL_H
#define GPUQ_GATOMICS_MODEL_H

#include <stddef.h>
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_gatomics_class {
    GM_GATOMICS_ATOM = 0, /* ATOMG other than CAS: the result goes back to the SM */
    GM_GATOMICS_RED,      /* RED: fire and forget */
    GM_GATOMICS_CAS,      /* ATOMG.CAS: its own rates (the L2 counts its sectors apart) */
    GM_GATOMICS_CLASSES
} gm_gatomics_class;

typedef enum gm_gatomics_form {
    GM_GATOMICS_FORM_RATE = 0, /* B = max(B_slice, B_all) (default) */
    GM_GATOMICS_FORM_RATE_F32, /* the same with the f32-add rates: for kernels whose ATOM/RED are
                                  float adds (index_add_, scatter_add_); the counters cannot tell */
    GM_GATOMICS_FORM_SERVER,   /* B = B_slice: one server per slice, paper 000's form */
    GM_GATOMICS_FORM_DIRECT,   /* U = A_max / C: the hardware's activity counter */
    GM_GATOMICS_FORM_COUNT
} gm_gatomics_form;

/* "rate", "rate-f32", "server", "direct"; GM_ERR_RANGE for anything else. */
gm_status gm_gatomics_form_by_name(const char *name, gm_gatomics_form *out, gm_error *err);
const char *gm_gatomics_form_name(gm_gatomics_form f);

/* What the suite measured, in sectors per second. */
typedef struct gm_gatomics_rates {
    double one[GM_GATOMICS_CLASSES];
    double peak[GM_GATOMICS_CLASSES];
} gm_gatomics_rates;

/* One launch's counters (NaN: not collected). */
typedef struct gm_gatomics_input {
    double sectors[GM_GATOMICS_CLASSES]; /* N_atom (CAS excluded), N_red, N_cas */
    double active_sum, active_max;       /* A_sum, A_max, L2 cycles */
    double l2_cycles;                    /* C: lts__cycles_elapsed.avg */
    double duration_s;                   /* T */
} gm_gatomics_input;

/* Verdict thresholds on U, the shared-atomic unit's (papers/atomics/atomics_model.h). */
#define GM_GATOMICS_U_BOTTLENECK 0.80
#define GM_GATOMICS_U_SIGNIFICANT 0.50

#define GM_GATOMICS_NOTE_NO_ATOMICS   0x1u /* N = 0: U = 0 */
#define GM_GATOMICS_NOTE_MISSING      0x2u /* a counter the form needs is missing: U = NaN */
#define GM_GATOMICS_NOTE_NO_ACTIVITY  0x4u /* N > 0 but A_max = 0: k_eff taken as 1 */
#define GM_GATOMICS_NOTE_ALL_BOUND    0x8u /* B_all >= B_slice: the units together bind */

typedef struct gm_gatomics_result {
    double N;         /* sectors, both classes */
    double X;         /* N / T, sectors per second */
    double k_eff;     /* A_sum / A_max */
    double B_slice;   /* seconds */
    double B_all;     /* seconds */
    double B;         /* the form's busy time, seconds (NaN for direct) */
    double U;         /* the form's utilization */
    double U_direct;  /* A_max / C beside it (NaN when missing) */
    unsigned notes;
} gm_gatomics_result;

/* k_eff = A_sum / A_max; 1 when A_max = 0 (no activity seen: one slice). */
double gm_gatomics_k_eff(double active_sum, double active_max);

/* The busy time and U of one launch under `form`.  Rates must be finite and
 * > 0 for the classes with N_c > 0 (rate, server); T > 0 when N > 0.
 * Missing counters (NaN) give U = NaN and GM_GATOMICS_NOTE_MISSING, not an error. */
gm_status gm_gatomics_apply(const gm_gatomics_rates *rates, gm_gatomics_form form,
                            const gm_gatomics_input *in, gm_gatomics_result *out, gm_error *err);

/* The suite's file (docs/global-atomics.md): columns experiment, op, bits,
 * pattern, warps, param, median, lo, hi, unit, n.  Reads the rates of the
 * experiment "l2rate" (unit "Gsector/s"): class c from op ops[c] (NULL:
 * "atom.add.u32", "red.add.u32", "atom.cas.u32"), pattern "one" -> R_one,
 * "distinct" -> R_peak; the largest warps value of each.  GM_ERR_MISSING
 * naming the row when one is absent. */
gm_status gm_gatomics_rates_from_mdata(const gm_mdata *md,
                                       const char *const ops[GM_GATOMICS_CLASSES],
                                       gm_gatomics_rates *out, gm_error *err);
/* The rates a form reads: the f32-add ops for rate-f32 (CAS stays u32). */
gm_status gm_gatomics_rates_for_form(const gm_mdata *md, gm_gatomics_form form,
                                     gm_gatomics_rates *out, gm_error *err);

/* The columns of gatomics.csv, in order (for the suite's writer). */
extern const char *const gm_gatomics_columns[];
#define GM_GATOMICS_NCOLS 11

/* ---- helpers the suite uses to turn samples into its rows ---- */
/* (median and quantiles: src/core/stats.h) */

/* The paper's lock-width reading of the offset sweep ("Do adjacent memory
 * operations cause atomic collisions?"): t[i] is the time per iteration at
 * offset[i] bytes (ascending, offset[0] = 0).  The floor is the median time
 * of the offsets >= 256.  The lock width is the smallest offset from which
 * every time is within tol (relative) of the floor; 0 when t[0] itself is
 * (no collision penalty at any offset: no lock width visible).
 * GM_ERR_RANGE for n < 2, unsorted offsets or no offset >= 256. */
gm_status gm_gatomics_lock_width(const double *offset, const double *t, size_t n, double tol,
                                 double *width, gm_error *err);

/* "How many instructions are needed to hide atomic latency?": t_with[i] and
 * t_without[i] are times per iteration with k[i] dependent FMAs between
 * accesses, with and without the atomic.  Returns the smallest k from which
 * every t_with is within tol of t_without; NaN when none is. */
double gm_gatomics_hide_point(const double *k, const double *t_with, const double *t_without,
                              size_t n, double tol);

#ifdef __cplusplus
}
#endif
#endif
