/* The papers' own commands (cli.h): a paper whose machine data needs a
 * command of its own (to show, check or convert it, or to set it beside what
 * the vendor documents) adds one row here, in the order gpuq --help lists
 * them after the generic commands, and its file to gpuq in
 * src/papers/<name>/CMakeLists.txt. */
#include <stddef.h>

#include "cli/cli.h"

int cmd_table(int argc, char **argv); /* paper 000: atomics_cmd_table.c */
int cmd_diag(int argc, char **argv);  /* paper 003: waves_cmd_diag.c */

const cli_command cli_paper_commands[] = {
    {"table", cmd_table, "show, validate, convert or plot a calibration table (paper 000)"},
    {"diag", cmd_diag, "GPUDIAG scheduling parameters of a GPU, measured vs documented (paper 003)"},
    {NULL, NULL, NULL},
};
