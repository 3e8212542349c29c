/* GPU tests of gpuq profile (label gpu; exit 77 = skipped, with the reason).
 *
 *   profile_check atomics GPUQ APP WORKDIR    counts of atomics_app, known by construction
 *   profile_check filter  GPUQ APP WORKDIR    -k/-s/-c select exactly the intended launches
 *   profile_check exit    GPUQ APP WORKDIR    failing, crashing, interrupted programs
 *   profile_check torch   GPUQ SCRIPT WORKDIR a PyTorch torch.bincount script
 *   profile_check ncu     GPUQ APP WORKDIR    the same launches under ncu, within 2%
 *
 * The reports use a synthetic calibration table written here (--table
 * --force): these tests check what gpuq measures and how it reports it, not
 * a calibration, so they do not depend on a shipped table for the GPU.
 */
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

#include "csv_internal.h"
#include "gpuq/counters.h"
#include "gpuq/table.h"

#define SKIP 77

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
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
static int run(char *const argv[], const char *out_path, const char *err_path)
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

static char *slurp(const char *path)
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

static void show_file(const char *path)
{
    char *text = slurp(path);
    printf("---- %s\n%s----\n", path, text);
    free(text);
}

static int file_has(const char *path, const char *needle)
{
    char *text = slurp(path);
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}

static void path_in(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* ---- a synthetic calibration table ---------------------------------------- */

/* A complete, valid table whose values mean nothing: T = 10 n + e + 5 c.
 * Series: add (with CAS mixed in) and popc_inc, single-shot, same address. */
static int write_synthetic_table(const char *path)
{
    gm_table_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "synthetic test table");
    meta.cc_major = 9;
    meta.sm_count = 1;
    meta.max_warps_per_sm = 64;
    meta.warp_size = 32;
    snprintf(meta.method_note, sizeof meta.method_note, "tests/profile/profile_check.c");
    gm_table *t = gm_table_new(&meta);
    if (!t)
        return 0;
    const struct {
        gm_job_class cls;
        int mixes_cas;
    } series[] = {{GM_CLASS_ADD, 1}, {GM_CLASS_POPC_INC, 0}};
    for (size_t s = 0; s < 2; s++) {
        gm_series *ser = NULL;
        if (gm_table_add_series(t, series[s].cls, GM_PATTERN_SAME_ADDRESS,
                                GM_METHOD_SINGLE_SHOT, series[s].mixes_cas, &ser) != GM_OK)
            return 0;
        for (int n = 1; n <= 64; n++)
            for (int e = 1; e <= 32; e++)
                for (int c = 0; c <= (series[s].mixes_cas ? n : 0); c++) {
                    gm_cell *cell = gm_series_cell(ser, n, e, c);
                    cell->t_median = cell->t_min = cell->t_max = 10.0 * n + e + 5.0 * c;
                    cell->spread = 0;
                    cell->reps = 1;
                    cell->flags = 0;
                }
    }
    gm_error err = {{0}};
    gm_status st = gm_table_write_file(path, t, &err);
    gm_table_free(t);
    if (st != GM_OK)
        printf("cannot write the synthetic table: %s\n", err.msg);
    return st == GM_OK;
}

/* ---- counters and CSV reports --------------------------------------------- */

static int load_counters(const char *path, gm_counters_set *set)
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
static int is_kernel(const char *name, const char *base)
{
    size_t n = strlen(base);
    return name && strncmp(name, base, n) == 0 && (name[n] == '(' || name[n] == '\0');
}

typedef struct csv_table {
    size_t rows, cols;
    char ***cell; /* cell[row][col]; row 0 is the header */
} csv_table;

static int csv_read(const char *path, csv_table *t)
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
static long csv_col(const csv_table *t, const char *name)
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

static void csv_free(csv_table *t)
{
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->cols; c++)
            free(t->cell[r][c]);
        free(t->cell[r]);
    }
    free(t->cell);
}

/* ---- atomics: counts known by construction -------------------------------- */

typedef struct expectation {
    char kernel[64];
    int launches;
    double N, add, cas, popc, other, O;
} expectation;

static int read_expectations(const char *path, expectation *e, int max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    int n = 0;
    if (!fgets(line, sizeof line, f)) { /* header */
        fclose(f);
        return -1;
    }
    while (n < max && fgets(line, sizeof line, f)) {
        expectation *x = &e[n];
        if (sscanf(line, "%63[^,],%d,%lf,%lf,%lf,%lf,%lf,%lf", x->kernel, &x->launches, &x->N,
                   &x->add, &x->cas, &x->popc, &x->other, &x->O) == 8)
            n++;
    }
    fclose(f);
    return n;
}

static void expect_equal(const char *what, const char *kernel, uint64_t id, double got,
                         double want)
{
    if (!(got == want))
        fail("%s of %s (launch %llu) is %.17g, expected %.17g", what, kernel,
             (unsigned long long)id, got, want);
}

static int check_atomics(const char *gpuq, const char *app, const char *dir)
{
    char counters[512], expected[512], report[512], errs[512], table[512], out[512];
    path_in(counters, sizeof counters, dir, "atomics.counters.csv");
    path_in(expected, sizeof expected, dir, "atomics.expected.csv");
    path_in(report, sizeof report, dir, "atomics.report.csv");
    path_in(errs, sizeof errs, dir, "atomics.stderr.txt");
    path_in(out, sizeof out, dir, "atomics.stdout.txt");
    path_in(table, sizeof table, dir, "synthetic.table.csv");
    if (!write_synthetic_table(table))
        return 1;
    char *argv[] = {(char *)gpuq, "profile", "--keep-counters", counters, "--table", table,
                    "--force", "-f", "csv", "-o", report, "--", (char *)app, "--expect",
                    expected, "--fork", NULL};
    int rc = run(argv, out, errs);
    show_file(errs);
    if (rc != 0) {
        fail("gpuq profile exited with %d", rc);
        return 1;
    }
    expectation exp[16];
    int n_exp = read_expectations(expected, exp, 16);
    if (n_exp <= 0) {
        fail("no expectations in %s", expected);
        return 1;
    }
    gm_counters_set set;
    if (!load_counters(counters, &set))
        return 1;
    size_t matched = 0;
    for (int x = 0; x < n_exp; x++) {
        const expectation *e = &exp[x];
        /* The graph's kernel nodes: profiled node by node, or a line per
         * graph saying why not (and then no row of k_in_graph). */
        int graphs_profiled = file_has(errs, "launches profiled node by node");
        if (strcmp(e->kernel, "graph_launches") == 0) {
            char needle[96];
            snprintf(needle, sizeof needle, "%d of %d launches profiled node by node",
                     e->launches, e->launches);
            if (!file_has(errs, needle) && !file_has(errs, "not profiled: "))
                fail("stderr says neither '%s' nor why the graph was not profiled", needle);
            continue;
        }
        int want_launches = e->launches;
        if (strcmp(e->kernel, "k_in_graph") == 0 && !graphs_profiled)
            want_launches = 0;
        int launches = 0;
        for (size_t i = 0; i < set.count; i++) {
            const gm_launch_counters *k = &set.launches[i];
            if (!is_kernel(k->kernel, e->kernel))
                continue;
            launches++;
            matched++;
            const double *m = k->metric;
            expect_equal("N (smsp__inst_executed_op_shared_atom)", e->kernel, k->launch_id,
                         m[GM_M_N_ATOM], e->N);
            expect_equal("N (SASS count)", e->kernel, k->launch_id, m[GM_M_N_ATOM_SASS], e->N);
            expect_equal("N_c (dot_cas)", e->kernel, k->launch_id, m[GM_M_N_CAS], e->cas);
            expect_equal("N_f (dot_alu)", e->kernel, k->launch_id, m[GM_M_N_ALU],
                         e->add + e->popc + e->other);
            expect_equal("O (wavefronts)", e->kernel, k->launch_id, m[GM_M_O_WAVEFRONTS], e->O);
            if (!k->split.valid) {
                fail("no opcode split for %s (launch %llu)", e->kernel,
                     (unsigned long long)k->launch_id);
                continue;
            }
            expect_equal("split ADD", e->kernel, k->launch_id, k->split.add, e->add);
            expect_equal("split CAS", e->kernel, k->launch_id, k->split.cas, e->cas);
            expect_equal("split POPC.INC", e->kernel, k->launch_id, k->split.popc_inc, e->popc);
            expect_equal("split other", e->kernel, k->launch_id, k->split.other, e->other);
            if (k->grid[0] != 256 || k->block[0] != 256 || k->regs_per_thread <= 0)
                fail("launch configuration of %s: grid %u block %u regs %d", e->kernel,
                     k->grid[0], k->block[0], k->regs_per_thread);
            if (!(m[GM_M_CYCLES_SUM] > 0) || !(m[GM_M_OCCUPANCY_PCT] > 0))
                fail("%s (launch %llu) has no active cycles or occupancy", e->kernel,
                     (unsigned long long)k->launch_id);
        }
        if (launches != want_launches)
            fail("%d launches of %s profiled, expected %d", launches, e->kernel, want_launches);
        else
            printf("ok: %s: %d launches, N %.0f, O/N %s, split %.0f/%.0f/%.0f\n", e->kernel,
                   launches, e->N, e->N > 0 ? "as built" : "-", e->add, e->cas, e->popc);
    }
    if (matched != set.count)
        fail("%zu launches in the counters file, %zu expected", set.count, matched);

    /* The report: one row per launch; U = 0 where there are no atomics. */
    csv_table rep;
    if (!csv_read(report, &rep)) {
        fail("report %s unreadable", report);
    } else {
        long kc = csv_col(&rep, "kernel"), uc = csv_col(&rep, "U"), nc = csv_col(&rep, "N_atom");
        if (kc < 0 || uc < 0 || nc < 0)
            fail("report lacks kernel/U/N_atom columns");
        else if (rep.rows - 1 != set.count)
            fail("report has %zu rows, counters %zu", rep.rows - 1, set.count);
        else
            for (size_t r = 1; r < rep.rows; r++) {
                const char *name = rep.cell[r][kc];
                double U = atof(rep.cell[r][uc]);
                if (is_kernel(name, "k_no_atomics") &&
                    (atof(rep.cell[r][nc]) != 0 || U != 0 || !rep.cell[r][uc][0]))
                    fail("k_no_atomics: N '%s', U '%s' in the report, expected 0 and 0",
                         rep.cell[r][nc], rep.cell[r][uc]);
                if (!is_kernel(name, "k_no_atomics") && !(U > 0))
                    fail("%s: U '%s' in the report, expected > 0", name, rep.cell[r][uc]);
            }
        csv_free(&rep);
    }

    /* Offline: gpuq model recomputes from the saved counters, and the
     * opcode variant uses the SASS classification. */
    char report2[512];
    path_in(report2, sizeof report2, dir, "atomics.opcode.csv");
    char *argv2[] = {(char *)gpuq, "model", counters, "--table", table, "--force",
                     "--model", "opcode", "-f", "csv", "-o", report2, NULL};
    if ((rc = run(argv2, NULL, NULL)) != 0)
        fail("gpuq model on the saved counters exited with %d", rc);
    else if (!csv_read(report2, &rep))
        fail("%s unreadable", report2);
    else {
        long kc = csv_col(&rep, "kernel"), sc = csv_col(&rep, "split_source");
        for (size_t r = 1; sc >= 0 && r < rep.rows; r++)
            if (!is_kernel(rep.cell[r][kc], "k_no_atomics") &&
                strcmp(rep.cell[r][sc], "sass classification") != 0)
                fail("%s: split_source '%s' with --model opcode", rep.cell[r][kc],
                     rep.cell[r][sc]);
        if (sc < 0)
            fail("no split_source column");
        csv_free(&rep);
    }
    gm_counters_set_clear(&set);
    return failures != 0;
}

/* ---- filter: -k, -s, -c ------------------------------------------------------ */

static int check_filter(const char *gpuq, const char *app, const char *dir)
{
    char counters[512], errs[512], table[512];
    path_in(counters, sizeof counters, dir, "filter.counters.csv");
    path_in(errs, sizeof errs, dir, "filter.stderr.txt");
    path_in(table, sizeof table, dir, "synthetic.table.csv");
    if (!write_synthetic_table(table))
        return 1;
    /* Matching launches in program order: add, add, cas, add, cas, cas;
     * skip 2, profile 3: cas, add, cas. */
    char *argv[] = {(char *)gpuq, "profile", "-k", "^k_(add_same|cas_distinct)\\(", "-s", "2",
                    "-c", "3", "--keep-counters", counters, "--table", table, "--force",
                    "--summary", "--", (char *)app, NULL};
    int rc = run(argv, "/dev/null", errs);
    show_file(errs);
    if (rc != 0) {
        fail("gpuq profile -k -s -c exited with %d", rc);
        return 1;
    }
    gm_counters_set set;
    if (!load_counters(counters, &set))
        return 1;
    const char *want[] = {"k_cas_distinct", "k_add_same", "k_cas_distinct"};
    if (set.count != 3)
        fail("%zu launches profiled, expected 3", set.count);
    for (size_t i = 0; i < set.count && i < 3; i++) {
        const gm_launch_counters *k = &set.launches[i];
        if (k->launch_id != i || !is_kernel(k->kernel, want[i]))
            fail("launch %zu is %s (id %llu), expected %s", i, k->kernel,
                 (unsigned long long)k->launch_id, want[i]);
        if (!k->split.valid)
            fail("launch %zu has no opcode split", i);
    }
    if (!file_has(errs, "follows from the hardware counters and the disassembly"))
        fail("-k -s 2 -c 3: k_add_same has one non-CAS ATOMS opcode, but the split did not come "
             "from the disassembly");
    if (failures == 0)
        printf("ok: -k -s 2 -c 3 selected cas, add, cas\n");

    /* The split from the disassembly equals the one the second run
     * measures, launch by launch. */
    char counters2[512];
    path_in(counters2, sizeof counters2, dir, "filter.rerun.counters.csv");
    char *argv_rerun[] = {(char *)gpuq, "profile", "-k", "^k_(add_same|cas_distinct)\\(", "-s",
                          "2", "-c", "3", "--always-rerun", "--keep-counters", counters2,
                          "--table", table, "--force", "-o", "/dev/null", "--", (char *)app,
                          NULL};
    rc = run(argv_rerun, "/dev/null", errs);
    show_file(errs);
    gm_counters_set rerun;
    if (rc != 0 || !file_has(errs, "running the program again"))
        fail("--always-rerun: exit %d, or no second run", rc);
    else if (load_counters(counters2, &rerun)) {
        if (rerun.count != set.count)
            fail("--always-rerun: %zu launches, %zu without", rerun.count, set.count);
        for (size_t i = 0; i < set.count && i < rerun.count; i++) {
            const gm_opcode_split *a = &set.launches[i].split, *b = &rerun.launches[i].split;
            if (!a->valid || !b->valid || a->add != b->add || a->cas != b->cas ||
                a->popc_inc != b->popc_inc || a->other != b->other)
                fail("launch %zu: split from the disassembly %g/%g/%g/%g, from the second run "
                     "%g/%g/%g/%g (add/cas/popc_inc/other)", i, a->add, a->cas, a->popc_inc,
                     a->other, b->add, b->cas, b->popc_inc, b->other);
            if (!(rerun.launches[i].metric[GM_M_N_ATOM_SASS] ==
                  set.launches[i].metric[GM_M_N_ATOM]))
                fail("launch %zu: SASS N %g, hardware N %g", i,
                     rerun.launches[i].metric[GM_M_N_ATOM_SASS],
                     set.launches[i].metric[GM_M_N_ATOM]);
        }
        gm_counters_set_clear(&rerun);
        if (failures == 0)
            printf("ok: the split from the disassembly equals the second run's\n");
    }
    gm_counters_set_clear(&set);

    /* Only CAS kernels: the hardware counters settle the split, no second
     * run. */
    char *argv_cas[] = {(char *)gpuq, "profile", "-k", "^k_cas_distinct\\(", "--keep-counters",
                        counters, "--table", table, "--force", "-o", "/dev/null", "--",
                        (char *)app, NULL};
    rc = run(argv_cas, "/dev/null", errs);
    show_file(errs);
    if (rc != 0 || !file_has(errs, "no second run"))
        fail("-k k_cas_distinct: exit %d, or the second run was not skipped", rc);
    else if (load_counters(counters, &set)) {
        if (set.count != 3)
            fail("-k k_cas_distinct: %zu launches, expected 3", set.count);
        for (size_t i = 0; i < set.count; i++) {
            const gm_launch_counters *k = &set.launches[i];
            if (!k->split.valid || k->split.cas != k->metric[GM_M_N_CAS] ||
                k->split.add != 0 || k->split.popc_inc != 0 || k->split.other != 0)
                fail("-k k_cas_distinct: launch %zu split from hardware is wrong", i);
        }
        gm_counters_set_clear(&set);
    }

    /* A regex nothing matches: nothing measured, exit 3, and why. */
    char *argv2[] = {(char *)gpuq, "profile", "-k", "no_such_kernel", "--keep-counters",
                     counters, "--", (char *)app, NULL};
    rc = run(argv2, "/dev/null", errs);
    if (rc != 3 || !file_has(errs, "nothing was measured"))
        fail("unmatched -k: exit %d (expected 3) or no explanation", rc);
    char *argv3[] = {(char *)gpuq, "profile", "-k", "k_(", "--", (char *)app, NULL};
    rc = run(argv3, "/dev/null", errs);
    show_file(errs);
    if (rc != 1 || !file_has(errs, "regex"))
        fail("bad -k regex: exit %d (expected 1, usage) or no explanation", rc);
    return failures != 0;
}

/* ---- exit: failing, crashing and interrupted programs -------------------- */

static size_t count_rows(const char *path)
{
    char *text = slurp(path);
    size_t rows = 0;
    for (char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        if (p[1] >= '0' && p[1] <= '9')
            rows++;
    free(text);
    return rows;
}

static int check_exit(const char *gpuq, const char *app, const char *dir)
{
    char counters[512], errs[512], table[512], report[512];
    path_in(counters, sizeof counters, dir, "exit.counters.csv");
    path_in(errs, sizeof errs, dir, "exit.stderr.txt");
    path_in(report, sizeof report, dir, "exit.report.txt");
    path_in(table, sizeof table, dir, "synthetic.table.csv");
    if (!write_synthetic_table(table))
        return 1;
    /* --abort-early aborts with the first six launches still in the
     * collector's open window: its signal path must write them. */
    static const struct {
        const char *arg, *arg2, *says;
        size_t launches;
    } cases[] = {
        {"--abort", NULL, "was killed by signal 6", 10},
        {"--exit", "5", "exited with status 5", 10},
        {"--abort-early", NULL, "was killed by signal 6", 6},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *argv[] = {(char *)gpuq, "profile", "--no-opcode-split", "--keep-counters", counters,
                        "--table", table, "--force", "-o", report, "--", (char *)app,
                        (char *)cases[c].arg, (char *)cases[c].arg2, NULL};
        int rc = run(argv, "/dev/null", errs);
        show_file(errs);
        gm_counters_set set;
        if (rc != 0)
            fail("%s: gpuq profile exited with %d, expected 0 (something was measured)",
                 cases[c].arg, rc);
        if (!file_has(errs, cases[c].says))
            fail("%s: stderr does not say '%s'", cases[c].arg, cases[c].says);
        if (load_counters(counters, &set)) {
            /* + the graph's 2 kernel-node launches where they were profiled */
            size_t want = cases[c].launches +
                          (file_has(errs, "2 of 2 launches profiled node by node") ? 2 : 0);
            if (set.count != want)
                fail("%s: %zu launches saved, expected %zu", cases[c].arg, set.count, want);
            for (size_t i = 0; i < set.count; i++)
                if (!(set.launches[i].metric[GM_M_N_ATOM] >= 0))
                    fail("%s: launch %zu has no counters", cases[c].arg, i);
            gm_counters_set_clear(&set);
        }
        if (!file_has(report, "k_add_same"))
            fail("%s: the report does not list k_add_same", cases[c].arg);
    }

    /* Ctrl-C: SIGINT to gpuq goes on to the program; what was measured is
     * reported and gpuq exits 130. */
    unlink(counters);
    char *argv[] = {(char *)gpuq, "profile", "--keep-counters", counters, "--table", table,
                    "--force", "-o", report, "--", (char *)app, "--repeat", "100000", NULL};
    printf("+ (SIGINT after 5 rows)");
    for (int i = 0; argv[i]; i++)
        printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errs, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    for (int waited = 0; waited < 600 && count_rows(counters) < 5; waited++) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    show_file(errs);
    gm_counters_set set;
    if (rc != 130)
        fail("SIGINT: gpuq exited with %d, expected 130", rc);
    if (load_counters(counters, &set)) {
        if (set.count < 5)
            fail("SIGINT: %zu launches kept, expected at least 5", set.count);
        else
            printf("ok: SIGINT: %zu launches kept and reported\n", set.count);
        gm_counters_set_clear(&set);
    }
    if (!file_has(report, "k_add_same"))
        fail("SIGINT: no report of what was measured");
    return failures != 0;
}

/* ---- torch ----------------------------------------------------------------- */

static int check_torch(const char *gpuq, const char *script, const char *dir)
{
    char *probe[] = {"python3", "-c",
                     "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 77)", NULL};
    int rc = run(probe, "/dev/null", "/dev/null");
    if (rc != 0) {
        printf("skipped: python3 with a CUDA-enabled torch is not available (exit %d)\n", rc);
        return SKIP;
    }
    char counters[512], errs[512], table[512], report[512];
    path_in(counters, sizeof counters, dir, "torch.counters.csv");
    path_in(errs, sizeof errs, dir, "torch.stderr.txt");
    path_in(report, sizeof report, dir, "torch.report.txt");
    path_in(table, sizeof table, dir, "synthetic.table.csv");
    if (!write_synthetic_table(table))
        return 1;
    char *argv[] = {(char *)gpuq, "profile", "--keep-counters", counters, "--table", table,
                    "--force", "--summary", "-o", report, "--", "python3", (char *)script, NULL};
    rc = run(argv, NULL, errs);
    show_file(errs);
    show_file(report);
    if (rc != 0) {
        fail("gpuq profile python3 exited with %d", rc);
        return 1;
    }
    gm_counters_set set;
    if (!load_counters(counters, &set))
        return 1;
    size_t histogram = 0, with_atomics = 0;
    for (size_t i = 0; i < set.count; i++) {
        const gm_launch_counters *k = &set.launches[i];
        histogram += strstr(k->kernel, "istogram") != NULL;
        with_atomics += k->metric[GM_M_N_ATOM] > 0;
    }
    printf("torch: %zu launches, %zu histogram kernels, %zu with shared atomics\n", set.count,
           histogram, with_atomics);
    if (set.count == 0)
        fail("no kernel of the torch script was profiled");
    if (histogram == 0)
        fail("torch.bincount's histogram kernel is not listed");
    if (with_atomics == 0)
        fail("no torch kernel used shared atomics");
    gm_counters_set_clear(&set);
    return failures != 0;
}

/* ---- ncu cross-check ------------------------------------------------------- */

static void base_name(const char *name, char *out, size_t len)
{
    size_t n = strcspn(name, "(");
    if (n >= len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

static double relative_difference(double a, double b)
{
    double scale = fmax(fabs(a), fabs(b));
    return scale > 0 ? fabs(a - b) / scale : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Event counts are exact and must match per launch; the rest are times. */
static int is_event_count(gm_metric_id m)
{
    switch (m) {
    case GM_M_N_ATOM_SASS:
    case GM_M_N_ATOM:
    case GM_M_N_CAS:
    case GM_M_N_ALU:
    case GM_M_O_WAVEFRONTS:
    case GM_M_SHARED_INST:
        return 1;
    default:
        return 0;
    }
}

static int check_ncu(const char *gpuq, const char *app, const char *dir)
{
    char *probe[] = {"ncu", "--version", NULL};
    if (run(probe, "/dev/null", "/dev/null") != 0) {
        printf("skipped: ncu (Nsight Compute) is not on PATH\n");
        return SKIP;
    }
    char counters[512], errs[512], ncu_csv[512], table[512], report[512];
    path_in(report, sizeof report, dir, "ncu.gpuq.report.txt");
    path_in(counters, sizeof counters, dir, "ncu.gpuq.counters.csv");
    path_in(errs, sizeof errs, dir, "ncu.stderr.txt");
    path_in(ncu_csv, sizeof ncu_csv, dir, "ncu.csv");
    path_in(table, sizeof table, dir, "synthetic.table.csv");
    if (!write_synthetic_table(table))
        return 1;
    /* ncu's defaults lock clocks to base and flush caches; gpuq does
     * neither, so both are turned off for a like-for-like comparison. */
    char *ncu[] = {"ncu", "--clock-control", "none", "--cache-control", "none", "--csv",
                   "--metrics", (char *)gm_metric_list_csv(), (char *)app, NULL};
    int rc = run(ncu, ncu_csv, errs);
    if (rc != 0) {
        show_file(errs);
        fail("ncu exited with %d", rc);
        return 1;
    }
    char *argv[] = {(char *)gpuq, "profile", "--keep-counters", counters, "--table", table,
                    "--force", "-o", report, "--", (char *)app, NULL};
    rc = run(argv, "/dev/null", errs);
    show_file(errs);
    if (rc != 0) {
        fail("gpuq profile exited with %d", rc);
        return 1;
    }
    gm_counters_set g, n;
    gm_error err = {{0}};
    if (!load_counters(counters, &g))
        return 1;
    gm_counters_set_init(&n);
    if (gm_ncu_csv_load(ncu_csv, &n, &err) != GM_OK) {
        fail("ncu output does not load: %s", err.msg);
        return 1;
    }
    /* Pair the k-th launch of a kernel in both; ncu also profiles the
     * kernel nodes of CUDA graphs, which gpuq reports as skipped.  Event
     * counts must agree launch by launch.  Cycles, time, occupancy and the
     * pending integral vary from run to run (tenths of a microsecond on a
     * first or a thread's launch): they must agree as the median over the
     * launches of each kernel. */
    double worst[GM_METRIC_MAX] = {0}, worst_median[GM_METRIC_MAX] = {0};
    size_t pairs = 0;
    enum { MAX_PAIRS = 256 };
    double ga[MAX_PAIRS][GM_METRIC_MAX], na[MAX_PAIRS][GM_METRIC_MAX];
    char names[MAX_PAIRS][128];
    for (size_t i = 0; i < g.count && pairs < MAX_PAIRS; i++) {
        char gb[128];
        base_name(g.launches[i].kernel, gb, sizeof gb);
        size_t ordinal = 0;
        for (size_t j = 0; j < i; j++) {
            char other[128];
            base_name(g.launches[j].kernel, other, sizeof other);
            ordinal += strcmp(gb, other) == 0;
        }
        const gm_launch_counters *match = NULL;
        for (size_t j = 0, seen = 0; j < n.count && !match; j++) {
            char nb[128];
            base_name(n.launches[j].kernel, nb, sizeof nb);
            if (strcmp(gb, nb) == 0 && seen++ == ordinal)
                match = &n.launches[j];
        }
        if (!match) {
            fail("launch %zu of %s (%zu-th) is not in the ncu output", i, gb, ordinal);
            continue;
        }
        snprintf(names[pairs], sizeof names[pairs], "%s", gb);
        for (int m = 0; m < GM_METRIC_COUNT; m++) {
            double a = g.launches[i].metric[m], b = match->metric[m];
            ga[pairs][m] = a;
            na[pairs][m] = b;
            if (isnan(a) && isnan(b))
                continue; /* neither tool has it: not available on this chip */
            /* smsp__sass_* counts come from SASS instrumentation, which the
             * range profiler does not do; gpuq fills only the shared-atomic
             * one, from its own SASS pass.  The others stay empty by design. */
            if (isnan(a) && !isnan(b) && m != GM_M_N_ATOM_SASS &&
                strncmp(gm_metric_table[m].name, "smsp__sass_", 11) == 0)
                continue;
            if (isnan(a) || isnan(b)) {
                fail("%s of %s missing (gpuq %g, ncu %g)", gm_metric_table[m].name, gb, a, b);
                continue;
            }
            double rel = relative_difference(a, b);
            if (rel > worst[m])
                worst[m] = rel;
        }
        pairs++;
    }
    /* Per kernel name: medians of both tools. */
    for (size_t i = 0; i < pairs; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(names[i], names[j]) != 0;
        if (!first)
            continue;
        for (int m = 0; m < GM_METRIC_COUNT; m++) {
            double xs[MAX_PAIRS], ys[MAX_PAIRS];
            size_t k = 0;
            for (size_t j = i; j < pairs; j++)
                if (strcmp(names[i], names[j]) == 0) {
                    xs[k] = ga[j][m];
                    ys[k++] = na[j][m];
                }
            double rel = relative_difference(median(xs, k), median(ys, k));
            if (rel > worst_median[m])
                worst_median[m] = rel;
        }
    }
    printf("gpuq vs ncu --clock-control none --cache-control none, %zu launch pairs:\n", pairs);
    printf("  %-55s %9s %14s\n", "metric", "launch", "kernel median");
    for (int m = 0; m < GM_METRIC_COUNT; m++) {
        int counted = is_event_count((gm_metric_id)m);
        double judged = counted ? worst[m] : worst_median[m];
        printf("  %-55s %8.4f%% %13.4f%%  %s%s\n", gm_metric_table[m].name, 100 * worst[m],
               100 * worst_median[m], counted ? "(count: per launch)" : "(time: per kernel)",
               judged > 0.02 ? "  > 2%" : "");
        if (judged > 0.02)
            fail("%s differs by %.2f%% from ncu", gm_metric_table[m].name, 100 * judged);
    }
    if (pairs != g.count || pairs == 0)
        fail("%zu of %zu launches paired", pairs, g.count);
    gm_counters_set_clear(&g);
    gm_counters_set_clear(&n);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: profile_check atomics|filter|exit|torch|ncu GPUQ APP WORKDIR\n");
        return 2;
    }
    const char *mode = argv[1], *gpuq = argv[2], *target = argv[3], *dir = argv[4];
    mkdir(dir, 0755);
    if (strcmp(mode, "torch") != 0) {
        char *probe[] = {(char *)target, "--probe", NULL};
        int rc = run(probe, NULL, NULL);
        if (rc == SKIP)
            return SKIP; /* atomics_app said why */
        if (rc != 0) {
            printf("FAIL: %s --probe exited with %d\n", target, rc);
            return 1;
        }
    }
    int rc;
    if (strcmp(mode, "atomics") == 0)
        rc = check_atomics(gpuq, target, dir);
    else if (strcmp(mode, "filter") == 0)
        rc = check_filter(gpuq, target, dir);
    else if (strcmp(mode, "exit") == 0)
        rc = check_exit(gpuq, target, dir);
    else if (strcmp(mode, "torch") == 0)
        rc = check_torch(gpuq, target, dir);
    else if (strcmp(mode, "ncu") == 0)
        rc = check_ncu(gpuq, target, dir);
    else {
        fprintf(stderr, "profile_check: unknown mode '%s'\n", mode);
        return 2;
    }
    if (rc == SKIP)
        return SKIP;
    printf("%s: %s (%d failure%s)\n", mode, failures ? "FAILED" : "passed", failures,
           failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
