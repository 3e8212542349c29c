/* The collector's messages, how it stands down, and its files: the
 * counters (or sass) output and the status file gpuq profile reads. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector_internal.h"
#include "gi_pattern.h"

#define g g_collector

/* ---- messages --------------------------------------------------------- */

static void emit(const char *prefix, const char *fmt, va_list ap)
{
    /* One write per message, so lines from several threads do not mix. */
    char line[1024];
    int n = snprintf(line, sizeof line, "gpuq-collector: %s", prefix);
    if (n < 0)
        return;
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void gi_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}

void gi_verbose(const char *fmt, ...)
{
    if (!g.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit("[verbose] ", fmt, ap);
    va_end(ap);
}


/* Records the first reason and stops profiling; g.lock is held. */
static void stand_down_locked_v(gi_error_kind kind, const char *fmt, va_list ap)
{
    int first = g.error_kind == GI_ERROR_NONE;
    if (first) {
        vsnprintf(g.error, sizeof g.error, fmt, ap);
        g.error_kind = kind;
    }
    g.disabled = 1;
    if (first) {
        gi_note("%s; profiling stopped, the program continues", g.error);
        gi_write_status_locked();
    }
}

static void stand_down_locked(gi_error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void stand_down_locked(gi_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    stand_down_locked_v(kind, fmt, ap);
    va_end(ap);
}

void gi_stand_down(gi_error_kind kind, const char *fmt, ...)
{
    pthread_mutex_lock(&g.lock);
    va_list ap;
    va_start(ap, fmt);
    stand_down_locked_v(kind, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&g.lock);
}

int gi_cupti_failed(const char *call, CUptiResult rc)
{
    const char *name = NULL;
    if (cuptiGetResultString(rc, &name) != CUPTI_SUCCESS || !name)
        name = "unknown CUPTI error";
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        gi_stand_down(GI_ERROR_PERMISSION,
                      "%s failed (%s): this user may not read the GPU performance counters; "
                      "run as root or with CAP_PERFMON (CAP_SYS_ADMIN before driver R565), or load "
                      "the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
                      "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
                      call, name);
        break;
    case CUPTI_ERROR_HARDWARE_BUSY:
        gi_stand_down(GI_ERROR_BUSY,
                      "%s failed (%s): another profiler holds the GPU performance counters "
                      "(Nsight Compute, DCGM profiling: 'dcgmi profile --pause', another CUPTI tool)",
                      call, name);
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        gi_stand_down(GI_ERROR_BUSY,
                      "%s failed (%s): another CUPTI tool is attached to this program "
                      "(Nsight Systems, Nsight Compute, the PyTorch profiler...)",
                      call, name);
        break;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        gi_stand_down(GI_ERROR_UNSUPPORTED,
                      "%s failed (%s): CUPTI cannot profile a MIG instance here; "
                      "profile on a GPU without MIG", call, name);
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
        gi_stand_down(GI_ERROR_UNSUPPORTED, "%s failed (%s): this GPU or setup cannot be profiled",
                      call, name);
        break;
    default:
        gi_stand_down(GI_ERROR_CUPTI, "%s failed (%s, CUPTI error %d)", call, name, (int)rc);
        break;
    }
    return 0;
}

int gi_cuda_failed(const char *call, CUresult rc)
{
    const char *name = NULL;
    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        name = "unknown CUDA error";
    gi_stand_down(GI_ERROR_CUDA, "%s failed (%s, CUDA error %d)", call, name, (int)rc);
    return 0;
}

int gi_ctx_synchronize(void)
{
    uint64_t t0 = gi_now_ns();
    CUresult rc = cuCtxSynchronize();
    gi_call_done(GI_CALL_CTX_SYNC, t0);
    return rc == CUDA_SUCCESS ? 1 : gi_cuda_failed("cuCtxSynchronize", rc);
}
/* ---- output files ----------------------------------------------------- */

/* Whether an existing file is older than this gpuq run (GPUQ_RUN_START_NS,
 * wall clock): a left-over of an earlier run, which this one replaces. */
static int older_than_run(const char *path)
{
    struct stat sb;
    if (!g.run_start_ns || stat(path, &sb) != 0)
        return 0;
    uint64_t mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
    return mtime < g.run_start_ns;
}

/* Claims path with O_EXCL, replacing a left-over of an earlier run. */
static int claim(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && older_than_run(path) && unlink(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    return fd;
}

/* The file written for the output name path: path itself, or, with
 * GPUQ_OUT_TMP, path<tmp> (gpuq renames it to path when the run is over,
 * so that an earlier path survives a run that measures nothing). */
static void written_name(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s%s", path, g.out_tmp);
}

/* Opens the output for this process.  GPUQ_OUT may be a pattern
 * (gi_pattern.h: %p %h %i %q{VAR}), expanded here, in the process that
 * writes it; %i takes the first number whose file does not exist (neither
 * the output nor its temporary name).  The path is claimed with O_EXCL:
 * when another process of the same run (a child that also uses CUDA) got
 * there first, this one writes PATH.<pid> instead, so that no file is
 * written by two processes. */
static FILE *open_output(void)
{
    char path[GI_PATH_MAX], file[sizeof g.out_path_used];
    int fd = -1;
    if (gi_pattern_is_pattern(g.out_path)) {
        char host[256] = "";
        gethostname(host, sizeof host - 1);
        gi_pattern_values v = {(long)getpid(), host, 0, NULL, NULL};
        int seq = gi_pattern_uses_seq(g.out_path);
        for (unsigned i = 0; i < 100000; i++) {
            v.seq = i;
            gm_error err = {{0}};
            if (gi_pattern_expand(g.out_path, &v, path, sizeof path, &err) != GM_OK) {
                g.out_failed = 1;
                stand_down_locked(GI_ERROR_CONFIG, "output name: %s", err.msg);
                return NULL;
            }
            written_name(path, file, sizeof file);
            if (seq && g.out_tmp[0] && access(path, F_OK) == 0) {
                errno = EEXIST; /* taken by an earlier run's file */
                continue;
            }
            fd = seq ? open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : claim(file);
            if (fd >= 0 || errno != EEXIST || !seq)
                break;
        }
    } else {
        snprintf(path, sizeof path, "%s", g.out_path);
        written_name(path, file, sizeof file);
        fd = claim(file);
    }
    snprintf(g.out_path_used, sizeof g.out_path_used, "%s", file);
    if (fd < 0 && errno == EEXIST) {
        snprintf(g.out_path_used, sizeof g.out_path_used, "%s.%ld%s", path, (long)getpid(),
                 g.out_tmp);
        fd = open(g.out_path_used, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0)
            gi_note("'%s' is taken by another process of this run; process %ld writes '%s.%ld'",
                    path, (long)getpid(), path, (long)getpid());
    }
    if (fd < 0) {
        int e = errno;
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot create '%s' (%s)", g.out_path_used, strerror(e));
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        g.out_failed = 1;
    }
    return f;
}

/* Called with g.lock held: opens the output on first use. */
static int output_ready_locked(void)
{
    if (!g.out && !g.out_failed)
        g.out = open_output();
    return g.out && !g.out_failed;
}

int gi_duration_row(void)
{
    return gm_metric_find("gpu__time_duration.sum");
}

void gi_write_row(gi_device *dev, const gm_launch_counters *k)
{
    pthread_mutex_lock(&g.lock);
    gm_error err = {{0}};
    int fresh = !g.out;
    if (!output_ready_locked())
        goto done;
    if (fresh && gm_counters_write_header(g.out, &dev->meta, &err) != GM_OK) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot write the counters header to '%s' (%s)",
                          g.out_path_used, err.msg);
        goto done;
    }
    if (gm_counters_append_row(g.out, &dev->meta, k, &err) != GM_OK || fflush(g.out) != 0) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot append to '%s' (%s)", g.out_path_used,
                          err.msg[0] ? err.msg : strerror(errno));
        goto done;
    }
    g.rows_written++;
done:
    pthread_mutex_unlock(&g.lock);
}

void gi_write_sass_text(const char *text)
{
    pthread_mutex_lock(&g.lock);
    int fresh = !g.out;
    if (!output_ready_locked())
        goto done;
    if ((fresh && fprintf(g.out, "%s\nmetric,%s\n", GI_SASS_FILE_MAGIC, g.sass_metric) < 0) ||
        fputs(text, g.out) < 0 ||
        fflush(g.out) != 0) {
        g.out_failed = 1;
        stand_down_locked(GI_ERROR_IO, "cannot append to '%s' (%s)", g.out_path_used,
                          strerror(errno));
    }
done:
    pthread_mutex_unlock(&g.lock);
}

void gi_write_graph_text(const char *text)
{
    if (!g.status_path[0] || getpid() != g.pid)
        return;
    char path[GI_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s.graphs", g.status_path);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n); /* one write: lines of two threads do not mix */
    (void)w;
    close(fd);
}

/* Status file for gpuq profile: what was profiled, what was not, and why the
 * collector stood down (gi_protocol.h defines its fields).  Rewritten whole
 * (temporary file + rename). */
void gi_write_status_locked(void)
{
    if (!g.status_path[0] || getpid() != g.pid)
        return;
    char tmp[GI_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", g.status_path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    static gi_status st; /* about 5 KB, off the stack of the program's thread; g.lock is held */
    memset(&st, 0, sizeof st);
    const char *replay = "none";
    const gm_counters_meta *meta = NULL;
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        st.windows += (long long)g.devices[i].windows;
        if (g.devices[i].meta.device_name[0] && !meta)
            meta = &g.devices[i].meta;
        if (g.devices[i].setup_ok && g.pass == GI_PASS_COUNTERS && !st.passes) {
            st.passes = (long long)g.devices[i].passes;
            st.batch = (long long)g.devices[i].batch_max;
            replay = g.devices[i].replay == CUPTI_KernelReplay ? "kernel" : "user";
        }
    }
    st.pid = (long)g.pid;
    snprintf(st.pass, sizeof st.pass, "%s", g.pass == GI_PASS_SASS ? "sass" : "counters");
    snprintf(st.output, sizeof st.output, "%s", g.out_path_used[0] ? g.out_path_used : g.out_path);
    if (meta) {
        snprintf(st.device_name, sizeof st.device_name, "%s", meta->device_name);
        st.sm_count = meta->sm_count;
        st.cc_major = meta->cc_major;
        st.cc_minor = meta->cc_minor;
    }
    snprintf(st.replay, sizeof st.replay, "%s", replay);
    st.launches_seen = (long long)g.launches_seen;
    st.profiled = (long long)g.profiled;
    st.rows = (long long)g.rows_written;
    st.filtered = (long long)g.filtered_out;
    st.graphs = (long long)g.graph_launches;
    st.captured = (long long)g.captured_launches;
    st.capture_skipped = (long long)g.capture_skipped;
    st.graph_captured = (long long)g.graph_captured;
    st.graph_profiled = (long long)g.graph_profiled;
    st.graph_nodes = (long long)g.graph_nodes_profiled;
    st.failed_launches = (long long)g.failed_launches;
    st.range_mismatches = (long long)g.range_mismatches;
    st.cubins_saved = (long long)g.cubins_saved;
    st.repeat_launches = (long long)g.repeat_launches;
    st.nvtx_outside = (long long)g.nvtx_outside;
    st.drained = g.drained;
    snprintf(st.error_kind, sizeof st.error_kind, "%s", gi_error_kind_name(g.error_kind));
    snprintf(st.error, sizeof st.error, "%s", g.error);
    int failed = gi_status_write(f, &st) != 0;
    if (fclose(f) != 0)
        failed = 1;
    if (!failed)
        rename(tmp, g.status_path);
    else
        unlink(tmp);
}
