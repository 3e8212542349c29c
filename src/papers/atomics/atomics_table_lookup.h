/* Which calibration table goes with a GPU: the shipped table for the device
 * the counters came from, or an explicit --table checked against it.  Used
 * by 'gpuq model' and 'gpuq profile'.
 *
 * Shipped tables are the tables/ *.csv files whose gpu_name and sm_count
 * metadata match the device.  Directories searched, in order:
 *   1. $GPUQ_TABLE_DIR
 *   2. <directory of the gpuq executable>/../tables
 *   3. GPUQ_SOURCE_DIR "/tables" (the source tree gpuq was built from)
 * Only each file's '#' metadata header is read while searching; the table
 * that matches is then loaded and validated in full.
 */
#ifndef GPUQ_ATOMICS_TABLE_LOOKUP_H
#define GPUQ_ATOMICS_TABLE_LOOKUP_H

#include <stddef.h>
#include "gpuq/status.h"
#include "atomics_table.h"

/* Finds the shipped table for (gpu_name, sm_count); sm_count 0 = unknown,
 * matches any.  On success path holds the file.  GM_ERR_MISSING when none
 * matches, with a message saying how to get one. */
gm_status cli_atomics_table_find(const char *gpu_name, int sm_count, char *path, size_t len,
                                 gm_error *err);

/* GM_OK when table was measured on gpu_name with sm_count SMs (an unknown
 * device, empty name, is not compared); GM_ERR_MISMATCH naming both, and
 * how to override, otherwise. */
gm_status cli_atomics_table_check(const gm_atomics_table *table, const char *table_path,
                                  const char *gpu_name, int sm_count, gm_error *err);

/* The table for a device: explicit_path (checked against the device unless
 * force) or, when explicit_path is NULL, the shipped one.  On success *out
 * is owned by the caller and path_used names the file. */
gm_status cli_atomics_table_resolve(const char *explicit_path, const char *gpu_name, int sm_count,
                                    int force, gm_atomics_table **out, char *path_used, size_t len,
                                    gm_error *err);

#endif
