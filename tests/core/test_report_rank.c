/* Unit tests of the ranked kernel summary (src/core/report_rank.c): the
 * order by total GPU time, launches without a duration, shares and means,
 * one row per kernel per process, the verdict of the --summary row, and
 * the block each writer opens with (text, '#' lines of CSV, JSON). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/csv_internal.h"
#include "core/report_rank.h"
#include "gpuq/metrics.h"
#include "papers/atomics/atomics_model.h"
#include "gpuq/report.h"

#define TABLE GPUQ_SOURCE_DIR "/tests/data/tables/test_gpu.csv"

static void add_launch(gm_counters_set *set, uint64_t id, const char *name, double N,
                       double duration_ns)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, name, NULL), GM_OK);
    k.launch_id = id;
    k.grid[0] = 2, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = 1, k.block[2] = 1;
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = N;
    k.metric[GM_ATOMICS_M_N_ATOM] = N;
    k.metric[GM_ATOMICS_M_N_CAS] = 0;
    k.metric[GM_ATOMICS_M_N_ALU] = N;
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 2 * N;
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = 2000;
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = 1000;
    k.metric[GM_ATOMICS_M_CYCLES_MIN] = 900;
    k.metric[GM_ATOMICS_M_CYCLES_MAX] = 1100;
    k.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = 50;
    k.metric[GM_ATOMICS_M_DURATION_NS] = duration_ns;
    assert_int_equal(gm_counters_set_push(set, &k), GM_OK);
}

static void init_set(gm_counters_set *set, long pid)
{
    gm_counters_set_init(set);
    snprintf(set->meta.device_name, sizeof set->meta.device_name, "gpuq Test GPU");
    set->meta.sm_count = 2;
    set->meta.max_warps_per_sm = 4;
    set->meta.pid = pid;
}

typedef struct fixture {
    gm_atomics_table *table;
    gm_machine machine;
    gm_counters_set set[2];
    gm_report_file files[2];
} fixture;

/* Totals: beta 550 ns (2 launches), alpha 400 (2), delta 200 (1), gamma
 * none (its one launch has no duration): 1150 ns in all. */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(TABLE, &f->table, &err), GM_OK);
    assert_int_equal(gm_machine_adopt(&f->machine, "atomics", TABLE, NULL, f->table, NULL, &err),
                     GM_OK);
    init_set(&f->set[0], 101);
    add_launch(&f->set[0], 0, "alpha", 24, 100);
    add_launch(&f->set[0], 1, "beta", 28, 500);
    add_launch(&f->set[0], 2, "alpha", 4, 300);
    add_launch(&f->set[0], 3, "gamma", 8, NAN);
    add_launch(&f->set[0], 4, "beta", 8, 50);
    add_launch(&f->set[0], 5, "delta", 0, 200);
    init_set(&f->set[1], 102);
    add_launch(&f->set[1], 0, "alpha", 24, 1000);
    add_launch(&f->set[1], 1, "beta", 8, 10);
    for (int i = 0; i < 2; i++)
        f->files[i] = (gm_report_file){.set = &f->set[i], .path = i ? "b.csv" : "a.csv"};
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < 2; i++)
        gm_counters_set_clear(&f->set[i]);
    gm_atomics_table_free(f->table);
    free(f);
    return 0;
}

static void make(fixture *f, size_t n_files, int summary, gm_report *rep)
{
    const char *const sections[] = {"atomics", NULL};
    gm_report_options opt = {.summary = summary, .sections = sections};
    gm_error err = {{0}};
    if (gm_report_make(rep, f->files, n_files, &f->machine, &opt, &err) != GM_OK)
        fail_msg("%s", err.msg);
}

/* Not inlined: inlined at -O3, GCC 12 takes the stream's hold on &text for a
 * pointer into the caller's frame and fails the build (-Wdangling-pointer). */
__attribute__((noinline)) static char *render(const gm_report *rep, gm_format fmt)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    gm_error err = {{0}};
    assert_int_equal(gm_report_write(mem, rep, fmt, &err), GM_OK);
    fclose(mem);
    return text;
}

static const char *row_name(const report_rank *rk, size_t rank)
{
    return rk->kernels->launches[rk->order[rank]]->kernel;
}

static void test_ranked_by_total_time(void **state)
{
    fixture *f = *state;
    gm_report rep;
    make(f, 1, 0, &rep);
    report_ctx c;
    gm_error err = {{0}};
    assert_int_equal(report_ctx_make(&rep, &c, &err), GM_OK);
    const report_rank rk = *c.rank;
    assert_int_equal(rk.count, 4);
    const char *want[] = {"beta", "alpha", "delta", "gamma"};
    const double time[] = {550, 400, 200, NAN};
    const size_t launches[] = {2, 2, 1, 1}, timed[] = {2, 2, 1, 0};
    for (size_t r = 0; r < 4; r++) {
        size_t g = rk.order[r];
        assert_string_equal(row_name(&rk, r), want[r]);
        assert_int_equal(rk.rank_of[g], r);
        assert_int_equal(rk.kernels->launch_count[g], launches[r]);
        assert_int_equal(rk.timed[g], timed[r]);
        if (isnan(time[r])) {
            assert_true(isnan(rk.time_ns[g]) && isnan(report_rank_mean_ns(&rk, g)));
            assert_true(report_rank_share(&rk, g) == 0);
        } else {
            assert_true(rk.time_ns[g] == time[r]);
            assert_true(fabs(report_rank_share(&rk, g) - time[r] / 1150) < 1e-15);
            assert_true(report_rank_mean_ns(&rk, g) == time[r] / (double)timed[r]);
        }
    }
    assert_true(rk.total_ns == 1150);
    assert_int_equal(rk.n_timed, 5);
    assert_int_equal(rk.n_launches, 6);
    /* every launch maps to the row of its name, in the rows a writer gets */
    report_cursor *cur;
    const report_rows *rows;
    assert_int_equal(report_cursor_open(&c, &cur, &err), GM_OK);
    assert_int_equal(report_cursor_next(cur, &rows, &err), GM_OK);
    assert_non_null(rows);
    assert_int_equal(rows->count, rep.n_launches);
    for (size_t k = 0; k < rep.n_launches; k++) {
        assert_string_equal(rk.kernels->launches[rows->kernel_row[k]]->kernel,
                            rep.launches[k]->kernel);
        assert_int_equal(report_input_group(rep.input, 0, rep.launches[k]->kernel),
                         rows->kernel_row[k]);
    }
    assert_int_equal(report_cursor_next(cur, &rows, &err), GM_OK);
    assert_null(rows);
    report_cursor_close(cur);
    report_ctx_free(&c);
    gm_report_free(&rep);
}

/* The verdict beside each ranked row is the --summary report's row for
 * that kernel (the rows its writer is given), and a --summary report's own
 * rows are ranked as they are. */
static void test_verdict_is_the_summary_rows(void **state)
{
    fixture *f = *state;
    gm_report per_launch, summed;
    make(f, 1, 0, &per_launch);
    make(f, 1, 1, &summed);
    report_ctx c, sc;
    gm_error err = {{0}};
    assert_int_equal(report_ctx_make(&per_launch, &c, &err), GM_OK);
    assert_int_equal(report_ctx_make(&summed, &sc, &err), GM_OK);
    report_cursor *cur;
    const report_rows *srows;
    assert_int_equal(report_cursor_open(&sc, &cur, &err), GM_OK);
    assert_int_equal(report_cursor_next(cur, &srows, &err), GM_OK);
    assert_non_null(srows);
    const report_rank *rk = c.rank, *srk = sc.rank;
    assert_ptr_equal(srk->kernels, srows);
    assert_int_equal(rk->count, srows->count);
    for (size_t r = 0; r < rk->count; r++) {
        size_t g = rk->order[r], sg = srk->order[r];
        assert_string_equal(row_name(rk, r), srows->launches[sg]->kernel);
        assert_int_equal(rk->kernels->verdict_section[g], srows->verdict_section[sg]);
        assert_string_equal(rk->kernels->verdicts[g].text, srows->verdicts[sg].text);
        /* and the sections' numbers of the sums */
        assert_true(rk->kernels->launches[g]->metric[GM_ATOMICS_M_N_ATOM] ==
                    srows->launches[sg]->metric[GM_ATOMICS_M_N_ATOM]);
    }
    /* alpha's two launches: 24 and 4 atomics */
    assert_true(rk->kernels->launches[rk->order[1]]->metric[GM_ATOMICS_M_N_ATOM] == 28);
    assert_int_equal(report_cursor_next(cur, &srows, &err), GM_OK);
    assert_null(srows);
    report_cursor_close(cur);
    report_ctx_free(&sc);
    report_ctx_free(&c);
    gm_report_free(&summed);
    gm_report_free(&per_launch);
}

/* Several files: one row per kernel per process; shares of all of them. */
static void test_one_row_per_kernel_and_process(void **state)
{
    fixture *f = *state;
    gm_report rep;
    make(f, 2, 0, &rep);
    report_ctx c;
    gm_error err = {{0}};
    assert_int_equal(report_ctx_make(&rep, &c, &err), GM_OK);
    const report_rank rk = *c.rank;
    assert_int_equal(rk.count, 6);
    /* b.csv's alpha (1000 ns) first, then a.csv's beta (550) */
    assert_string_equal(row_name(&rk, 0), "alpha");
    assert_int_equal(rk.kernels->file_of[rk.order[0]], 1);
    assert_string_equal(row_name(&rk, 1), "beta");
    assert_int_equal(rk.kernels->file_of[rk.order[1]], 0);
    assert_true(rk.total_ns == 2160);
    double shares = 0;
    for (size_t g = 0; g < rk.count; g++)
        shares += report_rank_share(&rk, g);
    assert_true(fabs(shares - 1) < 1e-12);
    char *text = render(&rep, GM_FORMAT_TEXT);
    assert_non_null(strstr(text, "     1  pid 102      alpha"));
    free(text);
    report_ctx_free(&c);
    gm_report_free(&rep);
}

static void test_text_block_opens_the_report(void **state)
{
    fixture *f = *state;
    gm_report rep;
    make(f, 1, 0, &rep);
    char *text = render(&rep, GM_FORMAT_TEXT);
    char *block = strstr(text, "\n== kernels by GPU time: 6 launches of 4 kernels, 0.00115 ms");
    char *section = strstr(text, "\n== shared atomics");
    assert_non_null(block);
    assert_non_null(section);
    assert_true(block < section);
    assert_non_null(strstr(block, "1 launch without a duration"));
    const char *order[] = {"     1  beta", "     2  alpha", "     3  delta", "     4  gamma"};
    const char *at = block;
    for (size_t i = 0; i < 4; i++) {
        const char *p = strstr(at, order[i]);
        if (!p || p > section)
            fail_msg("'%s' not in order in the block", order[i]);
        at = p;
    }
    /* beta: 550 ns in all, 275 per launch, 47.8% of 1150 */
    assert_non_null(strstr(block, "     1  beta                                  2    0.00055      0.275   47.8%"));
    free(text);
    gm_report_free(&rep);
}

/* The CSV's '#' block is a CSV table once "# " is taken off, one line per
 * kernel whatever its name holds. */
static void test_csv_block_reads_as_csv(void **state)
{
    fixture *f = *state;
    gm_launch_counters *k = &f->set[0].launches[5];
    free(k->kernel);
    k->kernel = strdup("delta\nwith \"a\" newline, and a comma");
    gm_report rep;
    make(f, 1, 0, &rep);
    char *text = render(&rep, GM_FORMAT_CSV);
    /* the '#' lines without "# ", after the heading line */
    char *block = calloc(strlen(text) + 1, 1);
    size_t lines = 0;
    for (char *p = text; *p == '#';) {
        char *end = strchr(p, '\n');
        assert_non_null(end);
        if (lines++ > 0)
            strncat(block, p + 2, (size_t)(end - p - 1));
        p = end + 1;
    }
    assert_int_equal(lines, 2 + 4);
    FILE *in = fmemopen(block, strlen(block), "r");
    gm_csv_reader rd;
    gm_csv_reader_init(&rd, in, "block");
    gm_error err = {{0}};
    int eof = 0;
    assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
    assert_int_equal(gm_csv_split(&rd, &err), GM_OK);
    size_t n_cols = rd.n_fields;
    assert_string_equal(rd.fields[0], "rank");
    assert_string_equal(rd.fields[1], "kernel");
    assert_string_equal(rd.fields[2], "demangled");
    assert_string_equal(rd.fields[7], "gpu_time_ns");
    assert_string_equal(rd.fields[9], "share");
    assert_string_equal(rd.fields[n_cols - 1], "verdict");
    const char *names[] = {"beta", "alpha", "delta with \"a\" newline, and a comma", "gamma"};
    for (size_t r = 0; r < 4; r++) {
        assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
        assert_false(eof);
        assert_int_equal(gm_csv_split(&rd, &err), GM_OK);
        assert_int_equal(rd.n_fields, n_cols);
        assert_int_equal(atoi(rd.fields[0]), (int)r + 1);
        assert_string_equal(rd.fields[2], names[r]);
        if (r == 0) {
            assert_string_equal(rd.fields[7], "550");
            assert_true(fabs(strtod(rd.fields[9], NULL) - 550.0 / 1150) < 1e-15);
            assert_string_equal(rd.fields[n_cols - 2], "atomics");
        }
        if (r == 3)
            assert_string_equal(rd.fields[7], ""); /* no duration: empty, never "nan" */
    }
    assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
    assert_true(eof);
    gm_csv_reader_free(&rd);
    fclose(in);
    /* the report's own heading follows the block */
    assert_non_null(strstr(text, "\nlaunch_id,kernel,demangled,mangled,"));
    free(block);
    free(text);
    gm_report_free(&rep);
}

static void test_json_members(void **state)
{
    fixture *f = *state;
    gm_report rep;
    make(f, 1, 0, &rep);
    char *text = render(&rep, GM_FORMAT_JSON);
    char *total = strstr(text, "\n  \"gpu_time_ns\": 1150,\n  \"kernels\": [");
    char *launches = strstr(text, "\n  \"launches\": [");
    assert_non_null(total);
    assert_non_null(launches);
    assert_true(total < launches);
    char *beta = strstr(total, "{\"rank\": 1, \"kernel\": \"beta\"");
    char *gamma = strstr(total, "{\"rank\": 4, \"kernel\": \"gamma\"");
    assert_non_null(beta);
    assert_non_null(gamma);
    assert_true(gamma < launches);
    assert_non_null(strstr(gamma, "\"timed_launches\": 0, \"gpu_time_ns\": null, \"mean_ns\": null"));
    free(text);
    gm_report_free(&rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ranked_by_total_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_is_the_summary_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_row_per_kernel_and_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_block_opens_the_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_block_reads_as_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_members, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
