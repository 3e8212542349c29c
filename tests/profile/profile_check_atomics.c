/* profile_check atomics: counts of atomics_app, known by construction (profile_check.c has the usage). */
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
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_split.h"
#include "papers/atomics/atomics_table.h"

#include "profile_check_util.h"

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

int check_atomics(const char *gpuq, const char *app, const char *dir)
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
    /* --second-run: k_mixed has three non-CAS opcodes, whose split only the
     * instruction counts of a second run give */
    char *argv[] = {(char *)gpuq, "profile", "--second-run", "--keep-counters", counters,
                    "--table", table, "--force", "-f", "csv", "-o", report, "--", (char *)app,
                    "--expect",
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
                         m[GM_ATOMICS_M_N_ATOM], e->N);
            expect_equal("N (SASS count)", e->kernel, k->launch_id, m[GM_ATOMICS_M_N_ATOM_SASS],
                         e->N);
            expect_equal("N_c (dot_cas)", e->kernel, k->launch_id, m[GM_ATOMICS_M_N_CAS], e->cas);
            expect_equal("N_f (dot_alu)", e->kernel, k->launch_id, m[GM_ATOMICS_M_N_ALU],
                         e->add + e->popc + e->other);
            expect_equal("O (wavefronts)", e->kernel, k->launch_id, m[GM_ATOMICS_M_O_WAVEFRONTS],
                         e->O);
            const gm_atomics_split sp = gm_atomics_split_of(k);
            if (!sp.valid) {
                fail("no opcode split for %s (launch %llu)", e->kernel,
                     (unsigned long long)k->launch_id);
                continue;
            }
            expect_equal("split ADD", e->kernel, k->launch_id, sp.add, e->add);
            expect_equal("split CAS", e->kernel, k->launch_id, sp.cas, e->cas);
            expect_equal("split POPC.INC", e->kernel, k->launch_id, sp.popc_inc, e->popc);
            expect_equal("split other", e->kernel, k->launch_id, sp.other, e->other);
            if (k->grid[0] != 256 || k->block[0] != 256 || k->regs_per_thread <= 0)
                fail("launch configuration of %s: grid %u block %u regs %d", e->kernel,
                     k->grid[0], k->block[0], k->regs_per_thread);
            if (!(m[GM_ATOMICS_M_CYCLES_SUM] > 0) || !(m[GM_ATOMICS_M_OCCUPANCY_PCT] > 0))
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
