/* The single-table entry of the report: the atomics unit with the variant
 * opt->name on one counters set (the table is borrowed, not freed; the
 * report owns the machine around it). */
#ifndef GPUQ_ATOMICS_REPORT_H
#define GPUQ_ATOMICS_REPORT_H

#include "atomics_model.h"
#include "atomics_table.h"
#include "gpuq/report.h"

gm_status gm_atomics_report_build(gm_report *rep, const gm_counters_set *set,
                                  const gm_atomics_table *table, const char *table_path,
                                  const gm_atomics_model_options *opt, gm_error *err);

#endif
