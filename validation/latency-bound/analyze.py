#!/usr/bin/env python3
"""The latency and launch verdicts and the waves what-ifs against their truth.

usage: analyze.py OUT [--expected FILE]

OUT is what validation/latency-bound/run.sh wrote (raw results of one GPU
run); this needs no GPU and can be run again on OUT anywhere.  It reads

  cases.csv, cases.times.csv     lb_validate --cases and --time
  cases.model.csv                gpuq model -f csv of the default-set profile
  cases-optin.model.csv          the same with GPUQ_EXTRA_METRICS=@bottleneck
  sweep.times.csv, sweep.model.csv   the T(g,b) sweep, timed and profiled
  expected.csv                   beside this script (or --expected), written
                                 before the run

and writes into OUT

  checks.csv   one row per expected.csv row: the verdict and cause gpuq gave
               against the expected ones; the what-if speedup gpuq predicted
               against the measured one (the base case's event-timed time over
               its twin's), PASS within 15%
  sweep.csv    one row per what-if of the sweep (T_2G, T_halfG, T_2b_halfG,
               T_halfb_2G of every profiled point whose target was measured,
               for each chain count the sweep ran; a times file without a
               chains column is one chain):
               the predicted time over the base's against the measured ratio;
               below_floor when the prediction is under the shortest time any
               grid of that block size and chain count took (a single wave's)
  summary.md   the pass/fail table and the numbers for the docs

Exit status: 0 every check passed (verdicts, causes, what-ifs within 15%, the
sweep's median |error| <= 3%, worst <= 10%, nothing below a single wave), 1
some check failed, 2 the input is missing or inconsistent.  Standard library
only.
"""
import csv
import math
import os
import re
import statistics
import sys

# the columns of gpuq model -f csv this reads (tests/validation/test_latency_bound.py
# checks that gpuq writes them)
MODEL_COLUMNS = ("launch_id", "kernel", "grid_x", "block_x", "bottleneck.verdict",
                 "bottleneck.bottleneck", "bottleneck.wait_on", "bottleneck.share",
                 "bottleneck.measured_us", "bottleneck.speedup_x2", "bottleneck.speedup_x4",
                 "bottleneck.speedup_fused", "bottleneck.speedup_graph", "waves.T_us",
                 "waves.T_2G_us", "waves.T_halfG_us", "waves.T_2b_halfG_us", "waves.T_halfb_2G_us",
                 "waves.tgb_from")
WHATIF_TOL = 0.15
SWEEP_MEDIAN, SWEEP_WORST, FLOOR_TOL = 0.03, 0.10, 0.03
HERE = os.path.dirname(os.path.abspath(__file__))


class InputError(Exception):
    pass


def read_csv(path, comment="#"):
    """Rows (dicts) of a CSV whose leading lines starting with `comment` are skipped."""
    if not os.path.exists(path):
        raise InputError("%s: missing" % path)
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith(comment)]
    return list(csv.DictReader(lines))


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x


def model_rows(path, prefix="lb_"):
    """The rows of a gpuq model CSV for lb_validate's kernels, in launch order."""
    rows = [r for r in read_csv(path) if r.get("kernel", "").startswith(prefix)
            and not r["kernel"].startswith("lb_hold")]
    rows.sort(key=lambda r: int(r["launch_id"]))
    return rows


def cases_by_launch(cases, rows, what):
    """Pairs the k-th case with the k-th profiled launch; checks grid and block."""
    if len(rows) != len(cases):
        raise InputError("%s: %d profiled launches for %d cases" % (what, len(rows), len(cases)))
    out = {}
    for c, r in zip(cases, rows):
        if int(r["grid_x"]) != int(c["blocks"]) or int(r["block_x"]) != int(c["threads"]):
            raise InputError("%s: launch %s (%s x %s) is not case %s (%s x %s)" % (
                what, r["launch_id"], r["grid_x"], r["block_x"], c["case"], c["blocks"], c["threads"]))
        out[c["case"]] = r
    return out


def check_cases(out, expected):
    cases = read_csv(os.path.join(out, "cases.csv"))
    times = {r["case"]: r for r in read_csv(os.path.join(out, "cases.times.csv"))}
    models = {"default": cases_by_launch(cases, model_rows(os.path.join(out, "cases.model.csv")),
                                         "cases.model.csv")}
    optin = os.path.join(out, "cases-optin.model.csv")
    if any(e["metrics"] == "opt-in" for e in expected):
        models["opt-in"] = cases_by_launch(cases, model_rows(optin), "cases-optin.model.csv")
    checks = []
    for e in expected:
        r = models[e["metrics"]].get(e["case"])
        if r is None:
            raise InputError("expected.csv: no case %s" % e["case"])
        got = r.get("bottleneck.verdict", "-")
        cause = {"latency": r.get("bottleneck.wait_on", "-"),
                 "unit": r.get("bottleneck.bottleneck", "-")}.get(e["verdict"], "-")
        row = {
            "case": e["case"], "metrics": e["metrics"],
            "verdict": e["verdict"], "got_verdict": got,
            "verdict_ok": got == e["verdict"],
            "cause": e["cause"], "got_cause": cause,
            "cause_ok": e["cause"] == "-" or cause == e["cause"],
            "share": num(r.get("bottleneck.share")),
            "measured_us": num(r.get("bottleneck.measured_us")),
            "event_us": num(times.get(e["case"], {}).get("median_us")),
            "whatif": e["whatif"], "twin": e["twin"],
            "predicted": math.nan, "measured": math.nan, "error": math.nan, "whatif_ok": "",
        }
        if e["whatif"]:
            row["predicted"] = num(r.get("bottleneck." + e["whatif"]))
            row["measured"] = measured_speedup(e, times)
            row["error"] = row["predicted"] / row["measured"] - 1
            row["whatif_ok"] = abs(row["error"]) <= WHATIF_TOL
        checks.append(row)
    return checks, times


def measured_speedup(e, times):
    """The base's measured time over the twin's (per launch for the launch rows)."""
    def t(name):
        v = num(times.get(name, {}).get("median_us"))
        if not v > 0:
            raise InputError("cases.times.csv: no time for %s" % name)
        return v
    if e["twin"] in ("fused64", "graph64"):
        return t("stream64") / t(e["twin"])
    return t(e["case"]) / t(e["twin"])


SHAPE_WHATIFS = (  # field, the (b, G) it predicts from the launch's (b, G)
    ("waves.T_2G_us", lambda b, G: (b, 2 * G)),
    ("waves.T_halfG_us", lambda b, G: (b, G // 2)),
    ("waves.T_2b_halfG_us", lambda b, G: (2 * b, G // 2)),
    ("waves.T_halfb_2G_us", lambda b, G: (b // 2, 2 * G)),
)


def chains_of(r):
    """The independent chains per thread of a profiled lb_ffma<K> launch."""
    for field in ("mangled", "demangled", "kernel"):
        m = re.search(r"lb_ffmaILi(\d+)EE|lb_ffma<(\d+)>", r.get(field) or "")
        if m:
            return int(m.group(1) or m.group(2))
    return 1


def check_sweep(out):
    times = {(int(r.get("chains") or 1), int(r["b"]), int(r["G"])): num(r["median_us"])
             for r in read_csv(os.path.join(out, "sweep.times.csv"))}
    rows = model_rows(os.path.join(out, "sweep.model.csv"))
    prof = {}
    for r in rows:
        b = int(math.ceil(int(r["block_x"]) / 32.0))
        prof[(chains_of(r), b, int(r["grid_x"]))] = r
    if set(prof) != set(times):
        raise InputError("sweep: %d profiled points, %d timed, %d in common" % (
            len(prof), len(times), len(set(prof) & set(times))))
    floor = {}
    for (k, b, G), t in times.items():
        floor[(k, b)] = min(floor.get((k, b), math.inf), t)
    result = []
    for (k, b, G), r in sorted(prof.items()):
        T_base = num(r.get("waves.T_us"))
        for field, target in SHAPE_WHATIFS:
            tgt = (k,) + target(b, G)
            pred = num(r.get(field))
            if tgt not in times or not pred > 0 or not T_base > 0:
                continue
            ratio_pred = pred / T_base
            ratio_meas = times[tgt] / times[(k, b, G)]
            pred_evt = ratio_pred * times[(k, b, G)]  # the prediction on the event-timed scale
            t_prof = num(prof[tgt].get("waves.T_us"))
            result.append({
                "chains": k, "b": b, "G": G, "whatif": field.split(".")[1],
                "target_b": tgt[1], "target_G": tgt[2],
                "from": r.get("waves.tgb_from", "-"), "T_us": T_base, "predicted_us": pred,
                "ratio_predicted": ratio_pred, "ratio_measured": ratio_meas,
                "error": ratio_pred / ratio_meas - 1,
                "error_vs_profile": pred / t_prof - 1 if t_prof > 0 else math.nan,
                "floor_us": floor[tgt[:2]],
                "below_floor": pred_evt < (1 - FLOOR_TOL) * floor[tgt[:2]],
            })
    return result


def fmt(v, f="%.3f"):
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return "-" if math.isnan(v) else f % v
    return str(v) if v != "" else "-"


def write_csv(path, rows):
    if not rows:
        return
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (fmt(v, "%.6g") if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(tmp, path)


def sweep_stats(sweep):
    errs = [abs(r["error"]) for r in sweep if not math.isnan(r["error"])]
    if not errs:
        return None
    worst = max(sweep, key=lambda r: abs(r["error"]) if not math.isnan(r["error"]) else -1)
    return {
        "n": len(errs), "median": statistics.median(errs), "worst": abs(worst["error"]),
        "worst_at": "%s at %d chain%s, b = %d, G = %d -> b = %d, G = %d" % (
            worst["whatif"], worst["chains"], "" if worst["chains"] == 1 else "s", worst["b"],
            worst["G"], worst["target_b"], worst["target_G"]),
        "over10": sum(e > SWEEP_WORST for e in errs),
        "below_floor": sum(r["below_floor"] for r in sweep),
    }


def summary(out, checks, sweep, times):
    L = ["# Latency and launch bound: validation results", ""]
    dev = os.path.join(out, "device.txt")
    if os.path.exists(dev):
        L += ["Run: " + " / ".join(l.strip() for l in open(dev).readlines()[:2]), ""]
    seen = {}
    for r in checks:
        seen[(r["case"], r["metrics"])] = r
    L += ["## Verdicts (%d of %d cases right, verdict and cause)" % (
        sum(r["verdict_ok"] and r["cause_ok"] for r in seen.values()), len(seen)), "",
          "| case | metrics | expected | got | cause expected | got | share | profiled us | event us | ok |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in seen.values():
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["metrics"], r["verdict"], r["got_verdict"], r["cause"], r["got_cause"],
            fmt(r["share"], "%.2f"), fmt(r["measured_us"], "%.2f"), fmt(r["event_us"], "%.2f"),
            fmt(r["verdict_ok"] and r["cause_ok"])))
    w = [r for r in checks if r["whatif"]]
    L += ["", "## What-ifs against the changed kernel (%d of %d within %.0f%%)" % (
        sum(bool(r["whatif_ok"]) for r in w), len(w), 100 * WHATIF_TOL), "",
          "| case | what-if | twin | predicted | measured | error | ok |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in w:
        L.append("| %s | %s | %s | %sx | %sx | %s | %s |" % (
            r["case"], r["whatif"], r["twin"], fmt(r["predicted"], "%.2f"),
            fmt(r["measured"], "%.2f"), fmt(100 * r["error"], "%+.1f%%"), fmt(r["whatif_ok"])))
    launch = [k for k in ("stream64", "graph64", "fused64") if k in times]
    if launch:
        L += ["", "Per launch (event-timed, median): " + ", ".join(
            "%s %s us" % (k, fmt(num(times[k]["median_us"]), "%.3f")) for k in launch)]
    tp = os.path.join(out, "tables", "gpu", "throughput.csv")
    if os.path.exists(tp):
        rows = [r for r in read_csv(tp) if r.get("kind") == "launch"]
        if rows:
            L += ["", "Machine data used (%s in the run's folder): " % os.path.relpath(tp, out) + ", ".join(
                "empty launch %s %s ns" % (r["name"], fmt(num(r["value"]), "%.1f")) for r in rows)]
    st = sweep_stats(sweep) if sweep else None
    if st:
        L += ["", "## The T(g,b) sweep's what-ifs", "",
              "%d predictions; median |error| %.2f%% (goal <= 3%%), worst %.2f%% (%s; goal <= 10%%), "
              "%d over 10%%, %d below a single wave's time" % (
                  st["n"], 100 * st["median"], 100 * st["worst"], st["worst_at"], st["over10"],
                  st["below_floor"])]
        by = {}
        for r in sweep:
            by.setdefault(r["whatif"], []).append(abs(r["error"]))
        chains = sorted({r["chains"] for r in sweep})
        if len(chains) > 1:
            for c in chains:
                by.setdefault("%d chain%s per thread" % (c, "" if c == 1 else "s"), []).extend(
                    abs(r["error"]) for r in sweep if r["chains"] == c)
        L += ["", "| what-if | n | median |error| | worst |", "| --- | --- | --- | --- |"]
        for k, e in by.items():
            L.append("| %s | %d | %.2f%% | %.2f%% |" % (k, len(e), 100 * statistics.median(e), 100 * max(e)))
    ok = all(r["verdict_ok"] and r["cause_ok"] for r in checks) and all(
        r["whatif_ok"] is True for r in w)
    if st:
        ok = ok and st["median"] <= SWEEP_MEDIAN and st["worst"] <= SWEEP_WORST and st["below_floor"] == 0
    L += ["", "**%s**" % ("ALL PASS" if ok else "SOME CHECKS FAIL"), ""]
    return "\n".join(L), ok


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    out = argv[1]
    exp_path = argv[argv.index("--expected") + 1] if "--expected" in argv else os.path.join(HERE, "expected.csv")
    try:
        expected = read_csv(exp_path)
        checks, times = check_cases(out, expected)
        sweep = check_sweep(out) if os.path.exists(os.path.join(out, "sweep.times.csv")) else []
    except InputError as e:
        print("analyze.py: %s" % e, file=sys.stderr)
        return 2
    write_csv(os.path.join(out, "checks.csv"), checks)
    write_csv(os.path.join(out, "sweep.csv"), sweep)
    text, ok = summary(out, checks, sweep, times)
    tmp = os.path.join(out, "summary.md.tmp.%d" % os.getpid())
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out, "summary.md"))
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
