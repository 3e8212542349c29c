/* gpuq calibrate: runs the microbenchmark suites (src/papers/suites.c) on one
 * GPU and writes their machine data into the GPU's folder, one file per
 * suite (include/gpuq/mdata.h).
 *
 * What is the same for every suite lives here: choosing suites and the
 * output folder, --set SUITE.KEY=VALUE, one progress line with the ETA of
 * the suite and of the whole run, Ctrl-C/SIGTERM (the handler only sets a
 * flag; the suite saves what it measured and returns), and the partial file:
 * a suite writes DIR/NAME.partial.csv[.gz] and only a finished suite's file
 * is renamed to its real name, so --resume knows what is left and an
 * interrupted run never replaces finished data.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "gpuq/suite.h"
#include "core/suite_clock.h"

#define CMD "calibrate"
#define PROGRESS_LINE_SECONDS 5.0
#define MAX_SETTINGS 64
#define MAX_SUITES 32

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void print_help(void)
{
    printf("usage: gpuq calibrate [--suite LIST] [--set SUITE.KEY=VALUE]... [-o DIR]\n"
           "                      [--resume] [--quick] [--device N] [--quiet]\n"
           "       gpuq calibrate --list | --sass-expect\n"
           "\n"
           "Runs the microbenchmark suites on one GPU and writes each suite's machine data\n"
           "into the GPU's folder (one file per suite), which 'gpuq profile' and 'gpuq model'\n"
           "read.  'gpuq calibrate --list' shows the suites, their settings and times.\n"
           "\n"
           "options:\n"
           "  --suite LIST      suites to run, comma-separated (default: all)\n"
           "  --set S.K=V       setting K of suite S (repeatable; see --list)\n"
           "  -o, --output DIR  folder to write (default $GPUQ_TABLE_DIR/<gpu>/ when set,\n"
           "                    else tables/<gpu>/; with --quick gpuq-quick/<gpu>/)\n"
           "  --resume          continue an interrupted run in DIR: suites whose file is\n"
           "                    there are kept, a suite's NAME.partial file is continued\n"
           "  --quick           the smallest sweep that still runs every kernel (tests)\n"
           "  --device N        CUDA device to measure (default 0)\n"
           "  --quiet           no progress and no summary\n"
           "  --list            the suites: what each measures, its settings, its time\n"
           "  --sass-expect     the SASS every suite's kernels must hold, one per line\n"
           "                    (suite kernel opcode min_count; tests/bench/check_suite_sass.sh)\n"
           "\n"
           "settings with options of their own (from before suites existed):\n");
    /* a suite's options from before suites existed (gb_suite_key.option) */
    for (size_t i = 0; gb_suites[i]; i++)
        for (const gb_suite_key *k = gb_suites[i]->keys; k && k->name; k++)
            if (k->option)
                printf("  --%-17s same as --set %s.%s=X\n", k->option, gb_suites[i]->name,
                       k->name);
    printf("\n"
           "Ctrl-C saves what was measured (exit 130); --resume measures the rest.\n"
           "See docs/calibration.md.\n");
}

typedef struct calibrate_options {
    int device;
    const gb_suite *suites[MAX_SUITES];
    size_t n_suites;
    const char *set_suite[MAX_SETTINGS]; /* suite name of each --set */
    gb_suite_setting set[MAX_SETTINGS];
    size_t n_set;
    char set_text[MAX_SETTINGS][256];
    const char *output;
    int resume, quick, quiet, list, sass_expect;
} calibrate_options;

/* --suite a,b -> o->suites (in the table's order, each once). */
static int parse_suite_list(calibrate_options *o, const char *value)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    int want[MAX_SUITES] = {0};
    char *save = NULL;
    int any = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (gb_suites[i] && strcmp(gb_suites[i]->name, tok) != 0)
            i++;
        if (!gb_suites[i] || i >= MAX_SUITES)
            return cli_usage_error(CMD, "--suite: no suite '%s' (gpuq calibrate --list)", tok);
        want[i] = any = 1;
    }
    if (!any)
        return cli_usage_error(CMD, "--suite needs at least one name");
    o->n_suites = 0;
    for (size_t i = 0; gb_suites[i] && i < MAX_SUITES; i++)
        if (want[i])
            o->suites[o->n_suites++] = gb_suites[i];
    return 0;
}

static int suite_has_key(const gb_suite *s, const char *key)
{
    for (const gb_suite_key *k = s->keys; k && k->name; k++)
        if (strcmp(k->name, key) == 0)
            return 1;
    return 0;
}

/* --set SUITE.KEY=VALUE */
static int add_setting(calibrate_options *o, const char *suite, const char *key,
                       const char *value)
{
    if (o->n_set == MAX_SETTINGS)
        return cli_usage_error(CMD, "more than %d --set", MAX_SETTINGS);
    const gb_suite *s = gb_suite_find(suite);
    if (!s)
        return cli_usage_error(CMD, "--set: no suite '%s' (gpuq calibrate --list)", suite);
    if (!suite_has_key(s, key))
        return cli_usage_error(CMD, "--set: suite %s has no setting '%s' (gpuq calibrate --list)",
                               suite, key);
    char *t = o->set_text[o->n_set];
    size_t kl = strlen(key), vl = strlen(value);
    if (kl + vl + 2 > sizeof o->set_text[0])
        return cli_usage_error(CMD, "--set %s.%s: value too long", suite, key);
    memcpy(t, key, kl + 1);
    memcpy(t + kl + 1, value, vl + 1);
    o->set_suite[o->n_set] = s->name;
    o->set[o->n_set] = (gb_suite_setting){.key = t, .value = t + kl + 1};
    o->n_set++;
    return 0;
}

static int parse_set(calibrate_options *o, const char *arg)
{
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return cli_usage_error(CMD, "--set: argument too long");
    snprintf(buf, sizeof buf, "%s", arg);
    char *dot = strchr(buf, '.'), *eq = strchr(buf, '=');
    if (!dot || !eq || eq < dot || dot == buf || eq == dot + 1)
        return cli_usage_error(CMD, "--set needs SUITE.KEY=VALUE, got '%s'", arg);
    *dot = *eq = '\0';
    return add_setting(o, buf, dot + 1, eq + 1);
}

/* -o names a folder now; a table file name is an old habit to point out. */
static int check_output(const char *out)
{
    size_t n = strlen(out);
    struct stat sb;
    int looks_like_file = (n > 4 && strcmp(out + n - 4, ".csv") == 0) ||
                          (n > 7 && strcmp(out + n - 7, ".csv.gz") == 0) ||
                          (n > 5 && strcmp(out + n - 5, ".json") == 0) ||
                          (stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode));
    if (looks_like_file)
        return cli_usage_error(CMD, "-o takes a folder now (each suite writes its own file "
                                    "there, e.g. DIR/%s), not the file '%s'",
                                    gb_suites[0]->file, out);
    return 0;
}

static int parse_options(int argc, char **argv, calibrate_options *o)
{
    enum { OPT_DEVICE = 256, OPT_SUITE, OPT_SET, OPT_RESUME, OPT_QUICK, OPT_QUIET, OPT_LIST,
           OPT_SASS, OPT_KEY /* + index into keys[]: a suite key's own option */ };
    static const struct option base[] = {
        {"device", required_argument, NULL, OPT_DEVICE},
        {"suite", required_argument, NULL, OPT_SUITE},
        {"set", required_argument, NULL, OPT_SET},
        {"output", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, OPT_RESUME},
        {"quick", no_argument, NULL, OPT_QUICK},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"list", no_argument, NULL, OPT_LIST},
        {"sass-expect", no_argument, NULL, OPT_SASS},
        {"help", no_argument, NULL, 'h'},
    };
    /* the base options, then every suite key's own option (gb_suite_key.option) */
    enum { MAX_KEY_OPTS = 32 };
    struct option opts[sizeof base / sizeof base[0] + MAX_KEY_OPTS + 1];
    struct {
        const char *suite, *key;
    } keys[MAX_KEY_OPTS];
    size_t n_opts = sizeof base / sizeof base[0], n_keys = 0;
    memcpy(opts, base, sizeof base);
    for (size_t i = 0; gb_suites[i]; i++)
        for (const gb_suite_key *k = gb_suites[i]->keys; k && k->name; k++)
            if (k->option && n_keys < MAX_KEY_OPTS) {
                keys[n_keys].suite = gb_suites[i]->name;
                keys[n_keys].key = k->name;
                opts[n_opts++] = (struct option){k->option, required_argument, NULL,
                                                 OPT_KEY + (int)n_keys};
                n_keys++;
            }
    opts[n_opts] = (struct option){NULL, 0, NULL, 0};
    memset(o, 0, sizeof *o);
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
        case OPT_SUITE:
            if (parse_suite_list(o, optarg))
                return -1;
            break;
        case OPT_SET:
            if (parse_set(o, optarg))
                return -1;
            break;
        case 'o':
            if (cli_take_once(CMD, "-o", &o->output, optarg) < 0 || check_output(optarg))
                return -1;
            break;
        case OPT_RESUME:
            o->resume = 1;
            break;
        case OPT_QUICK:
            o->quick = 1;
            break;
        case OPT_QUIET:
            o->quiet = 1;
            break;
        case OPT_LIST:
            o->list = 1;
            break;
        case OPT_SASS:
            o->sass_expect = 1;
            break;
        case ':':
            cli_usage_error(CMD, "option '%s' needs a value", argv[optind - 1]);
            return -1;
        default:
            if (c >= OPT_KEY && c < OPT_KEY + (int)n_keys) {
                if (add_setting(o, keys[c - OPT_KEY].suite, keys[c - OPT_KEY].key, optarg))
                    return -1;
                break;
            }
            cli_usage_error(CMD, "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (o->n_suites == 0)
        for (size_t i = 0; gb_suites[i] && i < MAX_SUITES; i++)
            o->suites[o->n_suites++] = gb_suites[i];
    /* A setting for a suite that will not run is a mistake worth a line. */
    for (size_t i = 0; i < o->n_set; i++) {
        int runs = 0;
        for (size_t k = 0; k < o->n_suites; k++)
            runs |= strcmp(o->suites[k]->name, o->set_suite[i]) == 0;
        if (!runs) {
            cli_usage_error(CMD, "--set %s.%s: suite %s is not selected by --suite",
                            o->set_suite[i], o->set[i].key, o->set_suite[i]);
            return -1;
        }
    }
    return 0;
}

static void list_suites(void)
{
    double total = 0;
    for (size_t i = 0; gb_suites[i]; i++) {
        const gb_suite *s = gb_suites[i];
        total += s->expected_s;
        printf("%-12s %5.0f s  %s\n", s->name, s->expected_s, s->file);
        printf("    measures: %s\n", s->measures);
        printf("    sweep:    %s\n", s->sweep);
        for (const gb_suite_key *k = s->keys; k && k->name; k++)
            printf("    --set %s.%s=...  %s\n", s->name, k->name, k->help);
    }
    printf("all suites: about %.0f s on an H100 or H200\n", total);
}

static void list_sass_expectations(void)
{
    for (size_t i = 0; gb_suites[i]; i++)
        for (const gb_sass_expect *e = gb_suites[i]->sass; e && e->kernel; e++)
            printf("%s %s %s %d\n", gb_suites[i]->name, e->kernel, e->opcode, e->min_count);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* mkdir -p */
static gm_status make_dirs(const char *dir, gm_error *err)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf)
        return gm_fail(err, GM_ERR_RANGE, "folder name too long");
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char keep = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return gm_fail(err, GM_ERR_IO, "cannot create %s (%s)", buf, strerror(errno));
            *p = keep;
            if (!keep)
                break;
        }
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return gm_fail(err, GM_ERR_IO, "%s is not a folder", dir);
    return GM_OK;
}

/* "atomics.csv.gz" -> "atomics.partial.csv.gz" (the part before the first dot). */
static void partial_name(const char *file, char *out, size_t len)
{
    const char *dot = strchr(file, '.');
    if (!dot)
        snprintf(out, len, "%s.partial", file);
    else
        snprintf(out, len, "%.*s.partial%s", (int)(dot - file), file, dot);
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* ---- what a running suite talks to ------------------------------------- */

typedef struct run_io {
    int quiet, tty;
    const char *suite;
    double run_start, suite_start, last_print;
    double later_s;   /* expected seconds of the suites after this one */
    long done, total;
    const char *what;
    const char *out_path;
    int printed;
} run_io;

static void print_progress(run_io *io, int final)
{
    if (io->quiet)
        return;
    double now = now_seconds();
    if (!final && now - io->last_print < (io->tty ? 0.2 : PROGRESS_LINE_SECONDS))
        return;
    io->last_print = now;
    double el = now - io->suite_start;
    double frac = io->total > 0 ? (double)io->done / (double)io->total : 0;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    double all = eta + io->later_s;
    char line[256];
    snprintf(line, sizeof line,
             "calibrate: %s %ld/%ld %s (%.1f%%), %.0f s, ETA %.0f s; all suites ETA %.0f s",
             io->suite, io->done, io->total, io->what ? io->what : "", 100 * frac, el, eta, all);
    if (io->tty)
        fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    io->printed = !final;
    fflush(stderr);
}

static void io_progress(void *p, long done, long total, const char *what)
{
    run_io *io = p;
    io->done = done;
    io->total = total;
    io->what = what;
    print_progress(io, 0);
}

static int io_stop(void *p)
{
    (void)p;
    return stop_signal != 0;
}

static gm_status io_checkpoint(void *p, const gm_mdata *md, gm_error *err)
{
    run_io *io = p;
    return gm_mdata_write_file(io->out_path, md, err);
}

/* ---- the run ------------------------------------------------------------ */

static void iso_date_utc(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The SM clock now (gb_device_sm_clock); 0 when it cannot be read, with one
 * line why: the suite's data stays valid without it, the header then says
 * 0 = unknown. */
static double probe_sm_clock(int device)
{
    gm_error err = {{0}};
    double mhz = 0;
    gm_status st = gb_device_sm_clock(device, &mhz, &err);
    if (st != GM_OK) {
        cli_error(CMD, "SM clock not read (%s); headers keep the suites' own", err.msg);
        return 0;
    }
    return mhz;
}

/* After suite s finished into path: its header gets the clock of the run
 * (suite_clock.h) unless the suite wrote its own; one line says which. */
static gm_status fill_suite_clock(const gb_suite *s, const char *path, double before,
                                  double after, int quiet, gm_error *err)
{
    double mhz = 0;
    int filled = 0;
    gm_status st = gb_suite_fill_clock(path, before, after, &mhz, &filled, err);
    if (st != GM_OK || quiet)
        return st;
    if (mhz > 0)
        printf("%s: SM clock %.0f MHz (%s: %.0f before, %.0f after%s)\n", s->name, mhz,
               filled ? "calibrate's reading" : "the suite's own; calibrate read", before, after,
               gb_clock_changed(before, after, 0.02) ? ": changed during the suite" : "");
    return GM_OK;
}

/* The --set values of one suite. */
static size_t settings_of(const calibrate_options *o, const gb_suite *s, gb_suite_setting *out)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n_set; i++)
        if (strcmp(o->set_suite[i], s->name) == 0)
            out[n++] = o->set[i];
    return n;
}

/* Every suite's settings are checked before anything runs. */
static int check_settings(const calibrate_options *o)
{
    gb_suite_setting settings[MAX_SETTINGS];
    for (size_t i = 0; i < o->n_suites; i++) {
        const gb_suite *s = o->suites[i];
        gb_suite_run run = {.device = o->device, .resume = o->resume, .quick = o->quick,
                            .settings = settings, .n_settings = settings_of(o, s, settings)};
        gm_error err = {{0}};
        if (s->check && s->check(&run, &err) != GM_OK)
            return cli_usage_error(CMD, "%s", err.msg);
    }
    return 0;
}

static int run_suites(calibrate_options *o, const char *dir, const gm_mdata_meta *dev)
{
    gb_suite_setting settings[MAX_SUITES][MAX_SETTINGS];
    size_t n_settings[MAX_SUITES];
    char partial[MAX_SUITES][4200], final[MAX_SUITES][4200];
    gm_mdata_meta meta[MAX_SUITES];
    run_io io = {.quiet = o->quiet, .tty = cli_isatty(stderr), .run_start = now_seconds()};
    gb_suite_run runs[MAX_SUITES];
    gm_error err = {{0}};

    for (size_t i = 0; i < o->n_suites; i++) {
        const gb_suite *s = o->suites[i];
        char pname[256];
        partial_name(s->file, pname, sizeof pname);
        snprintf(partial[i], sizeof partial[i], "%s/%s", dir, pname);
        snprintf(final[i], sizeof final[i], "%s/%s", dir, s->file);
        meta[i] = *dev;
        snprintf(meta[i].suite, sizeof meta[i].suite, "%s", s->name);
        n_settings[i] = settings_of(o, s, settings[i]);
        runs[i] = (gb_suite_run){.device = o->device, .out_path = partial[i],
                                 .resume = o->resume, .quick = o->quick, .meta = &meta[i],
                                 .io = &io, .progress = io_progress, .stop = io_stop,
                                 .checkpoint = io_checkpoint, .settings = settings[i],
                                 .n_settings = n_settings[i], .quiet = o->quiet};
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int rc = GPUQ_EXIT_OK;
    for (size_t i = 0; i < o->n_suites && rc == GPUQ_EXIT_OK; i++) {
        const gb_suite *s = o->suites[i];
        if (o->resume && file_exists(final[i]) && !file_exists(partial[i])) {
            if (!o->quiet)
                printf("%s: kept %s (finished earlier)\n", s->name, final[i]);
            continue;
        }
        if (!o->resume && file_exists(partial[i]))
            remove(partial[i]); /* a fresh run does not mix with old partial data */
        io.suite = s->name;
        io.suite_start = io.last_print = now_seconds();
        io.done = io.total = 0;
        io.what = NULL;
        io.out_path = partial[i];
        io.later_s = 0;
        for (size_t k = i + 1; k < o->n_suites; k++)
            io.later_s += o->suites[k]->expected_s;
        double mhz_before = probe_sm_clock(o->device);
        gm_status st = s->run(&runs[i], &err);
        if (io.printed && io.tty && !o->quiet)
            fputc('\n', stderr);
        io.printed = 0;
        if (st == GM_ERR_INTERRUPTED || (st == GM_OK && stop_signal)) {
            cli_error(CMD, "interrupted: %s: %s; resume with --resume", s->name,
                      st == GM_OK ? "finished" : err.msg);
            rc = GPUQ_EXIT_INTERRUPTED;
            if (st != GM_OK)
                break;
        } else if (st != GM_OK) {
            rc = cli_fail(CMD, st, &err);
            if (file_exists(partial[i]))
                cli_error(CMD, "%s: what was measured is in %s; resume with --resume", s->name,
                          partial[i]);
            break;
        }
        double mhz_after = probe_sm_clock(o->device);
        if ((st = fill_suite_clock(s, partial[i], mhz_before, mhz_after, o->quiet, &err)) !=
            GM_OK) {
            rc = cli_fail(CMD, st, &err);
            break;
        }
        if (rename(partial[i], final[i]) != 0) {
            cli_error(CMD, "%s: cannot rename %s to %s (%s)", s->name, partial[i], final[i],
                      strerror(errno));
            rc = GPUQ_EXIT_INPUT;
            break;
        }
        if (!o->quiet)
            printf("%s: wrote %s in %.1f s\n", s->name, final[i],
                   now_seconds() - io.suite_start);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc == GPUQ_EXIT_OK && !o->quiet)
        printf("calibrate: %zu suite%s in %.1f s, folder %s\n", o->n_suites,
               o->n_suites == 1 ? "" : "s", now_seconds() - io.run_start, dir);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;
    if (o.list) {
        list_suites();
        return GPUQ_EXIT_OK;
    }
    if (o.sass_expect) {
        list_sass_expectations();
        return GPUQ_EXIT_OK;
    }

    if (check_settings(&o))
        return GPUQ_EXIT_USAGE;
    gm_error err = {{0}};
    gm_mdata_meta dev;
    memset(&dev, 0, sizeof dev);
    gm_status st = gb_device_identity(o.device, &dev, &err);
    if (st != GM_OK)
        return cli_fail(CMD, st, &err);
    snprintf(dev.gpuq_version, sizeof dev.gpuq_version, "%s", GPUQ_VERSION);
    iso_date_utc(dev.date, sizeof dev.date);

    char dir[4096], gpu_dir[160];
    gm_mdata_dir_name(dev.gpu_name, gpu_dir, sizeof gpu_dir);
    const char *env = getenv("GPUQ_TABLE_DIR");
    if (o.output)
        snprintf(dir, sizeof dir, "%s", o.output);
    else if (o.quick)
        snprintf(dir, sizeof dir, "gpuq-quick/%s", gpu_dir);
    else if (env && env[0])
        snprintf(dir, sizeof dir, "%s/%s", env, gpu_dir);
    else
        snprintf(dir, sizeof dir, "tables/%s", gpu_dir);
    if ((st = make_dirs(dir, &err)) != GM_OK)
        return cli_fail(CMD, st, &err);
    return run_suites(&o, dir, &dev);
}
