/* libFuzzer harness: machine-data lookup (gm_mdata_find, gm_machine_load).
 * The input is written as the sched, throughput and gatomics file of one
 * GPU folder under a private $GPUQ_TABLE_DIR; the lookup reads its header
 * to find the folder, then loads each suite.  Promises: a file is found
 * only for the GPU name and SM count its header gives, a suite loads only
 * from a file that holds that suite, and a refusal is one line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "gpuq/mdata.h"
#include "gpuq/unit.h"

static char root[256];

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && put == size ? 0 : -1;
}

static void cleanup(void)
{
    static const char *const files[] = {"sched.csv", "throughput.csv", "gatomics.csv"};
    char path[400];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/gpu/%s", root, files[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/gpu", root);
    rmdir(path);
    rmdir(root);
}

static int setup(void)
{
    if (root[0])
        return 0;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(root, sizeof root, "%s/gpuq-fuzz-machine-%ld", tmp, (long)getpid());
    char dir[300];
    snprintf(dir, sizeof dir, "%s/gpu", root);
    if ((mkdir(root, 0700) != 0 && access(root, W_OK) != 0) ||
        (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0))
        return -1;
    atexit(cleanup);
    setenv("GPUQ_TABLE_DIR", root, 1);
    gm_mdata_set_search_dirs(NULL, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (setup() != 0)
        return 0;
    static const char *const suites[] = {"sched", "throughput", "gatomics", NULL};
    char path[400];
    for (int s = 0; suites[s]; s++) {
        snprintf(path, sizeof path, "%s/gpu/%s.csv", root, suites[s]);
        if (write_file(path, data, size) != 0)
            return 0;
    }
    gm_mdata_meta meta;
    gm_error err = {{0}};
    snprintf(path, sizeof path, "%s/gpu/sched.csv", root);
    int have_meta = gm_mdata_read_meta(path, &meta, &err) == GM_OK;
    const char *name = have_meta ? meta.gpu_name : "NVIDIA H100 80GB HBM3";
    int sms = have_meta ? meta.sm_count : 132;
    for (int s = 0; suites[s]; s++) {
        char found[4096];
        char file[64];
        snprintf(file, sizeof file, "%s.csv", suites[s]);
        gm_status st = gm_mdata_find(name, sms, suites[s], file, found, sizeof found, &err);
        if (st == GM_OK)
            FUZZ_CHECK(have_meta && strcmp(meta.suite, suites[s]) == 0);
        else
            FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
    }
    gm_machine m;
    gm_status st = gm_machine_load(&m, name, sms, suites, NULL, 0, &err);
    if (st == GM_OK) {
        for (size_t i = 0; i < m.n_files; i++)
            FUZZ_CHECK(strcmp(m.files[i].md->meta.suite, m.files[i].suite) == 0);
        gm_machine_free(&m);
    } else {
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
    }
    return 0;
}
