/* Zhang & Owens (HPCA 2011) on Hopper: src/papers/bottleneck/bottleneck_model.h. */
#include "bottleneck_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pipe_names[GM_BOTTLENECK_PIPES] = {
#define PIPE_NAME(id, name) #name,
    GM_BOTTLENECK_PIPE_ROWS(PIPE_NAME)
#undef PIPE_NAME
};
static const char *const pipe_metrics[GM_BOTTLENECK_PIPES] = {
#define PIPE_METRIC(id, name) "smsp__inst_executed_pipe_" #name ".sum",
    GM_BOTTLENECK_PIPE_ROWS(PIPE_METRIC)
#undef PIPE_METRIC
};
static const char *const part_names[GM_BOTTLENECK_PARTS] = {"instruction", "shared", "global"};

const char *gm_bottleneck_pipe_name(int pipe)
{
    return pipe >= 0 && pipe < GM_BOTTLENECK_PIPES ? pipe_names[pipe] : NULL;
}

const char *gm_bottleneck_pipe_metric(int pipe)
{
    return pipe >= 0 && pipe < GM_BOTTLENECK_PIPES ? pipe_metrics[pipe] : NULL;
}

int gm_bottleneck_pipe_find(const char *name)
{
    for (int p = 0; name && p < GM_BOTTLENECK_PIPES; p++)
        if (strcmp(name, pipe_names[p]) == 0)
            return p;
    return -1;
}

const char *gm_bottleneck_part_name(int part)
{
    return part >= 0 && part < GM_BOTTLENECK_PARTS ? part_names[part] : "none";
}

double gm_bottleneck_curve_at(const gm_bottleneck_curve *c, double w)
{
    if (!c || c->n < 1)
        return NAN;
    if (w <= c->warps[0])
        return c->value[0];
    for (int i = 1; i < c->n; i++)
        if (w <= c->warps[i]) {
            double f = (w - c->warps[i - 1]) / (c->warps[i] - c->warps[i - 1]);
            return c->value[i - 1] + f * (c->value[i] - c->value[i - 1]);
        }
    return c->value[c->n - 1];
}

double gm_bottleneck_curve_max(const gm_bottleneck_curve *c)
{
    double best = NAN;
    for (int i = 0; c && i < c->n; i++)
        if (!(c->value[i] <= best))
            best = c->value[i];
    return best;
}

/* Inserts (w, v) keeping warps increasing; a repeated w keeps the last. */
static gm_status curve_add(gm_bottleneck_curve *c, double w, double v, gm_error *err)
{
    if (!(w > 0) || !(v > 0))
        return gm_fail(err, GM_ERR_RANGE, "throughput point (%g warps, %g) not positive", w, v);
    int i = 0;
    while (i < c->n && c->warps[i] < w)
        i++;
    if (i < c->n && c->warps[i] == w) {
        c->value[i] = v;
        return GM_OK;
    }
    if (c->n >= GM_BOTTLENECK_MAX_POINTS)
        return gm_fail(err, GM_ERR_RANGE, "more than %d points on one throughput curve",
                       GM_BOTTLENECK_MAX_POINTS);
    memmove(&c->warps[i + 1], &c->warps[i], (size_t)(c->n - i) * sizeof(double));
    memmove(&c->value[i + 1], &c->value[i], (size_t)(c->n - i) * sizeof(double));
    c->warps[i] = w;
    c->value[i] = v;
    c->n++;
    return GM_OK;
}

void gm_bottleneck_machine_free(gm_bottleneck_machine *m)
{
    if (!m)
        return;
    free(m->global);
    for (size_t j = 0; m->sets && j < m->n_sets; j++)
        for (int a = 0; a < 3; a++)
            free(m->sets[j].values[a]);
    free(m->sets);
    free(m->order);
    free(m->value_of);
    m->global = NULL;
    m->sets = NULL;
    m->order = NULL;
    m->value_of = NULL;
    m->n_global = m->n_sets = 0;
}

static double axis_value(const gm_bottleneck_gpoint *g, int a)
{
    return a == 0 ? g->blocks : a == 1 ? g->threads : g->per_thread;
}

/* The distinct values of each axis of every set, and each point's. */
static int index_values(gm_bottleneck_machine *m)
{
    for (size_t j = 0; j < m->n_sets; j++) {
        struct gm_bottleneck_gset *t = &m->sets[j];
        for (int a = 0; a < 3; a++) {
            if (!(t->values[a] = calloc(t->n ? t->n : 1, sizeof *t->values[a])))
                return 0;
            for (size_t i = 0; i < t->n; i++) {
                double v = axis_value(&m->global[m->order[t->first + i]], a);
                size_t k = 0;
                /* NaN matches nothing, not even itself: a value of its own */
                while (k < t->n_values[a] && !(t->values[a][k] == v &&
                                               signbit(t->values[a][k]) == signbit(v)))
                    k++;
                if (k == t->n_values[a])
                    t->values[a][t->n_values[a]++] = v;
                m->value_of[t->first + i][a] = (unsigned)k;
            }
        }
    }
    return 1;
}

/* The index of the points (gm_bottleneck_machine.sets): best effort, a machine
 * without one is searched point by point. */
static void index_points(gm_bottleneck_machine *m)
{
    size_t n = m->n_global;
    for (int l2 = 0; l2 < 2; l2++)
        for (int st = 0; st < 2; st++) {
            /* as global_best: the first NaN or larger value replaces */
            double best = NAN;
            for (size_t i = 0; i < n; i++)
                if (m->global[i].l2 == l2 && m->global[i].store == st &&
                    !(m->global[i].gbps <= best))
                    best = m->global[i].gbps;
            m->best_gbps[l2][st] = best;
        }
    struct gm_bottleneck_gset *sets = calloc(n ? n : 1, sizeof *sets);
    size_t *order = calloc(n ? n : 1, sizeof *order), *set_of = calloc(n ? n : 1, sizeof *set_of);
    size_t k = 0;
    if (!sets || !order || !set_of) {
        free(sets);
        free(order);
        free(set_of);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const gm_bottleneck_gpoint *g = &m->global[i];
        size_t j = 0;
        while (j < k && !(sets[j].l2 == g->l2 && sets[j].store == g->store &&
                          sets[j].bytes == g->bytes))
            j++;
        if (j == k)
            sets[k++] = (struct gm_bottleneck_gset){.l2 = g->l2, .store = g->store, .bytes = g->bytes};
        sets[j].n++;
        set_of[i] = j;
    }
    for (size_t j = 1; j < k; j++)
        sets[j].first = sets[j - 1].first + sets[j - 1].n;
    size_t *fill = calloc(k ? k : 1, sizeof *fill);
    if (!fill) {
        free(sets);
        free(order);
        free(set_of);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[sets[set_of[i]].first + fill[set_of[i]]++] = i;
    free(fill);
    free(set_of);
    m->sets = sets;
    m->order = order;
    m->n_sets = k;
    m->value_of = calloc(n ? n : 1, sizeof *m->value_of);
    if (!m->value_of || !index_values(m)) {
        /* no index at all rather than half of one */
        for (size_t j = 0; j < m->n_sets; j++)
            for (int a = 0; a < 3; a++)
                free(m->sets[j].values[a]);
        free(m->sets);
        free(m->order);
        free(m->value_of);
        m->sets = NULL;
        m->order = NULL;
        m->value_of = NULL;
        m->n_sets = 0;
    }
}

/* The throughput file's cells by row kind (gpuq/ranges.h), checked before
 * any is read: a cell the reader casts is required, the others any finite
 * number or "nan" (not measured). */
static const gm_mdata_rule throughput_rules[] = {
    {"inst", "warps", GM_Q_WARPS, 0},
    {"inst", "ilp", GM_Q_RATIO, 0},
    {"inst", "value", GM_Q_RATE, 0},
    {"issue", "warps", GM_Q_WARPS, 0},
    {"issue", "value", GM_Q_RATE, 0},
    {"shared", "bytes", GM_Q_ACCESS_BYTES, 0},
    {"shared", "ways", GM_Q_WARPS, 0},
    {"shared", "warps", GM_Q_WARPS, 0},
    {"shared", "value", GM_Q_RATE, 0},
    {"global", "bytes", GM_Q_ACCESS_BYTES, 0},
    {"global", "blocks", GM_Q_BLOCKS, 0},
    {"global", "threads", GM_Q_BLOCKS, 0},
    {"global", "per_thread", GM_Q_BLOCKS, 0},
    {"global", "value", GM_Q_RATE, 0},
    {"launch", "value", GM_Q_DURATION_NS, 0},
    {"device", "value", GM_Q_WARPS_PER_SM, 0}, /* max_warps_per_sm */
    {NULL, "bytes", GM_Q_REAL, 1},
    {NULL, "ways", GM_Q_REAL, 1},
    {NULL, "ilp", GM_Q_REAL, 1},
    {NULL, "warps", GM_Q_REAL, 1},
    {NULL, "blocks", GM_Q_REAL, 1},
    {NULL, "threads", GM_Q_REAL, 1},
    {NULL, "per_thread", GM_Q_REAL, 1},
    {NULL, "value", GM_Q_REAL, 1},
    {NULL, "spread", GM_Q_REAL, 1},
    {NULL, "documented", GM_Q_REAL, 1},
};

gm_status gm_bottleneck_machine_from_mdata(const gm_mdata *md, gm_bottleneck_machine *m,
                                           gm_error *err)
{
    if (!md || !m)
        return gm_fail(err, GM_ERR_INVALID_ARG, "throughput data: NULL argument");
    memset(m, 0, sizeof *m);
    m->clock_mhz = md->meta.sm_clock_mhz;
    m->sm_count = md->meta.sm_count;
    m->max_warps_per_sm = 64;
    m->launch_ns = 0;
    m->queued_ns = m->graph_ns = m->graph_gap_ns = NAN;
    static const char *const need[] = {"kind", "name", "bytes", "ways", "warps", "blocks",
                                       "threads", "per_thread", "value"};
    int col[9];
    for (int i = 0; i < 9; i++)
        if ((col[i] = gm_mdata_col(md, need[i])) < 0)
            return gm_fail(err, GM_ERR_MISSING, "throughput data: no column '%s'", need[i]);
    if (!(m->clock_mhz > 0))
        return gm_fail(err, GM_ERR_MISSING, "throughput data: sm_clock_mhz missing");
    gm_status cst = gm_mdata_check(md, "kind", throughput_rules,
                                   sizeof throughput_rules / sizeof throughput_rules[0], err);
    if (cst != GM_OK)
        return cst;
    m->global = calloc(md->n_rows ? md->n_rows : 1, sizeof *m->global);
    if (!m->global)
        return gm_fail(err, GM_ERR_NOMEM, "throughput data: out of memory");
    int col_ilp = gm_mdata_col(md, "ilp"); /* absent: every row ilp 1 */
    gm_status st = GM_OK;
    for (size_t r = 0; r < md->n_rows && st == GM_OK; r++) {
        double ilp = col_ilp >= 0 ? gm_mdata_num(md, r, col_ilp) : 1;
        const char *kind = gm_mdata_text(md, r, col[0]);
        const char *name = gm_mdata_text(md, r, col[1]);
        double bytes = gm_mdata_num(md, r, col[2]), ways = gm_mdata_num(md, r, col[3]);
        double warps = gm_mdata_num(md, r, col[4]), value = gm_mdata_num(md, r, col[8]);
        if (strcmp(kind, "inst") == 0) {
            int p = gm_bottleneck_pipe_find(name);
            if (p >= 0 && (ilp == 1 || ilp == 4))
                st = curve_add(ilp == 4 ? &m->inst4[p] : &m->inst[p], warps, value, err);
        } else if (strcmp(kind, "issue") == 0) {
            st = curve_add(&m->issue, warps, value, err);
        } else if (strcmp(kind, "shared") == 0 && strcmp(name, "copy") == 0 && bytes == 4) {
            int k = (int)lround(log2(ways));
            if (k >= 0 && k < GM_BOTTLENECK_WAYS && ways == (double)(1 << k))
                st = curve_add(&m->shared_k[k], warps, value, err);
        } else if (strcmp(kind, "global") == 0) {
            gm_bottleneck_gpoint *g = &m->global[m->n_global];
            g->l2 = strncmp(name, "l2_", 3) == 0;
            g->store = strstr(name, "_st") != NULL;
            g->bytes = (int)bytes;
            g->blocks = gm_mdata_num(md, r, col[5]);
            g->threads = gm_mdata_num(md, r, col[6]);
            g->per_thread = gm_mdata_num(md, r, col[7]);
            g->gbps = value;
            if (!(g->blocks > 0 && g->threads > 0 && g->per_thread > 0 && value > 0))
                st = gm_fail(err, GM_ERR_RANGE, "throughput data: row %zu: bad global point",
                             r + 1);
            m->n_global++;
        } else if (strcmp(kind, "launch") == 0 && strcmp(name, "queued") == 0) {
            m->queued_ns = value;
        } else if (strcmp(kind, "launch") == 0 && strcmp(name, "graph") == 0) {
            m->graph_ns = value;
        } else if (strcmp(kind, "launch") == 0 && strcmp(name, "graph_gap") == 0) {
            m->graph_gap_ns = value;
        } else if (strcmp(kind, "launch") == 0) {
            m->launch_ns = value;
        } else if (strcmp(kind, "device") == 0 && strcmp(name, "max_warps_per_sm") == 0) {
            m->max_warps_per_sm = (int)value;
        }
    }
    m->shared = m->shared_k[0];
    if (st == GM_OK && (m->issue.n == 0 || m->shared.n == 0 || m->n_global == 0))
        st = gm_fail(err, GM_ERR_MISSING,
                     "throughput data: needs issue, shared copy and global rows");
    if (st != GM_OK)
        gm_bottleneck_machine_free(m);
    else
        index_points(m);
    return st;
}

/* The synthetic point nearest to the shape (see gm_bottleneck_global_bw). */
static const gm_bottleneck_gpoint *global_point(const gm_bottleneck_machine *m, int l2, int store,
                                                int bytes, double blocks, double threads,
                                                double per_thread)
{
    if (!m || !(blocks > 0) || !(threads > 0) || !(per_thread > 0))
        return NULL;
    /* The closest bytes per thread that was measured for this memory and op
     * (the first of equally close ones in the file). */
    int best_bytes = -1;
    const struct gm_bottleneck_gset *set = NULL;
    if (m->sets) {
        for (size_t j = 0; j < m->n_sets; j++) {
            const struct gm_bottleneck_gset *t = &m->sets[j];
            if (t->l2 == l2 && t->store == store &&
                (best_bytes < 0 || abs(t->bytes - bytes) < abs(best_bytes - bytes))) {
                best_bytes = t->bytes;
                set = t;
            }
        }
    } else {
        for (size_t i = 0; i < m->n_global; i++) {
            const gm_bottleneck_gpoint *g = &m->global[i];
            if (g->l2 == l2 && g->store == store &&
                (best_bytes < 0 || abs(g->bytes - bytes) < abs(best_bytes - bytes)))
                best_bytes = g->bytes;
        }
    }
    double best_d = INFINITY;
    const gm_bottleneck_gpoint *best = NULL;
    if (set) {
        /* log2 of each distinct value's ratio once: the same expression of
         * the same operands as at each point, so the same distances */
        double stack[64], *logs[3] = {NULL, NULL, NULL}, *heap = NULL;
        size_t total = set->n_values[0] + set->n_values[1] + set->n_values[2];
        double *buf = total <= 64 ? stack : (heap = malloc(total * sizeof *heap));
        if (!buf)
            return NULL;
        const double x[3] = {blocks, threads, per_thread};
        for (int a = 0, off = 0; a < 3; off += (int)set->n_values[a], a++) {
            logs[a] = buf + off;
            for (size_t k = 0; k < set->n_values[a]; k++)
                logs[a][k] = log2(set->values[a][k] / x[a]);
        }
        for (size_t i = 0; i < set->n; i++) {
            const unsigned *v = m->value_of[set->first + i];
            double a = logs[0][v[0]], b = logs[1][v[1]], c = logs[2][v[2]];
            double d = a * a + b * b + c * c;
            if (d < best_d) {
                best_d = d;
                best = &m->global[m->order[set->first + i]];
            }
        }
        free(heap);
        return best;
    }
    for (size_t i = 0; i < m->n_global; i++) {
        const gm_bottleneck_gpoint *g = &m->global[i];
        if (g->l2 != l2 || g->store != store || g->bytes != best_bytes)
            continue;
        double a = log2(g->blocks / blocks), b = log2(g->threads / threads),
               c = log2(g->per_thread / per_thread);
        double d = a * a + b * b + c * c;
        if (d < best_d) {
            best_d = d;
            best = g;
        }
    }
    return best;
}

double gm_bottleneck_global_bw(const gm_bottleneck_machine *m, int l2, int store, int bytes,
                               double blocks, double threads, double per_thread)
{
    const gm_bottleneck_gpoint *g = global_point(m, l2, store, bytes, blocks, threads, per_thread);
    return g ? g->gbps : NAN;
}

/* The best bandwidth of one table (for "too little parallelism"). */
static double global_best(const gm_bottleneck_machine *m, int l2, int store)
{
    if (m->sets)
        return m->best_gbps[l2][store];
    double best = NAN;
    for (size_t i = 0; i < m->n_global; i++)
        if (m->global[i].l2 == l2 && m->global[i].store == store && !(m->global[i].gbps <= best))
            best = m->global[i].gbps;
    return best;
}

void gm_bottleneck_launch_init(gm_bottleneck_launch *l)
{
    double *f = (double *)l;
    for (size_t i = 0; i < sizeof *l / sizeof(double); i++)
        f[i] = NAN;
}

void gm_bottleneck_causes_text(int causes, char *buf, size_t len)
{
    static const char *const words[] = {"low computational density", "expensive instructions",
                                        "too few warps",             "bank conflicts",
                                        "bookkeeping shared traffic", "uncoalesced access",
                                        "too little parallelism"};
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < 7; i++)
        if (causes & (1 << i)) {
            int k = snprintf(buf + used, len > used ? len - used : 0, "%s%s", used ? ", " : "",
                             words[i]);
            if (k > 0)
                used += (size_t)k;
        }
}

static double pos(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* The bytes per lane of the launch's global accesses, as measured: 4, 8 or 16. */
static int lane_bytes(const gm_bottleneck_launch *l)
{
    double s = isfinite(l->global_sectors_ideal) ? l->global_sectors_ideal : l->global_sectors;
    double b = s / l->global_inst; /* sectors of 32 B per 32 lanes = bytes per lane */
    return !(b > 6) ? 4 : b > 12 ? 16 : 8;
}

/* The paper times each type with a dependent chain; the Hopper form with
 * four independent chains where the suite measured them. */
static const gm_bottleneck_curve *inst_curve(const gm_bottleneck_machine *m,
                                             gm_bottleneck_form form, int p)
{
    return form == GM_BOTTLENECK_HOPPER && m->inst4[p].n ? &m->inst4[p] : &m->inst[p];
}

/* Shared wavefronts per clock per SM at w warps.  The paper: the conflict-
 * free bandwidth (conflicts only add transactions).  Hopper: the bandwidth
 * measured at the launch's own conflict degree k = wavefronts / ideal
 * (several wavefronts per instruction need fewer warps to fill the pipe),
 * interpolated between the measured 2^i-way curves in log2(k). */
static double shared_rate(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                          const gm_bottleneck_launch *l, double w)
{
    double k = l->shared_wavefronts / l->shared_ideal;
    if (form != GM_BOTTLENECK_HOPPER || !(k > 1))
        return gm_bottleneck_curve_at(&m->shared, w);
    double x = fmin(log2(k), GM_BOTTLENECK_WAYS - 1);
    int lo = (int)floor(x), hi = lo + 1 < GM_BOTTLENECK_WAYS ? lo + 1 : lo;
    while (lo > 0 && m->shared_k[lo].n == 0)
        lo--;
    while (hi > lo && m->shared_k[hi].n == 0)
        hi--;
    double a = gm_bottleneck_curve_at(&m->shared_k[lo],
                                      w), b = gm_bottleneck_curve_at(&m->shared_k[hi], w);
    double f = hi > lo ? (x - lo) / (hi - lo) : 0;
    return a + f * (b - a);
}

/* global_point through the memo (gm_bottleneck_memo). */
static const gm_bottleneck_gpoint *memo_point(const gm_bottleneck_machine *m,
                                              gm_bottleneck_memo *memo, int l2, int store,
                                              int bytes, double blocks, double threads,
                                              double per_thread)
{
    if (!memo)
        return global_point(m, l2, store, bytes, blocks, threads, per_thread);
    for (size_t i = 0; i < memo->n; i++)
        if (memo->e[i].l2 == l2 && memo->e[i].store == store && memo->e[i].bytes == bytes &&
            memo->e[i].blocks == blocks && memo->e[i].threads == threads &&
            memo->e[i].per_thread == per_thread)
            return memo->e[i].g;
    const gm_bottleneck_gpoint *g = global_point(m, l2, store, bytes, blocks, threads, per_thread);
    if (memo->n < sizeof memo->e / sizeof memo->e[0])
        memo->e[memo->n++] = (gm_bottleneck_memo_entry){l2, store, bytes, blocks, threads, per_thread, g};
    return g;
}

gm_status gm_bottleneck_predict(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                int sm_count, const gm_bottleneck_launch *l,
                                gm_bottleneck_result *r, gm_error *err)
{
    return gm_bottleneck_predict_memo(m, form, sm_count, l, NULL, r, err);
}

gm_status gm_bottleneck_predict_memo(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                     int sm_count, const gm_bottleneck_launch *l,
                                     gm_bottleneck_memo *memo, gm_bottleneck_result *r,
                                     gm_error *err)
{
    if (!m || !l || !r || sm_count < 1 || (form != GM_BOTTLENECK_PAPER && form != GM_BOTTLENECK_HOPPER))
        return gm_fail(err, GM_ERR_INVALID_ARG, "zhang_owens: bad arguments");
    memset(r, 0, sizeof *r);
    r->form = form;
    r->bottleneck = r->next = -1;
    r->speedup_next = NAN;
    double ghz = isfinite(l->clock_ghz) && l->clock_ghz > 0 ? l->clock_ghz : m->clock_mhz / 1e3;
    r->sms = isfinite(l->blocks) && l->blocks >= 1 && l->blocks < sm_count ? l->blocks : sm_count;
    double w = l->warps_per_sm;
    if (!(w > 0) && l->blocks > 0 && l->threads_per_block > 0) {
        double per_block = ceil(l->threads_per_block / 32);
        w = fmin(m->max_warps_per_sm, ceil(l->blocks / r->sms) * per_block);
    }
    if (!(w > 0))
        return gm_fail(err, GM_ERR_INVALID_ARG, "zhang_owens: warps per SM unknown");
    r->warps = w;
    double per_ns = r->sms * ghz; /* SM-cycles per ns */

    /* Instruction pipeline (Sec. 4.1).  Pipes the suite did not time run at
     * the issue rate.  The fma pipe holds FFMA on both halves and IMAD on
     * the heavy half only: its time is whichever half binds. */
    /* The issue rate: the paper has none (its curves are per type).  Hopper
     * issues one warp-instruction per clock per SMSP: the measured best rate
     * times the share of the 4 SMSPs that have a warp; below that latency,
     * not issue, binds, and the pipe curves hold it. */
    double x_issue = form == GM_BOTTLENECK_HOPPER
                         ? gm_bottleneck_curve_max(&m->issue) * fmin(w, 4.0) / 4.0
                         : gm_bottleneck_curve_at(&m->issue, w);
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++) {
        r->t_pipe[p] = NAN;
        if (!isfinite(l->inst[p]))
            continue;
        double x = m->inst[p].n ? gm_bottleneck_curve_at(inst_curve(m, form, p), w) : x_issue;
        r->t_pipe[p] = l->inst[p] / (x * per_ns);
    }
    if (isfinite(r->t_pipe[GM_BOTTLENECK_FMAHEAVY]) && isfinite(r->t_pipe[GM_BOTTLENECK_FMA]))
        r->t_pipe[GM_BOTTLENECK_FMA] = fmax(r->t_pipe[GM_BOTTLENECK_FMA],
                                            r->t_pipe[GM_BOTTLENECK_FMAHEAVY]);
    r->t_issue = isfinite(l->inst_total) ? l->inst_total / (x_issue * per_ns) : NAN;
    double t_inst = 0, t_max = 0;
    int any = 0;
    for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
        if (p != GM_BOTTLENECK_FMAHEAVY && isfinite(r->t_pipe[p])) {
            t_inst += r->t_pipe[p]; /* the paper: a linear combination */
            t_max = fmax(t_max, r->t_pipe[p]);
            any = 1;
        }
    if (form == GM_BOTTLENECK_HOPPER)
        t_inst = fmax(t_max, pos(r->t_issue)); /* pipes overlap; issue binds */
    r->t[GM_BOTTLENECK_INST] = any || isfinite(r->t_issue) ? t_inst : NAN;

    /* Shared memory (Sec. 4.2): wavefronts over the bandwidth at w. */
    r->t[GM_BOTTLENECK_SHARED] = l->shared_wavefronts / (shared_rate(m, form, l, w) * per_ns);

    /* Global memory (Sec. 4.3): the synthetic kernel of the same shape. */
    r->t[GM_BOTTLENECK_GLOBAL] = NAN;
    r->global_bw = NAN;
    if (l->global_inst > 0 && l->blocks > 0 && l->threads_per_block > 0) {
        int b = lane_bytes(l);
        double warps_total = l->blocks * ceil(l->threads_per_block / 32);
        /* the shape of one launch, where the counts add up several */
        double per_launch = l->launches >= 1 ? l->launches : 1;
        double per_thread = fmax(l->global_inst / (warps_total * per_launch), 1e-9);
        double bw[2][2];
        for (int l2 = 0; l2 < 2; l2++)
            for (int s = 0; s < 2; s++) {
                const gm_bottleneck_gpoint *g = memo_point(m, memo, l2, s, b, l->blocks,
                                                           l->threads_per_block, per_thread);
                bw[l2][s] = g ? g->gbps : NAN;
                if (g && form == GM_BOTTLENECK_HOPPER && m->launch_ns > 0) {
                    /* The synthetic kernel's time holds one launch; the Hopper
                     * form adds the launch once, so the bandwidth is the steady
                     * one: bytes over (time - launch), at most the best the
                     * table saw for this memory and op. */
                    double bytes_moved = g->blocks * g->threads * g->per_thread * g->bytes;
                    double t = bytes_moved / g->gbps - m->launch_ns;
                    double best = global_best(m, l2, s);
                    bw[l2][s] = t > 0 ? fmin(bytes_moved / t, best) : best;
                }
            }
        r->global_bw = bw[0][0];
        double t_dram = pos(l->dram_read_bytes) / bw[0][0] + pos(l->dram_write_bytes) / bw[0][1];
        double t_l2 = pos(l->l2_read_bytes) / bw[1][0] + pos(l->l2_write_bytes) / bw[1][1];
        r->t[GM_BOTTLENECK_GLOBAL] = fmax(isfinite(t_dram) ? t_dram : 0, isfinite(t_l2) ? t_l2 : 0);
        if (!isfinite(l->dram_read_bytes) && !isfinite(l->l2_read_bytes))
            r->t[GM_BOTTLENECK_GLOBAL] = NAN;
    } else if (l->global_inst == 0) {
        r->t[GM_BOTTLENECK_GLOBAL] = 0;
    }

    /* The bottleneck and the next one (Sec. 3: full overlap). */
    double first = -1, second = -1;
    for (int k = 0; k < GM_BOTTLENECK_PARTS; k++) {
        double t = r->t[k];
        if (!isfinite(t))
            continue;
        if (t > first) {
            second = first;
            r->next = r->bottleneck;
            first = t;
            r->bottleneck = k;
        } else if (t > second) {
            second = t;
            r->next = k;
        }
    }
    r->t_launch = form == GM_BOTTLENECK_HOPPER ? m->launch_ns * (l->launches >= 1 ? l->launches : 1) : 0;
    if (r->bottleneck < 0) {
        r->predicted = NAN;
        return GM_OK;
    }
    r->predicted = r->t_launch + first;
    if (r->next >= 0)
        r->speedup_next = r->predicted / (r->t_launch + second);

    /* The paper's causes of the bottleneck. */
    if (r->bottleneck == GM_BOTTLENECK_INST) {
        double compute = pos(l->inst[GM_BOTTLENECK_FMA]) + pos(l->inst[GM_BOTTLENECK_FP64]) +
                         pos(l->inst[GM_BOTTLENECK_FP16]);
        if (l->inst_total > 0 && compute < 0.5 * l->inst_total)
            r->causes |= GM_BOTTLENECK_CAUSE_LOW_DENSITY;
        int slow = -1;
        for (int p = 0; p < GM_BOTTLENECK_PIPES; p++)
            if (p != GM_BOTTLENECK_FMAHEAVY && isfinite(r->t_pipe[p]) &&
                (slow < 0 || r->t_pipe[p] > r->t_pipe[slow]))
                slow = p;
        if (slow == GM_BOTTLENECK_XU || slow == GM_BOTTLENECK_FP64)
            r->causes |= GM_BOTTLENECK_CAUSE_EXPENSIVE;
        const gm_bottleneck_curve *c = slow >= 0 && m->inst[slow].n &&
                                       !(r->t_issue > r->t_pipe[slow] && form == GM_BOTTLENECK_HOPPER)
                                   ? inst_curve(m, form, slow)
                                   : &m->issue;
        if (gm_bottleneck_curve_at(c, w) < 0.8 * gm_bottleneck_curve_max(c))
            r->causes |= GM_BOTTLENECK_CAUSE_FEW_WARPS;
    } else if (r->bottleneck == GM_BOTTLENECK_SHARED) {
        if (l->shared_wavefronts > 1.1 * l->shared_ideal)
            r->causes |= GM_BOTTLENECK_CAUSE_CONFLICTS;
        double compute = pos(l->inst[GM_BOTTLENECK_FMA]) + pos(l->inst[GM_BOTTLENECK_FP64]) +
                         pos(l->inst[GM_BOTTLENECK_FP16]);
        if (l->shared_ideal > compute)
            r->causes |= GM_BOTTLENECK_CAUSE_BOOKKEEPING;
        if (gm_bottleneck_curve_at(&m->shared, w) < 0.8 * gm_bottleneck_curve_max(&m->shared))
            /* conflict-free: what more warps would buy */
            r->causes |= GM_BOTTLENECK_CAUSE_FEW_WARPS;
    } else {
        if (l->global_sectors > 1.25 * l->global_sectors_ideal)
            r->causes |= GM_BOTTLENECK_CAUSE_UNCOALESCED;
        if (r->global_bw < 0.8 * global_best(m, 0, 0))
            r->causes |= GM_BOTTLENECK_CAUSE_LOW_PARALLEL;
    }
    return GM_OK;
}

gm_status gm_bottleneck_whatif_all(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                   int sm_count, const gm_bottleneck_launch *l, double more_warps,
                                   gm_bottleneck_whatif *w, gm_error *err)
{
    return gm_bottleneck_whatif_all_memo(m, form, sm_count, l, more_warps, NULL, w, err);
}

gm_status gm_bottleneck_whatif_all_memo(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                        int sm_count, const gm_bottleneck_launch *l,
                                        double more_warps, gm_bottleneck_memo *memo,
                                        gm_bottleneck_whatif *w, gm_error *err)
{
    if (!m || !l || !w)
        return gm_fail(err, GM_ERR_INVALID_ARG, "zhang_owens: bad what-if arguments");
    gm_bottleneck_result base, r;
    gm_status st = gm_bottleneck_predict_memo(m, form, sm_count, l, memo, &base, err);
    if (st != GM_OK)
        return st;
    gm_bottleneck_launch c = *l;
    w->t_no_conflicts = w->speedup_no_conflicts = NAN;
    if (isfinite(l->shared_ideal)) {
        c.shared_wavefronts = l->shared_ideal;
        if ((st = gm_bottleneck_predict_memo(m, form, sm_count, &c, memo, &r, err)) != GM_OK)
            return st;
        w->t_no_conflicts = r.predicted;
        w->speedup_no_conflicts = base.predicted / r.predicted;
    }
    c = *l;
    w->t_coalesced = w->speedup_coalesced = NAN;
    if (l->global_sectors > 0 && isfinite(l->global_sectors_ideal)) {
        /* Every byte that crosses L1 -> L2 -> DRAM shrinks with the sectors. */
        double f = fmin(1.0, l->global_sectors_ideal / l->global_sectors);
        c.global_sectors = l->global_sectors_ideal;
        c.dram_read_bytes *= f;
        c.dram_write_bytes *= f;
        c.l2_read_bytes *= f;
        c.l2_write_bytes *= f;
        if ((st = gm_bottleneck_predict_memo(m, form, sm_count, &c, memo, &r, err)) != GM_OK)
            return st;
        w->t_coalesced = r.predicted;
        w->speedup_coalesced = base.predicted / r.predicted;
    }
    c = *l;
    w->more_warps = more_warps > 0 ? more_warps : m->max_warps_per_sm;
    c.warps_per_sm = w->more_warps;
    if ((st = gm_bottleneck_predict_memo(m, form, sm_count, &c, memo, &r, err)) != GM_OK)
        return st;
    w->t_more_warps = r.predicted;
    w->speedup_more_warps = base.predicted / r.predicted;
    return GM_OK;
}
