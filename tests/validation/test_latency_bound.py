#!/usr/bin/env python3
"""Unit tests of validation/latency-bound/analyze.py and check_sass.py (no
GPU): a run directory made up here, small and consistent, passes; each kind
of wrong answer in it (a verdict, a cause, a what-if 20% off, a sweep point
10% off, a prediction under a single wave, a launch too many) makes the
analysis fail; the SASS checks catch a chain the compiler dropped.

The recorded H200 run (RECORDED below), once it is in the repository: the
analysis made again on it must give the tables committed with it; and with
LB_GPUQ, the model and the analysis made again (reanalyze.sh) the tables of
its reanalysis/ folder."""
import csv
import filecmp
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LB = os.path.join(HERE, "..", "..", "validation", "latency-bound")
ANALYZE = os.path.join(LB, "analyze.py")
RECORDED = os.path.join(HERE, "..", "..", "data", "recorded", "latency-bound-nvidia-h200")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(path, head, rows, comment=None):
    with open(path, "w", newline="") as f:
        if comment:
            f.write(comment)
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)


# Three cases: a latency-bound chain, its twin with twice the warps, and a
# launch-bound kernel with its fused and graph rows.
CASES = [("chain_w1", "ffma", 1, 132, 32, 100), ("chain_w2", "ffma", 1, 132, 64, 50),
         ("tiny", "ffma", 1, 1, 32, 16)]
EXPECTED = [("chain_w1", "latency", "wait", "default", "speedup_x2", "chain_w2"),
            ("chain_w2", "latency", "wait", "default", "", ""),
            ("tiny", "launch", "-", "default", "speedup_fused", "fused64"),
            ("tiny", "launch", "-", "default", "speedup_graph", "graph64")]
MODEL_HEAD = ["launch_id", "kernel", "grid_x", "block_x", "bottleneck.verdict",
              "bottleneck.bottleneck", "bottleneck.wait_on", "bottleneck.share",
              "bottleneck.measured_us", "bottleneck.speedup_x2", "bottleneck.speedup_fused",
              "bottleneck.speedup_graph", "waves.T_us", "waves.T_2G_us", "waves.T_halfG_us",
              "waves.T_2b_halfG_us", "waves.T_halfb_2G_us", "waves.tgb_from"]


def model_row(i, kernel, G, B, verdict, named, wait, x2="", fused="", graph="", waves=None):
    w = waves or ["", "", "", "", "", ""]
    return [i, kernel, G, B, verdict, named, wait, "0.3", "100", x2, fused, graph] + w


def make_run(d, verdict="latency", wait="wait", x2="1.95", fused="2.0", floor_cut=1.0,
             sweep_off=1.0, extra_launch=False):
    """A consistent run in d; the keywords put one wrong answer in it."""
    write(os.path.join(d, "expected.csv"), ["case", "verdict", "cause", "metrics", "whatif", "twin"],
          EXPECTED, comment="# made up for the test\n")
    write(os.path.join(d, "cases.csv"), ["case", "kind", "chains", "blocks", "threads", "iters"], CASES)
    write(os.path.join(d, "cases.times.csv"),
          ["case", "kernel", "blocks", "threads", "launches", "median_us", "min_us", "max_us"],
          [("chain_w1", "chain_w1", 132, 32, 1, "100", "99", "101"),
           ("chain_w2", "chain_w2", 132, 64, 1, "50", "49", "51"),
           ("tiny", "tiny", 1, 32, 1, "3", "3", "3"),
           ("stream64", "tiny", 1, 32, 64, "4.4", "4.3", "4.5"),
           ("graph64", "tiny", 1, 32, 64, "3.3", "3.2", "3.4"),
           ("fused64", "fused", 1, 32, 64, "2.2", "2.2", "2.2")])
    rows = [model_row(0, "lb_hold", 1, 1, "-", "-", "-"),
            model_row(1, "lb_ffma<1>", 132, 32, verdict, "latency", wait, x2=x2),
            model_row(2, "lb_ffma<1>", 132, 64, "latency", "latency", "wait"),
            model_row(3, "lb_ffma<1>", 1, 32, "launch", "launch", "-", fused=fused, graph="1.33")]
    if extra_launch:
        rows.append(model_row(4, "lb_ffma<1>", 1, 32, "launch", "launch", "-"))
    write(os.path.join(d, "cases.model.csv"), MODEL_HEAD, rows,
          comment="# kernels by GPU time: ...\n# rank,kernel\n")
    # the sweep: b = 1 at G = 66, 132, 264 (one wave: the same 40 us) and
    # b = 2 at 132 (40 us); every prediction right unless told
    times = {(1, 66): 40.0, (1, 132): 40.0, (1, 264): 40.0, (2, 132): 40.0}
    write(os.path.join(d, "sweep.times.csv"), ["point", "b", "G", "median_us", "min_us", "max_us"],
          [("b%d_G%d" % k, k[0], k[1], t, t, t) for k, t in times.items()])
    srows = []
    for i, (b, G) in enumerate(times):
        T = 41.0  # the profiled durations: 1 us more than the events, the ratio is what counts
        p2G = T * sweep_off if (b, G) == (1, 66) else T
        phalf = T * floor_cut if (b, G) == (1, 264) else T
        srows.append(model_row(i, "lb_ffma<1>", G, 32 * b, "latency", "latency", "wait",
                               waves=[T, p2G, phalf, T, T, "latency (measured)"]))
    write(os.path.join(d, "sweep.model.csv"), MODEL_HEAD, srows)


def add_second_chain_count(d, off=1.0):
    """The sweep of make_run again with two chains per thread (lb_ffma<2>):
    the same (b, G) points, a chains column in the times; `off` scales its
    2G prediction from b = 1, G = 66."""
    tpath, mpath = os.path.join(d, "sweep.times.csv"), os.path.join(d, "sweep.model.csv")
    with open(tpath) as f:
        trows = list(csv.DictReader(f))
    with open(mpath) as f:
        mrows = list(csv.reader(f))
    write(tpath, ["point", "chains", "b", "G", "median_us", "min_us", "max_us"],
          [[r["point"], k, r["b"], r["G"], r["median_us"], r["min_us"], r["max_us"]]
           for k in (1, 2) for r in trows])
    two = []
    for i, r in enumerate(mrows[1:]):
        r2 = list(r)
        r2[0] = str(len(mrows) - 1 + i)
        r2[1] = "lb_ffma<2>"
        if (r2[2], r2[3]) == ("66", "32"):
            r2[13] = str(float(r2[13]) * off)
        two.append(r2)
    write(mpath, mrows[0], mrows[1:] + two)


def run(d):
    p = subprocess.run([sys.executable, ANALYZE, d, "--expected", os.path.join(d, "expected.csv")],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class AnalyzeTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="lb_analyze.")

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_consistent_run_passes(self):
        make_run(self.d)
        rc, out = run(self.d)
        self.assertEqual(rc, 0, out)
        self.assertIn("ALL PASS", out)
        with open(os.path.join(self.d, "checks.csv")) as f:
            checks = list(csv.DictReader(f))
        self.assertEqual(len(checks), 4)
        x2 = checks[0]
        # measured 100 / 50 = 2x, predicted 1.95x: -2.5%
        self.assertAlmostEqual(float(x2["measured"]), 2.0)
        self.assertAlmostEqual(float(x2["error"]), -0.025)
        # fused: stream 4.4 us a launch over 2.2 a fused step = 2x; graph 4.4 / 3.3
        self.assertAlmostEqual(float(checks[2]["measured"]), 2.0)
        self.assertAlmostEqual(float(checks[3]["measured"]), 4.4 / 3.3, places=5)
        with open(os.path.join(self.d, "sweep.csv")) as f:
            sweep = list(csv.DictReader(f))
        # b = 1: G = 66 -> 132 (2G), 132 -> 264, 264 -> 132 (G/2), 132 -> 66;
        # (b/2, 2G) from b = 2, G = 132 -> b = 1, G = 264; (2b, G/2) from b = 1,
        # G = 264 -> b = 2, G = 132
        self.assertEqual(len(sweep), 6)
        self.assertTrue(all(abs(float(r["error"])) < 1e-9 for r in sweep))

    def test_wrong_verdict_fails(self):
        make_run(self.d, verdict="unit")
        rc, out = run(self.d)
        self.assertEqual(rc, 1, out)
        self.assertIn("SOME CHECKS FAIL", out)

    def test_wrong_cause_fails(self):
        make_run(self.d, wait="long scoreboard")
        self.assertEqual(run(self.d)[0], 1)

    def test_whatif_off_by_20_percent_fails(self):
        make_run(self.d, x2="2.4")  # 2.4 / 2 - 1 = +20%
        self.assertEqual(run(self.d)[0], 1)
        make_run(self.d, x2="2.28")  # +14%: within 15%
        self.assertEqual(run(self.d)[0], 0)
        make_run(self.d, fused="1.6")  # -20%
        self.assertEqual(run(self.d)[0], 1)

    def test_sweep_worst_over_10_percent_fails(self):
        make_run(self.d, sweep_off=1.11)
        rc, out = run(self.d)
        self.assertEqual(rc, 1, out)
        self.assertIn("worst 11.00%", out)

    def test_two_chain_counts_are_kept_apart(self):
        make_run(self.d)
        add_second_chain_count(self.d)
        rc, out = run(self.d)
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.d, "sweep.csv")) as f:
            sweep = list(csv.DictReader(f))
        self.assertEqual(sorted(r["chains"] for r in sweep), ["1"] * 6 + ["2"] * 6)
        self.assertIn("2 chains per thread", out)
        # the 2-chain sweep's 2G from (1, 66) 11% off: its row fails, not the 1-chain one
        make_run(self.d)
        add_second_chain_count(self.d, off=1.11)
        rc, out = run(self.d)
        self.assertEqual(rc, 1, out)
        self.assertIn("worst 11.00% (T_2G_us at 2 chains, b = 1, G = 66", out)

    def test_below_a_single_wave_fails(self):
        # half the grid predicted at half the time: under the 40 us every grid takes
        make_run(self.d, floor_cut=0.5)
        rc, out = run(self.d)
        self.assertEqual(rc, 1, out)
        self.assertIn("1 below a single wave", out)

    def test_launch_count_mismatch_is_an_input_error(self):
        make_run(self.d, extra_launch=True)
        rc, out = run(self.d)
        self.assertEqual(rc, 2, out)
        self.assertIn("4 profiled launches for 3 cases", out)

    def test_missing_file_is_an_input_error(self):
        make_run(self.d)
        os.unlink(os.path.join(self.d, "cases.times.csv"))
        self.assertEqual(run(self.d)[0], 2)


@unittest.skipUnless(os.environ.get("LB_GPUQ"), "LB_GPUQ (the gpuq binary) not set")
class ModelColumnsTest(unittest.TestCase):
    """gpuq model writes every column analyze.py reads (on a recording with
    every section's counters and the shipped machine data)."""

    def test_columns_exist(self):
        root = os.path.join(HERE, "..", "..")
        rec = os.path.join(root, "data", "recorded",
                           "histogram-hist-solid-4m-nvidia-h100-80gb-hbm3.all-units.counters.csv")
        env = dict(os.environ, GPUQ_TABLE_DIR=os.path.join(root, "tables"))
        p = subprocess.run([os.environ["LB_GPUQ"], "model", "-f", "csv", rec], capture_output=True,
                           text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        head = next(csv.reader(l for l in p.stdout.splitlines() if not l.startswith("#")))
        analyze = load("lb_analyze", ANALYZE)
        missing = [c for c in analyze.MODEL_COLUMNS if c not in head]
        self.assertEqual(missing, [])


class SassTest(unittest.TestCase):
    def test_dropped_chain_is_caught(self):
        sass = load("lb_check_sass", os.path.join(LB, "check_sass.py"))
        ffma = ["FFMA R2, R2, R3, R4"] * 64 + ["STG.E [R6.64], R2"]
        label, _, problems = sass.check_function("_Z7lb_ffmaILi1EEviffPf", ffma)
        self.assertEqual((label, problems), ("lb_ffma<1>", []))
        _, _, problems = sass.check_function("_Z7lb_ffmaILi4EEviffPf", ffma)
        self.assertEqual(len(problems), 1)  # 64 of the 256 a 4-chain kernel needs
        _, _, problems = sass.check_function("_Z7lb_ffmaILi1EEviffPf", ffma[:-1])
        self.assertIn("no global store", problems[0])
        _, _, problems = sass.check_function("_Z8lb_chasePKjiPj",
                                             ["LDG.E.STRONG.GPU R2, [R2.64]", "STG.E [R4.64], R2"])
        self.assertEqual(problems, [])
        _, _, problems = sass.check_function("_Z8lb_chasePKjiPj", ["LDG.E R2, [R2.64]"])
        self.assertEqual(len(problems), 2)
        self.assertIsNone(sass.check_function("_Z7lb_holdx", []))


@unittest.skipUnless(os.path.isdir(RECORDED), "no recorded H200 run in data/recorded yet")
class RecordedRunTest(unittest.TestCase):
    """The analysis made again on the recorded run gives its committed tables."""

    def test_tables_reproduce(self):
        d = tempfile.mkdtemp(prefix="lb_recorded.")
        try:
            for name in os.listdir(RECORDED):
                if name.endswith(".csv") and name not in ("checks.csv", "sweep.csv"):
                    shutil.copy(os.path.join(RECORDED, name), d)
            rc, out = run_recorded(d)
            self.assertIn(rc, (0, 1), out)
            for name in ("checks.csv", "sweep.csv"):
                self.assertTrue(filecmp.cmp(os.path.join(d, name), os.path.join(RECORDED, name),
                                            shallow=False), name + " differs from the recorded one")
        finally:
            shutil.rmtree(d)


@unittest.skipUnless(os.environ.get("LB_GPUQ") and os.path.isdir(os.path.join(RECORDED, "reanalysis")),
                     "LB_GPUQ (the gpuq binary) not set, or no reanalysis of the recorded run")
class ReanalysisTest(unittest.TestCase):
    """The model and the analysis made again on the recorded run with the
    gpuq built (validation/latency-bound/reanalyze.sh) give the tables of
    its reanalysis/ folder."""

    def test_reanalysis_reproduces(self):
        root = os.path.join(HERE, "..", "..")
        d = tempfile.mkdtemp(prefix="lb_reanalysis.")
        try:
            p = subprocess.run(["sh", os.path.join(LB, "reanalyze.sh"), os.environ["LB_GPUQ"],
                                RECORDED, d], capture_output=True, text=True, cwd=root)
            self.assertIn(p.returncode, (0, 1), p.stdout + p.stderr)
            for name in ("checks.csv", "sweep.csv"):
                self.assertTrue(filecmp.cmp(os.path.join(d, name),
                                            os.path.join(RECORDED, "reanalysis", name),
                                            shallow=False),
                                name + " differs from reanalysis/" + name)
        finally:
            shutil.rmtree(d)


def run_recorded(d):
    p = subprocess.run([sys.executable, ANALYZE, d], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


if __name__ == "__main__":
    unittest.main()
