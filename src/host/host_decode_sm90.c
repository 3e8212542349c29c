/* Hopper SASS reader; see host_decode_sm90.h. */
#include "host_decode_sm90.h"

#include <string.h>

/* Every 9-bit opcode seen in the corpus, with nvdisasm's mnemonic(s): a
 * value maps to one instruction there (two barrier pairs excepted, both
 * plain).  Kept sorted for bsearch-free binary lookup below. */
typedef struct sm90_opcode {
    uint16_t opcode;
    const char *mnemonic;
} sm90_opcode;

static const sm90_opcode sm90_opcodes[] = {
    {0x002, "MOV"}, {0x003, "P2R"}, {0x004, "R2P"}, {0x005, "CS2R"}, {0x006, "VOTE"},
    {0x007, "SEL"}, {0x008, "FSEL"}, {0x009, "FMNMX"}, {0x00b, "FSETP"}, {0x00c, "ISETP"},
    {0x00f, "VIMNMX3"}, {0x010, "IADD3"}, {0x011, "LEA"}, {0x012, "LOP3"}, {0x013, "IABS"},
    {0x016, "PRMT"}, {0x019, "SHF"}, {0x01a, "SGXT"}, {0x01c, "PLOP3"}, {0x020, "FMUL"},
    {0x021, "FADD"}, {0x023, "FFMA"}, {0x024, "IMAD"}, {0x025, "IMAD"}, {0x027, "IMAD"},
    {0x029, "DADD"}, {0x02f, "ELECT"}, {0x030, "HADD2"}, {0x031, "HFMA2"}, {0x033, "HSET2"},
    {0x035, "HFMA2"}, {0x036, "VIADD"}, {0x03b, "LDSM"}, {0x03c, "HMMA"}, {0x03e, "F2FP"},
    {0x044, "STSM"}, {0x045, "I2FP"}, {0x046, "VIADDMNMX"}, {0x048, "VIMNMX"}, {0x082, "UMOV"},
    {0x086, "VOTEU"}, {0x087, "USEL"}, {0x08c, "UISETP"}, {0x090, "UIADD3"}, {0x091, "ULEA"},
    {0x092, "ULOP3"}, {0x096, "UPRMT"}, {0x099, "USHF"}, {0x09c, "UPLOP3"}, {0x0a4, "UIMAD"},
    {0x0a5, "UIMAD"}, {0x0b9, "ULDC"}, {0x0ca, "R2UR"}, {0x100, "FLO"}, {0x101, "BREV"},
    {0x105, "F2I"}, {0x106, "I2F"}, {0x108, "MUFU"}, {0x109, "POPC"}, {0x111, "F2I"},
    {0x112, "I2F"}, {0x118, "NOP"}, {0x119, "S2R"}, {0x11a, "DEPBAR"}, {0x11b, "ENDCOLLECTIVE"},
    {0x11d, "BAR"}, {0x141, "BSYNC"}, {0x143, "CALL"}, {0x144, "CALL"}, {0x145, "BSSY"},
    {0x146, "YIELD"}, {0x147, "BRA"}, {0x148, "WARPSYNC"}, {0x14d, "EXIT"}, {0x14e, "LEPC"},
    {0x150, "RET"}, {0x15c, "BPT"}, {0x15d, "NANOSLEEP"}, {0x180, "LD"}, {0x181, "LDG"},
    {0x182, "LDC"}, {0x183, "LDL"}, {0x184, "LDS"}, {0x185, "ST"}, {0x186, "STG"}, {0x187, "STL"},
    {0x188, "STS"}, {0x189, "SHFL"}, {0x18a, "ATOM"}, {0x18c, "ATOMS"}, {0x18d, "ATOMS"},
    {0x18e, "REDG"}, {0x18f, "CCTL"}, {0x192, "MEMBAR"}, {0x1a1, "MATCH"}, {0x1a6, "REDG"},
    {0x1a7, "SYNCS"}, {0x1a8, "ATOMG"}, {0x1ab, "CGAERRBAR/ERRBAR"}, {0x1ae, "LDGSTS"},
    {0x1af, "LDGDEPBAR"}, {0x1b2, "SYNCS"}, {0x1b4, "UTMALDG"}, {0x1b5, "UTMASTG"},
    {0x1b7, "UTMACMDFLUSH"}, {0x1b9, "UTMACCTL"}, {0x1c3, "S2UR"}, {0x1c4, "REDUX"},
    {0x1c6, "FENCE"}, {0x1c7, "UCGABAR_ARV/UCGABAR_WAIT"},
};

#define SM90_OP_ATOMS 0x18c     /* ATOMS other than CAS */
#define SM90_OP_ATOMS_CAS 0x18d /* ATOMS.CAS, ATOMS.CAST */

/* The ATOMS encodings seen: opcode, form (bits 9-11: which operands are
 * registers, uniform registers or absent), operation (bits 87-90) and
 * type (bits 73-75: 0 = .U32, 1 = .S32, 2 = .64), with what nvdisasm
 * printed for them. */
typedef struct sm90_atoms {
    uint16_t opcode;
    uint8_t form, operation, type;
    const char *mnemonic;
} sm90_atoms;

static const sm90_atoms sm90_atoms_table[] = {
    {SM90_OP_ATOMS, 1, 0x0, 0, "ATOMS.ADD"},
    {SM90_OP_ATOMS, 4, 0x0, 0, "ATOMS.ADD"},
    {SM90_OP_ATOMS, 4, 0x1, 0, "ATOMS.MIN"},
    {SM90_OP_ATOMS, 4, 0x1, 1, "ATOMS.MIN.S32"},
    {SM90_OP_ATOMS, 4, 0x2, 0, "ATOMS.MAX"},
    {SM90_OP_ATOMS, 4, 0x2, 1, "ATOMS.MAX.S32"},
    {SM90_OP_ATOMS, 4, 0x3, 0, "ATOMS.INC"},
    {SM90_OP_ATOMS, 4, 0x4, 0, "ATOMS.DEC"},
    {SM90_OP_ATOMS, 4, 0x5, 0, "ATOMS.AND"},
    {SM90_OP_ATOMS, 4, 0x6, 0, "ATOMS.OR"},
    {SM90_OP_ATOMS, 4, 0x7, 0, "ATOMS.XOR"},
    {SM90_OP_ATOMS, 4, 0x8, 0, "ATOMS.EXCH"},
    {SM90_OP_ATOMS, 4, 0x8, 2, "ATOMS.EXCH.64"},
    {SM90_OP_ATOMS, 7, 0xb, 0, "ATOMS.POPC.INC.32"},
    {SM90_OP_ATOMS_CAS, 1, 0x0, 0, "ATOMS.CAS"},
    {SM90_OP_ATOMS_CAS, 1, 0x0, 2, "ATOMS.CAS.64"},
    {SM90_OP_ATOMS_CAS, 1, 0x3, 0, "ATOMS.CAST.SPIN"},
    {SM90_OP_ATOMS_CAS, 1, 0x3, 2, "ATOMS.CAST.SPIN.64"},
};

static const sm90_opcode *find_opcode(unsigned opcode)
{
    size_t lo = 0, hi = sizeof sm90_opcodes / sizeof sm90_opcodes[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sm90_opcodes[mid].opcode == opcode)
            return &sm90_opcodes[mid];
        if (sm90_opcodes[mid].opcode < opcode)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *host_sm90_mnemonic(uint64_t lo, uint64_t hi)
{
    unsigned opcode = (unsigned)(lo & 0x1ff);
    const sm90_opcode *known = find_opcode(opcode);
    if (!known)
        return NULL;
    if (opcode == SM90_OP_ATOMS || opcode == SM90_OP_ATOMS_CAS) {
        unsigned form = (unsigned)(lo >> 9) & 7;
        unsigned operation = (unsigned)(hi >> 23) & 0xf; /* bits 87-90 */
        unsigned type = (unsigned)(hi >> 9) & 7;         /* bits 73-75 */
        for (size_t i = 0; i < sizeof sm90_atoms_table / sizeof sm90_atoms_table[0]; i++) {
            const sm90_atoms *a = &sm90_atoms_table[i];
            if (a->opcode == opcode && a->form == form && a->operation == operation &&
                a->type == type)
                return a->mnemonic;
        }
        return NULL;
    }
    return known->mnemonic;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int host_sm90_read(const uint8_t *code, size_t length, unsigned (*mark)(const char *opcode),
                   gm_kernel_code *out)
{
    memset(out, 0, sizeof *out);
    if (!code || length == 0 || length % 16 != 0)
        return 0;
    gm_kernel_code read;
    memset(&read, 0, sizeof read);
    for (size_t at = 0; at < length; at += 16) {
        const char *mnemonic = host_sm90_mnemonic(le64(code + at), le64(code + at + 8));
        if (!mnemonic)
            return 0;
        if (mark)
            read.marks |= mark(mnemonic);
        read.instructions++;
    }
    *out = read;
    return 1;
}
