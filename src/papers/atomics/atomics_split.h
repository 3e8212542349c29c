/* The opcode split of shared-memory atomics (ADD / CAS / POPC.INC / other),
 * the unit's code pass (gpuq/code_pass.h).
 *
 * Hopper has hardware counters for all ATOMS (N) and for ATOMS.CAS (N_c),
 * but none that tells ATOMS.ADD from ATOMS.POPC.INC, whose service times
 * differ (paper 000, Table 2; docs/profile.md).  The split of the non-CAS
 * count N_f then comes:
 *   - from the counters alone when N_f = 0 in every launch;
 *   - from the counters and the kernel's code when the code holds non-CAS
 *     ATOMS of a single class (ATOMS.ADD, or POPC.INC, or "other"): all N_f
 *     are of that class.  Not when the code has several classes, calls (a
 *     callee's atomics are not in the function's code) or generic ATOM/RED
 *     (they may reach shared memory and would count as "other");
 *   - else from a second run's per-instruction counts of the SASS metric
 *     smsp__sass_inst_executed_op_shared_atom, which patches the shared-
 *     memory atomics only (a third of the cost of counting every
 *     instruction with smsp__sass_inst_executed on atomics_app,
 *     docs/profile.md).
 * Pure C. */
#ifndef GPUQ_ATOMICS_SPLIT_H
#define GPUQ_ATOMICS_SPLIT_H

#include "gpuq/code_pass.h"
#include "gpuq/counters.h"

/* Executed ATOMS warp-instructions by opcode: the pass's result, stored in
 * the launch's gm_launch_counters.pass as the values "add", "cas",
 * "popc_inc", "other" (columns split_add... of the counters file). */
typedef struct gm_atomics_split {
    int valid;        /* 0: not collected (fields are NaN) */
    double add;       /* ATOMS.ADD */
    double cas;       /* ATOMS.CAS (and CAST) */
    double popc_inc;  /* ATOMS.POPC.INC */
    double other;     /* every other ATOMS.* */
} gm_atomics_split;

/* The split a launch's pass result holds, and a split as a pass result. */
gm_atomics_split gm_atomics_split_of(const gm_launch_counters *k);
void gm_atomics_split_store(gm_pass_result *r, const gm_atomics_split *split);

/* Class of one instruction for the split. */
typedef enum gm_atomics_op {
    GM_ATOMICS_OP_NOT_ATOMS = 0, /* not a shared-memory atomic */
    GM_ATOMICS_OP_ADD,           /* ATOMS.ADD (32-bit integer; the paper's FAO with the result used) */
    GM_ATOMICS_OP_CAS,           /* ATOMS.CAS, ATOMS.CAST, any width */
    GM_ATOMICS_OP_POPC_INC,      /* ATOMS.POPC.INC: atomicAdd(p, 1) with the result unused */
    GM_ATOMICS_OP_OTHER          /* every other ATOMS.* (EXCH, MIN, MAX, AND, OR, XOR, ADD.64, ...) */
} gm_atomics_op;

/* Classifies an opcode with its modifiers ("ATOMS.POPC.INC.32"). */
gm_atomics_op gm_atomics_classify_opcode(const char *opcode);

/* The marks of gm_kernel_code for this pass: one bit per ATOMS class
 * present, and two for what keeps the code from settling the split. */
#define GM_ATOMICS_MARK(op) (1u << (op))
#define GM_ATOMICS_MARK_CALL (1u << 8)           /* CALL */
#define GM_ATOMICS_MARK_GENERIC_ATOMIC (1u << 9) /* ATOM / RED: not ATOMG/REDG (global) */
unsigned gm_atomics_mark_opcode(const char *opcode);

/* The split of launch k from its hardware counters and its kernel's code
 * (NULL where N_f = 0).  Returns 1 and fills split (valid) when the code
 * settles it, else 0 and why (a short phrase, for GPUQ_DEBUG). */
int gm_atomics_split_from_code(const gm_launch_counters *k, const gm_kernel_code *code,
                               gm_atomics_split *split, const char **why);

/* The unit's code pass (gm_unit_atomics.code_pass). */
extern const gm_code_pass gm_atomics_code_pass;

#endif
