/* A unit's pass over the program's machine code (gm_unit.code_pass): what a
 * model needs that no hardware counter gives but the kernels' SASS does.
 * The unit declares the pass as one row of callbacks; gpuq profile does the
 * rest, the same for every unit (src/cli/profile_code.c, src/host/):
 *
 *   1. from_counters: the counters alone may settle every launch (then
 *      nothing else runs);
 *   2. the code: the collector saves the cubins the program loads during the
 *      counters run; gpuq reads each kernel's code (the Hopper reader, or
 *      nvdisasm) into a gm_kernel_code, the OR of mark() over its opcodes,
 *      and from_code settles a launch from its counters and that code;
 *   3. when the code does not settle every launch: a second run in which the
 *      collector counts how often each instruction executed (the CUPTI SASS
 *      metric sass_metric); gpuq looks every executed instruction up in the
 *      disassembly, joins the launches to the first run's by (kernel name,
 *      ordinal) and hands each its executed opcodes (from_counts).
 *
 * A pass's result lives in the launch's counters (gm_launch_counters.pass,
 * a few named values: the pass writes them there, the counters file keeps
 * them as columns "<result_key>_valid", "<result_key>_<value>", and the CSV
 * and JSON reports carry them).  Pure data and C callbacks: no CUDA, no
 * CUPTI, no disassembler; testable with recorded text.
 *
 * One code pass per run: the first unit gathered that declares one (the
 * collector counts one SASS metric in the second run).  The counters file
 * has one set of result columns, so every pass declares the same result
 * (test_units checks it). */
#ifndef GPUQ_CODE_PASS_H
#define GPUQ_CODE_PASS_H

#include <stddef.h>
#include "gpuq/counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one kernel's code holds, as the pass marks it. */
typedef struct gm_kernel_code {
    size_t instructions;  /* instructions read; 0: the code is not known */
    unsigned marks;       /* OR of the pass's mark() over every instruction */
} gm_kernel_code;

/* One executed instruction of a launch in the second run. */
typedef struct gm_inst_count {
    const char *opcode;   /* with its modifiers, as the disassembler prints it */
    double executions;    /* warp-level executions */
} gm_inst_count;

typedef struct gm_code_pass {
    /* Words of gpuq profile's lines and help ("opcode split", "ATOMS opcode
     * split"), so that the generic code names no model. */
    const char *name;      /* "warning: no <name> (...)" */
    const char *title;     /* "running the program again for the <title>" */
    const char *help;      /* paragraph of gpuq profile --help, lines ending in \n */
    const char *no_pass;   /* --no-code-pass's help: what the report uses instead,
                              two lines, the second indented as the help's columns */
    const char *fallback;  /* "the report falls back to <fallback>" */
    /* The pass's own name for --no-code-pass ("no-opcode-split", without
     * the dashes), which gpuq profile accepts too and names in its lines;
     * NULL: none. */
    const char *option;
    const char *by_counters; /* the line when the counters settle every launch */
    const char *by_code;     /* the line when the counters and the code do */

    /* The result's names: the key of its columns and JSON object ("split")
     * and its values, NULL-terminated, at most GM_PASS_VALUES_MAX, in the
     * order of gm_pass_result.value ("add", "cas", ...); lower case, digits
     * and '_'. */
    const char *result_key;
    const char *const *result_values;

    /* The pass runs when the counters hold this metric (the unit's: it was
     * gathered), or when they do not list their metrics. */
    const char *when;
    /* The CUPTI SASS metric the second run counts per instruction
     * (GPUQ_SASS_METRIC, which a user may set instead). */
    const char *sass_metric;

    /* What one opcode ("ATOMS.POPC.INC.32", "CALL.REL.NOINC") means to the
     * pass: bits of its own, ORed into gm_kernel_code.marks. */
    unsigned (*mark)(const char *opcode);
    /* 0 for a launch the pass has nothing to do with (a row listed without
     * counters): left as it is, not missing from the second run. */
    int (*applies)(const gm_launch_counters *k);
    /* 1 when every launch it applies to is settled by its counters alone: results stored
     * in them.  0: set unchanged. */
    int (*from_counters)(gm_counters_set *set);
    /* 1 when launch k needs its kernel's code to be settled. */
    int (*needs_code)(const gm_launch_counters *k);
    /* Settles k from its counters and its kernel's code (NULL when
     * needs_code said no): 1 and *result filled (valid), or 0 and *why (a
     * short phrase).  k is not changed: gpuq stores the results in k->pass
     * once every launch has one, or in the launches it fills in. */
    int (*from_code)(const gm_launch_counters *k, const gm_kernel_code *code,
                     gm_pass_result *result, const char **why);
    /* The second run's executed instructions of k's launch (every one found
     * in the disassembly unless unresolved > 0), counted with sass_metric
     * (the run's, which a user may have set): stores k's result; 1 when it
     * is valid. */
    int (*from_counts)(gm_launch_counters *k, const gm_inst_count *counts, size_t n,
                       size_t unresolved, const char *sass_metric);
} gm_code_pass;

/* The result columns of a pass in the counters file and the CSV report:
 * 1 + its values ("<key>_valid", then "<key>_<value>"); 0 for NULL. */
size_t gm_code_pass_columns(const gm_code_pass *pass);
/* Column i of those into buf ("split_valid", "split_add"...); "" past the end. */
void gm_code_pass_column(const gm_code_pass *pass, size_t i, char *buf, size_t len);
/* The pass's values (its result_values counted). */
size_t gm_code_pass_values(const gm_code_pass *pass);

#ifdef __cplusplus
}
#endif
#endif
