/* gpuq model: every registered model (gpuq/unit.h) whose inputs exist,
 * applied to counters recorded earlier (gpuq counters files, one or several
 * processes, or ncu CSV output) with the GPU's machine data.  Needs no GPU. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuq/counters.h"
#include "gpuq/report.h"
#include "gpuq/unit.h"

#define CMD "model"

static void print_help(void)
{
    printf("usage: gpuq model COUNTERS.csv [COUNTERS.csv ...] [options]\n"
           "       gpuq model --ncu-csv NCU.csv [options]\n"
           "\n"
           "Applies every model gpuq knows whose inputs exist to counters recorded\n"
           "earlier, and reports one section per model and one verdict per kernel\n"
           "launch.  Each section is one paper's model: 'gpuq model --sections' lists\n"
           "them with their papers, variants and machine data.\n"
           "\n"
           "input (one of):\n"
           "  COUNTERS.csv ...      gpuq counters files (written by 'gpuq profile';\n"
           "                        docs/counters-format.md); several files (one per\n"
           "                        process of a job) make one report with a process column\n"
           "      --ncu-csv FILE    output of 'ncu --csv --metrics <list>' or of\n"
           "                        'ncu --csv --page raw --metrics <list>', where <list> is\n"
           "                        what 'gpuq model --metrics' prints\n"
           "\n"
           "options:\n" CLI_REPORT_HELP
           "      --metrics         print the metric list for 'ncu --metrics' (of every\n"
           "                        section, or of those --section names) and exit\n"
           "      --sections        list the sections (models) and exit\n"
           "  -h, --help            this text\n"
           "\n"
           "exit codes: 0 ok, 1 usage, 2 bad or missing input, machine data or output\n",
           gm_units[0]->name, gm_units[0]->variants);
}

static void print_sections(void)
{
    for (size_t u = 0; gm_units[u]; u++) {
        const gm_unit *unit = gm_units[u];
        printf("%-10s %s: %s\n", unit->name, unit->title, unit->paper);
        printf("%-10s   machine data:", "");
        for (size_t i = 0; unit->suites && unit->suites[i]; i++)
            printf(" %s", unit->suites[i]);
        for (size_t i = 0; unit->optional_suites && unit->optional_suites[i]; i++)
            printf("%s%s%s", i ? ", " : " (", unit->optional_suites[i],
                   unit->optional_suites[i + 1] ? "" : " where present)");
        printf("; variants: %s\n", unit->variants[0] ? unit->variants : "(none)");
    }
}

/* For `ncu --csv --metrics "$(gpuq model --metrics)" ./app`: the metrics of
 * every section, or of those --section names.  1 done, -1 usage error. */
static int print_metrics(const cli_report_opts *r)
{
    const gm_unit *units[CLI_MAX_LIST];
    for (size_t i = 0; i < r->n_sections; i++)
        if (!(units[i] = gm_unit_find(r->sections[i]))) {
            cli_usage_error(CMD, "unknown section '%s' (gpuq model --sections lists them)",
                            r->sections[i]);
            return -1;
        }
    int rows[GM_METRIC_MAX];
    size_t n = gm_units_metric_rows(r->n_sections ? units : NULL, r->n_sections, rows,
                                    GM_METRIC_MAX);
    static char list[GM_METRIC_MAX * 80];
    if (!gm_metric_list(rows, n, list, sizeof list)) {
        cli_error(CMD, "the metric list does not fit");
        return -1;
    }
    printf("%s\n", list);
    return 1;
}

typedef struct model_opts {
    cli_report_opts r;
    const char *counters[GM_REPORT_MAX_FILES];
    size_t n_counters;
    const char *ncu_csv;
    int metrics;
} model_opts;

enum { OPT_NCU_CSV = 256, OPT_METRICS, OPT_SECTIONS };

/* 0 ok, 1 done already (help or a list shown), -1 usage error printed. */
static int parse_options(int argc, char **argv, model_opts *o)
{
    static const struct option opts[] = {
        {"ncu-csv", required_argument, NULL, OPT_NCU_CSV},
        CLI_REPORT_LONG_OPTIONS,
        {"metrics", no_argument, NULL, OPT_METRICS},
        {"sections", no_argument, NULL, OPT_SECTIONS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_report_opts_init(&o->r);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":hm:f:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            print_help();
            return 1;
        case OPT_METRICS:
            o->metrics = 1;
            break;
        case OPT_SECTIONS:
            print_sections();
            return 1;
        case OPT_NCU_CSV:
            if (cli_take_once(CMD, "--ncu-csv", &o->ncu_csv, optarg) < 0)
                return -1;
            break;
        default: /* a report option, or a usage error */
            if (cli_take_report_option(CMD, c, optarg, argv[optind - 1], &o->r) < 0)
                return -1;
            break;
        }
    }
    if (o->metrics)
        return print_metrics(&o->r);
    while (optind < argc) {
        if (o->n_counters == GM_REPORT_MAX_FILES) {
            cli_usage_error(CMD, "at most %d counters files", GM_REPORT_MAX_FILES);
            return -1;
        }
        o->counters[o->n_counters++] = argv[optind++];
    }
    if (!o->n_counters && !o->ncu_csv) {
        cli_usage_error(CMD, "no counters: give a counters file or --ncu-csv FILE");
        return -1;
    }
    if (o->n_counters && o->ncu_csv) {
        cli_usage_error(CMD, "give counters files or --ncu-csv FILE, not both");
        return -1;
    }
    if (o->r.force && !o->r.table) {
        cli_usage_error(CMD, "--force only makes sense with --table");
        return -1;
    }
    const char *inputs[GM_REPORT_MAX_FILES + 2];
    size_t n = 0;
    for (size_t i = 0; i < o->n_counters; i++)
        inputs[n++] = o->counters[i];
    inputs[n++] = o->ncu_csv;
    inputs[n++] = o->r.table;
    return cli_check_output(CMD, "-o", o->r.output, inputs, n);
}

/* Several files make one report only when they come from one kind of GPU:
 * the machine data is that GPU's. */
static int same_gpu(const gm_report_input *in, size_t n, const char *const *paths)
{
    const gm_counters_meta *m0 = gm_report_input_meta(in, 0);
    for (size_t i = 1; i < n; i++) {
        const gm_counters_meta *m = gm_report_input_meta(in, i);
        if (strcmp(m->device_name, m0->device_name) != 0 || m->sm_count != m0->sm_count) {
            cli_error(CMD, "%s comes from %s with %d SMs, %s from %s with %d SMs: one report "
                      "covers one kind of GPU", paths[i], m->device_name, m->sm_count, paths[0],
                      m0->device_name, m0->sm_count);
            return 0;
        }
    }
    return 1;
}

/* gpuq model: counters (or ncu CSV) + machine data -> report (cli_write_report).
 * Counters files are never held whole: the report reads them once before
 * the machine data is looked up (every input error first, as a loader
 * would give it) and again, a chunk of launches at a time, as it is
 * written, so that a file of millions of launches takes the memory of one
 * chunk (docs/counters-format.md).  ncu CSVs are loaded (ncu_import.c). */
int cmd_model(int argc, char **argv)
{
    model_opts o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;
    gm_report_options ro;
    cli_report_options(&o.r, &ro);

    size_t n_files = o.ncu_csv ? 1 : o.n_counters;
    const char *const *paths = o.ncu_csv ? &o.ncu_csv : o.counters;
    gm_counters_set ncu;
    gm_counters_set_init(&ncu);
    gm_report_file *files = calloc(n_files, sizeof *files);
    gm_machine *machine = calloc(1, sizeof *machine);
    gm_report_input *in = NULL;
    int rc = GPUQ_EXIT_OK;
    gm_error err = {{0}};
    if (!files || !machine) {
        cli_error(CMD, "out of memory");
        rc = GPUQ_EXIT_INPUT;
        goto done;
    }
    for (size_t i = 0; i < n_files; i++)
        files[i].path = paths[i];
    gm_status st = GM_OK;
    if (o.ncu_csv && (st = gm_ncu_csv_load(o.ncu_csv, &ncu, &err)) == GM_OK)
        files[0].set = &ncu;
    if (st == GM_OK)
        st = gm_report_input_read(&in, files, n_files, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    if (!same_gpu(in, n_files, paths)) {
        rc = GPUQ_EXIT_INPUT;
        goto done;
    }
    const gm_counters_meta *m0 = gm_report_input_meta(in, 0);
    rc = cli_machine_load(CMD, &o.r, m0->device_name, m0->sm_count, machine);
    if (rc != GPUQ_EXIT_OK)
        goto done;
    gm_report rep;
    st = gm_report_make_from(&rep, in, machine, &ro, &err);
    in = NULL; /* the report's, made or not */
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    rc = cli_write_report(CMD, o.r.output, &rep, o.r.format);
    gm_report_free(&rep);
done:
    gm_report_input_free(in);
    gm_counters_set_clear(&ncu);
    if (machine)
        gm_machine_free(machine);
    free(machine);
    free(files);
    return rc;
}
