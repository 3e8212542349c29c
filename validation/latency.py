#!/usr/bin/env python3
"""The atomic-latency quantity L against the validation suite's truth.

usage:
  latency.py report JOINED.csv [--doc docs/validation.md] [--md FILE] [--source TEXT]
                    [--readme README.md --where "DEVICE, DATE"]
  latency.py stalls JOINED.csv             (stall reasons of chosen cases)

L (src/papers/atomics/atomics_latency.h, src/papers/atomics/atomics_latency.c; the same
formula here, checked against the same launches in the tests), in its two
forms:

  sb-mio:  L = (W_sb + W_mio) / W_active x N / I_shared
  issue:   L = sb-mio + (W_wait + W_sel) / W_active x N / W_sel  (shipped)
  W_active = occupancy / 100 x max warps per SM x active cycles (summed)

The issue form falls back to sb-mio exactly (and to its threshold) where
W_wait or W_sel was not collected, as the C module does.

The verdict kind: U >= U_SIGNIFICANT: throughput; else L >= L_threshold
(of L's form): latency; else none.  U is gpuq's `default` variant
(U_default in JOINED).

`report` checks the issue's bars for the two-kind verdict and chooses the L
threshold from the data:
  - atomic group: every case gets an atomic verdict (throughput or latency);
  - free group: none;
  - mixed group: in each series (one op, pattern, work and shape, k rising)
    the verdict may differ from the truth's (U_true >= 0.5) only at the knob
    step where U_true crosses 0.5, on either side of it;
  - real group (where a truth exists): verdicts against U_true >= 0.5.
The threshold: the atomic cases that need the latency kind (U < 0.5) must
read L above it; cases whose truth is below 0.5 (mixed, real, free) must
read below it.  The largest L of the second set and the smallest of the
first bound the thresholds that separate them; the middle of that gap is
the choice.  Atomic cases whose L lies below the second set's largest
cannot be separated by any threshold: they are listed as misses.

Python 3 standard library only.
"""
import argparse
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze as A  # noqa: E402

U_SIGNIFICANT = A.U_SIGNIFICANT
HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "papers", "atomics",
                      "atomics_latency.h")
DOC_BEGIN = "<!-- validation-latency:begin (written by validation/latency.py report --doc) -->"
DOC_END = "<!-- validation-latency:end -->"


FORMS = ("issue", "sb-mio")
THRESHOLD_MACROS = {"issue": "GM_L_LATENCY", "sb-mio": "GM_L_LATENCY_SB_MIO"}


def l_threshold_shipped(path=HEADER, form="issue"):
    """The form's threshold as the C header defines it (the one place it is
    written): GM_L_LATENCY, GM_L_LATENCY_SB_MIO."""
    with open(path) as f:
        m = re.search(r"#define\s+%s\s+([0-9.]+)" % THRESHOLD_MACROS[form], f.read())
    if not m:
        raise A.AnalyzeError("%s: no %s" % (path, THRESHOLD_MACROS[form]))
    return float(m.group(1))


def thresholds_shipped(path=HEADER):
    return {f: l_threshold_shipped(path, f) for f in FORMS}


def warp_cycles(row, max_warps_per_sm=64):
    """Warp-cycles the SMs held: occupancy x warps per SM x active cycles."""
    return A.fnum(row.get("occupancy_pct")) / 100.0 * max_warps_per_sm * A.fnum(row.get("cycles_sum"))


def l_form(row, form="issue"):
    """The form L is computed in for this row: sb-mio where the issue form
    lacks W_wait or W_sel (older runs), as the C module falls back."""
    if form == "sb-mio":
        return "sb-mio"
    wait, sel = A.fnum(row.get("stall_wait")), A.fnum(row.get("stall_selected"))
    return "sb-mio" if math.isnan(wait) or math.isnan(sel) else "issue"


def latency_L(row, form="issue", max_warps_per_sm=64):
    """L of one joined row in `form` (NaN where a counter of the two-counter
    form is missing); 0 without atomics."""
    N = A.fnum(row.get("N_atom"))
    if N == 0:
        return 0.0
    sb, mio = A.fnum(row.get("stall_short_scoreboard")), A.fnum(row.get("stall_mio_throttle"))
    occ, cyc = A.fnum(row.get("occupancy_pct")), A.fnum(row.get("cycles_sum"))
    inst = A.fnum(row.get("shared_inst"))
    if any(math.isnan(x) for x in (N, sb, mio, occ, cyc, inst)):
        return math.nan
    wa = warp_cycles(row, max_warps_per_sm)
    if wa <= 0:
        return math.nan
    share = min(1.0, N / inst) if inst > 0 else 1.0
    L = (sb + mio) / wa * share
    if l_form(row, form) == "issue":
        # Pacing and issue, apportioned by the ATOMS share of the issued
        # instructions (selected: one warp-cycle per issue).
        wait, sel = A.fnum(row["stall_wait"]), A.fnum(row["stall_selected"])
        L += (wait + sel) / wa * (min(1.0, N / sel) if sel > 0 else 1.0)
    return min(1.0, L)


def kind(u, l, l_threshold, u_threshold=U_SIGNIFICANT):
    if math.isnan(u):
        return "unknown"
    if u >= u_threshold:
        return "throughput"
    if math.isnan(l):
        return "unknown"
    return "latency" if l >= l_threshold else "none"


def kind_row(r, l_threshold):
    """The kind of a row with L (with_l); l_threshold: a number, or
    {form: threshold}, read at the form the row's L came out in."""
    th = l_threshold[r.get("L_form", "issue")] if isinstance(l_threshold, dict) else l_threshold
    return kind(u_of(r), r["L"], th)


def as_form(rows, form):
    """Copies of rows whose L is the `form` one (sb-mio: L_sb_mio)."""
    if form == "issue":
        return rows
    return [dict(r, L=r["L_sb_mio"], L_form="sb-mio") for r in rows]


def is_atomic(k):
    return k in ("throughput", "latency")


def with_l(rows, form="issue"):
    """L of each row in `form` (r["L"], r["L_form"] the form it came out in),
    and in the two-counter form beside it (r["L_sb_mio"])."""
    for r in rows:
        r["L"] = latency_L(r, form)
        r["L_form"] = l_form(r, form)
        r["L_sb_mio"] = latency_L(r, "sb-mio")
        wa = A.fnum(r.get("warps_active"))
        if not math.isnan(wa) and wa > 0:
            r["W_active_ratio"] = warp_cycles(r) / wa
    return rows


def u_of(r):
    return A.fnum(r.get("U_default"))


def truth_known(r):
    return not math.isnan(A.fnum(r.get("U_true"))) and r.get("truth") != "lower_bound"


# ------------------------------------------------------------ threshold

def choose_threshold(rows, l_of=lambda r: r["L"]):
    """(lo, hi, lo_case, hi_case, inseparable): lo = the largest L among cases
    whose truth is below 0.5 and whose U is below 0.5 (the latency kind must
    not name them); hi = the smallest L among atomic cases with U below 0.5
    that lie above lo (the kind must name them); inseparable = atomic cases
    with U below 0.5 at or below lo.  l_of: the L of a row."""
    li = [(l_of(r), r) for r in rows]
    neg = [(l, r["name"]) for l, r in li
           if truth_known(r) and A.fnum(r["U_true"]) < 0.5 and u_of(r) < U_SIGNIFICANT
           and not math.isnan(l)]
    pos = [(l, r["name"]) for l, r in li
           if r["group"] == "atomic" and u_of(r) < U_SIGNIFICANT and not math.isnan(l)]
    lo, lo_case = max(neg) if neg else (0.0, "-")
    above = [p for p in pos if p[0] > lo]
    hi, hi_case = min(above) if above else (1.0, "-")
    inseparable = sorted(p for p in pos if p[0] <= lo)
    return lo, hi, lo_case, hi_case, inseparable


# ------------------------------------------------------------ the bars

def series_key(r):
    return (r.get("op"), r.get("pattern"), r.get("work"), A.fnum(r.get("threads")),
            A.fnum(r.get("blocks_per_sm")))


def mixed_series(rows, l_threshold):
    """Per mixed series: (key, [(k, U_true, U, L, kind)], ok, crossing index).
    A verdict may differ from the truth only at the two cases around the
    crossing (the last with U_true >= 0.5 and the first below)."""
    groups = {}
    for r in rows:
        if r["group"] == "mixed":
            groups.setdefault(series_key(r), []).append(r)
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        rs.sort(key=lambda r: A.fnum(r.get("k")))
        pts = [(A.fnum(r.get("k")), A.fnum(r["U_true"]), u_of(r), r["L"], kind_row(r, l_threshold))
               for r in rs]
        truth_atomic = [t >= 0.5 for _, t, _, _, _ in pts]
        crossing = next((i for i, a in enumerate(truth_atomic) if not a), len(pts))
        ok = True
        for i, (_, _, _, _, kd) in enumerate(pts):
            if is_atomic(kd) != truth_atomic[i] and i not in (crossing - 1, crossing):
                ok = False
        out.append((key, pts, ok, crossing))
    return out


def bars(rows, l_threshold):
    """{name: (passed, text)} for the issue's four verdict bars."""
    res = {}
    at = [r for r in rows if r["group"] == "atomic"]
    miss = [r for r in at if not is_atomic(kind_row(r, l_threshold))]
    res["atomic"] = (not miss, "%d of %d atomic-bound cases get an atomic verdict (%d throughput, %d latency)"
                     % (len(at) - len(miss), len(at),
                        sum(kind_row(r, l_threshold) == "throughput" for r in at),
                        sum(kind_row(r, l_threshold) == "latency" for r in at)), miss)
    fr = [r for r in rows if r["group"] == "free"]
    bad = [r for r in fr if kind_row(r, l_threshold) != "none"]
    res["free"] = (not bad, "%d of %d atomic-free cases get no atomic verdict" % (len(fr) - len(bad), len(fr)),
                   bad)
    ser = mixed_series(rows, l_threshold)
    badser = [s for s in ser if not s[2]]
    res["mixed"] = (not badser, "%d of %d mixed series change verdict within one knob step of U_true = 0.5"
                    % (len(ser) - len(badser), len(ser)), badser)
    re_ = [r for r in rows if r["group"] == "real" and truth_known(r)]
    dis = [r for r in re_ if is_atomic(kind_row(r, l_threshold)) != (A.fnum(r["U_true"]) >= 0.5)]
    res["real"] = (None, "%d of %d real kernels with a truth agree with it (U_true >= 0.5 or not)"
                   % (len(re_) - len(dis), len(re_)), dis)
    return res


# ------------------------------------------------------------ report

fmt = A.fmt


def gpuq_agreement(rows, variant, form, shipped):
    """One sentence: gpuq's L and kind (the variant's columns of JOINED)
    against this script's, in `form`; "" where JOINED lacks the variant."""
    lk, kk = "L_" + variant, "kind_" + variant
    fr = as_form(rows, form)
    both = [r for r in fr if not math.isnan(A.fnum(r.get(lk))) and not math.isnan(r["L"])]
    if not both:
        return ""
    dl = max(abs(A.fnum(r[lk]) - r["L"]) for r in both)
    kinds = [r for r in fr if r.get(kk)]
    agree = sum(r[kk] == kind_row(r, shipped) for r in kinds)
    return ("`gpuq model --model %s` (src/papers/atomics/atomics_latency.c) and this script give the same L "
            "to within %.1e on %d cases, and the same kind on %d of %d." % (variant, dl, len(both), agree,
                                                                           len(kinds)))


def bar_lines(rows, shipped):
    out = []
    res = bars(rows, shipped)
    for g in ("atomic", "free", "mixed", "real"):
        passed, text, bad = res[g]
        tag = "PASS" if passed else ("FAIL" if passed is False else "info")
        if not any(r["group"] == g for r in rows):
            tag, text = "no data", "no %s cases in this run" % g
        out.append("- %s: %s, %s" % (g, tag, text))
    return out, res


def threshold_sentence(rows, shipped_value, macro):
    lo, hi, lo_case, hi_case, inseparable = choose_threshold(rows)
    text = ("Cases whose truth is below 0.5 and whose U is below 0.5 read L at most %s (`%s`); atomic-bound "
            "cases with U below 0.5 that lie above that read L from %s (`%s`). Any threshold in (%s, %s] "
            "separates them; the middle is %s. Shipped: %s = %s."
            % (fmt(lo), lo_case, fmt(hi), hi_case, fmt(lo), fmt(hi), fmt((lo + hi) / 2, "%.2f"), macro,
               fmt(shipped_value, "%.2f")))
    if inseparable:
        text += (" Atomic-bound cases with U below 0.5 that no threshold can separate (L at or below %s): %s."
                 % (fmt(lo), ", ".join("`%s` (L %s)" % (nm, fmt(l)) for l, nm in inseparable)))
    return text


def markdown(rows, source="", l_threshold=None):
    """The report on rows with L (with_l): the shipped form first, the
    two-counter form beside it.  l_threshold: {form: value} (default: the
    header's)."""
    shipped = thresholds_shipped() if l_threshold is None else l_threshold
    out = []
    if source:
        out.append("Data: %s" % source)
        out.append("")
    n = {g: sum(r["group"] == g for r in rows) for g in A.GROUPS}
    out.append("Cases: " + ", ".join("%s %d" % (g, n[g]) for g in A.GROUPS) + ".")
    out.append("")
    ratios = [r["W_active_ratio"] for r in rows if "W_active_ratio" in r and not math.isnan(r["W_active_ratio"])]
    if ratios:
        out.append("W_active from occupancy x 64 x active cycles against the counter "
                   "smsp__warps_active.sum: median %.4f, range %.4f to %.4f (%d cases)."
                   % (statistics.median(ratios), min(ratios), max(ratios), len(ratios)))
        out.append("")
    n_issue = sum(r.get("L_form") == "issue" for r in rows)
    out.append("Form of L: `issue` (short scoreboard + MIO throttle, + wait + selected apportioned by the ATOMS "
               "share of issued instructions) on %d of %d cases%s." % (
                   n_issue, len(rows), "" if n_issue == len(rows) else
                   "; the rest lack `wait` or `selected` and fall back to the two-counter form `sb-mio` and its "
                   "threshold"))
    out.append("")
    agree = [gpuq_agreement(rows, "default", "issue", shipped),
             gpuq_agreement(rows, "latency-sb-mio", "sb-mio", shipped)]
    if any(agree):
        out.append(" ".join(a for a in agree if a))
        out.append("")
    out.append("**Threshold from the data (shipped form).** " +
               threshold_sentence(rows, shipped["issue"], THRESHOLD_MACROS["issue"]))
    out.append("")
    out.append("Bars of the two-kind verdict (U >= %.2f: throughput; else L >= %.2f: latency):"
               % (U_SIGNIFICANT, shipped["issue"]))
    out.append("")
    lines, res = bar_lines(rows, shipped)
    out.extend(lines)
    out.append("")
    two = as_form(rows, "sb-mio")
    lines2, res2 = bar_lines(two, shipped)
    out.append("**The two-counter form** (short scoreboard + MIO throttle only; `--model latency-sb-mio`). " +
               threshold_sentence(two, shipped["sb-mio"], THRESHOLD_MACROS["sb-mio"]) +
               " Its bars (L >= %.2f):" % shipped["sb-mio"])
    out.append("")
    out.extend(lines2)
    out.append("")
    miss = res["atomic"][2]
    if miss:
        out.append("Atomic-bound cases without an atomic verdict (shares of active warp-cycles; ATOMS share of "
                   "the shared pipe apportions the first two, of the issued instructions the last two):")
        out.append("")
        out.append("| case | warps/SM | U | L | short scoreboard | MIO throttle | ATOMS / shared pipe | wait | "
                   "selected | ATOMS / issued |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in miss:
            wa = warp_cycles(r)
            sel = A.fnum(r.get("stall_selected"))
            out.append("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["name"], fmt(A.fnum(r.get("warps_per_sm")), "%.0f"), fmt(u_of(r)), fmt(r["L"]),
                fmt(A.fnum(r.get("stall_short_scoreboard")) / wa), fmt(A.fnum(r.get("stall_mio_throttle")) / wa),
                fmt(A.fnum(r["N_atom"]) / A.fnum(r["shared_inst"])), fmt(A.fnum(r.get("stall_wait")) / wa),
                fmt(sel / wa), fmt(A.fnum(r["N_atom"]) / sel if sel > 0 else math.nan)))
        out.append("")
    # Every atomic case that U alone misses, and what L says in each form.
    low = [r for r in rows if r["group"] == "atomic" and u_of(r) < U_SIGNIFICANT]
    out.append("Atomic-bound cases with U below %.2f (U alone names no bottleneck there):" % U_SIGNIFICANT)
    out.append("")
    out.append("| case | warps/SM | U | L | verdict kind | L (sb-mio) | kind (sb-mio) |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    twoby = {r["name"]: r for r in two}
    for r in sorted(low, key=lambda r: u_of(r)):
        t = twoby[r["name"]]
        out.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
            r["name"], fmt(A.fnum(r.get("warps_per_sm")), "%.0f"), fmt(u_of(r)), fmt(r["L"]),
            kind_row(r, shipped), fmt(t["L"]), kind_row(t, shipped)))
    out.append("")
    out.append("L by group (median / largest):")
    out.append("")
    out.append("| group | cases | median L | largest L | largest where U_true < 0.5 |")
    out.append("| --- | --- | --- | --- | --- |")
    for g in A.GROUPS:
        ls = [r["L"] for r in rows if r["group"] == g and not math.isnan(r["L"])]
        lneg = [(r["L"], r["name"]) for r in rows if r["group"] == g and truth_known(r)
                and A.fnum(r["U_true"]) < 0.5 and not math.isnan(r["L"])]
        out.append("| %s | %d | %s | %s | %s |" % (
            g, len(ls), fmt(statistics.median(ls)) if ls else "-", fmt(max(ls)) if ls else "-",
            ("%s (`%s`)" % (fmt(max(lneg)[0]), max(lneg)[1])) if lneg else "-"))
    out.append("")
    out.append("Mixed series (k rising):")
    out.append("")
    out.append("| series | crossing of U_true = 0.5 between k | verdict changes between k | ok |")
    out.append("| --- | --- | --- | --- |")
    for key, pts, ok, c in mixed_series(rows, shipped):
        op, pat, work, thr, bps = key
        ks = [p[0] for p in pts]
        pred = [is_atomic(p[4]) for p in pts]
        pc = next((i for i, a in enumerate(pred) if not a), len(pts))
        span = lambda i: ("%g and %g" % (ks[i - 1], ks[i])) if 0 < i < len(ks) else (
            "never (all atomic)" if i >= len(ks) else "before k = %g" % ks[0])
        out.append("| %s %s, %s, %dx%d | %s | %s | %s |" % (op, pat, work, thr, bps, span(c), span(pc),
                                                           "yes" if ok else "NO"))
    out.append("")
    rl = [r for r in rows if r["group"] == "real"]
    if rl:
        out.append("Real kernels:")
        out.append("")
        out.append("| case | U_true | U | L | verdict kind |")
        out.append("| --- | --- | --- | --- | --- |")
        for r in rl:
            t = A.fnum(r.get("U_true"))
            tt = (">= " if r.get("truth") == "lower_bound" else "") + fmt(t)
            out.append("| `%s` | %s | %s | %s | %s |" % (r["name"], tt, fmt(u_of(r)), fmt(r["L"]),
                                                        kind_row(r, shipped)))
        out.append("")
    return "\n".join(out) + "\n"


README_BEGIN = "<!-- latency-summary:begin (written by validation/latency.py report --readme) -->"
README_END = "<!-- latency-summary:end -->"


def summary(rows, where="", l_threshold=None):
    """The README's sentences on the two-kind verdict: the bars in the
    shipped form, the threshold's gap, the two-counter form's atomic bar and
    what stays missed, all from the data."""
    shipped = thresholds_shipped() if l_threshold is None else l_threshold
    res = bars(rows, shipped)
    two = bars(as_form(rows, "sb-mio"), shipped)
    lo, hi = choose_threshold(rows)[:2]
    at = [r for r in rows if r["group"] == "atomic"]
    fr = [r for r in rows if r["group"] == "free"]
    n_ser = len(mixed_series(rows, shipped))
    miss = res["atomic"][2]
    n_lat = sum(kind_row(r, shipped) == "latency" for r in at)
    text = ("On %s, %d of %d atomic-bound kernels get an atomic verdict (%d through latency), %d of %d "
            "atomic-free ones get none, and %d of %d mixed series change verdict within one knob step of "
            "U_true = 0.5. The latency threshold, GM_L_LATENCY = %s, is the middle of the gap (%s, %s] "
            "in that data. The two-counter form (`--model latency-sb-mio`) gives %d of %d atomic verdicts. "
            % (where or "the recorded run", len(at) - len(miss), len(at), n_lat, len(fr) - len(res["free"][2]),
               len(fr), n_ser - len(res["mixed"][2]), n_ser, fmt(shipped["issue"], "%.2f"), fmt(lo), fmt(hi),
               len(at) - len(two["atomic"][2]), len(at)))
    text += ("Missed: %s." % ", ".join("`%s` (U %s, L %s)" % (r["name"], fmt(u_of(r)), fmt(r["L"])) for r in miss)
             if miss else "None is missed.")
    # Cases built as atomic-bound that a twin showed to be only partly so
    # (analyze.TWIN_TRUTH): counted with the real kernels, said here.
    moved = [r for r in rows if r["name"] in A.TWIN_TRUTH]
    if moved:
        text += (" Counted with the real kernels, their truth measured by a twin without atomics: %s."
                 % ", ".join("`%s` (U_true %s%s, U %s, L %s, kind %s)" % (
                     r["name"], ">= " if r.get("truth") == "lower_bound" else "", fmt(A.fnum(r.get("U_true"))),
                     fmt(u_of(r)), fmt(r["L"]), kind_row(r, shipped)) for r in moved))
    return text + "\n"


STALL_CASES = ("add_same_address_e32_t32x1", "add_same_address_e32_t32x1_chain", "add_same_address_e1_t32x1_chain",
               "cas_same_address_e32_t32x1", "popc_inc_same_address_e32_t32x1", "add_same_address_e1_t256x1",
               "add_same_address_e32_t1024x2", "popc_inc_same_address_e32_t1024x2", "hash_cas_t512x1",
               "hash_lds_sts_t512x1", "add_same_address_e32_t256x4_fma16", "fma16_t256x4", "gload4_t256x4",
               "lds_sts4_t256x4", "red_global1_t256x4")


def stall_table(rows, names=STALL_CASES):
    """Share of active warp-cycles per stall reason (the counter's own
    denominator), for cases built so that one reason should dominate."""
    reasons = sorted({k[6:] for r in rows for k in r if k.startswith("stall_")
                      and not math.isnan(A.fnum(r.get(k)))})
    by = {r["name"]: r for r in rows}
    shown = [n for n in names if n in by and A.fnum(by[n].get("warps_active")) > 0]
    if not shown or not reasons:
        return "(no stall counters beyond L's, or no smsp__warps_active.sum, in this run)\n"
    keep = [s for s in reasons
            if any(A.fnum(by[n].get("stall_" + s)) / A.fnum(by[n]["warps_active"]) >= 0.05 for n in shown)]
    out = ["| case | warps/SM | " + " | ".join(keep) + " |", "| --- | --- |" + " --- |" * len(keep)]
    for n in shown:
        r = by[n]
        wa = A.fnum(r["warps_active"])
        out.append("| `%s` | %s | " % (n, fmt(A.fnum(r.get("warps_per_sm")), "%.0f")) +
                   " | ".join(fmt(A.fnum(r.get("stall_" + s)) / wa, "%.2f") for s in keep) + " |")
    return "\n".join(out) + "\n"


def pcsamp_table(text, names=None):
    """Per profiled kernel of an `ncu --page source --print-source sass --csv`
    export: samples, the share at ATOMS instructions, the share stalled on
    short scoreboard anywhere, and the largest reasons."""
    import csv
    import io
    blocks, cur = [], None
    for line in text.splitlines():
        if line.startswith('"Kernel Name"'):
            cur = {"kernel": line.split(",", 1)[1].strip('",'), "lines": []}
            blocks.append(cur)
        elif cur is not None:
            cur["lines"].append(line)
    lines_out = []
    out = ["| kernel | samples | at ATOMS | short_sb (any PC) | short_sb at readers of an ATOMS result | "
           "largest reasons |", "| --- | --- | --- | --- | --- | --- |"]
    seen = set()
    for b in blocks:
        rows = list(csv.DictReader(io.StringIO("\n".join(b["lines"]) + "\n")))
        if not rows:
            continue
        reasons = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
        tot = sum(A.fnum(r.get("Warp Stall Sampling (All Samples)")) or 0 for r in rows)
        key = (b["kernel"], tot)
        if tot <= 0 or key in seen:
            continue  # the export lists each result's source twice
        seen.add(key)
        atoms = sum(A.fnum(r["Warp Stall Sampling (All Samples)"]) for r in rows
                    if r.get("Source", "").strip().startswith("ATOMS"))
        by = {k[6:]: sum(A.fnum(r.get(k)) or 0 for r in rows) for k in reasons}
        # Registers an ATOMS writes (its first operand, unless RZ), and the
        # short-scoreboard samples of instructions that read one of them.
        dests = set()
        for r in rows:
            m = re.match(r"\s*(?:@!?P\d\s+)?ATOMS\S*\s+(R\d+)", r.get("Source", ""))
            if m:
                dests.add(m.group(1))
        readers = 0.0
        for r in rows:
            src = r.get("Source", "")
            m = re.match(r"\s*(?:@!?P\d\s+)?(\S+)\s+(.*)", src)
            if not m or m.group(1).startswith("ATOMS"):
                continue
            ops = [o.strip() for o in m.group(2).split(",")]
            if any(re.fullmatch(r"-?\|?(R\d+)\|?(\.\w+)?", o) and re.sub(r"[^R\d]", "", o.split(".")[0]) in dests
                   for o in ops[1:]):
                readers += A.fnum(r.get("stall_short_sb")) or 0
        top = sorted(by.items(), key=lambda kv: -kv[1])[:4]
        sb = by.get("short_sb", 0)
        lines_out.append(("| `%s` | %.0f | %.2f | %.2f | %s | %s |", b["kernel"][:48], (
            tot, atoms / tot, sb / tot, ("%.2f of it" % (readers / sb)) if sb else "-",
            ", ".join("%s %.2f" % (k, v / tot) for k, v in top))))
    # Case names (the probe's manifest, in launch order) where they match one to one.
    label = names if names and len(names) == len(lines_out) else [k for _, k, _ in lines_out]
    for (f, _, vals), nm in zip(lines_out, label):
        out.append(f % ((nm,) + vals))
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description="the atomic-latency quantity against the validation truth")
    sub = p.add_subparsers(dest="cmd")
    r = sub.add_parser("report")
    r.add_argument("joined", nargs="+")
    r.add_argument("--md")
    r.add_argument("--doc")
    r.add_argument("--source")
    r.add_argument("--pcsamp", help="ncu source-page CSV (may be .gz) of the PC-sampling probe")
    r.add_argument("--readme", help="README whose latency-summary section gets the bars' sentence")
    r.add_argument("--where", default="", help="device and date for that sentence")
    s = sub.add_parser("stalls")
    s.add_argument("joined", nargs="+")
    q = sub.add_parser("pcsamp", help="PC sampling (ncu source page CSV): samples at ATOMS and by reason")
    q.add_argument("source_csv")
    args = p.parse_args(argv)
    if not args.cmd:
        p.print_help(sys.stderr)
        return 1
    try:
        if args.cmd == "pcsamp":
            sys.stdout.write(pcsamp_table(A.read_text(args.source_csv)))
            return 0
        rows = []
        for path in args.joined:
            rows.extend(A.read_joined(path)[1])
        with_l(rows)
        if args.cmd == "stalls":
            sys.stdout.write(stall_table(rows))
            return 0
        md = markdown(rows, args.source or "")
        md += "\nStall reasons, share of active warp-cycles (smsp__warps_issue_stalled_<reason>.sum / " \
              "smsp__warps_active.sum), on cases built so that one reason should dominate:\n\n"
        md += stall_table(rows)
        if args.pcsamp:
            md += ("\nPC sampling (ncu SourceCounters) on six of those kernels: share of the samples at ATOMS "
                   "instructions, stalled on short scoreboard anywhere, and which part of that sits at an "
                   "instruction reading a register an ATOMS wrote:\n\n")
            man = os.path.join(os.path.dirname(args.pcsamp), "pcsamp_manifest.csv")
            names = [r["name"] for r in A.read_table(man)[1]] if os.path.exists(man) else None
            md += pcsamp_table(A.read_text(args.pcsamp), names)
        A.write_report(md, args.md, args.doc, DOC_BEGIN, DOC_END)
        if args.readme:
            A.write_report(summary(rows, args.where), None, args.readme, README_BEGIN, README_END)
    except (A.AnalyzeError, OSError) as e:
        print("latency: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
