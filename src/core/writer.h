/* The output layer shared by the report, counters and table writers:
 * CSV quoting, numbers that read back exactly, JSON strings, and the compact
 * numbers of text tables, for libgpuq's writers and the program's own
 * outputs (gpuq diag).  Includes nothing of gpuq, so any writer can use it
 * without include circles. */
#ifndef GPUQ_WRITER_H
#define GPUQ_WRITER_H

#include <stddef.h>
#include <stdio.h>

/* Writes one CSV field, quoted when it contains a comma, quote, CR or LF or
 * leading/trailing space (RFC 4180: quotes doubled inside). */
int gm_csv_write_field(FILE *out, const char *text);

/* Formats a finite double with the fewest digits that read back exactly
 * (the shortest of %.15g, %.16g, %.17g); writes nothing (empty string) for NaN. */
void gm_csv_format_double(char *buf, size_t len, double v);

/* s as a JSON string (RFC 8259 escapes; NULL as ""). */
void gm_json_write_string(FILE *out, const char *s);
/* s as a JSON string that may stand inside an HTML <script> element: as
 * gm_json_write_string, and '<', '>', '&', U+2028 and U+2029 as \uXXXX, so
 * that no "</script>" or "<!--" can end or change the element. */
void gm_json_write_string_html(FILE *out, const char *s);
/* s as HTML text or attribute value: & < > " ' as character references
 * (NULL as ""), so that no string of the program becomes markup. */
void gm_html_write_text(FILE *out, const char *s);
/* A number that reads back exactly; NaN and infinities as null. */
void gm_json_write_num(FILE *out, double v);

/* snprintf(dst, len, "%s", src) without printf: at most len - 1 bytes of src
 * (NULL as ""), always terminated when len > 0. */
void gm_copy_text(char *dst, size_t len, const char *src);

/* Text tables: 4 significant digits (no exponent from 1e-3 to 1e6), "-" for NaN. */
void gm_fmt_num(char *buf, size_t len, double v);
/* A fraction as a whole percentage ("97%"), "-" for NaN. */
void gm_fmt_pct(char *buf, size_t len, double v);

#endif
