/* The helpers that the calibration-table tests share (test_atomics_table_store.c,
 * test_atomics_table_load.c, test_atomics_table_write.c): a temporary directory, synthetic
 * tables, a table file as editable lines and the loader's expected answer. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "gpuq/mdata.h"
#include "papers/atomics/atomics_table.h"

#include "atomics_table_fixture.h"

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
void check_near(double got, double want, double tol, const char *file, int line)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
        _fail(file, line);
    }
}

/* The test group's temporary directory: make_tmp_dir, remove_tmp_dir. */
char tmp_dir[256];

int make_tmp_dir(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gpuq_test_table.XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

int remove_tmp_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp_dir, name);
}

void write_text(const char *path, const char *contents)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(contents, f);
    assert_int_equal(fclose(f), 0);
}

/* Synthetic T for the test tables: T = 100 + 10 n + 3 e + 7 c, with
 * t_min = T - 1, t_max = T + 2 and spread = 3 / T. */
double synth_T(int n, int e, int c)
{
    return 100.0 + 10.0 * n + 3.0 * e + 7.0 * c;
}

gm_atomics_table_meta small_meta(int n_max, int e_max)
{
    gm_atomics_table_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.gpu_name, sizeof m.gpu_name, "Test GPU");
    m.cc_major = 9;
    m.cc_minor = 0;
    m.sm_count = 4;
    m.max_warps_per_sm = n_max;
    m.warp_size = e_max;
    m.sm_clock_mhz = 1980;
    m.driver_version = 13000;
    m.runtime_version = 13000;
    snprintf(m.date, sizeof m.date, "2026-11-22T00:00:00Z");
    snprintf(m.method_note, sizeof m.method_note, "synthetic test table");
    m.reps = 7;
    m.spread_threshold = 0.05;
    snprintf(m.gpuq_version, sizeof m.gpuq_version, "0.1.0");
    return m;
}

void fill_series(gm_atomics_series *s)
{
    for (int n = 1; n <= s->n_max; n++)
        for (int e = 1; e <= s->e_max; e++)
            for (int c = 0; c <= (s->mixes_cas ? n : 0); c++) {
                gm_atomics_cell *cell = gm_atomics_series_cell(s, n, e, c);
                double T = synth_T(n, e, c);
                *cell = (gm_atomics_cell){T, T - 1, T + 2, 3 / T, 7, 0};
            }
}

/* A complete table: add/same_address/single_shot mixing CAS, and
 * popc_inc/same_address/single_shot without. */
gm_atomics_table *synth_table(int n_max, int e_max)
{
    gm_atomics_table_meta m = small_meta(n_max, e_max);
    gm_atomics_table *t = gm_atomics_table_new(&m);
    assert_non_null(t);
    gm_atomics_series *s;
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_ADD,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 1, &s),
                     GM_OK);
    fill_series(s);
    assert_int_equal(gm_atomics_table_add_series(t, GM_ATOMICS_CLASS_POPC_INC,
                                                 GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                                 GM_ATOMICS_METHOD_SINGLE_SHOT, 0, &s),
                     GM_OK);
    fill_series(s);
    return t;
}

void text_base(text *t)
{
    static const char *const head[] = {
        "# gpuq calibration table v1",
        "# gpu_name: Test GPU",
        "# compute_capability: 9.0",
        "# sm_count: 4",
        "# max_warps_per_sm: 2",
        "# warp_size: 2",
        "# sm_clock_mhz: 1980",
        "# driver_version: 13000",
        "# runtime_version: 13000",
        "# date: 2026-11-22T00:00:00Z",
        "# method_note: synthetic test table",
        "# reps: 7",
        "# spread_threshold: 0.05",
        "# gpuq_version: 0.1.0",
        "# series: add,same_address,single_shot,mixes_cas=1",
        "# series: popc_inc,same_address,single_shot,mixes_cas=0",
        "class,pattern,method,n,e,c,t_median,t_min,t_max,spread,reps,flags",
    };
    t->count = 0;
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        snprintf(t->line[t->count++], 256, "%s", head[i]);
    for (int n = 1; n <= 2; n++)
        for (int e = 1; e <= 2; e++)
            for (int c = 0; c <= n; c++) {
                double T = synth_T(n, e, c);
                snprintf(t->line[t->count++], 256, "add,same_address,single_shot,%d,%d,%d,%g,%g,%g,0.02,7,0",
                         n, e, c, T, T - 1, T + 2);
            }
    for (int n = 1; n <= 2; n++)
        for (int e = 1; e <= 2; e++) {
            double T = synth_T(n, e, 0) / 2;
            snprintf(t->line[t->count++], 256, "popc_inc,same_address,single_shot,%d,%d,0,%g,%g,%g,0.02,7,0",
                     n, e, T, T - 1, T + 2);
        }
}

/* 1-based line numbers, as in the loader's messages. */
void text_set(text *t, int line_no, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->line[line_no - 1], 256, fmt, ap);
    va_end(ap);
}

void text_insert(text *t, int line_no, const char *s)
{
    assert_true(t->count < MAX_LINES);
    memmove(t->line[line_no], t->line[line_no - 1], (size_t)(t->count - line_no + 1) * 256);
    snprintf(t->line[line_no - 1], 256, "%s", s);
    t->count++;
}

void text_delete(text *t, int line_no)
{
    memmove(t->line[line_no - 1], t->line[line_no], (size_t)(t->count - line_no) * 256);
    t->count--;
}

void text_write(const text *t, const char *path, const char *eol)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < t->count; i++)
        fprintf(f, "%s%s", t->line[i], eol);
    assert_int_equal(fclose(f), 0);
}

/* Loads text t and expects status want with `needle` in the message. */
void expect_load(const text *t, gm_status want, const char *needle)
{
    char path[300];
    tmp_path(path, sizeof path, "x.csv");
    text_write(t, path, "\n");
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    gm_status st = gm_atomics_table_load(path, &table, &err);
    if (st != want || (needle && !strstr(err.msg, needle)))
        print_error("status %s, message '%s'; wanted %s with '%s'\n", gm_strerror(st), err.msg,
                    gm_strerror(want), needle ? needle : "");
    assert_int_equal(st, want);
    if (needle)
        assert_non_null(strstr(err.msg, needle));
    if (want == GM_OK)
        assert_non_null(table);
    else {
        assert_null(table);
        /* Every rejection names the file. */
        assert_non_null(strstr(err.msg, path));
    }
    gm_atomics_table_free(table);
}

void expect_line_error(int line_no, const char *content, gm_status want, const char *needle)
{
    text t;
    text_base(&t);
    text_set(&t, line_no, "%s", content);
    char with_line[300];
    snprintf(with_line, sizeof with_line, "x.csv:%d: %s", line_no, needle);
    expect_load(&t, want, with_line);
}

void assert_tables_identical(const gm_atomics_table *a, const gm_atomics_table *b)
{
    const gm_atomics_table_meta *ma = &a->meta, *mb = &b->meta;
    assert_string_equal(ma->gpu_name, mb->gpu_name);
    assert_int_equal(ma->cc_major, mb->cc_major);
    assert_int_equal(ma->cc_minor, mb->cc_minor);
    assert_int_equal(ma->sm_count, mb->sm_count);
    assert_int_equal(ma->max_warps_per_sm, mb->max_warps_per_sm);
    assert_int_equal(ma->warp_size, mb->warp_size);
    assert_memory_equal(&ma->sm_clock_mhz, &mb->sm_clock_mhz, sizeof(double));
    assert_int_equal(ma->driver_version, mb->driver_version);
    assert_int_equal(ma->runtime_version, mb->runtime_version);
    assert_string_equal(ma->date, mb->date);
    assert_string_equal(ma->method_note, mb->method_note);
    assert_int_equal(ma->reps, mb->reps);
    assert_memory_equal(&ma->spread_threshold, &mb->spread_threshold, sizeof(double));
    assert_string_equal(ma->gpuq_version, mb->gpuq_version);
    assert_int_equal(a->n_series, b->n_series);
    for (int i = 0; i < a->n_series; i++) {
        const gm_atomics_series *sa = &a->series[i], *sb = &b->series[i];
        assert_int_equal(sa->cls, sb->cls);
        assert_int_equal(sa->pattern, sb->pattern);
        assert_int_equal(sa->method, sb->method);
        assert_int_equal(sa->mixes_cas, sb->mixes_cas);
        for (int n = 1; n <= sa->n_max; n++)
            for (int e = 1; e <= sa->e_max; e++)
                for (int c = 0; c <= (sa->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *x = gm_atomics_series_cell(sa, n, e,
                                                                      c), *y = gm_atomics_series_cell(sb, n, e, c);
                    if (isnan(x->t_median)) {
                        assert_true(isnan(y->t_median));
                        continue;
                    }
                    /* bit-exact, not approximately equal */
                    assert_memory_equal(&x->t_median, &y->t_median, sizeof(double));
                    assert_memory_equal(&x->t_min, &y->t_min, sizeof(double));
                    assert_memory_equal(&x->t_max, &y->t_max, sizeof(double));
                    assert_memory_equal(&x->spread, &y->spread, sizeof(double));
                    assert_int_equal(x->reps, y->reps);
                    assert_int_equal(x->flags, y->flags);
                }
    }
}
