/* The report of one counters set with one shared-atomic table in hand
 * (atomics_report.h): the atomics unit alone, through the generic report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics_report.h"

gm_status gm_atomics_report_build(gm_report *rep, const gm_counters_set *set,
                                  const gm_atomics_table *table, const char *table_path,
                                  const gm_atomics_model_options *opt, gm_error *err)
{
    if (!rep || !set || !table || !opt)
        return gm_fail(err, GM_ERR_INVALID_ARG, "report: no report, counters, table or model");
    gm_machine *m = calloc(1, sizeof *m);
    if (!m)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    snprintf(m->gpu_name, sizeof m->gpu_name, "%s", table->meta.gpu_name);
    m->sm_count = table->meta.sm_count;
    gm_mdata_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.suite, sizeof meta.suite, "atomics");
    snprintf(meta.gpu_name, sizeof meta.gpu_name, "%s", table->meta.gpu_name);
    meta.sm_count = table->meta.sm_count;
    /* borrowed (no free): the report frees the machine, not the table */
    gm_status st = gm_machine_adopt(m, "atomics", table_path ? table_path : "(table)", &meta,
                                    (void *)table, NULL, err);
    if (st != GM_OK) {
        free(m);
        return st;
    }
    const char *const sections[] = {"atomics", NULL};
    const char *const variants[] = {opt->name ? opt->name : "default", NULL};
    gm_report_options ro = {.sections = sections, .variants = variants};
    gm_report_file file = {.set = set};
    st = gm_report_make(rep, &file, 1, m, &ro, err);
    if (st != GM_OK) {
        free(m);
        return st;
    }
    rep->own_machine = 1;
    return GM_OK;
}
