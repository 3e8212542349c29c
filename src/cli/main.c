/* gpuq: entry point and the dispatch table of subcommands (a paper's own
 * commands come from its registry, src/papers/commands.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The dispatch table: one row per subcommand (see cli.h for the checklist);
 * a paper's own commands come between the two parts, from its registry. */
static const cli_command generic_commands[] = {
    {"calibrate", cmd_calibrate, "run the microbenchmark suites: this GPU's machine data, one file each"},
    {"profile", cmd_profile, "run a program, collect counters per kernel, report every model's section"},
    {"model", cmd_model, "apply the models to saved counters or ncu CSV (no GPU needed)"},
};
static const cli_command tail_commands[] = {
    {"version", cmd_version, "print version and build information"},
    {"help", cmd_help, "show help for gpuq or one subcommand"},
};
#define N_GENERIC (sizeof generic_commands / sizeof generic_commands[0])
#define N_TAIL (sizeof tail_commands / sizeof tail_commands[0])

/* The i-th command of gpuq --help, NULL past the last. */
static const cli_command *command_at(size_t i)
{
    if (i < N_GENERIC)
        return &generic_commands[i];
    i -= N_GENERIC;
    size_t n_paper = 0;
    while (cli_paper_commands[n_paper].name)
        n_paper++;
    if (i < n_paper)
        return &cli_paper_commands[i];
    i -= n_paper;
    return i < N_TAIL ? &tail_commands[i] : NULL;
}

static const cli_command *command_named(const char *name)
{
    const cli_command *c;
    for (size_t i = 0; (c = command_at(i)) != NULL; i++)
        if (strcmp(name, c->name) == 0)
            return c;
    return NULL;
}

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
    const cli_command *c;
    for (size_t i = 0; (c = command_at(i)) != NULL; i++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
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
    const cli_command *c = command_named(cmd);
    if (!c)
        return -1;
    char name[32], flag[] = "--help";
    snprintf(name, sizeof name, "%s", c->name);
    char *args[] = {name, flag, NULL};
    c->fn(2, args);
    return 0;
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
    const cli_command *c = rc < 0 ? command_named(name) : NULL;
    if (c)
        rc = c->fn(argc - 1, argv + 1);
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
