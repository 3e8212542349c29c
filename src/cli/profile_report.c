/* gpuq profile: the report (through the shared report builder) and the
 * explanation when nothing was measured. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuq/report.h"
#include "profile.h"

typedef char suite_name[sizeof(((gm_machine *)0)->files[0].suite)];

/* The suites of the prefetched machine data whose files are those the
 * report's own load would give for these counters, NULL-terminated in
 * take (names copied into names). */
static void fitting_files(const machine_prefetch *mp, const profile_opts *o,
                          const gm_counters_set *set, const char **take, suite_name *names)
{
    const gm_mdata_format *table = cli_table_format();
    const char *gpu = set->meta.device_name;
    int sms = set->meta.sm_count;
    size_t n = 0;
    for (size_t i = 0; mp && mp->machine && i < mp->machine->n_files; i++) {
        const char *suite = mp->machine->files[i].suite;
        const gm_mdata_meta *mm = &mp->machine->files[i].meta;
        int fits;
        if (o->r.table && table && strcmp(suite, table->suite) == 0)
            /* the check of an explicit file, unless --force (an unknown
             * device, empty name, is not compared) */
            fits = o->r.force || !gpu[0] ||
                   (strcmp(mm->gpu_name, gpu) == 0 && (sms == 0 || mm->sm_count == sms));
        else
            /* found for the device guessed: the first shipped file of a
             * name is the one the search gives, so a match is the same */
            fits = gpu[0] && strcmp(mm->gpu_name, gpu) == 0 && mm->sm_count == sms;
        if (fits) {
            snprintf(names[n], sizeof names[n], "%s", suite);
            take[n] = names[n];
            n++;
        }
    }
    take[n] = NULL;
}

/* The report through the registered units (cmd_model's path): every section
 * whose machine data exists, the files prefetched during the run where they
 * are the right ones (o->r carries every -m and --section). */
int prof_report(const profile_opts *o, const gm_counters_set *set, machine_prefetch *prefetch)
{
    const char *take[GM_MACHINE_MAX_FILES + 1];
    suite_name names[GM_MACHINE_MAX_FILES];
    fitting_files(prefetch, o, set, take, names);
    gm_machine *machine = calloc(1, sizeof *machine);
    if (!machine) {
        cli_error(CMD, "out of memory");
        return GPUQ_EXIT_INPUT;
    }
    int rc = cli_machine_load_with(CMD, &o->r, set->meta.device_name, set->meta.sm_count,
                                   prefetch ? prefetch->machine : NULL, take, machine);
    for (size_t i = 0; prefetch && take[i]; i++)
        prefetch->used++;
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
