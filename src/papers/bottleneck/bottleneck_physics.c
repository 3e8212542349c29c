/* Hopper's units as bottleneck components: include/gpuq/bottleneck_units.h.
 * Adding a unit is one row of `units` below (and its counters as rows of
 * the metric table, src/model/metrics.c). */
#include "bottleneck_units.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "gpuq/metrics.h"

typedef enum { BU_BUSY, BU_ISSUE, BU_BYTES } bu_kind;

typedef struct bu_row {
    const char *name, *field, *use_field;
    bu_kind kind;
    /* BU_BUSY: a = cycles of the busiest SM (.max), b = summed over SMs (.sum);
     * BU_ISSUE: a = warp-instructions issued, summed;
     * BU_BYTES: a over memory `l2` loads' best rate, b over its stores' */
    const char *a, *b;
    double scale;      /* bytes per count (32 for sectors) */
    int l2;            /* BU_BYTES: 1 L2-resident rates, 0 DRAM */
    const char *need;  /* counted only where this counter was collected too */
} bu_row;

static const bu_row units[] = {
    {"tensor", "tensor_us", "tensor_use", BU_BUSY, "sm__pipe_tensor_cycles_active.max",
     "sm__pipe_tensor_cycles_active.sum", 1, 0, NULL},
    {"tma", "tma_us", "tma_use", BU_BUSY, "sm__pipe_tma_cycles_active.max",
     "sm__pipe_tma_cycles_active.sum", 1, 0, NULL},
    /* every sector the L2 served: LSU, TMA and atomics alike */
    {"l2", "l2_us", "l2_use", BU_BYTES, "lts__t_sectors.sum", NULL, 32, 1, NULL},
    /* DRAM bytes are in the default set; the unit joins the verdict only with
     * the opt-in set, so that launches recorded without it read as before */
    {"dram", "dram_us", "dram_use", BU_BYTES, "dram__bytes_read.sum", "dram__bytes_write.sum", 1,
     0, "lts__t_sectors.sum"},
    {"fma pipe", "fma_pipe_us", "fma_pipe_use", BU_BUSY, NULL, "sm__pipe_fma_cycles_active.sum", 1,
     0, NULL},
    {"alu pipe", "alu_pipe_us", "alu_pipe_use", BU_BUSY, NULL, "sm__pipe_alu_cycles_active.sum", 1,
     0, NULL},
    {"issue slots", "issue_slots_us", "issue_slots_use", BU_ISSUE, "sm__inst_issued.sum", NULL, 1,
     0, NULL},
};
#define N_UNITS (sizeof units / sizeof units[0])
_Static_assert(N_UNITS <= 16, "the row caches below hold 16 units");

/* What the rows and the verdict's warp states read beyond the unit's own
 * metrics (bottleneck_unit.c: the tensor pipe, L2 sectors, wgmma
 * wavefronts, long scoreboard, issue, alu activity and TMA bytes, which fit
 * the default set's 6 passes on GH100): the opt-in collection
 * (GPUQ_EXTRA_METRICS=@bottleneck), 11 passes with the default set. */
const char *const gm_bu_metrics[] = {
    "sm__pipe_tensor_op_hmma_cycles_active.sum",
    "sm__inst_executed_pipe_tensor_op_gmma.sum",
    "sm__inst_executed_pipe_tensor_op_hmma.sum",
    "sm__pipe_tma_cycles_active.max",
    "sm__pipe_tma_cycles_active.sum",
    "smsp__warps_issue_stalled_gmma.sum",
    "smsp__warps_issue_stalled_barrier.sum",
    "smsp__warps_issue_stalled_branch_resolving.sum",
    "smsp__warps_issue_stalled_no_instruction.sum",
    "smsp__warps_issue_stalled_math_pipe_throttle.sum",
    "smsp__warps_issue_stalled_lg_throttle.sum",
    "smsp__warps_issue_stalled_membar.sum",
    "sm__pipe_fma_cycles_active.sum",
    NULL,
};

size_t gm_bu_count(void)
{
    return N_UNITS;
}

/* The metric rows of the names the rows read, looked up once (pthread_once:
 * any thread may be first): by name for every launch, they took a tenth of
 * the unit's time. */
#define GMMA_METRIC "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"
static int row_a[16], row_b[16], row_need[16], row_gmma;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static int find(const char *name)
{
    return name ? gm_metric_find(name) : -1;
}

static void find_rows(void)
{
    for (size_t i = 0; i < N_UNITS; i++) {
        row_a[i] = find(units[i].a);
        row_b[i] = find(units[i].b);
        row_need[i] = find(units[i].need);
    }
    row_gmma = find(GMMA_METRIC);
}

static double at(const gm_launch_counters *k, int row)
{
    return row >= 0 ? k->metric[row] : NAN;
}

/* The best bandwidth (1e9 B/s = B/ns) the suite measured for one memory and op. */
static double best_rate(const gm_zo_machine *m, int l2, int store)
{
    if (m && m->sets)
        return m->best_gbps[l2][store]; /* the same loop, run once (index_points) */
    double best = NAN;
    for (size_t i = 0; m && i < m->n_global; i++)
        if (m->global[i].l2 == l2 && m->global[i].store == store && !(m->global[i].gbps <= best))
            best = m->global[i].gbps;
    return best;
}

static double unit_ns(size_t i, const gm_zo_machine *m, const gm_launch_counters *k, double ghz,
                      double sms)
{
    const bu_row *u = &units[i];
    if (u->need && !isfinite(at(k, row_need[i])))
        return NAN;
    switch (u->kind) {
    case BU_BUSY: {
        double c = at(k, row_a[i]);
        if (!isfinite(c))
            c = at(k, row_b[i]) / sms;
        return c / ghz;
    }
    case BU_ISSUE:
        return at(k, row_a[i]) / (4 * sms) / ghz; /* four schedulers per SM */
    case BU_BYTES: {
        double a = at(k, row_a[i]) * u->scale / best_rate(m, u->l2, 0);
        if (!u->b)
            return a;
        double b = at(k, row_b[i]) * u->scale / best_rate(m, u->l2, 1);
        return isfinite(a) && isfinite(b) ? a + b : NAN;
    }
    }
    return NAN;
}

size_t gm_bu_times(const gm_zo_machine *m, const gm_launch_counters *k, double clock_ghz,
                   double sms, gm_bu_comp *out)
{
    size_t have = 0;
    pthread_once(&rows_once, find_rows);
    for (size_t i = 0; i < N_UNITS; i++) {
        const bu_row *u = &units[i];
        out[i] = (gm_bu_comp){u->name, u->field, u->use_field, NAN};
        if (!k || !(clock_ghz > 0) || !(sms > 0))
            continue;
        double t = unit_ns(i, m, k, clock_ghz, sms);
        if (isfinite(t) && t >= 0) {
            out[i].ns = t;
            have++;
        }
    }
    return have;
}

double gm_bu_gmma_wavefronts(const gm_launch_counters *k)
{
    pthread_once(&rows_once, find_rows);
    return k ? at(k, row_gmma) : NAN;
}
