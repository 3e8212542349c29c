/* gpuq: entry point and the one dispatch table of subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

/* The dispatch table: one row per subcommand (see cli.h for the checklist). */
static const command commands[] = {
    {"calibrate", cmd_calibrate, "run the microbenchmark suites: this GPU's machine data, one file each"},
    {"profile", cmd_profile, "run a program, collect counters per kernel, report every model's section"},
    {"model", cmd_model, "apply the models to saved counters or ncu CSV (no GPU needed)"},
    /* commands of one paper's machine data (src/papers/<name>/) */
    {"table", cmd_table, "show, validate, convert or plot a calibration table (paper 000)"},
    {"diag", cmd_diag, "GPUDIAG scheduling parameters of a GPU, measured vs documented (paper 003)"},
    {"version", cmd_version, "print version and build information"},
    {"help", cmd_help, "show help for gpuq or one subcommand"},
};
static const size_t n_commands = sizeof commands / sizeof commands[0];

static void print_overview(FILE *out)
{
    fprintf(out,
            "usage: gpuq <command> [options] [args]\n"
            "\n"
            "gpuq tells what holds each kernel of a program back on an NVIDIA GPU.  It\n"
            "measures the GPU once with microbenchmark suites (calibrate), collects the\n"
            "hardware counters of every kernel launch (profile), and applies a model from\n"
            "each of several papers to them (profile, or model on saved counters): one\n"
            "report, one section per model, one verdict per kernel.  'gpuq model\n"
            "--sections' lists the models and their papers, 'gpuq calibrate --list' the\n"
            "suites.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < n_commands; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "'gpuq help <command>' or 'gpuq <command> --help' shows a command's options.\n"
            "exit codes: 0 ok, 1 usage, 2 input error, 3 GPU or profiler error\n");
}

/* Every subcommand answers --help itself, so help text lives beside the
 * options it describes. */
int cli_print_help(const char *cmd, FILE *out)
{
    (void)out; /* subcommands print their help on stdout */
    for (size_t i = 0; i < n_commands; i++) {
        if (strcmp(cmd, commands[i].name) == 0) {
            char name[32], flag[] = "--help";
            snprintf(name, sizeof name, "%s", commands[i].name);
            char *args[] = {name, flag, NULL};
            commands[i].fn(2, args);
            return 0;
        }
    }
    return -1;
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_overview(stdout);
        return GPUQ_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error("help", "too many arguments");
    if (cli_print_help(argv[1], stdout) == 0)
        return GPUQ_EXIT_OK;
    return cli_usage_error("help", "unknown command '%s'", argv[1]);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gpuq <command> [options] [args] (see 'gpuq --help' for the commands)\n");
        return GPUQ_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_overview(stdout);
        return cli_finish_stdout("help");
    }
    int rc = -1;
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        name = "version";
        rc = cmd_version(1, argv + 1);
    }
    for (size_t i = 0; rc < 0 && i < n_commands; i++)
        if (strcmp(name, commands[i].name) == 0)
            rc = commands[i].fn(argc - 1, argv + 1);
    if (rc < 0) {
        cli_error(name, "not a gpuq command (see 'gpuq --help' for the commands)");
        return GPUQ_EXIT_USAGE;
    }
    /* What a command printed on stdout may still sit in its buffer: a full
     * disk or a closed pipe shows only now, and must not pass for success
     * (a command that failed has said why already). */
    if (rc == GPUQ_EXIT_OK)
        rc = cli_finish_stdout(name);
    return rc;
}
