#!/usr/bin/env python3
"""Counts the bottleneck section's verdicts in a `gpuq model -f csv` report
(docs/bottleneck.md, "Verdicts on the real-kernel corpus"): launches and GPU
time per verdict, per named component, and how many rows a component longer
than the kernel held up before the physical check (the largest component was
named whatever its time) and after it (the report names none).

    gpuq model -f csv COUNTERS.csv > report.csv
    validation/realkernels/verdicts.py report.csv
"""
import csv
import math
import sys
from collections import defaultdict


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x


def main(path):
    # the report opens with '#' lines (the ranked kernels) before its header
    rows = list(csv.DictReader(l for l in open(path, newline="") if not l.startswith("#")))
    if not rows or "bottleneck.verdict" not in rows[0]:
        sys.exit("verdicts.py: %s has no bottleneck.verdict column" % path)
    total_n = len(rows)
    total_t = sum(num(r["bottleneck.measured_us"]) for r in rows)
    by = defaultdict(lambda: [0, 0.0])
    over_before = [0, 0.0]
    over_after = [0, 0.0]
    for r in rows:
        t = num(r["bottleneck.measured_us"])
        v = r["bottleneck.verdict"]
        key = v if v != "unit" else "unit: " + r["bottleneck.bottleneck"]
        by[key][0] += 1
        by[key][1] += t
        if r["bottleneck.model_error"]:
            over_before[0] += 1
            over_before[1] += t
        # after: a named component whose time is above measured + spread
        named = r["bottleneck.bottleneck"]
        col = {"instruction": "inst_us", "shared": "shared_us", "global": "global_us"}.get(named)
        if col is None and named not in ("-", "latency", "launch", "misfit"):
            col = named + "_us"
        if col:
            c = num(r.get("bottleneck." + col))
            if c > t + num(r["bottleneck.spread_us"]):
                over_after[0] += 1
                over_after[1] += t
    print("launches %d, GPU time %.1f us" % (total_n, total_t))
    for k in sorted(by, key=lambda k: -by[k][1]):
        n, t = by[k]
        print("%-24s %4d launches (%5.1f%%)  %10.1f us (%5.1f%%)" %
              (k, n, 100.0 * n / total_n, t, 100.0 * t / total_t))
    for name, (n, t) in (("component above measured, named before", over_before),
                         ("component above measured, named now", over_after)):
        print("%-40s %4d launches (%5.1f%%)  %10.1f us (%5.1f%%)" %
              (name, n, 100.0 * n / total_n, t, 100.0 * t / total_t))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
