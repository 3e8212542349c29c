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
 * A pass's result lives in the launch's counters (the pass writes it there,
 * and the counters file keeps it).  Pure data and C callbacks: no CUDA, no
 * CUPTI, no disassembler; testable with recorded text.
 *
 * One code pass per run: the first unit gathered that declares one (the
 * collector counts one SASS metric in the second run). */
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
    const char *no_pass;   /* --no-opcode-split's help: what the report uses instead,
                              two lines, the second indented as the help's columns */
    const char *fallback;  /* "the report falls back to <fallback>" */
    const char *by_counters; /* the line when the counters settle every launch */
    const char *by_code;     /* the line when the counters and the code do */

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
    /* 1 when launch k has a result already. */
    int (*has_result)(const gm_launch_counters *k);
    /* 1 when launch k needs its kernel's code to be settled. */
    int (*needs_code)(const gm_launch_counters *k);
    /* Settles k from its counters and its kernel's code (NULL when
     * needs_code said no): 1 and *result (result_size bytes) filled, or 0
     * and *why (a short phrase).  k is not changed: gpuq stores the results
     * (keep) once every launch has one, or the launches it fills in. */
    size_t result_size;
    int (*from_code)(const gm_launch_counters *k, const gm_kernel_code *code, void *result,
                     const char **why);
    void (*keep)(gm_launch_counters *k, const void *result);
    /* The second run's executed instructions of k's launch (every one found
     * in the disassembly unless unresolved > 0), counted with sass_metric
     * (the run's, which a user may have set): stores k's result; 1 when it
     * is valid. */
    int (*from_counts)(gm_launch_counters *k, const gm_inst_count *counts, size_t n,
                       size_t unresolved, const char *sass_metric);
} gm_code_pass;

#ifdef __cplusplus
}
#endif
#endif
