#!/usr/bin/env python3
"""The width of the global loads and stores in the LSU kernels of the suites
units and throughput, read from their sm_90 code on a machine without
cuobjdump (test units_load_width; bench_suite_sass checks the SASS by name on
GPU machines, where the throughput suite's rows ask only for LDG).

   usage: cubin_load_width.py NVCC SOURCE_DIR

Why: ptxas narrows a vector load to the words the code reads after it,
whatever the PTX says: tu_lsu_ld's ld.global.cg.v4 with only .x and .w read
became two 4-byte LDGs each, and the suite measured those (the H200's SASS
check, 2026-12-02); tp_global_ld<int4> and <int2>, their first word alone
read, were single 4-byte LDGs.  The PTX of those kernels still said v4 (and
ld.global.cg.v4 from __ldcg), so only the code ptxas wrote can show it.

How: nvcc -cubin for sm_90 of the suites' kernel files and of reference
kernels whose loads and stores are 4, 8 and 16 bytes wide with every word
used.  Each kernel's .text is read as 128-bit instruction words.  The
opcode field (bits 0-11) and the width field (bits 73-75) are as public
Volta-to-Hopper encoding notes have them, and the references check that on
this nvcc: each must hold one load (store) of that opcode whose width field
differs by width.  Where they do not, the encoding is not the one assumed
and the test skips (exit 77) rather than guess.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
from collections import Counter

LDG, STG = 0x981, 0x986  # opcode fields, checked against the references below

REFERENCE = r"""
__global__ void w4_ld(const int *p, int *o)
{
    int x;
    asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(x) : "l"(p + threadIdx.x));
    o[threadIdx.x] = x;
}
__global__ void w8_ld(const int2 *p, int *o)
{
    int x, y;
    asm volatile("ld.global.cg.v2.s32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(p + threadIdx.x));
    o[threadIdx.x] = x ^ y;
}
__global__ void w16_ld(const int4 *p, int *o)
{
    int x, y, z, w;
    asm volatile("ld.global.cg.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(p + threadIdx.x));
    o[threadIdx.x] = x ^ y ^ z ^ w;
}
__global__ void w4_st(int *p, int a)
{
    asm volatile("st.global.cg.s32 [%0], %1;" ::"l"(p + threadIdx.x), "r"(a) : "memory");
}
__global__ void w8_st(int2 *p, int a)
{
    asm volatile("st.global.cg.v2.s32 [%0], {%1, %1};" ::"l"(p + threadIdx.x), "r"(a) : "memory");
}
__global__ void w16_st(int4 *p, int a)
{
    asm volatile("st.global.cg.v4.s32 [%0], {%1, %1, %1, %1};" ::"l"(p + threadIdx.x), "r"(a)
                 : "memory");
}
"""


def skip(why):
    print("skipped: " + why)
    sys.exit(77)


def kernels(path):
    """{function name: Counter of (opcode, width field)} of a cubin."""
    d = open(path, "rb").read()
    if d[:4] != b"\x7fELF" or d[4] != 2:
        skip("%s is no 64-bit ELF" % path)
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    out = {}
    for name_off, _, _, _, off, size in secs:
        name = d[names + name_off:d.index(b"\0", names + name_off)].decode()
        if not name.startswith(".text."):
            continue
        ops = Counter()
        for i in range(off, off + size - 15, 16):
            lo, hi = struct.unpack_from("<QQ", d, i)
            ops[(lo & 0xFFF, (hi >> 9) & 7)] += 1
        out[name[6:]] = ops
    return out


def widths(ops, opcode):
    return Counter({w: n for (op, w), n in ops.items() if op == opcode})


def compile_cubin(nvcc, src, out, includes):
    cmd = [nvcc, "-arch=sm_90", "-cubin", "-o", out, src] + ["-I" + i for i in includes]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: %s\n%s" % (" ".join(cmd), r.stderr[-2000:]))
        sys.exit(1)


# The kernels checked: (source in src/papers/bottleneck, name part, ld or st,
# the width their accesses must have and how many at least, from the
# mangled name: tu_lsu_*<U> 16 bytes, U of them or a multiple (the loop
# unrolled); tp_global_*<T> sizeof(T)).
TP_WIDTH = {"I4int4E": 16, "I4int2E": 8, "IiE": 4}


def tu_lsu(name):
    u = int(re.search(r"ILi(\d+)E", name).group(1))
    return 16, u


def tp_global(name):
    return next(w for t, w in TP_WIDTH.items() if t in name), 1


KERNELS = (
    ("bottleneck_units_kernels.cu", "tu_lsu_ld", "ld", tu_lsu),
    ("bottleneck_units_kernels.cu", "tu_lsu_st", "st", tu_lsu),
    ("bottleneck_kernels.cu", "tp_global_ld", "ld", tp_global),
    ("bottleneck_kernels.cu", "tp_global_st", "st", tp_global),
)
EXPECTED = 4 + 4 + 3 + 3  # kernels: U = 1, 2, 4, 8 and T = int, int2, int4


def main():
    if len(sys.argv) != 3:
        print("usage: cubin_load_width.py NVCC SOURCE_DIR")
        return 2
    nvcc, src = sys.argv[1], sys.argv[2]
    bn = os.path.join(src, "src", "papers", "bottleneck")
    code = {}
    with tempfile.TemporaryDirectory() as tmp:
        ref_cu = os.path.join(tmp, "ref.cu")
        with open(ref_cu, "w") as f:
            f.write(REFERENCE)
        compile_cubin(nvcc, ref_cu, os.path.join(tmp, "ref.cubin"), [])
        ref = kernels(os.path.join(tmp, "ref.cubin"))
        for source in sorted({k[0] for k in KERNELS}):
            out = os.path.join(tmp, source + ".cubin")
            compile_cubin(nvcc, os.path.join(bn, source), out,
                          [os.path.join(src, "src"), bn, os.path.join(src, "include")])
            code[source] = kernels(out)
    # the references: one access each, a width field per width
    field = {}
    for kind, opcode in (("ld", LDG), ("st", STG)):
        seen = {}
        for width in (4, 8, 16):
            f = [ops for name, ops in ref.items() if "w%d_%s" % (width, kind) in name]
            w = widths(f[0], opcode) if len(f) == 1 else Counter()
            if sum(w.values()) != 1:
                skip("this nvcc's encoding is not the one assumed (reference w%d_%s: %s)"
                     % (width, kind, dict(w)))
            seen[next(iter(w))] = width
        if len(seen) != 3:
            skip("the width field does not tell the references' %s apart" % kind)
        field[kind] = seen
    print("ok: reference loads' width fields %s, stores' %s" % (field["ld"], field["st"]))
    # each kernel: at least `least` accesses of its width (a multiple of it);
    # a loads kernel holds no other global load, a stores kernel no store of
    # a width the references do not know (tu_clock_note's and the sinks' are
    # 4 or 8 bytes)
    status, found = 0, 0
    for source, part, kind, expect in KERNELS:
        opcode = LDG if kind == "ld" else STG
        for name, ops in sorted(code[source].items()):
            if part not in name:
                continue
            found += 1
            width, least = expect(name)
            got = Counter()
            for w, n in widths(ops, opcode).items():
                got[field[kind].get(w, "?")] += n
            right = got.pop(width, 0)
            wrong = sum(got.values()) if kind == "ld" else got.get("?", 0)
            what = "%s: %s holds %d %d-byte %s" % (source, name, right, width, kind)
            if right < least or right % least or wrong:
                print("FAIL: %s (want >= %d, a multiple of it), others %s" % (what, least, dict(got)))
                status = 1
            else:
                print("ok: %s%s" % (what, ", others %s" % dict(got) if got else ""))
    if found != EXPECTED:
        print("FAIL: %d kernels found, want %d" % (found, EXPECTED))
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
