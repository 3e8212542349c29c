/* A spool: a FILE * that holds what is written to it in memory up to a
 * bound, then in an unlinked temporary file, and is copied into another
 * stream at the end (spool.c).  A report written in chunks of launches puts
 * each part that comes later in the output (a text section's rows, a
 * column of the HTML data) into one, so that memory stays bounded for any
 * number of launches; a small report never touches the disk.  Internal to
 * libgpuq. */
#ifndef GPUQ_SPOOL_H
#define GPUQ_SPOOL_H

#include <stdio.h>
#include "gpuq/status.h"

typedef struct gm_spool gm_spool;

/* In memory up to mem_max bytes (0: a default of 1 MiB), then in a temporary
 * file under $TMPDIR (or /tmp), removed from the folder as soon as it is
 * made.  GM_ERR_NOMEM. */
gm_status gm_spool_open(gm_spool **out, size_t mem_max, gm_error *err);
/* The stream to write to (fprintf, fputs, ...): valid until gm_spool_close. */
FILE *gm_spool_stream(gm_spool *s);
/* Appends everything written so far to out; the spool can be written on
 * afterwards.  A failed write to the spool (no temporary file could be made,
 * the disk is full) or a read error gives GM_ERR_IO with the reason. */
gm_status gm_spool_copy(gm_spool *s, FILE *out, gm_error *err);
/* Bytes written so far. */
size_t gm_spool_size(const gm_spool *s);
void gm_spool_close(gm_spool *s);

#endif
