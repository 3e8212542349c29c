#!/usr/bin/env python3
"""Applies the ground-truth rule of truth-rule.md to ncu's counters of the
real-kernel corpus and compares gpuq's bottleneck verdicts with it.

    validation/realkernels/truth.py NCU.csv[.gz] REPORT.csv [--per-launch OUT.csv]

NCU.csv: `truth.sh`'s output (ncu --csv --page raw, every launch of
corpus.py). REPORT.csv: `gpuq model -f csv` of gpuq's counters of the same
program. Rows pair by launch order; a pair whose kernel names differ stops
the comparison (exit 1). Prints the truth's classes, the agreement over
launches and GPU time, and the disagreements by (truth, verdict).
"""
import argparse
import csv
import gzip
import math
import re
import sys
from collections import defaultdict

PCT = ".avg.pct_of_peak_sustained_elapsed"
# truth-rule.md, "What ncu measures": the ten units and their metrics
UNITS = (("tensor", "sm__pipe_tensor_cycles_active"), ("fma", "sm__pipe_fma_cycles_active"),
         ("alu", "sm__pipe_alu_cycles_active"), ("fp64", "sm__pipe_fp64_cycles_active"),
         ("xu", "sm__pipe_xu_cycles_active"), ("issue", "sm__inst_issued"),
         ("l1", "l1tex__throughput"), ("l2", "lts__throughput"), ("dram", "dram__throughput"),
         ("tma", "sm__pipe_tma_cycles_active"))
BUSY = 60.0            # rule 2


def ncu_metrics():
    """ncu's --metrics for the rule: the duration and the ten units' shares
    (truth.sh and truth_constructions.sh collect these)."""
    return ",".join(["gpu__time_duration.sum"] + [m + PCT for _, m in UNITS])
LAUNCH_US = 8.0        # rule 3
# truth-rule.md, "When a gpuq verdict agrees": verdict -> truth classes (gpuq
# names the pipes "fma pipe", "alu pipe" and "issue slots")
AGREES = {
    "tensor": {"tensor"}, "tma": {"tma", "l1"}, "fma pipe": {"fma"}, "alu pipe": {"alu"},
    "issue slots": {"issue"}, "instruction": {"fma", "alu", "fp64", "xu", "issue"},
    "shared": {"l1"}, "global": {"l1", "l2", "dram"}, "l2": {"l2"}, "dram": {"dram"},
    "latency": {"latency", "launch or latency"}, "launch": {"launch or latency"},
}


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except (TypeError, ValueError):
        return math.nan


def read_ncu(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(l for l in f if l.startswith('"')))
    if len(rows) < 2:
        sys.exit("truth.py: %s holds no ncu rows" % path)
    hdr = rows[0]
    return [dict(zip(hdr, r)) for r in rows[2:]]  # rows[1]: the units


def truth_of(r):
    """(class, busiest unit, its %) by truth-rule.md."""
    have = [(num(r.get(m + PCT)), u) for u, m in UNITS if not math.isnan(num(r.get(m + PCT)))]
    if not have:
        return None, None, math.nan
    pct, unit = max(have)
    if pct >= BUSY:
        return unit, unit, pct
    us = num(r.get("gpu__time_duration.sum")) / 1000.0
    return ("launch or latency" if us < LAUNCH_US else "latency"), unit, pct


def base_name(name):
    """The kernel's identifier without namespaces, template or parameters:
    ncu and gpuq demangle the same symbol differently (at:: dropped,
    '(anonymous namespace)' against '<unnamed>')."""
    s = re.sub(r"^void ", "", name.strip())
    s = s.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    s = re.split(r"[<(]", s, 1)[0]
    return s.split("::")[-1]


# gpuq's busy-cycle units against ncu's metric of the same counter; only
# where gpuq's time came from the busy cycles (`<unit>_from` "busy"): a time
# over a measured rate (the issue slots over the throughput suite's issue
# rate, the tensor pipe's FLOPs over the units suite's) is a share of what
# this GPU sustains, not of ncu's peak
USE_PAIRS = (("tensor_use", "sm__pipe_tensor_cycles_active"),
             ("fma_pipe_use", "sm__pipe_fma_cycles_active"),
             ("alu_pipe_use", "sm__pipe_alu_cycles_active"))


def check_use(ncu, gq, tol):
    """The pipes' shares gpuq reports (busy cycles over the SM's count per
    cycle and the clock) against ncu's pct_of_peak_sustained_elapsed."""
    ok = True
    for field, metric in USE_PAIRS:
        ratios = []
        for n, g in zip(ncu, gq):
            want, got = num(n.get(metric + PCT)), num(g.get("bottleneck." + field))
            src = g.get("bottleneck." + field[:-len("use")] + "from", "busy")
            if want >= 5.0 and not math.isnan(got) and src == "busy":
                ratios.append((100.0 * got / want, g["kernel"][:50]))
        if not ratios:
            print("use check: %s: no launch at 5%% or more" % field)
            continue
        rs = sorted(r for r, _ in ratios)
        dev = sorted(abs(r - 1.0) for r in rs)
        p90 = dev[(9 * len(dev)) // 10 - (1 if len(dev) % 10 == 0 else 0)]
        med = rs[len(rs) // 2]
        print("use check: %-16s %4d launches, gpuq/ncu median %.3f, 90%% within %.1f%%, range %.3f-%.3f"
              % (field, len(rs), med, 100 * p90, rs[0], rs[-1]))
        # two runs of the program (gpuq's and ncu's) on small kernels differ
        # in clock and duration: the median must hold to 5%, 90% of
        # launches to the tolerance
        if abs(med - 1.0) > 0.05 or p90 > tol:
            print("use check: FAIL: %s: median %.3f (5%% allowed), 90%% within %.1f%% (%.0f%% allowed)"
                  % (field, med, 100 * p90, 100 * tol))
            ok = False
    return ok


def verdict_of(r):
    v = r.get("bottleneck.verdict", "")
    if v == "unit":
        return r.get("bottleneck.bottleneck", "")
    return {"misfit": "model does not fit"}.get(v, v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ncu")
    ap.add_argument("report")
    ap.add_argument("--per-launch", help="write launch, kernel, truth, verdict, agree to this CSV")
    ap.add_argument("--check-use", type=float, metavar="TOL",
                    help="fail (exit 1) unless the <unit>_use gpuq reports for each pipe "
                         "matches ncu's share of peak where ncu reads 5%% or more: the median "
                         "ratio within 5%%, 90%% of launches within TOL (relative)")
    a = ap.parse_args()
    ncu = read_ncu(a.ncu)
    with open(a.report, newline="") as f:
        gq = list(csv.DictReader(l for l in f if not l.startswith("#")))
    if not gq or "bottleneck.verdict" not in gq[0]:
        sys.exit("truth.py: %s has no bottleneck.verdict column" % a.report)
    if len(ncu) != len(gq):
        sys.exit("truth.py: %d ncu rows against %d gpuq rows: not the same launches"
                 % (len(ncu), len(gq)))
    pairs = []
    for i, (n, g) in enumerate(zip(ncu, gq)):
        if base_name(n["Kernel Name"]) != base_name(g["kernel"]):
            sys.exit("truth.py: launch %d is %s in ncu's rows and %s in gpuq's"
                     % (i, n["Kernel Name"][:80], g["kernel"][:80]))
        t, unit, pct = truth_of(n)
        v = verdict_of(g)
        us = num(g.get("bottleneck.measured_us"))
        if math.isnan(us):
            us = num(n.get("gpu__time_duration.sum")) / 1000.0
        pairs.append((i, g["kernel"], t, unit, pct, v, t in AGREES.get(v, ()), us))
    if a.check_use is not None and not check_use(ncu, gq, a.check_use):
        return 1
    total_n, total_t = len(pairs), sum(p[7] for p in pairs)
    agree_n = sum(1 for p in pairs if p[6])
    agree_t = sum(p[7] for p in pairs if p[6])
    print("launches %d, GPU time %.1f us (gpuq's measured durations)" % (total_n, total_t))
    by_truth = defaultdict(lambda: [0, 0.0, 0, 0.0])
    for p in pairs:
        b = by_truth[p[2]]
        b[0] += 1
        b[1] += p[7]
        b[2] += p[6]
        b[3] += p[7] if p[6] else 0.0
    print("%-20s %9s %12s   %s" % ("truth", "launches", "GPU time", "gpuq agrees (launches, time)"))
    for k in sorted(by_truth, key=lambda k: -by_truth[k][1]):
        n, t, an, at = by_truth[k]
        print("%-20s %9d %10.1f us   %d (%.0f%%), %.1f us (%.0f%%)"
              % (k, n, t, an, 100.0 * an / n, at, 100.0 * at / t if t else 0.0))
    print("agreement: %d of %d launches (%.1f%%), %.1f of %.1f us of GPU time (%.1f%%)"
          % (agree_n, total_n, 100.0 * agree_n / total_n, agree_t, total_t,
             100.0 * agree_t / total_t))
    miss = defaultdict(lambda: [0, 0.0])
    for p in pairs:
        if not p[6]:
            miss[(p[2], p[5])][0] += 1
            miss[(p[2], p[5])][1] += p[7]
    print("disagreements (truth <- gpuq verdict):")
    for k in sorted(miss, key=lambda k: -miss[k][1]):
        print("  %-20s <- %-22s %4d launches %10.1f us" % (k[0], k[1], miss[k][0], miss[k][1]))
    if a.per_launch:
        with open(a.per_launch + ".tmp", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["launch", "kernel", "truth", "busiest_unit", "busiest_pct", "verdict",
                        "agrees", "measured_us"])
            for p in pairs:
                w.writerow([p[0], p[1], p[2], p[3], "%.2f" % p[4], p[5], int(p[6]),
                            "%.3f" % p[7]])
        import os
        os.replace(a.per_launch + ".tmp", a.per_launch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
