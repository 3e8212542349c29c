/* Unit tests of the calibrate cell scheduler (src/papers/atomics/atomics_sched.c): cell
 * enumeration, launch grouping, repetitions, retries of discarded samples,
 * re-measuring noisy cells, and checkpoint/resume through the table writer.
 *
 * The GPU is replaced by fake runners that answer each launch with samples
 * made by a formula of the cell's coordinates, so every expected value is
 * known; they are not measurements. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "papers/atomics/atomics_bench.h"
#include "papers/atomics/atomics_table.h"

#define CELLS_PER_LAUNCH 132

static void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)

static gm_atomics_table *new_table(int n_max, int e_max)
{
    gm_atomics_table_meta meta = {.cc_major = 9,
                                  .cc_minor = 0,
                                  .sm_count = CELLS_PER_LAUNCH,
                                  .max_warps_per_sm = n_max,
                                  .warp_size = e_max,
                                  .reps = 5,
                                  .spread_threshold = 0.1};
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "fake GPU");
    gm_atomics_table *t = gm_atomics_table_new(&meta);
    assert_non_null(t);
    return t;
}

/* Every (class, pattern, method) series the calibrate kernels measure. */
static void add_all_series(gm_atomics_table *t)
{
    const gm_atomics_job_class classes[] = {GM_ATOMICS_CLASS_ADD, GM_ATOMICS_CLASS_CAS, GM_ATOMICS_CLASS_POPC_INC};
    for (size_t k = 0; k < 3; k++) {
        int mixes;
        assert_int_equal(gb_atomics_class_mixes_cas(classes[k], &mixes, NULL), GM_OK);
        for (int m = 0; m < GM_ATOMICS_METHOD_COUNT; m++)
            for (int p = 0; p < GM_ATOMICS_PATTERN_COUNT; p++)
                assert_int_equal(gm_atomics_table_add_series(t, classes[k], (gm_atomics_pattern)p,
                                                             (gm_atomics_method)m, mixes, NULL),
                                 GM_OK);
    }
}

static gb_atomics_sched_options default_options(void)
{
    return (gb_atomics_sched_options){.cells_per_launch = CELLS_PER_LAUNCH,
                                      .reps = 5,
                                      .spread_threshold = 0.10,
                                      .remeasure_reps = 15,
                                      .max_attempts = 20};
}

/* The T a fake GPU reports for a cell: distinct per coordinate. */
static double cell_value(gm_atomics_job_class cls, gm_atomics_pattern pattern,
                         gm_atomics_method method, int n, int e, int c)
{
    return 100.0 + n + 2.0 * e + 3.0 * c + 1000.0 * cls + 500.0 * method + 250.0 * pattern;
}

/* A fake runner: gets a launch, fills samples.  attempt counts launches. */
typedef void (*fake_runner)(const gb_atomics_launch *launch, double *samples, long attempt, void *ctx);

/* Exact values, rep r adds r * 1e-3 of noise (spread far below 0.10). */
static void runner_clean(const gb_atomics_launch *l, double *samples, long attempt, void *ctx)
{
    (void)attempt;
    (void)ctx;
    for (int r = 0; r < l->reps; r++)
        for (int i = 0; i < l->n_cells; i++)
            samples[r * l->n_cells + i] =
                cell_value(l->cls, l->cells[i].pattern, l->method, l->n, l->cells[i].e,
                           l->cells[i].c) +
                r * 1e-3;
}

typedef struct run_stats {
    long launches;
    long cells_launched;
    int max_cells;
    int mixed_keys;  /* launches whose cells disagree on their key: must stay 0 */
    int bad_reps;
} run_stats;

static gb_atomics_sched_progress run_all(gm_atomics_table *t, const gb_atomics_sched_options *opt,
                                         fake_runner runner, void *ctx, long max_launches,
                                         run_stats *stats)
{
    gb_atomics_sched *s = NULL;
    assert_int_equal(gb_atomics_sched_new(t, opt, &s, NULL), GM_OK);
    double *samples = malloc(sizeof *samples * GB_ATOMICS_MAX_REPS * (size_t)opt->cells_per_launch);
    assert_non_null(samples);
    gb_atomics_launch l;
    run_stats local = {0};
    while ((max_launches < 0 || local.launches < max_launches) && gb_atomics_sched_next(s, &l)) {
        if (l.n_cells > local.max_cells)
            local.max_cells = l.n_cells;
        if (l.reps < 1 || l.reps > GB_ATOMICS_MAX_REPS)
            local.bad_reps++;
        for (int i = 0; i < l.n_cells; i++) {
            const gm_atomics_series *ser = gm_atomics_table_find(t, l.cls, l.cells[i].pattern,
                                                                 l.method);
            if (!ser || ser->mixes_cas != l.mixes_cas || l.cells[i].c > l.n ||
                isfinite(gm_atomics_series_cell(ser, l.n, l.cells[i].e, l.cells[i].c)->t_median))
                local.mixed_keys++;
        }
        runner(&l, samples, local.launches, ctx);
        assert_int_equal(gb_atomics_sched_record(s, &l, samples, NULL), GM_OK);
        local.launches++;
        local.cells_launched += l.n_cells;
    }
    gb_atomics_sched_progress p;
    gb_atomics_sched_get_progress(s, &p);
    gb_atomics_sched_free(s);
    free(samples);
    if (stats)
        *stats = local;
    return p;
}

/* ---- tests ------------------------------------------------------------ */

static void test_stats(void **state)
{
    (void)state;
    double odd[] = {5, 1, 3};
    double med, lo, hi, spread;
    assert_int_equal(gb_atomics_stats(odd, 3, &med, &lo, &hi, &spread), GM_OK);
    assert_near(med, 3, 0);
    assert_near(lo, 1, 0);
    assert_near(hi, 5, 0);
    assert_near(spread, 4.0 / 3.0, 1e-15);
    double even[] = {4, 2, 10, 6};
    assert_int_equal(gb_atomics_stats(even, 4, &med, &lo, &hi, &spread), GM_OK);
    assert_near(med, 5, 0);
    assert_near(spread, 8.0 / 5.0, 1e-15);
    assert_int_equal(gb_atomics_stats(even, 0, &med, &lo, &hi, &spread), GM_ERR_INVALID_ARG);
}

static void test_class_specs(void **state)
{
    (void)state;
    int mixes = -1;
    assert_int_equal(gb_atomics_class_mixes_cas(GM_ATOMICS_CLASS_ADD, &mixes, NULL), GM_OK);
    assert_int_equal(mixes, 1);
    assert_int_equal(gb_atomics_class_mixes_cas(GM_ATOMICS_CLASS_POPC_INC, &mixes, NULL), GM_OK);
    assert_int_equal(mixes, 0);
    assert_int_equal(gb_atomics_class_mixes_cas(GM_ATOMICS_CLASS_CAS, &mixes, NULL), GM_OK);
    assert_int_equal(mixes, 0);
    gm_error err = {{0}};
    assert_int_equal(gb_atomics_class_mixes_cas(GM_ATOMICS_CLASS_XOR, &mixes, &err),
                     GM_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "no calibrate kernel"));
}

/* n_max = 64: the ADD/CAS grid has sum_{n=1..64} 32 (n + 1) cells per method
 * and pattern; CAS and POPC.INC alone have 64 x 32. */
static void test_enumeration_counts(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(64, 32);
    add_all_series(t);
    long grid = 0;
    for (int n = 1; n <= 64; n++)
        grid += 32L * (n + 1);
    assert_int_equal(grid, 68608);
    const long per_method_pattern = grid + 2 * 64 * 32;
    gb_atomics_sched_options opt = default_options();
    run_stats rs;
    gb_atomics_sched_progress p = run_all(t, &opt, runner_clean, NULL, -1, &rs);
    assert_int_equal(p.total, 4 * per_method_pattern);
    assert_int_equal(p.done, p.total);
    assert_int_equal(p.failed, 0);
    assert_int_equal(p.remeasured, 0);
    /* Every cell launched exactly once, never more than one per SM. */
    assert_int_equal(rs.cells_launched, p.total);
    assert_int_equal(rs.max_cells, CELLS_PER_LAUNCH);
    assert_int_equal(rs.mixed_keys, 0);
    assert_int_equal(rs.bad_reps, 0);
    /* Launch count: per (kernel, method, n) key, ceil(cells / 132). */
    long expect = 0;
    for (int m = 0; m < 2; m++)
        for (int n = 1; n <= 64; n++) {
            expect += (2L * 32 * (n + 1) + CELLS_PER_LAUNCH - 1) / CELLS_PER_LAUNCH; /* add */
            expect += 2 * ((2L * 32 + CELLS_PER_LAUNCH - 1) / CELLS_PER_LAUNCH);     /* cas, popc */
        }
    assert_int_equal(rs.launches, expect);
    /* The table is complete and every value is the runner's median. */
    assert_int_equal(gm_atomics_table_validate(t, NULL), GM_OK);
    const gm_atomics_series *add = gm_atomics_table_find(t, GM_ATOMICS_CLASS_ADD,
                                                         GM_ATOMICS_PATTERN_DISTINCT_BANK,
                                                         GM_ATOMICS_METHOD_STEADY_STATE);
    const gm_atomics_cell *cell = gm_atomics_series_cell(add, 40, 17, 23);
    assert_near(cell->t_median,
                cell_value(GM_ATOMICS_CLASS_ADD, GM_ATOMICS_PATTERN_DISTINCT_BANK,
                           GM_ATOMICS_METHOD_STEADY_STATE, 40, 17, 23) + 2e-3,
                1e-9);
    assert_int_equal(cell->reps, 5);
    assert_int_equal(cell->flags, 0);
    gm_atomics_table_free(t);
}

/* Cells whose id is odd lose their samples in their first two launches
 * (blocks not co-resident): they are retried, finish, and are flagged. */
static void runner_discarding(const gb_atomics_launch *l, double *samples, long attempt, void *ctx)
{
    int *seen = ctx; /* launches seen per cell id */
    runner_clean(l, samples, attempt, NULL);
    for (int i = 0; i < l->n_cells; i++) {
        int id = l->cells[i].id;
        if (id % 2 == 1 && seen[id] < 2)
            for (int r = 0; r < l->reps; r++)
                samples[r * l->n_cells + i] = NAN;
        if (id % 4 == 0 && seen[id] == 0) /* partial: 2 of 5 samples lost */
            samples[0 * l->n_cells + i] = samples[3 * l->n_cells + i] = NAN;
        seen[id]++;
    }
}

static void test_retries(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(8, 4);
    add_all_series(t);
    int *seen = calloc(100000, sizeof *seen);
    gb_atomics_sched_options opt = default_options();
    opt.cells_per_launch = 7;
    run_stats rs;
    gb_atomics_sched_progress p = run_all(t, &opt, runner_discarding, seen, -1, &rs);
    assert_int_equal(p.done, p.total);
    assert_int_equal(p.failed, 0);
    assert_int_equal(rs.mixed_keys, 0);
    /* odd ids ran 3 times, ids divisible by 4 twice, the rest once. */
    long expect = 0;
    for (long id = 0; id < p.total; id++) {
        int want = id % 2 ? 3 : id % 4 == 0 ? 2 : 1;
        assert_int_equal(seen[id], want);
        expect += want;
    }
    assert_int_equal(rs.cells_launched, expect);
    assert_int_equal(gm_atomics_table_validate(t, NULL), GM_OK);
    /* Flags and kept repetitions, looked up through the launch order:
     * every cell kept exactly 5 samples; some were flagged. */
    long flagged = 0;
    for (int i = 0; i < t->n_series; i++) {
        const gm_atomics_series *s = &t->series[i];
        for (int n = 1; n <= s->n_max; n++)
            for (int e = 1; e <= s->e_max; e++)
                for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                    assert_int_equal(cell->reps, 5);
                    if (cell->flags & GM_ATOMICS_CELL_NOT_CORESIDENT)
                        flagged++;
                    /* the samples of a partial first try were kept: the
                     * median is still the clean value's */
                    assert_near(cell->t_median,
                                cell_value(s->cls, s->pattern, s->method, n, e, c), 5e-3);
                }
    }
    long odd_or_four = 0;
    for (long id = 0; id < p.total; id++)
        odd_or_four += (id % 2 == 1 || id % 4 == 0);
    assert_int_equal(flagged, odd_or_four);
    free(seen);
    gm_atomics_table_free(t);
}

/* In a cell's first launch (5 repetitions; the retry asks for 1), the first
 * repetition of every e = 2 cell comes back skewed (every inner measurement
 * discarded by the launcher's arrival-spread check). */
static void runner_skewed(const gb_atomics_launch *l, double *samples, long attempt, void *ctx)
{
    (void)ctx;
    runner_clean(l, samples, attempt, NULL);
    for (int i = 0; i < l->n_cells; i++)
        if (l->cells[i].e == 2 && l->reps == 5)
            samples[i] = GB_ATOMICS_SAMPLE_SKEWED;
}

static void test_skewed_samples(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(4, 4);
    add_all_series(t);
    gb_atomics_sched_options opt = default_options();
    gb_atomics_sched_progress p = run_all(t, &opt, runner_skewed, NULL, -1, NULL);
    assert_int_equal(p.done, p.total);
    assert_int_equal(p.failed, 0);
    for (int i = 0; i < t->n_series; i++) {
        const gm_atomics_series *s = &t->series[i];
        for (int n = 1; n <= s->n_max; n++)
            for (int e = 1; e <= s->e_max; e++)
                for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                    /* the skewed sample was not kept, the cell still got 5 */
                    assert_int_equal(cell->reps, 5);
                    assert_int_equal(cell->flags, e == 2 ? GB_ATOMICS_CELL_SKEWED : 0u);
                    assert_near(cell->t_median,
                                cell_value(s->cls, s->pattern, s->method, n, e, c), 5e-3);
                }
    }
    gm_atomics_table_free(t);
}

/* One cell never gets a sample: it is given up after max_attempts. */
static void runner_one_dead(const gb_atomics_launch *l, double *samples, long attempt, void *ctx)
{
    (void)ctx;
    runner_clean(l, samples, attempt, NULL);
    for (int i = 0; i < l->n_cells; i++)
        if (l->cls == GM_ATOMICS_CLASS_POPC_INC && l->n == 3 && l->cells[i].e == 2)
            for (int r = 0; r < l->reps; r++)
                samples[r * l->n_cells + i] = NAN;
}

static void test_give_up(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(4, 4);
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_POPC_INC,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 0, NULL),
                     GM_OK);
    gb_atomics_sched_options opt = default_options();
    opt.max_attempts = 4;
    run_stats rs;
    gb_atomics_sched_progress p = run_all(t, &opt, runner_one_dead, NULL, -1, &rs);
    assert_int_equal(p.total, 16);
    assert_int_equal(p.done, 15);
    assert_int_equal(p.failed, 1);
    assert_int_equal(rs.launches, 4 + 3); /* one launch per n, then 3 retries of the dead cell */
    assert_true(isnan(gm_atomics_series_cell(&t->series[0], 3, 2, 0)->t_median));
    assert_int_equal(gm_atomics_table_validate(t, NULL), GM_ERR_MISSING);
    gm_atomics_table_free(t);
}

/* Noise: cells with e == 1 are noisy only in their first measurement, cells
 * with e == 2 always; the others never. */
static void runner_noisy(const gb_atomics_launch *l, double *samples, long attempt, void *ctx)
{
    int *seen = ctx;
    runner_clean(l, samples, attempt, NULL);
    for (int i = 0; i < l->n_cells; i++) {
        int id = l->cells[i].id;
        int noisy = l->cells[i].e == 2 || (l->cells[i].e == 1 && seen[id] == 0);
        if (noisy)
            samples[(l->reps - 1) * l->n_cells + i] *= 1.5;
        seen[id]++;
    }
}

static void test_remeasure(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(6, 4);
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, NULL),
                     GM_OK);
    int *seen = calloc(10000, sizeof *seen);
    gb_atomics_sched_options opt = default_options();
    gb_atomics_sched_progress p = run_all(t, &opt, runner_noisy, seen, -1, NULL);
    assert_int_equal(p.done, p.total);
    const gm_atomics_series *s = &t->series[0];
    long remeasured = 0;
    for (int n = 1; n <= 6; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                if (e == 1) {
                    assert_int_equal(cell->flags, GM_ATOMICS_CELL_REMEASURED);
                    assert_int_equal(cell->reps, 15);
                    assert_true(cell->spread <= 0.10);
                    remeasured++;
                } else if (e == 2) {
                    assert_int_equal(cell->flags,
                                     GM_ATOMICS_CELL_REMEASURED | GM_ATOMICS_CELL_HIGH_SPREAD);
                    assert_int_equal(cell->reps, 15);
                    assert_true(cell->spread > 0.10);
                    remeasured++;
                } else {
                    assert_int_equal(cell->flags, 0);
                    assert_int_equal(cell->reps, 5);
                }
            }
    assert_int_equal(p.remeasured, remeasured);
    free(seen);
    gm_atomics_table_free(t);
}

static void test_bad_options(void **state)
{
    (void)state;
    gm_atomics_table *t = new_table(4, 4);
    add_all_series(t);
    gb_atomics_sched *s = NULL;
    gb_atomics_sched_options opt = default_options();
    opt.reps = 0;
    assert_int_equal(gb_atomics_sched_new(t, &opt, &s, NULL), GM_ERR_INVALID_ARG);
    opt = default_options();
    opt.cells_per_launch = 0;
    assert_int_equal(gb_atomics_sched_new(t, &opt, &s, NULL), GM_ERR_INVALID_ARG);
    opt = default_options();
    opt.remeasure_reps = GB_ATOMICS_MAX_REPS + 1;
    assert_int_equal(gb_atomics_sched_new(t, &opt, &s, NULL), GM_ERR_INVALID_ARG);
    assert_null(s);
    /* A series the kernels cannot measure. */
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_XOR,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 0, NULL),
                     GM_OK);
    opt = default_options();
    assert_int_equal(gb_atomics_sched_new(t, &opt, &s, NULL), GM_ERR_UNSUPPORTED);
    gm_atomics_table_free(t);

    /* Recording a launch that was not issued. */
    t = new_table(2, 2);
    add_all_series(t);
    assert_int_equal(gb_atomics_sched_new(t, &opt, &s, NULL), GM_OK);
    gb_atomics_launch l = {0};
    double samples[1] = {1};
    assert_int_equal(gb_atomics_sched_record(s, &l, samples, NULL), GM_ERR_INVALID_ARG);
    gb_atomics_sched_free(s);
    gm_atomics_table_free(t);
}

/* Checkpoint after some launches, load the partial file, resume: only the
 * missing cells are launched, and the result equals one uninterrupted run. */
static void test_checkpoint_resume(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuq_test_sched.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/partial.csv", dir);

    gm_atomics_table *whole = new_table(16, 8);
    add_all_series(whole);
    gb_atomics_sched_options opt = default_options();
    opt.cells_per_launch = 20;
    gb_atomics_sched_progress pw = run_all(whole, &opt, runner_clean, NULL, -1, NULL);
    assert_int_equal(pw.done, pw.total);

    gm_atomics_table *first = new_table(16, 8);
    add_all_series(first);
    gb_atomics_sched_progress p1 = run_all(first, &opt, runner_clean, NULL, 37, NULL);
    assert_true(p1.done > 0 && p1.done < p1.total);
    assert_int_equal(gm_atomics_table_write_file(path, first, NULL), GM_OK);
    gm_atomics_table *strict = NULL;
    assert_int_equal(gm_atomics_table_load(path, &strict, NULL), GM_ERR_MISSING);

    gm_atomics_table *resumed = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load_partial(path, &resumed, &err), GM_OK);
    run_stats rs;
    gb_atomics_sched_progress p2 = run_all(resumed, &opt, runner_clean, NULL, -1, &rs);
    assert_int_equal(p2.total, p1.total - p1.done);
    assert_int_equal(p2.done, p2.total);
    assert_int_equal(rs.cells_launched, p2.total);
    assert_int_equal(rs.mixed_keys, 0); /* never a cell the file already had */
    assert_int_equal(gm_atomics_table_validate(resumed, NULL), GM_OK);

    for (int i = 0; i < whole->n_series; i++) {
        const gm_atomics_series *a = &whole->series[i];
        const gm_atomics_series *b = gm_atomics_table_find(resumed, a->cls, a->pattern, a->method);
        assert_non_null(b);
        for (int n = 1; n <= a->n_max; n++)
            for (int e = 1; e <= a->e_max; e++)
                for (int c = 0; c <= (a->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *x = gm_atomics_series_cell(a, n, e, c);
                    const gm_atomics_cell *y = gm_atomics_series_cell(b, n, e, c);
                    assert_near(y->t_median, x->t_median, 0);
                    assert_near(y->t_min, x->t_min, 0);
                    assert_near(y->t_max, x->t_max, 0);
                    assert_int_equal(y->reps, x->reps);
                    assert_int_equal(y->flags, x->flags);
                }
    }
    /* Nothing left: a second resume plans no cell. */
    gb_atomics_sched *s = NULL;
    assert_int_equal(gb_atomics_sched_new(resumed, &opt, &s, NULL), GM_OK);
    gb_atomics_launch l;
    assert_int_equal(gb_atomics_sched_next(s, &l), 0);
    gb_atomics_sched_free(s);

    gm_atomics_table_free(whole);
    gm_atomics_table_free(first);
    gm_atomics_table_free(resumed);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_class_specs),
        cmocka_unit_test(test_enumeration_counts),
        cmocka_unit_test(test_retries),
        cmocka_unit_test(test_give_up),
        cmocka_unit_test(test_skewed_samples),
        cmocka_unit_test(test_remeasure),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_checkpoint_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
