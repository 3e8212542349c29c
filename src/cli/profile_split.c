/* gpuq profile: the ATOMS opcode split (ADD / CAS / POPC.INC / other) of
 * each launch: from the hardware counters alone, from them and the
 * kernels' code, or from the second run's instruction counts joined with
 * the disassembly.  Then the counters file is rewritten with it. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host_decode_sm90.h"
#include "host/host_sass.h"
#include "profile.h"

/* The shared-atomic counts the split works from (gpuq/metrics.h). */
#define N_CAS "smsp__inst_executed_op_shared_atom_dot_cas.sum"
#define N_ALU "smsp__inst_executed_op_shared_atom_dot_alu.sum"

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
int prof_add_opcode_split(gm_counters_set *set, const char *sass_path, char *why, size_t len)
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
int prof_split_from_hardware(gm_counters_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        double alu = gm_launch_metric(&set->launches[i], N_ALU);
        double cas = gm_launch_metric(&set->launches[i], N_CAS);
        if (gm_launch_counters_unmeasured(&set->launches[i]))
            continue; /* listed without counters: nothing to split */
        if (!(alu == 0) || !(cas >= 0))
            return 0;
    }
    for (size_t i = 0; i < set->count; i++) {
        gm_launch_counters *k = &set->launches[i];
        if (gm_launch_counters_unmeasured(k))
            continue;
        k->split.valid = 1;
        k->split.cas = gm_launch_metric(k, N_CAS);
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
        uint8_t *elf = prof_read_whole(cubins[c], &size);
        if (!elf)
            continue;
        if (gi_cubin_function(elf, size, mangled, &off, &len) != 1) {
            free(elf);
            continue;
        }
        found++;
        if (prof_use_decoder(arch) && gi_sm90_function_ops(elf + off, len, &one)) {
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
        if (prof_write_code(raw_path, elf + off, len) &&
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
int prof_split_from_disassembly(gm_counters_set *set, const char *cubin_dir,
                                const char *raw_path, const disasm_spec *sp,
                                size_t *speculated, size_t *decoded, char *why, size_t why_len)
{
    char **cubins = NULL;
    size_t n_cubins = prof_list_cubins(cubin_dir, &cubins);
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
        if (gm_launch_counters_unmeasured(k))
            continue; /* listed without counters: nothing to split */
        if (gm_launch_metric(k, N_ALU) > 0) {
            /* One disassembly per kernel: the first launch of the name
             * that needed it holds the result. */
            for (size_t j = 0; j < i && !ops; j++) {
                const gm_launch_counters *kj = &set->launches[j];
                if (gm_launch_metric(kj, N_ALU) > 0 &&
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
    prof_free_list(cubins, n_cubins);
    unlink(raw_path);
    return all;
}

/* After the second run: the launches it had no counts for (kernel nodes
 * of CUDA graphs it could not attribute, launches of another order) get
 * the split from their hardware counters and their kernel's code where
 * that settles it.  Returns how many got one. */
size_t prof_split_fill_missing(gm_counters_set *set, const char *cubin_dir, const char *raw_path,
                               const disasm_spec *sp)
{
    char **cubins = NULL;
    size_t n_cubins = prof_list_cubins(cubin_dir, &cubins), filled = 0, spec = 0, dec = 0;
    char tool[PATH_MAX];
    gm_error err = {{0}};
    int have_tool = gi_find_disassembler(tool, sizeof tool, &err) == GM_OK;
    char arch[16];
    snprintf(arch, sizeof arch, "SM%d%d", set->meta.cc_major, set->meta.cc_minor);
    for (size_t i = 0; i < set->count; i++) {
        gm_launch_counters *k = &set->launches[i];
        if (k->split.valid)
            continue;
        gi_function_ops ops;
        memset(&ops, 0, sizeof ops);
        const gi_function_ops *use = NULL;
        if (gm_launch_metric(k, N_ALU) > 0) {
            if (kernel_ops(k->mangled ? k->mangled : k->kernel, cubins, n_cubins,
                           have_tool ? tool : NULL, arch, raw_path, sp, &ops, &spec, &dec) == 0)
                continue;
            use = &ops;
        }
        gm_opcode_split split;
        const char *reason = NULL;
        if (gi_static_split(k, use, &split, &reason)) {
            k->split = split;
            filled++;
        }
    }
    prof_free_list(cubins, n_cubins);
    unlink(raw_path);
    return filled;
}

/* Rewrites the counters file with the split (temporary file + rename). */
int prof_save_counters(const char *path, const gm_counters_set *set)
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
