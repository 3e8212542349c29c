/* The report's input read once (report_scan.h): every launch of every file
 * passes through add_launch and is forgotten; what stays is per file, per
 * kernel name and per distinct name pair, never per launch. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "gpuq/metrics.h"
#include "report_scan.h"

const char *report_kernel_name(const gm_launch_counters *k)
{
    return k->kernel ? k->kernel : "(unnamed kernel)";
}

/* FNV-1a over the text and a second text or a number. */
static uint64_t hash_text(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t group_hash(size_t file, const char *kernel)
{
    return hash_text(1469598103934665603ull ^ (uint64_t)file, kernel);
}

static uint64_t pair_hash(const char *kernel, const char *mangled)
{
    return hash_text(hash_text(1469598103934665603ull, kernel), mangled);
}

/* Doubles an open-addressing table of indices into items (hash at
 * item_hash(i)) once it is half full. */
static int grow_slots(size_t **slot, size_t *cap, size_t n, const void *items, size_t item_size,
                      size_t hash_offset)
{
    if (2 * (n + 1) <= *cap)
        return 1;
    size_t c = *cap ? 2 * *cap : 64;
    size_t *s = malloc(c * sizeof *s);
    if (!s)
        return 0;
    for (size_t i = 0; i < c; i++)
        s[i] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        uint64_t h;
        memcpy(&h, (const char *)items + k * item_size + hash_offset, sizeof h);
        size_t i = h & (c - 1);
        while (s[i] != SIZE_MAX)
            i = (i + 1) & (c - 1);
        s[i] = k;
    }
    free(*slot);
    *slot = s;
    *cap = c;
    return 1;
}

size_t report_input_group(const gm_report_input *in, size_t file, const char *kernel)
{
    if (!in->group_cap)
        return SIZE_MAX;
    uint64_t h = group_hash(file, kernel);
    for (size_t i = h & (in->group_cap - 1);; i = (i + 1) & (in->group_cap - 1)) {
        size_t g = in->group_slot[i];
        if (g == SIZE_MAX)
            return SIZE_MAX;
        const report_group *gr = &in->groups[g];
        if (gr->hash == h && gr->file == file && strcmp(gr->sum.kernel, kernel) == 0)
            return g;
    }
}

size_t report_input_pair(const gm_report_input *in, const char *kernel, const char *mangled)
{
    if (!in->pair_cap)
        return SIZE_MAX;
    uint64_t h = pair_hash(kernel, mangled);
    for (size_t i = h & (in->pair_cap - 1);; i = (i + 1) & (in->pair_cap - 1)) {
        size_t p = in->pair_slot[i];
        if (p == SIZE_MAX)
            return SIZE_MAX;
        const report_pair *pr = &in->pairs[p];
        if (pr->hash == h && strcmp(pr->kernel, kernel) == 0 && strcmp(pr->mangled, mangled) == 0)
            return p;
    }
}

static gm_status new_group(gm_report_input *in, size_t file, const char *kernel,
                           const char *mangled, const gm_launch_counters *k, gm_error *err)
{
    size_t nw = in->n_w ? in->n_w : 1;
    if (in->n_groups == in->cap_groups) {
        size_t cap = in->cap_groups ? 2 * in->cap_groups : 16;
        report_group *g = realloc(in->groups, cap * sizeof *g);
        if (g)
            in->groups = g;
        double *acc = g ? realloc(in->acc, cap * nw * 3 * sizeof *acc) : NULL;
        if (!g || !acc)
            return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
        in->acc = acc;
        in->cap_groups = cap;
    }
    if (!grow_slots(&in->group_slot, &in->group_cap, in->n_groups, in->groups,
                    sizeof *in->groups, offsetof(report_group, hash)))
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    report_group *g = &in->groups[in->n_groups];
    memset(g, 0, sizeof *g);
    gm_launch_counters_init(&g->sum);
    if (gm_launch_counters_set_names(&g->sum, kernel, mangled) != GM_OK)
        return gm_fail(err, GM_ERR_NOMEM, "summary: out of memory");
    g->file = file;
    g->hash = group_hash(file, kernel);
    g->time_ns = NAN;
    g->sum.launch_id = k->launch_id;
    g->sum.device = k->device;
    memcpy(g->sum.grid, k->grid, sizeof g->sum.grid);
    memcpy(g->sum.block, k->block, sizeof g->sum.block);
    g->sum.regs_per_thread = k->regs_per_thread;
    g->sum.shared_bytes = k->shared_bytes;
    memset(&in->acc[in->n_groups * nw * 3], 0, nw * 3 * sizeof *in->acc);
    size_t i = g->hash & (in->group_cap - 1);
    while (in->group_slot[i] != SIZE_MAX)
        i = (i + 1) & (in->group_cap - 1);
    in->group_slot[i] = in->n_groups++;
    return GM_OK;
}

static gm_status new_pair(gm_report_input *in, const char *kernel, const char *mangled,
                          gm_error *err)
{
    if (in->n_pairs == in->cap_pairs) {
        size_t cap = in->cap_pairs ? 2 * in->cap_pairs : 16;
        report_pair *p = realloc(in->pairs, cap * sizeof *p);
        if (!p)
            return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
        in->pairs = p;
        in->cap_pairs = cap;
    }
    if (!grow_slots(&in->pair_slot, &in->pair_cap, in->n_pairs, in->pairs, sizeof *in->pairs,
                    offsetof(report_pair, hash)))
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    report_pair *p = &in->pairs[in->n_pairs];
    p->kernel = strdup(kernel);
    p->mangled = p->kernel ? strdup(mangled) : NULL;
    if (!p->mangled) {
        free(p->kernel);
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    }
    p->hash = pair_hash(kernel, mangled);
    size_t i = p->hash & (in->pair_cap - 1);
    while (in->pair_slot[i] != SIZE_MAX)
        i = (i + 1) & (in->pair_cap - 1);
    in->pair_slot[i] = in->n_pairs++;
    return GM_OK;
}

static int same_config(const gm_launch_counters *a, const gm_launch_counters *b)
{
    return memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
           memcmp(a->block, b->block, sizeof a->block) == 0 &&
           a->regs_per_thread == b->regs_per_thread && a->shared_bytes == b->shared_bytes &&
           a->device == b->device;
}

/* The metric rows a file's launches can hold: its columns, or every row for
 * a set in memory (its header need not list them). */
static size_t file_rows(const report_input_file *f, int *rows)
{
    if (!f->file.set && f->meta.n_metrics) {
        memcpy(rows, f->meta.metric_rows, f->meta.n_metrics * sizeof *rows);
        return f->meta.n_metrics;
    }
    if (!f->file.set)
        return 0;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        rows[m] = m;
    return (size_t)GM_METRIC_COUNT;
}

typedef struct scan_ctx {
    int rows[GM_METRIC_MAX];
    size_t n_rows;
    int cycles, duration; /* metric rows, -1 none */
} scan_ctx;

/* One launch into the file's counts, its kernel's sums and the names.
 * Counts and cycles add up over launches (Table 1 quantities are totals
 * over the measurement period), so a model recomputed from the sums gives
 * the kernel's figure over its active time; averages over cycles
 * (occupancy) are weighted by active cycles (the plain mean where cycles
 * are missing, report_input_finish). */
static gm_status add_launch(gm_report_input *in, const scan_ctx *c, size_t file,
                            const gm_launch_counters *k, const char *kernel, const char *mangled,
                            gm_error *err)
{
    gm_status st;
    if (report_input_pair(in, kernel, mangled) == SIZE_MAX &&
        (st = new_pair(in, kernel, mangled, err)) != GM_OK)
        return st;
    size_t gi = report_input_group(in, file, kernel);
    if (gi == SIZE_MAX) {
        if ((st = new_group(in, file, kernel, mangled, k, err)) != GM_OK)
            return st;
        gi = in->n_groups - 1;
    }
    report_group *g = &in->groups[gi];
    gm_launch_counters *sum = &g->sum;
    double *acc = &in->acc[gi * (in->n_w ? in->n_w : 1) * 3];
    size_t n_before = g->launches;
    if (n_before && !same_config(sum, k))
        g->config_varies = 1;
    double w = c->cycles >= 0 ? k->metric[c->cycles] : NAN;
    for (size_t i = 0; i < c->n_rows; i++) {
        int m = c->rows[i];
        double v = k->metric[m];
        in->present[m] |= !isnan(v);
        if (gm_metric_table[m].sum == GM_SUM_ADD) {
            sum->metric[m] = n_before ? sum->metric[m] + v : v;
            continue;
        }
        double *a = &acc[3 * (size_t)in->w_slot[m]];
        a[0] = n_before ? a[0] + w * v : w * v;
        a[1] = n_before ? a[1] + w : w;
        a[2] = n_before ? a[2] + v : v;
    }
    /* the code pass's counts add up while every launch has them */
    if (n_before == 0) {
        sum->pass = k->pass;
    } else if (sum->pass.valid && k->pass.valid) {
        for (int v = 0; v < GM_PASS_VALUES_MAX; v++)
            sum->pass.value[v] += k->pass.value[v];
    } else {
        sum->pass.valid = 0;
        for (int v = 0; v < GM_PASS_VALUES_MAX; v++)
            sum->pass.value[v] = NAN;
    }
    g->launches++;
    double d = c->duration >= 0 ? k->metric[c->duration] : NAN;
    if (!isnan(d)) {
        g->time_ns = g->timed ? g->time_ns + d : d;
        g->timed++;
        in->total_ns = in->n_timed ? in->total_ns + d : d;
        in->n_timed++;
    }
    return GM_OK;
}

int report_input_same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static gm_status scan_path(gm_report_input *in, size_t f, scan_ctx *c, gm_error *err)
{
    report_input_file *rf = &in->files[f];
    gm_counters_reader *rd;
    gm_status st = gm_counters_reader_open(rf->file.path, &rd, err);
    if (st != GM_OK)
        return st;
    rf->meta = *gm_counters_reader_meta(rd);
    if (stat(rf->file.path, &rf->id) != 0)
        memset(&rf->id, 0, sizeof rf->id);
    c->n_rows = file_rows(rf, c->rows);
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    for (;;) {
        const char *kernel, *mangled;
        int eof = 0;
        if ((st = gm_counters_reader_next(rd, &k, &kernel, &mangled, &eof, err)) != GM_OK || eof)
            break;
        if ((st = add_launch(in, c, f, &k, kernel, mangled, err)) != GM_OK)
            break;
    }
    rf->count = gm_counters_reader_count(rd);
    gm_counters_reader_close(rd);
    /* k owns nothing: the reader leaves its names alone */
    return st;
}

static gm_status scan_set(gm_report_input *in, size_t f, scan_ctx *c, gm_error *err)
{
    report_input_file *rf = &in->files[f];
    const gm_counters_set *set = rf->file.set;
    rf->meta = set->meta;
    rf->count = set->count;
    c->n_rows = file_rows(rf, c->rows);
    gm_status st = GM_OK;
    for (size_t i = 0; i < set->count && st == GM_OK; i++) {
        const gm_launch_counters *k = &set->launches[i];
        const char *kernel = report_kernel_name(k);
        st = add_launch(in, c, f, k, kernel, k->mangled ? k->mangled : kernel, err);
    }
    return st;
}

/* The weighted averages divided out, once every launch is in. */
static void finish(gm_report_input *in)
{
    size_t nw = in->n_w ? in->n_w : 1;
    for (size_t gi = 0; gi < in->n_groups; gi++) {
        report_group *g = &in->groups[gi];
        int rows[GM_METRIC_MAX];
        size_t n = file_rows(&in->files[g->file], rows);
        const double *acc = &in->acc[gi * nw * 3];
        for (size_t i = 0; i < n; i++) {
            int m = rows[i];
            if (gm_metric_table[m].sum != GM_SUM_CYCLE_WEIGHTED)
                continue;
            const double *a = &acc[3 * (size_t)in->w_slot[m]];
            double weighted = a[0] / a[1];
            g->sum.metric[m] = isfinite(weighted) ? weighted : a[2] / (double)g->launches;
        }
        g->sum.summed = (unsigned)g->launches;
    }
    in->done = 1;
}

gm_status gm_report_input_read(gm_report_input **out, const gm_report_file *files,
                               size_t n_files, gm_error *err)
{
    if (!out || !files || n_files == 0)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no counters, machine data or options");
    *out = NULL;
    if (n_files > GM_REPORT_MAX_FILES)
        return gm_fail(err, GM_ERR_RANGE, "report: more than %d counters files",
                       GM_REPORT_MAX_FILES);
    for (size_t f = 0; f < n_files; f++)
        if (!files[f].set && !files[f].path)
            return gm_fail(err, GM_ERR_INVALID_ARG, "report: file %zu has no counters", f);
    gm_report_input *in = calloc(1, sizeof *in);
    if (in)
        in->files = calloc(n_files, sizeof *in->files);
    if (!in || !in->files) {
        free(in);
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    }
    in->n_files = n_files;
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        in->w_slot[m] = gm_metric_table[m].sum == GM_SUM_CYCLE_WEIGHTED ? (int)in->n_w++ : -1;
    scan_ctx c;
    c.cycles = gm_metric_find("sm__cycles_active.sum");
    c.duration = gm_metric_find("gpu__time_duration.sum");
    gm_status st = GM_OK;
    for (size_t f = 0; f < n_files && st == GM_OK; f++) {
        in->files[f].file = files[f];
        st = files[f].set ? scan_set(in, f, &c, err) : scan_path(in, f, &c, err);
        in->n_launches += in->files[f].count;
    }
    if (st != GM_OK) {
        gm_report_input_free(in);
        return st;
    }
    finish(in);
    *out = in;
    return GM_OK;
}

const gm_counters_meta *gm_report_input_meta(const gm_report_input *in, size_t file)
{
    return in && file < in->n_files ? &in->files[file].meta : NULL;
}

void gm_report_input_free(gm_report_input *in)
{
    if (!in)
        return;
    for (size_t g = 0; g < in->n_groups; g++)
        gm_launch_counters_clear(&in->groups[g].sum);
    for (size_t p = 0; p < in->n_pairs; p++) {
        free(in->pairs[p].kernel);
        free(in->pairs[p].mangled);
    }
    free(in->groups);
    free(in->acc);
    free(in->pairs);
    free(in->group_slot);
    free(in->pair_slot);
    free(in->files);
    free(in);
}
