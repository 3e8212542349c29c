/* The opcode split from the disassembly alone (gi_static_split, host_sass.h),
 * and the cubin (ELF) reader that finds a kernel's code in a saved cubin. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_sass.h"

/* The mnemonic without modifiers ("ATOMS" of "ATOMS.POPC.INC.32"). */
static void mnemonic_of(const char *opcode, char *base, size_t len)
{
    size_t n = strcspn(opcode, ".");
    if (n >= len)
        n = len - 1;
    memcpy(base, opcode, n);
    base[n] = '\0';
}

void gi_function_ops_scan(const char *disassembly, gi_function_ops *ops)
{
    memset(ops, 0, sizeof *ops);
    for (const char *line = disassembly; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512], opcode[64], base[64];
        uint32_t offset;
        if (n < sizeof buf) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            if (gi_sass_parse_instruction(buf, &offset, opcode, sizeof opcode)) {
                ops->instructions++;
                mnemonic_of(opcode, base, sizeof base);
                gi_op_class c = gi_classify_opcode(opcode);
                if (c != GI_OP_NOT_ATOMS)
                    ops->classes |= 1u << c;
                else if (strncmp(base, "CALL", 4) == 0)
                    ops->calls++;
                else if (strcmp(base, "ATOM") == 0 || strcmp(base, "RED") == 0)
                    ops->generic_atomics++; /* not ATOMG/REDG (global), REDUX (a warp reduction) */
            }
        }
        line = eol ? eol + 1 : NULL;
    }
}

void gi_function_ops_merge(gi_function_ops *into, const gi_function_ops *other)
{
    into->classes |= other->classes;
    into->calls += other->calls;
    into->generic_atomics += other->generic_atomics;
    into->instructions += other->instructions;
}

int gi_static_split(const gm_launch_counters *k, const gi_function_ops *ops, gm_opcode_split *split,
                    const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    double n_cas = gm_launch_metric(k, "smsp__inst_executed_op_shared_atom_dot_cas.sum");
    double n_alu = gm_launch_metric(k, "smsp__inst_executed_op_shared_atom_dot_alu.sum");
    double n_atom = gm_launch_metric(k, "smsp__inst_executed_op_shared_atom.sum");
    if (!(n_cas >= 0) || !(n_alu >= 0)) {
        *why = "no hardware CAS/non-CAS counts";
        return 0;
    }
    if (isfinite(n_atom) && n_atom != n_cas + n_alu) {
        *why = "the hardware counts do not add up (N != N_c + N_f)";
        return 0;
    }
    /* Without non-CAS atomics the code does not matter. */
    gi_op_class only = GI_OP_NOT_ATOMS;
    if (n_alu > 0) {
        if (!ops || ops->instructions == 0) {
            *why = "no disassembly of the kernel";
            return 0;
        }
        if (ops->calls) {
            *why = "the kernel makes calls";
            return 0;
        }
        if (ops->generic_atomics) {
            *why = "the kernel has generic ATOM/RED instructions";
            return 0;
        }
        unsigned non_cas = ops->classes & ~(1u << GI_OP_CAS);
        if (non_cas == 0) {
            *why = "N_f > 0 but the kernel has no non-CAS ATOMS";
            return 0;
        }
        if (non_cas & (non_cas - 1)) {
            *why = "the kernel has several non-CAS ATOMS opcodes";
            return 0;
        }
        only = non_cas == (1u << GI_OP_ADD)        ? GI_OP_ADD
               : non_cas == (1u << GI_OP_POPC_INC) ? GI_OP_POPC_INC
                                                   : GI_OP_OTHER;
    }
    split->valid = 1;
    split->cas = n_cas;
    split->add = only == GI_OP_ADD ? n_alu : 0;
    split->popc_inc = only == GI_OP_POPC_INC ? n_alu : 0;
    split->other = only == GI_OP_OTHER ? n_alu : 0;
    *why = n_alu > 0 ? "one non-CAS ATOMS opcode in the kernel" : "no non-CAS shared atomics";
    return 1;
}

/* Little-endian reads from an ELF image whose bounds were checked. */
static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The section headers of an ELF64 image, checked: 0, or -1 if malformed. */
typedef struct elf_sections {
    const uint8_t *elf;
    size_t size;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    const char *strtab;
    uint64_t str_size;
} elf_sections;

static int elf_open(const uint8_t *elf, size_t size, elf_sections *e)
{
    /* ELF64 header: class 2 (64-bit), data 1 (little-endian); section
     * headers at e_shoff (0x28), e_shentsize (0x3a), e_shnum (0x3c),
     * e_shstrndx (0x3e).  Section header: sh_name (0), sh_offset (0x18),
     * sh_size (0x20). */
    if (!elf || size < 0x40 || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2 || elf[5] != 1)
        return -1;
    e->elf = elf;
    e->size = size;
    e->shoff = le64(elf + 0x28);
    e->shentsize = le16(elf + 0x3a);
    e->shnum = le16(elf + 0x3c);
    uint16_t shstrndx = le16(elf + 0x3e);
    if (e->shentsize < 0x40 || e->shnum == 0 || shstrndx >= e->shnum || e->shoff > size ||
        (uint64_t)e->shnum * e->shentsize > size - e->shoff)
        return -1;
    const uint8_t *strtab_hdr = elf + e->shoff + (uint64_t)shstrndx * e->shentsize;
    uint64_t str_off = le64(strtab_hdr + 0x18);
    e->str_size = le64(strtab_hdr + 0x20);
    if (str_off > size || e->str_size > size - str_off)
        return -1;
    e->strtab = (const char *)elf + str_off;
    return 0;
}

/* Section i's name if it is ".text.NAME" (NAME returned), else NULL;
 * *bad when its bytes lie outside the image. */
static const char *elf_text_section(const elf_sections *e, uint16_t i, size_t *off, size_t *len,
                                    int *bad)
{
    const uint8_t *sh = e->elf + e->shoff + (uint64_t)i * e->shentsize;
    uint32_t name = le32(sh);
    if (name >= e->str_size || e->str_size - name < 7 ||
        !memchr(e->strtab + name, '\0', e->str_size - name))
        return NULL;
    const char *sname = e->strtab + name;
    if (strncmp(sname, ".text.", 6) != 0 || sname[6] == '\0')
        return NULL;
    uint64_t o = le64(sh + 0x18), l = le64(sh + 0x20);
    if (o > e->size || l > e->size - o) {
        *bad = 1;
        return NULL;
    }
    *off = (size_t)o;
    *len = (size_t)l;
    return sname + 6;
}

int gi_cubin_each_function(const uint8_t *elf, size_t size,
                           void (*fn)(void *ctx, const char *name, size_t offset, size_t length),
                           void *ctx)
{
    elf_sections e;
    if (elf_open(elf, size, &e) != 0)
        return -1;
    int calls = 0, bad = 0;
    for (uint16_t i = 0; i < e.shnum; i++) {
        size_t off = 0, len = 0;
        const char *name = elf_text_section(&e, i, &off, &len, &bad);
        if (bad)
            return -1;
        if (name) {
            fn(ctx, name, off, len);
            calls++;
        }
    }
    return calls;
}

int gi_cubin_function(const uint8_t *elf, size_t size, const char *mangled, size_t *offset,
                      size_t *length)
{
    elf_sections e;
    if (elf_open(elf, size, &e) != 0)
        return -1;
    for (uint16_t i = 0; i < e.shnum; i++) {
        size_t off = 0, len = 0;
        int bad = 0;
        const char *name = elf_text_section(&e, i, &off, &len, &bad);
        if (name && strcmp(name, mangled) == 0) {
            *offset = off;
            *length = len;
            return 1;
        }
        if (bad) {
            /* Outside the image: an error if it is the kernel asked for
             * (its name was checked to end inside the string table). */
            const uint8_t *sh = e.elf + e.shoff + (uint64_t)i * e.shentsize;
            if (strcmp(e.strtab + le32(sh) + 6, mangled) == 0)
                return -1;
        }
    }
    return 0;
}
