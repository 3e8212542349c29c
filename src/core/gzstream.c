/* Plain or gzip-compressed files behind one FILE*: a zlib gzFile wrapped in
 * a stdio stream with fopencookie(), so the loaders keep one code path. */
#define _GNU_SOURCE
#include "gzstream.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>

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

#else

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
