/* The counters file's columns (counters.c writes them) and its reader, one
 * launch at a time (counters_read.c), which gm_counters_load and the report
 * share: the report reads a file twice in chunks of launches instead of
 * holding it (report_scan.h).  Internal to libgpuq. */
#ifndef GPUQ_COUNTERS_INTERNAL_H
#define GPUQ_COUNTERS_INTERNAL_H

#include <stdint.h>
#include "gpuq/counters.h"

#define GM_COUNTERS_MAGIC "# gpuq counters v"
enum { GM_COUNTERS_N_LEAD = 12 };
/* Fixed columns before the metrics; after them come the file pass's result
 * columns (gm_units_file_pass, gm_code_pass_column). */
extern const char *const gm_counters_lead_columns[GM_COUNTERS_N_LEAD];

typedef struct gm_counters_reader gm_counters_reader;

/* Opens a counters file (gm_open_input: regular files only, .gz read
 * through zlib) and reads its header up to the column row, with every check
 * of gm_counters_load. */
gm_status gm_counters_reader_open(const char *path, gm_counters_reader **out, gm_error *err);
const gm_counters_meta *gm_counters_reader_meta(const gm_counters_reader *r);

/* The next launch, checked as gm_counters_load checks it, into k, which was
 * initialized once (gm_launch_counters_init) and may be reused: every field
 * a row holds is written (metrics outside the file's columns are left as
 * they are), k->kernel and k->mangled are not touched; *kernel and *mangled
 * are the row's names (mangled: the kernel's when the row has none), valid
 * until the next call.  *eof at the end of the file, after the check that
 * no launch_id repeats: nothing is kept for it while the ids increase, as
 * gpuq profile writes them; otherwise the ids are read again and sorted in
 * runs of bounded size (counters_ids.c). */
gm_status gm_counters_reader_next(gm_counters_reader *r, gm_launch_counters *k,
                                  const char **kernel, const char **mangled, int *eof,
                                  gm_error *err);
/* Launches read so far. */
size_t gm_counters_reader_count(const gm_counters_reader *r);
void gm_counters_reader_close(gm_counters_reader *r);

/* The check of a file whose launch ids do not only increase: reads the ids
 * of path again (its header skipped as the reader does) and fails with
 * GM_ERR_DUPLICATE "PATH:LINE: launch_id ID already used on line LINE0" for
 * the smallest id that repeats, its second line and its first.  Memory is
 * bounded: runs of at most 2^20 ids are sorted and merged through
 * temporary files. */
gm_status gm_counters_check_ids(const char *path, gm_error *err);
/* The run length (0: 2^20), for the tests of the merge. */
void gm_counters_check_ids_run(size_t max);

#endif
