/* Internal interface of the CUPTI collector (libgpuq_inject.so): the state
 * every part shares; see collector.c for the overall flow and
 * docs/profile.md for its use.  The parts:
 *   collector.c         entry point, configuration, devices and contexts,
 *                       the drain at exit and on fatal signals
 *   collector_output.c  messages, standing down, output and status files
 *   collector_launch.c  launch tracking (driver API callbacks), stream captures
 *   collector_host.c    CUPTI host side: chip support, metrics, collector_host.h
 *   collector_range.c   the counters pass (range profiler windows), collector_range.h
 *   collector_window.c  the range profiler's calls, collector_window.h
 *   collector_repeat.c  repeated launches of a kernel shape in one pass,
 *                       collector_repeat.h (gi_shapes.c holds the table)
 *   collector_graph.c   kernel nodes of CUDA graphs, collector_graph.h
 *   collector_sass.c    the sass pass (SASS metrics), collector_sass.h
 * This header includes neither part header, so there is no include circle.
 *
 * Locking: g_collector.lock guards the filter, launch ids, the output and
 * status files and the counts; each gi_device.lock is held by the launching
 * thread from a launch's API ENTER callback to its EXIT callback, so that
 * the profiling window of one launch never contains another thread's kernel
 * (the range profiler allows one active context per device, so the device
 * is the unit of serialization).  contexts_lock guards the context list.
 * Order: device lock, then contexts_lock, then g_collector.lock.
 */
#ifndef GPUQ_COLLECTOR_INTERNAL_H
#define GPUQ_COLLECTOR_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "gi_filter.h"
#include "gi_nvtx.h"
#include "gi_protocol.h"
#include "gpuq/counters.h"

#define GI_MAX_DEVICES 64
#define GI_MAX_CONTEXTS 256
#define GI_PATH_MAX 4096
/* Launches per range profiler window unless GPUQ_BATCH says otherwise
 * (docs/profile.md: on GH100 Start costs about 1 ms more per range the
 * window holds on its first call, and a window saves about 2.5 ms per launch
 * after the first; a crash loses at most the open window). */
#define GI_DEFAULT_BATCH 16
#define GI_MAX_BATCH 4096
/* Stream captures in progress on one device that the collector tracks. */
#define GI_MAX_CAPTURES 256
/* Seconds a process waits for another gpuq-profiled process to release a
 * GPU's counters (GPUQ_LOCK_WAIT_S; at most this much). */
#define GI_LOCK_WAIT_MAX_S 10

typedef enum gi_pass {
    GI_PASS_COUNTERS = 0, /* hardware counters through the range profiler */
    GI_PASS_SASS          /* per-instruction execution counts through SASS metrics */
} gi_pass;

/* gi_error_kind, why the collector stood down, is part of the protocol
 * (gi_protocol.h). */

/* Where the time of profiled launches goes (GPUQ_VERBOSE prints it at exit;
 * docs/profile.md quotes it). */
typedef enum gi_phase {
    GI_PHASE_SYNC = 0,   /* waiting for unprofiled work before a window */
    GI_PHASE_BEGIN,      /* SetConfig + Start, or the SASS pre-flush */
    GI_PHASE_LAUNCH,     /* the launch call itself, ENTER to EXIT callback */
    GI_PHASE_STOP,       /* Stop + Decode (waits for the kernel), or the SASS sync */
    GI_PHASE_EVALUATE,   /* metric evaluation, or the SASS flush */
    GI_PHASE_RESET,      /* counter data image re-initialization */
    GI_PHASE_WRITE,      /* formatting and appending the row */
    GI_PHASE_COUNT
} gi_phase;

uint64_t gi_now_ns(void);
/* The calling thread's kernel id (async-signal-safe). */
pid_t gi_gettid(void);

/* CUPTI and driver calls whose time GPUQ_DEBUG=1 reports at exit (count,
 * total and mean): where the cost of a profiled launch goes, call by call. */
typedef enum gi_call {
    GI_CALL_SUBSCRIBE = 0,      /* cuptiSubscribe + enabling the callbacks */
    GI_CALL_PROFILER_INIT,      /* cuptiProfilerInitialize */
    GI_CALL_DEVICE_SUPPORT,     /* cuptiDeviceGetChipName + cuptiProfilerDeviceSupported */
    GI_CALL_AVAILABILITY,       /* cuptiProfilerGetCounterAvailability (both calls) */
    GI_CALL_HOST_INIT,          /* cuptiProfilerHostInitialize */
    GI_CALL_ADD_METRICS,        /* cuptiProfilerHostConfigAddMetrics */
    GI_CALL_CONFIG_IMAGE,       /* cuptiProfilerHostGetConfigImage(Size) */
    GI_CALL_NUM_PASSES,         /* cuptiProfilerHostGetNumOfPasses */
    GI_CALL_RP_ENABLE,          /* cuptiRangeProfilerEnable + GetCounterDataSize */
    GI_CALL_IMAGE_INIT,         /* cuptiRangeProfilerCounterDataImageInitialize */
    GI_CALL_SET_CONFIG,         /* cuptiRangeProfilerSetConfig */
    GI_CALL_FIRST_START,        /* cuptiRangeProfilerStart, the device's first */
    GI_CALL_START,              /* cuptiRangeProfilerStart, later ones */
    GI_CALL_STOP,               /* cuptiRangeProfilerStop */
    GI_CALL_DECODE,             /* cuptiRangeProfilerDecodeData (waits for the kernels) */
    GI_CALL_DATA_INFO,          /* cuptiRangeProfilerGetCounterDataInfo */
    GI_CALL_EVALUATE,           /* cuptiProfilerHostEvaluateToGpuValues, per range */
    GI_CALL_WRITE_ROW,          /* formatting, appending and flushing one row */
    GI_CALL_CTX_SYNC,           /* cuCtxSynchronize before a window or after a sass launch */
    GI_CALL_RP_DISABLE,         /* cuptiRangeProfilerDisable */
    GI_CALL_HOST_DEINIT,        /* cuptiProfilerHostDeinitialize */
    GI_CALL_PROFILER_DEINIT,    /* cuptiProfilerDeInitialize */
    GI_CALL_SASS_SETUP,         /* cuptiSassMetricsGetProperties + SetConfig */
    GI_CALL_SASS_ENABLE,        /* cuptiSassMetricsEnable (lazy patching) */
    GI_CALL_SASS_FLUSH,         /* cuptiSassMetricsGetDataProperties + FlushData */
    GI_CALL_SAVE_CUBIN,         /* cuptiGetCubinCrc + writing the cubin */
    GI_CALL_PRELOAD,            /* loading libnvperf_host/target (a thread of its own) */
    GI_CALL_PRELOAD_WAIT,       /* waiting for that thread at the first device set-up */
    GI_CALL_COUNT
} gi_call;

/* Adds the time since t0 (gi_now_ns) to call's total. */
void gi_call_done(gi_call call, uint64_t t0);
/* GPUQ_DEBUG=1: the timeline and the time of each CUPTI call, at the drain. */
void gi_debug_report(uint64_t drain_end_ns);

typedef struct gi_device {
    pthread_mutex_t lock;
    int ordinal;
    int setup_done;      /* 1 after setup was tried (setup_ok says how it went) */
    int setup_ok;
    gm_counters_meta meta;
    char chip[64];
    int dirty;           /* unprofiled work may still run: synchronize before a window */

    /* range profiler (counters pass) */
    uint8_t *availability;
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    size_t passes;
    CUpti_ProfilerReplayMode replay;
    size_t n_metrics;
    const char *metric_names[GM_METRIC_MAX];
    int metric_ids[GM_METRIC_MAX];   /* their rows of gm_metric_table */
    CUcontext rp_ctx;                /* context whose range profiler is enabled, or NULL */
    int window_open;                 /* Start called, Stop not yet */
    CUpti_RangeProfiler_Object *rp;
    int rp_set;                      /* rp's set: 0 full, 1 one-pass, -1 not configured yet */
    int repeat_streak;               /* the last launch was a repeat (collector_range.c) */
    uint64_t set_switches;           /* objects enabled anew to switch sets (GPUQ_VERBOSE) */
    const uint8_t *sized_config;     /* the set and ranges of rp's last GetCounterDataSize */
    size_t sized_ranges;
    uint8_t *counter_data;
    size_t counter_data_size;

    /* Batching (counters pass): one Start..Stop window holds up to
     * batch_max launches, each its own auto range, in launch order (the
     * device lock serializes launches and CUPTI's auto range serializes
     * their kernels).  Their rows are written when the window closes:
     * when it is full, before unprofiled work, a context switch or a stream
     * capture, at context destruction, at exit and on a fatal signal. */
    size_t batch_max;                /* launches per window (GPUQ_BATCH; 1 after a mismatch) */
    size_t batch_full;               /* what GPUQ_BATCH asked for (batch_max while checked) */
    int duration_check;              /* collector_range.c, check_durations */
    size_t range_capacity;           /* ranges a window holds (GPUQ_BATCH) */
    gm_launch_counters *pending;     /* the open window's launches, batch_max of them */
    size_t n_pending;
    uint64_t windows;                /* windows opened (Start calls) */

    /* Repeated launches (collector_repeat.c): a kernel shape's launches
     * after its first GPUQ_FULL_LAUNCHES get the one-pass set of
     * GM_EVERY_LAUNCH metrics, user replay, in windows of their own
     * (window_repeat); the rest of their row comes from the shape's last
     * launch measured in full.  Set up only when the full set needs kernel
     * replay. */
    struct gi_repeat *repeat;
    int window_repeat;               /* the open window is of the one-pass set */

    /* SASS metrics (sass pass) */
    int sass_configured;

    uint64_t phase_ns[GI_PHASE_COUNT];
    uint64_t phase_launches;
    uint64_t sass_metric_id;

    /* Stream captures in progress on the device, from the ENTER callback
     * of cuStreamBeginCapture* to the EXIT callback of cuStreamEndCapture
     * (dev->lock guards them).  While one is, the collector makes no
     * profiler call and no synchronization on the device: a context
     * synchronization (cuCtxSynchronize, or the one inside Decode) would
     * invalidate the capture in every capture mode, and in global mode any
     * "unsafe" call from another thread does.  Launches that run meanwhile
     * are counted (capture_skipped), not profiled; the window is closed
     * before the capture begins. */
    size_t captures_active;
    CUstream capture_streams[GI_MAX_CAPTURES];

    /* CUDA graph launches profiled node by node (collector_graph.c): a
     * counter data image of their own, sized for the largest graph. */
    uint8_t *graph_data;
    size_t graph_data_size, graph_capacity;

    /* The per-GPU lock file (GPUQ_LOCK_DIR) held while the range profiler
     * may be enabled; -1 when not held. */
    int lock_fd;
    int lock_tried;
} gi_device;

typedef struct gi_context {
    CUcontext ctx;
    int device;
    int sass_enabled;
} gi_context;

/* What a launch's ENTER callback decided, kept for its EXIT callback. */
typedef enum gi_action {
    GI_ACTION_NONE = 0,   /* nothing held */
    GI_ACTION_HOLD,       /* device lock held, launch not profiled */
    GI_ACTION_PROFILE,    /* device lock held, profiling window open */
    GI_ACTION_GRAPH,      /* device lock held, a graph launch's own window open */
    GI_ACTION_CAPTURE_BEGIN, /* a cuStreamBeginCapture* call (its EXIT undoes on failure) */
    GI_ACTION_CAPTURE_END    /* a cuStreamEndCapture call */
} gi_action;

struct gi_graph_exec;

typedef struct gi_launch {
    gi_action action;
    uint64_t entered_ns;
    gi_device *dev;
    CUcontext ctx;
    uint64_t launch_id;
    gm_launch_counters k;
    CUstream stream;                 /* capture calls: the stream */
    struct gi_graph_exec *graph;     /* GI_ACTION_GRAPH: the graph launched */
    uint64_t graph_seq;              /* GI_ACTION_GRAPH: its graph launch number */
    unsigned char *graph_selected;   /* GI_ACTION_GRAPH: nodes the filter selected */
} gi_launch;

typedef struct gi_collector {
    pthread_mutex_t lock;
    volatile int disabled;      /* stood down, drained, or a forked child */
    int drained;
    pid_t pid;
    gi_pass pass;
    int verbose;
    char out_path[GI_PATH_MAX];
    char out_tmp[32];           /* GPUQ_OUT_TMP: written as <path><out_tmp>, gpuq renames */
    char out_path_used[GI_PATH_MAX + 64];
    char status_path[GI_PATH_MAX];
    char cubin_dir[GI_PATH_MAX + 16];
    char command[512];
    int forced_replay;          /* 0 auto, else a CUpti_ProfilerReplayMode */
    char sass_metric[128];      /* GPUQ_SASS_METRIC (default GI_SASS_ALL_METRIC) */
    size_t batch;               /* GPUQ_BATCH: launches per range profiler window */
    long full_launches;         /* GPUQ_FULL_LAUNCHES: launches of a kernel shape measured in
                                   full before its repeats get one pass (0: all in full) */
    int debug;                  /* GPUQ_DEBUG: per-call timings and window contents on stderr */
    uint64_t init_ns;           /* when InitializeInjection ran (timeline for GPUQ_DEBUG) */
    uint64_t first_context_ns, setup_done_ns, first_launch_ns, drain_start_ns;
    uint64_t t0_ns;             /* GPUQ_T0_NS: when gpuq started the program (GPUQ_DEBUG timeline) */
    uint64_t ready_ns;          /* InitializeInjection finished */
    uint64_t run_start_ns;      /* GPUQ_RUN_START_NS: wall clock when gpuq started the run */

    uint64_t call_ns[GI_CALL_COUNT], call_count[GI_CALL_COUNT];
    int signal_pipe[2];         /* a fatal signal's handler asks the flush thread ... */
    int flushed_pipe[2];        /* ... and waits for its answer here */
    int signal_flush_ready;     /* the flush thread runs and the handlers are installed */
    char **kernel_names;        /* kernels named in GPUQ_CUBIN_DIR/kernels.txt so far */
    size_t n_kernel_names;
    volatile sig_atomic_t signal_seen;
    gi_filter filter;
    char nvtx_include[256];     /* GPUQ_NVTX_INCLUDE: profile inside ranges of this name only */
    gi_nvtx_open nvtx_open;     /* its open start/end ranges (g.lock) */
    uint64_t nvtx_outside;      /* launches not profiled: outside the range */
    FILE *out;
    int out_failed;
    uint64_t next_launch_id;
    CUpti_SubscriberHandle subscriber;
    int subscribed;
    int profiler_initialized;

    /* counts for the status file */
    uint64_t launches_seen, profiled, rows_written, filtered_out, graph_launches,
        captured_launches, failed_launches, range_mismatches, cubins_saved,
        repeat_launches;        /* rows of one pass, completed from their shape's full launch */
    int graph_note_printed, legacy_note_printed, collective_note_printed;
    uint64_t collective_skipped; /* NCCL kernels listed without counters (collective_unmeasurable) */
    uint64_t capture_skipped;   /* launches run while a capture was in progress: not profiled */
    uint64_t graph_captured;    /* graph launches into a capturing stream (child graphs) */
    uint64_t graph_profiled;    /* graph launches profiled node by node */
    uint64_t graph_nodes_profiled; /* kernel nodes with a row */
    uint64_t next_graph_seq;    /* graph launches seen (their numbers in the graphs file) */
    int lock_wait_s;            /* GPUQ_LOCK_WAIT_S (default and maximum GI_LOCK_WAIT_MAX_S) */
    char lock_dir[GI_PATH_MAX]; /* GPUQ_LOCK_DIR (default $TMPDIR or /tmp) */
    int unprofiled_busy;        /* stood down: another process held the GPU */

    gi_error_kind error_kind;
    char error[512];

    gi_device devices[GI_MAX_DEVICES];
    pthread_mutex_t contexts_lock;
    gi_context contexts[GI_MAX_CONTEXTS];
    size_t n_contexts;
} gi_collector;

extern gi_collector g_collector;

/* Messages: one line on stderr, prefixed "gpuq-collector: ". */
void gi_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gi_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the reason, records it for the status file and stops profiling;
 * the program continues unprofiled. */
void gi_stand_down(gi_error_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Stands down after a failed CUPTI call, with advice for the known causes
 * (permissions, another profiler, MIG, ...).  Returns 0 so that callers can
 * write `return gi_cupti_failed(...)`. */
int gi_cupti_failed(const char *call, CUptiResult rc);
int gi_cuda_failed(const char *call, CUresult rc);
/* cuCtxSynchronize, timed; stands down and returns 0 when it fails. */
int gi_ctx_synchronize(void);

/* Per-device properties for the counters file header. */
int gi_device_fill_meta(gi_device *dev);

/* The kernel duration's metric row (metrics by name, gpuq/metrics.h), -1
 * if none: the row every window is checked for. */
int gi_duration_row(void);
/* Writes one counters row (opening the file with its header first). */
void gi_write_row(gi_device *dev, const gm_launch_counters *k);
/* Writes text lines to the sass pass file (opening it first). */
void gi_write_sass_text(const char *text);
/* Appends lines to the graphs file (<status file>.graphs, collector_graph.h). */
void gi_write_graph_text(const char *text);

/* Writes the status file gpuq profile reads (g.lock held). */
void gi_write_status_locked(void);

/* Devices and contexts (collector.c). */
gi_device *gi_device_of(CUcontext ctx);
/* Sets the device up at its first context or launch (dev->lock held). */
void gi_device_setup(gi_device *dev, CUcontext ctx);
void gi_on_context_created(CUcontext ctx);
void gi_on_context_destroy(CUcontext ctx);
/* Waits for the thread that loads the perf libraries (also before fork). */
void gi_preload_join(void);

/* Launch tracking (collector_launch.c): the CUPTI callback, and whether
 * this thread is inside one of its launch callbacks (read by the fatal
 * signal handler: async-signal-safe, a lock-free table of thread ids; the
 * library has no thread-local storage, collector_launch.c says why). */
void CUPTIAPI gi_on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                             const void *data);
int gi_in_launch_callback(void);
/* This thread's NVTX push/pop state (NULL when out of memory). */
gi_nvtx_thread *gi_thread_nvtx(void);

/* The NVTX range filter (collector_nvtx.c): reads GPUQ_NVTX_INCLUDE and,
 * when set, enables CUPTI's NVTX callbacks (0 when that fails, the
 * collector stood down); the callback; and whether
 * the calling thread is inside the range now. */
int gi_nvtx_setup(void);
void gi_nvtx_on_callback(CUpti_CallbackId cbid, const void *data);
int gi_nvtx_inside(void);
/* The path of the libcupti mapped into this process (the collector's, or a
 * copy the program loaded first, as the torch wheel does); 0 if none. */
int gi_loaded_cupti(char *path, size_t len);
/* The demangled name (malloc'ed; the mangled one when it does not demangle). */
char *gi_demangle(const char *mangled);

#endif
