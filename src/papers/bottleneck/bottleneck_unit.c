/* The bottleneck unit (paper 004, Zhang & Owens): per launch, the time of
 * the instruction pipeline, shared memory and global memory from the
 * counters and the suite "throughput"; the largest is the bottleneck, the
 * others hidden under it; the paper's causes; what-if speedups.  The
 * equations are in bottleneck_model.c.  Variants: "hopper" (default: pipes
 * overlap, issue rate, launch cost) and "paper" (Sec. 4.1's linear sum).
 * The more-warps what-if takes the warps per SM the launch could reach from
 * the scheduling model (paper 003: N_slot of Eq. 3.3 from the sched data,
 * waves_model.h) where the machine has that suite, else the device maximum. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers/waves/waves_model.h"
#include "papers/waves/waves_data.h"
#include "core/memo.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "bottleneck_unit.h"
#include "bottleneck_model.h"
#include "bottleneck_units.h"
#include "bottleneck_verdict.h"

/* The metrics the unit reads, by name (gpuq/metrics.h); the pipes' come
 * from the pipe table (GM_BOTTLENECK_PIPE_ROWS, bottleneck_model.h). */
#define BOTTLENECK_INST "smsp__inst_executed.sum"
#define BOTTLENECK_SH_WF "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
#define BOTTLENECK_SH_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
#define BOTTLENECK_G_LD "smsp__inst_executed_op_global_ld.sum"
#define BOTTLENECK_G_ST "smsp__inst_executed_op_global_st.sum"
#define BOTTLENECK_G_SECT "smsp__sass_sectors_mem_global.sum"
#define BOTTLENECK_G_IDEAL "smsp__sass_sectors_mem_global_ideal.sum"
#define BOTTLENECK_DRAM_RD "dram__bytes_read.sum"
#define BOTTLENECK_DRAM_WR "dram__bytes_write.sum"
#define BOTTLENECK_L2_RD "lts__t_sectors_op_read.sum"
#define BOTTLENECK_L2_WR "lts__t_sectors_op_write.sum"
#define BOTTLENECK_ELAPSED "sm__cycles_elapsed.avg"
#define BOTTLENECK_OCC "sm__warps_active.avg.pct_of_peak_sustained_active"
#define BOTTLENECK_DURATION "gpu__time_duration.sum"
#define BOTTLENECK_G_SECT_LD_HW "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define BOTTLENECK_G_SECT_ST_HW "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"

static const char *const bottleneck_metrics[] = {
    BOTTLENECK_INST,
#define BOTTLENECK_PIPE_METRIC(id, name) "smsp__inst_executed_pipe_" #name ".sum",
    GM_BOTTLENECK_PIPE_ROWS(BOTTLENECK_PIPE_METRIC)
#undef BOTTLENECK_PIPE_METRIC
    BOTTLENECK_SH_WF,
    BOTTLENECK_SH_CONFLICTS,
    BOTTLENECK_G_LD,
    BOTTLENECK_G_ST,
    BOTTLENECK_G_SECT,
    BOTTLENECK_G_IDEAL,
    BOTTLENECK_DRAM_RD,
    BOTTLENECK_DRAM_WR,
    BOTTLENECK_L2_RD,
    BOTTLENECK_L2_WR,
    BOTTLENECK_ELAPSED,
    BOTTLENECK_OCC,
    BOTTLENECK_DURATION,
    BOTTLENECK_G_SECT_LD_HW,
    BOTTLENECK_G_SECT_ST_HW,
    /* Hopper's units (bottleneck_units.h) that fit the default set's passes
     * (6 on GH100 with or without them: validation/metric_passes); the rest
     * are opt-in (gm_bottleneck_units_metrics).  Read by name. */
    "sm__pipe_tensor_cycles_active.max",
    "sm__pipe_tensor_cycles_active.sum",
    "lts__t_sectors.sum",
    "lts__t_sectors_lookup_hit.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
    "smsp__warps_issue_stalled_long_scoreboard.sum",
    "sm__inst_issued.sum",
    "sm__pipe_alu_cycles_active.sum",
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
    "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum",
    /* wgmma's FLOPs by type (bottleneck_unit_rows.h): the tensor pipe's work */
    GM_BOTTLENECK_UNITS_TENSOR_ROWS(GM_BOTTLENECK_UNITS_DEFAULT_METRIC)
    NULL,
};

/* Launches whose results are kept (core/memo.h): a million-launch file of a
 * few kernels repeats them, and a launch is five or six predictions of the
 * model and its verdict's text.  About 3.6 KB each (the launch as key). */
#define BOTTLENECK_MEMO_LAUNCHES 256

typedef struct bottleneck_state {
    gm_bottleneck_machine mach;
    gm_bottleneck_units_rates rates; /* the suite "units" (have == 0 without it) */
    gm_bottleneck_form form;
    int have_sched;        /* sched data with state-buffer parameters was found */
    gm_waves_params sched; /* its hopper form (the one docs/diag.md shows the data needs) */
    gm_memo *memo;         /* results of launches seen (NULL: none kept) */
} bottleneck_state;

typedef struct bottleneck_result {
    int ok;
    char why[600];
    gm_bottleneck_result r;
    gm_bottleneck_whatif w;
    double measured_ns, error;
    char causes[160];
    char verdict[192];
    char more_from[96];        /* where more_warps came from */
    double occ_warps;          /* warps per SM with registers and shared memory not binding */
    double speedup_occ;
    char occ_needs[96];        /* what the launch would change to reach occ_warps */
    double nslot;              /* blocks per SM the launch can have (NaN: no sched data) */
    gm_bottleneck_verdict v;   /* the physical check and the verdict (bottleneck_verdict.h) */
    /* Hopper's units (bottleneck_units.h; NaN: not collected) */
    gm_bottleneck_units_comp bu[GM_BOTTLENECK_UNITS_MAX];
    const char *named;         /* the verdict's component, when it names one */
    const char *tied;          /* the issue slots, tied with the pipe named (NULL none) */
    double tied_ns;
} bottleneck_result;

static gm_status bottleneck_prepare(const gm_machine *m, const char *variant, void **state,
                                    gm_error *err)
{
    const gm_mdata *md = gm_machine_suite(m, "throughput");
    if (!md)
        return gm_fail(err, GM_ERR_MISSING, "bottleneck: no throughput data");
    gm_bottleneck_form form = GM_BOTTLENECK_HOPPER;
    if (variant && strcmp(variant, "paper") == 0)
        form = GM_BOTTLENECK_PAPER;
    else if (variant && strcmp(variant, "hopper") != 0)
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "unknown model variant 'bottleneck:%s' (known: hopper, paper)", variant);
    bottleneck_state *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "bottleneck: out of memory");
    gm_status st = gm_bottleneck_machine_from_mdata(md, &s->mach, err);
    if (st != GM_OK) {
        free(s);
        return st;
    }
    s->form = form;
    /* optional: without it, more warps means the device maximum */
    const gm_mdata *sd = gm_machine_suite(m, "sched");
    gm_waves_data *gd = sd ? calloc(1, sizeof *gd) : NULL;
    gm_status gst = gd ? gm_waves_data_load(sd, gd, err) : GM_ERR_MISSING;
    if (gst == GM_OK && gd->have_params) {
        s->sched = gd->form[GM_WAVES_FORM_HOPPER];
        s->have_sched = 1;
    }
    free(gd);
    /* optional: without it, the units keep the throughput suite's rates and
     * the tensor pipe its busy cycles */
    const gm_mdata *ud = gm_machine_suite(m, "units");
    gm_status ust = ud ? gm_bottleneck_units_rates_from_mdata(ud, &s->rates, err) : GM_OK;
    if (!ud)
        gm_bottleneck_units_rates_none(&s->rates);
    if (ust != GM_OK) {
        gm_bottleneck_machine_free(&s->mach);
        free(s);
        return ust;
    }
    if (gst == GM_ERR_RANGE || gst == GM_ERR_PARSE) {
        /* sched data too short for N_slot is optional; sched data out of
         * range is an input error, never silently replaced */
        gm_bottleneck_machine_free(&s->mach);
        free(s);
        return gst;
    }
    gm_error e3; /* without the memory for it, every launch is computed */
    if (gm_memo_create(gm_memo_launch_key_size(), sizeof(bottleneck_result), BOTTLENECK_MEMO_LAUNCHES,
                       &s->memo, &e3) != GM_OK)
        s->memo = NULL;
    *state = s;
    return GM_OK;
}

static void bottleneck_release(void *state)
{
    bottleneck_state *s = state;
    if (s) {
        gm_bottleneck_machine_free(&s->mach);
        gm_memo_free(s->memo);
    }
    free(s);
}

/* The table row of each name this unit reads, found once per name:
 * gm_bottleneck_launch_from_counters runs for every launch, and looking each name
 * up there took a third of gpuq model's time on a million launches; the
 * Hopper units' times (bottleneck_physics.c) read theirs so too.  The
 * names are string constants, so their addresses key the cache; a miss
 * looks the name up and keeps it (readers take no lock: a slot's row is
 * written before its name is published). */
#define BOTTLENECK_CACHE_SLOTS 256
static struct {
    const char *name;
    int row;
} bottleneck_cache[BOTTLENECK_CACHE_SLOTS];
static pthread_mutex_t bottleneck_cache_lock = PTHREAD_MUTEX_INITIALIZER;

int gm_bottleneck_metric_row(const char *name)
{
    if (!name)
        return -1;
    size_t h = (size_t)((uintptr_t)name >> 3) % BOTTLENECK_CACHE_SLOTS;
    for (size_t i = 0; i < BOTTLENECK_CACHE_SLOTS; i++) {
        size_t j = (h + i) % BOTTLENECK_CACHE_SLOTS;
        const char *n = __atomic_load_n(&bottleneck_cache[j].name, __ATOMIC_ACQUIRE);
        if (n == name)
            return bottleneck_cache[j].row;
        if (!n)
            break;
    }
    int row = gm_metric_find(name);
    pthread_mutex_lock(&bottleneck_cache_lock);
    for (size_t i = 0; i < BOTTLENECK_CACHE_SLOTS; i++) {
        size_t j = (h + i) % BOTTLENECK_CACHE_SLOTS;
        if (bottleneck_cache[j].name == name)
            break;
        if (!bottleneck_cache[j].name) {
            bottleneck_cache[j].row = row;
            __atomic_store_n(&bottleneck_cache[j].name, name, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&bottleneck_cache_lock);
    return row;
}

static double counter(const gm_launch_counters *k, const char *name)
{
    int row = gm_bottleneck_metric_row(name);
    return row >= 0 ? k->metric[row] : NAN;
}

/* The warps per SM the launch could reach (the more-warps what-if) and,
 * where registers or shared memory hold N_slot down, the warps without
 * that limit and what the launch would change to get them.  Either is
 * capped by the blocks the grid gives each SM. */
static double reachable_warps(const bottleneck_state *s, const gm_launch_counters *k, int max_warps,
                              int sm, bottleneck_result *br)
{
    double b = ceil((double)k->block[0] * k->block[1] * k->block[2] / 32);
    double G = (double)k->grid[0] * k->grid[1] * k->grid[2];
    double grid_cap = ceil(G / sm);
    br->occ_warps = br->speedup_occ = br->nslot = NAN;
    snprintf(br->occ_needs, sizeof br->occ_needs, "-");
    gm_waves_relief rel;
    if (s->have_sched && k->regs_per_thread >= 0 && k->shared_bytes >= 0 &&
        gm_waves_relief_of(&s->sched, (int)b, k->shared_bytes, k->regs_per_thread, &rel, NULL) ==
            GM_OK &&
        rel.nslot > 0) {
        char lim[48];
        gm_waves_limiter_text(rel.limiter, lim, sizeof lim);
        br->nslot = rel.nslot;
        snprintf(br->more_from, sizeof br->more_from, "sched: N_slot %d x %.0f warps (%s)%s",
                 rel.nslot, b, lim, grid_cap < rel.nslot ? ", grid-capped" : "");
        if ((rel.limiter & (GM_WAVES_LIM_REGS | GM_WAVES_LIM_SMEM)) &&
            fmin(rel.nslot_free, grid_cap) > fmin(rel.nslot, grid_cap)) {
            br->occ_warps = b * fmin(rel.nslot_free, grid_cap);
            int n = 0;
            if (k->regs_per_thread > rel.regs_max)
                n = snprintf(br->occ_needs, sizeof br->occ_needs, "registers <= %ld per thread",
                             rel.regs_max);
            if (k->shared_bytes > rel.smem_max && n >= 0 && (size_t)n < sizeof br->occ_needs)
                snprintf(br->occ_needs + n, sizeof br->occ_needs - (size_t)n,
                         "%sshared <= %ld B per block", n ? ", " : "", rel.smem_max);
        }
        return b * fmin(rel.nslot, grid_cap);
    }
    snprintf(br->more_from, sizeof br->more_from, "device maximum (%s)",
             s->have_sched ? "launch resources unknown" : "no sched data");
    return fmin(max_warps, b * grid_cap);
}

/* A launch's counters as the model's launch (paper 004, Sec. 3: dynamic
 * instruction and transaction counts, warps per SM, launch shape).  One
 * mapping for the report and for validation/bottleneck/bn_compare.c. */
void gm_bottleneck_launch_from_counters(const gm_launch_counters *k, int max_warps_per_sm,
                                        int ideal_from_lsu, gm_bottleneck_launch *l)
{
    gm_bottleneck_launch_init(l);
    l->inst_total = counter(k, BOTTLENECK_INST);
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        l->inst[p] = counter(k, gm_bottleneck_pipe_metric(p));
    l->shared_wavefronts = counter(k, BOTTLENECK_SH_WF);
    /* without conflicts: wavefronts less the conflict counter (it matched the
     * simulator's difference on every shared pattern, docs/bottleneck.md) */
    l->shared_ideal = l->shared_wavefronts - counter(k, BOTTLENECK_SH_CONFLICTS);
    /* wgmma reads its operands from shared memory: the tensor pipe's feed,
     * not LSU traffic, so not the shared-memory component's (where counted) */
    double gmma = gm_bottleneck_units_gmma_wavefronts(k);
    if (isfinite(gmma) && gmma > 0) {
        l->shared_wavefronts = fmax(0, l->shared_wavefronts - gmma);
        l->shared_ideal = fmin(l->shared_ideal, l->shared_wavefronts);
    }
    l->global_inst = counter(k, BOTTLENECK_G_LD) + counter(k, BOTTLENECK_G_ST);
    /* an ncu run without the conflict counter: the shared instructions stand in
     * for conflict-free wavefronts (validation of old recordings only) */
    if (!isfinite(l->shared_ideal) && ideal_from_lsu)
        l->shared_ideal = counter(k, gm_bottleneck_pipe_metric(GM_BOTTLENECK_LSU)) - l->global_inst;
    l->global_sectors = counter(k, BOTTLENECK_G_SECT);
    /* gpuq profile has no SASS-instrumented sector count: the L1 hardware
     * counters of the same requests stand in (ncu CSV input has both) */
    if (isnan(l->global_sectors))
        l->global_sectors =
            counter(k, BOTTLENECK_G_SECT_LD_HW) + counter(k, BOTTLENECK_G_SECT_ST_HW);
    l->global_sectors_ideal = counter(k, BOTTLENECK_G_IDEAL);
    l->dram_read_bytes = counter(k, BOTTLENECK_DRAM_RD);
    l->dram_write_bytes = counter(k, BOTTLENECK_DRAM_WR);
    l->l2_write_bytes = 32 * counter(k, BOTTLENECK_L2_WR);
    /* L2 reads as the suite counts them: what the SMs request (L1-side
     * sectors), not the L2 tag count, which on H100 showed half of an
     * L2-resident kernel's .cg sectors (docs/bottleneck.md) */
    l->l2_read_bytes = fmax(32 * counter(k, BOTTLENECK_L2_RD),
                            32 * l->global_sectors - l->l2_write_bytes);
    l->warps_per_sm = counter(k, BOTTLENECK_OCC) / 100.0 * max_warps_per_sm;
    l->blocks = (double)k->grid[0] * k->grid[1] * k->grid[2];
    l->threads_per_block = (double)k->block[0] * k->block[1] * k->block[2];
    l->clock_ghz = counter(k, BOTTLENECK_ELAPSED) / counter(k, BOTTLENECK_DURATION);
    /* summed rows: the clock is cycles per ns either way; the launch term is per launch */
    l->launches = k->summed > 1 ? k->summed : 1;
}

gm_status gm_bottleneck_wave_init(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                  const gm_launch_counters *k, int max_warps_per_sm, int sm_count,
                                  gm_bottleneck_wave *w, gm_error *err)
{
    if (!m || !k || !w || sm_count < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bottleneck: bad arguments to the wave cost");
    memset(w, 0, sizeof *w);
    w->m = m;
    w->form = form;
    w->sm_count = sm_count;
    gm_bottleneck_launch_from_counters(k, max_warps_per_sm, 0, &w->l);
    double n = w->l.launches >= 1 ? w->l.launches : 1;
    w->warps_per_block = ceil(w->l.threads_per_block / 32);
    w->warps = w->l.blocks * w->warps_per_block * n;
    if (!isfinite(w->l.inst_total) || !(w->warps > 0))
        return gm_fail(err, GM_ERR_MISSING, "bottleneck: no instruction counters for the wave cost");
    w->sm_warps = ceil(w->l.blocks / sm_count) * w->warps_per_block * n;
    gm_bottleneck_units_comp bu[GM_BOTTLENECK_UNITS_MAX];
    double sms = w->l.blocks < sm_count ? w->l.blocks : sm_count;
    /* the throughput suite's rates only: the waves section does not load the
     * units suite (busy cycles stand for the tensor pipe and TMA) */
    gm_bottleneck_units_times(m, NULL, k, w->l.clock_ghz, sms, bu);
    w->sm_units_ns = w->gpu_units_ns = 0;
    for (size_t i = 0; i < gm_bottleneck_units_count() && form == GM_BOTTLENECK_HOPPER; i++) {
        if (!isfinite(bu[i].ns))
            continue;
        int gpu_wide = strcmp(bu[i].name, "l2") == 0 || strcmp(bu[i].name, "dram") == 0;
        double *t = gpu_wide ? &w->gpu_units_ns : &w->sm_units_ns;
        *t = fmax(*t, bu[i].ns);
    }
    return GM_OK;
}

/* W(c), of every component or (sm_only) of the per-SM ones */
static double wave_busy(const void *ctx, double c, double sms, int sm_only)
{
    const gm_bottleneck_wave *w = ctx;
    if (!w || !(c > 0) || !(sms > 0))
        return NAN;
    /* one wave's share of the launch's counts: c x sms of its warps */
    double f = c * sms / w->warps;
    gm_bottleneck_launch l = w->l;
    double *counts[] = {&l.inst_total, &l.shared_wavefronts, &l.shared_ideal, &l.global_inst,
                        &l.global_sectors, &l.global_sectors_ideal, &l.dram_read_bytes,
                        &l.dram_write_bytes, &l.l2_read_bytes, &l.l2_write_bytes};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        *counts[i] *= f;
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        l.inst[p] *= f;
    l.warps_per_sm = c;
    /* the blocks spread over exactly `sms` SMs (the model spreads them over
     * min(blocks, SMs)); a wave on fewer SMs than the GPU has holds one
     * block each, whatever its size */
    l.blocks = sms < w->sm_count ? sms : fmax(sms, c * sms / w->warps_per_block);
    l.launches = 1;
    gm_bottleneck_result r;
    gm_error e;
    if (gm_bottleneck_predict(w->m, w->form, w->sm_count, &l, &r, &e) != GM_OK)
        return NAN;
    double t = NAN;
    for (int p = 0; p < GM_BOTTLENECK_PARTS; p++)
        if (isfinite(r.t[p]) && !(r.t[p] <= t) && !(sm_only && p == GM_BOTTLENECK_GLOBAL))
            t = r.t[p];
    /* Hopper's units take their share at their own rate: per SM the wave's
     * c of the busiest SM's warps, GPU-wide its share of all of them */
    double units = w->sm_units_ns * c / w->sm_warps;
    if (!sm_only)
        units = fmax(units, w->gpu_units_ns * f);
    return isfinite(t) ? fmax(t, units) : NAN;
}

double gm_bottleneck_wave_busy_ns(const void *ctx, double c, double sms)
{
    return wave_busy(ctx, c, sms, 0);
}

double gm_bottleneck_wave_sm_busy_ns(const void *ctx, double c, double sms)
{
    return wave_busy(ctx, c, sms, 1);
}

/* The busiest pipe of the instruction part, at its rate (NaN: none timed). */
static double busiest_pipe_ns(const gm_bottleneck_result *r)
{
    double t = NAN;
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        if (p != GM_BOTTLENECK_FMAHEAVY && isfinite(r->t_pipe[p]) && !(r->t_pipe[p] <= t))
            t = r->t_pipe[p];
    return t;
}

/* The physical check and the verdict (bottleneck_verdict.h): the model's
 * components, the same at the best rates the suite measured (the launch at
 * the device's warps per SM, where every curve has levelled off), the
 * warp states and what the launch could have. */
static void bottleneck_decide(const bottleneck_state *s, const gm_launch_counters *k,
                              const gm_bottleneck_launch *l, int max_warps, int sm, double more,
                              gm_bottleneck_memo *memo, bottleneck_result *br)
{
    gm_bottleneck_verdict_input in;
    gm_bottleneck_verdict_input_init(&in);
    in.measured_ns = br->measured_ns;
    gm_bottleneck_launch best = *l;
    best.warps_per_sm = max_warps;
    gm_bottleneck_result rb;
    gm_error e2;
    int have_best = gm_bottleneck_predict_memo(&s->mach, s->form, sm, &best, memo, &rb,
                                               &e2) == GM_OK;
    /* Shared memory at its best rate, as every unit of the hopper form, in
     * the verdict, the prediction and the field (its what-ifs, computed
     * before, keep the curve): one unit per SM that every scheduler's warps
     * share (a pipe's rate at c warps is bounded by the schedulers they sit
     * on: the instruction part keeps the curve), and what a kernel reaches at
     * few warps is its requests in flight per warp, which the suite's copy
     * kernel does not know.  The curve over the warps took cuBLAS's fp32
     * GEMM (1.8 shared loads in flight per warp, 8 warps per SM) to 95% of
     * "its" rate where ncu had L1 at 59% and the issue at 87%, and the 8-
     * and 32-way conflicted validation kernels to 1.3-5.7x their time
     * (docs/bottleneck.md, "Shared memory at its best rate"). */
    if (s->form == GM_BOTTLENECK_HOPPER && have_best)
        br->r.t[GM_BOTTLENECK_SHARED] = rb.t[GM_BOTTLENECK_SHARED];
    /* Hopper's units (hopper form, where collected): their rates are the
     * units' own, so with L2 and DRAM timed the LSU curve's global time is
     * not a component of the verdict (it stays in the fields) */
    size_t n_bu = 0;
    if (s->form == GM_BOTTLENECK_HOPPER)
        n_bu = gm_bottleneck_units_times(&s->mach, &s->rates, k, l->clock_ghz, br->r.sms, br->bu);
    else
        gm_bottleneck_units_times(&s->mach, NULL, NULL, NAN, NAN, br->bu);
    int memory_units = 0;
    for (size_t i = 0; i < gm_bottleneck_units_count(); i++)
        memory_units += isfinite(br->bu[i].ns) &&
                        (strcmp(br->bu[i].name, "l2") == 0 || strcmp(br->bu[i].name, "dram") == 0);
    for (int p = 0; p < GM_BOTTLENECK_PARTS; p++) {
        if (p == GM_BOTTLENECK_GLOBAL && memory_units == 2)
            continue;
        in.comp_name[in.n_comp] = gm_bottleneck_part_name(p);
        /* its pipes' own work: the busiest at its rate, no issue term */
        if (p == GM_BOTTLENECK_INST)
            in.comp_pipe_ns[in.n_comp] = busiest_pipe_ns(&br->r);
        in.comp_ns[in.n_comp] = br->r.t[p];
        in.comp_best_ns[in.n_comp] = have_best ? rb.t[p] : NAN;
        in.n_comp++;
    }
    for (size_t i = 0; n_bu && i < gm_bottleneck_units_count() && in.n_comp < GM_BOTTLENECK_VERDICT_MAX_COMP; i++)
        if (isfinite(br->bu[i].ns)) {
            in.comp_name[in.n_comp] = br->bu[i].name;
            in.comp_issue[in.n_comp] = br->bu[i].role == GM_BOTTLENECK_UNITS_ISSUE;
            if (br->bu[i].role == GM_BOTTLENECK_UNITS_PIPE)
                in.comp_pipe_ns[in.n_comp] = br->bu[i].ns;
            in.comp_ns[in.n_comp] = in.comp_best_ns[in.n_comp] = br->bu[i].ns;
            in.n_comp++;
        }
    in.launch_ns = s->mach.launch_ns > 0 ? s->mach.launch_ns : NAN;
    in.queued_ns = s->mach.queued_ns;
    in.graph_ns = s->mach.graph_ns;
    in.graph_gap_ns = s->mach.graph_gap_ns;
    in.launches = l->launches;
    /* the warp states add up every launch of a summed row: so do the warps */
    in.warps_launched = l->blocks * ceil(l->threads_per_block / 32) *
                        (l->launches >= 1 ? l->launches : 1);
    in.clock_ghz = l->clock_ghz;
    /* resident warp-cycles: warps per active cycle x active cycles, all SMs */
    in.warp_cycles = gm_bottleneck_verdict_warp_cycles(
        counter(k, "sm__warps_active.avg.pct_of_peak_sustained_active"), max_warps,
        counter(k, "sm__cycles_active.sum"));
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_STALLS; i++)
        in.stall[i] = counter(k, gm_bottleneck_verdict_stall_metric(i));
    in.warps_per_sm = l->warps_per_sm;
    in.reachable_warps = more;
    in.reachable_from = br->more_from;
    in.blocks = l->blocks;
    in.blocks_per_wave = br->nslot > 0 ? br->nslot * sm : NAN;
    in.sm_count = sm;
    if (gm_bottleneck_verdict_decide(&in, &br->v, &e2) != GM_OK)
        br->v.kind = GM_BOTTLENECK_VERDICT_UNDECIDED;
    br->named = br->v.comp >= 0 ? in.comp_name[br->v.comp] : NULL;
    br->tied = br->v.tied >= 0 ? in.comp_name[br->v.tied] : NULL;
    br->tied_ns = br->v.tied >= 0 ? in.comp_ns[br->v.tied] : NAN;
    /* A unit-bound launch's prediction (hopper form) is the launch term and
     * the largest of the components the physical check weighs: shared
     * memory at its best rate, and with Hopper's units timed L2 and DRAM at
     * their own rates in place of the LSU curve's global part, which cannot
     * see TMA's bytes in flight (it put cuDNN's implicit GEMMs at 8484 us
     * for 154 us measured), and the units' own times beside the paper's
     * parts.  A latency-bound one keeps the paper's curves over the warps,
     * which hold its latency (a bound at the units' best rates does not). */
    if (s->form == GM_BOTTLENECK_HOPPER && br->v.kind == GM_BOTTLENECK_VERDICT_UNIT &&
        isfinite(br->r.predicted)) {
        double top = NAN;
        for (size_t c = 0; c < in.n_comp; c++)
            if (isfinite(in.comp_ns[c]) && !(in.comp_ns[c] <= top))
                top = in.comp_ns[c];
        if (isfinite(top)) {
            br->r.predicted = br->r.t_launch + top;
            br->error = (br->r.predicted - br->measured_ns) / br->measured_ns;
        }
    }
}

/* One launch's result (bottleneck_apply computes it or finds it in the memo). */
static void bottleneck_compute(const bottleneck_state *s, const gm_counters_meta *meta,
                       const gm_launch_counters *k, bottleneck_result *br)
{
    memset(br, 0, sizeof *br);
    /* the units' names, times NaN */
    gm_bottleneck_units_times(&s->mach, NULL, NULL, NAN, NAN, br->bu);
    gm_bottleneck_launch l;
    int max_warps = meta->max_warps_per_sm > 0 ? meta->max_warps_per_sm : s->mach.max_warps_per_sm;
    gm_bottleneck_launch_from_counters(k, max_warps, 0, &l);
    br->measured_ns = counter(k, BOTTLENECK_DURATION);
    int sm = meta->sm_count > 0 ? meta->sm_count : s->mach.sm_count;
    gm_error e2;
    if (!isfinite(l.inst_total) || !(l.blocks > 0)) {
        snprintf(br->why, sizeof br->why, "not modelled: instruction counters missing");
        return;
    }
    double more = reachable_warps(s, k, max_warps, sm, br);
    gm_bottleneck_memo memo = {0}; /* every prediction of this launch shares its global points */
    if (gm_bottleneck_predict_memo(&s->mach, s->form, sm, &l, &memo, &br->r, &e2) != GM_OK ||
        gm_bottleneck_whatif_all_memo(&s->mach, s->form, sm, &l, more, &memo, &br->w,
                                      &e2) != GM_OK) {
        snprintf(br->why, sizeof br->why, "not modelled: %s", e2.msg);
        return;
    }
    if (isfinite(br->occ_warps)) {
        gm_bottleneck_launch c = l;
        gm_bottleneck_result ro;
        c.warps_per_sm = br->occ_warps;
        if (gm_bottleneck_predict_memo(&s->mach, s->form, sm, &c, &memo, &ro, &e2) == GM_OK)
            br->speedup_occ = br->r.predicted / ro.predicted;
    }
    br->ok = br->r.bottleneck >= 0;
    br->error = (br->r.predicted - br->measured_ns) / br->measured_ns;
    bottleneck_decide(s, k, &l, max_warps, sm, more, &memo, br);
    gm_bottleneck_causes_text(br->r.causes, br->causes, sizeof br->causes);
    if (br->ok && br->v.kind != GM_BOTTLENECK_VERDICT_UNIT && br->v.kind != GM_BOTTLENECK_VERDICT_UNDECIDED) {
        /* launch, latency or a model error: the largest component is not
         * what holds the kernel up (bottleneck_verdict.h) */
        snprintf(br->verdict, sizeof br->verdict, "%s", br->v.text);
    } else if (br->ok && br->v.kind == GM_BOTTLENECK_VERDICT_UNIT && br->named &&
               gm_bottleneck_part_name(br->r.bottleneck) != br->named) {
        /* one of Hopper's units: its time is at its own best rate */
        snprintf(br->verdict, sizeof br->verdict,
                 "%s is the bottleneck (%.1f us of %.1f measured: %.0f%% of its best rate)",
                 br->named, br->v.share * br->measured_ns / 1e3, br->measured_ns / 1e3,
                 100 * br->v.share);
    } else if (br->ok) {
        static const char *const what[] = {"the instruction pipeline", "shared memory",
                                           "global memory"};
        /* the named part's own time where the physical check timed it (the
         * paper form's prediction combines the parts and may pass the
         * measured time where no part does: 381 us "of 328 measured" for a
         * cuBLAS fp32 GEMM whose shared part took 294) */
        int own = br->v.kind == GM_BOTTLENECK_VERDICT_UNIT && isfinite(br->v.share) && isfinite(br->measured_ns);
        int n = snprintf(br->verdict, sizeof br->verdict, "%s is the bottleneck (%.1f us",
                         what[br->r.bottleneck],
                         (own ? br->v.share * br->measured_ns : br->r.predicted) / 1e3);
        if (isfinite(br->measured_ns) && n > 0 && (size_t)n < sizeof br->verdict)
            n += snprintf(br->verdict + n, sizeof br->verdict - (size_t)n, " of %.1f measured",
                          br->measured_ns / 1e3);
        if (n > 0 && (size_t)n < sizeof br->verdict)
            snprintf(br->verdict + n, sizeof br->verdict - (size_t)n, ")%s%s", br->causes[0] ? ": " : "",
                     br->causes);
    } else {
        snprintf(br->why, sizeof br->why, "not modelled: no component could be timed");
    }
    size_t used = strlen(br->verdict);
    if (br->tied && used + 1 < sizeof br->verdict)
        snprintf(br->verdict + used, sizeof br->verdict - used, "; %s tied (%.1f us)", br->tied,
                 br->tied_ns / 1e3);
}

/* bottleneck_compute as the cache calls it (gm_memo_launch) */
static void bottleneck_compute_any(const void *state, const gm_counters_meta *meta,
                       const gm_launch_counters *k, void *result)
{
    bottleneck_compute(state, meta, k, result);
}

static gm_status bottleneck_apply(const void *state, const gm_counters_meta *meta,
                                  const gm_launch_counters *k, void *result, gm_error *err)
{
    const bottleneck_state *s = state;
    bottleneck_result *br = result;
    if (!s || !k || !br || !meta)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bottleneck: no state, launch or result");
    /* the result depends on the launch's counters, shape and resources and
     * the header's SM count and warps per SM, all in the key (its texts
     * point into the tables, not into the result): one seen is the same */
    gm_memo_launch(s->memo, meta, k, bottleneck_compute_any, s, br);
    return GM_OK;
}

static size_t bottleneck_fields(const void *state, const void *result, gm_field *out, size_t max)
{
    (void)state;
    const bottleneck_result *b = result;
    const gm_bottleneck_result *r = &b->r;
    size_t n = 0;
    double us = 1e-3;
    int ok = b->ok;
#define NUM(nm, v, w, h) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_NUM, ok ? (v) : NAN, NULL, (w), (h), 0}
#define TXT(nm, t, w, h) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_TEXT, NAN, (t), (w), (h), 0}
    const gm_bottleneck_verdict *v = &b->v;
    /* a model error leaves no prediction to show (bottleneck_verdict.h) */
    int fits = ok && v->n_over == 0;
    const char *named = !ok                       ? "-"
                        : v->kind == GM_BOTTLENECK_VERDICT_LAUNCH  ? "launch"
                        : v->kind == GM_BOTTLENECK_VERDICT_LATENCY ? "latency"
                        : v->kind == GM_BOTTLENECK_VERDICT_MISFIT  ? "misfit"
                        : v->kind == GM_BOTTLENECK_VERDICT_UNIT && b->named ? b->named
                                                    : gm_bottleneck_part_name(r->bottleneck);
    TXT("bottleneck", named, 11, NULL);
    NUM("predicted_us", fits ? r->predicted * us : NAN, 9, "pred us");
    NUM("measured_us", b->measured_ns * us, 9, "meas us");
    NUM("error", fits ? b->error : NAN, 0, NULL);
    NUM("inst_us", r->t[GM_BOTTLENECK_INST] * us, 8, "inst us");
    NUM("shared_us", r->t[GM_BOTTLENECK_SHARED] * us, 8, "smem us");
    NUM("global_us", r->t[GM_BOTTLENECK_GLOBAL] * us, 8, "glob us");
    NUM("issue_us", r->t_issue * us, 0, NULL);
    NUM("launch_us", r->t_launch * us, 0, NULL);
    static const char *const pipe_field[GM_BOTTLENECK_PIPES] = {
#define BOTTLENECK_PIPE_FIELD(id, name) #name "_us",
        GM_BOTTLENECK_PIPE_ROWS(BOTTLENECK_PIPE_FIELD)
#undef BOTTLENECK_PIPE_FIELD
    };
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        NUM(pipe_field[p], r->t_pipe[p] * us, 0, NULL);
    NUM("warps_per_sm", r->warps, 6, "warps");
    NUM("global_gbps", r->global_bw, 0, NULL);
    TXT("next", ok && r->next >= 0 ? gm_bottleneck_part_name(r->next) : "-", 0, NULL);
    NUM("speedup_next", r->speedup_next, 0, NULL);
    NUM("speedup_no_conflicts", b->w.speedup_no_conflicts, 7, "x noBC");
    NUM("speedup_coalesced", b->w.speedup_coalesced, 7, "x coal");
    NUM("more_warps", b->w.more_warps, 0, NULL);
    NUM("speedup_more_warps", b->w.speedup_more_warps, 7, "x warps");
    TXT("more_warps_from", b->more_from, 0, NULL);
    NUM("occ_free_warps", b->occ_warps, 0, NULL);
    NUM("speedup_occ_free", b->speedup_occ, 0, NULL);
    TXT("occ_needs", b->occ_needs, 0, NULL);
    TXT("causes", ok ? b->causes : b->why, 0, NULL);
    TXT("form", r->form == GM_BOTTLENECK_PAPER ? "paper" : "hopper", 0, NULL);
    /* the physical check and the verdict (bottleneck_verdict.h) */
    TXT("verdict", ok ? gm_bottleneck_verdict_kind_name(v->kind) : "-", 0, NULL);
    TXT("model_error", ok ? v->model_error : "", 0, NULL);
    NUM("spread_us", v->spread_ns * us, 0, NULL);
    NUM("share", v->share, 0, NULL);
    TXT("wait_on", ok && v->wait >= 0 ? gm_bottleneck_verdict_stall_name(v->wait) : "-", 0, NULL);
    NUM("wait_share", v->wait_share, 0, NULL);
    NUM("uncollected_share", v->uncollected, 0, NULL);
    TXT("busiest", ok && v->busiest >= 0 ? gm_bottleneck_part_name(v->busiest) : "-", 0, NULL);
    NUM("busiest_use", v->busiest_use, 0, NULL);
    NUM("need_warps", v->need_warps, 0, NULL);
    NUM("need_ilp", v->need_ilp, 0, NULL);
    NUM("wave_fill", v->wave_fill, 0, NULL);
    NUM("warp_latency_us", v->warp_latency_ns * us, 0, NULL);
    NUM("speedup_x2", v->speedup_x2, 0, NULL);
    NUM("speedup_x4", v->speedup_x4, 0, NULL);
    NUM("speedup_reach", v->speedup_reach, 0, NULL);
    NUM("fused_step_us", v->fused_step_ns * us, 0, NULL);
    NUM("speedup_fused", v->speedup_fused, 0, NULL);
    NUM("speedup_graph", v->speedup_graph, 0, NULL);
    TXT("fix", ok ? v->fix : "", 0, NULL);
    double flop_ns = NAN;
    for (size_t i = 0; i < gm_bottleneck_units_count(); i++) {
        NUM(b->bu[i].field, b->bu[i].ns * us, 0, NULL);
        NUM(b->bu[i].use_field, b->bu[i].ns / b->measured_ns, 0, NULL);
        TXT(b->bu[i].from_field, ok && isfinite(b->bu[i].ns) ? b->bu[i].from : "-", 0, NULL);
        if (strcmp(b->bu[i].name, "tensor") == 0)
            flop_ns = b->bu[i].flop_ns;
    }
    /* the tensor pipe's FLOPs against the rate this GPU sustains, also where
     * its busy cycles are its time (mma.sync's FLOPs not collected) */
    NUM("tensor_flop_use", flop_ns / b->measured_ns, 0, NULL);
#undef NUM
#undef TXT
    return n;
}

static void bottleneck_unit_verdict(const void *state, const void *result, gm_unit_verdict *out)
{
    (void)state;
    const bottleneck_result *b = result;
    /* Severity: the bottleneck's share of the measured time (it is the
     * component the launch waits on; 1 when the model accounts for it all). */
    out->severity = b->ok && b->measured_ns > 0
                        ? fmin(1.0, b->r.t[b->r.bottleneck] / b->measured_ns)
                        : NAN;
    if (b->ok && b->v.kind == GM_BOTTLENECK_VERDICT_UNIT)
        out->severity = fmin(1.0, b->v.share);
    /* launch bound: the launch holds it up whole; latency bound: the part
     * no unit accounts for; a model error outranks every other verdict of
     * the launch, since this section's numbers cannot be trusted for it */
    if (b->ok && b->v.kind == GM_BOTTLENECK_VERDICT_LAUNCH)
        out->severity = 1;
    else if (b->ok && b->v.kind == GM_BOTTLENECK_VERDICT_LATENCY)
        out->severity = isfinite(b->v.share) ? 1 - b->v.share : 1;
    else if (b->ok && b->v.kind == GM_BOTTLENECK_VERDICT_MISFIT)
        out->severity = 1;
    const char *t = b->ok ? b->verdict : b->why;
    size_t len = strlen(t);
    if (len >= sizeof out->text)
        len = sizeof out->text - 1;
    memcpy(out->text, t, len);
    out->text[len] = '\0';
}

static void bottleneck_text_notes(FILE *out, const void *state, unsigned notes)
{
    (void)notes;
    const bottleneck_state *s = state;
    fprintf(out, "  - %s form: %s; predicted = the largest component (full overlap, Sec. 3)\n",
            s->form == GM_BOTTLENECK_PAPER ? "paper" : "hopper",
            s->form == GM_BOTTLENECK_PAPER ? "instruction time = sum over pipes of N / X(w) (Sec. 4.1)"
                                   : "instruction time = slowest pipe or the issue rate, plus "
                                     "one empty launch");
    if (s->have_sched)
        fprintf(out, "  - x noBC: without bank conflicts; x coal: perfectly coalesced; x warps: at "
                     "the warps per SM the launch can reach, N_slot x warps per block (sched "
                     "data, Eq. 3.3 of paper 003), capped by the grid's blocks per SM\n");
    else
        fprintf(out, "  - x noBC: without bank conflicts; x coal: perfectly coalesced; x warps: at "
                     "%d warps per SM (the device maximum: no sched data), capped by the grid's "
                     "blocks per SM\n",
                s->mach.max_warps_per_sm);
    /* the verdicts (bottleneck_verdict.h), with the numbers they use */
    fprintf(out, "  - misfit: a component above the measured time by more than max(%.0f%%, %.2f us) "
                 "(the spread of repeated launches) is a model error, named in the verdict, and "
                 "leaves no prediction; ",
            100 * GM_BOTTLENECK_VERDICT_SPREAD_REL, GM_BOTTLENECK_VERDICT_SPREAD_NS / 1e3);
    if (s->mach.launch_ns > 0)
        fprintf(out, "launch: no longer than an empty launch (%.2f us) and that spread; ",
                s->mach.launch_ns / 1e3);
    fprintf(out, "latency: no component at %.0f%% of the measured time\n",
            100 * GM_BOTTLENECK_VERDICT_BUSY_SHARE);
}

static const char *const bottleneck_suites[] = {"throughput", NULL};
static const char *const bottleneck_optional[] = {"sched", "units", NULL};

const gm_unit gm_unit_bottleneck = {
    .name = "bottleneck",
    .title = "bottleneck",
    .paper = "Zhang & Owens, throughput model of the instruction pipeline, shared and global "
             "memory (paper 004, Sec. 3-4)",
    .metrics = bottleneck_metrics,
    .suites = bottleneck_suites,
    .variants = "hopper,paper",
    .result_size = sizeof(bottleneck_result),
    .prepare = bottleneck_prepare,
    .release = bottleneck_release,
    .apply = bottleneck_apply,
    .free_result = NULL,
    .fields = bottleneck_fields,
    .verdict = bottleneck_unit_verdict,
    .text_notes = bottleneck_text_notes,
    .json_extra = NULL,
    .optional_suites = bottleneck_optional,
    .opt_in_metrics = gm_bottleneck_units_metrics,
};
