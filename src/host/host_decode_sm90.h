/* A table-driven reader of compute capability 9.0 (Hopper) SASS: the
 * mnemonic of each instruction of a kernel's code, which a code pass marks
 * (gpuq/code_pass.h) as it marks a disassembler's opcodes.  It replaces a
 * disassembler process (about 0.3 s of start-up per call, docs/profile.md)
 * when every instruction of the code is one it knows; otherwise the caller
 * falls back to nvdisasm.
 *
 * What it knows was read off nvdisasm/cuobjdump output on compiled code
 * (tests/profile/data/gh100_sass_corpus.tsv): the 9-bit opcode field (bits
 * 0-8) names the instruction, which gives its mnemonic without modifiers.
 * ATOMS, whose modifiers a pass tells apart (the shared-atomic opcode
 * split), also reads its form (bits 9-11), operation (bits 87-90) and
 * operand type (bits 73-75) into the mnemonic nvdisasm prints
 * ("ATOMS.POPC.INC.32").  An opcode or an ATOMS combination outside those
 * tables makes the whole function unknown, never guessed. */
#ifndef GPUQ_HOST_DECODE_SM90_H
#define GPUQ_HOST_DECODE_SM90_H

#include <stddef.h>
#include <stdint.h>

#include "gpuq/code_pass.h"

/* One 128-bit instruction, lo = bits 0-63, hi = bits 64-127 (cuobjdump
 * prints them in that order): its mnemonic, NULL when the tables do not
 * know it. */
const char *host_sm90_mnemonic(uint64_t lo, uint64_t hi);

/* Reads a function's code (a multiple of 16 bytes, little-endian) into
 * code, marking each mnemonic with mark.  Returns 1 when every instruction
 * is known, 0 otherwise (code cleared). */
int host_sm90_read(const uint8_t *code, size_t length, unsigned (*mark)(const char *opcode),
                   gm_kernel_code *out);

#endif
