#!/usr/bin/env python3
"""The global-atomics validation report: the unit's U (every variant) against
the truth built into the cases (validation/gatomics/cases.cu).

  analyze.py DIR [--md REPORT.md] [--csv JOINED.csv] [--svg SCATTER.svg]

DIR is what run.sh wrote: times.csv (timing run), manifest.csv (the cases in
the order ncu saw them), model.csv (gatomics_apply), ncu.csv (raw counters).

Truth: atomic cases U_true = 1 (nothing but atomics: the L2 atomic units
always have work); free cases U_true = 0 exactly; mixed cases U_true =
T(atomics-only twin) / T(mixed), both from the timing run.

Bars (the issue's, as for the shared-atomic model): atomic median |U - 1|
<= 5%, free U = 0 exactly, mixed median |U - U_true| <= 0.05, none above
105%.  Per variant; the default variant ("rate") must meet them.
"""
import argparse
import csv
import math
import os
import statistics
import sys


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def join(d):
    times = {r["case"]: r for r in load(os.path.join(d, "times.csv"))}
    man = load(os.path.join(d, "manifest.csv"))
    model = load(os.path.join(d, "model.csv"))
    by_variant = {}
    for r in model:
        by_variant.setdefault(r["variant"], []).append(r)
    ncu_rows = list(csv.reader(open(os.path.join(d, "ncu.csv"), newline="")))
    head, data = ncu_rows[0], ncu_rows[2:]
    rows = []
    for i, m in enumerate(man):
        c, g = m["case"], m["group"]
        if g == "mixed":
            ut = float(times[m["twin"]]["ms"]) / float(times[c]["ms"])
        elif g == "atomic":
            ut = 1.0
        else:
            ut = 0.0
        n = dict(zip(head, data[i]))
        num = lambda k: float(n.get(k, "nan").replace(",", "") or "nan")
        row = {"case": c, "group": g, "op": m["op"], "pattern": m["pattern"],
               "fma": int(m["fma"]), "ms": float(times[c]["ms"]), "U_true": ut,
               "l2_atom_sectors": num("lts__t_sectors_srcunit_tex_op_atom.sum"),
               "l2_red_sectors": num("lts__t_sectors_srcunit_tex_op_red.sum"),
               "l2_cas_sectors": num("lts__t_sectors_srcunit_tex_op_atom_dot_cas.sum"),
               "l1_requests": num("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum")
               + num("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"),
               "duration_us": num("gpu__time_duration.sum") / 1e3}
        if not m["case"] or not by_variant:
            continue
        for v, rs in by_variant.items():
            mr = rs[i]
            if mr["index"] != str(i):
                sys.exit("analyze: model.csv row %s is not launch %d" % (mr["index"], i))
            row["U_" + v] = float(mr["U"])
            if v == "rate":
                row["k_eff"] = float(mr["k_eff"])
                row["binding"] = mr["binding"]
        rows.append(row)
    return rows, list(by_variant)


def stats(rows, v):
    out = {}
    for g in ("atomic", "free", "mixed"):
        errs = [abs(r["U_" + v] - r["U_true"]) for r in rows if r["group"] == g and not math.isnan(r["U_" + v])]
        us = [r["U_" + v] for r in rows if r["group"] == g]
        out[g] = {"n": len(us), "median": statistics.median(errs) if errs else float("nan"),
                  "worst": max(errs) if errs else float("nan"),
                  "above": sum(1 for u in us if u > 1.05),
                  "exact0": all(u == 0.0 for u in us) if g == "free" else None}
    return out


def bars(s):
    return (s["atomic"]["median"] <= 0.05 and s["free"]["exact0"] and s["mixed"]["median"] <= 0.05
            and all(s[g]["above"] == 0 for g in s))


def markdown(rows, variants):
    L = ["| variant | atomic: median abs(U-1) | worst | free: U = 0 exactly | mixed: median abs(U-U_true) | worst | cases above 105% | bars |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for v in variants:
        s = stats(rows, v)
        L.append("| %s | %.3f (%d cases) | %.3f | %s (%d) | %.3f (%d) | %.3f | %d | %s |" % (
            v, s["atomic"]["median"], s["atomic"]["n"], s["atomic"]["worst"],
            "yes" if s["free"]["exact0"] else "no", s["free"]["n"], s["mixed"]["median"],
            s["mixed"]["n"], s["mixed"]["worst"], sum(s[g]["above"] for g in s),
            "met" if bars(s) else "missed"))
    L += ["", "| case | group | U_true | " + " | ".join("U " + v for v in variants)
          + " | k_eff | binds | sectors per L1 request |",
          "| --- | --- | --- | " + " | ".join("---" for _ in variants) + " | --- | --- | --- |"]
    for r in rows:
        sec = r["l2_atom_sectors"] + r["l2_red_sectors"]
        spr = sec / r["l1_requests"] if r["l1_requests"] > 0 else float("nan")
        L.append("| %s | %s | %.3f | %s | %s | %s | %s |" % (
            r["case"], r["group"], r["U_true"], " | ".join("%.3f" % r["U_" + v] for v in variants),
            "-" if math.isnan(r.get("k_eff", float("nan"))) else "%.1f" % r["k_eff"],
            r.get("binding", "-"), "-" if math.isnan(spr) else "%.1f" % spr))
    return "\n".join(L) + "\n"


def svg_scatter(rows, variants, path):
    W, H, pad = 260, 260, 40
    cols = len(variants)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
           % (cols * (W + pad) + pad, H + 2 * pad), '<rect width="100%" height="100%" fill="white"/>']
    colors = {"atomic": "#1f77b4", "free": "#2ca02c", "mixed": "#d62728"}
    umax = 1.3
    for k, v in enumerate(variants):
        x0, y0 = pad + k * (W + pad), pad
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (x0, y0, W, H))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#bbb" stroke-dasharray="4,3"/>'
                   % (x0, y0 + H, x0 + W / umax, y0 + H - H / umax))
        out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (x0 + W / 2, y0 - 8, v))
        out.append('<text x="%d" y="%d" text-anchor="middle">U_true</text>' % (x0 + W / 2, y0 + H + 28))
        for t in (0, 0.5, 1.0):
            out.append('<text x="%d" y="%d" text-anchor="middle" fill="#555">%.1f</text>' % (x0 + t * W / umax, y0 + H + 14, t))
            out.append('<text x="%d" y="%d" text-anchor="end" fill="#555">%.1f</text>' % (x0 - 4, y0 + H - t * H / umax + 4, t))
        for r in rows:
            u = min(r["U_" + v], umax)
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.7"><title>%s U=%.3f</title></circle>'
                       % (x0 + r["U_true"] * W / umax, y0 + H - u * H / umax, colors[r["group"]], r["case"], r["U_" + v]))
    lx = pad
    for g, c in colors.items():
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>' % (lx, H + 2 * pad - 6, c, lx + 8, H + 2 * pad - 2, g))
        lx += 80
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--md")
    ap.add_argument("--csv")
    ap.add_argument("--svg")
    a = ap.parse_args()
    rows, variants = join(a.dir)
    if not rows:
        sys.exit("analyze: no cases joined")
    md = markdown(rows, variants)
    if a.md:
        open(a.md, "w").write(md)
    else:
        sys.stdout.write(md)
    if a.csv:
        keys = list(rows[0].keys())
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, keys)
            w.writeheader()
            w.writerows(rows)
    if a.svg:
        svg_scatter(rows, variants, a.svg)
    s = stats(rows, "rate")
    print("rate: atomic median %.3f, free exact %s, mixed median %.3f, above 105%%: %d -> %s"
          % (s["atomic"]["median"], s["free"]["exact0"], s["mixed"]["median"],
             sum(s[g]["above"] for g in s), "bars met" if bars(s) else "bars missed"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
