/* The atomic-latency quantity L and the two-kind verdict of the shared-atomic
 * section (papers/atomics/atomics_latency.h; docs/validation.md, "The latency
 * quantity").  Pure C: no CUDA, no CUPTI. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atomics_latency.h"

static int missing(double x)
{
    return isnan(x);
}

const char *gm_atomics_latency_form_name(gm_atomics_latency_form form)
{
    return form == GM_ATOMICS_LATENCY_SB_MIO ? "sb-mio" : "issue";
}

double gm_atomics_latency_threshold(gm_atomics_latency_form form)
{
    return form == GM_ATOMICS_LATENCY_SB_MIO ? GM_L_LATENCY_SB_MIO : GM_L_LATENCY;
}

gm_status gm_atomics_latency_compute(const gm_atomics_latency_input *in, gm_atomics_latency *out,
                                     gm_error *err)
{
    if (!in || !out)
        return gm_fail(err, GM_ERR_INVALID_ARG, "atomic latency: no input or output");
    out->L = out->stall_share = out->atom_share = out->warps_active = NAN;
    out->issue_share = out->issue_atom_share = NAN;
    out->missing = NULL;
    /* The issue form needs W_wait and W_sel; without them (counters files
     * recorded before they were rows) it is the two-counter form exactly. */
    out->form = in->form == GM_ATOMICS_LATENCY_SB_MIO || missing(in->stalled_wait) ||
                        missing(in->stalled_selected)
                    ? GM_ATOMICS_LATENCY_SB_MIO
                    : GM_ATOMICS_LATENCY_ISSUE;
    const struct {
        double v;
        const char *name;
    } vals[] = {
        {in->stalled_short_scoreboard, "smsp__warps_issue_stalled_short_scoreboard.sum"},
        {in->stalled_mio_throttle, "smsp__warps_issue_stalled_mio_throttle.sum"},
        {in->occupancy_pct, "sm__warps_active.avg.pct_of_peak_sustained_active"},
        {in->cycles_sum, "sm__cycles_active.sum"},
        {in->n_atom, "smsp__inst_executed_op_shared_atom.sum"},
        {in->shared_inst, "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum"},
        {in->stalled_wait, "smsp__warps_issue_stalled_wait.sum"},
        {in->stalled_selected, "smsp__warps_issue_stalled_selected.sum"},
    };
    const size_t n_vals = sizeof vals / sizeof vals[0];
    for (size_t i = 0; i < n_vals; i++)
        if (!missing(vals[i].v) && (vals[i].v < 0 || isinf(vals[i].v)))
            return gm_fail(err, GM_ERR_RANGE, "atomic latency: %s is %g", vals[i].name, vals[i].v);
    if (in->max_warps_per_sm < 0)
        return gm_fail(err, GM_ERR_RANGE, "atomic latency: max warps per SM is %d",
                       in->max_warps_per_sm);

    /* No shared atomics: nothing waits on one, whatever else is missing. */
    if (in->n_atom == 0) {
        out->L = 0;
        out->atom_share = 0;
        return GM_OK;
    }
    /* The last two are the issue form's, checked above (out->form). */
    for (size_t i = 0; i < n_vals - 2; i++)
        if (missing(vals[i].v)) {
            out->missing = vals[i].name;
            return GM_OK;
        }
    if (in->max_warps_per_sm == 0) {
        out->missing = "max warps per SM";
        return GM_OK;
    }
    /* W_active: occupancy is the average SM's active warps per active
     * cycle over its peak, so the sum over SMs is occupancy x peak x the
     * summed active cycles. */
    out->warps_active = in->occupancy_pct / 100.0 * in->max_warps_per_sm * in->cycles_sum;
    out->atom_share = in->shared_inst > 0 ? fmin(1.0, in->n_atom / in->shared_inst) : 1.0;
    if (!(out->warps_active > 0)) {
        /* Atomics executed but no active warp-cycle: counters from
         * different runs; say so rather than divide by zero. */
        out->missing = "active warp-cycles (occupancy x cycles is 0)";
        return GM_OK;
    }
    out->stall_share = (in->stalled_short_scoreboard + in->stalled_mio_throttle) / out->warps_active;
    double L = out->stall_share * out->atom_share;
    if (out->form == GM_ATOMICS_LATENCY_ISSUE) {
        /* docs/validation.md, "The latency quantity": a warp that issues
         * ATOMS whose result it never reads waits on nothing the two
         * counters see; it is paced (wait) and issues (selected).  Both are
         * apportioned to ATOMS by their share of the issued instructions,
         * which selected counts (one warp-cycle per issue). */
        out->issue_share = (in->stalled_wait + in->stalled_selected) / out->warps_active;
        out->issue_atom_share =
            in->stalled_selected > 0 ? fmin(1.0, in->n_atom / in->stalled_selected) : 1.0;
        L += out->issue_share * out->issue_atom_share;
    }
    /* A share of warp-cycles cannot pass 1; the derived denominator can be
     * off by up to 1.6% (docs/validation.md). */
    out->L = fmin(1.0, L);
    return GM_OK;
}

gm_atomics_kind gm_atomics_kind_of(double U, double L, double u_threshold, double l_threshold)
{
    if (isnan(U))
        return GM_ATOMICS_KIND_UNKNOWN;
    if (U >= u_threshold)
        return GM_ATOMICS_KIND_THROUGHPUT;
    if (isnan(L))
        return GM_ATOMICS_KIND_UNKNOWN;
    return L >= l_threshold ? GM_ATOMICS_KIND_LATENCY : GM_ATOMICS_KIND_NONE;
}

const char *gm_atomics_kind_name(gm_atomics_kind kind)
{
    switch (kind) {
    case GM_ATOMICS_KIND_NONE: return "none";
    case GM_ATOMICS_KIND_THROUGHPUT: return "throughput";
    case GM_ATOMICS_KIND_LATENCY: return "latency";
    default: return "unknown";
    }
}

int gm_atomics_verdict_text(char *buf, size_t len, double U, double L, double u_bottleneck,
                            double u_threshold, double l_threshold)
{
    if (!buf || len == 0)
        return 0;
    buf[0] = '\0';
    switch (gm_atomics_kind_of(U, L, u_threshold, l_threshold)) {
    case GM_ATOMICS_KIND_THROUGHPUT:
        return snprintf(buf, len, "shared-memory atomics are %s (throughput, U = %.0f%%)",
                        U >= u_bottleneck ? "the bottleneck" : "a significant load", 100 * U);
    case GM_ATOMICS_KIND_LATENCY:
        return snprintf(buf, len,
                        "shared-memory atomics are the bottleneck (latency: warps wait on ATOMS "
                        "%.0f%% of cycles; U = %.0f%%)",
                        100 * L, 100 * U);
    case GM_ATOMICS_KIND_NONE:
        return snprintf(buf, len,
                        "shared-memory atomics are not the bottleneck (U = %.0f%%; warps wait on "
                        "ATOMS %.0f%% of cycles)",
                        100 * U, 100 * L);
    default:
        if (isnan(U))
            return snprintf(buf, len, "not modelled");
        return snprintf(buf, len, "shared-memory atomics are not the bottleneck (U = %.0f%%)",
                        100 * U);
    }
}
