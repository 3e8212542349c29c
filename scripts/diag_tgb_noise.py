#!/usr/bin/env python3
"""Is the T(g,b) measurement a noise source?  (docs/diag.md, "How T(g,b) is
measured, and what the estimator did to runs 1-3").  From recorded sched
files only, per kernel: r and median |pred/meas - 1| of Eq. 3.2 (Eq. 3.3's
N_slot from the file's N_slot column, n_mp = 132) against

  file     the file's own tgb value (runs 1-3: median over 3 rounds of
           T(2n) - T(n), one launch each; later files: median T(2n) -
           median T(n) over k rounds)
  n-only   the median time at n iterations alone (the tgb row's extra
           column; holds the launch and prologue, a constant per kernel)

and, where the file has every launch (rows tgbr):

  med-diff3  the runs-1-3 estimator recomputed from the first 3 rounds
  med-diff   the median of all k per-round differences
  diff-med   median T(2n) - median T(n) (equals `file`)

Each estimator is scaled by its own G = 1, b = 1 value, as gpuq diag does.
Then the points where `file` and `n-only` disagree by more than --disagree
and more than --abs ms: the two-size difference should equal the n-only
time less the launch and the blocks' prologues (a few microseconds, and
up to ~0.15 ms for the FFMA kernel's thousands of short blocks, hence
--abs); a larger gap is made by the estimator, not by the kernel.
Plain Python 3, no GPU:

  scripts/diag_tgb_noise.py docs/diag-data/h100-full-run3.csv \\
      docs/diag-data/h100-full-run2.csv docs/diag-data/h100-full-run1.csv \\
      tables/nvidia-h100-80gb-hbm3/sched.csv   # run 4c: every launch kept"""
import argparse
import csv
import importlib.util
import math
import os
import statistics

_spec = importlib.util.spec_from_file_location(
    "diag_tail_rules", os.path.join(os.path.dirname(os.path.abspath(__file__)), "diag_tail_rules.py"))
dtr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dtr)

OPS = ["lds", "ffma", "mufu_ex2", "ldg"]


def load(path):
    rows = list(csv.reader(l for l in open(path) if not l.startswith("#")))[1:]
    pts, raw = {}, {}
    for r in rows:
        if r[0] == "tgb":
            pts.setdefault(r[1], []).append((int(dtr.num(r[2])), int(dtr.num(r[3])),
                                             int(dtr.num(r[4])), dtr.num(r[5]), dtr.num(r[7])))
        elif r[0] == "tgbr":  # x = G, y = b, z = round, value = T(2n), extra = T(n)
            raw.setdefault((r[1], int(dtr.num(r[2])), int(dtr.num(r[3]))), []).append(
                (int(dtr.num(r[4])), dtr.num(r[5]), dtr.num(r[7])))
    return pts, raw


def fit(f, pts, meas, nmp):
    """r, median and max |pred/meas - 1| of Eq. 3.2 scaled by meas at (1, 1)."""
    scale = [meas[i] for i, p in enumerate(pts) if p[0] == 1 and p[1] == 1][0]
    P, M = [], []
    for i, (G, b, N, _, _) in enumerate(pts):
        if G == 1 and b == 1:
            continue
        P.append(dtr.eq32(f, -(-G // nmp), b, N) * scale)
        M.append(meas[i])
    e = [abs(p / m - 1) for p, m in zip(P, M)]
    return dtr.pearson(P, M), statistics.median(e), max(e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nmp", type=int, default=132)
    ap.add_argument("--disagree", type=float, default=0.05)
    ap.add_argument("--abs", type=float, default=0.2, help="ms")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for path in a.files:
        curves = dtr.load(path)[0]
        pts, raw = load(path)
        for op in OPS:
            if op not in pts:
                continue
            p = pts[op]
            est = {"file": [q[3] for q in p], "n-only": [q[4] for q in p]}
            if all((op, q[0], q[1]) in raw for q in p):
                rr = [sorted(raw[(op, q[0], q[1])]) for q in p]
                est["med-diff3"] = [statistics.median([t2 - t1 for _, t2, t1 in r[:3]]) for r in rr]
                est["med-diff"] = [statistics.median([t2 - t1 for _, t2, t1 in r]) for r in rr]
                est["diff-med"] = [statistics.median([t2 for _, t2, _ in r]) -
                                   statistics.median([t1 for _, _, t1 in r]) for r in rr]
            cells = ["%s r=%.4f med=%.4f max=%.3f" % ((k,) + fit(curves[op], p, v, a.nmp))
                     for k, v in est.items()]
            print("%s %s (%d points): %s" % (path, op, len(p) - 1, "; ".join(cells)))
            # the file's estimator against the n-only median, less the
            # launch offset (the median of their differences)
            off = statistics.median([q[4] - q[3] for q in p])
            for G, b, N, t, t1 in p:
                d = t / (t1 - off) - 1
                if abs(d) > a.disagree and abs(t - (t1 - off)) > a.abs:
                    print("  G=%d b=%d: file %.4f ms, n-only %.4f ms less %.4f offset: %+.1f%%"
                          % (G, b, t, t1, off, 100 * d))


if __name__ == "__main__":
    main()
