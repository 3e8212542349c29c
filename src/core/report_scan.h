/* The report's input read once (gm_report_input, report_scan.c): what the
 * header, the kernel summary and the choice of sections need, gathered
 * launch by launch so that no launch is kept: per file its metadata and
 * launch count, the metrics that hold a value somewhere, every kernel's
 * launches added up (one row per kernel name per file: the --summary rows,
 * and the ranked kernels' times), and the distinct kernel names, from which
 * the display names come.  Files given by path are read again, in chunks,
 * when the report is written (report_cursor.c).  Internal to libgpuq. */
#ifndef GPUQ_REPORT_SCAN_H
#define GPUQ_REPORT_SCAN_H

#include <stdint.h>
#include <sys/stat.h>
#include "gpuq/report.h"

/* One kernel name of one file: its launches added up (docs/counters-format.md:
 * counts and cycles add, averages over cycles are weighted by the active
 * cycles), with the first launch's id, names and configuration. */
typedef struct report_group {
    gm_launch_counters sum; /* names owned */
    size_t file;
    size_t launches;
    int config_varies;      /* some launch's configuration differs from the first's */
    double time_ns;         /* gpu__time_duration summed over the launches that have one */
    size_t timed;           /* launches with a duration */
    uint64_t hash;
} report_group;

/* One distinct (demangled, mangled) pair of the launches' names. */
typedef struct report_pair {
    char *kernel, *mangled;
    uint64_t hash;
} report_pair;

typedef struct report_input_file {
    gm_report_file file;    /* set: in memory; NULL: read from path */
    gm_counters_meta meta;
    size_t count;           /* launches */
    struct stat id;         /* a file read from path, as first read: read again unchanged */
} report_input_file;

struct gm_report_input {
    size_t n_files;
    report_input_file *files;
    size_t n_launches;
    unsigned char present[GM_METRIC_MAX]; /* some launch holds the metric */
    report_group *groups;   /* in order of first appearance over the files in order */
    double *acc;            /* per group, 3 per cycle-weighted metric: its sums */
    int w_slot[GM_METRIC_MAX]; /* per metric row: its place among those, -1 none */
    size_t n_w;
    size_t n_groups, cap_groups;
    report_pair *pairs;     /* in order of first appearance */
    size_t n_pairs, cap_pairs;
    size_t *group_slot, *pair_slot; /* open addressing; SIZE_MAX empty */
    size_t group_cap, pair_cap;
    double total_ns;        /* every launch's duration (those that have one) */
    size_t n_timed;
    int done;               /* the cycle-weighted sums are divided out */
};

/* The name a launch goes by when it has none. */
const char *report_kernel_name(const gm_launch_counters *k);

/* The group (file, kernel) and the pair (kernel, mangled) of a launch;
 * SIZE_MAX when the input has none such (a file changed since it was
 * read). */
size_t report_input_group(const gm_report_input *in, size_t file, const char *kernel);
size_t report_input_pair(const gm_report_input *in, const char *kernel, const char *mangled);

/* The identity of a file on disk, compared before and after each reading. */
int report_input_same_file(const struct stat *a, const struct stat *b);

#endif
