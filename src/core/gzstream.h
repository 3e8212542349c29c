/* Plain or gzip-compressed files behind one FILE*.
 *
 * Shipped calibration tables hold ~290,000 cells (24 MB as CSV, 5 MB
 * gzipped), so the table loader and writer accept "*.gz" paths and read or
 * write them through zlib.  Every other path is an ordinary fopen().
 */
#ifndef GPUQ_GZSTREAM_H
#define GPUQ_GZSTREAM_H

#include <stdio.h>
#include "gpuq/status.h"

/* 1 when path ends in ".gz". */
int gm_path_is_gz(const char *path);

/* fopen() for mode "r" or "w"; a ".gz" path is (de)compressed on the fly.
 * Returns NULL with errno set; errno = ENOTSUP for a ".gz" path in a build
 * without zlib. */
FILE *gm_fopen_maybe_gz(const char *path, const char *mode);

/* Opens an input file the way every loader does (counters, ncu CSV,
 * machine data, calibration tables; ".gz" decompressed): the open never
 * blocks (O_NONBLOCK, so a FIFO without a writer cannot hang it) and only a
 * regular file is read.  A directory, FIFO, socket or device is refused
 * with "PATH: is a FIFO, not a regular file (...)": /dev/zero or a pipe
 * would never end or block, and a loader reads its input to the end.
 * `what` names the expected content for the directory message ("counters
 * file").  GM_ERR_IO / GM_ERR_UNSUPPORTED (".gz" without zlib). */
gm_status gm_open_input(const char *path, const char *what, FILE **out, gm_error *err);

/* 1 if this build reads and writes ".gz" files. */
int gm_have_gz(void);

#endif
