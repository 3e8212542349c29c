#!/usr/bin/env python3
"""GPU test: tests/profile/torch_steps.py, the 400-launch PyTorch program of
the overhead benchmark, under gpuq profile with GPUQ_EARLY_START off and on.

usage: early_check.py GPUQ WORKDIR

Every profiled run must print what the plain run prints and exit 0, and its
counters file must hold exactly 400 rows (the program's stated launch count:
57 steps of 7 launches and a sum), the same kernels in the same order with
and without GPUQ_EARLY_START, and the same instruction counts (shared-memory
reads and shared atomics are counts, not times: they do not vary between
runs).  GPUQ_EARLY_START must not leave a warm-up running at exit.  Prints
the GPUQ_DEBUG line of the warm-up and both first Starts, for the record.
Exit 0 pass, 1 fail, 77 skip (no torch with CUDA).
"""
import csv
import os
import re
import subprocess
import sys

from profile_metrics import TABLE1  # tests/profile/profile_metrics.py

here = os.path.dirname(os.path.abspath(__file__))
COUNTS = ("sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum",
          "smsp__inst_executed_op_shared_atom.sum")


def rows_of(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def main():
    gpuq, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if "
                            "torch.cuda.is_available() else 1)"], capture_output=True)
    if probe.returncode != 0:
        print("skipped: torch with CUDA is not importable")
        return 77
    script = os.path.join(here, "torch_steps.py")
    plain = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    bad = []
    if plain.returncode != 0:
        bad.append("the plain run failed: %s" % plain.stderr[-500:])
    runs = {}
    for early in ("0", "1"):
        counters = os.path.join(work, "steps-early%s.csv" % early)
        if os.path.exists(counters):
            os.unlink(counters)
        env = dict(os.environ, GPUQ_LOCK_DIR=work, GPUQ_EARLY_START=early, GPUQ_DEBUG="1")
        env.setdefault("GPUQ_METRICS", TABLE1)
        p = subprocess.run([gpuq, "profile", "--no-opcode-split", "--keep-counters", counters,
                            "-o", os.path.join(work, "report%s.txt" % early), "--",
                            sys.executable, script], capture_output=True, text=True, env=env,
                           timeout=300)
        for line in p.stderr.splitlines():
            if re.search(r"first start|early start|timeline \(ms since gpuq", line):
                print("GPUQ_EARLY_START=%s: %s" % (early, line.strip()))
        if p.returncode != 0:
            bad.append("GPUQ_EARLY_START=%s: gpuq exited %d: %s" % (early, p.returncode,
                                                                    p.stderr[-800:]))
        if p.stdout != plain.stdout:
            bad.append("GPUQ_EARLY_START=%s: program output %r, plain %r"
                       % (early, p.stdout, plain.stdout))
        if "still runs" in p.stderr:
            bad.append("GPUQ_EARLY_START=%s: the warm-up was still running" % early)
        rows = rows_of(counters) if os.path.exists(counters) else []
        if len(rows) != 400:
            bad.append("GPUQ_EARLY_START=%s: %d rows, not 400 (torch_steps.py's --steps/--pad "
                       "must be adjusted for this PyTorch)" % (early, len(rows)))
        runs[early] = rows
    off, on = runs["0"], runs["1"]
    if off and on:
        if [r["kernel"] for r in off] != [r["kernel"] for r in on]:
            bad.append("the kernels differ with GPUQ_EARLY_START")
        for m in COUNTS:
            if m in off[0] and [r[m] for r in off] != [r[m] for r in on]:
                diff = sum(1 for a, b in zip(off, on) if a[m] != b[m])
                bad.append("%s differs in %d rows with GPUQ_EARLY_START" % (m, diff))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("passed: 400 launches, output as plain, the same kernels and counts with and "
              "without GPUQ_EARLY_START")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
