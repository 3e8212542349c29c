/* Numbers as printf prints them, without printf (numfmt.c), for the
 * writers' hot paths (writer.h).  Internal to libgpuq. */
#ifndef GPUQ_NUMFMT_H
#define GPUQ_NUMFMT_H

#include <stddef.h>

/* printf's "%.0f" of a finite |v| < 1e15 ("-0" for a negative that rounds
 * to 0), into buf of at least 24 bytes. */
void gm_numfmt_fixed0(char *buf, double v);

/* printf's "%.4g" of a finite, non-integral v with 1e-3 <= |v| < 1000,
 * into buf of at least 16 bytes. */
void gm_numfmt_g4(char *buf, double v);

/* The first of printf's "%.15g", "%.16g", "%.17g" of v that reads back as
 * v (gm_csv_format_double's rule), into buf of at least 32 bytes, for
 * 1e-5 <= |v| < 1e15: 1 when written, 0 for any other v. */
int gm_numfmt_shortest_g(char *buf, double v);

#endif
