/* The opcode split of shared-memory atomics (ADD / CAS / POPC.INC / other),
 * from the collector's second pass.
 *
 * Hopper has hardware counters for all ATOMS and for ATOMS.CAS, but none
 * that tells ATOMS.ADD from ATOMS.POPC.INC, whose service times differ
 * (docs/profile.md).  The second pass (GPUQ_PASS=sass) records, per profiled
 * launch, how often each instruction of the kernel executed (CUPTI SASS
 * metric smsp__sass_inst_executed, keyed by cubin CRC, function and PC
 * offset) and saves every cubin the program loads.  Afterwards gpuq
 * disassembles the cubins (nvdisasm or cuobjdump -sass), looks up the opcode
 * at each PC offset and sums the ATOMS.* executions by class.
 *
 * The default SASS metric, smsp__sass_inst_executed_op_shared_atom, patches
 * only the shared-memory atomics (a third of the cost of counting every
 * instruction with smsp__sass_inst_executed on atomics_app, docs/profile.md).
 *
 * The sass pass file (text, one record per line, written by the collector):
 *   # gpuq sass pass v1
 *   metric,<SASS metric the counts are of>
 *   cubin,<crc64 hex>,<path of the saved cubin>
 *   launch,<launch_id>,<device>,<mangled kernel name>
 *   inst,<launch_id>,<crc32 hex>,<pc offset>,<executions>,<function>
 *   end,<launch_id>,<inst records written>
 * A launch without its end line (the program died while writing it) is not
 * used.  Pure C, no CUDA or CUPTI: unit-tested with recorded text.
 */
#ifndef GPUQ_GI_SASS_H
#define GPUQ_GI_SASS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuq/counters.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GI_SASS_FILE_MAGIC "# gpuq sass pass v1"
#define GI_SASS_DEFAULT_METRIC "smsp__sass_inst_executed_op_shared_atom"
/* Counts every instruction (files without a metric line are of this one). */
#define GI_SASS_ALL_METRIC "smsp__sass_inst_executed"

/* Class of one instruction for the split. */
typedef enum gi_op_class {
    GI_OP_NOT_ATOMS = 0, /* not a shared-memory atomic */
    GI_OP_ADD,           /* ATOMS.ADD (32-bit integer; the paper's FAO with the result used) */
    GI_OP_CAS,           /* ATOMS.CAS, ATOMS.CAST, any width */
    GI_OP_POPC_INC,      /* ATOMS.POPC.INC: atomicAdd(p, 1) with the result unused */
    GI_OP_OTHER          /* every other ATOMS.* (EXCH, MIN, MAX, AND, OR, XOR, ADD.64, ...) */
} gi_op_class;

/* Classifies an opcode with its modifiers ("ATOMS.POPC.INC.32"). */
gi_op_class gi_classify_opcode(const char *opcode);

/* Parses one disassembly line.  An instruction line is the byte offset in a
 * C comment, an optional predicate, the opcode and the operands:
 *   [slash-star]00c0[star-slash]   @!P0 ATOMS.POPC.INC.32 RZ, [R3+URZ] ;
 * (nvdisasm, and cuobjdump -sass, which appends the encoding).  Returns 1 and
 * fills offset and opcode (the mnemonic with modifiers, no predicate) for an
 * instruction line, 0 for any other line. */
int gi_sass_parse_instruction(const char *line, uint32_t *offset, char *opcode, size_t opcode_len);

/* Parses one line that names the function the following instructions belong
 * to: "Function : NAME" (cuobjdump), ".text.NAME:" or ".section .text.NAME,..."
 * (nvdisasm).  Returns 1 and copies NAME, else 0. */
int gi_sass_parse_function(const char *line, char *name, size_t name_len);

typedef struct gi_sass_inst {
    size_t function;  /* index into gi_disasm.functions */
    uint32_t offset;  /* byte offset from the function start */
    char opcode[48];
} gi_sass_inst;

/* The instructions of one cubin. */
typedef struct gi_disasm {
    size_t n_functions;
    char **functions;
    size_t count, capacity;
    gi_sass_inst *inst;   /* sorted by (function, offset) after parsing */
} gi_disasm;

gm_status gi_disasm_parse(const char *text, gi_disasm *out, gm_error *err);
void gi_disasm_free(gi_disasm *d);
/* The opcode at (function, offset), or NULL. */
const char *gi_disasm_lookup(const gi_disasm *d, const char *function, uint32_t offset);

typedef struct gi_sass_cubin {
    uint64_t crc;     /* cuptiGetCubinCrc */
    char *path;
} gi_sass_cubin;

typedef struct gi_sass_record {
    uint32_t crc;     /* as CUPTI's SASS records carry it */
    uint32_t pc_offset;
    uint64_t executions;
    char *function;   /* mangled */
} gi_sass_record;

typedef struct gi_sass_launch {
    uint64_t launch_id;
    int device;
    char *mangled;
    int complete;        /* its end line was read */
    size_t first, n;     /* records[first .. first + n) */
} gi_sass_launch;

typedef struct gi_sass_run {
    char metric[128];     /* the SASS metric of the counts */
    int shared_atom_only; /* the metric counts shared-memory atomics only */
    size_t n_cubins, n_launches, n_records;
    gi_sass_cubin *cubins;
    gi_sass_launch *launches;
    gi_sass_record *records;
} gi_sass_run;

gm_status gi_sass_run_load(const char *path, gi_sass_run *out, gm_error *err);
gm_status gi_sass_run_parse(const char *text, const char *name_for_errors, gi_sass_run *out,
                            gm_error *err);
void gi_sass_run_free(gi_sass_run *run);

/* Sums one launch's executed shared atomics by class.  disasm[i] belongs to
 * run->cubins[i] (an entry with no instructions means the cubin could not be
 * disassembled).  A record is looked up in the cubin whose CRC matches, else
 * in any cubin that has the function.  *unresolved counts executed records
 * whose opcode could not be found: then the split is not valid.  When the
 * metric counts shared atomics only, an executed instruction that is not an
 * ATOMS (a generic ATOM that reached shared memory) counts as "other". */
void gi_sass_launch_split(const gi_sass_run *run, const gi_disasm *disasm, size_t launch_index,
                          gm_opcode_split *split, double *n_atoms, size_t *unresolved);

typedef struct gi_merge_stats {
    size_t joined;        /* counters launches that got a valid split */
    size_t unresolved;    /* joined by name and ordinal, but some opcode was unknown */
    size_t missing;       /* counters launches with no sass launch of the same name and ordinal */
    size_t extra;         /* sass launches with no counters launch (the runs differed) */
    char first_unresolved[256]; /* "function+0xpc (cubin crc)" of the first unknown instruction */
} gi_merge_stats;

/* Joins the sass run to the counters of the first run: the k-th complete
 * launch of a mangled name in the sass run (by launch_id) belongs to the
 * k-th launch of that name in set (by launch_id).  Sets split (valid=1 where
 * every executed instruction was classified) and the metric
 * smsp__sass_inst_executed_op_shared_atom.sum. */
gm_status gi_sass_merge(gm_counters_set *set, const gi_sass_run *run, const gi_disasm *disasm,
                        gi_merge_stats *stats, gm_error *err);

/* Locates a disassembler: $GPUQ_NVDISASM, then nvdisasm and cuobjdump in
 * $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin and $PATH. */
gm_status gi_find_disassembler(char *path, size_t path_len, gm_error *err);

/* Runs the disassembler on a cubin (nvdisasm -c FILE, or cuobjdump -sass FILE
 * when the tool's name says cuobjdump) and returns its output (malloc'ed).
 * functions, when not NULL, is a comma-separated list of mangled names that
 * the output is restricted to (cuobjdump -sass -fun, with the cuobjdump next
 * to nvdisasm; without one, the whole cubin): a 1 MB cubin (CUB) takes
 * 0.6 s to disassemble whole. */
gm_status gi_disassemble(const char *tool, const char *cubin, const char *functions, char **text,
                         gm_error *err);

/* ---- the split from the disassembly alone ------------------------------
 *
 * The hardware counts the CAS (N_c, dot_cas) and the rest (N_f, dot_alu) of
 * a launch's shared atomics.  When the kernel's code holds non-CAS ATOMS of
 * a single class only (ATOMS.ADD, or POPC.INC, or "other"), every one of
 * the N_f is of that class: the split follows without the second,
 * instrumented run.  It does not when the code has several classes, calls
 * (a callee's atomics are not in the function's code) or generic ATOM/RED
 * (they may reach shared memory and would count as "other"). */

/* What one function's code holds, from its disassembly. */
typedef struct gi_function_ops {
    unsigned classes;       /* bit (1u << gi_op_class) for each ATOMS class present */
    int calls;              /* CALL instructions */
    int generic_atomics;    /* ATOM/RED (or another ATOM.../RED... that is not ATOMS/ATOMG/REDG) */
    size_t instructions;    /* instruction lines read */
} gi_function_ops;

/* Reads a disassembly (nvdisasm or cuobjdump text, raw or per function)
 * into ops; every instruction line counts, whatever function it is in. */
void gi_function_ops_scan(const char *disassembly, gi_function_ops *ops);
/* Merges what another copy of the function holds (the same kernel in
 * several cubins). */
void gi_function_ops_merge(gi_function_ops *into, const gi_function_ops *other);

/* The split of launch k from its hardware counters and its function's
 * code.  Returns 1 and fills split (valid) when the code settles it, else 0
 * and why (a short phrase, for GPUQ_DEBUG and the notes). */
int gi_static_split(const gm_launch_counters *k, const gi_function_ops *ops, gm_opcode_split *split,
                    const char **why);

/* Finds the code of a kernel in a cubin (an ELF64 image): the section
 * ".text.<mangled>".  Returns 1 with its offset and size, 0 when the cubin
 * has no such section, -1 when the data is not a well-formed ELF64. */
int gi_cubin_function(const uint8_t *elf, size_t size, const char *mangled, size_t *offset,
                      size_t *length);

/* Calls fn for each kernel's code in a cubin (every ".text.NAME" section:
 * NAME, offset, size).  Returns the number of calls, -1 when the data is
 * not a well-formed ELF64. */
int gi_cubin_each_function(const uint8_t *elf, size_t size,
                           void (*fn)(void *ctx, const char *name, size_t offset, size_t length),
                           void *ctx);

/* Disassembles raw instruction bytes (the code of one function, as
 * gi_cubin_function finds it) with `nvdisasm -b ARCH FILE`; arch is
 * nvdisasm's name of the architecture ("SM90").  Fails (GM_ERR_UNSUPPORTED)
 * when tool is not nvdisasm. */
gm_status gi_disassemble_raw(const char *tool, const char *raw_file, const char *arch, char **text,
                             gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
