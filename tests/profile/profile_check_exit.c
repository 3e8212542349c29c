/* profile_check exit: failing, crashing and interrupted programs (profile_check.c has the usage). */
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
#include "papers/atomics/atomics_table.h"

#include "profile_check_util.h"

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

int check_exit(const char *gpuq, const char *app, const char *dir)
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
        int status; /* gpuq passes the program's on: 128 + signal */
    } cases[] = {
        {"--abort", NULL, "was killed by signal 6", 10, 128 + 6},
        {"--exit", "5", "exited with status 5", 10, 5},
        {"--abort-early", NULL, "was killed by signal 6", 6, 128 + 6},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *argv[] = {(char *)gpuq, "profile", "--no-opcode-split", "--keep-counters", counters,
                        "--table", table, "--force", "-o", report, "--", (char *)app,
                        (char *)cases[c].arg, (char *)cases[c].arg2, NULL};
        int rc = run(argv, "/dev/null", errs);
        show_file(errs);
        gm_counters_set set;
        if (rc != cases[c].status)
            fail("%s: gpuq profile exited with %d, expected the program's status %d",
                 cases[c].arg, rc, cases[c].status);
        if (!file_has(errs, cases[c].says))
            fail("%s: stderr does not say '%s'", cases[c].arg, cases[c].says);
        if (load_counters(counters, &set)) {
            /* + the graph's 2 kernel-node launches where they were profiled */
            size_t want = cases[c].launches +
                          (file_has(errs, "2 of 2 launches profiled node by node") ? 2 : 0);
            if (set.count != want)
                fail("%s: %zu launches saved, expected %zu", cases[c].arg, set.count, want);
            for (size_t i = 0; i < set.count; i++)
                if (!(set.launches[i].metric[GM_ATOMICS_M_N_ATOM] >= 0))
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
