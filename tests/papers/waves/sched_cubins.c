/* Writes the functional-unit kernels of suite "sched" as the driver's JIT
 * compiled them (DIR/gd_fu_<op>.cubin), for the SASS check
 * (tests/bench/sched_sass.sh).  Exits 77 without a GPU.
 *   usage: sched_cubins DIR */
#include <stdio.h>

#include "papers/waves/waves_suite.h"

int main(int argc, char **argv)
{
    gm_error err = {{0}};
    if (argc != 2) {
        fprintf(stderr, "usage: sched_cubins DIR\n");
        return 1;
    }
    gm_status st = gb_waves_dump_cubins(0, argv[1], &err);
    if (st == GM_ERR_NO_GPU || st == GM_ERR_UNSUPPORTED) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (st != GM_OK) {
        fprintf(stderr, "sched_cubins: %s\n", err.msg);
        return 1;
    }
    return 0;
}
