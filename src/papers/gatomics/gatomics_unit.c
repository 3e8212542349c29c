/* The global-atomic unit (paper 002, Robertson, carried over with paper 000's
 * U = B / T): utilization of the L2 atomic units per launch, from the L2's
 * atomic counters and the rates suite `gatomics` measured.  The equations
 * are in gatomics_model.c (src/papers/gatomics/gatomics_model.h); this file makes them a
 * registered unit with its fields, verdict and notes.
 *
 * Variants: "rate" (default: the busiest slice or the units' shared peak,
 * whichever binds), "rate-f32" (the same with f32-add rates), "server" (paper 000's single server per slice, no shared
 * peak), "direct" (the L2's own activity counter of the busiest slice, no
 * machine data). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "gatomics_model.h"
#include "gpuq/unit.h"
#include "core/writer.h"

enum { M_ATOM, M_RED, M_CAS, M_ASUM, M_AMAX, M_L2CYC, M_DUR, M_COUNT };

static const char *const gatomics_metrics[] = {
    "lts__t_sectors_srcunit_tex_op_atom.sum",
    "lts__t_sectors_srcunit_tex_op_red.sum",
    "lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum",
    "lts__d_atomic_input_cycles_active.sum",
    "lts__d_atomic_input_cycles_active.max",
    "lts__cycles_elapsed.avg",
    "gpu__time_duration.sum",
    NULL,
};

static const char *const gatomics_suites[] = {"gatomics", NULL};

typedef struct gatomics_state {
    gm_gatomics_form form;
    gm_gatomics_rates rates;
    int have_rates;
    int row[M_COUNT];
    char source[160];
} gatomics_state;

typedef struct gatomics_result {
    gm_gatomics_result r;
    gm_gatomics_input in;
    int missing;           /* index+1 of the first missing metric, 0 none */
    char binding[24], notes[96], verdict[192];
} gatomics_result;

static gm_status gatomics_prepare(const gm_machine *m, const char *variant, void **state,
                                  gm_error *err)
{
    if (!state)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gatomics: no state");
    gatomics_state *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "gatomics: out of memory");
    gm_error why;
    if (gm_gatomics_form_by_name(variant, &s->form, &why) != GM_OK) {
        free(s);
        return gm_fail(err, GM_ERR_INVALID_ARG, "unknown model variant 'gatomics:%s' (known: "
                       "rate, rate-f32, server, direct)", variant);
    }
    for (int i = 0; i < M_COUNT; i++)
        s->row[i] = gm_metric_find(gatomics_metrics[i]);
    const gm_mdata *md = m ? gm_machine_suite(m, "gatomics") : NULL;
    if (md) {
        gm_status st = gm_gatomics_rates_for_form(md, s->form, &s->rates, err);
        if (st != GM_OK) {
            free(s);
            return st;
        }
        s->have_rates = 1;
        snprintf(s->source, sizeof s->source, "%.60s, %.40s", md->meta.gpu_name, md->meta.date);
    } else if (s->form != GM_GATOMICS_FORM_DIRECT) {
        free(s);
        return gm_fail(err, GM_ERR_MISSING, "gatomics: no machine data (gpuq calibrate --suite "
                       "gatomics)");
    }
    *state = s;
    return GM_OK;
}

static void gatomics_release(void *state) { free(state); }

static double metric(const gatomics_state *s, const gm_launch_counters *k, int i)
{
    return s->row[i] < 0 ? NAN : k->metric[s->row[i]];
}

static gm_status gatomics_apply(const void *state, const gm_counters_meta *meta,
                                const gm_launch_counters *k, void *result, gm_error *err)
{
    (void)meta;
    const gatomics_state *s = state;
    gatomics_result *gr = result;
    if (!s || !k || !gr)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gatomics: no state, launch or result");
    memset(gr, 0, sizeof *gr);
    /* The L2 counts CAS sectors inside the atom ones (atom = dot_alu + dot_cas). */
    double cas = metric(s, k, M_CAS);
    gm_gatomics_input in = {{metric(s, k, M_ATOM) - cas, metric(s, k, M_RED), cas},
                      metric(s, k, M_ASUM), metric(s, k, M_AMAX), metric(s, k, M_L2CYC),
                      metric(s, k, M_DUR) * 1e-9};
    for (int i = 0; i < M_COUNT && !gr->missing; i++)
        if (isnan(metric(s, k, i)))
            gr->missing = i + 1;
    gr->in = in;
    gm_error why = {{0}};
    gm_status st = gm_gatomics_apply(s->have_rates ? &s->rates : NULL, s->form, &in, &gr->r, &why);
    if (st != GM_OK) {
        memset(&gr->r, 0, sizeof gr->r);
        gr->r.U = gr->r.U_direct = gr->r.B = NAN;
        snprintf(gr->verdict, sizeof gr->verdict, "global atomics not modelled: %.150s", why.msg);
        return GM_OK;
    }
    const gm_gatomics_result *r = &gr->r;
    snprintf(gr->binding, sizeof gr->binding, "%s",
             (r->notes & GM_GATOMICS_NOTE_NO_ATOMICS) || isnan(r->U) ||
                     s->form == GM_GATOMICS_FORM_DIRECT
                 ? "-"
             : (r->notes & GM_GATOMICS_NOTE_ALL_BOUND) ? "all units"
                                                       : "one slice");
    snprintf(gr->notes, sizeof gr->notes, "%s%s%s%s",
             r->notes & GM_GATOMICS_NOTE_NO_ATOMICS ? "no_atomics|" : "",
             r->notes & GM_GATOMICS_NOTE_MISSING ? "missing_counter|" : "",
             r->notes & GM_GATOMICS_NOTE_NO_ACTIVITY ? "no_activity|" : "",
             r->notes & GM_GATOMICS_NOTE_ALL_BOUND ? "all_bound|" : "");
    size_t nl = strlen(gr->notes);
    if (nl)
        gr->notes[nl - 1] = '\0';
    double U = r->U;
    if (r->notes & GM_GATOMICS_NOTE_NO_ATOMICS)
        snprintf(gr->verdict, sizeof gr->verdict, "no global atomics reached L2 (U = 0)");
    else if (isnan(U))
        snprintf(gr->verdict, sizeof gr->verdict, "global atomics not modelled: counter %s missing",
                 gr->missing ? gatomics_metrics[gr->missing - 1] : "?");
    else
        snprintf(gr->verdict, sizeof gr->verdict, "L2 atomic units %s (U = %.0f%%%s)",
                 U >= GM_GATOMICS_U_BOTTLENECK    ? "are the bottleneck"
                 : U >= GM_GATOMICS_U_SIGNIFICANT ? "are a significant load"
                                                  : "are not the bottleneck",
                 100 * U,
                 s->form == GM_GATOMICS_FORM_DIRECT        ? ""
                 : (r->notes & GM_GATOMICS_NOTE_ALL_BOUND) ? ", all slices' shared peak"
                 : r->k_eff < 2                            ? ", one hot slice: few addresses"
                                                           : ", busiest slice");
    return GM_OK;
}

static size_t gatomics_fields(const void *state, const void *result, gm_field *out, size_t max)
{
    const gatomics_state *s = state;
    const gatomics_result *gr = result;
    const gm_gatomics_result *r = &gr->r;
    unsigned dash = (r->notes & GM_GATOMICS_NOTE_NO_ATOMICS) ? GM_FIELD_TEXT_DASH : 0;
    size_t n = 0;
#define NUM(nm, v, w, h, fl) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_NUM, (v), NULL, (w), (h), (fl)}
#define PCT(nm, v, w, h, fl) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_PCT, (v), NULL, (w), (h), (fl)}
#define TXT(nm, t, w, h, fl) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_TEXT, NAN, (t), (w), (h), (fl)}
    NUM("sectors", r->N, 10, "sectors", 0);
    NUM("X_Gsps", r->X / 1e9, 7, "Gsect/s", dash);
    NUM("k_eff", r->k_eff, 6, "k_eff", dash);
    NUM("B_us", r->B * 1e6, 9, "B (us)", dash);
    PCT("U", r->U, 5, NULL, 0);
    PCT("U_direct", r->U_direct, 6, "U_dir", dash);
    TXT("binding", gr->binding, 10, "binds", 0);
    NUM("B_slice_us", r->B_slice * 1e6, 0, NULL, 0);
    NUM("B_all_us", r->B_all * 1e6, 0, NULL, 0);
    NUM("sectors_atom", gr->in.sectors[GM_GATOMICS_ATOM], 0, NULL, 0);
    NUM("sectors_red", gr->in.sectors[GM_GATOMICS_RED], 0, NULL, 0);
    NUM("sectors_cas", gr->in.sectors[GM_GATOMICS_CAS], 0, NULL, 0);
    NUM("duration_us", gr->in.duration_s * 1e6, 0, NULL, 0);
    NUM("R_one_atom_Gsps", s->have_rates ? s->rates.one[GM_GATOMICS_ATOM] / 1e9 : NAN, 0, NULL, 0);
    NUM("R_one_red_Gsps", s->have_rates ? s->rates.one[GM_GATOMICS_RED] / 1e9 : NAN, 0, NULL, 0);
    NUM("R_peak_atom_Gsps", s->have_rates ? s->rates.peak[GM_GATOMICS_ATOM] / 1e9 : NAN, 0, NULL,
        0);
    NUM("R_peak_red_Gsps", s->have_rates ? s->rates.peak[GM_GATOMICS_RED] / 1e9 : NAN, 0, NULL, 0);
    NUM("R_one_cas_Gsps", s->have_rates ? s->rates.one[GM_GATOMICS_CAS] / 1e9 : NAN, 0, NULL, 0);
    NUM("R_peak_cas_Gsps", s->have_rates ? s->rates.peak[GM_GATOMICS_CAS] / 1e9 : NAN, 0, NULL, 0);
    TXT("model", gm_gatomics_form_name(s->form), 0, NULL, 0);
    TXT("notes", gr->notes, 0, NULL, 0);
    TXT("verdict", gr->verdict, 0, NULL, 0);
#undef NUM
#undef PCT
#undef TXT
    return n;
}

static void gatomics_verdict(const void *state, const void *result, gm_unit_verdict *out)
{
    (void)state;
    const gatomics_result *gr = result;
    out->severity = (gr->r.notes & GM_GATOMICS_NOTE_NO_ATOMICS) ? 0.0 : gr->r.U;
    gm_copy_text(out->text, sizeof out->text, gr->verdict);
}

static void gatomics_text_notes(FILE *out, const void *state, unsigned notes)
{
    (void)notes;
    const gatomics_state *s = state;
    if (s->have_rates)
        fprintf(out,
                "  machine data: gatomics (%s): ATOM %.2f / %.1f, RED %.2f / %.1f, CAS %.2f / "
                "%.1f Gsector/s (one address / all distinct)\n",
                s->source, s->rates.one[GM_GATOMICS_ATOM] / 1e9,
                s->rates.peak[GM_GATOMICS_ATOM] / 1e9, s->rates.one[GM_GATOMICS_RED] / 1e9,
                s->rates.peak[GM_GATOMICS_RED] / 1e9, s->rates.one[GM_GATOMICS_CAS] / 1e9,
                s->rates.peak[GM_GATOMICS_CAS] / 1e9);
    switch (s->form) {
    case GM_GATOMICS_FORM_RATE:
    case GM_GATOMICS_FORM_RATE_F32:
        if (s->form == GM_GATOMICS_FORM_RATE_F32)
            fprintf(out, "  - rate-f32: ATOM and RED read as f32 adds (2.4x slower per address than "
                         "integer adds on Hopper); use it for float scatters\n");
        fprintf(out, "  model: rate: B = max(sum N_c / (k_eff R_one_c), sum N_c / R_peak_c), "
                     "U = B / duration; k_eff = atomic-input cycles sum / max over L2 slices\n");
        break;
    case GM_GATOMICS_FORM_SERVER:
        fprintf(out, "  model: server (paper 000's single server per slice): B = sum N_c / "
                     "(k_eff R_one_c), no shared peak; reads low when atomics spread over slices\n");
        break;
    default:
        fprintf(out, "  model: direct: U = atomic-input active cycles of the busiest L2 slice / "
                     "L2 cycles elapsed (no machine data)\n");
        break;
    }
    fprintf(out, "  - sectors: L2 sectors of ATOM and RED from the SMs; one job per sector "
                 "(32 bytes, docs/global-atomics.md); U_dir beside every form\n");
}

const gm_unit gm_unit_gatomics = {
    .name = "gatomics",
    .title = "global atomics",
    .paper = "Robertson, CUDA atomics (paper 002), with paper 000's utilization",
    .metrics = gatomics_metrics,
    .suites = gatomics_suites,
    .variants = "rate,rate-f32,server,direct",
    .result_size = sizeof(gatomics_result),
    .prepare = gatomics_prepare,
    .release = gatomics_release,
    .apply = gatomics_apply,
    .free_result = NULL,
    .fields = gatomics_fields,
    .verdict = gatomics_verdict,
    .text_notes = gatomics_text_notes,
    .json_extra = NULL,
};
