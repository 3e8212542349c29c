/* The gpuq command line: one program, one file per subcommand
 * (src/cli/cmd_<name>.c), one dispatch table (src/cli/main.c), and the
 * commands a paper adds for its own machine data (src/papers/commands.c).
 *
 * Adding a subcommand:
 *   1. write src/cli/cmd_<name>.c with `int cmd_<name>(int argc, char **argv)`
 *      that parses its options with getopt_long and answers --help;
 *   2. declare it below and add one row to the table in main.c;
 *   3. add the file to GPUQ_CLI_SOURCES in src/cli/CMakeLists.txt;
 *   4. add a row to tests/cli/cli_cases.txt and a line to README.md.
 * A paper's own command: its file in src/papers/<name>/ (added to gpuq in
 * that folder's CMakeLists.txt) and one row in src/papers/commands.c.
 *
 * Exit codes (every subcommand): */
#ifndef GPUQ_CLI_H
#define GPUQ_CLI_H

#include <stdio.h>
#include "gpuq/kernel_name.h"
#include "gpuq/report.h"
#include "gpuq/status.h"

#define GPUQ_EXIT_OK 0
#define GPUQ_EXIT_USAGE 1   /* bad option or argument */
#define GPUQ_EXIT_INPUT 2   /* bad input file or data */
#define GPUQ_EXIT_GPU 3     /* no GPU, driver, CUDA or profiler error */
#define GPUQ_EXIT_INTERRUPTED 130

#ifndef GPUQ_VERSION
#define GPUQ_VERSION "0.0.0-dev"
#endif

int cmd_calibrate(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* One subcommand: its name, its entry point, its line in gpuq --help. */
typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} cli_command;

/* The commands of one paper's machine data (src/papers/commands.c), listed
 * in gpuq --help after the generic ones; ends with a row whose name is
 * NULL. */
extern const cli_command cli_paper_commands[];

/* Prints "gpuq: <cmd>: <message>" to stderr (one line). */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the gm_error of a failed library call and returns the exit code
 * that fits the status (input error, GPU error, ...). */
int cli_fail(const char *cmd, gm_status st, const gm_error *err);
/* Exit code for a status. */
int cli_exit_code(gm_status st);
/* Usage error: prints the message and "try 'gpuq <cmd> --help'". */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the help text of a subcommand ("calibrate") to out; 0 if known. */
int cli_print_help(const char *cmd, FILE *out);

/* Parses a non-negative integer option value; on failure prints a usage
 * error and returns -1. */
long cli_parse_count(const char *cmd, const char *option, const char *value, long min, long max);

/* ---- output files (cli_output.c) ---- */

/* Writes obj to an open stream. */
typedef gm_status (*cli_writer)(FILE *out, const void *obj, gm_error *err);
/* Writes an output: "-" or NULL is stdout (flushed and checked), a regular
 * file is replaced atomically (PATH.tmp.PID, renamed when complete, removed
 * on any error and on SIGINT/SIGTERM when their action is the default), a
 * device or pipe is written in place; a ".gz" path is compressed.  Every
 * write, flush and close error is reported.  Returns the exit code (errors
 * already printed). */
int cli_write_output(const char *cmd, const char *path, cli_writer writer, const void *obj);
/* The same for a report in one format. */
int cli_write_report(const char *cmd, const char *path, const gm_report *rep, gm_format fmt);
/* Flushes stdout; a write error there is one line and exit 2.  main runs
 * it after every command, so no command can lose output silently. */
int cli_finish_stdout(const char *cmd);
/* 1 when a and b name one file: the same inode where both exist, else
 * (neither exists yet) the same path once resolved.  "-" and devices are
 * never the same file. */
int cli_same_file(const char *a, const char *b);
/* Refuses an output named '' or naming one of the n inputs (NULL entries
 * skipped): a usage error printed, -1; else 0.  option is how the output
 * was given ("-o"). */
int cli_check_output(const char *cmd, const char *option, const char *output,
                     const char *const *inputs, size_t n);
/* Takes the value of an option that may be given once: '' or a second,
 * different value is a usage error (printed, -1); else *slot = value, 0. */
int cli_take_once(const char *cmd, const char *option, const char **slot, const char *value);

/* 1 when stdout/stderr is a terminal (progress bars, colour). */
int cli_isatty(FILE *f);

/* The report options gpuq model and gpuq profile share: --table, --force,
 * -m/--model (repeatable), --section (repeatable), --kernel-name-base,
 * -f/--format, --summary, -o/--output.  CLI_REPORT_LONG_OPTIONS goes into a
 * command's getopt_long table (its short-option string holds "m:f:o:");
 * cli_take_report_option handles them. */
#define CLI_MAX_LIST 16

typedef struct cli_report_opts {
    const char *table;
    int force;
    const char *variants[CLI_MAX_LIST + 1]; /* every -m as given, NULL-terminated */
    size_t n_variants;
    const char *sections[CLI_MAX_LIST + 1]; /* every --section, NULL-terminated */
    size_t n_sections;
    gm_name_base name_base;
    gm_format format;
    int summary;
    const char *output;
    const char *format_arg, *name_base_arg; /* as given, to refuse a second, other one */
} cli_report_opts;

enum { CLI_OPT_TABLE = 1000, CLI_OPT_FORCE, CLI_OPT_SUMMARY, CLI_OPT_SECTION, CLI_OPT_NAME_BASE };

#define CLI_REPORT_LONG_OPTIONS                                                              \
    {"table", required_argument, NULL, CLI_OPT_TABLE},                                       \
        {"force", no_argument, NULL, CLI_OPT_FORCE}, {"model", required_argument, NULL, 'm'}, \
        {"format", required_argument, NULL, 'f'}, {"summary", no_argument, NULL, CLI_OPT_SUMMARY}, \
        {"output", required_argument, NULL, 'o'},                                            \
        {"section", required_argument, NULL, CLI_OPT_SECTION},                               \
        {"kernel-name-base", required_argument, NULL, CLI_OPT_NAME_BASE}

/* The help lines of those options, for a command's --help. */
#define CLI_REPORT_HELP                                                                       \
    "      --table FILE      the calibration table (default: the shipped machine data whose\n" \
    "                        GPU name and SM count match the counters', looked for in\n"        \
    "                        $GPUQ_TABLE_DIR, <gpuq>/../tables, the source tables/)\n"          \
    "      --force           use --table even if it was measured on another GPU\n"            \
    "      --section NAME    report only this section (repeatable; 'gpuq model --sections'\n"  \
    "                        lists them); default: every section whose inputs exist\n"        \
    "  -m, --model [U:]V     variant V of section U (repeatable; 'gpuq model --sections'\n" \
    "                        lists them); a bare V is the first section's\n"                 \
    "                        (%s: %s; default: the first)\n"                                 \
    "      --kernel-name-base function|demangled|mangled\n"                                  \
    "                        kernel names in text, as ncu's (default: function); CSV and\n"   \
    "                        JSON carry all three\n"                                          \
    "  -f, --format F        text (default), csv, json, or html (one self-contained page)\n" \
    "      --summary         one row per kernel name (per process): launches summed\n"        \
    "  -o, --output PATH     write the report there instead of stdout\n"

/* Defaults: model "default", text format, function base names. */
void cli_report_opts_init(cli_report_opts *r);
/* Takes getopt_long's result opt when it is a report option (0).  Anything
 * else is a usage error, printed (-1): a bad value, a missing value (':'),
 * an unknown option; given is the option as written (argv[optind - 1]). */
int cli_take_report_option(const char *cmd, int opt, const char *arg, const char *given,
                           cli_report_opts *r);
/* The library's options for these (pointers into r). */
void cli_report_options(const cli_report_opts *r, gm_report_options *out);

/* Points gm_mdata_find at the shipped folders (after $GPUQ_TABLE_DIR):
 * <gpuq executable>/../tables, then the source tree's. */
void cli_search_dirs(void);

/* The suite --table FILE gives: that of the calibration table, the first
 * machine-data format a unit declares (gm_mdata_format). */
const gm_mdata_format *cli_table_format(void);

/* The machine data for counters from gpu_name with sm_count SMs and the
 * report options: every suite the selected sections need; --table as the
 * calibration table (checked against the GPU unless --force, with a warning
 * when forced or when the counters name no GPU).  Errors printed; returns
 * the exit code (0 ok). */
int cli_machine_load(const char *cmd, const cli_report_opts *r, const char *gpu_name,
                     int sm_count, gm_machine *m);
/* cli_machine_load with machine data loaded already (gpuq profile loads it
 * while the program runs): the suites named in take (NULL-terminated, or
 * NULL) are moved from pre (gm_machine_take) instead of being looked for. */
int cli_machine_load_with(const char *cmd, const cli_report_opts *r, const char *gpu_name,
                          int sm_count, gm_machine *pre, const char *const *take, gm_machine *m);
/* The suites the selected sections need (their units' suites and optional
 * suites), NULL-terminated, each once, at most max - 1. */
void cli_needed_suites(const cli_report_opts *r, const char **suites, size_t max);
/* The override --table gives ("suite=FILE", in buf), or NULL without it. */
const char *cli_table_override(const cli_report_opts *r, char *buf, size_t len);

#endif
