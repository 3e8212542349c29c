/* The calibrate cell scheduler: pure C, no CUDA, tested on the CPU.
 *
 * Every cell (series, n, e, c) still NaN in the table is planned.  Cells are
 * sorted by launch key (class, mixes_cas, method, n: the kernel and its block
 * size) and cut into launches of at most cells_per_launch cells, one per SM.
 * Each launch runs reps times; a cell that got fewer valid samples than it
 * needs (blocks not co-resident, an SM left without a block, every inner
 * measurement skewed: flagged GM_ATOMICS_CELL_NOT_CORESIDENT or GB_ATOMICS_CELL_SKEWED)
 * keeps what it got and goes to the retry list, which is sorted and replayed
 * when the main list is used up.  A cell whose spread exceeds the threshold is measured once more
 * from scratch with remeasure_reps samples (GM_ATOMICS_CELL_REMEASURED) and flagged
 * GM_ATOMICS_CELL_HIGH_SPREAD if it is still above.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics_bench.h"

/* Which classes the benchmark kernels implement, and whether their series
 * carries the paper's FAO/CAS mix (c = 0..n). */
typedef struct class_spec {
    gm_atomics_job_class cls;
    int mixes_cas;
} class_spec;

static const class_spec atomics_class_specs[] = {
    {GM_ATOMICS_CLASS_ADD, 1},      /* the paper's FAO/CAS grid */
    {GM_ATOMICS_CLASS_CAS, 0},      /* CAS on its own (equals ADD at c = n, measured by a CAS-only kernel) */
    {GM_ATOMICS_CLASS_POPC_INC, 0}, /* POPC.INC is never mixed with CAS in the paper's model */
};

gm_status gb_atomics_class_mixes_cas(gm_atomics_job_class cls, int *mixes_cas, gm_error *err)
{
    for (size_t i = 0; i < sizeof atomics_class_specs / sizeof atomics_class_specs[0]; i++) {
        if (atomics_class_specs[i].cls == cls) {
            *mixes_cas = atomics_class_specs[i].mixes_cas;
            return GM_OK;
        }
    }
    return gm_fail(err, GM_ERR_UNSUPPORTED, "no calibrate kernel for job class %d yet", (int)cls);
}

typedef struct sched_cell {
    int series;
    short n, e, c;
    unsigned char remeasuring;
    unsigned char attempts;
    unsigned flags;
    int count;        /* samples collected in the current phase */
    double *samples;  /* GB_ATOMICS_MAX_REPS, allocated on first use, freed when finished */
} sched_cell;

struct gb_atomics_sched {
    gm_atomics_table *table;
    gb_atomics_sched_options opt;
    sched_cell *cells;
    long n_cells;
    int *queue;        /* cell ids, sorted by launch key */
    long queue_len, head;
    int *retry;        /* cells to run again, appended in any order */
    long retry_len;
    gb_atomics_launch_cell *launch_cells;
    int launch_issued; /* a launch is out, waiting for gb_atomics_sched_record */
    gb_atomics_sched_progress progress;
};

/* Launch key order: kernel (class, mixes_cas, method), then n, then the
 * cell's place inside the launch (pattern, e, c). */
static const gm_atomics_table *sort_table;
static const sched_cell *sort_cells;

static int compare_cells(const void *pa, const void *pb)
{
    const sched_cell *a = &sort_cells[*(const int *)pa];
    const sched_cell *b = &sort_cells[*(const int *)pb];
    const gm_atomics_series *sa = &sort_table->series[a->series];
    const gm_atomics_series *sb = &sort_table->series[b->series];
    int ka[] = {sa->cls, sa->mixes_cas, sa->method, a->n, sa->pattern, a->e, a->c};
    int kb[] = {sb->cls, sb->mixes_cas, sb->method, b->n, sb->pattern, b->e, b->c};
    for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void sort_ids(gb_atomics_sched *s, int *ids, long count)
{
    /* qsort has no context argument; the scheduler is single-threaded. */
    sort_table = s->table;
    sort_cells = s->cells;
    qsort(ids, (size_t)count, sizeof ids[0], compare_cells);
}

static int same_key(const gb_atomics_sched *s, const sched_cell *a, const sched_cell *b)
{
    const gm_atomics_series *sa = &s->table->series[a->series];
    const gm_atomics_series *sb = &s->table->series[b->series];
    return sa->cls == sb->cls && sa->mixes_cas == sb->mixes_cas && sa->method == sb->method &&
           a->n == b->n;
}

static gm_status check_options(const gb_atomics_sched_options *opt, gm_error *err)
{
    if (opt->cells_per_launch < 1)
        return gm_fail(err, GM_ERR_INVALID_ARG, "cells per launch %d < 1", opt->cells_per_launch);
    if (opt->reps < 1 || opt->reps > GB_ATOMICS_MAX_REPS)
        return gm_fail(err, GM_ERR_INVALID_ARG, "reps %d outside 1..%d", opt->reps,
                       GB_ATOMICS_MAX_REPS);
    if (opt->remeasure_reps < 1 || opt->remeasure_reps > GB_ATOMICS_MAX_REPS)
        return gm_fail(err, GM_ERR_INVALID_ARG, "re-measure reps %d outside 1..%d",
                       opt->remeasure_reps, GB_ATOMICS_MAX_REPS);
    if (!(opt->spread_threshold >= 0))
        return gm_fail(err, GM_ERR_INVALID_ARG, "spread threshold must be >= 0");
    if (opt->max_attempts < 1 || opt->max_attempts > 255)
        return gm_fail(err, GM_ERR_INVALID_ARG, "max attempts %d outside 1..255",
                       opt->max_attempts);
    return GM_OK;
}

gm_status gb_atomics_sched_new(gm_atomics_table *table, const gb_atomics_sched_options *opt,
                               gb_atomics_sched **out, gm_error *err)
{
    if (!table || !opt || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gb_atomics_sched_new: NULL argument");
    *out = NULL;
    gm_status st = check_options(opt, err);
    if (st != GM_OK)
        return st;

    long count = 0;
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *ser = &table->series[i];
        int mixes;
        st = gb_atomics_class_mixes_cas(ser->cls, &mixes, err);
        if (st != GM_OK)
            return st;
        if (mixes != ser->mixes_cas)
            return gm_fail(err, GM_ERR_UNSUPPORTED,
                           "series %s,%s,%s has mixes_cas=%d but the kernel measures mixes_cas=%d",
                           gm_atomics_class_name(ser->cls), gm_atomics_pattern_name(ser->pattern),
                           gm_atomics_method_name(ser->method), ser->mixes_cas, mixes);
        for (int n = 1; n <= ser->n_max; n++)
            for (int e = 1; e <= ser->e_max; e++)
                for (int c = 0; c <= (ser->mixes_cas ? n : 0); c++)
                    if (isnan(gm_atomics_series_cell(ser, n, e, c)->t_median))
                        count++;
    }

    gb_atomics_sched *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "scheduler");
    s->table = table;
    s->opt = *opt;
    s->cells = calloc((size_t)(count ? count : 1), sizeof *s->cells);
    s->queue = malloc((size_t)(count ? count : 1) * sizeof *s->queue);
    s->retry = malloc((size_t)(count ? count : 1) * sizeof *s->retry);
    s->launch_cells = malloc((size_t)opt->cells_per_launch * sizeof *s->launch_cells);
    if (!s->cells || !s->queue || !s->retry || !s->launch_cells) {
        gb_atomics_sched_free(s);
        return gm_fail(err, GM_ERR_NOMEM, "scheduler: %ld cells", count);
    }

    long k = 0;
    for (int i = 0; i < table->n_series; i++) {
        const gm_atomics_series *ser = &table->series[i];
        for (int n = 1; n <= ser->n_max; n++)
            for (int e = 1; e <= ser->e_max; e++)
                for (int c = 0; c <= (ser->mixes_cas ? n : 0); c++) {
                    if (!isnan(gm_atomics_series_cell(ser, n, e, c)->t_median))
                        continue;
                    s->cells[k] = (sched_cell){.series = i, .n = (short)n, .e = (short)e,
                                               .c = (short)c};
                    s->queue[k] = (int)k;
                    k++;
                }
    }
    s->n_cells = count;
    s->queue_len = count;
    sort_ids(s, s->queue, s->queue_len);
    s->progress.total = count;
    *out = s;
    return GM_OK;
}

void gb_atomics_sched_free(gb_atomics_sched *s)
{
    if (!s)
        return;
    if (s->cells)
        for (long i = 0; i < s->n_cells; i++)
            free(s->cells[i].samples);
    free(s->cells);
    free(s->queue);
    free(s->retry);
    free(s->launch_cells);
    free(s);
}

static int samples_needed(const gb_atomics_sched *s, const sched_cell *cell)
{
    return cell->remeasuring ? s->opt.remeasure_reps : s->opt.reps;
}

int gb_atomics_sched_next(gb_atomics_sched *s, gb_atomics_launch *launch)
{
    if (s->head == s->queue_len) {
        if (s->retry_len == 0)
            return 0;
        /* Replay the retries, grouped by launch key again. */
        int *swap = s->queue;
        s->queue = s->retry;
        s->retry = swap;
        s->queue_len = s->retry_len;
        s->retry_len = 0;
        s->head = 0;
        sort_ids(s, s->queue, s->queue_len);
    }
    const sched_cell *first = &s->cells[s->queue[s->head]];
    const gm_atomics_series *ser = &s->table->series[first->series];
    int reps = 0;
    int k = 0;
    while (s->head < s->queue_len && k < s->opt.cells_per_launch) {
        int id = s->queue[s->head];
        const sched_cell *cell = &s->cells[id];
        if (!same_key(s, first, cell))
            break;
        s->launch_cells[k++] = (gb_atomics_launch_cell){.id = id,
                                                        .pattern = s->table->series[cell->series].pattern,
                                                        .e = cell->e,
                                                        .c = cell->c};
        int missing = samples_needed(s, cell) - cell->count;
        if (missing > reps)
            reps = missing;
        s->head++;
    }
    *launch = (gb_atomics_launch){.cls = ser->cls,
                                  .mixes_cas = ser->mixes_cas,
                                  .method = ser->method,
                                  .n = first->n,
                                  .reps = reps,
                                  .n_cells = k,
                                  .cells = s->launch_cells};
    s->launch_issued = 1;
    return 1;
}

gm_status gb_atomics_stats(double *values, int count, double *median, double *min, double *max,
                           double *spread)
{
    if (!values || count < 1)
        return GM_ERR_INVALID_ARG;
    /* Insertion sort: count <= GB_ATOMICS_MAX_REPS. */
    for (int i = 1; i < count; i++) {
        double v = values[i];
        int j = i - 1;
        while (j >= 0 && values[j] > v) {
            values[j + 1] = values[j];
            j--;
        }
        values[j + 1] = v;
    }
    double med = count % 2 ? values[count / 2]
                           : 0.5 * (values[count / 2 - 1] + values[count / 2]);
    *median = med;
    *min = values[0];
    *max = values[count - 1];
    *spread = med > 0 ? (values[count - 1] - values[0]) / med : 0.0;
    return GM_OK;
}

/* All samples in: compute the statistics, re-measure once if too noisy,
 * otherwise write the cell into the table. */
static void finish_cell(gb_atomics_sched *s, int id)
{
    sched_cell *cell = &s->cells[id];
    double median, min, max, spread;
    gb_atomics_stats(cell->samples, cell->count, &median, &min, &max, &spread);
    if (spread > s->opt.spread_threshold && !cell->remeasuring) {
        cell->remeasuring = 1;
        cell->flags |= GM_ATOMICS_CELL_REMEASURED;
        cell->count = 0;
        cell->attempts = 0;
        s->retry[s->retry_len++] = id;
        s->progress.remeasured++;
        return;
    }
    if (spread > s->opt.spread_threshold)
        cell->flags |= GM_ATOMICS_CELL_HIGH_SPREAD;
    gm_atomics_cell *out = gm_atomics_series_cell(&s->table->series[cell->series], cell->n, cell->e,
                                                  cell->c);
    *out = (gm_atomics_cell){.t_median = median,
                             .t_min = min,
                             .t_max = max,
                             .spread = spread,
                             .reps = cell->count,
                             .flags = cell->flags};
    free(cell->samples);
    cell->samples = NULL;
    s->progress.done++;
}

gm_status gb_atomics_sched_record(gb_atomics_sched *s, const gb_atomics_launch *launch,
                                  const double *samples, gm_error *err)
{
    if (!s || !launch || !samples)
        return gm_fail(err, GM_ERR_INVALID_ARG, "gb_atomics_sched_record: NULL argument");
    if (!s->launch_issued || launch->cells != s->launch_cells)
        return gm_fail(err, GM_ERR_INVALID_ARG,
                       "gb_atomics_sched_record: not the launch last issued");
    s->launch_issued = 0;
    s->progress.launches++;
    for (int i = 0; i < launch->n_cells; i++) {
        int id = launch->cells[i].id;
        sched_cell *cell = &s->cells[id];
        int needed = samples_needed(s, cell);
        if (!cell->samples) {
            cell->samples = malloc(GB_ATOMICS_MAX_REPS * sizeof *cell->samples);
            if (!cell->samples)
                return gm_fail(err, GM_ERR_NOMEM, "samples of cell %d", id);
        }
        for (int r = 0; r < launch->reps && cell->count < needed; r++) {
            double t = samples[(long)r * launch->n_cells + i];
            if (t == GB_ATOMICS_SAMPLE_SKEWED)
                cell->flags |= GB_ATOMICS_CELL_SKEWED;
            else if (isnan(t) || t < 0)
                cell->flags |= GM_ATOMICS_CELL_NOT_CORESIDENT;
            else
                cell->samples[cell->count++] = t;
        }
        if (cell->count >= needed) {
            finish_cell(s, id);
        } else if (++cell->attempts >= s->opt.max_attempts) {
            s->progress.failed++;
            free(cell->samples);
            cell->samples = NULL;
        } else {
            s->retry[s->retry_len++] = id;
        }
    }
    return GM_OK;
}

void gb_atomics_sched_get_progress(const gb_atomics_sched *s, gb_atomics_sched_progress *out)
{
    *out = s->progress;
}
