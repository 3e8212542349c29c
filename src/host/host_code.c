/* What a kernel's code holds for a code pass (host_code_scan: the OR of the
 * pass's marks over a disassembly's opcodes), and the cubin (ELF) reader
 * that finds a kernel's code in a saved cubin (host_sass.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_sass.h"

void host_code_scan(const char *disassembly, unsigned (*mark)(const char *opcode),
                    gm_kernel_code *code)
{
    memset(code, 0, sizeof *code);
    for (const char *line = disassembly; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512], opcode[64];
        uint32_t offset;
        if (n < sizeof buf) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            if (host_sass_parse_instruction(buf, &offset, opcode, sizeof opcode)) {
                code->instructions++;
                if (mark)
                    code->marks |= mark(opcode);
            }
        }
        line = eol ? eol + 1 : NULL;
    }
}

void host_code_merge(gm_kernel_code *into, const gm_kernel_code *other)
{
    into->marks |= other->marks;
    into->instructions += other->instructions;
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

int host_cubin_each_function(const uint8_t *elf, size_t size,
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

int host_cubin_function(const uint8_t *elf, size_t size, const char *mangled, size_t *offset,
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
