#!/usr/bin/env python3
"""A large counters file made from a recorded one, for size and speed
checks of the reports (not a measurement: its header says so).

    scripts/synth_counters.py RECORDED.counters.csv OUT.csv [--launches N] [--names K]

Launch i copies recorded row i mod R (R rows), under the name
"<name>_<j>" with j = (i // R) mod K, so that the file holds K times as
many kernel names as the recording.  Every metric of a launch is scaled by
one factor from 0.9 to 1.1 (a fixed seed), so that ratios the models read
(U, e, waves) stay those of the recording while the launches' numbers all
differ, as they do in a real run: nothing in the reports repeats more than
it would there.  Counts are rounded to whole numbers."""
import argparse
import csv
import io
import random
import sys

# columns before the metrics and after them (docs/counters-format.md)
LEAD = ["launch_id", "kernel", "mangled", "device", "grid_x", "grid_y", "grid_z",
        "block_x", "block_y", "block_z", "regs", "shared_bytes"]
SPLIT = ["split_valid", "split_add", "split_cas", "split_popc_inc", "split_other"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recorded")
    ap.add_argument("out")
    ap.add_argument("--launches", type=int, default=10000)
    ap.add_argument("--names", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with open(a.recorded, newline="") as f:
        lines = f.read().splitlines(True)
    head = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    rows = list(csv.reader(io.StringIO("".join(body))))
    columns, rows = rows[0], [r for r in rows[1:] if r]
    if not rows or columns[:len(LEAD)] != LEAD:
        sys.exit("synth_counters: %s is not a gpuq counters file" % a.recorded)
    # percentages stay as recorded (a scaled one could pass 100)
    scaled = [i for i, c in enumerate(columns)
              if c not in LEAD and c != "split_valid" and not c.endswith("_pct") and "pct_of_peak" not in c]
    whole = {i for i in scaled if all("." not in r[i] and "e" not in r[i].lower() for r in rows)}
    rng = random.Random(a.seed)
    out = io.StringIO()
    for l in head:
        if l.startswith("# source:"):
            l = "# source: synthetic: scripts/synth_counters.py, %d launches from %s\n" % (
                a.launches, a.recorded.rsplit("/", 1)[-1])
        out.write(l)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    for i in range(a.launches):
        r = list(rows[i % len(rows)])
        j = (i // len(rows)) % a.names
        r[0] = str(i)
        r[1] = "%s_%d" % (r[1], j)
        r[2] = "%s_%d" % (r[2], j)
        factor = rng.uniform(0.9, 1.1)
        for c in scaled:
            if r[c] == "":
                continue
            v = float(r[c]) * factor
            r[c] = str(int(round(v))) if c in whole else repr(v)
        w.writerow(r)
    with open(a.out, "w") as f:
        f.write(out.getvalue())


if __name__ == "__main__":
    main()
