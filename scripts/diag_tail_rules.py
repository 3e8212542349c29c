#!/usr/bin/env python3
"""Tail rules for GPUDIAG's end-to-end check (docs/diag.md, "Where the block
scheduler departs from Eq. 3.2"): from recorded sched files only, r and
median |error| of Eq. 3.2 and of the busiest-SM ("refill") model under the
mixing rules tried, with the mixing taken from the per-block logs of one
file (--rules-from), and the upper bound of the busiest-SM family (the best
tail count for every partial-wave point).  The refill rule gpuq ships
(mixing linear in log2 b) is `interp`; `gpuq diag --tails` gives the same
numbers.  Plain Python 3, no GPU:

  scripts/diag_tail_rules.py --rules-from docs/diag-data/h100-full-run3.csv \\
      docs/diag-data/h100-full-run3.csv docs/diag-data/h100-full-run2.csv \\
      docs/diag-data/h100-full-run1.csv docs/diag-data/h100-quick-run2.csv

Uses the file's N_slot column (the occupancy API; Eq. 3.3's hopper form
equals it at every point) and n_mp = 132 (--nmp)."""
import argparse
import csv
import math
import statistics

OPS = ["lds", "ffma", "mufu_ex2", "ldg"]


def num(s):
    try:
        return float(s)
    except ValueError:
        return float("nan")


def load(path):
    rows = list(csv.reader(l for l in open(path) if not l.startswith("#")))[1:]
    fu, tgb, tail = {}, {}, {}
    for r in rows:
        k, n = r[0], r[1]
        if k == "fu":
            fu.setdefault(n, {})[int(num(r[2]))] = num(r[5])
        elif k == "tgb":
            tgb.setdefault(n, []).append((int(num(r[2])), int(num(r[3])), int(num(r[4])), num(r[5])))
        elif k == "tail":
            tail.setdefault((n, int(num(r[3])), int(num(r[4]))), []).append(int(num(r[5])))
    curves = {}
    for n, d in fu.items():  # as waves_data.c: gaps filled linearly
        f = [0.0] * max(d)
        for c, v in d.items():
            f[c - 1] = v
        prev = 0
        for i in range(len(f)):
            if not f[i] > 0:
                continue
            if prev and i + 1 - prev > 1:
                for k in range(prev, i):
                    f[k] = f[prev - 1] + (f[i] - f[prev - 1]) * (k + 1 - prev) / (i + 1 - prev)
            prev = i + 1
        curves[n] = f
    return curves, tgb, tail


def fu_at(f, c):  # gm_waves_fu_at
    if c <= 0:
        return 0.0
    if math.ceil(c) <= len(f):
        return f[math.ceil(c) - 1]
    thr = max((i + 1) / v for i, v in enumerate(f) if v > 0)
    return max(c / thr, f[-1])


def eq32(f, g, b, N):
    return (g // N) * fu_at(f, b * N) + fu_at(f, b * (g % N))


def refill_max(M, K, n, nmp):  # gm_waves_refill_max
    F, tot = 0.0, math.comb(M, n)
    for k in range(0, min(K, n) + 1):
        F += math.comb(K, k) * math.comb(M - K, n - k) / tot
        if F ** nmp >= 0.5:
            return k
    return min(K, n)


def split(G, N, nmp):
    W = nmp * N
    full, R = G // W, G % W
    return (full, R, -(-R // nmp)) if full and R else None


def pred(f, G, b, N, nmp, m):
    s = split(G, N, nmp)
    if s is None:
        return eq32(f, -(-G // nmp), b, N)
    full, R, e = s
    h = refill_max(nmp * N, N, R, nmp)
    t = e if h <= e else math.ceil(e + min(m, 1) * (h - e) - 1e-9)
    return full * fu_at(f, b * N) + fu_at(f, b * t)


def mixing(tail, nmp):
    out = {}
    for (op, b, G), v in tail.items():
        N = 32 if b == 1 else 2  # the logged launches (1.5 waves, b = 1 and 32)
        s = split(G, N, nmp)
        if s is None:
            continue
        full, R, e = s
        h = refill_max(nmp * N, N, R, nmp)
        out[(op, b)] = 0.0 if h <= e else max(0.0, min(1.0, (max(v) - e) / (h - e)))
    return out


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


def score(P, M):
    return pearson(P, M), statistics.median([abs(p / q - 1) for p, q in zip(P, M)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules-from", required=True, help="sched file whose per-block logs set the mixing")
    ap.add_argument("--nmp", type=int, default=132)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    mx = mixing(load(a.rules_from)[2], a.nmp)
    print("mixing from %s: %s" % (a.rules_from, ", ".join("%s b=%d %.2f" % (k[0], k[1], v) for k, v in sorted(mx.items()))))
    rules = {
        "eq3.2": lambda op, b: 0.0,
        "interp": lambda op, b: mx[(op, 1)] + (mx[(op, 32)] - mx[(op, 1)]) * math.log2(b) / 5,
        "random": lambda op, b: 1.0,
        "b1": lambda op, b: mx[(op, 1)],
        "max": lambda op, b: max(mx[(op, 1)], mx[(op, 32)]),
        "mean": lambda op, b: (mx[(op, 1)] + mx[(op, 32)]) / 2,
    }
    for path in a.files:
        curves, tgb, _ = load(path)
        for op in OPS:
            f, pts = curves[op], tgb[op]
            scale = [t for G, b, N, t in pts if G == 1 and b == 1][0]
            pts = [p for p in pts if not (p[0] == 1 and p[1] == 1)]
            M = [t for G, b, N, t in pts]
            cells = []
            for name, rule in rules.items():
                P = [pred(f, G, b, N, a.nmp, rule(op, b)) * scale for G, b, N, t in pts]
                cells.append("%s r=%.4f med=%.4f" % ((name,) + score(P, M)))
            P = []  # upper bound: the best tail count at every partial-wave point
            for G, b, N, t in pts:
                s = split(G, N, a.nmp)
                if s is None:
                    P.append(eq32(f, -(-G // a.nmp), b, N) * scale)
                    continue
                full, R, e = s
                c = [(full * fu_at(f, b * N) + fu_at(f, b * k)) * scale for k in range(e, min(N, R) + 1)]
                P.append(min(c, key=lambda x: abs(x - t)))
            cells.append("bound r=%.4f med=%.4f" % score(P, M))
            print("%s %s (%d points): %s" % (path, op, len(M), "; ".join(cells)))


if __name__ == "__main__":
    main()
