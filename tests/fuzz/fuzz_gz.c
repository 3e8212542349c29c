/* libFuzzer harness: the gzip path of the loaders (gm_open_input on a
 * ".gz" name, zlib behind a stdio stream).  The first byte picks the
 * loader (counters, machine data, calibration table) and whether the rest
 * is compressed first (a valid gzip stream of fuzzed text) or written as
 * is (fuzzed gzip bytes, truncated or corrupt streams).  Promises: a
 * refusal is one line, and what loads keeps the loaders' range promise. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_input.h"
#include "gpuq/mdata.h"
#include "papers/atomics/atomics_table.h"

static char path[300];

static void cleanup(void)
{
    unlink(path);
}

static int write_input(const uint8_t *data, size_t size, int compress)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/gpuq-fuzz-%ld.csv.gz",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
        atexit(cleanup);
    }
    if (compress) {
        gzFile gz = gzopen(path, "wb1");
        if (!gz)
            return -1;
        int ok = size == 0 || gzwrite(gz, data, (unsigned)size) == (int)size;
        return gzclose(gz) == Z_OK && ok ? 0 : -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && put == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int pick = data[0] % 3, compress = (data[0] / 3) % 2;
    if (write_input(data + 1, size - 1, compress) != 0)
        return 0;
    gm_error err = {{0}};
    gm_status st;
    if (pick == 0) {
        gm_counters_set set;
        st = gm_counters_load(path, &set, &err);
        if (st == GM_OK) {
            fuzz_check_counter_ranges(&set);
            gm_counters_set_clear(&set);
        }
    } else if (pick == 1) {
        gm_mdata *md = NULL;
        st = gm_mdata_load(path, &md, &err);
        FUZZ_CHECK((st == GM_OK) == (md != NULL));
        for (size_t i = 0; md && i < md->n_rows * md->n_cols; i++)
            FUZZ_CHECK(isnan(md->num[i]) || isfinite(md->num[i]));
        gm_mdata_free(md);
    } else {
        gm_atomics_table *t = NULL;
        st = gm_atomics_table_load_partial(path, &t, &err);
        FUZZ_CHECK((st == GM_OK) == (t != NULL));
        gm_atomics_table_free(t);
    }
    if (st != GM_OK)
        FUZZ_CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
    return 0;
}
