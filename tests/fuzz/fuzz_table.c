/* libFuzzer harness: the shared-atomic calibration table loader
 * (gm_atomics_table_load_stream).  A table it accepts must also write and read
 * back: the writer and loader agree on the format. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "papers/atomics/atomics_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen wants a buffer */
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in)
        return 0;
    gm_atomics_table *t = NULL;
    gm_error err;
    gm_status st = gm_atomics_table_load_stream(in, "fuzz", &t, &err);
    fclose(in);
    if (st != GM_OK) {
        FUZZ_CHECK(t == NULL);
        return 0;
    }
    FUZZ_CHECK(t != NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out) {
        st = gm_atomics_table_write(out, t, &err);
        fclose(out);
        if (st == GM_OK && len > 0) {
            FILE *back = fmemopen(text, len, "r");
            gm_atomics_table *t2 = NULL;
            if (back) {
                FUZZ_CHECK(gm_atomics_table_load_stream(back, "fuzz-rewritten", &t2, &err) == GM_OK);
                fclose(back);
                gm_atomics_table_free(t2);
            }
        }
        free(text);
    }
    gm_atomics_table_free(t);
    return 0;
}
