/* Hopper's units as components of the bottleneck model (issue: the tensor
 * pipe, TMA, L2 and DRAM), beside the Zhang & Owens parts (bottleneck_model.h).
 * Each unit is one row of a table (bottleneck_physics.c): its name, its
 * counters and how its time follows from them, time = work / the rate the
 * unit sustains on this GPU:
 *   tensor   FLOPs of each tensor instruction type (sm__ops_path_tensor_*)
 *            over the rate the suite "units" measured for it (FLOP per clock
 *            per SM, best over warps; bottleneck_unit_rows.h), at the
 *            launch's SM clock on the SMs with work; without those rates or
 *            counters, the busy cycles of the busiest SM (.max, else .sum /
 *            SMs) over the launch's clock, the pipe against itself;
 *   l2, dram bytes read and written over the best load and store rates any
 *            suite measured for that memory: the suite "units"' 16-byte .cg
 *            loads and stores at every bytes in flight and its TMA loads, the
 *            suite "throughput"'s LSU points at every shape (a unit sustains
 *            what its best kernel got from it); not the rate LSU loads reach
 *            at the launch's warps, since TMA and wide loads keep more bytes
 *            in flight than that curve assumes;
 *   tma      TMA load bytes over the best TMA rate of the suite "units",
 *            else TMA busy cycles;
 *   fma, alu pipe activity (busy cycles); issue slots: warp-instructions
 *            issued over the best issue rate the suite "throughput" measured.
 * A unit appears only where its counters were collected (the tensor pipe,
 * wgmma's FLOPs, L2 and DRAM with the default set, which they fit without a
 * pass more on GH100; mma.sync's FLOPs, TMA busy cycles, fma activity and
 * the other warp states opt-in: GPUQ_EXTRA_METRICS=@bottleneck,
 * docs/bottleneck.md); a launch recorded without them has the three parts
 * of before.  Each unit's time is its time at its best rate, so time /
 * measured is the share of that rate the kernel used.
 * Pure C. */
#ifndef GPUQ_BOTTLENECK_UNITS_H
#define GPUQ_BOTTLENECK_UNITS_H

#include <stddef.h>
#include "gpuq/counters.h"
#include "bottleneck_model.h"
#include "bottleneck_unit_rows.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_BOTTLENECK_UNITS_MAX 8

/* What a unit is to the issue slots (the verdict's tie, bottleneck_verdict.h):
 * the issue slots themselves, a pipe they issue to, or neither. */
typedef enum gm_bottleneck_units_role { GM_BOTTLENECK_UNITS_OTHER = 0, GM_BOTTLENECK_UNITS_ISSUE,
                                        GM_BOTTLENECK_UNITS_PIPE } gm_bottleneck_units_role;

typedef struct gm_bottleneck_units_comp {
    const char *name;       /* "tensor", "tma", "l2", "dram", "fma pipe", ... */
    const char *field;      /* "tensor_us": the report field of its time */
    const char *use_field;  /* "tensor_use": the report field of time / measured */
    const char *from_field; /* "tensor_from": the report field of `from` */
    double ns;              /* NaN: its counters were not collected */
    double flop_ns;         /* tensor: its FLOPs at the measured rates (NaN: not known) */
    const char *from;       /* the rate it is timed at: "units", "throughput" (that suite's
                               rates; "units+throughput": l2 or dram's load rate from one,
                               its store rate from the other), "flops" (FLOPs at the units
                               suite's rates), "busy" (busy cycles), "documented" */
    gm_bottleneck_units_role role;
} gm_bottleneck_units_comp;

/* The rates the suite "units" measured (its file, units.csv): each row's best
 * point (bottleneck_unit_rows.h), NaN where the row was not measured. */
typedef struct gm_bottleneck_units_rates {
    int have;                                         /* 0: no units data, every rate NaN */
    double tensor[GM_BOTTLENECK_UNITS_N_TENSOR];      /* FLOP (int8: operations) per clock per SM */
    double memory_gbps[GM_BOTTLENECK_UNITS_N_MEMORY]; /* 1e9 B/s */
    double clock_mhz;                                 /* the file's SM clock */
} gm_bottleneck_units_rates;

void gm_bottleneck_units_rates_none(gm_bottleneck_units_rates *r);
/* Reads the suite's file (columns kind, name, value, rate, ...; range-checked). */
gm_status gm_bottleneck_units_rates_from_mdata(const gm_mdata *md, gm_bottleneck_units_rates *r,
                                               gm_error *err);
/* The counter of a tensor row's work; NULL out of range. */
const char *gm_bottleneck_units_tensor_row_metric(int row);

/* The number of unit rows (the report has their fields for every launch). */
size_t gm_bottleneck_units_count(void);

/* Every unit's time for launch k (NaN where counters are missing), in table
 * order, into out[0 .. gm_bottleneck_units_count()).  m: the throughput data (its best
 * L2 and DRAM rates and issue rate); r: the units data (may be NULL or
 * have == 0); clock_ghz: SM cycles per ns of the launch; sms: SMs with
 * work.  Returns how many units have a time. */
size_t gm_bottleneck_units_times(const gm_bottleneck_machine *m, const gm_bottleneck_units_rates *r,
                                 const gm_launch_counters *k, double clock_ghz, double sms,
                                 gm_bottleneck_units_comp *out);

/* The wgmma operand reads from shared memory (the tensor pipe's feed, not
 * LSU traffic): l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma, NaN
 * when not collected. */
double gm_bottleneck_units_gmma_wavefronts(const gm_launch_counters *k);

/* The counters read beyond the unit's default metrics (NULL-terminated): its
 * opt-in list. */
extern const char *const gm_bottleneck_units_metrics[];

#ifdef __cplusplus
}
#endif
#endif
