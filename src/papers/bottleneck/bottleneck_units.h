/* Hopper's units as components of the bottleneck model (issue: the tensor
 * pipe, TMA, L2 and DRAM), beside the Zhang & Owens parts (bottleneck_model.h).
 * Each unit is one row of a table (src/model/bottleneck_physics.c): its
 * name, its counters and how its time follows from them:
 *   busy     cycles the unit was active on the busiest SM (the .max
 *            counter) or the average SM with work (.sum / SMs), over the
 *            launch's SM clock: the time the unit itself was busy;
 *   issue    warp-instructions issued over the SMs' four schedulers, one
 *            each per clock;
 *   bytes    bytes moved over the best rate the suite "throughput" measured
 *            for that memory (L2-resident and DRAM-resident loads and
 *            stores), not over the rate LSU loads reach at the launch's
 *            warps: TMA and wide loads keep more bytes in flight than that
 *            curve assumes.
 * A unit appears only where its counters were collected (the tensor pipe,
 * L2 and DRAM with the default set, which they fit without a pass more on
 * GH100; TMA busy cycles, fma activity and the other warp states opt-in:
 * GPUQ_EXTRA_METRICS=@bottleneck, docs/bottleneck.md); a launch recorded
 * without them has the three parts of before.  Each unit's time is also its time at its
 * best rate, so time / measured is the share of that rate the kernel used.
 * Pure C. */
#ifndef GPUQ_BOTTLENECK_UNITS_H
#define GPUQ_BOTTLENECK_UNITS_H

#include <stddef.h>
#include "gpuq/counters.h"
#include "bottleneck_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GM_BU_MAX 8

typedef struct gm_bu_comp {
    const char *name;      /* "tensor", "tma", "l2", "dram", "fma pipe", ... */
    const char *field;     /* "tensor_us": the report field of its time */
    const char *use_field; /* "tensor_use": the report field of time / measured */
    double ns;          /* NaN: its counters were not collected */
} gm_bu_comp;

/* The number of unit rows (the report has their fields for every launch). */
size_t gm_bu_count(void);

/* Every unit's time for launch k (NaN where counters are missing), in table
 * order, into out[0 .. gm_bu_count()).  m: the throughput data (its best
 * L2 and DRAM rates); clock_ghz: SM cycles per ns of the launch; sms: SMs
 * with work.  Returns how many units have a time. */
size_t gm_bu_times(const gm_zo_machine *m, const gm_launch_counters *k, double clock_ghz,
                   double sms, gm_bu_comp *out);

/* The wgmma operand reads from shared memory (the tensor pipe's feed, not
 * LSU traffic): l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma, NaN
 * when not collected. */
double gm_bu_gmma_wavefronts(const gm_launch_counters *k);

/* The counters read beyond the unit's default metrics (NULL-terminated): its
 * opt-in list. */
extern const char *const gm_bu_metrics[];

#ifdef __cplusplus
}
#endif
#endif
