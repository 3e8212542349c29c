/* What profile_check's modes share (profile_check_util.c) and the modes
 * themselves, one file each (profile_check_MODE.c); each returns SKIP or
 * counts its failures with fail(). */
#ifndef GPUQ_TESTS_PROFILE_CHECK_UTIL_H
#define GPUQ_TESTS_PROFILE_CHECK_UTIL_H

#include <stddef.h>

#include "gpuq/counters.h"

#define SKIP 77

extern int failures;

typedef struct csv_table {
    size_t rows, cols;
    char ***cell; /* cell[row][col]; row 0 is the header */
} csv_table;

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs argv with stdout/stderr to files (NULL: inherit); returns the exit
 * status, or 128 + signal. */
int run(char *const argv[], const char *out_path, const char *err_path);
char *slurp(const char *path);
void show_file(const char *path);
int file_has(const char *path, const char *needle);
void path_in(char *buf, size_t len, const char *dir, const char *name);
/* A complete, valid table whose values mean nothing: T = 10 n + e + 5 c.
 * Series: add (with CAS mixed in) and popc_inc, single-shot, same address. */
int write_synthetic_table(const char *path);
int load_counters(const char *path, gm_counters_set *set);
/* "k_add_same(unsigned int const*, ...)" is launch of k_add_same. */
int is_kernel(const char *name, const char *base);
int csv_read(const char *path, csv_table *t);
/* A column by name; a model field is found under the atomics section's
 * name too ("U" is "atomics.U" in a report v2). */
long csv_col(const csv_table *t, const char *name);
void csv_free(csv_table *t);

int check_atomics(const char *gpuq, const char *app, const char *dir);
int check_filter(const char *gpuq, const char *app, const char *dir);
int check_exit(const char *gpuq, const char *app, const char *dir);
int check_torch(const char *gpuq, const char *script, const char *dir);
int check_ncu(const char *gpuq, const char *app, const char *dir);

#endif
