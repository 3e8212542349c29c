#!/usr/bin/env python3
"""Compare two gpuq calibration tables, or summarize one.

  table_compare.py A.csv B.csv   relative difference |T_B - T_A| / T_A of every
                                 cell both tables hold: median, 90th percentile
                                 and max, per series and overall
  table_compare.py --summary A.csv
                                 S = T/n (paper 000, Eq. 3) for n in 1,8,32,64 and
                                 e in 1,16,32: ADD (c=0), CAS (the ADD series at
                                 c=n) and POPC.INC, per method and pattern, as
                                 Markdown tables

Reads the CSV format of docs/table-format.md (also .csv.gz).  Standard
library only.
"""
import gzip
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    meta, cells = {}, {}
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                key, sep, value = line[1:].strip().partition(": ")
                if sep and key != "series":
                    meta[key] = value
                continue
            if line.startswith("class,"):
                continue
            f_ = line.split(",")
            cls, pattern, method = f_[0], f_[1], f_[2]
            n, e, c = int(f_[3]), int(f_[4]), int(f_[5])
            cells[(cls, pattern, method, n, e, c)] = (float(f_[6]), int(f_[11]))
    return meta, cells


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def compare(a_path, b_path):
    _, a = load(a_path)
    _, b = load(b_path)
    common = sorted(set(a) & set(b))
    if not common:
        sys.exit("no cell in common")
    per_series = {}
    for key in common:
        ta, tb = a[key][0], b[key][0]
        rel = abs(tb - ta) / ta if ta > 0 else 0.0
        per_series.setdefault(key[:3], []).append(rel)
    print(f"cells: {len(a)} in A, {len(b)} in B, {len(common)} in both")
    print("| series | cells | median rel. diff | p90 | max |")
    print("| --- | --- | --- | --- | --- |")
    everything = []
    for series, rels in sorted(per_series.items()):
        everything += rels
        print(f"| {','.join(series)} | {len(rels)} | {100 * statistics.median(rels):.2f}% "
              f"| {100 * percentile(rels, 0.9):.2f}% | {100 * max(rels):.1f}% |")
    print(f"| all | {len(everything)} | {100 * statistics.median(everything):.2f}% "
          f"| {100 * percentile(everything, 0.9):.2f}% | {100 * max(everything):.1f}% |")


def summary(path):
    meta, cells = load(path)
    print(f"{meta.get('gpu_name')}, {meta.get('date')}, SM clock {meta.get('sm_clock_mhz')} MHz")
    flags = [v[1] for v in cells.values()]
    print(f"cells: {len(cells)}; flagged high spread: {sum(1 for f in flags if f & 1)}, "
          f"re-measured: {sum(1 for f in flags if f & 2)}, "
          f"samples discarded: {sum(1 for f in flags if f & 4)}, "
          f"arrival skew: {sum(1 for f in flags if f & 8)}")
    ns, es = (1, 8, 32, 64), (1, 16, 32)
    for method in ("single_shot", "steady_state"):
        for pattern in ("same_address", "distinct_bank"):
            print(f"\nS = T/n, cycles per warp-instruction: {method}, {pattern}\n")
            head = " | ".join(f"{name} e={e}" for name in ("ADD", "CAS", "POPC.INC") for e in es)
            print(f"| n | {head} |")
            print("| --- " * (1 + 3 * len(es)) + "|")
            for n in ns:
                row = []
                for name in ("ADD", "CAS", "POPC.INC"):
                    for e in es:
                        if name == "ADD":
                            key = ("add", pattern, method, n, e, 0)
                        elif name == "CAS":
                            key = ("add", pattern, method, n, e, n)
                        else:
                            key = ("popc_inc", pattern, method, n, e, 0)
                        row.append(f"{cells[key][0] / n:.1f}" if key in cells else "-")
                print(f"| {n} | " + " | ".join(row) + " |")


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        summary(argv[2])
    elif len(argv) == 3:
        compare(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
