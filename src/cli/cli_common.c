/* Helpers every subcommand uses: error lines, exit codes, number parsing. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gpuq/unit.h"

#ifndef GPUQ_SOURCE_DIR
#define GPUQ_SOURCE_DIR "."
#endif

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

void cli_report_opts_init(cli_report_opts *r)
{
    memset(r, 0, sizeof *r);
    r->format = GM_FORMAT_TEXT;
    r->name_base = GM_NAME_FUNCTION;
}

/* The section a -m names: "U:V" is unit U's, a bare V the first unit's
 * (gm_units[0], as gm_report_options.variants reads it). */
static size_t variant_unit(const char *v, const char **unit)
{
    const char *colon = strchr(v, ':');
    *unit = colon ? v : gm_units[0]->name;
    return colon ? (size_t)(colon - v) : strlen(gm_units[0]->name);
}

/* One variant per section: "-m paper -m steady" would use only one. */
static int take_variant(const char *cmd, const char *arg, cli_report_opts *r)
{
    const char *unit;
    size_t len = variant_unit(arg, &unit);
    for (size_t i = 0; i < r->n_variants; i++) {
        const char *u;
        size_t l = variant_unit(r->variants[i], &u);
        if (l != len || strncmp(u, unit, len) != 0)
            continue;
        if (strcmp(r->variants[i], arg) == 0)
            return 0; /* the same twice */
        cli_usage_error(cmd, "-m %s and -m %s both choose the %.*s section's variant",
                        r->variants[i], arg, (int)len, unit);
        return -1;
    }
    r->variants[r->n_variants++] = arg;
    return 0;
}

int cli_take_report_option(const char *cmd, int opt, const char *arg, const char *given,
                           cli_report_opts *r)
{
    switch (opt) {
    case CLI_OPT_TABLE:
        return cli_take_once(cmd, "--table", &r->table, arg);
    case CLI_OPT_FORCE:
        r->force = 1;
        return 0;
    case CLI_OPT_SUMMARY:
        r->summary = 1;
        return 0;
    case 'm':
        if (r->n_variants >= CLI_MAX_LIST) {
            cli_usage_error(cmd, "at most %d -m options", CLI_MAX_LIST);
            return -1;
        }
        if (take_variant(cmd, arg, r) < 0)
            return -1;
        return 0;
    case CLI_OPT_SECTION:
        if (r->n_sections >= CLI_MAX_LIST) {
            cli_usage_error(cmd, "at most %d --section options", CLI_MAX_LIST);
            return -1;
        }
        r->sections[r->n_sections++] = arg;
        return 0;
    case CLI_OPT_NAME_BASE:
        if (cli_take_once(cmd, "--kernel-name-base", &r->name_base_arg, arg) < 0)
            return -1;
        if (gm_name_base_parse(arg, &r->name_base) == GM_OK)
            return 0;
        cli_usage_error(cmd, "--kernel-name-base must be function, demangled or mangled, not '%s'",
                        arg);
        return -1;
    case 'o':
        return cli_take_once(cmd, "-o", &r->output, arg);
    case 'f':
        if (cli_take_once(cmd, "--format", &r->format_arg, arg) < 0)
            return -1;
        if (gm_format_parse(arg, &r->format) == GM_OK)
            return 0;
        cli_usage_error(cmd, "--format must be text, csv, json or html, not '%s'", arg);
        return -1;
    case ':':
        cli_usage_error(cmd, "option '%s' needs a value", given);
        return -1;
    default:
        cli_usage_error(cmd, "unknown option '%s'", given);
        return -1;
    }
}

void cli_report_options(const cli_report_opts *r, gm_report_options *out)
{
    memset(out, 0, sizeof *out);
    out->summary = r->summary;
    out->name_base = r->name_base;
    out->sections = r->n_sections ? r->sections : NULL;
    out->variants = r->n_variants ? r->variants : NULL;
}

void cli_needed_suites(const cli_report_opts *r, const char **suites, size_t max)
{
    size_t n = 0;
    for (size_t u = 0; gm_units[u]; u++) {
        int wanted = r->n_sections == 0;
        for (size_t i = 0; i < r->n_sections; i++)
            wanted |= strcmp(r->sections[i], gm_units[u]->name) == 0;
        for (int opt = 0; opt < 2; opt++) {
            const char *const *us = opt ? gm_units[u]->optional_suites : gm_units[u]->suites;
            for (size_t i = 0; wanted && us && us[i]; i++) {
                int seen = 0;
                for (size_t j = 0; j < n; j++)
                    seen |= strcmp(suites[j], us[i]) == 0;
                if (!seen && n + 1 < max)
                    suites[n++] = us[i];
            }
        }
    }
    suites[n] = NULL;
}

/* <directory of the running executable>/../tables, or "" */
static void exe_tables_dir(char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    buf[0] = '\0';
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    char joined[4200], resolved[PATH_MAX];
    snprintf(joined, sizeof joined, "%s/../tables", exe);
    /* Resolved, so reports name the table plainly ("/x/tables", not "/x/build/../tables"). */
    snprintf(buf, len, "%s", realpath(joined, resolved) ? resolved : joined);
}

void cli_search_dirs(void)
{
    char exe_dir[4200];
    exe_tables_dir(exe_dir, sizeof exe_dir);
    gm_mdata_set_search_dirs(exe_dir, GPUQ_SOURCE_DIR "/tables");
}


const gm_mdata_format *cli_table_format(void)
{
    for (size_t u = 0; gm_units[u]; u++)
        if (gm_units[u]->format)
            return gm_units[u]->format;
    return NULL;
}

const char *cli_table_override(const cli_report_opts *r, char *buf, size_t len)
{
    const gm_mdata_format *table = cli_table_format();
    if (!r->table || !table)
        return NULL;
    snprintf(buf, len, "%s=%s", table->suite, r->table);
    return buf;
}

int cli_machine_load(const char *cmd, const cli_report_opts *r, const char *gpu_name,
                     int sm_count, gm_machine *m)
{
    return cli_machine_load_with(cmd, r, gpu_name, sm_count, NULL, NULL, m);
}

static int listed(const char *const *list, const char *name)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

int cli_machine_load_with(const char *cmd, const cli_report_opts *r, const char *gpu_name,
                          int sm_count, gm_machine *pre, const char *const *take, gm_machine *m)
{
    const char *suites[2 * GM_MACHINE_MAX_FILES + 1];
    cli_needed_suites(r, suites, sizeof suites / sizeof suites[0]);
    /* the suites taken over are not looked for: the others load around them */
    size_t j = 0;
    for (size_t i = 0; suites[i]; i++)
        if (!listed(take, suites[i]))
            suites[j++] = suites[i];
    suites[j] = NULL;
    char override[PATH_MAX + 48];
    const char *overrides[2] = {cli_table_override(r, override, sizeof override), NULL};
    gm_error err = {{0}};
    const gm_mdata_format *table = cli_table_format();
    if (table && listed(take, table->suite))
        overrides[0] = NULL;
    /* Every suite is looked for in the same folders, whichever way the
     * calibration table comes (taken over, --table, or found). */
    cli_search_dirs();
    gm_status st = gm_machine_load(m, gpu_name, sm_count, suites, overrides, r->force, &err);
    for (size_t i = 0; st == GM_OK && take && take[i]; i++)
        st = gm_machine_take(m, pre, take[i], &err);
    if (st != GM_OK) {
        gm_machine_free(m);
        return cli_fail(cmd, st, &err);
    }
    const gm_mdata_meta *tm = r->table && table ? gm_machine_meta(m, table->suite) : NULL;
    if (tm) {
        if (!gpu_name[0])
            cli_error(cmd, "warning: the counters do not name their GPU; %s used unchecked",
                      r->table);
        else if (r->force && (strcmp(tm->gpu_name, gpu_name) != 0 || tm->sm_count != sm_count))
            cli_error(cmd, "warning: --force: %s was measured on %s with %d SMs, the counters "
                      "come from %s with %d SMs", r->table, tm->gpu_name, tm->sm_count,
                      gpu_name, sm_count);
    }
    return GPUQ_EXIT_OK;
}
