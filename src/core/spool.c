/* The spool (spool.h): a fopencookie() stream whose bytes go to a memory
 * buffer until it would pass its bound, then, with the buffer, to a
 * temporary file that has no name (unlinked at once, so that nothing is
 * left behind however the program ends). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"

#define SPOOL_MEM_DEFAULT (1u << 20)

struct gm_spool {
    FILE *stream;     /* the cookie stream the writers see */
    char *mem;        /* the bytes while they fit */
    size_t len, cap, mem_max;
    int fd;           /* the temporary file once they do not; -1 before */
    size_t size;      /* bytes written in all */
    int error;        /* errno of the first failed write, 0 none */
};

static int make_temp(gm_spool *s)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/gpuq-spool.XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        s->error = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        s->error = errno;
        return -1;
    }
    unlink(path);
    s->fd = fd;
    return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static ssize_t spool_write(void *cookie, const char *buf, size_t n)
{
    gm_spool *s = cookie;
    if (s->error)
        return -1;
    if (s->fd < 0 && s->len + n <= s->mem_max) {
        if (s->len + n > s->cap) {
            size_t cap = s->cap ? s->cap : 4096;
            while (cap < s->len + n)
                cap *= 2;
            if (cap > s->mem_max)
                cap = s->mem_max;
            char *grown = realloc(s->mem, cap);
            if (!grown) {
                s->error = ENOMEM;
                return -1;
            }
            s->mem = grown;
            s->cap = cap;
        }
        memcpy(s->mem + s->len, buf, n);
        s->len += n;
        s->size += n;
        return (ssize_t)n;
    }
    if (s->fd < 0) {
        /* past the bound: what was held goes first, then the rest */
        if (make_temp(s) != 0)
            return -1;
        if (write_all(s->fd, s->mem, s->len) != 0) {
            s->error = errno ? errno : EIO;
            return -1;
        }
        free(s->mem);
        s->mem = NULL;
        s->len = s->cap = 0;
    }
    if (write_all(s->fd, buf, n) != 0) {
        s->error = errno ? errno : EIO;
        return -1;
    }
    s->size += n;
    return (ssize_t)n;
}

static int spool_cookie_close(void *cookie)
{
    (void)cookie;
    return 0;
}

gm_status gm_spool_open(gm_spool **out, size_t mem_max, gm_error *err)
{
    *out = NULL;
    gm_spool *s = calloc(1, sizeof *s);
    if (!s)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    s->fd = -1;
    s->mem_max = mem_max ? mem_max : SPOOL_MEM_DEFAULT;
    cookie_io_functions_t io = {NULL, spool_write, NULL, spool_cookie_close};
    s->stream = fopencookie(s, "w", io);
    if (!s->stream) {
        free(s);
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    }
    /* stdio's own buffer in front of the cookie: few, large writes; one
     * writer at a time (the report's), so no lock per call */
    setvbuf(s->stream, NULL, _IOFBF, 64 * 1024);
    __fsetlocking(s->stream, FSETLOCKING_BYCALLER);
    *out = s;
    return GM_OK;
}

FILE *gm_spool_stream(gm_spool *s)
{
    return s->stream;
}

size_t gm_spool_size(const gm_spool *s)
{
    return s->size;
}

gm_status gm_spool_copy(gm_spool *s, FILE *out, gm_error *err)
{
    if (fflush(s->stream) != 0 || s->error || ferror(s->stream)) {
        int e = s->error ? s->error : EIO;
        return gm_fail(err, GM_ERR_IO, "report: cannot write a temporary file under %s (%s)",
                       getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp",
                       strerror(e));
    }
    if (s->fd < 0) {
        if (s->len && fwrite(s->mem, 1, s->len, out) != s->len)
            return gm_fail(err, GM_ERR_IO, "report: write failed: %s", strerror(errno));
        return GM_OK;
    }
    enum { CHUNK = 256 * 1024 };
    char *buf = malloc(CHUNK);
    if (!buf)
        return gm_fail(err, GM_ERR_NOMEM, "report: out of memory");
    gm_status st = GM_OK;
    for (off_t at = 0;;) {
        ssize_t n = pread(s->fd, buf, CHUNK, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = gm_fail(err, GM_ERR_IO, "report: cannot read a temporary file back (%s)",
                         strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
            st = gm_fail(err, GM_ERR_IO, "report: write failed: %s", strerror(errno));
            break;
        }
        at += n;
    }
    free(buf);
    return st;
}

void gm_spool_close(gm_spool *s)
{
    if (!s)
        return;
    fclose(s->stream);
    if (s->fd >= 0)
        close(s->fd);
    free(s->mem);
    free(s);
}
