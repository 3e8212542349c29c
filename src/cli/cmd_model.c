/* gpuq model: the utilization model (paper Sec. 3.3, Table 2) applied to
 * counters recorded earlier (a gpuq counters file, or ncu CSV output), with
 * a calibration table.  Needs no GPU. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuq/counters.h"
#include "gpuq/model.h"
#include "gpuq/report.h"
#include "table_lookup.h"

#define CMD "model"

static void print_help(void)
{
    printf("usage: gpuq model COUNTERS.csv [options]\n"
           "       gpuq model --ncu-csv NCU.csv [options]\n"
           "\n"
           "Applies the shared-memory atomic utilization model (Dong & Pai, Sec. 3) to\n"
           "counters recorded earlier, and reports per kernel launch N, e, n, c, the\n"
           "service time S, busy time B, active time T and utilization U = B / T with a\n"
           "plain verdict (bottleneck at U >= %.0f%%, significant load at U >= %.0f%%).\n"
           "\n"
           "input (one of):\n"
           "  COUNTERS.csv          a gpuq counters file (written by 'gpuq profile';\n"
           "                        format: docs/counters-format.md)\n"
           "      --ncu-csv FILE    output of 'ncu --csv --metrics <list>' or of\n"
           "                        'ncu --csv --page raw --metrics <list>', where <list> is\n"
           "                        what 'gpuq model --metrics' prints\n"
           "\n"
           "options:\n"
           "      --table FILE      calibration table (default: the shipped table whose GPU\n"
           "                        name and SM count match the counters', looked for in\n"
           "                        $GPUQ_TABLE_DIR, <gpuq>/../tables, the source tables/)\n"
           "      --force           use --table even if it was measured on another GPU\n"
           "  -m, --model NAME      model variant: %s (default: default)\n"
           "  -f, --format F        text (default), csv or json\n"
           "      --summary         one row per kernel name: launches summed, U recomputed\n"
           "  -o, --output PATH     write the report there instead of stdout\n"
           "      --metrics         print the metric list for 'ncu --metrics' and exit\n"
           "  -h, --help            this text\n"
           "\n"
           "exit codes: 0 ok, 1 usage, 2 bad or missing input, table or output\n",
           100 * GM_U_BOTTLENECK, 100 * GM_U_SIGNIFICANT, gm_model_names());
}

typedef struct model_opts {
    cli_report_opts r; /* --table --force -m -f --summary -o */
    const char *counters;
    const char *ncu_csv;
} model_opts;

enum { OPT_NCU_CSV = 256, OPT_METRICS };

/* 0 ok, 1 done already (help or metric list shown), -1 usage error printed. */
static int parse_options(int argc, char **argv, model_opts *o)
{
    static const struct option opts[] = {
        {"ncu-csv", required_argument, NULL, OPT_NCU_CSV},
        CLI_REPORT_LONG_OPTIONS,
        {"metrics", no_argument, NULL, OPT_METRICS},
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
            /* For `ncu --csv --metrics "$(gpuq model --metrics)" ./app`. */
            printf("%s\n", gm_metric_list_csv());
            return 1;
        case OPT_NCU_CSV:
            o->ncu_csv = optarg;
            break;
        default: /* a report option, or a usage error */
            if (cli_take_report_option(CMD, c, optarg, argv[optind - 1], &o->r) < 0)
                return -1;
            break;
        }
    }
    if (optind < argc)
        o->counters = argv[optind++];
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument '%s' (one counters file at a time)",
                        argv[optind]);
        return -1;
    }
    if (!o->counters && !o->ncu_csv) {
        cli_usage_error(CMD, "no counters: give a counters file or --ncu-csv FILE");
        return -1;
    }
    if (o->counters && o->ncu_csv) {
        cli_usage_error(CMD, "give a counters file or --ncu-csv FILE, not both");
        return -1;
    }
    if (o->r.force && !o->r.table) {
        cli_usage_error(CMD, "--force only makes sense with --table");
        return -1;
    }
    return 0;
}

/* gpuq model: counters (or ncu CSV) + table -> report (cli_write_report). */
int cmd_model(int argc, char **argv)
{
    model_opts o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;

    gm_model_options model;
    if (gm_model_by_name(o.r.model, &model) != GM_OK)
        return cli_usage_error(CMD, "unknown model '%s' (known: %s)", o.r.model, gm_model_names());

    gm_error err = {{0}};
    gm_counters_set set;
    gm_status st = o.ncu_csv ? gm_ncu_csv_load(o.ncu_csv, &set, &err)
                             : gm_counters_load(o.counters, &set, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);

    int rc = GPUQ_EXIT_OK;
    gm_table *table = NULL;
    char table_path[4096];
    st = cli_table_resolve(o.r.table, set.meta.device_name, set.meta.sm_count, o.r.force, &table,
                           table_path, sizeof table_path, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    if (o.r.table && !set.meta.device_name[0])
        cli_error(CMD, "warning: the counters do not name their GPU; %s used unchecked",
                  table_path);
    else if (o.r.table && o.r.force &&
             cli_table_check(table, table_path, set.meta.device_name, set.meta.sm_count,
                             NULL) != GM_OK)
        cli_error(CMD, "warning: --force: %s was measured on %s with %d SMs, the counters come "
                  "from %s with %d SMs", table_path, table->meta.gpu_name, table->meta.sm_count,
                  set.meta.device_name, set.meta.sm_count);

    gm_report rep;
    st = gm_report_build(&rep, &set, table, table_path, &model, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    rep.summary = o.r.summary;
    rc = cli_write_report(CMD, o.r.output, &rep, o.r.format);
    gm_report_free(&rep);
done:
    gm_table_free(table);
    gm_counters_set_clear(&set);
    return rc;
}
