/* RFC 4180 CSV reading (csv.c) shared by the counters file loader
 * (counters.c), the ncu importer (ncu_import.c) and the table loader; the
 * writing side (quoting, numbers, JSON strings) is core/writer.h, included here
 * for the callers that do both.  Internal to libgpuq: not part of the
 * installed API.
 *
 * The reader works one record at a time: gm_csv_next_line() reads one
 * physical line (so that callers can look at '#' metadata or ncu's
 * "==PROF==" chatter before deciding to split it), gm_csv_split() splits
 * that line into fields, reading continuation lines while a quoted field is
 * open (RFC 4180 allows line breaks inside quotes).
 */
#ifndef GPUQ_CSV_INTERNAL_H
#define GPUQ_CSV_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include "gpuq/status.h"
#include "writer.h"

/* The longest record (a line, or the lines of one quoted field) any CSV
 * reader buffers: 1 MiB, 80 times the longest line of the shipped and test
 * files (12,005 bytes, an `ncu --page raw` row).  Checked as each byte is
 * read, so that /dev/zero or a file with no newline costs at most this much
 * memory before a clean error. */
#define GM_CSV_RECORD_MAX (1L << 20)

typedef struct gm_csv_reader {
    FILE *in;
    const char *name;     /* file name for messages */
    long line;            /* line number where the current record starts (1-based) */
    long next_line;       /* line number of the next physical line */
    char *raw;            /* current physical line (record), no line terminator */
    size_t raw_len, raw_cap;
    char *field_buf;      /* unquoted field text, NUL-separated */
    size_t field_buf_cap;
    char **fields;
    size_t n_fields, fields_cap;
    char *blk;            /* bytes read ahead from in (the reader is its only user) */
    size_t blk_len, blk_pos;
} gm_csv_reader;

void gm_csv_reader_init(gm_csv_reader *r, FILE *in, const char *name);
void gm_csv_reader_free(gm_csv_reader *r);

/* Reads the next physical line into r->raw (CR/LF stripped).  *eof is set
 * at end of file.  A read error gives GM_ERR_IO. */
gm_status gm_csv_next_line(gm_csv_reader *r, int *eof, gm_error *err);

/* Splits r->raw into r->fields / r->n_fields.  Stray or unterminated quotes
 * give GM_ERR_PARSE with "file:line: ...". */
gm_status gm_csv_split(gm_csv_reader *r, gm_error *err);

/* The one bounded line reader of the plain-text loaders (machine data,
 * calibration tables): reads one line into buf (newline and a trailing CR
 * removed) and stops as soon as it would not fit.  1 a line, 0 end of file,
 * -1 a line longer than size - 2 bytes, -2 a NUL byte in the line (a C
 * string would end there). */
int gm_read_line(FILE *in, char *buf, size_t size);

/* Parses the whole of text as a finite double / a decimal integer.  Return 0
 * on success. */
int gm_csv_parse_double(const char *text, double *out);
int gm_csv_parse_long(const char *text, long long *out);

#endif
