/* The protocol between gpuq profile and the collector it loads into the
 * program (libgpuq_inject.so), defined once for both sides:
 *   - the environment: gpuq profile sets the variables of gi_env_table[]
 *     marked GI_ENV_BY_GPUQ in the program's environment, the collector
 *     reads them (and the ones a user may set); both name them through
 *     GI_ENV(row), never by a string of their own;
 *   - the status file: each process the collector runs in writes
 *     <GPUQ_STATUS>.<pid>, "key: value" lines, one per row of
 *     gi_status_fields[] (gi_status_write), which gpuq profile reads back
 *     (gi_status_read).  test_gi_protocol checks that every field survives
 *     the round trip;
 *   - the sass pass file (GPUQ_PASS=sass), written by the collector, read
 *     by gpuq (src/host/host_sass.c).
 * docs/profile.md lists the variables for users. */
#ifndef GPUQ_GI_PROTOCOL_H
#define GPUQ_GI_PROTOCOL_H

#include <stddef.h>
#include <stdio.h>

typedef enum gi_env {
    /* set by gpuq profile for each run */
    GI_ENV_INJECTION = 0, /* CUDA_INJECTION64_PATH */
    GI_ENV_PASS,
    GI_ENV_OUT,
    GI_ENV_OUT_TMP,
    GI_ENV_STATUS,
    GI_ENV_COMMAND,
    GI_ENV_T0_NS,
    GI_ENV_RUN_START_NS,
    GI_ENV_CUBIN_DIR,
    GI_ENV_SECTIONS,
    GI_ENV_KERNEL_REGEX,
    GI_ENV_LAUNCH_SKIP,
    GI_ENV_LAUNCH_COUNT,
    GI_ENV_NVTX_INCLUDE,
    /* set by the user, read by the collector */
    GI_ENV_VERBOSE,
    GI_ENV_DEBUG,
    GI_ENV_LOCK_DIR,
    GI_ENV_LOCK_WAIT_S,
    GI_ENV_REPLAY,
    GI_ENV_BATCH,
    GI_ENV_FULL_LAUNCHES,
    GI_ENV_SASS_METRIC,
    GI_ENV_METRICS,
    GI_ENV_EXTRA_METRICS,
    GI_ENV_GRAPH_NODES,
    GI_ENV_COUNT
} gi_env;

enum { GI_ENV_BY_USER = 0, GI_ENV_BY_GPUQ = 1 };

typedef struct gi_env_row {
    gi_env id;           /* its index, checked by the test */
    const char *name;
    int set_by;          /* GI_ENV_BY_GPUQ or GI_ENV_BY_USER */
    const char *meaning;
} gi_env_row;

extern const gi_env_row gi_env_table[GI_ENV_COUNT];
#define GI_ENV(e) (gi_env_table[(e)].name)

/* Why the collector stood down (the status file's error_kind). */
typedef enum gi_error_kind {
    GI_ERROR_NONE = 0,
    GI_ERROR_CONFIG,      /* bad GPUQ_* environment */
    GI_ERROR_PERMISSION,  /* counters restricted to admin users */
    GI_ERROR_BUSY,        /* another profiler holds the counters or the callback slot */
    GI_ERROR_UNSUPPORTED, /* device, MIG, vGPU, a replay that cannot be made, ... */
    GI_ERROR_CUPTI,       /* another CUPTI failure */
    GI_ERROR_CUDA,        /* a driver call failed */
    GI_ERROR_IO,          /* cannot write the output */
    GI_ERROR_KIND_COUNT
} gi_error_kind;

/* "none", "config", ...; "unknown" out of range. */
const char *gi_error_kind_name(gi_error_kind kind);

/* The sass pass file: text, one record per line.
 *   # gpuq sass pass v1
 *   metric,<SASS metric the counts are of>
 *   cubin,<crc64 hex>,<path of the saved cubin>
 *   launch,<launch_id>,<device>,<mangled kernel name>
 *   inst,<launch_id>,<crc32 hex>,<pc offset>,<executions>,<function>
 *   end,<launch_id>,<inst records written>
 * A launch without its end line (the program died while writing it) is not
 * used.  The metric is GPUQ_SASS_METRIC: gpuq sets the one of the run's
 * code pass (gpuq/code_pass.h) unless the user set one; without either the
 * collector counts every instruction, as a file without a metric line
 * does. */
#define GI_SASS_FILE_MAGIC "# gpuq sass pass v1"
#define GI_SASS_ALL_METRIC "smsp__sass_inst_executed"

#define GI_STATUS_HEADER "# gpuq collector status v1"
#define GI_STATUS_PATH_MAX 4096

/* One process's status file. */
typedef struct gi_status {
    int present;                  /* the file was there (set by gi_status_read) */
    long pid;
    char pass[16];                /* counters or sass */
    char output[GI_STATUS_PATH_MAX + 64]; /* the counters file this process wrote */
    char device_name[128];        /* the device it set up: "" until then */
    int sm_count, cc_major, cc_minor;
    char replay[16];              /* user, kernel or none */
    long long passes, batch, windows;
    long long launches_seen, profiled, rows, filtered, graphs;
    long long captured, capture_skipped, graph_captured, graph_profiled, graph_nodes;
    long long failed_launches, range_mismatches, cubins_saved;
    long long repeat_launches;    /* one-pass rows completed from their shape's full launch */
    long long nvtx_outside;       /* launches outside the --nvtx-include range */
    int drained;
    char error_kind[32];          /* gi_error_kind_name() */
    char error[512];
    /* gpuq's side only, not in the file: the name the counters were written
     * under (output, with GPUQ_OUT_TMP's suffix), renamed to output */
    char written[GI_STATUS_PATH_MAX + 64];
} gi_status;

typedef enum gi_status_kind {
    GI_FIELD_LONG,      /* long */
    GI_FIELD_LLONG,     /* long long */
    GI_FIELD_INT,       /* int */
    GI_FIELD_TEXT,      /* char[size], one line */
    GI_FIELD_CC         /* two ints, cc_major then cc_minor: "9.0" */
} gi_status_kind;

typedef struct gi_status_field {
    const char *key;
    gi_status_kind kind;
    size_t offset, size;
} gi_status_field;

extern const gi_status_field gi_status_fields[];
extern const size_t gi_status_n_fields;

/* Writes the header and every field; a newline in a text becomes a space.
 * Returns 0 on success, -1 on a write error. */
int gi_status_write(FILE *f, const gi_status *s);
/* Reads a status file: *s zeroed, present = 1 when the file opened; lines
 * of unknown keys are skipped (a newer collector's). */
void gi_status_read(const char *path, gi_status *s);
/* Parses one "key: value" line into *s; 1 when the key is known. */
int gi_status_parse_line(const char *line, gi_status *s);

#endif
