/* The report gpuq printed for the histogram on a real H200, recomputed by
 * hand from the saved counters and the shipped table.
 *
 * data/recorded/ holds the counters `gpuq profile` saved on an NVIDIA H200
 * (2026-11-22, scripts/gpu_check.sh; docs/profile-demo.md shows the report
 * it printed).  Each test below does the arithmetic of one model variant in
 * plain C from the raw numbers (the counters file's columns and the table's
 * t_median cells) and checks that gm_atomics_model_apply gives the same U, and the
 * claims the docs make about these kernels (e = 32 and U >= 90% for
 * ATOMS.ADD on a solid image, a clearly lower U for ATOMS.POPC.INC, e about
 * 3.5 on a uniform image).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/counters.h"
#include "core/gzstream.h"
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_table.h"

#define RECORDED GPUQ_SOURCE_DIR "/data/recorded/"
#define TABLE GPUQ_SOURCE_DIR "/tables/nvidia-h200/atomics.csv.gz"

static void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)

typedef struct fixture {
    gm_atomics_table *table;
    gm_counters_set add_solid, popc_solid, add_uniform;
} fixture;

static void load_counters(const char *name, gm_counters_set *set)
{
    gm_error err = {{0}};
    char path[512];
    snprintf(path, sizeof path, RECORDED "%s", name);
    gm_status st = gm_counters_load(path, set, &err);
    if (st != GM_OK)
        print_error("%s: %s\n", path, err.msg);
    assert_int_equal(st, GM_OK);
    assert_true(set->count >= 1);
}

static int setup(void **state)
{
    if (!gm_have_gz()) {
        print_message("built without zlib: the shipped table cannot be read\n");
        return -1;
    }
    fixture *f = calloc(1, sizeof *f);
    gm_error err = {{0}};
    if (!f || gm_atomics_table_load(TABLE, &f->table, &err) != GM_OK) {
        print_error("%s: %s\n", TABLE, err.msg);
        free(f);
        return -1;
    }
    load_counters("histogram-hist-solid-4m-nvidia-h200.counters.csv", &f->add_solid);
    load_counters("histogram-hist_popc-solid-4m-nvidia-h200.counters.csv", &f->popc_solid);
    load_counters("histogram-hist-uniform-4m-nvidia-h200.counters.csv", &f->add_uniform);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gm_atomics_table_free(f->table);
    gm_counters_set_clear(&f->add_solid);
    gm_counters_set_clear(&f->popc_solid);
    gm_counters_set_clear(&f->add_uniform);
    free(f);
    return 0;
}

static double t_cell(const gm_atomics_table *table, gm_atomics_method method, int n, int e, int c)
{
    const gm_atomics_series *s = gm_atomics_table_find(table, GM_ATOMICS_CLASS_ADD,
                                                       GM_ATOMICS_PATTERN_SAME_ADDRESS, method);
    assert_non_null(s);
    const gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
    assert_non_null(cell);
    return cell->t_median;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* w, by hand: the median over n = 16..64 of the steady-state same-address
 * ADD slope (T(n,32,0) - T(n,16,0)) / (n x 16), cycles per wavefront. */
static double hand_w(const gm_atomics_table *table)
{
    double slopes[49];
    for (int n = 16; n <= 64; n++)
        slopes[n - 16] = (t_cell(table, GM_ATOMICS_METHOD_STEADY_STATE, n, 32, 0) -
                          t_cell(table, GM_ATOMICS_METHOD_STEADY_STATE, n, 16, 0)) /
                         (n * 16.0);
    qsort(slopes, 49, sizeof slopes[0], compare_doubles);
    return slopes[24];
}

static gm_atomics_kernel_result apply(const gm_atomics_table *table, const char *model,
                                      const gm_launch_counters *k)
{
    gm_atomics_model_options opt;
    assert_int_equal(gm_atomics_model_by_name(model, &opt), GM_OK);
    gm_atomics_kernel_result r;
    memset(&r, 0, sizeof r);
    gm_error err = {{0}};
    gm_status st = gm_atomics_model_apply(table, &opt, k, &r, &err);
    if (st != GM_OK)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GM_OK);
    return r;
}

/* Default model: B = O x w per average SM, U = B / T.avg. */
static double hand_U_default(const gm_atomics_table *table, const gm_launch_counters *k)
{
    double sms = round(k->metric[GM_ATOMICS_M_CYCLES_SUM] / k->metric[GM_ATOMICS_M_CYCLES_AVG]);
    double O_per_sm = k->metric[GM_ATOMICS_M_O_WAVEFRONTS] / sms;
    return O_per_sm * hand_w(table) / k->metric[GM_ATOMICS_M_CYCLES_AVG];
}

static void test_default_U_add_solid_by_hand(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < f->add_solid.count; i++) {
        const gm_launch_counters *k = &f->add_solid.launches[i];
        double sms = round(k->metric[GM_ATOMICS_M_CYCLES_SUM] / k->metric[GM_ATOMICS_M_CYCLES_AVG]);
        assert_near(sms, 132, 0);
        gm_atomics_kernel_result r = apply(f->table, "default", k);
        double want = hand_U_default(f->table, k);
        assert_near(r.avg.U, want, 1e-12 * want);
        /* The claims of docs/profile-demo.md: every lane on one bin (e = 32)
         * and the unit at least 90% busy. */
        assert_near(r.avg.e, 32.0, 0.05);
        assert_true(r.avg.U >= 0.90);
        gm_atomics_kernel_result_free(&r);
    }
}

static void test_default_U_popc_solid_is_clearly_lower(void **state)
{
    fixture *f = *state;
    const gm_launch_counters *add = &f->add_solid.launches[0];
    for (size_t i = 0; i < f->popc_solid.count; i++) {
        const gm_launch_counters *k = &f->popc_solid.launches[i];
        gm_atomics_kernel_result r = apply(f->table, "default", k);
        double want = hand_U_default(f->table, k);
        assert_near(r.avg.U, want, 1e-12 * want);
        /* POPC.INC: one wavefront per warp instruction whatever the lanes. */
        assert_near(r.avg.e, 1.0, 0.01);
        gm_atomics_kernel_result ra = apply(f->table, "default", add);
        assert_true(r.avg.U < 0.5 * ra.avg.U);
        gm_atomics_kernel_result_free(&ra);
        gm_atomics_kernel_result_free(&r);
    }
}

static void test_default_uniform_image_e_about_3_5(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < f->add_uniform.count; i++) {
        const gm_launch_counters *k = &f->add_uniform.launches[i];
        gm_atomics_kernel_result r = apply(f->table, "default", k);
        assert_near(r.avg.e,
                    k->metric[GM_ATOMICS_M_O_WAVEFRONTS] / k->metric[GM_ATOMICS_M_N_ATOM_SASS],
                    1e-12);
        assert_true(r.avg.e > 3.0 && r.avg.e < 4.0);
        double want = hand_U_default(f->table, k);
        assert_near(r.avg.U, want, 1e-12 * want);
        gm_atomics_kernel_result_free(&r);
    }
}

/* The paper's model (Table 2, Eq. 1-3) on launch 0 of the solid ATOMS.ADD
 * kernel: n-hat = o x 64, e = O / N = 32 exactly, c = 0 (no CAS), so Eq. 2
 * is linear interpolation in n alone between the sampled single-shot cells
 * at floor(n-hat) and floor(n-hat) + 1; S = T / n-hat (Eq. 3); B = N S per
 * average SM and U = B / T.avg. */
static void test_paper_U_add_solid_by_hand(void **state)
{
    fixture *f = *state;
    const gm_launch_counters *k = &f->add_solid.launches[0];
    double N = k->metric[GM_ATOMICS_M_N_ATOM_SASS];
    /* e integral: no e interpolation */
    assert_near(k->metric[GM_ATOMICS_M_O_WAVEFRONTS] / N, 32.0, 0);
    assert_near(k->metric[GM_ATOMICS_M_N_CAS], 0, 0);
    double n_hat = k->metric[GM_ATOMICS_M_OCCUPANCY_PCT] / 100.0 * 64;
    int n0 = (int)floor(n_hat);
    double frac = n_hat - n0;
    double T = (1 - frac) * t_cell(f->table, GM_ATOMICS_METHOD_SINGLE_SHOT, n0, 32, 0) +
               frac * t_cell(f->table, GM_ATOMICS_METHOD_SINGLE_SHOT, n0 + 1, 32, 0);
    double S = T / n_hat;
    double sms = round(k->metric[GM_ATOMICS_M_CYCLES_SUM] / k->metric[GM_ATOMICS_M_CYCLES_AVG]);
    double want = (N / sms) * S / k->metric[GM_ATOMICS_M_CYCLES_AVG];

    gm_atomics_kernel_result r = apply(f->table, "paper", k);
    assert_near(r.avg.n, n_hat, 1e-12 * n_hat);
    assert_near(r.avg.S, S, 1e-12 * S);
    assert_near(r.avg.U, want, 1e-12 * want);
    gm_atomics_kernel_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_U_add_solid_by_hand),
        cmocka_unit_test(test_default_U_popc_solid_is_clearly_lower),
        cmocka_unit_test(test_default_uniform_image_e_about_3_5),
        cmocka_unit_test(test_paper_U_add_solid_by_hand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
