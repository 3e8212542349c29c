/* gpuq version: version and build information. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpuq/counters.h"
#include "gpuq/unit.h"

#ifndef GPUQ_BUILD_CUDA
#define GPUQ_BUILD_CUDA "no"
#endif
#ifndef GPUQ_BUILD_CUPTI
#define GPUQ_BUILD_CUPTI "no"
#endif

int cmd_version(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: gpuq version\n\nPrints gpuq's version, the file formats it reads and "
                   "writes, and what this build includes.\n");
            return GPUQ_EXIT_OK;
        }
        return cli_usage_error("version", "unknown option");
    }
    if (optind < argc)
        return cli_usage_error("version", "takes no arguments");
    printf("gpuq %s\n", GPUQ_VERSION);
    const gm_mdata_format *table = cli_table_format();
    if (table)
        printf("calibration table format v%d, ", table->version);
    printf("counters format v%d\n", GM_COUNTERS_FORMAT_VERSION);
    printf("built with CUDA: %s, CUPTI collector: %s\n", GPUQ_BUILD_CUDA, GPUQ_BUILD_CUPTI);
    return GPUQ_EXIT_OK;
}
