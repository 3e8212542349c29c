#!/usr/bin/env python3
"""GPU stress test of gpuq profile: the profiled program behaves exactly as
without gpuq (issue 14, item 1).

usage: stress_check.py GPUQ CAPTURE_STRESS WORKDIR

Runs tests/profile/capture_stress.cu (four threads, four streams, captures
in global, thread-local and relaxed mode, graph replays) plainly 3 times,
then GPUQ_STRESS_RUNS times (default 50) under `gpuq profile`, alternating
a normal exit and abort() after the work.  Every profiled run must print
what the plain runs printed and end the same way (exit status, or the
signal), and gpuq's counts (launches profiled, launches skipped during
captures, graph launches and kernel nodes) must be the same in every run
and equal to what the program's structure fixes (capture_stress --expect).
Where the graph kernel nodes are profiled, each node's shared-atomic count
must equal that of the same kernel launched outside the graph.
Exit 0 pass, 1 fail, 77 skip (no GPU).
"""
import csv
import os
import re
import subprocess
import sys

from profile_metrics import TABLE1  # tests/profile/profile_metrics.py

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(argv, env=None, timeout=120):
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def program_end(rc):
    """How a plain run ended, as gpuq's warning words it (None: status 0)."""
    if rc < 0:
        return "killed by signal %d" % -rc
    return None if rc == 0 else "exited with status %d" % rc


def gpuq_end(stderr):
    m = re.search(r"warning: the program (was killed by signal (\d+)|exited with status (\d+))",
                  stderr)
    if not m:
        return None
    return ("killed by signal %s" % m.group(2)) if m.group(2) else ("exited with status %s" % m.group(3))


def load_counters(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def metric(row, *names):
    for n in names:
        if n in row and row[n] != "":
            return float(row[n])
    return float("nan")


def signature(stderr, rows, graph_rows):
    """The counts of one profiled run, as a comparable tuple."""
    keep = []
    for line in stderr.splitlines():
        if not line.startswith("gpuq: profile: "):
            continue
        text = line[len("gpuq: profile: "):]
        if re.search(r"launch(es)? profiled; counters saved|stream capture|CUDA graph \d+|"
                     r"kernel-node launch", text):
            keep.append(re.sub(r"saved in \S+|: \S+\.graphs\.csv", "", text))
    return (tuple(sorted(keep)), rows, graph_rows)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    gpuq, app, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    rc, out, _ = run([app, "--probe"])
    if rc == 77:
        print("skipped: " + out.strip())
        return 77
    runs = int(os.environ.get("GPUQ_STRESS_RUNS", "50"))
    expect = dict(l.split() for l in run([app, "--expect"])[1].splitlines())
    expect = {k: int(v) for k, v in expect.items()}

    configs = {"exit": [], "abort": ["--abort"]}
    plain = {}
    for name, args in configs.items():
        seen = set()
        for _ in range(3):
            rc, out, err = run([app] + args)
            seen.add((rc, out))
        if len(seen) != 1:
            fail("plain runs of capture_stress %s differ among themselves: %s" % (args, seen))
            return 1
        plain[name] = seen.pop()
        print("plain %-5s: end %s, output %s" % (name, program_end(plain[name][0]),
                                                  plain[name][1].strip().replace("\n", " | ")))

    # One GPU lock directory of our own: a stale lock elsewhere cannot stall us.
    env = dict(os.environ, GPUQ_LOCK_DIR=work)
    # Paper 000's Table 1 hardware metrics: one pass (user replay), so that
    # graph kernel nodes can be profiled (kernel replay skips them).
    env.setdefault("GPUQ_METRICS", TABLE1)
    sigs = {name: None for name in configs}
    checked_graph = False
    for i in range(runs):
        name = "exit" if i % 2 == 0 else "abort"
        counters = os.path.join(work, "stress.counters.csv")
        graphs = counters + ".graphs.csv"
        for f in (counters, graphs):
            if os.path.exists(f):
                os.unlink(f)
        argv = [gpuq, "profile", "--no-opcode-split", "--keep-counters", counters, "-f", "csv",
                "-o", os.path.join(work, "stress.report.csv"), "--"] + [app] + configs[name]
        rc, out, err = run(argv, env=env)
        want_rc, want_out = plain[name]
        tag = "run %d (%s)" % (i + 1, name)
        if out != want_out:
            fail("%s: program output differs from a plain run:\n%s\n--- plain:\n%s\n--- stderr:\n%s"
                 % (tag, out, want_out, err))
            continue
        if gpuq_end(err) != program_end(want_rc):
            fail("%s: the program ended '%s' under gpuq, '%s' plainly\n%s"
                 % (tag, gpuq_end(err), program_end(want_rc), err))
            continue
        if "gpuq-collector:" in err and "profiling stopped" in err:
            fail("%s: the collector stood down:\n%s" % (tag, err))
        # gpuq exits with a failing program's status (abort: 128 + 6), else
        # 0; 2: no calibration table for this GPU (the counters are checked).
        gpuq_want = 0 if want_rc == 0 else (128 - want_rc if want_rc < 0 else want_rc)
        if rc != gpuq_want and not (rc == 2 and "table" in err):
            fail("%s: gpuq profile exited %d, want %d (the program's status)\n%s"
                 % (tag, rc, gpuq_want, err))
            continue
        rows = load_counters(counters) if os.path.exists(counters) else []
        node_ids = set()
        if os.path.exists(graphs):
            node_ids = {r["launch_id"] for r in load_counters(graphs)}
        sig = signature(err, len(rows), len(node_ids))
        if sigs[name] is None:
            sigs[name] = sig
            print("%s: signature %s" % (tag, sig))
            plain_rows = len(rows) - len(node_ids)
            if plain_rows != expect["profiled"]:
                fail("%s: %d launches outside graphs profiled, the program makes %d"
                     % (tag, plain_rows, expect["profiled"]))
            m = re.search(r"(\d+) launch(es)? ran while a stream capture", err)
            skipped = int(m.group(1)) if m else 0
            if skipped != expect["capture_skipped"]:
                fail("%s: %d launches reported as run during a capture, the program makes %d"
                     % (tag, skipped, expect["capture_skipped"]))
            profiled_graphs = len(re.findall(r"CUDA graph \d+ \(%d kernel nodes\): 3 of 3 launches "
                                             r"profiled node by node" % expect["graph_nodes"], err))
            refused = re.findall(r"CUDA graph \d+ \(\d+ kernel nodes\): \d+ launch(?:es)? not "
                                 r"profiled: (.*)", err)
            if profiled_graphs == 3:
                want_nodes = expect["graph_launches"] * expect["graph_nodes"]
                if len(node_ids) != want_nodes:
                    fail("%s: %d kernel-node rows, expected %d" % (tag, len(node_ids), want_nodes))
                eager = [metric(r, "N_atom", "smsp__inst_executed_op_shared_atom.sum")
                         for r in rows if r["launch_id"] not in node_ids]
                nodes = [metric(r, "N_atom", "smsp__inst_executed_op_shared_atom.sum")
                         for r in rows if r["launch_id"] in node_ids]
                if not eager or not nodes or len(set(eager + nodes)) != 1 or not eager[0] > 0:
                    fail("%s: shared atomics per launch differ between graph nodes %s and "
                         "launches %s of the same kernel" % (tag, sorted(set(nodes)),
                                                              sorted(set(eager))))
                else:
                    print("graph nodes: %d rows, N = %.0f as outside the graph (expected by "
                          "construction %d)" % (len(nodes), nodes[0], expect["N_atom"]))
                checked_graph = True
            elif refused:
                print("graph kernel nodes not profiled; reason given: %s" % refused[0])
            else:
                fail("%s: no line on the 3 graphs' kernel nodes:\n%s" % (tag, err))
        elif sig != sigs[name]:
            fail("%s: counts differ from the first run:\n%s\n--- first:\n%s" % (tag, sig, sigs[name]))
    print("%d profiled runs, %d failures; graph nodes %s" %
          (runs, len(failures), "checked" if checked_graph else "reported as not profiled"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
