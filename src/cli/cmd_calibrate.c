/* gpuq calibrate: measure the shared-atomic table T(n,e,c) on this GPU
 * (paper 000, Sec. 3.2) and write it as a calibration table.
 *
 * The loop: the scheduler hands out launches (one cell per SM), the launcher
 * runs them, the scheduler writes finished cells into the table.  The table
 * is checkpointed atomically every ~2 s and when SIGINT/SIGTERM arrives (the
 * handler only sets a flag), so --resume can measure only what is missing.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"

#define CMD "calibrate"
#define DEFAULT_REPS 5
#define DEFAULT_SPREAD_THRESHOLD 0.10
#define CHECKPOINT_SECONDS 2.0
#define PROGRESS_LINE_SECONDS 5.0
/* Launches a cell may go through before it is given up (discarded samples). */
#define MAX_ATTEMPTS 20

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void print_help(void)
{
    printf("usage: gpuq calibrate [--device N] [--classes LIST] [--methods LIST]\n"
           "                      [--patterns LIST] [--reps K] [--inner-reps K]\n"
           "                      [--spread-threshold X] [-o FILE] [--resume] [--quiet]\n"
           "\n"
           "Measures T(n,e,c), the time n warp-instructions of e active lanes (c of them\n"
           "CAS) take in the shared-memory atomic unit of one SM, for every n up to the\n"
           "SM's warp limit, e up to 32 and c up to n (paper 000, Sec. 3.2), and writes\n"
           "the calibration table that 'gpuq profile' and 'gpuq model' read.\n"
           "\n"
           "options:\n"
           "  --device N            CUDA device to measure (default 0)\n"
           "  --classes LIST        job classes, comma-separated (default add,cas,popc_inc);\n"
           "                        add is the paper's FAO/CAS grid (c = 0..n)\n"
           "  --methods LIST        single_shot,steady_state (default both)\n"
           "  --patterns LIST       same_address,distinct_bank (default both)\n"
           "  --reps K              samples per cell, median kept (default %d, 1..%d)\n"
           "  --inner-reps K        measurements per sample, on one SM in one launch; the\n"
           "                        sample is the shortest (default %d, 1..%d)\n"
           "  --spread-threshold X  re-measure a cell once, with 3x the samples, when\n"
           "                        (max-min)/median exceeds X (default %.2f)\n"
           "  -o, --output FILE     table to write (default gpuq-<gpu name>.csv)\n"
           "  --resume              continue the partial table in FILE (after Ctrl-C)\n"
           "  --quiet               no progress and no summary\n"
           "\n"
           "Ctrl-C saves the cells measured so far; --resume measures the rest.\n"
           "See docs/calibration.md for the method.\n",
           DEFAULT_REPS, GB_MAX_REPS / 3, GB_DEFAULT_INNER_REPS, GB_MAX_INNER,
           DEFAULT_SPREAD_THRESHOLD);
}

typedef struct calibrate_options {
    int device;
    int classes[GM_CLASS_COUNT];
    int methods[GM_METHOD_COUNT];
    int patterns[GM_PATTERN_COUNT];
    int reps;
    int inner_reps;
    double spread_threshold;
    const char *output;
    int resume;
    int quiet;
} calibrate_options;

typedef gm_status (*name_parser)(const char *name, int *out);

static gm_status parse_class(const char *name, int *out)
{
    gm_job_class v;
    gm_status st = gm_class_parse(name, &v);
    *out = (int)v;
    return st;
}

static gm_status parse_method(const char *name, int *out)
{
    gm_method v;
    gm_status st = gm_method_parse(name, &v);
    *out = (int)v;
    return st;
}

static gm_status parse_pattern(const char *name, int *out)
{
    gm_pattern v;
    gm_status st = gm_pattern_parse(name, &v);
    *out = (int)v;
    return st;
}

/* "a,b,c" -> selected[index] = 1.  Returns 0, or prints a usage error. */
static int parse_list(const char *option, const char *value, name_parser parse, int *selected,
                      int count)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value);
    memset(selected, 0, (size_t)count * sizeof *selected);
    int any = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = -1;
        if (parse(tok, &v) != GM_OK || v < 0 || v >= count) {
            cli_usage_error(CMD, "%s: unknown name '%s'", option, tok);
            return -1;
        }
        selected[v] = 1;
        any = 1;
    }
    if (!any) {
        cli_usage_error(CMD, "%s needs at least one name", option);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, calibrate_options *o)
{
    enum { OPT_DEVICE = 256, OPT_CLASSES, OPT_METHODS, OPT_PATTERNS, OPT_REPS, OPT_INNER_REPS,
           OPT_SPREAD, OPT_RESUME, OPT_QUIET };
    static const struct option opts[] = {
        {"device", required_argument, NULL, OPT_DEVICE},
        {"classes", required_argument, NULL, OPT_CLASSES},
        {"methods", required_argument, NULL, OPT_METHODS},
        {"patterns", required_argument, NULL, OPT_PATTERNS},
        {"reps", required_argument, NULL, OPT_REPS},
        {"inner-reps", required_argument, NULL, OPT_INNER_REPS},
        {"spread-threshold", required_argument, NULL, OPT_SPREAD},
        {"output", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (calibrate_options){.reps = DEFAULT_REPS,
                             .inner_reps = GB_DEFAULT_INNER_REPS,
                             .spread_threshold = DEFAULT_SPREAD_THRESHOLD};
    o->classes[GM_CLASS_ADD] = o->classes[GM_CLASS_CAS] = o->classes[GM_CLASS_POPC_INC] = 1;
    for (int i = 0; i < GM_METHOD_COUNT; i++)
        o->methods[i] = 1;
    for (int i = 0; i < GM_PATTERN_COUNT; i++)
        o->patterns[i] = 1;

    optind = 1;
    opterr = 0;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            print_help();
            return 1;
        case OPT_DEVICE:
            if ((v = cli_parse_count(CMD, "--device", optarg, 0, 1023)) < 0)
                return -1;
            o->device = (int)v;
            break;
        case OPT_CLASSES:
            if (parse_list("--classes", optarg, parse_class, o->classes, GM_CLASS_COUNT) < 0)
                return -1;
            break;
        case OPT_METHODS:
            if (parse_list("--methods", optarg, parse_method, o->methods, GM_METHOD_COUNT) < 0)
                return -1;
            break;
        case OPT_PATTERNS:
            if (parse_list("--patterns", optarg, parse_pattern, o->patterns, GM_PATTERN_COUNT) < 0)
                return -1;
            break;
        case OPT_REPS:
            if ((v = cli_parse_count(CMD, "--reps", optarg, 1, GB_MAX_REPS / 3)) < 0)
                return -1;
            o->reps = (int)v;
            break;
        case OPT_INNER_REPS:
            if ((v = cli_parse_count(CMD, "--inner-reps", optarg, 1, GB_MAX_INNER)) < 0)
                return -1;
            o->inner_reps = (int)v;
            break;
        case OPT_SPREAD: {
            char *end = NULL;
            errno = 0;
            double x = strtod(optarg, &end);
            if (errno || end == optarg || *end || !isfinite(x) || x < 0) {
                cli_usage_error(CMD, "--spread-threshold needs a number >= 0, got '%s'", optarg);
                return -1;
            }
            o->spread_threshold = x;
            break;
        }
        case 'o':
            o->output = optarg;
            break;
        case OPT_RESUME:
            o->resume = 1;
            break;
        case OPT_QUIET:
            o->quiet = 1;
            break;
        case ':':
            cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
            return -1;
        default:
            cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    for (int i = 0; i < GM_CLASS_COUNT; i++) {
        int mixes;
        if (o->classes[i] && gb_class_mixes_cas((gm_job_class)i, &mixes, NULL) != GM_OK) {
            cli_usage_error(CMD, "--classes: no calibrate kernel for '%s' yet",
                            gm_class_name((gm_job_class)i));
            return -1;
        }
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "NVIDIA H100 80GB HBM3" -> "gpuq-nvidia-h100-80gb-hbm3.csv" */
static void default_output(const char *gpu_name, char *out, size_t len)
{
    char slug[128];
    size_t k = 0;
    int dash = 0;
    for (const char *p = gpu_name; *p && k + 1 < sizeof slug; p++) {
        if (isalnum((unsigned char)*p)) {
            if (dash && k > 0)
                slug[k++] = '-';
            if (k + 1 < sizeof slug)
                slug[k++] = (char)tolower((unsigned char)*p);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    slug[k] = '\0';
    snprintf(out, len, "gpuq-%s.csv", k ? slug : "gpu");
}

static void iso_date_utc(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* How the table was measured, in its metadata; --resume requires the same. */
static void method_note(const calibrate_options *o, char *out, size_t len)
{
    snprintf(out, len,
             "T = last completion - first arrival (clock64 after the result) of n warps on one SM; "
             "n > 32 as two blocks; sample = min of %d quiet-window measurements; steady_state: "
             "%d dependent rounds, T per round; POPC.INC timed by a following load",
             o->inner_reps, GB_STEADY_ROUNDS);
}

static void fill_run_meta(gm_table_meta *m, const calibrate_options *o)
{
    m->reps = o->reps;
    m->spread_threshold = o->spread_threshold;
    snprintf(m->gpuq_version, sizeof m->gpuq_version, "%s", GPUQ_VERSION);
    method_note(o, m->method_note, sizeof m->method_note);
}

/* The partial table must come from this GPU and these settings. */
static gm_status check_resumable(const gm_table *t, const gm_table_meta *dev,
                                 const calibrate_options *o, const char *path, gm_error *err)
{
    const gm_table_meta *m = &t->meta;
    if (strcmp(m->gpu_name, dev->gpu_name) != 0 || m->cc_major != dev->cc_major ||
        m->cc_minor != dev->cc_minor || m->sm_count != dev->sm_count ||
        m->max_warps_per_sm != dev->max_warps_per_sm || m->warp_size != dev->warp_size)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured on %s (cc %d.%d, %d SMs), not on %s (cc %d.%d, %d SMs)",
                       path, m->gpu_name, m->cc_major, m->cc_minor, m->sm_count, dev->gpu_name,
                       dev->cc_major, dev->cc_minor, dev->sm_count);
    if (m->reps != o->reps || m->spread_threshold != o->spread_threshold)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured with --reps %d --spread-threshold %g, not %d and %g", path,
                       m->reps, m->spread_threshold, o->reps, o->spread_threshold);
    char note[sizeof m->method_note];
    method_note(o, note, sizeof note);
    if (strcmp(m->method_note, note) != 0)
        return gm_fail(err, GM_ERR_MISMATCH,
                       "%s was measured another way ('%s'; other --inner-reps or gpuq version)",
                       path, m->method_note);
    return GM_OK;
}

/* Adds every selected series the table does not have yet. */
static gm_status add_selected_series(gm_table *t, const calibrate_options *o, gm_error *err)
{
    for (int cls = 0; cls < GM_CLASS_COUNT; cls++) {
        if (!o->classes[cls])
            continue;
        int mixes = 0;
        gm_status st = gb_class_mixes_cas((gm_job_class)cls, &mixes, err);
        if (st != GM_OK)
            return st;
        for (int m = 0; m < GM_METHOD_COUNT; m++)
            for (int p = 0; p < GM_PATTERN_COUNT; p++) {
                if (!o->methods[m] || !o->patterns[p] ||
                    gm_table_find(t, (gm_job_class)cls, (gm_pattern)p, (gm_method)m))
                    continue;
                st = gm_table_add_series(t, (gm_job_class)cls, (gm_pattern)p, (gm_method)m, mixes,
                                         NULL);
                if (st != GM_OK)
                    return gm_fail(err, st, "cannot add series %s,%s,%s",
                                   gm_class_name((gm_job_class)cls), gm_pattern_name((gm_pattern)p),
                                   gm_method_name((gm_method)m));
            }
    }
    return GM_OK;
}

typedef struct progress_state {
    int tty;
    int quiet;
    double start;
    double last_print;
} progress_state;

static void show_progress(progress_state *ps, const gb_sched_progress *p, int final)
{
    if (ps->quiet)
        return;
    double now = now_seconds();
    double elapsed = now - ps->start;
    if (!final && now - ps->last_print < (ps->tty ? 0.2 : PROGRESS_LINE_SECONDS))
        return;
    ps->last_print = now;
    double frac = p->total ? (double)(p->done + p->failed) / (double)p->total : 1.0;
    double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    if (ps->tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        int fill = (int)(frac * WIDTH);
        for (int i = 0; i < WIDTH; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[WIDTH] = '\0';
        fprintf(stderr, "\r[%s] %5.1f%% %ld/%ld cells  %.0fs elapsed  ETA %.0fs ", bar,
                100 * frac, p->done, p->total, elapsed, eta);
        if (final)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "calibrate: %ld/%ld cells (%.1f%%), %.0fs elapsed, ETA %.0fs\n", p->done,
                p->total, 100 * frac, elapsed, eta);
    }
    fflush(stderr);
}

static gm_status checkpoint(gm_table *t, const char *path, gm_error *err)
{
    iso_date_utc(t->meta.date, sizeof t->meta.date);
    return gm_table_write_file(path, t, err);
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;

    gm_error err = {{0}};
    gb_context *ctx = NULL;
    gm_table *table = NULL;
    gb_sched *sched = NULL;
    double *samples = NULL;
    char default_path[192];
    const char *path = o.output;
    struct sigaction old_int, old_term;
    int handlers_set = 0;

    gm_status st = gb_open(o.device, &ctx, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    gb_run_options run_opt;
    gb_run_options_default(&run_opt);
    run_opt.inner_reps = o.inner_reps;
    st = gb_set_run_options(ctx, &run_opt, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    gm_table_meta dev = {0};
    gb_device_meta(ctx, &dev);
    if (!path) {
        default_output(dev.gpu_name, default_path, sizeof default_path);
        path = default_path;
    }

    if (o.resume) {
        st = gm_table_load_partial(path, &table, &err);
        if (st != GM_OK) {
            rc = cli_fail(CMD, st, &err);
            goto done;
        }
        st = check_resumable(table, &dev, &o, path, &err);
        if (st != GM_OK) {
            rc = cli_fail(CMD, st, &err);
            goto done;
        }
    } else {
        fill_run_meta(&dev, &o);
        table = gm_table_new(&dev);
        if (!table) {
            rc = cli_fail(CMD, GM_ERR_NOMEM, NULL);
            goto done;
        }
    }
    st = add_selected_series(table, &o, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }

    /* Warms the GPU up (10 ms of spinning on every SM) and reads the clock. */
    double mhz_before = 0, mhz_after = 0;
    st = gb_measure_sm_clock(ctx, &mhz_before, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }

    gb_sched_options so = {
        .cells_per_launch = gb_cells_per_launch(ctx),
        .reps = o.reps,
        .spread_threshold = o.spread_threshold,
        .remeasure_reps = 3 * o.reps,
        .max_attempts = MAX_ATTEMPTS,
    };
    st = gb_sched_new(table, &so, &sched, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    samples = malloc((size_t)GB_MAX_REPS * (size_t)so.cells_per_launch * sizeof *samples);
    if (!samples) {
        rc = cli_fail(CMD, GM_ERR_NOMEM, NULL);
        goto done;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    handlers_set = 1;

    gb_sched_progress prog;
    gb_sched_get_progress(sched, &prog);
    const long planned = prog.total;
    progress_state ps = {.tty = cli_isatty(stderr), .quiet = o.quiet, .start = now_seconds()};
    ps.last_print = ps.start;
    double last_checkpoint = ps.start;
    double checkpoint_interval = CHECKPOINT_SECONDS;
    /* Test hook (tests/bench/calibrate_resume.sh): raise SIGINT after this
     * many launches, to drive the Ctrl-C path without timing races. */
    const char *hook = getenv("GPUQ_CALIBRATE_SIGINT_AFTER");
    const long sigint_after = hook ? atol(hook) : 0;
    gb_launch launch;
    while (!stop_signal && gb_sched_next(sched, &launch)) {
        st = gb_run_launch(ctx, &launch, samples, &err);
        if (st == GM_OK)
            st = gb_sched_record(sched, &launch, samples, &err);
        if (st != GM_OK)
            break;
        gb_sched_get_progress(sched, &prog);
        show_progress(&ps, &prog, 0);
        if (sigint_after > 0 && prog.launches == sigint_after)
            raise(SIGINT);
        double now = now_seconds();
        if (now - last_checkpoint >= checkpoint_interval) {
            st = checkpoint(table, path, &err);
            if (st != GM_OK)
                break;
            /* A full table is large: keep checkpoints under ~20% of the run. */
            double took = now_seconds() - now;
            checkpoint_interval = took * 5 > CHECKPOINT_SECONDS ? took * 5 : CHECKPOINT_SECONDS;
            last_checkpoint = now_seconds();
        }
    }
    gb_sched_get_progress(sched, &prog);
    if (st != GM_OK || stop_signal) {
        /* Keep what was measured, whatever stopped the loop. */
        gm_error save_err = {{0}};
        gm_status save_st = checkpoint(table, path, &save_err);
        if (!o.quiet && ps.tty)
            fputc('\n', stderr);
        if (st != GM_OK) {
            rc = cli_fail(CMD, st, &err);
            if (save_st == GM_OK)
                cli_error(CMD, "%ld of %ld cells saved to %s; resume with --resume", prog.done,
                          planned, path);
            goto done;
        }
        if (save_st != GM_OK) {
            rc = cli_fail(CMD, save_st, &save_err);
            goto done;
        }
        cli_error(CMD, "interrupted: %ld of %ld cells saved to %s; resume with --resume",
                  prog.done, planned, path);
        rc = GPUQ_EXIT_INTERRUPTED;
        goto done;
    }
    show_progress(&ps, &prog, 1);
    double wall = now_seconds() - ps.start;

    st = gb_measure_sm_clock(ctx, &mhz_after, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    table->meta.sm_clock_mhz = 0.5 * (mhz_before + mhz_after);
    st = checkpoint(table, path, &err);
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
        goto done;
    }
    if (!o.quiet)
        printf("wrote %s: %ld cells in %.1f s (%.0f cells/s, %ld launches, %ld re-measured), "
               "SM clock %.0f MHz (%.0f before, %.0f after)\n",
               path, prog.done, wall, wall > 0 ? (double)prog.done / wall : 0.0, prog.launches,
               prog.remeasured, table->meta.sm_clock_mhz, mhz_before, mhz_after);
    gb_run_counters rc_counts;
    gb_get_run_counters(ctx, &rc_counts);
    if (!o.quiet)
        printf("measurements: %ld, discarded: %ld blocks not together, %ld late start, "
               "%ld window overrun, %ld arrival skew\n",
               rc_counts.measurements, rc_counts.not_coresident, rc_counts.late,
               rc_counts.overrun, rc_counts.skewed);
    if (prog.failed > 0) {
        cli_error(CMD, "%ld cells could not be measured in %d launches (blocks never met on one "
                       "SM); they are missing from %s; try --resume",
                  prog.failed, MAX_ATTEMPTS, path);
        rc = GPUQ_EXIT_GPU;
        goto done;
    }
    rc = GPUQ_EXIT_OK;
done:
    if (handlers_set) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    free(samples);
    gb_sched_free(sched);
    gm_table_free(table);
    gb_close(ctx);
    return rc;
}
