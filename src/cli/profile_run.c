/* gpuq profile: running the program under the collector (one pass), what
 * its status file says, signals, and the temporary directory. */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"

static volatile sig_atomic_t child_pid;
volatile sig_atomic_t prof_interrupted_by;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    prof_interrupted_by = sig;
    /* Ctrl-C at a terminal reaches the whole foreground process group, the
     * program included; only a signal sent to gpuq alone (kill: si_code
     * <= 0) is passed on. */
    pid_t pid = (pid_t)child_pid;
    if (pid > 0 && (!si || si->si_code <= 0))
        kill(pid, sig);
}


/* words[] (NULL-terminated) joined by sep into buf, cut at its end. */
static void join_words(const char *const *words, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; words[i] && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? sep : "", words[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void set_count_env(const char *name, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    setenv(name, text, 1);
}
/* Why exec of prog failed with errno e, in words: ENOENT for a file that
 * exists means its #! interpreter is missing, which strerror does not say. */
static void exec_failure(const char *prog, int e, char *buf, size_t len)
{
    FILE *f = e == ENOENT && strchr(prog, '/') ? fopen(prog, "r") : NULL;
    char line[256];
    if (f && fgets(line, sizeof line, f) && line[0] == '#' && line[1] == '!') {
        char *interp = line + 2;
        interp += strspn(interp, " \t");
        interp[strcspn(interp, " \t\r\n")] = '\0';
        snprintf(buf, len, "its interpreter '%s', named on its #! line, does not exist", interp);
    } else {
        snprintf(buf, len, "%s", strerror(e));
    }
    if (f)
        fclose(f);
}

int prof_run_pass(const profile_opts *o, const char *collector, const pass_env *pe,
                  machine_prefetch *prefetch, disasm_spec *spec, run_result *res)
{
    memset(res, 0, sizeof *res);
    fflush(NULL);
    struct timespec forked;
    clock_gettime(CLOCK_MONOTONIC, &forked);
    pid_t gpuq_pid = getpid();
    /* The child reports a failed exec through this pipe (closed by a
     * successful exec), so that gpuq says it once, in its own words. */
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
        cli_error(CMD, "cannot start '%s' (pipe: %s)", o->program[0], strerror(errno));
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(CMD, "cannot start '%s' (fork: %s)", o->program[0], strerror(errno));
        close(exec_pipe[0]);
        close(exec_pipe[1]);
        return 0;
    }
    if (pid == 0) {
        close(exec_pipe[0]);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        /* If gpuq itself is killed (SIGKILL, which it cannot forward), the
         * program gets SIGTERM instead of running on with the GPU's
         * counters held and nobody to read its results: the collector's
         * signal path writes what it measured, and the program ends as a
         * SIGTERM would end it.  The setting changes nothing else (it
         * survives exec, is not inherited by the program's own children,
         * and fires only when gpuq dies first); gpuq dead before it was
         * set: end now. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != gpuq_pid)
            _exit(128 + SIGTERM);
        char command[512];
        join_words((const char *const *)o->program, " ", command, sizeof command);
        setenv(GI_ENV(GI_ENV_INJECTION), collector, 1);
        setenv(GI_ENV(GI_ENV_PASS), pe->pass, 1);
        setenv(GI_ENV(GI_ENV_OUT), pe->out, 1);
        if (pe->out_tmp)
            setenv(GI_ENV(GI_ENV_OUT_TMP), pe->out_tmp, 1);
        else
            unsetenv(GI_ENV(GI_ENV_OUT_TMP));
        setenv(GI_ENV(GI_ENV_STATUS), pe->status, 1);
        setenv(GI_ENV(GI_ENV_COMMAND), command, 1);
        char t0[32];
        snprintf(t0, sizeof t0, "%lld", (long long)forked.tv_sec * 1000000000LL + forked.tv_nsec);
        setenv(GI_ENV(GI_ENV_T0_NS), t0, 1);
        /* Wall clock: an output file older than this is a left-over of an
         * earlier run, which the collector replaces. */
        struct timespec wall;
        clock_gettime(CLOCK_REALTIME, &wall);
        snprintf(t0, sizeof t0, "%lld", (long long)wall.tv_sec * 1000000000LL + wall.tv_nsec);
        setenv(GI_ENV(GI_ENV_RUN_START_NS), t0, 1);
        if (pe->cubin_dir)
            setenv(GI_ENV(GI_ENV_CUBIN_DIR), pe->cubin_dir, 1);
        else
            unsetenv(GI_ENV(GI_ENV_CUBIN_DIR));
        const char *user_metric = getenv(GI_ENV(GI_ENV_SASS_METRIC));
        if (pe->sass_metric && !(user_metric && user_metric[0]))
            setenv(GI_ENV(GI_ENV_SASS_METRIC), pe->sass_metric, 1);
        /* --section: the collector gathers those units' metrics only
         * (else every registered unit's, or GPUQ_SECTIONS as set). */
        if (o->r.n_sections > 0) {
            char list[1024];
            join_words(o->r.sections, ",", list, sizeof list);
            setenv(GI_ENV(GI_ENV_SECTIONS), list, 1);
        }
        if (o->regex)
            setenv(GI_ENV(GI_ENV_KERNEL_REGEX), o->regex, 1);
        else
            unsetenv(GI_ENV(GI_ENV_KERNEL_REGEX));
        if (o->nvtx_include)
            setenv(GI_ENV(GI_ENV_NVTX_INCLUDE), o->nvtx_include, 1);
        else
            unsetenv(GI_ENV(GI_ENV_NVTX_INCLUDE));
        set_count_env(GI_ENV(GI_ENV_LAUNCH_SKIP), o->skip);
        set_count_env(GI_ENV(GI_ENV_LAUNCH_COUNT), o->count);
        char full[32];
        snprintf(full, sizeof full, "%ld", o->full_launches);
        setenv(GI_ENV(GI_ENV_FULL_LAUNCHES), full, 1);
        execvp(o->program[0], o->program);
        int e = errno;
        ssize_t put = write(exec_pipe[1], &e, sizeof e);
        (void)put;
        _exit(127);
    }
    close(exec_pipe[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(exec_pipe[0]);
    if (got == (ssize_t)sizeof exec_errno) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        char why[320];
        exec_failure(o->program[0], exec_errno, why, sizeof why);
        cli_error(CMD, "cannot run '%s' (%s)", o->program[0], why);
        return 0;
    }
    child_pid = pid;
    res->pid = (long)pid;
    int status = 0;
    int reaped = 0;
    if (prefetch && spec) {
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        reaped = prof_while_running(prefetch, spec, pid, &status, &start);
    }
    while (!reaped && waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_error(CMD, "waiting for '%s' failed (%s)", o->program[0], strerror(errno));
            child_pid = 0;
            return 0;
        }
    }
    child_pid = 0;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->sig = WTERMSIG(status);
    }
    return 1;
}

/* What the collector reported (its status file, "key: value" lines). */
void prof_read_status(const char *path, collector_status *s)
{
    gi_status_read(path, s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t prof_status_files(const char *prefix, char ***out)
{
    *out = NULL;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", prefix);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    const char *base = slash + 1;
    size_t blen = strlen(base), n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strncmp(name, base, blen) != 0 || name[blen] != '.' || !name[blen + 1] ||
            strspn(name + blen + 1, "0123456789") != strlen(name + blen + 1))
            continue;
        char **grown = realloc(*out, (n + 1) * sizeof *grown);
        if (!grown)
            break;
        *out = grown;
        size_t len = strlen(dir) + strlen(name) + 2;
        if (((*out)[n] = malloc(len)) != NULL)
            snprintf((*out)[n++], len, "%s/%s", dir, name);
    }
    closedir(d);
    if (n)
        qsort(*out, n, sizeof **out, cmp_str);
    return n;
}

void prof_read_statuses(const char *prefix, status_set *set)
{
    memset(set, 0, sizeof *set);
    char **files = NULL;
    size_t n = prof_status_files(prefix, &files);
    set->proc = calloc(n + 1, sizeof *set->proc);
    collector_status *t = &set->total;
    for (size_t i = 0; set->proc && i < n; i++) {
        collector_status *s = &set->proc[set->n];
        prof_read_status(files[i], s);
        if (!s->present)
            continue;
        set->n++;
        t->present = 1;
        t->launches_seen += s->launches_seen;
        t->profiled += s->profiled;
        t->rows += s->rows;
        t->filtered += s->filtered;
        t->graphs += s->graphs;
        t->captured += s->captured;
        t->capture_skipped += s->capture_skipped;
        t->graph_captured += s->graph_captured;
        t->graph_profiled += s->graph_profiled;
        t->graph_nodes += s->graph_nodes;
        t->nvtx_outside += s->nvtx_outside;
        t->repeat_launches += s->repeat_launches;
        if (!t->passes)
            t->passes = s->passes;
        if (!t->replay[0])
            snprintf(t->replay, sizeof t->replay, "%s", s->replay);
        if (prof_collector_failed(s) && !prof_collector_failed(t)) {
            snprintf(t->error_kind, sizeof t->error_kind, "%s", s->error_kind);
            snprintf(t->error, sizeof t->error, "%s", s->error);
        }
    }
    prof_free_list(files, n);
}

void prof_untemp_names(status_set *set, const char *out_tmp)
{
    size_t n = strlen(out_tmp);
    for (size_t i = 0; i < set->n; i++) {
        collector_status *p = &set->proc[i];
        snprintf(p->written, sizeof p->written, "%s", p->output);
        size_t len = strlen(p->output);
        if (n && len > n && strcmp(p->output + len - n, out_tmp) == 0)
            p->output[len - n] = '\0';
    }
}

int prof_keep_counters(const char *written, const char *final)
{
    if (strcmp(written, final) == 0 || rename(written, final) == 0)
        return 1;
    cli_error(CMD, "cannot rename %s to %s (%s); the counters are in %s", written, final,
              strerror(errno), written);
    return 0;
}

void prof_status_set_free(status_set *set)
{
    free(set->proc);
    memset(set, 0, sizeof *set);
}

int prof_collector_failed(const collector_status *s)
{
    return s->present && s->error_kind[0] && strcmp(s->error_kind, "none") != 0;
}

void prof_describe_exit(const run_result *r, char *buf, size_t len)
{
    if (r->signaled)
        snprintf(buf, len, "was killed by signal %d (%s)", r->sig, strsignal(r->sig));
    else
        snprintf(buf, len, "exited with status %d", r->code);
}
int prof_program_status(const run_result *r)
{
    if (r->signaled)
        return 128 + r->sig;
    return r->code;
}

/* Removes the temporary directory: the files this command and the collector
 * put there (status files, the sass file, cubins/<crc>.cubin). */
void prof_remove_temp_dir(const char *dir)
{
    char path[PATH_MAX + 64];
    static const char *const subdirs[] = {"cubins", "cubins-counters", "spec"};
    for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++) {
        snprintf(path, sizeof path, "%s/%s", dir, subdirs[s]);
        DIR *d = opendir(path);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char file[PATH_MAX + 320];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
        closedir(d);
        rmdir(path);
    }
    /* The files this command and the collectors put there (status files
     * of every process, their graphs files, the sass file). */
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char file[PATH_MAX + 320];
            snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (lstat(file, &sb) == 0 && S_ISREG(sb.st_mode))
                unlink(file);
        }
        closedir(d);
    }
    rmdir(dir);
}

int prof_make_temp_dir(char *dir, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    int w = snprintf(dir, len, "%s/gpuq-profile.XXXXXX", base);
    if (w < 0 || (size_t)w >= len || !mkdtemp(dir)) {
        cli_error(CMD, "cannot create a temporary directory under %s (%s)", base, strerror(errno));
        return 0;
    }
    return 1;
}

void prof_install_signal_handlers(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
    /* A closed terminal: passed on as well (gpuq then ends as on SIGTERM). */
    sigaction(SIGHUP, &sa, NULL);
}
