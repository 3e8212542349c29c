"""gpuq profile on programs that use two GPUs (GPU test multigpu).

  python3 check_multigpu.py GPUQ WORKDIR [--overhead] [--ncu NCU]

(a) one process, two devices (hist_two_devices.py: the histogram kernel on
    each device, then an NCCL all-reduce between them);
(b) two processes, one per GPU, started as torchrun starts them
    (python3 -m torch.distributed.run, hist_ddp.py), each writing its own
    counters file through the -o pattern %p.
For each: the program's stdout and exit status under gpuq profile equal a
plain run's; every histogram launch appears once, with the device it ran on;
the NCCL kernels are listed; each device's rows are modelled with the
machine data of that device's GPU (its folder under tables/).  With
--overhead, (a) is also timed plain, under gpuq profile and under ncu in
this one run, and the added seconds per profiled launch are printed.
Exits 77 (skipped) without torch or with fewer than 2 GPUs.  No step can
hang: each runs under a timeout."""
import csv
import glob
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPS = 3
STEP_TIMEOUT = int(os.environ.get("GPUQ_MULTIGPU_STEP_TIMEOUT", "240"))  # seconds per step

# NVLink multicast stays off in everything started here.
ENV = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
           NVSHMEM_DISABLE_NVLS="1", PYTHONUNBUFFERED="1")
failures = []


def fail(msg):
    print("FAIL:", msg)
    failures.append(msg)


def run(argv, out_prefix, timeout=STEP_TIMEOUT, env=None):
    """Runs argv; stdout and stderr to OUT_PREFIX.stdout/.stderr.  Returns
    (exit status, stdout text, seconds); status 124 after a timeout."""
    print("+", " ".join(argv), flush=True)
    t0 = time.monotonic()
    with open(out_prefix + ".stdout", "w") as so, open(out_prefix + ".stderr", "w") as se:
        # its own process group, so that a timeout ends the launcher's workers too
        # (a worker left behind would hold the GPU for the next step)
        p = subprocess.Popen(argv, stdout=so, stderr=se, env=env or ENV, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = 124
    dt = time.monotonic() - t0
    with open(out_prefix + ".stdout") as f:
        out = f.read()
    print(f"  exit {rc} in {dt:.2f} s", flush=True)
    if rc != 0:
        with open(out_prefix + ".stderr") as f:
            print("  stderr tail:", "".join(f.readlines()[-15:]), sep="\n", flush=True)
    return rc, out, dt


def program_status(prefix, gpuq_rc):
    """The profiled program's own exit status: gpuq profile exits 0 when it
    measured something and names the program's status on stderr when that
    was not 0 ("the program exited with status N" / "was killed by signal
    N"); without such a line, gpuq's status is the program's."""
    with open(prefix + ".stderr") as f:
        text = f.read()
    m = re.search(r"the program (?:exited with status (\d+)|was killed by signal (\d+))", text)
    if not m:
        return gpuq_rc
    return int(m.group(1)) if m.group(1) else 128 + int(m.group(2))


def counters_rows(path):
    """Rows of a gpuq counters file as dicts (the '#' header skipped)."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def dir_name(gpu_name):
    """gm_mdata_dir_name: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "unknown-gpu"


def device_names():
    out = subprocess.run([sys.executable, "-c",
                          "import torch\nfor i in range(torch.cuda.device_count()): "
                          "print(torch.cuda.get_device_name(i))"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    return [line for line in out.stdout.splitlines() if line]


def is_nccl(name):
    return "nccl" in name.lower()


def check_rows(label, rows, devices, names, per_device_hist):
    """Every histogram launch once per device, and the NCCL kernels listed:
    measured, or as rows without counters where the collector cannot
    measure them (docs/profile.md, "Several GPUs")."""
    ids = [r["launch_id"] for r in rows]
    if len(ids) != len(set(ids)):
        fail(f"{label}: a launch id appears twice")
    for dev in devices:
        hist = [r for r in rows if r["kernel"].startswith("hist_add") and int(r["device"]) == dev]
        nccl = [r for r in rows if is_nccl(r["kernel"]) and int(r["device"]) == dev]
        measured = [r for r in nccl if r.get("gpu__time_duration.sum", "") not in ("", "nan")]
        print(f"  {label}: device {dev} ({names[dev]}): {len(hist)} hist_add launches, "
              f"{len(nccl)} NCCL kernel launches ({len(measured)} with counters)"
              + (f" {sorted({r['kernel'][:60] for r in nccl})}" if nccl else ""))
        if len(hist) != per_device_hist:
            fail(f"{label}: device {dev}: {len(hist)} hist_add rows, want {per_device_hist}")
        if not nccl:
            fail(f"{label}: device {dev}: no NCCL kernel listed")
    others = sorted({int(r["device"]) for r in rows} - set(devices))
    if others:
        fail(f"{label}: rows of devices {others}, which the program did not use")


def check_report(label, report, names):
    """Each device's rows use that device's machine data: in the CSV report
    every row names a table; its folder must be that device's GPU's."""
    if not os.path.exists(report):
        fail(f"{label}: no report {report}")
        return
    with open(report) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    if not rows:
        fail(f"{label}: the report has no rows")
        return
    cols = rows[0].keys()
    tcol = next((c for c in cols if "table" in c.lower()), None)
    dcol = "device" if "device" in cols else None
    if not tcol or not dcol:
        print(f"  {label}: report columns {list(cols)[:12]}...: no table/device column; "
              "checked through the text report instead")
        return
    seen = {}
    for r in rows:
        dev = int(r[dcol])
        table = r[tcol]
        seen.setdefault(dev, set()).add(table)
        want = dir_name(names[dev])
        if table and f"/{want}/" not in table:
            fail(f"{label}: a row of device {dev} ({names[dev]}) uses {table}, "
                 f"not a file of tables/{want}/")
    for dev, tables in sorted(seen.items()):
        print(f"  {label}: device {dev} rows modelled with {sorted(tables)}")
        if not any(tables):
            fail(f"{label}: no row of device {dev} names its machine data")


def case_a(gpuq, work, names):
    prog = [sys.executable, os.path.join(HERE, "hist_two_devices.py"), "--reps", str(REPS)]
    rc0, out0, t_plain = run(prog, os.path.join(work, "a.plain"))
    if rc0 != 0:
        fail(f"(a) plain run exited {rc0}")
        return None
    counters = os.path.join(work, "a.counters.csv")
    report = os.path.join(work, "a.report.csv")
    rc1, out1, t_gpuq = run([gpuq, "profile", "--keep-counters", counters, "-f", "csv",
                             "-o", report, "--"] + prog, os.path.join(work, "a.gpuq"))
    rc1 = program_status(os.path.join(work, "a.gpuq"), rc1)
    if rc1 != rc0:
        fail(f"(a) under gpuq profile the program's exit status is {rc1}, plain {rc0}")
    if out1 != out0:
        fail(f"(a) stdout differs: plain {out0!r}, under gpuq {out1!r}")
    if not os.path.exists(counters):
        fail("(a) no counters file")
        return None
    rows = counters_rows(counters)
    check_rows("(a)", rows, [0, 1], names, REPS)
    check_report("(a)", report, names)
    if rc1 != rc0 or out1 != out0:
        print("  (a): the profiled run did not run the program to its end: no overhead figure")
        return None
    return prog, (t_plain, t_gpuq, len(rows))


def case_b(gpuq, work, names):
    prog = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
            "2", os.path.join(HERE, "hist_ddp.py"), "--reps", str(REPS)]
    rc0, out0, t_plain = run(prog, os.path.join(work, "b.plain"))
    if rc0 != 0:
        fail(f"(b) plain run exited {rc0}")
        return None
    pattern = os.path.join(work, "b.%p.counters.csv")
    report = os.path.join(work, "b.report.csv")
    rc1, out1, t_gpuq = run([gpuq, "profile", "--keep-counters", pattern, "-f", "csv", "-o",
                             report, "--"] + prog, os.path.join(work, "b.gpuq"))
    rc1 = program_status(os.path.join(work, "b.gpuq"), rc1)
    complete = rc1 == rc0 and out1 == out0
    if rc1 != rc0:
        fail(f"(b) under gpuq profile the launcher's exit status is {rc1}, plain {rc0}")
    if out1 != out0:
        fail(f"(b) stdout differs: plain {out0!r}, under gpuq {out1!r}")
    files = sorted(glob.glob(os.path.join(work, "b.*.counters.csv")))
    with_rows = [(f, counters_rows(f)) for f in files]
    with_rows = [(f, r) for f, r in with_rows if r]
    print(f"  (b): {len(files)} counters files, {len(with_rows)} with rows: "
          f"{[os.path.basename(f) for f, _ in with_rows]}")
    if len(with_rows) != 2:
        fail(f"(b) {len(with_rows)} counters files with rows, want 2 (one per rank)")
    devs = []
    for f, rows in with_rows:
        d = sorted({int(r["device"]) for r in rows})
        devs += d
        if len(d) != 1:
            fail(f"(b) {os.path.basename(f)}: rows of devices {d}, want one device per process")
        else:
            check_rows(f"(b) {os.path.basename(f)}", rows, d, names, REPS)
    if sorted(devs) != [0, 1]:
        fail(f"(b) devices over the files: {sorted(devs)}, want [0, 1]")
    # gpuq profile's report covers one process; gpuq model reads every
    # process's file into one report with a process column.
    if with_rows:
        model = os.path.join(work, "b.model.csv")
        rc2, _, _ = run([gpuq, "model"] + [f for f, _ in with_rows] + ["-f", "csv", "-o", model],
                        os.path.join(work, "b.model"))
        if rc2 != 0:
            fail(f"(b) gpuq model over the process files exited {rc2}")
        else:
            check_report("(b) gpuq model", model, names)
    if not complete:
        return None
    return prog, (t_plain, t_gpuq, sum(len(r) for _, r in with_rows))


# The metrics both profilers collect in the timed comparison: the atomic
# unit's hardware list (gm_metric_list_csv, as scripts/bench_profile_overhead.sh),
# so that gpuq and ncu do the same work; gpuq's default gathers every unit's.
SAME_METRICS = ("smsp__inst_executed_op_shared_atom.sum,"
                "smsp__inst_executed_op_shared_atom_dot_cas.sum,"
                "smsp__inst_executed_op_shared_atom_dot_alu.sum,"
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,sm__cycles_active.sum,"
                "sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,"
                "sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,"
                "sm__inst_pending_pipe_lsu_mem_shared_cmd_read.sum,"
                "sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum")


def overhead(gpuq, work, ncu, label, prog, times):
    """The case timed again, one after the other in this one run: plain,
    gpuq profile with SAME_METRICS (GPUQ_METRICS), and ncu --metrics
    SAME_METRICS (histogram launches only: replaying an NCCL kernel under ncu
    waits for peers that never come).  Added seconds per profiled launch;
    the first gpuq run (every unit's metrics, the default) is shown too."""
    rc0, _, plain = run(prog, os.path.join(work, label + ".plain2"))
    counters = os.path.join(work, label + ".same.%p.counters.csv")
    rc1, _, t_same = run([gpuq, "profile", "--keep-counters", counters, "-o", os.devnull,
                          "--"] + prog, os.path.join(work, label + ".same"),
                         env=dict(ENV, GPUQ_METRICS=SAME_METRICS))
    same_rows = [r for f in glob.glob(os.path.join(work, label + ".same.*.counters.csv"))
                 for r in counters_rows(f)]
    n_same = len(same_rows)
    nccl = [r for r in same_rows if is_nccl(r["kernel"])]
    nccl_measured = [r for r in nccl if r.get("gpu__time_duration.sum", "") not in ("", "nan")]
    print(f"  ({label}) with one pass: {len(nccl)} NCCL launches listed, "
          f"{len(nccl_measured)} with counters")
    if label == "b" and rc1 == 0 and (not nccl or len(nccl_measured) != len(nccl)):
        # one process per GPU, one pass (user replay): nothing stops them being measured
        fail("(b) with one pass, every NCCL launch should have counters")
    rc, out, t_ncu = run([ncu, "--target-processes", "all", "-k", "regex:hist_add",
                          "--clock-control", "none", "--cache-control", "none",
                          "--metrics", SAME_METRICS, "--csv"] + prog,
                         os.path.join(work, label + ".ncu"))
    n_ncu = len(set(re.findall(r'^"(\d+)","(\d+)",.*"hist_add', out, re.M)))  # (id, pid) per launch
    if rc != 0:
        print(f"  ncu exited {rc}; no ncu figure")
        t_ncu = None
    plain1, g_all, n_all = times

    def per(t, n):
        return (t - plain) / max(n, 1) * 1000
    print(f"overhead ({label}), one run: plain {plain:.2f} s (earlier plain {plain1:.2f} s); "
          f"gpuq, every unit's metrics (default) {g_all:.2f} s for {n_all} profiled launches = "
          f"{per(g_all, n_all):.1f} ms added per launch; "
          f"gpuq, the {SAME_METRICS.count(',') + 1} metrics ncu collects {t_same:.2f} s "
          f"for {n_same} launches = {per(t_same, n_same):.1f} ms"
          + (f"; ncu {t_ncu:.2f} s for {n_ncu} profiled hist_add launches = "
             f"{per(t_ncu, n_ncu):.1f} ms added per launch"
             if t_ncu else ""))
    if rc0 != 0 or rc1 != 0:
        print(f"  note: plain exited {rc0}, gpuq {rc1} in the timing runs")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    gpuq, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    ncu = sys.argv[sys.argv.index("--ncu") + 1] if "--ncu" in sys.argv else "ncu"
    os.makedirs(work, exist_ok=True)
    try:
        names = device_names()
    except Exception as e:  # no torch, no driver
        print(f"skipped: cannot list GPUs through torch ({e})")
        return 77
    if len(names) < 2:
        print(f"skipped: needs 2 GPUs, torch sees {len(names)}")
        return 77
    print("GPUs:", names)
    ta = case_a(gpuq, work, names)
    tb = case_b(gpuq, work, names)
    if "--overhead" in sys.argv:
        for label, t in (("a", ta), ("b", tb)):
            if t:
                overhead(gpuq, work, ncu, label, *t)
    print("FAILED" if failures else "ok", f"({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
