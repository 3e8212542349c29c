/* The harnesses' shared helpers (fuzz_input.h). */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"

const char *fuzz_input_path(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("gpuq-fuzz-input", 0);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            return NULL;
        done += (size_t)n;
    }
    return path;
}

int fuzz_load_counters(const uint8_t *data, size_t size,
                       gm_status (*load)(const char *, gm_counters_set *, gm_error *),
                       gm_counters_set *set)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return 0;
    gm_error err = {{0}};
    if (load(path, set, &err) != GM_OK) {
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
        return 0;
    }
    return 1;
}

void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "%s:%d: broken promise: %s\n", file, line, what);
    abort();
}
