/* Helpers every subcommand uses: error lines, exit codes, number parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuq: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_exit_code(gm_status st)
{
    switch (st) {
    case GM_OK:
        return GPUQ_EXIT_OK;
    case GM_ERR_INVALID_ARG:
        return GPUQ_EXIT_USAGE;
    case GM_ERR_NO_GPU:
    case GM_ERR_CUDA:
    case GM_ERR_PROFILER:
    case GM_ERR_PERMISSION:
    case GM_ERR_UNSUPPORTED:
        return GPUQ_EXIT_GPU;
    case GM_ERR_INTERRUPTED:
        return GPUQ_EXIT_INTERRUPTED;
    default:
        return GPUQ_EXIT_INPUT;
    }
}

int cli_fail(const char *cmd, gm_status st, const gm_error *err)
{
    if (err && err->msg[0])
        cli_error(cmd, "%s (%s)", err->msg, gm_strerror(st));
    else
        cli_error(cmd, "%s", gm_strerror(st));
    return cli_exit_code(st);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpuq: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try 'gpuq %s --help')\n", cmd);
    va_end(ap);
    return GPUQ_EXIT_USAGE;
}

long cli_parse_count(const char *cmd, const char *option, const char *value, long min, long max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end != '\0' || v < min || v > max) {
        cli_usage_error(cmd, "%s needs an integer from %ld to %ld, got '%s'", option, min, max,
                        value);
        return -1;
    }
    return v;
}

int cli_isatty(FILE *f)
{
    return isatty(fileno(f));
}
