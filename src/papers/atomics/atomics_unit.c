/* The shared-atomic unit (paper 000, Dong & Pai): the utilization U of the
 * shared-memory atomic unit per launch, from the atomics table (machine
 * data) and the Table 1 counters, with every variant of papers/atomics/atomics_model.h.
 * The equations are in atomics_model.c; this file makes them a registered unit:
 * its verdict, its fields (text columns, CSV "atomics.<name>", JSON keys),
 * the approximations it states and its nested JSON (per-SM values). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics_format.h"
#include "atomics_latency.h"
#include "atomics_model.h"
#include "atomics_split.h"
#include "gpuq/unit.h"
#include "core/writer.h"

/* ------------------------------------------------------------------------
 * Verdict and one launch */

#define VERDICT_ADD(...)                                                                   \
    do {                                                                                   \
        if (used < len) {                                                                  \
            int wrote_ = snprintf(buf + used, len - used, __VA_ARGS__);                    \
            used += wrote_ > 0 ? (size_t)wrote_ : 0;                                       \
        }                                                                                  \
    } while (0)

/* The notes a verdict carries after its head ("; model input clamped ..."),
 * appended to buf (holding `used` characters), cut to fit. */
static void verdict_notes(const gm_atomics_kernel_result *r, char *buf, size_t len, size_t used)
{
    double U = r->avg.U;
    if (!(r->notes & GM_ATOMICS_NOTE_NO_ATOMICS) && U > 1.0)
        /* The paper sees U > 100% too and blames the n-hat approximation. */
        VERDICT_ADD("; U above 100%%: n is probably overestimated (paper Sec. 4.1)");
    if (r->notes & GM_ATOMICS_NOTE_CLAMPED)
        VERDICT_ADD("; model input clamped to table grid");
    if (r->notes & GM_ATOMICS_NOTE_SPLIT_FALLBACK)
        VERDICT_ADD("; class split fell back (%s)", r->split_source);
    else if ((r->notes & GM_ATOMICS_NOTE_MISSING_COUNTER) && r->split_source[0])
        VERDICT_ADD("; %s", r->split_source);
}

void gm_atomics_verdict(const gm_atomics_kernel_result *r, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    if (!r)
        return;
    size_t used = 0;
    double U = r->avg.U;
    char pct[32]; /* the report's own percentage format: never 300 digits */
    gm_fmt_pct(pct, sizeof pct, U);
    if (r->notes & GM_ATOMICS_NOTE_NO_ATOMICS) {
        VERDICT_ADD("no shared-memory atomics (U = 0)");
    } else if (isnan(U)) {
        /* The model said why it could not run (missing counter, no series). */
        VERDICT_ADD("%s", r->verdict[0] ? r->verdict : "not modelled: model inputs missing");
        return;
    } else if (U >= GM_ATOMICS_U_BOTTLENECK) {
        VERDICT_ADD("shared-memory atomics are the bottleneck (U = %s)", pct);
    } else if (U >= GM_ATOMICS_U_SIGNIFICANT) {
        VERDICT_ADD("shared-memory atomics are a significant load (U = %s)", pct);
    } else {
        VERDICT_ADD("shared-memory atomics are not the bottleneck (U = %s)", pct);
    }
    verdict_notes(r, buf, len, used < len ? used : len - 1);
    /* A verdict that outgrew its buffer says so instead of ending mid-word. */
    size_t n = strlen(buf);
    if (n + 1 >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}
#undef VERDICT_ADD

gm_status gm_atomics_model_apply_report(const gm_atomics_table *table,
                                        const gm_atomics_model_options *opt,
                                        const gm_launch_counters *k, gm_atomics_kernel_result *r,
                                        gm_error *err)
{
    gm_error why = {{0}};
    gm_status st = gm_atomics_model_apply(table, opt, k, r, &why);
    if (st == GM_ERR_INVALID_ARG) {
        gm_atomics_kernel_result_free(r);
        return gm_fail(err, st, "launch %" PRIu64 " (%s): %s", k->launch_id,
                       k->kernel ? k->kernel : "(unnamed kernel)", why.msg);
    }
    if (st != GM_OK) {
        gm_atomics_kernel_result_free(r);
        unsigned notes = r->notes;
        char split_source[sizeof r->split_source];
        memcpy(split_source, r->split_source, sizeof split_source);
        memset(r, 0, sizeof *r);
        r->notes = notes;
        memcpy(r->split_source, split_source, sizeof split_source);
        r->avg.U = r->U_lo = r->U_hi = NAN;
        r->n_hat = r->n_measured = NAN;
        /* The verdict has room for 191 characters: keep the reason's start. */
        snprintf(r->verdict, sizeof r->verdict, "not modelled: %.140s (%s)",
                 why.msg[0] ? why.msg : "model failed", gm_strerror(st));
        return GM_OK;
    }
    char verdict[sizeof r->verdict];
    gm_atomics_verdict(r, verdict, sizeof verdict);
    memcpy(r->verdict, verdict, sizeof verdict);
    return GM_OK;
}

/* ------------------------------------------------------------------------
 * Names of notes, clamps and options */

static const struct {
    unsigned bit;
    const char *name;
    const char *text;
} note_table[] = {
    {GM_ATOMICS_NOTE_NO_ATOMICS, "no_atomics", "no shared-memory atomics: U = 0"},
    {GM_ATOMICS_NOTE_AVG_SM, "avg_sm", "average SM with bounds (no per-SM counters)"},
    {GM_ATOMICS_NOTE_N_APPROX, "n_approx", "n is occupancy x warps/SM (paper's approximation)"},
    {GM_ATOMICS_NOTE_E_UNIFORM, "e_uniform", "e assumed the same on every SM"},
    {GM_ATOMICS_NOTE_SPLIT_FALLBACK, "split_fallback", "class split not available: fell back"},
    {GM_ATOMICS_NOTE_CLAMPED, "clamped", "an input was clamped to the table's grid"},
    {GM_ATOMICS_NOTE_MISSING_COUNTER, "missing_counter", "a counter the variant needs is missing"},
    {GM_ATOMICS_NOTE_W_SINGLE_SHOT, "w_single_shot",
     "w read off the single-shot series (no steady-state one)"},
};
#define NOTE_COUNT (sizeof note_table / sizeof note_table[0])

static const struct {
    unsigned bit;
    const char *name;
} clamp_table[] = {
    {GM_ATOMICS_CLAMP_N_HIGH, "n_high"}, {GM_ATOMICS_CLAMP_E_LOW, "e_low"},   {GM_ATOMICS_CLAMP_E_HIGH, "e_high"},
    {GM_ATOMICS_CLAMP_C_LOW, "c_low"},   {GM_ATOMICS_CLAMP_C_HIGH, "c_high"},
};
#define CLAMP_COUNT (sizeof clamp_table / sizeof clamp_table[0])

static const char *n_source_name(gm_atomics_n_source s)
{
    return s == GM_ATOMICS_N_MEASURED ? "measured" : "occupancy";
}

static const char *split_name(gm_atomics_class_split s)
{
    return s == GM_ATOMICS_SPLIT_BY_OPCODE ? "by_opcode" : "fao_cas";
}

/* One line per approximation the variant makes, labelled as such. */
static size_t approximations(const gm_atomics_model_options *opt, unsigned notes,
                             const char **lines, size_t max)
{
    size_t n = 0;
#define APPROX(text)           \
    do {                       \
        if (n < max)           \
            lines[n++] = text; \
    } while (0)
    if (opt->busy == GM_ATOMICS_BUSY_WAVEFRONTS) {
        APPROX("B = O x w: each wavefront holds the unit w cycles, w from the table's "
               "steady-state e slope (not the paper's Table 2; docs/model.md)");
        APPROX("U = share of the unit's peak wavefront rate in use; reads low where few "
               "atomics are in flight (latency-bound; docs/validation.md)");
    } else {
        if (opt->n_source == GM_ATOMICS_N_OCCUPANCY)
            APPROX("n = occupancy x warps/SM (approximation, paper Table 2)");
        else
            APPROX("n = LSU shared-pipe pending / active cycles x atomics' share of that pipe "
                   "(measured queue length; not in the paper)");
        if (opt->method == GM_ATOMICS_METHOD_SINGLE_SHOT)
            APPROX("S = T(n,e,c) / n from the single-shot table (paper Sec. 3.2, Eq. 1-3)");
        else
            APPROX("S from the steady-state table (not the paper's method)");
        if (opt->split == GM_ATOMICS_SPLIT_FAO_CAS)
            APPROX("jobs: N_f = every non-CAS ATOMS (POPC.INC included), N_c = ATOMS.CAS "
                   "(paper Table 1)");
        else
            APPROX("jobs split by opcode from the SASS: POPC.INC on its own series");
    }
    if (notes & GM_ATOMICS_NOTE_E_UNIFORM)
        APPROX("e = O / N for the whole GPU, assumed the same on every SM (approximation, "
               "paper Sec. 3.3)");
    if (notes & GM_ATOMICS_NOTE_AVG_SM)
        APPROX("average SM: no per-SM counters on this GPU, N and T are totals / SM count "
               "(approximation); U bounds use the slowest and fastest SM's active cycles");
#undef APPROX
    return n;
}

/* ------------------------------------------------------------------------
 * The unit */

typedef struct atomics_state {
    const gm_atomics_table *table; /* the machine's (not owned) */
    const char *table_path;
    gm_atomics_model_options opt;
    int row_sb, row_mio;           /* the latency kind's stall counters (atomics_latency.h) */
    int row_wait, row_sel;         /* and the issue form's */
} atomics_state;

/* One result: the model's, plus the texts its fields point into. */
typedef struct atomics_result {
    gm_atomics_kernel_result r;
    char clamps[64], notes[160], bounds[40];
    gm_atomics_latency lat; /* L, the latency kind's measure */
    const char *kind;       /* gm_atomics_kind_name */
} atomics_result;

static gm_status atomics_prepare(const gm_machine *m, const char *variant, void **state,
                                 gm_error *err)
{
    if (!m || !state)
        return gm_fail(err, GM_ERR_INVALID_ARG, "atomics: no machine data or state");
    const gm_atomics_table *table = gm_machine_data(m, "atomics");
    if (!table)
        return gm_fail(err, GM_ERR_MISSING, "atomics: no atomics table");
    atomics_state *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "atomics: out of memory");
    if (gm_atomics_model_by_name(variant ? variant : "default", &s->opt) != GM_OK) {
        free(s);
        return gm_fail(err, GM_ERR_INVALID_ARG, "unknown model variant 'atomics:%s' (known: %s)",
                       variant, gm_atomics_model_names());
    }
    s->table = table;
    gm_atomics_model_know_w(table, &s->opt); /* once, not for every launch */
    s->row_sb = gm_metric_find("smsp__warps_issue_stalled_short_scoreboard.sum");
    s->row_mio = gm_metric_find("smsp__warps_issue_stalled_mio_throttle.sum");
    s->row_wait = gm_metric_find("smsp__warps_issue_stalled_wait.sum");
    s->row_sel = gm_metric_find("smsp__warps_issue_stalled_selected.sum");
    const char *path = gm_machine_path(m, "atomics");
    s->table_path = path && path[0] ? path : "(table)";
    *state = s;
    return GM_OK;
}

static void atomics_release(void *state)
{
    free(state);
}

/* The names of the bits set in `bits`, '|'-separated (cut at len): of the
 * clamp table where clamps is 1, else of the note table. */
static void join_names(char *buf, size_t len, unsigned bits, int clamps)
{
    size_t used = 0, count = clamps ? CLAMP_COUNT : NOTE_COUNT;
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        unsigned bit = clamps ? clamp_table[i].bit : note_table[i].bit;
        const char *name = clamps ? clamp_table[i].name : note_table[i].name;
        if (!(bits & bit))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", name);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

/* The latency kind (papers/atomics/atomics_latency.h): L from the stall counters, and
 * the verdict's head rewritten to name the kind, where they were collected.
 * Without them (older counters files) the verdict stays as it was; without
 * only wait and selected, L is the two-counter form's, with its threshold. */
static void atomics_latency(const atomics_state *s, const gm_launch_counters *k,
                            atomics_result *ar)
{
    gm_atomics_kernel_result *r = &ar->r;
    gm_atomics_latency_input in = {
        .stalled_short_scoreboard = s->row_sb >= 0 ? k->metric[s->row_sb] : NAN,
        .stalled_mio_throttle = s->row_mio >= 0 ? k->metric[s->row_mio] : NAN,
        .occupancy_pct = k->metric[GM_ATOMICS_M_OCCUPANCY_PCT],
        .cycles_sum = k->metric[GM_ATOMICS_M_CYCLES_SUM],
        .max_warps_per_sm = s->table->meta.max_warps_per_sm,
        .n_atom = k->metric[GM_ATOMICS_M_N_ATOM],
        .shared_inst = k->metric[GM_ATOMICS_M_SHARED_INST],
        .stalled_wait = s->row_wait >= 0 ? k->metric[s->row_wait] : NAN,
        .stalled_selected = s->row_sel >= 0 ? k->metric[s->row_sel] : NAN,
        .form = s->opt.latency,
    };
    gm_error why = {{0}};
    if (gm_atomics_latency_compute(&in, &ar->lat, &why) != GM_OK)
        ar->lat.L = NAN; /* a negative counter: the U model has said so already */
    double U = r->avg.U, l_threshold = gm_atomics_latency_threshold(ar->lat.form);
    ar->kind = gm_atomics_kind_name(gm_atomics_kind_of(U, ar->lat.L, GM_ATOMICS_U_SIGNIFICANT, l_threshold));
    if ((r->notes & GM_ATOMICS_NOTE_NO_ATOMICS) || isnan(U) || isnan(ar->lat.L))
        return;
    /* the head names the kind; the notes are gm_atomics_verdict's */
    int w = gm_atomics_verdict_text(r->verdict, sizeof r->verdict, U, ar->lat.L,
                                    GM_ATOMICS_U_BOTTLENECK, GM_ATOMICS_U_SIGNIFICANT, l_threshold);
    if (w > 0 && (size_t)w < sizeof r->verdict)
        verdict_notes(r, r->verdict, sizeof r->verdict, (size_t)w);
}

static gm_status atomics_apply(const void *state, const gm_counters_meta *meta,
                               const gm_launch_counters *k, void *result, gm_error *err)
{
    (void)meta;
    const atomics_state *s = state;
    atomics_result *ar = result;
    if (!s || !k || !ar)
        return gm_fail(err, GM_ERR_INVALID_ARG, "atomics: no state, launch or result");
    memset(ar, 0, sizeof *ar);
    gm_status st = gm_atomics_model_apply_report(s->table, &s->opt, k, &ar->r, err);
    if (st != GM_OK)
        return st;
    atomics_latency(s, k, ar);
    const gm_atomics_kernel_result *r = &ar->r;
    join_names(ar->clamps, sizeof ar->clamps, r->avg.clamp_flags, 1);
    join_names(ar->notes, sizeof ar->notes, r->notes, 0);
    if (isnan(r->U_lo) && isnan(r->U_hi)) {
        snprintf(ar->bounds, sizeof ar->bounds, "-");
    } else {
        char lo[16], hi[16];
        gm_fmt_pct(lo, sizeof lo, r->U_lo);
        gm_fmt_pct(hi, sizeof hi, r->U_hi);
        snprintf(ar->bounds, sizeof ar->bounds, "[%s, %s]", lo, hi);
    }
    return GM_OK;
}

static void atomics_free_result(void *result)
{
    if (result)
        gm_atomics_kernel_result_free(&((atomics_result *)result)->r);
}

static size_t atomics_fields(const void *state, const void *result, gm_field *out, size_t max)
{
    const atomics_state *s = state;
    const atomics_result *ar = result;
    const gm_atomics_kernel_result *r = &ar->r;
    const gm_atomics_sm_result *a = &r->avg;
    const gm_atomics_model_options *o = &s->opt;
    int modelled = !isnan(a->U);
    /* Without atomics the model stops at N = 0: e, n, c, S are undefined
     * (the text shows "-"; CSV and JSON keep what the model left). */
    unsigned dash = modelled && !(r->notes & GM_ATOMICS_NOTE_NO_ATOMICS) ? 0 : GM_FIELD_TEXT_DASH;
    size_t n = 0;
#define NUM(nm, v, w, h, fl) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_NUM, (v), NULL, (w), (h), (fl)}
#define TXT(nm, t, w, h, fl) \
    if (n < max) out[n++] = (gm_field){nm, GM_FIELD_TEXT, NAN, (t), (w), (h), (fl)}
    NUM("N", modelled ? a->N : NAN, 8, "N/SM", 0);
    NUM("e", modelled ? a->e : NAN, 6, NULL, dash);
    NUM("n", modelled ? a->n : NAN, 6, NULL, dash);
    NUM("n_hat", r->n_hat, 6, "n-hat", 0);
    NUM("n_measured", r->n_measured, 6, "n-meas", 0);
    NUM("c", modelled ? a->c : NAN, 6, NULL, dash);
    NUM("S", modelled ? a->S : NAN, 7, NULL, dash);
    NUM("B", modelled ? a->B : NAN, 8, NULL, 0);
    NUM("T", modelled ? a->T : NAN, 8, NULL, 0);
    if (n < max)
        out[n++] = (gm_field){"U", GM_FIELD_PCT, a->U, NULL, 5, NULL, 0};
    TXT("U_bounds", ar->bounds, 12, "[U lo, hi]", GM_FIELD_TEXT_ONLY);
    NUM("U_lo", r->U_lo, 0, NULL, 0);
    NUM("U_hi", r->U_hi, 0, NULL, 0);
    NUM("N_total", modelled ? a->N * r->sm_count : NAN, 0, NULL, 0);
    NUM("N_c", modelled ? a->N_c : NAN, 0, NULL, 0);
    NUM("N_popc", modelled ? a->N_popc : NAN, 0, NULL, 0);
    NUM("sm_count", r->sm_count, 0, NULL, 0);
    TXT("model", o->name ? o->name : "", 0, NULL, 0);
    TXT("method", gm_atomics_method_name(o->method), 0, NULL, 0);
    TXT("n_source", n_source_name(o->n_source), 0, NULL, 0);
    TXT("split", split_name(o->split), 0, NULL, 0);
    TXT("pattern", gm_atomics_pattern_name(o->pattern), 0, NULL, 0);
    TXT("table", s->table_path, 0, NULL, 0);
    TXT("clamps", ar->clamps, 0, NULL, 0);
    TXT("notes", ar->notes, 0, NULL, 0);
    TXT("split_source", r->split_source, 0, NULL, 0);
    TXT("verdict", r->verdict, 0, NULL, 0);
    if (n < max)
        out[n++] = (gm_field){"L", GM_FIELD_PCT, ar->lat.L, NULL, 0, NULL, 0};
    NUM("L_stall_share", ar->lat.stall_share, 0, NULL, 0);
    NUM("L_atom_share", ar->lat.atom_share, 0, NULL, 0);
    TXT("kind", ar->kind ? ar->kind : "", 0, NULL, 0);
    NUM("L_issue_share", ar->lat.issue_share, 0, NULL, 0);
    NUM("L_issue_atom_share", ar->lat.issue_atom_share, 0, NULL, 0);
    TXT("L_form", isnan(ar->lat.L) ? "" : gm_atomics_latency_form_name(ar->lat.form), 0, NULL, 0);
#undef NUM
#undef TXT
    return n;
}

static void atomics_verdict(const void *state, const void *result, gm_unit_verdict *out)
{
    (void)state;
    const gm_atomics_kernel_result *r = &((const atomics_result *)result)->r;
    const atomics_result *ar = result;
    /* Severity is U itself, the share of the unit's time it is busy; for
     * the latency kind, L, the share of warp-cycles spent waiting on it. */
    out->severity = (r->notes & GM_ATOMICS_NOTE_NO_ATOMICS) ? 0.0 : r->avg.U;
    if (ar->kind && strcmp(ar->kind, "latency") == 0)
        out->severity = ar->lat.L;
    gm_copy_text(out->text, sizeof out->text, r->verdict);
}

/* The approximations the notes name depend on the launches' notes. */
static unsigned atomics_note_flags(const void *result)
{
    return ((const atomics_result *)result)->r.notes;
}

static void atomics_text_notes(FILE *out, const void *state, unsigned notes)
{
    const atomics_state *s = state;
    const gm_atomics_model_options *o = &s->opt;
    const gm_atomics_table_meta *tm = &s->table->meta;
    fprintf(out, "  table: %s (%s, %d SMs, %d warps/SM, calibrated %s)\n", s->table_path,
            tm->gpu_name, tm->sm_count, tm->max_warps_per_sm, tm->date);
    if (o->busy == GM_ATOMICS_BUSY_WAVEFRONTS)
        fprintf(out, "  model: %s (busy time: wavefronts x w, w from the %s table)\n",
                o->name ? o->name : "?", gm_atomics_method_name(o->method));
    else
        fprintf(out, "  model: %s (S: %s, n: %s, jobs: %s, pattern: %s)\n", o->name ? o->name : "?",
                gm_atomics_method_name(o->method), n_source_name(o->n_source), split_name(o->split),
                gm_atomics_pattern_name(o->pattern));
    const char *lines[8];
    size_t k = approximations(o, notes, lines, 8);
    for (size_t i = 0; i < k; i++)
        fprintf(out, "  - %s\n", lines[i]);
    fprintf(out, "  N, n, c, S (cycles/job), B, T (cycles) are per average SM; verdict at "
                 "U >= %.0f%% (bottleneck), >= %.0f%% (significant)\n",
            100 * GM_ATOMICS_U_BOTTLENECK, 100 * GM_ATOMICS_U_SIGNIFICANT);
}

static void json_sm(FILE *out, int indent, const gm_atomics_sm_result *s, int modelled)
{
    const struct {
        const char *key;
        double v;
    } f[] = {{"N", s->N}, {"N_c", s->N_c}, {"N_popc", s->N_popc}, {"n", s->n}, {"e", s->e},
             {"c", s->c}, {"S", s->S},     {"B", s->B},           {"T", s->T}, {"U", s->U}};
    fputc('{', out);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        fprintf(out, "%s", i ? ", " : "");
        gm_json_write_string(out, f[i].key);
        fputs(": ", out);
        gm_json_write_num(out, modelled || strcmp(f[i].key, "U") == 0 ? f[i].v : NAN);
    }
    fputs(", \"clamps\": [", out);
    int any = 0;
    for (size_t i = 0; i < CLAMP_COUNT; i++)
        if (s->clamp_flags & clamp_table[i].bit) {
            fputs(any ? ", " : "", out);
            gm_json_write_string(out, clamp_table[i].name);
            any = 1;
        }
    fputs("]}", out);
    (void)indent;
}

static void atomics_json_extra(FILE *out, int indent, const void *state, const void *result)
{
    const atomics_state *s = state;
    const gm_atomics_kernel_result *r = &((const atomics_result *)result)->r;
    fprintf(out, ",\n%*s\"avg_sm\": ", indent, "");
    json_sm(out, indent, &r->avg, !isnan(r->avg.U));
    if (r->n_per_sm > 0 && r->per_sm) {
        fprintf(out, ",\n%*s\"per_sm\": [", indent, "");
        for (int i = 0; i < r->n_per_sm; i++) {
            fprintf(out, "%s\n%*s", i ? "," : "", indent + 2, "");
            json_sm(out, indent + 2, &r->per_sm[i], 1);
        }
        fprintf(out, "\n%*s]", indent, "");
    }
    fprintf(out, ",\n%*s\"approximations\": [", indent, "");
    const char *lines[8];
    size_t k = approximations(&s->opt, r->notes, lines, 8);
    for (size_t i = 0; i < k; i++) {
        fputs(i ? ", " : "", out);
        gm_json_write_string(out, lines[i]);
    }
    fputc(']', out);
    fprintf(out, ",\n%*s\"note_texts\": [", indent, "");
    int any = 0;
    for (size_t i = 0; i < NOTE_COUNT; i++)
        if (r->notes & note_table[i].bit) {
            fputs(any ? ", " : "", out);
            gm_json_write_string(out, note_table[i].text);
            any = 1;
        }
    fputc(']', out);
}

static const char *const atomics_metrics[] = {
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_shared_atom_dot_cas.sum",
    "smsp__inst_executed_op_shared_atom_dot_alu.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "sm__cycles_active.sum",
    "sm__cycles_active.avg",
    "sm__cycles_active.min",
    "sm__cycles_active.max",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "gpu__time_duration.sum",
    "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum",
    "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum",
    "smsp__warps_issue_stalled_short_scoreboard.sum", /* latency kind (atomics_latency.h) */
    "smsp__warps_issue_stalled_mio_throttle.sum",
    "smsp__warps_issue_stalled_wait.sum", /* latency kind, issue form */
    "smsp__warps_issue_stalled_selected.sum",
    NULL,
};

static const char *const atomics_suites[] = {"atomics", NULL};

const gm_unit gm_unit_atomics = {
    .name = "atomics",
    .title = "shared atomics",
    .paper = "Dong & Pai, utilization of the shared-memory atomic unit (paper 000, Sec. 3)",
    .metrics = atomics_metrics,
    .suites = atomics_suites,
    .variants = "default,paper,steady,measured-n,measured-steady,opcode,wavefront,latency-sb-mio",
    .result_size = sizeof(atomics_result),
    .prepare = atomics_prepare,
    .release = atomics_release,
    .apply = atomics_apply,
    .free_result = atomics_free_result,
    .fields = atomics_fields,
    .verdict = atomics_verdict,
    .text_notes = atomics_text_notes,
    .note_flags = atomics_note_flags,
    .json_extra = atomics_json_extra,
    .format = &gm_atomics_format,
    /* Hopper counts ATOMS.CAS but does not tell ATOMS.ADD from ATOMS.POPC.INC
     * (docs/profile.md): gpuq profile splits them from the code and a second
     * run, when the non-CAS count was gathered (atomics_split.c). */
    .code_pass = &gm_atomics_code_pass,
};
