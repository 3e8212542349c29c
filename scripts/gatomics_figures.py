#!/usr/bin/env python3
"""Figures of suite gatomics (paper 002, Robertson) from its machine data,
one command, no plotting library (plain SVG):

  scripts/gatomics_figures.py GATOMICS.csv OUT_DIR [TAG]

writes OUT_DIR/gatomics-<fig>-TAG.svg for
  clock     cycles between two clock reads against warps per SM (paper: "What
            does clocks() return?", 28 cycles idle on GT200)
  stall     cycles per operation against warps per SM, one panel per pattern
            (same address / 128-byte stride / coalesced), 0 FMAs
  stall50   the same with 50 dependent FMAs between accesses ("free atomics")
  lock      cycles per atom against the offset (the lock-width sweep)
  sector    throughput against threads per 32-byte sector
  l2rate    throughput of the L2 atomic units per operation and pattern
  hide      cycles per iteration against FMAs, with and without the atomic
TAG defaults to the GPU folder name of the file's gpu_name.
"""
import csv
import math
import os
import sys

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39"]


def read(path):
    meta, lines = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if ":" in line:
                    k, v = line[1:].split(":", 1)
                    meta[k.strip()] = v.strip()
            else:
                lines.append(line)
    rows = list(csv.DictReader(lines))
    for r in rows:
        for k in ("bits", "warps", "param", "median", "lo", "hi", "n"):
            try:
                r[k] = float(r[k])
            except ValueError:
                r[k] = float("nan")
    return meta, rows


def panel(out, x0, y0, w, h, series, title, xlabel, ylabel, logx=False, logy=False, ymin=None):
    """series: [(label, [(x, y, lo, hi)])]"""
    pts = [p for _, s in series for p in s if not math.isnan(p[1])]
    if not pts:
        return
    fx = (lambda v: math.log2(v) if v > 0 else 0) if logx else (lambda v: v)
    fy = (lambda v: math.log10(v)) if logy else (lambda v: v)
    xs = [fx(p[0]) for p in pts]
    ys = [fy(max(p[1], 1e-9)) for p in pts] + [fy(max(p[3], 1e-9)) for p in pts if not math.isnan(p[3])]
    xa, xb = min(xs), max(xs)
    ya = fy(ymin) if ymin is not None else min(ys)
    yb = max(ys)
    if not logy and ymin is None:
        ya = min(0, ya)
    if xb == xa:
        xb = xa + 1
    if yb == ya:
        yb = ya + 1
    yb += (yb - ya) * 0.05
    X = lambda v: x0 + (fx(v) - xa) / (xb - xa) * w
    Y = lambda v: y0 + h - (fy(max(v, 1e-9)) - ya) / (yb - ya) * h
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (x0, y0, w, h))
    out.append('<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>' % (x0 + w / 2, y0 - 8, title))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (x0 + w / 2, y0 + h + 30, xlabel))
    out.append('<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>'
               % (x0 - 42, y0 + h / 2, x0 - 42, y0 + h / 2, ylabel))
    xt = sorted({p[0] for p in pts})
    if len(xt) > 12:
        xt = xt[:: max(1, len(xt) // 8)]
    for v in xt:
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="10">%g</text>' % (X(v), y0 + h + 13, v))
    for k in range(5):
        fv = ya + (yb - ya) * k / 4
        v = 10 ** fv if logy else fv
        out.append('<text x="%d" y="%.1f" text-anchor="end" fill="#555" font-size="10">%.3g</text>' % (x0 - 4, y0 + h - h * k / 4 + 3, v))
    for i, (label, s) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        s = [p for p in sorted(s) if not math.isnan(p[1])]
        if not s:
            continue
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>'
                   % (c, " ".join("%.1f,%.1f" % (X(p[0]), Y(p[1])) for p in s)))
        for p in s:
            if not math.isnan(p[2]) and not math.isnan(p[3]) and p[3] > p[2]:
                out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>'
                           % (X(p[0]), Y(p[2]), X(p[0]), Y(p[3]), c))
            out.append('<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"/>' % (X(p[0]), Y(p[1]), c))
        out.append('<text x="%d" y="%d" fill="%s" font-size="10">%s</text>' % (x0 + w + 6, y0 + 10 + 12 * i, c, label))


def figure(path, panels, title, pw=300, ph=220, legend=110):
    n = len(panels)
    W = n * (pw + 70 + legend) + 20
    H = ph + 110
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="16" font-size="12">%s</text>' % title]
    for i, p in enumerate(panels):
        panel(out, 60 + i * (pw + 70 + legend), 45, pw, ph, **p)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def sel(rows, **kw):
    return [r for r in rows if all(r[k] == v for k, v in kw.items())]


def pts(rows, x="warps"):
    return [(r[x], r["median"], r["lo"], r["hi"]) for r in rows]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    meta, rows = read(sys.argv[1])
    out = sys.argv[2]
    gpu = meta.get("gpu_name", "?")
    tag = sys.argv[3] if len(sys.argv) > 3 else "".join(
        c if c.isalnum() else "-" for c in gpu.lower()).strip("-")
    os.makedirs(out, exist_ok=True)
    src = "%s, %s (gpuq calibrate --suite gatomics)" % (gpu, meta.get("date", "?"))
    f = lambda name: os.path.join(out, "gatomics-%s-%s.svg" % (name, tag))

    clk = [(op, pts(sel(rows, experiment="clock", op=op))) for op in ("clock", "clock64")]
    figure(f("clock"), [dict(series=clk, title="two clock reads back to back", xlabel="warps per SM",
                             ylabel="cycles", logx=True)], "clock cost, " + src)

    ops = []
    for r in rows:
        if r["experiment"] == "stall" and r["op"] not in ops:
            ops.append(r["op"])
    for k, name in ((0, "stall"), (50, "stall50")):
        panels = []
        for pat in ("same", "strided", "coalesced"):
            ser = [(op, pts(sel(rows, experiment="stall", op=op, pattern=pat, param=k))) for op in ops]
            panels.append(dict(series=ser, title=pat, xlabel="warps per SM", ylabel="cycles per operation",
                               logx=True, logy=True))
        figure(f(name), panels, "stall time per operation, %d FMAs between accesses (median, 10-90%% of warps), %s" % (k, src))

    ser = [("%d warps/SM" % w, pts(sel(rows, experiment="lock", warps=w), "param"))
           for w in sorted({r["warps"] for r in rows if r["experiment"] == "lock"})]
    figure(f("lock"), [dict(series=ser, title="lock-width sweep (8 lanes, 4 KB apart)", xlabel="offset (bytes)",
                            ylabel="cycles per atom", logx=True, ymin=0)], "atomic lock width, " + src)

    ser = [(op, pts(sel(rows, experiment="sector", op=op), "param")) for op in ("red.add.u32", "atom.add.u32")]
    figure(f("sector"), [dict(series=ser, title="threads per 32-byte sector", xlabel="threads per sector",
                              ylabel="Gop/s", logx=True, ymin=0)], "L2 atomic throughput vs sector fill, " + src)

    pats = ["one", "one32", "few", "distinct"]
    ser = []
    for op in [o for o in dict.fromkeys(r["op"] for r in rows if r["experiment"] == "l2rate")]:
        s = []
        for i, p in enumerate(pats):
            rr = [r for r in sel(rows, experiment="l2rate", op=op, pattern=p)]
            if rr:
                best = max(rr, key=lambda r: r["warps"])
                s.append((i + 1, best["median"], best["lo"], best["hi"]))
        ser.append((op, s))
    figure(f("l2rate"), [dict(series=ser, title="1 one address (lane 0), 2 one address (all lanes), 3 64 addresses, 4 all distinct",
                              xlabel="pattern", ylabel="G sectors (ops) per second", logy=True)],
           "L2 atomic-unit throughput, 64 warps per SM, " + src, pw=420)

    panels = []
    for w in (1, 8):
        ser = [(op, pts(sel(rows, experiment="hide", op=op, warps=w), "param")) for op in ("atom.add.u32", "fma")]
        panels.append(dict(series=ser, title="%d warp(s) per SM" % w, xlabel="dependent FMAs per iteration",
                           ylabel="cycles per iteration", ymin=0))
    figure(f("hide"), panels, "how many FMAs hide an atomic, " + src)
    print("gatomics figures: %s/gatomics-*-%s.svg" % (out, tag))
    return 0


if __name__ == "__main__":
    sys.exit(main())
