#!/usr/bin/env python3
"""GPU test: several processes profiled on one GPU, each to its own file
(issue 14, item 3).

usage: multiproc_check.py GPUQ CAPTURE_STRESS WORKDIR

1. Four `gpuq profile` at once (as mpirun or a job script starts them), each
   with RANK=0..3 and --keep-counters W/c.%q{RANK}.csv -o W/r.%q{RANK}.csv:
   four counters files and four reports, each with every launch the
   program makes (capture_stress --expect), and the program's own output.
   CUPTI's range profiler serves one process per GPU at a time: the
   collectors take turns through a lock file (GPUQ_LOCK_DIR), each waiting
   at most 10 s.
2. One `gpuq profile --keep-counters W/m.%p.csv` of a launcher that starts
   four copies of the program (as torchrun does): four files m.<pid>.csv,
   each complete, and gpuq names all four.
Exit 0 pass, 1 fail, 77 skip (no GPU).
"""
import csv
import glob
import os
import re
import subprocess
import sys

from profile_metrics import TABLE1  # tests/profile/profile_metrics.py

bad = []


def rows_of(path):
    with open(path) as f:
        return [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]


def main():
    gpuq, app, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    for f in glob.glob(os.path.join(work, "*")):
        os.unlink(f)
    if subprocess.run([app, "--probe"], capture_output=True).returncode == 77:
        print("skipped: no CUDA device")
        return 77
    expect = dict(l.split() for l in subprocess.run([app, "--expect"], capture_output=True,
                                                    text=True).stdout.splitlines())
    plain = subprocess.run([app], capture_output=True, text=True).stdout
    env = dict(os.environ, GPUQ_LOCK_DIR=work)
    env.setdefault("GPUQ_METRICS", TABLE1)  # one pass: user replay
    # The launches outside graphs, plus the graphs' kernel nodes when profiled.
    base = int(expect["profiled"])

    procs = []
    for r in range(4):
        e = dict(env, RANK=str(r))
        argv = [gpuq, "profile", "--no-opcode-split", "--keep-counters",
                os.path.join(work, "c.%q{RANK}.csv"), "-o", os.path.join(work, "r.%q{RANK}.csv"),
                "-f", "csv", "--", app]
        procs.append(subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    waited = 0
    for r, p in enumerate(procs):
        out, err = p.communicate(timeout=180)
        waited += "waited" in err
        if out != plain:
            bad.append("rank %d: program output %r, plainly %r" % (r, out, plain))
        if p.returncode not in (0, 2):
            bad.append("rank %d: gpuq exited %d\n%s" % (r, p.returncode, err))
        c = os.path.join(work, "c.%d.csv" % r)
        if not os.path.exists(c):
            bad.append("rank %d: no %s\n%s" % (r, c, err))
            continue
        n = len(rows_of(c))
        nodes = len(rows_of(c + ".graphs.csv")) if os.path.exists(c + ".graphs.csv") else 0
        if n - nodes != base:
            bad.append("rank %d: %d launches outside graphs in %s, the program makes %d\n%s"
                       % (r, n - nodes, c, base, err))
        if p.returncode == 0 and not os.path.exists(os.path.join(work, "r.%d.csv" % r)):
            bad.append("rank %d: no report r.%d.csv" % (r, r))
        print("rank %d: %s, %d rows (%d kernel nodes of graphs)" % (r, c, n, nodes))
    print("%d of 4 processes waited for the GPU lock" % waited)

    launcher = "for i in 1 2 3 4; do \"$0\" & done; wait"
    p = subprocess.run([gpuq, "profile", "--no-opcode-split", "--keep-counters",
                        os.path.join(work, "m.%p.csv"), "-f", "csv", "-o",
                        os.path.join(work, "m.report.csv"), "--", "sh", "-c", launcher, app],
                       env=env, capture_output=True, text=True, timeout=300)
    files = sorted(f for f in glob.glob(os.path.join(work, "m.*.csv"))
                   if re.fullmatch(r"m\.\d+\.csv", os.path.basename(f)))
    if len(files) != 4:
        bad.append("launcher: %d files m.<pid>.csv, expected 4\n%s" % (len(files), p.stderr))
    for f in files:
        n = len(rows_of(f))
        nodes = len(rows_of(f + ".graphs.csv")) if os.path.exists(f + ".graphs.csv") else 0
        if n - nodes != base:
            bad.append("launcher: %s has %d launches outside graphs, expected %d" % (f, n - nodes, base))
    if "4 processes wrote counters" not in p.stderr:
        bad.append("launcher: gpuq does not name the 4 processes' files:\n%s" % p.stderr)
    if p.stdout != plain * 4:
        if sorted(p.stdout.splitlines()) != sorted((plain * 4).splitlines()):
            bad.append("launcher: output differs from 4 plain runs")
    print("launcher: %d files: %s" % (len(files), [os.path.basename(f) for f in files]))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
