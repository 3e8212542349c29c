/* The bottleneck unit's verdict: include/gpuq/bottleneck_verdict.h. */
#include "bottleneck_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One row per warp state: the counter, its short name, what it waits on,
 * whether a warp alone would spend it too (gm_bottleneck_verdict_stall_is_latency), and
 * whether it lasts the same however many warps share the SM (fixed: a
 * dependent fixed-latency instruction, issuing; the scoreboards' waits
 * include the queue at the unit they wait on). */
static const struct {
    const char *metric, *name, *words;
    int latency, fixed;
} stalls[GM_BOTTLENECK_VERDICT_STALLS] = {
    {"smsp__warps_issue_stalled_long_scoreboard.sum", "long scoreboard",
     "global, local or texture memory", 1, 0},
    {"smsp__warps_issue_stalled_short_scoreboard.sum", "short scoreboard",
     "shared-memory or special-math results", 1, 0},
    {"smsp__warps_issue_stalled_wait.sum", "wait", "a dependent fixed-latency instruction", 1, 1},
    {"smsp__warps_issue_stalled_barrier.sum", "barrier", "barriers", 1, 0},
    {"smsp__warps_issue_stalled_gmma.sum", "gmma", "wgmma results", 1, 0},
    {"smsp__warps_issue_stalled_branch_resolving.sum", "branch resolving", "branch targets", 1,
     0},
    {"smsp__warps_issue_stalled_no_instruction.sum", "no instruction", "instruction fetch", 1, 0},
    {"smsp__warps_issue_stalled_math_pipe_throttle.sum", "math pipe throttle",
     "a busy math pipe", 0, 0},
    {"smsp__warps_issue_stalled_lg_throttle.sum", "lg throttle",
     "a full global/local memory queue", 0, 0},
    {"smsp__warps_issue_stalled_mio_throttle.sum", "mio throttle", "a full MIO queue", 0, 0},
    {"smsp__warps_issue_stalled_membar.sum", "membar", "memory barriers", 1, 0},
    {"smsp__warps_issue_stalled_selected.sum", "selected", "issuing", 1, 1},
};

const char *gm_bottleneck_verdict_stall_metric(int s)
{
    return s >= 0 && s < GM_BOTTLENECK_VERDICT_STALLS ? stalls[s].metric : NULL;
}

const char *gm_bottleneck_verdict_stall_name(int s)
{
    return s >= 0 && s < GM_BOTTLENECK_VERDICT_STALLS ? stalls[s].name : NULL;
}

const char *gm_bottleneck_verdict_stall_words(int s)
{
    return s >= 0 && s < GM_BOTTLENECK_VERDICT_STALLS ? stalls[s].words : NULL;
}

int gm_bottleneck_verdict_stall_is_latency(int s)
{
    return s >= 0 && s < GM_BOTTLENECK_VERDICT_STALLS ? stalls[s].latency : 0;
}

double gm_bottleneck_verdict_warp_latency_ns(const double stall[], double warps_launched,
                                             double clock_ghz)
{
    if (!stall || !(warps_launched > 0) || !(clock_ghz > 0))
        return NAN;
    double cycles = 0;
    int any = 0;
    for (int s = 0; s < GM_BOTTLENECK_VERDICT_STALLS; s++)
        if (stalls[s].latency && isfinite(stall[s]) && stall[s] >= 0) {
            cycles += stall[s];
            any = 1;
        }
    return any ? cycles / warps_launched / clock_ghz : NAN;
}

double gm_bottleneck_verdict_warp_cycles(double warps_active_pct, double max_warps,
                                         double cycles_active_sum)
{
    if (!(warps_active_pct >= 0) || !(max_warps > 0) || !(cycles_active_sum >= 0))
        return NAN;
    return warps_active_pct / 100.0 * max_warps * cycles_active_sum;
}

double gm_bottleneck_verdict_fixed_latency_share(const double stall[])
{
    if (!stall)
        return NAN;
    double all = 0, fixed = 0;
    for (int s = 0; s < GM_BOTTLENECK_VERDICT_STALLS; s++)
        if (stalls[s].latency && isfinite(stall[s]) && stall[s] >= 0) {
            all += stall[s];
            fixed += stalls[s].fixed ? stall[s] : 0;
        }
    return all > 0 ? fixed / all : NAN;
}

const char *gm_bottleneck_verdict_kind_name(int kind)
{
    static const char *const names[] = {"-", "unit", "model error", "latency", "launch"};
    return kind >= 0 && kind <= GM_BOTTLENECK_VERDICT_LAUNCH ? names[kind] : "-";
}

double gm_bottleneck_verdict_spread_ns(double measured_ns)
{
    return fmax(GM_BOTTLENECK_VERDICT_SPREAD_REL * measured_ns, GM_BOTTLENECK_VERDICT_SPREAD_NS);
}

void gm_bottleneck_verdict_input_init(gm_bottleneck_verdict_input *in)
{
    memset(in, 0, sizeof *in);
    in->measured_ns = in->launch_ns = in->warp_cycles = NAN;
    in->warps_per_sm = in->reachable_warps = in->blocks = in->blocks_per_wave = NAN;
    in->launches = in->queued_ns = in->warps_launched = in->clock_ghz = NAN;
    in->graph_ns = in->graph_gap_ns = NAN;
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_MAX_COMP; i++)
        in->comp_ns[i] = in->comp_best_ns[i] = NAN;
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_STALLS; i++)
        in->stall[i] = NAN;
    for (int i = 0; i < GM_BOTTLENECK_VERDICT_MAX_COMP; i++)
        in->comp_pipe_ns[i] = NAN;
}

/* Appends to buf, never past its end. */
static void addf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* What the warps wait on: the waiting state with most warp-cycles, and the
 * share of warp-cycles the collected states do not account for. */
static void warp_states(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *o)
{
    o->wait = -1;
    o->wait_share = o->uncollected = NAN;
    if (!(in->warp_cycles > 0))
        return;
    double known = 0;
    int any = 0;
    for (int s = 0; s < GM_BOTTLENECK_VERDICT_STALLS; s++) {
        if (!isfinite(in->stall[s]))
            continue;
        any = 1;
        known += in->stall[s];
        if (s != GM_BOTTLENECK_VERDICT_ST_SELECTED && (o->wait < 0 || in->stall[s] > in->stall[o->wait]))
            o->wait = s;
    }
    if (!any)
        return;
    o->uncollected = fmax(0, 1 - known / in->warp_cycles);
    if (o->wait >= 0) {
        o->wait_share = in->stall[o->wait] / in->warp_cycles;
        snprintf(o->wait_text, sizeof o->wait_text, "%s (%s, %.0f%%)", stalls[o->wait].words,
                 stalls[o->wait].name, 100 * o->wait_share);
    }
    /* states the collection left out can hold more than the top collected
     * one (long scoreboard and barrier are opt-in): say so, not guess */
    if (o->uncollected > (o->wait >= 0 ? o->wait_share : 0))
        addf(o->wait_text, sizeof o->wait_text, "%s%.0f%% in states not collected",
             o->wait_text[0] ? "; " : "", 100 * o->uncollected);
}

/* The launches a row adds up (at least one). */
static double launches_of(const gm_bottleneck_verdict_input *in)
{
    return isfinite(in->launches) && in->launches >= 1 ? in->launches : 1;
}

/* Little's law: at a fixed latency, throughput grows with the work in
 * flight, so bringing the busiest unit from its share u of the measured time
 * to its best rate needs 1/u times the concurrency: warps x 1/u, or that many
 * more independent operations per warp at the warps the launch can have. */
static void littles_law(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *o)
{
    o->busiest = -1;
    o->busiest_use = o->need_warps = o->need_ilp = NAN;
    o->speedup_x2 = o->speedup_x4 = o->speedup_reach = NAN;
    for (size_t c = 0; c < in->n_comp; c++) {
        double u = in->comp_best_ns[c] / in->measured_ns;
        if (isfinite(u) && u > 0 && (o->busiest < 0 || u > o->busiest_use)) {
            o->busiest = (int)c;
            o->busiest_use = u;
        }
    }
    if (o->busiest < 0 || !(in->warps_per_sm > 0))
        return;
    const char *what = in->comp_name[o->busiest];
    o->need_warps = in->warps_per_sm / o->busiest_use;
    double have = isfinite(in->reachable_warps) ? fmax(in->reachable_warps, in->warps_per_sm)
                                                : in->warps_per_sm;
    o->need_ilp = o->need_warps / have;
    /* the what-ifs: the same work with k times as much of it in flight; the
     * launch's fixed cost (a queued empty launch, where measured) does not
     * shrink, the busiest unit cannot go past its best rate */
    double T = in->measured_ns, n = launches_of(in);
    double fixed = isfinite(in->queued_ns) && in->queued_ns > 0 ? fmin(n * in->queued_ns, T / 2) : 0;
    double best = o->busiest_use * T;
    o->speedup_x2 = T / (fixed + fmax((T - fixed) / 2, best));
    o->speedup_x4 = T / (fixed + fmax((T - fixed) / 4, best));
    o->speedup_reach = T / (fixed + fmax((T - fixed) * in->warps_per_sm / have, best));
    snprintf(o->fix, sizeof o->fix, "%s at %.0f%% of its best rate; ", what,
             100 * o->busiest_use);
    if (o->need_ilp <= 1)
        addf(o->fix, sizeof o->fix, "%.0f warps/SM would reach it (has %.1f; can have %s)",
             o->need_warps, in->warps_per_sm, in->reachable_from ? in->reachable_from : "?");
    else
        addf(o->fix, sizeof o->fix,
             "needs %.1fx the independent work per warp at %.0f warps/SM (%s)", o->need_ilp,
             have, in->reachable_from ? in->reachable_from : "the warps it has");
}

/* A launch-bound launch fused or in a CUDA graph: in a stream each launch
 * costs max(launch_ns, T); fused into one kernel, a step of it costs what
 * its warps take on their own or its busiest unit at its best rate,
 * whichever is longer; in a graph a node costs that step and what the graph
 * adds between two dependent nodes, and no less than a node of empty
 * launches: max(graph_ns, step + graph_gap_ns).  T, the profiled duration,
 * holds the launch's own start and end too, which a graph overlaps with its
 * neighbours': where the graph rows were not measured, max(queued_ns, T) is
 * what is left, an upper bound of a node's cost (docs/bottleneck.md: on the
 * H200 it put the 64-node graph of launch_chain at 3.26 us a node, measured
 * 2.40). */
static void launch_whatifs(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *o,
                           double T1)
{
    double n = launches_of(in), stream = fmax(in->launch_ns, T1), busy = NAN;
    for (size_t c = 0; c < in->n_comp; c++)
        if (isfinite(in->comp_best_ns[c]) && !(in->comp_best_ns[c] / n <= busy))
            busy = in->comp_best_ns[c] / n;
    double step = o->warp_latency_ns;
    if (isfinite(busy))
        step = isfinite(step) ? fmax(step, busy) : NAN; /* the latency is what sets a step */
    if (step > 0) {
        o->fused_step_ns = step;
        o->speedup_fused = stream / step;
    }
    if (isfinite(in->graph_ns) && isfinite(in->graph_gap_ns) && step > 0)
        o->speedup_graph = stream / fmax(in->graph_ns, step + in->graph_gap_ns);
    else if (isfinite(in->queued_ns) && in->queued_ns > 0)
        o->speedup_graph = stream / fmax(in->queued_ns, T1);
    if (isfinite(o->speedup_fused) && isfinite(o->speedup_graph))
        addf(o->fix, sizeof o->fix, " (fused: %.2f us per launch, %.1fx; graph: %.1fx)",
             step / 1e3, o->speedup_fused, o->speedup_graph);
}

/* The issue slots count every instruction, a pipe's among them; where a
 * pipe takes one warp-instruction per clock per scheduler, as the issue
 * does (Hopper's FMA pipe for FFMA, its ALU pipe for integer and logic
 * operations), the issue slots' time exceeds the pipe's only by the other
 * instructions' share.  When that is within the spread, removing every
 * other instruction would gain no more than the spread: the pipe's own work
 * sets the time, and it is the one named (the issue slots "tied").  The
 * pipe's own work, not the component's time: the instruction part holds an
 * issue term of its own (bottleneck_model.c), the same count at the same
 * rate. */
static void issue_tie(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *o)
{
    if (!in->comp_issue[o->comp])
        return;
    int pipe = -1;
    for (size_t c = 0; c < in->n_comp; c++)
        if (isfinite(in->comp_pipe_ns[c]) && isfinite(in->comp_ns[c]) &&
            (pipe < 0 || in->comp_pipe_ns[c] > in->comp_pipe_ns[pipe]))
            pipe = (int)c;
    if (pipe < 0 || in->comp_ns[o->comp] - in->comp_pipe_ns[pipe] > o->spread_ns ||
        in->comp_pipe_ns[pipe] / in->measured_ns < GM_BOTTLENECK_VERDICT_BUSY_SHARE)
        return;
    o->tied = o->comp;
    o->comp = pipe;
    o->share = in->comp_ns[pipe] / in->measured_ns;
}

/* A grid under one wave: how full the GPU was. */
static void small_grid(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *o)
{
    o->wave_fill = NAN;
    if (!(in->blocks > 0) || !(in->blocks_per_wave > 0) || in->blocks >= in->blocks_per_wave)
        return;
    o->wave_fill = in->blocks / in->blocks_per_wave;
    double sms = in->sm_count > 0 ? fmin(in->blocks, in->sm_count) : NAN;
    addf(o->fix, sizeof o->fix, "%sgrid under one wave: %.0f of %.0f block slots (%.0f%%), %.0f of %d SMs",
         o->fix[0] ? "; " : "", in->blocks, in->blocks_per_wave, 100 * o->wave_fill, sms,
         in->sm_count);
}

gm_status gm_bottleneck_verdict_decide(const gm_bottleneck_verdict_input *in,
                                       gm_bottleneck_verdict *o, gm_error *err)
{
    if (!in || !o || in->n_comp > GM_BOTTLENECK_VERDICT_MAX_COMP)
        return gm_fail(err, GM_ERR_INVALID_ARG, "bottleneck verdict: bad arguments");
    memset(o, 0, sizeof *o);
    o->comp = o->over = o->wait = o->busiest = o->tied = -1;
    o->share = o->over_ratio = o->spread_ns = NAN;
    o->wait_share = o->uncollected = o->busiest_use = NAN;
    o->need_warps = o->need_ilp = o->wave_fill = NAN;
    o->warp_latency_ns = o->speedup_x2 = o->speedup_x4 = o->speedup_reach = NAN;
    o->fused_step_ns = o->speedup_fused = o->speedup_graph = NAN;
    double T = in->measured_ns;
    /* the largest component, as the model has always named it */
    for (size_t c = 0; c < in->n_comp; c++)
        if (isfinite(in->comp_ns[c]) && (o->comp < 0 || in->comp_ns[c] > in->comp_ns[o->comp]))
            o->comp = (int)c;
    if (!(T > 0)) {
        o->kind = GM_BOTTLENECK_VERDICT_UNDECIDED;
        return GM_OK;
    }
    o->spread_ns = gm_bottleneck_verdict_spread_ns(T);
    /* the physical check: the largest component that fits, and the worst misfit */
    o->comp = -1;
    for (size_t c = 0; c < in->n_comp; c++) {
        double t = in->comp_ns[c];
        if (!isfinite(t))
            continue;
        if (t > T + o->spread_ns) {
            o->n_over++;
            if (o->over < 0 || t > in->comp_ns[o->over])
                o->over = (int)c;
        } else if (o->comp < 0 || t > in->comp_ns[o->comp]) {
            o->comp = (int)c;
        }
    }
    if (o->comp >= 0)
        o->share = in->comp_ns[o->comp] / T;
    if (o->over >= 0) {
        o->over_ratio = in->comp_ns[o->over] / T;
        snprintf(o->model_error, sizeof o->model_error, "%s %.1f us > %.1f us measured (%.2fx)",
                 in->comp_name[o->over], in->comp_ns[o->over] / 1e3, T / 1e3, o->over_ratio);
    }
    warp_states(in, o);
    double T1 = T / launches_of(in);
    o->warp_latency_ns = gm_bottleneck_verdict_warp_latency_ns(in->stall, in->warps_launched,
                                                               in->clock_ghz);
    if (isfinite(in->launch_ns) && in->launch_ns > 0 && T1 <= in->launch_ns + gm_bottleneck_verdict_spread_ns(T1)) {
        o->kind = GM_BOTTLENECK_VERDICT_LAUNCH;
        snprintf(o->text, sizeof o->text,
                 "launch bound: %.1f us, at most an empty launch back to back (%.1f us) and "
                 "the spread (%.1f us)",
                 T1 / 1e3, in->launch_ns / 1e3, gm_bottleneck_verdict_spread_ns(T1) / 1e3);
        snprintf(o->fix, sizeof o->fix,
                 "fusing it into a neighbour or a CUDA graph saves up to %.1f us per launch",
                 in->launch_ns / 1e3);
        launch_whatifs(in, o, T1);
        small_grid(in, o);
        return GM_OK;
    }
    if (o->over >= 0) {
        o->kind = GM_BOTTLENECK_VERDICT_MISFIT;
        snprintf(o->text, sizeof o->text, "model does not fit: %s", o->model_error);
        return GM_OK;
    }
    if (o->comp >= 0 && o->share >= GM_BOTTLENECK_VERDICT_BUSY_SHARE) {
        o->kind = GM_BOTTLENECK_VERDICT_UNIT;
        issue_tie(in, o);
        return GM_OK;
    }
    o->kind = GM_BOTTLENECK_VERDICT_LATENCY;
    int n = snprintf(o->text, sizeof o->text, "latency bound: no unit above %.0f%%",
                     100 * GM_BOTTLENECK_VERDICT_BUSY_SHARE);
    if (o->comp >= 0 && n > 0 && (size_t)n < sizeof o->text)
        n += snprintf(o->text + n, sizeof o->text - (size_t)n, " (%s %.0f%%)",
                      in->comp_name[o->comp], 100 * o->share);
    if (o->wait_text[0] && n > 0 && (size_t)n < sizeof o->text)
        snprintf(o->text + n, sizeof o->text - (size_t)n, "; warps wait on %s", o->wait_text);
    littles_law(in, o);
    small_grid(in, o);
    return GM_OK;
}
