#!/usr/bin/env python3
"""GPU test: gpuq profile on the programs ML users run.

usage: ml_check.py GPUQ WORKDIR hf|jax|compile

hf:  tests/profile/hf_gpt2_train.py, a Hugging Face GPT2LMHeadModel built
     from its config, three AdamW steps.  Importing transformers loads so
     many libraries that a collector needing static TLS could not be loaded
     (static_tls.sh).  gpuq profile must exit 0, the program print what it
     prints plainly (the loss, which depends on every step), and every
     launch have its counters (a row with a kernel duration).
jax: tests/profile/jax_train.py, a jit-compiled JAX training step.  JAX
     preallocates 75% of the GPU, which kernel replay would save and
     restore for every kernel (it made no progress for 70 s on an H200).
     Under the atomics section (3 passes on GH100, kernel replay) gpuq must
     either measure every launch, or stop profiling with the one line that
     names XLA_PYTHON_CLIENT_PREALLOCATE, and in both cases the program's
     output and exit status are as plain and the run ends within 60 s of
     the plain one (a hang fails).  Then the same with
     XLA_PYTHON_CLIENT_PREALLOCATE=false, which the line advises: every
     launch measured.
compile: tests/profile/torch_compile_train.py, an MLP under torch.compile
     (Inductor's Triton kernels, compiled while the program runs), then its
     forward compiled with mode="reduce-overhead" (inference steps in CUDA
     graphs).  gpuq
     profile must exit 0 with the program's output as plain and every
     profiled launch with its counters; in the graph mode each CUDA graph
     whose kernel nodes were not profiled is named on stderr with why
     ("not profiled: ...") and the launches outside graphs are profiled.
Exit 0 pass, 1 fail, 77 skip (no torch/transformers or jax with a GPU).
"""
import csv
import os
import signal
import subprocess
import sys
import time

from profile_metrics import duration_ns  # tests/profile/profile_metrics.py

here = os.path.dirname(os.path.abspath(__file__))
bad = []


def run(cmd, env, timeout):
    """(returncode or None when killed at the timeout, stdout, stderr, seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # gpuq and the program, which is in its group
        out, err = p.communicate()
        rc = None
    return rc, out, err, time.monotonic() - t0


def rows_of(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def profile(gpuq, work, name, script, args, env, timeout, prog_args=()):
    counters = os.path.join(work, name + ".counters.csv")
    if os.path.exists(counters):
        os.unlink(counters)
    cmd = [gpuq, "profile", "--no-opcode-split"] + args + [
        "--keep-counters", counters, "-o", os.path.join(work, name + ".report.txt"), "--",
        sys.executable, script] + list(prog_args)
    print("+ " + " ".join(cmd))
    rc, out, err, secs = run(cmd, env, timeout)
    with open(os.path.join(work, name + ".stderr.txt"), "w") as f:
        f.write(err)
    return rc, out, err, secs, rows_of(counters)


def all_measured(name, rows, err):
    """Every row has counters; gpuq did not say the collector stopped."""
    if not rows:
        bad.append("%s: no counters rows" % name)
        return
    empty = [r["launch_id"] for r in rows if not duration_ns(r)]
    if empty:
        bad.append("%s: %d of %d rows without a kernel duration, launches %s"
                   % (name, len(empty), len(rows), empty[:10]))
    if "collector stopped" in err or "profiling stopped" in err:
        bad.append("%s: the collector stopped: %s" % (name, err[-600:]))


def check_hf(gpuq, work, env):
    script = os.path.join(here, "hf_gpt2_train.py")
    rc0, out0, err0, _ = run([sys.executable, script], env, 300)
    if rc0 != 0:
        bad.append("hf: the plain run failed (%s): %s" % (rc0, err0[-500:]))
        return
    rc, out, err, secs, rows = profile(gpuq, work, "hf", script, [], env, 600)
    print(err[-1500:])
    if rc != 0:
        bad.append("hf: gpuq exited %s, expected 0" % rc)
    if out != out0:
        bad.append("hf: program output %r under gpuq, %r plain" % (out, out0))
    all_measured("hf", rows, err)
    if not bad:
        print("passed: hf: %d launches profiled, each with its counters, in %.1f s; output as "
              "plain (%s)" % (len(rows), secs, out0.strip()))


def check_jax(gpuq, work, env):
    script = os.path.join(here, "jax_train.py")
    rc0, out0, err0, plain_s = run([sys.executable, script], env, 300)
    if rc0 != 0:
        bad.append("jax: the plain run failed (%s): %s" % (rc0, err0[-500:]))
        return
    bound = plain_s + 60
    rc, out, err, secs, rows = profile(gpuq, work, "jax", script, ["--section", "atomics"], env,
                                       bound)
    print(err[-1500:])
    if rc is None:
        bad.append("jax: gpuq profile did not end within %.0f s (plain run %.1f s): a hang"
                   % (bound, plain_s))
        return
    if out != out0:
        bad.append("jax: program output %r under gpuq, %r plain" % (out, out0))
    stop = [l for l in err.splitlines()
            if l.startswith("gpuq-collector:") and "XLA_PYTHON_CLIENT_PREALLOCATE" in l]
    if stop:
        # Stopped: one line saying why; gpuq's own exit 3 when nothing was
        # measured, else 0 with what was (the program exited 0).
        if len(stop) != 1 or "profiling stopped, the program continues" not in stop[0]:
            bad.append("jax: the stop is not one line saying profiling stopped: %r" % stop)
        if rc != (0 if rows else 3):
            bad.append("jax: gpuq exited %d after the stop with %d rows" % (rc, len(rows)))
        print("jax: stopped in %.1f s (plain %.1f s): %s" % (secs, plain_s, stop[0]))
        # The advice works: without preallocation every launch is measured.
        env2 = dict(env, XLA_PYTHON_CLIENT_PREALLOCATE="false")
        rc0, out0, _, plain_s = run([sys.executable, script], env2, 300)
        rc, out, err, secs, rows = profile(gpuq, work, "jax-noprealloc", script,
                                           ["--section", "atomics"], env2, plain_s + 240)
        print(err[-1500:])
        if rc is None:
            bad.append("jax, XLA_PYTHON_CLIENT_PREALLOCATE=false: no end within %.0f s"
                       % (plain_s + 240))
            return
        if out != out0 or rc != rc0:
            bad.append("jax, no preallocation: exit %s output %r under gpuq, %s %r plain"
                       % (rc, out, rc0, out0))
        all_measured("jax-noprealloc", rows, err)
    else:
        if rc != 0:
            bad.append("jax: gpuq exited %d, expected 0" % rc)
        all_measured("jax", rows, err)
    if not bad:
        print("passed: jax: %d launches profiled in %.1f s (plain %.1f s), output as plain (%s)"
              % (len(rows), secs, plain_s, out0.strip()))


def check_compile(gpuq, work, env):
    script = os.path.join(here, "torch_compile_train.py")
    for mode in ("default", "reduce-overhead"):
        name = "compile-" + mode
        rc0, out0, err0, _ = run([sys.executable, script, "--mode", mode], env, 600)
        if rc0 != 0:
            bad.append("%s: the plain run failed (%s): %s" % (name, rc0, err0[-500:]))
            continue
        rc, out, err, secs, rows = profile(gpuq, work, name, script, [], env, 900,
                                           ["--mode", mode])
        print(err[-1500:])
        if rc != 0:
            bad.append("%s: gpuq exited %s, expected 0" % (name, rc))
        if out != out0:
            bad.append("%s: program output %r under gpuq, %r plain" % (name, out, out0))
        all_measured(name, rows, err)
        if mode == "reduce-overhead":
            graphs = [l for l in err.splitlines() if "CUDA graph" in l]
            unexplained = [l for l in graphs if "not profiled" in l and
                           not l.split("not profiled", 1)[1].lstrip(": ").strip()]
            if unexplained:
                bad.append("%s: a skipped graph without its reason: %r" % (name, unexplained))
            print("%s: %d lines on CUDA graphs: %s" % (name, len(graphs), graphs[:3]))
        if not bad:
            print("passed: %s: %d launches profiled, each with its counters, in %.1f s; "
                  "output as plain (%s)" % (name, len(rows), secs, out0.strip()))


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("hf", "jax", "compile"):
        print("usage: ml_check.py GPUQ WORKDIR hf|jax|compile", file=sys.stderr)
        return 2
    gpuq, work, what = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, GPUQ_LOCK_DIR=work)
    probe = {"hf": "import torch, transformers, sys; sys.exit(0 if torch.cuda.is_available() "
                   "else 1)",
             "jax": "import jax, sys; sys.exit(0 if jax.devices('gpu') else 1)",
             "compile": "import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() "
                        "else 1)"}[what]
    if subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode != 0:
        print("skipped: %s with a GPU is not importable"
              % {"hf": "torch and transformers", "jax": "jax", "compile": "torch and triton"}[what])
        return 77
    {"hf": check_hf, "jax": check_jax, "compile": check_compile}[what](gpuq, work, env)
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
