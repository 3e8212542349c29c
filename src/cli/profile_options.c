/* gpuq profile: its options and help text, and the checks of what they
 * name (the program, the collector library, the counters path). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuq/unit.h"
#include "inject/gi_pattern.h"
#include "profile.h"

#define INJECT_LIB "libgpuq_inject.so"

static void print_help(void)
{
    /* The code pass a unit declares (gpuq/code_pass.h) says what it is. */
    const gm_code_pass *pass = gm_units_code_pass(NULL, 0, NULL);
    char alias[96] = ""; /* the pass's own name for --no-code-pass */
    if (pass && pass->option)
        snprintf(alias, sizeof alias, "      --%-19sthe same\n", pass->option);
    printf("usage: gpuq profile [options] [--] PROGRAM [ARGS...]\n"
           "\n"
           "Runs PROGRAM under gpuq's CUPTI collector, records the counters of every\n"
           "kernel launch that the models need (one row per launch, saved as it runs), and\n"
           "reports one section per model whose machine data exists ('gpuq model\n"
           "--sections' lists them) and one verdict per kernel; --section picks models.\n"
           "%s", pass ? pass->help : "");
    printf("\n"
           "which launches:\n"
           "  -k, --kernel-name REGEX  only kernels whose demangled name matches this POSIX\n"
           "                           extended regex (searched anywhere; anchor with ^ $)\n"
           "  -s, --launch-skip N      skip the first N matching launches\n"
           "  -c, --launch-count N     profile at most N matching launches (0: no limit)\n"
           "      --nvtx-include NAME  only launches inside an NVTX range named NAME: a\n"
           "                           push/pop range on the launching thread, or a\n"
           "                           start/end range; the others count for neither -s\n"
           "                           nor -c (ranges opened before CUDA starts are not seen)\n"
           "      --full-launches N    launches of each kernel shape (kernel, grid, block,\n"
           "                           registers, shared memory) measured in full (default 1);\n"
           "                           the later ones, where the metrics need kernel replay,\n"
           "                           get one pass of the metrics that vary by launch (time,\n"
           "                           cycles, cache and DRAM traffic) and the rest of their\n"
           "                           row from a full launch of the shape that did the same\n"
           "                           work (instructions issued within 2%%); 0: every launch\n"
           "                           in full, as Nsight Compute does\n"
           "\n"
           "model and report (every section whose machine data exists, as gpuq model):\n"
           CLI_REPORT_HELP
           "      --keep-counters FILE where the raw counters go (default %s);\n"
           "                           'gpuq model FILE --table OTHER' recomputes offline\n"
           "                           FILE and -o PATH may be patterns, one file per process:\n"
           "                           %%p process id, %%h host, %%i first free number,\n"
           "                           %%q{VAR} environment variable (a rank), %%%% a %%\n"
           "      --no-code-pass       skip the second run; %s"
           "%s"
           "      --second-run         run the program a second time, with SASS-instrumented\n"
           "                           instruction counts, for the launches that the hardware\n"
           "                           counters and the kernels' code leave unsettled (without\n"
           "                           it they get the fallback above, and a line names them)\n"
           "      --always-rerun       the second run even when the hardware counters and the\n"
           "                           kernels' code already settle every launch\n"
           "  -h, --help               this text\n"
           "\n"
           "The collector needs permission to read GPU performance counters (root,\n"
           "CAP_PERFMON, or NVreg_RestrictProfilingToAdminUsers=0) and no other profiler\n"
           "attached.  Kernel nodes of CUDA graphs are profiled node by node where the graph\n"
           "fixes their order; launches made while a stream capture is in progress on the\n"
           "GPU are counted, not profiled (profiling then could break the capture).  Processes\n"
           "that profile one GPU take turns (a lock file in GPUQ_LOCK_DIR, at most 10 s wait).\n"
           "\n"
           "exit status: the program's when it failed (its code, or 128+N when signal N\n"
           "killed it; what was measured is still reported, with a warning naming it);\n"
           "else gpuq's own: 0 measured, 1 usage, 2 missing program or bad input, 3 nothing\n"
           "measured (collector, GPU or permission error), 130 interrupted.  gpuq's own\n"
           "errors always print a 'gpuq: profile:' line saying what failed\n",
           gm_units[0]->name, gm_units[0]->variants, DEFAULT_COUNTERS,
           pass ? pass->no_pass : "the sections that need it say so\n", alias);
}


enum {
    OPT_NO_PASS = 256,
    OPT_KEEP,
    OPT_SECOND_RUN,
    OPT_ALWAYS_RERUN,
    OPT_NVTX_INCLUDE,
    OPT_FULL_LAUNCHES
};

/* The options, and after them each code pass's own name for --no-code-pass
 * (gm_code_pass.option: "--no-opcode-split"). */
enum { MAX_OPTIONS = 32 };
static void profile_options(struct option *opts)
{
    static const struct option fixed[] = {
        {"kernel-name", required_argument, NULL, 'k'},
        {"launch-skip", required_argument, NULL, 's'},
        {"launch-count", required_argument, NULL, 'c'},
        {"nvtx-include", required_argument, NULL, OPT_NVTX_INCLUDE},
        {"full-launches", required_argument, NULL, OPT_FULL_LAUNCHES},
        CLI_REPORT_LONG_OPTIONS,
        {"no-code-pass", no_argument, NULL, OPT_NO_PASS},
        {"second-run", no_argument, NULL, OPT_SECOND_RUN},
        {"always-rerun", no_argument, NULL, OPT_ALWAYS_RERUN},
        {"keep-counters", required_argument, NULL, OPT_KEEP},
        {"help", no_argument, NULL, 'h'},
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];
    size_t n = 0;
    for (; n < n_fixed; n++)
        opts[n] = fixed[n];
    for (size_t u = 0; gm_units[u] && n + 1 < MAX_OPTIONS; u++) {
        const gm_code_pass *pass = gm_units[u]->code_pass;
        int seen = !pass || !pass->option;
        for (size_t i = n_fixed; i < n && !seen; i++)
            seen = strcmp(opts[i].name, pass->option) == 0;
        if (!seen)
            opts[n++] = (struct option){pass->option, no_argument, NULL, OPT_NO_PASS};
    }
    opts[n] = (struct option){NULL, 0, NULL, 0};
}

/* 0 ok, 1 help shown, -1 usage error printed. */
int prof_parse_options(int argc, char **argv, profile_opts *o)
{
    struct option opts[MAX_OPTIONS];
    profile_options(opts);
    memset(o, 0, sizeof *o);
    cli_report_opts_init(&o->r);
    o->counters = DEFAULT_COUNTERS;
    o->full_launches = 1;
    optind = 1;
    opterr = 0;
    int c;
    const char *skip_arg = NULL, *count_arg = NULL, *keep_arg = NULL, *full_arg = NULL;
    /* '+': options end at the program's name, so its own options pass. */
    while ((c = getopt_long(argc, argv, "+:hk:s:c:m:f:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            print_help();
            return 1;
        case 'k':
            if (cli_take_once(CMD, "--kernel-name", &o->regex, optarg) < 0)
                return -1;
            break;
        case 's':
            if (cli_take_once(CMD, "--launch-skip", &skip_arg, optarg) < 0)
                return -1;
            if ((o->skip = cli_parse_count(CMD, "--launch-skip", optarg, 0, LONG_MAX)) < 0)
                return -1;
            break;
        case 'c':
            if (cli_take_once(CMD, "--launch-count", &count_arg, optarg) < 0)
                return -1;
            if ((o->count = cli_parse_count(CMD, "--launch-count", optarg, 0, LONG_MAX)) < 0)
                return -1;
            break;
        case OPT_NO_PASS:
            o->no_pass = argv[optind - 1];
            break;
        case OPT_SECOND_RUN:
            o->second_run = o->second_run ? o->second_run : "--second-run";
            break;
        case OPT_ALWAYS_RERUN:
            o->always_rerun = 1;
            o->second_run = "--always-rerun";
            break;
        case OPT_KEEP:
            if (!optarg[0]) {
                cli_usage_error(CMD, "--keep-counters needs a file name");
                return -1;
            }
            if (cli_take_once(CMD, "--keep-counters", &keep_arg, optarg) < 0)
                return -1;
            o->counters = optarg;
            break;
        case OPT_NVTX_INCLUDE:
            if (!optarg[0] || strlen(optarg) >= 256) {
                cli_usage_error(CMD, "--nvtx-include needs a range name of 1 to 255 characters");
                return -1;
            }
            o->nvtx_include = optarg;
            break;
        case OPT_FULL_LAUNCHES:
            if (cli_take_once(CMD, "--full-launches", &full_arg, optarg) < 0)
                return -1;
            if ((o->full_launches =
                     cli_parse_count(CMD, "--full-launches", optarg, 0, 1000000)) < 0)
                return -1;
            break;
        default: /* a report option, or a usage error */
            if (cli_take_report_option(CMD, c, optarg, argv[optind - 1], &o->r) < 0)
                return -1;
            break;
        }
    }
    if (optind >= argc) {
        cli_usage_error(CMD, "no program to profile (gpuq profile [options] -- PROGRAM [ARGS])");
        return -1;
    }
    o->program = argv + optind;
    if (o->second_run && o->no_pass) {
        cli_usage_error(CMD, "%s and %s contradict each other", o->second_run, o->no_pass);
        return -1;
    }
    if (o->r.force && !o->r.table) {
        cli_usage_error(CMD, "--force only makes sense with --table");
        return -1;
    }
    if (o->regex) {
        /* Checked here too, so that a typo is a usage error, not a run
         * that measures nothing. */
        regex_t re;
        int bad = regcomp(&re, o->regex, REG_EXTENDED | REG_NOSUB);
        if (bad) {
            char why[256];
            regerror(bad, &re, why, sizeof why);
            cli_usage_error(CMD, "-k: '%s' is not a valid regex (%s)", o->regex, why);
            return -1;
        }
        regfree(&re);
    }
    if (!o->counters[0]) {
        cli_usage_error(CMD, "--keep-counters needs a file name");
        return -1;
    }
    gm_error perr = {{0}};
    if (gi_pattern_check(o->counters, &perr) != GM_OK) {
        cli_usage_error(CMD, "--keep-counters %s", perr.msg);
        return -1;
    }
    if (o->r.output && gi_pattern_check(o->r.output, &perr) != GM_OK) {
        cli_usage_error(CMD, "-o %s", perr.msg);
        return -1;
    }
    /* The report must not replace the counters it is made of, nor either
     * of them the machine data read. */
    const char *inputs[2] = {o->counters, o->r.table};
    if (cli_check_output(CMD, "-o", o->r.output, inputs, 2) < 0 ||
        cli_check_output(CMD, "--keep-counters", o->counters, &o->r.table, 1) < 0)
        return -1;
    return 0;
}

/* ---- files and paths -------------------------------------------------- */

static int is_executable_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* The executable name names in $PATH, as execvp finds it; 1 found. */
static int find_in_path(const char *name, char *candidate, size_t len)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        int w = snprintf(candidate, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (w > 0 && (size_t)w < len && is_executable_file(candidate))
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

static int in_path(const char *name)
{
    char candidate[PATH_MAX];
    return find_in_path(name, candidate, sizeof candidate);
}

/* A script whose "#!" interpreter is missing: exec fails with ENOENT, which
 * would read as the script itself missing.  0 when the file runs as far as
 * this can tell, else the exit-2 message printed. */
static int check_interpreter(const char *name, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return GPUQ_EXIT_OK; /* exec will say why */
    char line[PATH_MAX + 8] = "";
    int shebang = fgets(line, sizeof line, f) && line[0] == '#' && line[1] == '!';
    fclose(f);
    if (!shebang)
        return GPUQ_EXIT_OK;
    char *interp = line + 2 + strspn(line + 2, " \t");
    char *rest = interp + strcspn(interp, " \t\r\n");
    if (*rest)
        *rest++ = '\0';
    if (!interp[0]) {
        cli_error(CMD, "cannot run '%s' (its '#!' line names no interpreter)", name);
        return GPUQ_EXIT_INPUT;
    }
    if (!is_executable_file(interp)) {
        cli_error(CMD, "cannot run '%s' (its interpreter %s %s)", name, interp,
                  access(interp, F_OK) == 0 ? "is not executable" : "does not exist");
        return GPUQ_EXIT_INPUT;
    }
    /* "#!/usr/bin/env python3": the program env looks for in $PATH */
    const char *slash = strrchr(interp, '/');
    if (strcmp(slash ? slash + 1 : interp, "env") == 0) {
        char *word = rest + strspn(rest, " \t");
        word[strcspn(word, " \t\r\n")] = '\0';
        if (word[0] && word[0] != '-' && !strchr(word, '=') && !in_path(word)) {
            cli_error(CMD, "cannot run '%s' (its interpreter %s is not in $PATH)", name, word);
            return GPUQ_EXIT_INPUT;
        }
    }
    return GPUQ_EXIT_OK;
}

/* Resolves the program like execvp would; exit-2 message when it cannot. */
int prof_check_program(const char *name)
{
    if (strchr(name, '/')) {
        struct stat sb;
        if (stat(name, &sb) != 0) {
            cli_error(CMD, "cannot run '%s' (%s)", name, strerror(errno));
            return GPUQ_EXIT_INPUT;
        }
        if (!S_ISREG(sb.st_mode) || access(name, X_OK) != 0) {
            cli_error(CMD, "cannot run '%s' (not an executable file)", name);
            return GPUQ_EXIT_INPUT;
        }
        return check_interpreter(name, name);
    }
    char candidate[PATH_MAX];
    if (find_in_path(name, candidate, sizeof candidate))
        return check_interpreter(name, candidate);
    cli_error(CMD, "cannot run '%s' (no executable of that name in $PATH)", name);
    return GPUQ_EXIT_INPUT;
}

/* libgpuq_inject.so sits next to the gpuq executable ($GPUQ_INJECT_LIB
 * overrides, for installed layouts). */
int prof_find_collector(char *path, size_t len)
{
    const char *forced = getenv("GPUQ_INJECT_LIB");
    if (forced && forced[0]) {
        if (access(forced, R_OK) != 0) {
            cli_error(CMD, "GPUQ_INJECT_LIB='%s' cannot be read (%s)", forced, strerror(errno));
            return 0;
        }
        snprintf(path, len, "%s", forced);
        return 1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        cli_error(CMD, "cannot locate the gpuq executable (/proc/self/exe: %s)", strerror(errno));
        return 0;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    int w = snprintf(path, len, "%s/%s", self, INJECT_LIB);
    if (w < 0 || (size_t)w >= len || access(path, R_OK) != 0) {
        if (strcmp(GPUQ_BUILD_CUPTI, "yes") != 0)
            cli_error(CMD, "this gpuq was built without CUPTI, so it has no collector "
                      "(rebuild with the CUDA toolkit's CUPTI present)");
        else
            cli_error(CMD, "the collector %s is missing next to gpuq (build the gpuq_inject "
                      "target, or set GPUQ_INJECT_LIB)", path);
        return 0;
    }
    return 1;
}

/* The collector runs in the program, which may change directory: it gets
 * absolute paths only. */
int prof_absolute_path(const char *path, char *out, size_t len)
{
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return 1;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return 0;
    int w = snprintf(out, len, "%s/%s", cwd, path);
    return w > 0 && (size_t)w < len;
}

gm_status prof_expand_output(const char *pattern, long pid, char *out, size_t len, gm_error *err)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    gi_pattern_values v = {pid, host, 0, NULL, NULL};
    int seq = gi_pattern_uses_seq(pattern);
    for (unsigned i = 0; i < 100000; i++) {
        v.seq = i;
        gm_status st = gi_pattern_expand(pattern, &v, out, len, err);
        if (st != GM_OK || !seq || access(out, F_OK) != 0)
            return st;
    }
    return gm_fail(err, GM_ERR_RANGE, "'%s': no free file name", pattern);
}
