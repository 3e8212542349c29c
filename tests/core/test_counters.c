/* Unit tests of the metric table, the counters set and the counters file
 * (src/core/counters.c, docs/counters-format.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuq/counters.h"
#include "gpuq/unit.h"
#include "papers/atomics/atomics_model.h"
#include "test_files.h"

#define DATA GPUQ_SOURCE_DIR "/tests/data/counters/"

/* A temporary file path, unique per test process. */
static void temp_path(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "%s/test_counters_%ld_%s.csv", GPUQ_BINARY_DIR, (long)getpid(), tag);
}

/* The index of a value of the file's code pass (gm_units_file_pass: the
 * opcode split's split_add... columns of the recorded files). */
static int value_of(const char *name)
{
    const gm_code_pass *pass = gm_units_file_pass();
    assert_non_null(pass);
    for (int v = 0; pass->result_values[v]; v++)
        if (strcmp(pass->result_values[v], name) == 0)
            return v;
    fail_msg("the code pass has no value %s", name);
    return 0;
}

static void test_launch_init_marks_everything_unknown(void **state)
{
    (void)state;
    gm_launch_counters k;
    memset(&k, 0x5a, sizeof k);
    gm_launch_counters_init(&k);
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        assert_true(isnan(k.metric[m]));
    assert_int_equal(k.pass.valid, 0);
    for (int v = 0; v < GM_PASS_VALUES_MAX; v++)
        assert_true(isnan(k.pass.value[v]));
    assert_int_equal(k.regs_per_thread, -1);
    assert_int_equal(k.shared_bytes, -1);
    assert_null(k.kernel);
    assert_null(k.sm_cycles);
}

static void test_set_names_copies_and_replaces(void **state)
{
    (void)state;
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    char name[] = "kern(int)";
    assert_int_equal(gm_launch_counters_set_names(&k, name, NULL), GM_OK);
    name[0] = 'X'; /* the copy must not follow the caller's buffer */
    assert_string_equal(k.kernel, "kern(int)");
    assert_string_equal(k.mangled, "kern(int)");
    assert_int_equal(gm_launch_counters_set_names(&k, "b(float)", "_Z1bf"), GM_OK);
    assert_string_equal(k.kernel, "b(float)");
    assert_string_equal(k.mangled, "_Z1bf");
    assert_int_equal(gm_launch_counters_set_names(&k, NULL, "x"), GM_ERR_INVALID_ARG);
    gm_launch_counters_clear(&k);
    assert_null(k.kernel);
}

static void test_set_push_takes_ownership_and_grows(void **state)
{
    (void)state;
    gm_counters_set set;
    gm_counters_set_init(&set);
    for (int i = 0; i < 40; i++) {
        gm_launch_counters k;
        gm_launch_counters_init(&k);
        char name[32];
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(gm_launch_counters_set_names(&k, name, NULL), GM_OK);
        k.launch_id = (uint64_t)i;
        k.sm_cycles = calloc(4, sizeof *k.sm_cycles); /* owned array moves too */
        k.n_sm = 4;
        assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
        assert_null(k.kernel); /* k was reset: it owns nothing now */
        assert_null(k.sm_cycles);
    }
    assert_int_equal(set.count, 40);
    assert_string_equal(set.launches[39].kernel, "k39");
    assert_int_equal(set.launches[17].launch_id, 17);
    gm_counters_set_clear(&set);
    assert_int_equal(set.count, 0);
    assert_null(set.launches);
}

static void fill_launch(gm_launch_counters *k, uint64_t id, const char *name)
{
    gm_launch_counters_init(k);
    assert_int_equal(gm_launch_counters_set_names(k, name, "_Zmangled"), GM_OK);
    k->launch_id = id;
    k->device = 1;
    k->grid[0] = 132, k->grid[1] = 2, k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
    k->regs_per_thread = 32;
    k->shared_bytes = 4096;
    /* Each in its physical range (gpuq/ranges.h): whole counts, and
     * fractions, which must survive exactly, where the quantity has them. */
    for (int m = 0; m < GM_METRIC_COUNT; m++)
        k->metric[m] = gm_quantity_table[gm_metric_table[m].quantity].integer
                           ? 1000.0 * m + 7
                           : (double)(m % 90) + 0.1;
    k->metric[GM_ATOMICS_M_DURATION_NS] = NAN;   /* not collected */
}

static void test_round_trip_keeps_every_field(void **state)
{
    (void)state;
    char path[512];
    temp_path(path, sizeof path, "roundtrip");
    gm_counters_set set;
    gm_counters_set_init(&set);
    snprintf(set.meta.device_name, sizeof set.meta.device_name, "NVIDIA H200");
    set.meta.cc_major = 9;
    set.meta.sm_count = 132;
    set.meta.max_warps_per_sm = 64;
    snprintf(set.meta.source, sizeof set.meta.source, "unit test");
    snprintf(set.meta.command, sizeof set.meta.command, "./app --flag \"x, y\"");
    set.meta.pid = 4242;
    set.meta.passes = 3;
    const char *names[] = {"void hist<int, 4>(const uchar4 *, unsigned int *)",
                           "say \"hi\", then <go>", " leading and trailing space ",
                           "two\nlines"};
    for (int i = 0; i < 4; i++) {
        gm_launch_counters k;
        fill_launch(&k, (uint64_t)(10 + i), names[i]);
        if (i == 1) {
            k.pass.valid = 1;
            k.pass.value[value_of("add")] = 3, k.pass.value[value_of("cas")] = 0.5;
            k.pass.value[value_of("popc_inc")] = 7, k.pass.value[value_of("other")] = 0;
        }
        assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    }
    gm_error err = {{0}};
    assert_int_equal(gm_counters_write_file(path, &set, &err), GM_OK);

    gm_counters_set back;
    assert_int_equal(gm_counters_load(path, &back, &err), GM_OK);
    assert_string_equal(back.meta.device_name, "NVIDIA H200");
    assert_int_equal(back.meta.cc_major, 9);
    assert_int_equal(back.meta.sm_count, 132);
    assert_int_equal(back.meta.max_warps_per_sm, 64);
    assert_string_equal(back.meta.command, "./app --flag \"x, y\"");
    assert_int_equal(back.meta.pid, 4242);
    assert_int_equal(back.meta.passes, 3);
    assert_int_equal(back.meta.n_metrics, gm_metric_count());
    assert_int_equal(back.count, 4);
    for (size_t i = 0; i < 4; i++) {
        const gm_launch_counters *a = &set.launches[i], *b = &back.launches[i];
        assert_string_equal(b->kernel, names[i]);
        assert_string_equal(b->mangled, "_Zmangled");
        assert_int_equal(b->launch_id, a->launch_id);
        assert_int_equal(b->device, 1);
        assert_memory_equal(b->grid, a->grid, sizeof a->grid);
        assert_memory_equal(b->block, a->block, sizeof a->block);
        assert_int_equal(b->regs_per_thread, 32);
        assert_int_equal(b->shared_bytes, 4096);
        /* v2 holds every row of the table, by metric name */
        for (int m = 0; m < GM_METRIC_COUNT; m++) {
            if (isnan(a->metric[m]))
                assert_true(isnan(b->metric[m]));
            else
                assert_true(a->metric[m] == b->metric[m]); /* bit-exact, not approximate */
        }
        assert_int_equal(b->pass.valid, a->pass.valid);
    }
    assert_true(back.launches[1].pass.value[value_of("cas")] == 0.5);
    assert_true(back.launches[1].pass.value[value_of("popc_inc")] == 7);
    gm_counters_set_clear(&back);
    gm_counters_set_clear(&set);
    unlink(path);
}

static void test_append_row_is_on_disk_at_once(void **state)
{
    (void)state;
    char path[512];
    temp_path(path, sizeof path, "append");
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.device_name, sizeof meta.device_name, "gpuq Test GPU");
    gm_error err = {{0}};
    assert_int_equal(gm_counters_write_header(out, &meta, &err), GM_OK);
    gm_launch_counters k;
    fill_launch(&k, 0, "first(int)");
    assert_int_equal(gm_counters_append_row(out, &meta, &k, &err), GM_OK);
    /* Still open for writing, as in a profiled program that then crashes:
     * the loader must already see the row. */
    gm_counters_set seen;
    assert_int_equal(gm_counters_load(path, &seen, &err), GM_OK);
    assert_int_equal(seen.count, 1);
    assert_string_equal(seen.launches[0].kernel, "first(int)");
    gm_counters_set_clear(&seen);
    gm_launch_counters_clear(&k);
    fclose(out);
    unlink(path);
}

static void test_load_valid_file(void **state)
{
    (void)state;
    gm_counters_set set;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(DATA "valid.csv", &set, &err), GM_OK);
    assert_string_equal(set.meta.device_name, "gpuq Test GPU");
    assert_int_equal(set.meta.sm_count, 2);
    assert_int_equal(set.meta.max_warps_per_sm, 4);
    assert_string_equal(set.meta.command, "./hist --image solid");
    assert_int_equal(set.count, 5);
    assert_string_equal(set.launches[0].kernel,
                        "void hist<int, 4>(const uchar4 *, unsigned int *) [with \"solid\"]");
    assert_true(set.launches[0].metric[GM_ATOMICS_M_O_WAVEFRONTS] == 48);
    assert_true(set.launches[0].metric[GM_ATOMICS_M_DURATION_NS] == 1500.5);
    assert_int_equal(set.launches[2].block[1], 2);
    assert_int_equal(set.launches[2].pass.valid, 1);
    assert_true(set.launches[2].pass.value[value_of("add")] == 4);
    /* empty = not collected */
    assert_true(isnan(set.launches[4].metric[GM_ATOMICS_M_OCCUPANCY_PCT]));
    assert_true(isnan(set.launches[4].pass.value[value_of("add")]));
    gm_counters_set_clear(&set);
}

/* Loads a bad file: the status, and a message that names file:line and what. */
static void expect_rejected(const char *file, gm_status want, const char *line_tag,
                            const char *what)
{
    gm_counters_set set;
    gm_error err = {{0}};
    char path[512];
    snprintf(path, sizeof path, DATA "%s", file);
    gm_status st = gm_counters_load(path, &set, &err);
    if (st != want || !strstr(err.msg, line_tag) || !strstr(err.msg, what))
        fail_msg("%s: status %d (want %d), message '%s' (want '%s' and '%s')", file, st, want,
                 err.msg, line_tag, what);
    assert_int_equal(set.count, 0); /* nothing half-loaded */
    assert_null(set.launches);
}

static void test_rejects_bad_magic(void **state)
{
    (void)state;
    expect_rejected("bad_magic.csv", GM_ERR_PARSE, "bad_magic.csv:1:", "not a gpuq counters file");
}

static void test_rejects_other_version(void **state)
{
    (void)state;
    expect_rejected("bad_version.csv", GM_ERR_MISMATCH, ":1:", "v9");
}

static void test_rejects_header_order(void **state)
{
    (void)state;
    expect_rejected("bad_header_order.csv", GM_ERR_PARSE, ":8:", "expected 'N_cas'");
}

static void test_rejects_bad_number(void **state)
{
    (void)state;
    expect_rejected("bad_number.csv", GM_ERR_PARSE, "bad_number.csv:9:", "O_wavefronts '4x8'");
}

static void test_rejects_negative_count(void **state)
{
    (void)state;
    expect_rejected("negative_count.csv", GM_ERR_RANGE, ":10:", "negative");
}

static void test_rejects_duplicate_launch_id(void **state)
{
    (void)state;
    expect_rejected("duplicate_id.csv", GM_ERR_DUPLICATE, ":12:", "already used on line 10");
}

static void test_rejects_truncated_row(void **state)
{
    (void)state;
    expect_rejected("truncated.csv", GM_ERR_PARSE, ":13:", "truncated");
}

static void test_rejects_missing_metadata(void **state)
{
    (void)state;
    expect_rejected("missing_meta.csv", GM_ERR_MISSING, ":7:", "sm_count");
}

static void test_rejects_unterminated_quote(void **state)
{
    (void)state;
    expect_rejected("unterminated_quote.csv", GM_ERR_PARSE, ":11:", "not closed");
}

static void test_rejects_stray_quote(void **state)
{
    (void)state;
    expect_rejected("stray_quote.csv", GM_ERR_PARSE, ":12:", "quote inside an unquoted field");
}

static void test_rejects_split_values_without_split(void **state)
{
    (void)state;
    expect_rejected("split_mismatch.csv", GM_ERR_PARSE, ":12:", "split_valid is 0");
}

static void test_missing_file_is_io_error(void **state)
{
    (void)state;
    gm_counters_set set;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(DATA "no_such_file.csv", &set, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "no_such_file.csv"));
    assert_int_equal(gm_counters_load(NULL, &set, &err), GM_ERR_INVALID_ARG);
}

static void test_write_refuses_unnamed_launch(void **state)
{
    (void)state;
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    gm_error err = {{0}};
    assert_int_equal(gm_counters_append_row(stdout, NULL, &k, &err), GM_ERR_INVALID_ARG);
}

/* v2 with a chosen set of metric columns, in the order given: the header
 * names them in full; the rows carry only those; the loader maps them back
 * by name. */
static void test_v2_chosen_columns(void **state)
{
    (void)state;
    char path[512];
    temp_path(path, sizeof path, "chosen");
    gm_counters_set set;
    gm_counters_set_init(&set);
    snprintf(set.meta.device_name, sizeof set.meta.device_name, "gpuq Test GPU");
    set.meta.sm_count = 2;
    set.meta.max_warps_per_sm = 4;
    set.meta.n_metrics = 2;
    set.meta.metric_rows[0] = GM_ATOMICS_M_CYCLES_SUM;
    set.meta.metric_rows[1] = GM_ATOMICS_M_N_CAS;
    gm_launch_counters k;
    fill_launch(&k, 0, "k");
    assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    gm_error err = {{0}};
    assert_int_equal(gm_counters_write_file(path, &set, &err), GM_OK);
    char *text = test_read_file(path);
    assert_non_null(strstr(text, "# gpuq counters v2\n"));
    assert_non_null(strstr(text, ",shared_bytes,sm__cycles_active.sum,"
                                 "smsp__inst_executed_op_shared_atom_dot_cas.sum,split_valid,"));
    free(text);
    gm_counters_set back;
    assert_int_equal(gm_counters_load(path, &back, &err), GM_OK);
    assert_int_equal(back.meta.n_metrics, 2);
    assert_int_equal(back.meta.metric_rows[0], GM_ATOMICS_M_CYCLES_SUM);
    assert_true(back.launches[0].metric[GM_ATOMICS_M_CYCLES_SUM] == set.launches[0].metric[GM_ATOMICS_M_CYCLES_SUM]);
    assert_true(back.launches[0].metric[GM_ATOMICS_M_N_CAS] == set.launches[0].metric[GM_ATOMICS_M_N_CAS]);
    assert_true(isnan(back.launches[0].metric[GM_ATOMICS_M_N_ATOM])); /* not in the file */
    gm_counters_set_clear(&back);
    /* a row outside the table is refused */
    set.meta.metric_rows[1] = (int)gm_metric_count();
    assert_int_equal(gm_counters_write_file(path, &set, &err), GM_ERR_INVALID_ARG);
    gm_counters_set_clear(&set);
    unlink(path);
}

/* A v1 file (the 13 atomic metrics under their short names) loads with the
 * same values as the v2 file written from it. */
static void test_v1_and_v2_load_alike(void **state)
{
    (void)state;
    gm_counters_set v1, v2;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(DATA "valid.csv", &v1, &err), GM_OK);
    char *text = test_read_file(DATA "valid.csv");
    assert_non_null(strstr(text, "# gpuq counters v1\n"));
    free(text);
    assert_int_equal(v1.meta.n_metrics, GM_ATOMICS_M_ATOMIC_ROWS);
    char path[512];
    temp_path(path, sizeof path, "v2");
    assert_int_equal(gm_counters_write_file(path, &v1, &err), GM_OK);
    assert_int_equal(gm_counters_load(path, &v2, &err), GM_OK);
    assert_int_equal(v2.count, v1.count);
    for (size_t i = 0; i < v1.count; i++)
        for (int m = 0; m < GM_METRIC_COUNT; m++) {
            double a = v1.launches[i].metric[m], b = v2.launches[i].metric[m];
            assert_true((isnan(a) && isnan(b)) || a == b);
        }
    gm_counters_set_clear(&v1);
    gm_counters_set_clear(&v2);
    unlink(path);
}

/* v2 header problems: a short name where a metric name belongs, a metric
 * twice; a metric this gpuq does not know is skipped. */
static void test_v2_header_by_name(void **state)
{
    (void)state;
    static const char head[] = "# gpuq counters v2\n# device_name: g\n# compute_capability: 9.0\n"
                               "# sm_count: 2\n# max_warps_per_sm: 4\n# pid: 77\n# passes: 2\n"
                               "launch_id,kernel,mangled,device,grid_x,grid_y,grid_z,block_x,"
                               "block_y,block_z,regs,shared_bytes,";
    static const char tail[] = ",split_valid,split_add,split_cas,split_popc_inc,split_other\n"
                               "0,k,k,0,1,1,1,32,1,1,-1,-1,5,7,0,,,,\n";
    const struct {
        const char *metrics;
        gm_status want;
        const char *msg;
    } cases[] = {
        {"sm__cycles_active.sum,future__metric.sum", GM_OK, NULL},
        {"cycles_sum,future__metric.sum", GM_ERR_PARSE, "expected a metric name"},
        {"sm__cycles_active.sum,sm__cycles_active.sum", GM_ERR_DUPLICATE, "given twice"},
    };
    char path[512];
    temp_path(path, sizeof path, "v2head");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%s%s%s", head, cases[c].metrics, tail);
        fclose(f);
        gm_counters_set set;
        gm_error err = {{0}};
        assert_int_equal(gm_counters_load(path, &set, &err), cases[c].want);
        if (cases[c].msg)
            assert_non_null(strstr(err.msg, cases[c].msg));
        else {
            assert_int_equal(set.meta.pid, 77);
            assert_int_equal(set.meta.passes, 2);
            assert_int_equal(set.meta.n_metrics, 1);
            assert_true(set.launches[0].metric[GM_ATOMICS_M_CYCLES_SUM] == 5);
            gm_counters_set_clear(&set);
        }
    }
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_chosen_columns),
        cmocka_unit_test(test_v1_and_v2_load_alike),
        cmocka_unit_test(test_v2_header_by_name),
        cmocka_unit_test(test_launch_init_marks_everything_unknown),
        cmocka_unit_test(test_set_names_copies_and_replaces),
        cmocka_unit_test(test_set_push_takes_ownership_and_grows),
        cmocka_unit_test(test_round_trip_keeps_every_field),
        cmocka_unit_test(test_append_row_is_on_disk_at_once),
        cmocka_unit_test(test_load_valid_file),
        cmocka_unit_test(test_rejects_bad_magic),
        cmocka_unit_test(test_rejects_other_version),
        cmocka_unit_test(test_rejects_header_order),
        cmocka_unit_test(test_rejects_bad_number),
        cmocka_unit_test(test_rejects_negative_count),
        cmocka_unit_test(test_rejects_duplicate_launch_id),
        cmocka_unit_test(test_rejects_truncated_row),
        cmocka_unit_test(test_rejects_missing_metadata),
        cmocka_unit_test(test_rejects_unterminated_quote),
        cmocka_unit_test(test_rejects_stray_quote),
        cmocka_unit_test(test_rejects_split_values_without_split),
        cmocka_unit_test(test_missing_file_is_io_error),
        cmocka_unit_test(test_write_refuses_unnamed_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
