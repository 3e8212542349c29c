/* Unit tests of the report (src/core/report*.c): verdicts, building with
 * the registered units, --summary aggregation, several counters files,
 * kernel names and the three writers.
 *
 * The table is built here: T(n,e,c) = 100 + 10 n + 5 e + 20 c cycles, so that
 * every expected U below follows by hand from Table 2 of the paper
 * (S = T(n,e,c)/n, B = N S, U = B / T) at integral n, e, c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/csv_internal.h"
#include "core/report_internal.h"
#include "gpuq/report.h"
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_report.h"

static double table_T(int n, int e, int c)
{
    return 100 + 10 * n + 5 * e + 20 * c;
}

static gm_atomics_table *make_table(void)
{
    gm_atomics_table_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "gpuq Test GPU");
    meta.cc_major = 9;
    meta.sm_count = 2;
    meta.max_warps_per_sm = 4;
    meta.warp_size = 4;
    meta.sm_clock_mhz = 1000;
    meta.reps = 1;
    meta.spread_threshold = 0.05;
    snprintf(meta.date, sizeof meta.date, "2026-11-22T00:00:00Z");
    gm_atomics_table *t = gm_atomics_table_new(&meta);
    assert_non_null(t);
    gm_atomics_series *s = NULL;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    for (int n = 1; n <= 4; n++)
        for (int e = 1; e <= 4; e++)
            for (int c = 0; c <= n; c++) {
                gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                assert_non_null(cell);
                cell->t_median = cell->t_min = cell->t_max = table_T(n, e, c);
                cell->spread = 0;
                cell->reps = 1;
            }
    return t;
}

/* One launch on the 2-SM test GPU: cycles 2000 summed (1000 per SM), the
 * occupancy gives n = pct/100 x 4 warps. */
static void add_launch(gm_counters_set *set, uint64_t id, const char *name, double N,
                       double N_cas, double O, double occupancy_pct)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, name, NULL), GM_OK);
    k.launch_id = id;
    k.grid[0] = 2, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = 1, k.block[2] = 1;
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = N;
    k.metric[GM_ATOMICS_M_N_ATOM] = N;
    k.metric[GM_ATOMICS_M_N_CAS] = N_cas;
    k.metric[GM_ATOMICS_M_N_ALU] = N - N_cas;
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = O;
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = 2000;
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = 1000;
    k.metric[GM_ATOMICS_M_CYCLES_MIN] = 900;
    k.metric[GM_ATOMICS_M_CYCLES_MAX] = 1100;
    k.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = occupancy_pct;
    k.metric[GM_ATOMICS_M_DURATION_NS] = 1500;
    assert_int_equal(gm_counters_set_push(set, &k), GM_OK);
}

typedef struct fixture {
    gm_atomics_table *table;
    gm_counters_set set;
    gm_atomics_model_options opt;
    gm_report rep;
} fixture;

#define HIST "void hist<int, 4>(const uchar4 *, unsigned int *) [with \"solid\"]"

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->table = make_table();
    gm_counters_set_init(&f->set);
    snprintf(f->set.meta.device_name, sizeof f->set.meta.device_name, "gpuq Test GPU");
    f->set.meta.sm_count = 2;
    f->set.meta.max_warps_per_sm = 4;
    /* per SM: N=12, e=2, n=2, c=0: S = T(2,2,0)/2 = 65, B = 780, U = 0.78 */
    add_launch(&f->set, 0, HIST, 24, 0, 48, 50);
    /* per SM: N=14: B = 910, U = 0.91 */
    add_launch(&f->set, 1, HIST, 28, 0, 56, 50);
    /* per SM: N=4, N_c=2, n=2: c = n N_c/N = 1, S = T(2,2,1)/2 = 75, U = 0.30 */
    add_launch(&f->set, 2, "scan_kernel(float *, int)", 8, 4, 16, 50);
    add_launch(&f->set, 3, "copy_kernel", 0, 0, 0, 75);
    add_launch(&f->set, 4, "missing_occupancy_kernel", 8, 0, 16, NAN);
    assert_int_equal(gm_atomics_model_by_name("paper", &f->opt), GM_OK);
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&f->rep, &f->set, f->table, "tables/test_gpu.csv",
                                             &f->opt, &err),
                     GM_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gm_report_free(&f->rep);
    gm_counters_set_clear(&f->set);
    gm_atomics_table_free(f->table);
    free(f);
    return 0;
}

/* The whole output of a writer as one string (caller frees). */
static char *render(const gm_report *rep, gm_format fmt)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    gm_error err = {{0}};
    assert_int_equal(gm_report_write(tmp, rep, fmt, &err), GM_OK);
    long len = ftell(tmp);
    rewind(tmp);
    char *text = malloc((size_t)len + 1);
    assert_int_equal(fread(text, 1, (size_t)len, tmp), (size_t)len);
    text[len] = '\0';
    fclose(tmp);
    return text;
}

/* ---- formats and verdicts ---- */

static void test_format_names_round_trip(void **state)
{
    (void)state;
    for (int f = 0; f < GM_FORMAT_COUNT; f++) {
        gm_format back;
        assert_int_equal(gm_format_parse(gm_format_name((gm_format)f), &back), GM_OK);
        assert_int_equal(back, f);
    }
    gm_format out;
    assert_int_equal(gm_format_parse("xml", &out), GM_ERR_PARSE);
    assert_int_equal(gm_format_parse(NULL, &out), GM_ERR_INVALID_ARG);
    assert_string_equal(gm_format_name(GM_FORMAT_COUNT), "unknown");
}

static gm_atomics_kernel_result result_with_U(double U)
{
    gm_atomics_kernel_result r;
    memset(&r, 0, sizeof r);
    r.avg.U = U;
    r.U_lo = r.U_hi = NAN;
    return r;
}

static void expect_verdict(const gm_atomics_kernel_result *r, const char *want)
{
    char buf[256];
    gm_atomics_verdict(r, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_verdict_thresholds(void **state)
{
    (void)state;
    gm_atomics_kernel_result r = result_with_U(0.97);
    expect_verdict(&r, "shared-memory atomics are the bottleneck (U = 97%)");
    r = result_with_U(GM_ATOMICS_U_BOTTLENECK);
    expect_verdict(&r, "shared-memory atomics are the bottleneck (U = 80%)");
    r = result_with_U(0.62);
    expect_verdict(&r, "shared-memory atomics are a significant load (U = 62%)");
    r = result_with_U(GM_ATOMICS_U_SIGNIFICANT);
    expect_verdict(&r, "shared-memory atomics are a significant load (U = 50%)");
    r = result_with_U(0.12);
    expect_verdict(&r, "shared-memory atomics are not the bottleneck (U = 12%)");
    r = result_with_U(0);
    r.notes = GM_ATOMICS_NOTE_NO_ATOMICS;
    expect_verdict(&r, "no shared-memory atomics (U = 0)");
}

static void test_verdict_appends_notes(void **state)
{
    (void)state;
    gm_atomics_kernel_result r = result_with_U(0.62);
    r.notes = GM_ATOMICS_NOTE_CLAMPED;
    expect_verdict(&r, "shared-memory atomics are a significant load (U = 62%); model input "
                       "clamped to table grid");
    r = result_with_U(1.3);
    expect_verdict(&r, "shared-memory atomics are the bottleneck (U = 130%); U above 100%: n is "
                       "probably overestimated (paper Sec. 4.1)");
    r = result_with_U(0.2);
    r.notes = GM_ATOMICS_NOTE_SPLIT_FALLBACK;
    snprintf(r.split_source, sizeof r.split_source, "fallback: no opcode split collected");
    expect_verdict(&r, "shared-memory atomics are not the bottleneck (U = 20%); class split fell "
                       "back (fallback: no opcode split collected)");
}

static void test_verdict_keeps_reason_when_not_modelled(void **state)
{
    (void)state;
    gm_atomics_kernel_result r = result_with_U(NAN);
    r.notes = GM_ATOMICS_NOTE_MISSING_COUNTER;
    snprintf(r.verdict, sizeof r.verdict, "not modelled: counter O missing");
    expect_verdict(&r, "not modelled: counter O missing");
    r.verdict[0] = '\0';
    expect_verdict(&r, "not modelled: model inputs missing");
    char tiny[8];
    r = result_with_U(0.97);
    gm_atomics_verdict(&r, tiny, sizeof tiny); /* truncates with "...", never overruns */
    assert_string_equal(tiny, "shar...");
    r = result_with_U(1e20); /* no such U loads; the format stays whole anyway */
    char v[192];
    gm_atomics_verdict(&r, v, sizeof v);
    assert_non_null(strstr(v, "(U = 1e+22%)"));
}

/* ---- building ---- */

/* A field of the atomics section's result for launch i. */
static const gm_field *atomics_field(const gm_report *rep, size_t i, const char *name)
{
    static gm_field f[GM_UNIT_MAX_FIELDS];
    const gm_report_section *s = &rep->sections[0];
    assert_string_equal(s->unit->name, "atomics");
    size_t n = s->unit->fields(s->state, s->results + i * s->unit->result_size, f,
                               GM_UNIT_MAX_FIELDS);
    for (size_t j = 0; j < n; j++)
        if (strcmp(f[j].name, name) == 0)
            return &f[j];
    fail_msg("no field %s", name);
    return NULL;
}

static double num(const gm_report *rep, size_t i, const char *name)
{
    return atomics_field(rep, i, name)->num;
}

static const char *verdict_of(const gm_report *rep, size_t i)
{
    return atomics_field(rep, i, "verdict")->text;
}

static void test_build_applies_table2(void **state)
{
    fixture *f = *state;
    const gm_report *r = &f->rep;
    assert_int_equal(r->n_launches, 5);
    assert_int_equal(r->n_sections, 1);
    assert_string_equal(r->sections[0].variant, "paper");
    assert_true(fabs(num(r, 0, "S") - 65) < 1e-9);
    assert_true(fabs(num(r, 0, "U") - 0.78) < 1e-9);
    assert_true(fabs(num(r, 0, "U_lo") - 780.0 / 1100) < 1e-9);
    assert_true(fabs(num(r, 0, "U_hi") - 780.0 / 900) < 1e-9);
    assert_true(fabs(num(r, 1, "U") - 0.91) < 1e-9);
    assert_true(fabs(num(r, 2, "c") - 1) < 1e-9);
    assert_true(fabs(num(r, 2, "U") - 0.30) < 1e-9);
    assert_string_equal(verdict_of(r, 0), "shared-memory atomics are a significant load (U = 78%)");
    assert_string_equal(verdict_of(r, 1), "shared-memory atomics are the bottleneck (U = 91%)");
    assert_string_equal(verdict_of(r, 2), "shared-memory atomics are not the bottleneck (U = 30%)");
    assert_string_equal(verdict_of(r, 3), "no shared-memory atomics (U = 0)");
}

static void test_build_keeps_launch_with_missing_counter(void **state)
{
    fixture *f = *state;
    assert_true(isnan(num(&f->rep, 4, "U")));
    assert_non_null(strstr(atomics_field(&f->rep, 4, "notes")->text, "missing_counter"));
    assert_non_null(strstr(verdict_of(&f->rep, 4), "not modelled"));
    assert_non_null(strstr(verdict_of(&f->rep, 4), "sm__warps_active"));
}

static void test_build_survives_model_error(void **state)
{
    fixture *f = *state;
    /* T = 0 with N > 0 is outside Table 2's domain: the row stays, with why. */
    gm_counters_set set;
    gm_counters_set_init(&set);
    add_launch(&set, 0, "zero_time", 8, 0, 16, 50);
    set.launches[0].metric[GM_ATOMICS_M_CYCLES_AVG] = 0;
    set.launches[0].metric[GM_ATOMICS_M_CYCLES_SUM] = 0;
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, &set, f->table, "t", &f->opt, &err), GM_OK);
    assert_int_equal(rep.n_launches, 1);
    assert_true(isnan(num(&rep, 0, "U")));
    assert_non_null(strstr(verdict_of(&rep, 0), "not modelled"));
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
}

static void test_build_rejects_null_arguments(void **state)
{
    fixture *f = *state;
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, NULL, f->table, "t", &f->opt, &err),
                     GM_ERR_INVALID_ARG);
    assert_int_equal(gm_atomics_report_build(&rep, &f->set, NULL, "t", &f->opt, &err),
                     GM_ERR_INVALID_ARG);
    assert_int_equal(gm_report_write(stdout, &f->rep, GM_FORMAT_COUNT, &err),
                     GM_ERR_INVALID_ARG);
}

/* ---- CSV ---- */

/* Parses CSV text into records with the library's own RFC 4180 reader. */
static size_t csv_column(gm_csv_reader *rd, const char *name)
{
    for (size_t i = 0; i < rd->n_fields; i++)
        if (strcmp(rd->fields[i], name) == 0)
            return i;
    fail_msg("no column %s", name);
    return 0;
}

static void test_csv_has_every_launch_and_quotes_names(void **state)
{
    fixture *f = *state;
    char *text = render(&f->rep, GM_FORMAT_CSV);
    FILE *in = fmemopen(text, strlen(text), "r");
    gm_csv_reader rd;
    gm_csv_reader_init(&rd, in, "report.csv");
    gm_error err = {{0}};
    int eof = 0;
    /* the ranked kernels come first, as '#' lines (test_report_rank) */
    do
        assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
    while (!eof && rd.raw[0] == '#');
    assert_int_equal(gm_csv_split(&rd, &err), GM_OK);
    size_t n_cols = rd.n_fields;
    size_t c_kernel = csv_column(&rd, "kernel"), c_dem = csv_column(&rd, "demangled"),
           c_U = csv_column(&rd, "atomics.U"), c_S = csv_column(&rd, "atomics.S"),
           c_O = csv_column(&rd, "O_wavefronts"), c_notes = csv_column(&rd, "atomics.notes"),
           c_verdict = csv_column(&rd, "verdict"), c_vs = csv_column(&rd, "verdict_section");
    csv_column(&rd, "mangled");
    csv_column(&rd, "atomics.n_hat");
    csv_column(&rd, "atomics.split_source");
    int rows = 0;
    for (;;) {
        assert_int_equal(gm_csv_next_line(&rd, &eof, &err), GM_OK);
        if (eof)
            break;
        assert_int_equal(gm_csv_split(&rd, &err), GM_OK);
        assert_int_equal(rd.n_fields, n_cols);
        if (rows == 0) {
            assert_string_equal(rd.fields[c_kernel], "hist");
            assert_string_equal(rd.fields[c_dem], HIST);
            assert_string_equal(rd.fields[c_vs], "atomics");
            assert_true(fabs(strtod(rd.fields[c_U], NULL) - 0.78) < 1e-12);
            assert_true(strtod(rd.fields[c_S], NULL) == 65);
            assert_true(strtod(rd.fields[c_O], NULL) == 48);
            assert_non_null(strstr(rd.fields[c_notes], "n_approx"));
            assert_non_null(strstr(rd.fields[c_verdict], "U = 78%"));
        }
        if (rows == 4)
            assert_string_equal(rd.fields[c_U], ""); /* NaN: empty, never "nan" */
        rows++;
    }
    assert_int_equal(rows, 5);
    gm_csv_reader_free(&rd);
    fclose(in);
    free(text);
}

/* ---- JSON ---- */

/* Braces and brackets balance outside strings; no NaN/Inf leaked. */
static void assert_json_shape(const char *text)
{
    int depth = 0, in_string = 0;
    for (const char *p = text; *p; p++) {
        if (in_string) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                in_string = 0;
            else
                assert_true((unsigned char)*p >= 0x20); /* control characters escaped */
            continue;
        }
        if (*p == '"')
            in_string = 1;
        else if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']')
            assert_true(--depth >= 0);
    }
    assert_int_equal(depth, 0);
    assert_int_equal(in_string, 0);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
}

static void test_json_carries_everything(void **state)
{
    fixture *f = *state;
    char *text = render(&f->rep, GM_FORMAT_JSON);
    assert_json_shape(text);
    assert_non_null(strstr(text, "\"format\": \"gpuq report v2\""));
    assert_non_null(strstr(text, "\"table\": \"tables/test_gpu.csv\""));
    assert_non_null(strstr(text, "\"variant\": \"paper\""));
    assert_non_null(strstr(text, "\"model\": \"paper\""));
    assert_non_null(strstr(text, "\"sections\": {\n        \"atomics\": {"));
    assert_non_null(strstr(text, "\"verdict_section\": \"atomics\""));
    assert_non_null(strstr(text, "\"kernel\": \"hist\""));
    assert_non_null(strstr(text, "\"demangled\": \"void hist<int, 4>(const uchar4 *, unsigned int *) "
                                 "[with \\\"solid\\\"]\""));
    assert_non_null(strstr(text, "\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum\": 48"));
    assert_non_null(strstr(text, "\"U\": 0.78"));
    assert_non_null(strstr(text, "\"n = occupancy x warps/SM (approximation, paper Table 2)\""));
    assert_non_null(strstr(text, "\"U\": null")); /* the launch without occupancy */
    free(text);
}

static void test_json_escapes_strings(void **state)
{
    fixture *f = *state;
    gm_counters_set set;
    gm_counters_set_init(&set);
    add_launch(&set, 7, "a\"b\\c\nd\te\x01" "f", 24, 0, 48, 50);
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, &set, f->table, "dir\\t.csv", &f->opt, &err),
                     GM_OK);
    char *text = render(&rep, GM_FORMAT_JSON);
    assert_json_shape(text);
    assert_non_null(strstr(text, "\"demangled\": \"a\\\"b\\\\c\\nd\\te\\u0001f\""));
    assert_non_null(strstr(text, "\"table\": \"dir\\\\t.csv\""));
    free(text);
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
}

/* ---- text ---- */

static void test_text_has_header_rows_and_verdicts(void **state)
{
    fixture *f = *state;
    char *text = render(&f->rep, GM_FORMAT_TEXT);
    assert_non_null(strstr(text, "  table: tables/test_gpu.csv (gpuq Test GPU, 2 SMs"));
    assert_non_null(strstr(text, "device:   gpuq Test GPU"));
    assert_non_null(strstr(text, "counters: 11 metrics, passes not recorded"));
    assert_non_null(strstr(text, "sections: atomics"));
    assert_non_null(strstr(text, "== shared atomics [atomics]"));
    assert_non_null(strstr(text, "  model: paper"));
    assert_non_null(strstr(text, "n = occupancy x warps/SM (approximation, paper Table 2)"));
    assert_non_null(strstr(text, "     0  hist "));  /* the function's name */
    assert_null(strstr(text, "void hist"));
    assert_non_null(strstr(text, "2 x 128"));
    assert_non_null(strstr(text, "78%"));
    assert_non_null(strstr(text, "[71%, 87%]")); /* 780/1100 and 780/900 */
    assert_non_null(strstr(text, "copy_kernel: no shared-memory atomics (U = 0)"));
    assert_non_null(strstr(text, "missing_occupancy_kernel: not modelled"));
    free(text);
}

/* ---- --summary ---- */

static void test_summary_sums_launches_and_recomputes_U(void **state)
{
    fixture *f = *state;
    f->rep.summary = 1;
    char *json = render(&f->rep, GM_FORMAT_JSON);
    char *text = render(&f->rep, GM_FORMAT_TEXT);
    f->rep.summary = 0;
    assert_json_shape(json);
    /* hist: N = 24 + 28 over 2 x 2000 cycles: per SM 26 jobs, S = 65,
     * B = 1690 over T = 2000 cycles: U = 0.845 (not the mean of 0.78, 0.91). */
    assert_non_null(strstr(json, "\"launches\": 2"));
    assert_non_null(strstr(json, "\"U\": 0.845"));
    assert_non_null(strstr(json, "\"summary\": true"));
    assert_null(strstr(json, "\"launch_id\": 1,")); /* launch 1 is folded into launch 0's row */
    assert_non_null(strstr(text, "one per kernel"));
    assert_non_null(strstr(text, "launches"));
    assert_non_null(strstr(text, "U = 84%"));
    free(json);
    free(text);
}

static void test_summary_flags_varying_config(void **state)
{
    fixture *f = *state;
    gm_counters_set set;
    gm_counters_set_init(&set);
    add_launch(&set, 0, "k", 24, 0, 48, 50);
    add_launch(&set, 1, "k", 24, 0, 48, 50);
    set.launches[1].grid[0] = 4;
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, &set, f->table, "t", &f->opt, &err), GM_OK);
    rep.summary = 1;
    char *json = render(&rep, GM_FORMAT_JSON);
    char *text = render(&rep, GM_FORMAT_TEXT);
    assert_non_null(strstr(json, "\"config_varies\": true"));
    assert_non_null(strstr(text, "varies"));
    free(json);
    free(text);
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
}

static void test_empty_set_writes_valid_output(void **state)
{
    fixture *f = *state;
    gm_counters_set set;
    gm_counters_set_init(&set);
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, &set, f->table, "t", &f->opt, &err), GM_OK);
    char *json = render(&rep, GM_FORMAT_JSON);
    assert_json_shape(json);
    assert_non_null(strstr(json, "\"launches\": []"));
    char *text = render(&rep, GM_FORMAT_TEXT);
    assert_non_null(strstr(text, "no kernel launches"));
    free(json);
    free(text);
    gm_report_free(&rep);
}

/* ---- the verdict line ---- */

static void test_verdict_line_picks_most_severe(void **state)
{
    (void)state;
    gm_unit_verdict v[4];
    memset(v, 0, sizeof v);
    v[0].severity = 0.3;
    v[1].severity = 0.9;
    v[2].severity = NAN;
    v[3].severity = 0.9;
    assert_int_equal(report_pick_verdict(v, 4), 1);  /* highest; the first of a tie */
    v[0].severity = NAN;
    v[1].severity = NAN;
    v[3].severity = 0.0;
    assert_int_equal(report_pick_verdict(v, 4), 3);  /* a number beats undecided */
    v[3].severity = NAN;
    assert_int_equal(report_pick_verdict(v, 4), 0);  /* all undecided: the first */
    assert_int_equal(report_pick_verdict(v, 0), -1);
}

/* Two kernels whose function names are the same never show as one string
 * in the text; CSV keeps each full name. */
static void test_text_tells_same_named_kernels_apart(void **state)
{
    fixture *f = *state;
    gm_counters_set set;
    gm_counters_set_init(&set);
    add_launch(&set, 0, "void at::native::reduce_kernel<512, 1>(float *)", 24, 0, 48, 50);
    add_launch(&set, 1, "void at::native::reduce_kernel<128, 4>(float *)", 24, 0, 48, 50);
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_report_build(&rep, &set, f->table, "t", &f->opt, &err), GM_OK);
    char *text = render(&rep, GM_FORMAT_TEXT);
    const char *v = strstr(text, "verdicts:");
    assert_non_null(v);
    char a[64] = "", b[64] = "";
    assert_int_equal(sscanf(v, "verdicts:\n%*d %63[^:]: %*[^\n]\n%*d %63[^:]:", a, b), 2);
    assert_non_null(strstr(a, "reduce_kernel"));
    assert_non_null(strstr(b, "reduce_kernel"));
    assert_string_not_equal(a, b);
    free(text);
    char *csv = render(&rep, GM_FORMAT_CSV);
    assert_non_null(strstr(csv, "\"void at::native::reduce_kernel<512, 1>(float *)\""));
    assert_non_null(strstr(csv, "\"void at::native::reduce_kernel<128, 4>(float *)\""));
    free(csv);
    gm_report_free(&rep);
    gm_counters_set_clear(&set);
}

/* Several files: rows say which, a summary sums per file. */
static void test_several_files(void **state)
{
    fixture *f = *state;
    gm_counters_set sets[2];
    for (int i = 0; i < 2; i++) {
        gm_counters_set_init(&sets[i]);
        sets[i].meta = f->set.meta;
        sets[i].meta.pid = 500 + i;
        add_launch(&sets[i], 0, "k", 24, 0, 48, 50);
        add_launch(&sets[i], 1, "k", 28, 0, 56, 50);
    }
    gm_machine m;
    memset(&m, 0, sizeof m);
    assert_int_equal(gm_machine_adopt(&m, "atomics", "", NULL, f->table, NULL, NULL), GM_OK);
    const char *const sections[] = {"atomics", NULL};
    gm_report_options opt = {.sections = sections, .summary = 1};
    gm_report_file files[2] = {{&sets[0], "a.csv"}, {&sets[1], "b.csv"}};
    gm_report rep;
    gm_error err = {{0}};
    assert_int_equal(gm_report_make(&rep, files, 2, &m, &opt, &err), GM_OK);
    assert_int_equal(rep.n_launches, 4);
    char *csv = render(&rep, GM_FORMAT_CSV);
    assert_non_null(strstr(csv, "launch_id,file,pid,kernel,demangled,mangled,launches,"));
    assert_non_null(strstr(csv, "\n0,a.csv,500,k,k,k,2,0,"));
    assert_non_null(strstr(csv, "\n0,b.csv,501,k,k,k,2,0,"));
    free(csv);
    char *text = render(&rep, GM_FORMAT_TEXT);
    assert_non_null(strstr(text, "pid 501: k: "));
    free(text);
    gm_report_free(&rep);
    /* a section that cannot report, asked for by name, is an error */
    m.n_files = 0; /* the table (borrowed) taken away */
    assert_int_equal(gm_report_make(&rep, files, 2, &m, &opt, &err), GM_ERR_MISSING);
    for (int i = 0; i < 2; i++)
        gm_counters_set_clear(&sets[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names_round_trip),
        cmocka_unit_test(test_verdict_line_picks_most_severe),
        cmocka_unit_test_setup_teardown(test_text_tells_same_named_kernels_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several_files, setup, teardown),
        cmocka_unit_test(test_verdict_thresholds),
        cmocka_unit_test(test_verdict_appends_notes),
        cmocka_unit_test(test_verdict_keeps_reason_when_not_modelled),
        cmocka_unit_test_setup_teardown(test_build_applies_table2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_keeps_launch_with_missing_counter, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_build_survives_model_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_rejects_null_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv_has_every_launch_and_quotes_names, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_json_carries_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_escapes_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_has_header_rows_and_verdicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_sums_launches_and_recomputes_U, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_summary_flags_varying_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_set_writes_valid_output, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
