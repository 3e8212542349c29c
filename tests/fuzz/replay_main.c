/* Runs a harness over files without libFuzzer (any compiler): every file
 * under the folders and files named on the command line, in name order.
 * This is the fuzz_replay_* ctest: the seeds and every input a fuzzing run
 * ever failed on (tests/data/fuzz-regress/<harness>/) must pass in the
 * normal build, and under ASan+UBSan in the sanitizer build. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"

static size_t replayed;

static int replay_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    size_t cap = 4096, size = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + size, 1, cap - size, in)) > 0) {
        size += got;
        if (size == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    fclose(in);
    if (!data) {
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    replayed++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s: not found\n", path);
        return -1;
    }
    if (!S_ISDIR(sb.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!grown || !(grown[n] = malloc(len))) {
            names = grown ? grown : names;
            rc = -1;
            break;
        }
        names = grown;
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && replay(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (replay(argv[i]) != 0)
            rc = 1;
    printf("replayed %zu inputs\n", replayed);
    if (replayed == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    return rc;
}
