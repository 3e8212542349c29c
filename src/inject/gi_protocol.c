/* The CLI-collector protocol's one definition (gi_protocol.h). */
#include "gi_protocol.h"

#include <stdlib.h>
#include <string.h>

const gi_env_row gi_env_table[GI_ENV_COUNT] = {
    {GI_ENV_INJECTION, "CUDA_INJECTION64_PATH", GI_ENV_BY_GPUQ,
     "the collector library, which libcuda loads in the program's cuInit"},
    {GI_ENV_PASS, "GPUQ_PASS", GI_ENV_BY_GPUQ,
     "counters (hardware counters, range profiler) or sass (instruction counts)"},
    {GI_ENV_OUT, "GPUQ_OUT", GI_ENV_BY_GPUQ,
     "the counters (or sass) file; a pattern (%p, %q{VAR}, ...) gives one per process"},
    {GI_ENV_OUT_TMP, "GPUQ_OUT_TMP", GI_ENV_BY_GPUQ,
     "suffix of the name the collector writes under; gpuq renames the file when the run is over"},
    {GI_ENV_STATUS, "GPUQ_STATUS", GI_ENV_BY_GPUQ,
     "prefix of the status files, <prefix>.<pid> (gi_status_fields)"},
    {GI_ENV_COMMAND, "GPUQ_COMMAND", GI_ENV_BY_GPUQ, "the profiled command, for the file header"},
    {GI_ENV_T0_NS, "GPUQ_T0_NS", GI_ENV_BY_GPUQ,
     "CLOCK_MONOTONIC ns when gpuq started the program (GPUQ_DEBUG timeline)"},
    {GI_ENV_RUN_START_NS, "GPUQ_RUN_START_NS", GI_ENV_BY_GPUQ,
     "wall clock ns of the run's start: an older output file is a left-over to replace"},
    {GI_ENV_CUBIN_DIR, "GPUQ_CUBIN_DIR", GI_ENV_BY_GPUQ,
     "where the collector saves the kernels' cubins (and kernels.txt)"},
    {GI_ENV_SECTIONS, "GPUQ_SECTIONS", GI_ENV_BY_GPUQ,
     "--section: the units whose metrics are gathered (comma list)"},
    {GI_ENV_KERNEL_REGEX, "GPUQ_KERNEL_REGEX", GI_ENV_BY_GPUQ, "-k: kernel name filter"},
    {GI_ENV_LAUNCH_SKIP, "GPUQ_LAUNCH_SKIP", GI_ENV_BY_GPUQ, "-s: matching launches skipped"},
    {GI_ENV_LAUNCH_COUNT, "GPUQ_LAUNCH_COUNT", GI_ENV_BY_GPUQ,
     "-c: matching launches profiled at most (0: all)"},
    {GI_ENV_NVTX_INCLUDE, "GPUQ_NVTX_INCLUDE", GI_ENV_BY_GPUQ,
     "--nvtx-include: only launches inside an NVTX range of this name"},
    {GI_ENV_VERBOSE, "GPUQ_VERBOSE", GI_ENV_BY_USER, "1: the collector says what it does"},
    {GI_ENV_DEBUG, "GPUQ_DEBUG", GI_ENV_BY_USER, "1: per-call timings and window contents"},
    {GI_ENV_LOCK_DIR, "GPUQ_LOCK_DIR", GI_ENV_BY_USER,
     "directory of the per-GPU lock files (default $TMPDIR or /tmp)"},
    {GI_ENV_LOCK_WAIT_S, "GPUQ_LOCK_WAIT_S", GI_ENV_BY_USER,
     "seconds to wait for another process's GPU lock (at most 10)"},
    {GI_ENV_REPLAY, "GPUQ_REPLAY", GI_ENV_BY_USER, "auto, user or kernel"},
    {GI_ENV_BATCH, "GPUQ_BATCH", GI_ENV_BY_USER, "launches per range profiler window"},
    {GI_ENV_FULL_LAUNCHES, "GPUQ_FULL_LAUNCHES", GI_ENV_BY_GPUQ,
     "--full-launches: launches of each kernel shape measured in full (default 1; 0: every one)"},
    {GI_ENV_SASS_METRIC, "GPUQ_SASS_METRIC", GI_ENV_BY_USER,
     "the sass pass's SASS metric (gpuq profile sets its code pass's unless the user did)"},
    {GI_ENV_METRICS, "GPUQ_METRICS", GI_ENV_BY_USER, "the metrics to gather instead of the units'"},
    {GI_ENV_EXTRA_METRICS, "GPUQ_EXTRA_METRICS", GI_ENV_BY_USER,
     "metrics gathered besides the units'"},
    {GI_ENV_GRAPH_NODES, "GPUQ_GRAPH_NODES", GI_ENV_BY_USER,
     "1: profile the kernel nodes of CUDA graphs (off by default, collector_graph.c)"},
};

const char *gi_error_kind_name(gi_error_kind kind)
{
    static const char *const names[GI_ERROR_KIND_COUNT] = {
        "none", "config", "permission", "busy", "unsupported", "cupti", "cuda", "io"};
    return (unsigned)kind < GI_ERROR_KIND_COUNT ? names[kind] : "unknown";
}

#define F(key, kind, member) {key, kind, offsetof(gi_status, member), sizeof(((gi_status *)0)->member)}
/* The order of the lines in the file. */
const gi_status_field gi_status_fields[] = {
    F("pid", GI_FIELD_LONG, pid),
    F("pass", GI_FIELD_TEXT, pass),
    F("output", GI_FIELD_TEXT, output),
    F("device_name", GI_FIELD_TEXT, device_name),
    F("sm_count", GI_FIELD_INT, sm_count),
    F("compute_capability", GI_FIELD_CC, cc_major),
    F("replay", GI_FIELD_TEXT, replay),
    F("passes", GI_FIELD_LLONG, passes),
    F("batch", GI_FIELD_LLONG, batch),
    F("windows", GI_FIELD_LLONG, windows),
    F("launches_seen", GI_FIELD_LLONG, launches_seen),
    F("profiled_launches", GI_FIELD_LLONG, profiled),
    F("rows_written", GI_FIELD_LLONG, rows),
    F("filtered_out_launches", GI_FIELD_LLONG, filtered),
    F("graph_launches", GI_FIELD_LLONG, graphs),
    F("captured_launches", GI_FIELD_LLONG, captured),
    F("capture_skipped_launches", GI_FIELD_LLONG, capture_skipped),
    F("graph_captured", GI_FIELD_LLONG, graph_captured),
    F("graph_profiled", GI_FIELD_LLONG, graph_profiled),
    F("graph_nodes_profiled", GI_FIELD_LLONG, graph_nodes),
    F("failed_launches", GI_FIELD_LLONG, failed_launches),
    F("range_mismatches", GI_FIELD_LLONG, range_mismatches),
    F("cubins_saved", GI_FIELD_LLONG, cubins_saved),
    F("repeat_launches", GI_FIELD_LLONG, repeat_launches),
    F("nvtx_outside_launches", GI_FIELD_LLONG, nvtx_outside),
    F("drained", GI_FIELD_INT, drained),
    F("error_kind", GI_FIELD_TEXT, error_kind),
    F("error", GI_FIELD_TEXT, error),
};
#undef F
const size_t gi_status_n_fields = sizeof gi_status_fields / sizeof gi_status_fields[0];

int gi_status_write(FILE *f, const gi_status *s)
{
    const char *base = (const char *)s;
    if (fprintf(f, "%s\n", GI_STATUS_HEADER) < 0)
        return -1;
    for (size_t i = 0; i < gi_status_n_fields; i++) {
        const gi_status_field *fd = &gi_status_fields[i];
        const void *p = base + fd->offset;
        int w = 0;
        switch (fd->kind) {
        case GI_FIELD_LONG:
            w = fprintf(f, "%s: %ld\n", fd->key, *(const long *)p);
            break;
        case GI_FIELD_LLONG:
            w = fprintf(f, "%s: %lld\n", fd->key, *(const long long *)p);
            break;
        case GI_FIELD_INT:
            w = fprintf(f, "%s: %d\n", fd->key, *(const int *)p);
            break;
        case GI_FIELD_CC:
            w = fprintf(f, "%s: %d.%d\n", fd->key, s->cc_major, s->cc_minor);
            break;
        case GI_FIELD_TEXT: {
            /* one line: a newline in an error text must not end the field */
            const char *t = p;
            size_t n = strnlen(t, fd->size);
            w = fprintf(f, "%s: ", fd->key);
            for (size_t k = 0; k < n && w >= 0; k++)
                if (fputc(t[k] == '\n' || t[k] == '\r' ? ' ' : t[k], f) == EOF)
                    w = -1;
            if (w >= 0 && fputc('\n', f) == EOF)
                w = -1;
            break;
        }
        }
        if (w < 0)
            return -1;
    }
    return 0;
}

int gi_status_parse_line(const char *line, gi_status *s)
{
    const char *colon = strstr(line, ": ");
    if (line[0] == '#' || !colon)
        return 0;
    size_t klen = (size_t)(colon - line);
    const char *value = colon + 2;
    char *base = (char *)s;
    for (size_t i = 0; i < gi_status_n_fields; i++) {
        const gi_status_field *fd = &gi_status_fields[i];
        if (strlen(fd->key) != klen || strncmp(fd->key, line, klen) != 0)
            continue;
        void *p = base + fd->offset;
        switch (fd->kind) {
        case GI_FIELD_LONG:
            *(long *)p = strtol(value, NULL, 10);
            break;
        case GI_FIELD_LLONG:
            *(long long *)p = strtoll(value, NULL, 10);
            break;
        case GI_FIELD_INT:
            *(int *)p = (int)strtol(value, NULL, 10);
            break;
        case GI_FIELD_CC:
            if (sscanf(value, "%d.%d", &s->cc_major, &s->cc_minor) != 2)
                s->cc_major = s->cc_minor = 0;
            break;
        case GI_FIELD_TEXT: {
            size_t n = strcspn(value, "\r\n");
            if (n >= fd->size)
                n = fd->size - 1;
            memcpy(p, value, n);
            ((char *)p)[n] = '\0';
            break;
        }
        }
        return 1;
    }
    return 0;
}

void gi_status_read(const char *path, gi_status *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    s->present = 1;
    /* a line holds at most the longest text field and its key */
    char line[GI_STATUS_PATH_MAX + 128];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        int whole = n > 0 && line[n - 1] == '\n';
        gi_status_parse_line(line, s);
        /* the rest of an overlong line is not a line of its own */
        while (!whole && fgets(line, sizeof line, f)) {
            n = strlen(line);
            whole = n > 0 && line[n - 1] == '\n';
        }
    }
    fclose(f);
}
