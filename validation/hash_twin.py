#!/usr/bin/env python3
"""The hash table against its LDS/STS twin (docs/validation.md, "The hash
table's twin"): one row per hash case of a run.sh output, time per round,
probes per round and the stall reasons, and the twin's ratios to the CAS
case.

usage:
  hash_twin.py RUN_DIR [--csv FILE]

RUN_DIR is a validation/run.sh output of the hash cases (times.csv and
joined.csv, or their .gz; STALL_METRICS=all for every stall reason).  The two cases run
with their own loop trip counts (each calibrated to the same target time),
so times and counts are compared per round (`iters`).  Probes per round:
shared-pipe read instructions (LDS, LDSM, ATOMS; not the clears' STS) per
warp and round, one per probe in both kernels (a warp probes while any of
its threads does), plus the final count's loads in the CAS case.

The CSV's last row, `lds_sts/cas`, holds the twin's ratios to the CAS case
(time per round, probes per round, time per probe, no-probe time per round;
the no-probe time is the MODE 0 twin's, validate_app's `no_probe_us`) and
three readings of the share of the CAS case's time its atomics add, one
minus the time the CAS case would take with the twin's plain LDS/STS:

  share_per_round        1 - T_twin / T_cas per round (the same keys
                         inserted; the twin's own probe count charged);
  share_per_probe        1 - t_twin / t_cas per warp-level probe (the CAS
                         case's probes at the twin's cost per probe);
  share_per_probe_fixed  as share_per_probe, with each case's no-probe
                         time per round taken out before dividing and
                         the CAS case's put back.

What they decide is in the doc; this script only measures.

Python 3 standard library only.
"""
import argparse
import csv
import io
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze as A  # noqa: E402
import latency as Lat  # noqa: E402

CASES = ("hash_cas_t512x1", "hash_lds_sts_t512x1")
BASE_COLUMNS = ("name", "group", "warps_per_sm", "iters", "reps", "time_us", "time_min_us", "time_max_us",
                "us_per_round", "no_probe_us", "no_probe_us_per_round", "N_atom", "shared_inst",
                "probes_per_round", "us_per_probe", "U_default", "L", "L_sb_mio", "share_per_round",
                "share_per_probe", "share_per_probe_fixed")


def run_file(run_dir, name):
    """RUN_DIR/name, or its gzip'd copy (a recorded run keeps those)."""
    path = os.path.join(run_dir, name)
    return path if os.path.exists(path) or not os.path.exists(path + ".gz") else path + ".gz"


def rows_of(run_dir):
    """One dict per hash case: times.csv's timing joined with joined.csv's
    counters, stall reasons as shares of active warp-cycles."""
    _, times = A.read_table(run_file(run_dir, "times.csv"))
    _, joined = A.read_joined(run_file(run_dir, "joined.csv"))
    Lat.with_l(joined)
    by_time = {r["name"]: r for r in times}
    by_join = {r["name"]: r for r in joined}
    missing = [c for c in CASES if c not in by_time]
    if missing:
        raise A.AnalyzeError("%s/times.csv has no %s" % (run_dir, ", ".join(missing)))
    out = []
    for name in CASES:
        t, j = by_time[name], by_join.get(name, {})
        iters = A.fnum(t.get("iters"))
        r = {"name": name, "group": t.get("group", ""), "warps_per_sm": A.fnum(t.get("warps_per_sm")),
             "iters": iters, "reps": A.fnum(t.get("reps"))}
        for k in ("time_us", "time_min_us", "time_max_us", "no_probe_us"):
            r[k] = A.fnum(t.get(k))
        r["us_per_round"] = r["time_us"] / iters if iters > 0 else math.nan
        r["no_probe_us_per_round"] = r["no_probe_us"] / iters if iters > 0 else math.nan
        r["N_atom"] = A.fnum(j.get("N_atom"))
        r["shared_inst"] = A.fnum(j.get("shared_inst"))
        # The counters are of one launch of `iters` rounds (run.sh's profile
        # run reads the trip counts of the timing run): per warp and round.
        warps = A.fnum(t.get("blocks")) * A.fnum(t.get("threads")) / 32
        r["probes_per_round"] = r["shared_inst"] / iters / warps if iters > 0 and warps > 0 else math.nan
        r["us_per_probe"] = r["us_per_round"] / r["probes_per_round"] if r["probes_per_round"] > 0 else math.nan
        r["U_default"] = A.fnum(j.get("U_default"))
        r["L"] = j.get("L", math.nan)
        r["L_sb_mio"] = j.get("L_sb_mio", math.nan)
        wa = A.fnum(j.get("warps_active"))
        for k in sorted(j):
            if k.startswith("stall_"):
                r[k] = A.fnum(j[k]) / wa if wa > 0 else math.nan
        out.append(r)
    return out


def div(a, b):
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


def shares(cas, lds):
    """The three readings of the share of the CAS case's time per round
    that its atomics add (module docstring)."""
    t_cas, t_lds = cas["us_per_round"], lds["us_per_round"]
    f_cas, f_lds = cas["no_probe_us_per_round"], lds["no_probe_us_per_round"]
    p_cas, p_lds = cas["probes_per_round"], lds["probes_per_round"]
    # The CAS case's probes at the twin's probing cost, plus its own fixed part.
    fixed = f_cas + p_cas * div(t_lds - f_lds, p_lds)
    return {"share_per_round": 1.0 - div(t_lds, t_cas),
            "share_per_probe": 1.0 - div(div(t_lds, p_lds), div(t_cas, p_cas)),
            "share_per_probe_fixed": 1.0 - div(fixed, t_cas)}


def ratio_row(rows):
    cas, lds = rows
    r = {"name": "lds_sts/cas",
         "us_per_round": div(lds["us_per_round"], cas["us_per_round"]),
         "probes_per_round": div(lds["probes_per_round"], cas["probes_per_round"]),
         "us_per_probe": div(lds["us_per_probe"], cas["us_per_probe"]),
         "no_probe_us_per_round": div(lds["no_probe_us_per_round"], cas["no_probe_us_per_round"])}
    r.update(shares(cas, lds))
    return r


def to_csv(rows):
    stalls = sorted({k for r in rows for k in r if k.startswith("stall_")})
    cols = list(BASE_COLUMNS) + stalls
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows + [ratio_row(rows)]:
        w.writerow([A.fmt_cell(r.get(c, "")) if not isinstance(r.get(c, ""), str) else r.get(c, "")
                    for c in cols])
    return buf.getvalue()


def main(argv=None):
    p = argparse.ArgumentParser(description="the hash table against its LDS/STS twin")
    p.add_argument("run_dir")
    p.add_argument("--csv")
    args = p.parse_args(argv)
    try:
        text = to_csv(rows_of(args.run_dir))
    except (A.AnalyzeError, OSError) as e:
        print("hash_twin: %s" % e, file=sys.stderr)
        return 2
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
