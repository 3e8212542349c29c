/* gpuq profile: runs a program under the CUPTI collector (libgpuq_inject.so,
 * src/inject/), collects the counters every unit gathered needs, one row per
 * kernel launch, runs the code pass a unit declares (gpuq/code_pass.h), and
 * reports every unit's section for every launch.
 *
 * Passes (docs/profile.md):
 *   1. counters: hardware counters through the range profiler, one row per
 *      launch appended to the counters file as the program runs; it keeps
 *      the program's cubins for the code pass;
 *   2. sass (unless --no-code-pass, or the code pass settles every
 *      launch from the counters, or from them and the kernels' code, read
 *      while pass 1 runs: profile_code.c): per-instruction execution counts
 *      and the program's cubins; gpuq disassembles them afterwards and joins
 *      the executed opcodes to pass 1 by (kernel, ordinal).
 *
 * The machine data the sections need is loaded while pass 1 runs (0.2 s
 * for the largest shipped file, H100's, on a 2-core machine,
 * docs/profile.md), as soon as the device is known (profile_prefetch.c).
 *
 * Exit codes: 0 when something was measured (the program's own failure or
 * crash is then a warning line), 3 when nothing was (collector error, no
 * matching launch, program failed first), 2 for a missing program or bad
 * input, 1 for usage, 130 after Ctrl-C (the report of what was measured is
 * still written).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inject/gi_pattern.h"
#include "profile.h"

int cmd_profile(int argc, char **argv)
{
    profile_opts o;
    int parsed = prof_parse_options(argc, argv, &o);
    if (parsed != 0)
        return parsed > 0 ? GPUQ_EXIT_OK : GPUQ_EXIT_USAGE;
    gm_report_options ro;
    gm_error oerr = {{0}};
    cli_report_options(&o.r, &ro);
    if (gm_report_check_options(&ro, &oerr) != GM_OK) /* every -m, before the program runs */
        return cli_usage_error(CMD, "%s", oerr.msg);
    int rc = prof_check_program(o.program[0]);
    if (rc != GPUQ_EXIT_OK)
        return rc;
    char collector[PATH_MAX], counters[sizeof(((collector_status *)0)->output)], tmpdir[PATH_MAX];
    if (!prof_find_collector(collector, sizeof collector))
        return GPUQ_EXIT_GPU;
    if (!prof_absolute_path(o.counters, counters, sizeof counters)) {
        cli_error(CMD, "cannot resolve '%s' (%s)", o.counters, strerror(errno));
        return GPUQ_EXIT_INPUT;
    }
    /* The collector writes the counters under a temporary name, the path +
     * ".part.<gpuq's pid>" (each process of a pattern %p, %q{RANK}... its
     * own), renamed over the path once the run is over and measured
     * something: an earlier file of that name stays until then, and for
     * good when nothing is measured (no GPU, a mistyped command). */
    int pattern = gi_pattern_is_pattern(o.counters);
    char out_tmp[32];
    snprintf(out_tmp, sizeof out_tmp, ".part.%ld", (long)getpid());
    if (!prof_make_temp_dir(tmpdir, sizeof tmpdir))
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
    double t_run1 = 0, t_code = 0, t_run2 = 0, t_merge = 0, t_report = 0;

    status_set procs;
    memset(&procs, 0, sizeof procs);
    struct sigaction old_int, old_term;
    prof_install_signal_handlers(&old_int, &old_term);
    /* The code pass of the units this run gathers (none: one pass only). */
    const gm_code_pass *pass = gm_units_code_pass(o.r.sections, o.r.n_sections, NULL);
    machine_prefetch prefetch;
    memset(&prefetch, 0, sizeof prefetch);
    prefetch.r = &o.r;
    prefetch.status_path = status1;
    static disasm_spec spec; /* large: not on the stack */
    memset(&spec, 0, sizeof spec);

    /* Pass 1: the hardware counters, written as the program runs; it keeps
     * the cubins for the code pass to read. */
    run_result run1;
    int read_code = pass && !o.no_pass && !o.always_rerun;
    pass_env pe1 = {"counters", counters, status1, read_code ? cubins1 : NULL, out_tmp, NULL};
    spec.pass = pass;
    spec.enabled = read_code && mkdir(spec_dir, 0700) == 0;
    spec.cubin_dir = cubins1;
    spec.work_dir = spec_dir;
    int started = prof_run_pass(&o, collector, &pe1, &prefetch, &spec, &run1);
    prof_spec_finish(&spec);
    if (!started) {
        rc = GPUQ_EXIT_GPU;
        goto done;
    }
    t_run1 = prof_ms_since(&t_start);
    /* Every process of the program that used CUDA left a status file; the
     * report covers the one that wrote the counters path (or, for a
     * pattern, the first that wrote rows), and names the others' files. */
    prof_read_statuses(status1, &procs);
    prof_untemp_names(&procs, out_tmp);
    collector_status st1 = procs.total;
    const collector_status *main_proc = NULL;
    size_t writers = 0;
    for (size_t i = 0; i < procs.n; i++) {
        const collector_status *p = &procs.proc[i];
        if (p->rows <= 0)
            continue;
        writers++;
        if (!main_proc || (!pattern && strcmp(p->output, counters) == 0))
            main_proc = p;
    }
    /* the file as written; without a status that names it (a crash before
     * the collector wrote one), the name it was given */
    char written[sizeof counters + 64];
    snprintf(written, sizeof written, "%s%s", counters, out_tmp);
    if (main_proc && main_proc->output[0]) {
        snprintf(counters, sizeof counters, "%s", main_proc->output);
        snprintf(written, sizeof written, "%s", main_proc->written);
    }
    /* the other processes' files: kept under their own names */
    for (size_t i = 0; i < procs.n; i++) {
        const collector_status *p = &procs.proc[i];
        if (p != main_proc && strcmp(p->written, p->output) != 0 && access(p->written, F_OK) == 0)
            prof_keep_counters(p->written, p->output);
    }
    if (writers > 1) {
        cli_error(CMD, "%zu processes wrote counters; this report covers %s (process %ld):",
                  writers, counters, main_proc->pid);
        for (size_t i = 0; i < procs.n; i++)
            if (procs.proc[i].rows > 0)
                cli_error(CMD, "  process %ld: %lld launch%s in %s", procs.proc[i].pid,
                          procs.proc[i].rows, procs.proc[i].rows == 1 ? "" : "es",
                          procs.proc[i].output);
    }

    gm_counters_set set;
    gm_counters_set_init(&set);
    gm_error err = {{0}};
    int measured = 0;
    if (access(written, F_OK) == 0) {
        gm_status ls = gm_counters_load(written, &set, &err);
        if (ls != GM_OK) {
            rc = cli_fail(CMD, ls, &err);
            goto done_set;
        }
        measured = set.count > 0;
        /* measured: the new file replaces the old one now; else the old
         * one stays as it was */
        if (!measured)
            unlink(written);
        else if (!prof_keep_counters(written, counters)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    }
    if (!measured) {
        prof_explain_nothing_measured(&o, &st1, &run1, collector);
        rc = prof_interrupted_by ? GPUQ_EXIT_INTERRUPTED : GPUQ_EXIT_GPU;
        goto done_set;
    }
    if (prof_collector_failed(&st1))
        cli_error(CMD, "warning: the collector stopped after %zu launches (%s)", set.count,
                  st1.error);

    /* Pass 2: the code pass of a unit gathered (gm_unit.code_pass); none of
     * those gathered (other --section): nothing to do. */
    char why[512] = "", static_why[512] = "";
    size_t speculated = 0, decoded = 0;
    struct timespec t_phase;
    clock_gettime(CLOCK_MONOTONIC, &t_phase);
    pass = gm_units_code_pass(o.r.sections, o.r.n_sections, &set.meta);
    if (o.no_pass || !pass) {
        /* nothing to do, nothing to warn about */
    } else if (!o.always_rerun && pass->from_counters(&set)) {
        cli_error(CMD, "%s", pass->by_counters);
        if (!prof_save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    } else if (read_code && !prof_interrupted_by &&
               prof_code_from_code(pass, &set, cubins1, raw_code, &spec, !o.second_run,
                                   &speculated, &decoded, static_why, sizeof static_why)) {
        t_code = prof_ms_since(&t_phase);
        cli_error(CMD, "%s", pass->by_code);
        if (!prof_save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    } else if (prof_interrupted_by) {
        snprintf(why, sizeof why, "interrupted");
    } else if (!o.second_run) {
        /* The program runs once unless asked: a second run costs a whole
         * run of it (5.4 s of the 13.2 s gpuq added to the library-kernel
         * program, docs/profile.md) and repeats its side effects.  The
         * launches the code settled keep their result (prof_code_from_code
         * read every launch's); the others get the fallback, and one line
         * says how many and what would count them. */
        size_t unsettled = 0, applicable = 0;
        for (size_t i = 0; i < set.count; i++)
            if (pass->applies(&set.launches[i])) {
                applicable++;
                unsettled += !set.launches[i].pass.valid;
            }
        t_code = prof_ms_since(&t_phase);
        if (unsettled)
            cli_error(CMD, "no %s for %zu of %zu launches (%s): the report "
                      "uses %s for them; --second-run runs the program again to count their "
                      "instructions", pass->name, unsettled, applicable,
                      static_why[0] ? static_why : "their code is unread", pass->fallback);
        if (unsettled < applicable && !prof_save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    } else if (writers > 1) {
        snprintf(why, sizeof why, "%zu processes wrote counters: a second run for the %s is "
                 "made for one-process programs only", writers, pass->name);
    } else {
        t_code = prof_ms_since(&t_phase);
        if (static_why[0] && debug)
            cli_error(CMD, "[debug] no %s from the disassembly: %s", pass->name, static_why);
        cli_error(CMD, "running the program again for the %s (%s)", pass->title, o.second_run);
        run_result run2;
        pass_env pe2 = {"sass", sass, status2, cubins, NULL, pass->sass_metric};
        clock_gettime(CLOCK_MONOTONIC, &t_phase);
        if (!prof_run_pass(&o, collector, &pe2, NULL, NULL, &run2)) {
            snprintf(why, sizeof why, "the second run could not start");
        } else if (prof_interrupted_by) {
            snprintf(why, sizeof why, "interrupted during the second run");
        } else {
            status_set procs2;
            prof_read_statuses(status2, &procs2);
            collector_status st2 = procs2.total;
            prof_status_set_free(&procs2);
            if (prof_collector_failed(&st2))
                snprintf(why, sizeof why, "the collector stopped in the second run (%.400s)",
                         st2.error);
            else if (access(sass, F_OK) != 0)
                snprintf(why, sizeof why, "the second run recorded nothing");
            else {
                t_run2 = prof_ms_since(&t_phase);
                clock_gettime(CLOCK_MONOTONIC, &t_phase);
                if (prof_code_from_counts(pass, &set, sass, why, sizeof why))
                    why[0] = '\0';
                /* Launches the second run did not count (graph nodes it
                 * could not attribute): from the code where it settles. */
                if (why[0] == '\0' && read_code) {
                    size_t filled = prof_code_fill_missing(pass, &set, cubins1, raw_code, &spec);
                    if (filled)
                        cli_error(CMD, "%zu launch%s without instruction counts in the second "
                                  "run got the %s from the hardware counters and the code",
                                  filled, filled == 1 ? "" : "es", pass->name);
                }
                t_merge = prof_ms_since(&t_phase);
            }
        }
        if (why[0] == '\0' && !prof_save_counters(counters, &set)) {
            rc = GPUQ_EXIT_INPUT;
            goto done_set;
        }
    }
    if (why[0])
        cli_error(CMD, "warning: no %s (%s): the report falls back to %s", pass->name, why,
                  pass->fallback);

    /* -o with a pattern: %p is the profiled process, as in Nsight Compute. */
    char report_path[PATH_MAX];
    if (o.r.output && gi_pattern_is_pattern(o.r.output)) {
        gm_error perr = {{0}};
        if (prof_expand_output(o.r.output, main_proc ? main_proc->pid : run1.pid, report_path,
                               sizeof report_path, &perr) != GM_OK) {
            rc = cli_fail(CMD, GM_ERR_INVALID_ARG, &perr);
            goto done_set;
        }
        o.r.output = report_path;
    }
    clock_gettime(CLOCK_MONOTONIC, &t_phase);
    rc = prof_report(&o, &set, &prefetch);
    t_report = prof_ms_since(&t_phase);
    if (debug)
        cli_error(CMD, "[debug] ms: run 1 %.1f (machine data: %zu files prefetched%s%s, %zu "
                  "used, loaded in %.1f, ready at %.1f; "
                  "%zu disassemblies during the run, waited %.1f after it); code pass from "
                  "counters/disassembly %.1f (%zu speculative results used, %zu kernels read "
                  "by the Hopper decoder); run 2 %.1f; its "
                  "disassembly and join %.1f; report %.1f; total %.1f",
                  t_run1, prefetch.used + (prefetch.machine ? prefetch.machine->n_files : 0),
                  prefetch.proc_model[0] ? " for /proc model " : "", prefetch.proc_model,
                  prefetch.used,
                  prefetch.load_ms, prefetch.ready_ms, spec.n_jobs, spec.wait_ms, t_code,
                  speculated, decoded, t_run2, t_merge, t_report, prof_ms_since(&t_start));

    if (main_proc) {
        char graphs[PATH_MAX + 64];
        snprintf(graphs, sizeof graphs, "%s.%ld.graphs", status1, main_proc->pid);
        prof_graph_summary(graphs, counters);
    }
    if (st1.capture_skipped > 0)
        cli_error(CMD, "%lld launch%s ran while a stream capture was in progress on the GPU and "
                  "%s not profiled (profiling then could invalidate the capture)",
                  st1.capture_skipped, st1.capture_skipped == 1 ? "" : "es",
                  st1.capture_skipped == 1 ? "was" : "were");
    if (run1.signaled || run1.code != 0) {
        char how[128];
        prof_describe_exit(&run1, how, sizeof how);
        cli_error(CMD, "warning: the program %s; the report covers the %zu launches measured "
                  "before (gpuq exits with the program's status, %d)", how, set.count,
                  prof_program_status(&run1));
    }
    if (st1.repeat_launches > 0)
        cli_error(CMD, "%lld of the %zu launches repeated a kernel shape already measured in "
                  "full: one pass each (their time, cycles, cache and DRAM traffic), the rest "
                  "of their counters from that shape's full launch (--full-launches 0 measures "
                  "every launch in full)",
                  st1.repeat_launches, set.count);
    cli_error(CMD, "%zu launch%s profiled; counters saved in %s", set.count,
              set.count == 1 ? "" : "es", pattern ? counters : o.counters);
    if (prof_interrupted_by && rc == GPUQ_EXIT_OK)
        rc = GPUQ_EXIT_INTERRUPTED;
done_set:
    gm_counters_set_clear(&set);
    /* A failing program's status is passed on (docs/profile.md, "Exit
     * codes"): a CI job that wraps its tests in gpuq profile sees them
     * fail.  gpuq's own codes are left for runs whose program succeeded,
     * and an interrupted run keeps 130. */
    if (!prof_interrupted_by && (run1.signaled || run1.code != 0))
        rc = prof_program_status(&run1);
done:
    prof_status_set_free(&procs);
    prof_prefetch_free(&prefetch);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!getenv("GPUQ_KEEP_TEMP"))
        prof_remove_temp_dir(tmpdir);
    else
        cli_error(CMD, "temporary files kept in %s", tmpdir);
    return rc;
}
