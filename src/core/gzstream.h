/* Plain or gzip-compressed files behind one FILE*.
 *
 * Shipped calibration tables hold ~290,000 cells (24 MB as CSV, 5 MB
 * gzipped), so the table loader and writer accept "*.gz" paths and read or
 * write them through zlib.  Every other path is an ordinary fopen().
 */
#ifndef GPUQ_GZSTREAM_H
#define GPUQ_GZSTREAM_H

#include <stdio.h>

/* 1 when path ends in ".gz". */
int gm_path_is_gz(const char *path);

/* fopen() for mode "r" or "w"; a ".gz" path is (de)compressed on the fly.
 * Returns NULL with errno set; errno = ENOTSUP for a ".gz" path in a build
 * without zlib. */
FILE *gm_fopen_maybe_gz(const char *path, const char *mode);

/* 1 if this build reads and writes ".gz" files. */
int gm_have_gz(void);

#endif
