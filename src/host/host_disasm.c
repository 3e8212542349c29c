/* Finding and running the disassembler (nvdisasm or cuobjdump) for a code
 * pass (host_sass.h): a child process whose output is read whole,
 * with bounded waits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_sass.h"

static int is_executable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

static int find_in_dir(const char *dir, const char *tool, char *path, size_t len)
{
    if (!dir || !dir[0])
        return 0;
    int n = snprintf(path, len, "%s/%s", dir, tool);
    return n > 0 && (size_t)n < len && is_executable(path);
}

gm_status host_find_disassembler(char *path, size_t len, gm_error *err)
{
    const char *forced = getenv("GPUQ_NVDISASM");
    if (forced && forced[0]) {
        if (!is_executable(forced))
            return gm_fail(err, GM_ERR_UNSUPPORTED, "GPUQ_NVDISASM='%s' is not an executable file",
                           forced);
        snprintf(path, len, "%s", forced);
        return GM_OK;
    }
    static const char *const tools[] = {"nvdisasm", "cuobjdump"};
    char dir[4096];
    for (size_t t = 0; t < 2; t++) {
        const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
        for (size_t h = 0; h < 3; h++) {
            if (!homes[h] || !homes[h][0])
                continue;
            snprintf(dir, sizeof dir, "%s/bin", homes[h]);
            if (find_in_dir(dir, tools[t], path, len))
                return GM_OK;
        }
        const char *env_path = getenv("PATH");
        if (env_path) {
            const char *p = env_path;
            while (*p) {
                size_t n = strcspn(p, ":");
                if (n > 0 && n < sizeof dir) {
                    memcpy(dir, p, n);
                    dir[n] = '\0';
                    if (find_in_dir(dir, tools[t], path, len))
                        return GM_OK;
                }
                p += n + (p[n] == ':');
            }
        }
    }
    return gm_fail(err, GM_ERR_UNSUPPORTED,
                   "neither nvdisasm nor cuobjdump was found in $CUDA_HOME/bin, "
                   "/usr/local/cuda/bin or $PATH (set GPUQ_NVDISASM)");
}

/* Appends what is readable on fd to *buf; returns 0 at end of file. */
static int drain_fd(int fd, char **buf, size_t *len, size_t *cap, int *nomem)
{
    char chunk[65536];
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN;
    if (got == 0)
        return 0;
    if (*len + (size_t)got + 1 > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (c < *len + (size_t)got + 1)
            c *= 2;
        char *bigger = realloc(*buf, c);
        if (!bigger) {
            *nomem = 1;
            return 0;
        }
        *buf = bigger;
        *cap = c;
    }
    memcpy(*buf + *len, chunk, (size_t)got);
    *len += (size_t)got;
    (*buf)[*len] = '\0';
    return 1;
}

/* Runs argv (argv[0] a path), collecting its standard output in *text;
 * a non-zero exit is an error quoting the first line it printed on
 * standard error. */
static gm_status run_tool(const char *const argv[], const char *subject, char **text,
                          gm_error *err)
{
    *text = NULL;
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0)
        return gm_fail(err, GM_ERR_IO, "pipe: %s", strerror(errno));
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return gm_fail(err, GM_ERR_IO, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[0]);
        close(err_pipe[1]);
        return gm_fail(err, GM_ERR_IO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(out_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[0]);
        close(err_pipe[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    char *out = NULL, *errs = NULL;
    size_t out_len = 0, out_cap = 0, err_len = 0, err_cap = 0;
    int nomem = 0, out_open = 1, err_open = 1;
    while (out_open || err_open) {
        struct pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0},
                                {err_open ? err_pipe[0] : -1, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            out_open = drain_fd(out_pipe[0], &out, &out_len, &out_cap, &nomem);
        if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            err_open = drain_fd(err_pipe[0], &errs, &err_len, &err_cap, &nomem);
    }
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    gm_status st = GM_OK;
    if (nomem) {
        st = gm_fail(err, GM_ERR_NOMEM, "out of memory reading the disassembly");
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (errs)
            errs[strcspn(errs, "\n")] = '\0';
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        st = gm_fail(err, GM_ERR_IO, "%s on '%s' failed with status %d%s%s", base, subject, code,
                     errs && errs[0] ? ": " : "", errs ? errs : "");
    }
    free(errs);
    if (st != GM_OK) {
        free(out);
        return st;
    }
    if (!out) {
        out = calloc(1, 1);
        if (!out)
            return gm_fail(err, GM_ERR_NOMEM, "out of memory");
    }
    *text = out;
    return GM_OK;
}

gm_status host_disassemble(const char *tool, const char *cubin, const char *functions, char **text,
                         gm_error *err)
{
    *text = NULL;
    /* nvdisasm's -fun takes symbol indices, cuobjdump's takes names: a
     * restricted disassembly goes to the cuobjdump beside nvdisasm. */
    char sibling[4096];
    if (functions && functions[0] && !strstr(tool, "cuobjdump")) {
        const char *slash = strrchr(tool, '/');
        int n = slash ? snprintf(sibling, sizeof sibling, "%.*s/cuobjdump", (int)(slash - tool), tool)
                      : -1;
        if (n > 0 && (size_t)n < sizeof sibling && is_executable(sibling))
            tool = sibling;
        else
            functions = NULL;
    }
    const char *base = strrchr(tool, '/');
    base = base ? base + 1 : tool;
    int cuobjdump = strstr(base, "cuobjdump") != NULL;
    const char *mode = cuobjdump ? "-sass" : "-c";
    if (functions && functions[0]) {
        const char *argv[] = {tool, mode, "-fun", functions, cubin, NULL};
        return run_tool(argv, cubin, text, err);
    }
    const char *argv[] = {tool, mode, cubin, NULL};
    return run_tool(argv, cubin, text, err);
}

gm_status host_disassemble_raw(const char *tool, const char *raw_file, const char *arch, char **text,
                             gm_error *err)
{
    *text = NULL;
    const char *base = strrchr(tool, '/');
    base = base ? base + 1 : tool;
    if (!strstr(base, "nvdisasm"))
        return gm_fail(err, GM_ERR_UNSUPPORTED, "%s cannot disassemble raw code (nvdisasm can)",
                       base);
    const char *argv[] = {tool, "-b", arch, raw_file, NULL};
    return run_tool(argv, raw_file, text, err);
}
