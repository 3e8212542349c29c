/* Atomic file replacement shared by every writer of the model library
 * (calibration tables, machine data): write a temporary file in the same
 * folder, sync it, rename it over the target. */
#ifndef GPUQ_ATOMIC_FILE_H
#define GPUQ_ATOMIC_FILE_H

#include <stdio.h>
#include "gpuq/status.h"

/* Writes obj to an open stream. */
typedef gm_status (*gm_file_writer)(FILE *out, const void *obj, gm_error *err);

/* Writes path.tmp.<pid> with writer(obj) and renames it over path; a ".gz"
 * path is compressed.  On failure the temporary file is removed and path
 * is left as it was. */
gm_status gm_write_file_atomically(const char *path, gm_file_writer writer, const void *obj,
                                   gm_error *err);

#endif
