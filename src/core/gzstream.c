/* Plain or gzip-compressed files behind one FILE*: a zlib gzFile wrapped in
 * a stdio stream with fopencookie(), so the loaders keep one code path. */
#define _GNU_SOURCE
#include "gzstream.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int gm_path_is_gz(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

#ifdef GPUQ_HAVE_ZLIB
#include <zlib.h>

static ssize_t gz_read(void *cookie, char *buf, size_t size)
{
    int n = gzread((gzFile)cookie, buf, (unsigned)(size > (1u << 30) ? (1u << 30) : size));
    if (n < 0) {
        errno = EIO;
        return -1;
    }
    return n;
}

static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
    if (size == 0)
        return 0;
    int n = gzwrite((gzFile)cookie, buf, (unsigned)size);
    if (n <= 0) {
        errno = EIO;
        return -1;
    }
    return n;
}

static int gz_close(void *cookie)
{
    return gzclose((gzFile)cookie) == Z_OK ? 0 : EOF;
}

int gm_have_gz(void)
{
    return 1;
}

FILE *gm_fopen_maybe_gz(const char *path, const char *mode)
{
    if (!gm_path_is_gz(path))
        return fopen(path, mode);
    int writing = mode[0] == 'w';
    FILE *probe = fopen(path, writing ? "wb" : "rb"); /* errno like fopen for missing files */
    if (!probe)
        return NULL;
    fclose(probe);
    gzFile gz = gzopen(path, writing ? "wb6" : "rb");
    if (!gz) {
        errno = errno ? errno : EIO;
        return NULL;
    }
    cookie_io_functions_t io = {.read = writing ? NULL : gz_read,
                                .write = writing ? gz_write : NULL,
                                .seek = NULL,
                                .close = gz_close};
    FILE *f = fopencookie(gz, writing ? "w" : "r", io);
    if (!f)
        gzclose(gz);
    return f;
}

/* The read stream of an open descriptor of a ".gz" file. */
static FILE *gz_read_stream(int fd)
{
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        errno = errno ? errno : ENOMEM;
        return NULL;
    }
    cookie_io_functions_t io = {.read = gz_read, .write = NULL, .seek = NULL, .close = gz_close};
    FILE *f = fopencookie(gz, "r", io);
    if (!f)
        gzclose(gz);
    return f;
}

#else

static FILE *gz_read_stream(int fd)
{
    close(fd);
    errno = ENOTSUP;
    return NULL;
}

int gm_have_gz(void)
{
    return 0;
}

FILE *gm_fopen_maybe_gz(const char *path, const char *mode)
{
    if (!gm_path_is_gz(path))
        return fopen(path, mode);
    errno = ENOTSUP;
    return NULL;
}

#endif

static const char *file_type(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    return "not a plain file";
}

gm_status gm_open_input(const char *path, const char *what, FILE **out, gm_error *err)
{
    if (!path || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or output stream");
    *out = NULL;
    if (!path[0])
        return gm_fail(err, GM_ERR_IO, "empty file name");
    /* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return gm_fail(err, GM_ERR_IO, "cannot open %s (%s)", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return gm_fail(err, GM_ERR_IO, "%s: cannot stat (%s)", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return gm_fail(err, GM_ERR_IO, "%s: is a directory, not a %s", path,
                       what ? what : "file");
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gm_fail(err, GM_ERR_IO,
                       "%s: is %s, not a regular file, and may block or never end (save it "
                       "to a file first)",
                       path, file_type(sb.st_mode));
    }
    /* Back to blocking reads (a regular file never waits; this keeps stdio
     * from ever seeing EAGAIN). */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f;
    if (gm_path_is_gz(path)) {
        f = gz_read_stream(fd);
        if (!f && errno == ENOTSUP)
            return gm_fail(err, GM_ERR_UNSUPPORTED,
                           "%s: this gpuq was built without zlib (gunzip the file first)", path);
    } else {
        f = fdopen(fd, "r");
        if (!f)
            close(fd);
    }
    if (!f)
        return gm_fail(err, GM_ERR_IO, "cannot open %s (%s)", path, strerror(errno));
    *out = f;
    return GM_OK;
}
