/* Output files of every subcommand: an output that is one of the inputs is
 * refused, a file is written whole or not at all (temporary file + rename,
 * removed again on a write error, SIGINT or SIGTERM), and no write error
 * goes unnoticed, on stdout neither. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "inject/gi_pattern.h"
#include "core/gzstream.h"

int cli_take_once(const char *cmd, const char *option, const char **slot, const char *value)
{
    if (!value || !value[0]) {
        cli_usage_error(cmd, "%s needs a value, got ''", option);
        return -1;
    }
    /* The same value twice is harmless; two different ones would leave one
     * of them silently unused. */
    if (*slot && strcmp(*slot, value) != 0) {
        cli_usage_error(cmd, "%s given twice ('%s' and '%s'): which one is meant", option,
                        *slot, value);
        return -1;
    }
    *slot = value;
    return 0;
}

/* path resolved as far as it exists: realpath of the folder + the name. */
static int resolve(const char *path, char *out, size_t len)
{
    char real[PATH_MAX];
    if (realpath(path, real)) {
        snprintf(out, len, "%s", real);
        return 1;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = path;
    if (slash) {
        base = path + (slash - dir) + 1;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    if (!realpath(dir, real))
        return 0;
    int w = snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base);
    return w > 0 && (size_t)w < len;
}

int cli_same_file(const char *a, const char *b)
{
    if (!a || !b || !a[0] || !b[0] || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
    if (ea || eb)
        return 0; /* one exists, the other not: two files */
    /* neither exists yet (two outputs of one run): the same name? */
    if (gi_pattern_is_pattern(a) || gi_pattern_is_pattern(b))
        return strcmp(a, b) == 0;
    char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
    return resolve(a, ra, sizeof ra) && resolve(b, rb, sizeof rb) && strcmp(ra, rb) == 0;
}

int cli_check_output(const char *cmd, const char *option, const char *output,
                     const char *const *inputs, size_t n)
{
    if (!output)
        return 0;
    if (!output[0]) {
        cli_usage_error(cmd, "%s needs a file name, got ''", option);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && cli_same_file(output, inputs[i])) {
            cli_error(cmd, "cannot write %s (it is the input %s; choose another %s)", output,
                      inputs[i], option);
            return -1;
        }
    return 0;
}

/* ---- writing ---------------------------------------------------------- */

/* The temporary file being written, for the signal handler. */
static char pending_tmp[PATH_MAX + 64];
static volatile sig_atomic_t pending;

static void remove_pending(int sig)
{
    if (pending)
        unlink(pending_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGINT and SIGTERM remove the temporary file, where their action is the
 * default one (a command with its own handlers, gpuq profile's, lets the
 * write finish instead). */
static void guard(struct sigaction old[2])
{
    static const int sigs[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        sigaction(sigs[i], NULL, &old[i]);
        if (!(old[i].sa_flags & SA_SIGINFO) && old[i].sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = remove_pending;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
    }
}

static void unguard(const struct sigaction old[2])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
}

/* The data of a closed file on disk before it is renamed into place. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int cli_finish_stdout(const char *cmd)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno ? errno : EIO;
        clearerr(stdout);
        cli_error(cmd, "cannot write the standard output (%s)", strerror(e));
        return GPUQ_EXIT_INPUT;
    }
    return GPUQ_EXIT_OK;
}

int cli_write_output(const char *cmd, const char *path, cli_writer writer, const void *obj)
{
    gm_error err = {{0}};
    gm_status st;
    if (!path || strcmp(path, "-") == 0) {
        errno = 0;
        st = writer(stdout, obj, &err);
        int e = errno;
        if (st == GM_ERR_IO && e) {
            /* the stream's own reason, not the writer's summary of it */
            clearerr(stdout);
            cli_error(cmd, "cannot write the standard output (%s)", strerror(e));
            return GPUQ_EXIT_INPUT;
        }
        if (st != GM_OK)
            return cli_fail(cmd, st, &err);
        return cli_finish_stdout(cmd);
    }
    if (!path[0]) {
        cli_usage_error(cmd, "the output needs a file name, got ''");
        return GPUQ_EXIT_USAGE;
    }
    /* A regular file is replaced atomically (temporary file + rename), so a
     * crash never leaves half of it; a device or pipe (/dev/null,
     * /dev/stdout) is written in place: renaming over it would replace it. */
    struct stat sb;
    int in_place = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
    char tmp[sizeof pending_tmp];
    int w;
    if (gm_path_is_gz(path)) /* the name keeps ".gz" last: the temp is compressed too */
        w = snprintf(tmp, sizeof tmp, "%.*s.tmp.%ld.gz", (int)(strlen(path) - 3), path,
                     (long)getpid());
    else
        w = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (w < 0 || (size_t)w >= sizeof tmp) {
        cli_error(cmd, "cannot write %s (the name is too long)", path);
        return GPUQ_EXIT_INPUT;
    }
    struct sigaction old[2];
    if (!in_place) {
        snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
        pending = 1; /* from before it exists: a signal in between finds none */
        guard(old);
    }
    FILE *out = in_place ? fopen(path, "w") : gm_fopen_maybe_gz(tmp, "w");
    if (!out) {
        int e = errno;
        pending = 0;
        if (!in_place)
            unguard(old);
        cli_error(cmd, "cannot create %s (%s)", path, strerror(e));
        return GPUQ_EXIT_INPUT;
    }
    errno = 0;
    st = writer(out, obj, &err);
    /* A stream error is reported with the stream's own reason (errno of the
     * failed write, flush or close), not the writer's summary of it. */
    int e = st == GM_ERR_IO ? (errno ? errno : EIO) : 0;
    if (st == GM_OK && (fflush(out) != 0 || ferror(out)))
        e = errno ? errno : EIO;
    if (fclose(out) != 0 && st == GM_OK && !e)
        e = errno ? errno : EIO;
    if (st == GM_OK && !e && !in_place && sync_file(tmp) != 0)
        e = errno;
    if (st == GM_OK && !e && !in_place && rename(tmp, path) != 0)
        e = errno;
    if ((st != GM_OK || e) && !in_place)
        unlink(tmp);
    pending = 0;
    if (!in_place)
        unguard(old);
    if (e) {
        cli_error(cmd, "cannot write %s (%s)", path, strerror(e));
        return GPUQ_EXIT_INPUT;
    }
    return st == GM_OK ? GPUQ_EXIT_OK : cli_fail(cmd, st, &err);
}

typedef struct report_job {
    const gm_report *rep;
    gm_format fmt;
} report_job;

static gm_status write_report(FILE *out, const void *obj, gm_error *err)
{
    const report_job *j = obj;
    return gm_report_write(out, j->rep, j->fmt, err);
}

int cli_write_report(const char *cmd, const char *path, const gm_report *rep, gm_format fmt)
{
    report_job j = {rep, fmt};
    return cli_write_output(cmd, path, write_report, &j);
}
