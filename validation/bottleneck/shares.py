#!/usr/bin/env python3
"""The largest component's share of the measured time for every recorded
validation case (the *_model.csv files bn_compare writes), the Hopper form:
what the latency verdict's threshold (GM_BOTTLENECK_VERDICT_BUSY_SHARE,
src/papers/bottleneck/bottleneck_verdict.h) is read from
(docs/bottleneck.md, "Verdicts").

    validation/bottleneck/shares.py validation/bottleneck/results/h100-2026-11-25
"""
import csv
import os
import sys


def main(folder):
    rows = []
    for f in ("bn", "mm", "spmv", "cr"):
        path = os.path.join(folder, f + "_model.csv")
        for r in csv.DictReader(open(path, newline="")):
            if r.get("form") != "hopper":
                continue
            parts = [float(r[k]) for k in ("inst_us", "shared_us", "global_us")
                     if r.get(k) not in (None, "", "nan")]
            share = max(parts) / float(r["measured_us"])
            name = r.get("case") or r.get("variant") or r.get("step") or f
            rows.append((share, name, r.get("expected", "-"), r.get("warps", "")))
    for share, name, expected, warps in sorted(rows):
        print("%.3f  %-20s %-12s %s" % (share, name, expected, warps))
    print("%d cases" % len(rows))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
