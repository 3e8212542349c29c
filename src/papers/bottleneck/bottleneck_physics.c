/* Hopper's units as bottleneck components: bottleneck_units.h.  A unit is
 * one row of `units` below; the tensor pipe's work and the memories' rates
 * are the rows of bottleneck_unit_rows.h, measured by the suite "units"
 * (and their counters, rows of the metric table, src/core/metrics.c). */
#include "bottleneck_units.h"

#include <math.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "bottleneck_unit.h"
#include "bottleneck_unit_rows.h"

/* The rows' names and counters (bottleneck_unit_rows.h). */
#define BOTTLENECK_T_NAME(id, ...) #id,
#define BOTTLENECK_T_METRIC(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric, set, sass) \
    metric,
static const char *const tensor_name[GM_BOTTLENECK_UNITS_N_TENSOR] = {GM_BOTTLENECK_UNITS_TENSOR_ROWS(BOTTLENECK_T_NAME)};
static const char *const tensor_metric[GM_BOTTLENECK_UNITS_N_TENSOR] = {GM_BOTTLENECK_UNITS_TENSOR_ROWS(BOTTLENECK_T_METRIC)};
#define BOTTLENECK_M_NAME(id, ...) #id,
#define BOTTLENECK_M_KIND(id, path, resident, store, sass, doc) {BOTTLENECK_TMA_##path, BOTTLENECK_L2_##resident, store},
#define BOTTLENECK_TMA_LSU 0
#define BOTTLENECK_TMA_TMA 1
#define BOTTLENECK_L2_L2 1
#define BOTTLENECK_L2_DRAM 0
static const char *const memory_name[GM_BOTTLENECK_UNITS_N_MEMORY] = {GM_BOTTLENECK_UNITS_MEMORY_ROWS(BOTTLENECK_M_NAME)};
static const struct {
    int tma, l2, store;
} memory_kind[GM_BOTTLENECK_UNITS_N_MEMORY] = {GM_BOTTLENECK_UNITS_MEMORY_ROWS(BOTTLENECK_M_KIND)};

typedef enum { BOTTLENECK_BUSY, BOTTLENECK_ISSUE, BOTTLENECK_TENSOR, BOTTLENECK_L2, BOTTLENECK_DRAM,
               BOTTLENECK_TMA } bottleneck_kind;

/* A pipe's cycles_active counter adds one per SM sub-partition (four per SM
 * since Maxwell, each with its own scheduler and pipes) and, for the FMA
 * pipe, one per half (fmaheavy and fmalite on GH100): the counts one SM can
 * make per cycle are 4, and 8 for fma.  Read against ncu's
 * pct_of_peak_sustained_elapsed of the same launches (the real-kernel
 * corpus on the H200, validation/realkernels/truth-rule.md): busy cycles
 * over the clock alone read 4.1x (tensor, 28 launches), 4.0x (alu, 292) and
 * 8.0x (fma, 204) ncu's share.  TMA's unit is one per SM (not yet checked:
 * no corpus launch kept it above 5% busy). */
#define SUB_PARTITIONS 4.0

typedef struct bottleneck_row {
    const char *name, *field, *use_field, *from_field;
    bottleneck_kind kind;
    /* busy cycles: of the busiest SM (.max) or summed over SMs (.sum); the
     * whole time of BOTTLENECK_BUSY, the fallback of BOTTLENECK_TENSOR and BOTTLENECK_TMA */
    const char *busy_max, *busy_sum;
    const char *need;              /* counted only where this counter was collected too */
    double per_clock;              /* busy counts one SM makes per cycle when fully busy */
    gm_bottleneck_units_role role; /* the issue slots, a pipe they issue to, or neither */
} bottleneck_row;

/* BOTTLENECK_TENSOR: FLOPs of every tensor row's counter over its measured rate;
 * BOTTLENECK_L2, BOTTLENECK_DRAM: bytes read and written over the load and store rates of
 * that memory (the best of the units and throughput suites'); BOTTLENECK_TMA:
 * TMA load bytes over the best TMA rate; BOTTLENECK_ISSUE: warp-instructions issued
 * over the issue rate the throughput suite measured. */
static const bottleneck_row units[] = {
    {"tensor", "tensor_us", "tensor_use", "tensor_from", BOTTLENECK_TENSOR,
     "sm__pipe_tensor_cycles_active.max", "sm__pipe_tensor_cycles_active.sum", NULL,
     SUB_PARTITIONS, GM_BOTTLENECK_UNITS_PIPE},
    {"tma", "tma_us", "tma_use", "tma_from", BOTTLENECK_TMA, "sm__pipe_tma_cycles_active.max",
     "sm__pipe_tma_cycles_active.sum", NULL, 1, GM_BOTTLENECK_UNITS_OTHER},
    {"l2", "l2_us", "l2_use", "l2_from", BOTTLENECK_L2, NULL, NULL, "lts__t_sectors.sum", 1, GM_BOTTLENECK_UNITS_OTHER},
    /* DRAM bytes are in the default set; the unit joins the verdict only with
     * the Hopper units' counters (L2 sectors), so that launches recorded
     * without them read as before */
    {"dram", "dram_us", "dram_use", "dram_from", BOTTLENECK_DRAM, NULL, NULL, "lts__t_sectors.sum",
     1, GM_BOTTLENECK_UNITS_OTHER},
    {"fma pipe", "fma_pipe_us", "fma_pipe_use", "fma_pipe_from", BOTTLENECK_BUSY, NULL,
     "sm__pipe_fma_cycles_active.sum", NULL, 2 * SUB_PARTITIONS, GM_BOTTLENECK_UNITS_PIPE},
    {"alu pipe", "alu_pipe_us", "alu_pipe_use", "alu_pipe_from", BOTTLENECK_BUSY, NULL,
     "sm__pipe_alu_cycles_active.sum", NULL, SUB_PARTITIONS, GM_BOTTLENECK_UNITS_PIPE},
    {"issue slots", "issue_slots_us", "issue_slots_use", "issue_slots_from", BOTTLENECK_ISSUE, NULL,
     NULL, "sm__inst_issued.sum", 1, GM_BOTTLENECK_UNITS_ISSUE},
};
#define N_UNITS (sizeof units / sizeof units[0])

/* The counters the rows read beyond the unit's own (default) metrics:
 * TMA busy cycles, the HMMA and wgmma instruction counts, the verdict's
 * other warp states, fma activity.  The opt-in collection,
 * GPUQ_EXTRA_METRICS=@bottleneck (10 passes with the default set on
 * GH100).  mma.sync's FLOP counters (the NAMED rows of
 * bottleneck_unit_rows.h) are not among them: they take it to 15 passes,
 * and are collected when named. */
const char *const gm_bottleneck_units_metrics[] = {
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

size_t gm_bottleneck_units_count(void)
{
    return N_UNITS;
}

const char *gm_bottleneck_units_tensor_row_metric(int row)
{
    return row >= 0 && row < GM_BOTTLENECK_UNITS_N_TENSOR ? tensor_metric[row] : NULL;
}

static double get(const gm_launch_counters *k, const char *name)
{
    int row = name ? gm_bottleneck_metric_row(name) : -1;
    return row >= 0 ? k->metric[row] : NAN;
}

/* ---- the suite's rates ---- */

void gm_bottleneck_units_rates_none(gm_bottleneck_units_rates *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++)
        r->tensor[i] = NAN;
    for (int i = 0; i < GM_BOTTLENECK_UNITS_N_MEMORY; i++)
        r->memory_gbps[i] = NAN;
}

/* The units file's cells (gpuq/ranges.h), checked before any is read. */
static const gm_mdata_rule units_rules[] = {
    {"tensor", "value", GM_Q_RATE, 0},   {"tensor", "clock_mhz", GM_Q_CLOCK_MHZ, 0},
    {"memory", "value", GM_Q_RATE, 0},   {"memory", "rate", GM_Q_RATE, 0},
    {"memory", "clock_mhz", GM_Q_CLOCK_MHZ, 0}, {NULL, "warps", GM_Q_REAL, 1},
    {NULL, "blocks", GM_Q_REAL, 1},      {NULL, "threads", GM_Q_REAL, 1},
    {NULL, "iters", GM_Q_REAL, 1},       {NULL, "work", GM_Q_REAL, 1},
    {NULL, "bytes_in_flight", GM_Q_REAL, 1},
    {NULL, "value", GM_Q_REAL, 1},       {NULL, "rate", GM_Q_REAL, 1},
    {NULL, "clock_mhz", GM_Q_REAL, 1},   {NULL, "spread", GM_Q_REAL, 1},
    {NULL, "documented", GM_Q_REAL, 1},  {NULL, "documented_rate", GM_Q_REAL, 1},
};

gm_status gm_bottleneck_units_rates_from_mdata(const gm_mdata *md, gm_bottleneck_units_rates *r,
                                               gm_error *err)
{
    if (!md || !r)
        return gm_fail(err, GM_ERR_INVALID_ARG, "units data: NULL argument");
    gm_bottleneck_units_rates_none(r);
    int kind = gm_mdata_col(md, "kind"), name = gm_mdata_col(md, "name");
    int value = gm_mdata_col(md, "value"), rate = gm_mdata_col(md, "rate");
    if (kind < 0 || name < 0 || value < 0 || rate < 0)
        return gm_fail(err, GM_ERR_MISSING, "units data: needs columns kind, name, value, rate");
    gm_status st = gm_mdata_check(md, "kind", units_rules,
                                  sizeof units_rules / sizeof units_rules[0], err);
    if (st != GM_OK)
        return st;
    /* each row's best point; rows of names this build does not know are
     * kept in the file and ignored here */
    for (size_t i = 0; i < md->n_rows; i++) {
        const char *k = gm_mdata_text(md, i, kind), *n = gm_mdata_text(md, i, name);
        if (strcmp(k, "tensor") == 0) {
            for (int t = 0; t < GM_BOTTLENECK_UNITS_N_TENSOR; t++)
                if (strcmp(n, tensor_name[t]) == 0 && !(gm_mdata_num(md, i, value) <= r->tensor[t]))
                    r->tensor[t] = gm_mdata_num(md, i, value);
        } else if (strcmp(k, "memory") == 0) {
            for (int m = 0; m < GM_BOTTLENECK_UNITS_N_MEMORY; m++)
                if (strcmp(n, memory_name[m]) == 0 &&
                    !(gm_mdata_num(md, i, rate) <= r->memory_gbps[m]))
                    r->memory_gbps[m] = gm_mdata_num(md, i, rate);
        }
    }
    r->have = 1;
    r->clock_mhz = md->meta.sm_clock_mhz;
    return GM_OK;
}

/* ---- the rates each unit uses ---- */

/* The best bandwidth (1e9 B/s = B/ns) the throughput suite measured for one
 * memory and op (its LSU loads and stores at every shape). */
static double throughput_rate(const gm_bottleneck_machine *m, int l2, int store)
{
    double best = NAN;
    for (size_t i = 0; m && i < m->n_global; i++)
        if (m->global[i].l2 == l2 && m->global[i].store == store && !(m->global[i].gbps <= best))
            best = m->global[i].gbps;
    return best;
}

/* The units suite's best rate of a memory path (NaN: not measured); l2 < 0:
 * either memory. */
static double units_rate(const gm_bottleneck_units_rates *r, int tma, int l2, int store)
{
    double best = NAN;
    for (int i = 0; r && r->have && i < GM_BOTTLENECK_UNITS_N_MEMORY; i++)
        if (memory_kind[i].tma == tma && (l2 < 0 || memory_kind[i].l2 == l2) &&
            memory_kind[i].store == store && r->memory_gbps[i] > 0 &&
            !(r->memory_gbps[i] <= best))
            best = r->memory_gbps[i];
    return best;
}

/* The better of two rates (NaN: neither measured); *from_b is set where b
 * is strictly the better. */
static double better(double a, double b, int *from_b)
{
    *from_b = b > a || (!(a > 0) && b > 0);
    return *from_b ? b : a;
}

/* A memory's load and store rates: for each direction the best rate any
 * suite measured on that memory, since a unit sustains at least what its
 * best kernel got from it (the units suite's LSU rows and, for loads, its
 * TMA rows; the throughput suite's LSU points at every shape).  A narrower
 * kernel's rate is a property of that kernel, not of the memory: on the
 * H200 the throughput suite's best L2 load rate was 1.9x the units suite's
 * 4-byte-load kernel's.  *from: "units", "throughput" or, where the two
 * directions' best came from different suites, "units+throughput". */
static void memory_rates(const gm_bottleneck_machine *m, const gm_bottleneck_units_rates *r, int l2,
                         double *ld, double *st, const char **from)
{
    int ld_tp, st_tp, by_tma;
    double units_ld = better(units_rate(r, 0, l2, 0), units_rate(r, 1, l2, 0), &by_tma);
    *ld = better(units_ld, throughput_rate(m, l2, 0), &ld_tp);
    *st = better(units_rate(r, 0, l2, 1), throughput_rate(m, l2, 1), &st_tp);
    *from = ld_tp && st_tp ? "throughput" : !ld_tp && !st_tp ? "units" : "units+throughput";
}

static double busy_ns(const bottleneck_row *u, const gm_launch_counters *k, double ghz, double sms)
{
    double c = get(k, u->busy_max);
    if (!isfinite(c))
        c = get(k, u->busy_sum) / sms;
    return c / u->per_clock / ghz;
}

/* The tensor pipe: each counter of the tensor rows (once, however many rows
 * share it) over the best rate the suite measured among its rows.  Every
 * collected counter with work needs a rate, else only busy cycles count.
 * Where some rows' counters were not collected (mma.sync's are opt-in), the
 * work they would add is unknown: the larger of the FLOP time and the
 * pipe's busy time. */
static double tensor_ns(const bottleneck_row *u, const gm_bottleneck_units_rates *r,
                        const gm_launch_counters *k, double ghz, double sms, double *flop_ns,
                        const char **from)
{
    double busy = busy_ns(u, k, ghz, sms), t = 0;
    int collected = 0, missing = 0, unrated = 0;
    *flop_ns = NAN;
    for (int i = 0; r && r->have && i < GM_BOTTLENECK_UNITS_N_TENSOR; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = strcmp(tensor_metric[j], tensor_metric[i]) != 0;
        if (!first)
            continue;
        double ops = get(k, tensor_metric[i]), rate = NAN;
        for (int j = i; j < GM_BOTTLENECK_UNITS_N_TENSOR; j++)
            if (strcmp(tensor_metric[j], tensor_metric[i]) == 0 && r->tensor[j] > 0 &&
                !(r->tensor[j] <= rate))
                rate = r->tensor[j];
        if (!isfinite(ops)) {
            missing++;
        } else if (ops > 0 && !(rate > 0)) {
            unrated++;
        } else {
            collected++;
            if (ops > 0)
                t += ops / (rate * sms * ghz);
        }
    }
    *from = "busy";
    if (!collected || unrated)
        return busy;
    *flop_ns = t;
    if (!missing || !(busy > t)) {
        *from = "flops";
        return t;
    }
    return busy;
}

static double unit_ns(const bottleneck_row *u, const gm_bottleneck_machine *m,
                      const gm_bottleneck_units_rates *r, const gm_launch_counters *k, double ghz,
                      double sms, double *flop_ns, const char **from)
{
    *flop_ns = NAN;
    *from = "busy";
    if (u->need && !isfinite(get(k, u->need)))
        return NAN;
    switch (u->kind) {
    case BOTTLENECK_BUSY:
        return busy_ns(u, k, ghz, sms);
    case BOTTLENECK_TENSOR:
        return tensor_ns(u, r, k, ghz, sms, flop_ns, from);
    case BOTTLENECK_ISSUE: {
        /* the best issue rate the throughput suite measured (warp-instructions
         * per clock per SM), four schedulers where it has none */
        double x = m ? gm_bottleneck_curve_max(&m->issue) : NAN;
        *from = isfinite(x) ? "throughput" : "documented";
        return get(k, u->need) / ((isfinite(x) ? x : 4) * sms) / ghz;
    }
    case BOTTLENECK_TMA: {
        /* The suite's TMA rows copy without multicast, and on the H200 they
         * run at the L2's rate (tma_l2_ld 33.4 B/clk/SM, LSU loads 32.8): a
         * rate of bytes the L2 read once each.  A kernel whose TMA delivered
         * more bytes than the L2 read at all multicasts (one read, several
         * SMs of a cluster): that rate says nothing of TMA's own limit there
         * (it put cuDNN's implicit GEMMs at 1.4x their measured time), so
         * such a kernel's TMA time is its busy cycles where collected. */
        double rate = units_rate(r, 1, -1, 0), bytes =
            get(k, "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum");
        double l2_read = 32 * get(k, "lts__t_sectors_op_read.sum");
        if (isfinite(rate) && isfinite(bytes) && !(bytes > l2_read)) {
            *from = "units";
            return bytes / rate;
        }
        return busy_ns(u, k, ghz, sms);
    }
    case BOTTLENECK_L2: {
        /* The sectors the L2 itself served, reads at the load rate, writes
         * at the store rate, other ops (atomics, reductions) at the load
         * rate.  Not what the SMs requested: TMA multicast delivers one L2
         * read to several SMs of a cluster (cuBLAS's 2-SM GEMMs: requested
         * bytes 1.35-1.92x L2's reads on the H200 corpus), and the H100
         * kernel that once showed L2 counting "half" the requested sectors
         * loaded each sector twice (its .x and .w words, docs/bottleneck.md). */
        double ld, st;
        memory_rates(m, r, 1, &ld, &st, from);
        double all = 32 * get(k, u->need), rd = 32 * get(k, "lts__t_sectors_op_read.sum"),
               wr = 32 * get(k, "lts__t_sectors_op_write.sum");
        if (!isfinite(rd) || !isfinite(wr))
            return all / ld;
        double other = fmax(0, all - rd - wr);
        return (rd + other) / ld + wr / st;
    }
    case BOTTLENECK_DRAM: {
        double ld, st;
        memory_rates(m, r, 0, &ld, &st, from);
        double a = get(k, "dram__bytes_read.sum") / ld, b = get(k, "dram__bytes_write.sum") / st;
        return isfinite(a) && isfinite(b) ? a + b : NAN;
    }
    }
    return NAN;
}

size_t gm_bottleneck_units_times(const gm_bottleneck_machine *m, const gm_bottleneck_units_rates *r,
                                 const gm_launch_counters *k, double clock_ghz, double sms,
                                 gm_bottleneck_units_comp *out)
{
    size_t have = 0;
    for (size_t i = 0; i < N_UNITS; i++) {
        const bottleneck_row *u = &units[i];
        out[i] = (gm_bottleneck_units_comp){u->name, u->field, u->use_field, u->from_field, NAN,
                                            NAN, "-", u->role};
        if (!k || !(clock_ghz > 0) || !(sms > 0))
            continue;
        double flop = NAN;
        const char *from = "-";
        double t = unit_ns(u, m, r, k, clock_ghz, sms, &flop, &from);
        if (isfinite(t) && t >= 0) {
            out[i].ns = t;
            out[i].flop_ns = flop;
            out[i].from = from;
            have++;
        }
    }
    return have;
}

double gm_bottleneck_units_gmma_wavefronts(const gm_launch_counters *k)
{
    return k ? get(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum") : NAN;
}
