/* The shared-atomic table as machine data of its own format (atomics_format.c). */
#ifndef GPUQ_ATOMICS_FORMAT_H
#define GPUQ_ATOMICS_FORMAT_H

#include <stddef.h>
#include "gpuq/unit.h"

extern const gm_mdata_format gm_atomics_format;

/* A table file for (gpu_name, sm_count; 0 matches any) lying directly in a
 * searched folder (gm_mdata_search_dirs), the layout before GPU folders;
 * the first in name order.  GM_ERR_MISSING when none. */
gm_status gm_atomics_find_flat(const char *gpu_name, int sm_count, char *path, size_t len,
                               gm_error *err);

#endif
