/* libFuzzer harness: the counters file loader (gm_counters_load; the
 * format version is read from the file's first line).  A set it accepts
 * must write (header + rows) and read back with as many launches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "gpuq/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gm_counters_set set;
    if (!fuzz_load_counters(data, size, gm_counters_load, &set))
        return 0;
    gm_error err = {{0}};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    gm_status st = out ? gm_counters_write_header(out, &set.meta, &err) : GM_ERR_NOMEM;
    for (size_t i = 0; st == GM_OK && i < set.count; i++)
        st = gm_counters_append_row(out, &set.meta, &set.launches[i], &err);
    if (out)
        fclose(out);
    if (st == GM_OK) {
        const char *again = fuzz_input_path((const uint8_t *)text, len);
        gm_counters_set back;
        if (again) {
            FUZZ_CHECK(gm_counters_load(again, &back, &err) == GM_OK);
            FUZZ_CHECK(back.count == set.count);
            gm_counters_set_clear(&back);
        }
    }
    free(text);
    gm_counters_set_clear(&set);
    return 0;
}
