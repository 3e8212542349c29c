/* gpuq profile: the run's code pass (gpuq/code_pass.h), which a unit
 * declares: each launch's result from the kernels' code (with the
 * counters), or from the second run's instruction counts joined with the
 * disassembly.  What the code means is the pass's; finding the code,
 * reading it and joining the runs is done here the same for every pass.
 * Then the counters file is rewritten with the results. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host_decode_sm90.h"
#include "host/host_sass.h"
#include "gpuq/kernel_name.h"
#include "profile.h"

/* The distinct functions with executed records in cubins of this CRC, as
 * "a,b,c" (malloc'ed), or NULL. */
static char *functions_of(const host_sass_run *run, uint32_t crc)
{
    size_t len = 0, cap = 0;
    char *list = NULL;
    for (size_t r = 0; r < run->n_records; r++) {
        const host_sass_record *rec = &run->records[r];
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

int prof_code_from_counts(const gm_code_pass *pass, gm_counters_set *set, const char *sass_path,
                          char *why, size_t len)
{
    host_sass_run run;
    gm_error err = {{0}};
    if (host_sass_run_load(sass_path, &run, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
        return 0;
    }
    char tool[PATH_MAX];
    if (host_find_disassembler(tool, sizeof tool, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
        host_sass_run_free(&run);
        return 0;
    }
    host_disasm *dis = calloc(run.n_cubins + 1, sizeof *dis);
    if (!dis) {
        snprintf(why, len, "out of memory");
        host_sass_run_free(&run);
        return 0;
    }
    /* Disassemble the cubins that executed instructions point to (all of
     * them when no CRC matches, see host_sass_launch_counts). */
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
        /* Only the functions that executed counted instructions, when the
         * CRCs say which cubin they are in; the whole cubin if that fails. */
        char *functions = any_match ? functions_of(&run, (uint32_t)run.cubins[c].crc) : NULL;
        char *text = NULL;
        gm_status ds = host_disassemble(tool, run.cubins[c].path, functions, &text, &err);
        if (ds == GM_OK)
            ds = host_disasm_parse(text, &dis[c], &err);
        if (functions && (ds != GM_OK || dis[c].count == 0)) {
            free(text);
            text = NULL;
            host_disasm_free(&dis[c]);
            ds = host_disassemble(tool, run.cubins[c].path, NULL, &text, &err);
            if (ds == GM_OK)
                ds = host_disasm_parse(text, &dis[c], &err);
        }
        if (ds != GM_OK && failed++ == 0)
            cli_error(CMD, "warning: %s", err.msg);
        free(functions);
        free(text);
    }
    free(needed);
    host_merge_stats stats;
    int ok = 0;
    if (host_sass_merge(set, &run, dis, pass, &stats, &err) != GM_OK) {
        snprintf(why, len, "%s", err.msg);
    } else {
        ok = stats.joined > 0;
        if (!ok)
            snprintf(why, len, "no launch of the second run matched the first");
        if (stats.missing || stats.extra)
            cli_error(CMD,
                      "warning: %s for %zu of %zu launches (%zu not found in the "
                      "second run, %zu extra there): the program did not launch the same "
                      "kernels twice",
                      pass->name, stats.joined, set->count, stats.missing, stats.extra);
        if (stats.unresolved)
            cli_error(CMD,
                      "warning: no %s for %zu launch%s: an executed instruction is "
                      "not in any saved cubin's disassembly (first: %s)",
                      pass->name, stats.unresolved, stats.unresolved == 1 ? "" : "es",
                      stats.first_unresolved);
    }
    for (size_t c = 0; c < run.n_cubins; c++)
        host_disasm_free(&dis[c]);
    free(dis);
    host_sass_run_free(&run);
    return ok;
}

/* What the code of one kernel holds, from every saved cubin that has it:
 * the disassembly started while the program ran, or its bytes disassembled
 * raw by nvdisasm now (0.3 s), or, failing that, cuobjdump -sass -fun on
 * the cubin.  Returns the number of cubins that had the kernel; ops has no
 * instructions if one copy could not be read. */
static size_t kernel_code(const gm_code_pass *pass, const char *mangled, char **cubins,
                          size_t n_cubins, const char *tool, const char *arch,
                          const char *raw_path, const disasm_spec *sp, gm_kernel_code *ops,
                          size_t *speculated, size_t *decoded)
{
    memset(ops, 0, sizeof *ops);
    size_t found = 0;
    int unknown = 0;
    gm_error err = {{0}};
    for (size_t c = 0; c < n_cubins; c++) {
        gm_kernel_code one;
        memset(&one, 0, sizeof one);
        const spec_job *done = NULL;
        for (size_t j = 0; sp && sp->pass == pass && j < sp->n_jobs && !done; j++)
            if (sp->jobs[j].ok && strcmp(sp->jobs[j].name, mangled) == 0 &&
                strcmp(sp->jobs[j].cubin, cubins[c]) == 0)
                done = &sp->jobs[j];
        if (done) {
            found++;
            (*(done->decoded ? decoded : speculated))++;
            host_code_merge(ops, &done->code_read);
            continue;
        }
        size_t size = 0, off = 0, len = 0;
        uint8_t *elf = prof_read_whole(cubins[c], &size);
        if (!elf)
            continue;
        if (host_cubin_function(elf, size, mangled, &off, &len) != 1) {
            free(elf);
            continue;
        }
        found++;
        if (prof_use_decoder(arch) && host_sm90_read(elf + off, len, pass->mark, &one)) {
            free(elf);
            (*decoded)++;
            host_code_merge(ops, &one);
            continue;
        }
        char *text = NULL;
        if (!tool) {
            free(elf);
            unknown = 1;
            continue;
        }
        if (prof_write_code(raw_path, elf + off, len) &&
            host_disassemble_raw(tool, raw_path, arch, &text, &err) == GM_OK)
            host_code_scan(text, pass->mark, &one);
        free(text);
        text = NULL;
        if (one.instructions == 0 && host_disassemble(tool, cubins[c], mangled, &text, &err) == GM_OK)
            host_code_scan(text, pass->mark, &one);
        free(text);
        free(elf);
        host_code_merge(ops, &one);
        unknown |= one.instructions == 0;
    }
    if (unknown)
        ops->instructions = 0; /* one copy unreadable: the code is not known */
    return found;
}

/* The launch's kernel: its mangled name where known. */
static const char *kernel_of(const gm_launch_counters *k)
{
    return k->mangled ? k->mangled : k->kernel;
}

/* What the code pass reads kernels' code with: the saved cubins, the
 * disassembler, the readings made so far, one per kernel (a kernel's
 * launches are many, and nvdisasm takes 0.3 s a call). */
typedef struct code_reader {
    const gm_code_pass *pass;
    const gm_counters_set *set;
    char **cubins;
    size_t n_cubins;
    char tool[PATH_MAX];
    gm_error err; /* why there is no disassembler */
    int have_tool;
    char arch[16];
    const char *raw_path;
    const disasm_spec *sp;
    size_t *speculated, *decoded;
    gm_kernel_code *code; /* code[i]: the reading made at launch i, the first of its kernel */
    size_t *found;        /* found[i]: the cubins that had it */
    char *read;           /* read[i]: a reading was made at launch i */
} code_reader;

static int reader_open(code_reader *r, const gm_code_pass *pass, const gm_counters_set *set,
                       const char *cubin_dir, const char *raw_path, const disasm_spec *sp,
                       size_t *speculated, size_t *decoded)
{
    memset(r, 0, sizeof *r);
    r->pass = pass;
    r->set = set;
    r->n_cubins = prof_list_cubins(cubin_dir, &r->cubins);
    r->have_tool = host_find_disassembler(r->tool, sizeof r->tool, &r->err) == GM_OK;
    snprintf(r->arch, sizeof r->arch, "SM%d%d", set->meta.cc_major, set->meta.cc_minor);
    r->raw_path = raw_path;
    r->sp = sp;
    r->speculated = speculated;
    r->decoded = decoded;
    r->code = calloc(set->count + 1, sizeof *r->code);
    r->found = calloc(set->count + 1, sizeof *r->found);
    r->read = calloc(set->count + 1, 1);
    return r->code && r->found && r->read;
}

static void reader_close(code_reader *r)
{
    free(r->code);
    free(r->found);
    free(r->read);
    prof_free_list(r->cubins, r->n_cubins);
    unlink(r->raw_path);
}

/* The code of launch i's kernel: the reading of the first launch of its name
 * read before, or one made now; *found the cubins that had it. */
static const gm_kernel_code *reading_of(code_reader *r, size_t i, size_t *found)
{
    const char *kernel = kernel_of(&r->set->launches[i]);
    size_t first = i;
    for (size_t j = 0; j < i && first == i; j++)
        if (r->read[j] && strcmp(kernel_of(&r->set->launches[j]), kernel) == 0)
            first = j;
    if (first == i) {
        r->found[i] = kernel_code(r->pass, kernel, r->cubins, r->n_cubins,
                                  r->have_tool ? r->tool : NULL, r->arch, r->raw_path, r->sp,
                                  &r->code[i], r->speculated, r->decoded);
        r->read[i] = 1;
    }
    *found = r->found[first];
    return &r->code[first];
}

int prof_code_from_code(const gm_code_pass *pass, gm_counters_set *set, const char *cubin_dir,
                        const char *raw_path, const disasm_spec *sp, int every,
                        size_t *speculated, size_t *decoded, char *why, size_t why_len)
{
    code_reader r;
    int ready = reader_open(&r, pass, set, cubin_dir, raw_path, sp, speculated, decoded);
    /* the results: stored once every launch has one, or (every) each one */
    gm_pass_result *results = calloc(set->count + 1, sizeof *results);
    char *settled = calloc(set->count + 1, 1);
    ready = ready && results && settled; /* memory for the loop */
    int all = ready;
    snprintf(why, why_len, "out of memory");
    char name[128];
    for (size_t i = 0; ready && i < set->count && (all || every); i++) {
        const gm_launch_counters *k = &set->launches[i];
        const gm_kernel_code *ops = NULL;
        if (!pass->applies(k))
            continue; /* nothing to settle */
        /* the first launch it does not settle says why, reason first:
         * kernel names run to kilobytes */
        gm_kernel_base_name(k->kernel ? k->kernel : kernel_of(k), name, sizeof name);
        if (pass->needs_code(k)) {
            size_t found = 0;
            ops = reading_of(&r, i, &found);
            if (found == 0) {
                if (all)
                    snprintf(why, why_len, "in no cubin the program loaded: %s", name);
                all = 0;
                continue;
            }
            if (ops->instructions == 0 && !r.have_tool) {
                if (all)
                    snprintf(why, why_len, "%s", r.err.msg);
                all = 0;
                continue;
            }
        }
        const char *reason = NULL;
        if (pass->from_code(k, ops, &results[i], &reason))
            settled[i] = 1;
        else {
            if (all)
                snprintf(why, why_len, "%s: %s", reason, name);
            all = 0;
        }
    }
    for (size_t i = 0; ready && (all || every) && i < set->count; i++)
        if (settled[i])
            set->launches[i].pass = results[i];
    free(results);
    free(settled);
    reader_close(&r);
    return all;
}

size_t prof_code_fill_missing(const gm_code_pass *pass, gm_counters_set *set,
                              const char *cubin_dir, const char *raw_path, const disasm_spec *sp)
{
    size_t filled = 0, spec = 0, dec = 0;
    code_reader r;
    int ready = reader_open(&r, pass, set, cubin_dir, raw_path, sp, &spec, &dec);
    for (size_t i = 0; ready && i < set->count; i++) {
        gm_launch_counters *k = &set->launches[i];
        if (k->pass.valid)
            continue;
        const gm_kernel_code *use = NULL;
        if (pass->needs_code(k)) {
            size_t found = 0;
            use = reading_of(&r, i, &found);
            if (found == 0)
                continue;
        }
        const char *reason = NULL;
        gm_pass_result result;
        if (pass->from_code(k, use, &result, &reason)) {
            k->pass = result;
            filled++;
        }
    }
    reader_close(&r);
    return filled;
}

/* Rewrites the counters file with the results (temporary file + rename). */
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
