/* What the calibration table's three files share (atomics_table.c: names, storage,
 * validation and the metadata keys; atomics_table_load.c: the loader;
 * atomics_table_write.c: the CSV and JSON writers).  Not part of gpuq's API. */
#ifndef GPUQ_ATOMICS_TABLE_INTERNAL_H
#define GPUQ_ATOMICS_TABLE_INTERNAL_H

#include <stddef.h>
#include "atomics_table.h"

extern const char gm_atomics_table_magic[];         /* "# gpuq calibration table v" */
extern const char gm_atomics_table_column_header[]; /* the CSV column header row */
#define GM_ATOMICS_TABLE_COLUMNS 12

/* Format versions: v1 had its own header keys; v2 opens with the common
 * machine-data header (gpuq/mdata.h: suite, ..., method) and adds the
 * table's own keys after it.  Both load; the writer writes v2. */
#define GM_ATOMICS_TABLE_V1 0x1u
#define GM_ATOMICS_TABLE_V2 0x2u

typedef enum gm_atomics_table_meta_kind {
    GM_ATOMICS_META_TEXT,
    GM_ATOMICS_META_INT,
    GM_ATOMICS_META_DOUBLE,
    GM_ATOMICS_META_CC,
    GM_ATOMICS_META_SUITE, /* v2: must be "atomics"; not stored */
} gm_atomics_table_meta_kind;

typedef struct gm_atomics_table_meta_key {
    const char *key;
    gm_atomics_table_meta_kind kind;
    size_t offset;      /* into gm_atomics_table_meta */
    size_t size;        /* text capacity */
    int required;
    unsigned versions;  /* GM_ATOMICS_TABLE_V1 | GM_ATOMICS_TABLE_V2: where the key belongs */
} gm_atomics_table_meta_key;

#define GM_ATOMICS_TABLE_META_KEYS_MAX 32
extern const gm_atomics_table_meta_key gm_atomics_table_meta_keys[];
extern const size_t gm_atomics_table_meta_key_count;

/* Cells a series holds: n_max * e_max * (mixes_cas ? n_max + 1 : 1). */
size_t gm_atomics_table_cell_count(const gm_atomics_series *s);
/* The metadata ranges, every measured cell valid, every cell present unless
 * allow_missing; prefix goes in front of the message ("tables/x.csv: "). */
gm_status gm_atomics_table_check(const gm_atomics_table *table, int allow_missing,
                                 const char *prefix, gm_error *err);
/* The metadata ranges alone (the loader's check at the column header). */
gm_status gm_atomics_table_check_meta(const gm_atomics_table_meta *m, const char *prefix,
                                      gm_error *err);
/* One measured cell: finite, >= 0, t_min <= t_median <= t_max, known flags. */
gm_status gm_atomics_table_check_cell(const gm_atomics_cell *cell, const char *where,
                                      gm_error *err);

/* The common machine-data header (gpuq/mdata.h) of a table: suite
 * "atomics", method = method_note. */
struct gm_mdata_meta;
void gm_atomics_table_common_meta(const gm_atomics_table_meta *m, struct gm_mdata_meta *out);

#endif
