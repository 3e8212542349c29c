/* libFuzzer harness: the GPUDIAG sched reader (gm_waves_data_load on machine
 * data loaded from the input), then everything the report derives from it:
 * the Eq. 3.2 fits of every kernel in both forms and time models, the
 * per-block logs and N_slot.  The range promise: what loads gives
 * parameters a GPU can have (n_mp > 0, N1 and N_slot at most 64 blocks per
 * SM) and no NaN or inf where a number is promised. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "papers/waves/waves_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gm_mdata *md = fuzz_load_mdata(data, size);
    if (!md)
        return 0;
    static gm_waves_data d; /* large: not on the stack */
    gm_error err = {{0}};
    if (gm_waves_data_load(md, &d, &err) == GM_OK) {
        const gm_waves_derived *o = &d.derived;
        FUZZ_CHECK(o->n_mp > 0);
        FUZZ_CHECK(gm_quantity_ok(GM_Q_BLOCKS_PER_SM, o->N1));
        FUZZ_CHECK(o->N2 >= 0 && o->N2 <= 64 * 64);
        for (int f = 0; f < GM_WAVES_FORM_COUNT; f++)
            FUZZ_CHECK(o->S[f] >= 0 && o->R[f] >= 0);
        for (size_t i = 0; i < d.n_ops; i++) {
            const gm_waves_op *op = &d.ops[i];
            for (size_t c = 0; c < op->fu.n; c++)
                FUZZ_CHECK(isfinite(op->fu.fu[c]));
            for (int f = 0; f < GM_WAVES_FORM_COUNT; f++) {
                for (int b = 1; b <= 32; b *= 2) {
                    int N = gm_waves_data_nslot(&d, (gm_waves_form)f, op, b);
                    FUZZ_CHECK(N >= 0 && N <= 64 * 64);
                }
                for (int t = 0; t < GM_WAVES_T_COUNT; t++) {
                    gm_waves_fit fit;
                    if (gm_waves_fit_tgb_model(&d, op->name, (gm_waves_form)f, (gm_waves_tmodel)t,
                                               NULL, &fit, &err) != GM_OK)
                        continue;
                    for (size_t p = 0; p < fit.n; p++)
                        FUZZ_CHECK(!isinf(fit.pred[p]) && !isinf(fit.meas[p]));
                    FUZZ_CHECK(isnan(fit.r) || (fit.r >= -1.0000001 && fit.r <= 1.0000001));
                    gm_waves_fit_free(&fit);
                }
            }
        }
        gm_waves_tail t;
        size_t row = 0;
        while (gm_waves_data_next_tail(&d, &row, &t))
            FUZZ_CHECK(t.total >= 0 && t.most >= 0 && t.sms >= 0);
    } else {
        FUZZ_CHECK(err.msg[0] != '\0');
    }
    gm_mdata_free(md);
    return 0;
}
