/* The report (gpuq/report.h): every selected unit applied to every launch
 * of the counters files, and the row view the writers share: per launch, or
 * per kernel of each file with --summary (launches summed, every section
 * re-applied to the sums), with one verdict per row (the most severe
 * section's) and the kernel names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/metrics.h"
#include "report_rank.h"

static const char *const format_names[GM_FORMAT_COUNT] = {"text", "csv", "json", "html"};

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
 * Choosing the sections */

/* 1 when name is one of the comma-separated list. */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p = end ? end + 1 : p + n;
    }
    return 0;
}

/* The variant opt gives unit u ("" none); GM_ERR_INVALID_ARG for a variant
 * of an unknown unit or one the unit does not know. */
static gm_status check_variants(const gm_report_options *opt, gm_error *err)
{
    for (size_t i = 0; opt->variants && opt->variants[i]; i++) {
        const char *v = opt->variants[i], *colon = strchr(v, ':');
        char unit_name[64];
        snprintf(unit_name, sizeof unit_name, "%s", gm_units[0]->name);
        if (colon) {
            snprintf(unit_name, sizeof unit_name, "%.*s", (int)(colon - v), v);
            v = colon + 1;
        }
        const gm_unit *u = gm_unit_find(unit_name);
        if (!u)
            return gm_fail(err, GM_ERR_INVALID_ARG, "unknown section '%s' in model '%s'",
                           unit_name, opt->variants[i]);
        if (!in_list(u->variants, v))
            return gm_fail(err, GM_ERR_INVALID_ARG, "unknown model '%s' (known: %s%s%s)",
                           opt->variants[i], colon ? "" : u->name, colon ? "" : ": ",
                           u->variants);
    }
    return GM_OK;
}

gm_status gm_report_check_options(const gm_report_options *opt, gm_error *err)
{
    if (!opt)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no options");
    gm_status st = check_variants(opt, err);
    for (size_t i = 0; st == GM_OK && opt->sections && opt->sections[i]; i++)
        if (!gm_unit_find(opt->sections[i])) {
            char known[256] = "";
            for (size_t u = 0; gm_units[u]; u++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         u ? ", " : "", gm_units[u]->name);
            st = gm_fail(err, GM_ERR_INVALID_ARG, "unknown section '%s' (known: %s)",
                         opt->sections[i], known);
        }
    return st;
}

static const char *variant_for(const gm_report_options *opt, const gm_unit *u)
{
    const char *found = NULL;
    for (size_t i = 0; opt->variants && opt->variants[i]; i++) {
        const char *v = opt->variants[i], *colon = strchr(v, ':');
        if (colon ? (strlen(u->name) == (size_t)(colon - v) &&
                     strncmp(v, u->name, (size_t)(colon - v)) == 0)
                  : u == gm_units[0])
            found = colon ? colon + 1 : v; /* the last one given wins */
    }
    return found;
}

/* 1 when some launch of the report holds some metric the unit reads. */
static int has_any_metric(const gm_report *rep, const gm_unit *u)
{
    for (size_t i = 0; u->metrics && u->metrics[i]; i++) {
        int row = gm_metric_find(u->metrics[i]);
        for (size_t k = 0; row >= 0 && k < rep->n_launches; k++)
            if (!isnan(rep->launches[k]->metric[row]))
                return 1;
    }
    return rep->n_launches == 0 || !u->metrics || !u->metrics[0];
}

static void add_skipped(gm_report *rep, const char *fmt, const char *a, const char *b)
{
    if (rep->n_skipped < sizeof rep->skipped / sizeof rep->skipped[0])
        snprintf(rep->skipped[rep->n_skipped++], sizeof rep->skipped[0], fmt, a, b);
}

static gm_status add_section(gm_report *rep, const gm_unit *u, const gm_report_options *opt,
                             int named, gm_error *err)
{
    if (!gm_machine_has(rep->machine, u->suites)) {
        /* the machine's line names the suite and the command */
        if (named) {
            /* the line of a suite it needs ("<suite>: ..."): by the suite,
             * not by a substring ("atomics" is inside "gatomics") */
            for (const char *const *sp = u->suites; sp && *sp; sp++)
                for (size_t i = 0; i < rep->machine->n_missing; i++) {
                    const char *line = rep->machine->missing[i];
                    size_t n = strlen(*sp);
                    if (strncmp(line, *sp, n) == 0 && line[n] == ':')
                        return gm_fail(err, GM_ERR_MISSING, "section %s: %s", u->name, line);
                }
            return gm_fail(err, GM_ERR_MISSING, "section %s: its machine data is missing",
                           u->name);
        }
        return GM_OK; /* listed with the machine's missing lines */
    }
    if (!has_any_metric(rep, u)) {
        if (named)
            return gm_fail(err, GM_ERR_MISSING,
                           "section %s: the counters hold none of its metrics", u->name);
        add_skipped(rep, "%s: the counters hold none of its metrics (%s)", u->name,
                    "collect them with 'gpuq profile'");
        return GM_OK;
    }
    if (rep->n_sections >= GM_REPORT_MAX_SECTIONS)
        return gm_fail(err, GM_ERR_RANGE, "report: more than %d sections", GM_REPORT_MAX_SECTIONS);
    gm_report_section *s = &rep->sections[rep->n_sections];
    const char *variant = variant_for(opt, u);
    snprintf(s->variant, sizeof s->variant, "%s", variant ? variant : "");
    s->unit = u;
    gm_status st = u->prepare(rep->machine, variant, &s->state, err);
    if (st != GM_OK)
        return st;
    rep->n_sections++;
    s->results = calloc(rep->n_launches ? rep->n_launches : 1, u->result_size);
    if (!s->results)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    for (size_t k = 0; k < rep->n_launches; k++) {
        const gm_counters_meta *meta = &rep->files[rep->file_of[k]].set->meta;
        if ((st = u->apply(s->state, meta, rep->launches[k], s->results + k * u->result_size,
                           err)) != GM_OK)
            return st;
    }
    return GM_OK;
}

static gm_status collect_launches(gm_report *rep, gm_error *err)
{
    size_t n = 0;
    for (size_t f = 0; f < rep->n_files; f++)
        n += rep->files[f].set->count;
    rep->launches = calloc(n ? n : 1, sizeof *rep->launches);
    rep->file_of = calloc(n ? n : 1, sizeof *rep->file_of);
    if (!rep->launches || !rep->file_of)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    for (size_t f = 0; f < rep->n_files; f++)
        for (size_t i = 0; i < rep->files[f].set->count; i++) {
            rep->launches[rep->n_launches] = &rep->files[f].set->launches[i];
            rep->file_of[rep->n_launches++] = f;
        }
    return GM_OK;
}

gm_status gm_report_make(gm_report *rep, const gm_report_file *files, size_t n_files,
                         const gm_machine *machine, const gm_report_options *opt,
                         gm_error *err)
{
    if (!rep || !files || n_files == 0 || !machine || !opt)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no counters, machine data or options");
    if (n_files > GM_REPORT_MAX_FILES)
        return gm_fail(err, GM_ERR_RANGE, "report: more than %d counters files",
                       GM_REPORT_MAX_FILES);
    memset(rep, 0, sizeof *rep);
    for (size_t f = 0; f < n_files; f++)
        if (!files[f].set)
            return gm_fail(err, GM_ERR_INVALID_ARG, "report: file %zu has no counters", f);
    memcpy(rep->files, files, n_files * sizeof *files);
    rep->n_files = n_files;
    rep->machine = machine;
    rep->summary = opt->summary;
    rep->name_base = opt->name_base;
    gm_status st = gm_report_check_options(opt, err);
    if (st == GM_OK)
        st = collect_launches(rep, err);
    for (size_t i = 0; st == GM_OK && i < machine->n_missing; i++)
        add_skipped(rep, "%s%s", machine->missing[i], "");
    for (size_t u = 0; st == GM_OK && gm_units[u]; u++) {
        int named = 0, wanted = !opt->sections;
        for (size_t i = 0; opt->sections && opt->sections[i]; i++)
            if (strcmp(opt->sections[i], gm_units[u]->name) == 0)
                named = wanted = 1;
        if (wanted)
            st = add_section(rep, gm_units[u], opt, named, err);
    }
    if (st == GM_OK && rep->n_sections == 0) {
        char why[1024] = "";
        for (size_t i = 0; i < rep->n_skipped; i++)
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", i ? "; " : "",
                     rep->skipped[i]);
        st = gm_fail(err, GM_ERR_MISSING, "no section can be reported: %s",
                     why[0] ? why : "no unit selected");
    }
    if (st != GM_OK)
        gm_report_free(rep);
    return st;
}

void gm_report_free(gm_report *rep)
{
    if (!rep)
        return;
    for (size_t s = 0; s < rep->n_sections; s++) {
        gm_report_section *sec = &rep->sections[s];
        if (sec->results && sec->unit->free_result)
            for (size_t k = 0; k < rep->n_launches; k++)
                sec->unit->free_result(sec->results + k * sec->unit->result_size);
        free(sec->results);
        if (sec->unit->release)
            sec->unit->release(sec->state);
    }
    free(rep->launches);
    free(rep->file_of);
    if (rep->own_machine)
        free((gm_machine *)rep->machine); /* what it borrowed stays the caller's */
    memset(rep, 0, sizeof *rep);
}

size_t gm_report_metric_rows(const gm_report *rep, int *rows, size_t max)
{
    const gm_unit *units[GM_REPORT_MAX_SECTIONS];
    for (size_t s = 0; s < rep->n_sections; s++)
        units[s] = rep->sections[s].unit;
    return rep->n_sections ? gm_units_metric_rows(units, rep->n_sections, rows, max) : 0;
}

/* ------------------------------------------------------------------------
 * Summary: the launches of each kernel (per file) added into one row */

static const char *kernel_name(const gm_launch_counters *k)
{
    return k->kernel ? k->kernel : "(unnamed kernel)";
}

static int same_config(const gm_launch_counters *a, const gm_launch_counters *b)
{
    return memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
           memcmp(a->block, b->block, sizeof a->block) == 0 &&
           a->regs_per_thread == b->regs_per_thread && a->shared_bytes == b->shared_bytes &&
           a->device == b->device;
}

/* Counts and cycles add up over launches (Table 1 quantities are totals
 * over the measurement period), so a model recomputed from the sums gives
 * the kernel's figure over its active time.  Averages over cycles
 * (occupancy) are averaged weighted by active cycles, plain mean where
 * cycles are missing.  acc: 3 per metric (weighted sum, weight, plain sum). */
static void add_into(gm_launch_counters *sum, const gm_launch_counters *k, double *acc,
                     size_t n_before)
{
    /* GM_SUM_CYCLE_WEIGHTED: weighted by the active cycles (gpuq/metrics.h) */
    int cycles = gm_metric_find("sm__cycles_active.sum");
    double w = cycles >= 0 ? k->metric[cycles] : NAN;
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        double v = k->metric[m];
        if (gm_metric_table[m].sum == GM_SUM_ADD) {
            sum->metric[m] = n_before ? sum->metric[m] + v : v;
            continue;
        }
        double *a = &acc[3 * m];
        a[0] = n_before ? a[0] + w * v : w * v;
        a[1] = n_before ? a[1] + w : w;
        a[2] = n_before ? a[2] + v : v;
    }
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

static gm_status start_group(report_rows *rows, const gm_launch_counters *k, gm_error *err)
{
    gm_launch_counters first;
    gm_launch_counters_init(&first);
    gm_status st;
    if ((st = gm_launch_counters_set_names(&first, kernel_name(k), k->mangled)) != GM_OK ||
        (st = gm_counters_set_push(&rows->sums, &first)) != GM_OK) {
        gm_launch_counters_clear(&first);
        return gm_fail(err, st, "summary: out of memory");
    }
    gm_launch_counters *s = &rows->sums.launches[rows->sums.count - 1];
    s->launch_id = k->launch_id;
    s->device = k->device;
    memcpy(s->grid, k->grid, sizeof s->grid);
    memcpy(s->block, k->block, sizeof s->block);
    s->regs_per_thread = k->regs_per_thread;
    s->shared_bytes = k->shared_bytes;
    return GM_OK;
}

static gm_status build_summary(const gm_report *rep, report_rows *rows, gm_error *err)
{
    size_t n = rep->n_launches, nm = (size_t)GM_METRIC_COUNT;
    double *acc = calloc((n ? n : 1) * nm * 3, sizeof *acc);
    size_t *file_of = calloc(n ? n : 1, sizeof *file_of);
    rows->launch_count = calloc(n ? n : 1, sizeof *rows->launch_count);
    rows->config_varies = calloc(n ? n : 1, sizeof *rows->config_varies);
    rows->file_of = file_of;
    if (!acc || !file_of || !rows->launch_count || !rows->config_varies) {
        free(acc);
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    }
    gm_status st = GM_OK;
    /* Groups in order of first appearance; quadratic in kernel names,
     * which are few. */
    for (size_t i = 0; i < n && st == GM_OK; i++) {
        const gm_launch_counters *k = rep->launches[i];
        size_t g = 0;
        while (g < rows->sums.count && (file_of[g] != rep->file_of[i] ||
                                        strcmp(rows->sums.launches[g].kernel, kernel_name(k)) != 0))
            g++;
        if (g == rows->sums.count) {
            if ((st = start_group(rows, k, err)) != GM_OK)
                break;
            file_of[g] = rep->file_of[i];
        } else if (!same_config(&rows->sums.launches[g], k)) {
            rows->config_varies[g] = 1;
        }
        add_into(&rows->sums.launches[g], k, &acc[g * nm * 3], rows->launch_count[g]);
        rows->launch_count[g]++;
        rows->sums.launches[g].summed = (unsigned)rows->launch_count[g];
    }
    rows->count = rows->sums.count;
    for (size_t g = 0; st == GM_OK && g < rows->count; g++)
        for (size_t m = 0; m < nm; m++)
            if (gm_metric_table[m].sum == GM_SUM_CYCLE_WEIGHTED) {
                const double *a = &acc[(g * nm + m) * 3];
                double weighted = a[0] / a[1];
                rows->sums.launches[g].metric[m] =
                    isfinite(weighted) ? weighted : a[2] / (double)rows->launch_count[g];
            }
    free(acc);
    if (st != GM_OK)
        return st;
    rows->sum_ptrs = calloc(rows->count ? rows->count : 1, sizeof *rows->sum_ptrs);
    if (!rows->sum_ptrs)
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    for (size_t g = 0; g < rows->count; g++)
        rows->sum_ptrs[g] = &rows->sums.launches[g];
    rows->launches = rows->sum_ptrs;
    rows->own_results = 1;
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        size_t size = sec->unit->result_size;
        rows->results[s] = calloc(rows->count ? rows->count : 1, size);
        if (!rows->results[s])
            return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
        for (size_t g = 0; g < rows->count; g++) {
            const gm_counters_meta *meta = &rep->files[file_of[g]].set->meta;
            if ((st = sec->unit->apply(sec->state, meta, rows->launches[g],
                                       rows->results[s] + g * size, err)) != GM_OK) {
                /* the results applied so far are freed with the rows */
                rows->count = g;
                return st;
            }
        }
    }
    return GM_OK;
}

/* ------------------------------------------------------------------------
 * Verdicts and names */

int report_pick_verdict(const gm_unit_verdict *v, size_t n)
{
    int best = -1;
    for (size_t s = 0; s < n; s++)
        /* the most severe section speaks; NaN (undecided) only when all are;
         * on a tie the earlier section (registry order) */
        if (best < 0 || (!isnan(v[s].severity) &&
                         (isnan(v[best].severity) || v[s].severity > v[best].severity)))
            best = (int)s;
    return best;
}

static void pick_verdicts(const gm_report *rep, report_rows *rows)
{
    for (size_t i = 0; i < rows->count; i++) {
        gm_unit_verdict *v = &rows->verdicts[i * rep->n_sections];
        for (size_t s = 0; s < rep->n_sections; s++)
            rep->sections[s].unit->verdict(rep->sections[s].state, report_result(rep, rows, s, i),
                                           &v[s]);
        rows->verdict_section[i] = report_pick_verdict(v, rep->n_sections);
    }
}

/* Kernel names as the text shows them: width 30, never two kernels alike. */
#define REPORT_NAME_WIDTH 30

static gm_status make_names(const gm_report *rep, report_rows *rows, gm_error *err)
{
    size_t n = rows->count ? rows->count : 1;
    const char **dem = calloc(n, sizeof *dem), **man = calloc(n, sizeof *man);
    gm_status st = GM_OK;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        rows->names[b] = calloc(n, sizeof *rows->names[b]);
    rows->display = calloc(n, sizeof *rows->display);
    if (!dem || !man || !rows->names[0] || !rows->names[1] || !rows->names[2] || !rows->display) {
        st = gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
        goto done;
    }
    for (size_t i = 0; i < rows->count; i++) {
        dem[i] = kernel_name(rows->launches[i]);
        man[i] = rows->launches[i]->mangled ? rows->launches[i]->mangled : dem[i];
    }
    /* CSV and JSON: each name exactly (the function's base name as found,
     * the demangled and mangled names as recorded) */
    for (size_t i = 0; i < rows->count && st == GM_OK; i++) {
        size_t len = strlen(dem[i]) + 1;
        rows->names[GM_NAME_FUNCTION][i] = malloc(len);
        rows->names[GM_NAME_DEMANGLED][i] = strdup(dem[i]);
        rows->names[GM_NAME_MANGLED][i] = strdup(man[i]);
        if (!rows->names[0][i] || !rows->names[1][i] || !rows->names[2][i])
            st = GM_ERR_NOMEM;
        else
            gm_kernel_base_name(dem[i], rows->names[GM_NAME_FUNCTION][i], len);
    }
    /* text: never two different kernels as one string */
    if (st == GM_OK)
        st = gm_kernel_display_names(dem, man, rows->count, rep->name_base, REPORT_NAME_WIDTH,
                                     rows->display);
    if (st != GM_OK)
        gm_fail(err, st, "report: kernel names: out of memory");
done:
    free(dem);
    free(man);
    return st;
}

gm_status report_rows_make(const gm_report *rep, report_rows *rows, gm_error *err)
{
    memset(rows, 0, sizeof *rows);
    gm_status st = GM_OK;
    if (rep->summary) {
        st = build_summary(rep, rows, err);
    } else {
        rows->count = rep->n_launches;
        rows->launches = rep->launches;
        rows->file_of = rep->file_of;
        for (size_t s = 0; s < rep->n_sections; s++)
            rows->results[s] = rep->sections[s].results;
    }
    size_t n = rows->count ? rows->count : 1;
    if (st == GM_OK) {
        rows->verdicts = calloc(n * (rep->n_sections ? rep->n_sections : 1),
                                sizeof *rows->verdicts);
        rows->verdict_section = calloc(n, sizeof *rows->verdict_section);
        if (!rows->verdicts || !rows->verdict_section)
            st = gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    }
    if (st == GM_OK) {
        pick_verdicts(rep, rows);
        st = make_names(rep, rows, err);
    }
    if (st == GM_OK) {
        rows->n_metric_rows = gm_report_metric_rows(rep, rows->metric_rows, GM_METRIC_MAX);
        rows->multi_file = rep->n_files > 1;
    }
    if (st != GM_OK)
        report_rows_free(rep, rows);
    return st;
}

void report_rows_free(const gm_report *rep, report_rows *rows)
{
    if (rows->own_results)
        for (size_t s = 0; s < rep->n_sections; s++) {
            const gm_unit *u = rep->sections[s].unit;
            if (rows->results[s] && u->free_result)
                for (size_t g = 0; g < rows->count; g++)
                    u->free_result(rows->results[s] + g * u->result_size);
            free(rows->results[s]);
        }
    for (size_t i = 0; i < rows->count; i++) {
        for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
            if (rows->names[b])
                free(rows->names[b][i]);
        if (rows->display)
            free(rows->display[i]);
    }
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        free(rows->names[b]);
    free(rows->display);
    free(rows->verdicts);
    free(rows->verdict_section);
    if (rep->summary) {
        free(rows->launch_count);
        free(rows->config_varies);
        free(rows->file_of);
        free(rows->sum_ptrs);
        gm_counters_set_clear(&rows->sums);
    }
    memset(rows, 0, sizeof *rows);
}

/* ------------------------------------------------------------------------
 * Shared by the writers */

void report_process_label(const gm_report *rep, size_t file, char *buf, size_t len)
{
    const gm_report_file *f = &rep->files[file];
    if (f->set->meta.pid > 0) {
        snprintf(buf, len, "pid %ld", f->set->meta.pid);
        return;
    }
    const char *path = f->path ? f->path : "";
    const char *slash = strrchr(path, '/');
    snprintf(buf, len, "%s", slash ? slash + 1 : path[0] ? path : "-");
}

void report_field_text(const gm_field *f, char *buf, size_t len)
{
    if (f->flags & GM_FIELD_TEXT_DASH)
        snprintf(buf, len, "-");
    else if (f->kind == GM_FIELD_PCT)
        gm_fmt_pct(buf, len, f->num);
    else if (f->kind == GM_FIELD_NUM)
        gm_fmt_num(buf, len, f->num);
    else
        snprintf(buf, len, "%s", f->text ? f->text : "");
}

void report_counter_stats(const gm_report *rep, size_t *metrics, int *passes)
{
    size_t n = 0;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        for (size_t k = 0; k < rep->n_launches; k++)
            if (!isnan(rep->launches[k]->metric[m])) {
                n++;
                break;
            }
    int p = 0;
    for (size_t f = 0; f < rep->n_files; f++)
        if (rep->files[f].set->meta.passes > p)
            p = rep->files[f].set->meta.passes;
    *metrics = n;
    *passes = p;
}

gm_status gm_report_write(FILE *out, const gm_report *rep, gm_format fmt, gm_error *err)
{
    if (!out || !rep || rep->n_files == 0 || (int)fmt < 0 || fmt >= GM_FORMAT_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no stream, report or valid format");
    report_rows rows;
    gm_status st = report_rows_make(rep, &rows, err);
    if (st != GM_OK)
        return st;
    report_rank rank;
    if ((st = report_rank_make(rep, &rows, &rank, err)) != GM_OK) {
        report_rows_free(rep, &rows);
        return st;
    }
    rows.rank = &rank;
    switch (fmt) {
    case GM_FORMAT_TEXT:
        report_write_text(out, rep, &rows);
        break;
    case GM_FORMAT_CSV:
        report_write_csv(out, rep, &rows);
        break;
    case GM_FORMAT_HTML:
        report_write_html(out, rep, &rows);
        break;
    default:
        report_write_json(out, rep, &rows);
        break;
    }
    report_rank_free(&rank);
    report_rows_free(rep, &rows);
    if (fflush(out) != 0 || ferror(out))
        return gm_fail(err, GM_ERR_IO, "report: write failed");
    return GM_OK;
}
