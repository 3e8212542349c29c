/* libFuzzer harness: gm_atomics_table_load_partial, the table loader of 'gpuq
 * table validate' and of a resumed calibration, which accepts a table with
 * cells still missing.  The range promise: every cell it returns is either
 * not measured (NaN) or a time in cycles a GPU can take, with min <=
 * median <= max and a finite spread. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "papers/atomics/atomics_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_path(data, size);
    if (!path)
        return 0;
    gm_atomics_table *t = NULL;
    gm_error err = {{0}};
    if (gm_atomics_table_load_partial(path, &t, &err) != GM_OK) {
        FUZZ_CHECK(t == NULL);
        FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
        return 0;
    }
    for (int s = 0; s < t->n_series; s++) {
        const gm_atomics_series *se = &t->series[s];
        for (int n = 1; n <= se->n_max; n++)
            for (int e = 1; e <= se->e_max; e++)
                for (int c = 0; c <= (se->mixes_cas ? n : 0); c++) {
                    const gm_atomics_cell *cell = gm_atomics_series_cell(se, n, e, c);
                    if (!cell || isnan(cell->t_median))
                        continue;
                    FUZZ_CHECK(gm_quantity_ok(GM_Q_CLOCKS, cell->t_median));
                    FUZZ_CHECK(isfinite(cell->t_min) && isfinite(cell->t_max));
                    FUZZ_CHECK(cell->t_min <= cell->t_median && cell->t_median <= cell->t_max);
                    FUZZ_CHECK(isfinite(cell->spread) && cell->spread >= 0);
                }
    }
    gm_atomics_table_free(t);
    return 0;
}
