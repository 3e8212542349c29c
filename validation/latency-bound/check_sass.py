#!/usr/bin/env python3
"""Checks that lb_validate's kernels hold the work their cases claim.

usage: cuobjdump -sass lb_validate | python3 validation/latency-bound/check_sass.py [--arch sm_90]

Every kernel must keep its work and write its result (the compiler removes
work whose result is unused): lb_ffma<K> at least 64 x K FFMA (the unrolled
chains) and a global store; lb_chase an L2 load (LDG ... STRONG.GPU: .cg)
and a store; lb_barrier a BAR.SYNC, an FFMA and a store; lb_store a store;
lb_empty no store.  Prints one line per kernel and exits 1 on a mismatch, 2
when no kernel of lb_validate is in the input.  Standard library only.
"""
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from check_sass import parse_sass  # noqa: E402  (validation/check_sass.py)

UNROLL = 64  # lb_validate.cu


def classify(inst):
    """The opcode class a check counts, or None."""
    op = re.sub(r"^@!?U?P\w+\s+", "", inst).split()
    op = op[0] if op else ""
    if op.startswith("FFMA"):
        return "FFMA"
    if op.startswith("STG"):
        return "STG"
    if op.startswith("LDG"):
        return "LDG.cg" if "STRONG.GPU" in op else "LDG"
    if op.startswith("BAR"):
        return "BAR"
    return None


def check_function(mangled, insts):
    """(label, counts, problems) for a kernel of lb_validate, else None."""
    counts = Counter(c for c in (classify(i) for i in insts) if c)
    problems = []
    m = re.match(r"_Z7lb_ffmaILi(\d+)EE", mangled)
    if m:
        k = int(m.group(1))
        label = "lb_ffma<%d>" % k
        if counts["FFMA"] < UNROLL * k:
            problems.append("%d FFMA, fewer than %d (unrolled chains)" % (counts["FFMA"], UNROLL * k))
        if not counts["STG"]:
            problems.append("no global store: the result is not written")
    elif "lb_chase" in mangled:
        label = "lb_chase"
        if not counts["LDG.cg"]:
            problems.append("no LDG.STRONG.GPU (ld.global.cg) load")
        if not counts["STG"]:
            problems.append("no global store")
    elif "lb_barrier" in mangled:
        label = "lb_barrier"
        if not counts["BAR"]:
            problems.append("no BAR")
        if not counts["FFMA"]:
            problems.append("no FFMA")
        if not counts["STG"]:
            problems.append("no global store")
    elif "lb_store" in mangled:
        label = "lb_store"
        if not counts["STG"]:
            problems.append("no global store")
    elif "lb_empty" in mangled:
        label = "lb_empty"
        if counts["STG"] or counts["FFMA"]:
            problems.append("an empty kernel with work in it")
    else:
        return None
    return label, counts, problems


def main(argv):
    arch = argv[argv.index("--arch") + 1] if "--arch" in argv else None
    funcs = parse_sass(sys.stdin.read(), arch)
    seen = bad = 0
    for mangled, insts in funcs.items():
        res = check_function(mangled, insts)
        if res is None:
            continue
        seen += 1
        label, counts, problems = res
        summary = " ".join("%s=%d" % kv for kv in sorted(counts.items())) or "(nothing counted)"
        print("%-4s %-14s %s%s" % ("BAD" if problems else "ok", label, summary,
                                   ("  <- " + "; ".join(problems)) if problems else ""))
        bad += bool(problems)
    if seen == 0:
        print("check_sass: no lb_validate kernels in the SASS (wrong input?)", file=sys.stderr)
        return 2
    print("check_sass: %d kernels, %d with problems" % (seen, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
