/* gpuq profile: runs a program under the CUPTI collector (libgpuq_inject.so,
 * src/inject/), collects the paper's Table 1 counters per kernel launch
 * (Sec. 3.3-3.4), adds the ATOMS opcode split from a second run, and reports
 * the shared-memory atomic utilization of every launch.
 *
 * Passes (docs/profile.md):
 *   1. counters: hardware counters through the range profiler, one row per
 *      launch appended to the counters file as the program runs;
 *   2. sass (unless --no-opcode-split, or the split already follows from
 *      pass 1): per-instruction execution counts and the program's cubins;
 *      gpuq disassembles them afterwards and joins the ADD / CAS / POPC.INC /
 *      other split to pass 1 by (kernel, ordinal).  Pass 1 keeps the cubins
 *      too: when each kernel with non-CAS shared atomics has a single non-CAS
 *      ATOMS opcode in its code, the hardware counters and the disassembly
 *      give the split and pass 2 is skipped (gi_static_split).
 *
 * The calibration table is loaded while pass 1 runs (it takes about 0.3 s,
 * as much as profiling twenty launches), as soon as the collector has named
 * the device in its status file.
 *
 * Exit codes: 0 when something was measured (the program's own failure or
 * crash is then a warning line), 3 when nothing was (collector error, no
 * matching launch, program failed first), 2 for a missing program or bad
 * input, 1 for usage, 130 after Ctrl-C (the report of what was measured is
 * still written).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gi_decode_sm90.h"
#include "gi_sass.h"
#include "gpuq/counters.h"
#include "gpuq/model.h"
#include "gpuq/report.h"
#include "table_lookup.h"

#define CMD "profile"
#define DEFAULT_COUNTERS "gpuq-profile.counters.csv"
#define INJECT_LIB "libgpuq_inject.so"

static void print_help(void)
{
    printf("usage: gpuq profile [options] [--] PROGRAM [ARGS...]\n"
           "\n"
           "Runs PROGRAM under gpuq's CUPTI collector, records the shared-memory atomic\n"
           "counters of every kernel launch (one row per launch, saved as it runs), and\n"
           "reports the utilization U of the shared-memory atomic unit per launch with the\n"
           "model of Dong & Pai (Sec. 3).  The program runs twice: once for the hardware\n"
           "counters, once for the ATOMS.ADD / CAS / POPC.INC split (instruction counts\n"
           "and disassembly), unless the hardware counters settle the split (no non-CAS\n"
           "shared atomics, or a single non-CAS ATOMS opcode in each kernel's code);\n"
           "--no-opcode-split runs it once.\n"
           "\n"
           "which launches:\n"
           "  -k, --kernel-name REGEX  only kernels whose demangled name matches this POSIX\n"
           "                           extended regex (searched anywhere; anchor with ^ $)\n"
           "  -s, --launch-skip N      skip the first N matching launches\n"
           "  -c, --launch-count N     profile at most N matching launches (0: no limit)\n"
           "\n"
           "model and report:\n"
           "      --table FILE         calibration table (default: the shipped table for the\n"
           "                           GPU the counters came from)\n"
           "      --force              use --table even if it was measured on another GPU\n"
           "  -m, --model NAME         model variant: %s (default: default)\n"
           "  -f, --format F           text (default), csv or json\n"
           "      --summary            one row per kernel name instead of per launch\n"
           "  -o, --output PATH        write the report there instead of stdout\n"
           "      --keep-counters FILE where the raw counters go (default %s);\n"
           "                           'gpuq model FILE --table OTHER' recomputes offline\n"
           "      --no-opcode-split    skip the second run; the model then uses the\n"
           "                           hardware FAO/CAS split and says so\n"
           "      --always-rerun       run the program a second time for the split (instruction\n"
           "                           counts) even when the hardware counters and the kernels'\n"
           "                           code already settle it\n"
           "  -h, --help               this text\n"
           "\n"
           "The collector needs permission to read GPU performance counters (root,\n"
           "CAP_PERFMON, or NVreg_RestrictProfilingToAdminUsers=0) and no other profiler\n"
           "attached.  CUDA graph launches are counted and reported, not profiled.\n"
           "\n"
           "exit codes: 0 measured (a failing program is a warning), 1 usage, 2 missing\n"
           "program or bad input, 3 nothing measured (collector, GPU or permission error),\n"
           "130 interrupted (what was measured is still reported)\n",
           gm_model_names(), DEFAULT_COUNTERS);
}

typedef struct profile_opts {
    cli_report_opts r; /* --table --force -m -f --summary -o */
    const char *regex;
    long skip, count;
    int no_split;
    int always_rerun;
    const char *counters;
    char **program; /* argv of the profiled program, NULL-terminated */
} profile_opts;

enum { OPT_NO_SPLIT = 256, OPT_KEEP, OPT_ALWAYS_RERUN };

/* 0 ok, 1 help shown, -1 usage error printed. */
static int parse_options(int argc, char **argv, profile_opts *o)
{
    static const struct option opts[] = {
        {"kernel-name", required_argument, NULL, 'k'},
        {"launch-skip", required_argument, NULL, 's'},
        {"launch-count", required_argument, NULL, 'c'},
        CLI_REPORT_LONG_OPTIONS,
        {"no-opcode-split", no_argument, NULL, OPT_NO_SPLIT},
        {"always-rerun", no_argument, NULL, OPT_ALWAYS_RERUN},
        {"keep-counters", required_argument, NULL, OPT_KEEP},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    cli_report_opts_init(&o->r);
    o->counters = DEFAULT_COUNTERS;
    optind = 1;
    opterr = 0;
    int c;
    /* '+': options end at the program's name, so its own options pass. */
    while ((c = getopt_long(argc, argv, "+:hk:s:c:m:f:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            print_help();
            return 1;
        case 'k':
            o->regex = optarg;
            break;
        case 's':
            if ((o->skip = cli_parse_count(CMD, "--launch-skip", optarg, 0, LONG_MAX)) < 0)
                return -1;
            break;
        case 'c':
            if ((o->count = cli_parse_count(CMD, "--launch-count", optarg, 0, LONG_MAX)) < 0)
                return -1;
            break;
        case OPT_NO_SPLIT:
            o->no_split = 1;
            break;
        case OPT_ALWAYS_RERUN:
            o->always_rerun = 1;
            break;
        case OPT_KEEP:
            o->counters = optarg;
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
    if (o->always_rerun && o->no_split) {
        cli_usage_error(CMD, "--always-rerun and --no-opcode-split contradict each other");
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
    return 0;
}

/* ---- files and paths -------------------------------------------------- */

static int is_executable_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* Resolves the program like execvp would; exit-2 message when it cannot. */
static int check_program(const char *name)
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
        return GPUQ_EXIT_OK;
    }
    const char *path = getenv("PATH");
    char candidate[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        int w = snprintf(candidate, sizeof candidate, "%.*s/%s", (int)(n ? n : 1), n ? p : ".",
                         name);
        if (w > 0 && (size_t)w < sizeof candidate && is_executable_file(candidate))
            return GPUQ_EXIT_OK;
        p += n + (p[n] == ':');
    }
    cli_error(CMD, "cannot run '%s' (no executable of that name in $PATH)", name);
    return GPUQ_EXIT_INPUT;
}

/* libgpuq_inject.so sits next to the gpuq executable ($GPUQ_INJECT_LIB
 * overrides, for installed layouts). */
static int find_collector(char *path, size_t len)
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
static int absolute_path(const char *path, char *out, size_t len)
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

/* ---- running the program ---------------------------------------------- */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t interrupted_by;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    interrupted_by = sig;
    /* Ctrl-C at a terminal reaches the whole foreground process group, the
     * program included; only a signal sent to gpuq alone (kill: si_code
     * <= 0) is passed on. */
    pid_t pid = (pid_t)child_pid;
    if (pid > 0 && (!si || si->si_code <= 0))
        kill(pid, sig);
}

typedef struct pass_env {
    const char *pass;
    const char *out;
    const char *status;
    const char *cubin_dir;
} pass_env;

typedef struct run_result {
    int exited, code, signaled, sig;
} run_result;

static void join_command(char **argv, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; argv[i] && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static void set_count_env(const char *name, long v)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", v);
    setenv(name, text, 1);
}

/* ---- work done while the program runs ---------------------------------- */

/* While pass 1 runs, gpuq would only wait; two slow parts of its own work
 * are done then instead of after it:
 *  - the calibration table (gzip, 5 MB) takes 0.4-0.5 s to load.  With
 *    --table the file is known at once; otherwise the GPU model named in
 *    /proc/driver/nvidia (when the machine has one model) picks a shipped
 *    table, failing that the device the collector names in its status file
 *    once it has set the device up.  report() uses it only if it is the
 *    table cli_table_resolve would give for the counters.
 *  - the disassembler takes about 0.3 s per call, whatever the size of the
 *    code.  The collector names each profiled kernel in
 *    cubins-counters/kernels.txt at its first launch; as soon as a saved
 *    cubin holds that kernel's code, it is read: at once by the Hopper
 *    reader (gi_decode_sm90.c) when it knows every instruction, else by
 *    `nvdisasm -b` in the background (at most GPUQ_SPEC_MAX of them).  The
 *    split from the code uses the results, and reads what is missing. */
typedef struct table_prefetch {
    const char *explicit_path;
    const char *status_path;
    int done;                 /* tried (loaded, or failed: then report() tries again) */
    gm_table *table;
    char path[PATH_MAX];
    char device_name[128];    /* from the status file */
    int sm_count, cc_major, cc_minor, have_device;
    char proc_model[128];     /* from /proc/driver/nvidia, when there is one model */
    int used;                 /* report() took it */
    double load_ms, ready_ms; /* GPUQ_DEBUG: load time, and when it was ready in the run */
} table_prefetch;

#define GPUQ_SPEC_MAX 16

typedef struct spec_job {
    char name[512];           /* mangled kernel name */
    char cubin[PATH_MAX];
    char code[PATH_MAX + 32], out[PATH_MAX + 32];
    pid_t pid;                /* running while > 0 */
    int ok;                   /* finished, and ops holds its code */
    int decoded;              /* read by gi_sm90_function_ops, no process */
    gi_function_ops ops;
} spec_job;

/* Where a kernel's code is: the cubins pass 1 saved, indexed once each. */
typedef struct spec_code {
    char *name;
    size_t cubin;             /* index into cubins */
    size_t offset, length;
} spec_code;

typedef struct disasm_spec {
    int enabled;
    const char *cubin_dir;    /* cubins and kernels.txt of pass 1 */
    const char *work_dir;     /* code and disassembly files */
    char tool[PATH_MAX];
    int tool_state;           /* 0 not looked for, 1 nvdisasm, -1 none (no speculation) */
    long names_read;          /* bytes of kernels.txt consumed */
    char pending[GPUQ_SPEC_MAX][512]; /* named, code not found yet */
    size_t n_pending;
    char **cubins;            /* cubins indexed so far */
    size_t n_cubins;
    spec_code *code;
    size_t n_code, cap_code;
    spec_job jobs[GPUQ_SPEC_MAX];
    size_t n_jobs;
    double wait_ms;           /* GPUQ_DEBUG: waited for them after the run */
} disasm_spec;

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* What the collector's status file says of the device once it is set up
 * ("device_name: X", "sm_count: N", "compute_capability: M.m"). */
static void status_device(table_prefetch *tp)
{
    FILE *f = fopen(tp->status_path, "r");
    if (!f)
        return;
    char line[512], name[128] = "";
    int sm = 0, major = 0, minor = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "device_name: ", 13) == 0)
            snprintf(name, sizeof name, "%.127s", line + 13);
        else if (sscanf(line, "sm_count: %d", &sm) == 1 ||
                 sscanf(line, "compute_capability: %d.%d", &major, &minor) == 2)
            continue;
    }
    fclose(f);
    if (name[0] && sm > 0 && major > 0) {
        snprintf(tp->device_name, sizeof tp->device_name, "%s", name);
        tp->sm_count = sm;
        tp->cc_major = major;
        tp->cc_minor = minor;
        tp->have_device = 1;
    }
}

/* The GPU model the driver lists in /proc/driver/nvidia/gpus/ * /information
 * ("Model:  NVIDIA H200"), when all GPUs are of one model. */
static void proc_gpu_model(char *model, size_t len)
{
    model[0] = '\0';
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d)
        return;
    struct dirent *e;
    int conflict = 0;
    while (!conflict && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX], line[256];
        snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%.200s/information", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Model:", 6) != 0)
                continue;
            char *v = line + 6;
            v += strspn(v, " \t");
            v[strcspn(v, "\r\n")] = '\0';
            if (model[0] && strcmp(model, v) != 0)
                conflict = 1;
            else
                snprintf(model, len, "%s", v);
            break;
        }
        fclose(f);
    }
    closedir(d);
    if (conflict)
        model[0] = '\0';
}

static void prefetch_load(table_prefetch *tp, const char *gpu_name, int sm_count,
                          const struct timespec *start)
{
    gm_error err = {{0}};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tp->done = 1;
    if (tp->explicit_path)
        snprintf(tp->path, sizeof tp->path, "%s", tp->explicit_path);
    else if (cli_table_find(gpu_name, sm_count, tp->path, sizeof tp->path, &err) != GM_OK)
        return;
    if (gm_table_load(tp->path, &tp->table, &err) != GM_OK)
        tp->table = NULL;
    tp->load_ms = ms_since(&t0);
    tp->ready_ms = ms_since(start);
}

static void prefetch_free(table_prefetch *tp)
{
    gm_table_free(tp->table);
    tp->table = NULL;
}

/* Reads a whole file (a cubin) into memory. */
static uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size > 0) {
        data = malloc((size_t)sb.st_size);
        if (data && fread(data, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
            free(data);
            data = NULL;
        }
        *size = (size_t)sb.st_size;
    }
    fclose(f);
    return data;
}

/* The saved cubins (<dir>/ *.cubin), as malloc'ed paths. */
static size_t list_cubins(const char *dir, char ***out)
{
    char **cubins = NULL;
    size_t n = 0;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t l = strlen(e->d_name);
            if (l < 7 || strcmp(e->d_name + l - 6, ".cubin") != 0)
                continue;
            char **grown = realloc(cubins, (n + 1) * sizeof *grown);
            if (!grown)
                break;
            cubins = grown;
            size_t plen = strlen(dir) + l + 2;
            if ((cubins[n] = malloc(plen)) != NULL)
                snprintf(cubins[n++], plen, "%s/%s", dir, e->d_name);
        }
        closedir(d);
    }
    *out = cubins;
    return n;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* Writes len bytes of code to path. */
static int write_code(const char *path, const uint8_t *code, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(code, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Starts `nvdisasm -b ARCH CODE > OUT` and returns its pid (0 on failure). */
static pid_t spawn_raw_disassembly(const char *tool, const char *arch, const char *code,
                                   const char *out)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = open("/dev/null", O_WRONLY);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        if (null >= 0)
            dup2(null, 2);
        execl(tool, tool, "-b", arch, code, (char *)NULL);
        _exit(127);
    }
    return pid > 0 ? pid : 0;
}

static void index_function(void *ctx, const char *name, size_t offset, size_t length)
{
    disasm_spec *sp = ctx;
    if (sp->n_code == sp->cap_code) {
        size_t cap = sp->cap_code ? 2 * sp->cap_code : 64;
        spec_code *grown = realloc(sp->code, cap * sizeof *grown);
        if (!grown)
            return;
        sp->code = grown;
        sp->cap_code = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return;
    sp->code[sp->n_code++] = (spec_code){copy, sp->n_cubins, offset, length};
}

/* Indexes the kernels of the cubins saved since the last look (each file is
 * read once). */
static void index_new_cubins(disasm_spec *sp)
{
    char **cubins = NULL;
    size_t n = list_cubins(sp->cubin_dir, &cubins);
    for (size_t c = 0; c < n; c++) {
        int known = 0;
        for (size_t k = 0; k < sp->n_cubins && !known; k++)
            known = strcmp(sp->cubins[k], cubins[c]) == 0;
        if (known)
            continue;
        char **grown = realloc(sp->cubins, (sp->n_cubins + 1) * sizeof *grown);
        if (!grown)
            break;
        sp->cubins = grown;
        size_t size = 0;
        uint8_t *elf = read_whole(cubins[c], &size);
        if (elf)
            gi_cubin_each_function(elf, size, index_function, sp);
        free(elf);
        sp->cubins[sp->n_cubins++] = cubins[c];
        cubins[c] = NULL;
    }
    free_list(cubins, n);
}

/* length bytes at offset of file path (malloc'ed), or NULL. */
static uint8_t *read_range(const char *path, size_t offset, size_t length)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    uint8_t *buf = malloc(length ? length : 1);
    if (buf && (fseek(in, (long)offset, SEEK_SET) != 0 || fread(buf, 1, length, in) != length)) {
        free(buf);
        buf = NULL;
    }
    fclose(in);
    return buf;
}

/* Copies length bytes at offset of file src into a new file dst. */
static int copy_code(const char *src, size_t offset, size_t length, const char *dst)
{
    uint8_t *buf = read_range(src, offset, length);
    int ok = buf && write_code(dst, buf, length);
    free(buf);
    return ok;
}

/* Whether kernels' code for arch ("SM90") is read by gpuq's Hopper reader
 * (GPUQ_NO_DECODER leaves it to the disassembler). */
static int use_decoder(const char *arch)
{
    return strcmp(arch, "SM90") == 0 && !getenv("GPUQ_NO_DECODER");
}

/* Reads a kernel's code with the built-in Hopper reader when the device is
 * compute capability 9.0 and every instruction is one it knows (in
 * microseconds, where nvdisasm takes about 0.3 s to start); 0 otherwise. */
static int decode_code(const char *cubin, size_t offset, size_t length, const char *arch,
                       gi_function_ops *ops)
{
    if (!use_decoder(arch))
        return 0;
    uint8_t *code = read_range(cubin, offset, length);
    int ok = code && gi_sm90_function_ops(code, length, ops);
    free(code);
    return ok;
}

/* One look while the program runs: new kernel names, and disassemblies for
 * those whose code a saved cubin now holds. */
static void spec_poll(disasm_spec *sp, const table_prefetch *tp)
{
    if (!sp->enabled || !tp->have_device || sp->tool_state < 0)
        return;
    if (sp->tool_state == 0) {
        gm_error err = {{0}};
        const char *base;
        if (gi_find_disassembler(sp->tool, sizeof sp->tool, &err) != GM_OK ||
            !(base = strrchr(sp->tool, '/')) || !strstr(base, "nvdisasm")) {
            sp->tool_state = -1; /* no raw mode: the split does it all afterwards */
            return;
        }
        sp->tool_state = 1;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/kernels.txt", sp->cubin_dir);
    FILE *f = fopen(path, "r");
    if (f && fseek(f, sp->names_read, SEEK_SET) == 0) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            size_t n = strlen(line);
            if (n == 0 || line[n - 1] != '\n')
                break; /* a line still being written: read it next time */
            sp->names_read += (long)n;
            line[n - 1] = '\0';
            if (sp->n_pending + sp->n_jobs < GPUQ_SPEC_MAX)
                snprintf(sp->pending[sp->n_pending++], sizeof sp->pending[0], "%s", line);
        }
    }
    if (f)
        fclose(f);
    if (sp->n_pending == 0)
        return;
    index_new_cubins(sp);
    char arch[16];
    snprintf(arch, sizeof arch, "SM%d%d", tp->cc_major, tp->cc_minor);
    size_t kept = 0;
    for (size_t p = 0; p < sp->n_pending; p++) {
        int found = 0;
        for (size_t i = 0; i < sp->n_code && sp->n_jobs < GPUQ_SPEC_MAX; i++) {
            const spec_code *c = &sp->code[i];
            if (strcmp(c->name, sp->pending[p]) != 0)
                continue;
            found = 1;
            spec_job *j = &sp->jobs[sp->n_jobs];
            memset(j, 0, sizeof *j);
            snprintf(j->name, sizeof j->name, "%s", c->name);
            snprintf(j->cubin, sizeof j->cubin, "%s", sp->cubins[c->cubin]);
            snprintf(j->code, sizeof j->code, "%s/spec-%zu.code", sp->work_dir, sp->n_jobs);
            snprintf(j->out, sizeof j->out, "%s/spec-%zu.sass", sp->work_dir, sp->n_jobs);
            if (decode_code(j->cubin, c->offset, c->length, arch, &j->ops)) {
                j->ok = 1; /* read in-process: no disassembler */
                j->decoded = 1;
                sp->n_jobs++;
            } else if (copy_code(j->cubin, c->offset, c->length, j->code) &&
                (j->pid = spawn_raw_disassembly(sp->tool, arch, j->code, j->out)) > 0)
                sp->n_jobs++;
        }
        if (!found)
            memmove(sp->pending[kept++], sp->pending[p], sizeof sp->pending[0]);
    }
    sp->n_pending = kept;
}

/* After the program: waits for the disassemblies still running and reads
 * them. */
static void spec_finish(disasm_spec *sp)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < sp->n_jobs; i++) {
        spec_job *j = &sp->jobs[i];
        if (j->pid <= 0)
            continue;
        int status = 0;
        while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
            ;
        j->pid = 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            size_t size = 0;
            char *text = (char *)read_whole(j->out, &size);
            if (text) {
                char *z = realloc(text, size + 1);
                if (z) {
                    z[size] = '\0';
                    gi_function_ops_scan(z, &j->ops);
                    j->ok = j->ops.instructions > 0;
                    text = z;
                }
                free(text);
            }
        }
        unlink(j->code);
        unlink(j->out);
    }
    sp->wait_ms = ms_since(&t0);
    for (size_t i = 0; i < sp->n_code; i++)
        free(sp->code[i].name);
    free(sp->code);
    sp->code = NULL;
    sp->n_code = sp->cap_code = 0;
    free_list(sp->cubins, sp->n_cubins);
    sp->cubins = NULL;
    sp->n_cubins = 0;
}

/* Runs while the program does: returns 1 when it reaped the program (its
 * wait status in *status), 0 when the program still runs. */
static int while_running(table_prefetch *tp, disasm_spec *sp, pid_t pid, int *status,
                         const struct timespec *start)
{
    if (!tp->explicit_path)
        proc_gpu_model(tp->proc_model, sizeof tp->proc_model);
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return 1;
        if (done < 0 && errno != EINTR)
            return 0; /* the blocking wait reports it */
        if (!tp->have_device)
            status_device(tp);
        spec_poll(sp, tp);
        if (!tp->done) {
            if (tp->explicit_path)
                prefetch_load(tp, NULL, 0, start);
            else if (tp->proc_model[0])
                prefetch_load(tp, tp->proc_model, 0, start);
            else if (tp->have_device)
                prefetch_load(tp, tp->device_name, tp->sm_count, start);
        }
        if (tp->done && (!sp->enabled || sp->tool_state < 0))
            return 0; /* nothing left to do but wait */
        struct timespec nap = {0, 3000000};
        nanosleep(&nap, NULL);
    }
}

static int run_pass(const profile_opts *o, const char *collector, const pass_env *pe,
                    table_prefetch *prefetch, disasm_spec *spec, run_result *res)
{
    memset(res, 0, sizeof *res);
    fflush(NULL);
    struct timespec forked;
    clock_gettime(CLOCK_MONOTONIC, &forked);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(CMD, "cannot start '%s' (fork: %s)", o->program[0], strerror(errno));
        return 0;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        char command[512];
        join_command(o->program, command, sizeof command);
        setenv("CUDA_INJECTION64_PATH", collector, 1);
        setenv("GPUQ_PASS", pe->pass, 1);
        setenv("GPUQ_OUT", pe->out, 1);
        setenv("GPUQ_STATUS", pe->status, 1);
        setenv("GPUQ_COMMAND", command, 1);
        char t0[32];
        snprintf(t0, sizeof t0, "%lld", (long long)forked.tv_sec * 1000000000LL + forked.tv_nsec);
        setenv("GPUQ_T0_NS", t0, 1);
        if (pe->cubin_dir)
            setenv("GPUQ_CUBIN_DIR", pe->cubin_dir, 1);
        else
            unsetenv("GPUQ_CUBIN_DIR");
        if (o->regex)
            setenv("GPUQ_KERNEL_REGEX", o->regex, 1);
        else
            unsetenv("GPUQ_KERNEL_REGEX");
        set_count_env("GPUQ_LAUNCH_SKIP", o->skip);
        set_count_env("GPUQ_LAUNCH_COUNT", o->count);
        execvp(o->program[0], o->program);
        fprintf(stderr, "gpuq: %s: cannot run '%s' (%s)\n", CMD, o->program[0], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    int status = 0;
    int reaped = 0;
    if (prefetch && spec) {
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        reaped = while_running(prefetch, spec, pid, &status, &start);
    }
    while (!reaped && waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_error(CMD, "waiting for '%s' failed (%s)", o->program[0], strerror(errno));
            child_pid = 0;
            return 0;
        }
    }
    child_pid = 0;
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->sig = WTERMSIG(status);
    }
    return 1;
}

/* What the collector reported (its status file, "key: value" lines). */
typedef struct collector_status {
    int present;
    long long launches_seen, profiled, rows, filtered, graphs;
    long long passes;
    char replay[16];
    char error_kind[32];
    char error[512];
} collector_status;

static void read_status(const char *path, collector_status *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    s->present = 1;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *colon = strstr(line, ": ");
        if (line[0] == '#' || !colon)
            continue;
        *colon = '\0';
        const char *key = line, *value = colon + 2;
        if (strcmp(key, "launches_seen") == 0)
            s->launches_seen = atoll(value);
        else if (strcmp(key, "profiled_launches") == 0)
            s->profiled = atoll(value);
        else if (strcmp(key, "rows_written") == 0)
            s->rows = atoll(value);
        else if (strcmp(key, "filtered_out_launches") == 0)
            s->filtered = atoll(value);
        else if (strcmp(key, "graph_launches") == 0)
            s->graphs = atoll(value);
        else if (strcmp(key, "passes") == 0)
            s->passes = atoll(value);
        else if (strcmp(key, "replay") == 0)
            snprintf(s->replay, sizeof s->replay, "%s", value);
        else if (strcmp(key, "error_kind") == 0)
            snprintf(s->error_kind, sizeof s->error_kind, "%s", value);
        else if (strcmp(key, "error") == 0)
            snprintf(s->error, sizeof s->error, "%s", value);
    }
    fclose(f);
}

static int collector_failed(const collector_status *s)
{
    return s->present && s->error_kind[0] && strcmp(s->error_kind, "none") != 0;
}

static void describe_exit(const run_result *r, char *buf, size_t len)
{
    if (r->signaled)
        snprintf(buf, len, "was killed by signal %d (%s)", r->sig, strsignal(r->sig));
    else
        snprintf(buf, len, "exited with status %d", r->code);
}

/* ---- opcode split ----------------------------------------------------- */

/* The distinct functions with executed records in cubins of this CRC, as
 * "a,b,c" (malloc'ed), or NULL. */
static char *functions_of(const gi_sass_run *run, uint32_t crc)
{
    size_t len = 0, cap = 0;
    char *list = NULL;
    for (size_t r = 0; r < run->n_records; r++) {
        const gi_sass_record *rec = &run->records[r];
        if (rec->crc != crc || rec->executions == 0)
            continue;
        size_t n = strlen(rec->function);
        int seen = 0;
        for (const char *p = list; p && !seen && (p = strstr(p, rec->function)) != NULL; p += n)
            seen = (p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0');
        if (seen)
            continue;
        if (len + n + 2 > cap) {
            cap = (len + n + 2) * 2;
            char *bigger = realloc(list, cap);
            if (!bigger) {
                free(list);
                return NULL;
            }
            list = bigger;
        }
        if (len)
            list[len++] = ',';
        memcpy(list + len, rec->function, n + 1);
        len += n;
    }
    return list;
}

/* Adds the split of the sass run to set.  Returns 1 if it could be applied
 * to at least one launch; otherwise why says why not. */
static int add_opcode_split(gm_counters_set *set, const char *sass_path, char *why, size_t len)
{
    gi_sass_run run;
    gm_error err = {{0}};
    if (gi_sass_run_load(sass_path, &run, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
        return 0;
    }
    char tool[PATH_MAX];
    if (gi_find_disassembler(tool, sizeof tool, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
        gi_sass_run_free(&run);
        return 0;
    }
    gi_disasm *dis = calloc(run.n_cubins + 1, sizeof *dis);
    if (!dis) {
        snprintf(why, len, "out of memory");
        gi_sass_run_free(&run);
        return 0;
    }
    /* Disassemble the cubins that executed instructions point to (all of
     * them when no CRC matches, see gi_sass_launch_split). */
    int any_match = 0;
    char *needed = calloc(run.n_cubins + 1, 1);
    for (size_t r = 0; needed && r < run.n_records; r++)
        for (size_t c = 0; c < run.n_cubins; c++)
            if ((uint32_t)run.cubins[c].crc == run.records[r].crc)
                needed[c] = 1, any_match = 1;
    size_t failed = 0;
    for (size_t c = 0; c < run.n_cubins; c++) {
        if (needed && any_match && !needed[c])
            continue;
        /* Only the functions that executed shared atomics, when the CRCs
         * say which cubin they are in; the whole cubin if that fails. */
        char *functions = any_match ? functions_of(&run, (uint32_t)run.cubins[c].crc) : NULL;
        char *text = NULL;
        gm_status ds = gi_disassemble(tool, run.cubins[c].path, functions, &text, &err);
        if (ds == GM_OK)
            ds = gi_disasm_parse(text, &dis[c], &err);
        if (functions && (ds != GM_OK || dis[c].count == 0)) {
            free(text);
            text = NULL;
            gi_disasm_free(&dis[c]);
            ds = gi_disassemble(tool, run.cubins[c].path, NULL, &text, &err);
            if (ds == GM_OK)
                ds = gi_disasm_parse(text, &dis[c], &err);
        }
        if (ds != GM_OK && failed++ == 0)
            cli_error(CMD, "warning: %s", err.msg);
        free(functions);
        free(text);
    }
    free(needed);
    gi_merge_stats stats;
    int ok = 0;
    if (gi_sass_merge(set, &run, dis, &stats, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
    } else {
        ok = stats.joined > 0;
        if (!ok)
            snprintf(why, len, "no launch of the second run matched the first");
        if (stats.missing || stats.extra)
            cli_error(CMD,
                      "warning: opcode split for %zu of %zu launches (%zu not found in the "
                      "second run, %zu extra there): the program did not launch the same "
                      "kernels twice",
                      stats.joined, set->count, stats.missing, stats.extra);
        if (stats.unresolved)
            cli_error(CMD,
                      "warning: no opcode split for %zu launch%s: an executed instruction is "
                      "not in any saved cubin's disassembly (first: %s)",
                      stats.unresolved, stats.unresolved == 1 ? "" : "es",
                      stats.first_unresolved);
    }
    for (size_t c = 0; c < run.n_cubins; c++)
        gi_disasm_free(&dis[c]);
    free(dis);
    gi_sass_run_free(&run);
    return ok;
}

/* Without non-CAS shared atomics (N_f = 0 everywhere) there is nothing
 * for the second run to tell apart: every ATOMS is a CAS (N_c of them) or
 * there are none.  Returns 1 and fills the splits in that case. */
static int split_from_hardware(gm_counters_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        double alu = set->launches[i].metric[GM_M_N_ALU];
        double cas = set->launches[i].metric[GM_M_N_CAS];
        if (!(alu == 0) || !(cas >= 0))
            return 0;
    }
    for (size_t i = 0; i < set->count; i++) {
        gm_launch_counters *k = &set->launches[i];
        k->split.valid = 1;
        k->split.cas = k->metric[GM_M_N_CAS];
        k->split.add = k->split.popc_inc = k->split.other = 0;
    }
    return 1;
}

/* What the code of one kernel holds, from every saved cubin that has it:
 * the disassembly started while the program ran, or its bytes disassembled
 * raw by nvdisasm now (0.3 s), or, failing that, cuobjdump -sass -fun on
 * the cubin.  Returns the number of cubins that had the kernel; ops has no
 * instructions if one copy could not be read. */
static size_t kernel_ops(const char *mangled, char **cubins, size_t n_cubins, const char *tool,
                         const char *arch, const char *raw_path, const disasm_spec *sp,
                         gi_function_ops *ops, size_t *speculated, size_t *decoded)
{
    memset(ops, 0, sizeof *ops);
    size_t found = 0;
    int unknown = 0;
    gm_error err = {{0}};
    for (size_t c = 0; c < n_cubins; c++) {
        gi_function_ops one;
        memset(&one, 0, sizeof one);
        const spec_job *done = NULL;
        for (size_t j = 0; sp && j < sp->n_jobs && !done; j++)
            if (sp->jobs[j].ok && strcmp(sp->jobs[j].name, mangled) == 0 &&
                strcmp(sp->jobs[j].cubin, cubins[c]) == 0)
                done = &sp->jobs[j];
        if (done) {
            found++;
            (*(done->decoded ? decoded : speculated))++;
            gi_function_ops_merge(ops, &done->ops);
            continue;
        }
        size_t size = 0, off = 0, len = 0;
        uint8_t *elf = read_whole(cubins[c], &size);
        if (!elf)
            continue;
        if (gi_cubin_function(elf, size, mangled, &off, &len) != 1) {
            free(elf);
            continue;
        }
        found++;
        if (use_decoder(arch) && gi_sm90_function_ops(elf + off, len, &one)) {
            free(elf);
            (*decoded)++;
            gi_function_ops_merge(ops, &one);
            continue;
        }
        char *text = NULL;
        if (!tool) {
            free(elf);
            unknown = 1;
            continue;
        }
        if (write_code(raw_path, elf + off, len) &&
            gi_disassemble_raw(tool, raw_path, arch, &text, &err) == GM_OK)
            gi_function_ops_scan(text, &one);
        free(text);
        text = NULL;
        if (one.instructions == 0 && gi_disassemble(tool, cubins[c], mangled, &text, &err) == GM_OK)
            gi_function_ops_scan(text, &one);
        free(text);
        free(elf);
        gi_function_ops_merge(ops, &one);
        unknown |= one.instructions == 0;
    }
    if (unknown)
        ops->instructions = 0; /* one copy unreadable: the code is not known */
    return found;
}

/* The split of every launch from its hardware counters and its kernel's
 * code (gi_static_split), when that settles all of them; the second run is
 * then not needed.  Returns 1 and fills the splits, or 0 (set unchanged)
 * with why. */
static int split_from_disassembly(gm_counters_set *set, const char *cubin_dir,
                                  const char *raw_path, const disasm_spec *sp,
                                  size_t *speculated, size_t *decoded, char *why, size_t why_len)
{
    char **cubins = NULL;
    size_t n_cubins = list_cubins(cubin_dir, &cubins);
    char tool[PATH_MAX];
    gm_error err = {{0}};
    int have_tool = gi_find_disassembler(tool, sizeof tool, &err) == GM_OK;
    char arch[16];
    snprintf(arch, sizeof arch, "SM%d%d", set->meta.cc_major, set->meta.cc_minor);

    gm_opcode_split *splits = calloc(set->count + 1, sizeof *splits);
    gi_function_ops *code = calloc(set->count + 1, sizeof *code); /* by first launch of a name */
    int all = splits && code;
    snprintf(why, why_len, "out of memory");
    for (size_t i = 0; all && i < set->count; i++) {
        const gm_launch_counters *k = &set->launches[i];
        const char *name = k->mangled ? k->mangled : k->kernel;
        const gi_function_ops *ops = NULL;
        if (k->metric[GM_M_N_ALU] > 0) {
            /* One disassembly per kernel: the first launch of the name
             * that needed it holds the result. */
            for (size_t j = 0; j < i && !ops; j++) {
                const gm_launch_counters *kj = &set->launches[j];
                if (kj->metric[GM_M_N_ALU] > 0 &&
                    strcmp(kj->mangled ? kj->mangled : kj->kernel, name) == 0)
                    ops = &code[j];
            }
            if (!ops) {
                if (kernel_ops(name, cubins, n_cubins, have_tool ? tool : NULL, arch, raw_path,
                               sp, &code[i], speculated, decoded) == 0) {
                    snprintf(why, why_len, "%s is in no cubin the program loaded", k->kernel);
                    all = 0;
                    break;
                }
                if (code[i].instructions == 0 && !have_tool) {
                    snprintf(why, why_len, "%s", err.msg);
                    all = 0;
                    break;
                }
                ops = &code[i];
            }
        }
        const char *reason = NULL;
        if (!gi_static_split(k, ops, &splits[i], &reason)) {
            snprintf(why, why_len, "%s: %s", k->kernel, reason);
            all = 0;
        }
    }
    if (all)
        for (size_t i = 0; i < set->count; i++)
            set->launches[i].split = splits[i];
    free(splits);
    free(code);
    free_list(cubins, n_cubins);
    unlink(raw_path);
    return all;
}

/* Rewrites the counters file with the split (temporary file + rename). */
static int save_counters(const char *path, const gm_counters_set *set)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    gm_error err = {{0}};
    gm_status st = gm_counters_write_file(tmp, set, &err);
    if (st == GM_OK && rename(tmp, path) != 0)
        st = gm_fail(&err, GM_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (st != GM_OK) {
        unlink(tmp);
        cli_fail(CMD, st, &err);
        return 0;
    }
    return 1;
}

/* ---- report ------------------------------------------------------------ */

/* The prefetched table when it is the one cli_table_resolve would give for
 * these counters (it is then handed over), else NULL. */
static gm_table *take_prefetched(table_prefetch *tp, const profile_opts *o,
                                 const gm_counters_set *set, char *path, size_t len)
{
    if (!tp || !tp->table)
        return NULL;
    if (o->r.table) {
        /* cli_table_resolve's check of an explicit table, unless --force */
        gm_error err = {{0}};
        if (!o->r.force && cli_table_check(tp->table, tp->path, set->meta.device_name,
                                         set->meta.sm_count, &err) != GM_OK)
            return NULL;
    } else if (strcmp(tp->table->meta.gpu_name, set->meta.device_name) != 0 ||
               tp->table->meta.sm_count != set->meta.sm_count) {
        /* Another device than the one guessed: the first shipped table of
         * a name is the one cli_table_find gives, so a match is the same. */
        return NULL;
    }
    gm_table *table = tp->table;
    tp->table = NULL;
    tp->used = 1;
    snprintf(path, len, "%s", tp->path);
    return table;
}

static int report(const profile_opts *o, const gm_counters_set *set,
                  const gm_model_options *model, table_prefetch *prefetch)
{
    gm_error err = {{0}};
    char table_path[PATH_MAX];
    gm_table *table = take_prefetched(prefetch, o, set, table_path, sizeof table_path);
    gm_status st = table ? GM_OK
                         : cli_table_resolve(o->r.table, set->meta.device_name, set->meta.sm_count,
                                             o->r.force, &table, table_path, sizeof table_path,
                                             &err);
    if (st != GM_OK) {
        int rc = cli_fail(CMD, st, &err);
        cli_error(CMD, "the counters are kept in %s: 'gpuq model %s --table FILE' reports them "
                  "once a table is at hand", o->counters, o->counters);
        return rc;
    }
    if (o->r.table && o->r.force &&
        cli_table_check(table, table_path, set->meta.device_name, set->meta.sm_count, NULL) !=
            GM_OK)
        cli_error(CMD, "warning: --force: %s was measured on %s with %d SMs, the counters come "
                  "from %s with %d SMs", table_path, table->meta.gpu_name, table->meta.sm_count,
                  set->meta.device_name, set->meta.sm_count);
    gm_report rep;
    st = gm_report_build(&rep, set, table, table_path, model, &err);
    int rc;
    if (st != GM_OK) {
        rc = cli_fail(CMD, st, &err);
    } else {
        rep.summary = o->r.summary;
        rc = cli_write_report(CMD, o->r.output, &rep, o->r.format);
        gm_report_free(&rep);
    }
    gm_table_free(table);
    return rc;
}

/* ---- the command ------------------------------------------------------- */

/* Removes the temporary directory: the files this command and the collector
 * put there (status files, the sass file, cubins/<crc>.cubin). */
static void remove_temp_dir(const char *dir)
{
    char path[PATH_MAX + 64];
    static const char *const subdirs[] = {"cubins", "cubins-counters", "spec"};
    for (size_t s = 0; s < sizeof subdirs / sizeof subdirs[0]; s++) {
        snprintf(path, sizeof path, "%s/%s", dir, subdirs[s]);
        DIR *d = opendir(path);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char file[PATH_MAX + 320];
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
        closedir(d);
        rmdir(path);
    }
    static const char *const files[] = {"counters.status", "sass.status", "sass.csv",
                                        "kernel.code"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static int make_temp_dir(char *dir, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    int w = snprintf(dir, len, "%s/gpuq-profile.XXXXXX", base);
    if (w < 0 || (size_t)w >= len || !mkdtemp(dir)) {
        cli_error(CMD, "cannot create a temporary directory under %s (%s)", base, strerror(errno));
        return 0;
    }
    return 1;
}

static void install_signal_handlers(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

/* Explains an empty result: why nothing was measured. */
static void explain_nothing_measured(const profile_opts *o, const collector_status *st,
                                     const run_result *run, const char *collector)
{
    char how[128];
    describe_exit(run, how, sizeof how);
    if (!st->present) {
        cli_error(CMD, "nothing was measured: the collector never started (the program %s "
                  "without initializing CUDA, or CUDA could not load %s)", how, collector);
        return;
    }
    if (collector_failed(st))
        cli_error(CMD, "nothing was measured: the collector stopped (%s)", st->error);
    else if (st->launches_seen == 0)
        cli_error(CMD, "nothing was measured: the program launched no kernel outside CUDA graphs "
                  "(%lld graph launches)", st->graphs);
    else if (o->regex || o->skip)
        cli_error(CMD, "nothing was measured: none of %lld launches passed -k '%s' -s %ld",
                  st->launches_seen, o->regex ? o->regex : "", o->skip);
    else
        cli_error(CMD, "nothing was measured (%lld launches seen, %lld profiled)",
                  st->launches_seen, st->profiled);
    if (run->signaled || run->code != 0)
        cli_error(CMD, "the program %s", how);
}

int cmd_profile(int argc, char **argv)
{
    profile_opts o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;
    gm_model_options model;
    if (gm_model_by_name(o.r.model, &model) != GM_OK)
        return cli_usage_error(CMD, "unknown model '%s' (known: %s)", o.r.model, gm_model_names());
    int rc = check_program(o.program[0]);
    if (rc != GPUQ_EXIT_OK)
        return rc;
    char collector[PATH_MAX], counters[PATH_MAX], tmpdir[PATH_MAX];
    if (!find_collector(collector, sizeof collector))
        return GPUQ_EXIT_GPU;
    if (!absolute_path(o.counters, counters, sizeof counters)) {
        cli_error(CMD, "cannot resolve '%s' (%s)", o.counters, strerror(errno));
        return GPUQ_EXIT_INPUT;
    }
    /* The collector claims the counters file with O_EXCL: an old one from
     * an earlier run goes first. */
    if (unlink(counters) != 0 && errno != ENOENT) {
        cli_error(CMD, "cannot replace %s (%s)", counters, strerror(errno));
        return GPUQ_EXIT_INPUT;
    }
    if (!make_temp_dir(tmpdir, sizeof tmpdir))
        return GPUQ_EXIT_INPUT;
    char status1[PATH_MAX + 32], status2[PATH_MAX + 32], sass[PATH_MAX + 32],
        cubins[PATH_MAX + 32], cubins1[PATH_MAX + 32], raw_code[PATH_MAX + 32];
    snprintf(status1, sizeof status1, "%s/counters.status", tmpdir);
    snprintf(status2, sizeof status2, "%s/sass.status", tmpdir);
    snprintf(sass, sizeof sass, "%s/sass.csv", tmpdir);
    snprintf(cubins, sizeof cubins, "%s/cubins", tmpdir);
    snprintf(cubins1, sizeof cubins1, "%s/cubins-counters", tmpdir);
    snprintf(raw_code, sizeof raw_code, "%s/kernel.code", tmpdir);
    char spec_dir[PATH_MAX + 32];
    snprintf(spec_dir, sizeof spec_dir, "%s/spec", tmpdir);
    /* GPUQ_DEBUG=1: where gpuq's own time goes (the collector prints its
     * side). */
    const char *debug_env = getenv("GPUQ_DEBUG");
    int debug = debug_env && debug_env[0] && strcmp(debug_env, "0") != 0;
    struct timespec t_start;
    clock_gettime(CLOCK_MONOTONIC, &t_start);
    double t_run1 = 0, t_split = 0, t_run2 = 0, t_merge = 0, t_report = 0;

    struct sigaction old_int, old_term;
    install_signal_handlers(&old_int, &old_term);
    table_prefetch prefetch;
    memset(&prefetch, 0, sizeof prefetch);
    prefetch.explicit_path = o.r.table;
    prefetch.status_path = status1;
    static disasm_spec spec; /* large: not on the stack */
    memset(&spec, 0, sizeof spec);

    /* Pass 1: the hardware counters, written as the program runs; it keeps
     * the cubins for the split from the disassembly. */
    run_result run1;
    int static_split = !o.no_split && !o.always_rerun;
    pass_env pe1 = {"counters", counters, status1, static_split ? cubins1 : NULL};
    spec.enabled = static_split && mkdir(spec_dir, 0700) == 0;
    spec.cubin_dir = cubins1;
    spec.work_dir = spec_dir;
    int started = run_pass(&o, collector, &pe1, &prefetch, &spec, &run1);
    spec_finish(&spec);
    if (!started) {
        rc = GPUQ_EXIT_GPU;
        goto done;
    }
    t_run1 = ms_since(&t_start);
    collector_status st1;
    read_status(status1, &st1);

    gm_counters_set set;
    gm_counters_set_init(&set);
    gm_error err = {{0}};
    int measured = 0;
    if (access(counters, F_OK) == 0) {
        gm_status ls = gm_counters_load(counters, &set, &err);
        if (ls != GM_OK) {
            rc = cli_fail(CMD, ls, &err);
            goto done_set;
        }
        measured = set.count > 0;
    }
    if (!measured) {
        explain_nothing_measured(&o, &st1, &run1, collector);
        rc = interrupted_by ? GPUQ_EXIT_INTERRUPTED : GPUQ_EXIT_GPU;
        goto done_set;
    }
    if (collector_failed(&st1))
        cli_error(CMD, "warning: the collector stopped after %zu launches (%s)", set.count,
                  st1.error);

    /* Pass 2: the opcode split. */
    char why[512] = "", static_why[512] = "";
    size_t speculated = 0, decoded = 0;
    struct timespec t_phase;
    clock_gettime(CLOCK_MONOTONIC, &t_phase);
    if (o.no_split) {
        snprintf(why, sizeof why, "--no-opcode-split");
    } else if (!o.always_rerun && split_from_hardware(&set)) {
        cli_error(CMD, "no launch has non-CAS shared atomics: the opcode split follows from the "
                  "hardware counters, no second run");
        if (!save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    } else if (static_split && !interrupted_by &&
               split_from_disassembly(&set, cubins1, raw_code, &spec, &speculated, &decoded,
                                      static_why, sizeof static_why)) {
        t_split = ms_since(&t_phase);
        cli_error(CMD, "each kernel with non-CAS shared atomics has one non-CAS ATOMS opcode: the "
                  "opcode split follows from the hardware counters and the disassembly, no "
                  "second run");
        if (!save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    } else if (interrupted_by) {
        snprintf(why, sizeof why, "interrupted");
    } else {
        t_split = ms_since(&t_phase);
        if (static_why[0] && debug)
            cli_error(CMD, "[debug] no split from the disassembly: %s", static_why);
        cli_error(CMD, "running the program again for the ATOMS opcode split "
                  "(--no-opcode-split skips this)");
        run_result run2;
        pass_env pe2 = {"sass", sass, status2, cubins};
        clock_gettime(CLOCK_MONOTONIC, &t_phase);
        if (!run_pass(&o, collector, &pe2, NULL, NULL, &run2)) {
            snprintf(why, sizeof why, "the second run could not start");
        } else if (interrupted_by) {
            snprintf(why, sizeof why, "interrupted during the second run");
        } else {
            collector_status st2;
            read_status(status2, &st2);
            if (collector_failed(&st2))
                snprintf(why, sizeof why, "the collector stopped in the second run (%.400s)",
                         st2.error);
            else if (access(sass, F_OK) != 0)
                snprintf(why, sizeof why, "the second run recorded nothing");
            else {
                t_run2 = ms_since(&t_phase);
                clock_gettime(CLOCK_MONOTONIC, &t_phase);
                if (add_opcode_split(&set, sass, why, sizeof why))
                    why[0] = '\0';
                t_merge = ms_since(&t_phase);
            }
        }
        if (why[0] == '\0' && !save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    }
    if (why[0] && !o.no_split)
        cli_error(CMD, "warning: no opcode split (%s): the report falls back to the hardware "
                  "FAO/CAS split", why);

    clock_gettime(CLOCK_MONOTONIC, &t_phase);
    rc = report(&o, &set, &model, &prefetch);
    t_report = ms_since(&t_phase);
    if (debug)
        cli_error(CMD, "[debug] ms: run 1 %.1f (table %s%s%s, loaded in %.1f, ready at %.1f; "
                  "%zu disassemblies during the run, waited %.1f after it); split from "
                  "counters/disassembly %.1f (%zu speculative results used, %zu kernels read "
                  "by the Hopper decoder); run 2 %.1f; its "
                  "disassembly and join %.1f; report %.1f; total %.1f",
                  t_run1, prefetch.used ? "prefetched and used" : "not prefetched or not used",
                  prefetch.proc_model[0] ? " for /proc model " : "", prefetch.proc_model,
                  prefetch.load_ms, prefetch.ready_ms, spec.n_jobs, spec.wait_ms, t_split,
                  speculated, decoded, t_run2, t_merge, t_report, ms_since(&t_start));

    if (st1.graphs > 0)
        cli_error(CMD, "%lld CUDA graph launch%s not profiled (kernels inside CUDA graphs are "
                  "not attributed)", st1.graphs, st1.graphs == 1 ? " was" : "es were");
    if (run1.signaled || run1.code != 0) {
        char how[128];
        describe_exit(&run1, how, sizeof how);
        cli_error(CMD, "warning: the program %s; the report covers the %zu launches measured "
                  "before", how, set.count);
    }
    cli_error(CMD, "%zu launch%s profiled; counters saved in %s", set.count,
              set.count == 1 ? "" : "es", o.counters);
    if (interrupted_by && rc == GPUQ_EXIT_OK)
        rc = GPUQ_EXIT_INTERRUPTED;
done_set:
    gm_counters_set_clear(&set);
done:
    prefetch_free(&prefetch);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!getenv("GPUQ_KEEP_TEMP"))
        remove_temp_dir(tmpdir);
    else
        cli_error(CMD, "temporary files kept in %s", tmpdir);
    return rc;
}
