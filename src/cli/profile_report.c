/* gpuq profile: the report (through the shared report builder) and the
 * explanation when nothing was measured. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/report.h"
#include "profile.h"

/* The prefetched table when it is the one the machine data would be for
 * these counters (it is then handed over to *out), else nothing. */
static void take_prefetched(table_prefetch *tp, const profile_opts *o, const gm_counters_set *set,
                            cli_loaded *out)
{
    memset(out, 0, sizeof *out);
    if (!tp || !tp->data)
        return;
    const char *gpu = set->meta.device_name;
    int sms = set->meta.sm_count;
    if (o->r.table) {
        /* the check of an explicit table, unless --force (an unknown device,
         * empty name, is not compared) */
        if (!o->r.force && gpu[0] &&
            !(strcmp(tp->meta.gpu_name, gpu) == 0 && (sms == 0 || tp->meta.sm_count == sms)))
            return;
    } else if (strcmp(tp->meta.gpu_name, gpu) != 0 || tp->meta.sm_count != sms) {
        /* Another device than the one guessed: the first shipped table of
         * a name is the one the search gives, so a match is the same. */
        return;
    }
    out->suite = tp->format->suite;
    out->path = tp->path;
    out->meta = tp->meta;
    out->data = tp->data;
    tp->data = NULL;
    tp->used = 1;
}

/* The report through the registered units (cmd_model's path): every section
 * whose machine data exists, the calibration table prefetched during the
 * run when it is the right one (o->r carries every -m and --section). */
int prof_report(const profile_opts *o, const gm_counters_set *set, table_prefetch *prefetch)
{
    cli_loaded loaded;
    take_prefetched(prefetch, o, set, &loaded);
    gm_machine *machine = calloc(1, sizeof *machine);
    if (!machine) {
        if (loaded.data)
            prefetch->format->free(loaded.data);
        cli_error(CMD, "out of memory");
        return GPUQ_EXIT_INPUT;
    }
    int rc = cli_machine_load_with(CMD, &o->r, set->meta.device_name, set->meta.sm_count, &loaded,
                                   machine);
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
                  "without initializing CUDA, or CUDA could not load %s: a library needing "
                  "static TLS fails to load into a process that loaded many libraries first; "
                  "LD_DEBUG=files shows whether it was opened, GPUQ_VERBOSE=1 whether it "
                  "started)", how, collector);
        return;
    }
    if (prof_collector_failed(st))
        cli_error(CMD, "nothing was measured: the collector stopped (%s)", st->error);
    else if (o->nvtx_include && st->launches_seen == 0 && st->nvtx_outside > 0)
        cli_error(CMD, "nothing was measured: none of %lld launches ran inside an NVTX range "
                  "named '%s' (ranges opened before CUDA initialized are not seen)",
                  st->nvtx_outside, o->nvtx_include);
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
        cli_error(CMD, "the program %s (gpuq exits with the program's status, %d)", how,
                  prof_program_status(run));
}
