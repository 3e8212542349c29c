#!/usr/bin/env python3
"""GPU test: kernel nodes of CUDA graphs under gpuq profile (issue 14, item 2).

usage: graph_check.py GPUQ WORKDIR

Runs tests/profile/torch_graph.py (eager steps, then the same steps captured
with torch.cuda.CUDAGraph and replayed 3 times) under gpuq profile.  Either
every replay is profiled node by node: 3 x K kernel-node rows, attributed in
COUNTERS.graphs.csv (graph launch, node index, node id), whose kernels are
the kernels of the eager step, each replay the same sequence; or gpuq says
for the graph why its launches were not profiled.  The program's output
must be that of a plain run.  Exit 0 pass, 1 fail, 77 skip (no torch/GPU).
"""
import csv
import os
import re
import subprocess
import sys

from profile_metrics import TABLE1  # tests/profile/profile_metrics.py

here = os.path.dirname(os.path.abspath(__file__))


def main():
    gpuq, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    script = os.path.join(here, "torch_graph.py")
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if "
                            "torch.cuda.is_available() else 1)"], capture_output=True)
    if probe.returncode != 0:
        print("skipped: torch with CUDA is not importable")
        return 77
    plain = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    counters = os.path.join(work, "torch_graph.counters.csv")
    graphs = counters + ".graphs.csv"
    for f in (counters, graphs):
        if os.path.exists(f):
            os.unlink(f)
    env = dict(os.environ, GPUQ_LOCK_DIR=work)
    env.setdefault("GPUQ_METRICS", TABLE1)  # one pass: user replay
    p = subprocess.run([gpuq, "profile", "--no-opcode-split", "--keep-counters", counters,
                        "-f", "csv", "-o", os.path.join(work, "torch_graph.report.csv"), "--",
                        sys.executable, script], capture_output=True, text=True, env=env,
                       timeout=300)
    sys.stderr.write(p.stderr)
    bad = []
    if p.stdout != plain.stdout or plain.returncode != 0:
        bad.append("program output differs: %r vs plain %r" % (p.stdout, plain.stdout))
    profiled = re.findall(r"CUDA graph (\d+) \((\d+) kernel nodes\): (\d+) of (\d+) launch(?:es)? "
                          r"profiled node by node", p.stderr)
    refused = re.findall(r"CUDA graph (\d+) \((\d+) kernel nodes\): (\d+) launch(?:es)? not "
                         r"profiled: (.*)", p.stderr)
    if profiled:
        with open(counters) as f:
            rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
        with open(graphs) as f:
            nodes = list(csv.DictReader(f))
        by_id = {r["launch_id"]: r for r in rows}
        gid, k = profiled[0][0], int(profiled[0][1])
        mine = [n for n in nodes if n["graph"] == gid]
        launches = sorted({int(n["graph_launch"]) for n in mine})
        if int(profiled[0][2]) != 3 or len(launches) != 3 or len(mine) != 3 * k:
            bad.append("expected 3 replays x %d nodes, got %d rows over launches %s"
                       % (k, len(mine), launches))
        seqs = []
        for gl in launches:
            seq = [by_id[n["launch_id"]]["kernel"] for n in
                   sorted((n for n in mine if int(n["graph_launch"]) == gl),
                          key=lambda n: int(n["node_index"]))]
            seqs.append(seq)
        if len({tuple(s) for s in seqs}) != 1:
            bad.append("the replays' kernel sequences differ: %s" % seqs)
        node_ids = {n["launch_id"] for n in nodes}
        eager = {r["kernel"] for r in rows if r["launch_id"] not in node_ids}
        missing = [s for s in (seqs[0] if seqs else []) if s not in eager]
        if missing:
            bad.append("graph kernels never launched eagerly: %s" % missing)
        def cycles(row):
            v = row.get("sm__cycles_active.sum") or row.get("cycles_sum") or "nan"
            return float(v)
        cyc = [cycles(by_id[n["launch_id"]]) for n in mine]
        if not all(c > 0 for c in cyc):
            bad.append("a kernel node has no active cycles: %s" % cyc)
        print("graph %s: %d kernel nodes x %d replays profiled: %s" % (gid, k, len(launches),
                                                                       seqs[0] if seqs else []))
    elif refused:
        print("graph kernel nodes not profiled, reason given: %s" % refused[0][3])
    else:
        bad.append("no line on the CUDA graph's kernel nodes")
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
