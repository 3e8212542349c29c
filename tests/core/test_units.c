/* Unit tests of the unit registry (src/papers/units.c) and of the shared-
 * atomic unit (src/papers/atomics/atomics_unit.c): the atomic model is row 1, every
 * declared metric is a row of the metric table, and the unit gives, for
 * every variant and every recorded launch, the U of gm_atomics_model_apply, as a
 * field and as its verdict's severity. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/metrics.h"
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_table.h"
#include "gpuq/unit.h"
#include "test_helpers.h"

static void test_registry(void **state)
{
    (void)state;
    assert_true(gm_unit_count() >= 1);
    assert_null(gm_units[gm_unit_count()]);
    assert_string_equal(gm_units[0]->name, "atomics");
    assert_ptr_equal(gm_unit_find("atomics"), gm_units[0]);
    assert_null(gm_unit_find("nosuch"));
    assert_null(gm_unit_find(NULL));
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_unit *unit = gm_units[u];
        assert_non_null(unit->title);
        assert_non_null(unit->prepare);
        assert_non_null(unit->apply);
        assert_non_null(unit->fields);
        assert_non_null(unit->verdict);
        assert_true(unit->result_size > 0);
        /* a name is a CSV prefix and a JSON key */
        assert_null(strpbrk(unit->name, ",.\" :"));
        for (size_t o = 0; o < u; o++)
            assert_string_not_equal(unit->name, gm_units[o]->name);
        for (size_t i = 0; unit->metrics && unit->metrics[i]; i++)
            assert_true(gm_metric_find(unit->metrics[i]) >= 0);
    }
}

/* The code passes the units declare: their callbacks and words are there,
 * and they all declare the result the counters file's one set of columns
 * holds (gm_units_file_pass); the column names. */
static void test_code_passes(void **state)
{
    (void)state;
    const gm_code_pass *file = gm_units_file_pass();
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_code_pass *p = gm_units[u]->code_pass;
        if (!p)
            continue;
        assert_ptr_equal(file, gm_units_code_pass(NULL, 0, NULL));
        assert_non_null(p->name);
        assert_non_null(p->title);
        assert_non_null(p->mark);
        assert_non_null(p->applies);
        assert_non_null(p->from_counters);
        assert_non_null(p->needs_code);
        assert_non_null(p->from_code);
        assert_non_null(p->from_counts);
        assert_true(p->option == NULL || strncmp(p->option, "no-", 3) == 0);
        size_t n = gm_code_pass_values(p);
        assert_true(n >= 1 && n <= GM_PASS_VALUES_MAX);
        assert_null(p->result_values[n]); /* no more than GM_PASS_VALUES_MAX */
        assert_int_equal(gm_code_pass_values(file), n);
        assert_string_equal(p->result_key, file->result_key);
        assert_int_equal(strspn(p->result_key, "abcdefghijklmnopqrstuvwxyz0123456789_"),
                         strlen(p->result_key));
        for (size_t v = 0; v < n; v++) {
            assert_string_equal(p->result_values[v], file->result_values[v]);
            assert_int_equal(strspn(p->result_values[v], "abcdefghijklmnopqrstuvwxyz0123456789_"),
                             strlen(p->result_values[v]));
        }
    }
    char col[128];
    assert_int_equal(gm_code_pass_columns(NULL), 0);
    if (!file)
        return;
    assert_int_equal(gm_code_pass_columns(file), 1 + gm_code_pass_values(file));
    gm_code_pass_column(file, 0, col, sizeof col);
    assert_true(strlen(col) == strlen(file->result_key) + 6 && strstr(col, "_valid"));
    gm_code_pass_column(file, 1, col, sizeof col);
    assert_int_equal(strncmp(col, file->result_key, strlen(file->result_key)), 0);
    assert_string_equal(col + strlen(file->result_key) + 1, file->result_values[0]);
    gm_code_pass_column(file, gm_code_pass_columns(file), col, sizeof col);
    assert_string_equal(col, "");
}

static void test_metric_rows_union(void **state)
{
    (void)state;
    int rows[GM_METRIC_MAX];
    const gm_unit *atomics[] = {gm_unit_find("atomics")};
    size_t n = gm_units_metric_rows(atomics, 1, rows, GM_METRIC_MAX);
    /* the Table 1 rows in order, then the latency kind's four stall counters */
    assert_int_equal(n, GM_ATOMICS_M_ATOMIC_ROWS + 4);
    for (size_t i = 0; i < GM_ATOMICS_M_ATOMIC_ROWS; i++)
        assert_int_equal(rows[i], (int)i);
    assert_int_equal(rows[GM_ATOMICS_M_ATOMIC_ROWS],
                     gm_metric_find("smsp__warps_issue_stalled_short_scoreboard.sum"));
    assert_int_equal(rows[GM_ATOMICS_M_ATOMIC_ROWS + 1],
                     gm_metric_find("smsp__warps_issue_stalled_mio_throttle.sum"));
    assert_int_equal(rows[GM_ATOMICS_M_ATOMIC_ROWS + 2],
                     gm_metric_find("smsp__warps_issue_stalled_wait.sum"));
    assert_int_equal(rows[GM_ATOMICS_M_ATOMIC_ROWS + 3],
                     gm_metric_find("smsp__warps_issue_stalled_selected.sum"));
    /* the same unit twice: each row once */
    const gm_unit *twice[] = {atomics[0], atomics[0]};
    assert_int_equal(gm_units_metric_rows(twice, 2, rows, GM_METRIC_MAX),
                     GM_ATOMICS_M_ATOMIC_ROWS + 4);
    /* all units: at least the atomic rows, never more than the table */
    size_t all = gm_units_metric_rows(NULL, 0, rows, GM_METRIC_MAX);
    assert_true(all >= GM_ATOMICS_M_ATOMIC_ROWS && all <= gm_metric_count());
    /* max respected */
    assert_int_equal(gm_units_metric_rows(atomics, 1, rows, 3), 3);
}

/* Opt-in metrics are rows of the table, and the default set (every unit's
 * metrics) holds none of the bottleneck unit's: asking for them is what
 * adds their passes, not the default. */
static void test_opt_in_metrics(void **state)
{
    (void)state;
    const gm_unit *bn = gm_unit_find("bottleneck");
    assert_non_null(bn);
    assert_non_null(bn->opt_in_metrics);
    int all[GM_METRIC_MAX];
    size_t n_all = gm_units_metric_rows(NULL, 0, all, GM_METRIC_MAX);
    size_t k = 0;
    for (; bn->opt_in_metrics[k]; k++) {
        int row = gm_metric_find(bn->opt_in_metrics[k]);
        assert_true(row >= 0);
        for (size_t i = 0; i < n_all; i++)
            if (all[i] == row)
                fail_msg("opt-in metric %s is in the default set", bn->opt_in_metrics[k]);
    }
    assert_true(k >= 10);
    /* appended once each, after what is there, within max */
    int rows[GM_METRIC_MAX];
    size_t n = 0;
    rows[n++] = gm_metric_find("smsp__warps_issue_stalled_barrier.sum");
    assert_int_equal(gm_unit_opt_in_rows(bn, rows, &n, GM_METRIC_MAX), k - 1);
    assert_int_equal(n, k);
    assert_int_equal(gm_unit_opt_in_rows(bn, rows, &n, GM_METRIC_MAX), 0);
    n = 0;
    assert_int_equal(gm_unit_opt_in_rows(bn, rows, &n, 2), 2);
    assert_int_equal(gm_unit_opt_in_rows(gm_unit_find("atomics"), rows, &n, GM_METRIC_MAX), 0);
}

static const gm_field *field(const gm_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

/* Every variant on every launch of a recorded H200 run: the unit's U is
 * gm_atomics_model_apply's, bit for bit, and its severity is U. */
static void test_atomics_unit_matches_model(void **state)
{
    (void)state;
    const gm_unit *u = gm_unit_find("atomics");
    gm_machine m;
    th_atomics_machine(&m, "tables/nvidia-h200/atomics.csv.gz");
    snprintf(m.files[0].path, sizeof m.files[0].path, "h200 table");
    gm_counters_set set;
    th_recorded_h200(&set);
    char variants[256];
    snprintf(variants, sizeof variants, "%s", u->variants);
    size_t n_variants = 0;
    for (char *v = strtok(variants, ","); v; v = strtok(NULL, ","), n_variants++) {
        gm_atomics_model_options opt;
        assert_int_equal(gm_atomics_model_by_name(v, &opt), GM_OK);
        void *st = NULL;
        assert_int_equal(u->prepare(&m, v, &st, NULL), GM_OK);
        void *res = calloc(1, u->result_size);
        assert_non_null(res);
        size_t n_fields_first = 0;
        for (size_t i = 0; i < set.count; i++) {
            assert_int_equal(u->apply(st, &set.meta, &set.launches[i], res, NULL), GM_OK);
            gm_atomics_kernel_result want;
            memset(&want, 0, sizeof want);
            assert_int_equal(gm_atomics_model_apply(gm_machine_data(&m, "atomics"), &opt, &set.launches[i], &want, NULL),
                             GM_OK);
            gm_field f[GM_UNIT_MAX_FIELDS];
            size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
            if (i == 0)
                n_fields_first = nf;
            assert_int_equal(nf, n_fields_first); /* same fields for every result */
            const gm_field *U = field(f, nf, "U");
            assert_non_null(U);
            assert_int_equal(U->kind, GM_FIELD_PCT);
            assert_true(U->num == want.avg.U);
            assert_true(field(f, nf, "S")->num == want.avg.S);
            assert_string_equal(field(f, nf, "model")->text, v);
            gm_unit_verdict vd;
            u->verdict(st, res, &vd);
            assert_true(vd.severity == want.avg.U);
            assert_non_null(strstr(vd.text, "shared-memory atomics"));
            gm_atomics_kernel_result_free(&want);
            if (u->free_result)
                u->free_result(res);
        }
        free(res);
        u->release(st);
    }
    assert_int_equal(n_variants, 8);
    void *st = NULL;
    assert_int_equal(u->prepare(&m, "nosuch", &st, NULL), GM_ERR_INVALID_ARG);
    gm_counters_set_clear(&set);
    gm_machine_free(&m);
}

/* A launch without the cycle counter: a result all the same, U = NaN,
 * severity NaN, the verdict names the counter. */
static void test_atomics_missing_counter(void **state)
{
    (void)state;
    const gm_unit *u = gm_unit_find("atomics");
    gm_machine m;
    th_atomics_machine(&m, "tests/data/tables/test_gpu.csv");
    void *st = NULL;
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_OK);
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, "k", NULL), GM_OK);
    k.metric[GM_ATOMICS_M_N_ATOM] = k.metric[GM_ATOMICS_M_N_ATOM_SASS] = 8;
    k.metric[GM_ATOMICS_M_N_CAS] = 0;
    k.metric[GM_ATOMICS_M_N_ALU] = 8;
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 8;
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.sm_count = 2;
    meta.max_warps_per_sm = 4;
    void *res = calloc(1, u->result_size);
    assert_int_equal(u->apply(st, &meta, &k, res, NULL), GM_OK);
    gm_unit_verdict vd;
    u->verdict(st, res, &vd);
    assert_true(isnan(vd.severity));
    assert_non_null(strstr(vd.text, "not modelled"));
    gm_field f[GM_UNIT_MAX_FIELDS];
    size_t nf = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
    assert_true(isnan(field(f, nf, "U")->num));
    assert_true(field(f, nf, "e")->flags & GM_FIELD_TEXT_DASH);
    if (u->free_result)
        u->free_result(res);
    free(res);
    u->release(st);
    gm_launch_counters_clear(&k);
    /* no table: prepare says so */
    gm_machine_free(&m);
    assert_int_equal(u->prepare(&m, NULL, &st, NULL), GM_ERR_MISSING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_code_passes),
        cmocka_unit_test(test_metric_rows_union),
        cmocka_unit_test(test_opt_in_metrics),
        cmocka_unit_test(test_atomics_unit_matches_model),
        cmocka_unit_test(test_atomics_missing_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
