/* Shared helpers of the calibration-table tests (atomics_table_fixture.c).
 *
 * The tables here are synthetic, made by a formula (synth_T), so that
 * every expected value can be computed by hand; they are not measurements. */
#ifndef GPUQ_TESTS_TABLE_FIXTURE_H
#define GPUQ_TESTS_TABLE_FIXTURE_H

#include <stddef.h>

#include "papers/atomics/atomics_table.h"

#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)

/* A table file as editable lines.  The base text (n_max = 2, e_max = 2):
 *   line 1      magic
 *   lines 2-14  metadata, in writer order (gpu_name .. gpuq_version)
 *   lines 15-16 series add (mixes CAS), popc_inc (no CAS)
 *   line 17     column header
 *   lines 18-27 add rows: n=1 (e=1 c=0,1; e=2 c=0,1), n=2 (e=1 c=0..2; e=2 c=0..2)
 *   lines 28-31 popc_inc rows: (n,e) = (1,1) (1,2) (2,1) (2,2)
 * Tests change one line and check the loader's answer. */
#define MAX_LINES 64
typedef struct text {
    int count;
    char line[MAX_LINES][256];
} text;

extern char tmp_dir[256];

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
void check_near(double got, double want, double tol, const char *file, int line);
int make_tmp_dir(void **state);
int remove_tmp_dir(void **state);
void tmp_path(char *buf, size_t len, const char *name);
void write_text(const char *path, const char *contents);
/* Synthetic T for the test tables: T = 100 + 10 n + 3 e + 7 c, with
 * t_min = T - 1, t_max = T + 2 and spread = 3 / T. */
double synth_T(int n, int e, int c);
gm_atomics_table_meta small_meta(int n_max, int e_max);
void fill_series(gm_atomics_series *s);
/* A complete table: add/same_address/single_shot mixing CAS, and
 * popc_inc/same_address/single_shot without. */
gm_atomics_table *synth_table(int n_max, int e_max);
void text_base(text *t);
/* 1-based line numbers, as in the loader's messages. */
void text_set(text *t, int line_no, const char *fmt, ...);
void text_insert(text *t, int line_no, const char *s);
void text_delete(text *t, int line_no);
void text_write(const text *t, const char *path, const char *eol);
/* Loads text t and expects status want with `needle` in the message. */
void expect_load(const text *t, gm_status want, const char *needle);
void expect_line_error(int line_no, const char *content, gm_status want, const char *needle);
void assert_tables_identical(const gm_atomics_table *a, const gm_atomics_table *b);

#endif
