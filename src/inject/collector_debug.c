/* GPUQ_DEBUG=1: where a profiled process's time went, as the collector
 * saw it (docs/profile.md quotes it). */
#include <inttypes.h>

#include "collector_internal.h"

#define g g_collector

/* GPUQ_DEBUG=1: the timeline of the process as the collector saw it and
 * the time of each CUPTI call, so that the cost of profiling can be taken
 * apart (docs/profile.md quotes it). */
void gi_debug_report(uint64_t drain_end_ns)
{
    static const char *const call_names[GI_CALL_COUNT] = {
        "subscribe", "profiler init", "device support", "counter availability", "host init",
        "add metrics", "config image", "num passes", "range profiler enable", "image init",
        "set config", "first start", "start", "stop", "decode", "counter data info",
        "evaluate", "write row", "ctx synchronize", "range profiler disable", "host deinit",
        "profiler deinit", "sass setup", "sass enable", "sass flush", "save cubin",
        "nvperf preload (thread)", "nvperf preload wait"};
    uint64_t windows = 0;
    for (int i = 0; i < GI_MAX_DEVICES; i++)
        windows += g.devices[i].windows;
#define GI_SINCE(t) ((t) ? ((double)(t) - (double)g.init_ns) / 1e6 : -1.0)
    gi_note("[debug] timeline (ms since InitializeInjection): first context %.1f, device set up "
            "%.1f, first profiled launch %.1f, drain %.1f to %.1f; %" PRIu64 " launches profiled "
            "in %" PRIu64 " windows (GPUQ_BATCH %zu)",
            GI_SINCE(g.first_context_ns), GI_SINCE(g.setup_done_ns), GI_SINCE(g.first_launch_ns),
            GI_SINCE(g.drain_start_ns), GI_SINCE(drain_end_ns), g.profiled, windows, g.batch);
#undef GI_SINCE
    if (g.t0_ns) {
#define GI_FROM0(t) ((t) ? ((double)(t) - (double)g.t0_ns) / 1e6 : -1.0)
        gi_note("[debug] timeline (ms since gpuq started the program): InitializeInjection %.1f, "
                "ready %.1f, first context %.1f, device set up %.1f, first profiled launch %.1f, "
                "drain %.1f to %.1f",
                GI_FROM0(g.init_ns), GI_FROM0(g.ready_ns), GI_FROM0(g.first_context_ns),
                GI_FROM0(g.setup_done_ns), GI_FROM0(g.first_launch_ns), GI_FROM0(g.drain_start_ns),
                GI_FROM0(drain_end_ns));
#undef GI_FROM0
    }
    double total = 0;
    for (int c = 0; c < GI_CALL_COUNT; c++)
        total += (double)g.call_ns[c];
    gi_note("[debug] %-24s %7s %10s %10s", "call", "count", "total ms", "mean ms");
    for (int c = 0; c < GI_CALL_COUNT; c++)
        if (g.call_count[c])
            gi_note("[debug] %-24s %7" PRIu64 " %10.3f %10.4f", call_names[c], g.call_count[c],
                    (double)g.call_ns[c] / 1e6,
                    (double)g.call_ns[c] / 1e6 / (double)g.call_count[c]);
    gi_note("[debug] %-24s %7s %10.3f", "all timed calls", "", total / 1e6);
}
