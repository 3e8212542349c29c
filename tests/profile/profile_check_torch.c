/* profile_check torch: a PyTorch torch.bincount script (profile_check.c has the usage). */
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

/* ---- torch ----------------------------------------------------------------- */

int check_torch(const char *gpuq, const char *script, const char *dir)
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
        with_atomics += k->metric[GM_ATOMICS_M_N_ATOM] > 0;
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
