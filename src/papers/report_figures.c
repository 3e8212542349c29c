/* The HTML report's figure registry (core/report_html.h), beside the unit
 * registry: one row per section, what the HTML report's bar of the section measures
 * (its verdict severity, which every unit defines as how close the launch
 * came to the limit gpuq measured for that resource) and which of its
 * fields the page draws.  A section without a row gets the bar and its
 * numbers, no figure. */
#include <string.h>

#include "core/report_html.h"
#include "papers/atomics/atomics_model.h"

static const report_html_figure figures[] = {
    {"atomics", "U: share of the shared-atomic unit's peak rate in use (L, the share of "
                "warp-cycles waiting on it, for the latency kind)",
     "gauge", {"U", "L", NULL}, "U_lo", "U_hi", {GM_ATOMICS_U_SIGNIFICANT, GM_ATOMICS_U_BOTTLENECK, 0},
     "U with its bounds (the fastest and slowest SM), and L; marks at the significant and "
     "bottleneck thresholds"},
    {"gatomics", "U: share of the L2 atomic units' measured rate in use", "gauge",
     {"U", "U_direct", NULL}, NULL, NULL, {GM_ATOMICS_U_SIGNIFICANT, GM_ATOMICS_U_BOTTLENECK, 0},
     "U by the rate model and U_direct from the L2's own busy cycles"},
    {"bottleneck", "the bottleneck component's share of the measured time", "parts",
     {"inst_us", "shared_us", "global_us", NULL}, "measured_us", "predicted_us", {0},
     "each component's time against the measured time (line); predicted = the largest"},
    {"waves", "slots the last wave leaves empty (1 - waves / whole waves)", "tail",
     {"waves", "tail", NULL}, NULL, NULL, {0},
     "the launch's waves of N_slot blocks on every SM; the last one filled to the tail"},
};

const report_html_figure *report_html_figure_find(const char *unit)
{
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (strcmp(figures[i].unit, unit) == 0)
            return &figures[i];
    return NULL;
}
