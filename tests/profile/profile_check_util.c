/* Helpers that profile_check's modes share: failures, running commands,
 * files, the synthetic calibration table, counters and CSV reports. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/csv_internal.h"
#include "gpuq/counters.h"
#include "papers/atomics/atomics_table.h"

#include "profile_check_util.h"

/* Failures so far; main prints the count and exits non-zero on any. */
int failures;

void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    failures++;
}

/* ---- running commands ---------------------------------------------------- */

/* Runs argv with stdout/stderr to files (NULL: inherit); returns the exit
 * status, or 128 + signal. */
int run(char *const argv[], const char *out_path, const char *err_path)
{
    printf("+");
    for (int i = 0; argv[i]; i++)
        printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 1);
        }
        if (err_path) {
            int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return calloc(1, 1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc((size_t)n + 1, 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    fclose(f);
    return buf;
}

void show_file(const char *path)
{
    char *text = slurp(path);
    printf("---- %s\n%s----\n", path, text);
    free(text);
}

int file_has(const char *path, const char *needle)
{
    char *text = slurp(path);
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}

void path_in(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* ---- a synthetic calibration table ---------------------------------------- */

/* A complete, valid table whose values mean nothing: T = 10 n + e + 5 c.
 * Series: add (with CAS mixed in) and popc_inc, single-shot, same address. */
int write_synthetic_table(const char *path)
{
    gm_atomics_table_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "synthetic test table");
    meta.cc_major = 9;
    meta.sm_count = 1;
    meta.max_warps_per_sm = 64;
    meta.warp_size = 32;
    snprintf(meta.method_note, sizeof meta.method_note, "tests/profile/profile_check.c");
    gm_atomics_table *t = gm_atomics_table_new(&meta);
    if (!t)
        return 0;
    const struct {
        gm_atomics_job_class cls;
        int mixes_cas;
    } series[] = {{GM_ATOMICS_CLASS_ADD, 1}, {GM_ATOMICS_CLASS_POPC_INC, 0}};
    for (size_t s = 0; s < 2; s++) {
        gm_atomics_series *ser = NULL;
        if (gm_atomics_table_add_series(t, series[s].cls, GM_ATOMICS_PATTERN_SAME_ADDRESS,
                                        GM_ATOMICS_METHOD_SINGLE_SHOT, series[s].mixes_cas,
                                        &ser) != GM_OK)
            return 0;
        for (int n = 1; n <= 64; n++)
            for (int e = 1; e <= 32; e++)
                for (int c = 0; c <= (series[s].mixes_cas ? n : 0); c++) {
                    gm_atomics_cell *cell = gm_atomics_series_cell(ser, n, e, c);
                    cell->t_median = cell->t_min = cell->t_max = 10.0 * n + e + 5.0 * c;
                    cell->spread = 0;
                    cell->reps = 1;
                    cell->flags = 0;
                }
    }
    gm_error err = {{0}};
    gm_status st = gm_atomics_table_write_file(path, t, &err);
    gm_atomics_table_free(t);
    if (st != GM_OK)
        printf("cannot write the synthetic table: %s\n", err.msg);
    return st == GM_OK;
}

/* ---- counters and CSV reports --------------------------------------------- */

int load_counters(const char *path, gm_counters_set *set)
{
    gm_error err = {{0}};
    gm_counters_set_init(set);
    if (gm_counters_load(path, set, &err) != GM_OK) {
        fail("%s does not load: %s", path, err.msg);
        return 0;
    }
    return 1;
}

/* "k_add_same(unsigned int const*, ...)" is launch of k_add_same. */
int is_kernel(const char *name, const char *base)
{
    size_t n = strlen(base);
    return name && strncmp(name, base, n) == 0 && (name[n] == '(' || name[n] == '\0');
}

int csv_read(const char *path, csv_table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    gm_csv_reader rd;
    gm_csv_reader_init(&rd, f, path);
    gm_error err = {{0}};
    int eof = 0, ok = 1;
    while (ok) {
        if (gm_csv_next_line(&rd, &eof, &err) != GM_OK || eof)
            break;
        if (rd.raw[0] == '#' || rd.raw[0] == '\0')
            continue;
        if (gm_csv_split(&rd, &err) != GM_OK) {
            ok = 0;
            break;
        }
        char **row = calloc(rd.n_fields, sizeof *row);
        for (size_t i = 0; i < rd.n_fields; i++)
            row[i] = strdup(rd.fields[i]);
        t->cell = realloc(t->cell, (t->rows + 1) * sizeof *t->cell);
        t->cell[t->rows++] = row;
        if (t->rows == 1)
            t->cols = rd.n_fields;
    }
    gm_csv_reader_free(&rd);
    fclose(f);
    return ok && t->rows > 0;
}

/* A column by name; a model field is found under the atomics section's
 * name too ("U" is "atomics.U" in a report v2). */
long csv_col(const csv_table *t, const char *name)
{
    char section[128];
    snprintf(section, sizeof section, "atomics.%s", name);
    for (size_t c = 0; c < t->cols; c++)
        if (strcmp(t->cell[0][c], name) == 0)
            return (long)c;
    for (size_t c = 0; c < t->cols; c++)
        if (strcmp(t->cell[0][c], section) == 0)
            return (long)c;
    return -1;
}

void csv_free(csv_table *t)
{
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->cols; c++)
            free(t->cell[r][c]);
        free(t->cell[r]);
    }
    free(t->cell);
}
