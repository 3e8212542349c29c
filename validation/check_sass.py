#!/usr/bin/env python3
"""Checks the shared-atomic opcodes of validate_app's kernels in its SASS.

usage: cuobjdump -sass validate_app | python3 validation/check_sass.py [--arch sm_90]

Every validation kernel must issue exactly the opcode its case claims
(hopper-probe.md: atomicAdd with the result unused becomes ATOMS.POPC.INC,
used becomes ATOMS.ADD, atomicCAS ATOMS.CAS), with a per-lane address
register (no warp aggregation through a uniform register), and the
atomic-free kernels no ATOMS at all.  Prints one line per kernel and exits 1
on any mismatch.  Standard library only.
"""
import re
import sys
from collections import Counter, OrderedDict

# Template arguments of vk_loop<OP, CHAIN, WORK, K>, vk_hist<REORDER, USE_RESULT, REPLAY> and vk_hash<MODE>
# (enums in validation/vk.h).
LOOP_OPS = {0: set(), 1: {"ATOMS.ADD"}, 2: {"ATOMS.POPC.INC"}, 3: {"ATOMS.CAS"},
            4: {"ATOMS.ADD", "ATOMS.CAS"}, 5: {"ATOMS.POPC.INC", "ATOMS.ADD"}}
WORK_FMA, WORK_GLOAD, WORK_LDS, WORK_REDG = 1, 2, 3, 4


def parse_sass(text, arch=None):
    """Returns {function: [instruction text, ...]} for the chosen arch (all if None)."""
    funcs = OrderedDict()
    current = None
    arch_ok = arch is None
    for line in text.splitlines():
        m = re.match(r"\s*arch = (sm_\d+a?)", line)
        if m:
            arch_ok = arch is None or m.group(1) == arch
            current = None
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = m.group(1) if arch_ok else None
            if current is not None:
                funcs.setdefault(current, [])
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m and current is not None:
            funcs[current].append(m.group(1).strip())
    return funcs


def opcode(inst):
    """'@P0 ATOMS.POPC.INC.32 RZ, [R4+URZ]' -> 'ATOMS.POPC.INC'."""
    inst = re.sub(r"^@!?U?P\w+\s+", "", inst)
    op = inst.split()[0] if inst.split() else ""
    op = re.sub(r"\.(32|64|S32|U32|E|STRONG\.\w+|GPU|SYS)$", "", op)
    while True:
        stripped = re.sub(r"\.(32|64|S32|U32|E|STRONG|GPU|SYS|CTA|SM)$", "", op)
        if stripped == op:
            return op
        op = stripped


def template_ints(mangled, name):
    m = re.match(r"_Z\d+" + name + r"I((?:Li-?\d+E)+)E", mangled)
    if not m:
        return None
    return [int(x) for x in re.findall(r"Li(-?\d+)E", m.group(1))]


def check_function(mangled, insts):
    """Returns (kernel label, opcode counts, list of problems) or None if not ours."""
    counts = Counter()
    atoms_addr_uniform = 0
    for inst in insts:
        op = opcode(inst)
        if op.startswith("ATOMS"):
            counts[op] += 1
            m = re.search(r"\[([^\]]*)\]", inst)
            if m and not re.search(r"(^|[^U])R\d+", m.group(1)):
                atoms_addr_uniform += 1
        elif op.startswith(("RED", "ATOMG", "ATOM", "LDG")) or op in ("LDS", "STS", "FFMA"):
            counts[op.split(".")[0] if op.startswith("LDG") else op] += 1
    problems = []
    atoms = {op for op in counts if op.startswith("ATOMS")}
    args = template_ints(mangled, "vk_loop")
    if args is not None:
        op, chain, work, k = args
        label = "vk_loop<op=%d,chain=%d,work=%d,k=%d>" % (op, chain, work, k)
        want = LOOP_OPS.get(op)
        if want is None:
            problems.append("unknown op %d" % op)
        elif atoms != want:
            problems.append("ATOMS opcodes %s, expected %s" % (sorted(atoms), sorted(want)))
        # The work is unrolled: at least K instructions of its kind.
        if work == WORK_FMA and counts["FFMA"] < k:
            problems.append("%d FFMA, fewer than k=%d" % (counts["FFMA"], k))
        if work == WORK_GLOAD and counts["LDG"] < k:
            problems.append("%d LDG, fewer than k=%d" % (counts["LDG"], k))
        if work == WORK_LDS and not (counts["LDS"] and counts["STS"]):
            problems.append("lds_sts work without LDS/STS")
        if work == WORK_REDG and not any(o.startswith("RED") for o in counts):
            problems.append("red_global work without RED")
    elif template_ints(mangled, "vk_hash") is not None:
        (mode,) = template_ints(mangled, "vk_hash")
        label = "vk_hash<mode=%d>" % mode
        want = {"ATOMS.CAS"} if mode == 1 else set()
        if atoms != want:
            problems.append("ATOMS opcodes %s, expected %s" % (sorted(atoms), sorted(want)))
        if mode == 2 and not (counts["LDS"] and counts["STS"]):
            problems.append("plain probing without LDS/STS")
    else:
        args = template_ints(mangled, "vk_hist")
        if args is None:
            if "Histogram" in mangled:
                return ("cub " + mangled[:60], counts, [])
            return None
        reorder, use_result, replay = args
        label = "vk_hist<reorder=%d,use_result=%d,replay=%d>" % (reorder, use_result, replay)
        want = {"ATOMS.ADD"} if use_result else {"ATOMS.POPC.INC"}
        if atoms != want:
            problems.append("ATOMS opcodes %s, expected %s" % (sorted(atoms), sorted(want)))
    if atoms_addr_uniform:
        problems.append("%d ATOMS with a uniform-register address (warp aggregation)" % atoms_addr_uniform)
    return (label, counts, problems)


def main(argv):
    arch = None
    if len(argv) >= 3 and argv[1] == "--arch":
        arch = argv[2]
    text = sys.stdin.read()
    funcs = parse_sass(text, arch)
    bad = 0
    seen = 0
    for mangled, insts in funcs.items():
        res = check_function(mangled, insts)
        if res is None:
            continue
        seen += 1
        label, counts, problems = res
        summary = " ".join("%s=%d" % (k, v) for k, v in sorted(counts.items()))
        print("%-7s %-45s %s%s" % ("BAD" if problems else "ok", label, summary or "(no atomics)",
                                   ("  <- " + "; ".join(problems)) if problems else ""))
        bad += bool(problems)
    if seen == 0:
        print("check_sass: no validation kernels found in the SASS (wrong input?)", file=sys.stderr)
        return 2
    print("check_sass: %d kernels, %d with problems" % (seen, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
