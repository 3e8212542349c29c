/* The bottleneck unit's verdict (bottleneck_verdict.h): the physical check,
 * launch and latency bound, on inputs built by hand; the spread against the
 * repeated launches of the H200 corpus; and the unit on every recorded
 * kernel in the repository, where no row may name as bottleneck a component
 * longer than the kernel. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "papers/bottleneck/bottleneck_verdict.h"
#include "gpuq/counters.h"
#include "gpuq/metrics.h"
#include "gpuq/unit.h"

extern const gm_unit gm_unit_bottleneck;

#define CORPUS GPUQ_SOURCE_DIR "/data/recorded/realkernels-corpus-nvidia-h200.counters.csv"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Three components, as the Zhang & Owens parts: inst, shared, global (ns). */
static void three(gm_bottleneck_verdict_input *in, double measured, double inst, double shared,
                  double global)
{
    gm_bottleneck_verdict_input_init(in);
    in->measured_ns = measured;
    static const char *const names[] = {"instruction", "shared", "global"};
    double t[] = {inst, shared, global};
    for (int i = 0; i < 3; i++) {
        in->comp_name[i] = names[i];
        in->comp_ns[i] = t[i];
    }
    in->n_comp = 3;
    in->launch_ns = 4392;
}

static void decide(const gm_bottleneck_verdict_input *in, gm_bottleneck_verdict *v)
{
    gm_error err;
    assert_int_equal(gm_bottleneck_verdict_decide(in, v, &err), GM_OK);
}

static void spread(void **state)
{
    (void)state;
    near(gm_bottleneck_verdict_spread_ns(1000), 640, 0);      /* short: the 640 ns floor */
    near(gm_bottleneck_verdict_spread_ns(100000), 7000, 1e-9); /* long: 7% */
}

/* vectorized_elementwise_kernel of the corpus (launch 1): global 128.2 us
 * against 93.6 us measured is a model error, the smaller parts fit. */
static void misfit(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    three(&in, 93630, 6167, 1046, 128200);
    gm_bottleneck_verdict v;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_MISFIT);
    assert_int_equal(v.n_over, 1);
    assert_int_equal(v.over, 2);
    near(v.over_ratio, 128200.0 / 93630, 1e-12);
    assert_string_equal(v.model_error, "global 128.2 us > 93.6 us measured (1.37x)");
    assert_string_equal(v.text, "model does not fit: global 128.2 us > 93.6 us measured (1.37x)");
    assert_int_equal(v.comp, 0); /* the largest that fits: instruction */
    near(v.share, 6167.0 / 93630, 1e-12);
    /* 6.9% over is within the 7% spread: it fits and is the bottleneck */
    three(&in, 93630, 6167, 1046, 93630 * 1.069);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_UNIT);
    assert_int_equal(v.comp, 2);
    assert_int_equal(v.n_over, 0);
    assert_string_equal(v.model_error, "");
    /* 7.1% over is not */
    three(&in, 93630, 6167, 1046, 93630 * 1.071);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_MISFIT);
}

/* At the threshold: 0.6 of the measured time is a bottleneck, just under is
 * latency bound. */
static void busy_threshold(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    gm_bottleneck_verdict v;
    three(&in, 100000, 60000, 1000, 2000);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_UNIT);
    assert_int_equal(v.comp, 0);
    three(&in, 100000, 59900, 1000, 2000);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LATENCY);
    assert_int_equal(v.comp, 0);
    near(v.share, 0.599, 1e-12);
}

/* 1.8 us measured, 4.392 us for an empty launch back to back: launch bound,
 * even with a component above the measured time (which is still reported). */
static void launch_bound(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    gm_bottleneck_verdict v;
    three(&in, 1824, 18, 15, 107500);
    in.blocks = 1;
    in.blocks_per_wave = 8 * 132;
    in.sm_count = 132;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LAUNCH);
    assert_string_equal(v.text, "launch bound: 1.8 us, at most an empty launch back to back "
                                "(4.4 us) and the spread (0.6 us)");
    assert_string_equal(v.model_error, "global 107.5 us > 1.8 us measured (58.94x)");
    assert_string_equal(v.fix, "fusing it into a neighbour or a CUDA graph saves up to 4.4 us per "
                               "launch; grid under one wave: 1 of 1056 block slots (0%), 1 of 132 SMs");
    near(v.wave_fill, 1.0 / 1056, 1e-15);
    /* 4.392 + 0.64 us is the edge; 5.04 us is not launch bound */
    three(&in, 5032, 18, 15, 1000);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LAUNCH);
    three(&in, 5040, 18, 15, 1000);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LATENCY);
    /* the what-ifs: with no warp states and no queued launch, none */
    assert_true(isnan(v.speedup_fused) && isnan(v.speedup_graph) && isnan(v.fused_step_ns));
    /* a warp's own latency: wait 2000 + selected 1000 cycles (the math pipe
     * throttle, 5000, is other warps' contention), one warp, 1 GHz: 3 us; a
     * step of a fused kernel takes that, against 4.392 us a launch in a
     * stream: 1.464x; in a graph the 1.824 us launch costs itself (queued
     * empty launch 1.5 us): 4.392 / 1.824 = 2.408x */
    three(&in, 1824, 18, 15, 100);
    in.stall[GM_BOTTLENECK_VERDICT_ST_WAIT] = 2000;
    in.stall[GM_BOTTLENECK_VERDICT_ST_SELECTED] = 1000;
    in.stall[GM_BOTTLENECK_VERDICT_ST_MATH] = 5000;
    in.warps_launched = 1;
    in.clock_ghz = 1;
    in.queued_ns = 1500;
    in.comp_best_ns[0] = 18;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LAUNCH);
    near(v.warp_latency_ns, 3000, 1e-9);
    near(v.fused_step_ns, 3000, 1e-9);
    near(v.speedup_fused, 4392.0 / 3000, 1e-12);
    near(v.speedup_graph, 4392.0 / 1824, 1e-12);
    assert_string_equal(v.fix, "fusing it into a neighbour or a CUDA graph saves up to 4.4 us per "
                               "launch (fused: 3.00 us per launch, 1.5x; graph: 2.4x)");
    /* with the graph rows measured a node costs the step and what the
     * graph adds to it, 0.8 us: 4.392 / 3.8 = 1.156x; no less than a node of
     * empty launches: at 4 us, 4.392 / 4 */
    in.graph_ns = 1000;
    in.graph_gap_ns = 800;
    decide(&in, &v);
    near(v.speedup_graph, 4392.0 / 3800, 1e-12);
    in.graph_ns = 4000;
    decide(&in, &v);
    near(v.speedup_graph, 4392.0 / 4000, 1e-12);
    in.graph_ns = in.graph_gap_ns = NAN;
    /* a unit slower than the warps' latency sets the step: 5 us at its best */
    in.comp_best_ns[0] = 5000;
    decide(&in, &v);
    near(v.fused_step_ns, 5000, 1e-9);
    /* 64 launches summed (--summary): launch bound per launch, as one is */
    three(&in, 64 * 1824.0, 64 * 18.0, 64 * 15.0, 64 * 100.0);
    in.launches = 64;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LAUNCH);
    assert_non_null(strstr(v.text, "launch bound: 1.8 us"));
    in.launches = 1; /* read as one launch of 117 us: not */
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LATENCY);
    /* no machine data for the launch: never launch bound */
    three(&in, 1824, 18, 15, 100);
    in.launch_ns = NAN;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LATENCY);
}

/* Latency bound: instruction 30% of 100 us at 8 warps per SM; at its best
 * rate (64 warps) it would take 20 us: Little's law asks for 8 / 0.2 = 40
 * warps per SM.  Warp-cycles 1000: short scoreboard 300, wait 100, selected
 * 100, so 50% are in states not collected. */
static void latency_bound(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    gm_bottleneck_verdict v;
    three(&in, 100000, 30000, 1000, 2000);
    in.comp_best_ns[0] = 20000;
    in.comp_best_ns[1] = 1000;
    in.comp_best_ns[2] = 1500;
    in.warp_cycles = 1000;
    in.stall[GM_BOTTLENECK_VERDICT_ST_SHORT_SB] = 300;
    in.stall[GM_BOTTLENECK_VERDICT_ST_WAIT] = 100;
    in.stall[GM_BOTTLENECK_VERDICT_ST_SELECTED] = 100;
    in.warps_per_sm = 8;
    in.reachable_warps = 64;
    in.reachable_from = "sched: N_slot 8 x 8 warps (warps)";
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_LATENCY);
    assert_int_equal(v.wait, GM_BOTTLENECK_VERDICT_ST_SHORT_SB);
    near(v.wait_share, 0.3, 1e-15);
    near(v.uncollected, 0.5, 1e-15);
    assert_string_equal(v.text, "latency bound: no unit above 60% (instruction 30%); warps wait "
                                "on shared-memory or special-math results (short scoreboard, "
                                "30%); 50% in states not collected");
    assert_int_equal(v.busiest, 0);
    near(v.busiest_use, 0.2, 1e-15);
    near(v.need_warps, 40, 1e-12);
    near(v.need_ilp, 40.0 / 64, 1e-12);
    assert_string_equal(v.fix, "instruction at 20% of its best rate; 40 warps/SM would reach it "
                               "(has 8.0; can have sched: N_slot 8 x 8 warps (warps))");
    /* Little's law what-ifs: twice and four times the work in flight halve
     * and quarter the time (the unit's best rate, 20 us, is further); at the
     * 64 warps the launch can have, 8x, but the unit stops it at 5x */
    near(v.speedup_x2, 2, 1e-12);
    near(v.speedup_x4, 4, 1e-12);
    near(v.speedup_reach, 5, 1e-12);
    /* a queued empty launch of 1 us stays: 100 / (1 + 99 / 2) = 1.980 */
    in.queued_ns = 1000;
    decide(&in, &v);
    near(v.speedup_x2, 100000.0 / 50500, 1e-12);
    near(v.speedup_reach, 100000.0 / 21000, 1e-12);
    in.queued_ns = NAN;
    /* the launch can have only 16: 2.5x the independent work per warp */
    in.reachable_warps = 16;
    in.reachable_from = "sched: N_slot 2 x 8 warps (registers)";
    in.stall[GM_BOTTLENECK_VERDICT_ST_LONG_SB] = 500; /* now every state is accounted for */
    decide(&in, &v);
    near(v.need_ilp, 2.5, 1e-12);
    assert_int_equal(v.wait, GM_BOTTLENECK_VERDICT_ST_LONG_SB);
    near(v.uncollected, 0, 0);
    assert_string_equal(v.fix, "instruction at 20% of its best rate; needs 2.5x the independent "
                               "work per warp at 16 warps/SM (sched: N_slot 2 x 8 warps (registers))");
}

/* An FFMA stream at its rate (validation/latency-bound, ffma_c1_w16 on the
 * H200): the issue slots 45.139 us, the instruction part 45.133 us (its
 * issue term: the executed instructions at the same rate), its busiest
 * pipe, fma, 44.387 us, of 45.376 us measured.  The issue slots exceed the
 * pipe's own work by 0.75 us, the loop's other instructions, within the
 * 3.18 us spread: the instruction part is named, the issue slots tied.
 * With the pipe 10% under the issue slots (4.5 us, beyond the spread) the
 * issue slots are the bottleneck; without a pipe among the components, or
 * with the pipe under the busy share, too. */
static void issue_tied_with_pipe(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    three(&in, 45376, 45133, 0, 300);
    in.comp_pipe_ns[0] = 44387;
    in.comp_name[3] = "issue slots";
    in.comp_ns[3] = 45139;
    in.comp_issue[3] = 1;
    in.n_comp = 4;
    gm_bottleneck_verdict v;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_UNIT);
    assert_int_equal(v.comp, 0);
    assert_int_equal(v.tied, 3);
    near(v.share, 45133.0 / 45376, 1e-12);
    /* the instruction part is the issue term itself (45.133 us) but its
     * pipes' own work 10% under the issue slots: the issue slots stay */
    in.comp_pipe_ns[0] = 45139 / 1.1;
    decide(&in, &v);
    assert_int_equal(v.comp, 3);
    assert_int_equal(v.tied, -1);
    in.comp_pipe_ns[0] = NAN;
    decide(&in, &v);
    assert_int_equal(v.comp, 3);
    assert_int_equal(v.tied, -1);
    /* issue at 62% of the time, the pipe at 57%: within the spread, under
     * the busy share: the issue slots stay */
    in.comp_ns[3] = 0.62 * 45376;
    in.comp_ns[0] = in.comp_pipe_ns[0] = 0.57 * 45376;
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_UNIT);
    assert_int_equal(v.comp, 3);
    assert_int_equal(v.tied, -1);
}

static void undecided_and_bad(void **state)
{
    (void)state;
    gm_bottleneck_verdict_input in;
    gm_bottleneck_verdict v;
    three(&in, NAN, 3, 2, 1);
    decide(&in, &v);
    assert_int_equal(v.kind, GM_BOTTLENECK_VERDICT_UNDECIDED);
    assert_int_equal(v.comp, 0);
    gm_error err;
    assert_int_equal(gm_bottleneck_verdict_decide(NULL, &v, &err), GM_ERR_INVALID_ARG);
    in.n_comp = GM_BOTTLENECK_VERDICT_MAX_COMP + 1;
    assert_int_equal(gm_bottleneck_verdict_decide(&in, &v, &err), GM_ERR_INVALID_ARG);
    /* every warp state is a row of the metric table, once */
    for (int s = 0; s < GM_BOTTLENECK_VERDICT_STALLS; s++) {
        assert_non_null(gm_bottleneck_verdict_stall_name(s));
        for (int t = 0; t < s; t++)
            assert_string_not_equal(gm_bottleneck_verdict_stall_metric(s),
                                    gm_bottleneck_verdict_stall_metric(t));
    }
    assert_null(gm_bottleneck_verdict_stall_metric(GM_BOTTLENECK_VERDICT_STALLS));
    /* the throttles are contention, not a warp's own latency */
    assert_false(gm_bottleneck_verdict_stall_is_latency(GM_BOTTLENECK_VERDICT_ST_MATH));
    assert_false(gm_bottleneck_verdict_stall_is_latency(GM_BOTTLENECK_VERDICT_ST_LG));
    assert_false(gm_bottleneck_verdict_stall_is_latency(GM_BOTTLENECK_VERDICT_ST_MIO));
    assert_true(gm_bottleneck_verdict_stall_is_latency(GM_BOTTLENECK_VERDICT_ST_WAIT));
    assert_true(gm_bottleneck_verdict_stall_is_latency(GM_BOTTLENECK_VERDICT_ST_SELECTED));
    double st[GM_BOTTLENECK_VERDICT_STALLS];
    for (int s = 0; s < GM_BOTTLENECK_VERDICT_STALLS; s++)
        st[s] = NAN;
    assert_true(isnan(gm_bottleneck_verdict_warp_latency_ns(st, 10, 2))); /* none collected */
    st[GM_BOTTLENECK_VERDICT_ST_LONG_SB] = 8000;
    st[GM_BOTTLENECK_VERDICT_ST_MIO] = 1e6;
    /* 8000 cycles / 10 warps / 2 GHz */
    near(gm_bottleneck_verdict_warp_latency_ns(st, 10, 2), 400, 1e-12);
    assert_true(isnan(gm_bottleneck_verdict_warp_latency_ns(st, 0, 2)));
}

static double metric(const gm_launch_counters *k, const char *name)
{
    int row = gm_metric_find(name);
    return row >= 0 ? k->metric[row] : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The spread covers every group of repeated launches in the corpus (same
 * kernel, grid, block, instructions and DRAM bytes to 0.1%), and is not
 * loose: the widest group uses most of it. */
static void spread_covers_corpus_repeats(void **state)
{
    (void)state;
    gm_counters_set set;
    gm_error err;
    assert_int_equal(gm_counters_load(CORPUS, &set, &err), GM_OK);
    char *used = calloc(set.count, 1);
    double t[64];
    size_t groups = 0;
    double widest = 0;
    for (size_t i = 0; i < set.count; i++) {
        if (used[i])
            continue;
        const gm_launch_counters *a = &set.launches[i];
        size_t n = 0;
        for (size_t j = i; j < set.count && n < 64; j++) {
            const gm_launch_counters *b = &set.launches[j];
            double da = metric(a, "dram__bytes_read.sum"), db = metric(b, "dram__bytes_read.sum");
            if (used[j] || strcmp(a->mangled, b->mangled) != 0 ||
                memcmp(a->grid, b->grid, sizeof a->grid) != 0 ||
                memcmp(a->block, b->block, sizeof a->block) != 0 ||
                metric(a, "smsp__inst_executed.sum") != metric(b, "smsp__inst_executed.sum") ||
                !(fabs(da - db) <= 1e-3 * fmax(da, db)))
                continue;
            used[j] = 1;
            t[n++] = metric(b, "gpu__time_duration.sum");
        }
        if (n < 2)
            continue;
        groups++;
        qsort(t, n, sizeof t[0], cmp_double);
        double median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
        double range = t[n - 1] - t[0];
        if (range > gm_bottleneck_verdict_spread_ns(median))
            fail_msg("%s: %zu launches spread %.0f ns around %.0f ns, over the %.0f allowed",
                     a->kernel, n, range, median, gm_bottleneck_verdict_spread_ns(median));
        widest = fmax(widest, range / gm_bottleneck_verdict_spread_ns(median));
    }
    assert_true(groups >= 50);
    assert_true(widest > 0.9);
    free(used);
    gm_counters_set_clear(&set);
}

/* ---- every recorded kernel in the repository ---- */

static size_t rows_checked, rows_misfit;

static double field(const gm_field *f, size_t n, const char *name, const char **text)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0) {
            if (text)
                *text = f[i].text;
            return f[i].num;
        }
    fail_msg("no field %s", name);
    return NAN;
}

/* The component field a bottleneck name stands for; NULL for the verdicts
 * that name none. */
static const char *component_field(const char *named)
{
    static const char *const map[][2] = {
        {"instruction", "inst_us"}, {"shared", "shared_us"}, {"global", "global_us"},
        {"tensor", "tensor_us"},    {"tma", "tma_us"},       {"l2", "l2_us"},
        {"dram", "dram_us"},        {"fma pipe", "fma_pipe_us"}, {"alu pipe", "alu_pipe_us"},
        {"issue slots", "issue_slots_us"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(named, map[i][0]) == 0)
            return map[i][1];
    if (strcmp(named, "-") && strcmp(named, "latency") && strcmp(named, "launch") &&
        strcmp(named, "misfit"))
        fail_msg("bottleneck '%s' has no component field in this test", named);
    return NULL;
}

static void check_file(const char *path)
{
    gm_counters_set set;
    gm_error err;
    if (gm_counters_load(path, &set, &err) != GM_OK)
        fail_msg("%s: %s", path, err.msg);
    gm_machine m;
    static const char *const suites[] = {"throughput", "sched", NULL};
    if (gm_machine_load(&m, set.meta.device_name, set.meta.sm_count, suites, NULL, 0, &err) !=
        GM_OK)
        fail_msg("%s: %s", path, err.msg);
    if (!gm_machine_suite(&m, "throughput")) {
        print_message("%s: no throughput data for %s, skipped\n", path, set.meta.device_name);
        gm_machine_free(&m);
        gm_counters_set_clear(&set);
        return;
    }
    const gm_unit *u = &gm_unit_bottleneck;
    static const char *const variants[] = {"hopper", "paper"};
    for (int vi = 0; vi < 2; vi++) {
        void *st = NULL;
        assert_int_equal(u->prepare(&m, variants[vi], &st, &err), GM_OK);
        void *res = calloc(1, u->result_size);
        for (size_t i = 0; i < set.count; i++) {
            assert_int_equal(u->apply(st, &set.meta, &set.launches[i], res, &err), GM_OK);
            gm_field f[GM_UNIT_MAX_FIELDS];
            size_t n = u->fields(st, res, f, GM_UNIT_MAX_FIELDS);
            const char *named = NULL, *model_error = NULL;
            field(f, n, "bottleneck", &named);
            field(f, n, "model_error", &model_error);
            double measured = field(f, n, "measured_us", NULL);
            double spread_us = field(f, n, "spread_us", NULL);
            const char *col = component_field(named ? named : "-");
            rows_checked++;
            if (model_error && model_error[0]) {
                rows_misfit++;
                assert_true(isnan(field(f, n, "predicted_us", NULL)));
            }
            if (!col)
                continue;
            double t = field(f, n, col, NULL);
            if (t > measured + spread_us)
                fail_msg("%s launch %zu (%s, %s): bottleneck %s %.3f us > %.3f us measured",
                         path, i, set.launches[i].kernel, variants[vi], named, t, measured);
        }
        free(res);
        u->release(st);
    }
    gm_machine_free(&m);
    gm_counters_set_clear(&set);
}

static void check_dir(const char *dir, int recurse)
{
    DIR *d = opendir(dir);
    if (!d)
        return; /* validation/recorded is optional */
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t l = strlen(e->d_name);
        if (l > 13 && strcmp(e->d_name + l - 13, ".counters.csv") == 0)
            check_file(path);
        else if (recurse && strchr(e->d_name, '.') == NULL)
            check_dir(path, recurse - 1);
    }
    closedir(d);
}

static void no_bottleneck_above_measured(void **state)
{
    (void)state;
    setenv("GPUQ_TABLE_DIR", GPUQ_SOURCE_DIR "/tables", 1);
    rows_checked = rows_misfit = 0;
    check_dir(GPUQ_SOURCE_DIR "/data/recorded", 0);
    check_dir(GPUQ_SOURCE_DIR "/validation/recorded", 2);
    check_dir(GPUQ_SOURCE_DIR "/validation/bottleneck/results", 1);
    print_message("%zu rows checked (both forms), %zu with a model error\n", rows_checked,
                  rows_misfit);
    /* the corpus alone has 481 launches, a quarter of them with a misfit */
    assert_true(rows_checked >= 2 * 481);
    assert_true(rows_misfit > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spread),
        cmocka_unit_test(misfit),
        cmocka_unit_test(busy_threshold),
        cmocka_unit_test(launch_bound),
        cmocka_unit_test(latency_bound),
        cmocka_unit_test(issue_tied_with_pipe),
        cmocka_unit_test(undecided_and_bad),
        cmocka_unit_test(spread_covers_corpus_repeats),
        cmocka_unit_test(no_bottleneck_above_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
