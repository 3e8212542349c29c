/* profile_check filter: -k, -s, -c select exactly the intended launches (profile_check.c has the usage). */
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

/* ---- filter: -k, -s, -c ------------------------------------------------------ */

int check_filter(const char *gpuq, const char *app, const char *dir)
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
        if (!k->pass.valid)
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
            const gm_atomics_split sa = gm_atomics_split_of(&set.launches[i]),
                                  sb = gm_atomics_split_of(&rerun.launches[i]);
            const gm_atomics_split *a = &sa, *b = &sb;
            if (!a->valid || !b->valid || a->add != b->add || a->cas != b->cas ||
                a->popc_inc != b->popc_inc || a->other != b->other)
                fail("launch %zu: split from the disassembly %g/%g/%g/%g, from the second run "
                     "%g/%g/%g/%g (add/cas/popc_inc/other)", i, a->add, a->cas, a->popc_inc,
                     a->other, b->add, b->cas, b->popc_inc, b->other);
            if (!(rerun.launches[i].metric[GM_ATOMICS_M_N_ATOM_SASS] ==
                  set.launches[i].metric[GM_ATOMICS_M_N_ATOM]))
                fail("launch %zu: SASS N %g, hardware N %g", i,
                     rerun.launches[i].metric[GM_ATOMICS_M_N_ATOM_SASS],
                     set.launches[i].metric[GM_ATOMICS_M_N_ATOM]);
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
            const gm_atomics_split sp = gm_atomics_split_of(k);
            if (!sp.valid || sp.cas != k->metric[GM_ATOMICS_M_N_CAS] || sp.add != 0 ||
                sp.popc_inc != 0 || sp.other != 0)
                fail("-k k_cas_distinct: launch %zu split from hardware is wrong", i);
        }
        gm_counters_set_clear(&set);
    }

    /* Without --second-run the program runs once: k_add_same's split comes
     * from its code (one non-CAS opcode), k_mixed's three non-CAS opcodes
     * are not settled, fall back, and one line counts them. */
    char *argv_once[] = {(char *)gpuq, "profile", "-k", "^k_(add_same|mixed)\\(",
                         "--keep-counters", counters, "--table", table, "--force", "-o",
                         "/dev/null", "--", (char *)app, NULL};
    rc = run(argv_once, "/dev/null", errs);
    show_file(errs);
    if (rc != 0 || file_has(errs, "running the program again") ||
        !file_has(errs, "--second-run runs the program again"))
        fail("-k add_same|mixed: exit %d, a second run, or no line naming --second-run", rc);
    else if (load_counters(counters, &set)) {
        size_t add = 0, mixed = 0;
        for (size_t i = 0; i < set.count; i++) {
            const gm_launch_counters *k = &set.launches[i];
            const gm_atomics_split sp = gm_atomics_split_of(k);
            if (is_kernel(k->kernel, "k_add_same")) {
                add++;
                if (!sp.valid || sp.add != k->metric[GM_ATOMICS_M_N_ALU])
                    fail("-k add_same|mixed: launch %zu of k_add_same has no split from its code",
                         i);
            } else if (is_kernel(k->kernel, "k_mixed")) {
                mixed++;
                if (sp.valid)
                    fail("-k add_same|mixed: k_mixed got a split without a second run");
            }
        }
        if (add == 0 || mixed == 0)
            fail("-k add_same|mixed: %zu k_add_same and %zu k_mixed launches", add, mixed);
        else if (failures == 0)
            printf("ok: one run: k_add_same split from its code, k_mixed falls back\n");
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
