/* libgpuq_inject.so: the CUPTI collector that `gpuq profile` loads into the
 * profiled program through CUDA_INJECTION64_PATH.
 *
 * Flow (docs/profile.md has the user's view):
 *   InitializeInjection (inside the program's cuInit) reads the GPUQ_*
 *   environment, subscribes to CUPTI callbacks and registers the drain.
 *   CONTEXT_CREATED sets up the device (range profiler host objects, or the
 *   SASS metric configuration).  For every kernel launch the driver API
 *   ENTER callback takes the device lock and applies the filter.  Counters
 *   pass: a selected launch joins the open range profiler window (opening
 *   one if needed); a window closes after GPUQ_BATCH launches, or before
 *   unprofiled work, and its rows are appended and flushed then
 *   (collector_range.c).  Sass pass: a selected launch's EXIT callback
 *   waits for it and writes its instruction counts.  atexit,
 *   CONTEXT_DESTROY_STARTING and fatal signals (a flush thread) drain
 *   whatever is still open.
 *
 * The collector runs inside somebody else's program: it never exits, never
 * crashes it on purpose, and on any CUPTI/CUDA failure prints one line
 * ("gpuq-collector: ...") and stands down, letting the program run on.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sys/file.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector_internal.h"
#include "collector_range.h"
#include "collector_sass.h"
#include "gi_pattern.h"

gi_collector g_collector = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .contexts_lock = PTHREAD_MUTEX_INITIALIZER,
};
#define g g_collector

uint64_t gi_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void gi_call_done(gi_call call, uint64_t t0)
{
    uint64_t dt = gi_now_ns() - t0;
    __atomic_fetch_add(&g.call_ns[call], dt, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g.call_count[call], 1, __ATOMIC_RELAXED);
}

/* ---- devices and contexts --------------------------------------------- */

int gi_device_fill_meta(gi_device *dev)
{
    CUdevice d;
    CUresult rc = cuDeviceGet(&d, dev->ordinal);
    if (rc != CUDA_SUCCESS)
        return gi_cuda_failed("cuDeviceGet", rc);
    gm_counters_meta *m = &dev->meta;
    memset(m, 0, sizeof *m);
    int threads_per_sm = 0, warp = 0;
    if ((rc = cuDeviceGetName(m->device_name, sizeof m->device_name, d)) != CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&m->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&threads_per_sm,
                                   CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d)) !=
            CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d)) != CUDA_SUCCESS)
        return gi_cuda_failed("cuDeviceGetAttribute", rc);
    m->max_warps_per_sm = warp > 0 ? threads_per_sm / warp : 0;
    snprintf(m->command, sizeof m->command, "%s", g.command);
    return 1;
}

static int profiler_initialize(void)
{
    if (g.profiler_initialized)
        return 1;
    gi_preload_join();
    CUpti_Profiler_Initialize_Params p = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiProfilerInitialize(&p);
    gi_call_done(GI_CALL_PROFILER_INIT, t0);
    if (rc != CUPTI_SUCCESS)
        return gi_cupti_failed("cuptiProfilerInitialize", rc);
    g.profiler_initialized = 1;
    return 1;
}

/* Called with dev->lock held. */
/* CUPTI's range profiler serves one process per GPU at a time (a second
 * one gets CUPTI_ERROR_HARDWARE_BUSY at Enable or Start, measured: four
 * processes on one H100).  The counters pass takes a lock file per GPU
 * (GPUQ_LOCK_DIR/gpuq-gpu-<PCI bus id>.lock, flock) at the device's set-up
 * and holds it until the drain, so that the processes of a job take turns;
 * a process that does not get it within GPUQ_LOCK_WAIT_S seconds (at most
 * GI_LOCK_WAIT_MAX_S) runs unprofiled and says so in one line.  Returns 0
 * when it stood down. */
static int gpu_lock(gi_device *dev)
{
    if (dev->lock_tried)
        return dev->lock_fd >= 0 || !g.unprofiled_busy;
    dev->lock_tried = 1;
    CUdevice d;
    char bus[64] = "";
    if (cuDeviceGet(&d, dev->ordinal) != CUDA_SUCCESS ||
        cuDeviceGetPCIBusId(bus, sizeof bus, d) != CUDA_SUCCESS)
        snprintf(bus, sizeof bus, "ordinal-%d", dev->ordinal);
    for (char *c = bus; *c; c++)
        if (*c == ':' || *c == '/')
            *c = '-';
    char path[GI_PATH_MAX + 96];
    snprintf(path, sizeof path, "%s/gpuq-gpu-%s.lock", g.lock_dir, bus);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        gi_verbose("cannot open the GPU lock %s (%s): profiling without it", path,
                   strerror(errno));
        return 1;
    }
    uint64_t t0 = gi_now_ns(), limit = (uint64_t)g.lock_wait_s * 1000000000u;
    int waited = 0;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || gi_now_ns() - t0 >= limit) {
            close(fd);
            g.unprofiled_busy = 1;
            gi_stand_down(GI_ERROR_BUSY,
                          "another process profiles GPU %d (%s) through gpuq and held it for "
                          "%d s (lock %s); this process runs unprofiled",
                          dev->ordinal, bus, g.lock_wait_s, path);
            return 0;
        }
        if (!waited++)
            gi_verbose("GPU %d is being profiled by another process: waiting up to %d s",
                       dev->ordinal, g.lock_wait_s);
        struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL);
    }
    if (waited)
        gi_note("waited %.1f s for another process to finish profiling GPU %d",
                (double)(gi_now_ns() - t0) / 1e9, dev->ordinal);
    dev->lock_fd = fd;
    return 1;
}

void gi_device_setup(gi_device *dev, CUcontext ctx)
{
    if (dev->setup_done)
        return;
    dev->setup_done = 1;
    if (!gi_device_fill_meta(dev))
        return;
    /* gpuq reads the device from here to load its calibration table while
     * the program runs: written before the slow part of the set-up. */
    pthread_mutex_lock(&g.lock);
    gi_write_status_locked();
    pthread_mutex_unlock(&g.lock);
    if (g.pass == GI_PASS_COUNTERS && !gpu_lock(dev))
        return;
    if (!profiler_initialize())
        return;
    int ok = g.pass == GI_PASS_COUNTERS ? gi_range_device_setup(dev, ctx) : gi_sass_device_setup(dev);
    dev->setup_ok = ok && !g.disabled;
    if (dev->setup_ok)
        gi_verbose("device %d (%s, %s) ready for the %s pass", dev->ordinal, dev->meta.device_name,
                   dev->chip, g.pass == GI_PASS_SASS ? "sass" : "counters");
}

gi_device *gi_device_of(CUcontext ctx)
{
    uint32_t id = 0;
    CUptiResult rc = cuptiGetDeviceId(ctx, &id);
    if (rc != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiGetDeviceId", rc);
        return NULL;
    }
    if (id >= GI_MAX_DEVICES) {
        gi_stand_down(GI_ERROR_UNSUPPORTED, "device %u is beyond the %d devices gpuq handles", id,
                      GI_MAX_DEVICES);
        return NULL;
    }
    return &g.devices[id];
}

static gi_context *context_find(CUcontext ctx)
{
    pthread_mutex_lock(&g.contexts_lock);
    gi_context *found = NULL;
    for (size_t i = 0; i < g.n_contexts; i++)
        if (g.contexts[i].ctx == ctx) {
            found = &g.contexts[i];
            break;
        }
    pthread_mutex_unlock(&g.contexts_lock);
    return found;
}

static void context_forget(CUcontext ctx)
{
    pthread_mutex_lock(&g.contexts_lock);
    for (size_t i = 0; i < g.n_contexts; i++)
        if (g.contexts[i].ctx == ctx) {
            g.contexts[i] = g.contexts[--g.n_contexts];
            break;
        }
    pthread_mutex_unlock(&g.contexts_lock);
}

void gi_on_context_created(CUcontext ctx)
{
    if (g.disabled)
        return;
    if (!g.first_context_ns)
        g.first_context_ns = gi_now_ns();
    gi_device *dev = gi_device_of(ctx);
    if (!dev)
        return;
    pthread_mutex_lock(&dev->lock);
    dev->ordinal = (int)(dev - g.devices);
    /* Counter availability must be read before any range profiler session
     * is enabled on the device, so the device is set up here, at its first
     * context, not at its first launch. */
    gi_device_setup(dev, ctx);
    if (dev->setup_ok && !g.disabled && g.pass == GI_PASS_SASS)
        gi_sass_context_ready(dev, ctx);
    if (!g.setup_done_ns)
        g.setup_done_ns = gi_now_ns();
    pthread_mutex_unlock(&dev->lock);
}

void gi_on_context_destroy(CUcontext ctx)
{
    if (g.drained)
        return;
    uint32_t id = 0;
    if (cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS || id >= GI_MAX_DEVICES)
        return;
    gi_device *dev = &g.devices[id];
    pthread_mutex_lock(&dev->lock);
    if (g.pass == GI_PASS_COUNTERS)
        gi_range_context_gone(dev, ctx);
    else {
        gi_context *c = context_find(ctx);
        if (c)
            gi_sass_context_gone(c);
    }
    context_forget(ctx);
    pthread_mutex_unlock(&dev->lock);
    pthread_mutex_lock(&g.lock);
    gi_write_status_locked();
    pthread_mutex_unlock(&g.lock);
}
/* ---- end of the process ----------------------------------------------- */

static int lock_with_timeout(pthread_mutex_t *m)
{
    /* A thread the program left running may sit in a launch; exit must
     * not hang on it. */
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 2;
    return pthread_mutex_timedlock(m, &t) == 0;
}

/* Closes every window, writes what was measured and releases CUPTI's
 * objects.  Runs once: at exit, at the first context's destruction in a
 * fork child (never), or in the flush thread after a fatal signal. */
static void drain(void)
{
    if (getpid() != g.pid)
        return;
    pthread_mutex_lock(&g.lock);
    if (g.drained) {
        pthread_mutex_unlock(&g.lock);
        return;
    }
    g.drained = 1;
    g.disabled = 1;
    g.drain_start_ns = gi_now_ns();
    pthread_mutex_unlock(&g.lock);

    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        gi_device *dev = &g.devices[i];
        if (!dev->setup_done)
            continue;
        if (!lock_with_timeout(&dev->lock)) {
            gi_note("device %d is still busy at exit; its profiler state is left as is", i);
            continue;
        }
        if (g.pass == GI_PASS_COUNTERS) {
            gi_range_device_teardown(dev);
        } else {
            pthread_mutex_lock(&g.contexts_lock);
            for (size_t c = 0; c < g.n_contexts; c++)
                if (g.contexts[c].device == i)
                    gi_sass_context_gone(&g.contexts[c]);
            pthread_mutex_unlock(&g.contexts_lock);
            gi_sass_device_teardown(dev);
        }
        pthread_mutex_unlock(&dev->lock);
    }
    if (g.profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params p = {CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
        uint64_t t0 = gi_now_ns();
        cuptiProfilerDeInitialize(&p);
        gi_call_done(GI_CALL_PROFILER_DEINIT, t0);
        g.profiler_initialized = 0;
    }
    /* The next process may profile the GPUs now (gpu_lock). */
    for (int i = 0; i < GI_MAX_DEVICES; i++)
        if (g.devices[i].lock_fd >= 0) {
            close(g.devices[i].lock_fd);
            g.devices[i].lock_fd = -1;
        }
    pthread_mutex_lock(&g.lock);
    if (g.out) {
        fclose(g.out);
        g.out = NULL;
    }
    gi_write_status_locked();
    pthread_mutex_unlock(&g.lock);
    gi_verbose("drained: %" PRIu64 " launches profiled, %" PRIu64 " rows written", g.profiled,
               g.rows_written);
    static const char *const phase_names[GI_PHASE_COUNT] = {"sync", "begin", "launch", "stop",
                                                            "evaluate", "reset", "write"};
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        const gi_device *dev = &g.devices[i];
        if (!dev->phase_launches)
            continue;
        char line[512];
        int used = snprintf(line, sizeof line, "device %d, mean per profiled launch (us):", i);
        for (int p = 0; p < GI_PHASE_COUNT && used > 0 && (size_t)used < sizeof line; p++)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s %.1f", phase_names[p],
                             dev->phase_ns[p] / 1e3 / (double)dev->phase_launches);
        gi_verbose("%s; %" PRIu64 " repeat launches in one pass, %" PRIu64 " switches of set",
                   line, g.repeat_launches, dev->set_switches);
    }
    if (g.debug)
        gi_debug_report(gi_now_ns());
}

/* ---- fatal signals ---------------------------------------------------- */

/* A window holds up to GPUQ_BATCH launches whose rows are not written yet.
 * exit() drains through atexit; a fatal signal (Ctrl-C, kill, abort(), a
 * crash) would lose them, so the collector handles the signals whose
 * default action ends the process, where the program left that default:
 * the handler wakes the flush thread, which drains (CUPTI calls are not
 * async-signal-safe, and the interrupted thread may hold any lock), waits
 * for it at most GI_SIGNAL_FLUSH_MS, then restores the default action and
 * re-raises the signal, so the program ends as it would have. */
#define GI_SIGNAL_FLUSH_MS 5000

static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
                                    SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static void on_fatal_signal(int sig)
{
    int saved_errno = errno;
    /* Only the first signal flushes, and not from inside a launch callback
     * (that thread holds the device lock the flush needs). */
    if (getpid() == g.pid && !g.signal_seen && !gi_in_launch_callback()) {
        g.signal_seen = 1;
        char byte = (char)sig;
        if (write(g.signal_pipe[1], &byte, 1) == 1) {
            struct pollfd done = {g.flushed_pipe[0], POLLIN, 0};
            poll(&done, 1, GI_SIGNAL_FLUSH_MS);
        }
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* Pending until this handler returns; then the default action. */
    raise(sig);
    errno = saved_errno;
}

static void *flush_thread(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    char byte = 0;
    ssize_t n;
    while ((n = read(g.signal_pipe[0], &byte, 1)) < 0 && errno == EINTR)
        ;
    if (n == 1) {
        gi_verbose("signal %d: writing the open window's launches", (int)byte);
        drain();
        n = write(g.flushed_pipe[1], &byte, 1);
        (void)n;
    }
    return NULL;
}

static void install_signal_flush(void)
{
    if (pipe(g.signal_pipe) != 0 || pipe(g.flushed_pipe) != 0) {
        gi_verbose("no pipe for the signal flush (%s): a fatal signal loses the open window",
                   strerror(errno));
        return;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(g.signal_pipe[i], F_SETFD, FD_CLOEXEC);
        fcntl(g.flushed_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&thread, &attr, flush_thread, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        gi_verbose("no flush thread (%s): a fatal signal loses the open window", strerror(rc));
        return;
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue; /* the program's own handler, or ignored: left alone */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
    g.signal_flush_ready = 1;
}

static void before_fork(void)
{
    gi_preload_join();
    /* No row is half-written in the stdio buffer when the child is made. */
    pthread_mutex_lock(&g.lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&g.lock);
}

static void after_fork_child(void)
{
    /* The child does not inherit the profiling session: it never writes the
     * parent's files (the pid check in every entry point) and its exit()
     * flushes an empty buffer. */
    pthread_mutex_init(&g.lock, NULL);
    g.disabled = 1;
    /* flock() locks belong to the open file, which the child shares: it
     * must not keep the GPU's lock after the parent ends. */
    for (int i = 0; i < GI_MAX_DEVICES; i++)
        if (g.devices[i].lock_fd >= 0) {
            close(g.devices[i].lock_fd);
            g.devices[i].lock_fd = -1;
        }
}

/* ---- configuration and entry point ------------------------------------ */

static int read_path(const char *var, char *dst, int required)
{
    const char *v = getenv(var);
    if (!v || !v[0]) {
        if (required) {
            gi_stand_down(GI_ERROR_CONFIG, "%s is not set (run the program through 'gpuq profile')",
                          var);
            return 0;
        }
        dst[0] = '\0';
        return 1;
    }
    if (strlen(v) >= GI_PATH_MAX - 32) {
        gi_stand_down(GI_ERROR_CONFIG, "%s is too long", var);
        return 0;
    }
    snprintf(dst, GI_PATH_MAX, "%s", v);
    return 1;
}

static int read_config(void)
{
    const char *v = getenv(GI_ENV(GI_ENV_VERBOSE));
    g.verbose = v && v[0] ? atoi(v) : 0;
    /* The status path first, so that a configuration error is recorded.
     * One status file per process (<GPUQ_STATUS>.<pid>): a job of several
     * processes (a launcher and its workers) gives one each. */
    if (!read_path(GI_ENV(GI_ENV_STATUS), g.status_path, 0))
        return 0;
    if (g.status_path[0]) {
        size_t n = strlen(g.status_path);
        snprintf(g.status_path + n, sizeof g.status_path - n, ".%ld", (long)g.pid);
    }
    if (!read_path(GI_ENV(GI_ENV_OUT), g.out_path, 1))
        return 0;
    gm_error perr = {{0}};
    if (gi_pattern_check(g.out_path, &perr) != GM_OK) {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_OUT: %s", perr.msg);
        return 0;
    }
    /* gpuq profile renames the file when the run is over, so that an
     * earlier file of that name stays until something replaces it. */
    v = getenv(GI_ENV(GI_ENV_OUT_TMP));
    if (v && strlen(v) >= sizeof g.out_tmp) {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_OUT_TMP='%s' is too long", v);
        return 0;
    }
    snprintf(g.out_tmp, sizeof g.out_tmp, "%s", v && !strchr(v, '/') ? v : "");
    v = getenv(GI_ENV(GI_ENV_RUN_START_NS));
    g.run_start_ns = v ? strtoull(v, NULL, 10) : 0;
    /* The per-GPU lock of the counters pass (gi_device.lock_fd). */
    v = getenv(GI_ENV(GI_ENV_LOCK_DIR));
    if (!v || !v[0])
        v = getenv("TMPDIR");
    snprintf(g.lock_dir, sizeof g.lock_dir, "%s", v && v[0] ? v : "/tmp");
    v = getenv(GI_ENV(GI_ENV_LOCK_WAIT_S));
    g.lock_wait_s = v && v[0] ? atoi(v) : GI_LOCK_WAIT_MAX_S;
    if (g.lock_wait_s < 0 || g.lock_wait_s > GI_LOCK_WAIT_MAX_S)
        g.lock_wait_s = GI_LOCK_WAIT_MAX_S;
    v = getenv(GI_ENV(GI_ENV_PASS));
    if (!v || !v[0] || strcmp(v, "counters") == 0) {
        g.pass = GI_PASS_COUNTERS;
    } else if (strcmp(v, "sass") == 0) {
        g.pass = GI_PASS_SASS;
    } else {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_PASS='%s' is neither 'counters' nor 'sass'", v);
        return 0;
    }
    if (!read_path(GI_ENV(GI_ENV_CUBIN_DIR), g.cubin_dir, 0))
        return 0;
    if (g.pass == GI_PASS_SASS && !g.cubin_dir[0])
        snprintf(g.cubin_dir, sizeof g.cubin_dir, "%s.cubins", g.out_path);
    v = getenv(GI_ENV(GI_ENV_REPLAY));
    if (!v || !v[0] || strcmp(v, "auto") == 0)
        g.forced_replay = 0;
    else if (strcmp(v, "user") == 0)
        g.forced_replay = CUPTI_UserReplay;
    else if (strcmp(v, "kernel") == 0)
        g.forced_replay = CUPTI_KernelReplay;
    else {
        gi_stand_down(GI_ERROR_CONFIG, "GPUQ_REPLAY='%s' is not auto, user or kernel", v);
        return 0;
    }
    v = getenv(GI_ENV(GI_ENV_BATCH));
    if (v && v[0]) {
        gm_error berr = {{0}};
        uint64_t batch = 0;
        if (gi_parse_count(GI_ENV(GI_ENV_BATCH), v, 1, &batch, &berr) != GM_OK || batch < 1 ||
            batch > GI_MAX_BATCH) {
            gi_stand_down(GI_ERROR_CONFIG, "GPUQ_BATCH='%s' is not a count of 1 to %d", v,
                          GI_MAX_BATCH);
            return 0;
        }
        g.batch = (size_t)batch;
    } else {
        g.batch = GI_DEFAULT_BATCH;
    }
    v = getenv(GI_ENV(GI_ENV_FULL_LAUNCHES));
    if (v && v[0]) {
        gm_error ferr = {{0}};
        uint64_t full = 0;
        if (gi_parse_count(GI_ENV(GI_ENV_FULL_LAUNCHES), v, 0, &full, &ferr) != GM_OK ||
            full > 1000000) {
            gi_stand_down(GI_ERROR_CONFIG,
                          "GPUQ_FULL_LAUNCHES='%s' is not a count of 0 to 1000000", v);
            return 0;
        }
        g.full_launches = (long)full;
    } else {
        g.full_launches = 1;
    }
    v = getenv(GI_ENV(GI_ENV_DEBUG));
    g.debug = v && v[0] && strcmp(v, "0") != 0;
    v = getenv(GI_ENV(GI_ENV_SASS_METRIC));
    snprintf(g.sass_metric, sizeof g.sass_metric, "%s", v && v[0] ? v : GI_SASS_ALL_METRIC);
    v = getenv(GI_ENV(GI_ENV_COMMAND));
    snprintf(g.command, sizeof g.command, "%s", v ? v : "");

    gm_error err = {{0}};
    uint64_t skip = 0, count = 0;
    const char *skip_var = GI_ENV(GI_ENV_LAUNCH_SKIP), *count_var = GI_ENV(GI_ENV_LAUNCH_COUNT);
    if (gi_parse_count(skip_var, getenv(skip_var), 0, &skip, &err) != GM_OK ||
        gi_parse_count(count_var, getenv(count_var), 0, &count, &err) != GM_OK ||
        gi_filter_init(&g.filter, getenv(GI_ENV(GI_ENV_KERNEL_REGEX)), skip, count, &err) != GM_OK) {
        gi_stand_down(GI_ERROR_CONFIG, "%s", err.msg);
        return 0;
    }
    return 1;
}

/* libcupti dlopen()s libnvperf_host.so by name; the collector's rpath does
 * not apply to that, so load it from CUPTI's directory first when the
 * loader's search path does not have it. */
static void preload_nvperf(void)
{
    uint64_t t0 = gi_now_ns();
    static const char *const libs[] = {"libnvperf_host.so", "libnvperf_target.so"};
    for (size_t i = 0; i < 2; i++) {
        if (dlopen(libs[i], RTLD_NOW | RTLD_GLOBAL))
            continue;
#ifdef GPUQ_CUPTI_LIBDIR
        char path[GI_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", GPUQ_CUPTI_LIBDIR, libs[i]);
        if (dlopen(path, RTLD_NOW | RTLD_GLOBAL))
            continue;
#endif
        gi_verbose("%s not found by the loader; CUPTI may fail to evaluate metrics", libs[i]);
    }
    gi_call_done(GI_CALL_PRELOAD, t0);
}

/* Loading the two NVIDIA perf libraries takes about 0.1 s (H200), which a
 * thread does while the program's cuInit returns and its first context is
 * made; the first device set-up waits for it (gi_preload_join). */
static pthread_t preload_thread;
static int preload_running;
static pthread_mutex_t preload_lock = PTHREAD_MUTEX_INITIALIZER;

static void *preload_main(void *arg)
{
    (void)arg;
    preload_nvperf();
    return NULL;
}

static void preload_start(void)
{
    if (pthread_create(&preload_thread, NULL, preload_main, NULL) == 0)
        preload_running = 1;
    else
        preload_nvperf();
}

/* Also before fork(): a child must not inherit the loader's lock held by a
 * thread that does not exist in it. */
void gi_preload_join(void)
{
    pthread_mutex_lock(&preload_lock);
    if (preload_running) {
        uint64_t t0 = gi_now_ns();
        pthread_join(preload_thread, NULL);
        preload_running = 0;
        gi_call_done(GI_CALL_PRELOAD_WAIT, t0);
    }
    pthread_mutex_unlock(&preload_lock);
}

static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    /* Not launches: a capture closes the counters window before it begins,
     * and no window opens until it ends (gi_device.captures_active). */
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    /* The end of a capture: windows may open again. */
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
    /* Graphs: their kernel nodes are read when instantiated (collector_graph.c). */
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
};

static void initialize_once(void)
{
    g.init_ns = gi_now_ns();
    g.pid = getpid();
    for (int i = 0; i < GI_MAX_DEVICES; i++) {
        pthread_mutex_init(&g.devices[i].lock, NULL);
        g.devices[i].ordinal = i;
        g.devices[i].lock_fd = -1;
    }
    const char *t0_env = getenv(GI_ENV(GI_ENV_T0_NS));
    if (t0_env)
        g.t0_ns = strtoull(t0_env, NULL, 10);
    if (!read_config())
        return;

    /* Only the driver API domain: the runtime's launches reach cuLaunchKernel
     * too, and subscribing to both would count them twice. */
    char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {0};
    CUpti_SubscriberParams sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    sp.subscriberName = "gpuq";
    sp.oldSubscriberName = old_name;
    sp.oldSubscriberSize = sizeof old_name;
    uint64_t t0 = gi_now_ns();
    CUptiResult rc = cuptiSubscribe_v2(&g.subscriber, gi_on_callback, NULL, &sp);
    if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        gi_stand_down(GI_ERROR_BUSY,
                      "another CUPTI tool (%s) is already attached to this program; gpuq cannot "
                      "profile it at the same time (do not run gpuq under nsys, ncu or a profiler "
                      "that the program starts itself)",
                      old_name[0] ? old_name : "unnamed");
        return;
    }
    if (rc != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiSubscribe_v2", rc);
        return;
    }
    g.subscribed = 1;
    if ((rc = cuptiEnableDomain(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE)) != CUPTI_SUCCESS) {
        gi_cupti_failed("cuptiEnableDomain(resource)", rc);
        return;
    }
    for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++) {
        rc = cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids[i]);
        if (rc != CUPTI_SUCCESS) {
            gi_cupti_failed("cuptiEnableCallback", rc);
            return;
        }
    }
    if (!gi_nvtx_setup())
        return;
    gi_call_done(GI_CALL_SUBSCRIBE, t0);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    preload_start();
    atexit(drain);
    if (g.pass == GI_PASS_COUNTERS && g.batch > 1)
        install_signal_flush();
    g.ready_ns = gi_now_ns();
    gi_verbose("collector ready: pass %s, output '%s'", g.pass == GI_PASS_SASS ? "sass" : "counters",
               g.out_path);
}

/* GPUQ_DEBUG: the end of the timeline (what the program's teardown costs
 * after the drain). */
__attribute__((destructor)) static void debug_unloaded(void)
{
    if (g.debug && g.t0_ns && getpid() == g.pid)
        gi_note("[debug] collector unloaded at %.1f ms since gpuq started the program",
                ((double)gi_now_ns() - (double)g.t0_ns) / 1e6);
}

/* Called by libcuda inside the program's cuInit, before any context exists,
 * when CUDA_INJECTION64_PATH names this library. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_once);
    return 1;
}

