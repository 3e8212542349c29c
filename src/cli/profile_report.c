/* gpuq profile: the report (through the shared report builder) and the
 * explanation when nothing was measured. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers/atomics/atomics_model.h"
#include "gpuq/report.h"
#include "profile.h"
#include "papers/atomics/atomics_table_lookup.h"

/* The prefetched table when it is the one cli_table_resolve would give for
 * these counters (it is then handed over), else NULL. */
static gm_table *take_prefetched(table_prefetch *tp, const profile_opts *o,
                                 const gm_counters_set *set, char *path, size_t len)
{
    if (!tp || !tp->table)
        return NULL;
    if (o->r.table) {
        /* cli_table_resolve's check of an explicit table, unless --force */
        gm_error err = {{0}};
        if (!o->r.force && cli_table_check(tp->table, tp->path, set->meta.device_name,
                                         set->meta.sm_count, &err) != GM_OK)
            return NULL;
    } else if (strcmp(tp->table->meta.gpu_name, set->meta.device_name) != 0 ||
               tp->table->meta.sm_count != set->meta.sm_count) {
        /* Another device than the one guessed: the first shipped table of
         * a name is the one cli_table_find gives, so a match is the same. */
        return NULL;
    }
    gm_table *table = tp->table;
    tp->table = NULL;
    tp->used = 1;
    snprintf(path, len, "%s", tp->path);
    return table;
}

/* The report through the registered units (cmd_model's path): every section
 * whose machine data exists, the atomics table prefetched during the run
 * when it is the right one (o->r carries every -m and --section). */
int prof_report(const profile_opts *o, const gm_counters_set *set, table_prefetch *prefetch)
{
    char table_path[PATH_MAX];
    gm_table *table = take_prefetched(prefetch, o, set, table_path, sizeof table_path);
    gm_machine *machine = calloc(1, sizeof *machine);
    if (!machine) {
        gm_table_free(table);
        cli_error(CMD, "out of memory");
        return GPUQ_EXIT_INPUT;
    }
    int rc = cli_machine_load_with(CMD, &o->r, set->meta.device_name, set->meta.sm_count, table,
                                   table_path, machine);
    int no_report = rc != GPUQ_EXIT_OK; /* no machine data, or nothing to report */
    if (rc == GPUQ_EXIT_OK) {
        gm_report_options ro;
        cli_report_options(&o->r, &ro);
        gm_report_file file = {.set = set, .path = o->counters};
        gm_report rep;
        gm_error err = {{0}};
        gm_status st = gm_report_make(&rep, &file, 1, machine, &ro, &err);
        if (st == GM_OK) {
            rc = cli_write_report(CMD, o->r.output, &rep, o->r.format);
            gm_report_free(&rep);
        } else {
            rc = cli_fail(CMD, st, &err);
            no_report = 1;
        }
    }
    if (no_report && o->counters)
        cli_error(CMD, "the counters are kept in %s: 'gpuq model %s --table FILE' reports them "
                  "once a table is at hand", o->counters, o->counters);
    gm_machine_free(machine);
    free(machine);
    return rc;
}

/* Explains an empty result: why nothing was measured. */
void prof_explain_nothing_measured(const profile_opts *o, const collector_status *st,
                                   const run_result *run, const char *collector)
{
    char how[128];
    prof_describe_exit(run, how, sizeof how);
    if (!st->present) {
        cli_error(CMD, "nothing was measured: the collector never started (the program %s "
                  "without initializing CUDA, or CUDA could not load %s)", how, collector);
        return;
    }
    if (prof_collector_failed(st))
        cli_error(CMD, "nothing was measured: the collector stopped (%s)", st->error);
    else if (st->launches_seen == 0)
        cli_error(CMD, "nothing was measured: the program launched no kernel outside CUDA graphs "
                  "(%lld graph launches)", st->graphs);
    else if (o->regex || o->skip)
        cli_error(CMD, "nothing was measured: none of %lld launches passed -k '%s' -s %ld",
                  st->launches_seen, o->regex ? o->regex : "", o->skip);
    else
        cli_error(CMD, "nothing was measured (%lld launches seen, %lld profiled)",
                  st->launches_seen, st->profiled);
    if (run->signaled || run->code != 0)
        cli_error(CMD, "the program %s", how);
}
