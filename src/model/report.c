/* The utilization report: the model applied to every launch of a counters
 * set (paper Sec. 3.3, Table 2), or to the launches of each kernel summed
 * (--summary), and three writers (text, CSV, JSON) over one row view. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_internal.h"
#include "gpuq/report.h"

static const char *const format_names[GM_FORMAT_COUNT] = {"text", "csv", "json"};

gm_status gm_format_parse(const char *name, gm_format *out)
{
    if (!name || !out)
        return GM_ERR_INVALID_ARG;
    for (int f = 0; f < GM_FORMAT_COUNT; f++)
        if (strcmp(name, format_names[f]) == 0) {
            *out = (gm_format)f;
            return GM_OK;
        }
    return GM_ERR_PARSE;
}

const char *gm_format_name(gm_format f)
{
    return (int)f >= 0 && f < GM_FORMAT_COUNT ? format_names[f] : "unknown";
}

/* ------------------------------------------------------------------------
 * Building */

static const char *kernel_name(const gm_launch_counters *k)
{
    return k->kernel ? k->kernel : "(unnamed kernel)";
}

static gm_status apply_one(const gm_table *table, const gm_model_options *opt,
                           const gm_launch_counters *k, gm_kernel_result *r, gm_error *err)
{
    return gm_model_apply_report(table, opt, k, r, err);
}

gm_status gm_report_build(gm_report *rep, const gm_counters_set *set, const gm_table *table,
                          const char *table_path, const gm_model_options *opt, gm_error *err)
{
    if (!rep || !set || !table || !opt)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no report, counters, table or model");
    memset(rep, 0, sizeof *rep);
    rep->counters = set;
    rep->table = table;
    rep->table_path = table_path ? table_path : "(table)";
    rep->options = *opt;
    if (set->count == 0)
        return GM_OK;
    rep->results = calloc(set->count, sizeof *rep->results);
    if (!rep->results)
        return gm_fail(err, GM_ERR_NOMEM, "report: cannot allocate %zu results", set->count);
    for (size_t i = 0; i < set->count; i++) {
        gm_status st = apply_one(table, opt, &set->launches[i], &rep->results[i], err);
        if (st != GM_OK) {
            gm_report_free(rep);
            return st;
        }
        rep->count = i + 1;
    }
    return GM_OK;
}

void gm_report_free(gm_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->count; i++)
        gm_kernel_result_free(&rep->results[i]);
    free(rep->results);
    rep->results = NULL;
    rep->count = 0;
}

/* ------------------------------------------------------------------------
 * The row view the writers share: per launch, or per kernel name */

typedef struct report_rows {
    size_t count;
    const gm_launch_counters *launches; /* count entries */
    const gm_kernel_result *results;    /* count entries */
    size_t *launch_count;               /* summary: launches per row; NULL per launch */
    int *config_varies;                 /* summary: launch configs differ within the row */
    /* owned by the summary */
    gm_counters_set sums;
    gm_kernel_result *own_results;
} report_rows;

static void rows_free(report_rows *rows)
{
    if (rows->own_results)
        for (size_t i = 0; i < rows->count; i++)
            gm_kernel_result_free(&rows->own_results[i]);
    free(rows->own_results);
    free(rows->launch_count);
    free(rows->config_varies);
    gm_counters_set_clear(&rows->sums);
    memset(rows, 0, sizeof *rows);
}

/* Adds launch k into the kernel's sum.  Counts and cycles add up over
 * launches (Table 1 quantities are totals over the measurement period), so
 * U recomputed from the sums is the kernel's busy time over its active
 * time.  Occupancy is an average over cycles: it is averaged weighted by
 * active cycles (plain mean where cycles are missing). */
static void add_into(gm_launch_counters *sum, const gm_launch_counters *k, double *occ_weight,
                     double *occ_plain, size_t n_before)
{
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        if (m != GM_M_OCCUPANCY_PCT)
            sum->metric[m] = n_before ? sum->metric[m] + k->metric[m] : k->metric[m];
    double w = k->metric[GM_M_CYCLES_SUM];
    double o = k->metric[GM_M_OCCUPANCY_PCT];
    occ_weight[0] = n_before ? occ_weight[0] + w * o : w * o;
    occ_weight[1] = n_before ? occ_weight[1] + w : w;
    *occ_plain = n_before ? *occ_plain + o : o;
    if (n_before == 0) {
        sum->split = k->split;
    } else if (sum->split.valid && k->split.valid) {
        sum->split.add += k->split.add;
        sum->split.cas += k->split.cas;
        sum->split.popc_inc += k->split.popc_inc;
        sum->split.other += k->split.other;
    } else {
        sum->split.valid = 0;
        sum->split.add = sum->split.cas = sum->split.popc_inc = sum->split.other = NAN;
    }
}

static int same_config(const gm_launch_counters *a, const gm_launch_counters *b)
{
    return memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
           memcmp(a->block, b->block, sizeof a->block) == 0 &&
           a->regs_per_thread == b->regs_per_thread && a->shared_bytes == b->shared_bytes &&
           a->device == b->device;
}

static gm_status build_summary(const gm_report *rep, report_rows *rows, gm_error *err)
{
    const gm_counters_set *set = rep->counters;
    gm_status st = GM_OK;
    size_t n = set->count;
    size_t *group_of = malloc((n ? n : 1) * sizeof *group_of);
    double *occ = calloc((n ? n : 1) * 3, sizeof *occ); /* weighted sum, weight, plain sum */
    rows->launch_count = calloc(n ? n : 1, sizeof *rows->launch_count);
    rows->config_varies = calloc(n ? n : 1, sizeof *rows->config_varies);
    if (!group_of || !occ || !rows->launch_count || !rows->config_varies) {
        st = gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
        goto done;
    }
    rows->sums.meta = set->meta;
    /* Groups in order of first appearance; quadratic in kernel names,
     * which are few. */
    for (size_t i = 0; i < n; i++) {
        const gm_launch_counters *k = &set->launches[i];
        size_t g = 0;
        while (g < rows->sums.count && strcmp(rows->sums.launches[g].kernel, kernel_name(k)) != 0)
            g++;
        if (g == rows->sums.count) {
            gm_launch_counters first;
            gm_launch_counters_init(&first);
            if ((st = gm_launch_counters_set_names(&first, kernel_name(k), k->mangled)) != GM_OK ||
                (st = gm_counters_set_push(&rows->sums, &first)) != GM_OK) {
                gm_launch_counters_clear(&first);
                st = gm_fail(err, st, "summary: out of memory");
                goto done;
            }
            gm_launch_counters *s = &rows->sums.launches[g];
            s->launch_id = k->launch_id;
            s->device = k->device;
            memcpy(s->grid, k->grid, sizeof s->grid);
            memcpy(s->block, k->block, sizeof s->block);
            s->regs_per_thread = k->regs_per_thread;
            s->shared_bytes = k->shared_bytes;
        } else if (!same_config(&rows->sums.launches[g], k)) {
            rows->config_varies[g] = 1;
        }
        group_of[i] = g;
        add_into(&rows->sums.launches[g], k, &occ[3 * g], &occ[3 * g + 2],
                 rows->launch_count[g]);
        rows->launch_count[g]++;
    }
    rows->count = rows->sums.count;
    for (size_t g = 0; g < rows->count; g++) {
        double weighted = occ[3 * g] / occ[3 * g + 1];
        rows->sums.launches[g].metric[GM_M_OCCUPANCY_PCT] =
            isfinite(weighted) ? weighted : occ[3 * g + 2] / (double)rows->launch_count[g];
    }
    rows->own_results = calloc(rows->count ? rows->count : 1, sizeof *rows->own_results);
    if (!rows->own_results) {
        st = gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
        goto done;
    }
    for (size_t g = 0; g < rows->count; g++)
        if ((st = apply_one(rep->table, &rep->options, &rows->sums.launches[g],
                            &rows->own_results[g], err)) != GM_OK)
            goto done;
    rows->launches = rows->sums.launches;
    rows->results = rows->own_results;
done:
    free(group_of);
    free(occ);
    return st;
}

static gm_status rows_make(const gm_report *rep, report_rows *rows, gm_error *err)
{
    memset(rows, 0, sizeof *rows);
    if (rep->summary) {
        gm_status st = build_summary(rep, rows, err);
        if (st != GM_OK)
            rows_free(rows);
        return st;
    }
    rows->count = rep->count;
    rows->launches = rep->counters->launches;
    rows->results = rep->results;
    return GM_OK;
}

/* ------------------------------------------------------------------------
 * Shared descriptions */

static const char *n_source_name(gm_n_source s)
{
    return s == GM_N_MEASURED ? "measured" : "occupancy";
}

static const char *split_name(gm_class_split s)
{
    return s == GM_SPLIT_BY_OPCODE ? "by_opcode" : "fao_cas";
}

/* One line per approximation the model variant makes, labelled as such. */
static size_t approximations(const gm_model_options *opt, unsigned notes, const char **lines,
                             size_t max)
{
    size_t n = 0;
#define APPROX(text)        \
    do {                    \
        if (n < max)        \
            lines[n++] = text; \
    } while (0)
    if (opt->busy == GM_BUSY_WAVEFRONTS) {
        APPROX("B = O x w: each wavefront holds the unit w cycles, w from the table's "
               "steady-state e slope (not the paper's Table 2; docs/model.md)");
        APPROX("U = share of the unit's peak wavefront rate in use; reads low where few "
               "atomics are in flight (latency-bound; docs/validation.md)");
    } else {
        if (opt->n_source == GM_N_OCCUPANCY)
            APPROX("n = occupancy x warps/SM (approximation, paper Table 2)");
        else
            APPROX("n = LSU shared-pipe pending / active cycles x atomics' share of that pipe "
                   "(measured queue length; not in the paper)");
        if (opt->method == GM_METHOD_SINGLE_SHOT)
            APPROX("S = T(n,e,c) / n from the single-shot table (paper Sec. 3.2, Eq. 1-3)");
        else
            APPROX("S from the steady-state table (not the paper's method)");
        if (opt->split == GM_SPLIT_FAO_CAS)
            APPROX("jobs: N_f = every non-CAS ATOMS (POPC.INC included), N_c = ATOMS.CAS "
                   "(paper Table 1)");
        else
            APPROX("jobs split by opcode from the SASS: POPC.INC on its own series");
    }
    if (notes & GM_NOTE_E_UNIFORM)
        APPROX("e = O / N for the whole GPU, assumed the same on every SM (approximation, "
               "paper Sec. 3.3)");
    if (notes & GM_NOTE_AVG_SM)
        APPROX("average SM: no per-SM counters on this GPU, N and T are totals / SM count "
               "(approximation); U bounds use the slowest and fastest SM's active cycles");
#undef APPROX
    return n;
}

static unsigned all_notes(const report_rows *rows)
{
    unsigned notes = 0;
    for (size_t i = 0; i < rows->count; i++)
        notes |= rows->results[i].notes;
    return notes;
}

static const struct {
    unsigned bit;
    const char *name;
    const char *text;
} note_table[] = {
    {GM_NOTE_NO_ATOMICS, "no_atomics", "no shared-memory atomics: U = 0"},
    {GM_NOTE_AVG_SM, "avg_sm", "average SM with bounds (no per-SM counters)"},
    {GM_NOTE_N_APPROX, "n_approx", "n is occupancy x warps/SM (paper's approximation)"},
    {GM_NOTE_E_UNIFORM, "e_uniform", "e assumed the same on every SM"},
    {GM_NOTE_SPLIT_FALLBACK, "split_fallback", "class split not available: fell back"},
    {GM_NOTE_CLAMPED, "clamped", "an input was clamped to the table's grid"},
    {GM_NOTE_MISSING_COUNTER, "missing_counter", "a counter the variant needs is missing"},
    {GM_NOTE_W_SINGLE_SHOT, "w_single_shot", "w read off the single-shot series (no steady-state one)"},
};
#define NOTE_COUNT (sizeof note_table / sizeof note_table[0])

static const struct {
    unsigned bit;
    const char *name;
} clamp_table[] = {
    {GM_CLAMP_N_HIGH, "n_high"}, {GM_CLAMP_E_LOW, "e_low"},   {GM_CLAMP_E_HIGH, "e_high"},
    {GM_CLAMP_C_LOW, "c_low"},   {GM_CLAMP_C_HIGH, "c_high"},
};
#define CLAMP_COUNT (sizeof clamp_table / sizeof clamp_table[0])

/* "132" for (132,1,1), "64,2" for (64,2,1), "8,8,4" otherwise */
static void format_dim3(char *buf, size_t len, const unsigned d[3])
{
    if (d[1] == 1 && d[2] == 1)
        snprintf(buf, len, "%u", d[0]);
    else if (d[2] == 1)
        snprintf(buf, len, "%u,%u", d[0], d[1]);
    else
        snprintf(buf, len, "%u,%u,%u", d[0], d[1], d[2]);
}

/* ------------------------------------------------------------------------
 * Text */

/* Compact number: 4 significant digits, "-" for NaN. */
static void fmt_num(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, len, "%.3g", v);
    else if (fabs(v) >= 1000)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.0f%%", 100 * v);
}

/* Kernel names are long (templates, parameter lists): cut to width with
 * "..." so that the table stays a table; the full name is in CSV/JSON. */
static void shorten(char *buf, size_t width, const char *name)
{
    size_t len = strlen(name);
    if (len <= width) {
        memcpy(buf, name, len + 1);
    } else {
        memcpy(buf, name, width - 3);
        memcpy(buf + width - 3, "...", 4);
    }
    for (char *p = buf; *p; p++) /* one row per launch, whatever the name holds */
        if (iscntrl((unsigned char)*p))
            *p = ' ';
}

#define KERNEL_WIDTH 30

static void write_text_header(FILE *out, const gm_report *rep, const report_rows *rows)
{
    const gm_counters_meta *cm = &rep->counters->meta;
    const gm_table_meta *tm = &rep->table->meta;
    fprintf(out, "gpuq model report: shared-memory atomic utilization (Dong & Pai, Sec. 3)\n");
    fprintf(out, "table:   %s (%s, %d SMs, %d warps/SM, calibrated %s)\n", rep->table_path,
            tm->gpu_name, tm->sm_count, tm->max_warps_per_sm, tm->date);
    fprintf(out, "device:  %s (cc %d.%d, %d SMs, %d warps/SM)\n",
            cm->device_name[0] ? cm->device_name : "(not named in the counters)", cm->cc_major,
            cm->cc_minor, cm->sm_count, cm->max_warps_per_sm);
    if (cm->source[0])
        fprintf(out, "source:  %s\n", cm->source);
    if (cm->command[0])
        fprintf(out, "command: %s\n", cm->command);
    const gm_model_options *o = &rep->options;
    if (o->busy == GM_BUSY_WAVEFRONTS)
        fprintf(out, "model:   %s (busy time: wavefronts x w, w from the %s table)\n",
                o->name ? o->name : "?", gm_method_name(o->method));
    else
        fprintf(out, "model:   %s (S: %s, n: %s, jobs: %s, pattern: %s)\n",
                o->name ? o->name : "?", gm_method_name(o->method), n_source_name(o->n_source),
                split_name(o->split), gm_pattern_name(o->pattern));
    const char *lines[8];
    size_t n = approximations(o, all_notes(rows), lines, 8);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  - %s\n", lines[i]);
    fprintf(out, "%s; N, n, c, S (cycles/job), B, T (cycles) are per average SM.\n",
            rep->summary ? "one row per kernel, launches summed" : "one row per launch");
    fputc('\n', out);
}

static void write_text(FILE *out, const gm_report *rep, const report_rows *rows)
{
    write_text_header(out, rep, rows);
    fprintf(out, "%6s  %-*s %13s %8s %6s %6s %6s %6s %6s %7s %8s %8s %5s %12s\n",
            rep->summary ? "first" : "id", KERNEL_WIDTH, rep->summary ? "kernel (launches)" : "kernel",
            "grid x block", "N/SM", "e", "n", "n-hat", "n-meas", "c", "S", "B", "T", "U",
            "[U lo, hi]");
    for (size_t i = 0; i < rows->count; i++) {
        const gm_launch_counters *k = &rows->launches[i];
        const gm_kernel_result *r = &rows->results[i];
        const gm_sm_result *a = &r->avg;
        int modelled = !isnan(a->U);
        char name[KERNEL_WIDTH + 1], label[KERNEL_WIDTH + 32], grid[40], block[40], config[88];
        if (rep->summary && rows->launch_count) {
            char suffix[32];
            snprintf(suffix, sizeof suffix, " (%zu)", rows->launch_count[i]);
            size_t room = KERNEL_WIDTH - strlen(suffix);
            shorten(name, room, kernel_name(k));
            snprintf(label, sizeof label, "%s%s", name, suffix);
        } else {
            shorten(name, KERNEL_WIDTH, kernel_name(k));
            snprintf(label, sizeof label, "%s", name);
        }
        format_dim3(grid, sizeof grid, k->grid);
        format_dim3(block, sizeof block, k->block);
        if (rows->config_varies && rows->config_varies[i])
            snprintf(config, sizeof config, "varies");
        else
            snprintf(config, sizeof config, "%s x %s", grid, block);
        /* Without atomics the model stops at N = 0: e, n, c, S are undefined. */
        int has_inputs = modelled && !(r->notes & GM_NOTE_NO_ATOMICS);
        char v[11][24];
        fmt_num(v[0], sizeof v[0], modelled ? a->N : NAN);
        fmt_num(v[1], sizeof v[1], has_inputs ? a->e : NAN);
        fmt_num(v[2], sizeof v[2], has_inputs ? a->n : NAN);
        fmt_num(v[3], sizeof v[3], r->n_hat);
        fmt_num(v[4], sizeof v[4], r->n_measured);
        fmt_num(v[5], sizeof v[5], has_inputs ? a->c : NAN);
        fmt_num(v[6], sizeof v[6], has_inputs ? a->S : NAN);
        fmt_num(v[7], sizeof v[7], modelled ? a->B : NAN);
        fmt_num(v[8], sizeof v[8], modelled || (r->notes & GM_NOTE_NO_ATOMICS) ? a->T : NAN);
        fmt_pct(v[9], sizeof v[9], a->U);
        char lo[16], hi[16], bounds[40];
        fmt_pct(lo, sizeof lo, r->U_lo);
        fmt_pct(hi, sizeof hi, r->U_hi);
        if (isnan(r->U_lo) && isnan(r->U_hi))
            snprintf(bounds, sizeof bounds, "-");
        else
            snprintf(bounds, sizeof bounds, "[%s, %s]", lo, hi);
        fprintf(out, "%6" PRIu64 "  %-*s %13s %8s %6s %6s %6s %6s %6s %7s %8s %8s %5s %12s\n",
                k->launch_id, KERNEL_WIDTH, label, config, v[0], v[1], v[2], v[3], v[4], v[5],
                v[6], v[7], v[8], v[9], bounds);
    }
    if (rows->count == 0)
        fprintf(out, "(no kernel launches in the counters)\n");
    fputc('\n', out);
    fprintf(out, "verdicts:\n");
    for (size_t i = 0; i < rows->count; i++) {
        char name[KERNEL_WIDTH + 1];
        shorten(name, KERNEL_WIDTH, kernel_name(&rows->launches[i]));
        fprintf(out, "%6" PRIu64 "  %s: %s\n", rows->launches[i].launch_id, name,
                rows->results[i].verdict);
    }
}

/* ------------------------------------------------------------------------
 * CSV */

static void csv_num(FILE *out, double v)
{
    char buf[40];
    gm_csv_format_double(buf, sizeof buf, v);
    fputc(',', out);
    fputs(buf, out);
}

static void csv_text(FILE *out, const char *text)
{
    fputc(',', out);
    gm_csv_write_field(out, text);
}

static void notes_joined(char *buf, size_t len, unsigned notes, char sep)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NOTE_COUNT; i++)
        if (notes & note_table[i].bit) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? (char[]){sep, 0} : "",
                             note_table[i].name);
            if (w < 0 || (size_t)w >= len - used)
                return;
            used += (size_t)w;
        }
}

static void clamps_joined(char *buf, size_t len, unsigned flags)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < CLAMP_COUNT; i++)
        if (flags & clamp_table[i].bit) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", clamp_table[i].name);
            if (w < 0 || (size_t)w >= len - used)
                return;
            used += (size_t)w;
        }
}

static void write_csv(FILE *out, const gm_report *rep, const report_rows *rows)
{
    static const char *const lead[] = {"launch_id", "kernel", "mangled", "device", "grid_x",
                                       "grid_y", "grid_z", "block_x", "block_y", "block_z",
                                       "regs", "shared_bytes"};
    static const char *const tail[] = {
        "split_valid", "split_add", "split_cas", "split_popc_inc", "split_other",
        "model", "method", "n_source", "split", "pattern", "table",
        "sm_count", "N_total", "N", "N_c", "N_popc", "n", "n_hat", "n_measured", "e", "c", "S",
        "B", "T", "U", "U_lo", "U_hi", "clamps", "notes", "split_source", "verdict"};
    for (size_t i = 0; i < sizeof lead / sizeof lead[0]; i++) {
        fprintf(out, "%s%s", i ? "," : "", lead[i]);
        if (i == 1 && rep->summary)
            fputs(",launches,config_varies", out);
    }
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        fprintf(out, ",%s", gm_metric_table[m].column);
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        fprintf(out, ",%s", tail[i]);
    fputc('\n', out);
    const gm_model_options *o = &rep->options;
    for (size_t i = 0; i < rows->count; i++) {
        const gm_launch_counters *k = &rows->launches[i];
        const gm_kernel_result *r = &rows->results[i];
        const gm_sm_result *a = &r->avg;
        int modelled = !isnan(a->U);
        fprintf(out, "%" PRIu64, k->launch_id);
        csv_text(out, kernel_name(k));
        if (rep->summary)
            fprintf(out, ",%zu,%d", rows->launch_count[i], rows->config_varies[i]);
        csv_text(out, k->mangled ? k->mangled : kernel_name(k));
        fprintf(out, ",%d,%u,%u,%u,%u,%u,%u,%d,%d", k->device, k->grid[0], k->grid[1], k->grid[2],
                k->block[0], k->block[1], k->block[2], k->regs_per_thread, k->shared_bytes);
        for (int m = 0; m < GM_METRIC_COUNT; m++)
            csv_num(out, k->metric[m]);
        fprintf(out, ",%d", k->split.valid ? 1 : 0);
        csv_num(out, k->split.valid ? k->split.add : NAN);
        csv_num(out, k->split.valid ? k->split.cas : NAN);
        csv_num(out, k->split.valid ? k->split.popc_inc : NAN);
        csv_num(out, k->split.valid ? k->split.other : NAN);
        csv_text(out, o->name ? o->name : "");
        csv_text(out, gm_method_name(o->method));
        csv_text(out, n_source_name(o->n_source));
        csv_text(out, split_name(o->split));
        csv_text(out, gm_pattern_name(o->pattern));
        csv_text(out, rep->table_path);
        fprintf(out, ",%d", r->sm_count);
        csv_num(out, modelled ? a->N * r->sm_count : NAN);
        double vals[] = {a->N, a->N_c, a->N_popc, a->n};
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++)
            csv_num(out, modelled ? vals[v] : NAN);
        csv_num(out, r->n_hat);
        csv_num(out, r->n_measured);
        double more[] = {a->e, a->c, a->S, a->B, a->T};
        for (size_t v = 0; v < sizeof more / sizeof more[0]; v++)
            csv_num(out, modelled ? more[v] : NAN);
        csv_num(out, a->U);
        csv_num(out, r->U_lo);
        csv_num(out, r->U_hi);
        char buf[256];
        clamps_joined(buf, sizeof buf, a->clamp_flags);
        csv_text(out, buf);
        notes_joined(buf, sizeof buf, r->notes, '|');
        csv_text(out, buf);
        csv_text(out, r->split_source);
        csv_text(out, r->verdict);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------------
 * JSON, written by hand: strings escaped per RFC 8259, NaN as null. */

static void json_num(FILE *out, double v)
{
    char buf[40];
    if (!isfinite(v)) {
        fputs("null", out);
        return;
    }
    gm_csv_format_double(buf, sizeof buf, v);
    fputs(buf, out);
}

static void json_key(FILE *out, int indent, const char *key, int *first)
{
    fprintf(out, "%s\n%*s", *first ? "" : ",", indent, "");
    *first = 0;
    gm_json_write_string(out, key);
    fputs(": ", out);
}

static void json_sm(FILE *out, int indent, const gm_sm_result *s, int modelled)
{
    int first = 1;
    fputc('{', out);
    const struct {
        const char *key;
        double v;
    } f[] = {{"N", s->N}, {"N_c", s->N_c}, {"N_popc", s->N_popc}, {"n", s->n}, {"e", s->e},
             {"c", s->c}, {"S", s->S},     {"B", s->B},           {"T", s->T}, {"U", s->U}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        json_key(out, indent + 2, f[i].key, &first);
        json_num(out, modelled || strcmp(f[i].key, "U") == 0 ? f[i].v : NAN);
    }
    json_key(out, indent + 2, "clamps", &first);
    fputc('[', out);
    int any = 0;
    for (size_t i = 0; i < CLAMP_COUNT; i++)
        if (s->clamp_flags & clamp_table[i].bit) {
            fputs(any ? ", " : "", out);
            gm_json_write_string(out, clamp_table[i].name);
            any = 1;
        }
    fprintf(out, "]\n%*s}", indent, "");
}

static void json_dim3(FILE *out, const unsigned d[3])
{
    fprintf(out, "[%u, %u, %u]", d[0], d[1], d[2]);
}

static void json_launch(FILE *out, const report_rows *rows, size_t i, int summary)
{
    const gm_launch_counters *k = &rows->launches[i];
    const gm_kernel_result *r = &rows->results[i];
    int modelled = !isnan(r->avg.U);
    int first = 1, ind = 6;
    fputs("    {", out);
    json_key(out, ind, "launch_id", &first);
    fprintf(out, "%" PRIu64, k->launch_id);
    if (summary) {
        json_key(out, ind, "launches", &first);
        fprintf(out, "%zu", rows->launch_count[i]);
        json_key(out, ind, "config_varies", &first);
        fputs(rows->config_varies[i] ? "true" : "false", out);
    }
    json_key(out, ind, "kernel", &first);
    gm_json_write_string(out, kernel_name(k));
    json_key(out, ind, "mangled", &first);
    gm_json_write_string(out, k->mangled ? k->mangled : kernel_name(k));
    json_key(out, ind, "device", &first);
    fprintf(out, "%d", k->device);
    json_key(out, ind, "grid", &first);
    json_dim3(out, k->grid);
    json_key(out, ind, "block", &first);
    json_dim3(out, k->block);
    json_key(out, ind, "regs_per_thread", &first);
    if (k->regs_per_thread >= 0)
        fprintf(out, "%d", k->regs_per_thread);
    else
        fputs("null", out);
    json_key(out, ind, "shared_bytes", &first);
    if (k->shared_bytes >= 0)
        fprintf(out, "%d", k->shared_bytes);
    else
        fputs("null", out);
    json_key(out, ind, "counters", &first);
    fputc('{', out);
    int cfirst = 1;
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        json_key(out, ind + 2, gm_metric_table[m].name, &cfirst);
        json_num(out, k->metric[m]);
    }
    fprintf(out, "\n%*s}", ind, "");
    json_key(out, ind, "split", &first);
    fprintf(out, "{\"valid\": %s, \"add\": ", k->split.valid ? "true" : "false");
    json_num(out, k->split.valid ? k->split.add : NAN);
    fputs(", \"cas\": ", out);
    json_num(out, k->split.valid ? k->split.cas : NAN);
    fputs(", \"popc_inc\": ", out);
    json_num(out, k->split.valid ? k->split.popc_inc : NAN);
    fputs(", \"other\": ", out);
    json_num(out, k->split.valid ? k->split.other : NAN);
    fputs("}", out);
    json_key(out, ind, "sm_count", &first);
    fprintf(out, "%d", r->sm_count);
    json_key(out, ind, "N_total", &first);
    json_num(out, modelled ? r->avg.N * r->sm_count : NAN);
    json_key(out, ind, "n_hat", &first);
    json_num(out, r->n_hat);
    json_key(out, ind, "n_measured", &first);
    json_num(out, r->n_measured);
    json_key(out, ind, "avg_sm", &first);
    json_sm(out, ind, &r->avg, modelled);
    json_key(out, ind, "U", &first);
    json_num(out, r->avg.U);
    json_key(out, ind, "U_lo", &first);
    json_num(out, r->U_lo);
    json_key(out, ind, "U_hi", &first);
    json_num(out, r->U_hi);
    if (r->n_per_sm > 0 && r->per_sm) {
        json_key(out, ind, "per_sm", &first);
        fputc('[', out);
        for (int s = 0; s < r->n_per_sm; s++) {
            fprintf(out, "%s\n%*s", s ? "," : "", ind + 2, "");
            json_sm(out, ind + 2, &r->per_sm[s], 1);
        }
        fprintf(out, "\n%*s]", ind, "");
    }
    json_key(out, ind, "notes", &first);
    fputc('[', out);
    int any = 0;
    for (size_t n = 0; n < NOTE_COUNT; n++)
        if (r->notes & note_table[n].bit) {
            fputs(any ? ", " : "", out);
            gm_json_write_string(out, note_table[n].text);
            any = 1;
        }
    fputc(']', out);
    json_key(out, ind, "split_source", &first);
    gm_json_write_string(out, r->split_source);
    json_key(out, ind, "verdict", &first);
    gm_json_write_string(out, r->verdict);
    fputs("\n    }", out);
}

static void write_json(FILE *out, const gm_report *rep, const report_rows *rows)
{
    const gm_counters_meta *cm = &rep->counters->meta;
    const gm_table_meta *tm = &rep->table->meta;
    const gm_model_options *o = &rep->options;
    int first = 1;
    fputc('{', out);
    json_key(out, 2, "format", &first);
    gm_json_write_string(out, "gpuq report v1");
    json_key(out, 2, "gpuq_version", &first);
    gm_json_write_string(out, GPUQ_VERSION);
    json_key(out, 2, "meta", &first);
    fprintf(out, "{\"device_name\": ");
    gm_json_write_string(out, cm->device_name);
    fprintf(out, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, "
                 "\"max_warps_per_sm\": %d, \"source\": ",
            cm->cc_major, cm->cc_minor, cm->sm_count, cm->max_warps_per_sm);
    gm_json_write_string(out, cm->source);
    fputs(", \"command\": ", out);
    gm_json_write_string(out, cm->command);
    fputs("}", out);
    json_key(out, 2, "table", &first);
    fputs("{\"path\": ", out);
    gm_json_write_string(out, rep->table_path);
    fputs(", \"gpu_name\": ", out);
    gm_json_write_string(out, tm->gpu_name);
    fprintf(out, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, "
                 "\"max_warps_per_sm\": %d, \"warp_size\": %d, \"sm_clock_mhz\": ",
            tm->cc_major, tm->cc_minor, tm->sm_count, tm->max_warps_per_sm, tm->warp_size);
    json_num(out, tm->sm_clock_mhz);
    fputs(", \"date\": ", out);
    gm_json_write_string(out, tm->date);
    fputs(", \"gpuq_version\": ", out);
    gm_json_write_string(out, tm->gpuq_version);
    fputs(", \"method_note\": ", out);
    gm_json_write_string(out, tm->method_note);
    fputs(", \"series\": [", out);
    for (int s = 0; s < rep->table->n_series; s++) {
        const gm_series *se = &rep->table->series[s];
        char label[96];
        snprintf(label, sizeof label, "%s,%s,%s", gm_class_name(se->cls),
                 gm_pattern_name(se->pattern), gm_method_name(se->method));
        fputs(s ? ", " : "", out);
        gm_json_write_string(out, label);
    }
    fputs("]}", out);
    json_key(out, 2, "model", &first);
    fputs("{\"name\": ", out);
    gm_json_write_string(out, o->name ? o->name : "");
    fputs(", \"method\": ", out);
    gm_json_write_string(out, gm_method_name(o->method));
    fputs(", \"n_source\": ", out);
    gm_json_write_string(out, n_source_name(o->n_source));
    fputs(", \"split\": ", out);
    gm_json_write_string(out, split_name(o->split));
    fputs(", \"pattern\": ", out);
    gm_json_write_string(out, gm_pattern_name(o->pattern));
    fprintf(out, ", \"U_bottleneck\": %.2f, \"U_significant\": %.2f, \"approximations\": [",
            GM_U_BOTTLENECK, GM_U_SIGNIFICANT);
    const char *lines[8];
    size_t n = approximations(o, all_notes(rows), lines, 8);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        gm_json_write_string(out, lines[i]);
    }
    fputs("]}", out);
    json_key(out, 2, "summary", &first);
    fputs(rep->summary ? "true" : "false", out);
    json_key(out, 2, "launches", &first);
    fputc('[', out);
    for (size_t i = 0; i < rows->count; i++) {
        fputs(i ? ",\n" : "\n", out);
        json_launch(out, rows, i, rep->summary);
    }
    fputs(rows->count ? "\n  ]\n}\n" : "]\n}\n", out);
}

gm_status gm_report_write(FILE *out, const gm_report *rep, gm_format fmt, gm_error *err)
{
    if (!out || !rep || !rep->counters || !rep->table || (rep->count && !rep->results) ||
        (int)fmt < 0 || fmt >= GM_FORMAT_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no stream, report or valid format");
    report_rows rows;
    gm_status st = rows_make(rep, &rows, err);
    if (st != GM_OK)
        return st;
    switch (fmt) {
    case GM_FORMAT_TEXT:
        write_text(out, rep, &rows);
        break;
    case GM_FORMAT_CSV:
        write_csv(out, rep, &rows);
        break;
    default:
        write_json(out, rep, &rows);
        break;
    }
    rows_free(&rows);
    if (fflush(out) != 0 || ferror(out))
        return gm_fail(err, GM_ERR_IO, "report: write failed");
    return GM_OK;
}
