#!/usr/bin/env python3
"""Compares gpuq's utilization numbers with the validation suite's ground truth.

  analyze.py join   --times T.csv --manifest M.csv --ncu N.csv
                    [--variant NAME=MODEL.csv]... --out JOINED.csv
  analyze.py report JOINED.csv [--md TABLE.md] [--doc docs/validation.md]
                    [--svg SCATTER.svg]
  analyze.py counters --model-csv MODEL.csv --times T.csv --manifest M.csv
                    --out COUNTERS.csv
  analyze.py collectors DIR... [--u-ncu MODEL.csv --u-gpuq MODEL.csv]...
                    [--md F] [--doc docs/validation.md] [--csv PER_CASE.csv]

counters: a gpuq counters file of the case run (the raw counters gpuq model
echoes in its CSV) with each case's ATOMS opcode split, which ncu cannot
count and the case construction determines (case_split), so that the
by-opcode model variants can be compared on recorded ncu data.

collectors: per case, the counters `gpuq profile` collected (DIR/counters.csv)
against ncu's for the same cases (DIR/ncu.csv), both mapped onto
DIR/manifest.csv: median and worst relative difference of N, O, cycles,
occupancy, pending and the other shared columns, gpuq's opcode split against
the case construction, and optionally the U each collector's counters give.

join: T.csv is validate_app's timing run (one row per case, truth inputs);
M.csv is the CSV validate_app printed under the profiler (--profile: same
cases, same order, with the kernel launches per case); N.csv is
`ncu --csv --print-units base` output for that run (raw counters, including
the LSU latency metric that gpuq's counters file does not carry); each
MODEL.csv is `gpuq model --model NAME --format csv` on those counters.
Launches are matched to cases by order and checked by kernel name.

report: per model variant and case group, the error against the truth
(median and worst |U - U_true|, count above 105%), the issue's bars for the
default model, Little's-law check of the measured queue length, counter
checks against the counts known by construction, and an SVG scatter of
predicted against true U per variant.

Ground truth (docs/validation.md says why, and where it is not fair):
  atomic  U_true = 1 (nothing but atomics: the atomic unit always has a job)
  free    U_true = 0 exactly (no shared atomics)
  mixed   U_true(k) = T(atomics-only twin, k = 0) / T(k)
  real    hist*: T(atomics-only replay) / T(kernel);
          cub_solid: lower bound 1 - T(cub_uniform) / T(cub_solid); cub_uniform: none;
          hash_cas_t512x1 (built as atomic, counted here since its twin ran):
          lower bound 1 - T(LDS/STS twin) / T(kernel) per round (join --twin-times)

Python 3 standard library only: runs on the CPU machine too.
"""
import argparse
import csv
import gzip
import io
import math
import os
import re
import statistics
import sys

GROUPS = ("atomic", "free", "mixed", "real")
VARIANT_ORDER = ("paper", "steady", "measured-n", "opcode", "measured-steady", "wavefront", "default")

# The bars for the default model.
BAR_ATOMIC_MEDIAN = 0.05
BAR_ATOMIC_WORST = 0.15
BAR_MIXED_MEDIAN = 0.05
BAR_MIXED_WORST = 0.15
BAR_U_MAX = 1.05

# Jobs of at most this many wavefronts (O/N) are "cheap": POPC.INC,
# conflict-free, e = 1 (and CAS at e = 1, 2 wavefronts).  0.01 above 2 for
# counter noise (O/N of a conflict-free CAS reads 2.0002).
CHEAP_JOB_WAVEFRONTS = 2.01

# Verdict thresholds, as in src/papers/atomics/atomics_model.h (GM_ATOMICS_U_BOTTLENECK, GM_ATOMICS_U_SIGNIFICANT).
U_BOTTLENECK = 0.80
U_SIGNIFICANT = 0.50

# Raw ncu metrics analyze.py reads (names as in include/gpuq/counters.h, plus
# the LSU latency metric for Little's law).
NCU_METRICS = {
    "smsp__sass_inst_executed_op_shared_atom.sum": "N_atom_sass",
    "smsp__inst_executed_op_shared_atom.sum": "N_atom",
    "smsp__inst_executed_op_shared_atom_dot_cas.sum": "N_cas",
    "smsp__inst_executed_op_shared_atom_dot_alu.sum": "N_alu",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "O_wavefronts",
    "sm__cycles_active.sum": "cycles_sum",
    "sm__cycles_active.avg": "cycles_avg",
    "sm__cycles_active.min": "cycles_min",
    "sm__cycles_active.max": "cycles_max",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy_pct",
    "gpu__time_duration.sum": "duration_ns",
    "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum": "shared_pending",
    "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum": "shared_inst",
    "sm__average_inst_latency_pipe_lsu_mem_shared_cmd_read.ratio": "shared_latency",
    # The atomic-latency quantity (src/papers/atomics/atomics_latency.h, latency.py),
    # and the counter its derived denominator stands in for.
    "smsp__warps_issue_stalled_short_scoreboard.sum": "stall_short_scoreboard",
    "smsp__warps_issue_stalled_mio_throttle.sum": "stall_mio_throttle",
    "smsp__warps_active.sum": "warps_active",
}
RAW_COLUMNS = list(NCU_METRICS.values())
# Any other stall reason a run collected (STALL_METRICS=all in run.sh) is
# kept as stall_<reason>.
STALL_PREFIX = "smsp__warps_issue_stalled_"

# Per-variant columns copied from gpuq model's CSV (src/core/report_csv.c: the
# atomics section's "atomics.<name>" columns, read under their plain names).
VARIANT_COLUMNS = ("U", "B", "T", "n", "e", "c", "S", "N", "U_lo", "U_hi", "notes", "verdict", "L", "kind")
TEXT_VARIANT_COLUMNS = ("notes", "verdict", "kind")


class AnalyzeError(Exception):
    """An input problem; main() prints it as one line and exits 2."""


# --------------------------------------------------------------------- input

def read_text(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rt", newline="") as f:
            return f.read()
    with open(path, newline="") as f:
        return f.read()


def read_table(path_or_text, from_text=False):
    """Rows of a CSV; '#' lines anywhere and ncu chatter ('==') before the
    header are skipped; returns (header, list of dicts)."""
    text = path_or_text if from_text else read_text(path_or_text)
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    start = 0
    while start < len(lines) and (not lines[start].strip() or lines[start].startswith("==")):
        start += 1
    reader = csv.DictReader(io.StringIO("\n".join(lines[start:]) + "\n"))
    rows = [r for r in reader if any((v or "").strip() for v in r.values() if isinstance(v, str))]
    return reader.fieldnames or [], rows


def read_ncu_long(path_or_text, from_text=False):
    """Parses `ncu --csv [--print-units base]` long output (one row per launch
    and metric).  Returns a list of launches in ID order:
    {'launch_id', 'kernel', metric columns...}.  Skips everything before the
    header line (program output, ==PROF== lines)."""
    text = path_or_text if from_text else read_text(path_or_text)
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        raise AnalyzeError("ncu csv: no header line starting with \"ID\"")
    launches = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]) + "\n")):
        if not row.get("ID") or not row["ID"].strip().isdigit():
            continue
        lid = int(row["ID"])
        rec = launches.setdefault(lid, {"launch_id": lid, "kernel": row.get("Kernel Name", "")})
        name = row.get("Metric Name", "")
        col = NCU_METRICS.get(name)
        if not col and name.startswith(STALL_PREFIX) and name.endswith(".sum"):
            col = "stall_" + name[len(STALL_PREFIX):-len(".sum")]
        if col:
            rec[col] = parse_number(row.get("Metric Value", ""), row.get("Metric Unit", ""))
    return [launches[i] for i in sorted(launches)]


_UNIT_SCALE = {"": 1.0, "inst": 1.0, "cycle": 1.0, "ns": 1.0, "nsecond": 1.0, "%": 1.0,
               "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


def parse_number(value, unit=""):
    """'1,347' -> 1347.0; SI-prefixed count units (Kinst, Mcycle) scaled;
    empty or 'n/a' -> nan."""
    v = (value or "").strip().replace(",", "")
    if not v or v.lower() in ("n/a", "nan", "-"):
        return math.nan
    try:
        x = float(v)
    except ValueError:
        return math.nan
    u = (unit or "").strip()
    if u in _UNIT_SCALE:
        return x * _UNIT_SCALE[u]
    m = re.match(r"^([KMG])(inst|cycle)$", u)
    if m:
        return x * {"K": 1e3, "M": 1e6, "G": 1e9}[m.group(1)]
    return x


def fnum(x):
    """CSV cell -> float (nan for empty)."""
    if x is None:
        return math.nan
    if isinstance(x, (int, float)):
        return float(x)
    return parse_number(x)


# ------------------------------------------------------------------- truth

# Cases the case table builds as atomic-bound (U_true = 1) whose twin
# without atomics showed that their atomics add only part of their time
# (docs/validation.md, "The hash table's twin"): the case and its twin.  The
# join counts them with the real kernels, whose truths are measured shares
# too, with the twin's share as a lower bound (twin_truth).
TWIN_TRUTH = {"hash_cas_t512x1": "hash_lds_sts_t512x1"}


def twin_truth(row, by_name, twin_rows=None):
    """(U_true, kind) of a TWIN_TRUTH case: 1 - T(twin) / T(case) per round
    (the two calibrate their own trip counts), a lower bound: the LDS/STS
    twin probes more per round than the CAS case (1.5x on the H100), so
    plain loads and stores on the case's own probes would take at most the
    twin's time.  The pair comes from one timing run: this one where the
    twin ran in it, else twin_rows (another run's rows by name, the case's
    time from there too).  (nan, none) without the twin."""
    twin = TWIN_TRUTH[row["name"]]
    src = by_name if twin in by_name else (twin_rows or {})
    if twin not in src:
        return math.nan, "none"
    base = src.get(row["name"], row)
    per_round = lambda r: fnum(r.get("time_us")) / fnum(r.get("iters")) if fnum(r.get("iters")) > 0 else math.nan
    tc, tt = per_round(base), per_round(src[twin])
    if not (tc > 0 and tt > 0):
        return math.nan, "none"
    return max(0.0, 1.0 - tt / tc), "lower_bound"


def truth(row, by_name, twin_rows=None):
    """(U_true, kind) for one case row; kind: construction, ratio,
    lower_bound, none.  twin_rows: timing rows by name of a run that holds
    a TWIN_TRUTH case's twin (twin_truth)."""
    group, name = row["group"], row["name"]
    t = fnum(row.get("time_us"))
    a = fnum(row.get("atomics_only_us"))
    if name in TWIN_TRUTH:
        return twin_truth(row, by_name, twin_rows)
    if group == "atomic":
        return 1.0, "construction"
    if group == "free":
        return 0.0, "construction"
    if group == "mixed" or (group == "real" and not name.startswith("cub_")):
        if t > 0 and a > 0:
            return a / t, "ratio"
        return math.nan, "none"
    if name == "cub_solid" and "cub_uniform" in by_name:
        tu = fnum(by_name["cub_uniform"].get("time_us"))
        if t > 0 and tu > 0:
            # Same loads, same instruction count; only the conflict degree
            # differs, so the extra time is time the atomic unit alone needed.
            return max(0.0, 1.0 - tu / t), "lower_bound"
    return math.nan, "none"


def verdict_class(u):
    if isinstance(u, float) and math.isnan(u):
        return "?"
    if u >= U_BOTTLENECK:
        return "bottleneck"
    if u >= U_SIGNIFICANT:
        return "significant"
    return "minor"


# ---------------------------------------------------------------- mapping

def map_launches(manifest, launches):
    """Assigns profiled launches to manifest cases in order.  Each case owns
    `launches` consecutive launches (unknown count: up to the next launch
    whose kernel name matches the next case).  Returns {case name: launch
    record of its main kernel}.  Raises AnalyzeError on any mismatch."""
    out = {}
    pos = 0
    n = len(launches)
    for i, case in enumerate(manifest):
        want = case.get("kernel", "")
        count_s = (case.get("launches") or "").strip()
        if count_s:
            count = int(count_s)
        else:
            nxt = manifest[i + 1].get("kernel", "") if i + 1 < len(manifest) else None
            end = pos + 1
            while end < n and (nxt is None or nxt not in launches[end]["kernel"]):
                end += 1
            count = end - pos
        block = launches[pos:pos + count]
        if len(block) < count:
            raise AnalyzeError("case %s: expected %d launches at launch %d, the profile has %d in all"
                               % (case["name"], count, pos, n))
        matching = [l for l in block if want in l["kernel"]]
        if not matching:
            raise AnalyzeError("case %s: launches %d..%d are %s, none matches '%s' (profile out of step "
                               "with the manifest)" % (case["name"], pos, pos + count - 1,
                                                       [l["kernel"][:40] for l in block], want))
        main = max(matching, key=lambda l: (fnum(l.get("duration_ns")) if not math.isnan(
            fnum(l.get("duration_ns"))) else -1.0))
        out[case["name"]] = main
        pos += count
    if pos != n:
        raise AnalyzeError("the profile has %d launches, the manifest accounts for %d" % (n, pos))
    return out


def normalize_model_row(r):
    """One row of a gpuq report CSV or counters file in the names this script
    uses: report v2's atomics section columns ("atomics.U") as the plain
    names of v1 ("U"), its "demangled" as "kernel", and counters v2's metric
    columns (full metric names) as their short names."""
    for k in list(r):
        if k and k.startswith("atomics."):
            r[k[len("atomics."):]] = r[k]
    if r.get("demangled"):
        r["kernel"] = r["demangled"]
    for name, short in NCU_METRICS.items():
        if name in r and short not in r:
            r[short] = r[name]
    return r


def read_model_csv(path):
    """gpuq model --format csv (or a gpuq counters file): rows keyed by launch_id."""
    _, rows = read_table(path)
    out = {}
    for r in rows:
        normalize_model_row(r)
        lid = (r.get("launch_id") or "").strip()
        if lid.isdigit():
            out[int(lid)] = r
    if not out:
        raise AnalyzeError("%s: no rows with a launch_id" % path)
    return out


def launches_from_model(model_rows):
    """Launch records from a gpuq model CSV (its metric columns carry the
    gm_metric_table short names, which RAW_COLUMNS share)."""
    out = []
    for lid in sorted(model_rows):
        r = model_rows[lid]
        rec = {"launch_id": lid, "kernel": (r.get("kernel") or "") + " " + (r.get("mangled") or "")}
        for col in RAW_COLUMNS:
            rec[col] = fnum(r.get(col))
        out.append(rec)
    return out


# --------------------------------------------------------------- derived

def derived(rec, max_warps_per_sm):
    """Model-independent quantities from one launch's raw counters."""
    d = {}
    N = fnum(rec.get("N_atom"))
    O = fnum(rec.get("O_wavefronts"))
    cyc = fnum(rec.get("cycles_sum"))
    pend = fnum(rec.get("shared_pending"))
    inst = fnum(rec.get("shared_inst"))
    lat = fnum(rec.get("shared_latency"))
    occ = fnum(rec.get("occupancy_pct"))
    d["e_meas"] = O / N if N > 0 else math.nan
    d["n_hat"] = occ / 100.0 * max_warps_per_sm if not math.isnan(occ) else math.nan
    # Little's law, L = lambda W, per active SM cycle: pending/cycles is the
    # mean number of LDS/LDSM/ATOMS warp-instructions in the LSU FIFO; the
    # arrival rate is inst/cycles and W the counter's mean latency.
    d["little_L"] = pend / cyc if cyc > 0 else math.nan
    d["little_pred"] = inst / cyc * lat if cyc > 0 and not math.isnan(lat) else math.nan
    d["little_ratio"] = (d["little_L"] / d["little_pred"]
                         if d["little_pred"] and d["little_pred"] > 0 else math.nan)
    # The measured queue length apportioned to atomics (their share of the
    # LSU shared-pipe instructions).
    d["n_meas_atom"] = d["little_L"] * N / inst if inst > 0 and not math.isnan(N) else math.nan
    # Active SM cycles per wavefront: 1.0 where the unit retires one
    # wavefront per cycle (what saturated atomic-bound kernels show).
    d["cycles_per_wavefront"] = cyc / O if O > 0 else math.nan
    # Wavefronts retired per active SM-cycle: the model-free rate that gpuq's
    # `wavefront` variant turns into U with w from the table (B = O w).  Not a
    # U_ column, so that the report compares gpuq's variants only.
    d["wavefronts_per_cycle"] = O / cyc if cyc > 0 and not math.isnan(O) else math.nan
    return d


JOIN_CASE_COLUMNS = ("group", "name", "op", "pattern", "e", "k", "work", "chain", "threads", "blocks",
                     "blocks_per_sm", "warps_per_sm", "waves", "alt_warps", "cas_warps_per_sm", "iters",
                     "time_us", "time_min_us", "time_max_us", "atomics_only_us", "atomics_only_min_us",
                     "atomics_only_max_us", "n_atom_expected")


def join(times_rows, manifest_rows, launches, variants, max_warps_per_sm=64, twin_rows=None):
    """Builds the joined rows (list of dicts) from parsed inputs.
    twin_rows: another timing run's rows by name, for TWIN_TRUTH cases
    whose twin this run lacks."""
    by_name = {r["name"]: r for r in times_rows}
    missing = [m["name"] for m in manifest_rows if m["name"] not in by_name]
    if missing:
        raise AnalyzeError("manifest cases not in the timing CSV: %s" % ", ".join(missing[:5]))
    mapping = map_launches(manifest_rows, launches) if launches else {}
    extra_stalls = sorted({k for l in launches for k in l
                           if k.startswith("stall_") and k not in RAW_COLUMNS})
    joined = []
    for m in manifest_rows:
        row = by_name[m["name"]]
        out = {c: row.get(c, "") for c in JOIN_CASE_COLUMNS}
        u, kind = truth(row, by_name, twin_rows)
        if m["name"] in TWIN_TRUTH:
            out["group"] = "real"  # its truth is a measured share, not 1
        out["U_true"] = u
        out["truth"] = kind
        rec = mapping.get(m["name"], {})
        out["launch_id"] = rec.get("launch_id", "")
        out["kernel_name"] = rec.get("kernel", "")
        for col in RAW_COLUMNS + extra_stalls:
            out[col] = rec.get(col, math.nan)
        out.update(derived(rec, max_warps_per_sm))
        for vname, model_rows in variants:
            mr = model_rows.get(rec.get("launch_id"), {}) if rec else {}
            if mr and m.get("kernel", "") not in (mr.get("kernel") or "") + (mr.get("mangled") or ""):
                raise AnalyzeError("variant %s: launch %s is '%s', case %s expects '%s' (model input "
                                   "and profile out of step)" % (vname, rec.get("launch_id"),
                                                                 (mr.get("kernel") or "")[:40],
                                                                 m["name"], m.get("kernel", "")))
            for col in VARIANT_COLUMNS:
                val = mr.get(col, "")
                out["%s_%s" % (col, vname)] = val if col in TEXT_VARIANT_COLUMNS else fnum(val)
        joined.append(out)
    return joined


# ------------------------------------------------------- counters + split

COUNTERS_COLUMNS = ("launch_id", "kernel", "mangled", "device", "grid_x", "grid_y", "grid_z", "block_x",
                    "block_y", "block_z", "regs", "shared_bytes", "N_atom_sass", "N_atom", "N_cas", "N_alu",
                    "O_wavefronts", "cycles_sum", "cycles_avg", "cycles_min", "cycles_max", "occupancy_pct",
                    "duration_ns", "shared_pending", "shared_inst", "split_valid", "split_add", "split_cas",
                    "split_popc_inc", "split_other")


def case_split(case, N, N_cas):
    """(add, cas, popc_inc, other) executed ATOMS of one case's main kernel,
    or None where the case does not determine them.  check_sass.py has
    verified that each loop or histogram kernel issues only its own ATOMS
    opcodes, so a single-opcode kernel's N is all of that opcode; in an
    ADD+CAS mix the hardware counts the CAS; in a POPC.INC+ADD mix, alt_warps
    of each block's warps issue ADD and all warps issue the same number.
    CUB's sweep kernel has ATOMS.ADD and ATOMS.POPC.INC in its SASS in
    unknown dynamic shares: None."""
    op = case.get("op", "")
    if math.isnan(N) or N < 0:
        return None
    if op == "add":
        return (N, 0.0, 0.0, 0.0)
    if op == "cas":
        return (0.0, N, 0.0, 0.0)
    if op == "popc_inc":
        return (0.0, 0.0, N, 0.0)
    if op == "add+cas" and not math.isnan(N_cas):
        return (N - N_cas, N_cas, 0.0, 0.0)
    if op == "popc_inc+add":
        warps = fnum(case.get("threads")) / 32.0
        alt = fnum(case.get("alt_warps"))
        if warps > 0 and 0 <= alt <= warps:
            add = N * alt / warps
            return (add, 0.0, N - add, 0.0)
    return None


def counters_with_split(model_rows, times_rows, manifest_rows):
    """The rows of a gpuq counters file: the raw counters that gpuq model
    echoed in its CSV, with the opcode split of each case's main kernel
    (case_split) standing in for the per-instruction counts `gpuq profile`
    collects and ncu does not.  Returns (rows, cases with a split)."""
    by_name = {r["name"]: r for r in times_rows}
    launches = launches_from_model(model_rows)
    mapping = map_launches(manifest_rows, launches)
    split_of = {}
    for m in manifest_rows:
        rec = mapping.get(m["name"])
        case = dict(by_name.get(m["name"], {}))
        case.update({k: v for k, v in m.items() if v not in (None, "")})
        if rec is None:
            continue
        sp = case_split(case, fnum(rec.get("N_atom_sass")) if not math.isnan(fnum(rec.get("N_atom_sass")))
                        else fnum(rec.get("N_atom")), fnum(rec.get("N_cas")))
        if sp is not None:
            split_of[rec["launch_id"]] = sp
    rows = []
    for lid in sorted(model_rows):
        src = model_rows[lid]
        row = {c: src.get(c, "") for c in COUNTERS_COLUMNS}
        sp = split_of.get(lid)
        if sp is not None:
            row["split_valid"] = "1"
            for col, v in zip(("split_add", "split_cas", "split_popc_inc", "split_other"), sp):
                row[col] = "%.17g" % v
        else:
            row["split_valid"] = "0"
            for col in ("split_add", "split_cas", "split_popc_inc", "split_other"):
                row[col] = ""
        rows.append(row)
    return rows, len(split_of)


def header_value(path, key):
    """The value of a '# key: value' line of a CSV (validate_app's header)."""
    for line in read_text(path).splitlines():
        if line.startswith("# %s:" % key):
            return line.split(":", 1)[1].strip()
    return ""


def cmd_counters(args):
    _, times_rows = read_table(args.times)
    _, manifest_rows = read_table(args.manifest)
    manifest_rows = first_run_only(manifest_rows)
    model_rows = read_model_csv(args.model_csv)
    rows, with_split = counters_with_split(model_rows, times_rows, manifest_rows)
    meta = [("device_name", header_value(args.times, "device")),
            ("compute_capability", header_value(args.times, "compute_capability") or "0.0"),
            ("sm_count", header_value(args.times, "sm_count") or "0"),
            ("max_warps_per_sm", header_value(args.times, "max_warps_per_sm") or "0"),
            ("source", "analyze.py counters: %s, opcode split from the case construction (single-opcode "
                       "kernels checked by check_sass.py)" % os.path.basename(args.model_csv))]
    with open(args.out, "w", newline="") as f:
        f.write("# gpuq counters v1\n")
        for k, v in meta:
            f.write("# %s: %s\n" % (k, v.replace("\n", " ")))
        w = csv.DictWriter(f, fieldnames=COUNTERS_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    print("analyze: %d launches, %d with an opcode split -> %s" % (len(rows), with_split, args.out))


# ------------------------------------------------- gpuq profile against ncu

# The quantities both collectors record per launch (columns of the gpuq
# counters file and of the ncu import, include/gpuq/counters.h), with the
# paper's symbols (Table 1) where it has one.  The first five are the ones
# the model reads: N, O, T (cycles), the occupancy behind n-hat, and the
# queue-length integral behind the measured n.
COLLECTOR_QUANTITIES = (
    ("N", "N_atom"),
    ("O", "O_wavefronts"),
    ("cycles (T)", "cycles_sum"),
    ("occupancy (n-hat)", "occupancy_pct"),
    ("pending (n_meas)", "shared_pending"),
    ("N, SASS count", "N_atom_sass"),
    ("N_c", "N_cas"),
    ("N_f", "N_alu"),
    ("LSU shared instructions", "shared_inst"),
    ("duration", "duration_ns"),
)


def relative_difference(gpuq_value, ncu_value):
    """|g - n| / |n|; 0 where both are equal (also both 0), inf where ncu
    reads 0 and gpuq does not, nan where either was not collected."""
    if math.isnan(gpuq_value) or math.isnan(ncu_value):
        return math.nan
    if gpuq_value == ncu_value:
        return 0.0
    if ncu_value == 0.0:
        return math.inf
    return abs(gpuq_value - ncu_value) / abs(ncu_value)


def gpuq_split(row):
    """(add, cas, popc_inc, other) of a gpuq counters row, None if invalid."""
    if (row.get("split_valid") or "").strip() != "1":
        return None
    vals = tuple(fnum(row.get(c)) for c in ("split_add", "split_cas", "split_popc_inc", "split_other"))
    return None if any(math.isnan(v) for v in vals) else vals


def collector_pairs(times_rows, manifest_rows, ncu_launches, gpuq_rows):
    """Per case: the main-kernel launch each collector recorded.  Both ran
    the same program with the same arguments, so both launch lists map onto
    the one manifest (map_launches checks every kernel name).  Returns a
    list of {group, name, case, ncu, gpuq, gpuq_row}."""
    by_name = {r["name"]: r for r in times_rows}
    ncu_map = map_launches(manifest_rows, ncu_launches)
    gpuq_map = map_launches(manifest_rows, launches_from_model(gpuq_rows))
    out = []
    for m in manifest_rows:
        case = dict(by_name.get(m["name"], {}))
        case.update({k: v for k, v in m.items() if v not in (None, "")})
        g = gpuq_map[m["name"]]
        out.append({"group": case.get("group", ""), "name": m["name"], "case": case,
                    "ncu": ncu_map[m["name"]], "gpuq": g, "gpuq_row": gpuq_rows[g["launch_id"]]})
    return out


def compare_collectors(pairs):
    """Statistics of gpuq's counters against ncu's over the case pairs.
    Returns {'quantities': [(label, column, cases, identical, median, worst,
    worst case, not collected by gpuq, nonzero where ncu reads 0)],
    'split': {...}, 'u': (cases, identical, median, worst, worst case) or
    None}."""
    quantities = []
    for label, col in COLLECTOR_QUANTITIES:
        diffs, missing, spurious = [], 0, 0
        for p in pairs:
            g, n = fnum(p["gpuq"].get(col)), fnum(p["ncu"].get(col))
            if math.isnan(n):
                continue
            if math.isnan(g):
                missing += 1
                continue
            d = relative_difference(g, n)
            if math.isinf(d):
                spurious += 1
                continue
            diffs.append((d, "%s/%s" % (p["group"], p["name"])))
        worst = max(diffs) if diffs else (math.nan, "")
        quantities.append((label, col, len(diffs), sum(1 for d, _ in diffs if d == 0.0),
                           statistics.median([d for d, _ in diffs]) if diffs else math.nan,
                           worst[0], worst[1] if worst[0] > 0 else "", missing, spurious))
    # The opcode split: gpuq counts executed instructions per SASS opcode;
    # the construction (case_split, checked by check_sass.py) determines it
    # for every loop and histogram kernel, and an atomic-free kernel has
    # none of any opcode.
    split = {"both": 0, "identical": 0, "differ": [], "gpuq_only": [], "construction_only": [],
             "sum_off": []}
    for p in pairs:
        n_ncu = fnum(p["ncu"].get("N_atom"))
        built = case_split(p["case"], n_ncu, fnum(p["ncu"].get("N_cas")))
        if built is None and n_ncu == 0.0:
            built = (0.0, 0.0, 0.0, 0.0)
        got = gpuq_split(p["gpuq_row"])
        if got is not None and abs(sum(got) - fnum(p["gpuq"].get("N_atom"))) > 0.5:
            split["sum_off"].append(p["name"])
        if built is not None and got is not None:
            split["both"] += 1
            if got == built:
                split["identical"] += 1
            else:
                split["differ"].append((p["name"], got, built))
        elif got is not None:
            split["gpuq_only"].append((p["name"], got))
        elif built is not None:
            split["construction_only"].append(p["name"])
    u = None
    us = [(p["u_gpuq"], p["u_ncu"], p["name"]) for p in pairs if "u_gpuq" in p]
    us = [(a, b, name) for a, b, name in us if not (math.isnan(a) or math.isnan(b))]
    if us:
        diffs = [(abs(a - b), name) for a, b, name in us]
        worst = max(diffs)
        u = (len(diffs), sum(1 for d, _ in diffs if d == 0.0), statistics.median([d for d, _ in diffs]),
             worst[0], worst[1] if worst[0] > 0 else "")
    return {"quantities": quantities, "split": split, "u": u}


def timing_spread(times_rows):
    """(cases, median, worst) of (max - min) / median over the timing run's
    repetitions: the run-to-run scale against which the timing-dependent
    counters of two profiled runs can be read."""
    xs = []
    for r in times_rows:
        t, lo, hi = fnum(r.get("time_us")), fnum(r.get("time_min_us")), fnum(r.get("time_max_us"))
        if t > 0 and not (math.isnan(lo) or math.isnan(hi)):
            xs.append((hi - lo) / t)
    return (len(xs), statistics.median(xs) if xs else math.nan, max(xs) if xs else math.nan)


def fmt_pct(x):
    """A relative difference as a percentage, 2 significant digits; 0 exact."""
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return "0" if x == 0.0 else "%.2g%%" % (100.0 * x)


def fmt_split(sp):
    return "ADD %d, CAS %d, POPC.INC %d, other %d" % tuple(int(round(v)) for v in sp)


def collectors_markdown(pairs, stats, spread, variant="default", source=""):
    lines = []
    if source:
        lines.append("Data: %s" % source)
        lines.append("")
    counts = {g: sum(1 for p in pairs if p["group"] == g) for g in GROUPS}
    lines.append("Cases: " + ", ".join("%s %d" % (g, counts[g]) for g in GROUPS if counts[g]) + ".")
    lines.append("")
    lines.append("Per case, gpuq's value g against ncu's n: relative difference |g - n| / n, in percent "
                 "(0: both read the same number, also where both read 0). 'identical': cases with the "
                 "same number in both files.")
    lines.append("")
    lines.append("| quantity | column | cases | identical | median | worst | worst case |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    for label, col, n, same, med, worst, case, missing, spurious in stats["quantities"]:
        extra = []
        if missing:
            extra.append("%d not collected by gpuq" % missing)
        if spurious:
            extra.append("%d nonzero where ncu reads 0" % spurious)
        lines.append("| %s | `%s` | %d%s | %d | %s | %s | %s |" % (
            label, col, n, " (%s)" % "; ".join(extra) if extra else "", same, fmt_pct(med),
            fmt_pct(worst), "`%s`" % case if case else "-"))
    lines.append("")
    if spread[0]:
        lines.append("For scale, the timing run's spread over its repetitions, (max - min) / median: "
                     "median %s, worst %s (%d cases)." % (fmt_pct(spread[1]), fmt_pct(spread[2]), spread[0]))
        lines.append("")
    sp = stats["split"]
    lines.append("ATOMS opcode split, gpuq's per-instruction SASS counts against the split the case "
                 "construction gives (analyze.py counters): identical in %d of %d cases where both exist." % (
                     sp["identical"], sp["both"]))
    if sp["differ"] or sp["gpuq_only"] or sp["construction_only"] or sp["sum_off"]:
        lines.append("")
    for name, got, built in sp["differ"]:
        lines.append("- differs: `%s`: gpuq %s, construction %s" % (name, fmt_split(got), fmt_split(built)))
    for name, got in sp["gpuq_only"]:
        lines.append("- gpuq only (the construction does not determine it): `%s`: %s" % (name, fmt_split(got)))
    for name in sp["construction_only"]:
        lines.append("- construction only (gpuq recorded no split): `%s`" % name)
    if sp["sum_off"]:
        lines.append("- split does not add up to gpuq's N: %s" % ", ".join("`%s`" % n for n in sp["sum_off"]))
    lines.append("")
    if stats["u"]:
        n, same, med, worst, case = stats["u"]
        lines.append("U of `%s` from each collector's counters (the ncu counters carry the construction "
                     "split): |U_gpuq - U_ncu| median %s, worst %s%s, over %d cases (%d identical)." % (
                         variant, fmt(med, "%.2g"), fmt(worst, "%.2g"),
                         " (`%s`)" % case if case else "", n, same))
        lines.append("")
    return "\n".join(lines) + "\n"


COLLECTOR_CSV_COLUMNS = ["group", "name", "ncu_launch_id", "gpuq_launch_id"]
for _label, _col in COLLECTOR_QUANTITIES:
    COLLECTOR_CSV_COLUMNS += ["%s_ncu" % _col, "%s_gpuq" % _col, "%s_rel" % _col]
COLLECTOR_CSV_COLUMNS += ["U_ncu", "U_gpuq"]


def collectors_csv_rows(pairs):
    out = []
    for p in pairs:
        r = {"group": p["group"], "name": p["name"], "ncu_launch_id": p["ncu"]["launch_id"],
             "gpuq_launch_id": p["gpuq"]["launch_id"]}
        for _, col in COLLECTOR_QUANTITIES:
            g, n = fnum(p["gpuq"].get(col)), fnum(p["ncu"].get(col))
            r["%s_ncu" % col], r["%s_gpuq" % col] = n, g
            r["%s_rel" % col] = relative_difference(g, n)
        r["U_ncu"], r["U_gpuq"] = p.get("u_ncu", math.nan), p.get("u_gpuq", math.nan)
        out.append(r)
    return out


def collector_dir_files(directory):
    """(times, manifest, ncu, counters) paths of one run.sh output folder."""
    def pick(*names):
        for n in names:
            path = os.path.join(directory, n)
            if os.path.exists(path):
                return path
        raise AnalyzeError("%s: no %s" % (directory, " or ".join(names)))
    return (pick("times.csv"), pick("manifest.csv", "manifest_gpuq.csv"), pick("ncu.csv"), pick("counters.csv"))


def cmd_collectors(args):
    for opt, files in (("--u-ncu", args.u_ncu), ("--u-gpuq", args.u_gpuq)):
        if files and len(files) != len(args.dirs):
            raise AnalyzeError("%s given %d times for %d folders (one per folder, in order)"
                               % (opt, len(files), len(args.dirs)))
    if bool(args.u_ncu) != bool(args.u_gpuq):
        raise AnalyzeError("--u-ncu and --u-gpuq go together")
    pairs, times_all = [], []
    for i, d in enumerate(args.dirs):
        times, manifest, ncu, counters = collector_dir_files(d)
        _, times_rows = read_table(times)
        _, manifest_rows = read_table(manifest)
        manifest_rows = first_run_only(manifest_rows)
        part = collector_pairs(times_rows, manifest_rows, read_ncu_long(ncu), read_model_csv(counters))
        if args.u_ncu:
            u_ncu = read_model_csv(args.u_ncu[i])
            u_gpuq = read_model_csv(args.u_gpuq[i])
            for p in part:
                for key, rows, rec in (("u_ncu", u_ncu, p["ncu"]), ("u_gpuq", u_gpuq, p["gpuq"])):
                    mr = rows.get(rec["launch_id"])
                    if mr is None or p["case"].get("kernel", "") not in (mr.get("kernel") or "") + (
                            mr.get("mangled") or ""):
                        raise AnalyzeError("%s: launch %s of case %s is not in step with the model CSV"
                                           % (key, rec["launch_id"], p["name"]))
                    p[key] = fnum(mr.get("U"))
        pairs.extend(part)
        times_all.extend(times_rows)
    stats = compare_collectors(pairs)
    md = collectors_markdown(pairs, stats, timing_spread(times_all), args.variant, args.source or "")
    if args.csv:
        # Counts up to ~1e11 (cycles summed over SMs) stay exact.
        write_csv(args.csv, collectors_csv_rows(pairs), "%.15g")
    write_report(md, args.md, args.doc, COLLECTORS_BEGIN, COLLECTORS_END)


def variant_names(header):
    return [h[2:] for h in header if h.startswith("U_") and h not in ("U_true",)
            and not h.startswith(("U_lo_", "U_hi_"))]


def sort_variants(names):
    return sorted(names, key=lambda v: (VARIANT_ORDER.index(v) if v in VARIANT_ORDER else 99, v))


def write_csv(path, rows, float_format="%.6g"):
    if not rows:
        raise AnalyzeError("nothing to write")
    header = list(rows[0].keys())
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: fmt_cell(v, float_format) for k, v in r.items()})


def fmt_cell(v, float_format="%.6g"):
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return float_format % v
    return v


# ------------------------------------------------------------------ errors

def finite(xs):
    return [x for x in xs if isinstance(x, float) and not math.isnan(x)]


def group_errors(rows, variant):
    """{group: stats} for one variant.  Stats: n (cases with truth and U),
    median and worst |U - U_true|, above (U > 105%), worst_case, missing
    (cases with truth but no U), for free: nonzero (U != 0)."""
    out = {}
    for g in GROUPS:
        errs, above, nonzero, missing, worst_case = [], 0, 0, 0, ""
        worst = 0.0  # a worst case is named only where some error is above 0
        for r in rows:
            if r["group"] != g:
                continue
            u = fnum(r.get("U_" + variant))
            t = fnum(r.get("U_true"))
            if math.isnan(u):
                if not math.isnan(t):
                    missing += 1
                continue
            if u > BAR_U_MAX:
                above += 1
            if g == "free" and u != 0.0:
                nonzero += 1
            if math.isnan(t) or r.get("truth") == "lower_bound":
                continue
            err = abs(u - t)
            errs.append(err)
            if err > worst:
                worst, worst_case = err, r["name"]
        out[g] = {
            "n": len(errs),
            "median": statistics.median(errs) if errs else math.nan,
            "worst": max(errs) if errs else math.nan,
            "above": above,
            "nonzero": nonzero,
            "missing": missing,
            "worst_case": worst_case,
        }
    return out


def verdict_agreement(rows, variant):
    """Real group: (agree, total, disagreements) of the verdict from U with
    the verdict from the timing truth (for a lower bound: U >= bound - 0.05)."""
    agree, total, bad = 0, 0, []
    for r in rows:
        if r["group"] != "real":
            continue
        u, t = fnum(r.get("U_" + variant)), fnum(r.get("U_true"))
        if math.isnan(u) or math.isnan(t):
            continue
        total += 1
        if r.get("truth") == "lower_bound":
            ok = u >= t - 0.05
        else:
            ok = verdict_class(u) == verdict_class(t)
        agree += ok
        if not ok:
            bad.append("%s (U %.2f, truth %s%.2f)" % (r["name"], u,
                                                       ">= " if r.get("truth") == "lower_bound" else "",
                                                       t))
    return agree, total, bad


def bars(stats):
    """The issue's bars for one variant's group stats: list of (bar, passed, detail)."""
    a, f, m = stats["atomic"], stats["free"], stats["mixed"]
    above = sum(stats[g]["above"] for g in GROUPS)
    res = []

    def check(name, value, limit):
        if math.isnan(value):
            res.append((name, None, "no data"))
        else:
            res.append((name, value <= limit, "%.3f (bar %.2f)" % (value, limit)))

    check("atomic-bound median |U-1|", a["median"], BAR_ATOMIC_MEDIAN)
    check("atomic-bound worst |U-1|", a["worst"], BAR_ATOMIC_WORST)
    if f["n"] == 0:
        res.append(("atomic-free U = 0 exactly", None, "no data"))
    else:
        res.append(("atomic-free U = 0 exactly", f["nonzero"] == 0,
                    "%d of %d nonzero" % (f["nonzero"], f["n"])))
    check("mixed median |U-U_true|", m["median"], BAR_MIXED_MEDIAN)
    check("mixed worst |U-U_true|", m["worst"], BAR_MIXED_WORST)
    n_any = sum(stats[g]["n"] for g in GROUPS)
    res.append(("no kernel above 105%", above == 0 if n_any else None, "%d above" % above))
    return res


def loop_classes():
    """(label, selector) for atomic-group rows: serialized (O/N > 2) or cheap
    jobs, few or many warps per SM, and the dependent chains."""
    def cls(cheap, lo, hi):
        def sel(r):
            e, w = fnum(r.get("e_meas")), fnum(r.get("warps_per_sm"))
            return (not fnum(r.get("chain")) and (e <= CHEAP_JOB_WAVEFRONTS) == cheap and lo <= w < hi)
        return sel
    return (("O/N > 2, 1-3 warps/SM", cls(False, 0, 4)),
            ("O/N > 2, 4+ warps/SM", cls(False, 4, 1e9)),
            ("O/N <= 2, 1-15 warps/SM", cls(True, 0, 16)),
            ("O/N <= 2, 16+ warps/SM", cls(True, 16, 1e9)),
            ("dependent chains", lambda r: fnum(r.get("chain")) == 1))


def above_by_cost(rows, variant):
    """Atomic-group cases with U above 105%: (count with O/N <= 2, count
    with O/N > 2, their U values)."""
    cheap = serial = 0
    us = []
    for r in rows:
        u, e = fnum(r.get("U_" + variant)), fnum(r.get("e_meas"))
        if r["group"] != "atomic" or math.isnan(u) or u <= BAR_U_MAX:
            continue
        us.append(u)
        if e <= CHEAP_JOB_WAVEFRONTS:
            cheap += 1
        else:
            serial += 1
    return cheap, serial, us


def little_stats(rows):
    """Little's-law ratio L_measured / (throughput x latency) per group:
    (n, median, min, max)."""
    out = {}
    for g in GROUPS + ("all",):
        xs = finite([fnum(r.get("little_ratio")) for r in rows if g == "all" or r["group"] == g])
        out[g] = (len(xs), statistics.median(xs) if xs else math.nan, min(xs) if xs else math.nan,
                  max(xs) if xs else math.nan)
    return out


def counter_checks(rows):
    """Counters against construction: N_atom / n_atom_expected over cases
    where the count is known, and e_meas = O/N against e for same_address
    ADD/CAS cases.  Returns a list of (check, n, worst relative deviation,
    worst case)."""
    checks = []
    devs, zeros = [], []
    for r in rows:
        want, got = fnum(r.get("n_atom_expected")), fnum(r.get("N_atom"))
        if math.isnan(want) or math.isnan(got):
            continue
        if want > 0:
            devs.append((abs(got - want) / want, r["name"]))
        else:
            zeros.append((abs(got), r["name"]))
    if devs:
        worst = max(devs)
        checks.append(("N_atom = warp-level atomics by construction", len(devs), worst[0], worst[1]))
    if zeros:
        worst = max(zeros)
        checks.append(("N_atom = 0 where no shared atomic runs (value, not ratio)", len(zeros), worst[0],
                       worst[1]))
    edevs = []
    for r in rows:
        # ADD only: CAS costs two wavefronts per lane and POPC.INC one per
        # instruction (see counter_findings), so O/N is not e for them.
        if r.get("pattern") != "same_address" or r.get("op") != "add":
            continue
        e_meas, e = fnum(r.get("e_meas")), fnum(r.get("e"))
        if math.isnan(e_meas) or math.isnan(e):
            continue
        edevs.append((abs(e_meas - e) / e, r["name"]))
    if edevs:
        worst = max(edevs)
        checks.append(("e = O/N = active lanes (same-address ADD)", len(edevs), worst[0], worst[1]))
    return checks


# ------------------------------------------------------------------ report

def conflict_degree(row):
    """Serialization the case builds in: e for one address, k for k-way bank
    conflicts, 1 conflict-free; nan where not constructed."""
    pat, e = row.get("pattern", ""), fnum(row.get("e"))
    if pat in ("same_address", "shared_word"):
        return e
    if pat == "conflict_free":
        return 1.0
    m = re.match(r"bank(\d+)$", pat or "")
    return float(m.group(1)) if m else math.nan


def quantiles(xs):
    xs = finite(xs)
    if not xs:
        return (0, math.nan, math.nan, math.nan)
    return (len(xs), statistics.median(xs), min(xs), max(xs))


def counter_findings(rows):
    """Model-independent facts the counters show against construction:
    wavefronts per job by opcode, cycles per wavefront at saturation, and the
    queue length n (occupancy estimate vs measured).  Returns markdown lines."""
    lines = []
    single = [r for r in rows if r["group"] in ("atomic", "mixed") and r.get("op") in ("add", "popc_inc", "cas")]
    lines.append("| opcode | cases | O/N / conflict degree: median | min | max |")
    lines.append("| --- | --- | --- | --- | --- |")
    for op in ("add", "popc_inc", "cas"):
        xs = [fnum(r.get("e_meas")) / conflict_degree(r) for r in single if r.get("op") == op]
        n, med, lo, hi = quantiles(xs)
        lines.append("| %s | %d | %s | %s | %s |" % (op, n, fmt(med), fmt(lo), fmt(hi)))
    lines.append("")
    sat = [r for r in rows if r["group"] == "atomic" and fnum(r.get("warps_per_sm")) >= 16 and not fnum(r.get("chain"))]
    lines.append("Active SM cycles per wavefront in atomic-bound cases with 16 or more warps per SM "
                 "(1.0 = one wavefront per cycle):")
    lines.append("")
    lines.append("| opcode | cases | median | min | max |")
    lines.append("| --- | --- | --- | --- | --- |")
    for op in sorted({r.get("op") for r in sat}):
        n, med, lo, hi = quantiles([fnum(r.get("cycles_per_wavefront")) for r in sat if r.get("op") == op])
        lines.append("| %s | %d | %s | %s | %s |" % (op, n, fmt(med), fmt(lo), fmt(hi)))
    lines.append("")
    lines.append("Queue length n per SM: the paper's estimate n-hat = occupancy x warps per SM against the "
                 "measured atomics in the LSU shared FIFO (n_meas = pending/cycles x N_atom/shared_inst):")
    lines.append("")
    lines.append("| cases | count | n-hat / n_meas: median | min | max |")
    lines.append("| --- | --- | --- | --- | --- |")
    for label, sel in (
            ("atomic, independent atomics", lambda r: r["group"] == "atomic" and not fnum(r.get("chain"))),
            ("atomic, dependent chains", lambda r: r["group"] == "atomic" and fnum(r.get("chain")) == 1),
            ("mixed", lambda r: r["group"] == "mixed"),
            ("real", lambda r: r["group"] == "real")):
        xs = [fnum(r.get("n_hat")) / fnum(r.get("n_meas_atom")) for r in rows if sel(r)
              and fnum(r.get("n_meas_atom")) > 0]
        n, med, lo, hi = quantiles(xs)
        lines.append("| %s | %d | %s | %s | %s |" % (label, n, fmt(med), fmt(lo), fmt(hi)))
    lines.append("")
    chains = [r for r in rows if fnum(r.get("chain")) == 1 and fnum(r.get("n_meas_atom")) > 0]
    if chains:
        lines.append("Dependent chains hold at most one atomic per warp in flight, so n_meas <= warps per SM "
                     "by construction:")
        lines.append("")
        for r in chains:
            lines.append("- `%s`: %d warps per SM, n_meas %.2f, n-hat %.1f" % (
                r["name"], fnum(r.get("warps_per_sm")), fnum(r.get("n_meas_atom")), fnum(r.get("n_hat"))))
        lines.append("")
    return lines


def fmt(x, spec="%.3f"):
    return "-" if isinstance(x, float) and math.isnan(x) else spec % x


def markdown_report(rows, source=""):
    header = list(rows[0].keys()) if rows else []
    variants = sort_variants(variant_names(header))
    lines = []
    if source:
        lines.append("Data: %s" % source)
        lines.append("")
    counts = {g: sum(1 for r in rows if r["group"] == g) for g in GROUPS}
    lines.append("Cases: " + ", ".join("%s %d" % (g, counts[g]) for g in GROUPS) + ".")
    lines.append("")
    if not variants:
        lines.append("No model variant in the data (gpuq model was not run).")
    else:
        lines.append("| variant | atomic: median / worst abs(U-1), >105% | free: U != 0 | "
                     "mixed: median / worst abs(U-U_true), >105% | real: median / worst, verdicts agree | "
                     ">105%, all groups | bars met |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- |")
        all_stats = {}
        for v in variants:
            s = group_errors(rows, v)
            all_stats[v] = s
            a, f, m, r = s["atomic"], s["free"], s["mixed"], s["real"]
            agree, total, _ = verdict_agreement(rows, v)
            verdicts = bars(s)
            met = sum(1 for _, ok, _ in verdicts if ok)
            lines.append("| %s | %s / %s, %d (n=%d) | %d of %d | %s / %s, %d (n=%d) | %s / %s, %d of %d | %d | "
                         "%d of %d |" % (
                             v, fmt(a["median"]), fmt(a["worst"]), a["above"], a["n"], f["nonzero"], f["n"],
                             fmt(m["median"]), fmt(m["worst"]), m["above"], m["n"], fmt(r["median"]),
                             fmt(r["worst"]), agree, total, sum(s[g]["above"] for g in GROUPS), met,
                             len(verdicts)))
        lines.append("")
        target = "default" if "default" in variants else variants[-1]
        lines.append("Bars (issue), model `%s`:" % target)
        lines.append("")
        for name, ok, detail in bars(all_stats[target]):
            lines.append("- %s: %s, %s" % (name, "no data" if ok is None else ("PASS" if ok else "FAIL"), detail))
        lines.append("")
        misses = [r for r in rows if r["group"] == "atomic" and
                  abs(fnum(r.get("U_" + target)) - 1.0) > BAR_ATOMIC_WORST]
        if misses:
            lines.append("Atomic-bound cases where `%s` is more than %.2f from 1:" % (target, BAR_ATOMIC_WORST))
            lines.append("")
            lines.append("| case | warps/SM | O/N | n_meas | U |")
            lines.append("| --- | --- | --- | --- | --- |")
            for r in sorted(misses, key=lambda r: fnum(r.get("U_" + target))):
                lines.append("| `%s` | %d | %.1f | %.2f | %.3f |" % (
                    r["name"], fnum(r.get("warps_per_sm")), fnum(r.get("e_meas")), fnum(r.get("n_meas_atom")),
                    fnum(r.get("U_" + target))))
            lines.append("")
        lines.append("`%s` on the atomic-bound cases, by cost per job and warps per SM (dependent chains "
                     "in their own row): |U-1|" % target)
        lines.append("")
        lines.append("| loops | cases | median | worst |")
        lines.append("| --- | --- | --- | --- |")
        for label, sel in loop_classes():
            xs = [abs(fnum(r.get("U_" + target)) - 1.0) for r in rows if r["group"] == "atomic" and sel(r)]
            n, med, _, hi = quantiles(xs)
            lines.append("| %s | %d | %s | %s |" % (label, n, fmt(med), fmt(hi)))
        lines.append("")
        lines.append("Atomic-bound cases above 105%, by wavefronts per job (O/N): cheap jobs (1-2 "
                     "wavefronts: POPC.INC, conflict-free, e = 1, CAS e = 1) against serialized ones:")
        lines.append("")
        lines.append("| variant | O/N <= 2 | O/N > 2 | median U of those above |")
        lines.append("| --- | --- | --- | --- |")
        for v in variants:
            cheap, serial, us = above_by_cost(rows, v)
            lines.append("| %s | %d | %d | %s |" % (v, cheap, serial, fmt(statistics.median(us)) if us else "-"))
        lines.append("")
        lines.append("Worst case per group and variant:")
        lines.append("")
        for v in variants:
            s = all_stats[v]
            worst = ["%s `%s`" % (g, s[g]["worst_case"]) for g in GROUPS if s[g]["worst_case"]]
            lines.append("- %s: %s" % (v, "; ".join(worst) if worst else "-"))
            _, _, bad = verdict_agreement(rows, v)
            if bad:
                lines.append("  - real-kernel verdicts that disagree: %s" % "; ".join(bad))
        lines.append("")
    lit = little_stats(rows)
    lines.append("Little's law, L = pending/cycles against throughput x latency "
                 "(ratio; 1 = consistent; the latency metric is pending/instructions by its "
                 "definition, so 1.000 is an identity, not a test):")
    lines.append("")
    lines.append("| group | cases | median | min | max |")
    lines.append("| --- | --- | --- | --- | --- |")
    for g in GROUPS + ("all",):
        n, med, lo, hi = lit[g]
        lines.append("| %s | %d | %s | %s | %s |" % (g, n, fmt(med), fmt(lo), fmt(hi)))
    lines.append("")
    if any(not math.isnan(fnum(r.get("N_atom"))) for r in rows):
        lines.append("Counters against construction (model-independent):")
        lines.append("")
        lines.append("Wavefronts per warp-instruction (O/N, the paper's e) divided by the conflict "
                     "degree the case builds in:")
        lines.append("")
        lines.extend(counter_findings(rows))
    checks = counter_checks(rows)
    if checks:
        lines.append("Counters against construction:")
        lines.append("")
        for name, n, worst, case in checks:
            lines.append("- %s: %d cases, worst relative deviation %.4f (`%s`)" % (name, n, worst, case))
        lines.append("")
    return "\n".join(lines) + "\n"


DOC_BEGIN = "<!-- validation-results:begin (written by validation/analyze.py report --doc) -->"
DOC_END = "<!-- validation-results:end -->"


COLLECTORS_BEGIN = "<!-- validation-collectors:begin (written by validation/analyze.py collectors --doc) -->"
COLLECTORS_END = "<!-- validation-collectors:end -->"


def update_doc(doc_text, section, begin=DOC_BEGIN, end=DOC_END):
    """Replaces a generated section of docs/validation.md, keeping the prose."""
    if begin not in doc_text or end not in doc_text:
        raise AnalyzeError("doc has no '%s' ... '%s' section" % (begin, end))
    head, rest = doc_text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + section + end + tail


def write_report(md, md_path=None, doc_path=None, begin=DOC_BEGIN, end=DOC_END):
    """Where every report command puts its markdown: the file md_path, the
    generated section (begin ... end) of doc_path, or stdout when neither."""
    if md_path:
        with open(md_path, "w") as f:
            f.write(md)
    if doc_path:
        with open(doc_path) as f:
            text = f.read()
        with open(doc_path, "w") as f:
            f.write(update_doc(text, md, begin, end))
    if not (md_path or doc_path):
        sys.stdout.write(md)


# --------------------------------------------------------------------- SVG

GROUP_COLOURS = {"atomic": "#c0392b", "free": "#7f8c8d", "mixed": "#2471a3", "real": "#1e8449"}
GROUP_CLASSES = {"atomic": "a", "free": "f", "mixed": "m", "real": "r"}


def scatter_panels(rows, variants):
    """Panels of the scatter: (title, variant) per variant, a variant whose U
    equals an earlier one's in every row sharing its panel ('default =
    wavefront' rather than two identical panels)."""
    panels = []
    for v in variants:
        for i, (title, shown) in enumerate(panels):
            if all(fnum(r.get("U_" + v)) == fnum(r.get("U_" + shown)) or
                   (math.isnan(fnum(r.get("U_" + v))) and math.isnan(fnum(r.get("U_" + shown))))
                   for r in rows):
                # The chosen name first: 'default = wavefront'.
                panels[i] = ("%s = %s" % (v, title) if v == "default" else "%s = %s" % (title, v), shown)
                break
        else:
            panels.append((v, v))
    return panels


def svg_scatter(rows, variants=None, u_max=1.6, columns=3):
    """Small multiples, one panel per variant (variants with identical U in
    every case share one), `columns` to a row: x = U_true, y = predicted U.
    Points above u_max sit on the top edge as triangles; lower-bound truths
    are hollow.  Each point's <title> names the case (tooltip)."""
    header = list(rows[0].keys()) if rows else []
    variants = variants or sort_variants(variant_names(header))
    panels = scatter_panels(rows, variants) if rows else [(v, v) for v in variants]
    panel, pad, gap, top, row_gap = 300, 64, 64, 34, 70
    ncols = max(1, min(columns, len(panels)))
    nrows = max(1, (len(panels) + ncols - 1) // ncols)
    width = pad + ncols * panel + (ncols - 1) * gap + 24
    legend_h = 40
    height = top + nrows * (panel + row_gap) + legend_h
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="13">' % (width, height),
           "<style>%s .h{fill:none;stroke-width:1.3}</style>" % " ".join(
               ".%s{fill:%s;fill-opacity:.7} .h.%s{fill:none;stroke:%s}" % (
                   GROUP_CLASSES[g], GROUP_COLOURS[g], GROUP_CLASSES[g], GROUP_COLOURS[g]) for g in GROUPS),
           '<rect width="100%" height="100%" fill="white"/>']

    for i, (title, v) in enumerate(panels):
        x0 = pad + (i % ncols) * (panel + gap)
        y0 = top + (i // ncols) * (panel + row_gap)

        def px(u):
            return x0 + u / u_max * panel

        def py(u):
            return y0 + panel - u / u_max * panel

        out.append('<g>')
        # +-5% band around y = x, the diagonal, then the frame.
        band = [(0, 0.05), (u_max - 0.05, u_max), (u_max, u_max), (u_max, u_max - 0.05), (0.05, 0), (0, 0)]
        out.append('<polygon points="%s" fill="#e8e8e8"/>' % " ".join(
            "%.1f,%.1f" % (px(a), py(b)) for a, b in band))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>' % (
            px(0), py(0), px(u_max), py(u_max)))
        out.append('<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="none" stroke="#333"/>' % (
            x0, y0, panel, panel))
        t = 0.0
        while t <= u_max + 1e-9:
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%.1f</text>' % (px(t), y0 + panel + 16, t))
            out.append('<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>' % (x0 - 5, py(t) + 4, t))
            t += 0.5
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold" font-size="15">%s</text>' % (
            x0 + panel / 2, y0 - 9, esc(title)))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">U_true</text>' % (x0 + panel / 2, y0 + panel + 34))
        out.append('<text transform="translate(%.1f,%.1f) rotate(-90)" text-anchor="middle">U (model)</text>' % (
            x0 - 44, y0 + panel / 2))
        for r in rows:
            u, t_true = fnum(r.get("U_" + v)), fnum(r.get("U_true"))
            if math.isnan(u) or math.isnan(t_true):
                continue
            cls = GROUP_CLASSES.get(r["group"], "f")
            cx, cy = px(min(t_true, u_max)), py(min(u, u_max))
            tip = "<title>%s: U=%.3f, U_true=%.3f</title>" % (esc(r["name"]), u, t_true)
            if u > u_max:
                out.append('<polygon class="%s" points="%.1f,%.1f %.1f,%.1f %.1f,%.1f">%s</polygon>' % (
                    cls, cx, cy - 5, cx - 5, cy + 4, cx + 5, cy + 4, tip))
            elif r.get("truth") == "lower_bound":
                out.append('<circle class="h %s" cx="%.1f" cy="%.1f" r="5">%s</circle>' % (cls, cx, cy, tip))
            else:
                out.append('<circle class="%s" cx="%.1f" cy="%.1f" r="3">%s</circle>' % (cls, cx, cy, tip))
        out.append('</g>')
    ly = height - 16
    for j, g in enumerate(GROUPS):
        out.append('<circle class="%s" cx="%d" cy="%d" r="5"/><text x="%d" y="%d">%s</text>' % (
            GROUP_CLASSES[g], pad + j * 90, ly - 4, pad + j * 90 + 9, ly, g))
    out.append('<text x="%d" y="%d">grey band: within 0.05 of U_true; triangles: U above %.1f; '
               'hollow: lower-bound truth</text>' % (pad + 4 * 90, ly, u_max))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --------------------------------------------------------------------- CLI

def read_joined(path):
    header, rows = read_table(path)
    for r in rows:
        for k, v in list(r.items()):
            if k in ("group", "name", "op", "pattern", "work", "truth", "kernel_name") or \
                    k.startswith(("notes_", "verdict_", "kind_")):
                continue
            r[k] = fnum(v)
    return header, rows


def first_run_only(rows):
    """A program run twice under one profiler (gpuq profile: counters, then
    the opcode split) printed its case list twice: keeps the first."""
    seen, first = set(), []
    for r in rows:
        if r.get("group") == "group" or r.get("name") in seen:
            continue
        seen.add(r.get("name"))
        first.append(r)
    return first


def cmd_join(args):
    _, times_rows = read_table(args.times)
    _, manifest_rows = read_table(args.manifest)
    manifest_rows = first_run_only(manifest_rows)
    launches = read_ncu_long(args.ncu) if args.ncu else []
    variants = []
    for spec in args.variant or []:
        if "=" not in spec:
            raise AnalyzeError("--variant wants NAME=FILE, got '%s'" % spec)
        name, path = spec.split("=", 1)
        variants.append((name, read_model_csv(path)))
    if variants and not launches:
        # No ncu: the launch list (ids, kernel names, raw counters under the
        # same column names) comes from gpuq model's own CSV.
        launches = launches_from_model(variants[0][1])
    twin_rows = None
    if args.twin_times:
        twin_rows = {r["name"]: r for r in read_table(args.twin_times)[1]}
    rows = join(times_rows, manifest_rows, launches, variants, args.max_warps_per_sm, twin_rows)
    write_csv(args.out, rows)
    print("analyze: %d cases joined, %d launches, variants: %s -> %s" % (
        len(rows), len(launches), ", ".join(v for v, _ in variants) or "none", args.out))


def cmd_report(args):
    rows = []
    for path in args.joined:
        _, part = read_joined(path)
        rows.extend(part)
    if not rows:
        raise AnalyzeError("%s: no rows" % ", ".join(args.joined))
    # Columns differ when some files carry variants others lack.
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    rows = [{k: r.get(k, math.nan) for k in keys} for r in rows]
    md = markdown_report(rows, args.source or "")
    write_report(md, args.md, args.doc)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg_scatter(rows))


def main(argv=None):
    p = argparse.ArgumentParser(description="compare gpuq's U with the validation suite's truth")
    sub = p.add_subparsers(dest="cmd")
    j = sub.add_parser("join", help="join timing truth, profiled counters and model outputs")
    j.add_argument("--times", required=True)
    j.add_argument("--manifest", required=True)
    j.add_argument("--ncu")
    j.add_argument("--variant", action="append", metavar="NAME=FILE")
    j.add_argument("--max-warps-per-sm", type=int, default=64)
    j.add_argument("--twin-times", metavar="T.csv",
                   help="timing run holding the twin of a case whose truth a twin measured (hash_cas_t512x1)")
    j.add_argument("--out", required=True)
    c = sub.add_parser("counters", help="gpuq counters file from gpuq model's CSV, with the opcode split "
                                        "each case determines")
    c.add_argument("--model-csv", required=True, help="gpuq model --format csv output on the case run")
    c.add_argument("--times", required=True)
    c.add_argument("--manifest", required=True)
    c.add_argument("--out", required=True)
    r = sub.add_parser("report", help="error table, bars, Little's law, SVG")
    r.add_argument("joined", nargs="+", help="joined CSVs (several: one per group run)")
    r.add_argument("--md")
    r.add_argument("--doc")
    r.add_argument("--svg")
    r.add_argument("--source", help="one line naming device, date and command of the data")
    k = sub.add_parser("collectors", help="gpuq profile's counters against ncu's, per case")
    k.add_argument("dirs", nargs="+", metavar="DIR",
                   help="run.sh output folders with times.csv, manifest.csv, ncu.csv and counters.csv")
    k.add_argument("--u-ncu", action="append", metavar="MODEL.csv",
                   help="gpuq model --format csv on the ncu counters of the i-th DIR (with --u-gpuq)")
    k.add_argument("--u-gpuq", action="append", metavar="MODEL.csv",
                   help="gpuq model --format csv on counters.csv of the i-th DIR, same variant")
    k.add_argument("--variant", default="default", help="the variant those model CSVs ran (label only)")
    k.add_argument("--md")
    k.add_argument("--doc")
    k.add_argument("--csv", help="per-case values and relative differences")
    k.add_argument("--source", help="one line naming device, date and command of the data")
    args = p.parse_args(argv)
    if not args.cmd:
        p.print_help(sys.stderr)
        return 1
    try:
        {"join": cmd_join, "report": cmd_report, "counters": cmd_counters,
         "collectors": cmd_collectors}[args.cmd](args)
    except (AnalyzeError, OSError) as e:
        print("analyze: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
