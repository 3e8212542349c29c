/* The harnesses' shared helpers (fuzz_input.h). */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
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

void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "%s:%d: broken promise: %s\n", file, line, what);
    abort();
}
