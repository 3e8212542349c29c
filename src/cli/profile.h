/* gpuq profile, split by job (the command itself is cmd_profile.c):
 *   profile_options.c   options, help, checks of the program and collector
 *   profile_run.c       running one pass under the collector, its status
 *                       file, signals, the temporary directory
 *   profile_prefetch.c  work done while the program runs (machine data,
 *                       code reading) and the file helpers the code pass shares
 *   profile_code.c      the code pass a unit declares (gpuq/code_pass.h):
 *                       from the counters, the code, or a second run
 *   profile_report.c    the report, and why nothing was measured
 * This header only declares; it includes no profile_*.c's header. */
#ifndef GPUQ_CLI_PROFILE_H
#define GPUQ_CLI_PROFILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <limits.h>

#include "cli.h"
#include "host/host_sass.h"
#include "inject/gi_protocol.h"
#include "gpuq/code_pass.h"
#include "gpuq/counters.h"
#include "gpuq/unit.h"

#define CMD "profile"
#define DEFAULT_COUNTERS "gpuq-profile.counters.csv"

typedef struct profile_opts {
    cli_report_opts r; /* --table --force -m -f --summary -o */
    const char *regex;
    long skip, count;
    const char *nvtx_include; /* --nvtx-include NAME, or NULL */
    long full_launches;       /* --full-launches N: of each kernel shape (default 1) */
    const char *no_pass;      /* --no-code-pass (or a pass's own name for it) as given */
    int always_rerun;
    const char *second_run;   /* --second-run or --always-rerun as given; NULL: neither */
    const char *counters;     /* may be a pattern (gi_pattern.h) */
    char **program; /* argv of the profiled program, NULL-terminated */
} profile_opts;

typedef struct pass_env {
    const char *pass;
    const char *out;
    const char *status;
    const char *cubin_dir;
    const char *out_tmp;      /* the collector writes <out><out_tmp>; NULL: <out> */
    const char *sass_metric;  /* the sass pass's SASS metric (the code pass's), unless
                                 the user set GPUQ_SASS_METRIC; NULL: not set */
} pass_env;

typedef struct run_result {
    int exited, code, signaled, sig;
    long pid;
} run_result;

/* ---- work done while the program runs ---------------------------------- */

/* While pass 1 runs, gpuq would only wait; two slow parts of its own work
 * are done then instead of after it:
 *  - the machine data the sections need (the largest shipped file, a
 *    calibration table gzipped to 5 MB, takes 0.4-0.5 s to load), loaded
 *    as for a report (cli_machine_load) for the device guessed: the GPU
 *    model named in /proc/driver/nvidia (when the machine has one model),
 *    failing that the device the collector names in its status file once
 *    it has set the device up; with --table, that file at once.  report()
 *    takes each file only where it is the one its own load would give for
 *    the counters.
 *  - the disassembler takes about 0.3 s per call, whatever the size of the
 *    code.  The collector names each profiled kernel in
 *    cubins-counters/kernels.txt at its first launch; as soon as a saved
 *    cubin holds that kernel's code, it is read: at once by the Hopper
 *    reader (host_decode_sm90.c) when it knows every instruction, else by
 *    `nvdisasm -b` in the background (at most GPUQ_SPEC_MAX of them).  The
 *    code pass (profile_code.c) uses the results, and reads what is
 *    missing. */
typedef struct machine_prefetch {
    const cli_report_opts *r; /* the sections, --table and --force */
    const char *status_path;
    int done;                 /* tried (loaded, or failed: then report() tries again) */
    gm_machine *machine;      /* loaded for the guess; NULL: none */
    char device_name[128];    /* from the status file */
    int sm_count, cc_major, cc_minor, have_device;
    char proc_model[128];     /* from /proc/driver/nvidia, when there is one model */
    size_t used;              /* files report() took */
    double load_ms, ready_ms; /* GPUQ_DEBUG: load time, and when it was ready in the run */
} machine_prefetch;

#define GPUQ_SPEC_MAX 16

typedef struct spec_job {
    char name[512];           /* mangled kernel name */
    char cubin[PATH_MAX];
    char code[PATH_MAX + 32], out[PATH_MAX + 32];
    pid_t pid;                /* running while > 0 */
    int ok;                   /* finished, and ops holds its code */
    int decoded;              /* read by host_sm90_read, no process */
    gm_kernel_code code_read; /* what the code holds, as the pass marks it */
} spec_job;

/* Where a kernel's code is: the cubins pass 1 saved, indexed once each. */
typedef struct spec_code {
    char *name;
    size_t cubin;             /* index into cubins */
    size_t offset, length;
} spec_code;

typedef struct disasm_spec {
    int enabled;
    const gm_code_pass *pass; /* whose marks the code is read with */
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

/* What the collector reported (its status file, "key: value" lines). */
/* One process's status file (the protocol's definition, gi_protocol.h). */
typedef gi_status collector_status;

/* Every process of a run writes <prefix>.<pid> (a launcher's workers too). */
typedef struct status_set {
    size_t n;
    collector_status *proc;  /* by pid */
    collector_status total;  /* counts summed; the first error; present if any */
} status_set;

/* the signal that interrupted gpuq (Ctrl-C, kill), 0 if none */
extern volatile sig_atomic_t prof_interrupted_by;

/* profile_options.c */
int prof_parse_options(int argc, char **argv, profile_opts *o); /* 0 ok, 1 help, -1 usage */
int prof_check_program(const char *name);
int prof_find_collector(char *path, size_t len);
int prof_absolute_path(const char *path, char *out, size_t len);
/* Expands an output pattern (gi_pattern.h) in gpuq: %p is pid, %i the
 * first number whose file does not exist. */
gm_status prof_expand_output(const char *pattern, long pid, char *out, size_t len, gm_error *err);

/* profile_run.c */
int prof_run_pass(const profile_opts *o, const char *collector, const pass_env *pe,
                  machine_prefetch *prefetch, disasm_spec *spec, run_result *res);
void prof_read_status(const char *path, collector_status *s);
/* Reads the status files <prefix>.<pid> of all the run's processes. */
void prof_read_statuses(const char *prefix, status_set *set);
void prof_status_set_free(status_set *set);
/* The counters files of a run are written under a temporary name (the
 * output + out_tmp, pass_env): each process's name as written and final. */
void prof_untemp_names(status_set *set, const char *out_tmp);
/* Renames written to final; 1 done, else 0 with the error printed. */
int prof_keep_counters(const char *written, const char *final);
/* The paths <prefix>.<digits> (malloc'ed list), sorted. */
size_t prof_status_files(const char *prefix, char ***out);
int prof_collector_failed(const collector_status *s);
void prof_describe_exit(const run_result *r, char *buf, size_t len);
/* The program's exit status as a shell gives it: its code, or 128 + the
 * signal that killed it. */
int prof_program_status(const run_result *r);
void prof_remove_temp_dir(const char *dir);
int prof_make_temp_dir(char *dir, size_t len);
void prof_install_signal_handlers(struct sigaction *old_int, struct sigaction *old_term);

/* profile_prefetch.c */
double prof_ms_since(const struct timespec *t0);
void prof_prefetch_free(machine_prefetch *tp);
void prof_spec_finish(disasm_spec *sp);
int prof_while_running(machine_prefetch *tp, disasm_spec *sp, pid_t pid, int *status,
                       const struct timespec *start);
uint8_t *prof_read_whole(const char *path, size_t *size);
size_t prof_list_cubins(const char *dir, char ***out);
void prof_free_list(char **list, size_t n);
int prof_write_code(const char *path, const uint8_t *code, size_t len);
uint8_t *prof_read_range(const char *path, size_t offset, size_t length);
int prof_use_decoder(const char *arch);

/* profile_code.c: the run's code pass (gpuq/code_pass.h), its three ways */
/* The second run's instruction counts joined with the disassembly.
 * Returns 1 if some launch got a result; otherwise why says why not. */
int prof_code_from_counts(const gm_code_pass *pass, gm_counters_set *set, const char *sass_path,
                          char *why, size_t len);
/* The counters and each kernel's code (read during the run where it could
 * be, sp): 1 when that settles every launch; else 0 and why (the first
 * launch it does not settle).  every = 0: it stops there and leaves the set
 * unchanged (a second run follows); every = 1: it reads every launch's code
 * and keeps each result it has. */
int prof_code_from_code(const gm_code_pass *pass, gm_counters_set *set, const char *cubin_dir,
                        const char *raw_path, const disasm_spec *sp, int every,
                        size_t *speculated, size_t *decoded, char *why, size_t why_len);
/* After the second run: the launches it had no counts for, from their code
 * where that settles them; returns how many. */
size_t prof_code_fill_missing(const gm_code_pass *pass, gm_counters_set *set,
                              const char *cubin_dir, const char *raw_path, const disasm_spec *sp);
int prof_save_counters(const char *path, const gm_counters_set *set);

/* profile_graphs.c: the summary of CUDA graph launches (the collector's
 * <status>.graphs file of the reported process): one line per graph, and
 * the attribution of kernel-node rows kept next to the counters file. */
void prof_graph_summary(const char *graphs_path, const char *counters_path);

/* profile_report.c */
int prof_report(const profile_opts *o, const gm_counters_set *set, machine_prefetch *prefetch);
void prof_explain_nothing_measured(const profile_opts *o, const collector_status *st,
                                   const run_result *run, const char *collector);

#endif
