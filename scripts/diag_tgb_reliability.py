#!/usr/bin/env python3
"""How well a sched file's T(g,b) measurements reproduce themselves, from
their rounds alone (no GPU): the ceiling launch-to-launch spread puts on
Eq. 3.2's Pearson r (docs/diag.md, "Eq. 3.2 on Hopper: what the rounds
allow").

    scripts/diag_tgb_reliability.py SCHED.csv [--draws N] [--seed S]

The suite times each point (G, b) in rounds (`tgbr` rows: T at 2n and at n
iterations per round); the point is median T(2n) - median T(n) over the
rounds, as `gpuq calibrate` computes it.  For each kernel, over the points
gpuq diag compares (all but G = 1, b = 1, the scale):

  split     r between the points made from the even rounds and from the odd
  halves    median and minimum r between two random halves of the rounds
  re-draw   median r between the points and the same points made again from
            the rounds drawn with replacement (a re-measurement with this
            run's spread)
  ceiling   sqrt(re-draw): the r a model that predicts every point's expected
            time exactly would reach, on average, against these points
"""
import argparse
import importlib.util
import math
import os
import random
import statistics
import sys


def _script(name):
    """A sibling script as a module (diag_tgb_noise.py reads the rounds,
    diag_tail_rules.py has pearson)."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


noise = _script("diag_tgb_noise")
pearson = noise.dtr.pearson


def point(rounds):
    """median T(2n) - median T(n) over (T2n, Tn) pairs"""
    return statistics.median(r[0] for r in rounds) - statistics.median(r[1] for r in rounds)


def read_rounds(path):
    """(kernel, G, b) -> [(T2n, Tn)] in round order, from the tgbr rows"""
    try:
        _, raw = noise.load(path)
    except (OSError, IndexError, ValueError) as e:
        sys.exit("diag_tgb_reliability: %s: not a sched file of gpuq calibrate (%s)" % (path, e))
    if not raw:
        sys.exit("diag_tgb_reliability: %s has no tgbr rows (a sched file of gpuq calibrate)" % path)
    return {p: [(t2n, tn) for _, t2n, tn in sorted(r)] for p, r in raw.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sched")
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rounds = read_rounds(a.sched)
    rng = random.Random(a.seed)
    print("kernel      points rounds  split   halves (median, min)  re-draw  ceiling")
    for kernel in sorted({k for k, _, _ in rounds}):
        pts = sorted(p for p in rounds if p[0] == kernel and (p[1], p[2]) != (1, 1))
        n = min(len(rounds[p]) for p in pts)
        whole = [point(rounds[p]) for p in pts]
        split = pearson([point(rounds[p][0::2]) for p in pts], [point(rounds[p][1::2]) for p in pts])
        halves, redraw = [], []
        for _ in range(a.draws):
            a_pts, b_pts, c_pts = [], [], []
            for p in pts:
                rr = rounds[p][:]
                rng.shuffle(rr)
                a_pts.append(point(rr[: n // 2]))
                b_pts.append(point(rr[n // 2: 2 * (n // 2)]))
                c_pts.append(point([rng.choice(rounds[p]) for _ in rounds[p]]))
            halves.append(pearson(a_pts, b_pts))
            redraw.append(pearson(whole, c_pts))
        r = statistics.median(redraw)
        print("%-10s %7d %6d  %.5f  %.5f %.5f      %.5f  %.5f" % (
            kernel, len(pts), n, split, statistics.median(halves), min(halves), r, math.sqrt(r)))


if __name__ == "__main__":
    main()
