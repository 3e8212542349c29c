/* Repeated launches: a kernel shape (kernel, grid, block, registers and
 * shared memory) measured in full is not replayed again.
 *
 * Kernel replay is what profiling costs on large kernels: each pass reruns
 * the kernel with its device memory saved and restored (docs/profile.md,
 * "Repeated launches").  ML programs launch the same kernels at the same
 * shapes step after step, layer after layer.  So a shape's first
 * GPUQ_FULL_LAUNCHES launches (default 1) get every metric, in as many
 * passes as they need; its later ones get one pass of the metrics that
 * change from launch to launch (gm_metric_desc.every_launch: the
 * duration, the cycles, what the caches and DRAM moved), user replay, no
 * memory saved, batched like one-pass launches, and the rest of their row
 * (instruction counts, stall reasons, tensor work) from the shape's last
 * launch measured in full.  GPUQ_FULL_LAUNCHES=0 measures every launch in
 * full, as Nsight Compute does.
 *
 * Only a full set that needs kernel replay gets a one-pass set: when the
 * full set fits one pass, every launch already runs once, unreplayed. */
#include <math.h>
#include <stdlib.h>

#include "collector_host.h"
#include "collector_repeat.h"
#include "gi_shapes.h"

#define g g_collector

/* Shapes a device remembers; later new shapes are measured in full. */
#define GI_MAX_SHAPES 16384
/* A repeat is completed from a full launch of its shape only when its work
 * (the GM_EVERY_LAUNCH_WORK row: instructions issued) matches within this
 * fraction: the same kernel at the same shape can do other work for other
 * arguments (a loop bound, a contention level), and then the full launch's
 * counts are not its.  2%: on the H200 one reduce_kernel on one input
 * issued 1.07% more in one launch of ten (2.5165 M against 2.4897 M),
 * while the works of other inputs at one grid differed by 4.6% and more
 * (tests/bench/torch_library_kernels.py --reps 10, docs/profile.md). */
#define GI_REPEAT_WORK_TOLERANCE 0.02

static int work_row(void)
{
    for (size_t r = 0; r < gm_metric_count(); r++)
        if (gm_metric_table[r].every_launch == GM_EVERY_LAUNCH_WORK)
            return (int)r;
    return -1;
}

struct gi_repeat {
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;
    size_t config_size;
    size_t n_metrics;
    const char *metric_names[GM_METRIC_MAX];
    int metric_ids[GM_METRIC_MAX];
    unsigned char in_set[GM_METRIC_MAX]; /* by gm_metric_table row */
    gi_repeat_window window;
    gi_shapes *shapes;
    int full_note;                       /* the table-full line was said */
    unsigned long varied;                /* shapes whose repeats did other work */
};

int gi_repeat_setup(gi_device *dev)
{
    if (g.full_launches <= 0 || dev->replay != CUPTI_KernelReplay || dev->passes < 2)
        return 1;
    struct gi_repeat *r = calloc(1, sizeof *r);
    if (!r) {
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    for (size_t m = 0; m < dev->n_metrics; m++) {
        int row = dev->metric_ids[m];
        if (!gm_metric_table[row].every_launch)
            continue;
        r->metric_names[r->n_metrics] = dev->metric_names[m];
        r->metric_ids[r->n_metrics++] = row;
        r->in_set[row] = 1;
    }
    int has_duration = gi_duration_row() >= 0 && r->in_set[gi_duration_row()];
    char why[160] = "";
    size_t passes = 0;
    if (!has_duration)
        snprintf(why, sizeof why, "the duration is not among the metrics");
    else if (gi_host_for_metrics(dev, r->metric_names, r->n_metrics, &r->host, why,
                                 sizeof why) &&
             gi_host_config_image(r->host, &r->config, &r->config_size, &passes, why,
                                  sizeof why) &&
             passes != 1)
        snprintf(why, sizeof why, "they need %zu passes", passes);
    if (why[0]) {
        gi_verbose("device %d: no one-pass set for repeated launches (%zu metrics: %s); every "
                   "launch is measured in full",
                   dev->ordinal, r->n_metrics, why);
        dev->repeat = r; /* freed with the rest */
        gi_repeat_teardown(dev);
        return 1;
    }
    if (!(r->shapes = gi_shapes_new(GI_MAX_SHAPES))) {
        dev->repeat = r;
        gi_repeat_teardown(dev);
        gi_stand_down(GI_ERROR_IO, "out of memory");
        return 0;
    }
    r->window.capacity = g.batch ? g.batch : 1;
    r->window.batch_max = 1;
    dev->repeat = r;
    gi_verbose("device %d: a kernel shape's launches after its first %ld: one pass of %zu "
               "metrics, user replay, up to %zu per window",
               dev->ordinal, g.full_launches, r->n_metrics, r->window.capacity);
    return 1;
}

void gi_repeat_teardown(gi_device *dev)
{
    struct gi_repeat *r = dev->repeat;
    if (!r)
        return;
    if (r->host)
        gi_host_deinit(r->host);
    free(r->config);
    free(r->window.counter_data);
    gi_shapes_free(r->shapes);
    free(r);
    dev->repeat = NULL;
}

void gi_repeat_describe(const gi_device *dev, char *buf, size_t len)
{
    const struct gi_repeat *r = dev->repeat;
    if (!r || r->window.off)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "; a shape's launches after its first %ld: one pass of %zu metrics",
                 g.full_launches, r->n_metrics);
}

int gi_repeat_wants(const gi_device *dev, const gm_launch_counters *k)
{
    const struct gi_repeat *r = dev->repeat;
    return r && !r->window.off && gi_shapes_full(r->shapes, k) >= g.full_launches;
}

/* The row that tells a repeat's work (instructions issued), where the
 * one-pass set measures it; else -1: nothing to compare. */
static int repeat_work(const struct gi_repeat *r)
{
    int work = work_row();
    return work >= 0 && r->in_set[work] ? work : -1;
}

void gi_repeat_remember(gi_device *dev, const gm_launch_counters *k)
{
    struct gi_repeat *r = dev->repeat;
    int row = gi_duration_row();
    if (!r || row < 0 || !isfinite(k->metric[row]))
        return;
    if (!gi_shapes_remember(r->shapes, k, repeat_work(r), GI_REPEAT_WORK_TOLERANCE) &&
        !r->full_note) {
        r->full_note = 1;
        gi_verbose("device %d: %zu kernel shapes remembered; launches of newer ones are "
                   "measured in full", dev->ordinal, gi_shapes_count(r->shapes));
    }
}

void gi_repeat_complete(const gi_device *dev, gm_launch_counters *k)
{
    struct gi_repeat *r = dev->repeat;
    if (!r)
        return;
    int work = repeat_work(r);
    if (gi_shapes_complete(r->shapes, k, r->in_set, work, GI_REPEAT_WORK_TOLERANCE) < 0)
        (r->varied++ ? gi_verbose : gi_note)(
            "launch %llu of %.120s did other work than the launches of its shape measured in "
            "full (%s %.0f): its row keeps its one-pass counters only, and its shape's launches "
            "are measured in full until one does work they did not (up to %d works a shape)",
            (unsigned long long)k->launch_id, k->kernel ? k->kernel : "?",
            gm_metric_table[work].name, k->metric[work], GI_SHAPE_SOURCES);
}

gi_metric_set gi_full_set(const gi_device *dev)
{
    gi_metric_set set = {dev->host,      dev->config,       dev->config_size, dev->replay,
                         dev->n_metrics, dev->metric_names, dev->metric_ids};
    return set;
}

int gi_repeat_set(const gi_device *dev, gi_metric_set *set)
{
    const struct gi_repeat *r = dev->repeat;
    if (!r)
        return 0;
    gi_metric_set s = {r->host,      r->config,       r->config_size, CUPTI_UserReplay,
                       r->n_metrics, r->metric_names, r->metric_ids};
    *set = s;
    return 1;
}

gi_repeat_window *gi_repeat_window_of(gi_device *dev)
{
    return dev->repeat ? &dev->repeat->window : NULL;
}
