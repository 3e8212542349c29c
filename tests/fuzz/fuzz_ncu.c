/* libFuzzer harness: the Nsight Compute CSV importer (gm_ncu_csv_load),
 * long and wide layouts.  Found with it: a NUL byte in a kernel name made
 * the importer free stack garbage (tests/data/ncu/bad_nul_kernel_name.csv). */
#include <stdint.h>

#include "fuzz_input.h"
#include "gpuq/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gm_counters_set set;
    if (!fuzz_load_counters(data, size, gm_ncu_csv_load, &set))
        return 0;
    for (size_t i = 0; i < set.count; i++)
        FUZZ_CHECK(set.launches[i].kernel != NULL && set.launches[i].kernel[0] != '\0');
    gm_counters_set_clear(&set);
    return 0;
}
