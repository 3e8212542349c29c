/* The opcode split of shared atomics as the unit's code pass (see
 * atomics_split.h): the classes of ATOMS opcodes, the split from the
 * counters alone, from the counters and the code, and from the second run's
 * instruction counts. */
#include <math.h>
#include <string.h>

#include "atomics_split.h"
#include "gpuq/metrics.h"

/* The shared-atomic counts the split works from (gpuq/metrics.h): N, N_c
 * (CAS) and N_f (the rest), and the SASS total the second run adds. */
#define N_ATOM "smsp__inst_executed_op_shared_atom.sum"
#define N_CAS "smsp__inst_executed_op_shared_atom_dot_cas.sum"
#define N_ALU "smsp__inst_executed_op_shared_atom_dot_alu.sum"
#define N_ATOM_SASS "smsp__sass_inst_executed_op_shared_atom.sum"
/* The SASS metric of the second run: shared-memory atomics only. */
#define SASS_SHARED_ATOM "smsp__sass_inst_executed_op_shared_atom"

/* The pass's result values (gm_code_pass.result_values), in this order. */
enum { SPLIT_ADD, SPLIT_CAS, SPLIT_POPC_INC, SPLIT_OTHER };
static const char *const split_values[] = {"add", "cas", "popc_inc", "other", NULL};

gm_atomics_split gm_atomics_split_of(const gm_launch_counters *k)
{
    const gm_pass_result *r = &k->pass;
    return (gm_atomics_split){r->valid, r->value[SPLIT_ADD], r->value[SPLIT_CAS],
                              r->value[SPLIT_POPC_INC], r->value[SPLIT_OTHER]};
}

void gm_atomics_split_store(gm_pass_result *r, const gm_atomics_split *split)
{
    r->valid = split->valid;
    r->value[SPLIT_ADD] = split->add;
    r->value[SPLIT_CAS] = split->cas;
    r->value[SPLIT_POPC_INC] = split->popc_inc;
    r->value[SPLIT_OTHER] = split->other;
}

gm_atomics_op gm_atomics_classify_opcode(const char *opcode)
{
    static const char prefix[] = "ATOMS";
    size_t plen = sizeof prefix - 1;
    if (!opcode || strncmp(opcode, prefix, plen) != 0)
        return GM_ATOMICS_OP_NOT_ATOMS;
    if (opcode[plen] == '\0')
        return GM_ATOMICS_OP_OTHER;
    if (opcode[plen] != '.')
        return GM_ATOMICS_OP_NOT_ATOMS; /* e.g. "ATOMSX": some other mnemonic */
    const char *mods = opcode + plen + 1;
    if (strncmp(mods, "CAS", 3) == 0 && (mods[3] == '\0' || mods[3] == '.' || mods[3] == 'T'))
        return GM_ATOMICS_OP_CAS;
    if (strncmp(mods, "POPC.INC", 8) == 0 && (mods[8] == '\0' || mods[8] == '.'))
        return GM_ATOMICS_OP_POPC_INC;
    if (strncmp(mods, "ADD", 3) == 0) {
        /* ATOMS.ADD is the 32-bit integer add; a width or type modifier other
         * than 32-bit (ADD.64, ADD.F32...) is another job class. */
        const char *rest = mods + 3;
        if (*rest == '\0' || strcmp(rest, ".32") == 0 || strcmp(rest, ".U32") == 0 ||
            strcmp(rest, ".S32") == 0)
            return GM_ATOMICS_OP_ADD;
        return GM_ATOMICS_OP_OTHER;
    }
    return GM_ATOMICS_OP_OTHER;
}

unsigned gm_atomics_mark_opcode(const char *opcode)
{
    gm_atomics_op c = gm_atomics_classify_opcode(opcode);
    if (c != GM_ATOMICS_OP_NOT_ATOMS)
        return GM_ATOMICS_MARK(c);
    /* the mnemonic without modifiers ("ATOM" of "ATOM.E.ADD.STRONG.GPU") */
    size_t n = opcode ? strcspn(opcode, ".") : 0;
    if (n >= 4 && strncmp(opcode, "CALL", 4) == 0)
        return GM_ATOMICS_MARK_CALL;
    if ((n == 4 && strncmp(opcode, "ATOM", 4) == 0) || (n == 3 && strncmp(opcode, "RED", 3) == 0))
        return GM_ATOMICS_MARK_GENERIC_ATOMIC; /* not ATOMG/REDG (global), REDUX (a warp reduction) */
    return 0;
}

int gm_atomics_split_from_code(const gm_launch_counters *k, const gm_kernel_code *code,
                               gm_atomics_split *split, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    double n_cas = gm_launch_metric(k, N_CAS);
    double n_alu = gm_launch_metric(k, N_ALU);
    double n_atom = gm_launch_metric(k, N_ATOM);
    if (!(n_cas >= 0) || !(n_alu >= 0)) {
        *why = "no hardware CAS/non-CAS counts";
        return 0;
    }
    if (isfinite(n_atom) && n_atom != n_cas + n_alu) {
        *why = "the hardware counts do not add up (N != N_c + N_f)";
        return 0;
    }
    /* Without non-CAS atomics the code does not matter. */
    gm_atomics_op only = GM_ATOMICS_OP_NOT_ATOMS;
    if (n_alu > 0) {
        if (!code || code->instructions == 0) {
            *why = "no disassembly of the kernel";
            return 0;
        }
        if (code->marks & GM_ATOMICS_MARK_CALL) {
            *why = "the kernel makes calls";
            return 0;
        }
        if (code->marks & GM_ATOMICS_MARK_GENERIC_ATOMIC) {
            *why = "the kernel has generic ATOM/RED instructions";
            return 0;
        }
        unsigned classes = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS) |
                           GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC) |
                           GM_ATOMICS_MARK(GM_ATOMICS_OP_OTHER);
        unsigned non_cas = code->marks & classes & ~GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS);
        if (non_cas == 0) {
            *why = "N_f > 0 but the kernel has no non-CAS ATOMS";
            return 0;
        }
        if (non_cas & (non_cas - 1)) {
            *why = "the kernel has several non-CAS ATOMS opcodes";
            return 0;
        }
        only = non_cas == GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD)        ? GM_ATOMICS_OP_ADD
               : non_cas == GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC) ? GM_ATOMICS_OP_POPC_INC
                                                                    : GM_ATOMICS_OP_OTHER;
    }
    split->valid = 1;
    split->cas = n_cas;
    split->add = only == GM_ATOMICS_OP_ADD ? n_alu : 0;
    split->popc_inc = only == GM_ATOMICS_OP_POPC_INC ? n_alu : 0;
    split->other = only == GM_ATOMICS_OP_OTHER ? n_alu : 0;
    *why = n_alu > 0 ? "one non-CAS ATOMS opcode in the kernel" : "no non-CAS shared atomics";
    return 1;
}

/* ---- the pass's rows ----------------------------------------------------- */

/* A launch without any shared-atomic count (N, N_c, N_f all NaN) is a row
 * listed without counters (an NCCL kernel the collector could not measure,
 * a window whose ranges were lost): nothing to split there. */
static int applies(const gm_launch_counters *k)
{
    static const char *const counts[] = {N_ATOM, N_CAS, N_ALU};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (!isnan(gm_launch_metric(k, counts[i])))
            return 1;
    return 0;
}

/* Without non-CAS shared atomics (N_f = 0 everywhere) there is nothing
 * for the second run to tell apart: every ATOMS is a CAS (N_c of them) or
 * there are none. */
static int from_counters(gm_counters_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        double alu = gm_launch_metric(&set->launches[i], N_ALU);
        double cas = gm_launch_metric(&set->launches[i], N_CAS);
        if (!applies(&set->launches[i]))
            continue;
        if (!(alu == 0) || !(cas >= 0))
            return 0;
    }
    for (size_t i = 0; i < set->count; i++) {
        gm_launch_counters *k = &set->launches[i];
        if (!applies(k))
            continue;
        gm_atomics_split only_cas = {1, 0, gm_launch_metric(k, N_CAS), 0, 0};
        gm_atomics_split_store(&k->pass, &only_cas);
    }
    return 1;
}

static int needs_code(const gm_launch_counters *k)
{
    return gm_launch_metric(k, N_ALU) > 0;
}

static int from_code(const gm_launch_counters *k, const gm_kernel_code *code,
                     gm_pass_result *result, const char **why)
{
    gm_atomics_split split;
    if (!gm_atomics_split_from_code(k, code, &split, why))
        return 0;
    gm_atomics_split_store(result, &split);
    return 1;
}

/* Sums one launch's executed shared atomics by class.  When the metric
 * counts shared atomics only, an executed instruction that is not an ATOMS
 * (a generic ATOM that reached shared memory) counts as "other"; an
 * instruction not found in the disassembly leaves the split invalid. */
static int from_counts(gm_launch_counters *k, const gm_inst_count *counts, size_t n,
                       size_t unresolved, const char *sass_metric)
{
    if (unresolved > 0) {
        gm_atomics_split_store(&k->pass, &(gm_atomics_split){0, NAN, NAN, NAN, NAN});
        return 0;
    }
    int shared_atom_only = sass_metric && strcmp(sass_metric, SASS_SHARED_ATOM) == 0;
    double add = 0, cas = 0, popc = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        double x = counts[i].executions;
        switch (gm_atomics_classify_opcode(counts[i].opcode)) {
        case GM_ATOMICS_OP_ADD:
            add += x;
            break;
        case GM_ATOMICS_OP_CAS:
            cas += x;
            break;
        case GM_ATOMICS_OP_POPC_INC:
            popc += x;
            break;
        case GM_ATOMICS_OP_OTHER:
            other += x;
            break;
        case GM_ATOMICS_OP_NOT_ATOMS:
            if (shared_atom_only)
                other += x;
            break;
        }
    }
    gm_atomics_split_store(&k->pass, &(gm_atomics_split){1, add, cas, popc, other});
    int row = gm_metric_find(N_ATOM_SASS);
    if (row >= 0)
        k->metric[row] = add + cas + popc + other;
    return 1;
}

const gm_code_pass gm_atomics_code_pass = {
    .name = "opcode split",
    .title = "ATOMS opcode split",
    .help = "A section that needs the opcode split (shared atomics: ATOMS.ADD / CAS /\n"
            "POPC.INC) takes it from the hardware counters and the kernels' code where\n"
            "they settle it (no non-CAS shared atomics, or one non-CAS ATOMS opcode in a\n"
            "kernel's code); --second-run runs the program again, for instruction counts,\n"
            "where they do not; --no-opcode-split reads no code.\n",
    .no_pass = "the model then uses the\n"
               "                           hardware FAO/CAS split and says so\n",
    .fallback = "the hardware FAO/CAS split",
    .option = "no-opcode-split",
    .result_key = "split",
    .result_values = split_values,
    .by_counters = "no launch has non-CAS shared atomics: the opcode split follows from the "
                   "hardware counters, no second run",
    .by_code = "each kernel with non-CAS shared atomics has one non-CAS ATOMS opcode: the "
               "opcode split follows from the hardware counters and the disassembly, no "
               "second run",
    .when = N_ALU,
    .sass_metric = SASS_SHARED_ATOM,
    .mark = gm_atomics_mark_opcode,
    .applies = applies,
    .from_counters = from_counters,
    .needs_code = needs_code,
    .from_code = from_code,
    .from_counts = from_counts,
};
