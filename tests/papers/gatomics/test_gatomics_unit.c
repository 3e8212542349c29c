/* The "global atomics" unit (src/papers/gatomics/gatomics_unit.c): it reads the rates
 * from gatomics machine data, applies gatomics_model.c per launch, and reports U,
 * its verdict and fields; it is registered with its metrics in the table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/metrics.h"
#include "papers/gatomics/gatomics_model.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

static gm_mdata *rates_md(void)
{
    gm_mdata_meta m = th_meta("gatomics", TH_H100, 132, "2026-11-25T21:00:00Z");
    gm_mdata *md = gm_mdata_new(&m, GM_GATOMICS_NCOLS, gm_gatomics_columns);
    const char *rows[][GM_GATOMICS_NCOLS] = {
        {"l2rate", "atom.add.u32", "32", "one", "64", "0", "1", "1", "1", "Gsector/s", "5"},
        {"l2rate", "atom.add.u32", "32", "distinct", "64", "0", "60", "60", "60", "Gsector/s", "5"},
        {"l2rate", "red.add.u32", "32", "one", "64", "0", "2", "2", "2", "Gsector/s", "5"},
        {"l2rate", "red.add.u32", "32", "distinct", "64", "0", "120", "120", "120", "Gsector/s", "5"},
        {"l2rate", "atom.cas.u32", "32", "one", "64", "0", "1", "1", "1", "Gsector/s", "5"},
        {"l2rate", "atom.cas.u32", "32", "distinct", "64", "0", "30", "30", "30", "Gsector/s", "5"},
    };
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(gm_mdata_add_row(md, rows[i], NULL), GM_OK);
    return md;
}

static const gm_field *field(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

static void set(gm_launch_counters *k, const char *metric, double v)
{
    int row = gm_metric_find(metric);
    assert_true(row >= 0);
    k->metric[row] = v;
}

static void unit_applies_model(void **state)
{
    (void)state;
    const gm_unit *u = th_unit("gatomics", "global atomics");
    gm_machine m;
    th_machine_with(&m, "gatomics", rates_md());
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    void *res = calloc(1, u->result_size);
    gm_launch_counters k;
    memset(&k, 0, sizeof k);
    for (int i = 0; i < GM_METRIC_MAX; i++)
        k.metric[i] = NAN;
    /* One hot slice: 1e6 ATOM sectors at 1 Gsector/s = 1 ms busy in 2 ms. */
    set(&k, "lts__t_sectors_srcunit_tex_op_atom.sum", 1e6);
    set(&k, "lts__t_sectors_srcunit_tex_op_red.sum", 0);
    set(&k, "lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum", 0);
    set(&k, "lts__d_atomic_input_cycles_active.sum", 700);
    set(&k, "lts__d_atomic_input_cycles_active.max", 700);
    set(&k, "lts__cycles_elapsed.avg", 1000);
    set(&k, "gpu__time_duration.sum", 2e6);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_float_equal(field(f, nf, "U")->num, 0.5, 1e-12);
    assert_float_equal(field(f, nf, "U_direct")->num, 0.7, 1e-12);
    assert_float_equal(field(f, nf, "B_us")->num, 1000, 1e-6);
    assert_string_equal(field(f, nf, "binding")->text, "one slice");
    /* Half of those sectors CAS over 60 slices: CAS apart, at its own peak.
     * ATOM 5e5 / (60 * 1e9), CAS 5e5 / 30e9 at the shared peak: B_all =
     * 5e5/60e9 + 5e5/30e9 = 25 us in 2 ms. */
    set(&k, "lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum", 5e5);
    set(&k, "lts__d_atomic_input_cycles_active.sum", 60 * 10.0);
    set(&k, "lts__d_atomic_input_cycles_active.max", 10);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_float_equal(field(f, nf, "sectors_cas")->num, 5e5, 0);
    assert_float_equal(field(f, nf, "sectors_atom")->num, 5e5, 0);
    assert_float_equal(field(f, nf, "B_us")->num, 25, 1e-9);
    assert_string_equal(field(f, nf, "binding")->text, "all units");
    set(&k, "lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum", 0);
    set(&k, "lts__d_atomic_input_cycles_active.sum", 700);
    set(&k, "lts__d_atomic_input_cycles_active.max", 700);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    gm_unit_verdict v;
    u->verdict(st, res, &v);
    assert_float_equal(v.severity, 0.5, 1e-12);
    assert_non_null(strstr(v.text, "significant"));
    /* No atomics: exactly 0, whatever the activity counter says. */
    set(&k, "lts__t_sectors_srcunit_tex_op_atom.sum", 0);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    u->verdict(st, res, &v);
    assert_true(v.severity == 0.0);
    nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_true(field(f, nf, "U")->num == 0.0);
    /* A missing counter: a result, U NaN, the verdict names it. */
    set(&k, "lts__t_sectors_srcunit_tex_op_atom.sum", 5);
    set(&k, "lts__d_atomic_input_cycles_active.sum", NAN);
    assert_int_equal(u->apply(st, NULL, &k, res, NULL), GM_OK);
    u->verdict(st, res, &v);
    assert_true(isnan(v.severity));
    assert_non_null(strstr(v.text, "lts__d_atomic_input_cycles_active.sum"));
    u->release(st);
    /* The direct form needs no machine data; the others do. */
    gm_machine empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(u->prepare(&empty, "direct", &st, NULL), GM_OK);
    u->release(st);
    assert_int_equal(u->prepare(&empty, "rate", &st, NULL), GM_ERR_MISSING);
    assert_int_equal(u->prepare(&m, "queue", &st, NULL), GM_ERR_INVALID_ARG);
    free(res);
    gm_mdata_free(m.files[0].md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(unit_applies_model)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
