#!/usr/bin/env python3
"""GPU test: gpuq profile --nvtx-include on tests/profile/torch_nvtx.py.

usage: nvtx_check.py GPUQ WORKDIR

The program runs four identical steps of K launches each: the second inside
the push/pop range "step", the fourth inside the start/end range "phase".
Without the filter every launch is profiled (at least 4K rows).  With
--nvtx-include step exactly the second step's K launches are, the same
kernels in the same order as the second step of the unfiltered run, counted
from its end (the unfiltered run opens with the tensors' initialization, and
its first step has no `total +`): rows N-3K..N-2K-1 of N; with
--nvtx-include phase the fourth step's K, rows N-K..N-1; with a name no range has, nothing
is measured and gpuq says why (exit 3).  The program's output is as plain
in every run.  Exit 0 pass, 1 fail, 77 skip (no torch with CUDA).
"""
import csv
import os
import subprocess
import sys

from profile_metrics import TABLE1  # tests/profile/profile_metrics.py

here = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(here, "torch_nvtx.py")
bad = []


def profile(gpuq, work, name, extra):
    counters = os.path.join(work, name + ".csv")
    if os.path.exists(counters):
        os.unlink(counters)
    env = dict(os.environ, GPUQ_LOCK_DIR=work, GPUQ_METRICS=TABLE1)
    cmd = [gpuq, "profile", "--no-opcode-split"] + extra + [
        "--keep-counters", counters, "-o", os.path.join(work, name + ".report.txt"), "--",
        sys.executable, SCRIPT]
    print("+ " + " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    print(p.stderr[-1200:])
    rows = []
    if os.path.exists(counters):
        with open(counters) as f:
            rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    return p, rows


def main():
    gpuq, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if "
                            "torch.cuda.is_available() else 1)"], capture_output=True)
    if probe.returncode != 0:
        print("skipped: torch with CUDA is not importable")
        return 77
    plain = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=300)
    if plain.returncode != 0:
        print("FAIL: the plain run failed: %s" % plain.stderr[-500:])
        return 1
    runs = {}
    for name, extra in (("all", []), ("step", ["--nvtx-include", "step"]),
                        ("phase", ["--nvtx-include", "phase"]),
                        ("none", ["--nvtx-include", "no such range"])):
        p, rows = profile(gpuq, work, name, extra)
        runs[name] = (p, rows)
        if p.stdout != plain.stdout:
            bad.append("%s: program output %r, plain %r" % (name, p.stdout, plain.stdout))
    kernels = {n: [r["kernel"] for r in rows] for n, (p, rows) in runs.items()}
    k = len(kernels["step"])
    for name in ("all", "step", "phase"):
        if runs[name][0].returncode != 0:
            bad.append("%s: gpuq exited %d" % (name, runs[name][0].returncode))
    if k == 0:
        bad.append("--nvtx-include step: no launch profiled")
    elif len(kernels["all"]) < 4 * k - 1:
        bad.append("%d rows unfiltered, fewer than 4 steps of the %d in the range"
                   % (len(kernels["all"]), k))
    else:
        n = len(kernels["all"])
        second, fourth = kernels["all"][n - 3 * k:n - 2 * k], kernels["all"][n - k:]
        if second != kernels["step"]:
            bad.append("--nvtx-include step profiled %s, the second step is %s"
                       % (kernels["step"], second))
        if fourth != kernels["step"]:
            bad.append("the unfiltered run's fourth step is %s, its second %s"
                       % (fourth, kernels["step"]))
        if kernels["phase"] != kernels["step"]:
            bad.append("--nvtx-include phase profiled %s, expected the step's %s"
                       % (kernels["phase"], kernels["step"]))
    p, rows = runs["none"]
    if p.returncode != 3 or rows:
        bad.append("an unknown range name: gpuq exited %d with %d rows, expected 3 and none"
                   % (p.returncode, len(rows)))
    if "ran inside an NVTX range named 'no such range'" not in p.stderr:
        bad.append("an unknown range name: gpuq does not say that no launch was inside it")
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("passed: --nvtx-include step and phase profiled the %d launches of their step "
              "(of %d), an unknown name none; output as plain (%s)"
              % (k, len(kernels["all"]), plain.stdout.strip()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
