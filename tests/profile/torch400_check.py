#!/usr/bin/env python3
"""GPU test: tests/profile/torch_steps.py, the 400-launch PyTorch program of
the overhead benchmark (docs/profile.md, "Measured cost"), under gpuq profile.

usage: torch400_check.py GPUQ WORKDIR

The profiled run must exit 0 and print what the plain run prints (the
checksum depends on every launch's result), and its counters file must hold
exactly 400 rows, launch ids 0..399, each with a kernel duration (no launch
lost from a range profiler window).  The steps launch the same kernels in
the same order, so the kernel names of the rows of the steps repeat with the
step's period.  When the count is not 400 (another PyTorch or cuBLAS), a run
of 1 step without pad tells the launches per step and the --steps/--pad
that make 400: the benchmark's figures per launch rest on that count.
Exit 0 pass, 1 fail, 77 skip (no torch with CUDA).
"""
import csv
import os
import subprocess
import sys

from profile_metrics import TABLE1, duration_ns  # tests/profile/profile_metrics.py

here = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(here, "torch_steps.py")
STEPS, PAD = 44, 3  # torch_steps.py's defaults


def profile(gpuq, work, name, args):
    """Runs torch_steps.py ARGS under gpuq profile; returns (process, rows)."""
    counters = os.path.join(work, name + ".csv")
    if os.path.exists(counters):
        os.unlink(counters)
    env = dict(os.environ, GPUQ_LOCK_DIR=work, GPUQ_VERBOSE="1")  # says which CUPTI, replay
    env.setdefault("GPUQ_METRICS", TABLE1)  # one pass, as in the benchmark
    p = subprocess.run([gpuq, "profile", "--no-opcode-split", "--keep-counters", counters,
                        "-o", os.path.join(work, name + ".report.txt"), "--",
                        sys.executable, SCRIPT] + args, capture_output=True, text=True,
                       env=env, timeout=300)
    rows = []
    if os.path.exists(counters):
        with open(counters) as f:
            rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    return p, rows


def main():
    if len(sys.argv) != 3:
        print("usage: torch400_check.py GPUQ WORKDIR", file=sys.stderr)
        return 2
    gpuq, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if "
                            "torch.cuda.is_available() else 1)"], capture_output=True)
    if probe.returncode != 0:
        print("skipped: torch with CUDA is not importable")
        return 77
    bad = []
    plain = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=300)
    if plain.returncode != 0 or "checksum" not in plain.stdout:
        bad.append("the plain run failed (%d): %s" % (plain.returncode, plain.stderr[-500:]))
    p, rows = profile(gpuq, work, "steps", [])
    if p.returncode != 0:
        bad.append("gpuq exited %d: %s" % (p.returncode, p.stderr[-800:]))
    if p.stdout != plain.stdout:
        bad.append("program output %r under gpuq, %r plain" % (p.stdout, plain.stdout))
    ids = sorted(int(r["launch_id"]) for r in rows)
    if len(rows) != 400:
        _, one = profile(gpuq, work, "one-step", ["--steps", "1", "--pad", "0"])
        k = (len(rows) - PAD - len(one)) // (STEPS - 1) if len(one) else 0
        hint = ""
        if k > 0 and k * (STEPS - 1) == len(rows) - PAD - len(one):
            base = len(one) - k
            s = (400 - base) // k
            hint = ("; this PyTorch launches %d per step and %d outside: --steps %d --pad %d "
                    "make 400 (set them as torch_steps.py's defaults)"
                    % (k, base, s, 400 - base - s * k))
        bad.append("%d rows, not 400 (%d with --steps 1 --pad 0)%s" % (len(rows), len(one), hint))
    elif ids != list(range(400)):
        bad.append("launch ids are not 0..399: %s" % ids[:12])
    else:
        empty = [r["launch_id"] for r in rows if not duration_ns(r)]
        if empty:
            why = [l for l in p.stderr.splitlines() if "gpu__time_duration" in l or "CUPTI API" in l]
            bad.append("%d rows without a kernel duration, launches %s; the collector said: %s"
                       % (len(empty), empty[:10], " | ".join(why) or "nothing about it"))
        # Rows of the steps: STEPS x k with k = (400 - PAD - 1) / STEPS.
        by_id = {int(r["launch_id"]): r["kernel"] for r in rows}
        k = (400 - PAD - 1) // STEPS
        off = [i for i in range(k, STEPS * k) if by_id[i] != by_id[i - k]]
        if off:
            bad.append("the steps' kernels do not repeat every %d launches: launch %d is %r, "
                       "launch %d %r" % (k, off[0], by_id[off[0]], off[0] - k, by_id[off[0] - k]))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("passed: 400 launches profiled, each with its counters, the steps' kernels "
              "repeating every %d launches, output as plain (%s)" % ((400 - PAD - 1) // STEPS,
                                                                    plain.stdout.strip()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
