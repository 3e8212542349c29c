/* gpuq table: not built yet. */
#include <string.h>

#include "cli.h"

int cmd_table(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: gpuq table ...\n\nnot built yet\n");
        return GPUQ_EXIT_OK;
    }
    cli_error("table", "not built yet");
    return GPUQ_EXIT_USAGE;
}
