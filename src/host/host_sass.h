/* What gpuq reads of the kernels' machine code for a unit's code pass
 * (gpuq/code_pass.h): the disassembly, the sass pass file of the second
 * run, and the join of the two with the counters of the first run.
 *
 * The second run (GPUQ_PASS=sass) records, per profiled launch, how often
 * each instruction of the kernel executed (a CUPTI SASS metric, keyed by
 * cubin CRC, function and PC offset) and saves every cubin the program
 * loads; the file's layout is the protocol's (inject/gi_protocol.h).
 * Afterwards gpuq disassembles the cubins (nvdisasm or cuobjdump -sass),
 * looks up the opcode at each PC offset and hands each launch its executed
 * opcodes; what they mean is the pass's.  Pure C, no CUDA or CUPTI:
 * unit-tested with recorded text.
 */
#ifndef GPUQ_HOST_SASS_H
#define GPUQ_HOST_SASS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuq/code_pass.h"
#include "gpuq/counters.h"
#include "gpuq/status.h"
#include "inject/gi_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses one disassembly line.  An instruction line is the byte offset in a
 * C comment, an optional predicate, the opcode and the operands:
 *   [slash-star]00c0[star-slash]   @!P0 ATOMS.POPC.INC.32 RZ, [R3+URZ] ;
 * (nvdisasm, and cuobjdump -sass, which appends the encoding).  Returns 1 and
 * fills offset and opcode (the mnemonic with modifiers, no predicate) for an
 * instruction line, 0 for any other line. */
int host_sass_parse_instruction(const char *line, uint32_t *offset, char *opcode, size_t opcode_len);

/* Parses one line that names the function the following instructions belong
 * to: "Function : NAME" (cuobjdump), ".text.NAME:" or ".section .text.NAME,..."
 * (nvdisasm).  Returns 1 and copies NAME, else 0. */
int host_sass_parse_function(const char *line, char *name, size_t name_len);

typedef struct host_sass_inst {
    size_t function;  /* index into host_disasm.functions */
    uint32_t offset;  /* byte offset from the function start */
    char opcode[48];
} host_sass_inst;

/* The instructions of one cubin. */
typedef struct host_disasm {
    size_t n_functions;
    char **functions;
    size_t count, capacity;
    host_sass_inst *inst;   /* sorted by (function, offset) after parsing */
} host_disasm;

gm_status host_disasm_parse(const char *text, host_disasm *out, gm_error *err);
void host_disasm_free(host_disasm *d);
/* The opcode at (function, offset), or NULL. */
const char *host_disasm_lookup(const host_disasm *d, const char *function, uint32_t offset);

typedef struct host_sass_cubin {
    uint64_t crc;     /* cuptiGetCubinCrc */
    char *path;
} host_sass_cubin;

typedef struct host_sass_record {
    uint32_t crc;     /* as CUPTI's SASS records carry it */
    uint32_t pc_offset;
    uint64_t executions;
    char *function;   /* mangled */
} host_sass_record;

typedef struct host_sass_launch {
    uint64_t launch_id;
    int device;
    char *mangled;
    int complete;        /* its end line was read */
    size_t first, n;     /* records[first .. first + n) */
} host_sass_launch;

typedef struct host_sass_run {
    char metric[128];     /* the SASS metric of the counts */
    size_t n_cubins, n_launches, n_records;
    host_sass_cubin *cubins;
    host_sass_launch *launches;
    host_sass_record *records;
} host_sass_run;

gm_status host_sass_run_load(const char *path, host_sass_run *out, gm_error *err);
gm_status host_sass_run_parse(const char *text, const char *name_for_errors, host_sass_run *out,
                            gm_error *err);
void host_sass_run_free(host_sass_run *run);

/* One launch's executed instructions (executions > 0, in record order),
 * each looked up in the disassembly of the cubin whose CRC matches, else of
 * any cubin that has the function; disasm[i] belongs to run->cubins[i] (an
 * entry with no instructions: that cubin could not be disassembled).
 * *counts is malloc'ed (opcodes point into disasm); *unresolved counts
 * the executed records whose opcode was not found.  Fails only for memory. */
gm_status host_sass_launch_counts(const host_sass_run *run, const host_disasm *disasm,
                                  size_t launch_index, gm_inst_count **counts, size_t *n,
                                  size_t *unresolved, gm_error *err);

typedef struct host_merge_stats {
    size_t joined;        /* counters launches that got a valid result */
    size_t unresolved;    /* joined by name and ordinal, but some opcode was unknown */
    size_t missing;       /* counters launches with no sass launch of the same name and ordinal */
    size_t extra;         /* sass launches with no counters launch (the runs differed) */
    char first_unresolved[256]; /* "function+0xpc (cubin crc)" of the first unknown instruction */
} host_merge_stats;

/* Joins the sass run to the counters of the first run: the k-th complete
 * launch of a mangled name in the sass run (by launch_id) belongs to the
 * k-th launch of that name in set (by launch_id), among the launches the
 * pass applies to; each joined launch gets its result from the pass's
 * from_counts. */
gm_status host_sass_merge(gm_counters_set *set, const host_sass_run *run, const host_disasm *disasm,
                          const gm_code_pass *pass, host_merge_stats *stats, gm_error *err);

/* Locates a disassembler: $GPUQ_NVDISASM, then nvdisasm and cuobjdump in
 * $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin and $PATH. */
gm_status host_find_disassembler(char *path, size_t path_len, gm_error *err);

/* Runs the disassembler on a cubin (nvdisasm -c FILE, or cuobjdump -sass FILE
 * when the tool's name says cuobjdump) and returns its output (malloc'ed).
 * functions, when not NULL, is a comma-separated list of mangled names that
 * the output is restricted to (cuobjdump -sass -fun, with the cuobjdump next
 * to nvdisasm; without one, the whole cubin): a 1 MB cubin (CUB) takes
 * 0.6 s to disassemble whole. */
gm_status host_disassemble(const char *tool, const char *cubin, const char *functions, char **text,
                         gm_error *err);

/* ---- what a kernel's code holds (host_code.c) ----------------------------- */

/* Reads a disassembly (nvdisasm or cuobjdump text, raw or per function)
 * into code: every instruction line counts, whatever function it is in,
 * and its opcode's mark() is ORed into code->marks. */
void host_code_scan(const char *disassembly, unsigned (*mark)(const char *opcode),
                    gm_kernel_code *code);
/* Merges what another copy of the function holds (the same kernel in
 * several cubins). */
void host_code_merge(gm_kernel_code *into, const gm_kernel_code *other);

/* Finds the code of a kernel in a cubin (an ELF64 image): the section
 * ".text.<mangled>".  Returns 1 with its offset and size, 0 when the cubin
 * has no such section, -1 when the data is not a well-formed ELF64. */
int host_cubin_function(const uint8_t *elf, size_t size, const char *mangled, size_t *offset,
                      size_t *length);

/* Calls fn for each kernel's code in a cubin (every ".text.NAME" section:
 * NAME, offset, size).  Returns the number of calls, -1 when the data is
 * not a well-formed ELF64. */
int host_cubin_each_function(const uint8_t *elf, size_t size,
                           void (*fn)(void *ctx, const char *name, size_t offset, size_t length),
                           void *ctx);

/* Disassembles raw instruction bytes (the code of one function, as
 * host_cubin_function finds it) with `nvdisasm -b ARCH FILE`; arch is
 * nvdisasm's name of the architecture ("SM90").  Fails (GM_ERR_UNSUPPORTED)
 * when tool is not nvdisasm. */
gm_status host_disassemble_raw(const char *tool, const char *raw_file, const char *arch, char **text,
                             gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
