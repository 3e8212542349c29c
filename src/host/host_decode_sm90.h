/* A table-driven reader of compute capability 9.0 (Hopper) SASS that
 * answers only what the opcode split needs: which instructions of a kernel
 * are shared-memory atomics and of which class, and whether it makes calls
 * or generic atomics.  It replaces a disassembler process (about 0.3 s of
 * start-up per call, docs/profile.md) when every instruction of the code is
 * one it knows; otherwise the caller falls back to nvdisasm.
 *
 * What it knows was read off nvdisasm/cuobjdump output on compiled code
 * (tests/profile/data/gh100_sass_corpus.tsv): the 9-bit opcode field (bits
 * 0-8) names the instruction; for ATOMS the form (bits 9-11), the
 * operation (bits 87-90) and the operand type (bits 73-75) name the class.
 * An opcode or an ATOMS combination outside those tables makes the whole
 * function unknown, never guessed. */
#ifndef GPUQ_HOST_DECODE_SM90_H
#define GPUQ_HOST_DECODE_SM90_H

#include <stddef.h>
#include <stdint.h>

#include "host_sass.h"

typedef enum host_sm90_role {
    HOST_SM90_UNKNOWN = 0,   /* not in the tables: the function cannot be read */
    HOST_SM90_PLAIN,         /* a known instruction that is none of the below */
    HOST_SM90_ATOMS,         /* a shared-memory atomic (class in *op) */
    HOST_SM90_CALL,          /* CALL.REL / CALL.ABS */
    HOST_SM90_GENERIC_ATOMIC /* ATOM (generic address): may reach shared memory */
} host_sm90_role;

/* One 128-bit instruction, lo = bits 0-63, hi = bits 64-127 (cuobjdump
 * prints them in that order).  *op is the class for HOST_SM90_ATOMS. */
host_sm90_role host_sm90_decode(uint64_t lo, uint64_t hi, host_op_class *op, const char **mnemonic);

/* Reads a function's code (a multiple of 16 bytes, little-endian) into ops.
 * Returns 1 when every instruction is known, 0 otherwise (ops cleared). */
int host_sm90_function_ops(const uint8_t *code, size_t length, host_function_ops *ops);

#endif
