/* gpuq model: not built yet. */
#include <string.h>

#include "cli.h"

int cmd_model(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: gpuq model ...\n\nnot built yet\n");
        return GPUQ_EXIT_OK;
    }
    cli_error("model", "not built yet");
    return GPUQ_EXIT_USAGE;
}
