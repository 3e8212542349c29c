/* libFuzzer harness: the throughput, units and global-atomics readers
 * (gm_bottleneck_machine_from_mdata, gm_bottleneck_units_rates_from_mdata,
    gm_gatomics_rates_from_mdata)
 * on machine data loaded from the input.  The range promise: every curve point and rate
 * they return is finite and positive (gpuq/ranges.h), the empty-launch
 * time a duration, so no NaN or inf reaches the bottleneck or gatomics
 * report. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "papers/gatomics/gatomics_model.h"
#include "papers/bottleneck/bottleneck_model.h"
#include "papers/bottleneck/bottleneck_units.h"

static void check_curve(const gm_bottleneck_curve *c)
{
    for (int i = 0; i < c->n; i++) {
        FUZZ_CHECK(gm_quantity_ok(GM_Q_WARPS, c->warps[i]));
        FUZZ_CHECK(gm_quantity_ok(GM_Q_RATE, c->value[i]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gm_mdata *md = fuzz_load_mdata(data, size);
    if (!md)
        return 0;
    gm_error err = {{0}};
    gm_bottleneck_machine m;
    if (gm_bottleneck_machine_from_mdata(md, &m, &err) == GM_OK) {
        FUZZ_CHECK(gm_quantity_ok(GM_Q_CLOCK_MHZ, m.clock_mhz) && m.clock_mhz > 0);
        FUZZ_CHECK(gm_quantity_ok(GM_Q_DURATION_NS, m.launch_ns));
        FUZZ_CHECK(gm_quantity_ok(GM_Q_WARPS_PER_SM, m.max_warps_per_sm));
        for (int p = 0; p < GM_BOTTLENECK_PIPES; p++) {
            check_curve(&m.inst[p]);
            check_curve(&m.inst4[p]);
        }
        check_curve(&m.issue);
        for (int k = 0; k < GM_BOTTLENECK_WAYS; k++)
            check_curve(&m.shared_k[k]);
        for (size_t i = 0; i < m.n_global; i++)
            FUZZ_CHECK(gm_quantity_ok(GM_Q_RATE, m.global[i].gbps));
        double bw = gm_bottleneck_global_bw(&m, 0, 0, 4, 132, 256, 8);
        FUZZ_CHECK(isnan(bw) || gm_quantity_ok(GM_Q_RATE, bw));
        gm_bottleneck_machine_free(&m);
    }
    gm_bottleneck_units_rates u;
    if (gm_bottleneck_units_rates_from_mdata(md, &u, &err) == GM_OK) {
        FUZZ_CHECK(u.have);
        for (int i = 0; i < GM_BOTTLENECK_UNITS_N_TENSOR; i++) /* NaN: that row was not measured */
            FUZZ_CHECK(isnan(u.tensor[i]) || gm_quantity_ok(GM_Q_RATE, u.tensor[i]));
        for (int i = 0; i < GM_BOTTLENECK_UNITS_N_MEMORY; i++)
            FUZZ_CHECK(isnan(u.memory_gbps[i]) || gm_quantity_ok(GM_Q_RATE, u.memory_gbps[i]));
    }
    gm_gatomics_rates r;
    for (int form = 0; form < 2; form++) {
        if (gm_gatomics_rates_for_form(md, (gm_gatomics_form)form, &r, &err) != GM_OK)
            continue;
        for (int c = 0; c < GM_GATOMICS_CLASSES; c++) {
            FUZZ_CHECK(isfinite(r.one[c]) && r.one[c] > 0);
            FUZZ_CHECK(isfinite(r.peak[c]) && r.peak[c] > 0);
        }
    }
    gm_mdata_free(md);
    return 0;
}
