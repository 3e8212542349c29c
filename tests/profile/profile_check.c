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

#include "core/csv_internal.h"
#include "gpuq/counters.h"
#include "papers/atomics/atomics_table.h"

#include "profile_check_util.h"

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
