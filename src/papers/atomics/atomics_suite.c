/* Suite "atomics": the shared-atomic table T(n,e,c) of paper 000, Sec. 3.2.
 *
 * The loop: the scheduler (atomics_sched.c) hands out launches (one cell per SM),
 * the launcher (atomics_bench_cuda.c) runs them, the scheduler writes finished cells
 * into the table.  The table is checkpointed atomically every ~2 s and when
 * calibrate's stop() says so (Ctrl-C, SIGTERM), so --resume measures only
 * what is missing.  What it measures is what `gpuq calibrate` measured
 * before suites existed; only the settings moved to --set atomics.KEY=VALUE.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomics_bench.h"
#include "gpuq/suite.h"
#include "core/suite_clock.h"

#define GB_GATOMICS_DEFAULT_REPS 5
#define DEFAULT_SPREAD_THRESHOLD 0.10
#define CHECKPOINT_SECONDS 2.0
/* Launches a cell may go through before it is given up (discarded samples). */
#define MAX_ATTEMPTS 20
/* --quick: n up to 34 covers the one-block (n <= 32) and the two-block
 * (n > 32) launch of every kernel; one address pattern (both use the same
 * kernels). */
#define QUICK_N_MAX 34

typedef struct atomics_options {
    int classes[GM_ATOMICS_CLASS_COUNT];
    int methods[GM_ATOMICS_METHOD_COUNT];
    int patterns[GM_ATOMICS_PATTERN_COUNT];
    int reps;
    int inner_reps;
    double spread_threshold;
} atomics_options;

static const gb_suite_key atomics_keys[] = {
    /* the options of `gpuq calibrate` from before suites existed still set them */
    {"classes", "job classes, comma-separated (default add,cas,popc_inc; add is the paper's "
                "FAO/CAS grid, c = 0..n)", "classes"},
    {"methods", "single_shot,steady_state (default both)", "methods"},
    {"patterns", "same_address,distinct_bank (default both)", "patterns"},
    {"reps", "samples per cell, median kept (default 5, 1..21)", "reps"},
    {"inner_reps", "measurements per sample on one SM in one launch; the sample is the "
                   "shortest (default 8, 1..8)", "inner-reps"},
    {"spread_threshold", "re-measure a cell once, with 3x the samples, when (max-min)/median "
                         "exceeds this (default 0.10)", "spread-threshold"},
    {NULL, NULL, NULL},
};

static const gb_sass_expect atomics_sass[] = {
    /* Kernel names as cuobjdump prints them (mangled): the functor's name
     * is in the template argument.  ADD mixes CAS in (the FAO/CAS grid). */
    {"gb_op_addE", "ATOMS.ADD", 1},
    {"gb_op_addE", "ATOMS.CAS", 1},
    {"gb_op_casE", "ATOMS.CAS", 1},
    {"gb_op_popc_incE", "ATOMS.POPC.INC", 1},
    {NULL, NULL, 0},
};

typedef gm_status (*name_parser)(const char *name, int *out);

static gm_status parse_class(const char *name, int *out)
{
    gm_atomics_job_class v;
    gm_status st = gm_atomics_class_parse(name, &v);
    *out = (int)v;
    return st;
}

static gm_status parse_method(const char *name, int *out)
{
    gm_atomics_method v;
    gm_status st = gm_atomics_method_parse(name, &v);
    *out = (int)v;
    return st;
}

static gm_status parse_pattern(const char *name, int *out)
{
    gm_atomics_pattern v;
    gm_status st = gm_atomics_pattern_parse(name, &v);
    *out = (int)v;
    return st;
}

/* "a,b,c" -> selected[index] = 1. */
static gm_status parse_list(const char *key, const char *value, name_parser parse, int *selected,
                            int count, gm_error *err)
{
    char buf[256];
    if (strlen(value) >= sizeof buf)
        return gm_fail(err, GM_ERR_RANGE, "atomics.%s: list too long", key);
    snprintf(buf, sizeof buf, "%s", value);
    memset(selected, 0, (size_t)count * sizeof *selected);
    int any = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = -1;
        if (parse(tok, &v) != GM_OK || v < 0 || v >= count)
            return gm_fail(err, GM_ERR_PARSE, "atomics.%s: unknown name '%s'", key, tok);
        selected[v] = 1;
        any = 1;
    }
    if (!any)
        return gm_fail(err, GM_ERR_PARSE, "atomics.%s needs at least one name", key);
    return GM_OK;
}

static gm_status parse_options(const gb_suite_run *run, atomics_options *o, gm_error *err)
{
    *o = (atomics_options){.reps = GB_GATOMICS_DEFAULT_REPS,
                           .inner_reps = GB_ATOMICS_DEFAULT_INNER_REPS,
                           .spread_threshold = DEFAULT_SPREAD_THRESHOLD};
    o->classes[GM_ATOMICS_CLASS_ADD] = o->classes[GM_ATOMICS_CLASS_CAS] = o->classes[GM_ATOMICS_CLASS_POPC_INC] = 1;
    for (int i = 0; i < GM_ATOMICS_METHOD_COUNT; i++)
        o->methods[i] = 1;
    for (int i = 0; i < GM_ATOMICS_PATTERN_COUNT; i++)
        o->patterns[i] = 1;
    if (run->quick)
        o->patterns[GM_ATOMICS_PATTERN_DISTINCT_BANK] = 0;
    gm_status st = GM_OK;
    for (size_t i = 0; i < run->n_settings && st == GM_OK; i++) {
        const char *k = run->settings[i].key, *v = run->settings[i].value;
        if (strcmp(k, "classes") == 0)
            st = parse_list(k, v, parse_class, o->classes, GM_ATOMICS_CLASS_COUNT, err);
        else if (strcmp(k, "methods") == 0)
            st = parse_list(k, v, parse_method, o->methods, GM_ATOMICS_METHOD_COUNT, err);
        else if (strcmp(k, "patterns") == 0)
            st = parse_list(k, v, parse_pattern, o->patterns, GM_ATOMICS_PATTERN_COUNT, err);
        else if (strcmp(k, "reps") == 0)
            st = gb_suite_parse_int("atomics", k, v, 1, GB_ATOMICS_MAX_REPS / 3, &o->reps, err);
        else if (strcmp(k, "inner_reps") == 0)
            st = gb_suite_parse_int("atomics", k, v, 1, GB_ATOMICS_MAX_INNER, &o->inner_reps, err);
        else if (strcmp(k, "spread_threshold") == 0) {
            char *end = NULL;
            errno = 0;
            double x = strtod(v, &end);
            if (errno || end == v || *end || !isfinite(x) || x < 0)
                st = gm_fail(err, GM_ERR_RANGE,
                             "atomics.spread_threshold needs a number >= 0, got '%s'", v);
            else
                o->spread_threshold = x;
        } else {
            st = gm_fail(err, GM_ERR_PARSE, "atomics has no setting '%s'", k);
        }
    }
    if (st != GM_OK)
        return st;
    for (int i = 0; i < GM_ATOMICS_CLASS_COUNT; i++) {
        int mixes;
        if (o->classes[i] && gb_atomics_class_mixes_cas((gm_atomics_job_class)i, &mixes, NULL) != GM_OK)
            return gm_fail(err, GM_ERR_UNSUPPORTED, "atomics.classes: no calibrate kernel for "
                           "'%s' yet", gm_atomics_class_name((gm_atomics_job_class)i));
    }
    return GM_OK;
}

static gm_status atomics_check(const gb_suite_run *run, gm_error *err)
{
    atomics_options o;
    return parse_options(run, &o, err);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void iso_date_utc(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* How the table was measured, in its metadata; --resume requires the same.
 * (A --quick table says so by its max_warps_per_sm of 34.) */
static void method_note(const atomics_options *o, char *out, size_t len)
{
    snprintf(out, len,
             "T = last completion - first arrival (clock64 after the result) of n warps on one "
             "SM; n > 32 as two blocks; sample = min of %d quiet-window measurements; "
             "steady_state: %d dependent rounds, T per round; POPC.INC timed by a following load",
             o->inner_reps, GB_ATOMICS_STEADY_ROUNDS);
}

/* The partial table must come from this GPU and these settings. */
static gm_status check_resumable(const gm_atomics_table *t, const gm_atomics_table_meta *dev,
                                 const atomics_options *o, const char *path,
                                 gm_error *err)
{
    const gm_atomics_table_meta *m = &t->meta;
    if (strcmp(m->gpu_name, dev->gpu_name) != 0 || m->cc_major != dev->cc_major ||
        m->cc_minor != dev->cc_minor || m->sm_count != dev->sm_count ||
        m->max_warps_per_sm != dev->max_warps_per_sm || m->warp_size != dev->warp_size)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured on %s (cc %d.%d, %d SMs, n <= %d), not on %s (cc %d.%d, "
                       "%d SMs, n <= %d)",
                       path, m->gpu_name, m->cc_major, m->cc_minor, m->sm_count,
                       m->max_warps_per_sm, dev->gpu_name, dev->cc_major, dev->cc_minor,
                       dev->sm_count, dev->max_warps_per_sm);
    if (m->reps != o->reps || m->spread_threshold != o->spread_threshold)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured with atomics.reps=%d atomics.spread_threshold=%g, not %d "
                       "and %g",
                       path, m->reps, m->spread_threshold, o->reps, o->spread_threshold);
    char note[sizeof m->method_note];
    method_note(o, note, sizeof note);
    if (strcmp(m->method_note, note) != 0)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured another way ('%s'; other inner_reps or gpuq version)",
                       path, m->method_note);
    return GM_OK;
}

/* Adds every selected series the table does not have yet. */
static gm_status add_selected_series(gm_atomics_table *t, const atomics_options *o, gm_error *err)
{
    for (int cls = 0; cls < GM_ATOMICS_CLASS_COUNT; cls++) {
        if (!o->classes[cls])
            continue;
        int mixes = 0;
        gm_status st = gb_atomics_class_mixes_cas((gm_atomics_job_class)cls, &mixes, err);
        if (st != GM_OK)
            return st;
        for (int m = 0; m < GM_ATOMICS_METHOD_COUNT; m++)
            for (int p = 0; p < GM_ATOMICS_PATTERN_COUNT; p++) {
                if (!o->methods[m] || !o->patterns[p] ||
                    gm_atomics_table_find(t, (gm_atomics_job_class)cls, (gm_atomics_pattern)p,
                                          (gm_atomics_method)m))
                    continue;
                st = gm_atomics_table_add_series(t, (gm_atomics_job_class)cls,
                                                 (gm_atomics_pattern)p, (gm_atomics_method)m, mixes,
                                                 NULL);
                if (st != GM_OK)
                    return gm_fail(err, st, "cannot add series %s,%s,%s",
                                   gm_atomics_class_name((gm_atomics_job_class)cls),
                                   gm_atomics_pattern_name((gm_atomics_pattern)p),
                                   gm_atomics_method_name((gm_atomics_method)m));
            }
    }
    return GM_OK;
}

static gm_status checkpoint(gm_atomics_table *t, const char *path, gm_error *err)
{
    iso_date_utc(t->meta.date, sizeof t->meta.date);
    return gm_atomics_table_write_file(path, t, err);
}

/* Opens or creates the table to fill. */
static gm_status open_table(const gb_suite_run *run, const atomics_options *o,
                            gm_atomics_table_meta *dev, gm_atomics_table **out, gm_error *err)
{
    gm_status st;
    if (run->resume) {
        FILE *probe = fopen(run->out_path, "r");
        if (probe) {
            fclose(probe);
            if ((st = gm_atomics_table_load_partial(run->out_path, out, err)) != GM_OK)
                return st;
            if ((st = check_resumable(*out, dev, o, run->out_path, err)) != GM_OK) {
                gm_atomics_table_free(*out);
                *out = NULL;
            }
            return st;
        }
        /* Nothing to resume (the suite had not started): a fresh table. */
    }
    dev->reps = o->reps;
    dev->spread_threshold = o->spread_threshold;
    snprintf(dev->gpuq_version, sizeof dev->gpuq_version, "%s", GPUQ_VERSION);
    method_note(o, dev->method_note, sizeof dev->method_note);
    *out = gm_atomics_table_new(dev);
    return *out ? GM_OK : gm_fail(err, GM_ERR_NOMEM, "table");
}

static gm_status atomics_run(const gb_suite_run *run, gm_error *err)
{
    atomics_options o;
    gm_status st = parse_options(run, &o, err);
    if (st != GM_OK)
        return st;

    gb_atomics_context *ctx = NULL;
    gm_atomics_table *table = NULL;
    gb_atomics_sched *sched = NULL;
    double *samples = NULL;

    if ((st = gb_atomics_open(run->device, &ctx, err)) != GM_OK)
        return st;
    gb_atomics_run_options run_opt;
    gb_atomics_run_options_default(&run_opt);
    run_opt.inner_reps = o.inner_reps;
    if ((st = gb_atomics_set_run_options(ctx, &run_opt, err)) != GM_OK)
        goto done;
    gm_atomics_table_meta dev = {0};
    gb_atomics_device_meta(ctx, &dev);
    if (run->quick && dev.max_warps_per_sm > QUICK_N_MAX)
        dev.max_warps_per_sm = QUICK_N_MAX;
    if ((st = open_table(run, &o, &dev, &table, err)) != GM_OK)
        goto done;
    if ((st = add_selected_series(table, &o, err)) != GM_OK)
        goto done;

    /* Warms the GPU up (10 ms of spinning on every SM) and reads the clock. */
    double mhz_before = 0, mhz_after = 0;
    if ((st = gb_atomics_measure_sm_clock(ctx, &mhz_before, err)) != GM_OK)
        goto done;

    gb_atomics_sched_options so = {
        .cells_per_launch = gb_atomics_cells_per_launch(ctx),
        .reps = o.reps,
        .spread_threshold = o.spread_threshold,
        .remeasure_reps = 3 * o.reps,
        .max_attempts = MAX_ATTEMPTS,
    };
    if ((st = gb_atomics_sched_new(table, &so, &sched, err)) != GM_OK)
        goto done;
    samples = malloc((size_t)GB_ATOMICS_MAX_REPS * (size_t)so.cells_per_launch * sizeof *samples);
    if (!samples) {
        st = gm_fail(err, GM_ERR_NOMEM, "samples");
        goto done;
    }

    gb_atomics_sched_progress prog;
    gb_atomics_sched_get_progress(sched, &prog);
    const long planned = prog.total;
    const double start = now_seconds();
    double last_checkpoint = start;
    double checkpoint_interval = CHECKPOINT_SECONDS;
    /* Test hook (tests/bench/calibrate_resume.sh): raise SIGINT after this
     * many launches, to drive the Ctrl-C path without timing races. */
    const char *hook = getenv("GPUQ_CALIBRATE_SIGINT_AFTER");
    const long sigint_after = hook ? atol(hook) : 0;
    run->progress(run->io, 0, planned, "cells");
    gb_atomics_launch launch;
    int stopped = 0;
    while (!(stopped = run->stop(run->io)) && gb_atomics_sched_next(sched, &launch)) {
        st = gb_atomics_run_launch(ctx, &launch, samples, err);
        if (st == GM_OK)
            st = gb_atomics_sched_record(sched, &launch, samples, err);
        if (st != GM_OK)
            break;
        gb_atomics_sched_get_progress(sched, &prog);
        run->progress(run->io, prog.done + prog.failed, planned, "cells");
        if (sigint_after > 0 && prog.launches == sigint_after)
            raise(SIGINT);
        double now = now_seconds();
        if (now - last_checkpoint >= checkpoint_interval) {
            if ((st = checkpoint(table, run->out_path, err)) != GM_OK)
                break;
            /* A full table is large: keep checkpoints under ~20% of the run. */
            double took = now_seconds() - now;
            checkpoint_interval = took * 5 > CHECKPOINT_SECONDS ? took * 5 : CHECKPOINT_SECONDS;
            last_checkpoint = now_seconds();
        }
    }
    gb_atomics_sched_get_progress(sched, &prog);
    if (st != GM_OK || stopped) {
        /* Keep what was measured, whatever stopped the loop. */
        gm_error save_err = {{0}};
        gm_status save_st = checkpoint(table, run->out_path, &save_err);
        if (st != GM_OK)
            goto done;
        if (save_st != GM_OK) {
            st = save_st;
            if (err)
                *err = save_err;
            goto done;
        }
        st = gm_fail(err, GM_ERR_INTERRUPTED, "%ld of %ld cells saved to %s", prog.done, planned,
                     run->out_path);
        goto done;
    }
    double wall = now_seconds() - start;
    if ((st = gb_atomics_measure_sm_clock(ctx, &mhz_after, err)) != GM_OK)
        goto done;
    table->meta.sm_clock_mhz = gb_clock_of_run(mhz_before, mhz_after);
    if ((st = checkpoint(table, run->out_path, err)) != GM_OK)
        goto done;
    gb_atomics_run_counters counts;
    gb_atomics_get_run_counters(ctx, &counts);
    if (!run->quiet) {
        printf("atomics: %ld cells in %.1f s (%.0f cells/s, %ld launches, %ld re-measured), "
               "SM clock %.0f MHz (%.0f before, %.0f after)\n",
               prog.done, wall, wall > 0 ? (double)prog.done / wall : 0.0, prog.launches,
               prog.remeasured, table->meta.sm_clock_mhz, mhz_before, mhz_after);
        printf("atomics: measurements: %ld, discarded: %ld blocks not together, %ld late start, "
               "%ld window overrun, %ld arrival skew\n",
               counts.measurements, counts.not_coresident, counts.late, counts.overrun,
               counts.skewed);
    }
    if (prog.failed > 0)
        st = gm_fail(err, GM_ERR_CUDA,
                     "%ld cells could not be measured in %d launches (blocks never met on one "
                     "SM); they are missing from %s; try --resume",
                     prog.failed, MAX_ATTEMPTS, run->out_path);
done:
    free(samples);
    gb_atomics_sched_free(sched);
    gm_atomics_table_free(table);
    gb_atomics_close(ctx);
    return st;
}

const gb_suite gb_suite_atomics = {
    .name = "atomics",
    .measures = "T(n,e,c) of the shared-memory atomic unit, one SM (paper 000, Sec. 3.2)",
    .sweep = "n = 1..warps per SM, e = 1..32, c = 0..n; ADD/CAS, CAS, POPC.INC; single shot and "
             "steady state; same address and distinct banks",
    .file = "atomics.csv.gz",
    .expected_s = 11.0,
    .sass = atomics_sass,
    .run = atomics_run,
    .keys = atomics_keys,
    .check = atomics_check,
};

gm_status gb_device_sm_clock(int device, double *mhz, gm_error *err)
{
    gb_atomics_context *ctx = NULL;
    *mhz = 0;
    gm_status st = gb_atomics_open(device, &ctx, err);
    if (st == GM_OK)
        st = gb_atomics_measure_sm_clock(ctx, mhz, err);
    gb_atomics_close(ctx);
    return st;
}
