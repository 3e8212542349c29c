/* Writing a file so that a crash never leaves a torn one behind: the
 * content goes to path.tmp.<pid> (".gz" kept last for compressed targets),
 * is flushed and synced, then renamed over path, and the directory synced. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "gzstream.h"

/* Flushes a closed file's data to disk before it is renamed into place. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* fsync of the directory makes the rename itself durable; best effort,
 * since some file systems refuse fsync on a directory. */
static void sync_parent_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    char *slash = strrchr(copy, '/');
    const char *dir = ".";
    if (slash == copy)
        dir = "/";
    else if (slash) {
        *slash = '\0';
        dir = copy;
    }
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

gm_status gm_write_file_atomically(const char *path, gm_file_writer writer, const void *obj,
                                   gm_error *err)
{
    if (!path || !writer)
        return gm_fail(err, GM_ERR_INVALID_ARG, "no path or writer");
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return gm_fail(err, GM_ERR_NOMEM, "%s: cannot allocate a path", path);
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    /* A ".gz" target gets a compressed temp file: the name keeps ".gz" last. */
    if (gm_path_is_gz(path))
        snprintf(tmp, len, "%.*s.tmp.%ld.gz", (int)(strlen(path) - 3), path, (long)getpid());

    gm_status st = GM_OK;
    FILE *out = gm_fopen_maybe_gz(tmp, "w");
    if (!out) {
        st = gm_fail(err, GM_ERR_IO, "%s: cannot create temporary file %s (%s)", path, tmp,
                     strerror(errno));
        free(tmp);
        return st;
    }
    st = writer(out, obj, err);
    if (st == GM_OK && fflush(out) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot write %s (%s)", path, tmp, strerror(errno));
    if (fclose(out) != 0 && st == GM_OK)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot close %s (%s)", path, tmp, strerror(errno));
    if (st == GM_OK && sync_file(tmp) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot sync %s (%s)", path, tmp, strerror(errno));
    if (st == GM_OK && rename(tmp, path) != 0)
        st = gm_fail(err, GM_ERR_IO, "%s: cannot rename %s over it (%s)", path, tmp,
                     strerror(errno));
    if (st != GM_OK)
        unlink(tmp);
    else
        sync_parent_dir(path);
    free(tmp);
    return st;
}
