/* The physical range of every quantity gpuq loads: one table
 * (src/core/ranges.c, docs/input-ranges.md) read by every loader, for
 * counters files, ncu CSVs and machine data alike.  A value outside its
 * range is an input error naming the file, line and field; it never
 * reaches a report.
 *
 * Numbers are read by one parser too (gm_number_parse): plain decimal
 * only ("12", "-3.5", "1e6"); hexadecimal floats ("0x1p3"), "inf", "nan"
 * and leading blanks are not numbers, and -0 reads as 0. */
#ifndef GPUQ_RANGES_H
#define GPUQ_RANGES_H

#include <stddef.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_quantity {
    GM_Q_EVENTS = 0,     /* a hardware event count: instructions, wavefronts, sectors */
    GM_Q_BYTES,          /* bytes moved */
    GM_Q_CYCLES,         /* cycles, summed over units or of one unit */
    GM_Q_MEAN,           /* an average over units of a count or of cycles */
    GM_Q_PERCENT,        /* a percentage of a peak */
    GM_Q_DURATION_NS,    /* a kernel's time in ns */
    GM_Q_DURATION_MS,    /* a kernel's time in ms */
    GM_Q_CLOCKS,         /* a time in SM clocks */
    GM_Q_RATE,           /* a throughput or rate: finite, positive */
    GM_Q_CLOCK_MHZ,      /* a clock frequency */
    GM_Q_WARPS,          /* warps of a block or an SM (0 allowed) */
    GM_Q_WARPS_PER_BLOCK,/* warps of one block */
    GM_Q_WARPS_PER_SM,   /* the most warps an SM holds */
    GM_Q_BLOCKS_PER_SM,  /* blocks resident on one SM (N1, N_slot) */
    GM_Q_BLOCKS,         /* blocks of a grid or resident on the GPU */
    GM_Q_REGS,           /* registers per thread */
    GM_Q_SMEM_BYTES,     /* shared memory of one block */
    GM_Q_SM_INDEX,       /* an SM's index */
    GM_Q_ACCESS_BYTES,   /* bytes of one thread's access */
    GM_Q_INDEX,          /* a point's index or a repeat count */
    GM_Q_RATIO,          /* a unitless ratio or per-clock throughput, >= 0 */
    GM_Q_REAL,           /* any other measured number: finite, |x| < 2^63 */
    GM_QUANTITY_COUNT
} gm_quantity;

typedef struct gm_quantity_range {
    const char *name;    /* "events" */
    double min, max;     /* inclusive, but see min_open */
    int min_open;        /* 1: min itself is outside (rates are > 0) */
    int integer;         /* 1: whole numbers only */
    const char *meaning; /* for messages and docs: "an event count" */
} gm_quantity_range;

/* The table, GM_QUANTITY_COUNT rows in gm_quantity order. */
extern const gm_quantity_range gm_quantity_table[];

/* Parses the whole of text as a plain decimal number (see above).  0 ok;
 * -1 not a decimal number; -2 beyond a double's range ("1e999"). */
int gm_number_parse(const char *text, double *out);

/* GM_OK when v lies in q's range; otherwise GM_ERR_RANGE with
 * "WHERE: FIELD VALUE outside MIN..MAX (MEANING)" or "... is not a whole
 * number (...)".  where/field name the file:line and the column. */
gm_status gm_quantity_check(gm_quantity q, double v, const char *where, const char *field,
                            gm_error *err);

/* gm_number_parse then gm_quantity_check; a text that is not a number is
 * GM_ERR_PARSE with "WHERE: FIELD 'TEXT' is not a number (...)". */
gm_status gm_quantity_parse(gm_quantity q, const char *text, const char *where,
                            const char *field, double *out, gm_error *err);

/* 1 when v is in q's range (for checks that assert the loaders' promise). */
int gm_quantity_ok(gm_quantity q, double v);

#ifdef __cplusplus
}
#endif
#endif
