/* The "blocks and waves" unit (paper 003, GPUDIAG): per launch, N_slot from
 * the sched machine data and the launch's block size, registers and shared
 * memory (Eq. 3.3), what limits it, the waves G / (n_mp N_slot), the last
 * wave's fill, and Eq. 3.2's time at other grid and block sizes, scaled by
 * the launch's measured time.  The equations are in waves_model.c; the machine
 * data is read by waves_data.c.
 *
 * Variants: "hopper" (default: 1 KiB reserved shared memory per block and
 * four register-file partitions, which explain every measured point on the
 * H100), "paper" (Eq. 3.3 as printed) and "refill" (hopper's N_slot, and the
 * what-if times with the busiest SM's share of a partial wave when the
 * block scheduler refills slots in random order, waves_refill.h, with the
 * FFMA kernel's mixing from its per-block logs; docs/diag.md).  The time
 * predictions of hopper and paper cost each wave with the kernel's own
 * components and latency where the throughput data and the bottleneck's
 * counters are there, else with the FFMA curve, and never go below one
 * wave's time (waves_shape.h); refill keeps the FFMA curve scaled by the
 * launch's time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waves_data.h"
#include "waves_refill.h"
#include "waves_shape.h"
#include "papers/bottleneck/bottleneck_unit.h"
#include "papers/bottleneck/bottleneck_verdict.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"
#include "core/memo.h"
#include "core/writer.h"

static const char *const waves_metrics[] = {"gpu__time_duration.sum", NULL};
static const char *const waves_suites[] = {"sched", NULL};
/* the kernel's own cost of a wave for the launch-shape what-ifs (waves_shape.h) */
static const char *const waves_optional[] = {"throughput", NULL};
/* Launches whose results are kept (core/memo.h): a million-launch file of a
 * few kernels repeats them, and a launch's what-ifs ask the throughput
 * model for up to a score of wave costs (four for a hist_add launch).
 * About 1.1 KB each (the launch as key). */
#define WV_MEMO_LAUNCHES 256

typedef struct waves_state {
    gm_waves_form form;
    int refill;                 /* what-ifs with the random refill (variant "refill") */
    gm_waves_data data;
    const gm_waves_op *fu;      /* the curve the time predictions use */
    int max_b;                  /* warps per block the launch limit allows */
    int row_dur;
    char source[160];
    int have_tp;                /* throughput data: the kernel's own wave cost */
    gm_bottleneck_machine tp;
    /* the warp states' and the clock's rows */
    int row_elapsed, row_stall[GM_BOTTLENECK_VERDICT_STALLS];
    int row_warps_active, row_cycles_active; /* the warps' lifetime */
    gm_memo *memo;              /* results of launches seen (NULL: none kept) */
} waves_state;

typedef struct waves_result {
    double G, b, regs, smem, nslot, occ, waves, tail, T_us;
    double t_2G, t_halfG, t_2b, t_halfb; /* us, Eq. 3.2 scaled by T_us */
    double floor_us;                     /* one wave's time at the least (waves_shape.h) */
    const char *from;                    /* what the wave cost came from */
    char limiter[48], verdict[192];
    double severity;
} waves_result;

static gm_status waves_prepare(const gm_machine *m, const char *variant, void **state,
                               gm_error *err)
{
    if (!state)
        return gm_fail(err, GM_ERR_INVALID_ARG, "waves: no state");
    gm_waves_form form = GM_WAVES_FORM_HOPPER;
    int refill = variant && strcmp(variant, "refill") == 0;
    if (variant && !refill && gm_waves_form_parse(variant, &form) != GM_OK)
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "unknown model variant 'waves:%s' (known: hopper, paper, refill)", variant);
    const gm_mdata *md = m ? gm_machine_suite(m, "sched") : NULL;
    if (!md)
        return gm_fail(err, GM_ERR_MISSING, "waves: no machine data (gpuq calibrate --suite sched)");
    waves_state *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "waves: out of memory");
    gm_status st = gm_waves_data_load(md, &s->data, err);
    if (st == GM_OK && !s->data.have_params)
        st = gm_fail(err, GM_ERR_MISSING, "waves: the sched machine data has no state-buffer "
                                          "parameters (gpuq calibrate --suite sched)");
    if (st != GM_OK) {
        free(s);
        return st;
    }
    s->form = form;
    s->refill = refill;
    s->fu = gm_waves_data_op(&s->data, "ffma");
    double ltb = gm_waves_data_param(md, "L_T_B", NULL, NULL);
    s->max_b = ltb > 0 ? (int)ltb / 32 : s->data.form[form].N2;
    s->row_dur = gm_metric_find(waves_metrics[0]);
    const gm_mdata *tp = gm_machine_suite(m, "throughput");
    gm_error e2;
    s->have_tp = tp && gm_bottleneck_machine_from_mdata(tp, &s->tp, &e2) == GM_OK;
    snprintf(s->source, sizeof s->source, "%.60s, %.40s", md->meta.gpu_name, md->meta.date);
    s->row_elapsed = gm_metric_find("sm__cycles_elapsed.avg");
    s->row_warps_active = gm_metric_find("sm__warps_active.avg.pct_of_peak_sustained_active");
    s->row_cycles_active = gm_metric_find("sm__cycles_active.sum");
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_STALLS; i++)
        s->row_stall[i] = gm_bottleneck_verdict_stall_metric(i) ? gm_metric_find(gm_bottleneck_verdict_stall_metric(i)) : -1;
    /* without the memory for it, every launch is computed */
    if (gm_memo_create(gm_memo_launch_key_size(), sizeof(waves_result), WV_MEMO_LAUNCHES, &s->memo,
                       &e2) != GM_OK)
        s->memo = NULL;
    *state = s;
    return GM_OK;
}

static void waves_release(void *state)
{
    waves_state *s = state;
    if (s && s->have_tp)
        gm_bottleneck_machine_free(&s->tp);
    if (s)
        gm_memo_free(s->memo);
    free(state);
}

static double counter(const gm_launch_counters *k, int row)
{
    return row >= 0 ? k->metric[row] : NAN;
}

/* The launch-shape what-ifs with the kernel's own wave cost and latency
 * (waves_shape.h): the components where the counters and the throughput
 * data are there, else the suite's FFMA fu(c); the floor from the warp
 * states.  Per launch, times the launches a summed row adds up. */
static void shape_whatifs(const waves_state *s, const gm_counters_meta *meta,
                          const gm_launch_counters *k, waves_result *r, int N)
{
    const gm_waves_params *p = &s->data.form[s->form];
    double n = k->summed > 1 ? k->summed : 1;
    gm_bottleneck_wave wave;
    gm_waves_busy_memo memo;
    memo.ctx = NULL;
    memo.n = 0; /* this launch's wave costs, shared by its fit and its what-ifs */
    gm_error e;
    int max_warps = meta && meta->max_warps_per_sm > 0 ? meta->max_warps_per_sm : p->N2;
    int kernel = s->have_tp &&
                 gm_bottleneck_wave_init(&s->tp, GM_BOTTLENECK_HOPPER, k, max_warps, p->n_mp, &wave,
                                         &e) == GM_OK;
    double stall[GM_BOTTLENECK_VERDICT_STALLS];
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_STALLS; i++)
        stall[i] = counter(k, s->row_stall[i]);
    double ghz = counter(k, s->row_elapsed) / counter(k, s->row_dur);
    gm_waves_shape sh = {
        .busy = kernel ? gm_bottleneck_wave_busy_ns : NULL,
        .sm_busy = kernel ? gm_bottleneck_wave_sm_busy_ns : NULL,
        .ctx = kernel ? &wave : NULL,
        .fu = s->fu ? &s->fu->fu : NULL,
        .n_mp = p->n_mp,
        .fixed_ns = s->have_tp ? s->tp.queued_ns : NAN,
        .latency_ns = gm_bottleneck_verdict_warp_latency_ns(stall, r->G * r->b * n, ghz),
        .fixed_share = gm_bottleneck_verdict_fixed_latency_share(stall),
        .lifetime_ns = gm_bottleneck_verdict_warp_cycles(counter(k, s->row_warps_active), max_warps,
                                                         counter(k, s->row_cycles_active)) /
                       (r->G * r->b * n) / ghz,
        .max_warps = max_warps,
        .memo = &memo,
    };
    long G = (long)r->G;
    int b = (int)r->b;
    if (gm_waves_shape_fit(&sh, G, b, N, r->T_us * 1e3 / n, &e) != GM_OK)
        return;
    r->from = gm_waves_shape_from_name(sh.from);
    r->floor_us = (sh.fixed + sh.L) * n * 1e-3;
    struct {
        double *out;
        long G;
        int b;
    } at[] = {{&r->t_2G, 2 * G, b},
              {&r->t_halfG, G >= 2 ? G / 2 : 0, b},
              {&r->t_2b, G >= 2 ? G / 2 : 0, 2 * b},
              {&r->t_halfb, b >= 2 ? 2 * G : 0, b / 2}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        int Ni = at[i].G >= 1 && at[i].b >= 1 && at[i].b <= s->max_b
                     ? gm_waves_nslot(p, at[i].b, k->shared_bytes, k->regs_per_thread, NULL)
                     : 0;
        *at[i].out = Ni > 0 ? gm_waves_shape_time(&sh, at[i].G, at[i].b, Ni) * n * 1e-3 : NAN;
    }
}

/* Eq. 3.2 at (G, b) relative to the launch's own (G0, b0), times T. */
static double scaled(const waves_state *s, double T, long G0, int b0, int N0, long G, int b,
                     long smem, long regs)
{
    const gm_waves_params *p = &s->data.form[s->form];
    if (!s->fu || !(T > 0) || G < 1 || b < 1 || b > s->max_b)
        return NAN;
    int N = gm_waves_nslot(p, b, smem, regs, NULL);
    if (N <= 0 || N0 <= 0)
        return NAN;
    double t0, t1;
    if (s->refill) {
        const double *mx = s->fu->mix;
        t0 = gm_waves_time_refill(&s->fu->fu, G0, b0, N0, p->n_mp,
                                  gm_waves_refill_mix_at(mx[0], mx[1], b0));
        t1 = gm_waves_time_refill(&s->fu->fu, G, b, N, p->n_mp,
                                  gm_waves_refill_mix_at(mx[0], mx[1], b));
    } else {
        t0 = gm_waves_time(&s->fu->fu, gm_waves_blocks_per_mp(G0, p->n_mp), b0, N0);
        t1 = gm_waves_time(&s->fu->fu, gm_waves_blocks_per_mp(G, p->n_mp), b, N);
    }
    return t0 > 0 ? T * t1 / t0 : NAN;
}

/* One launch's result (waves_apply computes it or finds it in the memo). */
static void waves_compute(const waves_state *s, const gm_counters_meta *meta,
                       const gm_launch_counters *k, waves_result *r)
{
    memset(r, 0, sizeof *r);
    const gm_waves_params *p = &s->data.form[s->form];
    double threads = (double)k->block[0] * (k->block[1] ? k->block[1] : 1) *
                     (k->block[2] ? k->block[2] : 1);
    double G = (double)k->grid[0] * (k->grid[1] ? k->grid[1] : 1) * (k->grid[2] ? k->grid[2] : 1);
    int b = (int)ceil(threads / p->w);
    r->G = G;
    r->b = b;
    r->regs = k->regs_per_thread >= 0 ? k->regs_per_thread : NAN;
    r->smem = k->shared_bytes >= 0 ? k->shared_bytes : NAN;
    r->T_us = s->row_dur >= 0 ? k->metric[s->row_dur] * 1e-3 : NAN;
    r->nslot = r->occ = r->waves = r->tail = NAN;
    r->t_2G = r->t_halfG = r->t_2b = r->t_halfb = r->floor_us = NAN;
    r->from = "-";
    r->severity = NAN;
    if (b < 1 || G < 1 || k->regs_per_thread < 0 || k->shared_bytes < 0) {
        snprintf(r->verdict, sizeof r->verdict, "blocks and waves not modelled: the launch's %s",
                 b < 1 || G < 1 ? "grid or block size is unknown"
                 : k->regs_per_thread < 0 ? "register count is unknown"
                                          : "shared-memory size is unknown");
        snprintf(r->limiter, sizeof r->limiter, "-");
        return;
    }
    unsigned lim = 0;
    int N = gm_waves_nslot(p, b, k->shared_bytes, k->regs_per_thread, &lim);
    r->nslot = N;
    gm_waves_limiter_text(lim, r->limiter, sizeof r->limiter);
    if (N <= 0) {
        snprintf(r->verdict, sizeof r->verdict, "one block does not fit on an SM (N_slot = 0)");
        return;
    }
    double per_wave = (double)p->n_mp * N;
    r->occ = (double)N * b / p->N2;
    long Gl = (long)G;
    /* a wave is N_slot blocks on each of the n_mp SMs */
    r->waves = gm_waves_waves(Gl, p->n_mp * N, &r->tail);
    /* what the rounding up to whole waves costs: slots left empty */
    r->severity = 1.0 - r->waves / ceil(r->waves);
    long regs = k->regs_per_thread;
    if (!s->refill && r->T_us > 0) {
        shape_whatifs(s, meta, k, r, N);
    } else if (s->refill) {
        r->from = "ffma fu(c), refill";
        r->t_2G = scaled(s, r->T_us, Gl, b, N, 2 * Gl, b, k->shared_bytes, regs);
        r->t_halfG = Gl >= 2 ? scaled(s, r->T_us, Gl, b, N, Gl / 2, b, k->shared_bytes, regs) : NAN;
        /* the same threads in half as many blocks twice as large, and the reverse */
        r->t_2b = Gl >= 2 ? scaled(s, r->T_us, Gl, b, N, Gl / 2, 2 * b, k->shared_bytes, regs) : NAN;
        r->t_halfb = b >= 2 ? scaled(s, r->T_us, Gl, b, N, 2 * Gl, b / 2, k->shared_bytes, regs) : NAN;
    }
    if (r->waves < 1)
        snprintf(r->verdict, sizeof r->verdict,
                 "%.0f %s %.2g%% of one wave (%.0f blocks: N_slot %d x %d SMs, %s)", G,
                 G == 1 ? "block fills" : "blocks fill", 100 * r->waves, per_wave, N, p->n_mp,
                 r->limiter);
    else
        snprintf(r->verdict, sizeof r->verdict,
                 "%.2f waves of %.0f blocks (N_slot %d, %s); the last wave %.0f%% full", r->waves,
                 per_wave, N, r->limiter, 100 * r->tail);
}

/* waves_compute as the cache calls it (gm_memo_launch) */
static void waves_compute_any(const void *state, const gm_counters_meta *meta,
                       const gm_launch_counters *k, void *result)
{
    waves_compute(state, meta, k, result);
}

static gm_status waves_apply(const void *state, const gm_counters_meta *meta,
                             const gm_launch_counters *k, void *result, gm_error *err)
{
    const waves_state *s = state;
    waves_result *r = result;
    if (!s || !k || !r)
        return gm_fail(err, GM_ERR_INVALID_ARG, "waves: no state, launch or result");
    /* the result depends on the launch's counters, shape and resources and
     * the header's warps per SM, all in the key: one seen is the same */
    gm_memo_launch(s->memo, meta, k, waves_compute_any, s, r);
    return GM_OK;
}

static size_t waves_fields(const void *state, const void *result, gm_field *out, size_t max)
{
    (void)state;
    const waves_result *r = result;
    size_t n = 0;
#define NUM(nm, v, w, h) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_NUM, (v), NULL, (w), (h), 0}
#define PCT(nm, v, w, h) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_PCT, (v), NULL, (w), (h), 0}
#define TXT(nm, t, w, h) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_TEXT, NAN, (t), (w), (h), 0}
    NUM("G", r->G, 8, "blocks");
    NUM("b", r->b, 3, "b");
    NUM("regs", r->regs, 4, "regs");
    NUM("smem", r->smem, 6, "smem");
    NUM("N_slot", r->nslot, 6, "N_slot");
    TXT("limiter", r->limiter, 14, "limited by");
    PCT("occupancy", r->occ, 5, "occ");
    NUM("waves", r->waves, 6, "waves");
    PCT("tail", r->tail, 5, "tail");
    NUM("T_us", r->T_us, 0, NULL);
    NUM("T_2G_us", r->t_2G, 0, NULL);
    NUM("T_halfG_us", r->t_halfG, 0, NULL);
    NUM("T_2b_halfG_us", r->t_2b, 0, NULL);
    NUM("T_halfb_2G_us", r->t_halfb, 0, NULL);
    NUM("T_floor_us", r->floor_us, 0, NULL);
    TXT("tgb_from", r->from, 0, NULL);
    TXT("verdict", r->verdict, 0, NULL);
#undef NUM
#undef PCT
#undef TXT
    return n;
}

static void waves_verdict(const void *state, const void *result, gm_unit_verdict *out)
{
    (void)state;
    const waves_result *r = result;
    out->severity = r->severity;
    gm_copy_text(out->text, sizeof out->text, r->verdict);
}

static void waves_text_notes(FILE *out, const void *state, unsigned notes)
{
    (void)notes;
    const waves_state *s = state;
    const gm_waves_params *p = &s->data.form[s->form];
    fprintf(out, "  machine data: sched (%s): n_mp %d, N1 %d, N2 %d, S %ld (s_min %ld), R %ld "
                 "(r_min %ld)\n",
            s->source, p->n_mp, p->N1, p->N2, p->S, p->s_min, p->R, p->r_min);
    if (s->form == GM_WAVES_FORM_HOPPER)
        fprintf(out, "  model: hopper: Eq. 3.3 with %ld bytes reserved per block and %d register-"
                     "file partitions of whole warps\n", p->s_res, p->r_parts);
    else
        fprintf(out, "  model: paper: Eq. 3.3 as printed\n");
    if (s->refill && s->fu)
        fprintf(out, "  - T_2G_us etc.: the busiest SM's share of a partial wave under a random "
                     "refill, FFMA mixing %.2f at b = 1, %.2f at b = 32 (per-block logs; NaN: "
                     "none, Eq. 3.2)\n", s->fu->mix[0], s->fu->mix[1]);
    if (s->refill)
        fprintf(out, "  - waves = G / (n_mp N_slot); T_2G_us etc.: Eq. 3.2 with the measured FFMA "
                     "fu(c), scaled by this launch's time\n");
    else
        fprintf(out, "  - waves = G / (n_mp N_slot); T_2G_us etc.: Eq. 3.2 with each wave's cost "
                     "max(floor, the kernel's busiest component at its warps per SM)%s, fitted to "
                     "this launch's time; never below T_floor_us, one wave alone (tgb_from)\n",
                s->have_tp ? "" : " (no throughput data: the FFMA fu(c))");
}

const gm_unit gm_unit_waves = {
    .name = "waves",
    .title = "blocks and waves",
    .paper = "Kim, GPUDIAG (paper 003)",
    .metrics = waves_metrics,
    .suites = waves_suites,
    .variants = "hopper,paper,refill",
    .result_size = sizeof(waves_result),
    .prepare = waves_prepare,
    .release = waves_release,
    .apply = waves_apply,
    .free_result = NULL,
    .fields = waves_fields,
    .verdict = waves_verdict,
    .text_notes = waves_text_notes,
    .json_extra = NULL,
    .optional_suites = waves_optional,
};
