/* The report (gpuq/report.h): the sections chosen and prepared, every
 * selected unit applied to the kernels' sums (the --summary rows, which
 * the ranked kernels share) and, for sets in memory, to every launch; the
 * launches of files read from their paths are applied a chunk at a time
 * as the report is written (report_cursor.c).  One verdict per row: the
 * most severe section's. */
#include <math.h>
#include <stdio_ext.h>
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
        if (row >= 0 && rep->input->present[row])
            return 1;
    }
    return rep->n_launches == 0 || !u->metrics || !u->metrics[0];
}

static void add_skipped(gm_report *rep, const char *fmt, const char *a, const char *b)
{
    if (rep->n_skipped < sizeof rep->skipped / sizeof rep->skipped[0])
        snprintf(rep->skipped[rep->n_skipped++], sizeof rep->skipped[0], fmt, a, b);
}

/* A unit applied to n launches (results: n * result_size, zeroed). */
static gm_status apply_all(const gm_report *rep, const gm_report_section *s,
                           const gm_launch_counters *const *launches, const size_t *file_of,
                           size_t n, unsigned char *results, gm_error *err)
{
    const gm_unit *u = s->unit;
    for (size_t k = 0; k < n; k++) {
        gm_status st = u->apply(s->state, report_file_meta(rep, file_of[k]), launches[k],
                                results + k * u->result_size, err);
        if (st != GM_OK)
            return st;
    }
    return GM_OK;
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
    if (!rep->launches)
        return GM_OK; /* applied a chunk at a time as the report is written */
    s->results = calloc(rep->n_launches ? rep->n_launches : 1, u->result_size);
    if (!s->results)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    return apply_all(rep, s, rep->launches, rep->file_of, rep->n_launches, s->results, err);
}

/* Every launch in memory when every file is a set. */
static gm_status collect_launches(gm_report *rep, gm_error *err)
{
    for (size_t f = 0; f < rep->n_files; f++)
        if (!rep->files[f].set)
            return GM_OK;
    size_t n = rep->n_launches;
    rep->launches = calloc(n ? n : 1, sizeof *rep->launches);
    rep->file_of = calloc(n ? n : 1, sizeof *rep->file_of);
    if (!rep->launches || !rep->file_of)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    size_t k = 0;
    for (size_t f = 0; f < rep->n_files; f++)
        for (size_t i = 0; i < rep->files[f].set->count; i++) {
            rep->launches[k] = &rep->files[f].set->launches[i];
            rep->file_of[k++] = f;
        }
    return GM_OK;
}

/* The kernels: every section applied to each kernel's launches summed. */
static gm_status make_kernels(gm_report *rep, gm_error *err)
{
    const gm_report_input *in = rep->input;
    report_kernels *kr = calloc(1, sizeof *kr);
    if (!kr)
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    rep->kernels = kr;
    size_t n = in->n_groups, nn = n ? n : 1, ns = rep->n_sections ? rep->n_sections : 1;
    kr->count = n;
    kr->launches = calloc(nn, sizeof *kr->launches);
    kr->file_of = calloc(nn, sizeof *kr->file_of);
    kr->launch_count = calloc(nn, sizeof *kr->launch_count);
    kr->row = calloc(nn, sizeof *kr->row);
    kr->config_varies = calloc(nn, sizeof *kr->config_varies);
    kr->verdicts = calloc(nn * ns, sizeof *kr->verdicts);
    kr->verdict_section = calloc(nn, sizeof *kr->verdict_section);
    if (!kr->launches || !kr->file_of || !kr->launch_count || !kr->row || !kr->config_varies ||
        !kr->verdicts || !kr->verdict_section)
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    for (size_t g = 0; g < n; g++) {
        kr->launches[g] = &in->groups[g].sum;
        kr->file_of[g] = in->groups[g].file;
        kr->launch_count[g] = in->groups[g].launches;
        kr->row[g] = g;
        kr->config_varies[g] = in->groups[g].config_varies;
    }
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_report_section *sec = &rep->sections[s];
        if (!(kr->results[s] = calloc(nn, sec->unit->result_size)))
            return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
        gm_status st = apply_all(rep, sec, kr->launches, kr->file_of, n, kr->results[s], err);
        if (st != GM_OK)
            return st;
    }
    report_pick_verdicts(rep, n, (const unsigned char *const *)kr->results, kr->verdicts,
                         kr->verdict_section);
    return GM_OK;
}

static void free_kernels(gm_report *rep)
{
    report_kernels *kr = rep->kernels;
    if (!kr)
        return;
    for (size_t s = 0; s < rep->n_sections; s++) {
        const gm_unit *u = rep->sections[s].unit;
        if (kr->results[s] && u->free_result)
            for (size_t g = 0; g < kr->count; g++)
                u->free_result(kr->results[s] + g * u->result_size);
        free(kr->results[s]);
    }
    free(kr->launches);
    free(kr->file_of);
    free(kr->launch_count);
    free(kr->row);
    free(kr->config_varies);
    free(kr->verdicts);
    free(kr->verdict_section);
    free(kr);
    rep->kernels = NULL;
}

gm_status gm_report_make_from(gm_report *rep, gm_report_input *in, const gm_machine *machine,
                              const gm_report_options *opt, gm_error *err)
{
    if (!rep || !in || !machine || !opt) {
        gm_report_input_free(in);
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no counters, machine data or options");
    }
    memset(rep, 0, sizeof *rep);
    rep->input = in;
    rep->n_files = in->n_files;
    for (size_t f = 0; f < in->n_files; f++)
        rep->files[f] = in->files[f].file;
    rep->n_launches = in->n_launches;
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
    if (st == GM_OK)
        st = make_kernels(rep, err);
    if (st != GM_OK)
        gm_report_free(rep);
    return st;
}

gm_status gm_report_make(gm_report *rep, const gm_report_file *files, size_t n_files,
                         const gm_machine *machine, const gm_report_options *opt,
                         gm_error *err)
{
    if (!rep || !files || n_files == 0 || !machine || !opt)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no counters, machine data or options");
    gm_report_input *in;
    gm_status st = gm_report_input_read(&in, files, n_files, err);
    return st == GM_OK ? gm_report_make_from(rep, in, machine, opt, err) : st;
}

void gm_report_free(gm_report *rep)
{
    if (!rep)
        return;
    free_kernels(rep);
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
    gm_report_input_free(rep->input);
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

void report_pick_verdicts(const gm_report *rep, size_t n, const unsigned char *const *results,
                          gm_unit_verdict *verdicts, int *verdict_section)
{
    size_t ns = rep->n_sections;
    for (size_t i = 0; i < n; i++) {
        gm_unit_verdict *v = &verdicts[i * ns];
        for (size_t s = 0; s < ns; s++) {
            const gm_report_section *sec = &rep->sections[s];
            sec->unit->verdict(sec->state, results[s] + i * sec->unit->result_size, &v[s]);
        }
        verdict_section[i] = report_pick_verdict(v, ns);
    }
}

/* Kernel names as the text shows them: width 30, never two kernels alike. */
#define REPORT_NAME_WIDTH 30

static void names_free(report_names *nm)
{
    for (size_t i = 0; i < nm->count; i++) {
        for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
            if (nm->full[b])
                free(nm->full[b][i]);
        if (nm->display)
            free(nm->display[i]);
    }
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        free(nm->full[b]);
    free(nm->display);
    memset(nm, 0, sizeof *nm);
}

/* CSV and JSON: each name exactly (the function's base name as found, the
 * demangled and mangled names as recorded); text: never two different
 * kernels as one string (gm_kernel_display_names, which depends on the
 * distinct names in order of first appearance only). */
static gm_status names_make(const char *const *dem, const char *const *man, size_t n,
                            gm_name_base base, report_names *nm, gm_error *err)
{
    memset(nm, 0, sizeof *nm);
    size_t nn = n ? n : 1;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        nm->full[b] = calloc(nn, sizeof *nm->full[b]);
    nm->display = calloc(nn, sizeof *nm->display);
    nm->count = n;
    gm_status st = GM_OK;
    if (!nm->full[0] || !nm->full[1] || !nm->full[2] || !nm->display)
        st = GM_ERR_NOMEM;
    for (size_t i = 0; i < n && st == GM_OK; i++) {
        size_t len = strlen(dem[i]) + 1;
        nm->full[GM_NAME_FUNCTION][i] = malloc(len);
        nm->full[GM_NAME_DEMANGLED][i] = strdup(dem[i]);
        nm->full[GM_NAME_MANGLED][i] = strdup(man[i]);
        if (!nm->full[0][i] || !nm->full[1][i] || !nm->full[2][i])
            st = GM_ERR_NOMEM;
        else
            gm_kernel_base_name(dem[i], nm->full[GM_NAME_FUNCTION][i], len);
    }
    if (st == GM_OK)
        st = gm_kernel_display_names(dem, man, n, base, REPORT_NAME_WIDTH, nm->display);
    if (st != GM_OK) {
        names_free(nm);
        return gm_fail(err, st, "report: kernel names: out of memory");
    }
    return GM_OK;
}

gm_status report_ctx_make(const gm_report *rep, report_ctx *c, gm_error *err)
{
    memset(c, 0, sizeof *c);
    c->rep = rep;
    const gm_report_input *in = rep->input;
    const report_kernels *kr = rep->kernels;
    size_t n = kr->count > in->n_pairs ? kr->count : in->n_pairs;
    const char **dem = calloc(n ? n : 1, sizeof *dem), **man = calloc(n ? n : 1, sizeof *man);
    gm_status st = dem && man ? GM_OK : gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    for (size_t g = 0; st == GM_OK && g < kr->count; g++) {
        dem[g] = report_kernel_name(kr->launches[g]);
        man[g] = kr->launches[g]->mangled ? kr->launches[g]->mangled : dem[g];
    }
    if (st == GM_OK)
        st = names_make(dem, man, kr->count, rep->name_base, &c->kernel_names, err);
    for (size_t p = 0; st == GM_OK && p < in->n_pairs; p++) {
        dem[p] = in->pairs[p].kernel;
        man[p] = in->pairs[p].mangled;
    }
    if (st == GM_OK)
        st = names_make(dem, man, in->n_pairs, rep->name_base, &c->pair_names, err);
    free(dem);
    free(man);
    report_rows *r = &c->kernels;
    r->count = kr->count;
    r->launches = kr->launches;
    r->file_of = kr->file_of;
    r->launch_count = kr->launch_count;
    r->config_varies = kr->config_varies;
    for (size_t s = 0; s < rep->n_sections; s++)
        r->results[s] = kr->results[s];
    r->verdicts = kr->verdicts;
    r->verdict_section = kr->verdict_section;
    for (int b = 0; b < GM_NAME_BASE_COUNT; b++)
        r->names[b] = (const char *const *)c->kernel_names.full[b];
    r->display = (const char *const *)c->kernel_names.display;
    r->kernel_row = kr->row;
    r->n_metric_rows = gm_report_metric_rows(rep, r->metric_rows, GM_METRIC_MAX);
    r->multi_file = rep->n_files > 1;
    if (st == GM_OK && !(c->rank = calloc(1, sizeof *c->rank)))
        st = gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    if (st == GM_OK && (st = report_rank_make(rep, &c->kernels, c->rank, err)) != GM_OK) {
        free(c->rank);
        c->rank = NULL;
    }
    r->rank = c->rank;
    if (st != GM_OK)
        report_ctx_free(c);
    return st;
}

void report_ctx_free(report_ctx *c)
{
    names_free(&c->kernel_names);
    names_free(&c->pair_names);
    if (c->rank) {
        report_rank_free(c->rank);
        free(c->rank);
    }
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------------
 * Shared by the writers */

const gm_counters_meta *report_file_meta(const gm_report *rep, size_t file)
{
    return &rep->input->files[file].meta;
}

size_t report_file_launches(const gm_report *rep, size_t file)
{
    return rep->input->files[file].count;
}

void report_process_label(const gm_report *rep, size_t file, char *buf, size_t len)
{
    const gm_report_file *f = &rep->files[file];
    const gm_counters_meta *m = report_file_meta(rep, file);
    if (m->pid > 0) {
        snprintf(buf, len, "pid %ld", m->pid);
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
        gm_copy_text(buf, len, f->text);
}

void report_counter_stats(const gm_report *rep, size_t *metrics, int *passes)
{
    size_t n = 0;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        n += rep->input->present[m] != 0;
    int p = 0;
    for (size_t f = 0; f < rep->n_files; f++)
        if (report_file_meta(rep, f)->passes > p)
            p = report_file_meta(rep, f)->passes;
    *metrics = n;
    *passes = p;
}

gm_status gm_report_write(FILE *out, const gm_report *rep, gm_format fmt, gm_error *err)
{
    if (!out || !rep || rep->n_files == 0 || !rep->input || !rep->kernels || (int)fmt < 0 ||
        fmt >= GM_FORMAT_COUNT)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no stream, report or valid format");
    report_ctx c;
    gm_status st = report_ctx_make(rep, &c, err);
    if (st != GM_OK)
        return st;
    /* Nothing else writes to out meanwhile, and each stream a second thread
     * writes is its own: stdio's lock on every character is not needed
     * (it took a tenth of a CSV report once a second thread existed). */
    int locking = __fsetlocking(out, FSETLOCKING_BYCALLER);
    switch (fmt) {
    case GM_FORMAT_TEXT:
        st = report_write_text(out, &c, err);
        break;
    case GM_FORMAT_CSV:
        st = report_write_csv(out, &c, err);
        break;
    case GM_FORMAT_HTML:
        st = report_write_html(out, &c, err);
        break;
    default:
        st = report_write_json(out, &c, err);
        break;
    }
    __fsetlocking(out, locking == FSETLOCKING_BYCALLER ? FSETLOCKING_BYCALLER
                                                        : FSETLOCKING_INTERNAL);
    report_ctx_free(&c);
    if (st == GM_OK && (fflush(out) != 0 || ferror(out)))
        st = gm_fail(err, GM_ERR_IO, "report: write failed");
    return st;
}
